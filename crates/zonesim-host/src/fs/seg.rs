//! Segment and section bookkeeping (the SIT in memory): valid counts, blocks invalidated since
//! the last checkpoint ("held": they and their prefree segments are not reused before a
//! checkpoint), modification times for cost-benefit, owning log, free maps (docs/fs.md "Layout,
//! logs and nodes", "Fragmentation level").

use super::layout::{Geometry, BLKS_PER_SEG};
use super::seglist::{dirty_type, DirtySeglist};

/// No log owns the segment.
pub const NO_LOG: u8 = u8::MAX;

/// One segment.
#[derive(Debug, Clone, Copy, Default)]
pub struct Seg {
    /// Valid blocks.
    pub valid: u16,
    /// Blocks invalidated since the last checkpoint.
    pub held: u16,
    /// Log that wrote it last ([`NO_LOG`] while free).
    pub log: u8,
    pub free: bool,
    /// A log writes it now.
    pub current: bool,
    /// Valid-weighted mean write time (ns), for cost-benefit.
    pub mtime: u64,
}

/// One section (a zone on a zoned main area).
#[derive(Debug, Clone, Copy, Default)]
pub struct Sec {
    pub valid: u32,
    /// Free usable segments in it.
    pub free_segs: u32,
    /// Segments of it that logs write now.
    pub current: u8,
    /// Whole section free (zoned: the zone is empty).
    pub free: bool,
    /// Allocation order (FIFO victim policy).
    pub alloc_seq: u64,
}

/// All segments and sections of the main area.
#[derive(Debug, Clone)]
pub struct SegTable {
    pub segs: Vec<Seg>,
    pub secs: Vec<Sec>,
    pub free_segs: u64,
    pub free_secs: u32,
    /// Non-current segments with no valid block and some held: free after the next checkpoint.
    pub prefree: u64,
    segs_per_sec: u32,
    usable_per_sec: u32,
    seq: u64,
    /// Round-robin cursor of free-section search.
    cursor: u32,
    /// The dirty segment list of each log type (SSR's victims), kept as segments change.
    pub dirty: DirtySeglist,
}

impl SegTable {
    pub fn new(g: &Geometry) -> SegTable {
        let mut segs = vec![Seg::default(); g.main_segs() as usize];
        for (i, s) in segs.iter_mut().enumerate() {
            s.log = NO_LOG;
            s.free = g.seg_usable(i as u32);
        }
        let secs = vec![
            Sec {
                free_segs: g.usable_segs_per_sec,
                free: true,
                ..Sec::default()
            };
            g.sections as usize
        ];
        SegTable {
            secs,
            free_segs: g.usable_segs(),
            free_secs: g.sections,
            prefree: 0,
            segs_per_sec: g.segs_per_sec,
            usable_per_sec: g.usable_segs_per_sec,
            seq: 0,
            cursor: 0,
            dirty: DirtySeglist::build(&segs),
            segs,
        }
    }

    #[inline]
    pub fn sec_of(&self, seg: u32) -> u32 {
        seg / self.segs_per_sec
    }
    pub fn usable_per_sec(&self) -> u32 {
        self.usable_per_sec
    }
    pub fn segs_per_sec(&self) -> u32 {
        self.segs_per_sec
    }

    /// A valid block was written into `seg` at `now`.
    #[inline]
    pub fn add_valid(&mut self, seg: u32, now: u64, mtime: u64) {
        let s = &mut self.segs[seg as usize];
        let v = s.valid as u64;
        // The dirty lists change only when the count leaves 0 or reaches full (hot path: no
        // list work on the other blocks).
        let edge = v == 0 || v + 1 >= BLKS_PER_SEG as u64;
        let was = if edge { dirty_type(s) } else { None };
        s.mtime = (s.mtime * v + if mtime == 0 { now } else { mtime }) / (v + 1);
        s.valid += 1;
        if edge {
            self.dirty.moved(seg, was, dirty_type(s));
        }
        self.secs[(seg / self.segs_per_sec) as usize].valid += 1;
    }

    /// A valid block of `seg` was invalidated (held until the next checkpoint).
    #[inline]
    pub fn invalidate(&mut self, seg: u32) {
        let s = &mut self.segs[seg as usize];
        debug_assert!(
            s.valid > 0,
            "invalidating a block of segment {seg} with none valid"
        );
        // As in `add_valid`: only leaving full or reaching 0 moves the segment between lists.
        let edge = s.valid == 1 || s.valid as u32 >= BLKS_PER_SEG;
        let was = if edge { dirty_type(s) } else { None };
        s.valid -= 1;
        s.held += 1;
        if edge {
            self.dirty.moved(seg, was, dirty_type(s));
        }
        if s.valid == 0 && !s.current {
            self.prefree += 1;
        }
        self.secs[(seg / self.segs_per_sec) as usize].valid -= 1;
    }

    /// Take a free section for a log; returns its first segment.
    pub fn take_section(&mut self) -> Option<u32> {
        let n = self.secs.len() as u32;
        for k in 0..n {
            let sec = (self.cursor + k) % n;
            if self.secs[sec as usize].free {
                self.cursor = (sec + 1) % n;
                let s = &mut self.secs[sec as usize];
                s.free = false;
                self.seq += 1;
                s.alloc_seq = self.seq;
                self.free_secs -= 1;
                return Some(sec * self.segs_per_sec);
            }
        }
        None
    }

    /// The next free usable segment after `seg` in its section (sequential: zones).
    pub fn next_in_section(&self, seg: u32) -> Option<u32> {
        let sec = seg / self.segs_per_sec;
        let end = sec * self.segs_per_sec + self.usable_per_sec;
        (seg + 1..end).find(|&s| self.segs[s as usize].free)
    }

    /// Make free segment `seg` the current segment of `log`.
    pub fn open(&mut self, seg: u32, log: u8, now: u64) {
        let s = &mut self.segs[seg as usize];
        debug_assert!(s.free, "opening segment {seg}, which is not free");
        debug_assert_eq!(dirty_type(s), None, "a free segment is in no dirty list");
        *s = Seg {
            valid: 0,
            held: 0,
            log,
            free: false,
            current: true,
            mtime: now,
        };
        self.free_segs -= 1;
        let sec = &mut self.secs[(seg / self.segs_per_sec) as usize];
        sec.free_segs -= 1;
        sec.current += 1;
    }

    /// Reuse dirty segment `seg` (SSR) as `log`'s current segment.
    pub fn open_ssr(&mut self, seg: u32, log: u8) {
        let s = &mut self.segs[seg as usize];
        if s.valid == 0 {
            self.prefree -= 1;
        }
        let was = dirty_type(s);
        s.current = true;
        s.log = log;
        let is = dirty_type(s);
        self.dirty.moved(seg, was, is);
        self.secs[(seg / self.segs_per_sec) as usize].current += 1;
    }

    /// The log left `seg`; true if it holds nothing, not even blocks held for a checkpoint
    /// (then the caller frees it with [`SegTable::try_free`] at once).
    pub fn close(&mut self, seg: u32) -> bool {
        let s = &mut self.segs[seg as usize];
        s.current = false;
        self.secs[(seg / self.segs_per_sec) as usize].current -= 1;
        if s.valid == 0 {
            self.prefree += 1;
            return s.held == 0;
        }
        false
    }

    /// Checkpoint: `blocks` held blocks of `seg` are released; then [`SegTable::try_free`].
    pub fn release(&mut self, seg: u32, blocks: u16) -> (bool, bool) {
        self.segs[seg as usize].held -= blocks;
        self.try_free(seg)
    }

    /// Free `seg` if it is prefree with nothing held. Returns (segment freed, its whole
    /// section freed: zoned, the zone may be reset).
    pub fn try_free(&mut self, seg: u32) -> (bool, bool) {
        let spc = self.segs_per_sec;
        let s = &mut self.segs[seg as usize];
        if s.held > 0 || s.valid > 0 || s.current || s.free {
            return (false, false);
        }
        s.free = true;
        s.log = NO_LOG;
        s.mtime = 0;
        self.prefree -= 1;
        self.free_segs += 1;
        let sec = &mut self.secs[(seg / spc) as usize];
        sec.free_segs += 1;
        if sec.free_segs == self.usable_per_sec && sec.current == 0 && !sec.free {
            sec.free = true;
            self.free_secs += 1;
            return (true, true);
        }
        (true, false)
    }

    /// Segment classes as F2FS's sysfs counts them: (free, dirty, full, prefree).
    /// Dirty = non-current, 0 < valid < 512; full ("valid") = all 512 valid; free includes
    /// free segments inside used sections. Unusable zone tails are in none.
    pub fn classes(&self) -> (u64, u64, u64, u64) {
        let (mut dirty, mut full) = (0, 0);
        for s in &self.segs {
            if s.free || s.current {
                continue;
            }
            if s.valid as u32 == BLKS_PER_SEG {
                full += 1;
            } else if s.valid > 0 {
                dirty += 1;
            }
        }
        (self.free_segs, dirty, full, self.prefree)
    }

    /// Section classes: (free, dirty, full, prefree); a section with a current segment counts
    /// as dirty unless it is full.
    pub fn sec_classes(&self, blocks_per_sec: u32) -> (u64, u64, u64, u64) {
        let (mut free, mut dirty, mut full, mut pre) = (0, 0, 0, 0);
        for s in &self.secs {
            if s.free {
                free += 1;
            } else if s.valid == blocks_per_sec {
                full += 1;
            } else if s.valid == 0 && s.current == 0 && s.free_segs < self.usable_per_sec {
                pre += 1;
            } else {
                dirty += 1;
            }
        }
        (free, dirty, full, pre)
    }
}
