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

/// The map pages held in the L2P SRAM, indexed directly by map page number: the map of a
/// device has at most a few hundred thousand map pages, so an intrusive doubly-linked list over
/// arrays gives O(1) lookup, touch and eviction with no hashing or allocation on the hot path.
/// Capacity is enforced by the owner ([`super::L2pSram`]), which shares one byte budget and one
/// LRU order (the `stamp`s) with the zoned entry cache.
#[derive(Clone)]
pub struct L2pCache {
    len: u32,
    lru: LruList,
    cached: Vec<bool>,
    dirty: Vec<bool>,
    /// The page has a copy on flash (it was written back at least once); a miss on a page
    /// that never was costs no flash read: it is all unmapped and built in SRAM.
    on_flash: Vec<bool>,
    /// Last-use stamp of each cached page (for the LRU order across caches).
    stamp: Vec<u64>,
    pub counters: L2pCounters,
}

impl L2pCache {
    /// An empty cache over a key space of `map_pages`.
    pub fn new(map_pages: u32) -> L2pCache {
        let n = map_pages as usize;
        L2pCache {
            len: 0,
            lru: LruList::new(n),
            cached: vec![false; n],
            dirty: vec![false; n],
            on_flash: vec![false; n],
            stamp: vec![0; n],
            counters: L2pCounters::default(),
        }
    }

    /// If map page `k` is cached: mark it most recently used (at `stamp`), dirty it if `dirty`,
    /// and return true.
    #[inline]
    pub fn touch(&mut self, k: u32, stamp: u64, dirty: bool) -> bool {
        let ki = k as usize;
        if !self.cached[ki] {
            return false;
        }
        self.lru.touch(k);
        self.stamp[ki] = stamp;
        self.dirty[ki] |= dirty;
        true
    }

    /// [`L2pCache::touch`] for an owner that never evicts: the LRU order and stamps are left
    /// as they are.
    #[inline]
    pub fn touch_unordered(&mut self, k: u32, dirty: bool) -> bool {
        let ki = k as usize;
        if !self.cached[ki] {
            return false;
        }
        self.dirty[ki] |= dirty;
        true
    }

    /// Dirty map page `k` if it is cached, without touching its LRU position.
    #[inline]
    pub fn mark_dirty(&mut self, k: u32) {
        if self.cached[k as usize] {
            self.dirty[k as usize] = true;
        }
    }

    /// Insert map page `k` (not cached; the owner made room).
    #[inline]
    pub fn insert(&mut self, k: u32, stamp: u64, dirty: bool) {
        let ki = k as usize;
        debug_assert!(!self.cached[ki]);
        self.cached[ki] = true;
        self.dirty[ki] = dirty;
        self.stamp[ki] = stamp;
        self.lru.push_front(k);
        self.len += 1;
    }

    /// Last-use stamp of the least recently used page.
    #[inline]
    pub fn tail_stamp(&self) -> Option<u64> {
        (self.lru.tail != NIL).then(|| self.stamp[self.lru.tail as usize])
    }

    /// Evict the least recently used page: (page, was dirty).
    #[inline]
    pub fn evict_lru(&mut self) -> Option<(u32, bool)> {
        let v = self.lru.tail;
        if v == NIL {
            return None;
        }
        self.lru.unlink(v);
        self.cached[v as usize] = false;
        self.len -= 1;
        Some((v, std::mem::take(&mut self.dirty[v as usize])))
    }

    /// Map page `k` has been written to flash at least once.
    #[inline]
    pub fn on_flash(&self, k: u32) -> bool {
        self.on_flash[k as usize]
    }

    /// Map page `k` was programmed to flash.
    #[inline]
    pub fn set_on_flash(&mut self, k: u32) {
        self.on_flash[k as usize] = true;
    }

    #[inline]
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
    fn touch_insert_evict_in_lru_order() {
        let mut c = L2pCache::new(10);
        c.insert(1, 1, true);
        c.insert(2, 2, false);
        assert!(c.touch(1, 3, false)); // 2 is now LRU
        assert!(!c.touch(5, 4, false));
        assert_eq!(c.tail_stamp(), Some(2));
        assert_eq!(c.evict_lru(), Some((2, false)));
        assert_eq!(c.evict_lru(), Some((1, true)));
        assert_eq!(c.evict_lru(), None);
        assert!(c.is_empty());
    }
}
