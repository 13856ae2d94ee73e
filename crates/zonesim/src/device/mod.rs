//! A whole simulated device: the NAND array, the host link and the L2P cache shared by its
//! namespaces, and the namespaces with their FTLs. [`Device::submit`] takes one host command
//! at its arrival time and returns its completion time; all device state changes at arrival
//! (the analytic timelines place each flash operation in the future).

use crate::config::DeviceConfig;
use crate::engine::SimTime;
use crate::error::{Error, Result};
use crate::firmware::ftl::{PageFtl, Shared};
use crate::firmware::mapping::{L2pCache, Lpa};
use crate::host::{HostIo, IoKind};
use crate::interface::Link;
use crate::nand::{NandArray, SLOT_BYTES};

/// One namespace (logical unit) of the device.
pub enum Namespace {
    /// Block interface, page-mapped.
    Conventional(PageFtl),
}

pub struct Device {
    pub cfg: DeviceConfig,
    pub nand: NandArray,
    pub link: Link,
    pub cache: L2pCache,
    pub namespaces: Vec<Namespace>,
}

impl Device {
    pub fn new(cfg: &DeviceConfig, seed: u64) -> Device {
        let mut nand = NandArray::new(cfg);
        nand.set_preemption(crate::firmware::ftl::gc_preemption(cfg));
        let logical = nand.geo.logical_pages(cfg.ftl.overprovisioning);
        let map_pages = PageFtl::map_pages_for(cfg, logical);
        let cache_pages = (cfg.ftl.l2p_cache_bytes / cfg.nand.page_bytes as u64) as u32;
        Device {
            link: Link::new(cfg.host.link_mb_s),
            cache: L2pCache::new(cache_pages, map_pages),
            namespaces: vec![Namespace::Conventional(PageFtl::new(
                cfg,
                nand.geo.clone(),
                logical,
                0,
                seed,
            ))],
            cfg: cfg.clone(),
            nand,
        }
    }

    /// Capacity of namespace `ns` in bytes.
    pub fn capacity_bytes(&self, ns: usize) -> u64 {
        match &self.namespaces[ns] {
            Namespace::Conventional(f) => f.logical_pages() * SLOT_BYTES,
        }
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

    /// Execute one host command arriving at `now`; returns its completion time.
    /// Byte ranges are widened to whole 4 KiB pages.
    pub fn submit(&mut self, now: SimTime, ns: usize, io: HostIo) -> SimTime {
        let mut sh = Shared {
            nand: &mut self.nand,
            cache: &mut self.cache,
            link: &mut self.link,
        };
        let first = io.offset / SLOT_BYTES;
        let n = if io.len == 0 {
            0
        } else {
            ((io.offset + io.len - 1) / SLOT_BYTES - first + 1) as u32
        };
        let lpa = Lpa(first as u32);
        match &mut self.namespaces[ns] {
            Namespace::Conventional(f) => match io.kind {
                IoKind::Read => f.read(&mut sh, now, lpa, n),
                IoKind::Write => f.write_hinted(&mut sh, now, lpa, n, io.hint),
                IoKind::Trim => f.trim(&mut sh, now, lpa, n),
                IoKind::Flush => f.flush(&mut sh, now),
                // Zone management on a conventional namespace is not supported: completes as a
                // no-op (the host model only issues it to zoned namespaces).
                IoKind::ZoneReset | IoKind::ZoneFinish => now,
            },
        }
    }

    /// One background-GC step on any namespace that wants it (the host is idle).
    pub fn background_gc(&mut self, now: SimTime) -> bool {
        let mut sh = Shared {
            nand: &mut self.nand,
            cache: &mut self.cache,
            link: &mut self.link,
        };
        let mut did = false;
        for ns in &mut self.namespaces {
            match ns {
                Namespace::Conventional(f) => did |= f.background_gc(&mut sh, now),
            }
        }
        did
    }

    pub fn check_invariants(&self) -> std::result::Result<(), String> {
        for ns in &self.namespaces {
            match ns {
                Namespace::Conventional(f) => f.check_invariants()?,
            }
        }
        Ok(())
    }
}

impl Device {
    fn ftls(&self) -> impl Iterator<Item = &PageFtl> {
        self.namespaces.iter().map(|ns| match ns {
            Namespace::Conventional(f) => f,
        })
    }

    /// (4 KiB slots programmed on flash, 4 KiB pages written by the host) so far.
    pub fn write_volume(&self) -> (u64, u64) {
        let host = self.ftls().map(|f| f.counters.host_write_pages).sum();
        (self.nand.counters.programmed_slots, host)
    }

    /// Zero every counter (after preconditioning). Device state — data, map, wear — stays.
    pub fn reset_counters(&mut self) {
        self.nand.counters = Default::default();
        self.cache.counters = Default::default();
        for ns in &mut self.namespaces {
            match ns {
                Namespace::Conventional(f) => f.reset_counters(),
            }
        }
    }

    /// The `device` section of the report (schema: docs/report.md).
    pub fn report_json(&self) -> serde_json::Value {
        use serde_json::json;
        let (programmed, host) = self.write_volume();
        let waf = if host == 0 {
            0.0
        } else {
            programmed as f64 / host as f64
        };
        let sum = |f: fn(&PageFtl) -> u64| -> u64 { self.ftls().map(f).sum() };
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
                    "free_superblocks": f.free_superblocks(),
                }),
            })
            .collect();
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
            },
            "gc": crate::firmware::ftl::gc_report(&self.ftls().collect::<Vec<_>>(), fc),
            "l2p": {
                "hits": self.cache.counters.hits,
                "misses": self.cache.counters.misses,
                "writebacks": self.cache.counters.writebacks,
                "map_reads": sum(|f| f.counters.map_reads),
                "map_programs": sum(|f| f.counters.map_programs),
                "cache_map_pages": self.cache.capacity(),
            },
            "buffer": {
                "full_flushes": buf(|c| c.full_flushes),
                "premature_flushes": buf(|c| c.premature_flushes),
                "host_flushes": buf(|c| c.host_flushes),
                "write_hits": buf(|c| c.write_hits),
                "read_hits": buf(|c| c.read_hits),
                "stall_ns": buf(|c| c.stall_ns),
                "padding_slots": sum(|f| f.counters.padding_slots),
            },
            "unwritten_reads": sum(|f| f.counters.unwritten_reads),
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
