//! The ext4 model's invariants (at unmount and after each scenario step with
//! `--check-invariants`, always in debug builds and tests), as e2fsck's passes 1 and 5 and a
//! journal replay would find them:
//! - no block owned twice: static metadata, the journal, every file's extents and extent-tree
//!   blocks (directory blocks are extents of their directory);
//! - the block bitmap agrees with that ownership (blocks freed in the running transaction are
//!   still marked until it commits), group free counts with the bitmap, the inode bitmap with
//!   the live inodes;
//! - extents sorted, non-overlapping, within the file's size in blocks where written;
//! - the page cache's counts agree (dirty pages, delalloc reservations);
//! - the journal's replay: redoing the log's committed transactions onto the home metadata gives
//!   every block's committed version, and nothing is home that was never committed.

use super::Ext4;

impl Ext4 {
    pub fn check_invariants(&self) -> Result<(), String> {
        let words = self.ba.words();
        let mut own = vec![0u64; words.len()];
        let mut mark = |b: u64, n: u64, what: &dyn Fn() -> String| -> Result<(), String> {
            for x in b..b + n {
                let (w, m) = ((x >> 6) as usize, 1u64 << (x & 63));
                if w >= own.len() {
                    return Err(format!("ext4: block {x} of {} beyond the device", what()));
                }
                if own[w] & m != 0 {
                    return Err(format!("ext4: block {x} owned twice (again by {})", what()));
                }
                own[w] |= m;
            }
            Ok(())
        };
        for (b, n) in self.l.static_meta() {
            mark(b, n, &|| "static metadata".into())?;
        }
        mark(self.l.journal_start, self.l.journal_blocks, &|| {
            "the journal".into()
        })?;
        let mut dirty = 0u64;
        let mut reserved = 0u64;
        for (i, f) in self.inodes.iter().enumerate() {
            if !f.alive {
                continue;
            }
            if !self.inode_used(f.num) {
                return Err(format!(
                    "ext4: inode {} live but free in the inode bitmap",
                    f.num
                ));
            }
            let mut end = 0u32;
            for e in &f.ext.v {
                if e.len == 0 || e.lblk < end {
                    return Err(format!(
                        "ext4: file {i}: extents overlap or are empty at {}",
                        e.lblk
                    ));
                }
                end = e.lblk + e.len;
                mark(e.pblk, e.len as u64, &|| {
                    format!("file {i} block {}", e.lblk)
                })?;
            }
            if let Some(pa) = f.pa {
                mark(pa.pblk, pa.len as u64, &|| {
                    format!("file {i}'s preallocation")
                })?;
            }
            for &(b, _) in &f.tree {
                mark(b, 1, &|| format!("file {i}'s extent tree"))?;
            }
            if f.tree.len() != super::extent::tree_blocks(f.ext.len()) && self.c.alloc_failures == 0
            {
                return Err(format!(
                    "ext4: file {i}: {} tree blocks for {} extents",
                    f.tree.len(),
                    f.ext.len()
                ));
            }
            let unmapped = f
                .dirty
                .items()
                .iter()
                .filter(|&&fb| f.ext.map(fb).is_none())
                .count() as u64;
            if f.reserved != unmapped {
                return Err(format!(
                    "ext4: file {i}: {} blocks reserved for {unmapped} delayed pages",
                    f.reserved
                ));
            }
            dirty += f.dirty.len() as u64;
            reserved += f.reserved;
        }
        if dirty != self.dirty_pages || reserved != self.reserved {
            return Err(format!(
                "ext4: page cache counts {} dirty / {} reserved, files hold {dirty} / {reserved}",
                self.dirty_pages, self.reserved
            ));
        }
        for &(b, n) in &self.pending_free {
            for x in b..b + n {
                if own[(x >> 6) as usize] & (1 << (x & 63)) != 0 {
                    return Err(format!("ext4: block {x} freed but still owned"));
                }
                own[(x >> 6) as usize] |= 1 << (x & 63);
            }
        }
        if let Some(w) = (0..words.len()).find(|&w| words[w] != own[w]) {
            return Err(format!(
                "ext4: block bitmap disagrees with the extents at blocks {}..{} ({:#x} vs {:#x})",
                w * 64,
                w * 64 + 64,
                words[w],
                own[w]
            ));
        }
        for g in 0..self.l.groups {
            let (b0, n) = (self.l.group_first(g), self.l.group_len(g));
            // Groups are whole words (blocks_per_group is a multiple of 64; bits past the
            // device's end are clear).
            let used: u64 = words[(b0 / 64) as usize..(b0 + n).div_ceil(64) as usize]
                .iter()
                .map(|w| w.count_ones() as u64)
                .sum();
            if self.ba.group_free(g) as u64 != n - used {
                return Err(format!(
                    "ext4: group {g} counts {} free, its bitmap {}",
                    self.ba.group_free(g),
                    n - used
                ));
            }
        }
        let live = self.inodes.iter().filter(|f| f.alive).count() as u64;
        let used_inodes: u64 = self.ibits.iter().map(|w| w.count_ones() as u64).sum();
        if used_inodes != live + super::layout::FIRST_INO as u64 - 2 {
            return Err(format!(
                "ext4: {used_inodes} inodes in the bitmaps, {live} live (+ reserved)"
            ));
        }
        if let Some((id, got, want)) = self.j.replay_mismatch() {
            return Err(format!(
                "ext4: journal replay gives metadata block {id} version {got}, committed {want}"
            ));
        }
        Ok(())
    }
}
