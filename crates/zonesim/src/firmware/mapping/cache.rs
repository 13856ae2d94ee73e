use serde::Serialize;

use super::lru::{LruList, NIL};

/// Counters of the L2P cache.
#[derive(Debug, Clone, Default, Serialize)]
pub struct L2pCounters {
    pub hits: u64,
    pub misses: u64,
    /// Dirty map pages written back to flash on eviction.
    pub writebacks: u64,
}

/// Outcome of one cache access.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CacheAccess {
    pub hit: bool,
    /// A dirty map page evicted to make room (must be written back).
    pub evicted_dirty: Option<u32>,
}

/// LRU cache of map pages, indexed directly by map page number: the map of a device has at
/// most a few hundred thousand map pages, so an intrusive doubly-linked list over arrays gives
/// O(1) lookup, touch and eviction with no hashing or allocation on the hot path.
pub struct L2pCache {
    capacity: u32,
    len: u32,
    lru: LruList,
    cached: Vec<bool>,
    dirty: Vec<bool>,
    pub counters: L2pCounters,
}

impl L2pCache {
    /// `capacity` map pages over a key space of `map_pages`.
    pub fn new(capacity: u32, map_pages: u32) -> L2pCache {
        let n = map_pages as usize;
        L2pCache {
            capacity: capacity.max(1),
            len: 0,
            lru: LruList::new(n),
            cached: vec![false; n],
            dirty: vec![false; n],
            counters: L2pCounters::default(),
        }
    }

    pub fn capacity(&self) -> u32 {
        self.capacity
    }

    /// Look up map page `k`, loading it on a miss (evicting the LRU page if full) and marking it
    /// dirty if `dirty`.
    #[inline]
    pub fn access(&mut self, k: u32, dirty: bool) -> CacheAccess {
        let ki = k as usize;
        if self.cached[ki] {
            self.counters.hits += 1;
            self.lru.touch(k);
            self.dirty[ki] |= dirty;
            return CacheAccess {
                hit: true,
                evicted_dirty: None,
            };
        }
        self.counters.misses += 1;
        let mut evicted_dirty = None;
        if self.len == self.capacity {
            let v = self.lru.tail;
            debug_assert_ne!(v, NIL);
            self.lru.unlink(v);
            self.cached[v as usize] = false;
            if std::mem::take(&mut self.dirty[v as usize]) {
                self.counters.writebacks += 1;
                evicted_dirty = Some(v);
            }
        } else {
            self.len += 1;
        }
        self.cached[ki] = true;
        self.dirty[ki] = dirty;
        self.lru.push_front(k);
        CacheAccess {
            hit: false,
            evicted_dirty,
        }
    }

    pub fn contains(&self, k: u32) -> bool {
        self.cached[k as usize]
    }

    pub fn len(&self) -> u32 {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lru_evicts_least_recent_and_reports_dirty() {
        let mut c = L2pCache::new(2, 10);
        assert!(!c.access(1, true).hit);
        assert!(!c.access(2, false).hit);
        assert!(c.access(1, false).hit); // 2 is now LRU
        let a = c.access(3, false);
        assert_eq!(a.evicted_dirty, None); // 2 was clean
        assert!(c.contains(1) && c.contains(3) && !c.contains(2));
        let a = c.access(4, false); // evicts 1, dirty
        assert_eq!(a.evicted_dirty, Some(1));
        assert_eq!(c.counters.hits, 1);
        assert_eq!(c.counters.misses, 4);
        assert_eq!(c.counters.writebacks, 1);
        assert_eq!(c.len(), 2);
    }
}
