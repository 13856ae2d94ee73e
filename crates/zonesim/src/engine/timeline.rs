use super::SimTime;
use std::collections::VecDeque;

/// A shared resource (a channel, a link direction) that serves transfers in the earliest gap
/// at or after their ready time.
///
/// Reservations are made when the firmware issues an operation, which is not the order in
/// which their data becomes ready (a request reserves its reads on several dies at once). A
/// plain busy-until would serialise a transfer ready early behind one reserved earlier but
/// ready late; a bus arbiter serves whoever is ready. So the timeline keeps the future busy
/// intervals (sorted, disjoint) and fills gaps. Intervals that end before the simulation clock
/// are dropped ([`Timeline::advance`]), so the list stays as short as the work in flight.
#[derive(Debug, Clone, Default)]
pub struct Timeline {
    busy: VecDeque<(SimTime, SimTime)>,
    /// Holes shorter than this (ns) are filled in: no reservation is ever that short, so they
    /// could never be used, and dropping them keeps the list short (dies: the shortest read).
    min_gap: u64,
}

impl Timeline {
    pub fn new() -> Timeline {
        Timeline::with_min_gap(0)
    }

    /// A timeline whose reservations all last at least `min_gap` ns.
    pub fn with_min_gap(min_gap: u64) -> Timeline {
        Timeline {
            busy: VecDeque::with_capacity(64),
            min_gap,
        }
    }

    /// Forget intervals that ended at or before `now` (no future reservation can be ready
    /// before the current simulation time).
    #[inline]
    pub fn advance(&mut self, now: SimTime) {
        while self.busy.front().is_some_and(|&(_, e)| e <= now) {
            self.busy.pop_front();
        }
    }

    /// Start of the earliest gap of `dur` ns at or after `ready`, without reserving it.
    #[inline]
    pub fn earliest(&self, ready: SimTime, dur: u64) -> SimTime {
        match self.busy.back() {
            None => return ready,
            Some(last) if last.1 <= ready => return ready,
            _ => {}
        }
        self.scan(ready, dur).0
    }

    /// (start of the earliest gap of `dur` at or after `ready`, index of the first interval
    /// after it).
    #[inline]
    fn scan(&self, ready: SimTime, dur: u64) -> (SimTime, usize) {
        let mut start = ready;
        // Skip every interval that ends before `ready` (binary search on long lists: the list
        // is sorted; the walk below passes over them on short ones).
        let first = if self.busy.len() <= 32 || self.busy[0].1 > ready {
            0
        } else {
            let (a, b) = self.busy.as_slices();
            if a.last().is_some_and(|&(_, e)| e > ready) {
                a.partition_point(|&(_, e)| e <= ready)
            } else {
                a.len() + b.partition_point(|&(_, e)| e <= ready)
            }
        };
        let mut pos = self.busy.len();
        for i in first..self.busy.len() {
            let (s, e) = self.busy[i];
            if s >= start + dur {
                pos = i;
                break;
            }
            start = start.max(e);
        }
        (start, pos)
    }

    /// Reserve `dur` ns in the earliest gap starting at or after `ready`; returns the start.
    #[inline]
    pub fn reserve(&mut self, ready: SimTime, dur: u64) -> SimTime {
        // Fast path: at or after the end of all work, extend or append.
        match self.busy.back_mut() {
            None => {
                if dur > 0 {
                    self.busy.push_back((ready, ready + dur));
                }
                return ready;
            }
            Some(last) if last.1 <= ready => {
                if dur > 0 {
                    if ready - last.1 < self.min_gap.max(1) {
                        last.1 = ready + dur;
                    } else {
                        self.busy.push_back((ready, ready + dur));
                    }
                }
                return ready;
            }
            _ => {}
        }
        let (start, pos) = self.scan(ready, dur);
        if dur == 0 {
            return start;
        }
        let end = start + dur;
        // Insert, merging with touching neighbours so back-to-back work is one interval (and
        // with neighbours that leave a hole too short to use).
        let touches_prev = pos > 0 && start - self.busy[pos - 1].1 < self.min_gap.max(1);
        let touches_next = pos < self.busy.len() && self.busy[pos].0 - end < self.min_gap.max(1);
        match (touches_prev, touches_next) {
            (true, true) => {
                self.busy[pos - 1].1 = self.busy[pos].1;
                self.busy.remove(pos);
            }
            (true, false) => self.busy[pos - 1].1 = end,
            (false, true) => self.busy[pos].0 = start,
            (false, false) => self.busy.insert(pos, (start, end)),
        }
        start
    }

    /// Mark `[start, end)` busy whatever is already reserved there (the union); returns how
    /// many ns of it were already busy. Used for operations that preempt (suspend) others.
    pub fn occupy(&mut self, start: SimTime, end: SimTime) -> u64 {
        if end <= start {
            return 0;
        }
        let first = self.busy.partition_point(|&(_, e)| e < start);
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
        self.busy.back().map(|&(_, e)| e).unwrap_or(SimTime::ZERO)
    }

    /// Intervals are sorted and disjoint.
    pub fn check(&self) -> bool {
        self.busy
            .iter()
            .zip(self.busy.iter().skip(1))
            .all(|(a, b)| a.0 < a.1 && a.1 <= b.0)
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
        assert_eq!(t.busy.len(), 2);
        assert_eq!(t.earliest(SimTime(0), 10), SimTime(25));
        assert_eq!(t.earliest(SimTime(0), 16), SimTime(50));
        assert!(t.check());
    }

    proptest! {
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
