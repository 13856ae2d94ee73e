//! The L2P cache of zoned namespaces: single mapping *entries* of any level (zone, 4 MiB chunk,
//! page), keyed by (namespace, level, logical address), hashed into buckets, LRU replacement,
//! optional pinning (ConZone §3.3 "Management of L2P Cache", ConZone+ §4 "NS" in the key,
//! ConZone §6.6 pinning).
//!
//! The slab holds up to `ftl.l2p_cache_bytes / ftl.map_entry_bytes` entries; the SRAM budget
//! shared with the conventional namespaces' map pages is enforced by [`super::L2pSram`], which
//! evicts across both by last-use stamp. Everything is
//! preallocated: a slab of entries, a chained hash over a power-of-two bucket array with an
//! integer multiplicative hash, and an intrusive doubly-linked LRU list of the unpinned entries.
//! No allocation, no string hashing on any operation.

use serde::Serialize;

use super::lru::{LruList, NIL};

/// Mapping granularity of an entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Level {
    Zone = 0,
    Chunk = 1,
    Page = 2,
}

/// Cache key: namespace, level and the logical address at that level (zone id, chunk id, LPA).
#[inline]
pub fn key(ns: u8, level: Level, addr: u32) -> u64 {
    ((ns as u64) << 40) | ((level as u64) << 32) | addr as u64
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct HybridCacheCounters {
    pub evictions: u64,
    pub inserts: u64,
}

#[derive(Clone)]
pub struct HybridCache {
    capacity: u32,
    len: u32,
    pinned: u32,
    keys: Vec<u64>,
    /// Next entry in the bucket chain.
    chain: Vec<u32>,
    lru: LruList,
    is_pinned: Vec<bool>,
    /// Last-use stamp of each entry (for the LRU order across caches).
    stamp: Vec<u64>,
    buckets: Vec<u32>,
    shift: u32,
    free: Vec<u32>,
    pub counters: HybridCacheCounters,
}

impl HybridCache {
    /// A cache of `capacity` entries (at least 1).
    pub fn new(capacity: u32) -> HybridCache {
        let capacity = capacity.max(1);
        let nb = (capacity as usize * 2).next_power_of_two().max(16);
        let n = capacity as usize;
        HybridCache {
            capacity,
            len: 0,
            pinned: 0,
            keys: vec![0; n],
            chain: vec![NIL; n],
            lru: LruList::new(n),
            is_pinned: vec![false; n],
            stamp: vec![0; n],
            buckets: vec![NIL; nb],
            shift: 64 - nb.trailing_zeros(),
            free: (0..capacity).rev().collect(),
            counters: HybridCacheCounters::default(),
        }
    }

    pub fn capacity(&self) -> u32 {
        self.capacity
    }
    pub fn len(&self) -> u32 {
        self.len
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    pub fn pinned(&self) -> u32 {
        self.pinned
    }

    #[inline]
    fn bucket(&self, k: u64) -> usize {
        (k.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> self.shift) as usize
    }

    #[inline]
    fn find(&self, k: u64) -> u32 {
        let mut e = self.buckets[self.bucket(k)];
        while e != NIL {
            if self.keys[e as usize] == k {
                return e;
            }
            e = self.chain[e as usize];
        }
        NIL
    }

    /// Is `k` cached? A hit moves it to the front of the LRU list (last use `stamp`).
    #[inline]
    pub fn lookup(&mut self, k: u64, stamp: u64) -> bool {
        let e = self.find(k);
        if e == NIL {
            return false;
        }
        if !self.is_pinned[e as usize] {
            self.lru.touch(e);
            self.stamp[e as usize] = stamp;
        }
        true
    }

    /// Last-use stamp of the least recently used unpinned entry.
    #[inline]
    pub fn tail_stamp(&self) -> Option<u64> {
        (self.lru.tail != NIL).then(|| self.stamp[self.lru.tail as usize])
    }

    /// Evict the least recently used unpinned entry; false if there is none.
    #[inline]
    pub fn evict_lru(&mut self) -> bool {
        let v = self.lru.tail;
        if v == NIL {
            return false;
        }
        self.remove_entry(v);
        self.counters.evictions += 1;
        true
    }

    pub fn contains(&self, k: u64) -> bool {
        self.find(k) != NIL
    }

    fn unchain(&mut self, e: u32) {
        let b = self.bucket(self.keys[e as usize]);
        let mut cur = self.buckets[b];
        let mut prev = NIL;
        while cur != e {
            prev = cur;
            cur = self.chain[cur as usize];
        }
        if prev == NIL {
            self.buckets[b] = self.chain[e as usize];
        } else {
            self.chain[prev as usize] = self.chain[e as usize];
        }
    }

    /// Insert `k` (a touch if present; `pin` then pins it). When the slab is full, the least
    /// recently used unpinned entry is evicted. A pinned insert becomes unpinned if pinning it
    /// would leave no room for unpinned entries.
    pub fn insert(&mut self, k: u64, pin: bool, stamp: u64) {
        let pin = pin && self.pinned + 1 < self.capacity;
        let e = self.find(k);
        if e != NIL {
            if pin && !self.is_pinned[e as usize] {
                self.lru.unlink(e);
                self.is_pinned[e as usize] = true;
                self.pinned += 1;
            } else if !self.is_pinned[e as usize] {
                self.lru.touch(e);
                self.stamp[e as usize] = stamp;
            }
            return;
        }
        if self.len == self.capacity {
            let v = self.lru.tail;
            if v == NIL {
                return; // everything pinned
            }
            self.remove_entry(v);
            self.counters.evictions += 1;
        }
        let e = self.free.pop().expect("free slot");
        self.keys[e as usize] = k;
        let b = self.bucket(k);
        self.chain[e as usize] = self.buckets[b];
        self.buckets[b] = e;
        self.is_pinned[e as usize] = pin;
        self.stamp[e as usize] = stamp;
        if pin {
            self.pinned += 1;
        } else {
            self.lru.push_front(e);
        }
        self.len += 1;
        self.counters.inserts += 1;
    }

    fn remove_entry(&mut self, e: u32) {
        self.unchain(e);
        if self.is_pinned[e as usize] {
            self.is_pinned[e as usize] = false;
            self.pinned -= 1;
        } else {
            self.lru.unlink(e);
        }
        self.len -= 1;
        self.free.push(e);
    }

    /// Drop `k` if cached. Returns whether it was.
    pub fn remove(&mut self, k: u64) -> bool {
        let e = self.find(k);
        if e == NIL {
            return false;
        }
        self.remove_entry(e);
        true
    }

    /// Drop every entry.
    pub fn clear(&mut self) {
        self.buckets.iter_mut().for_each(|b| *b = NIL);
        self.free.clear();
        self.free.extend((0..self.capacity).rev());
        self.is_pinned.iter_mut().for_each(|p| *p = false);
        self.len = 0;
        self.pinned = 0;
        self.lru.clear();
    }

    /// Entries, pinned entries and LRU list agree; every entry is findable by its key.
    pub fn check(&self) -> Result<(), String> {
        let mut n = 0u32;
        let mut cur = self.lru.head;
        while cur != NIL {
            n += 1;
            if n > self.capacity {
                return Err("L2P cache LRU list has a cycle".into());
            }
            if self.find(self.keys[cur as usize]) != cur {
                return Err(format!("L2P cache entry {cur} not findable by its key"));
            }
            cur = self.lru.next_of(cur);
        }
        if n + self.pinned != self.len {
            return Err(format!(
                "L2P cache: {n} in LRU + {} pinned != {} entries",
                self.pinned, self.len
            ));
        }
        if self.len as usize + self.free.len() != self.capacity as usize {
            return Err("L2P cache slab leaked entries".into());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lru_pin_and_remove() {
        let mut c = HybridCache::new(3);
        let k = |a| key(1, Level::Page, a);
        c.insert(k(1), false, 1);
        c.insert(k(2), false, 2);
        c.insert(key(1, Level::Zone, 0), true, 3);
        assert!(c.lookup(k(1), 4)); // 2 is LRU
        assert_eq!(c.tail_stamp(), Some(2));
        c.insert(k(3), false, 5); // evicts 2; pinned zone entry stays
        assert!(!c.contains(k(2)));
        assert!(c.contains(k(1)) && c.contains(k(3)) && c.contains(key(1, Level::Zone, 0)));
        // Same address, other level or namespace: different keys.
        assert!(!c.contains(key(1, Level::Chunk, 1)));
        assert!(!c.contains(key(0, Level::Page, 1)));
        assert!(c.remove(k(1)));
        assert!(!c.remove(k(1)));
        assert_eq!(c.len(), 2);
        assert_eq!(c.pinned(), 1);
        c.check().unwrap();
        // Fill with many keys colliding in few buckets: still consistent.
        let mut c = HybridCache::new(64);
        for a in 0..10_000u32 {
            c.insert(k(a * 7919), a % 50 == 0, a as u64);
            if a % 3 == 0 {
                c.remove(k((a / 2) * 7919));
            }
        }
        c.check().unwrap();
        assert!(c.len() <= 64);
    }
}
