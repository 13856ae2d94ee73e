//! The random draws of the synthesis: binomial counts (the invalidations a superblock takes
//! while others fill), a keyed bijection of the logical pages (which page lands in which valid
//! slot) and selection sampling (which slots of a superblock are the valid ones). None of them
//! allocates: a few words of state each, so the synthesis holds nothing per page besides the
//! map itself.

use crate::engine::Rng;
pub use crate::engine::{below, unit_f64, Perm};

/// A standard normal deviate (Box–Muller, one of the pair).
fn standard_normal(rng: &mut Rng) -> f64 {
    let u1 = 1.0 - unit_f64(rng); // (0, 1]
    let u2 = unit_f64(rng);
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

/// Means below this are drawn exactly by inversion; above, by the normal approximation.
const INVERSION_MEAN: f64 = 30.0;

/// A Binomial(n, p) draw: exact inversion (sequential search from 0, O(mean) steps) while the
/// mean is small — the common case, a few invalidations per superblock per step — and the
/// normal approximation with continuity correction, clamped to [0, n], above
/// [`INVERSION_MEAN`] (where its skewness error is below 1/sqrt(30) of a standard deviation).
pub fn binomial(rng: &mut Rng, n: u64, p: f64) -> u64 {
    if n == 0 || p <= 0.0 {
        return 0;
    }
    if p >= 1.0 {
        return n;
    }
    if p > 0.5 {
        return n - binomial(rng, n, 1.0 - p);
    }
    let mean = n as f64 * p;
    if mean < INVERSION_MEAN {
        let q = 1.0 - p;
        let s = p / q;
        let a = (n as f64 + 1.0) * s;
        // P(0) = q^n, then P(k) = P(k-1) * ((n + 1) s / k - s).
        let mut r = (n as f64 * (-p).ln_1p()).exp();
        let mut u = unit_f64(rng);
        let mut k = 0u64;
        loop {
            if u < r || k >= n {
                return k;
            }
            u -= r;
            k += 1;
            r *= a / k as f64 - s;
            if r <= 0.0 {
                // The tail underflowed (u fell in the rounding residue): the mean is as good.
                return (mean.round() as u64).min(n);
            }
        }
    }
    let sd = (mean * (1.0 - p)).sqrt();
    let k = (mean + sd * standard_normal(rng) + 0.5).floor();
    k.clamp(0.0, n as f64) as u64
}

/// A uniformly random subset of `want` offsets of `0..span`, written to `out` in increasing
/// order: the smaller of the subset and its complement is drawn by rejection into `marks` (a
/// bitmap the caller keeps, at least `span` bits), so a superblock costs `min(want, span -
/// want)` draws and one pass over its slots.
pub fn subset(rng: &mut Rng, span: u32, want: u32, marks: &mut [u64], out: &mut Vec<u32>) {
    debug_assert!(want <= span && marks.len() * 64 >= span as usize);
    out.clear();
    let words = (span as usize).div_ceil(64);
    marks[..words].fill(0);
    let keep_marked = want <= span - want;
    let draws = if keep_marked { want } else { span - want };
    let mut n = 0;
    while n < draws {
        let o = below(rng, span as u64) as usize;
        let (w, b) = (o / 64, 1u64 << (o % 64));
        if marks[w] & b == 0 {
            marks[w] |= b;
            n += 1;
        }
    }
    for (w, &m) in marks[..words].iter().enumerate() {
        let mut bits = if keep_marked { m } else { !m };
        if w == words - 1 && !span.is_multiple_of(64) {
            bits &= (1u64 << (span % 64)) - 1;
        }
        while bits != 0 {
            out.push(w as u32 * 64 + bits.trailing_zeros());
            bits &= bits - 1;
        }
    }
}
