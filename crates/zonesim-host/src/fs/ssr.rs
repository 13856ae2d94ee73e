//! Slack space recycling (SSR, adaptive mode only; docs/fs.md "fsync, in-place updates and slack
//! space recycling", Zoned UFS §5.6): when a log needs a new segment and free sections
//! are low (`f2fs_need_SSR`), it reuses a dirty segment's free blocks instead of a free section. As
//! the kernel (`get_ssr_segment`, `f2fs_get_victim` with `alloc_mode = SSR`, `fs/f2fs/segment.c`,
//! `gc.c`):
//! - the threshold is evaluated per new segment: free sections ≤ dirty node sections + 2 ×
//!   dirty dentry sections + `min_ssr_sections` (= reserved sections) + reserved sections
//!   (dirty inode-meta sections are not modelled);
//! - the victim is greedy on checkpointed-valid blocks (valid + invalidated since the last
//!   checkpoint; only a block free in both maps is reused, `__next_free_blkoff`), among the
//!   dirty segments of one type (0 < valid < 512: prefree and full ones are not in the dirty
//!   list), skipping the logs' current segments, first of the log's own type, then the other
//!   types of its kind in the kernel's order (data: hot → warm → cold for the hot log, cold →
//!   warm → hot for the others; nodes likewise);
//! - the scan visits at most `max_victim_search` dirty segments of the type, from segment 0
//!   for the hot data and node logs, else from where the last bounded scan stopped
//!   (`last_victim`, wrapping); a tie goes to the first segment visited. The kernel shares that
//!   cursor with greedy foreground GC; here SSR has its own (foreground GC scans every section).

use super::layout::BLKS_PER_SEG;
use super::params::FsMode;
use super::seg::Seg;
use super::seglist::DirtySeglist;
use super::{F2fs, COLD_DATA, COLD_NODE, HOT_DATA, HOT_NODE, WARM_DATA, WARM_NODE};

/// The types `get_ssr_segment` tries for `log`, in order: its own first.
pub(super) fn ssr_order(log: u8) -> [u8; 3] {
    match log {
        HOT_DATA => [HOT_DATA, WARM_DATA, COLD_DATA],
        WARM_DATA => [WARM_DATA, COLD_DATA, HOT_DATA],
        COLD_DATA => [COLD_DATA, WARM_DATA, HOT_DATA],
        HOT_NODE => [HOT_NODE, WARM_NODE, COLD_NODE],
        WARM_NODE => [WARM_NODE, COLD_NODE, HOT_NODE],
        _ => [COLD_NODE, WARM_NODE, HOT_NODE],
    }
}

/// One bounded greedy scan (`f2fs_get_victim`, SSR): over the dirty segments of type `t`
/// (`dirty`: the lists of `segs`) from `offset`, wrapping at the end back to `last_victim` (then
/// cleared, as the kernel), at most `max_search` of them. Returns the segment with the fewest
/// checkpointed-valid blocks (below a full segment, first found on a tie) and the new
/// `last_victim`.
pub(super) fn ssr_scan(
    segs: &[Seg],
    dirty: &DirtySeglist,
    t: u8,
    offset: u32,
    last_victim: u32,
    max_search: u32,
) -> (Option<u32>, u32) {
    let n = segs.len() as u32;
    let max_search = dirty.count(t).min(max_search);
    let (orig, mut lv) = (last_victim, last_victim);
    let (mut end, mut i) = (n, offset.min(n));
    let (mut best, mut min_cost) = (None, BLKS_PER_SEG);
    if max_search == 0 {
        return (None, lv);
    }
    let mut searched = 0;
    loop {
        let Some(seg) = dirty.next(t, i, end) else {
            if lv != 0 {
                (end, lv, i) = (lv, 0, 0);
                continue;
            }
            break;
        };
        i = seg + 1;
        searched += 1;
        let s = &segs[seg as usize];
        let cost = s.valid as u32 + s.held as u32;
        if !s.current && cost < min_cost {
            (best, min_cost) = (Some(seg), cost);
        }
        if searched >= max_search {
            lv = (if lv == 0 && seg <= orig {
                orig + 1
            } else {
                seg + 1
            }) % n;
            break;
        }
    }
    (best, lv)
}

impl F2fs {
    /// Free sections low enough for SSR (`f2fs_need_SSR`; never in LFS mode).
    pub(super) fn need_ssr(&self) -> bool {
        if self.p.mode == FsMode::Lfs {
            return false;
        }
        let bps = self.geo.blocks_per_sec() as u64;
        let node = self.dirty_nodes.div_ceil(bps);
        let dent = self.dirty_dent_pages.div_ceil(bps);
        let r = self.geo.reserved_sections() as u64;
        (self.segs.free_secs as u64) <= node + 2 * dent + 2 * r
    }

    /// Open an SSR segment (a dirty segment's free blocks) for `log`, if `pick_ssr` finds one.
    pub(super) fn open_ssr(&mut self, log: u8) -> bool {
        let Some(s) = self.pick_ssr(log) else {
            return false;
        };
        self.segs.open_ssr(s, log);
        self.cur[log as usize] = super::Cur {
            seg: s,
            blk: 0,
            ssr: true,
        };
        self.c.ssr_segments += 1;
        true
    }

    /// `get_ssr_segment`: the victim of the first type in [`ssr_order`] that has one.
    fn pick_ssr(&mut self, log: u8) -> Option<u32> {
        for t in ssr_order(log) {
            let offset = if t == HOT_DATA || t >= HOT_NODE {
                0
            } else {
                self.ssr_last_victim
            };
            let (v, lv) = ssr_scan(
                &self.segs.segs,
                &self.segs.dirty,
                t,
                offset,
                self.ssr_last_victim,
                self.p.max_victim_search,
            );
            self.ssr_last_victim = lv;
            if v.is_some() {
                return v;
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seg(log: u8, valid: u16, held: u16) -> Seg {
        Seg {
            valid,
            held,
            log,
            ..Seg::default()
        }
    }

    /// The kernel's order: own type, then cold → warm → hot for warm/cold logs, hot → warm →
    /// cold for the hot log; nodes alike.
    #[test]
    fn ssr_falls_back_to_the_other_types_in_kernel_order() {
        assert_eq!(ssr_order(WARM_DATA), [WARM_DATA, COLD_DATA, HOT_DATA]);
        assert_eq!(ssr_order(COLD_DATA), [COLD_DATA, WARM_DATA, HOT_DATA]);
        assert_eq!(ssr_order(HOT_DATA), [HOT_DATA, WARM_DATA, COLD_DATA]);
        assert_eq!(ssr_order(WARM_NODE), [WARM_NODE, COLD_NODE, HOT_NODE]);
        assert_eq!(ssr_order(HOT_NODE), [HOT_NODE, WARM_NODE, COLD_NODE]);
    }

    /// Greedy on valid + held among the dirty segments of the type: prefree (no valid block),
    /// full, current and other-type segments are not candidates; a tie goes to the first.
    #[test]
    fn ssr_victim_is_greedy_on_checkpointed_valid_blocks() {
        let mut segs = vec![
            seg(WARM_DATA, 0, 10),   // prefree: not in the dirty list
            seg(COLD_DATA, 5, 0),    // other type
            seg(WARM_DATA, 200, 0),  // candidate
            seg(WARM_DATA, 100, 99), // 199 checkpointed-valid: the best
            seg(WARM_DATA, 512, 0),  // full
            seg(WARM_DATA, 150, 49), // ties the best, later
            seg(WARM_DATA, 1, 0),    // current
            seg(WARM_DATA, 10, 502), // no free slot
        ];
        segs[6].current = true;
        assert_eq!(
            ssr_scan(&segs, &DirtySeglist::build(&segs), WARM_DATA, 0, 0, 4096).0,
            Some(3)
        );
        assert_eq!(
            ssr_scan(&segs, &DirtySeglist::build(&segs), COLD_DATA, 0, 0, 4096).0,
            Some(1)
        );
        assert_eq!(
            ssr_scan(&segs, &DirtySeglist::build(&segs), HOT_DATA, 0, 0, 4096).0,
            None
        );
    }

    /// `max_victim_search` bounds the scan; the next scan resumes after where it stopped.
    #[test]
    fn ssr_scan_is_bounded_and_resumes() {
        let segs = vec![
            seg(WARM_DATA, 300, 0),
            seg(WARM_DATA, 200, 0),
            seg(WARM_DATA, 100, 0),
            seg(WARM_DATA, 400, 0),
        ];
        let (v, lv) = ssr_scan(&segs, &DirtySeglist::build(&segs), WARM_DATA, 0, 0, 2);
        assert_eq!((v, lv), (Some(1), 2));
        let (v, lv) = ssr_scan(&segs, &DirtySeglist::build(&segs), WARM_DATA, lv, lv, 2);
        assert_eq!((v, lv), (Some(2), 0));
        // Unbounded: the global minimum.
        assert_eq!(
            ssr_scan(&segs, &DirtySeglist::build(&segs), WARM_DATA, 0, 0, 4096).0,
            Some(2)
        );
    }
}
