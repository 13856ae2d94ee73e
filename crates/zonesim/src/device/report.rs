//! The `device` section of the report: [`Device::report`] assembles a typed
//! [`DeviceReport`] from the NAND and L2P SRAM counters and what each namespace reports about
//! itself through the contract ([`crate::firmware::Ftl::counters`], `report`, `sample`):
//! one loop adds the namespaces' counters up, whatever their kinds (schema: docs/report.md,
//! docs/zoned.md, docs/placement.md). Nothing here makes JSON; `stats` serializes.

use super::{Device, Namespace};
use crate::config::SlcGranularity;
use crate::firmware::alloc::placement::Placement;
use crate::firmware::cost::Cpu;
use crate::firmware::counters::EntryCounters;
use crate::firmware::gc::GcStats;
use crate::firmware::report::GcDetail;
use crate::firmware::{NsCounters, NsSample};
use crate::interface::zone::ZoneErrorLog;
use crate::nand::{FlashCounters, Geometry, NandArray};
use crate::stats::device::{
    BloomReport, BloomSaturationReport, BufferReport, DeviceReport, EraseSummary,
    FlashErrorsReport, FlashReport, GcReport, GcarReport, L2pReport, LinkBytes, MovedPerVictim,
    PlacementReport, PlacementSection, RegionWear, SlcReport, StreamGcReport, WearLife, WearReport,
    ZonedL2pReport, ZonesReport,
};
use crate::stats::{ratio, SeriesSection};
use std::collections::BTreeMap;

/// The namespaces' counters added up, with what `device.gc` and `device.l2p.zoned` summarise
/// beyond sums.
#[derive(Default)]
struct Totals {
    c: NsCounters,
    /// Map reads of the namespaces with zone / chunk / page entries (`device.l2p.zoned`).
    entry_map_reads: u64,
    /// Superblock GC: victim statistics merged, the most streams, one placement each.
    gc_stats: GcStats,
    streams: usize,
    placements: Vec<PlacementReport>,
}

impl Totals {
    fn add(&mut self, c: &NsCounters, gc: Option<GcDetail>) {
        if c.entries.is_some() {
            self.entry_map_reads += c.map_reads;
        }
        self.c += c;
        if let Some(d) = gc {
            self.gc_stats.merge(d.stats);
            self.streams = self.streams.max(d.streams);
            self.placements.push(placement_report(d.placement, d.cpu));
        }
    }
}

impl Device {
    /// (4 KiB slots programmed on flash, 4 KiB pages written by the host) so far.
    pub fn write_volume(&self) -> (u64, u64) {
        let host = self
            .namespaces
            .iter()
            .map(|ns| ns.counters().host_write_pages)
            .sum::<u64>();
        (self.nand.counters.programmed_slots, host)
    }

    /// Zone errors of every zoned namespace, merged.
    pub fn zone_errors(&self) -> ZoneErrorLog {
        let mut log = ZoneErrorLog::new();
        for z in self.namespaces.iter().filter_map(Namespace::zones) {
            log.merge(z.errors);
        }
        log
    }

    /// Write amplification so far: 4 KiB slots programmed per 4 KiB page written by the host.
    pub fn waf(&self) -> f64 {
        let (programmed, host) = self.write_volume();
        ratio(programmed, host)
    }

    /// The `device` section of the report.
    pub fn report(&self) -> DeviceReport {
        let mut t = Totals::default();
        let mut namespaces = Vec::with_capacity(self.namespaces.len());
        for (i, ns) in self.namespaces.iter().enumerate() {
            let r = ns.report(i);
            t.add(&ns.counters(), r.gc);
            namespaces.push(r.entry);
        }
        let c = &t.c;
        let fc = &self.nand.counters;
        let errors = self.zone_errors();
        let zones = c.zones.clone().unwrap_or_default();
        let (host_to_device, device_to_host) = self.link.bytes_moved();
        DeviceReport {
            name: self.cfg.name.clone(),
            capacity_bytes: self.capacity_bytes(0),
            waf: self.waf(),
            host_pages_written: c.host_write_pages,
            flash: FlashReport {
                page_reads: fc.page_reads,
                page_programs: fc.page_programs,
                block_erases: fc.block_erases,
                programmed_slots: fc.programmed_slots,
                die_busy_ns: fc.die_busy_ns,
                suspensions: fc.suspensions,
                errors: self.nand.error_counters().map(flash_errors_report),
            },
            gc: gc_report(&t, fc),
            l2p: self.l2p_report(&t),
            buffer: buffer_report(c),
            slc: self.slc_report(c),
            zones: ZonesReport {
                first_errors: errors.first_errors().to_vec(),
                errors,
                resets: zones.resets,
                finishes: zones.finishes,
            },
            unwritten_reads: c.unwritten_reads,
            unwritten_read_fraction: ratio(c.unwritten_reads, c.host_read_pages),
            out_of_range: self.out_of_range,
            wear: self.wear(c),
            namespaces,
            copy_commands: c.copy_commands,
            copy_pages: c.copy_pages,
            link_bytes: LinkBytes {
                host_to_device,
                device_to_host,
                shown: c.copy_commands > 0,
            },
        }
    }

    /// `device.l2p`: the shared SRAM's map-page cache and the zone / chunk / page entries.
    fn l2p_report(&self, t: &Totals) -> L2pReport {
        let c = &t.c;
        let e = c.entries.clone().unwrap_or_default();
        let pages = &self.sram.pages.counters;
        L2pReport {
            hits: pages.hits + e.hits,
            misses: pages.misses + e.misses,
            writebacks: pages.writebacks,
            map_reads: c.map_reads,
            map_programs: c.map_programs,
            sram_bytes: self.sram.capacity_bytes(),
            sram_used_bytes: self.sram.used_bytes(),
            two_level: c.two_level.clone(),
            cached_map_pages: self.sram.pages.len(),
            zoned: self.entries_report(&e, t.entry_map_reads),
        }
    }

    /// `device.l2p.zoned`: the zone / chunk / page entries.
    fn entries_report(&self, e: &EntryCounters, map_reads: u64) -> ZonedL2pReport {
        ZonedL2pReport {
            hits: e.hits,
            misses: e.misses,
            miss_rate: ratio(e.misses, e.hits + e.misses),
            map_reads,
            entries: self.sram.entries.len(),
            pinned: self.sram.entries.pinned(),
            evictions: self.sram.entries.counters.evictions,
            lookups_zone: e.lookups_zone,
            lookups_chunk: e.lookups_chunk,
            lookups_page: e.lookups_page,
            bitmap_sram_bytes: e.bitmap_sram_bytes,
        }
    }

    /// `device.slc`: every SLC buffer (zoned namespaces' and conventional SLC caches').
    fn slc_report(&self, c: &NsCounters) -> SlcReport {
        let s = c.slc.clone().unwrap_or_default();
        // Zone granularity applies to the SLC buffers of zoned namespaces only.
        let zoned = self.namespaces.iter().any(|n| n.zones().is_some());
        SlcReport {
            pages_written: s.slc_buffered_pages + s.slc_gc_pages_moved,
            pages_migrated: c.slc_pages_migrated(),
            gc_pages_moved: s.slc_gc_pages_moved,
            gc_victims: s.slc_gc_victims,
            direct_erases: s.slc_direct_erases,
            granularity: match self.cfg.slc.granularity {
                SlcGranularity::Zone if zoned => "zone",
                _ => "page",
            },
        }
    }

    /// `device.wear`: erase counts over all blocks, and over each namespace's blocks (`ns{i}`)
    /// and SLC rows (`ns{i}_slc`).
    fn wear(&self, c: &NsCounters) -> WearReport {
        let all = EraseSummary::of(self.nand.erase_counts().iter().copied());
        let mut regions = BTreeMap::new();
        for (i, r) in self.regions.iter().enumerate() {
            regions.insert(format!("ns{i}"), region_wear(&r.blocks, &self.nand));
            if let Some(g) = &r.slc {
                regions.insert(format!("ns{i}_slc"), region_wear(g, &self.nand));
            }
        }
        WearReport {
            erase_min: all.min,
            erase_max: all.max,
            erase_mean: all.mean,
            erase_stddev: all.stddev,
            regions,
            life: c.wear.as_ref().map(|w| WearLife::of(w, c.host_write_pages)),
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
        let mut s = NsSample::default();
        for ns in &self.namespaces {
            s += &ns.sample();
        }
        out.extend([
            self.waf(),
            s.free_superblocks as f64,
            s.gc_pages_moved as f64,
            s.slc_valid_pages as f64,
            s.slc_free_superblocks as f64,
            s.buffer_pages as f64,
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

/// `device.buffer`: the write buffers of every namespace.
fn buffer_report(c: &NsCounters) -> BufferReport {
    let b = &c.buffer;
    let s = c.slc.clone().unwrap_or_default();
    BufferReport {
        full_flushes: b.full_flushes,
        premature_flushes: b.premature_flushes,
        host_flushes: b.host_flushes,
        host_forced_flushes: b.host_forced_flushes,
        flushes_to_slc: s.flushes_to_slc,
        slc_buffered_pages: s.slc_buffered_pages,
        migrated_pages: c.slc_pages_migrated(),
        write_hits: b.write_hits,
        read_hits: b.read_hits,
        stall_ns: b.stall_ns,
        padding_slots: c.padding_slots,
    }
}

/// `device.gc`: superblock GC of the namespaces that have one (schema: docs/placement.md).
fn gc_report(t: &Totals, flash: &FlashCounters) -> GcReport {
    let g = t.c.gc.clone().unwrap_or_default();
    GcReport {
        pages_moved: g.pages_moved,
        victims: g.victims,
        foreground_victims: g.foreground_victims,
        background_victims: g.background_victims,
        time_share: ratio(flash.background_busy_ns, flash.die_busy_ns),
        suspensions: flash.suspensions,
        pages_moved_per_victim: moved_per_victim(&t.gc_stats),
        per_stream: per_stream(&t.gc_stats, t.streams),
        placement: PlacementSection::new(t.placements.clone()),
        cpu_busy_ns: g.cpu_busy_ns,
        cpu_wait_ns: g.cpu_wait_ns,
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

/// The classifier's own resources (`device.gc.placement`) and the cores its cost runs on.
fn placement_report(p: &Placement, cpu: &Cpu) -> PlacementReport {
    PlacementReport {
        policy: p.policy().name(),
        streams: p.streams(),
        cores_busy_ns: (cpu.cores() > 1).then(|| cpu.core_busy_ns().to_vec()),
        bloom: match p {
            Placement::Bloom(b) => Some(BloomReport {
                saturation: b.records_gc().then(|| {
                    let (fill, fp) = b.saturation();
                    BloomSaturationReport {
                        gc_inserts: b.gc_inserts,
                        fill_mean: fill,
                        fp_rate_mean: fp,
                    }
                }),
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

/// `device.flash`'s error fields from the error model's counters.
fn flash_errors_report(e: &crate::nand::ErrorCounters) -> FlashErrorsReport {
    FlashErrorsReport {
        checked_reads: e.checked_reads,
        read_retries: e.read_retries,
        retries_per_read: ratio(e.read_retries, e.checked_reads),
        retry_histogram: e.retry_histogram.clone(),
        soft_decodes: e.soft_decodes,
        uncorrectable_reads: e.uncorrectable_reads,
        media_errors: e.media_errors,
    }
}
