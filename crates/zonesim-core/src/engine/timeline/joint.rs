//! The joint search of a die and its channel for one flash operation.
//!
//! Follows the per-die scheduling of ARCHITECTURE.md ("Per-die scheduling"): an operation
//! takes the earliest gap of its die at or after its data is ready, found jointly with a gap
//! on its channel. The two gaps are found in rounds: the die's gap, the channel's gap in it,
//! and, when the channel is busy there, the die's gap again for the longer hold (a read keeps
//! the die until its transfer ends) or at the channel's start (a program starts with its
//! transfer in), until one round changes nothing.
//!
//! Every round's search starts at or after the previous round's on both lists (the die's ready
//! time only grows, and so does the channel's), so no round needs an interval before where the
//! previous one stopped. Each list keeps a cursor: a later round gallops forward from it to its
//! ready time and walks on from there, where a fresh [`Timeline::find`] would binary-search the
//! whole list again. The rounds and the gaps they find are those of repeated `find`s (the tests
//! run both side by side), so the schedule is unchanged.

use super::{Slot, Timeline};
use crate::engine::SimTime;

impl Timeline {
    /// Index of the first interval at or after `from` that ends after `t`, given that every
    /// interval before `from` ends at or before `t`: a galloping search from `from`, a few
    /// steps when the answer is near it.
    #[inline(always)]
    fn skip_to(&self, from: usize, t: SimTime) -> usize {
        let b = &self.busy;
        if from >= b.len() || b[from].1 > t {
            return from;
        }
        // b[lo] ends at or before t; look ahead 1, 2, 4, ... intervals.
        let (mut lo, mut step) = (from, 1);
        loop {
            let hi = lo + step;
            if hi >= b.len() || b[hi].1 > t {
                let hi = hi.min(b.len());
                return lo + 1 + b[lo + 1..hi].partition_point(|&(_, e)| e <= t);
            }
            lo = hi;
            step *= 2;
        }
    }

    /// [`Timeline::find`] for a search that needs no interval before index `*cursor` (every
    /// interval before it ends at or before `ready`): the same gap, reached from the cursor,
    /// which moves to the first interval ending after `ready` (inlined: a call per search
    /// cost more than the binary searches the cursor saves).
    #[inline(always)]
    fn find_from(&self, cursor: &mut usize, ready: SimTime, dur: u64) -> Slot {
        let at_end = |start| Slot {
            start,
            pos: self.busy.len(),
            at_end: true,
        };
        match self.busy.last() {
            Some(last) if last.1 > ready => {}
            _ => return at_end(ready),
        }
        let first = self.skip_to((*cursor).max(self.head), ready);
        *cursor = first;
        let mut start = ready;
        for (i, &(s, e)) in self.busy[first..].iter().enumerate() {
            if s >= start + dur {
                return Slot {
                    start,
                    pos: first + i,
                    at_end: false,
                };
            }
            start = start.max(e);
        }
        at_end(start)
    }
}

/// The die and channel gaps of an array read of `lat` ns whose transfer out takes `dur` ns,
/// given `slot`, the die's earliest gap of `lat + dur` ns at or after the read's ready time
/// (not at the end of the die's work: there any channel wait fits). The die is held from the
/// returned die gap's start to the end of the transfer, which starts at the channel gap's.
#[inline]
pub fn read_gaps(
    die: &Timeline,
    ch: &Timeline,
    mut slot: Slot,
    lat: u64,
    dur: u64,
) -> (Slot, Slot) {
    // Every channel interval before `cf` ends at or before this round's channel ready time.
    let mut cf = ch.head;
    loop {
        let ready = slot.start + lat;
        let x = ch.find_from(&mut cf, ready, dur);
        if x.start == ready {
            return (slot, x); // the die's gap covers the transfer
        }
        // Every die interval before `slot.pos` ends at or before `slot.start`.
        let mut df = slot.pos;
        let s2 = die.find_from(&mut df, slot.start, x.start + dur - slot.start);
        if s2.start == slot.start {
            return (s2, x);
        }
        slot = s2;
    }
}

/// The die and channel gaps of a program whose transfer in takes `dur` ns and whose program
/// `prog` ns, given `slot`, the die's earliest gap of `dur + prog` ns at or after the data is
/// ready (not at the end of the die's work). The die is held from the channel gap's start for
/// `dur + prog` ns, starting at the returned die gap's start (the same time).
#[inline]
pub fn program_gaps(
    die: &Timeline,
    ch: &Timeline,
    mut slot: Slot,
    dur: u64,
    prog: u64,
) -> (Slot, Slot) {
    let mut cf = ch.head;
    loop {
        let x = ch.find_from(&mut cf, slot.start, dur);
        if x.start == slot.start {
            return (slot, x); // the die's gap covers transfer and program
        }
        // Every die interval before `slot.pos` ends at or before `slot.start` <= `x.start`.
        let mut df = slot.pos;
        let s2 = die.find_from(&mut df, x.start, dur + prog);
        if s2.start == x.start {
            return (s2, x);
        }
        // Every channel interval before `x.pos` ends at or before `x.start` <= `s2.start`.
        cf = x.pos;
        slot = s2;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The rounds as repeated fresh searches (the model the joint search must match).
    fn read_by_finds(
        die: &Timeline,
        ch: &Timeline,
        mut slot: Slot,
        lat: u64,
        dur: u64,
    ) -> (Slot, Slot) {
        loop {
            let x = ch.find(slot.start + lat, dur);
            if x.start == slot.start + lat {
                return (slot, x);
            }
            let s2 = die.find(slot.start, x.start + dur - slot.start);
            if s2.start == slot.start {
                return (s2, x);
            }
            slot = s2;
        }
    }

    fn program_by_finds(
        die: &Timeline,
        ch: &Timeline,
        mut slot: Slot,
        dur: u64,
        prog: u64,
    ) -> (Slot, Slot) {
        loop {
            let x = ch.find(slot.start, dur);
            if x.start == slot.start {
                return (slot, x);
            }
            let s2 = die.find(x.start, dur + prog);
            if s2.start == x.start {
                return (s2, x);
            }
            slot = s2;
        }
    }

    #[test]
    fn skip_to_finds_the_first_interval_ending_after() {
        let mut t = Timeline::new();
        for i in 0..40u64 {
            t.reserve(SimTime(i * 10), 5);
        }
        for from in [0usize, 3, 17, 39, 40] {
            for x in (0..420u64).step_by(3) {
                let want = t.busy.partition_point(|&(_, e)| e <= SimTime(x));
                if want >= from {
                    assert_eq!(t.skip_to(from, SimTime(x)), want, "from {from} t {x}");
                }
            }
        }
    }

    proptest! {
        /// Four dies sharing a channel, work booked ahead (lists hundreds long, the past
        /// dropped now and then): reads and programs booked through the joint search get the
        /// same die and channel gaps as the rounds of fresh searches, and the lists stay alike.
        #[test]
        fn joint_search_matches_repeated_finds(
            ops in proptest::collection::vec(
                (0u64..60, 0u64..20_000, 0u64..400, 0u8..16), 200..1500)
        ) {
            let mut dies = vec![Timeline::with_min_gap(30); 4];
            let mut ch = Timeline::with_min_gap(5);
            let mut now = 0;
            for (step, delay, len, kind) in ops {
                let ready = SimTime(now + delay);
                if kind == 0 {
                    now += step * 10;
                    for d in &mut dies {
                        d.advance(SimTime(now));
                    }
                    ch.advance(SimTime(now));
                    continue;
                }
                let die = &mut dies[(len % 4) as usize];
                let read = kind % 3 != 0;
                // Reads: sense 30-60 ns, transfer 5-45; programs: transfer 5-45, program 100-500.
                let (a, b) = if read { (30 + len % 31, 5 + len % 41) } else { (5 + len % 41, 100 + len) };
                let need = a + b;
                let slot = die.find(ready, need);
                if slot.at_end() {
                    // The callers' own path (nand/array.rs): no rounds.
                    if read {
                        let xs = ch.reserve(slot.start + a, b);
                        die.take(slot, xs + b - slot.start);
                    } else {
                        let xs = ch.reserve(slot.start, a);
                        let s = if xs == slot.start { slot } else { die.find(xs, need) };
                        die.take(s, need);
                    }
                    continue;
                }
                let (got, want) = if read {
                    (read_gaps(die, &ch, slot, a, b), read_by_finds(die, &ch, slot, a, b))
                } else {
                    (program_gaps(die, &ch, slot, a, b), program_by_finds(die, &ch, slot, a, b))
                };
                prop_assert_eq!(got, want);
                let (d, x) = got;
                ch.take(x, if read { b } else { a });
                let end = if read { x.start + b } else { x.start + a + b };
                die.take(d, end - d.start);
                prop_assert!(die.check() && ch.check());
            }
        }
    }
}
