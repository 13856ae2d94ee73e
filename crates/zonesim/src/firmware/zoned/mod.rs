//! The FTL of a zoned namespace: the ConZone device (ConZone+, ConZone §3, ConZone+ §4).
//!
//! This FTL ties the shared rooms together for zones; each mechanism lives in its room:
//! - **Zone rules** ([`crate::interface::zone::ZoneSet`]): every request is checked first; a
//!   rejected one changes nothing, completes at once and is counted in [`ZoneErrorLog`].
//! - **Allocation** ([`ZoneSpace`], ConZone §3.2, ConZone+ §4.3): a zone reserves its whole
//!   regular-flash span at its first write; the physical address of a zone offset is computed
//!   from the offset. Zone reset erases the span and returns it to the pool.
//! - **Scarce write buffers** ([`ZoneBuffers`], ConZone §3.2): `buffer.count` buffers of
//!   `buffer.bytes_each`, bound to zones `assoc` or `modulo`. Flushing ([`flush`]): a buffer is
//!   flushed when it is full (*full flush*: whole program units to regular flash, the rest
//!   stays), when another zone needs it (*premature flush*, a conflict) or on a host flush
//!   (*host-forced*). Data that does not fill a program unit goes to the SLC secondary buffer
//!   (Fig. 4 ②). When a zone's SLC-held data plus buffered data make a program unit, the SLC
//!   part is read back, invalidated and programmed to regular flash with the new data (Fig. 4
//!   ③). A zone that becomes FULL (or is finished) is flushed completely, its last unit padded.
//! - **SLC region** ([`SlcPool`], ConZone §2.1, §3.4) and its GC ([`migrate`]): `slc.policy =
//!   bypass` sends only premature data to SLC; `all` sends every flush there. SLC GC picks
//!   greedy victims when fewer than `slc.gc_threshold_free_superblocks` are free; `slc.gc =
//!   in_place` rewrites valid data in SLC, `migrate` moves whole program units of each zone it
//!   holds to the zone's regular flash (a partial tail stays in SLC unless the zone is full,
//!   then it is padded). Migration is background work; until it completes the SLC copy stays
//!   valid and mapped, and the victim is not erased or reused (ConZone+ §4.2); host commands on
//!   a zone with migration in flight wait for it. With `sched.preempt_migration` host flash
//!   operations overtake queued background work on each die ([`crate::nand::Preemption`]).
//! - **Mapping** ([`HybridMap`], ConZone §3.3, §6.6): page or hybrid zone/chunk/page entries in
//!   the shared L2P SRAM; or, with `ftl.mapping = zone`, the ZMT + ZML of Zoned UFS
//!   ([`ZoneMap`], ZUFS §4.1): one entry per zone in SRAM of its own, never missed.
//! - **Flash that ages** (`wear.rs`, firmware/wear, ZUFS §4.1): bad blocks, read reclaim and
//!   static wear levelling move whole zones; a shortfall of blocks takes zones READ_ONLY /
//!   OFFLINE.

mod check;
mod flush;
mod ipu;
mod migrate;
mod power;
mod report;
mod wear;

use crate::config::{CellType, DeviceConfig, MappingKind, SlcGc, SlcPolicy};
use crate::engine::SimTime;
use crate::firmware::alloc::{SlcCounters, SlcPool, ZoneSpace};
use crate::firmware::buffer::{Admit, Bind, ZoneWriteBuffers, NO_ZONE};
use crate::firmware::mapping::{
    HybridCounters, HybridMap, LastMapPage, Lpa, ZmtEntry, ZoneExtent, ZoneMap,
};
use crate::firmware::power::{PowerLoss, Recovery};
use crate::firmware::{Ftl, Lent, NsCounters, NsReport, NsSample, ZonedView};
use crate::interface::zone::{
    Lba, WriteOutcome, ZoneConfig, ZoneErrorKind, ZoneErrorLog, ZoneOp, ZoneSet,
};
use crate::interface::{Command, Completion, Op, ZoneAction};
use crate::nand::{Geometry, NandArray, OpClass, SLOT_BYTES};
use flush::Trigger;
use ipu::Ipu;
pub use ipu::IpuCounters;
use migrate::Migrations;
pub use report::ZonedNsReport;
use serde::Serialize;

/// Counters of one zoned namespace.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ZonedCounters {
    pub host_write_pages: u64,
    pub host_read_pages: u64,
    pub unwritten_reads: u64,
    pub buffer_read_hits: u64,
    /// Buffer flushes by trigger.
    pub full_flushes: u64,
    pub premature_flushes: u64,
    pub host_forced_flushes: u64,
    /// Host flush commands (`device.buffer.host_flushes`).
    pub host_flushes: u64,
    /// The SLC secondary buffer's counters, the same as a conventional SLC cache's (flushes
    /// to SLC, Fig. 4 ②; SLC GC; direct erases, Fig. 12(c)).
    #[serde(flatten)]
    pub slc: SlcCounters,
    /// SLC pages read back and programmed to regular flash with new data (Fig. 4 ③).
    pub combined_pages: u64,
    pub padding_slots: u64,
    pub stall_ns: u64,
    pub zone_resets: u64,
    pub zone_finishes: u64,
    pub ignored_trims: u64,
    /// Device-side copy commands (`Op::Copy`) and the pages they copied (absent when none).
    #[serde(skip_serializing_if = "crate::firmware::is_zero")]
    pub copy_commands: u64,
    #[serde(skip_serializing_if = "crate::firmware::is_zero")]
    pub copy_pages: u64,
    /// The map's counters (L2P hits and misses, map reads, lookups by level).
    #[serde(flatten)]
    pub map: HybridCounters,
}

/// Firmware state of one zone. Offsets in 4 KiB slots from the zone start:
/// `[0, reg_wp)` regular flash (mapped), `[reg_wp, reg_alloc)` SLC, migrating to regular,
/// `[reg_alloc, slc_end)` SLC, `[slc_end, written)` in the zone's write buffer.
#[derive(Debug, Clone, Copy)]
struct ZState {
    written: u32,
    slc_end: u32,
    reg_alloc: u32,
    reg_wp: u32,
    buf: u32,
    jobs: u32,
    full: bool,
}

impl Default for ZState {
    fn default() -> Self {
        ZState {
            written: 0,
            slc_end: 0,
            reg_alloc: 0,
            reg_wp: 0,
            buf: NO_ZONE,
            jobs: 0,
            full: false,
        }
    }
}

impl ZState {
    /// What the hybrid map needs to know of the zone (zone `id`).
    #[inline]
    fn extent(&self, id: u32) -> ZoneExtent {
        ZoneExtent {
            id,
            mapped: self.reg_wp,
            written: self.written,
            full: self.full,
        }
    }
}

#[derive(Clone)]
pub struct ZonedFtl {
    /// Write commands take their data in arrival order (one command queue, as a UFS device or
    /// NVMeVirt's dispatcher): a write stalled for buffer space holds back later writes.
    write_floor: SimTime,
    pub zones: ZoneSet,
    pub errors: ZoneErrorLog,
    cap: u32,
    size: u32,
    space: ZoneSpace,
    slc: SlcPool,
    bufs: ZoneWriteBuffers,
    zst: Vec<ZState>,
    map: HybridMap,
    /// The ZMT + ZML when `ftl.mapping = zone` (then `map` is never consulted).
    zmap: Option<ZoneMap>,
    mig: Migrations,
    /// The in-place update budget, with `zone.ipu_budget_bytes > 0` (ZMS).
    ipu: Option<Ipu>,
    policy: SlcPolicy,
    slc_gc: SlcGc,
    slc_threshold: u32,
    unit: u32,
    /// Slots of one superpage: one program on every die (what a zone's buffer fills before a
    /// whole-stripe flush; IOTailor's alignment, ZMS).
    superpage: u32,
    pub counters: ZonedCounters,
    /// What a power cut would lose (`power.rs`; only in runs that may be cut).
    power: Option<Box<power::ZonedPower>>,
    /// Bad blocks, whole-zone reclaim and wear levelling (firmware/wear, `wear.rs`); None
    /// when off.
    wear: Option<Box<wear::ZonedWear>>,
}

impl ZonedFtl {
    /// A zoned namespace `ns` with zones `zone` over the regular rows `reg_geo` and the SLC
    /// rows `slc_geo` (views of the array `geo`).
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        cfg: &DeviceConfig,
        ns: u8,
        geo: &Geometry,
        zone: ZoneConfig,
        reg_geo: Geometry,
        slc_geo: Geometry,
        units_per_zone: u32,
        sub_block: bool,
        seed: u64,
    ) -> ZonedFtl {
        let logical_wear = crate::firmware::wear::Wear::new(cfg, &reg_geo, seed, 0, 0);
        let space = ZoneSpace::new(reg_geo, zone.zones, units_per_zone, sub_block);
        let unit = space.prog_slots();
        let logical = zone.namespace_lbas();
        let ipu =
            (cfg.zone.ipu_budget_bytes > 0).then(|| Ipu::new(cfg.zone.ipu_budget_bytes, logical));
        // IPU copies live in a second logical space of the SLC pool.
        let slc_logical = if ipu.is_some() { 2 * logical } else { logical };
        let cap = zone.zone_capacity as u32;
        let size = zone.zone_size as u32;
        let mut ftl = ZonedFtl {
            zones: ZoneSet::new(zone),
            errors: ZoneErrorLog::new(),
            cap,
            size,
            unit,
            superpage: unit * geo.dies,
            space,
            slc: SlcPool::with_granularity(
                slc_geo,
                slc_logical,
                cfg.slc.granularity,
                crate::firmware::alloc::zone_fronts(cfg.zone.max_open),
            ),
            bufs: ZoneWriteBuffers::new(cfg, zone.zones, unit, geo.dies),
            zst: vec![ZState::default(); zone.zones as usize],
            map: HybridMap::new(cfg, ns, size, cap, geo.dies),
            zmap: (cfg.ftl.mapping == MappingKind::Zone)
                .then(|| ZoneMap::new(zone.zones, cfg.ftl.zml_entries, geo.page_bytes)),
            mig: Migrations::new(),
            ipu,
            policy: cfg.slc.policy,
            slc_gc: cfg.slc.gc,
            slc_threshold: cfg.slc.gc_threshold_free_superblocks,
            counters: ZonedCounters::default(),
            write_floor: SimTime::ZERO,
            power: None,
            wear: None,
        };
        ftl.wear_format(logical_wear);
        ftl
    }

    pub fn zone_config(&self) -> &ZoneConfig {
        self.zones.config()
    }

    /// Written bytes of every zone (for workload generators after preconditioning).
    pub fn write_pointers(&self) -> Vec<u64> {
        self.view().write_pointers()
    }

    /// The in-place update counters, with `zone.ipu_budget_bytes > 0`.
    pub fn ipu(&self) -> Option<&IpuCounters> {
        self.ipu.as_ref().map(|i| &i.counters)
    }

    /// Whether LBA `lba` has an IPU copy in SLC (reads of it are served from there).
    pub fn has_ipu_copy(&self, lba: Lba) -> bool {
        self.ipu
            .as_ref()
            .is_some_and(|i| self.slc.lookup(i.copy_of(Lpa(lba.0 as u32))).is_some())
    }

    /// Stage zone `z`'s current start address and write pointer in the ZML (zone mapping).
    fn log_zone(&mut self, lent: &mut Lent, now: SimTime, z: u32) {
        if let Some(zm) = &mut self.zmap {
            let e = if self.space.is_allocated(z) {
                ZmtEntry {
                    start: self.space.first_unit(z),
                    len: self.zst[z as usize].written,
                }
            } else {
                ZmtEntry::EMPTY
            };
            zm.update(lent.nand, now, z, e);
        }
    }

    pub fn regular_free_units(&self) -> u32 {
        self.space.free_units()
    }
    pub fn regular_total_units(&self) -> u32 {
        self.space.total_units()
    }

    #[inline]
    fn lpa(&self, z: u32, off: u32) -> Lpa {
        Lpa(z * self.size + off)
    }

    fn record(&mut self, kind: ZoneErrorKind, op: ZoneOp, now: SimTime) {
        self.errors.record_op(kind, &op, &self.zones, now.ns());
    }

    // ----- host commands -------------------------------------------------------------------

    /// Write `n` LBAs at `lba`. Returns when the data is in the zone's write buffer.
    fn write(&mut self, lent: &mut Lent, now: SimTime, lba: Lba, n: u32) -> SimTime {
        if n == 0 {
            return now;
        }
        match self.zones.check_and_apply_write(lba, n as u64) {
            Ok(out) => self.accept(lent, now, out, true),
            Err(k) => {
                let op = ZoneOp::Write { lba, len: n as u64 };
                self.record(k, op, now);
                now
            }
        }
    }

    /// Zone append of `n` LBAs to the zone holding `lba`; the completion carries the LBA
    /// written (None if rejected).
    fn append(&mut self, lent: &mut Lent, now: SimTime, lba: Lba, n: u32) -> Completion {
        let z = self.zones.zone_of(lba);
        match self.zones.append(z, n as u64) {
            Ok((at, out)) => Completion {
                done: self.accept(lent, now, out, true),
                appended: Some(at),
                rejected: false,
                media_error: false,
                resume: None,
            },
            Err(k) => {
                let op = ZoneOp::Append {
                    zone: z,
                    len: n as u64,
                };
                self.record(k, op, now);
                Completion::refused(now)
            }
        }
    }

    /// Device-side copy of `n` LBAs from `src` to `dst` (ZMS copy offloading, NVMe Simple
    /// Copy): the source is read from flash inside the device and written at `dst` like a
    /// write (zone rules apply), without crossing the host link.
    fn copy(&mut self, lent: &mut Lent, now: SimTime, src: Lba, dst: Lba, n: u32) -> Completion {
        if let Err(k) = self.zones.check_read(src, n as u64) {
            self.record(
                k,
                ZoneOp::Read {
                    lba: src,
                    len: n as u64,
                },
                now,
            );
            return Completion::refused(now);
        }
        match self.zones.check_and_apply_write(dst, n as u64) {
            Ok(out) => {
                self.counters.copy_commands += 1;
                self.counters.copy_pages += n as u64;
                let ready = self.read_flash(lent, now, src, n, false);
                Completion::at(self.accept(lent, ready, out, false))
            }
            Err(k) => {
                self.record(
                    k,
                    ZoneOp::Write {
                        lba: dst,
                        len: n as u64,
                    },
                    now,
                );
                Completion::refused(now)
            }
        }
    }

    /// Take `out`'s pages into the zone's buffer from `now`: over the host link
    /// (`from_host`), or already inside the device (a copy, its data read by `now`).
    fn accept(
        &mut self,
        lent: &mut Lent,
        now: SimTime,
        out: WriteOutcome,
        from_host: bool,
    ) -> SimTime {
        let z = out.zone.0;
        let n = out.len as u32;
        if n == 0 {
            return now;
        }
        self.finalize(lent, now);
        if !self.space.is_allocated(z) {
            self.space.allocate(z);
        }
        self.counters.host_write_pages += n as u64;
        if self.wear.is_some() {
            self.wear_write(now, n);
        }
        let mut t = now.max(self.write_floor);
        let mut left = n;
        while left > 0 {
            let b = self.buffer_for(lent, t, z);
            let (t2, free) = match self.bufs.admit(b, t) {
                Admit::Ready(t2, free) => (t2, free),
                Admit::Evict(o) => {
                    // ZABM: no slot left for this zone; flush the fullest zone (or give back
                    // an idle zone's table) and try again.
                    if self.bufs.count(o) > 0 {
                        self.flush_zone(lent, t, o, Trigger::Evict);
                    } else {
                        self.unbind(o);
                    }
                    continue;
                }
            };
            self.counters.stall_ns += t2 - t;
            let st = self.zst[z as usize];
            let k = left
                .min(free)
                .min(self.bufs.chunk(st.written - st.reg_alloc));
            t = if from_host {
                lent.link.to_device(t2, k as u64 * SLOT_BYTES)
            } else {
                t2
            };
            self.bufs.receive(b, k, t);
            self.zst[z as usize].written += k;
            left -= k;
            let st = self.zst[z as usize];
            let combine = self.policy == SlcPolicy::Bypass
                && st.slc_end > st.reg_alloc
                && st.written - st.reg_alloc >= self.unit;
            if self.bufs.flush_due(b, st.written - st.reg_alloc) || combine {
                self.flush_zone(lent, t, z, Trigger::Full);
            }
        }
        self.write_floor = t;
        self.log_zone(lent, t, z);
        if out.became_full {
            self.zst[z as usize].full = true;
            self.flush_zone(lent, t, z, Trigger::ZoneFull);
        }
        if let Some(p) = &mut self.power {
            p.track.acked(out.lba.0 as u32, n, t);
        }
        t
    }

    /// The buffer zone `z` writes into, flushing its previous owner first on a conflict.
    fn buffer_for(&mut self, lent: &mut Lent, t: SimTime, z: u32) -> u32 {
        let held = self.zst[z as usize].buf;
        let b = match self.bufs.bind(z, held) {
            Bind::Ready(b) => b,
            Bind::Evict { b, zone } => {
                if self.bufs.count(b) > 0 {
                    self.flush_zone(lent, t, zone, Trigger::Evict);
                } else {
                    self.unbind(zone);
                }
                b
            }
        };
        if self.bufs.owner(b) != z {
            let old = self.bufs.owner(b);
            if old != NO_ZONE {
                self.unbind(old);
            }
            self.bufs.set_owner(b, z);
            self.zst[z as usize].buf = b;
        }
        b
    }

    fn unbind(&mut self, z: u32) {
        let b = self.zst[z as usize].buf;
        if b != NO_ZONE {
            debug_assert_eq!(self.bufs.count(b), 0);
            self.bufs.set_owner(b, NO_ZONE);
            self.zst[z as usize].buf = NO_ZONE;
        }
    }

    /// Read `n` LBAs at `lba`. Returns when the data has reached the host.
    fn read(&mut self, lent: &mut Lent, now: SimTime, lba: Lba, n: u32) -> SimTime {
        if let Err(k) = self.zones.check_read(lba, n as u64) {
            let op = ZoneOp::Read { lba, len: n as u64 };
            self.record(k, op, now);
            return now;
        }
        self.counters.host_read_pages += n as u64;
        let ready = self.read_flash(lent, now, lba, n, true);
        lent.link.to_host(ready, n as u64 * SLOT_BYTES)
    }

    /// Read `n` LBAs at `lba` from flash into the controller (`host`: for a host read, whose
    /// unwritten and buffered pages are counted). Returns when the data is read.
    fn read_flash(
        &mut self,
        lent: &mut Lent,
        now: SimTime,
        lba: Lba,
        n: u32,
        host: bool,
    ) -> SimTime {
        self.finalize(lent, now);
        let mut last_mp = LastMapPage::new(now);
        let mut reads = PageReads::new(now, OpClass::HostRead);
        for i in 0..n as u64 {
            let l = lba.0 + i;
            let z = (l / self.size as u64) as u32;
            let off = (l % self.size as u64) as u32;
            let st = self.zst[z as usize];
            if off >= st.written {
                self.counters.unwritten_reads += host as u64;
                continue;
            }
            if off >= st.slc_end {
                self.counters.buffer_read_hits += host as u64;
                continue;
            }
            let map_ready = match &mut self.zmap {
                Some(zm) if off < st.reg_wp => {
                    zm.lookup();
                    now
                }
                Some(zm) => {
                    zm.lookup_slc();
                    now
                }
                None => {
                    let c = &mut self.counters.map;
                    self.map
                        .lookup(lent, now, st.extent(z), off, &mut last_mp, c)
                }
            };
            let ipu = self.ipu_copy(self.lpa(z, off));
            let (p, cell) = if let Some(ppa) = ipu {
                (self.slc.page_of(ppa), CellType::Slc)
            } else if off < st.reg_wp {
                let p = if self.wear.is_some() {
                    self.wear_locate(z, off)
                } else {
                    self.space.locate(z, off)
                };
                (p, self.space.cell())
            } else {
                let ppa = self
                    .slc
                    .lookup(self.lpa(z, off))
                    .expect("SLC-held page mapped");
                (self.slc.page_of(ppa), CellType::Slc)
            };
            reads.add(lent.nand, p, map_ready, cell);
        }
        reads.finish(lent.nand)
    }

    /// Host flush: drain every buffer (data below a program unit goes to SLC). Returns when all
    /// data written before it is on flash.
    fn flush(&mut self, lent: &mut Lent, now: SimTime) -> SimTime {
        self.counters.host_flushes += 1;
        self.finalize(lent, now);
        let mut done = now;
        for b in 0..self.bufs.len() as u32 {
            let o = self.bufs.owner(b);
            if o != NO_ZONE && self.bufs.count(b) > 0 {
                done = done.max(self.flush_zone(lent, now, o, Trigger::Host));
            }
        }
        done.max(self.bufs.drained_at())
    }

    /// Zone management command on the zone holding `lba`.
    fn zone_mgmt(
        &mut self,
        lent: &mut Lent,
        now: SimTime,
        lba: Lba,
        action: ZoneAction,
    ) -> SimTime {
        let z = self.zones.zone_of(lba);
        let (res, op) = match action {
            ZoneAction::Open => (self.zones.open(z), ZoneOp::Open(z)),
            ZoneAction::Close => (self.zones.close(z), ZoneOp::Close(z)),
            ZoneAction::Finish => (self.zones.finish(z).map(|_| ()), ZoneOp::Finish(z)),
            ZoneAction::Reset => (self.zones.reset(z).map(|_| ()), ZoneOp::Reset(z)),
        };
        if let Err(k) = res {
            self.record(k, op, now);
            return now;
        }
        match action {
            ZoneAction::Finish => {
                self.counters.zone_finishes += 1;
                self.finalize(lent, now);
                self.zst[z.0 as usize].full = true;
                if self.zst[z.0 as usize].written > 0 {
                    return self.flush_zone(lent, now, z.0, Trigger::ZoneFull);
                }
                now
            }
            ZoneAction::Reset => self.reset_zone(lent, now, z.0),
            ZoneAction::Open | ZoneAction::Close => now,
        }
    }

    /// Erase zone `z`'s regular blocks, drop its buffered and SLC data and its cache entries.
    fn reset_zone(&mut self, lent: &mut Lent, now: SimTime, z: u32) -> SimTime {
        self.counters.zone_resets += 1;
        let done = self.drop_zone(lent, now, z);
        if self.wear.is_some() {
            self.settle(lent, now);
        }
        done
    }

    /// Drop everything zone `z` holds (reset, or the zone going OFFLINE); returns when its
    /// erases complete.
    fn drop_zone(&mut self, lent: &mut Lent, now: SimTime, z: u32) -> SimTime {
        let t = self.finalize_zone(lent, z).max(now);
        let st = self.zst[z as usize];
        if st.buf != NO_ZONE {
            self.bufs.discard(st.buf);
            self.unbind(z);
        }
        for off in st.reg_wp..st.slc_end {
            let l = self.lpa(z, off);
            self.slc.invalidate(l);
        }
        self.drop_ipu(z, st.written);
        self.reap_victims(lent, t);
        self.erase_empty_slc(lent, t);
        if self.zmap.is_none() {
            self.map.forget_zone(lent, z, st.written);
        }
        let done = if self.wear.is_some() {
            self.wear_release(lent, z, t)
        } else {
            self.space.release(lent.nand, z, t)
        };
        self.zst[z as usize] = ZState::default();
        self.log_zone(lent, t, z);
        done
    }
}

impl Ftl for ZonedFtl {
    #[inline]
    fn submit(&mut self, lent: &mut Lent, now: SimTime, cmd: Command) -> Completion {
        if self.wear.is_some() {
            self.wear_tick(lent, now, !matches!(cmd.op, Op::Read));
        }
        let done = match cmd.op {
            Op::Read => self.read(lent, now, cmd.lba, cmd.pages),
            Op::Write { .. } => self.write(lent, now, cmd.lba, cmd.pages),
            Op::Append => return self.append(lent, now, cmd.lba, cmd.pages),
            Op::InPlace { .. } => return self.in_place(lent, now, cmd.lba, cmd.pages),
            Op::Copy { dst } => return self.copy(lent, now, cmd.lba, dst, cmd.pages),
            // Trim has no meaning on a zoned namespace (reset frees space): ignored, counted.
            Op::Trim => {
                self.counters.ignored_trims += 1;
                now
            }
            Op::Flush => {
                let done = self.flush(lent, now);
                if let Some(p) = &mut self.power {
                    p.track.flushed(now, done);
                }
                done
            }
            Op::Zone(action) => self.zone_mgmt(lent, now, cmd.lba, action),
        };
        Completion::at(done)
    }

    // No idle-time work (the contract's defaults): SLC migration runs when space is needed,
    // whole-zone remaps (firmware/wear) when the next command arrives.

    fn age(&mut self, now: SimTime, ns: u64) {
        self.age_wear(now, ns);
    }

    fn track_power(&mut self, lag: u64) -> bool {
        self.start_power_track(lag)
    }

    fn power_cut(&mut self, lent: &mut Lent, cut: SimTime, plp: bool) -> PowerLoss {
        self.cut_power(lent, cut, plp)
    }

    fn recover(&mut self, nand: &mut NandArray, on: SimTime, plp: bool) -> Recovery {
        self.recover_power(nand, on, plp)
    }

    /// Bytes exported (zones x zone size; only capacity of each zone is writable).
    fn capacity_bytes(&self) -> u64 {
        self.zones.namespace_lbas() * SLOT_BYTES
    }

    fn zones(&self) -> Option<ZonedView<'_>> {
        Some(self.view())
    }

    fn counters(&self) -> NsCounters {
        self.ns_counters()
    }

    fn report(&self, id: usize) -> NsReport<'_> {
        self.ns_report(id)
    }

    fn sample(&self) -> NsSample {
        self.ns_sample()
    }

    fn reset_counters(&mut self) {
        self.counters = ZonedCounters::default();
        self.bufs.reset_counters();
        if let Some(zm) = &mut self.zmap {
            zm.counters = Default::default();
        }
        if let Some(ipu) = &mut self.ipu {
            ipu.reset_counters();
        }
        self.errors = ZoneErrorLog::new();
        self.wear_reset_counters();
    }

    fn check_invariants(&self) -> Result<(), String> {
        self.check()
    }
}

/// Reads of 4 KiB slots grouped by flash page: consecutive slots on the same page share one
/// array read, issued when the run ends, at the latest ready time of its slots.
struct PageReads {
    /// (page identity, flash page, slots, ready, cell) of the run being collected.
    run: Option<(u64, crate::nand::FlashPage, u32, SimTime, CellType)>,
    done: SimTime,
    class: OpClass,
}

impl PageReads {
    #[inline]
    fn new(now: SimTime, class: OpClass) -> PageReads {
        PageReads {
            run: None,
            done: now,
            class,
        }
    }

    #[inline]
    fn add(
        &mut self,
        nand: &mut NandArray,
        p: crate::nand::FlashPage,
        ready: SimTime,
        cell: CellType,
    ) {
        let id = ((p.block as u64) << 40)
            | ((p.page as u64) << 20)
            | ((p.die as u64) << 4)
            | p.plane as u64;
        match &mut self.run {
            Some(r) if r.0 == id => {
                r.2 += 1;
                r.3 = r.3.max(ready);
            }
            _ => {
                self.issue(nand);
                self.run = Some((id, p, 1, ready, cell));
            }
        }
    }

    /// One more slot on the page of the run being collected, ready at `ready`.
    #[inline]
    fn extend(&mut self, ready: SimTime) {
        let r = self.run.as_mut().expect("a run to extend");
        r.2 += 1;
        r.3 = r.3.max(ready);
    }

    #[inline]
    fn issue(&mut self, nand: &mut NandArray) {
        if let Some((_, p, slots, ready, cell)) = self.run.take() {
            let t = nand.read_block(ready, p, slots as u64 * SLOT_BYTES, cell, self.class);
            self.done = self.done.max(t);
        }
    }

    /// Issue the last run; returns when every read issued has completed.
    #[inline]
    fn finish(mut self, nand: &mut NandArray) -> SimTime {
        self.issue(nand);
        self.done
    }
}
