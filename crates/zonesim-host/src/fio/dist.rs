//! Samplers for `random_distribution` and the pseudo-random bijection used to spread hot ranks
//! and to cover a region once per pass. Nothing here allocates; each sampler is a few words of
//! precomputed constants (0 bytes per block).
//!
//! - **zipf:θ** — fio's `zipf_next` (Gray et al., "Quickly generating billion-record synthetic
//!   databases", SIGMOD '94): with ζ(n) = Σ_{i=1..n} i^-θ, a uniform u in [0,1) gives rank 0 if
//!   u·ζ(n) < 1, rank 1 if < 1 + 0.5^θ, else ⌊n·(η·u − η + 1)^α⌋ with α = 1/(1−θ) and
//!   η = (1 − (2/n)^(1−θ)) / (1 − ζ(2)/ζ(n)). ζ(n) is summed exactly for the first 10^6 terms
//!   and by Euler–Maclaurin beyond (fio sums all terms, capped at 10^7).
//! - **pareto:h** — fio's `pareto_next`: rank = ⌊(n−1)·u^(ln h / ln(1−h))⌋.
//! - **normal:σ** — Irwin–Hall: the sum of 12 uniforms minus 6 (as fio's `gauss.c` sums 12
//!   deviates), scaled by σ% of n and centred at n/2, clamped to [0, n). Pure integer/IEEE
//!   arithmetic, so bit-identical everywhere.
//! - Ranks of zipf and pareto go through [`Perm`], a keyed bijection of [0, n), so hot ranks are
//!   spread over the region without collisions (fio adds an offset to a hash of the rank modulo
//!   n, which is not a bijection).
//!
//! zipf and pareto call `powf` once per draw; their results depend on the platform's libm
//! being correctly rounded for `pow` (true of current glibc and musl for practical inputs).

use rand::RngCore;

use super::Distribution;

pub use zonesim_core::engine::{below, mix64, unit_f64, Perm, BATCH};

/// A sampler of an index in [0, n) for one distribution, all constants precomputed.
#[derive(Debug, Clone)]
pub enum Sampler {
    Uniform {
        n: u64,
    },
    Zipf {
        n: u64,
        nf: f64,
        zetan: f64,
        /// 1 + 0.5^θ
        two_cut: f64,
        alpha: f64,
        eta: f64,
        scramble: Perm,
    },
    Pareto {
        n: u64,
        pow: f64,
        scramble: Perm,
    },
    Normal {
        n: u64,
        centre: f64,
        sigma: f64,
    },
}

/// Σ_{i=1..n} i^-θ: exact up to 10^6 terms, Euler–Maclaurin tail beyond.
pub fn zeta(n: u64, theta: f64) -> f64 {
    const EXACT: u64 = 1_000_000;
    let k = n.min(EXACT);
    let mut s = 0.0;
    for i in 1..=k {
        s += (i as f64).powf(-theta);
    }
    if n > k {
        let (a, b) = (k as f64, n as f64);
        // Σ_{i=k+1..n} f(i) ≈ ∫_k^n f + (f(n) − f(k))/2 + (f'(n) − f'(k))/12, f(x) = x^-θ.
        let integral = if theta == 1.0 {
            (b / a).ln()
        } else {
            (b.powf(1.0 - theta) - a.powf(1.0 - theta)) / (1.0 - theta)
        };
        let f = |x: f64| x.powf(-theta);
        let df = |x: f64| -theta * x.powf(-theta - 1.0);
        s += integral + (f(b) - f(a)) / 2.0 + (df(b) - df(a)) / 12.0;
    }
    s
}

impl Sampler {
    /// A sampler over [0, n) (n ≥ 1). `key` fixes the scramble of zipf/pareto ranks.
    pub fn new(dist: Distribution, n: u64, key: u64) -> Sampler {
        debug_assert!(n >= 1);
        match dist {
            Distribution::Uniform => Sampler::Uniform { n },
            Distribution::Zipf(theta) => {
                let zetan = zeta(n, theta);
                let zeta2 = 1.0 + 0.5f64.powf(theta);
                let nf = n as f64;
                let eta = if n > 2 {
                    (1.0 - (2.0 / nf).powf(1.0 - theta)) / (1.0 - zeta2 / zetan)
                } else {
                    0.0 // unused: the first two ranks cover everything
                };
                Sampler::Zipf {
                    n,
                    nf,
                    zetan,
                    two_cut: zeta2,
                    alpha: 1.0 / (1.0 - theta),
                    eta,
                    scramble: Perm::new(n, key),
                }
            }
            Distribution::Pareto(h) => Sampler::Pareto {
                n,
                pow: h.ln() / (1.0 - h).ln(),
                scramble: Perm::new(n, key),
            },
            Distribution::Normal(pct) => Sampler::Normal {
                n,
                centre: n as f64 / 2.0,
                sigma: pct / 100.0 * n as f64,
            },
        }
    }

    /// The rank before scrambling (identity for uniform and normal); exposed for tests.
    #[inline]
    pub fn rank<R: RngCore>(&self, rng: &mut R) -> u64 {
        match self {
            Sampler::Uniform { n } => below(rng, *n),
            Sampler::Zipf {
                n,
                nf,
                zetan,
                two_cut,
                alpha,
                eta,
                ..
            } => {
                let u = unit_f64(rng);
                let z = u * zetan;
                if z < 1.0 {
                    0
                } else if z < *two_cut || *n <= 2 {
                    1.min(n - 1)
                } else {
                    let v = nf * (eta * u - eta + 1.0).powf(*alpha);
                    (v as u64).min(n - 1)
                }
            }
            Sampler::Pareto { n, pow, .. } => {
                let u = unit_f64(rng);
                (((n - 1) as f64 * u.powf(*pow)) as u64).min(n - 1)
            }
            Sampler::Normal { n, centre, sigma } => {
                let a = rng.next_u64();
                let mut s = (a >> 32) + (a & 0xffff_ffff);
                for _ in 0..5 {
                    let x = rng.next_u64();
                    s += (x >> 32) + (x & 0xffff_ffff);
                }
                let z = s as f64 * (1.0 / 4_294_967_296.0) - 6.0;
                let v = centre + z * sigma;
                if v <= 0.0 {
                    0
                } else {
                    (v as u64).min(n - 1)
                }
            }
        }
    }

    /// One index in [0, n).
    #[inline]
    pub fn sample<R: RngCore>(&self, rng: &mut R) -> u64 {
        let r = self.rank(rng);
        match self {
            Sampler::Zipf { scramble, .. } | Sampler::Pareto { scramble, .. } => scramble.apply(r),
            _ => r,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_xoshiro::Xoshiro256PlusPlus;

    proptest::proptest! {
        /// Any size and key: every image is in [0, n) and no two collide (the mixed-radix
        /// rounds are invertible and the cycle walk ends in range).
        #[test]
        fn perm_is_a_bijection_for_any_n(n in 1u64..20_000, key: u64) {
            let p = Perm::new(n, key);
            let mut seen = vec![false; n as usize];
            for x in 0..n {
                let y = p.apply(x);
                proptest::prop_assert!(y < n && !seen[y as usize], "n={} x={} y={}", n, x, y);
                seen[y as usize] = true;
            }
        }
    }

    #[test]
    fn perm_is_a_bijection() {
        for n in [1u64, 2, 3, 5, 16, 17, 1000, 4097] {
            let p = Perm::new(n, 42);
            let mut seen = vec![false; n as usize];
            for x in 0..n {
                let y = p.apply(x);
                assert!(y < n);
                assert!(!seen[y as usize], "n={n} collision at {y}");
                seen[y as usize] = true;
            }
        }
        // Different keys give different orders.
        let (a, b) = (Perm::new(1000, 1), Perm::new(1000, 2));
        assert!((0..1000).any(|x| a.apply(x) != b.apply(x)));
    }

    #[test]
    fn batches_equal_single_applies() {
        for n in [1u64, 2, 3, 17, 1000, 4097, 4_226_153] {
            let p = Perm::new(n, 7);
            for first in [0, n / 3, n.saturating_sub(BATCH as u64)] {
                let len = (n - first).min(BATCH as u64) as usize;
                let mut out = [u64::MAX; BATCH];
                p.apply_batch(first, &mut out[..len]);
                for (i, &y) in out[..len].iter().enumerate() {
                    assert_eq!(y, p.apply(first + i as u64), "n={n} x={}", first + i as u64);
                }
            }
        }
    }

    #[test]
    fn zeta_tail_matches_exact_sum() {
        for theta in [0.8, 1.2, 2.0] {
            let n = 3_000_000u64;
            let exact: f64 = (1..=n).map(|i| (i as f64).powf(-theta)).sum();
            let approx = zeta(n, theta);
            assert!(
                (exact - approx).abs() / exact < 1e-9,
                "{theta}: {exact} {approx}"
            );
        }
    }

    /// Share of draws landing on the `top` most popular ranks.
    fn top_share(s: &Sampler, n: u64, draws: u32, top: usize) -> f64 {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
        let mut hits = vec![0u32; n as usize];
        for _ in 0..draws {
            hits[s.sample(&mut rng) as usize] += 1;
        }
        hits.sort_unstable_by(|a, b| b.cmp(a));
        hits[..top].iter().map(|&h| h as f64).sum::<f64>() / draws as f64
    }

    #[test]
    fn zipf_skew_matches_theory() {
        let n = 10_000u64;
        for theta in [0.8, 1.2] {
            let s = Sampler::new(Distribution::Zipf(theta), n, 3);
            let got = top_share(&s, n, 400_000, 1_000);
            let want = zeta(1_000, theta) / zeta(n, theta);
            assert!(
                (got - want).abs() < 0.03,
                "θ={theta}: top 10% share {got}, theory {want}"
            );
        }
    }

    #[test]
    fn pareto_and_normal_are_skewed_and_in_range() {
        let n = 10_000u64;
        let p = Sampler::new(Distribution::Pareto(0.2), n, 3);
        // h = 0.2 is fio's default: a strong 80/20-like skew.
        assert!(top_share(&p, n, 200_000, 2_000) > 0.6);
        let g = Sampler::new(Distribution::Normal(5.0), n, 3);
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
        let mut within = 0;
        for _ in 0..100_000 {
            let x = g.sample(&mut rng);
            assert!(x < n);
            if (4_500..5_500).contains(&x) {
                within += 1;
            }
        }
        // ±1σ holds about 68%.
        let frac = within as f64 / 100_000.0;
        assert!((frac - 0.683).abs() < 0.02, "{frac}");
        let wide = Sampler::new(Distribution::Normal(100.0), n, 3);
        for _ in 0..10_000 {
            assert!(wide.sample(&mut rng) < n);
        }
    }

    #[test]
    fn tiny_domains() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
        for d in [
            Distribution::Uniform,
            Distribution::Zipf(1.2),
            Distribution::Zipf(0.5),
            Distribution::Pareto(0.5),
            Distribution::Normal(50.0),
        ] {
            for n in 1..4 {
                let s = Sampler::new(d, n, 9);
                for _ in 0..1000 {
                    assert!(s.sample(&mut rng) < n);
                }
            }
        }
    }
}
