//! The FTL of a zoned namespace: the ConZone device (seed 000, ConZone §3, ConZone+ §4).
//!
//! What is modelled, and where it comes from:
//! - **Zone rules** ([`crate::interface::zone::ZoneSet`]): every request is checked first; a
//!   rejected one changes nothing, completes at once and is counted in [`ZoneErrorLog`].
//! - **Allocation** ([`space`], ConZone §3.2, ConZone+ §4.3): a zone reserves its whole
//!   regular-flash span at its first write; the physical address of a zone offset is computed
//!   from the offset. Zone reset erases the span and returns it to the pool.
//! - **Scarce write buffers** ([`buffers`], ConZone §3.2): `buffer.count` buffers of
//!   `buffer.bytes_each`, bound to zones `assoc` or `modulo`. A buffer is flushed when it is full
//!   (*full flush*: whole program units to regular flash, the rest stays), when another zone
//!   needs it (*premature flush*, a conflict) or on a host flush (*host-forced*). Data that does
//!   not fill a program unit goes to the SLC secondary buffer (Fig. 4 ②). When a zone's
//!   SLC-held data plus buffered data make a program unit, the SLC part is read back,
//!   invalidated and programmed to regular flash with the new data (Fig. 4 ③). A zone that
//!   becomes FULL (or is finished) is flushed completely, its last unit padded.
//! - **SLC region** ([`slc`], ConZone §2.1, §3.4): `slc.policy = bypass` sends only premature
//!   data to SLC; `all` sends every flush there. SLC GC picks greedy victims when fewer than
//!   `slc.gc_threshold_free_superblocks` are free; `slc.gc = in_place` rewrites valid data in
//!   SLC, `migrate` moves whole program units of each zone it holds to the zone's regular flash
//!   (a partial tail stays in SLC unless the zone is full, then it is padded). Migration is
//!   background work; until it completes the SLC copy stays valid and mapped, and the victim is
//!   not erased or reused (ConZone+ §4.2); host commands on a zone with migration in flight wait
//!   for it. With `sched.preempt_migration` host flash operations overtake queued background
//!   work on each die ([`crate::nand::Preemption`]).
//! - **Mapping** (ConZone §3.3, §6.6): data in regular flash is located by computation; the
//!   *L2P cache* decides the cost. `ftl.mapping = page`: one entry per 4 KiB page. `hybrid`:
//!   once regular flash holds a whole 4 MiB chunk (or the whole zone, FULL) its page entries are
//!   merged into a chunk (zone) entry, inserted in the cache (pinned with
//!   `ftl.l2p_pin_aggregated`) and the entries it covers are dropped. SLC-held data stays page
//!   mapped. A read probes zone, chunk, page entries in the cache; on a miss `multiple` reads
//!   the zone, then chunk, then page entry from flash until it finds the level (one SLC map-page
//!   read each), `bitmap` reads once (the 2-bit-per-page bitmap's SRAM is reported). Misses of
//!   one request on the same map page share one read. Writes do not load entries (ConZone
//!   persists the map with an L2P log it does not model, §5; neither do we).

mod buffers;
mod slc;
mod space;

pub use buffers::NO_ZONE;

use crate::config::{DeviceConfig, L2pSearch, MappingKind, SlcGc, SlcPolicy};
use crate::engine::SimTime;
use crate::firmware::mapping::{cache_key, program_map_page, L2pSram, Level, Lpa, Ppa};
use crate::interface::zone::{
    Lba, WriteOutcome, ZoneConfig, ZoneErrorLog, ZoneId, ZoneOp, ZoneSet,
};
use crate::interface::Link;
use crate::nand::{Geometry, NandArray, OpClass, SLOT_BYTES};
use buffers::{Bind, ZoneBuffers};
use serde::Serialize;
use slc::{Slc, GC_FRONT, HOST_FRONT};
use space::ZoneSpace;
use std::collections::VecDeque;

/// Slots of a hybrid-map chunk entry (4 MiB, ConZone §2.2).
pub const CHUNK_SLOTS: u32 = 1024;

/// Shared device resources lent to a zoned FTL for one command.
pub struct ZShared<'a> {
    pub nand: &'a mut NandArray,
    pub link: &'a mut Link,
    pub cache: &'a mut L2pSram,
}

/// Counters of one zoned namespace.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ZonedCounters {
    /// Conventional map pages evicted dirty by this namespace's entries and written back.
    pub map_writebacks: u64,
    pub host_write_pages: u64,
    pub host_read_pages: u64,
    pub unwritten_reads: u64,
    pub buffer_read_hits: u64,
    /// Buffer flushes by trigger.
    pub full_flushes: u64,
    pub premature_flushes: u64,
    pub host_forced_flushes: u64,
    pub host_flush_commands: u64,
    /// Flushes that sent less than a program unit to SLC (Fig. 4 ②).
    pub flushes_to_slc: u64,
    /// 4 KiB pages programmed into SLC by buffer flushes.
    pub slc_buffered_pages: u64,
    /// SLC pages read back and programmed to regular flash with new data (Fig. 4 ③).
    pub combined_pages: u64,
    /// SLC pages migrated to regular flash by SLC GC.
    pub gc_migrated_pages: u64,
    /// SLC pages rewritten inside SLC by SLC GC.
    pub slc_gc_pages_moved: u64,
    pub slc_gc_victims: u64,
    pub padding_slots: u64,
    pub stall_ns: u64,
    pub zone_resets: u64,
    pub zone_finishes: u64,
    pub ignored_trims: u64,
    pub l2p_hits: u64,
    pub l2p_misses: u64,
    /// Flash reads of map entries (one per level probed).
    pub map_reads: u64,
    /// Lookups by the level that maps the page: zone, chunk, page.
    pub lookups_zone: u64,
    pub lookups_chunk: u64,
    pub lookups_page: u64,
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

/// A background SLC-to-regular migration of zone offsets `[lo, hi)`.
#[derive(Debug, Clone, Copy)]
struct MigJob {
    done: SimTime,
    zone: u32,
    lo: u32,
    hi: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Trigger {
    /// Buffer full, or a program unit completed with SLC data: whole units only.
    Full,
    /// Another zone needs the buffer.
    Evict,
    /// Host flush command.
    Host,
    /// The zone became FULL (write reached capacity, or finish).
    ZoneFull,
}

pub struct ZonedFtl {
    ns: u8,
    /// Write commands take their data in arrival order (one command queue, as a UFS device or
    /// NVMeVirt's dispatcher): a write stalled for buffer space holds back later writes.
    write_floor: SimTime,
    pub zones: ZoneSet,
    pub errors: ZoneErrorLog,
    cap: u32,
    size: u32,
    space: ZoneSpace,
    slc: Slc,
    bufs: ZoneBuffers,
    zst: Vec<ZState>,
    jobs: VecDeque<MigJob>,
    draining: Vec<u32>,
    gc_zones: Vec<u32>,
    mapping: MappingKind,
    search: L2pSearch,
    pin: bool,
    policy: SlcPolicy,
    slc_gc: SlcGc,
    slc_threshold: u32,
    unit: u32,
    epm: u32,
    page_bytes: u32,
    map_dies: u32,
    chunks_per_zone: u32,
    pub counters: ZonedCounters,
    /// LBA chosen by the last accepted zone append.
    pub last_append: Option<Lba>,
}

impl ZonedFtl {
    /// A zoned namespace `ns` with zones `zone` over regular rows `reg` and SLC rows `slc` of
    /// the array `geo`.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        cfg: &DeviceConfig,
        ns: u8,
        geo: &Geometry,
        zone: ZoneConfig,
        reg: (u32, u32),
        slc_rows: (u32, u32),
        units_per_zone: u32,
        sub_block: bool,
    ) -> ZonedFtl {
        let reg_geo = geo.region(reg.0, reg.1, geo.cell);
        let slc_geo = geo.region(slc_rows.0, slc_rows.1, crate::config::CellType::Slc);
        let space = ZoneSpace::new(reg_geo, zone.zones, units_per_zone, sub_block);
        let logical = zone.namespace_lbas();
        let cap = zone.zone_capacity as u32;
        ZonedFtl {
            ns,
            zones: ZoneSet::new(zone),
            errors: ZoneErrorLog::new(),
            cap,
            size: zone.zone_size as u32,
            unit: space.prog_slots,
            space,
            slc: Slc::new(slc_geo, logical),
            bufs: ZoneBuffers::new(
                cfg.buffer.count,
                (cfg.buffer.bytes_each / SLOT_BYTES) as u32,
                cfg.buffer.zone_mapping,
            ),
            zst: vec![ZState::default(); zone.zones as usize],
            jobs: VecDeque::with_capacity(256),
            draining: Vec::with_capacity(64),
            gc_zones: Vec::with_capacity(256),
            mapping: cfg.ftl.mapping,
            search: cfg.ftl.l2p_search,
            pin: cfg.ftl.l2p_pin_aggregated,
            policy: cfg.slc.policy,
            slc_gc: cfg.slc.gc,
            slc_threshold: cfg.slc.gc_threshold_free_superblocks,
            epm: cfg.nand.page_bytes / cfg.ftl.map_entry_bytes,
            page_bytes: cfg.nand.page_bytes,
            map_dies: geo.dies,
            chunks_per_zone: cap.div_ceil(CHUNK_SLOTS),
            counters: ZonedCounters::default(),
            last_append: None,
            write_floor: SimTime::ZERO,
        }
    }

    pub fn zone_config(&self) -> &ZoneConfig {
        self.zones.config()
    }

    /// Bytes exported (zones x zone size; only capacity of each zone is writable).
    pub fn capacity_bytes(&self) -> u64 {
        self.zones.namespace_lbas() * SLOT_BYTES
    }

    /// Written bytes of every zone (for workload generators after preconditioning).
    pub fn write_pointers(&self) -> Vec<u64> {
        (0..self.zones.zone_count())
            .map(|z| {
                let id = ZoneId(z);
                (self.zones.write_pointer(id).0 - self.zones.zone_start(id).0) * SLOT_BYTES
            })
            .collect()
    }

    /// SRAM of the granularity bitmap (2 bits per logical page) when `ftl.l2p_search = bitmap`.
    pub fn bitmap_sram_bytes(&self) -> u64 {
        if self.mapping == MappingKind::Hybrid && self.search == L2pSearch::Bitmap {
            (self.zones.namespace_lbas() * 2).div_ceil(8)
        } else {
            0
        }
    }

    pub fn slc_free_superblocks(&self) -> u32 {
        self.slc.sbs.free_count()
    }
    pub fn regular_free_units(&self) -> u32 {
        self.space.free_units()
    }
    pub fn regular_total_units(&self) -> u32 {
        self.space.total_units()
    }

    pub fn reset_counters(&mut self) {
        self.counters = ZonedCounters::default();
        self.errors = ZoneErrorLog::new();
    }

    #[inline]
    fn lpa(&self, z: u32, off: u32) -> Lpa {
        Lpa(z * self.size + off)
    }

    fn record(&mut self, kind: crate::interface::zone::ZoneErrorKind, op: ZoneOp, now: SimTime) {
        self.errors.record_op(kind, &op, &self.zones, now.ns());
    }

    // ----- host commands -------------------------------------------------------------------

    /// Write `n` LBAs at `lba`. Returns when the data is in the zone's write buffer.
    pub fn write(&mut self, sh: &mut ZShared, now: SimTime, lba: u64, n: u32) -> SimTime {
        if n == 0 {
            return now;
        }
        match self.zones.check_and_apply_write(Lba(lba), n as u64) {
            Ok(out) => self.accept(sh, now, out),
            Err(k) => {
                let op = ZoneOp::Write {
                    lba: Lba(lba),
                    len: n as u64,
                };
                self.record(k, op, now);
                now
            }
        }
    }

    /// Zone append of `n` LBAs to the zone holding `lba`; the LBA written is in
    /// [`ZonedFtl::last_append`] (None if rejected).
    pub fn append(&mut self, sh: &mut ZShared, now: SimTime, lba: u64, n: u32) -> SimTime {
        let z = self.zones.zone_of(Lba(lba));
        self.last_append = None;
        match self.zones.append(z, n as u64) {
            Ok((at, out)) => {
                self.last_append = Some(at);
                self.accept(sh, now, out)
            }
            Err(k) => {
                self.record(
                    k,
                    ZoneOp::Append {
                        zone: z,
                        len: n as u64,
                    },
                    now,
                );
                now
            }
        }
    }

    fn accept(&mut self, sh: &mut ZShared, now: SimTime, out: WriteOutcome) -> SimTime {
        let z = out.zone.0;
        let n = out.len as u32;
        if n == 0 {
            return now;
        }
        self.finalize(sh, now);
        if !self.space.is_allocated(z) {
            self.space.allocate(z);
        }
        self.counters.host_write_pages += n as u64;
        let mut t = now.max(self.write_floor);
        let mut left = n;
        while left > 0 {
            let b = self.buffer_for(sh, t, z);
            let (t2, free) = self.bufs.admit(b, t);
            self.counters.stall_ns += t2 - t;
            let k = left.min(free);
            t = sh.link.to_device(t2, k as u64 * SLOT_BYTES);
            let buf = &mut self.bufs.bufs[b as usize];
            buf.count += k;
            buf.ready = buf.ready.max(t);
            self.zst[z as usize].written += k;
            left -= k;
            let st = self.zst[z as usize];
            let combine = self.policy == SlcPolicy::Bypass
                && st.slc_end > st.reg_alloc
                && st.written - st.reg_alloc >= self.unit;
            if self.bufs.bufs[b as usize].count == self.bufs.slots || combine {
                self.flush_zone(sh, t, z, Trigger::Full);
            }
        }
        self.write_floor = t;
        if out.became_full {
            self.zst[z as usize].full = true;
            self.flush_zone(sh, t, z, Trigger::ZoneFull);
        }
        t
    }

    /// The buffer zone `z` writes into, flushing its previous owner first on a conflict.
    fn buffer_for(&mut self, sh: &mut ZShared, t: SimTime, z: u32) -> u32 {
        let held = self.zst[z as usize].buf;
        let b = match self.bufs.bind(z, held) {
            Bind::Ready(b) => b,
            Bind::Evict { b, zone } => {
                if self.bufs.bufs[b as usize].count > 0 {
                    self.flush_zone(sh, t, zone, Trigger::Evict);
                } else {
                    self.unbind(zone);
                }
                b
            }
        };
        if self.bufs.bufs[b as usize].owner != z {
            let old = self.bufs.bufs[b as usize].owner;
            if old != NO_ZONE {
                self.unbind(old);
            }
            self.bufs.bufs[b as usize].owner = z;
            self.zst[z as usize].buf = b;
        }
        b
    }

    fn unbind(&mut self, z: u32) {
        let b = self.zst[z as usize].buf;
        if b != NO_ZONE {
            debug_assert_eq!(self.bufs.bufs[b as usize].count, 0);
            self.bufs.bufs[b as usize].owner = NO_ZONE;
            self.zst[z as usize].buf = NO_ZONE;
        }
    }

    /// Read `n` LBAs at `lba`. Returns when the data has reached the host.
    pub fn read(&mut self, sh: &mut ZShared, now: SimTime, lba: u64, n: u32) -> SimTime {
        if let Err(k) = self.zones.check_read(Lba(lba), n as u64) {
            let op = ZoneOp::Read {
                lba: Lba(lba),
                len: n as u64,
            };
            self.record(k, op, now);
            return now;
        }
        self.finalize(sh, now);
        self.counters.host_read_pages += n as u64;
        let mut ready = now;
        let mut last_mp = (u64::MAX, now);
        // Current read group: (page identity, die, slots, ready, cell is SLC).
        let mut group: Option<(u64, u32, u32, SimTime, bool)> = None;
        for i in 0..n as u64 {
            let l = lba + i;
            let z = (l / self.size as u64) as u32;
            let off = (l % self.size as u64) as u32;
            let st = self.zst[z as usize];
            if off >= st.written {
                self.counters.unwritten_reads += 1;
                continue;
            }
            if off >= st.slc_end {
                self.counters.buffer_read_hits += 1;
                continue;
            }
            let map_ready = self.lookup(sh, now, z, off, &mut last_mp);
            let (id, die, slc) = if off < st.reg_wp {
                let p = self.space.locate(z, off);
                (page_id(p.die, p.plane, p.block, p.page), p.die, false)
            } else {
                let ppa = self
                    .slc
                    .lookup(self.lpa(z, off))
                    .expect("SLC-held page mapped");
                let (sb, o) = self.slc.split(ppa);
                let p = self.slc.geo.page_of(sb, o);
                (page_id(p.die, p.plane, p.block, p.page), p.die, true)
            };
            match &mut group {
                Some(g) if g.0 == id => {
                    g.2 += 1;
                    g.3 = g.3.max(map_ready);
                }
                _ => {
                    if let Some(g) = group.take() {
                        ready = ready.max(self.issue_read(sh, g));
                    }
                    group = Some((id, die, 1, map_ready, slc));
                }
            }
        }
        if let Some(g) = group {
            ready = ready.max(self.issue_read(sh, g));
        }
        sh.link.to_host(ready, n as u64 * SLOT_BYTES)
    }

    fn issue_read(&mut self, sh: &mut ZShared, g: (u64, u32, u32, SimTime, bool)) -> SimTime {
        let cell = if g.4 {
            crate::config::CellType::Slc
        } else {
            self.space.geo.cell
        };
        sh.nand
            .read(g.3, g.1, g.2 as u64 * SLOT_BYTES, cell, OpClass::HostRead)
    }

    /// The level of the entry that maps zone offset `off` now.
    #[inline]
    fn level_of(&self, z: u32, off: u32) -> Level {
        if self.mapping == MappingKind::Page {
            return Level::Page;
        }
        let st = &self.zst[z as usize];
        if st.full && st.reg_wp >= st.written {
            Level::Zone
        } else if off < st.reg_wp / CHUNK_SLOTS * CHUNK_SLOTS {
            Level::Chunk
        } else {
            Level::Page
        }
    }

    #[inline]
    fn level_key(&self, level: Level, z: u32, off: u32) -> u64 {
        let addr = match level {
            Level::Zone => z,
            Level::Chunk => z * self.chunks_per_zone + off / CHUNK_SLOTS,
            Level::Page => z * self.size + off,
        };
        cache_key(self.ns, level, addr)
    }

    /// Cache entry `k` in the shared L2P SRAM; a conventional namespace's dirty map page evicted
    /// to make room is written back at `now`.
    fn cache_insert(&mut self, sh: &mut ZShared, now: SimTime, k: u64, pin: bool) {
        if let Some(mp) = sh.cache.insert(k, pin) {
            self.counters.map_writebacks += 1;
            program_map_page(sh.nand, mp, now);
        }
    }

    /// Find the mapping of zone offset `off` through the L2P cache; returns when the entry is in
    /// SRAM. `last_mp` remembers the last page-level map page read by this request.
    fn lookup(
        &mut self,
        sh: &mut ZShared,
        t: SimTime,
        z: u32,
        off: u32,
        last_mp: &mut (u64, SimTime),
    ) -> SimTime {
        let level = self.level_of(z, off);
        match level {
            Level::Zone => self.counters.lookups_zone += 1,
            Level::Chunk => self.counters.lookups_chunk += 1,
            Level::Page => self.counters.lookups_page += 1,
        }
        let hybrid = self.mapping == MappingKind::Hybrid;
        let hit = (hybrid
            && (sh.cache.lookup(self.level_key(Level::Zone, z, off))
                || sh.cache.lookup(self.level_key(Level::Chunk, z, off))))
            || sh.cache.lookup(self.level_key(Level::Page, z, off));
        if hit {
            self.counters.l2p_hits += 1;
            return t;
        }
        self.counters.l2p_misses += 1;
        let mp_of =
            |lv: Level, k: u64| ((lv as u64) << 40) | ((k & 0xFF_FFFF_FFFF) / self.epm as u64);
        let page_mp = mp_of(Level::Page, (z * self.size + off) as u64);
        let mut r = t;
        if level == Level::Page && last_mp.0 == page_mp {
            r = last_mp.1;
        } else {
            let probes: &[Level] = match (self.mapping, self.search, level) {
                (MappingKind::Page, _, _) | (_, L2pSearch::Bitmap, _) => match level {
                    Level::Zone => &[Level::Zone],
                    Level::Chunk => &[Level::Chunk],
                    Level::Page => &[Level::Page],
                },
                (_, L2pSearch::Multiple, Level::Zone) => &[Level::Zone],
                (_, L2pSearch::Multiple, Level::Chunk) => &[Level::Zone, Level::Chunk],
                (_, L2pSearch::Multiple, Level::Page) => &[Level::Zone, Level::Chunk, Level::Page],
            };
            for &lv in probes {
                let k = self.level_key(lv, z, off) & 0xFFFF_FFFF;
                let mp = mp_of(lv, k);
                let die =
                    ((mp ^ (mp >> 40)) as u32).wrapping_add(self.ns as u32 * 3) % self.map_dies;
                self.counters.map_reads += 1;
                r = sh.nand.read(
                    r,
                    die,
                    self.page_bytes as u64,
                    crate::config::CellType::Slc,
                    OpClass::HostRead,
                );
            }
            if level == Level::Page {
                *last_mp = (page_mp, r);
            }
        }
        let pin = self.pin && level != Level::Page;
        let k = self.level_key(level, z, off);
        self.cache_insert(sh, t, k, pin);
        r
    }

    /// Host flush: drain every buffer (data below a program unit goes to SLC). Returns when all
    /// data written before it is on flash.
    pub fn flush(&mut self, sh: &mut ZShared, now: SimTime) -> SimTime {
        self.counters.host_flush_commands += 1;
        self.finalize(sh, now);
        let mut done = now;
        for b in 0..self.bufs.bufs.len() {
            let o = self.bufs.bufs[b].owner;
            if o != NO_ZONE && self.bufs.bufs[b].count > 0 {
                done = done.max(self.flush_zone(sh, now, o, Trigger::Host));
            }
        }
        done.max(self.bufs.drained_at())
    }

    /// Trim has no meaning on a zoned namespace (reset frees space): ignored, counted.
    pub fn trim(&mut self, now: SimTime) -> SimTime {
        self.counters.ignored_trims += 1;
        now
    }

    /// Zone management command on the zone holding `lba`.
    pub fn zone_mgmt(
        &mut self,
        sh: &mut ZShared,
        now: SimTime,
        lba: u64,
        kind: crate::host::IoKind,
    ) -> SimTime {
        use crate::host::IoKind;
        let z = self.zones.zone_of(Lba(lba));
        let (res, op) = match kind {
            IoKind::ZoneOpen => (self.zones.open(z), ZoneOp::Open(z)),
            IoKind::ZoneClose => (self.zones.close(z), ZoneOp::Close(z)),
            IoKind::ZoneFinish => (self.zones.finish(z).map(|_| ()), ZoneOp::Finish(z)),
            IoKind::ZoneReset => (self.zones.reset(z).map(|_| ()), ZoneOp::Reset(z)),
            _ => unreachable!("not a zone management command"),
        };
        if let Err(k) = res {
            self.record(k, op, now);
            return now;
        }
        match kind {
            IoKind::ZoneFinish => {
                self.counters.zone_finishes += 1;
                self.finalize(sh, now);
                self.zst[z.0 as usize].full = true;
                if self.zst[z.0 as usize].written > 0 {
                    return self.flush_zone(sh, now, z.0, Trigger::ZoneFull);
                }
                now
            }
            IoKind::ZoneReset => self.reset_zone(sh, now, z.0),
            _ => now,
        }
    }

    /// Erase zone `z`'s regular blocks, drop its buffered and SLC data and its cache entries.
    fn reset_zone(&mut self, sh: &mut ZShared, now: SimTime, z: u32) -> SimTime {
        self.counters.zone_resets += 1;
        let t = self.finalize_zone(sh, z).max(now);
        let st = self.zst[z as usize];
        if st.buf != NO_ZONE {
            self.bufs.bufs[st.buf as usize].count = 0;
            self.unbind(z);
        }
        for off in st.reg_wp..st.slc_end {
            let l = self.lpa(z, off);
            self.slc.invalidate(l);
        }
        self.reap_victims(sh, t);
        // Drop cached entries of the zone.
        let ns = self.ns;
        sh.cache.remove(cache_key(ns, Level::Zone, z));
        for c in 0..self.chunks_per_zone {
            sh.cache
                .remove(cache_key(ns, Level::Chunk, z * self.chunks_per_zone + c));
        }
        for off in 0..st.written {
            sh.cache
                .remove(cache_key(ns, Level::Page, z * self.size + off));
        }
        let done = self.space.release(sh.nand, z, t);
        self.zst[z as usize] = ZState::default();
        done
    }

    // ----- flushing --------------------------------------------------------------------------

    /// Flush zone `z`'s buffered (and SLC-held) data. See the module documentation for what
    /// each trigger does. Returns when the programs issued complete.
    fn flush_zone(&mut self, sh: &mut ZShared, t: SimTime, z: u32, trigger: Trigger) -> SimTime {
        let mut t = self.finalize_zone(sh, z).max(t);
        let st = self.zst[z as usize];
        let b = st.buf;
        if b != NO_ZONE {
            // The buffered data may still be on its way over the link.
            t = t.max(self.bufs.bufs[b as usize].ready);
        }
        let buffered = st.written - st.slc_end;
        let mut done = t;
        let mut to_slc = 0;
        let mut from_buf = 0;
        if self.policy == SlcPolicy::All {
            if trigger != Trigger::Full || buffered > 0 {
                done = self.write_slc(sh, t, z, st.slc_end, buffered);
                to_slc = buffered;
                from_buf = buffered;
                self.zst[z as usize].slc_end = st.written;
            }
        } else {
            let pending = st.written - st.reg_alloc;
            let units = if st.full {
                pending.div_ceil(self.unit)
            } else {
                pending / self.unit
            };
            let old_wp = st.reg_wp;
            let mut off = st.reg_alloc;
            for _ in 0..units {
                let end = (off + self.unit).min(st.written);
                done = done.max(self.program_unit(sh, t, z, off, end, true, OpClass::HostWrite));
                off = end;
            }
            let zs = &mut self.zst[z as usize];
            zs.reg_alloc = off;
            zs.reg_wp = off;
            from_buf = off.saturating_sub(st.slc_end);
            zs.slc_end = zs.slc_end.max(off);
            let rest = zs.written - zs.slc_end;
            let slc_end = zs.slc_end;
            if trigger != Trigger::Full && rest > 0 {
                done = done.max(self.write_slc(sh, t, z, slc_end, rest));
                self.zst[z as usize].slc_end = st.written;
                to_slc = rest;
                from_buf += rest;
            }
            if off > old_wp {
                self.on_mapped(sh, t, z, old_wp, off);
            }
        }
        if b != NO_ZONE {
            self.bufs.flushed(b, from_buf, done);
        }
        if to_slc > 0 {
            self.counters.flushes_to_slc += 1;
            self.counters.slc_buffered_pages += to_slc as u64;
        }
        match trigger {
            Trigger::Full | Trigger::ZoneFull => self.counters.full_flushes += 1,
            Trigger::Evict => self.counters.premature_flushes += 1,
            Trigger::Host => self.counters.host_forced_flushes += 1,
        }
        if trigger != Trigger::Full {
            self.unbind(z);
        }
        done
    }

    /// Program zone offsets `[off, end)` (at most one program unit, padded) to regular flash;
    /// the part held in SLC is read back first (and, if `invalidate`, dropped from SLC).
    #[allow(clippy::too_many_arguments)]
    fn program_unit(
        &mut self,
        sh: &mut ZShared,
        t: SimTime,
        z: u32,
        off: u32,
        end: u32,
        invalidate: bool,
        class: OpClass,
    ) -> SimTime {
        let st = self.zst[z as usize];
        let slc_hi = end.min(st.slc_end);
        let mut ready = t;
        if off < slc_hi {
            ready = ready.max(self.read_slc(sh, t, z, off, slc_hi, class));
            if invalidate {
                for o in off..slc_hi {
                    let l = self.lpa(z, o);
                    self.slc.invalidate(l);
                }
                self.counters.combined_pages += (slc_hi - off) as u64;
            }
        }
        self.counters.padding_slots += (self.unit - (end - off)) as u64;
        let p = self.space.locate(z, off);
        sh.nand.program(
            ready,
            p.die,
            self.unit,
            self.space.prog_pages,
            self.space.geo.cell,
            class,
        )
    }

    /// Read zone offsets `[lo, hi)` from SLC, one array read per flash page.
    fn read_slc(
        &mut self,
        sh: &mut ZShared,
        t: SimTime,
        z: u32,
        lo: u32,
        hi: u32,
        class: OpClass,
    ) -> SimTime {
        let mut done = t;
        let mut group: Option<(u64, u32, u32)> = None;
        for o in lo..hi {
            let ppa = self
                .slc
                .lookup(self.lpa(z, o))
                .expect("SLC-held page mapped");
            let (sb, so) = self.slc.split(ppa);
            let p = self.slc.geo.page_of(sb, so);
            let id = page_id(p.die, p.plane, p.block, p.page);
            match &mut group {
                Some(g) if g.0 == id => g.2 += 1,
                _ => {
                    if let Some(g) = group.take() {
                        done = done.max(sh.nand.read(
                            t,
                            g.1,
                            g.2 as u64 * SLOT_BYTES,
                            crate::config::CellType::Slc,
                            class,
                        ));
                    }
                    group = Some((id, p.die, 1));
                }
            }
        }
        if let Some(g) = group {
            done = done.max(sh.nand.read(
                t,
                g.1,
                g.2 as u64 * SLOT_BYTES,
                crate::config::CellType::Slc,
                class,
            ));
        }
        done
    }

    /// Write zone offsets `[lo, lo + n)` from the buffer to SLC (partial programming).
    fn write_slc(&mut self, sh: &mut ZShared, t: SimTime, z: u32, lo: u32, n: u32) -> SimTime {
        if n == 0 {
            return t;
        }
        let t = self.ensure_slc_space(sh, t);
        let mut done = t;
        for o in lo..lo + n {
            let l = self.lpa(z, o);
            if let Some(d) = self
                .slc
                .assign(sh.nand, HOST_FRONT, l, t, OpClass::HostWrite)
            {
                done = done.max(d);
            }
        }
        done.max(self.slc.commit(sh.nand, HOST_FRONT, OpClass::HostWrite))
    }

    // ----- hybrid map aggregation ------------------------------------------------------------

    /// Regular flash now maps `[0, new)` of zone `z` (was `[0, old)`): merge completed chunks
    /// (and the whole zone when it is FULL) into coarse entries.
    fn on_mapped(&mut self, sh: &mut ZShared, now: SimTime, z: u32, old: u32, new: u32) {
        if self.mapping != MappingKind::Hybrid {
            return;
        }
        let ns = self.ns;
        let st = self.zst[z as usize];
        let zone_done = st.full && new >= st.written;
        for c in old / CHUNK_SLOTS..new / CHUNK_SLOTS {
            for o in c * CHUNK_SLOTS..(c + 1) * CHUNK_SLOTS {
                sh.cache
                    .remove(cache_key(ns, Level::Page, z * self.size + o));
            }
            if !zone_done {
                let k = cache_key(ns, Level::Chunk, z * self.chunks_per_zone + c);
                self.cache_insert(sh, now, k, self.pin);
            }
        }
        if zone_done {
            for c in 0..self.chunks_per_zone {
                sh.cache
                    .remove(cache_key(ns, Level::Chunk, z * self.chunks_per_zone + c));
            }
            for o in new / CHUNK_SLOTS * CHUNK_SLOTS..st.written {
                sh.cache
                    .remove(cache_key(ns, Level::Page, z * self.size + o));
            }
            self.cache_insert(sh, now, cache_key(ns, Level::Zone, z), self.pin);
        }
    }

    // ----- SLC GC and migration ----------------------------------------------------------------

    /// Make sure the SLC pool has more than the GC threshold free; returns when writes to SLC
    /// may start (later than `now` if it had to wait for a migration or an erase).
    fn ensure_slc_space(&mut self, sh: &mut ZShared, now: SimTime) -> SimTime {
        let mut t = now;
        let mut guard = 4 * self.slc.sbs.info.len() + 16;
        while guard > 0 {
            guard -= 1;
            let free = self.slc.free_count(t);
            if free > self.slc_threshold {
                break;
            }
            let soon = free as usize + self.slc.pending_count() + self.draining.len();
            if soon <= self.slc_threshold as usize {
                let allow_full = self.slc_gc == SlcGc::Migrate;
                if let Some(v) = self.slc.pick_victim(allow_full) {
                    self.gc_victim(sh, t, v);
                    continue;
                }
            }
            // Wait for an erase or a migration to complete.
            let e = self.slc.next_erase_done();
            let j = self
                .jobs
                .iter()
                .filter(|j| j.lo == self.zst[j.zone as usize].reg_wp)
                .map(|j| j.done)
                .min();
            let next = match (e, j) {
                (Some(a), Some(b)) => a.min(b),
                (Some(a), None) | (None, Some(a)) => a,
                (None, None) => break,
            };
            t = t.max(next);
            self.finalize(sh, t);
        }
        t
    }

    fn gc_victim(&mut self, sh: &mut ZShared, now: SimTime, v: u32) {
        self.counters.slc_gc_victims += 1;
        let base = v * self.slc.sb_slots;
        if self.slc_gc == SlcGc::Migrate {
            let mut zs = std::mem::take(&mut self.gc_zones);
            zs.clear();
            for o in 0..self.slc.sb_slots {
                if let Some(l) = self.slc.map.owner(Ppa(base + o)) {
                    zs.push(l.0 / self.size);
                }
            }
            zs.sort_unstable();
            zs.dedup();
            for &z in &zs {
                self.migrate_zone(sh, now, z);
            }
            self.gc_zones = zs;
        }
        let spp = self.slc.geo.slots_per_page;
        let mut moved = 0u64;
        let mut o = 0;
        while o < self.slc.sb_slots {
            let mut slots = 0;
            for k in o..o + spp {
                if let Some(l) = self.slc.map.owner(Ppa(base + k)) {
                    let (z, off) = (l.0 / self.size, l.0 % self.size);
                    if off >= self.zst[z as usize].reg_alloc {
                        slots += 1;
                    }
                }
            }
            if slots > 0 {
                let p = self.slc.geo.page_of(v, o);
                let t = sh.nand.read(
                    now,
                    p.die,
                    slots as u64 * SLOT_BYTES,
                    crate::config::CellType::Slc,
                    OpClass::Background,
                );
                for k in o..o + spp {
                    if let Some(l) = self.slc.map.owner(Ppa(base + k)) {
                        let (z, off) = (l.0 / self.size, l.0 % self.size);
                        if off >= self.zst[z as usize].reg_alloc {
                            self.slc
                                .assign(sh.nand, GC_FRONT, l, t, OpClass::Background);
                            moved += 1;
                        }
                    }
                }
            }
            o += spp;
        }
        self.slc.commit(sh.nand, GC_FRONT, OpClass::Background);
        self.counters.slc_gc_pages_moved += moved;
        self.slc.busy[v as usize] = true;
        if self.slc.sbs.info[v as usize].valid == 0 {
            self.slc.erase(sh.nand, v, now);
        } else {
            self.draining.push(v);
        }
    }

    /// Start background migrations of zone `z`'s SLC-held data, whole program units (plus the
    /// padded tail if the zone is FULL and nothing of it is buffered).
    fn migrate_zone(&mut self, sh: &mut ZShared, now: SimTime, z: u32) {
        let st = self.zst[z as usize];
        let avail = st.slc_end - st.reg_alloc;
        let mut units = avail / self.unit;
        if st.full && st.slc_end == st.written && !avail.is_multiple_of(self.unit) {
            units += 1;
        }
        let mut off = st.reg_alloc;
        for _ in 0..units {
            let end = (off + self.unit).min(st.slc_end);
            let done = self.program_unit(sh, now, z, off, end, false, OpClass::Background);
            self.jobs.push_back(MigJob {
                done,
                zone: z,
                lo: off,
                hi: end,
            });
            self.zst[z as usize].jobs += 1;
            self.counters.gc_migrated_pages += (end - off) as u64;
            off = end;
        }
        self.zst[z as usize].reg_alloc = off;
    }

    /// Complete the migrations done by `now` (in zone order): invalidate the SLC copies, map
    /// the data in regular flash, erase emptied victims.
    fn finalize(&mut self, sh: &mut ZShared, now: SimTime) {
        if self.jobs.is_empty() {
            return;
        }
        loop {
            let pos = self
                .jobs
                .iter()
                .position(|j| j.done <= now && j.lo == self.zst[j.zone as usize].reg_wp);
            let Some(i) = pos else { break };
            let j = self.jobs.remove(i).expect("job");
            self.complete(sh, j, now);
        }
    }

    /// Complete every migration of zone `z` now; returns when the last one is done.
    fn finalize_zone(&mut self, sh: &mut ZShared, z: u32) -> SimTime {
        let mut t = SimTime::ZERO;
        while self.zst[z as usize].jobs > 0 {
            let wp = self.zst[z as usize].reg_wp;
            let i = self
                .jobs
                .iter()
                .position(|j| j.zone == z && j.lo == wp)
                .expect("migration of the zone in order");
            let j = self.jobs.remove(i).expect("job");
            t = t.max(j.done);
            self.complete(sh, j, j.done);
        }
        t
    }

    fn complete(&mut self, sh: &mut ZShared, j: MigJob, now: SimTime) {
        for o in j.lo..j.hi {
            let l = self.lpa(j.zone, o);
            self.slc.invalidate(l);
        }
        let zs = &mut self.zst[j.zone as usize];
        zs.reg_wp = j.hi;
        zs.jobs -= 1;
        self.on_mapped(sh, now.max(j.done), j.zone, j.lo, j.hi);
        self.reap_victims(sh, now.max(j.done));
    }

    /// Erase victims whose valid data is all gone.
    fn reap_victims(&mut self, sh: &mut ZShared, now: SimTime) {
        let mut i = 0;
        while i < self.draining.len() {
            let v = self.draining[i];
            if self.slc.sbs.info[v as usize].valid == 0 {
                self.draining.swap_remove(i);
                self.slc.erase(sh.nand, v, now);
            } else {
                i += 1;
            }
        }
    }

    // ----- invariants ----------------------------------------------------------------------

    /// Zone firmware state agrees with the zone state machine, buffers, SLC map and pools.
    pub fn check_invariants(&self) -> Result<(), String> {
        self.zones.check_invariants()?;
        self.slc.check()?;
        self.space.check()?;
        let mut slc_held = 0u64;
        for z in 0..self.zst.len() as u32 {
            let st = self.zst[z as usize];
            if !(st.reg_wp <= st.reg_alloc
                && st.reg_alloc <= st.slc_end
                && st.slc_end <= st.written
                && st.written <= self.cap)
            {
                return Err(format!("zone {z}: bad offsets {st:?}"));
            }
            let id = ZoneId(z);
            let wp = (self.zones.write_pointer(id).0 - self.zones.zone_start(id).0) as u32;
            if wp != st.written && !(st.full && wp == self.cap) {
                return Err(format!(
                    "zone {z}: zone write pointer {wp} but {} written",
                    st.written
                ));
            }
            if (st.written > 0) != self.space.is_allocated(z) {
                return Err(format!(
                    "zone {z}: {} written but allocated = {}",
                    st.written,
                    self.space.is_allocated(z)
                ));
            }
            for o in st.reg_wp..st.slc_end {
                if self.slc.lookup(self.lpa(z, o)).is_none() {
                    return Err(format!("zone {z}: offset {o} should be held in SLC"));
                }
            }
            slc_held += (st.slc_end - st.reg_wp) as u64;
            match st.buf {
                NO_ZONE => {
                    if st.slc_end != st.written {
                        return Err(format!("zone {z}: buffered data but no buffer"));
                    }
                }
                b => {
                    let x = &self.bufs.bufs[b as usize];
                    if x.owner != z || x.count != st.written - st.slc_end {
                        return Err(format!(
                            "zone {z}: buffer {b} owner {} count {} but {} buffered",
                            x.owner,
                            x.count,
                            st.written - st.slc_end
                        ));
                    }
                }
            }
            let jobs = self.jobs.iter().filter(|j| j.zone == z).count() as u32;
            if jobs != st.jobs {
                return Err(format!(
                    "zone {z}: {jobs} migrations queued, {} counted",
                    st.jobs
                ));
            }
        }
        let mapped = self
            .slc
            .sbs
            .info
            .iter()
            .map(|i| i.valid as u64)
            .sum::<u64>();
        if mapped != slc_held {
            return Err(format!(
                "SLC holds {mapped} valid pages but zones account for {slc_held}"
            ));
        }
        for (b, x) in self.bufs.bufs.iter().enumerate() {
            if x.owner != NO_ZONE && self.zst[x.owner as usize].buf != b as u32 {
                return Err(format!(
                    "buffer {b} owned by zone {} which does not hold it",
                    x.owner
                ));
            }
        }
        Ok(())
    }
}

#[inline]
fn page_id(die: u32, plane: u32, block: u32, page: u32) -> u64 {
    ((block as u64) << 40) | ((page as u64) << 20) | ((die as u64) << 4) | plane as u64
}
