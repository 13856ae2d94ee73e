//! A set of small integers with insertion order kept (bitmap + list): dirty pages of a file,
//! dirty nodes, dirty NAT / SIT entries and blocks, blocks held until the next checkpoint.
//! Insert and drain do not allocate once grown.

#[derive(Debug, Clone, Default)]
pub struct DirtySet {
    bits: Vec<u64>,
    list: Vec<u32>,
}

impl DirtySet {
    /// Add `i`; true if it was not in the set.
    #[inline]
    pub fn insert(&mut self, i: u32) -> bool {
        let w = (i >> 6) as usize;
        if w >= self.bits.len() {
            self.bits.resize(w + 1, 0);
        }
        let m = 1u64 << (i & 63);
        if self.bits[w] & m != 0 {
            return false;
        }
        self.bits[w] |= m;
        self.list.push(i);
        true
    }

    /// Whether `i` is in the set. An empty set answers without reading the bitmap: a large
    /// file's bitmap is megabytes, and a direct-I/O file's set is empty at every request, so
    /// the bitmap read was a cache miss per page (measured: most of the ext4 model's time per
    /// request on a 1 TiB device).
    #[inline]
    pub fn contains(&self, i: u32) -> bool {
        let w = (i >> 6) as usize;
        !self.list.is_empty() && w < self.bits.len() && self.bits[w] & (1u64 << (i & 63)) != 0
    }

    pub fn len(&self) -> usize {
        self.list.len()
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// The members in insertion order.
    pub fn items(&self) -> &[u32] {
        &self.list
    }

    /// Move the members into `out` (cleared first) and empty the set.
    pub fn drain_into(&mut self, out: &mut Vec<u32>) {
        out.clear();
        for &i in &self.list {
            self.bits[(i >> 6) as usize] &= !(1u64 << (i & 63));
        }
        std::mem::swap(out, &mut self.list);
        self.list.clear();
    }

    /// Remove `i` if present (linear in the set size: for small sets only).
    pub fn remove(&mut self, i: u32) {
        if self.contains(i) {
            self.bits[(i >> 6) as usize] &= !(1u64 << (i & 63));
            if let Some(p) = self.list.iter().position(|&x| x == i) {
                self.list.swap_remove(p);
            }
        }
    }

    pub fn clear(&mut self) {
        for &i in &self.list {
            self.bits[(i >> 6) as usize] &= !(1u64 << (i & 63));
        }
        self.list.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::DirtySet;
    use proptest::prelude::*;
    use std::collections::BTreeSet;

    proptest! {
        /// Under any sequence of inserts, removes, drains and clears the set answers as a
        /// plain set does, and lists its members in insertion order.
        #[test]
        fn behaves_as_a_set(ops in proptest::collection::vec((0u8..4, 0u32..300), 0..200)) {
            let mut s = DirtySet::default();
            let mut model = BTreeSet::new();
            let mut order: Vec<u32> = Vec::new();
            let mut out = Vec::new();
            for (op, i) in ops {
                match op {
                    0 => {
                        prop_assert_eq!(s.insert(i), model.insert(i));
                        if !order.contains(&i) {
                            order.push(i);
                        }
                    }
                    1 => {
                        s.remove(i);
                        model.remove(&i);
                        if let Some(p) = order.iter().position(|&x| x == i) {
                            order.swap_remove(p);
                        }
                    }
                    2 => {
                        s.drain_into(&mut out);
                        prop_assert_eq!(&out, &order);
                        model.clear();
                        order.clear();
                    }
                    _ => {
                        s.clear();
                        model.clear();
                        order.clear();
                    }
                }
                for k in 0..300 {
                    prop_assert_eq!(s.contains(k), model.contains(&k), "member {}", k);
                }
                prop_assert_eq!(s.len(), model.len());
                prop_assert_eq!(s.is_empty(), model.is_empty());
                prop_assert_eq!(s.items(), &order[..]);
            }
        }
    }
}
