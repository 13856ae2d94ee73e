//! Power cuts of an emulated device (docs/power.md, "Cutting power under real software"): the
//! fio engine's `zs_power_off_at_request` / `zs_power_off_at_us` and its seeded random cuts
//! `zs_power_cuts` ([`RandomCuts`]), `zonesim mount --power-off-at-request` /
//! `--power-off-at-us` / `--power-cuts`, and [`super::Handle::power_off`] from code.
//!
//! A cut is the device's own power cycle (`Device::power_cycle`, docs/power.md "What is lost"
//! and "Recovery"): the model decides what is lost — without `power.plp`, the write buffer's
//! data and the programs in flight with their paired pages — and rebuilds the map on power-on
//! with its reads booked on the array. This room adds what real software needs on top of it:
//! the data store is brought to the state the model reached (a lost page reads as never
//! written: zeros, as a device that rebuilt its map without it returns), a `sparse:PATH`
//! store's log records the cut so `--resume` replays it, the clock moves to the end of the
//! recovery, and requests in flight at the cut fail (their completion never came). The device
//! then goes on, as a real device that lost power and came back: later requests are served.
//! What a front end does with the host's view of it is its choice (the FUSE disk serves them;
//! with `--halt-after-cut` it fails every later request until unmount, as a crashed host would
//! never send them).

use crate::device::PowerCycle;
use crate::engine::SimTime;
use crate::engine::{mix64, Perm};
use crate::error::{Error, Result};
use crate::sim::PowerOff;

/// Most cuts one [`RandomCuts`] plan may hold.
pub const MAX_RANDOM_CUTS: u64 = 100_000;

/// Seeded random power cuts over a run: `cuts` distinct request counts drawn uniformly from
/// `1..=within` (the fio engine's `zs_power_cuts=N` over `zs_power_cuts_within=R` requests),
/// from the run's seed, so the same options and seed cut at the same requests. Each cut is the
/// device's power cycle followed by its recovery; the requests go on after it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RandomCuts {
    /// How many cuts, 1 to [`MAX_RANDOM_CUTS`] and at most `within`.
    pub cuts: u64,
    /// The cuts fall on the first `within` requests (at least 1).
    pub within: u64,
}

impl RandomCuts {
    /// Checks the ranges (`what` names the options in the message).
    pub fn new(cuts: u64, within: u64, what: &str) -> Result<RandomCuts> {
        if !(1..=MAX_RANDOM_CUTS).contains(&cuts) || within < cuts {
            return Err(Error::Usage(format!(
                "{what}: {cuts} cuts within {within} requests: expected 1 to {MAX_RANDOM_CUTS} cuts, and at least as many requests as cuts"
            )));
        }
        Ok(RandomCuts { cuts, within })
    }

    /// The request counts at which power fails, ascending: the images of `0..cuts` under a
    /// keyed bijection of `0..within` (so distinct, each count equally likely), plus one.
    pub fn requests(&self, seed: u64) -> Vec<u64> {
        // A key of its own: the device's draws from the same seed stay independent of it.
        let perm = Perm::new(self.within, mix64(seed ^ 0x706f_7765_725f_6375));
        let mut at: Vec<u64> = (0..self.cuts).map(|i| perm.apply(i) + 1).collect();
        at.sort_unstable();
        at
    }
}

/// The power-cut state of a handle whose device tracks power cuts.
#[derive(Debug, Default)]
pub struct PowerCuts {
    /// The cut still to come (`None`: only [`super::Handle::power_off`] cuts).
    armed: Option<PowerOff>,
    /// Random cuts still to come, by request count, the next last.
    planned: Vec<u64>,
    /// Every cut so far, in order.
    pub cycles: Vec<PowerCycle>,
}

impl PowerCuts {
    pub fn new(armed: Option<PowerOff>) -> PowerCuts {
        PowerCuts {
            armed,
            planned: Vec::new(),
            cycles: Vec::new(),
        }
    }

    /// Adds the cuts of a random plan drawn from `seed`.
    pub fn plan(&mut self, random: RandomCuts, seed: u64) {
        self.planned = random.requests(seed);
        self.planned.reverse();
    }

    /// The time of an armed `AtUs` cut that a request arriving at `now` would pass (`start`:
    /// where the measured part began); it is disarmed.
    pub fn due_by_time(&mut self, start: SimTime, now: SimTime) -> Option<SimTime> {
        let Some(PowerOff::AtUs(us)) = self.armed else {
            return None;
        };
        let at = start + SimTime::from_us(us).ns();
        (now >= at).then(|| {
            self.armed = None;
            at
        })
    }

    /// Whether an armed `AtRequest(n)` cut or a planned random cut is due now that `issued`
    /// requests were issued; it is disarmed.
    pub fn due_by_count(&mut self, issued: u64) -> bool {
        let armed = self.armed == Some(PowerOff::AtRequest(issued));
        if armed {
            self.armed = None;
        }
        let planned = self.planned.last() == Some(&issued);
        if planned {
            self.planned.pop();
        }
        armed || planned
    }

    /// Whether a request issued at `issued`, completing at `done`, was in flight at a cut (its
    /// completion never reached the host).
    pub fn cut_in_flight(&self, issued: SimTime, done: SimTime) -> bool {
        self.cycles.iter().any(|c| issued <= c.cut && c.cut < done)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// A plan's cuts are distinct, in range, as many as asked, fire once each in order,
        /// and are a function of the seed.
        #[test]
        fn random_cuts_are_distinct_in_range_and_seeded(
            within in 1u64..5_000, frac in 0.0f64..1.0, seed in any::<u64>()
        ) {
            let cuts = ((within as f64 * frac) as u64).clamp(1, within);
            let r = RandomCuts::new(cuts, within, "t").unwrap();
            let at = r.requests(seed);
            prop_assert_eq!(at.len() as u64, cuts);
            prop_assert!(at.windows(2).all(|w| w[0] < w[1]));
            prop_assert!(at[0] >= 1 && *at.last().unwrap() <= within);
            prop_assert_eq!(&at, &r.requests(seed));
            let mut p = PowerCuts::new(None);
            p.plan(r, seed);
            let fired: Vec<u64> = (1..=within + 1).filter(|&n| p.due_by_count(n)).collect();
            prop_assert_eq!(fired, at);
        }
    }

    #[test]
    fn random_cuts_refuse_bad_ranges() {
        assert!(RandomCuts::new(0, 10, "t").is_err());
        assert!(RandomCuts::new(11, 10, "t").is_err());
        assert!(RandomCuts::new(MAX_RANDOM_CUTS + 1, u64::MAX, "t").is_err());
        let e = RandomCuts::new(5, 3, "zs_power_cuts")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("zs_power_cuts") && e.contains("5 cuts within 3"),
            "{e}"
        );
        // Different seeds draw different cuts (almost always; these two do).
        let r = RandomCuts::new(10, 100_000, "t").unwrap();
        assert_ne!(r.requests(1), r.requests(2));
    }

    #[test]
    fn triggers_fire_once() {
        let mut p = PowerCuts::new(Some(PowerOff::AtRequest(3)));
        assert!(!p.due_by_count(2));
        assert!(p.due_by_count(3));
        assert!(!p.due_by_count(3));
        let mut t = PowerCuts::new(Some(PowerOff::AtUs(10.0)));
        assert_eq!(t.due_by_time(SimTime(1000), SimTime(5000)), None);
        assert_eq!(
            t.due_by_time(SimTime(1000), SimTime(20_000)),
            Some(SimTime(11_000))
        );
        assert_eq!(t.due_by_time(SimTime(1000), SimTime(30_000)), None);
    }

    #[test]
    fn in_flight_means_issued_before_and_done_after_a_cut() {
        let mut p = PowerCuts::new(None);
        p.cycles.push(PowerCycle {
            cut: SimTime(100),
            ..PowerCycle::default()
        });
        assert!(p.cut_in_flight(SimTime(50), SimTime(150)));
        assert!(p.cut_in_flight(SimTime(100), SimTime(101)));
        assert!(!p.cut_in_flight(SimTime(50), SimTime(100)));
        assert!(!p.cut_in_flight(SimTime(120), SimTime(150)));
    }
}
