//! Checkpoints (docs/fs.md "Checkpoints"): dirty dentry pages and every dirty node go to their
//! logs, dirty NAT and SIT entries are journalled in the CP pack (38 / 6) or their blocks written
//! in place, the SSA blocks of closed segments are written, then the CP pack between two cache
//! flushes. Blocks invalidated since the previous checkpoint are released: prefree segments become
//! free, and a section that becomes wholly free is reset (zoned) or discarded.

use super::layout::{BLKS_PER_SEG, BLOCK_BYTES, CP_PACK_BLOCKS, NAT_JOURNAL, NAT_PER_BLOCK};
use super::layout::{SIT_JOURNAL, SIT_PER_BLOCK};
use super::stats::CpReason;
use super::write::Wb;
use super::{Area, F2fs};
use crate::IoKind;

impl F2fs {
    /// Write a checkpoint.
    pub fn checkpoint(&mut self, reason: CpReason) {
        self.c.checkpoints.count(reason);
        // Dentry pages of dirty directories (block_operations).
        let mut dirs = std::mem::take(&mut self.scratch_dirs);
        dirs.clear();
        dirs.extend(
            self.dirty_files
                .iter()
                .copied()
                .filter(|&i| self.inodes[i as usize].dir && self.inodes[i as usize].in_dirty_list),
        );
        dirs.sort_unstable();
        dirs.dedup();
        for &d in &dirs {
            self.writeback_file(d, Wb::Async);
        }
        self.scratch_dirs = dirs;
        // Every dirty node.
        let mut list = std::mem::take(&mut self.dirty_node_list);
        for &nid in &list {
            if self.node_dirty[nid as usize] {
                self.node_dirty[nid as usize] = false;
                self.dirty_nodes -= 1;
                if !self.write_node(nid, super::NodeWriter::Host) {
                    self.c.alloc_failures += 1;
                }
            }
        }
        list.clear();
        self.dirty_node_list = list;
        self.out.barrier();
        self.write_nat_sit();
        // SSA blocks of the segments closed since the last checkpoint.
        let meta = self.geo.meta;
        for k in 0..self.ssa_pending.min(self.geo.main_segs() as u64) {
            let b = meta.ssa + (self.cp_version * 7 + k) % self.geo.main_segs() as u64;
            self.meta_write(b);
        }
        self.ssa_pending = 0;
        // CP pack between flushes (the footer with FUA).
        self.out.flush();
        let pack = meta.cp + (self.cp_version & 1) * BLKS_PER_SEG as u64;
        for k in 0..CP_PACK_BLOCKS {
            self.out.push(
                Area::Meta,
                IoKind::Write,
                self.geo.meta_offset(pack + k),
                BLOCK_BYTES,
            );
        }
        self.c.cp_bytes += CP_PACK_BLOCKS * BLOCK_BYTES;
        self.out.flush();
        self.cp_version += 1;
        self.last_cp_ns = self.now;
        self.release_held();
    }

    /// NAT and SIT: journalled in the CP pack when few, else their blocks written in place
    /// (to the copy of this checkpoint's version).
    fn write_nat_sit(&mut self) {
        let meta = self.geo.meta;
        let copy = self.cp_version & 1;
        let mut blocks = std::mem::take(&mut self.scratch);
        if self.nat_dirty.len() as u64 > NAT_JOURNAL {
            blocks.clear();
            blocks.extend(
                self.nat_dirty
                    .items()
                    .iter()
                    .map(|&n| n / NAT_PER_BLOCK as u32),
            );
            blocks.sort_unstable();
            blocks.dedup();
            for &k in &blocks {
                self.meta_write(meta.nat + copy * meta.nat_blocks + k as u64);
            }
        }
        self.nat_dirty.clear();
        if self.sit_dirty.len() as u64 > SIT_JOURNAL {
            blocks.clear();
            blocks.extend(
                self.sit_dirty
                    .items()
                    .iter()
                    .map(|&s| s / SIT_PER_BLOCK as u32),
            );
            blocks.sort_unstable();
            blocks.dedup();
            for &k in &blocks {
                self.meta_write(meta.sit + copy * meta.sit_blocks + k as u64);
            }
        }
        self.sit_dirty.clear();
        self.scratch = blocks;
    }

    /// A segment became free (and maybe its section): discard it, or reset the zone.
    pub(super) fn on_freed(&mut self, seg: u32, (seg_free, sec_free): (bool, bool)) {
        if sec_free && self.geo.zoned {
            let sec = self.segs.sec_of(seg);
            let off = self.geo.main_offset(sec * self.geo.blocks_per_sec());
            self.out.push(Area::Main, IoKind::ZoneReset, off, 0);
            self.c.zone_resets += 1;
        } else if seg_free && !self.geo.zoned && self.p.discard {
            let off = self.geo.main_offset(seg * BLKS_PER_SEG);
            self.out.push(
                Area::Main,
                IoKind::Trim,
                off,
                BLKS_PER_SEG as u64 * BLOCK_BYTES,
            );
            self.c.discard_bytes += BLKS_PER_SEG as u64 * BLOCK_BYTES;
        }
    }

    fn meta_write(&mut self, b: u64) {
        self.out.push(
            Area::Meta,
            IoKind::Write,
            self.geo.meta_offset(b),
            BLOCK_BYTES,
        );
        self.c.meta_bytes += BLOCK_BYTES;
    }

    /// Release the blocks held since the last checkpoint; free what became free.
    fn release_held(&mut self) {
        let mut held = std::mem::take(&mut self.scratch);
        self.held.drain_into(&mut held);
        held.sort_unstable();
        let mut i = 0;
        while i < held.len() {
            let seg = held[i] / BLKS_PER_SEG;
            let mut n = 0u16;
            while i < held.len() && held[i] / BLKS_PER_SEG == seg {
                n += 1;
                i += 1;
            }
            let freed = self.segs.release(seg, n);
            self.on_freed(seg, freed);
        }
        self.scratch = held;
    }
}
