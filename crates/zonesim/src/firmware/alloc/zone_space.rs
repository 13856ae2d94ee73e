//! Zone-level allocation of regular flash (ConZone §3.2 "space allocator", ConZone+ §4.3).
//!
//! A zone reserves its whole physical span when it is first written: `units_per_zone`
//! allocation units taken from a FIFO pool of erased units. A unit is a superblock (default:
//! the zone's data is striped one multi-plane program unit per die, channel-first, like the
//! write pointer of [`crate::nand::Geometry`]) or, in sub-block mode, a single flash block of one
//! plane (the zone stripes single-plane program units over its blocks). Either way the physical
//! address of a zone offset is *computed* from the offset and the zone's units — no per-page
//! map is needed for data in regular flash, which is what makes zone and chunk entries of the
//! hybrid map possible (ConZone §3.3). A reset erases the units and returns them to the pool.

use crate::config::CellType;
use crate::engine::SimTime;
use crate::nand::{FlashPage, Geometry, NandArray, OpClass};
use std::collections::VecDeque;

pub const NO_UNIT: u32 = u32::MAX;

#[derive(Clone)]
pub struct ZoneSpace {
    /// Regular-flash view (superblocks = block rows of this namespace).
    geo: Geometry,
    sub_block: bool,
    units_per_zone: u32,
    /// Slots of one allocation unit (superblock or block).
    unit_slots: u32,
    /// Slots of one program (die unit, or one plane's program unit in sub-block mode).
    prog_slots: u32,
    /// Flash pages of one program.
    prog_pages: u32,
    lanes: u32,
    free: VecDeque<u32>,
    total_units: u32,
    zone_units: Vec<u32>,
    /// Wear of each unit when allocation prefers the least-worn free unit (dynamic wear
    /// levelling, firmware/wear); None: the FIFO pool.
    keys: Option<Vec<u32>>,
}

impl ZoneSpace {
    pub fn new(geo: Geometry, zones: u32, units_per_zone: u32, sub_block: bool) -> ZoneSpace {
        let lanes = geo.dies * geo.planes;
        let (unit_slots, prog_slots, prog_pages, total) = if sub_block {
            (
                geo.pages_per_block * geo.slots_per_page,
                geo.program_unit_pages * geo.slots_per_page,
                geo.program_unit_pages,
                geo.superblocks * lanes,
            )
        } else {
            (
                geo.slots_per_superblock(),
                geo.die_unit_slots(),
                geo.program_unit_pages * geo.planes,
                geo.superblocks,
            )
        };
        ZoneSpace {
            sub_block,
            units_per_zone,
            unit_slots,
            prog_slots,
            prog_pages,
            lanes,
            free: (0..total).collect(),
            total_units: total,
            zone_units: vec![NO_UNIT; zones as usize * units_per_zone as usize],
            keys: None,
            geo,
        }
    }

    /// Slots of one program (die unit, or one plane's program unit in sub-block mode).
    #[inline]
    pub fn prog_slots(&self) -> u32 {
        self.prog_slots
    }

    /// Flash pages of one program.
    #[inline]
    pub fn prog_pages(&self) -> u32 {
        self.prog_pages
    }

    /// Cell type of the regular flash.
    #[inline]
    pub fn cell(&self) -> CellType {
        self.geo.cell
    }

    pub fn free_units(&self) -> u32 {
        self.free.len() as u32
    }
    pub fn total_units(&self) -> u32 {
        self.total_units
    }

    pub fn is_allocated(&self, z: u32) -> bool {
        self.zone_units[(z * self.units_per_zone) as usize] != NO_UNIT
    }

    /// First allocation unit of zone `z`'s span ([`NO_UNIT`] if none): the start address a
    /// zone-level map entry records.
    pub fn first_unit(&self, z: u32) -> u32 {
        self.zone_units[(z * self.units_per_zone) as usize]
    }

    /// Reserve the span of zone `z` (first write since reset).
    pub fn allocate(&mut self, z: u32) {
        debug_assert!(!self.is_allocated(z));
        let base = (z * self.units_per_zone) as usize;
        for k in 0..self.units_per_zone as usize {
            self.zone_units[base + k] = self.take_free();
        }
    }

    /// One unit from the pool: the oldest, or with wear keys the least-worn (oldest of ties).
    fn take_free(&mut self) -> u32 {
        let at = match &self.keys {
            None => 0,
            Some(keys) => (0..self.free.len())
                .min_by_key(|&i| keys[self.free[i] as usize])
                .unwrap_or(0),
        };
        self.free
            .remove(at)
            .expect("regular-flash pool sized for every zone")
    }

    /// Allocation prefers the least-worn free unit from now on (dynamic wear levelling).
    pub fn level_by(&mut self, keys: Vec<u32>) {
        self.keys = Some(keys);
    }

    /// The wear key of unit `u` changed.
    pub fn set_key(&mut self, u: u32, key: u32) {
        if let Some(k) = &mut self.keys {
            k[u as usize] = key;
        }
    }

    /// Slots of one allocation unit.
    #[inline]
    pub fn unit_slots(&self) -> u32 {
        self.unit_slots
    }

    /// Units of one zone's span.
    pub fn units_per_zone(&self) -> u32 {
        self.units_per_zone
    }

    /// The allocation units of zone `z`'s span ([`NO_UNIT`] each if none).
    pub fn units_of(&self, z: u32) -> &[u32] {
        let base = (z * self.units_per_zone) as usize;
        &self.zone_units[base..base + self.units_per_zone as usize]
    }

    /// Unit `u` leaves the pool for good (retired before its first use).
    pub fn withdraw(&mut self, u: u32) {
        self.free.retain(|&f| f != u);
    }

    /// Give zone `z`'s span fresh units from the pool (a whole-zone remap, firmware/wear);
    /// returns the old units, which the caller erases and returns or retires. None if the
    /// pool holds fewer than a span.
    pub fn remap(&mut self, z: u32) -> Option<Vec<u32>> {
        if self.free.len() < self.units_per_zone as usize || !self.is_allocated(z) {
            return None;
        }
        let old = self.units_of(z).to_vec();
        let base = (z * self.units_per_zone) as usize;
        for k in 0..self.units_per_zone as usize {
            self.zone_units[base + k] = self.take_free();
        }
        Some(old)
    }

    /// Return an erased unit to the pool.
    pub fn give_back(&mut self, u: u32) {
        self.free.push_back(u);
    }

    /// The zone owning each unit ([`NO_UNIT`]: free or out of service).
    pub fn owners(&self) -> Vec<u32> {
        let mut o = vec![NO_UNIT; self.total_units as usize];
        for (i, &u) in self.zone_units.iter().enumerate() {
            if u != NO_UNIT {
                o[u as usize] = i as u32 / self.units_per_zone;
            }
        }
        o
    }

    /// The allocation unit holding zone offset `off` and the slot within it (superblock
    /// units).
    #[inline]
    pub fn unit_at(&self, z: u32, off: u32) -> (u32, u32) {
        let base = (z * self.units_per_zone) as usize;
        (
            self.zone_units[base + (off / self.unit_slots) as usize],
            off % self.unit_slots,
        )
    }

    /// Physical page of zone offset `off` in the span `units` (superblock units): where a
    /// zone's data sat before a remap.
    #[inline]
    pub fn locate_in(&self, units: &[u32], off: u32) -> FlashPage {
        self.geo.page_of(
            units[(off / self.unit_slots) as usize],
            off % self.unit_slots,
        )
    }

    /// Physical page of zone offset `off`.
    #[inline]
    pub fn locate(&self, z: u32, off: u32) -> FlashPage {
        let base = (z * self.units_per_zone) as usize;
        if !self.sub_block {
            let sb = self.zone_units[base + (off / self.unit_slots) as usize];
            return self.geo.page_of(sb, off % self.unit_slots);
        }
        let k = self.units_per_zone;
        let prog = off / self.prog_slots;
        let unit = self.zone_units[base + (prog % k) as usize];
        let lane = unit % self.lanes;
        FlashPage {
            die: lane % self.geo.dies,
            plane: lane / self.geo.dies,
            block: self.geo.first_block + unit / self.lanes,
            page: (prog / k) * self.geo.program_unit_pages
                + (off % self.prog_slots) / self.geo.slots_per_page,
        }
    }

    /// Erase the span of zone `z` and return its units to the pool. Returns when the erases
    /// complete.
    /// The regular-flash view the zones' spans are allocated on.
    pub fn geometry(&self) -> &Geometry {
        &self.geo
    }

    pub fn release(&mut self, nand: &mut NandArray, z: u32, now: SimTime) -> SimTime {
        let base = (z * self.units_per_zone) as usize;
        let mut done = now;
        for k in 0..self.units_per_zone as usize {
            let u = std::mem::replace(&mut self.zone_units[base + k], NO_UNIT);
            if u == NO_UNIT {
                continue;
            }
            done = done.max(self.erase(nand, u, now, OpClass::HostWrite));
            self.free.push_back(u);
        }
        done
    }

    /// Zone `z` gives up its span (its units, for the caller to erase): it is unallocated.
    pub fn take_span(&mut self, z: u32) -> Vec<u32> {
        let base = (z * self.units_per_zone) as usize;
        let span = &mut self.zone_units[base..base + self.units_per_zone as usize];
        let units = span.iter().copied().filter(|&u| u != NO_UNIT).collect();
        span.fill(NO_UNIT);
        units
    }

    /// Erase allocation unit `u` from `now`; returns when the erase completes.
    pub fn erase(&self, nand: &mut NandArray, u: u32, now: SimTime, class: OpClass) -> SimTime {
        if self.sub_block {
            let lane = u % self.lanes;
            nand.erase_plane(
                now,
                lane % self.geo.dies,
                lane / self.geo.dies,
                self.geo.first_block + u / self.lanes,
                self.geo.cell,
                class,
            )
        } else {
            let block = self.geo.first_block + u;
            nand.erase_superblock(now, block, self.geo.cell, class)
        }
    }

    /// Pool and zone spans partition the units (`out(u)`: out of service, in neither).
    pub fn check(&self, out: impl Fn(u32) -> bool) -> Result<(), String> {
        let mut seen = vec![false; self.total_units as usize];
        for &u in self.free.iter().chain(self.zone_units.iter()) {
            if u == NO_UNIT {
                continue;
            }
            if std::mem::replace(&mut seen[u as usize], true) {
                return Err(format!("regular allocation unit {u} owned twice"));
            }
        }
        for (u, &s) in seen.iter().enumerate() {
            match (s, out(u as u32)) {
                (false, false) => return Err(format!("regular allocation unit {u} lost")),
                (true, true) => return Err(format!("retired allocation unit {u} in use")),
                _ => {}
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Allocation, whole-zone remaps, releases and retirements (firmware/wear) keep the
        /// pool and the spans a partition of the units in service; a remap gives a zone a
        /// span disjoint from the one it leaves.
        #[test]
        fn remaps_and_retirements_keep_the_partition(
            ops in proptest::collection::vec((0u8..4, 0u32..6), 1..120),
            keyed in any::<bool>(),
        ) {
            let cfg = crate::config::DeviceConfig::load("zufs-2026", &[]).unwrap();
            let geo = Geometry::new(&cfg.nand).region(0, 16, cfg.nand.cell);
            let mut nand = NandArray::new(&cfg);
            let mut s = ZoneSpace::new(geo, 6, 2, false);
            if keyed {
                s.level_by((0..16).rev().collect());
            }
            let mut retired = [false; 16];
            for (op, z) in ops {
                match op {
                    0 if !s.is_allocated(z) && s.free_units() >= 2 => s.allocate(z),
                    1 => {
                        let before = s.units_of(z).to_vec();
                        if let Some(old) = s.remap(z) {
                            prop_assert_eq!(&old, &before);
                            prop_assert!(s.units_of(z).iter().all(|u| !old.contains(u)));
                            for u in old {
                                s.give_back(u);
                            }
                        }
                    }
                    2 => {
                        // The zone's span is erased; its first unit wears out and retires.
                        for (i, u) in s.take_span(z).into_iter().enumerate() {
                            s.erase(&mut nand, u, SimTime::ZERO, OpClass::Background);
                            if i == 0 {
                                retired[u as usize] = true;
                            } else {
                                s.give_back(u);
                            }
                        }
                    }
                    _ => {
                        s.release(&mut nand, z, SimTime::ZERO);
                    }
                }
                s.check(|u| retired[u as usize]).map_err(TestCaseError::fail)?;
            }
        }
    }
}
