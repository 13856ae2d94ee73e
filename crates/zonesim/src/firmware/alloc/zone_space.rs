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
            self.zone_units[base + k] = self
                .free
                .pop_front()
                .expect("regular-flash pool sized for every zone");
        }
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
            if self.sub_block {
                let lane = u % self.lanes;
                let t = nand.erase_plane(
                    now,
                    lane % self.geo.dies,
                    lane / self.geo.dies,
                    self.geo.first_block + u / self.lanes,
                    self.geo.cell,
                    OpClass::HostWrite,
                );
                done = done.max(t);
            } else {
                let block = self.geo.first_block + u;
                let t = nand.erase_superblock(now, block, self.geo.cell, OpClass::HostWrite);
                done = done.max(t);
            }
            self.free.push_back(u);
        }
        done
    }

    /// Pool and zone spans partition the units.
    pub fn check(&self) -> Result<(), String> {
        let mut seen = vec![false; self.total_units as usize];
        for &u in self.free.iter().chain(self.zone_units.iter()) {
            if u == NO_UNIT {
                continue;
            }
            if std::mem::replace(&mut seen[u as usize], true) {
                return Err(format!("regular allocation unit {u} owned twice"));
            }
        }
        if let Some(u) = seen.iter().position(|s| !s) {
            return Err(format!("regular allocation unit {u} lost"));
        }
        Ok(())
    }
}
