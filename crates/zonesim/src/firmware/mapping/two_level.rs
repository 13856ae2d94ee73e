//! The two-level map of conventional UFS (CUFS; ZUFS §2.2, Fig. 2): `ftl.mapping =
//! two_level` on conventional namespaces.
//!
//! The page-level map is split into L2 tables, each holding the entries of one logically
//! contiguous region of `ftl.compressed_region_bytes` (default 4 MiB: 1024 entries of 4 B, a
//! 4 KiB table); an L1 entry points to each L2 table. Neither level is pinned: L1 entries are
//! cached in segments of the same 4 KiB (1024 L1 entries), and both levels share the one L2P
//! SRAM ([`super::L2pSram`], `ftl.l2p_cache_bytes`) and its LRU order. A lookup needs the L1
//! segment, then the L2 table; a miss on either costs a flash read (SLC map area) before the
//! data read. The L1 table lives on flash from format, so an L1 miss always reads; an L2
//! table never written back is built in SRAM without a read (as the page map's map pages).
//!
//! With `ftl.compressed_l1 = true` an L1 entry maps its region directly when the region's
//! pages are logically and physically contiguous (the "huge page" of §2.2): a read of such a
//! region needs only the L1 segment. A region becomes compressed when its last page is mapped
//! and the region is contiguous; any remapping of one of its pages (a host write, GC) breaks
//! it. Counters: L1 and L2 hits and misses, compressed-region hits (`device.l2p.two_level`).

use super::{Entry, Lpa, PageMap, Ppa};
use crate::config::DeviceConfig;
use crate::nand::SLOT_BYTES;
use serde::Serialize;

/// Bytes of one cached map unit (L2 table or L1 segment) of the two-level map.
fn unit_bytes(cfg: &DeviceConfig) -> u64 {
    region_pages(cfg) as u64 * cfg.ftl.map_entry_bytes as u64
}

/// Logical pages of one region (one L1 entry, one L2 table).
fn region_pages(cfg: &DeviceConfig) -> u32 {
    (cfg.ftl.compressed_region_bytes / SLOT_BYTES) as u32
}

/// Counters of the two-level map (`device.l2p.two_level`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct TwoLevelCounters {
    pub l1_hits: u64,
    pub l1_misses: u64,
    pub l2_hits: u64,
    pub l2_misses: u64,
    /// Reads resolved by a compressed L1 entry (no L2 table needed).
    pub compressed_hits: u64,
    /// Regions whose L1 entry is compressed now.
    pub compressed_regions: u64,
}

#[derive(Clone)]
pub struct TwoLevelMap {
    region_pages: u32,
    /// L1 entries per cached L1 segment.
    l1_per_segment: u32,
    /// Map-unit id of this namespace's first L1 segment in the shared SRAM (after its L2
    /// tables).
    l1_base: u32,
    /// Per region: its L1 entry maps it directly (empty without `ftl.compressed_l1`).
    compressed: Vec<bool>,
    pub counters: TwoLevelCounters,
}

impl TwoLevelMap {
    /// Bytes of one cached unit (L2 table or L1 segment): the SRAM cost of a map page.
    pub fn unit_bytes(cfg: &DeviceConfig) -> u64 {
        unit_bytes(cfg)
    }

    /// Entries of one L2 table (logical pages of one region).
    pub fn entries_per_table(cfg: &DeviceConfig) -> u32 {
        region_pages(cfg)
    }

    /// Map units (L2 tables, then L1 segments) of a namespace of `logical` pages.
    pub fn units_for(cfg: &DeviceConfig, logical: u64) -> u32 {
        let tables = logical.div_ceil(region_pages(cfg) as u64);
        let per_seg = unit_bytes(cfg) / cfg.ftl.map_entry_bytes as u64;
        (tables + tables.div_ceil(per_seg)) as u32
    }

    /// The map of a namespace of `logical` pages whose L2 tables are units `map_base..`.
    pub fn new(cfg: &DeviceConfig, logical: u64, map_base: u32) -> TwoLevelMap {
        let rp = region_pages(cfg);
        let tables = logical.div_ceil(rp as u64) as u32;
        TwoLevelMap {
            region_pages: rp,
            l1_per_segment: (unit_bytes(cfg) / cfg.ftl.map_entry_bytes as u64) as u32,
            l1_base: map_base + tables,
            compressed: if cfg.ftl.compressed_l1 {
                vec![false; tables as usize]
            } else {
                Vec::new()
            },
            counters: TwoLevelCounters::default(),
        }
    }

    /// Whether map unit `mp` is an L1 segment (else an L2 table).
    #[inline]
    pub fn is_l1(&self, mp: u32) -> bool {
        mp >= self.l1_base
    }

    /// The L1 segment holding the L1 entry of `lpa`.
    #[inline]
    pub fn l1_segment(&self, lpa: Lpa) -> u32 {
        self.l1_base + lpa.0 / self.region_pages / self.l1_per_segment
    }

    /// The L1 segment holding the entry of L2 table `k` (unit id relative to `map_base`).
    #[inline]
    pub fn l1_of_table(&self, k: u32) -> u32 {
        self.l1_base + k / self.l1_per_segment
    }

    /// Whether the L1 entry of `lpa` maps its region directly.
    #[inline]
    pub fn is_compressed(&self, lpa: Lpa) -> bool {
        self.compressed
            .get((lpa.0 / self.region_pages) as usize)
            .copied()
            .unwrap_or(false)
    }

    /// `lpa` was mapped to `ppa`: its region's compression breaks; mapping the region's last
    /// page of a contiguous run compresses it.
    #[inline]
    pub fn on_mapped(&mut self, lpa: Lpa, ppa: Ppa, map: &PageMap) {
        if self.compressed.is_empty() {
            return;
        }
        let r = (lpa.0 / self.region_pages) as usize;
        if std::mem::take(&mut self.compressed[r]) {
            self.counters.compressed_regions -= 1;
        }
        let first = r as u32 * self.region_pages;
        let last = first + self.region_pages - 1;
        if lpa.0 != last || ppa.0 < self.region_pages - 1 {
            return;
        }
        let base = ppa.0 - (self.region_pages - 1);
        if (first..last).all(|l| map.get(Lpa(l)) == Entry::Flash(Ppa(base + l - first))) {
            self.compressed[r] = true;
            self.counters.compressed_regions += 1;
        }
    }

    /// Regions compressed, counted again (for the invariant check).
    pub fn check(&self, map: &PageMap) -> Result<(), String> {
        let n = self.compressed.iter().filter(|&&c| c).count() as u64;
        if n != self.counters.compressed_regions {
            return Err(format!(
                "{n} compressed regions but {} counted",
                self.counters.compressed_regions
            ));
        }
        for (r, _) in self.compressed.iter().enumerate().filter(|x| *x.1) {
            let first = r as u32 * self.region_pages;
            let Entry::Flash(p0) = map.get(Lpa(first)) else {
                return Err(format!("compressed region {r} has an unmapped first page"));
            };
            for i in 0..self.region_pages {
                if map.get(Lpa(first + i)) != Entry::Flash(Ppa(p0.0 + i)) {
                    return Err(format!(
                        "compressed region {r} is not contiguous at page {i}"
                    ));
                }
            }
        }
        Ok(())
    }
}
