//! The random draws of the synthesis: binomial counts (the invalidations a superblock takes
//! while others fill), a keyed bijection of the logical pages (which page lands in which valid
//! slot) and selection sampling (which slots of a superblock are the valid ones). None of them
//! allocates: a few words of state each, so the synthesis holds nothing per page besides the
//! map itself.

use crate::engine::Rng;
use rand::RngCore;

/// Uniform f64 in [0, 1) with 53 random bits.
#[inline]
pub fn unit_f64(rng: &mut Rng) -> f64 {
    (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// Uniform integer in [0, n) by multiply-shift (n ≥ 1; bias below n / 2^64).
#[inline]
pub fn below(rng: &mut Rng, n: u64) -> u64 {
    ((rng.next_u64() as u128 * n as u128) >> 64) as u64
}

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

/// SplitMix64 finaliser.
#[inline]
fn mix64(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// A keyed pseudo-random bijection of [0, n): a 4-round alternating-radix Feistel network on
/// [0, a·b), a = 2^⌊bits/2⌋, b = ⌈n / a⌉ (the structure of NIST SP 800-38G's FF1 with SplitMix64
/// as round function), walking cycles back into [0, n) (the domain exceeds n by less than a,
/// so walks are rare). The k-th valid slot of the synthesized device holds logical page
/// `apply(k)`: a uniformly shuffled placement with no permutation array.
#[derive(Debug, Clone)]
pub struct Perm {
    n: u64,
    low_bits: u32,
    high: u64,
    keys: [u64; 4],
}

impl Perm {
    pub fn new(n: u64, key: u64) -> Perm {
        let bits = (64 - n.saturating_sub(1).leading_zeros()).max(2);
        let low_bits = bits / 2;
        let high = n.div_ceil(1u64 << low_bits).max(1);
        let mut keys = [0; 4];
        let mut k = key;
        for slot in &mut keys {
            k = mix64(k.wrapping_add(0x9e37_79b9_7f4a_7c15));
            *slot = k;
        }
        Perm {
            n,
            low_bits,
            high,
            keys,
        }
    }

    /// The image of `x` (< n).
    #[inline(always)]
    pub fn apply(&self, x: u64) -> u64 {
        if self.n <= 1 {
            return 0;
        }
        let y = self.round_trip(x);
        if y < self.n {
            y
        } else {
            self.walk(y)
        }
    }

    /// The rest of a cycle walk from `y` ≥ n (rare).
    #[cold]
    #[inline(never)]
    fn walk(&self, mut y: u64) -> u64 {
        while y >= self.n {
            y = self.round_trip(y);
        }
        y
    }

    #[inline(always)]
    fn round_trip(&self, x: u64) -> u64 {
        let mask = (1u64 << self.low_bits) - 1;
        let mut l = x & mask;
        let mut r = x >> self.low_bits;
        let [k0, k1, k2, k3] = self.keys;
        l ^= mix64(r ^ k0) & mask;
        r = self.add_high(r, mix64(l ^ k1));
        l ^= mix64(r ^ k2) & mask;
        r = self.add_high(r, mix64(l ^ k3));
        (r << self.low_bits) | l
    }

    /// (r + h mod b) mod b for r < b.
    #[inline(always)]
    fn add_high(&self, r: u64, h: u64) -> u64 {
        let s = r + ((h as u128 * self.high as u128) >> 64) as u64;
        if s >= self.high {
            s - self.high
        } else {
            s
        }
    }
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
