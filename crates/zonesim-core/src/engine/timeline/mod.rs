//! The gap-filling reservation list of a shared resource (a die, a channel, a link direction,
//! a core), kept as a two-level list: the busy intervals in order, cut into blocks of at most
//! [`BLOCK`] entries, with a summary per block (the end of its last interval and a bound on its
//! longest hole). This is the "unrolled" list of Shao, Reppy and Appel ("Unrolling lists",
//! LFP 1994), i.e. a B-tree of height two, with the max-gap augmentation of an interval tree
//! (Cormen et al., *Introduction to Algorithms*, 3rd ed., §14.3) kept per block.

use super::SimTime;

/// A shared resource (a channel, a link direction) that serves transfers in the earliest gap
/// at or after their ready time.
///
/// Reservations are made when the firmware issues an operation, which is not the order in
/// which their data becomes ready (a request reserves its reads on several dies at once). A
/// plain busy-until would serialise a transfer ready early behind one reserved earlier but
/// ready late; a bus arbiter serves whoever is ready. So the timeline keeps the future busy
/// intervals (sorted, disjoint) and fills gaps. Intervals that end before the simulation clock
/// are dropped ([`Timeline::advance`]), so the list stays as short as the work in flight.
///
/// A reservation is one search ([`Timeline::find`], returning a [`Slot`]) and one insertion
/// at the slot found ([`Timeline::take`]); callers that must check a gap on another resource
/// first (a die and its channel) search once per candidate and insert once.
///
/// Under GC load a die books hundreds of intervals ahead. The intervals are therefore kept in
/// blocks of at most [`BLOCK`], each with the end of its last interval (`ends`, searched by
/// binary search) and a bound on the longest hole before one of its intervals (`holes`): a
/// search finds the block holding its ready time by a binary search over the dense `ends`,
/// walks that block, then skips every later block whose bound is shorter than the gap it
/// needs; an insertion moves at most one block's entries (a sorted `Vec` moved the whole
/// tail). The standard library has no ordered map whose nodes carry a summary (a `BTreeMap`
/// of holes could not skip the holes too short for a search, and costs an allocation per
/// node), so the list is written here; emptied blocks are kept for reuse, so nothing
/// allocates once the list has reached its working size.
///
/// On a long list (work booked ahead) a search would still walk holes too short for it; the
/// timeline also remembers the last gaps taken ([`Memo`]) and starts a search where one of them
/// proves no earlier gap can fit (see [`Timeline::find`]), which finds the same gap.
#[derive(Debug, Clone, Default)]
pub struct Timeline {
    /// The intervals in order, by block; no block is empty and none holds more than
    /// [`BLOCK`]. `blocks[0][..head]` ended at or before the simulation clock (not live).
    blocks: Vec<Vec<(SimTime, SimTime)>>,
    /// Per block, the end of its last interval.
    ends: Vec<SimTime>,
    /// Per block, at least the longest hole (ns) before one of its live intervals, the hole
    /// before the first measured from the previous block's last end (block 0: its first live
    /// interval's hole is not counted; searches never skip block 0).
    holes: Vec<u64>,
    /// Intervals of `blocks[0]` before this index ended at or before the simulation clock.
    head: usize,
    /// Emptied blocks, kept (with their capacity) for new blocks.
    spare: Vec<Vec<(SimTime, SimTime)>>,
    /// Holes shorter than this (ns) are filled in: no reservation is ever that short, so they
    /// could never be used, and dropping them keeps the list short (dies: the shortest read;
    /// channels and the link: one 4 KiB slot).
    min_gap: u64,
    /// Latest simulation clock given to [`Timeline::advance`]: intervals ending at or before
    /// it may have been dropped, so only searches ready at or after it may use `memo`.
    floor: SimTime,
    /// The last gaps taken, one per search length (round robin on a new length).
    memo: [Memo; MEMOS],
    /// The entry of `memo` a new search length replaces.
    memo_next: usize,
}

/// Most intervals per block. Measured (callgrind, map-miss steady writes, lists of ~800 live
/// intervals): blocks of 32 move at most 512 bytes on an insertion and leave a few dozen
/// block bounds to skip.
const BLOCK: usize = 32;

/// A gap taken: the earliest gap of `dur` ns at or after `ready` started at `start`.
///
/// Reservations only ever add busy time at or after the clock (dropping the past removes only
/// intervals that ended before it), so the earliest gap of a search at least as late and at
/// least as long, made later, cannot start before `start`: the search may start there.
#[derive(Debug, Clone, Copy)]
struct Memo {
    ready: SimTime,
    dur: u64,
    start: SimTime,
}

/// An entry no search can use.
const NO_MEMO: Memo = Memo {
    ready: SimTime(u64::MAX),
    dur: u64::MAX,
    start: SimTime::ZERO,
};

/// Gaps remembered per timeline: the few search lengths a die sees (reads of one and two
/// slots, map reads, programs).
const MEMOS: usize = 4;

/// Blocks this short are walked from their front (a binary search costs more).
const SHORT: usize = 4;

impl Default for Memo {
    fn default() -> Memo {
        NO_MEMO
    }
}

/// A gap found by [`Timeline::find`]: where the reservation starts and where it goes in the
/// list. Valid until the timeline is next changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Slot {
    pub start: SimTime,
    /// Block and index in it of the first interval after the gap (unless `at_end`).
    block: usize,
    pos: usize,
    /// The gap is after every reservation.
    at_end: bool,
    /// The search that found it: ready time and length.
    ready: SimTime,
    need: u64,
}

impl Slot {
    /// The gap lies after all work booked on the timeline (the common case).
    #[inline]
    pub fn at_end(&self) -> bool {
        self.at_end
    }
}

impl Timeline {
    pub fn new() -> Timeline {
        Timeline::with_min_gap(0)
    }

    /// A timeline whose reservations all last at least `min_gap` ns.
    pub fn with_min_gap(min_gap: u64) -> Timeline {
        Timeline {
            min_gap,
            ..Timeline::default()
        }
    }

    /// Index in block `b` of its first live interval.
    #[inline(always)]
    fn lo(&self, b: usize) -> usize {
        if b == 0 {
            self.head
        } else {
            0
        }
    }

    /// Forget intervals that ended at or before `now` (no future reservation can be ready
    /// before the current simulation time).
    #[inline]
    pub fn advance(&mut self, now: SimTime) {
        self.floor = self.floor.max(now);
        match self.blocks.first() {
            Some(first) if first[self.head].1 <= now => self.drop_past(now),
            _ => {} // nothing ended (or nothing booked)
        }
    }

    /// Drop the intervals that ended at or before `now` (at least one did): whole blocks, then
    /// the front of the first remaining one (by moving `head`).
    fn drop_past(&mut self, now: SimTime) {
        let gone = self.ends.partition_point(|&e| e <= now);
        if gone > 0 {
            for mut blk in self.blocks.drain(..gone) {
                blk.clear();
                self.spare.push(blk);
            }
            self.ends.drain(..gone);
            self.holes.drain(..gone);
            self.head = 0;
        }
        if let Some(first) = self.blocks.first() {
            let mut h = self.head;
            while first[h].1 <= now {
                h += 1; // stops inside the block: its last interval ends after `now`
            }
            self.head = h;
        }
    }

    /// Start of the earliest gap of `dur` ns at or after `ready`, without reserving it.
    #[inline]
    pub fn earliest(&self, ready: SimTime, dur: u64) -> SimTime {
        self.find(ready, dur).start
    }

    /// The earliest gap of `dur` ns at or after `ready`, to reserve with [`Timeline::take`].
    ///
    /// On a long list the search starts at the latest remembered gap that bounds it (a gap
    /// taken by a search no later and no longer, ready at or after the clock; [`Memo`]), so it
    /// does not walk again the holes an earlier search found too short. It walks the block
    /// where it starts, then only blocks whose hole bound is at least `dur`: after the first
    /// interval walked, the gap before an interval is its hole, so a block whose holes are all
    /// shorter than `dur` holds no gap.
    #[inline]
    pub fn find(&self, ready: SimTime, dur: u64) -> Slot {
        let slot = |start, block, pos, at_end| Slot {
            start,
            block,
            pos,
            at_end,
            ready,
            need: dur,
        };
        let last_end = match self.ends.last() {
            Some(&last) if last > ready => last,
            _ => return slot(ready, 0, 0, true),
        };
        let mut from = ready;
        if (self.blocks.len() > 1 || self.blocks[0].len() - self.head > SHORT)
            && ready >= self.floor
        {
            for m in &self.memo {
                if m.dur <= dur && m.ready <= ready && m.start > from {
                    from = m.start;
                }
            }
            if from >= last_end {
                return slot(from, 0, 0, true);
            }
        }
        // The block holding the first live interval that ends after `from`, and its index.
        let mut b = if self.ends[0] > from {
            0
        } else {
            self.ends.partition_point(|&e| e <= from)
        };
        let lo = self.lo(b);
        let blk = &self.blocks[b];
        let mut i = if blk.len() - lo <= SHORT || blk[lo].1 > from {
            lo
        } else {
            lo + blk[lo..].partition_point(|&(_, e)| e <= from)
        };
        let mut start = from;
        loop {
            for (j, &(s, e)) in self.blocks[b][i..].iter().enumerate() {
                if s >= start + dur {
                    return slot(start, b, i + j, false);
                }
                start = start.max(e);
            }
            // `start` is now the end of block b; skip the blocks with no hole of `dur`.
            b += 1;
            while b < self.holes.len() && self.holes[b] < dur {
                b += 1;
            }
            if b == self.holes.len() {
                return slot(last_end, 0, 0, true);
            }
            start = self.ends[b - 1];
            i = 0;
        }
    }

    /// Reserve `dur` ns at `slot` (found by [`Timeline::find`] for at least `dur` ns, with no
    /// change to the timeline since).
    #[inline(always)]
    pub fn take(&mut self, slot: Slot, dur: u64) {
        if dur == 0 {
            return;
        }
        self.remember(slot);
        let end = slot.start + dur;
        if !slot.at_end {
            self.insert(slot.start, end, slot.block, slot.pos);
            return;
        }
        // After all work (the common case): extend the last interval or append. The list is
        // empty exactly when no interval is live (`advance` drops emptied blocks).
        let gap = self.min_gap.max(1);
        if let (Some(blk), Some(last_end)) = (self.blocks.last_mut(), self.ends.last_mut()) {
            if slot.start - *last_end < gap {
                if let Some(last) = blk.last_mut() {
                    last.1 = end;
                }
                *last_end = end;
                return;
            }
        }
        self.append((slot.start, end));
    }

    /// Remember the gap `slot` as the bound of later searches of its length (only when its
    /// search was ready at or after the clock: before it, dropped intervals no longer count).
    #[inline(always)]
    fn remember(&mut self, slot: Slot) {
        if slot.ready < self.floor {
            return;
        }
        let m = Memo {
            ready: slot.ready,
            dur: slot.need,
            start: slot.start,
        };
        match self.memo.iter().position(|o| o.dur == slot.need) {
            Some(i) => self.memo[i] = m,
            None => {
                self.memo[self.memo_next] = m;
                self.memo_next = (self.memo_next + 1) % MEMOS;
            }
        }
    }

    /// Add `iv` after every interval (no merging).
    fn append(&mut self, iv: (SimTime, SimTime)) {
        match self.blocks.last_mut() {
            Some(blk) if blk.len() < BLOCK => {
                let b = self.ends.len() - 1;
                self.holes[b] = self.holes[b].max(iv.0 - self.ends[b]);
                self.ends[b] = iv.1;
                blk.push(iv);
            }
            _ => {
                let hole = self.ends.last().map_or(0, |&e| iv.0 - e);
                let mut blk = self.spare.pop().unwrap_or_default();
                blk.push(iv);
                if self.blocks.is_empty() {
                    self.head = 0;
                }
                self.blocks.push(blk);
                self.ends.push(iv.1);
                self.holes.push(hole);
            }
        }
    }

    /// The live interval before position `(b, i)`, if any.
    #[inline(always)]
    fn before(&self, b: usize, i: usize) -> Option<(SimTime, SimTime)> {
        if i > self.lo(b) {
            Some(self.blocks[b][i - 1])
        } else if b > 0 {
            self.blocks[b - 1].last().copied()
        } else {
            None
        }
    }

    /// Insert `[start, end)` before the interval at `(b, i)`, merging with touching
    /// neighbours so back-to-back work is one interval (and with neighbours that leave a hole
    /// too short to use).
    fn insert(&mut self, start: SimTime, end: SimTime, b: usize, i: usize) {
        let gap = self.min_gap.max(1);
        let next = self.blocks[b][i];
        let prev = self.before(b, i);
        debug_assert!(prev.map_or(true, |p| p.1 <= start));
        debug_assert!(end <= next.0);
        let touches_prev = prev.is_some_and(|p| start - p.1 < gap);
        let touches_next = next.0 - end < gap;
        // The hole filled (block b counts it unless it is the uncounted first of block 0).
        let old_hole = prev.map(|p| next.0 - p.1);
        match (touches_prev, touches_next) {
            (true, true) => {
                // prev absorbs next: its end becomes next's.
                self.set_end_before(b, i, next.1);
                self.blocks[b].remove(i);
                if self.blocks[b].len() == self.lo(b) {
                    // b was [next] (b > 0: prev is in b - 1, which now ends where b ended, so
                    // the holes of the block after are unchanged).
                    self.remove_block(b);
                    return;
                }
            }
            (true, false) => self.set_end_before(b, i, end),
            (false, true) => self.blocks[b][i].0 = start,
            (false, false) => {
                if self.blocks[b].len() == BLOCK {
                    let (b2, i2) = self.split(b, i);
                    self.blocks[b2].insert(i2, (start, end));
                    self.rehole(b);
                    self.rehole(b + 1);
                    return;
                }
                self.blocks[b].insert(i, (start, end));
                if prev.is_none() {
                    // The first live interval of block 0 moved: count the hole after it.
                    self.holes[b] = self.holes[b].max(next.0 - end);
                }
            }
        }
        // The filled hole shrank or went: the bound holds unless it was that hole.
        if old_hole.is_some_and(|h| h >= self.holes[b]) {
            self.rehole(b);
        }
    }

    /// Set the end of the live interval before `(b, i)` (which exists).
    #[inline(always)]
    fn set_end_before(&mut self, b: usize, i: usize, end: SimTime) {
        if i > self.lo(b) {
            self.blocks[b][i - 1].1 = end;
        } else if let Some(last) = self.blocks[b - 1].last_mut() {
            last.1 = end;
            self.ends[b - 1] = end;
        }
    }

    /// Split the full block `b` into two halves; returns where the position `(b, i)` is now.
    #[cold]
    #[inline(never)]
    fn split(&mut self, b: usize, mut i: usize) -> (usize, usize) {
        if b == 0 && self.head > 0 {
            // The past of block 0 goes first; it may leave room enough.
            self.blocks[0].drain(..self.head);
            i -= self.head;
            self.head = 0;
            if self.blocks[0].len() < BLOCK {
                return (0, i);
            }
        }
        let mid = self.blocks[b].len() / 2;
        let mut upper = self.spare.pop().unwrap_or_default();
        upper.extend_from_slice(&self.blocks[b][mid..]);
        self.blocks[b].truncate(mid);
        self.blocks.insert(b + 1, upper);
        self.ends.insert(b + 1, self.ends[b]);
        self.ends[b] = self.blocks[b][mid - 1].1;
        self.holes.insert(b + 1, 0);
        if i < mid {
            (b, i)
        } else {
            (b + 1, i - mid)
        }
    }

    /// Remove the emptied block `b` (its vector is kept for reuse).
    fn remove_block(&mut self, b: usize) {
        let mut blk = self.blocks.remove(b);
        blk.clear();
        self.spare.push(blk);
        self.ends.remove(b);
        self.holes.remove(b);
        if b == 0 {
            self.head = 0;
        }
    }

    /// Recompute block `b`'s hole bound exactly (if the block exists).
    fn rehole(&mut self, b: usize) {
        let Some(blk) = self.blocks.get(b) else {
            return;
        };
        let lo = self.lo(b);
        let mut prev = if b > 0 { self.ends[b - 1] } else { blk[lo].0 };
        let mut max = 0;
        for &(s, e) in &blk[lo..] {
            max = max.max(s - prev);
            prev = e;
        }
        self.holes[b] = max;
    }

    /// Reserve `dur` ns in the earliest gap starting at or after `ready`; returns the start.
    #[inline]
    pub fn reserve(&mut self, ready: SimTime, dur: u64) -> SimTime {
        let slot = self.find(ready, dur);
        self.take(slot, dur);
        slot.start
    }

    /// Mark `[start, end)` busy whatever is already reserved there (the union); returns how
    /// many ns of it were already busy. Used for operations that preempt (suspend) others.
    pub fn occupy(&mut self, start: SimTime, end: SimTime) -> u64 {
        if end <= start {
            return 0;
        }
        // The first live interval that ends at or after `start`.
        let b = self.ends.partition_point(|&e| e < start);
        if b == self.ends.len() {
            self.append((start, end));
            return 0;
        }
        let lo = self.lo(b);
        let i = lo + self.blocks[b][lo..].partition_point(|&(_, e)| e < start);
        let (bs, be) = self.blocks[b][i];
        if bs > end {
            // Touches nothing: a new interval before (b, i).
            let (b2, i2) = if self.blocks[b].len() == BLOCK {
                self.split(b, i)
            } else {
                (b, i)
            };
            self.blocks[b2].insert(i2, (start, end));
            self.rehole(b2);
            self.rehole(b2 + 1);
            return 0;
        }
        // The union of (b, i) and every later interval that starts at or before `end`.
        let mut overlap = be.min(end).ns().saturating_sub(bs.max(start).ns());
        let (s, mut e) = (start.min(bs), end.max(be));
        let mut j = i + 1;
        while j < self.blocks[b].len() && self.blocks[b][j].0 <= end {
            let (bs, be) = self.blocks[b][j];
            overlap += be.min(end).ns().saturating_sub(bs.ns());
            e = e.max(be);
            j += 1;
        }
        let to_block_end = j == self.blocks[b].len();
        self.blocks[b].drain(i + 1..j);
        if to_block_end {
            // Reached the end of block b: the union may go on into the next blocks.
            while let Some(next) = self.blocks.get_mut(b + 1) {
                let k = next.partition_point(|&(bs, _)| bs <= end);
                for &(bs, be) in &next[..k] {
                    overlap += be.min(end).ns().saturating_sub(bs.ns());
                    e = e.max(be);
                }
                next.drain(..k);
                if !next.is_empty() {
                    break;
                }
                self.remove_block(b + 1);
            }
        }
        self.blocks[b][i] = (s, e);
        if let Some(last) = self.blocks[b].last() {
            self.ends[b] = last.1;
        }
        self.rehole(b);
        self.rehole(b + 1);
        overlap
    }

    /// End of the last reservation (or ZERO).
    pub fn last_end(&self) -> SimTime {
        self.ends.last().copied().unwrap_or(SimTime::ZERO)
    }

    /// The live intervals, in order.
    #[cfg(test)]
    fn live(&self) -> impl Iterator<Item = (SimTime, SimTime)> + '_ {
        self.blocks
            .iter()
            .enumerate()
            .flat_map(|(b, blk)| blk[self.lo(b)..].iter().copied())
    }

    /// Intervals are sorted and disjoint; every block is non-empty and within [`BLOCK`], its
    /// end is its last interval's and its hole bound at least its longest hole.
    pub fn check(&self) -> bool {
        let mut prev: Option<SimTime> = None;
        for (b, blk) in self.blocks.iter().enumerate() {
            let lo = self.lo(b);
            if blk.len() <= lo || blk.len() > BLOCK || self.ends[b] != blk[blk.len() - 1].1 {
                return false;
            }
            for &(s, e) in &blk[lo..] {
                if s >= e || prev.is_some_and(|p| p > s) {
                    return false;
                }
                if prev.is_some_and(|p| s - p > self.holes[b]) {
                    return false;
                }
                prev = Some(e);
            }
        }
        self.ends.len() == self.blocks.len() && self.holes.len() == self.blocks.len()
    }
}

#[cfg(test)]
mod tests;
