//! The pSLC pool of a zoned namespace: its SLC secondary write buffer (ConZone §2.1, §3.2
//! Fig. 4 ②, §3.4).
//!
//! pSLC superblocks (a region view of the first `nand.slc_blocks_per_plane` blocks of every
//! plane) allocated at page level through write frontiers ([`Stream`]). Data lands here with
//! 4 KiB partial programming: a flush of `n` slots programs exactly those slots, one SLC
//! program per die unit touched (so a 4 KiB premature flush costs one SLC program of one slot).
//! The page-level map of SLC-held data and its reverse map are kept here; SLC data is never
//! aggregated. Victims for SLC GC are chosen by [`crate::firmware::gc::select_victim`] (greedy,
//! skipping victims still draining or being erased); the collection itself is the zoned FTL's
//! (`firmware/zoned/migrate.rs`).
//!
//! `slc.granularity = "zone"` (ConZone+ `ZONED_SLC`, ConZone+ §6.5 Fig. 12 "zonedslc"): a zone's
//! SLC data goes to SLC superblocks of its own through one of [`zone_fronts`] per-zone
//! frontiers, one per open zone (least recently used one recycled: its pending slots are programmed and its
//! partly written superblock closed), so a zone's SLC data leaves SLC as a whole (migration
//! or reset) and its superblocks are then erased without copying anything (direct erases).

use super::{Stream, Superblocks, NO_SB};
use crate::config::{CellType, SlcGranularity, VictimPolicy};
use crate::engine::{rng_for, Rng, SimTime};
use crate::firmware::gc::{select_victim, VictimParams};
use crate::firmware::mapping::{Entry, Lpa, PageMap, Ppa};
use crate::firmware::Lent;
use crate::nand::{FlashPage, Geometry, NandArray, OpClass, SLOT_BYTES};
use serde::Serialize;

/// The frontier host (buffer-flush) data is written through.
pub const HOST_FRONT: usize = 0;
/// The frontier SLC GC rewrites survivors through.
pub const GC_FRONT: usize = 1;
/// Per-zone frontiers of `slc.granularity = "zone"` (after the two shared ones): one per
/// open zone (`zone.max_open`, 8 when unlimited), at most 16.
pub fn zone_fronts(max_open: u32) -> usize {
    if max_open == 0 {
        8
    } else {
        (max_open as usize).min(16)
    }
}

/// What keeping the pool above its SLC GC threshold needs next ([`SlcPool::room`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Room {
    /// More than the threshold is free.
    Enough,
    /// Collect this victim.
    Collect(u32),
    /// Nothing to collect now: wait for an erase or a migration in flight.
    Wait,
}

/// What an FTL does while [`make_room`] keeps its SLC pool above a free target: its rule for
/// [`SlcPool::room`], how it collects a victim, and what it waits for when nothing can be
/// collected now.
pub trait SlcRoom {
    fn pool(&mut self) -> &mut SlcPool;
    /// (free superblocks to keep above, victims still draining, whether entirely valid
    /// victims may be collected).
    fn room_rule(&self) -> (u32, usize, bool);
    /// Collect victim `v` at `t`.
    fn collect(&mut self, lent: &mut Lent, t: SimTime, v: u32);
    /// Nothing to collect at `t`: when to look again (an erase or a migration completes), or
    /// None to give up.
    fn wait(&mut self, lent: &mut Lent, t: SimTime) -> Option<SimTime>;
}

/// Keep `f`'s SLC pool above its free target: collect victims, or wait for what frees space,
/// a bounded number of times. Returns when SLC writes may start.
pub fn make_room<F: SlcRoom>(f: &mut F, lent: &mut Lent, now: SimTime) -> SimTime {
    let mut t = now;
    let mut guard = 4 * f.pool().superblocks() as usize + 16;
    while guard > 0 {
        guard -= 1;
        let (threshold, draining, allow_full) = f.room_rule();
        match f.pool().room(t, threshold, draining, allow_full) {
            Room::Enough => break,
            Room::Collect(v) => f.collect(lent, t, v),
            Room::Wait => match f.wait(lent, t) {
                Some(next) => t = t.max(next),
                None => break,
            },
        }
    }
    t
}

/// The counters of a namespace's SLC buffer: the zoned FTL's secondary buffer (flattened
/// into its counters) and a conventional namespace's SLC write cache
/// (`slc.conventional_buffer`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct SlcCounters {
    /// Buffer flushes that wrote data (less than a program unit, or with `slc.policy = all`
    /// any) to SLC (ConZone+ Fig. 4 ②), and the 4 KiB pages they programmed into SLC.
    pub flushes_to_slc: u64,
    pub slc_buffered_pages: u64,
    /// Pages rewritten inside SLC by SLC GC.
    pub slc_gc_pages_moved: u64,
    pub slc_gc_victims: u64,
    /// SLC GC victims erased with no valid data: no copy, no migration (Fig. 12(c)).
    pub slc_direct_erases: u64,
    /// Pages SLC GC migrated to regular flash.
    pub gc_migrated_pages: u64,
}

#[derive(Clone)]
pub struct SlcPool {
    geo: Geometry,
    sbs: Superblocks,
    map: PageMap,
    sb_slots: u32,
    unit: u32,
    fronts: Vec<Stream>,
    granularity: SlcGranularity,
    /// Zone mode: the zone of each per-zone frontier (u32::MAX = none) and its last use.
    front_zone: Vec<(u32, u64)>,
    uses: u64,

    /// Victims under migration or waiting for their erase to complete.
    busy: Vec<bool>,
    /// Erased superblocks and the time their erase completes (not reusable before).
    pending_free: Vec<(SimTime, u32)>,
    /// Unused by the greedy policy; kept so the victim policy is the shared one.
    rng: Rng,
}

impl SlcPool {
    pub fn new(geo: Geometry, logical_pages: u64) -> SlcPool {
        SlcPool::with_granularity(geo, logical_pages, SlcGranularity::Page, 0)
    }

    /// A pool managed at `granularity`; zone granularity has `zone_fronts` per-zone frontiers.
    pub fn with_granularity(
        geo: Geometry,
        logical_pages: u64,
        granularity: SlcGranularity,
        zone_fronts: usize,
    ) -> SlcPool {
        let zf = match granularity {
            SlcGranularity::Page => 0,
            SlcGranularity::Zone => zone_fronts.max(1),
        };
        let n = geo.superblocks;
        SlcPool {
            sb_slots: geo.slots_per_superblock(),
            unit: geo.die_unit_slots(),
            map: PageMap::new(logical_pages, geo.total_slots()),
            sbs: Superblocks::new(n),
            fronts: vec![Stream::default(); 2 + zf],
            granularity,
            front_zone: vec![(u32::MAX, 0); zf],
            uses: 0,

            busy: vec![false; n as usize],
            pending_free: Vec::with_capacity(n as usize),
            rng: rng_for(0, 0x736c63),
            geo,
        }
    }

    /// Superblocks in the pool.
    pub fn superblocks(&self) -> u32 {
        self.geo.superblocks
    }

    /// 4 KiB slots of one superblock.
    #[inline]
    pub fn slots_per_sb(&self) -> u32 {
        self.sb_slots
    }

    /// 4 KiB slots of one flash page.
    #[inline]
    pub fn slots_per_page(&self) -> u32 {
        self.geo.slots_per_page
    }

    /// Free superblocks (erases completed by the last [`SlcPool::free_count`]).
    pub fn free_superblocks(&self) -> u32 {
        self.sbs.free_count()
    }

    /// Free superblocks, counting those whose erase completes by `now`.
    pub fn free_count(&mut self, now: SimTime) -> u32 {
        self.reap(now);
        self.sbs.free_count()
    }

    fn reap(&mut self, now: SimTime) {
        let mut i = 0;
        while i < self.pending_free.len() {
            if self.pending_free[i].0 <= now {
                let (_, sb) = self.pending_free.swap_remove(i);
                self.busy[sb as usize] = false;
                self.sbs.release(sb);
            } else {
                i += 1;
            }
        }
    }

    /// Superblocks erased or being erased, not yet free.
    pub fn pending_count(&self) -> usize {
        self.pending_free.len()
    }

    /// Earliest time a pending erase completes (to wait for space), if any.
    pub fn next_erase_done(&self) -> Option<SimTime> {
        self.pending_free.iter().map(|p| p.0).min()
    }

    /// Valid slots of superblock `sb`.
    #[inline]
    pub fn valid(&self, sb: u32) -> u32 {
        self.sbs.info[sb as usize].valid
    }

    /// Valid slots of the whole pool.
    pub fn valid_total(&self) -> u64 {
        self.sbs.info.iter().map(|i| i.valid as u64).sum()
    }

    /// The logical page held in slot `ppa`, if valid.
    #[inline]
    pub fn owner(&self, ppa: Ppa) -> Option<Lpa> {
        self.map.owner(ppa)
    }

    #[inline]
    pub fn lookup(&self, lpa: Lpa) -> Option<Ppa> {
        match self.map.get(lpa) {
            Entry::Flash(p) => Some(p),
            _ => None,
        }
    }

    /// The flash page holding slot `ppa`.
    #[inline]
    pub fn page_of(&self, ppa: Ppa) -> FlashPage {
        self.geo
            .page_of(ppa.0 / self.sb_slots, ppa.0 % self.sb_slots)
    }

    /// The flash page holding offset `off` of superblock `sb`.
    #[inline]
    pub fn page_at(&self, sb: u32, off: u32) -> FlashPage {
        self.geo.page_of(sb, off)
    }

    /// Drop the SLC copy of `lpa` (migrated, rewritten or reset).
    #[inline]
    pub fn invalidate(&mut self, lpa: Lpa) -> bool {
        if let Entry::Flash(p) = self.map.get(lpa) {
            self.map.invalidate(p);
            self.map.unmap(lpa);
            self.sbs.info[(p.0 / self.sb_slots) as usize].valid -= 1;
            true
        } else {
            false
        }
    }

    /// Assign the next slot of frontier `f` to `lpa` (data ready at `ready`). Needs a free
    /// superblock when the frontier is closed (the caller keeps the GC reserve). Returns the
    /// completion of the program it issued when the slot completed a die unit.
    pub fn assign(
        &mut self,
        nand: &mut NandArray,
        f: usize,
        lpa: Lpa,
        ready: SimTime,
        class: OpClass,
    ) -> Option<SimTime> {
        self.invalidate(lpa);
        let ppa = self.fronts[f].assign(&mut self.sbs, f as u8, self.sb_slots, ready);
        self.map.map(lpa, ppa);
        if self.fronts[f].next.is_multiple_of(self.unit) {
            Some(self.commit(nand, f, class))
        } else {
            None
        }
    }

    /// Write `lpas` (data ready at `t`) through frontier `f` with partial programming: one
    /// SLC program per die unit touched. Returns when the programs complete.
    pub fn write(
        &mut self,
        nand: &mut NandArray,
        f: usize,
        lpas: impl Iterator<Item = Lpa>,
        t: SimTime,
        class: OpClass,
    ) -> SimTime {
        let mut done = t;
        for l in lpas {
            if let Some(d) = self.assign(nand, f, l, t, class) {
                done = done.max(d);
            }
        }
        done.max(self.commit(nand, f, class))
    }

    /// What keeping more than `threshold` superblocks free needs next at `t`: a victim is
    /// collected only when the free, erasing and `draining` superblocks together do not exceed
    /// the threshold (greedy; entirely valid victims only if `allow_full`).
    pub fn room(&mut self, t: SimTime, threshold: u32, draining: usize, allow_full: bool) -> Room {
        let free = self.free_count(t);
        if free > threshold {
            return Room::Enough;
        }
        if free as usize + self.pending_count() + draining <= threshold as usize {
            if let Some(v) = self.pick_victim(allow_full) {
                return Room::Collect(v);
            }
        }
        Room::Wait
    }

    /// One SLC array read at `now` of the slots of victim `v`'s flash page at offset `o`
    /// that `keep` accepts; None (no read) if it accepts none.
    pub fn read_kept(
        &self,
        nand: &mut NandArray,
        v: u32,
        o: u32,
        now: SimTime,
        keep: impl Fn(Ppa) -> bool,
    ) -> Option<SimTime> {
        let base = v * self.sb_slots;
        let slots = (o..o + self.geo.slots_per_page)
            .filter(|&k| keep(Ppa(base + k)))
            .count();
        (slots > 0).then(|| {
            let p = self.page_at(v, o);
            nand.read_block(
                now,
                p,
                slots as u64 * SLOT_BYTES,
                CellType::Slc,
                OpClass::Background,
            )
        })
    }

    /// End the collection of victim `v`: program the GC frontier's pending slots, and erase
    /// the victim if it is empty (true) or leave it busy until its data has left.
    pub fn finish_victim(&mut self, nand: &mut NandArray, v: u32, now: SimTime) -> bool {
        self.commit(nand, GC_FRONT, OpClass::Background);
        self.mark_busy(v);
        let empty = self.valid(v) == 0;
        if empty {
            self.erase(nand, v, now);
        }
        empty
    }

    /// Program the frontier's assigned, unprogrammed slots (partial programming). Returns when
    /// the program completes (the segment's ready time if there was nothing to program).
    pub fn commit(&mut self, nand: &mut NandArray, f: usize, class: OpClass) -> SimTime {
        let fr = self.fronts[f];
        if fr.sb == NO_SB || fr.next == fr.unit_start {
            return fr.pending_ready;
        }
        let slots = fr.next - fr.unit_start;
        let die = self.geo.die_of_offset(fr.unit_start);
        let pages = slots.div_ceil(self.geo.slots_per_page);
        let done = nand.program(fr.pending_ready, die, slots, pages, CellType::Slc, class);
        self.fronts[f].programmed(&mut self.sbs, self.sb_slots, done);
        done
    }

    /// Greedy victim: the full, not busy superblock with the fewest valid slots (entirely valid
    /// ones only if `allow_full`, i.e. when GC migrates data out of SLC).
    pub fn pick_victim(&mut self, allow_full: bool) -> Option<u32> {
        let p = VictimParams {
            d: 1,
            window: 1,
            slots_per_sb: self.sb_slots,
            allow_full,
        };
        let busy = &self.busy;
        select_victim(
            VictimPolicy::Greedy,
            &self.sbs.info,
            SimTime::ZERO,
            p,
            &mut self.rng,
            |s| busy[s as usize],
        )
    }

    pub fn granularity(&self) -> SlcGranularity {
        self.granularity
    }

    /// The frontier SLC data of `zone` is written through: `default` (host or GC) at page
    /// granularity; the zone's own frontier at zone granularity (recycling the least recently
    /// used one: its pending slots are programmed and its superblock closed where it stands).
    pub fn front_for(
        &mut self,
        nand: &mut NandArray,
        zone: u32,
        default: usize,
        class: OpClass,
    ) -> usize {
        if self.granularity == SlcGranularity::Page {
            return default;
        }
        self.uses += 1;
        if let Some(i) = self.front_zone.iter().position(|f| f.0 == zone) {
            self.front_zone[i].1 = self.uses;
            return 2 + i;
        }
        let i = (0..self.front_zone.len())
            .min_by_key(|&i| self.front_zone[i].1)
            .expect("zone fronts");
        let f = 2 + i;
        self.close_front(nand, f, class);
        self.front_zone[i] = (zone, self.uses);
        f
    }

    /// Program frontier `f`'s pending slots and close its superblock, part-written.
    fn close_front(&mut self, nand: &mut NandArray, f: usize, class: OpClass) {
        self.commit(nand, f, class);
        let fr = self.fronts[f];
        if fr.sb != NO_SB {
            self.sbs.close(fr.sb, fr.pending_ready);
            self.fronts[f] = Stream::default();
        }
    }

    /// Closed superblocks with no valid data left that no collection holds (erasable as they
    /// stand), pushed to `out`.
    pub fn empty_closed(&self, out: &mut Vec<u32>) {
        out.extend((0..self.geo.superblocks).filter(|&sb| {
            let i = &self.sbs.info[sb as usize];
            i.state == super::SbState::Full && i.valid == 0 && !self.busy[sb as usize]
        }));
    }

    /// Program the host frontier's pending slots and close its superblock part-written, so
    /// the SLC write-back can empty it (the next host write opens a fresh one).
    pub fn close_host_front(&mut self, nand: &mut NandArray) {
        self.close_front(nand, HOST_FRONT, OpClass::Background);
    }

    /// Close the least recently used open per-zone frontier (its pending slots programmed, its
    /// superblock closed part-written) so SLC GC can collect it; false if none is open.
    pub fn close_lru_zone_front(&mut self, nand: &mut NandArray, class: OpClass) -> bool {
        let Some(i) = (0..self.front_zone.len())
            .filter(|&i| self.fronts[2 + i].sb != NO_SB)
            .min_by_key(|&i| self.front_zone[i].1)
        else {
            return false;
        };
        let f = 2 + i;
        self.close_front(nand, f, class);
        self.front_zone[i] = (u32::MAX, 0);
        true
    }

    /// Victim `sb` is being collected: not a candidate again until it is erased and free.
    pub fn mark_busy(&mut self, sb: u32) {
        self.busy[sb as usize] = true;
    }

    /// Erase an emptied victim; it becomes free when the erase completes.
    pub fn erase(&mut self, nand: &mut NandArray, sb: u32, now: SimTime) {
        debug_assert_eq!(self.sbs.info[sb as usize].valid, 0);
        let block = self.geo.first_block + sb;
        let done = nand.erase_superblock(now, block, CellType::Slc, OpClass::Background);
        self.busy[sb as usize] = true;
        self.pending_free.push((done, sb));
    }

    /// Map and reverse map agree and valid counts match.
    pub fn check(&self) -> Result<(), String> {
        self.map.check()?;
        self.sbs.check()?;
        self.sbs
            .check_valid(&self.map, self.sb_slots)
            .map_err(|e| format!("SLC {e}"))
    }
}
