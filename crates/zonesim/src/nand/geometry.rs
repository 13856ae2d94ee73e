use crate::config::{CellType, NandConfig};
use std::sync::Arc;

/// Bytes of one mapping unit (a logical page, an LPA): 4 KiB.
pub const SLOT_BYTES: u64 = 4096;

/// The shape of the array and the address arithmetic of superblocks.
///
/// Physical addresses count 4 KiB slots. A superblock's slots are numbered in write order:
/// the write pointer fills one *die unit* (the program unit of every plane of one die, i.e. a
/// multi-plane one-shot program), then moves to the next die — dies ordered channel-first so
/// consecutive units land on different channels — and after the last die returns to the first
/// die's next program unit (ConZone §3.2 "Heterogeneous Media").
#[derive(Debug, Clone)]
pub struct Geometry {
    pub channels: u32,
    pub dies: u32,
    pub planes: u32,
    pub blocks_per_plane: u32,
    pub pages_per_block: u32,
    pub page_bytes: u32,
    pub slots_per_page: u32,
    pub cell: CellType,
    /// Pages per plane in one program of the regular cell type.
    pub program_unit_pages: u32,
    /// Number of superblocks in this view (all blocks per plane for the whole array).
    pub superblocks: u32,
    /// Block index of this view's superblock 0 (views of a region: SLC blocks, ...).
    pub first_block: u32,
    /// Physical die of each die of a view over a subset of the channels (an NVM set,
    /// [`Geometry::on_channels`]); None: the view's dies are the array's.
    pub die_map: Option<Arc<[u32]>>,
}

/// One flash page, the unit of an array read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FlashPage {
    pub die: u32,
    pub plane: u32,
    pub block: u32,
    pub page: u32,
}

impl Geometry {
    pub fn new(n: &NandConfig) -> Geometry {
        Geometry {
            channels: n.channels,
            dies: n.channels * n.chips_per_channel * n.dies_per_chip,
            planes: n.planes_per_die,
            blocks_per_plane: n.blocks_per_plane,
            pages_per_block: n.pages_per_block,
            page_bytes: n.page_bytes,
            slots_per_page: n.page_bytes / SLOT_BYTES as u32,
            cell: n.cell,
            program_unit_pages: n.cell.program_unit_pages(),
            superblocks: n.blocks_per_plane,
            first_block: 0,
            die_map: None,
        }
    }

    /// A view of `count` superblocks starting at block `first` run as `cell` (pSLC blocks:
    /// a block of a denser cell used as SLC holds `bits(SLC)/bits(native)` as many pages).
    /// Superblock numbers of the view are local; [`FlashPage::block`] is absolute.
    pub fn region(&self, first: u32, count: u32, cell: CellType) -> Geometry {
        let native = self.cell.bits_per_cell();
        Geometry {
            superblocks: count,
            first_block: self.first_block + first,
            cell,
            program_unit_pages: cell.program_unit_pages(),
            pages_per_block: self.pages_per_block * cell.bits_per_cell() / native,
            ..self.clone()
        }
    }

    /// A view whose superblocks span only the dies of `channels` (an NVM set, MCMQ §III-C:
    /// a namespace pinned to a subset of the channels). Its superblocks stripe over those dies
    /// in the same channel-first order; [`FlashPage::die`] and [`Geometry::phys_die`] answer
    /// physical dies.
    pub fn on_channels(&self, channels: &[u32]) -> Geometry {
        let k = channels.len() as u32;
        let per_channel = self.dies / self.channels;
        let map: Arc<[u32]> = (0..per_channel * k)
            .map(|v| (v / k) * self.channels + channels[(v % k) as usize])
            .collect();
        Geometry {
            channels: k,
            dies: per_channel * k,
            die_map: Some(map),
            ..self.clone()
        }
    }

    /// The array die of die `v` of this view.
    #[inline]
    pub fn phys_die(&self, v: u32) -> u32 {
        match &self.die_map {
            None => v,
            Some(m) => m[v as usize],
        }
    }

    /// Channel a die hangs on (dies are numbered channel-first).
    #[inline]
    pub fn channel_of(&self, die: u32) -> u32 {
        die % self.channels
    }

    /// Slots written by one multi-plane program on one die.
    #[inline]
    pub fn die_unit_slots(&self) -> u32 {
        self.program_unit_pages * self.planes * self.slots_per_page
    }

    pub fn die_unit_bytes(&self) -> u64 {
        self.die_unit_slots() as u64 * SLOT_BYTES
    }

    pub fn slots_per_superblock(&self) -> u32 {
        self.dies * self.planes * self.pages_per_block * self.slots_per_page
    }

    pub fn total_slots(&self) -> u64 {
        self.slots_per_superblock() as u64 * self.superblocks as u64
    }

    /// Logical 4 KiB pages exported: physical / (1 + op), rounded down.
    pub fn logical_pages(&self, op: f64) -> u64 {
        (self.total_slots() as f64 / (1.0 + op)).floor() as u64
    }

    /// Die holding superblock offset `off`.
    #[inline]
    pub fn die_of_offset(&self, off: u32) -> u32 {
        self.phys_die((off / self.die_unit_slots()) % self.dies)
    }

    /// The flash page holding superblock offset `off` of superblock `sb`.
    #[inline]
    pub fn page_of(&self, sb: u32, off: u32) -> FlashPage {
        let u = self.die_unit_slots();
        let unit = off / u;
        let within = off % u;
        let per_plane = self.program_unit_pages * self.slots_per_page;
        FlashPage {
            die: self.phys_die(unit % self.dies),
            plane: within / per_plane,
            block: self.first_block + sb,
            page: (unit / self.dies) * self.program_unit_pages
                + (within % per_plane) / self.slots_per_page,
        }
    }

    /// Index of a physical block for per-block state (erase counts).
    #[inline]
    pub fn block_index(&self, die: u32, plane: u32, block: u32) -> usize {
        ((die * self.planes + plane) * self.blocks_per_plane + block) as usize
    }

    pub fn total_blocks(&self) -> usize {
        (self.dies * self.planes * self.blocks_per_plane) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::DeviceConfig;

    #[test]
    fn write_order_stripes_units_across_dies_channel_first() {
        let cfg = DeviceConfig::default_device();
        let g = Geometry::new(&cfg.nand);
        // ufs-conventional: 4 dies, 2 planes, TLC (3 pages), 16 KiB pages = 4 slots.
        assert_eq!(g.die_unit_slots(), 3 * 2 * 4);
        assert_eq!(g.die_unit_bytes(), 96 * 1024);
        let u = g.die_unit_slots();
        let dies: Vec<u32> = (0..6).map(|k| g.die_of_offset(k * u)).collect();
        assert_eq!(dies, vec![0, 1, 2, 3, 0, 1]);
        assert_eq!(g.channel_of(0), 0);
        assert_eq!(g.channel_of(1), 1);
        let p = g.page_of(7, 4 * u + 13);
        assert_eq!((p.die, p.plane, p.block, p.page), (0, 1, 7, 3));
        // Every page of a superblock is addressed exactly once.
        let mut seen = std::collections::HashSet::new();
        for off in (0..g.slots_per_superblock()).step_by(g.slots_per_page as usize) {
            let p = g.page_of(0, off);
            assert!(p.page < g.pages_per_block && p.plane < g.planes && p.die < g.dies);
            assert!(seen.insert((p.die, p.plane, p.page)));
        }
        // A pSLC view of TLC blocks holds a third of the pages, programs one page per plane.
        let slc = g.region(10, 4, CellType::Slc);
        assert_eq!(slc.pages_per_block, 128);
        assert_eq!(slc.die_unit_slots(), 2 * 4);
        assert_eq!(slc.page_of(1, 0).block, 11);
        assert_eq!(slc.slots_per_superblock() * 3, g.slots_per_superblock());
    }
}
