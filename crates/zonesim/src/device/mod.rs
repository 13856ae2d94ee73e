//! A whole simulated device: the NAND array, the host link and the L2P cache shared by its
//! namespaces, and the namespaces with their FTLs. [`Device::submit`] takes one host command
//! at its arrival time and returns its completion time; all device state changes at arrival
//! (the analytic timelines place each flash operation in the future).

mod plan;
mod report;

pub use plan::{plan, zone_geometry, NsPlan, Rows};

use crate::config::{CellType, DeviceConfig};
use crate::engine::SimTime;
use crate::error::{Error, Result};
use crate::firmware::ftl::{PageFtl, Shared};
use crate::firmware::mapping::{L2pSram, Lpa};
use crate::firmware::zoned::{ZShared, ZonedFtl};
use crate::host::{HostIo, IoKind};
use crate::interface::zone::{Lba, ZoneId};
use crate::interface::Link;
use crate::nand::{NandArray, SLOT_BYTES};

/// One namespace (logical unit) of the device. Few per device and never moved on the hot path,
/// so the variants are not boxed.
#[allow(clippy::large_enum_variant)]
pub enum Namespace {
    /// Block interface, page-mapped.
    Conventional(PageFtl),
    /// Zoned interface (ConZone).
    Zoned(ZonedFtl),
}

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
    /// Build the device. The config must have been validated ([`DeviceConfig::load`] does).
    pub fn new(cfg: &DeviceConfig, seed: u64) -> Device {
        let mut nand = NandArray::new(cfg);
        // GC preemption (ftl.gc.preemptible) and migration preemption
        // (sched.preempt_migration) both let host operations suspend background work.
        let mut preemption = crate::firmware::ftl::gc_preemption(cfg);
        if cfg.sched.preempt_migration {
            preemption.reads = true;
            preemption.writes = true;
        }
        nand.set_preemption(preemption);
        let plans = plan(cfg).expect("validated config");
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
                    namespaces.push(Namespace::Conventional(f));
                    slc_ns.push(slc);
                }
                NsPlan::Zoned {
                    zone,
                    rows,
                    slc_rows,
                    units_per_zone,
                    sub_block,
                } => {
                    namespaces.push(Namespace::Zoned(ZonedFtl::new(
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
        Device {
            link: Link::new(cfg.host.link_mb_s),
            sram: L2pSram::new(
                cfg.ftl.l2p_cache_bytes,
                cfg.nand.page_bytes as u64,
                cfg.ftl.map_entry_bytes as u64,
                map_base.max(1),
                // Zone, chunk and page entries of the zoned namespaces: at most one per slot of
                // the array plus the coarse ones.
                if namespaces.iter().any(|n| matches!(n, Namespace::Zoned(_))) {
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
        }
    }

    /// Capacity of namespace `ns` in bytes.
    pub fn capacity_bytes(&self, ns: usize) -> u64 {
        match &self.namespaces[ns] {
            Namespace::Conventional(f) => f.logical_pages() * SLOT_BYTES,
            Namespace::Zoned(z) => z.capacity_bytes(),
        }
    }

    /// The zoned FTL of namespace `ns`, if it is zoned.
    pub fn zoned(&self, ns: usize) -> Option<&ZonedFtl> {
        match self.namespaces.get(ns) {
            Some(Namespace::Zoned(z)) => Some(z),
            _ => None,
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
        self.nand.advance(now);
        self.link.advance(now);
        let now = now + self.overhead_ns;
        let first = io.offset / SLOT_BYTES;
        let n = if io.len == 0 {
            0
        } else {
            ((io.offset + io.len - 1) / SLOT_BYTES - first + 1) as u32
        };
        if n > 0 && first + n as u64 > self.capacity_bytes(ns) / SLOT_BYTES {
            // Like a device answering "LBA out of range": rejected at once, counted.
            self.out_of_range += 1;
            return now;
        }
        match &mut self.namespaces[ns] {
            Namespace::Conventional(f) => {
                let mut sh = Shared {
                    nand: &mut self.nand,
                    cache: &mut self.sram,
                    link: &mut self.link,
                };
                let lpa = Lpa(first as u32);
                match io.kind {
                    IoKind::Read => f.read(&mut sh, now, lpa, n),
                    IoKind::Write | IoKind::ZoneAppend => {
                        f.write_hinted(&mut sh, now, lpa, n, io.hint)
                    }
                    IoKind::Trim => f.trim(&mut sh, now, lpa, n),
                    IoKind::Flush => f.flush(&mut sh, now),
                    // Zone management on a conventional namespace is not supported: completes
                    // as a no-op.
                    IoKind::ZoneReset
                    | IoKind::ZoneFinish
                    | IoKind::ZoneOpen
                    | IoKind::ZoneClose => now,
                }
            }
            Namespace::Zoned(z) => {
                let mut sh = ZShared {
                    nand: &mut self.nand,
                    link: &mut self.link,
                    cache: &mut self.sram,
                };
                match io.kind {
                    IoKind::Read => z.read(&mut sh, now, first, n),
                    IoKind::Write => z.write(&mut sh, now, first, n),
                    IoKind::ZoneAppend => z.append(&mut sh, now, first, n),
                    IoKind::Trim => z.trim(now),
                    IoKind::Flush => z.flush(&mut sh, now),
                    k @ (IoKind::ZoneReset
                    | IoKind::ZoneFinish
                    | IoKind::ZoneOpen
                    | IoKind::ZoneClose) => z.zone_mgmt(&mut sh, now, first, k),
                }
            }
        }
    }

    /// Zone append of `len` bytes to zone `zone` of namespace `ns`: the completion time and
    /// the LBA the device wrote, or None if it rejected the command (counted as a zone error).
    pub fn zone_append(
        &mut self,
        now: SimTime,
        ns: usize,
        zone: ZoneId,
        len: u64,
    ) -> (SimTime, Option<Lba>) {
        let start = match &self.namespaces[ns] {
            Namespace::Zoned(z) => z.zones.zone_start(zone).0 * SLOT_BYTES,
            Namespace::Conventional(_) => return (now, None),
        };
        let t = self.submit(now, ns, HostIo::new(IoKind::ZoneAppend, start, len));
        let lba = match &self.namespaces[ns] {
            Namespace::Zoned(z) => z.last_append,
            Namespace::Conventional(_) => None,
        };
        (t, lba)
    }

    /// One background-GC step on any namespace that wants it (the host is idle).
    pub fn background_gc(&mut self, now: SimTime) -> bool {
        let mut sh = Shared {
            nand: &mut self.nand,
            cache: &mut self.sram,
            link: &mut self.link,
        };
        let mut did = false;
        for ns in &mut self.namespaces {
            if let Namespace::Conventional(f) = ns {
                did |= f.background_gc(&mut sh, now);
            }
        }
        did
    }

    pub fn check_invariants(&self) -> std::result::Result<(), String> {
        for (i, ns) in self.namespaces.iter().enumerate() {
            match ns {
                Namespace::Conventional(f) => f.check_invariants(),
                Namespace::Zoned(z) => z.check_invariants(),
            }
            .map_err(|e| format!("namespace {i}: {e}"))?;
        }
        self.sram.check()
    }
}

impl Device {
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
            match ns {
                Namespace::Conventional(f) => f.reset_counters(),
                Namespace::Zoned(z) => z.reset_counters(),
            }
        }
    }
}
