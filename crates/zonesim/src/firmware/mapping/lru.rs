//! An intrusive doubly-linked LRU list over dense `u32` ids (no allocation after creation),
//! shared by the L2P caches.

pub const NIL: u32 = u32::MAX;

#[derive(Debug, Clone)]
pub struct LruList {
    prev: Vec<u32>,
    next: Vec<u32>,
    pub head: u32,
    pub tail: u32,
}

impl LruList {
    /// A list over ids `0..n`, empty.
    pub fn new(n: usize) -> LruList {
        LruList {
            prev: vec![NIL; n],
            next: vec![NIL; n],
            head: NIL,
            tail: NIL,
        }
    }

    #[inline]
    pub fn unlink(&mut self, k: u32) {
        let (p, n) = (self.prev[k as usize], self.next[k as usize]);
        if p != NIL {
            self.next[p as usize] = n;
        } else {
            self.head = n;
        }
        if n != NIL {
            self.prev[n as usize] = p;
        } else {
            self.tail = p;
        }
    }

    #[inline]
    pub fn push_front(&mut self, k: u32) {
        self.prev[k as usize] = NIL;
        self.next[k as usize] = self.head;
        if self.head != NIL {
            self.prev[self.head as usize] = k;
        } else {
            self.tail = k;
        }
        self.head = k;
    }

    /// Move `k` (in the list) to the front.
    #[inline]
    pub fn touch(&mut self, k: u32) {
        if self.head != k {
            self.unlink(k);
            self.push_front(k);
        }
    }

    /// The id after `k` (towards the tail).
    #[inline]
    pub fn next_of(&self, k: u32) -> u32 {
        self.next[k as usize]
    }

    pub fn clear(&mut self) {
        self.head = NIL;
        self.tail = NIL;
    }
}
