//! A firmware spin lock as a booked resource (MCMQ §III-B "fine-grained spin locks";
//! MCMQ's `spinlock.h`, a test-and-test-and-set lock on `amoswap`).
//!
//! Like a die, a lock is a gap-filling [`Timeline`] of hold intervals: an acquisition asked at
//! `t` for `hold` ns takes the earliest gap at or after `t`, so two holders never overlap
//! (the timeline's intervals are disjoint). Uncontended, the hold is preceded by the atomic
//! acquire/release; contended, the waiter spins (its core is busy) until the lock is free and
//! then waits for the lock's cache line to move to it: one line transfer with a queue lock
//! (`fifo`), and with TTAS one transfer growing by `handoff_growth` per other spinner, scaled by
//! a seeded draw in [0, 2) (which spinner's re-read wins the line is a race). Acquisitions are
//! booked when the firmware decides them, so a later request never overtakes a booked holder:
//! the grant order is first come, first served in both modes; TTAS differs in hand-off cost and
//! its spread.

use crate::engine::{Rng, SimTime, Timeline};
use hdrhistogram::Histogram;
use rand::Rng as _;
use std::collections::VecDeque;

/// Hand-off parameters in ns.
#[derive(Debug, Clone, Copy)]
pub struct HandoffCost {
    pub acquire_ns: u64,
    pub xfer_ns: u64,
    /// Extra transfer per other waiter (x xfer); 0 for a queue lock.
    pub growth: f64,
    /// Seeded spread of the hand-off (TTAS).
    pub random: bool,
}

/// A planned acquisition: the lock is occupied over `[start, end)` (hand-off or acquire, then
/// the hold); the core spins over `[asked, start + lead)` where `lead` is the hand-off part.
#[derive(Debug, Clone, Copy)]
pub struct Grant {
    pub lock: u32,
    pub asked: SimTime,
    pub start: SimTime,
    pub end: SimTime,
    /// Other waiters when asked (0 = uncontended).
    pub waiters: u32,
    /// ns of the occupation spent moving the line (spin), not holding.
    pub lead: u64,
}

impl Grant {
    /// ns the asking core spun (waiting and receiving the line).
    pub fn spin_ns(&self) -> u64 {
        (self.start - self.asked) + if self.waiters > 0 { self.lead } else { 0 }
    }
}

/// Statistics of one lock.
#[derive(Debug, Clone)]
pub struct LockStats {
    pub acquisitions: u64,
    pub contended: u64,
    pub hold_ns: u64,
    pub max_waiters: u32,
    /// Uncontended acquisitions wait exactly this (the atomic acquire), ns.
    pub uncontended_wait_ns: u64,
    /// Wait from asking to holding of the contended acquisitions, ns (the uncontended ones
    /// are counted, not recorded: most acquisitions, one value).
    pub wait: Histogram<u64>,
}

impl Default for LockStats {
    fn default() -> Self {
        LockStats {
            acquisitions: 0,
            contended: 0,
            hold_ns: 0,
            max_waiters: 0,
            uncontended_wait_ns: 0,
            wait: Histogram::new_with_bounds(1, 1_000_000_000_000, 2).expect("valid bounds"),
        }
    }
}

impl LockStats {
    pub fn merge(&mut self, o: &LockStats) {
        self.acquisitions += o.acquisitions;
        self.contended += o.contended;
        self.hold_ns += o.hold_ns;
        self.max_waiters = self.max_waiters.max(o.max_waiters);
        self.uncontended_wait_ns = o.uncontended_wait_ns;
        self.wait.add(&o.wait).expect("same bounds");
    }

    /// Mean wait, ns.
    pub fn wait_mean_ns(&self) -> f64 {
        if self.acquisitions == 0 {
            return 0.0;
        }
        let unc = (self.acquisitions - self.contended) as f64 * self.uncontended_wait_ns as f64;
        let con = if self.contended > 0 {
            self.wait.mean() * self.contended as f64
        } else {
            0.0
        };
        (unc + con) / self.acquisitions as f64
    }

    /// Wait at quantile `q` of all acquisitions, ns (contended waits are never shorter than
    /// the uncontended one).
    pub fn wait_quantile_ns(&self, q: f64) -> u64 {
        let unc = self.acquisitions - self.contended;
        let rank = q * self.acquisitions as f64;
        if self.contended == 0 || rank <= unc as f64 {
            return if self.acquisitions == 0 {
                0
            } else {
                self.uncontended_wait_ns
            };
        }
        let qc = ((rank - unc as f64) / self.contended as f64).clamp(0.0, 1.0);
        self.wait.value_at_quantile(qc)
    }
}

#[derive(Debug, Clone, Default)]
pub struct Lock {
    held: Timeline,
    /// (asked, start) of contended acquisitions whose wait may still overlap new ones.
    waits: VecDeque<(SimTime, SimTime)>,
    pub stats: LockStats,
}

impl Lock {
    /// Forget what ended before `now`.
    pub fn advance(&mut self, now: SimTime) {
        self.held.advance(now);
        while self.waits.front().is_some_and(|&(_, s)| s <= now) {
            self.waits.pop_front();
        }
    }

    /// Waiters still spinning at `t` (asked at or before `t`, not yet granted).
    fn waiters_at(&self, t: SimTime) -> u32 {
        self.waits.iter().filter(|&&(a, s)| a <= t && s > t).count() as u32
    }

    /// Plan holding the lock for `hold` ns, asked at `t`; a contended TTAS hand-off draws its
    /// spread from `rng`. Nothing is booked.
    pub fn plan(&self, id: u32, t: SimTime, hold: u64, c: &HandoffCost, rng: &mut Rng) -> Grant {
        let quick = c.acquire_ns + hold;
        if self.held.earliest(t, quick) == t {
            return Grant {
                lock: id,
                asked: t,
                start: t,
                end: t + quick,
                waiters: 0,
                lead: c.acquire_ns,
            };
        }
        let waiters = self.waiters_at(t) + 1;
        let spread = if c.random {
            2.0 * rng.gen::<f64>()
        } else {
            1.0
        };
        let lead = (c.xfer_ns as f64 * (1.0 + c.growth * (waiters - 1) as f64 * spread)).round()
            as u64
            + c.acquire_ns;
        let start = self.held.earliest(t, lead + hold);
        Grant {
            lock: id,
            asked: t,
            start,
            end: start + lead + hold,
            waiters,
            lead,
        }
    }

    /// Book a planned grant.
    pub fn commit(&mut self, g: &Grant) {
        let s = self.held.reserve(g.start, g.end - g.start);
        debug_assert_eq!(s, g.start, "a planned grant is still free");
        let st = &mut self.stats;
        st.acquisitions += 1;
        st.hold_ns += g.end - g.start - g.lead;
        if g.waiters == 0 {
            st.uncontended_wait_ns = g.lead;
        } else {
            st.wait.saturating_record(g.start - g.asked + g.lead);
            st.contended += 1;
            st.max_waiters = st.max_waiters.max(g.waiters);
            let at = self.waits.partition_point(|&(_, s)| s <= g.start);
            self.waits.insert(at, (g.asked, g.start));
        }
    }

    /// Hold intervals are disjoint (never two holders).
    pub fn check(&self) -> bool {
        self.held.check()
    }

    pub fn reset_counters(&mut self) {
        self.stats = LockStats::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const C: HandoffCost = HandoffCost {
        acquire_ns: 4,
        xfer_ns: 10,
        growth: 0.5,
        random: false,
    };

    fn take(l: &mut Lock, t: u64, hold: u64) -> Grant {
        let g = l.plan(0, SimTime(t), hold, &C, &mut crate::engine::rng_for(1, 2));
        l.commit(&g);
        g
    }

    #[test]
    fn contended_acquisitions_wait_and_pay_a_growing_handoff() {
        let mut l = Lock::default();
        let a = take(&mut l, 0, 100);
        assert_eq!((a.start, a.end, a.waiters), (SimTime(0), SimTime(104), 0));
        let b = take(&mut l, 10, 100);
        assert_eq!((b.start, b.waiters, b.lead), (SimTime(104), 1, 14));
        let c = take(&mut l, 20, 100);
        // Two waiters: 10 x (1 + 0.5) + 4.
        assert_eq!((c.start, c.waiters, c.lead), (b.end, 2, 19));
        assert_eq!(l.stats.contended, 2);
        assert!(l.check());
        assert_eq!(l.stats.hold_ns, 300);
    }

    proptest::proptest! {
        #[test]
        fn never_two_holders(asks in proptest::collection::vec((0u64..2000, 1u64..80), 1..150)) {
            let mut l = Lock::default();
            let mut held = Vec::new();
            for (t, h) in asks {
                let g = take(&mut l, t, h);
                proptest::prop_assert!(g.start >= g.asked);
                held.push((g.start.0, g.end.0));
            }
            held.sort();
            for w in held.windows(2) {
                proptest::prop_assert!(w[0].1 <= w[1].0, "two holders: {:?}", w);
            }
        }

        /// FIFO hand-off with acquisitions asked in time order: each is granted exactly
        /// once, in the order asked, and released (its hold ends) before the next starts.
        #[test]
        fn fifo_grants_in_ask_order(mut asks in proptest::collection::vec((0u64..2000, 1u64..80), 1..150)) {
            asks.sort_by_key(|a| a.0);
            let mut l = Lock::default();
            let mut prev: Option<Grant> = None;
            for &(t, h) in &asks {
                let g = take(&mut l, t, h);
                proptest::prop_assert_eq!(g.end - g.start - g.lead, h, "held once, for its hold");
                if let Some(p) = prev {
                    proptest::prop_assert!(g.start >= p.end, "granted before the earlier asker released");
                }
                prev = Some(g);
            }
            proptest::prop_assert_eq!(l.stats.acquisitions, asks.len() as u64);
        }
    }
}
