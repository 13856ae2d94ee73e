//! `bloom`: frequency-based hot/cold classification with multiple Bloom filters and decay (the
//! MBF / MHF family of SUP-GC §2.2, its "BF-Optimized" baseline of §4).
//!
//! V filters ([`bloomfilter::Bloom`], seeded, so runs are deterministic) remember recent host
//! writes; a write sets its LPA in the first filter, from the current one on in rotation order,
//! that does not hold it yet. Every `window` host page writes the filter after the current one
//! is cleared and becomes current (decay: what is not rewritten is forgotten within V windows).
//! A page is *hot* if at least `hot_threshold` filters hold it, counting the write being
//! classified: written that many times recently.
//! Host pages are classified at write time (hot -> stream 0, cold -> stream 1); GC survivors
//! are tested the same way without recording an access.
//!
//! The report counts the filters' SRAM bytes and every hash-function evaluation (k per filter
//! probed or set), the work SUP-GC §5.3.1 blames for the scheme's ~5% throughput cost.
//!
//! Filter saturation (docs/placement.md "Filter saturation"). Each filter is sized for one
//! window of host writes at `fp_rate`. With `ftl.gc.bloom.record_gc` the pages GC relocates
//! are recorded too (set in the first filter not holding them, the window unchanged), so
//! under GC a filter takes more insertions per window than it is sized for: its fill, the
//! share of its bits set, rises, and with it its false-positive rate, so cold data looks hot
//! and the separation fails — SUP-GC §2.2 / §5.3.2: the Bloom filters' "false positive
//! tendency" leads "cold data being misclassified as hot data", and under heavy GC
//! BF-Optimized "struggles to effectively distinguish between hot and cold data states".
//! The fill of a filter holding n insertions of k bits in m bits is estimated as
//! 1 - exp(-k n / m) (the standard Bloom-filter estimate, Bloom 1970; Park & Du MSST 2011
//! §3 size MBF's filters with it); its false-positive rate is fill^k. A probe evaluates
//! hashes until it meets a clear bit: k for a key the filter holds, and
//! (1 - fill^k) / (1 - fill) expected for one it does not ([`MultiBloom::expected_hashes`],
//! charged per classification by `ftl.cost.bloom_hash_ns`, firmware/cost.rs), so the
//! classifier's CPU cost rises with its fill.

use super::Place;
use crate::config::BloomConfig;
use crate::engine::rng_for;
use crate::firmware::mapping::Lpa;
use bloomfilter::Bloom;
use rand::{Rng, RngCore};

pub const HOT: usize = 0;
pub const COLD: usize = 1;

#[derive(Clone)]
pub struct MultiBloom {
    filters: Vec<Bloom<u32>>,
    current: usize,
    /// Host page writes recorded in the current window.
    in_window: u64,
    window: u64,
    threshold: u32,
    /// Hash functions per filter (k).
    k: u64,
    /// Hash-function evaluations so far.
    pub hash_ops: u64,
    /// Windows rotated (decays) so far.
    pub decays: u64,
    pub hot_writes: u64,
    pub cold_writes: u64,
    sram_bytes: u64,
    /// Insertions into each filter since it was last cleared.
    inserted: Vec<u64>,
    /// Bits of one filter.
    bits: f64,
    /// Record GC relocations as accesses (`ftl.gc.bloom.record_gc`).
    record_gc: bool,
    /// GC relocations recorded so far.
    pub gc_inserts: u64,
}

impl MultiBloom {
    pub fn new(cfg: &BloomConfig, logical_pages: u64, seed: u64) -> MultiBloom {
        let window = if cfg.window_pages == 0 {
            (logical_pages / 8).max(1)
        } else {
            cfg.window_pages
        };
        let bytes = Bloom::<u32>::compute_bitmap_size(window as usize, cfg.fp_rate).max(1);
        let mut rng = rng_for(seed, 0x626c_6f6f);
        let filters: Vec<Bloom<u32>> = (0..cfg.filters)
            .map(|_| {
                let mut s = [0u8; 32];
                rng.fill_bytes(&mut s);
                Bloom::new_with_seed(bytes, window as usize, &s).expect("valid bloom size")
            })
            .collect();
        let k = filters[0].number_of_hash_functions() as u64;
        MultiBloom {
            inserted: vec![0; filters.len()],
            bits: bytes as f64 * 8.0,
            record_gc: cfg.record_gc,
            gc_inserts: 0,
            sram_bytes: bytes as u64 * filters.len() as u64,
            filters,
            current: 0,
            in_window: 0,
            window,
            threshold: cfg.hot_threshold,
            k,
            hash_ops: 0,
            decays: 0,
            hot_writes: 0,
            cold_writes: 0,
        }
    }

    /// Filters holding `lpa` (probes every filter).
    #[inline]
    fn count(&mut self, lpa: Lpa) -> u32 {
        self.hash_ops += self.k * self.filters.len() as u64;
        self.filters.iter().filter(|f| f.check(&lpa.0)).count() as u32
    }

    /// Record a host write of `lpa`; true if it is hot. The write is set in the first filter,
    /// from the current one on in rotation order, that does not hold it yet (Park & Du's MBF:
    /// a page written several times in a window occupies several filters, so the number of
    /// filters holding it measures frequency and recency together).
    #[inline]
    pub fn record(&mut self, lpa: Lpa) -> bool {
        let v = self.filters.len();
        self.hash_ops += self.k * v as u64;
        let mut n = 0;
        let mut placed = false;
        for j in 0..v {
            let f = &mut self.filters[(self.current + j) % v];
            if f.check(&lpa.0) {
                n += 1;
            } else if !placed {
                f.set(&lpa.0);
                self.inserted[(self.current + j) % v] += 1;
                placed = true;
                n += 1;
            }
        }
        if placed {
            self.hash_ops += self.k;
        }
        self.in_window += 1;
        if self.in_window == self.window {
            self.in_window = 0;
            self.current = (self.current + 1) % v;
            self.filters[self.current].clear();
            self.inserted[self.current] = 0;
            self.decays += 1;
        }
        let hot = n >= self.threshold;
        if hot {
            self.hot_writes += 1;
        } else {
            self.cold_writes += 1;
        }
        hot
    }

    /// Whether `lpa` is hot now, without recording an access.
    #[inline]
    pub fn is_hot(&mut self, lpa: Lpa) -> bool {
        self.count(lpa) >= self.threshold
    }

    /// A GC relocation of `lpa` (`record_gc`): set it in the first filter, from the current
    /// one on, that does not hold it yet; the window does not advance (it counts host writes).
    #[inline]
    fn record_move(&mut self, lpa: Lpa) {
        let v = self.filters.len();
        for j in 0..v {
            let i = (self.current + j) % v;
            if !self.filters[i].check(&lpa.0) {
                self.filters[i].set(&lpa.0);
                self.inserted[i] += 1;
                self.hash_ops += self.k;
                self.gc_inserts += 1;
                return;
            }
        }
    }

    /// Estimated share of filter `i`'s bits that are set: 1 - exp(-k n / m).
    #[inline]
    pub fn fill(&self, i: usize) -> f64 {
        1.0 - (-(self.k as f64) * self.inserted[i] as f64 / self.bits).exp()
    }

    /// Expected hash evaluations of one classification at the filters' current fill: a probe
    /// of every filter, stopping at the first clear bit ((1 - f^k) / (1 - f) for a key a
    /// filter does not hold), plus the k of the set that records it (a host write, or a GC
    /// relocation with `record_gc`; `gc`: a survivor's classification).
    #[inline]
    pub fn expected_hashes(&self, gc: bool) -> f64 {
        let k = self.k as f64;
        let mut h = 0.0;
        for i in 0..self.filters.len() {
            h += probe_hashes(self.fill(i), self.k);
        }
        if !gc || self.record_gc {
            h += k;
        }
        h
    }

    /// Mean fill and mean false-positive rate (fill^k) of the filters now.
    pub fn saturation(&self) -> (f64, f64) {
        let v = self.filters.len() as f64;
        let fills = (0..self.filters.len()).map(|i| self.fill(i));
        let (f, p) = fills.fold((0.0, 0.0), |(f, p), x| (f + x, p + x.powi(self.k as i32)));
        (f / v, p / v)
    }

    /// Whether GC relocations are recorded (`ftl.gc.bloom.record_gc`).
    pub fn records_gc(&self) -> bool {
        self.record_gc
    }

    /// The filters as a history of `host` page writes leaves them — `seq` in logical order
    /// (a fill), then uniform random ones over `logical` pages (`--precondition steady-fast`):
    /// only the writes of the current window and the V - 1 before it are still held, so only
    /// those are recorded, their logical pages drawn from `seed` as the workload draws them.
    /// A history whose GC relocations would be recorded (`record_gc`) is not synthesised.
    pub fn warm(&mut self, host: u64, seq: u64, logical: u64, seed: u64) {
        let held = (self.filters.len() as u64 - 1) * self.window + host % self.window;
        let mut rng = rng_for(seed, 0x7761_726d);
        for i in host.saturating_sub(held)..host {
            let lpa = if i < seq {
                i
            } else {
                rng.gen_range(0..logical)
            };
            self.record(Lpa(lpa as u32));
        }
    }

    pub fn reset_counters(&mut self) {
        self.gc_inserts = 0;
        self.hash_ops = 0;
        self.decays = 0;
        self.hot_writes = 0;
        self.cold_writes = 0;
    }

    pub fn sram_bytes(&self) -> u64 {
        self.sram_bytes
    }

    /// Number of filters (V).
    pub fn filters(&self) -> usize {
        self.filters.len()
    }

    /// Hash functions per filter (k).
    pub fn hash_functions(&self) -> u64 {
        self.k
    }

    /// Host page writes per window (between decays).
    pub fn window_pages(&self) -> u64 {
        self.window
    }
}

impl Place for MultiBloom {
    fn streams(&self) -> usize {
        2
    }
    #[inline]
    fn host(&mut self, lpa: Lpa, _hint: u8) -> usize {
        if self.record(lpa) {
            HOT
        } else {
            COLD
        }
    }
    #[inline]
    fn gc(&mut self, lpa: Lpa, _from: usize) -> usize {
        let hot = self.is_hot(lpa);
        if self.record_gc {
            self.record_move(lpa);
        }
        if hot {
            HOT
        } else {
            COLD
        }
    }
}

/// Expected hashes a probe of a filter with `fill` of its bits set evaluates for a key it does
/// not hold: hash j is evaluated if the j before it hit set bits, so sum_{j<k} fill^j =
/// (1 - fill^k) / (1 - fill); k when the filter is full.
#[inline]
pub fn probe_hashes(fill: f64, k: u64) -> f64 {
    if fill >= 1.0 {
        return k as f64;
    }
    (1.0 - fill.powi(k as i32)) / (1.0 - fill)
}
