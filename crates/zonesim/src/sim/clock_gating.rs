//! Clock gating on the dispatch path (`power.clock_gating`, docs/power.md): what a request
//! meets when it is dispatched to the device while the UFS host controller's clocks are gated
//! or coming back.
//!
//! The UFS host driver gates the clocks once no request has been in the device for its gating
//! delay (Linux, drivers/ufs/core/ufshcd.c: `__ufshcd_release` schedules the gate work after
//! `clk_gating.delay_ms`, 150 ms by default in `ufshcd_init_clk_gating`; Qualcomm's platforms
//! use 50 ms at the maximum clock, the document Zoned UFS cites as [40]). The idle timer, the
//! time in each state and the wake-up latency are the power-state model's (`sim/power.rs`,
//! `power.clock_gate_after_us`, `power.ungate_us`): when the first request after an idle gap
//! finds the clocks gated (or the link in hibern8) it starts the ungate, which ends at
//! `awake_at`. This room decides what each request dispatched before then does:
//!
//! - `requeue`: the driver's `ufshcd_hold` fails with `-EAGAIN` while the clocks are off or
//!   ungating, `ufshcd_queuecommand` returns `SCSI_MLQUEUE_HOST_BUSY` and the block layer
//!   requeues the request. It is dispatched again `host.requeue_delay_us` after the clocks are
//!   back (the rerun of the queue); what is dispatched once the clocks are on goes at once and
//!   overtakes it — "when the clock is gated, incoming requests are requeued until the clock is
//!   restored, potentially altering their dispatch order" (Zoned UFS §3.3, §4.3).
//! - `wait`: synchronous ungating (Zoned UFS §4.3, its reference [8]: "the driver waits until
//!   the clocks are fully restored before dispatching requests to the device"): every request
//!   dispatched before `awake_at` reaches the device then, in dispatch order; one dispatched
//!   while some are still held (at `awake_at` itself) queues behind them.
//!
//! Off (`power.clock_gating = "off"`) the run holds no `ClockGating`: one `Option` test where a
//! request leaves the host and one where an idle gap ends.

use crate::config::{ClockGating as Mode, DeviceConfig};
use crate::engine::SimTime;

/// The clocks' state seen from the dispatch path, and the requests it held back.
#[derive(Debug, Clone)]
pub(super) struct ClockGating {
    /// Requeue (true) or wait (false) while the clocks come back.
    requeue: bool,
    /// The block layer's rerun after the clocks are back (requeue only).
    requeue_delay_ns: u64,
    /// When the clocks are on again after the last wake-up (in the past: they are on).
    awake_at: SimTime,
    /// Requests requeued (`requeue`) or held (`wait`) because the clocks were not on.
    pub held: u64,
    /// Held requests not yet dispatched again (`wait`: later ones queue behind them).
    waiting: u64,
}

impl ClockGating {
    /// The mechanism of `cfg`, None when `power.clock_gating` is off.
    pub fn new(cfg: &DeviceConfig) -> Option<ClockGating> {
        let requeue = match cfg.power.clock_gating {
            Mode::Off => return None,
            Mode::Requeue => true,
            Mode::Wait => false,
        };
        Some(ClockGating {
            requeue,
            requeue_delay_ns: SimTime::from_us(cfg.host.requeue_delay_us).ns(),
            awake_at: SimTime::ZERO,
            held: 0,
            waiting: 0,
        })
    }

    /// Whether held requests are requeued (else they wait).
    pub fn requeues(&self) -> bool {
        self.requeue
    }

    /// A request ended an idle gap; the clocks are on at `awake` (the ungate or hibern8 exit
    /// it started ends then; `awake` is the request's own time if they were on).
    #[inline]
    pub fn woken(&mut self, awake: SimTime) {
        self.awake_at = self.awake_at.max(awake);
    }

    /// A request is dispatched to the device at `now`: None if the clocks are on (it goes
    /// now), else when it reaches the device.
    #[inline]
    pub fn dispatch(&mut self, now: SimTime) -> Option<SimTime> {
        if now >= self.awake_at && (self.requeue || self.waiting == 0) {
            return None;
        }
        self.held += 1;
        if self.requeue {
            return Some(self.awake_at + self.requeue_delay_ns);
        }
        self.waiting += 1;
        Some(self.awake_at.max(now))
    }

    /// A request this held is dispatched again now (it passes without a second check).
    #[inline]
    pub fn released(&mut self) {
        self.waiting = self.waiting.saturating_sub(u64::from(!self.requeue));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ClockGating as Mode;
    use proptest::prelude::*;

    fn gating(mode: Mode, delay_us: f64) -> ClockGating {
        let mut cfg = preset();
        cfg.power.clock_gating = mode;
        cfg.host.requeue_delay_us = delay_us;
        ClockGating::new(&cfg).expect("on")
    }

    fn preset() -> DeviceConfig {
        crate::load_device("ufs-conventional", &[]).expect("preset")
    }

    #[test]
    fn off_holds_nothing() {
        assert!(ClockGating::new(&preset()).is_none());
    }

    #[test]
    fn requeued_until_the_clocks_and_the_rerun() {
        let us = SimTime::from_us;
        let mut g = gating(Mode::Requeue, 50.0);
        assert_eq!(g.dispatch(us(5.0)), None, "never woken: the clocks are on");
        g.woken(us(120.0)); // an ungate from 100 µs to 120 µs
        assert_eq!(g.dispatch(us(100.0)), Some(us(170.0)));
        assert_eq!(g.dispatch(us(119.0)), Some(us(170.0)));
        assert_eq!(
            g.dispatch(us(120.0)),
            None,
            "the clocks are on: it overtakes"
        );
        assert_eq!(g.dispatch(us(170.0)), None);
        assert_eq!(g.held, 2);
    }

    #[test]
    fn waiting_requests_go_when_the_clocks_are_on() {
        let us = SimTime::from_us;
        let mut g = gating(Mode::Wait, 50.0);
        g.woken(us(120.0));
        assert_eq!(g.dispatch(us(100.0)), Some(us(120.0)));
        assert_eq!(g.dispatch(us(110.0)), Some(us(120.0)));
        // At 120 µs, before the two held ones went: behind them.
        assert_eq!(g.dispatch(us(120.0)), Some(us(120.0)));
        for _ in 0..3 {
            g.released();
        }
        assert_eq!(g.dispatch(us(121.0)), None);
        assert_eq!(g.held, 3);
    }

    proptest! {
        /// Dispatches in time order, the held ones released when they reach the device: none
        /// reaches it before the clocks are on (a requeued one not before the rerun), none
        /// dispatched once they are on and nothing is held is held, and with `wait` the
        /// requests reach the device in dispatch order.
        #[test]
        fn never_before_the_clocks(
            awake in 0u64..1_000_000,
            delay in 0u64..100_000,
            mut times in proptest::collection::vec(0u64..2_000_000, 1..50),
            requeue in any::<bool>(),
        ) {
            times.sort_unstable();
            let mode = if requeue { Mode::Requeue } else { Mode::Wait };
            let mut g = gating(mode, delay as f64 / 1e3);
            g.woken(SimTime(awake));
            let (mut held, mut pending, mut last) = (0, Vec::new(), 0);
            for t in times {
                // The engine dispatches the held ones again at their time, before `t`.
                pending.retain(|&at: &u64| {
                    let gone = at <= t;
                    if gone {
                        g.released();
                    }
                    !gone
                });
                match g.dispatch(SimTime(t)) {
                    None => {
                        prop_assert!(t >= awake);
                        last = last.max(t);
                    }
                    Some(at) => {
                        held += 1;
                        let extra = if requeue { g.requeue_delay_ns } else { 0 };
                        prop_assert_eq!(at, SimTime(awake + extra).max(SimTime(t)));
                        if !requeue {
                            prop_assert!(at.0 >= last, "a held request overtaken");
                        }
                        pending.push(at.0);
                    }
                }
            }
            prop_assert_eq!(g.held, held);
        }
    }
}
