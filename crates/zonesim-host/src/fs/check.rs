//! Invariants of the file system (debug builds and tests): Σ valid = live blocks, one owner per
//! live block and it points back, NAT and file maps agree with the owners, held (prefree)
//! blocks unowned, free segments empty, free counts equal the maps, zoned logs sequential.

use super::layout::BLKS_PER_SEG;
use super::{F2fs, NEW, NODE_OWNER, NO_OWNER, NULL};

impl F2fs {
    /// Check every invariant; the first violation as a message.
    pub fn check_invariants(&self) -> Result<(), String> {
        let mut per_seg = vec![0u32; self.segs.segs.len()];
        let mut live = 0u64;
        for (i, f) in self.inodes.iter().enumerate() {
            if !f.alive {
                continue;
            }
            for (fb, &a) in f.addrs.iter().enumerate() {
                if a == NULL {
                    continue;
                }
                live += 1;
                if a == NEW {
                    continue;
                }
                let want = (i as u64) << 32 | fb as u64;
                if self.owner[a as usize] != want {
                    return Err(format!(
                        "file {i} block {fb} at {a}: owner {:#x}",
                        self.owner[a as usize]
                    ));
                }
                per_seg[(a / BLKS_PER_SEG) as usize] += 1;
            }
            for &nid in &f.nids {
                if nid == NULL {
                    continue;
                }
                live += 1;
                let a = self.nat[nid as usize];
                if a == NULL {
                    continue;
                }
                if self.owner[a as usize] != NODE_OWNER | nid as u64 {
                    return Err(format!(
                        "node {nid} of file {i} at {a}: owner {:#x}",
                        self.owner[a as usize]
                    ));
                }
                per_seg[(a / BLKS_PER_SEG) as usize] += 1;
            }
        }
        if live != self.valid_blocks {
            return Err(format!(
                "valid block count {} != live blocks {live}",
                self.valid_blocks
            ));
        }
        let owned = self.owner.iter().filter(|&&o| o != NO_OWNER).count() as u64;
        let placed: u64 = per_seg.iter().map(|&n| n as u64).sum();
        if owned != placed {
            return Err(format!(
                "{owned} owned blocks, {placed} reachable from files and the NAT"
            ));
        }
        let (mut free_segs, mut prefree) = (0u64, 0u64);
        for (s, seg) in self.segs.segs.iter().enumerate() {
            if seg.valid as u32 != per_seg[s] {
                return Err(format!(
                    "segment {s}: valid {} != owned {}",
                    seg.valid, per_seg[s]
                ));
            }
            if seg.free {
                free_segs += 1;
                if seg.valid > 0 || seg.held > 0 {
                    return Err(format!("free segment {s} holds blocks"));
                }
            } else if !seg.current && seg.valid == 0 && self.geo.seg_usable(s as u32) {
                prefree += 1;
            }
        }
        if free_segs != self.segs.free_segs || prefree != self.segs.prefree {
            return Err(format!(
                "free/prefree counts {}/{} != maps {free_segs}/{prefree}",
                self.segs.free_segs, self.segs.prefree
            ));
        }
        for &b in self.held.items() {
            if self.owner[b as usize] != NO_OWNER {
                return Err(format!(
                    "held block {b} is owned (reused before a checkpoint)"
                ));
            }
        }
        if self.segs.dirty != super::seglist::DirtySeglist::build(&self.segs.segs) {
            return Err("the dirty segment lists differ from the segments they list".into());
        }
        let free_secs = self.segs.secs.iter().filter(|s| s.free).count() as u32;
        if free_secs != self.segs.free_secs {
            return Err(format!(
                "free sections {} != map {free_secs}",
                self.segs.free_secs
            ));
        }
        if self.geo.zoned {
            for c in &self.cur {
                if c.seg == NULL {
                    continue;
                }
                let base = c.seg * BLKS_PER_SEG;
                let beyond =
                    (base + c.blk..base + BLKS_PER_SEG).any(|b| self.owner[b as usize] != NO_OWNER);
                if beyond || c.ssr || !self.geo.seg_usable(c.seg) {
                    return Err(format!(
                        "zoned log at segment {} block {} is not sequential",
                        c.seg, c.blk
                    ));
                }
            }
        }
        Ok(())
    }
}
