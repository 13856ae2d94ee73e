//! Raw bit errors, ECC and read retry (`nand.errors`).
//!
//! Per block the room keeps what the error model needs: the time of its last erase (data
//! retention counts from there; pages are programmed soon after a block leaves the free
//! pool) and the reads since that erase (read disturb); the erase count is the array's. A
//! page's raw bit error rate follows the model form of Liu et al., "Optimizing NAND
//! Flash-Based SSDs via Retention Relaxation" (FAST'12, Eq. 1: wear as a power law in P/E
//! cycles, retention as a power law in time scaled by one in cycles), with a read-disturb
//! term of the same shape as SimpleSSD 2.0's read-reclaim model (`abstract_read_reclaim.cc`),
//! whose 2y-nm MLC fit gives the defaults:
//!
//! RBER(c, t, r) = ε + α·c^k + β·c^m·t^n + γ·c^p·r^q
//!
//! (c: P/E cycles times [`wear_scale`], t: days since erase plus
//! `nand.rber.retention_days`, r: reads since erase). A read of `b` bytes covers ⌈b /
//! codeword⌉ codewords; a codeword's bit errors are Poisson with mean λ = 8·codeword·RBER,
//! and hard decoding fails when any codeword holds more than `hard_bits`. Then read-retry
//! steps follow (Cai et al., "Error Characterization, Mitigation, and Recovery in Flash-
//! Memory-Based Solid-State Drives", Proc. IEEE 2017, §V-B: re-reads with shifted read
//! references, which recover cells whose threshold voltage shifted — retention and read
//! disturb — and not wear): step s sees ε + α·c^k + (retention + disturb)·f^s, f =
//! `retry_factor`. After `max_retries` failed steps an LDPC soft decode (Zhao et al.,
//! "LDPC-in-SSD: Making Advanced Error Correction Codes Work Effectively in Solid State
//! Drives", FAST'13: extra senses for soft information, then a longer decode)
//! corrects up to `soft_bits` per codeword; beyond that the read is uncorrectable. Each
//! attempt's outcome is a draw of the die's stream (`draw.rs`), so the run stays
//! deterministic.

use super::draw::DieDraws;
use crate::config::{DeviceConfig, EccConfig, RberModel};
use crate::engine::SimTime;

/// Salt of the error draw streams.
const SALT: u64 = 0x6572_726f_7273;
/// Nanoseconds per day.
const DAY_NS: f64 = 86_400e9;

/// Counters of `nand.errors` (`device.flash`).
#[derive(Debug, Clone, Default)]
pub struct ErrorCounters {
    /// Reads the error model checked.
    pub checked_reads: u64,
    /// Read-retry steps (re-senses with shifted references), total.
    pub read_retries: u64,
    /// Reads that needed a soft decode.
    pub soft_decodes: u64,
    /// Reads no decode corrected.
    pub uncorrectable_reads: u64,
    /// Host commands completed with a media error.
    pub media_errors: u64,
    /// Reads by retry steps taken: entry s counts reads corrected after s steps (the last
    /// entry: reads that went on to soft decoding).
    pub retry_histogram: Vec<u64>,
}

/// What one read met: the retry steps, whether it needed soft decoding, whether it failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadOutcome {
    pub retries: u32,
    pub soft: bool,
    pub uncorrectable: bool,
}

/// Per-block state of the model.
#[derive(Debug, Clone, Copy, Default)]
struct BlockAge {
    erased_at: SimTime,
    reads: u32,
    /// The erase count the cached terms below were computed for (u32::MAX: none yet).
    terms_pe: u32,
    /// ε + α·c^k, β·c^m and γ·c^p at `terms_pe`.
    wear: f64,
    retention: f64,
    disturb: f64,
}

/// The model, the per-block state and the counters of `nand.errors`.
#[derive(Clone)]
pub(super) struct ReadErrors {
    draws: DieDraws,
    model: RberModel,
    /// Model cycles per P/E cycle of a block ([`wear_scale`]).
    pe_scale: f64,
    ecc: EccConfig,
    blocks: Vec<BlockAge>,
    /// ln(i!) for i ≤ soft_bits + 1 (Poisson tails).
    ln_fact: Vec<f64>,
    pub counters: ErrorCounters,
    /// A host read failed since the last [`ReadErrors::take_host_failure`].
    host_failed: bool,
    /// Time the device sat unpowered ([`ReadErrors::age`]), ns: the model's clock runs this
    /// far ahead of the simulation's, so data written before gained that much retention.
    aged_ns: u64,
}

impl ReadErrors {
    pub fn new(cfg: &DeviceConfig, seed: u64, dies: u32, blocks: usize) -> ReadErrors {
        let ecc = cfg.nand.ecc;
        let mut ln_fact = vec![0.0; ecc.soft_bits as usize + 2];
        for i in 1..ln_fact.len() {
            ln_fact[i] = ln_fact[i - 1] + (i as f64).ln();
        }
        ReadErrors {
            draws: DieDraws::new(seed, SALT, dies),
            model: cfg.nand.rber,
            pe_scale: wear_scale(cfg),
            ecc,
            blocks: vec![
                BlockAge {
                    terms_pe: u32::MAX,
                    ..BlockAge::default()
                };
                blocks
            ],
            ln_fact,
            counters: ErrorCounters {
                retry_histogram: vec![0; ecc.max_retries as usize + 2],
                ..ErrorCounters::default()
            },
            host_failed: false,
            aged_ns: 0,
        }
    }

    /// Block `i` was erased at `at`.
    #[inline]
    pub fn erased(&mut self, i: usize, at: SimTime) {
        let b = &mut self.blocks[i];
        b.erased_at = SimTime(at.ns().saturating_add(self.aged_ns));
        b.reads = 0;
    }

    /// The wear part and the shift part (retention + read disturb) of the RBER of block `i`
    /// with erase count `pe` at `now`.
    fn parts(&mut self, i: usize, pe: u32, now: SimTime) -> (f64, f64) {
        let days = self.days(&self.blocks[i], now);
        let m = &self.model;
        let b = &mut self.blocks[i];
        if b.terms_pe != pe {
            let c = pe as f64 * self.pe_scale;
            b.terms_pe = pe;
            b.wear = m.epsilon + m.alpha * c.powf(m.k);
            b.retention = m.beta * c.powf(m.m);
            b.disturb = m.gamma * c.powf(m.p);
        }
        let mut shift = 0.0;
        if b.retention > 0.0 && days > 0.0 {
            shift += b.retention * days.powf(m.n);
        }
        if b.disturb > 0.0 && b.reads > 0 {
            shift += b.disturb * (b.reads as f64).powf(m.q);
        }
        (b.wear, shift)
    }

    /// The model's raw bit error rate of block `i` with erase count `pe` at `now` (what a
    /// firmware could estimate to reclaim a block before its reads fail).
    pub fn rber(&self, i: usize, pe: u32, now: SimTime) -> f64 {
        let b = &self.blocks[i];
        let c = pe as f64 * self.pe_scale;
        rber_of(&self.model, c, self.days(b, now), b.reads as f64)
    }

    /// Days of retention of block `b` at `now`.
    #[inline]
    fn days(&self, b: &BlockAge, now: SimTime) -> f64 {
        now.ns()
            .saturating_add(self.aged_ns)
            .saturating_sub(b.erased_at.ns()) as f64
            / DAY_NS
            + self.model.retention_days
    }

    /// The device sat unpowered for `ns` (an `age` step): every block's data gains that much
    /// retention; the blocks erased afterwards start fresh from their erase as always.
    pub fn age(&mut self, ns: u64) {
        self.aged_ns = self.aged_ns.saturating_add(ns);
    }

    /// Probability that a read of `codewords` codewords at raw bit error rate `rber` holds
    /// more than `t` bit errors in some codeword.
    fn p_fail(&self, rber: f64, t: u32, codewords: u32) -> f64 {
        let lambda = rber * 8.0 * self.ecc.codeword_bytes as f64;
        let tail = poisson_tail(lambda, t, &self.ln_fact);
        if tail <= 0.0 {
            return 0.0;
        }
        1.0 - (1.0 - tail).powi(codewords as i32)
    }

    /// One read of `bytes` from block `i` (erase count `pe`) on die `die` at `now`: count the
    /// read against the block and decide what decoding it takes.
    #[inline]
    pub fn read(&mut self, die: u32, i: usize, pe: u32, now: SimTime, bytes: u64) -> ReadOutcome {
        self.blocks[i].reads = self.blocks[i].reads.saturating_add(1);
        self.counters.checked_reads += 1;
        let (wear, shift) = self.parts(i, pe, now);
        let cw = bytes.div_ceil(self.ecc.codeword_bytes as u64).max(1) as u32;
        let hard = self.ecc.hard_bits;
        // Far below the hard limit a codeword never fails (P < 4^-(t+1)): no draw needed.
        let bits = 8.0 * self.ecc.codeword_bytes as f64;
        if (wear + shift) * bits * 11.0 <= (hard + 1) as f64 {
            self.counters.retry_histogram[0] += 1;
            return ReadOutcome {
                retries: 0,
                soft: false,
                uncorrectable: false,
            };
        }
        self.decode(die, wear, shift, cw)
    }

    #[inline(never)]
    fn decode(&mut self, die: u32, wear: f64, shift: f64, cw: u32) -> ReadOutcome {
        let hard = self.ecc.hard_bits;
        let mut rber = wear + shift;
        let mut factor = 1.0;
        for s in 0..=self.ecc.max_retries {
            if s > 0 {
                factor *= self.ecc.retry_factor;
                rber = wear + shift * factor;
            }
            if self.draws.unit(die) >= self.p_fail(rber, hard, cw) {
                self.counters.read_retries += s as u64;
                self.counters.retry_histogram[s as usize] += 1;
                return ReadOutcome {
                    retries: s,
                    soft: false,
                    uncorrectable: false,
                };
            }
        }
        let retries = self.ecc.max_retries;
        self.counters.read_retries += retries as u64;
        self.counters.retry_histogram[retries as usize + 1] += 1;
        self.counters.soft_decodes += 1;
        let uncorrectable = self.draws.unit(die) < self.p_fail(rber, self.ecc.soft_bits, cw);
        if uncorrectable {
            self.counters.uncorrectable_reads += 1;
        }
        ReadOutcome {
            retries,
            soft: true,
            uncorrectable,
        }
    }

    /// Zero the counters (after preconditioning).
    pub fn reset_counters(&mut self) {
        let steps = self.counters.retry_histogram.len();
        self.counters = ErrorCounters {
            retry_histogram: vec![0; steps],
            ..ErrorCounters::default()
        };
    }

    /// A host read failed (its command completes with a media error).
    #[inline]
    pub fn host_failure(&mut self) {
        self.host_failed = true;
    }

    /// Whether a host read failed since the last call (and count its command).
    #[inline]
    pub fn take_host_failure(&mut self) -> bool {
        let f = std::mem::take(&mut self.host_failed);
        self.counters.media_errors += f as u64;
        f
    }

    pub fn soft_decode_ns(&self) -> u64 {
        SimTime::from_us(self.ecc.soft_decode_us).ns()
    }

    pub fn soft_senses(&self) -> u32 {
        self.ecc.soft_senses
    }
}

/// Model P/E cycles per erase of a block: `nand.rber.pe_scale`, and with an endurance rating
/// (`nand.endurance_pe` = E) also the factor that makes the wear part of the RBER reach the
/// ECC hard-decision limit at the rating. Cai et al. (Proc. IEEE 2017, §II-C/§III) define a
/// block's lifetime as the P/E cycles after which its raw bit errors exceed what the ECC
/// corrects, so the model cycle count c_E that solves ε + α·c_E^k = R_hard, R_hard =
/// `hard_bits` / (8·`codeword_bytes`), is where a block of this device stands at E:
///
/// scale = pe_scale · ((R_hard − ε) / α)^(1/k) / E
///
/// A block at its rating then holds `hard_bits` errors per codeword on average (about half
/// its reads need retry steps and, as retries do not undo wear, a soft decode); reads of
/// blocks below it retry rarely. Without a rating, or when the model has no wear term or a
/// fresh block is already past the limit, the scale is `pe_scale` alone.
pub fn wear_scale(cfg: &DeviceConfig) -> f64 {
    let (m, e) = (&cfg.nand.rber, cfg.nand.endurance_pe);
    let hard = cfg.nand.ecc.hard_bits as f64 / (8.0 * cfg.nand.ecc.codeword_bytes as f64);
    let excess = hard - m.epsilon;
    if e == 0 || m.alpha <= 0.0 || m.k <= 0.0 || excess <= 0.0 {
        return m.pe_scale;
    }
    m.pe_scale * (excess / m.alpha).powf(1.0 / m.k) / e as f64
}

/// The model's RBER at `c` (scaled) P/E cycles, `days` of retention and `reads` since erase.
pub fn rber_of(m: &RberModel, c: f64, days: f64, reads: f64) -> f64 {
    m.epsilon
        + m.alpha * c.powf(m.k)
        + m.beta * c.powf(m.m) * days.powf(m.n)
        + m.gamma * c.powf(m.p) * reads.powf(m.q)
}

/// P(X > t) for X Poisson with mean `lambda`; `ln_fact[i]` = ln(i!) for i ≤ t + 1.
fn poisson_tail(lambda: f64, t: u32, ln_fact: &[f64]) -> f64 {
    if lambda <= 0.0 {
        return 0.0;
    }
    let t = t as usize;
    if lambda > t as f64 + 1.0 {
        // Mostly above t: one minus the lower sum (its terms by recurrence).
        let mut term = (-lambda).exp();
        if term == 0.0 {
            return 1.0;
        }
        let mut sum = term;
        for i in 1..=t {
            term *= lambda / i as f64;
            sum += term;
        }
        return (1.0 - sum).clamp(0.0, 1.0);
    }
    // Mostly below t: the upper sum from t + 1 until its terms vanish.
    let mut term = (-lambda + (t + 1) as f64 * lambda.ln() - ln_fact[t + 1]).exp();
    let mut sum = 0.0;
    let mut i = t + 1;
    while term > sum * 1e-17 && i < t + 10_000 {
        sum += term;
        i += 1;
        term *= lambda / i as f64;
    }
    sum.min(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ln_fact(n: usize) -> Vec<f64> {
        let mut v = vec![0.0; n];
        for i in 1..n {
            v[i] = v[i - 1] + (i as f64).ln();
        }
        v
    }

    #[test]
    fn an_endurance_rating_puts_the_wear_term_at_the_hard_limit() {
        let sets = |e: u32| vec![format!("nand.endurance_pe={e}"), "nand.errors=true".into()];
        let plain = crate::load_device("ufs-conventional", &[]).unwrap();
        assert_eq!(wear_scale(&plain), plain.nand.rber.pe_scale);
        for e in [40, 3000] {
            let cfg = crate::load_device("ufs-conventional", &sets(e)).unwrap();
            let (m, ecc) = (&cfg.nand.rber, &cfg.nand.ecc);
            let hard = ecc.hard_bits as f64 / (8.0 * ecc.codeword_bytes as f64);
            let at = |pe: f64| rber_of(m, pe * wear_scale(&cfg), 0.0, 0.0);
            assert!(
                (at(e as f64) - hard).abs() < 1e-9 * hard,
                "{}",
                at(e as f64)
            );
            assert!(at(e as f64 / 2.0) < hard && at(2.0 * e as f64) > hard);
        }
    }

    #[test]
    fn poisson_tail_matches_direct_sums() {
        let f = ln_fact(200);
        // P(X > 0) = 1 - e^-λ.
        assert!((poisson_tail(2.0, 0, &f) - (1.0 - (-2.0f64).exp())).abs() < 1e-12);
        // Both branches agree near the switch.
        for &(l, t) in &[(10.0, 9), (10.0, 10), (10.0, 11), (40.0, 40), (50.0, 40)] {
            let direct: f64 = 1.0
                - (0..=t)
                    .map(|i| (-l + i as f64 * f64::ln(l) - f[i as usize]).exp())
                    .sum::<f64>();
            assert!((poisson_tail(l, t, &f) - direct).abs() < 1e-9, "{l} {t}");
        }
        assert!(poisson_tail(1.0, 40, &f) < 1e-40);
        assert_eq!(poisson_tail(5000.0, 40, &f), 1.0);
    }

    #[test]
    fn default_model_grows_with_wear_retention_and_reads() {
        let m = RberModel::default();
        let fresh = rber_of(&m, 0.0, 0.0, 0.0);
        assert_eq!(fresh, m.epsilon);
        assert!(rber_of(&m, 3000.0, 0.0, 0.0) > fresh);
        assert!(rber_of(&m, 3000.0, 30.0, 0.0) > rber_of(&m, 3000.0, 0.0, 0.0));
        assert!(rber_of(&m, 3000.0, 0.0, 1e5) > rber_of(&m, 3000.0, 0.0, 0.0));
    }
}
