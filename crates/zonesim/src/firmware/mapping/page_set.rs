//! [`MapPageSet`]: the map pages touched by the GC of one victim, for the batched map update
//! of demand-based L2P caching (the demand-based caching of ConZone+ §1 and of
//! DFTL, docs/papers.md): each survivor adds its map page, and when the victim is done every page is
//! updated once, in ascending order.
//! A bit per map page of the namespace replaces a list sorted and deduplicated per victim
//! (thousands of survivors over about a thousand map pages).

/// A set of map page indexes (offsets from a namespace's first map page) below a bound
/// fixed at creation, iterated in ascending order.
#[derive(Debug, Clone, Default)]
pub struct MapPageSet {
    words: Vec<u64>,
}

impl MapPageSet {
    /// An empty set for indexes `0..pages`.
    pub fn new(pages: u32) -> MapPageSet {
        MapPageSet {
            words: vec![0; (pages as usize).div_ceil(64)],
        }
    }

    /// Add map page `i` (`i` below the bound).
    #[inline]
    pub fn insert(&mut self, i: u32) {
        let w = (i / 64) as usize;
        self.words[w] |= 1 << (i % 64);
    }

    /// Is the set empty?
    pub fn is_empty(&self) -> bool {
        self.words.iter().all(|&w| w == 0)
    }

    /// Call `f` on every member, ascending, and empty the set.
    #[inline]
    pub fn drain(&mut self, mut f: impl FnMut(u32)) {
        for (k, w) in self.words.iter_mut().enumerate() {
            let base = (k * 64) as u32;
            let mut bits = std::mem::take(w);
            while bits != 0 {
                f(base + bits.trailing_zeros());
                bits &= bits - 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Against the list it replaces: the sorted, deduplicated pages of each victim, and
        /// nothing carried over to the next victim.
        #[test]
        fn drains_as_sorted_dedup(
            victims in prop::collection::vec(prop::collection::vec(0u32..1000, 0..300), 1..5),
        ) {
            let mut set = MapPageSet::new(1000);
            for pages in &victims {
                let mut reference = pages.clone();
                reference.sort_unstable();
                reference.dedup();
                for &p in pages {
                    set.insert(p);
                }
                prop_assert_eq!(set.is_empty(), reference.is_empty());
                let mut got = Vec::new();
                set.drain(|p| got.push(p));
                prop_assert_eq!(&got, &reference);
                prop_assert!(set.is_empty());
                set.drain(|p| got.push(p));
                prop_assert_eq!(got.len(), reference.len());
            }
        }
    }
}
