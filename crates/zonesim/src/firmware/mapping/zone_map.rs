//! The zone mapping table and its log (ZMT + ZML) of Zoned UFS (§4.1):
//! `ftl.mapping = zone` on a zoned namespace.
//!
//! One 8-byte entry per zone — a 4-byte starting physical address (the zone's first allocation
//! unit; a zone larger than one superblock resolves the rest through its superblock list in
//! [`crate::firmware::alloc::ZoneSpace`]) and a 4-byte length, the host write pointer at 4 KiB
//! granularity — held wholly in controller SRAM of its own (`zmt_bytes`), never missed: a
//! lookup costs no flash read. Data past the programmed extent is served from the write buffer
//! or, for premature flushes, located through the SLC region's page map (in SRAM as well).
//!
//! Updates do not modify the ZMT directly: each is appended to the ZML (allocation of a zone's
//! span, every write that moves the write pointer, reset). When the log holds
//! `ftl.zml_entries` records it is checkpointed: the ZMT (merged with the log) is programmed to
//! the SLC map area, `ceil(zmt_bytes / page_bytes)` page programs that count in the flash
//! counters and in WAF, and the log is emptied. Lookups see the newest record of a zone (the
//! log overlays the table), as §4.1's reads during remapping do.

use super::program_map_page;
use crate::engine::SimTime;
use crate::nand::NandArray;
use serde::Serialize;

/// Bytes of one ZMT entry: 4-byte start address + 4-byte length (§4.1).
pub const ZMT_ENTRY_BYTES: u64 = 8;

/// Zone start address of a zone with no span allocated.
pub const NO_START: u32 = u32::MAX;

/// One ZMT entry (or ZML record).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ZmtEntry {
    /// First allocation unit of the zone's span, [`NO_START`] if none.
    pub start: u32,
    /// Host write pointer, 4 KiB slots from the zone start.
    pub len: u32,
}

impl ZmtEntry {
    pub const EMPTY: ZmtEntry = ZmtEntry {
        start: NO_START,
        len: 0,
    };
}

/// Counters of one namespace's zone map (`device.namespaces[i].zone_map`).
#[derive(Debug, Clone, Default, Serialize)]
pub struct ZoneMapCounters {
    /// Page lookups resolved by the ZMT (regular flash).
    pub zmt_lookups: u64,
    /// Page lookups of SLC-held data (page map of the SLC region, in SRAM).
    pub slc_lookups: u64,
    /// Records appended to the ZML.
    pub zml_appends: u64,
    /// Times the full ZML was checkpointed into the ZMT on flash.
    pub zml_checkpoints: u64,
    /// Flash pages programmed by checkpoints.
    pub checkpoint_pages: u64,
}

#[derive(Clone)]
pub struct ZoneMap {
    zmt: Vec<ZmtEntry>,
    /// The ZML: (zone, new entry), oldest first.
    zml: Vec<(u32, ZmtEntry)>,
    zml_entries: usize,
    /// Flash pages one checkpoint programs.
    checkpoint_pages: u32,
    /// First map-page id the checkpoints program (spreads them over the dies).
    map_page: u32,
    pub counters: ZoneMapCounters,
    /// A zone being remapped whole (read reclaim, wear levelling) and its destination entry,
    /// recorded in the ZML until the migration completes; lookups still see the victim.
    remap: Option<(u32, ZmtEntry)>,
}

impl ZoneMap {
    /// The ZMT of `zones` zones with a log of `zml_entries` records, checkpointed in pages of
    /// `page_bytes`.
    pub fn new(zones: u32, zml_entries: u32, page_bytes: u32) -> ZoneMap {
        let bytes = zones as u64 * ZMT_ENTRY_BYTES;
        ZoneMap {
            zmt: vec![ZmtEntry::EMPTY; zones as usize],
            zml: Vec::with_capacity(zml_entries as usize),
            zml_entries: zml_entries as usize,
            checkpoint_pages: bytes.div_ceil(page_bytes as u64) as u32,
            map_page: 0,
            counters: ZoneMapCounters::default(),
            remap: None,
        }
    }

    /// SRAM of the whole table (§4.1: "a 1 TB ZUFS requires only 8 KB").
    pub fn zmt_bytes(&self) -> u64 {
        self.zmt.len() as u64 * ZMT_ENTRY_BYTES
    }

    /// Records in the log now.
    pub fn zml_len(&self) -> usize {
        self.zml.len()
    }

    /// The current entry of zone `z`: its newest log record, else its table entry.
    pub fn entry(&self, z: u32) -> ZmtEntry {
        self.zml
            .iter()
            .rev()
            .find(|r| r.0 == z)
            .map_or(self.zmt[z as usize], |r| r.1)
    }

    /// Zone `z` starts migrating whole to `dest` (§4.1): the ZML records the destination;
    /// the ZMT keeps the victim's entry, so reads go on being served from it.
    pub fn begin_remap(&mut self, z: u32, dest: ZmtEntry) {
        self.counters.zml_appends += 1;
        self.remap = Some((z, dest));
    }

    /// The migration of the remapped zone completed: its destination becomes the zone's entry.
    pub fn end_remap(&mut self, nand: &mut NandArray, now: SimTime) {
        if let Some((z, e)) = self.remap.take() {
            self.update(nand, now, z, e);
        }
    }

    /// The zone under remap and its destination entry, if any.
    pub fn remap(&self) -> Option<(u32, ZmtEntry)> {
        self.remap
    }

    /// A lookup of regular-flash data (never missed: the table is in SRAM).
    #[inline]
    pub fn lookup(&mut self) {
        self.counters.zmt_lookups += 1;
    }

    /// A lookup of SLC-held data.
    #[inline]
    pub fn lookup_slc(&mut self) {
        self.counters.slc_lookups += 1;
    }

    /// Stage the new entry `e` of zone `z` in the ZML; a full log is checkpointed at `now`.
    pub fn update(&mut self, nand: &mut NandArray, now: SimTime, z: u32, e: ZmtEntry) {
        self.counters.zml_appends += 1;
        self.zml.push((z, e));
        if self.zml.len() >= self.zml_entries {
            self.checkpoint(nand, now);
        }
    }

    /// Merge the log into the table and program the table to flash.
    fn checkpoint(&mut self, nand: &mut NandArray, now: SimTime) {
        for (z, e) in self.zml.drain(..) {
            self.zmt[z as usize] = e;
        }
        self.counters.zml_checkpoints += 1;
        for _ in 0..self.checkpoint_pages {
            program_map_page(nand, self.map_page, now);
            self.map_page = self.map_page.wrapping_add(1);
            self.counters.checkpoint_pages += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nand() -> NandArray {
        let cfg = crate::config::DeviceConfig::load("zufs-2026", &[]).unwrap();
        NandArray::new(&cfg)
    }

    #[test]
    fn log_overlays_the_table_and_checkpoints_when_full() {
        let mut n = nand();
        let mut m = ZoneMap::new(3, 2, 16384);
        assert_eq!(m.zmt_bytes(), 24);
        m.update(&mut n, SimTime::ZERO, 1, ZmtEntry { start: 5, len: 0 });
        assert_eq!(m.entry(1), ZmtEntry { start: 5, len: 0 });
        assert_eq!(m.entry(0), ZmtEntry::EMPTY);
        assert_eq!(n.counters.page_programs, 0);
        m.update(&mut n, SimTime::ZERO, 1, ZmtEntry { start: 5, len: 8 });
        // The second record filled the log: merged and programmed (24 bytes: one page).
        assert_eq!(m.zml_len(), 0);
        assert_eq!(m.entry(1), ZmtEntry { start: 5, len: 8 });
        assert_eq!(m.counters.zml_checkpoints, 1);
        assert_eq!(m.counters.checkpoint_pages, 1);
        assert_eq!(n.counters.page_programs, 1);
    }
}
