//! The `device` section of the report: [`Device::report`] assembles a typed
//! [`DeviceReport`] from the NAND, L2P SRAM and FTL counters (schema: docs/report.md,
//! docs/zoned.md, docs/placement.md). Nothing here makes JSON; `stats` serializes.

use super::{Device, Namespace};
use crate::config::{SlcPolicy, SlcWriteback};
use crate::firmware::alloc::placement::Placement;
use crate::firmware::alloc::SlcCounters;
use crate::firmware::buffer::BufferCounters;
use crate::firmware::conventional::{PageFtl, SlcCache};
use crate::firmware::gc::GcStats;
use crate::firmware::mapping::TwoLevelCounters;
use crate::firmware::zoned::ZonedFtl;
use crate::interface::zone::{ZoneErrorLog, ZoneId};
use crate::nand::{FlashCounters, Geometry, NandArray, SLOT_BYTES};
use crate::stats::device::{
    BloomReport, BufferReport, ConventionalNsReport, ConventionalSlcReport, DeviceReport,
    EraseSummary, FlashReport, GcReport, GcarReport, L2pReport, LinkBytes, MovedPerVictim,
    NamespaceReport, PlacementReport, PlacementSection, RegionWear, SlcReport, StreamGcReport,
    WearReport, ZonedL2pReport, ZonedNsReport, ZonesReport,
};
use crate::stats::SeriesSection;
use std::collections::BTreeMap;

impl Device {
    fn ftls(&self) -> impl Iterator<Item = &PageFtl> {
        self.namespaces
            .iter()
            .filter_map(Namespace::as_conventional)
    }

    fn zftls(&self) -> impl Iterator<Item = &ZonedFtl> {
        self.namespaces.iter().filter_map(Namespace::as_zoned)
    }

    /// (4 KiB slots programmed on flash, 4 KiB pages written by the host) so far.
    pub fn write_volume(&self) -> (u64, u64) {
        let host = self
            .namespaces
            .iter()
            .map(|ns| ns.io_counters().host_write_pages)
            .sum::<u64>();
        (self.nand.counters.programmed_slots, host)
    }

    /// The two-level map counters of the conventional namespaces, merged (None without).
    fn two_level_counters(&self) -> Option<TwoLevelCounters> {
        let mut all = self.ftls().filter_map(PageFtl::two_level).peekable();
        all.peek()?;
        let mut c = TwoLevelCounters::default();
        for t in all {
            c.merge(&t.counters);
        }
        Some(c)
    }

    /// Zone errors of every zoned namespace, merged.
    pub fn zone_errors(&self) -> ZoneErrorLog {
        let mut log = ZoneErrorLog::new();
        for z in self.zftls() {
            log.merge(&z.errors);
        }
        log
    }

    /// Write amplification so far: 4 KiB slots programmed per 4 KiB page written by the host.
    pub fn waf(&self) -> f64 {
        let (programmed, host) = self.write_volume();
        if host == 0 {
            0.0
        } else {
            programmed as f64 / host as f64
        }
    }

    /// The `device` section of the report.
    pub fn report(&self) -> DeviceReport {
        let (_, host) = self.write_volume();
        let waf = self.waf();
        let sum = |f: fn(&PageFtl) -> u64| -> u64 { self.ftls().map(f).sum() };
        let zsum = |f: fn(&ZonedFtl) -> u64| -> u64 { self.zftls().map(f).sum() };
        // Every SLC buffer's counters: the zoned namespaces' and the conventional SLC caches'.
        let ssum = |f: fn(&SlcCounters) -> u64| -> u64 {
            let caches = self.ftls().filter_map(PageFtl::slc_cache);
            self.zftls().map(|z| f(&z.counters.slc)).sum::<u64>()
                + caches.map(|c| f(&c.counters)).sum::<u64>()
        };
        let buf = |f: fn(&BufferCounters) -> u64| -> u64 {
            self.ftls().map(|x| f(&x.buffer().counters)).sum()
        };
        let fc = &self.nand.counters;
        let namespaces = self
            .namespaces
            .iter()
            .enumerate()
            .map(|(i, ns)| match ns {
                Namespace::Conventional(f) => NamespaceReport::Conventional(ConventionalNsReport {
                    id: i,
                    capacity_bytes: f.logical_pages() * SLOT_BYTES,
                    slc_only: self.slc_ns[i],
                    free_superblocks: f.free_superblocks(),
                    slc: f.slc_cache().map(conventional_slc_report),
                }),
                Namespace::Zoned(z) => NamespaceReport::Zoned(zoned_ns_report(i, z)),
            })
            .collect();
        let errors = self.zone_errors();
        let zl2p_hits = zsum(|z| z.counters.map.l2p_hits);
        let zl2p_misses = zsum(|z| z.counters.map.l2p_misses);
        let pages = &self.sram.pages.counters;
        let copy_commands = sum(|f| f.counters.copy_commands) + zsum(|z| z.counters.copy_commands);
        let (host_to_device, device_to_host) = self.link.bytes_moved();
        DeviceReport {
            name: self.cfg.name.clone(),
            capacity_bytes: self.capacity_bytes(0),
            waf,
            host_pages_written: host,
            flash: FlashReport {
                page_reads: fc.page_reads,
                page_programs: fc.page_programs,
                block_erases: fc.block_erases,
                programmed_slots: fc.programmed_slots,
                die_busy_ns: fc.die_busy_ns,
                suspensions: fc.suspensions,
            },
            gc: gc_report(&self.ftls().collect::<Vec<_>>(), fc),
            l2p: L2pReport {
                hits: pages.hits + zl2p_hits,
                misses: pages.misses + zl2p_misses,
                writebacks: pages.writebacks,
                map_reads: sum(|f| f.counters.map_reads) + zsum(|z| z.counters.map.map_reads),
                map_programs: sum(|f| f.counters.map_programs)
                    + zsum(|z| z.counters.map.map_programs),
                sram_bytes: self.sram.capacity_bytes(),
                sram_used_bytes: self.sram.used_bytes(),
                two_level: self.two_level_counters(),
                cached_map_pages: self.sram.pages.len(),
                zoned: ZonedL2pReport {
                    hits: zl2p_hits,
                    misses: zl2p_misses,
                    miss_rate: if zl2p_hits + zl2p_misses == 0 {
                        0.0
                    } else {
                        zl2p_misses as f64 / (zl2p_hits + zl2p_misses) as f64
                    },
                    map_reads: zsum(|z| z.counters.map.map_reads),
                    entries: self.sram.entries.len(),
                    pinned: self.sram.entries.pinned(),
                    evictions: self.sram.entries.counters.evictions,
                    lookups_zone: zsum(|z| z.counters.map.lookups_zone),
                    lookups_chunk: zsum(|z| z.counters.map.lookups_chunk),
                    lookups_page: zsum(|z| z.counters.map.lookups_page),
                    bitmap_sram_bytes: zsum(|z| z.bitmap_sram_bytes()),
                },
            },
            buffer: BufferReport {
                full_flushes: buf(|c| c.full_flushes) + zsum(|z| z.counters.full_flushes),
                premature_flushes: buf(|c| c.premature_flushes)
                    + zsum(|z| z.counters.premature_flushes),
                host_flushes: buf(|c| c.host_flushes) + zsum(|z| z.counters.host_flushes),
                host_forced_flushes: zsum(|z| z.counters.host_forced_flushes),
                flushes_to_slc: ssum(|c| c.flushes_to_slc),
                slc_buffered_pages: ssum(|c| c.slc_buffered_pages),
                migrated_pages: zsum(|z| z.counters.combined_pages) + ssum(|c| c.gc_migrated_pages),
                write_hits: buf(|c| c.write_hits),
                read_hits: buf(|c| c.read_hits) + zsum(|z| z.counters.buffer_read_hits),
                stall_ns: buf(|c| c.stall_ns) + zsum(|z| z.counters.stall_ns),
                padding_slots: sum(|f| f.counters.padding_slots)
                    + zsum(|z| z.counters.padding_slots),
            },
            slc: SlcReport {
                pages_written: ssum(|c| c.slc_buffered_pages + c.slc_gc_pages_moved),
                pages_migrated: zsum(|z| z.counters.combined_pages) + ssum(|c| c.gc_migrated_pages),
                gc_pages_moved: ssum(|c| c.slc_gc_pages_moved),
                gc_victims: ssum(|c| c.slc_gc_victims),
                direct_erases: ssum(|c| c.slc_direct_erases),
                granularity: match self.zftls().next().map(|z| z.slc_granularity()) {
                    Some(crate::config::SlcGranularity::Zone) => "zone",
                    _ => "page",
                },
            },
            zones: ZonesReport {
                first_errors: errors.first_errors().to_vec(),
                errors,
                resets: zsum(|z| z.counters.zone_resets),
                finishes: zsum(|z| z.counters.zone_finishes),
            },
            unwritten_reads: sum(|f| f.counters.unwritten_reads)
                + zsum(|z| z.counters.unwritten_reads),
            out_of_range: self.out_of_range,
            wear: self.wear(),
            namespaces,
            copy_commands,
            copy_pages: sum(|f| f.counters.copy_pages) + zsum(|z| z.counters.copy_pages),
            link_bytes: LinkBytes {
                host_to_device,
                device_to_host,
                shown: copy_commands > 0,
            },
        }
    }

    /// `device.wear`: erase counts over all blocks, and over each conventional FTL's region.
    fn wear(&self) -> WearReport {
        let all = EraseSummary::of(self.nand.erase_counts().iter().copied());
        let regions = self
            .wear_regions
            .iter()
            .map(|(name, g)| (name.clone(), region_wear(g, &self.nand)))
            .collect::<BTreeMap<_, _>>();
        WearReport {
            erase_min: all.min,
            erase_max: all.max,
            erase_mean: all.mean,
            erase_stddev: all.stddev,
            regions,
        }
    }
}

/// The device's columns of the time series (`timeseries`, docs/report.md): its state at the
/// end of each interval, counters since the start of the measured phase.
impl SeriesSection for Device {
    fn series_columns(&self) -> Vec<&'static str> {
        vec![
            "waf",
            "free_superblocks",
            "gc_pages_moved",
            "slc_valid_pages",
            "slc_free_superblocks",
            "buffer_pages",
        ]
    }

    fn sample_series(&self, out: &mut Vec<f64>) {
        let sum = |f: fn(&PageFtl) -> u64| -> u64 { self.ftls().map(f).sum() };
        let zsum = |f: fn(&ZonedFtl) -> u64| -> u64 { self.zftls().map(f).sum() };
        out.extend([
            self.waf(),
            sum(|f| f.free_superblocks().into()) as f64,
            (sum(|f| f.counters.gc_pages_moved) + zsum(|z| z.counters.slc.slc_gc_pages_moved))
                as f64,
            (zsum(ZonedFtl::slc_valid_pages) + sum(PageFtl::slc_valid_pages)) as f64,
            (zsum(|z| z.slc_free_superblocks().into())
                + sum(|f| f.slc_cache().map_or(0, |c| c.free_superblocks().into())))
                as f64,
            (sum(|f| f.buffer().buffered().into()) + zsum(ZonedFtl::buffered_pages)) as f64,
        ]);
    }
}

/// Erase-count summary of the blocks of one region of the array (`device.wear.regions.*`).
fn region_wear(g: &Geometry, nand: &NandArray) -> RegionWear {
    let counts = nand.erase_counts();
    let blocks = g.first_block..g.first_block + g.superblocks;
    let (dies, planes) = (g.dies, g.planes);
    let it = (0..dies)
        .flat_map(move |d| (0..planes).map(move |p| (d, p)))
        .flat_map(move |(d, p)| {
            blocks
                .clone()
                .map(move |b| g.block_index(g.phys_die(d), p, b))
        })
        .map(|i| counts[i]);
    let s = EraseSummary::of(it);
    RegionWear {
        erase_min: s.min,
        erase_max: s.max,
        erase_mean: s.mean,
        erase_stddev: s.stddev,
        blocks: s.blocks,
        cell: g.cell.name(),
    }
}

/// A conventional namespace's SLC write cache (`device.namespaces[i].slc`).
fn conventional_slc_report(c: &SlcCache) -> ConventionalSlcReport {
    ConventionalSlcReport {
        policy: match c.policy() {
            SlcPolicy::Bypass => "bypass",
            SlcPolicy::All => "all",
        },
        superblocks: c.superblocks(),
        free_superblocks: c.free_superblocks(),
        valid_pages: c.valid_pages(),
        counters: c.counters.clone(),
        writeback: match c.wb.mode {
            SlcWriteback::Full => None,
            SlcWriteback::Idle => Some("idle"),
            SlcWriteback::Threshold => Some("threshold"),
        },
        writeback_counters: (c.wb.mode != SlcWriteback::Full).then(|| c.wb.counters.clone()),
    }
}

/// One zoned namespace (`device.namespaces[i]`, kind `zoned`).
fn zoned_ns_report(id: usize, z: &ZonedFtl) -> ZonedNsReport {
    let zc = z.zone_config();
    let mut zone_conditions = BTreeMap::new();
    for zone in 0..zc.zones {
        *zone_conditions
            .entry(z.zones.condition(ZoneId(zone)).as_str())
            .or_insert(0) += 1;
    }
    ZonedNsReport {
        id,
        capacity_bytes: zc.zones as u64 * zc.zone_capacity * SLOT_BYTES,
        zone_size_bytes: zc.zone_size * SLOT_BYTES,
        zone_capacity_bytes: zc.zone_capacity * SLOT_BYTES,
        zones: zc.zones,
        max_open: zc.max_open,
        max_active: zc.max_active,
        zone_conditions,
        regular_free_units: z.regular_free_units(),
        regular_units: z.regular_total_units(),
        slc_free_superblocks: z.slc_free_superblocks(),
        counters: z.counters.clone(),
        zmt_bytes: z.zone_map().map(|m| m.zmt_bytes()),
        zone_map: z.zone_map().map(|m| m.counters.clone()),
        zabm: z.buffers().zabm().cloned(),
        ipu: z.ipu().cloned(),
    }
}

/// `device.gc` over the conventional FTLs of a device (schema: docs/placement.md).
fn gc_report(ftls: &[&PageFtl], flash: &FlashCounters) -> GcReport {
    let sum = |f: fn(&PageFtl) -> u64| -> u64 { ftls.iter().map(|x| f(x)).sum() };
    let mut stats = GcStats::default();
    let mut streams = 0;
    for f in ftls {
        stats.merge(&f.gc_stats);
        streams = streams.max(f.streams());
    }
    GcReport {
        pages_moved: sum(|f| f.counters.gc_pages_moved),
        victims: sum(|f| f.counters.gc_victims),
        foreground_victims: sum(|f| f.counters.gc_foreground_victims),
        background_victims: sum(|f| f.counters.gc_background_victims),
        time_share: if flash.die_busy_ns == 0 {
            0.0
        } else {
            flash.background_busy_ns as f64 / flash.die_busy_ns as f64
        },
        suspensions: flash.suspensions,
        pages_moved_per_victim: moved_per_victim(&stats),
        per_stream: per_stream(&stats, streams),
        placement: PlacementSection::new(
            ftls.iter()
                .map(|f| placement_report(f.placement()))
                .collect(),
        ),
        cpu_busy_ns: sum(|f| f.cpu().busy_ns),
        cpu_wait_ns: sum(|f| f.cpu().wait_ns),
    }
}

/// `{min, mean, p50, max, victims}` of pages moved per victim.
fn moved_per_victim(stats: &GcStats) -> MovedPerVictim {
    let h = &stats.moved_per_victim;
    if h.is_empty() {
        return MovedPerVictim {
            min: 0,
            mean: 0.0,
            p50: 0,
            max: 0,
            victims: 0,
        };
    }
    MovedPerVictim {
        min: h.min(),
        mean: h.mean(),
        p50: h.value_at_quantile(0.5),
        max: h.max(),
        victims: h.len(),
    }
}

/// One entry per stream `0..streams`.
fn per_stream(stats: &GcStats, streams: usize) -> Vec<StreamGcReport> {
    (0..streams.min(stats.stream_victims.len()))
        .map(|s| {
            let v = stats.stream_victims[s];
            StreamGcReport {
                stream: s,
                victims: v,
                valid_ratio_at_victim_mean: if v == 0 {
                    0.0
                } else {
                    stats.stream_valid_ratio_sum[s] / v as f64
                },
            }
        })
        .collect()
}

/// The classifier's own resources (`device.gc.placement`).
fn placement_report(p: &Placement) -> PlacementReport {
    PlacementReport {
        policy: p.policy().name(),
        streams: p.streams(),
        bloom: match p {
            Placement::Bloom(b) => Some(BloomReport {
                filters: b.filters(),
                hash_functions: b.hash_functions(),
                window_pages: b.window_pages(),
                sram_bytes: b.sram_bytes(),
                hash_ops: b.hash_ops,
                decays: b.decays,
                hot_writes: b.hot_writes,
                cold_writes: b.cold_writes,
            }),
            _ => None,
        },
        gcar: match p {
            Placement::Gcar(g) => Some(GcarReport {
                cache_pages: g.capacity() as u64,
                kept_pages: g.kept,
                read_hits: g.read_hits,
            }),
            _ => None,
        },
    }
}
