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
/// first (a die and its channel) search once per candidate and insert once. The list is a
/// `Vec` whose past intervals are skipped by an index and dropped in batches, so a search
/// walks one plain slice and nothing allocates once the list has reached its working size.
/// Past its ready time a search only compares the holes between neighbours with the length it
/// needs, eight at a time ([`first_hole`]).
#[derive(Debug, Clone, Default)]
pub struct Timeline {
    /// Busy intervals; `busy[head..]` are the live ones, sorted and disjoint.
    busy: Vec<(SimTime, SimTime)>,
    /// Intervals before this index ended at or before the simulation clock.
    head: usize,
    /// Holes shorter than this (ns) are filled in: no reservation is ever that short, so they
    /// could never be used, and dropping them keeps the list short (dies: the shortest read;
    /// channels and the link: one 4 KiB slot).
    min_gap: u64,
}

/// A gap found by [`Timeline::find`]: where the reservation starts and where it goes in the
/// list. Valid until the timeline is next changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Slot {
    pub start: SimTime,
    /// Index (in `busy`) of the first interval after the gap.
    pos: usize,
    /// The gap is after every reservation.
    at_end: bool,
}

impl Slot {
    /// The gap lies after all work booked on the timeline (the common case).
    #[inline]
    pub fn at_end(&self) -> bool {
        self.at_end
    }
}

/// Fewest past intervals dropped in one batch (the live ones move to the front).
const COMPACT: usize = 32;

/// Index `j >= 1` of the first interval of `list` whose hole before it (from the end of
/// `list[j - 1]`) is at least `dur` ns long.
///
/// Written by hand for speed: the holes are independent of each other, so they are tested
/// eight at a time without a branch per hole (a walk carrying the running end from interval
/// to interval was a chain of dependent compare-and-moves; on a die with GC booked ahead a
/// search passes dozens of holes too short for it).
#[inline]
fn first_hole(list: &[(SimTime, SimTime)], dur: u64) -> Option<usize> {
    const CHUNK: usize = 8;
    let fits = |j: usize| list[j].0 - list[j - 1].1 >= dur;
    let mut j = 1;
    while j + CHUNK <= list.len() {
        let w = &list[j - 1..j + CHUNK];
        let mut any = false;
        for k in 0..CHUNK {
            any |= w[k + 1].0 - w[k].1 >= dur;
        }
        if any {
            break;
        }
        j += CHUNK;
    }
    (j..list.len()).find(|&j| fits(j))
}

/// How many intervals of `list` (sorted and disjoint, so their ends are sorted too) end at or
/// before `t`: `list.partition_point(|i| i.1 <= t)`.
///
/// Written by hand for speed on long lists: with GC booked far ahead a channel holds thousands
/// of intervals, beyond the L1 cache, and a bisection's loads each wait for the one before.
/// Most searches are for a time near the clock, whose answer lies among the first few
/// intervals (on the 1 TB preset in GC steady state, over half of them within eight), so those
/// eight are counted first, branch-free, in the cache lines the list's front keeps warm; the
/// rest bisect. Eight measured fastest against four and sixteen; a bisection that prefetched
/// both halves' midpoints ahead gained nothing in wall time and cost instructions.
#[inline]
fn ended_by(list: &[(SimTime, SimTime)], t: SimTime) -> usize {
    const NEAR: usize = 8;
    let n = list.len();
    if n <= NEAR || list[NEAR - 1].1 > t {
        return list[..n.min(NEAR)]
            .iter()
            .map(|i| (i.1 <= t) as usize)
            .sum();
    }
    NEAR + list[NEAR..].partition_point(|i| i.1 <= t)
}

impl Timeline {
    pub fn new() -> Timeline {
        Timeline::with_min_gap(0)
    }

    /// A timeline whose reservations all last at least `min_gap` ns.
    pub fn with_min_gap(min_gap: u64) -> Timeline {
        Timeline {
            busy: Vec::with_capacity(64),
            head: 0,
            min_gap,
        }
    }

    /// The live intervals.
    #[inline]
    pub(super) fn live(&self) -> &[(SimTime, SimTime)] {
        &self.busy[self.head..]
    }

    /// Forget intervals that ended at or before `now` (no future reservation can be ready
    /// before the current simulation time).
    #[inline]
    pub fn advance(&mut self, now: SimTime) {
        let n = self.busy.len();
        let mut h = self.head;
        while h < n && self.busy[h].1 <= now {
            h += 1;
        }
        if h == self.head {
            return; // nothing ended (or nothing booked)
        }
        self.head = h;
        if h == n {
            self.busy.clear();
            self.head = 0;
        } else if h >= COMPACT && h >= n - h {
            // Only once the past is as long as the live part: each compaction moves at most
            // as many live intervals as it drops, so a past interval costs O(1) however many
            // are booked ahead (GC keeps hundreds live on a die).
            self.compact();
        }
    }

    /// Drop the past intervals (the live ones move to the front; the capacity stays).
    #[cold]
    #[inline(never)]
    fn compact(&mut self) {
        self.busy.drain(..self.head);
        self.head = 0;
    }

    /// Start of the earliest gap of `dur` ns at or after `ready`, without reserving it.
    #[inline]
    pub fn earliest(&self, ready: SimTime, dur: u64) -> SimTime {
        self.find(ready, dur).start
    }

    /// The earliest gap of `dur` ns at or after `ready`, to reserve with [`Timeline::take`].
    #[inline(always)]
    pub fn find(&self, ready: SimTime, dur: u64) -> Slot {
        let live = self.live();
        match live.last() {
            Some(last) if last.1 > ready => {}
            _ => {
                return Slot {
                    start: ready,
                    pos: self.busy.len(),
                    at_end: true,
                }
            }
        }
        // Skip every interval that ends by `ready` (the list is sorted: a count of the front,
        // else a binary search).
        let first = if live[0].1 > ready {
            0
        } else {
            ended_by(live, ready)
        };
        if live[first].0 >= ready + dur {
            return Slot {
                start: ready,
                pos: self.head + first,
                at_end: false,
            };
        }
        // `live[first]` ends after `ready` and the intervals are sorted and disjoint, so every
        // later candidate starts where the interval before it ends: the answer is the first
        // hole between neighbours at least `dur` long.
        match first_hole(&live[first..], dur) {
            Some(j) => Slot {
                start: live[first + j - 1].1,
                pos: self.head + first + j,
                at_end: false,
            },
            None => Slot {
                start: live[live.len() - 1].1,
                pos: self.busy.len(),
                at_end: true,
            },
        }
    }

    /// Reserve `dur` ns at `slot` (found by [`Timeline::find`] for at least `dur` ns, with no
    /// change to the timeline since).
    #[inline(always)]
    pub fn take(&mut self, slot: Slot, dur: u64) {
        if dur == 0 {
            return;
        }
        let end = slot.start + dur;
        if !slot.at_end {
            self.insert(slot.start, end, slot.pos);
            return;
        }
        // After all work (the common case): extend the last interval or append. The list is
        // empty exactly when no interval is live (`advance` clears it).
        let gap = self.min_gap.max(1);
        match self.busy.last_mut() {
            Some(last) if slot.start - last.1 < gap => last.1 = end,
            _ => self.busy.push((slot.start, end)),
        }
    }

    /// Insert `[start, end)` before `busy[pos]`, merging with touching neighbours so
    /// back-to-back work is one interval (and with neighbours that leave a hole too short to
    /// use).
    fn insert(&mut self, start: SimTime, end: SimTime, pos: usize) {
        let gap = self.min_gap.max(1);
        let touches_prev = pos > self.head && start - self.busy[pos - 1].1 < gap;
        let touches_next = self.busy[pos].0 - end < gap;
        debug_assert!(pos == self.head || self.busy[pos - 1].1 <= start);
        debug_assert!(end <= self.busy[pos].0);
        match (touches_prev, touches_next) {
            (true, true) if pos - self.head < self.busy.len() - pos => {
                // The two merge into `busy[pos]`; the shorter side (the front) closes up.
                self.busy[pos].0 = self.busy[pos - 1].0;
                self.busy.copy_within(self.head..pos - 1, self.head + 1);
                self.head += 1;
            }
            (true, true) => {
                self.busy[pos - 1].1 = self.busy[pos].1;
                self.busy.remove(pos);
            }
            (true, false) => self.busy[pos - 1].1 = end,
            (false, true) => self.busy[pos].0 = start,
            (false, false) if pos - self.head < self.busy.len() - pos && self.head > 0 => {
                // Nearer the front: shift the live intervals before it into the past's room
                // (most reservations land near the clock, ahead of work booked far ahead).
                self.busy.copy_within(self.head..pos, self.head - 1);
                self.head -= 1;
                self.busy[pos - 1] = (start, end);
            }
            (false, false) => self.busy.insert(pos, (start, end)),
        }
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
        let first = self.head + self.live().partition_point(|&(_, e)| e < start);
        let mut overlap = 0;
        let (mut s, mut e) = (start, end);
        let mut last = first;
        while last < self.busy.len() && self.busy[last].0 <= end {
            let (bs, be) = self.busy[last];
            overlap += be.min(end).ns().saturating_sub(bs.max(start).ns());
            s = s.min(bs);
            e = e.max(be);
            last += 1;
        }
        if last == first {
            self.busy.insert(first, (s, e));
        } else {
            self.busy[first] = (s, e);
            self.busy.drain(first + 1..last);
        }
        overlap
    }

    /// End of the last reservation (or ZERO).
    pub fn last_end(&self) -> SimTime {
        self.live().last().map(|&(_, e)| e).unwrap_or(SimTime::ZERO)
    }

    /// Intervals are sorted and disjoint.
    pub fn check(&self) -> bool {
        self.live().windows(2).all(|w| w[0].1 <= w[1].0) && self.live().iter().all(|a| a.0 < a.1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn early_ready_transfer_fills_the_gap_before_a_later_one() {
        let mut t = Timeline::new();
        assert_eq!(t.reserve(SimTime(100), 10), SimTime(100));
        // Ready at 0, fits before 100.
        assert_eq!(t.reserve(SimTime(0), 10), SimTime(0));
        // Ready at 95 does not fit in [10, 100): goes after 110.
        assert_eq!(t.reserve(SimTime(95), 10), SimTime(110));
        assert_eq!(t.reserve(SimTime(50), 50), SimTime(50));
        assert!(t.check());
        t.advance(SimTime(105));
        assert_eq!(t.last_end(), SimTime(120));
    }

    #[test]
    fn occupy_merges_and_reports_the_overlap() {
        let mut t = Timeline::new();
        t.reserve(SimTime(10), 10);
        t.reserve(SimTime(30), 10);
        assert_eq!(t.earliest(SimTime(0), 15), SimTime(40));
        assert_eq!(t.earliest(SimTime(0), 10), SimTime(0));
        assert_eq!(t.occupy(SimTime(15), SimTime(35)), 10);
        assert!(t.check());
        assert_eq!(t.earliest(SimTime(0), 11), SimTime(40));
        assert_eq!(t.occupy(SimTime(50), SimTime(60)), 0);
        assert!(t.check());
    }

    #[test]
    fn holes_shorter_than_the_minimum_are_filled() {
        let mut t = Timeline::with_min_gap(10);
        t.reserve(SimTime(0), 10);
        t.reserve(SimTime(15), 10); // a 5 ns hole: merged
        t.reserve(SimTime(40), 10); // a 15 ns hole: kept
        assert_eq!(t.live().len(), 2);
        assert_eq!(t.earliest(SimTime(0), 10), SimTime(25));
        assert_eq!(t.earliest(SimTime(0), 16), SimTime(50));
        assert!(t.check());
    }

    /// Earliest gap of `dur` at or after `ready` among all reservations ever made (no
    /// pruning, no merging): the reference the timeline must agree with.
    fn naive_earliest(all: &[(u64, u64)], ready: u64, dur: u64) -> u64 {
        let mut start = ready;
        loop {
            match all.iter().find(|&&(s, e)| s < start + dur && start < e) {
                Some(&(_, e)) => start = e,
                None => return start,
            }
        }
    }

    /// A plain sorted list (the model): the naive search, the same merging of touching
    /// neighbours and short holes, the same union for `occupy`; the past is removed at once.
    #[derive(Default)]
    struct Flat {
        busy: Vec<(u64, u64)>,
        min_gap: u64,
    }

    impl Flat {
        fn advance(&mut self, now: u64) {
            let h = self.busy.partition_point(|&(_, e)| e <= now);
            self.busy.drain(..h);
        }

        fn reserve(&mut self, ready: u64, dur: u64) -> u64 {
            let start = naive_earliest(&self.busy, ready, dur);
            // The gap holds no interval: the next one starts after it.
            let pos = self.busy.partition_point(|&(s, _)| s < start);
            let (end, gap) = (start + dur, self.min_gap.max(1));
            let prev = (pos > 0 && start - self.busy[pos - 1].1 < gap).then(|| pos - 1);
            let next = pos < self.busy.len() && self.busy[pos].0 - end < gap;
            match (prev, next) {
                (Some(p), true) => {
                    self.busy[p].1 = self.busy[pos].1;
                    self.busy.remove(pos);
                }
                (Some(p), false) => self.busy[p].1 = end,
                (None, true) => self.busy[pos].0 = start,
                (None, false) => self.busy.insert(pos, (start, end)),
            }
            start
        }

        fn occupy(&mut self, start: u64, end: u64) -> u64 {
            let first = self.busy.partition_point(|&(_, e)| e < start);
            let mut last = first;
            let (mut s, mut e, mut overlap) = (start, end, 0);
            while last < self.busy.len() && self.busy[last].0 <= end {
                let (bs, be) = self.busy[last];
                overlap += be.min(end).saturating_sub(bs.max(start));
                (s, e) = (s.min(bs), e.max(be));
                last += 1;
            }
            self.busy.splice(first..last, [(s, e)]);
            overlap
        }
    }

    /// The timeline under test beside the plain list, stepped together; each step asserts that
    /// both answer alike, and `agree` that their intervals are the same.
    struct Both {
        t: Timeline,
        flat: Flat,
    }

    impl Both {
        fn new(min_gap: u64) -> Self {
            Both {
                t: Timeline::with_min_gap(min_gap),
                flat: Flat {
                    min_gap,
                    ..Flat::default()
                },
            }
        }

        fn advance(&mut self, now: u64) {
            self.t.advance(SimTime(now));
            self.flat.advance(now);
        }

        fn occupy(&mut self, start: u64, end: u64) -> Result<(), TestCaseError> {
            let got = self.t.occupy(SimTime(start), SimTime(end));
            prop_assert_eq!(got, self.flat.occupy(start, end));
            Ok(())
        }

        fn find_take(&mut self, ready: u64, dur: u64) -> Result<(), TestCaseError> {
            let slot = self.t.find(SimTime(ready), dur);
            self.t.take(slot, dur);
            prop_assert_eq!(slot.start.0, self.flat.reserve(ready, dur));
            Ok(())
        }

        fn agree(&self) -> Result<(), TestCaseError> {
            prop_assert!(self.t.check());
            let live: Vec<(u64, u64)> = self.t.live().iter().map(|&(s, e)| (s.0, e.0)).collect();
            prop_assert_eq!(&live, &self.flat.busy);
            Ok(())
        }
    }

    proptest! {
        /// The hand-written search gives what the standard one gives, on lists both shorter and
        /// longer than its front count and for times before, inside and after them.
        #[test]
        fn ended_by_is_a_partition_point(
            gaps in proptest::collection::vec((1u64..50, 1u64..50), 0..300),
            probes in proptest::collection::vec(0u64..30_000, 1..40),
        ) {
            let mut list = Vec::new();
            let mut t = 0;
            for (gap, len) in gaps {
                list.push((SimTime(t + gap), SimTime(t + gap + len)));
                t += gap + len;
            }
            for p in probes {
                let want = list.partition_point(|&(_, e): &(SimTime, SimTime)| e <= SimTime(p));
                prop_assert_eq!(ended_by(&list, SimTime(p)), want);
            }
        }

        /// Pruning the past, merging holes shorter than any reservation and searching once
        /// per reservation (find + take) never change where a reservation starts.
        #[test]
        fn pruning_and_merging_keep_the_earliest_gap(
            ops in proptest::collection::vec((0u64..40, 0u64..400, 10u64..60, any::<bool>()), 1..300)
        ) {
            let mut t = Timeline::with_min_gap(10);
            let mut all: Vec<(u64, u64)> = Vec::new();
            let mut now = 0;
            for (step, delay, dur, early) in ops {
                now += step;
                t.advance(SimTime(now));
                let ready = now + delay;
                let want = naive_earliest(&all, ready, dur);
                let got = if early {
                    t.reserve(SimTime(ready), dur)
                } else {
                    let slot = t.find(SimTime(ready), dur);
                    prop_assert_eq!(slot.at_end(), all.iter().all(|&(_, e)| e <= slot.start.0));
                    t.take(slot, dur);
                    slot.start
                };
                prop_assert_eq!(got.0, want);
                all.push((want, want + dur));
                prop_assert!(t.check());
            }
        }

        /// Long lists (hundreds of live intervals, as GC booked ahead makes them): searches
        /// that land near the end, in the middle or at the front all find the earliest gap.
        #[test]
        fn long_lists_keep_the_earliest_gap(
            ops in proptest::collection::vec((0u64..3000, 10u64..60), 200..500),
            probes in proptest::collection::vec((0u64..30000, 10u64..80), 1..50)
        ) {
            let mut t = Timeline::with_min_gap(10);
            let mut all: Vec<(u64, u64)> = Vec::new();
            for (i, &(gap, dur)) in ops.iter().enumerate() {
                // Reservations spread over time, leaving holes of various sizes.
                let ready = i as u64 * 60 + gap % 50;
                let s = t.reserve(SimTime(ready), dur);
                prop_assert_eq!(s.0, naive_earliest(&all, ready, dur));
                all.push((s.0, s.0 + dur));
            }
            for &(ready, dur) in &probes {
                let slot = t.find(SimTime(ready), dur);
                prop_assert_eq!(slot.start.0, naive_earliest(&all, ready, dur));
            }
            prop_assert!(t.check());
        }

        /// Against the plain list, on lists hundreds long (GC's booked-ahead work) whose past
        /// is compacted only once it outgrows the live part, with insertions, merges and
        /// unions (`occupy`) anywhere: the same starts, the same overlaps, the same intervals.
        #[test]
        fn matches_a_plain_sorted_list(
            ops in proptest::collection::vec(
                (0u64..40, 0u64..20_000, 10u64..80, 0u8..16), 100..1500)
        ) {
            let mut both = Both::new(10);
            let mut now = 0;
            for (step, delay, dur, kind) in ops {
                now += step;
                let ready = now + delay;
                match kind {
                    0 => {
                        both.advance(now);
                    }
                    1 => both.occupy(ready, ready + 4 * dur)?,
                    _ if kind % 2 == 0 => {
                        let got = both.t.reserve(SimTime(ready), dur);
                        prop_assert_eq!(got.0, both.flat.reserve(ready, dur));
                    }
                    _ => both.find_take(ready, dur)?,
                }
                both.agree()?;
            }
        }

        /// Short operations (reads) leave holes that long ones (programs) cannot use, so a
        /// search for a long gap walks past many short holes (as on a die with GC booked
        /// ahead): against the plain list, with the past dropped and unions (`occupy`) now
        /// and then, every start and interval agrees.
        #[test]
        fn short_and_long_reservations_match_a_plain_sorted_list(
            ops in proptest::collection::vec(
                (0u64..30, 0u64..30_000, any::<bool>(), 0u8..64), 200..2000)
        ) {
            let mut both = Both::new(10);
            let mut now = 0;
            for (step, delay, long, kind) in ops {
                now += step;
                let ready = now + delay;
                let dur = if long { 150 + delay % 250 } else { 10 + delay % 15 };
                match kind {
                    0 => {
                        both.advance(now);
                    }
                    1 => {
                        both.occupy(ready, ready + dur)?;
                    }
                    _ => {
                        both.find_take(ready, dur)?;
                    }
                }
                both.agree()?;
            }
        }

        /// Searches of ten lengths (as a die sees: reads, programs, odd lengths), some ready
        /// before the clock, on lists hundreds long: against the plain list, the same gaps and
        /// the same intervals.
        #[test]
        fn many_lengths_some_ready_before_the_clock_match_a_plain_sorted_list(
            ops in proptest::collection::vec(
                (0u64..30, 0u64..20_000, 0usize..10, 0u8..40, any::<bool>()), 200..2000)
        ) {
            const LENS: [u64; 10] = [12, 13, 17, 21, 30, 44, 60, 90, 150, 300];
            let mut both = Both::new(10);
            let mut now = 0;
            for (step, delay, len, kind, late) in ops {
                now += step;
                // Mostly ready at or after the clock; now and then before it.
                let ready = if late { now + delay } else { now.saturating_sub(delay % 200) };
                let dur = LENS[len];
                match kind {
                    0..=2 => {
                        both.advance(now);
                    }
                    3 => {
                        both.occupy(ready, ready + dur)?;
                    }
                    _ => {
                        both.find_take(ready, dur)?;
                    }
                }
                both.agree()?;
            }
        }

        /// Lists thousands long (the die of a GC-heavy device): bookings far ahead, searches of
        /// short gaps and of long ones that pass many short holes, unions (`occupy`) spanning
        /// dozens of intervals, the past dropped now and then (a long stretch at a time). Against
        /// the plain list: the same starts, overlaps and intervals.
        #[test]
        fn thousands_booked_ahead_match_a_plain_sorted_list(
            ops in proptest::collection::vec(
                (0u64..200, 0u64..100_000, 0u64..400, 0u8..32), 500..3000)
        ) {
            let mut both = Both::new(10);
            let mut now = 0;
            for (step, delay, len, kind) in ops {
                let ready = now + delay;
                match kind {
                    0 => {
                        now += step * 20;
                        both.advance(now);
                    }
                    1 => {
                        // Up to a few thousand ns: over dozens of short intervals.
                        let end = ready + 10 + len * len / 40;
                        both.occupy(ready, end)?;
                    }
                    _ => {
                        // Mostly short (reads), some long (programs) that pass short holes.
                        let dur = if kind % 5 == 0 { 100 + len } else { 10 + len % 30 };
                        both.find_take(ready, dur)?;
                    }
                }
                both.agree()?;
            }
        }

        #[test]
        fn reservations_never_overlap_and_start_when_ready(
            ops in proptest::collection::vec((0u64..1000, 1u64..50), 1..200)
        ) {
            let mut t = Timeline::new();
            let mut all = Vec::new();
            for (ready, dur) in ops {
                let s = t.reserve(SimTime(ready), dur);
                prop_assert!(s >= SimTime(ready));
                all.push((s.0, s.0 + dur));
                prop_assert!(t.check());
            }
            all.sort();
            for w in all.windows(2) {
                prop_assert!(w[0].1 <= w[1].0);
            }
        }
    }
}
