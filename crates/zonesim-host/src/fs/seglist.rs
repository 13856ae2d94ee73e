//! The dirty segment lists of slack space recycling: per log type, a bitmap of the segments in
//! the type's dirty list and their number, kept as segments change, as the kernel keeps
//! `dirty_seglist_info` (`dirty_segmap[type]`, `nr_dirty[type]`, `fs/f2fs/segment.h`, updated
//! by `locate_dirty_segment` in `segment.c`). The SSR victim scan (`ssr`) takes its bound
//! from the count and walks the bitmap a word at a time, so a scan costs what it visits, not
//! the size of the main area: on a 512 GB device (245,000 segments) counting and walking every
//! segment per opened SSR segment made the aging loop of Zoned UFS §5.5 quadratic in the
//! device size.
//!
//! A segment is in the list of type `t` when it is not free, `t` wrote it last, and some but
//! not all of its blocks are valid (the model keeps the logs' current segments in the list; the
//! scan skips them as victims). [`DirtySeglist::build`] derives the lists from the segments:
//! the kept lists always equal it (`F2fs::check_invariants`, property-tested below).

use super::layout::{BLKS_PER_SEG, NR_LOGS};
use super::seg::Seg;

/// The type whose dirty list `s` belongs in, if any.
#[inline]
pub fn dirty_type(s: &Seg) -> Option<u8> {
    let dirty = !s.free && (s.log as usize) < NR_LOGS && s.valid > 0;
    (dirty && (s.valid as u32) < BLKS_PER_SEG).then_some(s.log)
}

/// Per log type, the segments of its dirty list (a bitmap) and how many there are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirtySeglist {
    maps: [Vec<u64>; NR_LOGS],
    nr_dirty: [u32; NR_LOGS],
}

impl DirtySeglist {
    /// Empty lists for `segs` segments.
    pub fn new(segs: usize) -> DirtySeglist {
        DirtySeglist {
            maps: std::array::from_fn(|_| vec![0; segs.div_ceil(64)]),
            nr_dirty: [0; NR_LOGS],
        }
    }

    /// The lists of `segs` as they stand.
    pub fn build(segs: &[Seg]) -> DirtySeglist {
        let mut d = DirtySeglist::new(segs.len());
        for (i, s) in segs.iter().enumerate() {
            d.moved(i as u32, None, dirty_type(s));
        }
        d
    }

    /// Segment `seg` left the list of `from` and joined that of `to` (either may be none).
    #[inline]
    pub fn moved(&mut self, seg: u32, from: Option<u8>, to: Option<u8>) {
        if from == to {
            return;
        }
        let (w, m) = ((seg >> 6) as usize, 1u64 << (seg & 63));
        if let Some(t) = from {
            self.maps[t as usize][w] &= !m;
            self.nr_dirty[t as usize] -= 1;
        }
        if let Some(t) = to {
            self.maps[t as usize][w] |= m;
            self.nr_dirty[t as usize] += 1;
        }
    }

    /// Segments in the dirty list of type `t`.
    #[inline]
    pub fn count(&self, t: u8) -> u32 {
        self.nr_dirty[t as usize]
    }

    /// The first segment of type `t`'s dirty list in `from..end` (`find_next_bit`).
    #[inline]
    pub fn next(&self, t: u8, from: u32, end: u32) -> Option<u32> {
        let map = &self.maps[t as usize];
        let mut w = (from >> 6) as usize;
        if from >= end || w >= map.len() {
            return None;
        }
        let mut bits = map[w] & (u64::MAX << (from & 63));
        loop {
            if bits != 0 {
                let seg = (w as u32) << 6 | bits.trailing_zeros();
                return (seg < end).then_some(seg);
            }
            w += 1;
            if w >= map.len() || (w as u32) << 6 >= end {
                return None;
            }
            bits = map[w];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn seg(log: u8, valid: u16, free: bool) -> Seg {
        Seg {
            valid,
            log,
            free,
            ..Seg::default()
        }
    }

    /// In a list: written by a log, some but not all blocks valid, not free.
    #[test]
    fn membership_follows_the_dirty_rule() {
        assert_eq!(dirty_type(&seg(2, 1, false)), Some(2));
        assert_eq!(dirty_type(&seg(2, 511, false)), Some(2));
        assert_eq!(dirty_type(&seg(2, 0, false)), None, "prefree");
        assert_eq!(dirty_type(&seg(2, 512, false)), None, "full");
        assert_eq!(dirty_type(&seg(2, 3, true)), None, "free");
        assert_eq!(dirty_type(&seg(super::super::seg::NO_LOG, 3, false)), None);
    }

    proptest! {
        /// `next` finds what a linear scan of the segments finds, and `count` is the list's size.
        #[test]
        fn next_and_count_agree_with_a_linear_scan(
            segs in prop::collection::vec((0u8..7, 0u16..=512, any::<bool>()), 0..300),
            t in 0u8..6,
            from in 0u32..320,
            end in 0u32..320,
        ) {
            let segs: Vec<Seg> = segs.into_iter().map(|(l, v, f)| seg(l, v, f)).collect();
            let d = DirtySeglist::build(&segs);
            let end = end.min(segs.len() as u32);
            let linear = (from..end).find(|&k| dirty_type(&segs[k as usize]) == Some(t));
            prop_assert_eq!(d.next(t, from, end), linear);
            let n = segs.iter().filter(|s| dirty_type(s) == Some(t)).count() as u32;
            prop_assert_eq!(d.count(t), n);
        }
    }
}
