//! The L2P SRAM of a device, shared by all its namespaces (ConZone+ §4: namespaces share the
//! L2P cache, entries keyed by namespace). Two indexes live in one byte budget
//! (`ftl.l2p_cache_bytes`) with one LRU order:
//!
//! - conventional namespaces cache whole map pages (DFTL; `nand.page_bytes` each), indexed
//!   directly by map page number ([`L2pCache`]);
//! - zoned namespaces cache single zone / chunk / page entries (`ftl.map_entry_bytes` each)
//!   keyed by (namespace, level, address) in a hashed cache ([`HybridCache`]).
//!
//! Every use stamps the item from one clock; making room evicts whichever index holds the least
//! recently used item, so a busy namespace takes SRAM from an idle one, as in a shared cache.
//! An evicted dirty map page is returned to the caller, which writes it back
//! ([`program_map_page`]).

use super::{CacheAccess, HybridCache, L2pCache};
use crate::config::CellType;
use crate::engine::SimTime;
use crate::nand::{NandArray, OpClass};

#[derive(Clone)]
pub struct L2pSram {
    pub pages: L2pCache,
    pub entries: HybridCache,
    capacity_bytes: u64,
    page_cost: u64,
    entry_cost: u64,
    clock: u64,
    /// Every map page and every entry fit at once (a device whose whole map is in DRAM):
    /// nothing is ever evicted, so no LRU order is kept for the map pages.
    fits_all: bool,
}

impl L2pSram {
    /// `capacity_bytes` of SRAM over `map_pages` map pages of `page_bytes` and up to
    /// `max_entries` zoned entries of `entry_bytes` (0 when the device has no zoned namespace;
    /// the entry slab is never larger than the SRAM or the entries that can exist).
    pub fn new(
        capacity_bytes: u64,
        page_bytes: u64,
        entry_bytes: u64,
        map_pages: u32,
        max_entries: u64,
    ) -> L2pSram {
        let slab = (capacity_bytes / entry_bytes)
            .min(max_entries)
            .clamp(1, u32::MAX as u64) as u32;
        L2pSram {
            pages: L2pCache::new(map_pages),
            entries: HybridCache::new(slab),
            capacity_bytes,
            page_cost: page_bytes,
            entry_cost: entry_bytes,
            clock: 0,
            fits_all: map_pages as u64 * page_bytes + max_entries.saturating_mul(entry_bytes)
                <= capacity_bytes,
        }
    }

    pub fn capacity_bytes(&self) -> u64 {
        self.capacity_bytes
    }

    /// SRAM in use.
    #[inline]
    pub fn used_bytes(&self) -> u64 {
        self.pages.len() as u64 * self.page_cost + self.entries.len() as u64 * self.entry_cost
    }

    #[inline]
    fn tick(&mut self) -> u64 {
        self.clock += 1;
        self.clock
    }

    /// Evict least recently used items (of either index) until `cost` more bytes fit. Returns
    /// the dirty map page evicted, if one was (one page makes room for anything).
    fn make_room(&mut self, cost: u64) -> Option<u32> {
        let mut dirty = None;
        while self.used_bytes() + cost > self.capacity_bytes {
            let take_page = match (self.pages.tail_stamp(), self.entries.tail_stamp()) {
                (Some(p), Some(e)) => p <= e,
                (Some(_), None) => true,
                (None, Some(_)) => false,
                (None, None) => break, // everything left is pinned
            };
            if take_page {
                if let Some((mp, true)) = self.pages.evict_lru() {
                    self.pages.counters.writebacks += 1;
                    self.pages.set_on_flash(mp);
                    dirty = Some(mp);
                }
            } else {
                self.entries.evict_lru();
            }
        }
        dirty
    }

    /// Conventional namespaces: look up map page `mp`, loading it on a miss, dirtying it if
    /// `dirty`.
    #[inline]
    pub fn access(&mut self, mp: u32, dirty: bool) -> CacheAccess {
        const HIT: CacheAccess = CacheAccess {
            hit: true,
            evicted_dirty: None,
        };
        if self.hit_in_place(mp, dirty) {
            return HIT;
        }
        let s = self.tick();
        // With the whole map fitting, a page not cached is a miss (no order is kept).
        if !self.fits_all && self.pages.touch(mp, s, dirty) {
            self.pages.counters.hits += 1;
            return HIT;
        }
        self.pages.counters.misses += 1;
        let evicted_dirty = self.make_room(self.page_cost);
        self.pages.insert(mp, s, dirty);
        CacheAccess {
            hit: false,
            evicted_dirty,
        }
    }

    /// The hit of [`L2pSram::access`] that keeps no LRU order (the whole map fits and `mp` is
    /// cached): true, counted. Otherwise false with nothing changed, and [`L2pSram::access`]
    /// goes on. Inlined into the map lookup of every request where [`L2pSram::access`] is not
    /// (which starts with it too).
    #[inline(always)]
    pub fn hit_in_place(&mut self, mp: u32, dirty: bool) -> bool {
        if !(self.fits_all && self.pages.contains(mp)) {
            return false;
        }
        self.tick();
        self.pages.touch_unordered(mp, dirty);
        self.pages.counters.hits += 1;
        true
    }

    /// Dirty map unit `mp` if it is cached (its LRU position unchanged).
    pub fn mark_dirty(&mut self, mp: u32) {
        self.pages.mark_dirty(mp);
    }

    /// Map page `mp` has a copy on flash (a miss on it must read it).
    #[inline]
    pub fn page_on_flash(&self, mp: u32) -> bool {
        self.pages.on_flash(mp)
    }

    /// Map page `mp` was programmed to flash outside the cache (GC's batched update).
    pub fn set_page_on_flash(&mut self, mp: u32) {
        self.pages.set_on_flash(mp);
    }

    pub fn contains_page(&self, mp: u32) -> bool {
        self.pages.contains(mp)
    }

    /// Zoned namespaces: is entry `k` cached (a hit makes it most recently used)?
    #[inline]
    pub fn lookup(&mut self, k: u64) -> bool {
        let s = self.tick();
        self.entries.lookup(k, s)
    }

    /// Zoned namespaces: cache entry `k` (pinned if `pin`). Returns a dirty map page of a
    /// conventional namespace evicted to make room, which the caller must write back.
    #[inline]
    pub fn insert(&mut self, k: u64, pin: bool) -> Option<u32> {
        let s = self.tick();
        let evicted = if self.entries.contains(k) {
            None
        } else {
            self.make_room(self.entry_cost)
        };
        self.entries.insert(k, pin, s);
        evicted
    }

    pub fn remove(&mut self, k: u64) -> bool {
        self.entries.remove(k)
    }

    pub fn contains(&self, k: u64) -> bool {
        self.entries.contains(k)
    }

    /// Within budget, and both indexes consistent.
    /// Shrink the budget below what is held, as only a simulator bug could: for the tests that
    /// a broken invariant is reported as an internal error.
    #[doc(hidden)]
    pub fn break_budget_for_test(&mut self) {
        self.capacity_bytes = 0;
    }

    pub fn check(&self) -> Result<(), String> {
        if self.used_bytes() > self.capacity_bytes {
            return Err(format!(
                "L2P SRAM over budget: {} > {} bytes",
                self.used_bytes(),
                self.capacity_bytes
            ));
        }
        self.entries.check()
    }
}

/// Write back map page `mp` of a conventional namespace: one SLC page program in the reserved
/// map area on die `mp mod dies`. Returns when it completes.
pub fn program_map_page(nand: &mut NandArray, mp: u32, now: SimTime) -> SimTime {
    let die = mp % nand.geo.dies;
    let slots = nand.geo.slots_per_page;
    nand.program(now, die, slots, 1, CellType::Slc, OpClass::HostWrite)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::firmware::mapping::{cache_key, Level};

    /// With room for the whole map nothing is evicted, and hits, misses and dirty pages are
    /// counted as with a budget just large enough.
    #[test]
    fn whole_map_in_sram_keeps_no_order_and_never_evicts() {
        let mut big = L2pSram::new(4 * 16, 16, 4, 4, 0);
        let mut tight = L2pSram::new(4 * 16, 16, 4, 5, 0);
        assert!(big.fits_all && !tight.fits_all);
        for (i, mp) in [0u32, 1, 2, 1, 3, 0, 3, 3].into_iter().enumerate() {
            let (a, b) = (big.access(mp, i % 2 == 0), tight.access(mp, i % 2 == 0));
            assert_eq!(a, b, "access {i} of page {mp}");
        }
        assert_eq!(big.pages.counters.hits, tight.pages.counters.hits);
        assert_eq!(big.pages.len(), 4);
        assert!(big.used_bytes() <= big.capacity_bytes());
    }

    /// Map pages and zoned entries compete for one budget in one LRU order.
    #[test]
    fn one_budget_one_lru_order_across_both_indexes() {
        // 2 map pages of 16 bytes, or 8 entries of 4 bytes, or a mix.
        let mut s = L2pSram::new(32, 16, 4, 10, 1000);
        assert!(!s.access(1, true).hit);
        assert!(!s.access(2, false).hit);
        // Four entries need 16 bytes: map page 1 (least recent, dirty) goes.
        let mut dirty = None;
        for a in 0..4 {
            dirty = dirty.or(s.insert(cache_key(1, Level::Page, a), false));
        }
        assert_eq!(dirty, Some(1));
        assert!(!s.contains_page(1) && s.contains_page(2));
        assert_eq!(s.used_bytes(), 32);
        // Touch page 2; the next page load evicts the four older entries, not page 2.
        assert!(s.access(2, false).hit);
        assert!(!s.access(3, false).hit);
        assert!(s.contains_page(2) && s.contains_page(3));
        assert_eq!(s.entries.len(), 0);
        assert_eq!(s.pages.counters.writebacks, 1);
        s.check().unwrap();
    }
}
