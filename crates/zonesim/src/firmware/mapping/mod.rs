//! Mapping: logical-to-physical (L2P) and physical-to-logical (reverse) maps, and the L2P
//! cache that holds the map pages currently in SRAM (design.md §1 "Mapping", DFTL-like:
//! a miss costs a flash read of the map page before the data read; dirty map pages are
//! written back on eviction).

mod cache;
mod hybrid_cache;
mod lru;
mod page_map;

pub use cache::{CacheAccess, L2pCache, L2pCounters};
pub use hybrid_cache::{key as cache_key, HybridCache, HybridCacheCounters, Level};
pub use page_map::{Entry, Lpa, PageMap, Ppa, TAG_MASK};
