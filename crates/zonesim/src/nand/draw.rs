//! Counter-based random draws per die for the NAND mechanisms that need chance (latency
//! variability, bit errors): the k-th draw of die d is `mix64(key ^ mix64(d) ^ k)` with the
//! key derived from the run's seed and the mechanism, so a draw depends only on the seed and
//! on how many operations the die has taken (the order the firmware books them in, which is
//! deterministic), never on a generator shared across dies or namespaces. No allocation
//! after construction (one counter per die).

use crate::engine::mix64;

/// The draw streams of one mechanism, one counter per die.
#[derive(Clone)]
pub(super) struct DieDraws {
    key: u64,
    next: Vec<u64>,
}

impl DieDraws {
    /// Streams for `dies` dies keyed by the run's `seed` and the mechanism's `salt`.
    pub fn new(seed: u64, salt: u64, dies: u32) -> DieDraws {
        DieDraws {
            key: mix64(seed ^ mix64(salt)),
            next: vec![0; dies as usize],
        }
    }

    /// The next 64 random bits of die `die`.
    #[inline]
    pub fn bits(&mut self, die: u32) -> u64 {
        let k = &mut self.next[die as usize];
        *k += 1;
        mix64(self.key ^ mix64(die as u64 + 1) ^ *k)
    }

    /// A uniform draw in [0, 1) of die `die` (53 random bits).
    #[inline]
    pub fn unit(&mut self, die: u32) -> f64 {
        (self.bits(die) >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// A standard normal draw of die `die`, approximated by the sum of four uniforms
    /// (Irwin-Hall, mean 0, variance 1, bounded at ±2√3): one mix per draw, no
    /// transcendental function.
    #[inline]
    pub fn normal(&mut self, die: u32) -> f64 {
        let b = self.bits(die);
        let s = (b & 0xffff) + ((b >> 16) & 0xffff) + ((b >> 32) & 0xffff) + (b >> 48);
        (s as f64 / 65536.0 - 2.0) * 3f64.sqrt()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normal_has_mean_zero_and_unit_variance() {
        let mut d = DieDraws::new(1, 2, 3);
        let n = 200_000;
        let xs: Vec<f64> = (0..n).map(|i| d.normal(i % 3)).collect();
        let mean = xs.iter().sum::<f64>() / n as f64;
        let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n as f64;
        assert!(mean.abs() < 0.01, "{mean}");
        assert!((var - 1.0).abs() < 0.02, "{var}");
        assert!(xs.iter().all(|x| x.abs() <= 2.0 * 3f64.sqrt() + 1e-9));
    }

    #[test]
    fn a_die_stream_does_not_depend_on_other_dies() {
        let mut a = DieDraws::new(7, 1, 2);
        let mut b = DieDraws::new(7, 1, 2);
        let x: Vec<u64> = (0..10).map(|_| a.bits(0)).collect();
        let y: Vec<u64> = (0..10)
            .map(|_| {
                b.bits(1);
                b.bits(0)
            })
            .collect();
        assert_eq!(x, y);
    }
}
