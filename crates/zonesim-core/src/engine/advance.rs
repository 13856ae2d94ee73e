use super::{SimTime, Timeline};

/// The clock advances a group of timelines has seen, replayed on each one only when it is next
/// used.
///
/// A device advances its clock at every command, and each advance drops the intervals that
/// ended by then from every channel and link timeline ([`Timeline::advance`]). Done eagerly that
/// walks every timeline of the group at every command, though a command touches one or two
/// (about 60 instructions of a random read's 1,900 on a 4-channel device, more on wider ones).
/// Here an advance only logs its time; a timeline catches up when used ([`Lazy::catch_up`]),
/// dropping exactly what the advances since its last use would have dropped. That is not
/// simply "up to the latest clock": a reservation made between two advances can end before
/// the clock (work booked in the past), and it stays until the next advance, as before. A
/// timeline untouched since advance `k` would have been pruned at each later advance in turn;
/// on a list that did not change, that is one prune at the largest of those times. The log
/// keeps just what answers "the largest time after advance `k`": the advances not followed by
/// a later one at least as late (a stack, times falling towards the top; just the latest while
/// the clock only moves forward).
#[derive(Debug, Clone, Default)]
pub struct AdvanceLog {
    /// Advances so far.
    epoch: u64,
    /// `(epoch, time)` of the latest advance.
    last: (u64, SimTime),
    /// `(epoch, time)` of earlier advances no later advance matched or passed: epochs rising,
    /// times strictly falling, all later than `last`'s time. Empty while the clock only moves
    /// forward, so that case costs a compare.
    older: Vec<(u64, SimTime)>,
}

/// Most entries kept before the group is brought up to date and the log cut back to one.
const MAX_LOG: usize = 64;

impl AdvanceLog {
    /// The clock reached `now`. Returns true when the log is full: the owner must then
    /// [`AdvanceLog::settle`] the whole group.
    #[inline(always)]
    #[must_use]
    pub fn advance(&mut self, now: SimTime) -> bool {
        self.epoch += 1;
        if now >= self.last.1 && self.older.is_empty() {
            self.last = (self.epoch, now); // the clock moved forward, as it nearly always does
            return false;
        }
        self.log_back(now)
    }

    /// [`AdvanceLog::advance`] when the clock went back, or after it did.
    #[cold]
    #[inline(never)]
    fn log_back(&mut self, now: SimTime) -> bool {
        let full = if now >= self.last.1 {
            while self.older.last().is_some_and(|&(_, t)| t <= now) {
                self.older.pop();
            }
            false
        } else {
            self.older.push(self.last);
            self.older.len() > MAX_LOG
        };
        self.last = (self.epoch, now);
        full
    }

    /// Bring every timeline of the group up to date, then cut the log back: once all have
    /// caught up, only the latest advance can matter.
    #[cold]
    #[inline(never)]
    pub fn settle<'a>(&mut self, group: impl IntoIterator<Item = &'a mut Lazy>) {
        for l in group {
            l.catch_up(self);
        }
        self.older.clear();
    }

    /// The largest time of the advances after epoch `seen`, or None if there was none.
    #[inline(always)]
    fn since(&self, seen: u64) -> Option<SimTime> {
        if seen == self.epoch {
            return None;
        }
        match self.older.last() {
            Some(&(e, _)) if e > seen => {
                let i = self.older.partition_point(|&(e, _)| e <= seen);
                Some(self.older[i].1)
            }
            _ => Some(self.last.1),
        }
    }
}

/// A [`Timeline`] of a group sharing an [`AdvanceLog`], with the advance it last caught up to.
#[derive(Debug, Clone, Default)]
pub struct Lazy {
    tl: Timeline,
    seen: u64,
}

impl Lazy {
    pub fn new(tl: Timeline) -> Lazy {
        Lazy { tl, seen: 0 }
    }

    /// Drop what the advances of `log` since this timeline's last use would have dropped;
    /// the timeline, ready to use.
    #[inline(always)]
    pub fn catch_up(&mut self, log: &AdvanceLog) -> &mut Timeline {
        if let Some(t) = log.since(self.seen) {
            self.tl.advance(t);
            self.seen = log.epoch;
        }
        &mut self.tl
    }

    /// Count this timeline as caught up with `log` as it is (a timeline that joins the
    /// group now: it is pruned from the next advance on).
    pub fn joined(&mut self, log: &AdvanceLog) {
        self.seen = log.epoch;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Timelines caught up lazily hold what timelines pruned at every advance hold, for
        /// any clock (going back too) and reservations made between advances, past ones
        /// among them.
        #[test]
        fn lazy_catch_up_is_eager_pruning(
            ops in proptest::collection::vec((0u8..4, 0u64..300, 0u64..200, 1u64..40), 1..400)
        ) {
            let mut eager = vec![Timeline::with_min_gap(5); 3];
            let mut lazy = vec![Lazy::new(Timeline::with_min_gap(5)); 3];
            let mut log = AdvanceLog::default();
            for (op, a, b, dur) in ops {
                if op == 3 {
                    let now = SimTime(a);
                    eager.iter_mut().for_each(|t| t.advance(now));
                    if log.advance(now) {
                        log.settle(&mut lazy);
                    }
                } else {
                    let i = op as usize;
                    let ready = SimTime(b);
                    let want = eager[i].reserve(ready, dur);
                    let got = lazy[i].catch_up(&log).reserve(ready, dur);
                    prop_assert_eq!(want, got);
                }
            }
            for (e, l) in eager.iter_mut().zip(&mut lazy) {
                prop_assert_eq!(e.live(), l.catch_up(&log).live());
            }
        }
    }

    #[test]
    fn the_log_stays_short() {
        let mut log = AdvanceLog::default();
        let mut full = 0;
        for t in (0..1000u64).rev() {
            if log.advance(SimTime(t)) {
                full += 1;
                log.settle([]);
            }
        }
        assert!(full > 0 && log.older.len() <= MAX_LOG);
        assert!(!log.advance(SimTime(5000)));
        assert!(log.older.is_empty());
    }
}
