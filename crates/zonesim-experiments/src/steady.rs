//! Measured steady-state stop for the long random-write experiments (docs/experiments.md
//! "Steady-state stop"). A fixed overwrite volume (the fio run of ZMS over a 1 GiB file:
//! "Random Write Performance & Write Amplification", whose run length the talk does not state)
//! exists only to reach steady state; this room replaces it with a measured stop: the run proceeds
//! in equal windows and stops once the windowed metrics (for `zms-randwrite`: FS WAF, device WAF,
//! throughput) have stopped moving; the figures reported are the sums over the converged windows.
//!
//! The rule ([`SteadyRule::fired`]): after at least [`SteadyRule::min`] windows, the mean of
//! every metric over the last [`SteadyRule::span`] windows differs from its mean over the
//! `span` windows before by at most [`SteadyRule::tol`]. Comparing blocks, not single windows,
//! lets a metric that alternates between windows (a GC cycle longer than one window) converge,
//! and bounds a slow drift (a series rising `tol / span` per window already fails). A run that
//! never converges stops at [`SteadyRule::max`] windows and says so. Which windows count is the
//! caller's: a run whose state waits on a timer (F2FS's background GC thread sleeping) starts
//! the series after it fired.

/// The stop rule over a series of per-window metric vectors.
#[derive(Debug, Clone, Copy)]
pub struct SteadyRule {
    /// Windows per block (the reported ones are the last block).
    pub span: usize,
    /// Largest relative change of every metric's mean between the last two blocks.
    pub tol: f64,
    /// Fewest windows before the rule may fire (at least two blocks).
    pub min: usize,
    /// Most windows (the run stops there, converged or not).
    pub max: usize,
}

impl SteadyRule {
    /// Whether `series` (one metric vector per window, oldest first) has converged.
    pub fn fired<const N: usize>(&self, series: &[[f64; N]]) -> bool {
        let n = series.len();
        if self.span == 0 || n < self.min.max(2 * self.span) {
            return false;
        }
        let (prev, last) = series[n - 2 * self.span..].split_at(self.span);
        (0..N).all(|m| close(mean(prev, m), mean(last, m), self.tol))
    }

    /// Whether the run is over after `series`: converged or at the maximum.
    pub fn done<const N: usize>(&self, series: &[[f64; N]]) -> bool {
        series.len() >= self.max || self.fired(series)
    }
}

fn mean<const N: usize>(ws: &[[f64; N]], m: usize) -> f64 {
    ws.iter().map(|w| w[m]).sum::<f64>() / ws.len() as f64
}

/// |b − a| ≤ `tol` × |a|, both finite.
fn close(a: f64, b: f64, tol: f64) -> bool {
    a.is_finite() && b.is_finite() && (b - a).abs() <= tol * a.abs()
}

#[cfg(test)]
mod tests {
    use super::*;

    const RULE: SteadyRule = SteadyRule {
        span: 4,
        tol: 0.02,
        min: 8,
        max: 64,
    };

    #[test]
    fn fires_on_a_converged_series() {
        // A warm-up, then a metric alternating ±15 % around a level (a GC cycle of two
        // windows) and another with ±0.5 % noise.
        let level = |i: usize| if i.is_multiple_of(2) { 1.15 } else { 0.85 };
        let s: Vec<[f64; 2]> = (0..16)
            .map(|i| {
                let warm = if i < 4 { 0.5 } else { 1.0 };
                [warm * level(i), 3.0 + 0.015 * (i % 3) as f64]
            })
            .collect();
        assert!(!RULE.fired(&s[..8]), "the warm-up is not steady");
        assert!(
            RULE.fired(&s[..12]),
            "two blocks with the same means are steady"
        );
        assert!(RULE.done(&s));
    }

    #[test]
    fn does_not_fire_on_a_rising_series() {
        // +1 % per window: each step is under the tolerance, the drift over a block is not.
        let s: Vec<[f64; 1]> = (0..40).map(|i| [1.01f64.powi(i)]).collect();
        assert!(!RULE.fired(&s));
        assert!(!RULE.done(&s[..39]));
        // One metric flat and one rising is not steady either.
        let two: Vec<[f64; 2]> = s.iter().map(|w| [1.0, w[0]]).collect();
        assert!(!RULE.fired(&two));
    }

    #[test]
    fn stops_at_the_maximum_and_before_the_minimum_never() {
        assert!(!RULE.fired(&[[1.0]; 7]), "fewer windows than the minimum");
        assert!(RULE.fired(&[[1.0]; 8]));
        let rising: Vec<[f64; 1]> = (0..64).map(|i| [i as f64 + 1.0]).collect();
        assert!(RULE.done(&rising) && !RULE.fired(&rising));
        assert!(!RULE.fired(&[[f64::NAN]; 8]));
    }
}
