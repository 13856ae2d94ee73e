//! Pacing of an emulated device against the wall clock (`--pace virtual|realtime`).
//!
//! `virtual` (the default) answers as fast as the host asks: simulated time advances with the
//! completions, independent of the wall clock. `realtime` maps simulated time onto wall time
//! from the first request on: a request arrives at the simulated time of its wall-clock arrival
//! (so the host's own think time reaches the model, as in NVMeVirt's and FEMU's real-time
//! emulation) and completes no earlier, in wall time, than its simulated completion. The
//! pacing error is how late a completion is delivered past that target (host scheduling,
//! sleep granularity, a simulator slower than the device); its p50/p99/max are in the report.

use crate::engine::SimTime;
use crate::error::{Error, Result};
use crate::stats::emulation::{PacingError, PacingReport};
use hdrhistogram::Histogram;
use std::time::{Duration, Instant};

/// `--pace` / `zs_pace`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pace {
    Virtual,
    Realtime,
}

impl Pace {
    pub fn name(self) -> &'static str {
        match self {
            Pace::Virtual => "virtual",
            Pace::Realtime => "realtime",
        }
    }

    pub fn parse(key: &str, s: &str) -> Result<Pace> {
        match s {
            "virtual" => Ok(Pace::Virtual),
            "realtime" => Ok(Pace::Realtime),
            _ => Err(Error::config(
                key,
                format!("`{s}`: expected virtual or realtime"),
            )),
        }
    }
}

/// Below this much time to wait, spin rather than sleep (a sleep overshoots by tens of µs).
const SPIN_NS: u64 = 100_000;

/// The wall-clock side of an emulated device.
pub struct Pacer {
    pub mode: Pace,
    /// Wall instant and simulated time that correspond (set at the first request).
    origin: Option<(Instant, SimTime)>,
    /// Lateness of delivered completions, ns (realtime only).
    errors: Histogram<u64>,
}

impl Pacer {
    pub fn new(mode: Pace) -> Pacer {
        Pacer {
            mode,
            origin: None,
            errors: Histogram::new_with_bounds(1, 1_000_000_000_000, 3).expect("valid bounds"),
        }
    }

    /// The arrival time of a request the host issues now, given the device's clock: the clock
    /// itself (`virtual`), or the simulated time of this wall instant (`realtime`).
    pub fn arrival(&mut self, clock: SimTime) -> SimTime {
        match self.mode {
            Pace::Virtual => clock,
            Pace::Realtime => {
                let (wall0, sim0) = *self.origin.get_or_insert((Instant::now(), clock));
                let elapsed = wall0.elapsed().as_nanos() as u64;
                clock.max(sim0 + elapsed)
            }
        }
    }

    /// Waits until the wall-clock time of simulated time `done` (`realtime`; returns at once
    /// with `virtual`) and records how late it returns.
    pub fn wait(&mut self, done: SimTime) {
        if self.mode == Pace::Virtual {
            return;
        }
        let (wall0, sim0) = *self.origin.get_or_insert((Instant::now(), done));
        let target = wall0 + Duration::from_nanos(done.since(sim0));
        loop {
            let now = Instant::now();
            if now >= target {
                let late = now.duration_since(target).as_nanos() as u64;
                self.errors.saturating_record(late.max(1));
                return;
            }
            let left = (target - now).as_nanos() as u64;
            if left > SPIN_NS {
                std::thread::sleep(Duration::from_nanos(left - SPIN_NS));
            } else {
                std::hint::spin_loop();
            }
        }
    }

    pub fn report(&self) -> PacingReport {
        let us = |q: f64| self.errors.value_at_quantile(q) as f64 / 1000.0;
        let paced = self.errors.len();
        PacingReport {
            mode: self.mode.name(),
            paced,
            error_us: if paced == 0 {
                PacingError::default()
            } else {
                PacingError {
                    p50: us(0.5),
                    p99: us(0.99),
                    max: self.errors.max() as f64 / 1000.0,
                }
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn virtual_never_waits_and_follows_the_clock() {
        let mut p = Pacer::new(Pace::Virtual);
        assert_eq!(p.arrival(SimTime(500)), SimTime(500));
        let t = Instant::now();
        p.wait(SimTime(10_000_000_000));
        assert!(t.elapsed() < Duration::from_millis(100));
        assert_eq!(p.report().paced, 0);
    }

    #[test]
    fn realtime_completes_no_earlier_than_simulated() {
        let mut p = Pacer::new(Pace::Realtime);
        let start = Instant::now();
        let t0 = p.arrival(SimTime(1_000));
        assert!(t0 >= SimTime(1_000) && t0 < SimTime(1_000_000), "{t0:?}");
        p.wait(t0 + 3_000_000); // 3 ms of simulated time
        assert!(start.elapsed() >= Duration::from_millis(3));
        // A later request arrives at the simulated time of its wall arrival.
        assert!(p.arrival(SimTime(0)) >= t0 + 3_000_000);
        let r = p.report();
        assert_eq!(r.paced, 1);
        assert!(r.error_us.max >= r.error_us.p50);
        assert!(Pace::parse("--pace", "fast").is_err());
    }
}
