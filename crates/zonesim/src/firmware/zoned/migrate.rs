//! SLC garbage collection and SLC-to-regular migration of a zoned namespace (ConZone §3.4,
//! ConZone+ §4.2): keep more than `slc.gc_threshold_free_superblocks` SLC superblocks free by
//! collecting greedy victims ([`crate::firmware::alloc::SlcPool::pick_victim`]), either
//! rewriting their valid pages inside SLC (`in_place`) or migrating whole program units of
//! each zone they hold to the zone's regular flash (`migrate`, background work). A migration
//! completes in zone order; until then the SLC copy stays mapped and the victim is not erased.

use super::ZonedFtl;
use crate::config::{SlcGc, SlcGranularity};
use crate::engine::SimTime;
use crate::firmware::alloc::{make_room, SlcPool, SlcRoom, GC_FRONT};
use crate::firmware::mapping::{Lpa, Ppa};
use crate::firmware::Lent;
use crate::nand::OpClass;
use std::collections::VecDeque;

/// A background SLC-to-regular migration of zone offsets `[lo, hi)`.
#[derive(Debug, Clone, Copy)]
pub(super) struct MigJob {
    pub done: SimTime,
    pub zone: u32,
    pub lo: u32,
    pub hi: u32,
}

/// Migrations in flight and victims waiting for their data to leave.
#[derive(Clone)]
pub(super) struct Migrations {
    jobs: VecDeque<MigJob>,
    /// Victims whose valid data is migrating; erased once all of it is gone.
    draining: Vec<u32>,
    /// Scratch: zones held by the victim being collected.
    zones: Vec<u32>,
}

impl Migrations {
    pub fn new() -> Migrations {
        Migrations {
            jobs: VecDeque::with_capacity(256),
            draining: Vec::with_capacity(64),
            zones: Vec::with_capacity(256),
        }
    }

    /// Migrations queued for zone `z`.
    pub fn jobs_of(&self, z: u32) -> u32 {
        self.jobs.iter().filter(|j| j.zone == z).count() as u32
    }

    /// Index of the first job `f` accepts.
    fn find(&self, f: impl Fn(&MigJob) -> bool) -> Option<usize> {
        self.jobs.iter().position(f)
    }

    fn take(&mut self, i: usize) -> MigJob {
        self.jobs.remove(i).expect("job")
    }

    /// Whether the migration of zone `z`'s unit at offset `lo` is queued (its SLC copy is
    /// still valid: a power cut that tears its program loses nothing).
    pub fn queued(&self, z: u32, lo: u32) -> bool {
        self.jobs.iter().any(|j| j.zone == z && j.lo == lo)
    }

    /// Zone `z`'s queued migrations whose program ends after `cut`: `[lo, hi)` of each.
    pub fn in_flight(&self, z: u32, cut: SimTime) -> impl Iterator<Item = (u32, u32)> + '_ {
        self.jobs
            .iter()
            .filter(move |j| j.zone == z && j.done > cut)
            .map(|j| (j.lo, j.hi))
    }

    /// Drop zone `z`'s queued migrations from offset `lo` on (power cut: their units are
    /// discarded); returns how many.
    pub fn abort_from(&mut self, z: u32, lo: u32) -> u32 {
        let n = self.jobs.len();
        self.jobs.retain(|j| j.zone != z || j.lo < lo);
        (n - self.jobs.len()) as u32
    }

    /// The migration of zone `z`'s unit at `lo` was programmed again, ending at `done`.
    pub fn reprogrammed(&mut self, z: u32, lo: u32, done: SimTime) {
        if let Some(j) = self.jobs.iter_mut().find(|j| j.zone == z && j.lo == lo) {
            j.done = done;
        }
    }
}

impl ZonedFtl {
    /// Make sure the SLC pool has more than the GC threshold free; returns when writes to SLC
    /// may start (later than `now` if it had to wait for a migration or an erase).
    pub(super) fn ensure_slc_space(&mut self, lent: &mut Lent, now: SimTime) -> SimTime {
        make_room(self, lent, now)
    }

    /// Nothing to collect at `t`: the next erase or in-order migration completion (finalized
    /// at that time); at zone granularity with neither, the least recently used open zone
    /// frontier is closed so it can be collected.
    fn slc_wait(&mut self, lent: &mut Lent, t: SimTime) -> Option<SimTime> {
        let e = self.slc.next_erase_done();
        let j = self
            .mig
            .jobs
            .iter()
            .filter(|j| j.lo == self.zst[j.zone as usize].reg_wp)
            .map(|j| j.done)
            .min();
        let next = match (e, j) {
            (Some(a), Some(b)) => a.min(b),
            (Some(a), None) | (None, Some(a)) => a,
            (None, None) => {
                return self
                    .slc
                    .close_lru_zone_front(lent.nand, OpClass::Background)
                    .then_some(t);
            }
        };
        let t = t.max(next);
        self.finalize(lent, t);
        Some(t)
    }

    /// Collect SLC victim `v`: migrate its zones' whole units (`migrate`), rewrite the rest in
    /// SLC, and erase it once empty.
    fn gc_victim(&mut self, lent: &mut Lent, now: SimTime, v: u32) {
        self.counters.slc.slc_gc_victims += 1;
        let sb_slots = self.slc.slots_per_sb();
        let base = v * sb_slots;
        if self.slc_gc == SlcGc::Migrate {
            let mut zs = std::mem::take(&mut self.mig.zones);
            zs.clear();
            for o in 0..sb_slots {
                if let Some(l) = self.slc.owner(Ppa(base + o)) {
                    zs.push(self.home(l).0 / self.size);
                }
            }
            zs.sort_unstable();
            zs.dedup();
            for &z in &zs {
                self.migrate_zone(lent, now, z);
            }
            self.mig.zones = zs;
        }
        let spp = self.slc.slots_per_page();
        let mut moved = 0u64;
        let mut o = 0;
        while o < sb_slots {
            let read = self
                .slc
                .read_kept(lent.nand, v, o, now, |p| self.stays_in_slc(p));
            if let Some(t) = read {
                for k in o..o + spp {
                    if self.stays_in_slc(Ppa(base + k)) {
                        let l = self.slc.owner(Ppa(base + k)).expect("valid slot");
                        moved += 1;
                        // An IPU copy whose zone data is still in SLC folds back into the zone.
                        let home = self.home(l);
                        if home != l && self.fold_ipu(lent, l, home, t, GC_FRONT) {
                            continue;
                        }
                        // Both granularities: survivors share the GC frontier (recycling a
                        // per-zone frontier inside GC would close part-written superblocks
                        // faster than GC frees them).
                        self.slc
                            .assign(lent.nand, GC_FRONT, l, t, OpClass::Background);
                    }
                }
            }
            o += spp;
        }
        self.counters.slc.slc_gc_pages_moved += moved;
        if moved == 0 {
            // Its data was superseded, reset or migrated to regular flash: the victim is
            // erased without any copy inside SLC (a direct erase, Fig. 12(c)).
            self.counters.slc.slc_direct_erases += 1;
        }
        if !self.slc.finish_victim(lent.nand, v, now) {
            self.mig.draining.push(v);
        }
    }

    /// The zone page SLC logical page `l` holds data of (itself, or the page of an IPU copy).
    #[inline]
    fn home(&self, l: Lpa) -> Lpa {
        match &self.ipu {
            Some(ipu) => ipu.home_of(l).unwrap_or(l),
            None => l,
        }
    }

    /// Whether SLC slot `ppa` holds valid data that no migration is taking out of SLC (IPU
    /// copies always do: they are folded or moved).
    #[inline]
    fn stays_in_slc(&self, ppa: Ppa) -> bool {
        match self.slc.owner(ppa) {
            Some(l) if self.home(l) != l => true,
            Some(l) => {
                let (z, off) = (l.0 / self.size, l.0 % self.size);
                off >= self.zst[z as usize].reg_alloc
            }
            None => false,
        }
    }

    /// Start background migrations of zone `z`'s SLC-held data, whole program units (plus the
    /// padded tail if the zone is FULL and nothing of it is buffered).
    fn migrate_zone(&mut self, lent: &mut Lent, now: SimTime, z: u32) {
        let st = self.zst[z as usize];
        let avail = st.slc_end - st.reg_alloc;
        let mut units = avail / self.unit;
        if st.full && st.slc_end == st.written && !avail.is_multiple_of(self.unit) {
            units += 1;
        }
        let mut off = st.reg_alloc;
        for _ in 0..units {
            let end = (off + self.unit).min(st.slc_end);
            let done = self.program_unit(lent, now, z, off, end, false, OpClass::Background);
            self.mig.jobs.push_back(MigJob {
                done,
                zone: z,
                lo: off,
                hi: end,
            });
            self.zst[z as usize].jobs += 1;
            self.counters.slc.gc_migrated_pages += (end - off) as u64;
            off = end;
        }
        self.zst[z as usize].reg_alloc = off;
    }

    /// Complete the migrations done by `now` (in zone order): invalidate the SLC copies, map
    /// the data in regular flash, erase emptied victims.
    pub(super) fn finalize(&mut self, lent: &mut Lent, now: SimTime) {
        if self.mig.jobs.is_empty() {
            return;
        }
        loop {
            let zst = &self.zst;
            let pos = self
                .mig
                .find(|j| j.done <= now && j.lo == zst[j.zone as usize].reg_wp);
            let Some(i) = pos else { break };
            let j = self.mig.take(i);
            self.complete(lent, j, now);
        }
    }

    /// Complete every migration of zone `z` now; returns when the last one is done.
    pub(super) fn finalize_zone(&mut self, lent: &mut Lent, z: u32) -> SimTime {
        let mut t = SimTime::ZERO;
        while self.zst[z as usize].jobs > 0 {
            let wp = self.zst[z as usize].reg_wp;
            let i = self
                .mig
                .find(|j| j.zone == z && j.lo == wp)
                .expect("migration of the zone in order");
            let j = self.mig.take(i);
            t = t.max(j.done);
            self.complete(lent, j, j.done);
        }
        t
    }

    fn complete(&mut self, lent: &mut Lent, j: MigJob, now: SimTime) {
        for o in j.lo..j.hi {
            let l = self.lpa(j.zone, o);
            self.slc.invalidate(l);
        }
        let zs = &mut self.zst[j.zone as usize];
        zs.reg_wp = j.hi;
        zs.jobs -= 1;
        let ext = zs.extent(j.zone);
        let c = &mut self.counters.map;
        self.map
            .on_mapped(lent, now.max(j.done), ext, j.lo, j.hi, c);
        self.reap_victims(lent, now.max(j.done));
        if self.zst[j.zone as usize].jobs == 0 {
            self.erase_empty_slc(lent, now.max(j.done));
        }
    }

    /// Zone granularity: erase the SLC superblocks a zone's reset or migration emptied, at
    /// once and without copying (ConZone+ Fig. 12(c) "direct SLC erasures").
    pub(super) fn erase_empty_slc(&mut self, lent: &mut Lent, now: SimTime) {
        if self.slc.granularity() != SlcGranularity::Zone {
            return;
        }
        let mut e = std::mem::take(&mut self.mig.zones);
        e.clear();
        self.slc.empty_closed(&mut e);
        for &sb in &e {
            self.counters.slc.slc_direct_erases += 1;
            self.slc.mark_busy(sb);
            self.slc.erase(lent.nand, sb, now);
        }
        e.clear();
        self.mig.zones = e;
    }

    /// Erase victims whose valid data is all gone.
    pub(super) fn reap_victims(&mut self, lent: &mut Lent, now: SimTime) {
        let mut i = 0;
        while i < self.mig.draining.len() {
            let v = self.mig.draining[i];
            if self.slc.valid(v) == 0 {
                self.mig.draining.swap_remove(i);
                self.slc.erase(lent.nand, v, now);
            } else {
                i += 1;
            }
        }
    }
}

impl SlcRoom for ZonedFtl {
    fn pool(&mut self) -> &mut SlcPool {
        &mut self.slc
    }

    fn room_rule(&self) -> (u32, usize, bool) {
        let allow_full = self.slc_gc == SlcGc::Migrate;
        (self.slc_threshold, self.mig.draining.len(), allow_full)
    }

    fn collect(&mut self, lent: &mut Lent, t: SimTime, v: u32) {
        self.gc_victim(lent, t, v);
    }

    fn wait(&mut self, lent: &mut Lent, t: SimTime) -> Option<SimTime> {
        self.slc_wait(lent, t)
    }
}
