//! A dense array of unsigned integers of a fixed width below 32 bits, packed end to end: the
//! reverse map's entries are logical page numbers, which need `log2(logical pages)` bits, not 32
//! (28 bits for the 245 M logical pages of 1 TB: 1/8 of the reverse map saved, which is what
//! brings a 1 TB device within the memory target of 8 bytes per logical page plus 64 MiB, README
//! "Speed"). An entry is read and written through the unaligned 64-bit word that holds it (a
//! width of at most 32 bits plus a shift of at most 7 fits one), so an access costs a shift and
//! a mask more than a `u32` array's, and the array is smaller to miss in.

use crate::engine::{huge_vec, prefetch};

pub(crate) struct PackedArray {
    /// The entries, entry `i` at bits `i * width ..` (little-endian), plus 8 bytes of slack
    /// so the word of the last entry can be read whole.
    bytes: Vec<u8>,
    width: u32,
    len: usize,
}

impl PackedArray {
    /// `len` entries of `width` bits (1..=32), each the all-ones value ([`Self::max_value`]).
    pub fn new_max(len: usize, width: u32) -> PackedArray {
        assert!((1..=32).contains(&width));
        let bytes = (len as u64 * width as u64).div_ceil(8) as usize + 8;
        PackedArray {
            bytes: huge_vec(bytes, 0xff),
            width,
            len,
        }
    }

    /// The width that holds every value below `n` and one more (a sentinel): `n < 2^width`.
    pub fn width_for(n: u64) -> u32 {
        (64 - n.leading_zeros()).clamp(1, 32)
    }

    /// The all-ones value of the width (the largest it holds).
    pub fn max_value(&self) -> u32 {
        self.mask() as u32
    }

    pub fn len(&self) -> usize {
        self.len
    }

    #[inline]
    fn mask(&self) -> u64 {
        (1u64 << self.width) - 1
    }

    /// The byte holding the entry's first bit and the bit within it.
    #[inline]
    fn at(&self, i: usize) -> (usize, u32) {
        debug_assert!(i < self.len);
        let bit = i as u64 * self.width as u64;
        ((bit >> 3) as usize, (bit & 7) as u32)
    }

    #[inline]
    fn word(&self, byte: usize) -> u64 {
        u64::from_le_bytes(self.bytes[byte..byte + 8].try_into().expect("8 bytes"))
    }

    #[inline]
    pub fn get(&self, i: usize) -> u32 {
        let (byte, shift) = self.at(i);
        ((self.word(byte) >> shift) & self.mask()) as u32
    }

    /// Set entry `i` to `v` (which must fit the width).
    #[inline]
    pub fn set(&mut self, i: usize, v: u32) {
        debug_assert!((v as u64) <= self.mask());
        let (byte, shift) = self.at(i);
        let w = self.word(byte) & !(self.mask() << shift) | (v as u64) << shift;
        self.bytes[byte..byte + 8].copy_from_slice(&w.to_le_bytes());
    }

    /// Start loading entry `i` (a host-memory hint; nothing for an index past the end).
    #[inline]
    pub fn prefetch(&self, i: usize) {
        if i < self.len {
            prefetch(&self.bytes[self.at(i).0]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Against a plain vector: any width, any sequence of writes, every entry reads back
        /// what was last written to it (neighbours sharing its bytes untouched).
        #[test]
        fn behaves_as_a_vector(
            width in 1u32..=32,
            len in 1usize..300,
            writes in proptest::collection::vec((0usize..300, any::<u32>()), 0..400),
        ) {
            let mask = ((1u64 << width) - 1) as u32;
            let mut a = PackedArray::new_max(len, width);
            prop_assert_eq!(a.max_value(), mask);
            let mut v = vec![mask; len];
            for (i, x) in writes {
                let (i, x) = (i % len, x & mask);
                a.set(i, x);
                v[i] = x;
            }
            for (i, &x) in v.iter().enumerate() {
                prop_assert_eq!(a.get(i), x, "entry {}", i);
            }
        }
    }

    #[test]
    fn width_holds_values_and_a_sentinel() {
        for n in [1u64, 2, 3, 4, 255, 256, 245_000_000, (1 << 32) - 1] {
            let w = PackedArray::width_for(n);
            assert!(n < 1u64 << w || w == 32, "n {n} width {w}");
        }
        assert_eq!(PackedArray::width_for(245_000_000), 28);
    }
}
