use super::packed::PackedArray;
use crate::engine::{huge_vec, prefetch};

/// Logical page address: a 4 KiB logical page within one namespace.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Lpa(pub u32);

/// Physical page address: a 4 KiB slot, `superblock * slots_per_superblock + offset`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Ppa(pub u32);

/// What an L2P entry says about a logical page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Entry {
    /// Never written, or trimmed.
    Unmapped,
    /// In the write buffer; the tag identifies the buffer slot generation.
    Buffered(u32),
    /// On flash.
    Flash(Ppa),
}

const UNMAPPED: u32 = u32::MAX;
const BUF_FLAG: u32 = 1 << 31;
/// Buffer tags use 30 bits so that `BUF_FLAG | tag` never equals `UNMAPPED`.
pub const TAG_MASK: u32 = (1 << 30) - 1;

/// Page-level map and reverse map: 4 bytes per logical page, and per physical slot the bits a
/// logical page number needs (`packed.rs`; 28 for 1 TB), so that with OP both stay within the
/// memory target of README "Speed", 8 bytes per logical page.
pub struct PageMap {
    l2p: Vec<u32>,
    /// Owner of each slot; [`PageMap::none`] when it holds no valid data.
    rmap: PackedArray,
    none: u32,
}

impl PageMap {
    pub fn new(logical_pages: u64, physical_slots: u64) -> PageMap {
        assert!(physical_slots < BUF_FLAG as u64 && logical_pages < UNMAPPED as u64);
        let rmap = PackedArray::new_max(
            physical_slots as usize,
            PackedArray::width_for(logical_pages),
        );
        PageMap {
            l2p: huge_vec(logical_pages as usize, UNMAPPED),
            none: rmap.max_value(),
            rmap,
        }
    }

    pub fn logical_pages(&self) -> u64 {
        self.l2p.len() as u64
    }

    #[inline]
    pub fn get(&self, lpa: Lpa) -> Entry {
        let v = self.l2p[lpa.0 as usize];
        if v == UNMAPPED {
            Entry::Unmapped
        } else if v & BUF_FLAG != 0 {
            Entry::Buffered(v & !BUF_FLAG)
        } else {
            Entry::Flash(Ppa(v))
        }
    }

    /// Start loading `lpa`'s entry (a host-memory hint before a [`PageMap::get`] of it soon).
    #[inline]
    pub fn prefetch(&self, lpa: Lpa) {
        if let Some(e) = self.l2p.get(lpa.0 as usize) {
            prefetch(e);
        }
    }

    /// Start loading the reverse-map entry of `ppa` (a hint before [`PageMap::owner`] of it
    /// soon; nothing for a slot past the end).
    #[inline]
    pub fn prefetch_owner(&self, ppa: Ppa) {
        self.rmap.prefetch(ppa.0 as usize);
    }

    #[inline]
    pub fn set_buffered(&mut self, lpa: Lpa, tag: u32) {
        self.l2p[lpa.0 as usize] = BUF_FLAG | (tag & TAG_MASK);
    }

    #[inline]
    pub fn unmap(&mut self, lpa: Lpa) {
        self.l2p[lpa.0 as usize] = UNMAPPED;
    }

    /// Map `lpa` to `ppa` (both directions).
    #[inline]
    pub fn map(&mut self, lpa: Lpa, ppa: Ppa) {
        self.l2p[lpa.0 as usize] = ppa.0;
        self.rmap.set(ppa.0 as usize, lpa.0);
    }

    /// Owner of a physical slot, if it holds valid data.
    #[inline]
    pub fn owner(&self, ppa: Ppa) -> Option<Lpa> {
        let v = self.rmap.get(ppa.0 as usize);
        (v != self.none).then_some(Lpa(v))
    }

    #[inline]
    pub fn invalidate(&mut self, ppa: Ppa) {
        self.rmap.set(ppa.0 as usize, self.none);
    }

    /// Map and reverse map agree: every flash entry's slot names it back, and every owned
    /// slot is named by its owner.
    pub fn check(&self) -> Result<(), String> {
        for (l, &v) in self.l2p.iter().enumerate() {
            if v != UNMAPPED && v & BUF_FLAG == 0 && self.rmap.get(v as usize) != l as u32 {
                return Err(format!(
                    "l2p[{l}] = {v} but rmap[{v}] = {}",
                    self.rmap.get(v as usize)
                ));
            }
        }
        for p in 0..self.rmap.len() {
            let l = self.rmap.get(p);
            if l != self.none && self.l2p[l as usize] != p as u32 {
                return Err(format!(
                    "rmap[{p}] = {l} but l2p[{l}] = {}",
                    self.l2p[l as usize]
                ));
            }
        }
        Ok(())
    }
}
