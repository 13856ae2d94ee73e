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
    assert_eq!(t.live().count(), 2);
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

proptest! {
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
        let mut t = Timeline::with_min_gap(10);
        let mut flat = Flat { min_gap: 10, ..Flat::default() };
        let mut now = 0;
        for (step, delay, dur, kind) in ops {
            now += step;
            let ready = now + delay;
            match kind {
                0 => {
                    t.advance(SimTime(now));
                    flat.advance(now);
                }
                1 => {
                    let (s, e) = (SimTime(ready), SimTime(ready + 4 * dur));
                    prop_assert_eq!(t.occupy(s, e), flat.occupy(ready, ready + 4 * dur));
                }
                _ => {
                    let got = if kind % 2 == 0 {
                        t.reserve(SimTime(ready), dur)
                    } else {
                        let slot = t.find(SimTime(ready), dur);
                        t.take(slot, dur);
                        slot.start
                    };
                    prop_assert_eq!(got.0, flat.reserve(ready, dur));
                }
            }
            prop_assert!(t.check());
            let live: Vec<(u64, u64)> = t.live().map(|(s, e)| (s.0, e.0)).collect();
            prop_assert_eq!(&live, &flat.busy);
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
        let mut t = Timeline::with_min_gap(10);
        let mut flat = Flat { min_gap: 10, ..Flat::default() };
        let mut now = 0;
        for (step, delay, long, kind) in ops {
            now += step;
            let ready = now + delay;
            let dur = if long { 150 + delay % 250 } else { 10 + delay % 15 };
            match kind {
                0 => {
                    t.advance(SimTime(now));
                    flat.advance(now);
                }
                1 => {
                    let (s, e) = (SimTime(ready), SimTime(ready + dur));
                    prop_assert_eq!(t.occupy(s, e), flat.occupy(ready, ready + dur));
                }
                _ => {
                    let slot = t.find(SimTime(ready), dur);
                    t.take(slot, dur);
                    prop_assert_eq!(slot.start.0, flat.reserve(ready, dur));
                }
            }
            prop_assert!(t.check());
            let live: Vec<(u64, u64)> = t.live().map(|(s, e)| (s.0, e.0)).collect();
            prop_assert_eq!(&live, &flat.busy);
        }
    }

    /// Searches of more lengths than are remembered (as a die sees: reads, programs, odd
    /// lengths), some ready before the clock, on lists hundreds long: starting a search at
    /// a remembered gap never changes the gap found, against the plain list, and the list
    /// stays the same.
    #[test]
    fn remembered_gaps_keep_the_earliest_gap(
        ops in proptest::collection::vec(
            (0u64..30, 0u64..20_000, 0usize..10, 0u8..40, any::<bool>()), 200..2000)
    ) {
        const LENS: [u64; 10] = [12, 13, 17, 21, 30, 44, 60, 90, 150, 300];
        let mut t = Timeline::with_min_gap(10);
        let mut flat = Flat { min_gap: 10, ..Flat::default() };
        let mut now = 0;
        for (step, delay, len, kind, late) in ops {
            now += step;
            // Mostly ready at or after the clock; now and then before it.
            let ready = if late { now + delay } else { now.saturating_sub(delay % 200) };
            let dur = LENS[len];
            match kind {
                0..=2 => {
                    t.advance(SimTime(now));
                    flat.advance(now);
                }
                3 => {
                    let (s, e) = (SimTime(ready), SimTime(ready + dur));
                    prop_assert_eq!(t.occupy(s, e), flat.occupy(ready, ready + dur));
                }
                _ => {
                    let slot = t.find(SimTime(ready), dur);
                    t.take(slot, dur);
                    prop_assert_eq!(slot.start.0, flat.reserve(ready, dur));
                }
            }
            prop_assert!(t.check());
            let live: Vec<(u64, u64)> = t.live().map(|(s, e)| (s.0, e.0)).collect();
            prop_assert_eq!(&live, &flat.busy);
        }
    }

    /// Lists thousands long in blocks (the die of a GC-heavy device): bookings far ahead in
    /// clusters, so blocks fill, split and empty; searches of short and long gaps that skip
    /// blocks by their hole bound, unions (`occupy`) spanning several blocks, the past dropped
    /// now and then (whole blocks and part of one). Against the plain list: the same starts,
    /// overlaps and intervals, and every block's summary holds (`check`).
    #[test]
    fn blocks_match_a_plain_sorted_list(
        ops in proptest::collection::vec(
            (0u64..200, 0u64..100_000, 0u64..400, 0u8..32), 500..3000)
    ) {
        let mut t = Timeline::with_min_gap(10);
        let mut flat = Flat { min_gap: 10, ..Flat::default() };
        let mut now = 0;
        for (step, delay, len, kind) in ops {
            let ready = now + delay;
            match kind {
                0 => {
                    now += step * 20;
                    t.advance(SimTime(now));
                    flat.advance(now);
                }
                1 => {
                    // Up to a few thousand ns: across blocks of short intervals.
                    let end = ready + 10 + len * len / 40;
                    prop_assert_eq!(t.occupy(SimTime(ready), SimTime(end)), flat.occupy(ready, end));
                }
                _ => {
                    // Mostly short (reads), some long (programs) that skip short holes.
                    let dur = if kind % 5 == 0 { 100 + len } else { 10 + len % 30 };
                    let slot = t.find(SimTime(ready), dur);
                    t.take(slot, dur);
                    prop_assert_eq!(slot.start.0, flat.reserve(ready, dur));
                }
            }
            prop_assert!(t.check());
            let live: Vec<(u64, u64)> = t.live().map(|(s, e)| (s.0, e.0)).collect();
            prop_assert_eq!(&live, &flat.busy);
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
