//! The progress line of `zonesim run` on a terminal, as fio's status line
//! (`[45.0%][w=130MiB/s][eta 00m:12s]`): the phase, the percentage of its known total, the
//! simulated IOPS and bandwidth since the last redraw, and the ETA from the wall rate; a
//! spinner with the request count when the total is unknown. The run hands a snapshot
//! ([`zonesim::Tick`]) every `TICK_COMPLETIONS` completions; the line is redrawn at most every
//! [`REDRAW`] and only on a terminal, so a pipe or a test sees nothing and the run pays one
//! clock read per snapshot.

use indicatif::{ProgressBar, ProgressStyle};
use std::time::{Duration, Instant};
use zonesim::Tick;

/// Shortest wall time between two redraws.
pub const REDRAW: Duration = Duration::from_millis(100);

/// Nothing is shown for runs shorter than this.
const QUIET_START: Duration = Duration::from_secs(1);

/// The ETA of a phase `fraction` done after `elapsed` wall time, at the same rate; None before
/// anything is done or once it is (then nothing is left to estimate).
pub fn eta(fraction: f64, elapsed: Duration) -> Option<Duration> {
    if fraction.is_nan() || fraction <= 0.0 || fraction >= 1.0 {
        return None;
    }
    Some(elapsed.mul_f64((1.0 - fraction) / fraction))
}

/// `MMm:SSs`, or `HHh:MMm:SSs` from an hour (fio's ETA form).
pub fn clock(d: Duration) -> String {
    let s = d.as_secs();
    if s >= 3600 {
        format!("{}h:{:02}m:{:02}s", s / 3600, s / 60 % 60, s % 60)
    } else {
        format!("{:02}m:{:02}s", s / 60, s % 60)
    }
}

/// The simulated rates between two snapshots: (IOPS, MiB/s); zero when no simulated time
/// passed.
pub fn rates(prev: &Tick, now: &Tick) -> (f64, f64) {
    let dt = now.simulated_ns.saturating_sub(prev.simulated_ns) as f64 / 1e9;
    if dt <= 0.0 {
        return (0.0, 0.0);
    }
    let ios = now.completed.saturating_sub(prev.completed) as f64;
    let mib = now.bytes.saturating_sub(prev.bytes) as f64 / (1u64 << 20) as f64;
    (ios / dt, mib / dt)
}

/// The text of the line after the bar: phase, percentage, rates and ETA (fio's bracketed
/// fields); `elapsed` is the wall time of the phase so far.
pub fn line(t: &Tick, iops: f64, mib_s: f64, elapsed: Duration) -> String {
    let rate = format!("[{iops:.0} IOPS][{mib_s:.1} MiB/s]");
    match t.fraction {
        Some(f) => {
            let eta = eta(f, elapsed).map_or_else(|| "--m:--s".to_string(), clock);
            format!("{}: [{:.1}%]{rate}[eta {eta}]", t.phase, f * 100.0)
        }
        None => format!("{}: {} requests {rate}", t.phase, t.completed),
    }
}

/// The progress display of one run: created on the first snapshot after [`QUIET_START`],
/// redrawn at most every [`REDRAW`].
pub struct Display {
    enabled: bool,
    started: Instant,
    bar: Option<ProgressBar>,
    /// The current phase's start (wall) and the snapshot of the last redraw.
    phase_start: Instant,
    last: Option<(Instant, Tick)>,
}

impl Display {
    /// `enabled`: stderr is a terminal (or forced).
    pub fn new(enabled: bool) -> Display {
        let now = Instant::now();
        Display {
            enabled,
            started: now,
            bar: None,
            phase_start: now,
            last: None,
        }
    }

    /// A snapshot of the run.
    pub fn tick(&mut self, t: &Tick) {
        if !self.enabled {
            return;
        }
        let now = Instant::now();
        let prev = match self.last {
            Some((_, p)) if p.phase != t.phase => {
                // A new phase: its ETA and rates start afresh.
                self.phase_start = now;
                self.last = Some((now, *t));
                return;
            }
            Some((at, _)) if now.duration_since(at) < REDRAW => return,
            Some((_, p)) => p,
            None => {
                self.last = Some((now, *t));
                return;
            }
        };
        self.last = Some((now, *t));
        if now.duration_since(self.started) < QUIET_START {
            return;
        }
        let (iops, mib_s) = rates(&prev, t);
        let msg = line(t, iops, mib_s, now.duration_since(self.phase_start));
        let known = t.fraction.is_some();
        let bar = self.bar.get_or_insert_with(|| {
            let b = if known {
                ProgressBar::new(1000)
            } else {
                ProgressBar::new_spinner()
            };
            b.set_style(style(known));
            b
        });
        if known != bar.length().is_some() {
            *bar = if known {
                ProgressBar::new(1000)
            } else {
                ProgressBar::new_spinner()
            };
            bar.set_style(style(known));
        }
        if let Some(f) = t.fraction {
            bar.set_position((f * 1000.0) as u64);
        } else {
            bar.tick();
        }
        bar.set_message(msg);
    }

    /// Remove the line (the run is over).
    pub fn finish(self) {
        if let Some(b) = self.bar {
            b.finish_and_clear();
        }
    }
}

fn style(known: bool) -> ProgressStyle {
    let template = if known {
        "{elapsed} [{bar:30}] {msg}"
    } else {
        "{spinner} {elapsed} {msg}"
    };
    ProgressStyle::with_template(template)
        .expect("valid template")
        .progress_chars("=> ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tick(completed: u64, bytes: u64, ms: u64, fraction: Option<f64>) -> Tick {
        Tick {
            phase: "running",
            completed,
            bytes,
            simulated_ns: ms * 1_000_000,
            fraction,
        }
    }

    #[test]
    fn eta_follows_the_wall_rate() {
        // 25 % in 10 s: 30 s left.
        assert_eq!(
            eta(0.25, Duration::from_secs(10)),
            Some(Duration::from_secs(30))
        );
        assert_eq!(
            eta(0.5, Duration::from_secs(7)),
            Some(Duration::from_secs(7))
        );
        assert_eq!(eta(0.0, Duration::from_secs(7)), None);
        assert_eq!(eta(1.0, Duration::from_secs(7)), None);
        assert_eq!(eta(f64::NAN, Duration::from_secs(7)), None);
    }

    #[test]
    fn clock_is_fio_s() {
        assert_eq!(clock(Duration::from_secs(12)), "00m:12s");
        assert_eq!(clock(Duration::from_secs(754)), "12m:34s");
        assert_eq!(clock(Duration::from_secs(3 * 3600 + 61)), "3h:01m:01s");
    }

    #[test]
    fn rates_are_per_simulated_second() {
        let a = tick(1000, 4096 * 1000, 100, None);
        let b = tick(3000, 4096 * 3000, 200, None);
        let (iops, mib) = rates(&a, &b);
        assert!((iops - 20_000.0).abs() < 1e-6);
        assert!((mib - 20_000.0 * 4096.0 / 1048576.0).abs() < 1e-9);
        assert_eq!(rates(&b, &b), (0.0, 0.0));
    }

    #[test]
    fn the_line_has_percentage_rates_and_eta() {
        let t = tick(5000, 0, 10, Some(0.45));
        assert_eq!(
            line(&t, 130_000.0, 507.8, Duration::from_secs(9)),
            "running: [45.0%][130000 IOPS][507.8 MiB/s][eta 00m:11s]"
        );
        let t = tick(5000, 0, 10, None);
        assert_eq!(
            line(&t, 1.0, 0.0, Duration::from_secs(9)),
            "running: 5000 requests [1 IOPS][0.0 MiB/s]"
        );
    }
}
