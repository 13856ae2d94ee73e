//! The SLC write cache of a conventional namespace (`slc.conventional_buffer`; ConZone+
//! ConZone+ §2.1 "all user data must be buffered in SLC" on QLC, §4 and §6.3–6.5: the block
//! device's SLC secondary buffer).
//!
//! The same room as the zoned namespaces' secondary buffer: an [`SlcPool`] over this
//! namespace's share of the SLC region (`device::plan`), written with 4 KiB partial
//! programming through its host frontier, collected by the shared greedy victim choice and
//! [`SlcPool::room`] rule (more than `slc.gc_threshold_free_superblocks` free).
//! - `slc.policy = bypass`: a host flush that leaves less than a program unit (the write
//!   buffer's remainder and the streams' pending partial units, still in controller RAM)
//!   writes it to SLC instead of padding a whole regular program.
//! - `slc.policy = all`: every buffer flush writes to SLC.
//! - SLC GC migrates every valid page of a victim to regular flash through the placement's GC
//!   stream (`slc.gc = migrate`: a page-mapped namespace has no zone unit to combine SLC data
//!   into, so data leaves SLC only this way), paying regular-flash GC as host flushes do.
//!
//! A page held in SLC is `Unmapped` in the namespace's page map and mapped in the pool's map
//! (never both: `check`); reads find it there (SLC timing), overwrites and trims drop it.

use super::writeback::Writeback;
use super::PageFtl;
use crate::config::{CellType, SlcConfig, SlcPolicy};
use crate::engine::SimTime;
use crate::firmware::alloc::NO_SB;
use crate::firmware::alloc::{make_room, SlcCounters, SlcPool, SlcRoom, HOST_FRONT};
use crate::firmware::mapping::{Entry, Lpa, Ppa};
use crate::firmware::Lent;
use crate::nand::{Geometry, OpClass, SLOT_BYTES};

/// What migrating one SLC flash page did.
pub(super) struct Moved {
    pub pages: u64,
    /// The latest completion of the flash work it issued (`now` if the page held nothing).
    pub done: SimTime,
    /// Whether it completed (and programmed) a regular-flash unit.
    pub programmed: bool,
}

/// A conventional namespace's SLC write cache.
#[derive(Clone)]
pub struct SlcCache {
    pub(super) pool: SlcPool,
    policy: SlcPolicy,
    threshold: u32,
    pub counters: SlcCounters,
    /// Scratch: the pages of one write to SLC.
    scratch: Vec<Lpa>,
    /// The background write-back policy (`slc.writeback`, `writeback.rs`).
    pub wb: Writeback,
}

impl SlcCache {
    /// A cache over the SLC region view `geo` for `logical` pages, managed as `cfg` says.
    pub fn new(geo: Geometry, logical: u64, cfg: &SlcConfig) -> SlcCache {
        let pool = SlcPool::new(geo, logical);
        let threshold = cfg.gc_threshold_free_superblocks;
        SlcCache {
            wb: Writeback::new(cfg, pool.superblocks(), threshold),
            pool,
            policy: cfg.policy,
            threshold,
            counters: SlcCounters::default(),
            scratch: Vec::new(),
        }
    }

    pub fn policy(&self) -> SlcPolicy {
        self.policy
    }

    pub fn superblocks(&self) -> u32 {
        self.pool.superblocks()
    }

    pub fn free_superblocks(&self) -> u32 {
        self.pool.free_superblocks()
    }

    /// Valid pages held in SLC.
    pub fn valid_pages(&self) -> u64 {
        self.pool.valid_total()
    }
}

impl PageFtl {
    /// The SLC cache, if `slc.conventional_buffer` gave this namespace one.
    pub fn slc_cache(&self) -> Option<&SlcCache> {
        self.slc.as_deref()
    }

    /// Whether `lpa` is held in its SLC cache.
    pub fn in_slc(&self, lpa: Lpa) -> bool {
        self.slc_lookup(lpa).is_some()
    }

    /// Pages held in its SLC cache (0 without one).
    pub fn slc_valid_pages(&self) -> u64 {
        self.slc.as_ref().map_or(0, |c| c.valid_pages())
    }

    /// Whether every buffer flush goes to SLC (`slc.policy = all`).
    #[inline]
    pub(super) fn slc_all(&self) -> bool {
        self.slc
            .as_ref()
            .is_some_and(|c| c.policy == SlcPolicy::All)
    }

    /// The SLC slot holding `lpa`, if any.
    #[inline]
    pub(super) fn slc_lookup(&self, lpa: Lpa) -> Option<Ppa> {
        self.slc.as_ref().and_then(|c| c.pool.lookup(lpa))
    }

    /// Drop the SLC copy of `lpa` (overwritten or trimmed); true if there was one.
    #[inline]
    pub(super) fn slc_invalidate(&mut self, lpa: Lpa) -> bool {
        self.slc.as_mut().is_some_and(|c| c.pool.invalidate(lpa))
    }

    /// Host read of SLC slot `ppa` once its map entry is in SRAM (`map_ready`).
    pub(super) fn read_slc(&mut self, lent: &mut Lent, map_ready: SimTime, ppa: Ppa) -> SimTime {
        let c = self.slc.as_ref().expect("SLC cache");
        let p = c.pool.page_of(ppa);
        lent.nand
            .read_page_at(map_ready, p, SLOT_BYTES, CellType::Slc, OpClass::HostRead)
    }

    /// `slc.policy = all`: move up to one unit of buffered pages to SLC. Returns when the
    /// programs complete.
    pub(super) fn flush_unit_slc(&mut self, lent: &mut Lent, now: SimTime) -> SimTime {
        let now = now.max(self.buffer.last_arrival());
        let mut lpas = self.take_scratch();
        let moved = self.drain_buffer(lent, now, self.unit, &mut lpas);
        let done = self.write_slc(lent, now, &lpas);
        self.put_scratch(lpas);
        self.buffer.flushed(moved, done);
        done
    }

    /// Host flush with the cache: what is left in the write buffer and the streams' pending
    /// partial units (in controller RAM) go to SLC instead of being padded. Returns when the
    /// programs complete.
    pub(super) fn flush_partial_slc(&mut self, lent: &mut Lent, now: SimTime) -> SimTime {
        let now = now.max(self.buffer.last_arrival());
        let mut lpas = self.take_scratch();
        let moved = self.drain_buffer(lent, now, u32::MAX, &mut lpas);
        let mut ready = now;
        for s in 0..self.streams.len() {
            ready = ready.max(self.rewind_stream(s, &mut lpas));
        }
        let done = self.write_slc(lent, ready, &lpas);
        self.put_scratch(lpas);
        self.buffer.flushed(moved, done);
        done
    }

    /// Pop up to `max` live buffered pages into `out`, their map entries leaving the buffer
    /// (updated through the L2P cache, as a placement is); returns how many.
    fn drain_buffer(&mut self, lent: &mut Lent, now: SimTime, max: u32, out: &mut Vec<Lpa>) -> u32 {
        let mut moved = 0;
        while moved < max {
            let Some((l, tag, _, _)) = self.buffer.pop_entry() else {
                break;
            };
            if self.map.get(l) != Entry::Buffered(tag) {
                continue; // trimmed while buffered
            }
            self.map.unmap(l);
            self.map_access(lent, now, l, true);
            out.push(l);
            moved += 1;
        }
        moved
    }

    /// Take stream `s`'s pending partial unit back (its slots unassigned, its live pages
    /// pushed to `out` and unmapped); returns when its data was ready.
    fn rewind_stream(&mut self, s: usize, out: &mut Vec<Lpa>) -> SimTime {
        let st = self.streams[s];
        if st.sb == NO_SB || st.next == st.unit_start {
            return SimTime::ZERO;
        }
        let base = st.sb * self.slots_per_sb;
        for off in st.unit_start..st.next {
            let ppa = Ppa(base + off);
            if let Some(l) = self.map.owner(ppa) {
                self.invalidate_in(st.sb, ppa);
                self.map.unmap(l);
                out.push(l);
            }
        }
        let s = &mut self.streams[s];
        s.next = s.unit_start;
        s.pending_ready = SimTime::ZERO;
        st.pending_ready
    }

    /// Write `lpas` (ready at `t`) to SLC once it has room. Returns when the programs complete.
    fn write_slc(&mut self, lent: &mut Lent, t: SimTime, lpas: &[Lpa]) -> SimTime {
        if lpas.is_empty() {
            return t;
        }
        let t = self.make_slc_room(lent, t);
        let c = self.slc.as_mut().expect("SLC cache");
        c.counters.flushes_to_slc += 1;
        c.counters.slc_buffered_pages += lpas.len() as u64;
        let done = c.pool.write(
            lent.nand,
            HOST_FRONT,
            lpas.iter().copied(),
            t,
            OpClass::HostWrite,
        );
        self.threshold_writeback(lent, t);
        done
    }

    /// Keep more than the SLC GC threshold free (migrating victims to regular flash, or
    /// waiting for their erases); returns when SLC writes may start.
    fn make_slc_room(&mut self, lent: &mut Lent, now: SimTime) -> SimTime {
        let target = self.slc.as_ref().expect("SLC cache").threshold;
        make_room(&mut SlcRoomOf::gc(self, target), lent, now)
    }

    /// SLC GC of victim `v`: every valid page read (one SLC read per flash page) and
    /// rewritten to regular flash through the placement's GC stream; the victim is erased.
    /// `writeback`: the write-back policy's (counted as write-back, not SLC GC).
    pub(super) fn migrate_slc_victim(
        &mut self,
        lent: &mut Lent,
        now: SimTime,
        v: u32,
        writeback: bool,
    ) {
        let mut c = self.slc.take().expect("SLC cache");
        // If the idle write-back was part-way through it, this collection finishes it.
        c.wb.forget_victim(v);
        if writeback {
            c.wb.counters.writeback_victims += 1;
        } else {
            c.counters.slc_gc_victims += 1;
            if c.pool.valid(v) == 0 {
                // Nothing left to copy: erased as it stands (a direct erase).
                c.counters.slc_direct_erases += 1;
            }
        }
        let (sb_slots, spp) = (c.pool.slots_per_sb(), c.pool.slots_per_page());
        let mut o = 0;
        while o < sb_slots {
            let moved = self.migrate_slc_page(lent, &mut c, v, o, now).pages;
            if writeback {
                c.wb.counters.writeback_pages += moved;
            } else {
                c.counters.gc_migrated_pages += moved;
            }
            o += spp;
        }
        self.slc = Some(c);
        self.end_slc_victim(lent, v, now);
    }

    /// Migrate the valid slots of victim `v`'s flash page at offset `o` to regular flash
    /// (one SLC read, the slots placed through the GC stream, regular-flash GC paid as host
    /// flushes pay it).
    pub(super) fn migrate_slc_page(
        &mut self,
        lent: &mut Lent,
        c: &mut SlcCache,
        v: u32,
        o: u32,
        now: SimTime,
    ) -> Moved {
        let pool = &c.pool;
        let Some(t) = pool.read_kept(lent.nand, v, o, now, |p| pool.owner(p).is_some()) else {
            return Moved {
                pages: 0,
                done: now,
                programmed: false,
            };
        };
        let mut m = Moved {
            pages: 0,
            done: t,
            programmed: false,
        };
        self.ensure_free(lent, now);
        let base = v * c.pool.slots_per_sb();
        for k in o..o + c.pool.slots_per_page() {
            if let Some(l) = c.pool.owner(Ppa(base + k)) {
                c.pool.invalidate(l);
                m.pages += 1;
                let stream = self.placement.gc(l, 0);
                if let Some(d) = self.place_gc(lent, stream, l, t, now) {
                    m.done = m.done.max(d);
                    m.programmed = true;
                }
                if self.incremental {
                    m.done = m.done.max(self.gc_pay(lent, now));
                }
            }
        }
        m
    }

    /// A migrated victim is empty: apply the batched map updates and erase it.
    pub(super) fn end_slc_victim(&mut self, lent: &mut Lent, v: u32, now: SimTime) {
        self.flush_gc_map_updates(lent, now);
        let c = self.slc.as_mut().expect("SLC cache");
        let erased = c.pool.finish_victim(lent.nand, v, now);
        debug_assert!(erased, "a migrated SLC victim is empty");
    }

    fn take_scratch(&mut self) -> Vec<Lpa> {
        let mut v = std::mem::take(&mut self.slc.as_mut().expect("SLC cache").scratch);
        v.clear();
        v
    }

    fn put_scratch(&mut self, v: Vec<Lpa>) {
        self.slc.as_mut().expect("SLC cache").scratch = v;
    }

    /// The pool's invariants, and every page held in SLC unmapped in the page map.
    pub(super) fn check_slc(&self) -> Result<(), String> {
        let Some(c) = &self.slc else {
            return Ok(());
        };
        c.pool.check()?;
        for l in 0..self.map.logical_pages() as u32 {
            if c.pool.lookup(Lpa(l)).is_some() && self.map.get(Lpa(l)) != Entry::Unmapped {
                return Err(format!(
                    "lpa {l} held in SLC is also {:?} in the page map",
                    self.map.get(Lpa(l))
                ));
            }
        }
        Ok(())
    }
}

/// The conventional FTL as [`make_room`] drives it: SLC GC (keep more than the GC threshold
/// free, waiting for erases) or threshold write-back (keep use under `slc.writeback_threshold`,
/// in the background: never waits).
pub(super) struct SlcRoomOf<'f> {
    ftl: &'f mut PageFtl,
    target: u32,
    writeback: bool,
}

impl<'f> SlcRoomOf<'f> {
    pub(super) fn gc(ftl: &'f mut PageFtl, target: u32) -> Self {
        SlcRoomOf {
            ftl,
            target,
            writeback: false,
        }
    }

    pub(super) fn writeback(ftl: &'f mut PageFtl, target: u32) -> Self {
        SlcRoomOf {
            ftl,
            target,
            writeback: true,
        }
    }
}

impl SlcRoom for SlcRoomOf<'_> {
    fn pool(&mut self) -> &mut SlcPool {
        &mut self.ftl.slc.as_mut().expect("SLC cache").pool
    }

    fn room_rule(&self) -> (u32, usize, bool) {
        (self.target, 0, true)
    }

    fn collect(&mut self, lent: &mut Lent, t: SimTime, v: u32) {
        self.ftl.migrate_slc_victim(lent, t, v, self.writeback);
    }

    fn wait(&mut self, _lent: &mut Lent, _t: SimTime) -> Option<SimTime> {
        if self.writeback {
            return None;
        }
        self.pool().next_erase_done()
    }
}
