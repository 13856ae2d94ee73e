//! Mapping: logical-to-physical (L2P) and physical-to-logical (reverse) maps, and the L2P
//! SRAM shared by the namespaces ([`L2pSram`]: map pages of conventional namespaces and
//! zone/chunk/page entries of zoned ones) (DFTL-like, docs/config.md:
//! a miss costs a flash read of the map page before the data read; dirty map pages are
//! written back on eviction), and the hybrid zone/chunk/page map of zoned namespaces
//! ([`HybridMap`], ConZone §3.3), the CUFS two-level L1/L2 map of conventional namespaces
//! ([`TwoLevelMap`], ZUFS §2.2), and the zone mapping table + log of Zoned UFS ([`ZoneMap`],
//! ZUFS §4.1), and [`MapPageSet`], the map pages a GC victim's batched update touches.

mod cache;
mod hybrid;
mod hybrid_cache;
pub(in crate::firmware) mod lru;
mod page_map;
mod page_set;
mod sram;
mod two_level;
mod zone_map;

pub use cache::{CacheAccess, L2pCache, L2pCounters};
pub use hybrid::{HybridCounters, HybridMap, LastMapPage, ZoneExtent, CHUNK_SLOTS};
pub use hybrid_cache::{key as cache_key, HybridCache, HybridCacheCounters, Level};
pub use page_map::{Entry, Lpa, PageMap, Ppa, TAG_MASK};
pub use page_set::MapPageSet;
pub use sram::{program_map_page, L2pSram};
pub use two_level::{TwoLevelCounters, TwoLevelMap};
pub use zone_map::{ZmtEntry, ZoneMap, ZoneMapCounters, NO_START, ZMT_ENTRY_BYTES};
