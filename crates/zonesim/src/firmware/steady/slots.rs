//! The valid slots of the synthesised state as a bit vector with a rank directory, so that the
//! k-th valid slot in physical order is found in constant time: the map is then written in
//! logical order (logical page `l` goes to the valid slot of rank `perm⁻¹(l)`) and the reverse
//! map in physical order, both sequentially, instead of one of them at random over a
//! gigabyte-sized array (`conventional/steady.rs`).
//!
//! The layout is the rank/select bit vector of Jacobson ("Space-efficient static trees and
//! graphs", FOCS 1989) with sampled select as in Vigna ("Broadword implementation of rank/select
//! queries", WEA 2008, §5): one bit per slot, the valid slots before each 512-slot chunk (one
//! cache line of bits), and for every 512th rank the chunk that holds it. A query reads one
//! sample, walks forward over the chunk counts (a chunk of few valid slots is passed in a step)
//! and counts bits within one chunk: 1/8 + 1/16 + 1/64 bytes per slot beside the map.

use crate::engine::prefetch;

/// Bits (slots) per chunk of the rank directory: eight words, one cache line.
const CHUNK_BITS: u64 = 512;
const CHUNK_WORDS: usize = (CHUNK_BITS / 64) as usize;
/// One select sample every 2^SAMPLE_SHIFT ranks.
const SAMPLE_SHIFT: u32 = 9;

pub struct ValidSlots {
    /// Bit `p % 64` of word `p / 64`: slot `p` is valid.
    words: Vec<u64>,
    /// Per chunk: valid slots in the chunks before it (filled by [`ValidSlots::index`]).
    before: Vec<u32>,
    /// Per 2^SAMPLE_SHIFT ranks: the chunk holding rank `j << SAMPLE_SHIFT`.
    sample: Vec<u32>,
    count: u64,
}

impl ValidSlots {
    /// No valid slot among `slots` (fewer than 2^32).
    pub fn new(slots: u64) -> ValidSlots {
        assert!(slots < 1 << 32);
        let chunks = slots.div_ceil(CHUNK_BITS) as usize;
        ValidSlots {
            words: vec![0; chunks * CHUNK_WORDS],
            before: Vec::new(),
            sample: Vec::new(),
            count: 0,
        }
    }

    /// Mark slot `p` valid (before [`ValidSlots::index`]).
    #[inline]
    pub fn set(&mut self, p: u64) {
        self.words[(p / 64) as usize] |= 1 << (p % 64);
    }

    #[inline]
    pub fn get(&self, p: u64) -> bool {
        self.words[(p / 64) as usize] >> (p % 64) & 1 == 1
    }

    /// Build the rank directory once every valid slot is set; returns how many there are.
    pub fn index(&mut self) -> u64 {
        let chunks = self.words.len() / CHUNK_WORDS;
        self.before = Vec::with_capacity(chunks);
        self.sample.clear();
        let mut n = 0u64;
        for (c, chunk) in self.words.chunks_exact(CHUNK_WORDS).enumerate() {
            self.before.push(n as u32);
            let here: u64 = chunk.iter().map(|w| w.count_ones() as u64).sum();
            // Samples whose rank falls in this chunk.
            while ((self.sample.len() as u64) << SAMPLE_SHIFT) < n + here {
                self.sample.push(c as u32);
            }
            n += here;
        }
        self.count = n;
        n
    }

    /// Valid slots (after [`ValidSlots::index`]).
    pub fn count(&self) -> u64 {
        self.count
    }

    /// `out[i] = self.select(ks[i])`, with the memory of each step loaded for every rank of
    /// the batch before the next step reads it (the sample, then the chunk's count and bits),
    /// so the batch's cache misses overlap instead of following one another; with the CPU's
    /// population count where it has one (checked once per batch).
    pub fn select_batch(&self, ks: &[u64], out: &mut [u64]) {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("popcnt") {
            // SAFETY: the CPU has the `popcnt` instruction the function is compiled to use.
            unsafe { self.select_batch_popcnt(ks, out) };
            return;
        }
        self.select_batch_any(ks, out);
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "popcnt")]
    unsafe fn select_batch_popcnt(&self, ks: &[u64], out: &mut [u64]) {
        self.select_batch_any(ks, out);
    }

    #[inline(always)]
    fn select_batch_any(&self, ks: &[u64], out: &mut [u64]) {
        for &k in ks {
            prefetch(&self.sample[(k >> SAMPLE_SHIFT) as usize]);
        }
        for (&k, o) in ks.iter().zip(out.iter_mut()) {
            let c = self.sample[(k >> SAMPLE_SHIFT) as usize] as usize;
            prefetch(&self.before[c]);
            prefetch(&self.words[c * CHUNK_WORDS]);
            prefetch(&self.words[c * CHUNK_WORDS + CHUNK_WORDS - 1]);
            *o = c as u64;
        }
        for (&k, o) in ks.iter().zip(out.iter_mut()) {
            *o = self.select_from(*o as usize, k);
        }
    }

    /// The slot of the valid slot of rank `k` (< [`ValidSlots::count`]), ranks in slot order.
    #[inline]
    pub fn select(&self, k: u64) -> u64 {
        debug_assert!(k < self.count);
        self.select_from(self.sample[(k >> SAMPLE_SHIFT) as usize] as usize, k)
    }

    /// [`ValidSlots::select`] from chunk `c`, the sample of `k`'s rank.
    #[inline(always)]
    fn select_from(&self, mut c: usize, k: u64) -> u64 {
        debug_assert!(k < self.count);
        while c + 1 < self.before.len() && self.before[c + 1] as u64 <= k {
            c += 1;
        }
        let mut j = k - self.before[c] as u64;
        let mut w = c * CHUNK_WORDS;
        loop {
            let ones = self.words[w].count_ones() as u64;
            if j < ones {
                break;
            }
            j -= ones;
            w += 1;
        }
        w as u64 * 64 + select_in_word(self.words[w], j as u32) as u64
    }
}

/// Position of the `j`-th set bit (from 0) of `w`, which has more than `j`: narrowed by
/// halves, then the last byte bit by bit.
#[inline(always)]
fn select_in_word(mut w: u64, mut j: u32) -> u32 {
    let mut pos = 0;
    for half in [32u32, 16, 8] {
        let low = (w & ((1u64 << half) - 1)).count_ones();
        let up = j >= low;
        // Branch-free: the half the bit lies in is unpredictable.
        j -= if up { low } else { 0 };
        w = if up { w >> half } else { w };
        pos += if up { half } else { 0 };
    }
    for _ in 0..j {
        w &= w - 1;
    }
    pos + w.trailing_zeros()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// `select` finds each valid slot by its rank, for any set of slots (dense, sparse,
        /// runs of empty chunks).
        #[test]
        fn select_finds_each_valid_slot_by_rank(
            slots in 1u64..20_000,
            density in 0.0f64..1.0,
            seed: u64,
            gap in 0u64..5_000,
        ) {
            let mut v = ValidSlots::new(slots);
            let mut want = Vec::new();
            let mut x = seed | 1;
            for p in 0..slots {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                // A run of empty slots from `gap` (as a free superblock leaves).
                let hole = p >= gap && p < gap + slots / 4;
                let u = (x >> 11) as f64 / (1u64 << 53) as f64;
                if !hole && u < density {
                    v.set(p);
                    want.push(p);
                }
            }
            prop_assert_eq!(v.index(), want.len() as u64);
            for (k, &p) in want.iter().enumerate() {
                prop_assert!(v.get(p));
                prop_assert_eq!(v.select(k as u64), p);
            }
            // In batches, ranks in any order.
            let ks: Vec<u64> = (0..want.len() as u64).rev().collect();
            for batch in ks.chunks(7) {
                let mut out = [0u64; 7];
                v.select_batch(batch, &mut out[..batch.len()]);
                for (&k, &p) in batch.iter().zip(&out) {
                    prop_assert_eq!(p, want[k as usize]);
                }
            }
        }
    }

    #[test]
    fn select_in_word_every_bit() {
        for w in [1u64, u64::MAX, 0x8000_0000_0000_0001, 0xf0f0_0000_ff00_0a05] {
            let ones: Vec<u32> = (0..64).filter(|b| w >> b & 1 == 1).collect();
            for (j, &b) in ones.iter().enumerate() {
                assert_eq!(select_in_word(w, j as u32), b, "w {w:#x} j {j}");
            }
        }
    }
}
