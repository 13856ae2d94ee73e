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

    #[inline]
    pub fn contains(&self, i: u32) -> bool {
        let w = (i >> 6) as usize;
        w < self.bits.len() && self.bits[w] & (1u64 << (i & 63)) != 0
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
