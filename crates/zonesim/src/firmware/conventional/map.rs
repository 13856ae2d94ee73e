//! The page map of a conventional namespace as the FTL reaches it through the shared L2P SRAM
//! (DFTL, Gupta et al., ASPLOS 2009: map pages cached on demand, a miss reads one from the SLC
//! map area, a dirty one evicted is programmed back): the map page of a logical page, and with
//! `ftl.mapping = two_level` the CUFS L1 segment before its L2 table (ZUFS §2.2;
//! `mapping/two_level.rs`). Counts `map_reads`, `map_programs` and the two-level hits.

use super::PageFtl;
use crate::config::{CellType, DeviceConfig, MappingKind};
use crate::engine::SimTime;
use crate::firmware::mapping::{program_map_page, Lpa, TwoLevelMap};
use crate::firmware::Lent;
use crate::nand::OpClass;

impl PageFtl {
    /// Number of map pages needed for `logical_pages` entries.
    pub fn map_pages_for(cfg: &DeviceConfig, logical_pages: u64) -> u32 {
        if cfg.ftl.mapping == MappingKind::TwoLevel {
            return TwoLevelMap::units_for(cfg, logical_pages);
        }
        let epm = (cfg.nand.page_bytes / cfg.ftl.map_entry_bytes) as u64;
        logical_pages.div_ceil(epm) as u32
    }

    /// SRAM bytes of one cached map unit: a map page, or with `ftl.mapping = two_level` an
    /// L2 table / L1 segment.
    pub fn map_unit_bytes(cfg: &DeviceConfig) -> u64 {
        if cfg.ftl.mapping == MappingKind::TwoLevel {
            TwoLevelMap::unit_bytes(cfg)
        } else {
            cfg.nand.page_bytes as u64
        }
    }

    #[inline]
    pub(super) fn map_page_of(&self, lpa: Lpa) -> u32 {
        self.map_base + lpa.0 / self.entries_per_map_page
    }

    /// The two-level map, with `ftl.mapping = two_level`.
    pub fn two_level(&self) -> Option<&TwoLevelMap> {
        self.two_level.as_ref()
    }

    /// Find the mapping of `lpa` through the L2P cache (dirtying it if `dirty`): the map page,
    /// or with the two-level map the L1 segment and then (unless the L1 entry is compressed
    /// and this is a read) the L2 table. Returns when the entry is in SRAM.
    #[inline]
    pub(super) fn map_access(
        &mut self,
        lent: &mut Lent,
        now: SimTime,
        lpa: Lpa,
        dirty: bool,
    ) -> SimTime {
        let mp = self.map_page_of(lpa);
        let Some(tl) = &self.two_level else {
            return self.map_unit(lent, now, mp, dirty, false).0;
        };
        let (l1, compressed) = (tl.l1_segment(lpa), !dirty && tl.is_compressed(lpa));
        let (t, hit) = self.map_unit(lent, now, l1, false, true);
        let c = &mut self.two_level.as_mut().expect("two-level").counters;
        if hit {
            c.l1_hits += 1;
        } else {
            c.l1_misses += 1;
        }
        if compressed {
            c.compressed_hits += 1;
            return t;
        }
        let (t, hit) = self.map_unit(lent, t, mp, dirty, false);
        let c = &mut self.two_level.as_mut().expect("two-level").counters;
        if hit {
            c.l2_hits += 1;
        } else {
            c.l2_misses += 1;
        }
        t
    }

    /// Touch map unit `mp` in the L2P cache; on a miss read it from flash (returns when it is
    /// in SRAM, and whether it hit), and write back a dirty unit it evicts. `on_flash`: the
    /// unit always has a flash copy (an L1 segment).
    #[inline(always)]
    fn map_unit(
        &mut self,
        lent: &mut Lent,
        now: SimTime,
        mp: u32,
        dirty: bool,
        on_flash: bool,
    ) -> (SimTime, bool) {
        if lent.sram.hit_in_place(mp, dirty) {
            return (now, true);
        }
        self.map_unit_access(lent, now, mp, dirty, on_flash)
    }

    /// [`PageFtl::map_unit`] past its in-place hit: through the cache's LRU order.
    #[inline(never)]
    fn map_unit_access(
        &mut self,
        lent: &mut Lent,
        now: SimTime,
        mp: u32,
        dirty: bool,
        on_flash: bool,
    ) -> (SimTime, bool) {
        let a = lent.sram.access(mp, dirty);
        if let Some(ev) = a.evicted_dirty {
            self.counters.map_programs += 1;
            program_map_page(lent.nand, ev, now);
            self.l2_written_back(lent, ev);
        }
        if a.hit || !(on_flash || lent.sram.page_on_flash(mp)) {
            // A hit, or a page never written to flash: all its entries are unmapped and the
            // controller builds it in SRAM without reading flash.
            return (now, a.hit);
        }
        self.counters.map_reads += 1;
        let die = self.geo.phys_die(mp % self.geo.dies);
        let t = lent.nand.read(
            now,
            die,
            self.map_read_bytes,
            CellType::Slc,
            OpClass::HostRead,
        );
        (t, false)
    }

    /// Two-level map: L2 table `ev` moved on flash, so its L1 entry changes: the L1 segment
    /// is dirtied if cached (otherwise the update rides with the write-back, not modelled).
    #[inline]
    fn l2_written_back(&mut self, lent: &mut Lent, ev: u32) {
        if let Some(tl) = &self.two_level {
            if !tl.is_l1(ev) && ev >= self.map_base {
                lent.sram.mark_dirty(tl.l1_of_table(ev - self.map_base));
            }
        }
    }
}
