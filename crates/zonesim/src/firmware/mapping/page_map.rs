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

/// Page-level map and reverse map, 4 bytes per logical page and 4 bytes per physical slot
/// (the memory target of README "Speed": 8 bytes per logical page plus OP).
#[derive(Clone)]
pub struct PageMap {
    l2p: Vec<u32>,
    rmap: Vec<u32>,
}

impl PageMap {
    pub fn new(logical_pages: u64, physical_slots: u64) -> PageMap {
        assert!(physical_slots < BUF_FLAG as u64 && logical_pages < UNMAPPED as u64);
        PageMap {
            l2p: huge_vec(logical_pages as usize, UNMAPPED),
            rmap: huge_vec(physical_slots as usize, UNMAPPED),
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
        if let Some(e) = self.rmap.get(ppa.0 as usize) {
            prefetch(e);
        }
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
        self.rmap[ppa.0 as usize] = lpa.0;
    }

    /// Owner of a physical slot, if it holds valid data.
    #[inline]
    pub fn owner(&self, ppa: Ppa) -> Option<Lpa> {
        let v = self.rmap[ppa.0 as usize];
        (v != UNMAPPED).then_some(Lpa(v))
    }

    #[inline]
    pub fn invalidate(&mut self, ppa: Ppa) {
        self.rmap[ppa.0 as usize] = UNMAPPED;
    }

    /// Map and reverse map agree: every flash entry's slot names it back, and every owned
    /// slot is named by its owner.
    pub fn check(&self) -> Result<(), String> {
        for (l, &v) in self.l2p.iter().enumerate() {
            if v != UNMAPPED && v & BUF_FLAG == 0 && self.rmap[v as usize] != l as u32 {
                return Err(format!(
                    "l2p[{l}] = {v} but rmap[{v}] = {}",
                    self.rmap[v as usize]
                ));
            }
        }
        for (p, &l) in self.rmap.iter().enumerate() {
            if l != UNMAPPED && self.l2p[l as usize] != p as u32 {
                return Err(format!(
                    "rmap[{p}] = {l} but l2p[{l}] = {}",
                    self.l2p[l as usize]
                ));
            }
        }
        Ok(())
    }
}
