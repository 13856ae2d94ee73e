//! The hybrid zone / chunk / page map of a zoned namespace (ConZone §3.3, §6.6).
//!
//! Data in regular flash is located by computation from the zone's span
//! ([`crate::firmware::alloc::ZoneSpace`]); what a lookup costs is decided by the L2P cache.
//! `ftl.mapping = page`: one entry per 4 KiB page. `hybrid`: once regular flash holds a whole
//! 4 MiB chunk (or the whole zone, FULL) its page entries are merged into a chunk (zone) entry,
//! inserted in the cache (pinned with `ftl.l2p_pin_aggregated`) and the entries it covers are
//! dropped. SLC-held data stays page mapped. A read probes zone, chunk, page entries in the
//! cache; on a miss `multiple` reads the zone, then chunk, then page entry from flash until it
//! finds the level (one SLC map-page read each), `bitmap` reads once (the 2-bit-per-page
//! bitmap's SRAM is reported). Misses of one request on the same map page share one read.
//! Writes do not load entries (ConZone persists the map with an L2P log it does not model, §5;
//! neither do we).

use super::{cache_key, program_map_page, Level};
use crate::config::{CellType, DeviceConfig, L2pSearch, MappingKind};
use crate::engine::SimTime;
use crate::firmware::Lent;
use crate::nand::OpClass;
use serde::Serialize;

/// Slots of a hybrid-map chunk entry (4 MiB, ConZone §2.2).
pub const CHUNK_SLOTS: u32 = 1024;

/// Counters of the map of one zoned namespace (kept by its FTL, passed in to each call).
#[derive(Debug, Clone, Default, Serialize)]
pub struct HybridCounters {
    /// Conventional map pages evicted dirty by this namespace's entries and programmed back
    /// to flash (`device.l2p.map_programs`).
    pub map_programs: u64,
    pub l2p_hits: u64,
    pub l2p_misses: u64,
    /// Flash reads of map entries (one per level probed).
    pub map_reads: u64,
    /// Lookups by the level that maps the page: zone, chunk, page.
    pub lookups_zone: u64,
    pub lookups_chunk: u64,
    pub lookups_page: u64,
}

/// What the map needs to know of zone `id`: offsets `[0, mapped)` are in regular flash,
/// `written` were written, and whether the zone is FULL.
#[derive(Debug, Clone, Copy)]
pub struct ZoneExtent {
    pub id: u32,
    pub mapped: u32,
    pub written: u32,
    pub full: bool,
}

/// The last page-level map page one request read, and when it was in SRAM: later misses of
/// the same request on it share the read.
#[derive(Debug, Clone, Copy)]
pub struct LastMapPage(u64, SimTime);

impl LastMapPage {
    pub fn new(now: SimTime) -> LastMapPage {
        LastMapPage(u64::MAX, now)
    }
}

#[derive(Clone)]
pub struct HybridMap {
    ns: u8,
    kind: MappingKind,
    search: L2pSearch,
    pin: bool,
    /// Zone size in slots (the LBA stride of zones).
    zone_slots: u32,
    chunks_per_zone: u32,
    /// Map entries per map page.
    epm: u32,
    page_bytes: u32,
    map_dies: u32,
}

impl HybridMap {
    /// The map of zoned namespace `ns`: zones of `zone_slots` slots, `zone_capacity` of them
    /// writable; map entries live on `map_dies` dies.
    pub fn new(
        cfg: &DeviceConfig,
        ns: u8,
        zone_slots: u32,
        zone_capacity: u32,
        map_dies: u32,
    ) -> HybridMap {
        HybridMap {
            ns,
            kind: cfg.ftl.mapping,
            search: cfg.ftl.l2p_search,
            pin: cfg.ftl.l2p_pin_aggregated,
            zone_slots,
            chunks_per_zone: zone_capacity.div_ceil(CHUNK_SLOTS),
            epm: cfg.nand.page_bytes / cfg.ftl.map_entry_bytes,
            page_bytes: cfg.nand.page_bytes,
            map_dies,
        }
    }

    /// SRAM of the granularity bitmap (2 bits per logical page) when `ftl.l2p_search = bitmap`.
    pub fn bitmap_sram_bytes(&self, namespace_lbas: u64) -> u64 {
        if self.kind == MappingKind::Hybrid && self.search == L2pSearch::Bitmap {
            (namespace_lbas * 2).div_ceil(8)
        } else {
            0
        }
    }

    /// The level of the entry that maps zone offset `off` now.
    #[inline]
    pub fn level_of(&self, zone: ZoneExtent, off: u32) -> Level {
        if self.kind == MappingKind::Page {
            return Level::Page;
        }
        if zone.full && zone.mapped >= zone.written {
            Level::Zone
        } else if off < zone.mapped / CHUNK_SLOTS * CHUNK_SLOTS {
            Level::Chunk
        } else {
            Level::Page
        }
    }

    #[inline]
    fn key(&self, level: Level, z: u32, off: u32) -> u64 {
        let addr = match level {
            Level::Zone => z,
            Level::Chunk => z * self.chunks_per_zone + off / CHUNK_SLOTS,
            Level::Page => z * self.zone_slots + off,
        };
        cache_key(self.ns, level, addr)
    }

    /// Cache entry `k` in the shared L2P SRAM; a conventional namespace's dirty map page evicted
    /// to make room is written back at `now`.
    fn cache_insert(
        &self,
        lent: &mut Lent,
        c: &mut HybridCounters,
        now: SimTime,
        k: u64,
        pin: bool,
    ) {
        if let Some(mp) = lent.sram.insert(k, pin) {
            c.map_programs += 1;
            program_map_page(lent.nand, mp, now);
        }
    }

    /// Find the mapping of offset `off` of the zone through the L2P cache; returns when the entry is in
    /// SRAM.
    #[inline]
    pub fn lookup(
        &self,
        lent: &mut Lent,
        t: SimTime,
        zone: ZoneExtent,
        off: u32,
        last_mp: &mut LastMapPage,
        c: &mut HybridCounters,
    ) -> SimTime {
        let z = zone.id;
        let level = self.level_of(zone, off);
        match level {
            Level::Zone => c.lookups_zone += 1,
            Level::Chunk => c.lookups_chunk += 1,
            Level::Page => c.lookups_page += 1,
        }
        let hybrid = self.kind == MappingKind::Hybrid;
        let hit = (hybrid
            && (lent.sram.lookup(self.key(Level::Zone, z, off))
                || lent.sram.lookup(self.key(Level::Chunk, z, off))))
            || lent.sram.lookup(self.key(Level::Page, z, off));
        if hit {
            c.l2p_hits += 1;
            return t;
        }
        c.l2p_misses += 1;
        let page_mp = self.map_page(Level::Page, (z * self.zone_slots + off) as u64);
        let mut r = t;
        if level == Level::Page && last_mp.0 == page_mp {
            r = last_mp.1;
        } else {
            for &lv in self.probes(level) {
                r = self.read_entry(lent, c, r, lv, z, off);
            }
            if level == Level::Page {
                *last_mp = LastMapPage(page_mp, r);
            }
        }
        let pin = self.pin && level != Level::Page;
        let k = self.key(level, z, off);
        self.cache_insert(lent, c, t, k, pin);
        r
    }

    /// The levels a miss reads from flash, in order, to find the entry of `level`.
    fn probes(&self, level: Level) -> &'static [Level] {
        match (self.kind, self.search, level) {
            (MappingKind::Page, _, _) | (_, L2pSearch::Bitmap, _) => match level {
                Level::Zone => &[Level::Zone],
                Level::Chunk => &[Level::Chunk],
                Level::Page => &[Level::Page],
            },
            (_, L2pSearch::Multiple, Level::Zone) => &[Level::Zone],
            (_, L2pSearch::Multiple, Level::Chunk) => &[Level::Zone, Level::Chunk],
            (_, L2pSearch::Multiple, Level::Page) => &[Level::Zone, Level::Chunk, Level::Page],
        }
    }

    /// The map page holding entry `k` of level `lv`.
    #[inline]
    fn map_page(&self, lv: Level, k: u64) -> u64 {
        ((lv as u64) << 40) | ((k & 0xFF_FFFF_FFFF) / self.epm as u64)
    }

    /// Read the map page holding the level-`lv` entry of zone offset `off` (one SLC read).
    fn read_entry(
        &self,
        lent: &mut Lent,
        c: &mut HybridCounters,
        t: SimTime,
        lv: Level,
        z: u32,
        off: u32,
    ) -> SimTime {
        let k = self.key(lv, z, off) & 0xFFFF_FFFF;
        let mp = self.map_page(lv, k);
        let die = ((mp ^ (mp >> 40)) as u32).wrapping_add(self.ns as u32 * 3) % self.map_dies;
        c.map_reads += 1;
        lent.nand.read(
            t,
            die,
            self.page_bytes as u64,
            CellType::Slc,
            OpClass::HostRead,
        )
    }

    /// Regular flash now maps `[0, new)` of the zone (was `[0, old)`): merge completed chunks
    /// (and the whole zone when it is FULL and all of it is mapped) into coarse entries.
    pub fn on_mapped(
        &self,
        lent: &mut Lent,
        now: SimTime,
        zone: ZoneExtent,
        old: u32,
        new: u32,
        c: &mut HybridCounters,
    ) {
        let z = zone.id;
        if self.kind != MappingKind::Hybrid {
            return;
        }
        let ns = self.ns;
        let zone_done = zone.full && new >= zone.written;
        for ch in old / CHUNK_SLOTS..new / CHUNK_SLOTS {
            for o in ch * CHUNK_SLOTS..(ch + 1) * CHUNK_SLOTS {
                lent.sram
                    .remove(cache_key(ns, Level::Page, z * self.zone_slots + o));
            }
            if !zone_done {
                let k = cache_key(ns, Level::Chunk, z * self.chunks_per_zone + ch);
                self.cache_insert(lent, c, now, k, self.pin);
            }
        }
        if zone_done {
            self.forget_chunks(lent, z);
            for o in new / CHUNK_SLOTS * CHUNK_SLOTS..zone.written {
                lent.sram
                    .remove(cache_key(ns, Level::Page, z * self.zone_slots + o));
            }
            self.cache_insert(lent, c, now, cache_key(ns, Level::Zone, z), self.pin);
        }
    }

    fn forget_chunks(&self, lent: &mut Lent, z: u32) {
        for ch in 0..self.chunks_per_zone {
            lent.sram.remove(cache_key(
                self.ns,
                Level::Chunk,
                z * self.chunks_per_zone + ch,
            ));
        }
    }

    /// Drop every cached entry of zone `z` (reset), whose first `written` offsets were written.
    pub fn forget_zone(&self, lent: &mut Lent, z: u32, written: u32) {
        lent.sram.remove(cache_key(self.ns, Level::Zone, z));
        self.forget_chunks(lent, z);
        for off in 0..written {
            lent.sram
                .remove(cache_key(self.ns, Level::Page, z * self.zone_slots + off));
        }
    }
}
