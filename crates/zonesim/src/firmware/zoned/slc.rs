//! The SLC secondary write buffer of a zoned namespace (ConZone §2.1, §3.2 Fig. 4 ②, §3.4).
//!
//! pSLC superblocks (a region view of the first `nand.slc_blocks_per_plane` blocks of every
//! plane) allocated at page level through write frontiers. Data lands here with 4 KiB partial
//! programming: a flush of `n` slots programs exactly those slots, one SLC program per die unit
//! touched (so a 4 KiB premature flush costs one SLC program of one slot). The page-level map of
//! SLC-held data and its reverse map are kept here; SLC data is never aggregated.

use crate::config::CellType;
use crate::engine::SimTime;
use crate::firmware::alloc::{SbState, Superblocks};
use crate::firmware::mapping::{Entry, Lpa, PageMap, Ppa};
use crate::nand::{Geometry, NandArray, OpClass};

pub const HOST_FRONT: usize = 0;
pub const GC_FRONT: usize = 1;
const NO_SB: u32 = u32::MAX;

#[derive(Debug, Clone, Copy)]
struct Front {
    sb: u32,
    next: u32,
    /// Start of the assigned but not yet programmed segment.
    seg: u32,
    ready: SimTime,
}

pub struct Slc {
    pub geo: Geometry,
    pub sbs: Superblocks,
    pub map: PageMap,
    pub sb_slots: u32,
    unit: u32,
    fronts: [Front; 2],
    /// Victims under migration or waiting for their erase to complete.
    pub busy: Vec<bool>,
    /// Erased superblocks and the time their erase completes (not reusable before).
    pending_free: Vec<(SimTime, u32)>,
}

impl Slc {
    pub fn new(geo: Geometry, logical_pages: u64) -> Slc {
        let n = geo.superblocks;
        let front = Front {
            sb: NO_SB,
            next: 0,
            seg: 0,
            ready: SimTime::ZERO,
        };
        Slc {
            sb_slots: geo.slots_per_superblock(),
            unit: geo.die_unit_slots(),
            map: PageMap::new(logical_pages, geo.total_slots()),
            sbs: Superblocks::new(n),
            fronts: [front; 2],
            busy: vec![false; n as usize],
            pending_free: Vec::with_capacity(n as usize),
            geo,
        }
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

    #[inline]
    pub fn lookup(&self, lpa: Lpa) -> Option<Ppa> {
        match self.map.get(lpa) {
            Entry::Flash(p) => Some(p),
            _ => None,
        }
    }

    #[inline]
    pub fn split(&self, ppa: Ppa) -> (u32, u32) {
        (ppa.0 / self.sb_slots, ppa.0 % self.sb_slots)
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
        if self.fronts[f].sb == NO_SB {
            let sb = self
                .sbs
                .take_free(f as u8)
                .expect("SLC pool exhausted: GC reserve violated");
            self.fronts[f] = Front {
                sb,
                next: 0,
                seg: 0,
                ready: SimTime::ZERO,
            };
        }
        let fr = &mut self.fronts[f];
        let ppa = Ppa(fr.sb * self.sb_slots + fr.next);
        fr.next += 1;
        fr.ready = fr.ready.max(ready);
        let sb = fr.sb;
        self.invalidate(lpa);
        self.map.map(lpa, ppa);
        self.sbs.info[sb as usize].valid += 1;
        if self.fronts[f].next.is_multiple_of(self.unit) {
            Some(self.commit(nand, f, class))
        } else {
            None
        }
    }

    /// Program the frontier's assigned, unprogrammed slots (partial programming). Returns when
    /// the program completes (the segment's ready time if there was nothing to program).
    pub fn commit(&mut self, nand: &mut NandArray, f: usize, class: OpClass) -> SimTime {
        let fr = self.fronts[f];
        if fr.sb == NO_SB || fr.next == fr.seg {
            return fr.ready;
        }
        let slots = fr.next - fr.seg;
        let die = self.geo.die_of_offset(fr.seg);
        let pages = slots.div_ceil(self.geo.slots_per_page);
        let done = nand.program(fr.ready, die, slots, pages, CellType::Slc, class);
        let fr = &mut self.fronts[f];
        fr.seg = fr.next;
        fr.ready = SimTime::ZERO;
        if fr.next == self.sb_slots {
            let sb = fr.sb;
            fr.sb = NO_SB;
            self.sbs.close(sb, done);
        }
        done
    }

    /// Greedy victim: the full, not busy superblock with the fewest valid slots (entirely valid
    /// ones only if `allow_full`, i.e. when GC migrates data out of SLC).
    pub fn pick_victim(&self, allow_full: bool) -> Option<u32> {
        (0..self.sbs.info.len() as u32)
            .filter(|&s| {
                let i = &self.sbs.info[s as usize];
                i.state == SbState::Full
                    && !self.busy[s as usize]
                    && (allow_full || i.valid < self.sb_slots)
            })
            .min_by_key(|&s| (self.sbs.info[s as usize].valid, s))
    }

    /// Erase an emptied victim; it becomes free when the erase completes.
    pub fn erase(&mut self, nand: &mut NandArray, sb: u32, now: SimTime) {
        debug_assert_eq!(self.sbs.info[sb as usize].valid, 0);
        let mut done = now;
        for die in 0..self.geo.dies {
            done = done.max(nand.erase(
                now,
                die,
                self.geo.first_block + sb,
                CellType::Slc,
                OpClass::Background,
            ));
        }
        self.busy[sb as usize] = true;
        self.pending_free.push((done, sb));
    }

    /// Map and reverse map agree and valid counts match.
    pub fn check(&self) -> Result<(), String> {
        self.map.check()?;
        self.sbs.check()?;
        for (sb, info) in self.sbs.info.iter().enumerate() {
            let base = sb as u32 * self.sb_slots;
            let valid = (0..self.sb_slots)
                .filter(|&o| self.map.owner(Ppa(base + o)).is_some())
                .count() as u32;
            if valid != info.valid {
                return Err(format!(
                    "SLC superblock {sb}: valid count {} but {valid} valid slots in the reverse map",
                    info.valid
                ));
            }
        }
        Ok(())
    }
}
