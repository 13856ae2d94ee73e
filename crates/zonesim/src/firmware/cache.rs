//! The DRAM data cache in front of the FTL (`cache.bytes`; MCMQ §III-B "data cache",
//! MCMQ's `data_cache.c`, MQSim's data cache manager): 4 KiB pages in LRU order, write-back.
//! A read of a cached page is served from DRAM; a read miss fills the page (clean) after the
//! flash read; a write lands in the cache (dirty) and completes there, evicting the LRU page,
//! which is written back to the FTL if dirty. One cache per conventional namespace, each with
//! an equal share of the bytes (MCMQ splits the data cache over its namespaces).

use super::mapping::lru::{LruList, NIL};
use serde::Serialize;

#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct CacheCounters {
    pub read_hits: u64,
    pub read_misses: u64,
    pub write_hits: u64,
    pub write_misses: u64,
    /// Dirty pages evicted and written back to the FTL.
    pub writebacks: u64,
}

impl CacheCounters {
    pub fn hit_rate(&self) -> f64 {
        let all = self.read_hits + self.read_misses + self.write_hits + self.write_misses;
        if all == 0 {
            0.0
        } else {
            (self.read_hits + self.write_hits) as f64 / all as f64
        }
    }
}

#[derive(Clone)]
pub struct DataCache {
    /// Cache slot of each logical page, or NIL.
    slot_of: Vec<u32>,
    /// Logical page and dirtiness of each slot.
    lpa: Vec<u32>,
    dirty: Vec<bool>,
    lru: LruList,
    used: u32,
    /// Slots freed by trims.
    free: Vec<u32>,
    pub counters: CacheCounters,
}

impl DataCache {
    /// A cache of `pages` 4 KiB pages over `logical` logical pages.
    pub fn new(pages: u32, logical: u64) -> DataCache {
        let pages = pages.max(1);
        DataCache {
            slot_of: vec![NIL; logical as usize],
            lpa: vec![NIL; pages as usize],
            dirty: vec![false; pages as usize],
            lru: LruList::new(pages as usize),
            used: 0,
            free: Vec::new(),
            counters: CacheCounters::default(),
        }
    }

    pub fn capacity(&self) -> u32 {
        self.lpa.len() as u32
    }

    /// Look up a page for a read: a hit touches it.
    #[inline]
    pub fn read(&mut self, lpa: u32) -> bool {
        let s = self.slot_of[lpa as usize];
        if s == NIL {
            self.counters.read_misses += 1;
            return false;
        }
        self.counters.read_hits += 1;
        self.lru.touch(s);
        true
    }

    /// Put `lpa` in the cache (dirty for a write); returns the dirty page evicted, if any.
    #[inline]
    pub fn insert(&mut self, lpa: u32, dirty: bool) -> Option<u32> {
        let s = self.slot_of[lpa as usize];
        if s != NIL {
            if dirty {
                self.counters.write_hits += 1;
            }
            self.dirty[s as usize] |= dirty;
            self.lru.touch(s);
            return None;
        }
        if dirty {
            self.counters.write_misses += 1;
        }
        let mut evicted = None;
        let slot = if let Some(f) = self.free.pop() {
            f
        } else if self.used < self.capacity() {
            self.used += 1;
            self.used - 1
        } else {
            let v = self.lru.tail;
            self.lru.unlink(v);
            let old = self.lpa[v as usize];
            self.slot_of[old as usize] = NIL;
            if self.dirty[v as usize] {
                self.counters.writebacks += 1;
                evicted = Some(old);
            }
            v
        };
        self.slot_of[lpa as usize] = slot;
        self.lpa[slot as usize] = lpa;
        self.dirty[slot as usize] = dirty;
        self.lru.push_front(slot);
        evicted
    }

    /// Drop a page (trimmed): its data is gone, nothing is written back; its slot is reused
    /// first.
    pub fn discard(&mut self, lpa: u32) {
        let s = self.slot_of[lpa as usize];
        if s != NIL {
            self.lru.unlink(s);
            self.slot_of[lpa as usize] = NIL;
            self.lpa[s as usize] = NIL;
            self.dirty[s as usize] = false;
            self.free.push(s);
        }
    }

    /// Dirty pages in slot order, marked clean (a host flush writes them back).
    pub fn take_dirty(&mut self, out: &mut Vec<u32>) {
        for (s, d) in self.dirty.iter_mut().enumerate() {
            if *d {
                *d = false;
                out.push(self.lpa[s]);
            }
        }
        self.counters.writebacks += out.len() as u64;
    }

    /// Drop every page (after [`DataCache::take_dirty`] wrote the dirty ones back): the cache
    /// is cold, as after the device's power cycle.
    pub fn empty(&mut self) {
        for &l in &self.lpa {
            if l != NIL {
                self.slot_of[l as usize] = NIL;
            }
        }
        let pages = self.capacity();
        self.lpa.fill(NIL);
        self.dirty.fill(false);
        self.lru = LruList::new(pages as usize);
        self.used = 0;
        self.free.clear();
    }

    /// Nothing cached.
    pub fn is_empty(&self) -> bool {
        self.lpa.iter().all(|&l| l == NIL)
    }

    /// Every cached page maps back to its slot.
    pub fn check(&self) -> bool {
        self.lpa
            .iter()
            .enumerate()
            .all(|(s, &l)| l == NIL || self.slot_of[l as usize] == s as u32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lru_write_back() {
        let mut c = DataCache::new(2, 10);
        assert_eq!(c.insert(1, true), None);
        assert_eq!(c.insert(2, false), None);
        assert!(c.read(1));
        // 2 is the LRU page and clean: evicted silently.
        assert_eq!(c.insert(3, true), None);
        assert!(!c.read(2));
        // 1 is now LRU and dirty.
        assert_eq!(c.insert(4, false), Some(1));
        assert_eq!(c.counters.writebacks, 1);
        let mut v = Vec::new();
        c.take_dirty(&mut v);
        assert_eq!(v, vec![3]);
        assert_eq!(c.counters.writebacks, 2);
        c.discard(4);
        assert!(!c.read(4));
        assert!(c.check());
        c.empty();
        assert!(c.is_empty() && c.check());
        assert!(!c.read(3));
        assert_eq!(c.insert(5, true), None);
        assert!(c.read(5));
    }
}
