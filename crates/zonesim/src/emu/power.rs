//! Power cuts of an emulated device (docs/power.md, "Crash testing"): the fio engine's
//! `zs_power_off_at_request` / `zs_power_off_at_us`, `zonesim mount --power-off-at-request` /
//! `--power-off-at-us`, and [`super::Handle::power_off`] from code.
//!
//! A cut is the device's own power cycle (`Device::power_cycle`, docs/power.md "What is lost"
//! and "Recovery"): the model decides what is lost — without `power.plp`, the write buffer's
//! data and the programs in flight with their paired pages — and rebuilds the map on power-on
//! with its reads booked on the array. This room adds what real software needs on top of it:
//! the data store is brought to the state the model reached (a lost page reads as never
//! written: zeros, as a device that rebuilt its map without it returns), a `sparse:PATH`
//! store's log records the cut so `--resume` replays it, the clock moves to the end of the
//! recovery, and requests in flight at the cut fail (their completion never came). The device
//! then goes on; what a front end does with the host's view of it is its choice (the FUSE disk
//! fails every later request until unmount, as a crashed host would never send them).

use crate::device::PowerCycle;
use crate::engine::SimTime;
use crate::sim::PowerOff;

/// The power-cut state of a handle whose device tracks power cuts.
#[derive(Debug, Default)]
pub struct PowerCuts {
    /// The cut still to come (`None`: only [`super::Handle::power_off`] cuts).
    armed: Option<PowerOff>,
    /// Every cut so far, in order.
    pub cycles: Vec<PowerCycle>,
}

impl PowerCuts {
    pub fn new(armed: Option<PowerOff>) -> PowerCuts {
        PowerCuts {
            armed,
            cycles: Vec::new(),
        }
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

    /// Whether an armed `AtRequest(n)` cut is due now that `issued` requests were issued; it is
    /// disarmed.
    pub fn due_by_count(&mut self, issued: u64) -> bool {
        let due = self.armed == Some(PowerOff::AtRequest(issued));
        if due {
            self.armed = None;
        }
        due
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
