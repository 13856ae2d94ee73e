//! A whole simulated device: the NAND array, the host link and the L2P cache shared by its
//! namespaces, and the namespaces with their FTLs. [`Device::submit`] takes one device
//! [`Command`] at its arrival time and returns its [`Completion`]; all device state changes at
//! arrival (the analytic timelines place each flash operation in the future).

mod namespace;
mod plan;

pub use namespace::Namespace;
pub use plan::{gc_reserve_superblocks, plan, validate, zone_geometry, NsPlan, Rows};

use crate::config::{CellType, DeviceConfig};
use crate::engine::SimTime;
use crate::error::{Error, Result};
use crate::firmware::conventional::PageFtl;
use crate::firmware::mapping::L2pSram;
use crate::firmware::zoned::ZonedFtl;
use crate::firmware::Lent;
use crate::interface::zone::{ZoneErrorLog, ZoneId};
use crate::interface::{Command, Completion, Link, Op};
use crate::nand::{NandArray, SLOT_BYTES};

pub struct Device {
    pub cfg: DeviceConfig,
    pub nand: NandArray,
    pub link: Link,
    /// The L2P SRAM shared by all namespaces: map pages of conventional namespaces (DFTL) and
    /// zone / chunk / page entries of zoned ones, one budget, one LRU order.
    pub sram: L2pSram,
    pub namespaces: Vec<Namespace>,
    /// Requests addressing beyond their namespace's capacity (rejected).
    pub out_of_range: u64,
    /// Whether each conventional namespace lives in SLC blocks.
    slc_ns: Vec<bool>,
    overhead_ns: u64,
    /// When the last run on this device ended (the next run starts no earlier).
    pub clock: SimTime,
}

impl Device {
    /// Build the device. The config must obey its own rules ([`DeviceConfig::load`] checks
    /// them); the rules of the namespace plan are checked here ([`validate`]).
    pub fn new(cfg: &DeviceConfig, seed: u64) -> Result<Device> {
        let mut nand = NandArray::new(cfg);
        // GC preemption (ftl.gc.preemptible) and migration preemption
        // (sched.preempt_migration) both let host operations suspend background work.
        let mut preemption = crate::firmware::conventional::gc_preemption(cfg);
        if cfg.sched.preempt_migration {
            preemption.reads = true;
            preemption.writes = true;
        }
        nand.set_preemption(preemption);
        let plans = plan(cfg)?;
        let geo = nand.geo.clone();
        let mut namespaces = Vec::new();
        let mut slc_ns = Vec::new();
        let mut map_base = 0u32;
        for (i, p) in plans.iter().enumerate() {
            match *p {
                NsPlan::Conventional {
                    rows,
                    slc,
                    logical_pages,
                } => {
                    let cell = if slc { CellType::Slc } else { geo.cell };
                    let view = geo.region(rows.first, rows.count, cell);
                    let f = PageFtl::new(
                        cfg,
                        view,
                        logical_pages,
                        map_base,
                        seed.wrapping_add(i as u64),
                    );
                    map_base += PageFtl::map_pages_for(cfg, logical_pages);
                    namespaces.push(Namespace::from(f));
                    slc_ns.push(slc);
                }
                NsPlan::Zoned {
                    zone,
                    rows,
                    slc_rows,
                    units_per_zone,
                    sub_block,
                } => {
                    namespaces.push(Namespace::from(ZonedFtl::new(
                        cfg,
                        i as u8,
                        &geo,
                        zone,
                        (rows.first, rows.count),
                        (slc_rows.first, slc_rows.count),
                        units_per_zone,
                        sub_block,
                    )));
                    slc_ns.push(false);
                }
            }
        }
        Ok(Device {
            link: Link::new(cfg.host.link_mb_s),
            sram: L2pSram::new(
                cfg.ftl.l2p_cache_bytes,
                cfg.nand.page_bytes as u64,
                cfg.ftl.map_entry_bytes as u64,
                map_base.max(1),
                // Zone, chunk and page entries of the zoned namespaces: at most one per slot of
                // the array plus the coarse ones.
                if namespaces.iter().any(|n| n.as_zoned().is_some()) {
                    geo.total_slots() + geo.total_slots() / 512 + 1024
                } else {
                    0
                },
            ),
            namespaces,
            slc_ns,
            overhead_ns: SimTime::from_us(cfg.host.overhead_us).ns(),
            clock: SimTime::ZERO,
            cfg: cfg.clone(),
            out_of_range: 0,
            nand,
        })
    }

    /// Capacity of namespace `ns` in bytes.
    pub fn capacity_bytes(&self, ns: usize) -> u64 {
        self.namespaces[ns].capacity_bytes()
    }

    /// The zoned FTL of namespace `ns`, if it is zoned.
    pub fn zoned(&self, ns: usize) -> Option<&ZonedFtl> {
        self.namespaces.get(ns).and_then(Namespace::as_zoned)
    }

    pub fn check_namespace(&self, ns: usize) -> Result<()> {
        if ns >= self.namespaces.len() {
            return Err(Error::Usage(format!(
                "--namespace {ns}: the device has {} namespace(s)",
                self.namespaces.len()
            )));
        }
        Ok(())
    }

    /// The shared resources, lent to the namespaces, and the namespaces.
    #[inline]
    fn lend(&mut self) -> (Lent<'_>, &mut [Namespace]) {
        let lent = Lent {
            nand: &mut self.nand,
            link: &mut self.link,
            sram: &mut self.sram,
        };
        (lent, &mut self.namespaces)
    }

    /// Execute one command on namespace `ns` arriving at `now`; returns its completion.
    /// A command reaching past the namespace's capacity is rejected at once and counted.
    pub fn submit(&mut self, now: SimTime, ns: usize, cmd: Command) -> Completion {
        self.nand.advance(now);
        self.link.advance(now);
        let now = now + self.overhead_ns;
        let n = cmd.pages as u64;
        if n > 0 && cmd.lba.0 + n > self.capacity_bytes(ns) / SLOT_BYTES {
            // Like a device answering "LBA out of range": rejected at once, counted.
            self.out_of_range += 1;
            return Completion::at(now);
        }
        let (mut lent, namespaces) = self.lend();
        namespaces[ns].submit(&mut lent, now, cmd)
    }

    /// Zone append of `len` bytes to zone `zone` of namespace `ns`: the completion carries the
    /// LBA the device wrote, or None if it rejected the command (counted as a zone error) or
    /// the namespace is not zoned.
    pub fn zone_append(&mut self, now: SimTime, ns: usize, zone: ZoneId, len: u64) -> Completion {
        let Some(z) = self.zoned(ns) else {
            return Completion::at(now);
        };
        let start = z.zones.zone_start(zone).0 * SLOT_BYTES;
        self.submit(now, ns, Command::widen(Op::Append, start, len))
    }

    /// One background step on any namespace that wants it (the host is idle).
    pub fn background_gc(&mut self, now: SimTime) -> bool {
        let (mut lent, namespaces) = self.lend();
        let mut did = false;
        for ns in namespaces.iter_mut() {
            did |= ns.background(&mut lent, now);
        }
        did
    }

    pub fn check_invariants(&self) -> std::result::Result<(), String> {
        for (i, ns) in self.namespaces.iter().enumerate() {
            ns.check_invariants()
                .map_err(|e| format!("namespace {i}: {e}"))?;
        }
        self.sram.check()
    }
}

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

    /// Zone errors of every zoned namespace, merged.
    pub fn zone_errors(&self) -> ZoneErrorLog {
        let mut log = ZoneErrorLog::new();
        for z in self.zftls() {
            log.merge(&z.errors);
        }
        log
    }

    /// Power cycle of the controller's SRAM as the zoned namespaces see it: every zone / chunk /
    /// page entry is dropped (pinned ones too). Map pages of conventional namespaces stay (a
    /// real power cycle writes dirty ones back first). Flash state stays.
    pub fn drop_l2p_cache(&mut self) {
        self.sram.entries.clear();
    }

    /// Zero every counter (after preconditioning). Device state — data, map, wear — stays.
    pub fn reset_counters(&mut self) {
        self.out_of_range = 0;
        self.nand.counters = Default::default();
        self.sram.pages.counters = Default::default();
        self.sram.entries.counters = Default::default();
        for ns in &mut self.namespaces {
            ns.reset_counters();
        }
    }

    /// The `device` section of the report (schema: docs/report.md, docs/zoned.md).
    pub fn report_json(&self) -> serde_json::Value {
        use serde_json::json;
        let (programmed, host) = self.write_volume();
        let waf = if host == 0 {
            0.0
        } else {
            programmed as f64 / host as f64
        };
        let sum = |f: fn(&PageFtl) -> u64| -> u64 { self.ftls().map(f).sum() };
        let zsum = |f: fn(&ZonedFtl) -> u64| -> u64 { self.zftls().map(f).sum() };
        let buf = |f: fn(&crate::firmware::buffer::BufferCounters) -> u64| -> u64 {
            self.ftls().map(|x| f(&x.buffer().counters)).sum()
        };
        let fc = &self.nand.counters;
        let namespaces: Vec<serde_json::Value> = self
            .namespaces
            .iter()
            .enumerate()
            .map(|(i, ns)| match ns {
                Namespace::Conventional(f) => json!({
                    "id": i,
                    "kind": "conventional",
                    "capacity_bytes": f.logical_pages() * SLOT_BYTES,
                    "slc_only": self.slc_ns[i],
                    "free_superblocks": f.free_superblocks(),
                }),
                Namespace::Zoned(z) => {
                    let zc = z.zone_config();
                    let mut conds = serde_json::Map::new();
                    for id in 0..zc.zones {
                        let c = z.zones.condition(ZoneId(id)).as_str();
                        let e = conds.entry(c).or_insert(json!(0));
                        *e = json!(e.as_u64().unwrap_or(0) + 1);
                    }
                    json!({
                        "id": i,
                        "kind": "zoned",
                        "capacity_bytes": zc.zones as u64 * zc.zone_capacity * SLOT_BYTES,
                        "zone_size_bytes": zc.zone_size * SLOT_BYTES,
                        "zone_capacity_bytes": zc.zone_capacity * SLOT_BYTES,
                        "zones": zc.zones,
                        "max_open": zc.max_open,
                        "max_active": zc.max_active,
                        "zone_conditions": conds,
                        "regular_free_units": z.regular_free_units(),
                        "regular_units": z.regular_total_units(),
                        "slc_free_superblocks": z.slc_free_superblocks(),
                        "counters": z.counters,
                    })
                }
            })
            .collect();
        let errors = self.zone_errors();
        let zl2p_hits = zsum(|z| z.counters.map.l2p_hits);
        let zl2p_misses = zsum(|z| z.counters.map.l2p_misses);
        let mut wear_all = wear(self.nand.erase_counts());
        let regions: serde_json::Map<String, serde_json::Value> = self
            .ftls()
            .enumerate()
            .map(|(i, f)| (format!("ns{i}"), f.wear_json(&self.nand)))
            .collect();
        wear_all["regions"] = regions.into();
        json!({
            "name": self.cfg.name,
            "capacity_bytes": self.capacity_bytes(0),
            "waf": waf,
            "host_pages_written": host,
            "flash": {
                "page_reads": fc.page_reads,
                "page_programs": fc.page_programs,
                "block_erases": fc.block_erases,
                "programmed_slots": fc.programmed_slots,
                "die_busy_ns": fc.die_busy_ns,
                "suspensions": fc.suspensions,
            },
            "gc": crate::firmware::conventional::gc_report(&self.ftls().collect::<Vec<_>>(), fc),
            "l2p": {
                "hits": self.sram.pages.counters.hits + zl2p_hits,
                "misses": self.sram.pages.counters.misses + zl2p_misses,
                "writebacks": self.sram.pages.counters.writebacks,
                "map_reads": sum(|f| f.counters.map_reads) + zsum(|z| z.counters.map.map_reads),
                "map_programs": sum(|f| f.counters.map_programs) + zsum(|z| z.counters.map.map_writebacks),
                "sram_bytes": self.sram.capacity_bytes(),
                "sram_used_bytes": self.sram.used_bytes(),
                "cached_map_pages": self.sram.pages.len(),
                "zoned": {
                    "hits": zl2p_hits,
                    "misses": zl2p_misses,
                    "miss_rate": if zl2p_hits + zl2p_misses == 0 { 0.0 } else { zl2p_misses as f64 / (zl2p_hits + zl2p_misses) as f64 },
                    "map_reads": zsum(|z| z.counters.map.map_reads),
                    "entries": self.sram.entries.len(),
                    "pinned": self.sram.entries.pinned(),
                    "evictions": self.sram.entries.counters.evictions,
                    "lookups_zone": zsum(|z| z.counters.map.lookups_zone),
                    "lookups_chunk": zsum(|z| z.counters.map.lookups_chunk),
                    "lookups_page": zsum(|z| z.counters.map.lookups_page),
                    "bitmap_sram_bytes": zsum(|z| z.bitmap_sram_bytes()),
                },
            },
            "buffer": {
                "full_flushes": buf(|c| c.full_flushes) + zsum(|z| z.counters.full_flushes),
                "premature_flushes": buf(|c| c.premature_flushes) + zsum(|z| z.counters.premature_flushes),
                "host_flushes": buf(|c| c.host_flushes) + zsum(|z| z.counters.host_flush_commands),
                "host_forced_flushes": zsum(|z| z.counters.host_forced_flushes),
                "flushes_to_slc": zsum(|z| z.counters.flushes_to_slc),
                "slc_buffered_pages": zsum(|z| z.counters.slc_buffered_pages),
                "migrated_pages": zsum(|z| z.counters.combined_pages + z.counters.gc_migrated_pages),
                "write_hits": buf(|c| c.write_hits),
                "read_hits": buf(|c| c.read_hits) + zsum(|z| z.counters.buffer_read_hits),
                "stall_ns": buf(|c| c.stall_ns) + zsum(|z| z.counters.stall_ns),
                "padding_slots": sum(|f| f.counters.padding_slots) + zsum(|z| z.counters.padding_slots),
            },
            "slc": {
                "pages_written": zsum(|z| z.counters.slc_buffered_pages + z.counters.slc_gc_pages_moved),
                "pages_migrated": zsum(|z| z.counters.combined_pages + z.counters.gc_migrated_pages),
                "gc_pages_moved": zsum(|z| z.counters.slc_gc_pages_moved),
                "gc_victims": zsum(|z| z.counters.slc_gc_victims),
            },
            "zones": {
                "errors": errors,
                "first_errors": errors.first_errors(),
                "resets": zsum(|z| z.counters.zone_resets),
                "finishes": zsum(|z| z.counters.zone_finishes),
            },
            "unwritten_reads": sum(|f| f.counters.unwritten_reads) + zsum(|z| z.counters.unwritten_reads),
            "out_of_range": self.out_of_range,
            "wear": wear_all,
            "namespaces": namespaces,
        })
    }
}

/// Erase-count distribution over blocks.
fn wear(counts: &[u32]) -> serde_json::Value {
    let n = counts.len().max(1) as f64;
    let mean = counts.iter().map(|&c| c as f64).sum::<f64>() / n;
    let var = counts
        .iter()
        .map(|&c| (c as f64 - mean).powi(2))
        .sum::<f64>()
        / n;
    serde_json::json!({
        "erase_min": counts.iter().copied().min().unwrap_or(0),
        "erase_max": counts.iter().copied().max().unwrap_or(0),
        "erase_mean": mean,
        "erase_stddev": var.sqrt(),
    })
}
