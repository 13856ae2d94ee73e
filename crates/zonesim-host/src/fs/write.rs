//! The write and read paths (docs/fs.md "Layout, logs and nodes" and "fsync, in-place updates and
//! slack space recycling"): the page cache (dirty pages, writeback at the dirty limit, fsync),
//! in-place vs out-of-place updates by mode and `ipu_policy`, the six logs' current segments, slack
//! space recycling (SSR) in adaptive mode, and the reads of a file by its fragments.

use super::layout::{BLKS_PER_SEG, BLOCK_BYTES};
use super::params::{FsMode, IPU_FORCE, IPU_FSYNC, IPU_SSR, IPU_SSR_UTIL, IPU_UTIL};
use super::stats::CpReason;
use super::{node, Area, F2fs, FsError, Ino, NEW, NO_OWNER, NULL};
use crate::IoKind;

/// Why a file's dirty pages are written back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Wb {
    /// Flusher / dirty limit / checkpoint of dentries: overwrites go out of place.
    Async,
    /// Direct I/O: an allocated block is overwritten in place unless the mode is LFS.
    Direct,
    /// fsync or fdatasync; `ipu` = FI_NEED_IPU (≤ min_fsync_blocks dirty, or fdatasync).
    Sync { ipu: bool },
}

impl F2fs {
    /// Mark page `fb` of `ino` dirty, reserving a block for it if it has none.
    pub(super) fn dirty_page(&mut self, ino: u32, fb: u32) -> bool {
        let f = &mut self.inodes[ino as usize];
        if f.addrs.len() <= fb as usize {
            f.addrs.resize(fb as usize + 1, NULL);
        }
        if f.addrs[fb as usize] == NULL {
            if self.valid_blocks >= self.geo.user_blocks {
                return false;
            }
            f.addrs[fb as usize] = NEW;
            self.valid_blocks += 1;
        }
        if f.dirty.insert(fb) {
            self.dirty_pages += 1;
            if f.dir {
                self.dirty_dent_pages += 1;
            }
            if !f.in_dirty_list {
                f.in_dirty_list = true;
                self.dirty_files.push(ino);
                if self.dirty_files.len() > 2 * self.inodes.len() + 64 {
                    self.compact_dirty_files();
                }
            }
        }
        true
    }

    /// Write `len` bytes at `off` of `ino`. Buffered: the pages become dirty (writeback at the
    /// dirty limit); direct: written now (in place when the mode allows, else out of place).
    pub fn write(&mut self, ino: Ino, off: u64, len: u64, direct: bool) -> Result<(), FsError> {
        let first = off / BLOCK_BYTES;
        let end = (off + len).div_ceil(BLOCK_BYTES);
        self.c.user_bytes_requested += len;
        for fb in first..end {
            if !self.dirty_page(ino.0, fb as u32) {
                self.c.enospc += 1;
                return Err(FsError::NoSpace);
            }
        }
        let f = &mut self.inodes[ino.0 as usize];
        if off + len > f.size {
            f.size = off + len;
            self.dirty_node(ino.0, 0);
        }
        // Direct I/O is buffered on a zoned device (LFS) in F2FS; elsewhere written now.
        if direct && !self.geo.zoned {
            self.writeback_file(ino.0, Wb::Direct);
        } else if self.dirty_pages * BLOCK_BYTES > self.p.dirty_bytes {
            self.c.dirty_limit_writebacks += 1;
            self.writeback_all();
        }
        self.balance_fs();
        self.balance_fs_bg(false);
        Ok(())
    }

    /// Read `len` bytes at `off` of `ino`: cached dirty pages and holes cost no device read;
    /// the rest is read fragment by fragment (adjacent blocks in one command).
    pub fn read(&mut self, ino: Ino, off: u64, len: u64) {
        let f = &self.inodes[ino.0 as usize];
        let first = off / BLOCK_BYTES;
        let end = (off + len).div_ceil(BLOCK_BYTES).min(f.addrs.len() as u64);
        let n0 = self.out.cmds.len();
        self.c.user_bytes_read += len;
        for fb in first..end {
            let a = f.addrs[fb as usize];
            if a == NULL || a == NEW || f.dirty.contains(fb as u32) {
                continue;
            }
            self.out.push(
                Area::Main,
                IoKind::Read,
                self.geo.main_offset(a),
                BLOCK_BYTES,
            );
        }
        for c in &self.out.cmds[n0..] {
            self.c.read_sizes.record(c.io.len);
        }
    }

    /// fsync (`datasync = false`) or fdatasync of `ino` (`f2fs_do_sync_file`): data written
    /// back (IPU for ≤ min_fsync_blocks dirty pages or fdatasync, by `ipu_policy`), then the
    /// file's dirty nodes (unless only in-place updates happened and the inode is clean), then
    /// a device cache flush.
    pub fn fsync(&mut self, ino: Ino, datasync: bool) {
        if datasync {
            self.c.fdatasyncs += 1;
        } else {
            self.c.fsyncs += 1;
        }
        let f = &self.inodes[ino.0 as usize];
        let ipu = datasync || f.dirty.len() as u64 <= self.p.min_fsync_blocks as u64;
        let opu = self.writeback_file(ino.0, Wb::Sync { ipu });
        self.out.barrier();
        let inode_dirty = self.inode_dirty(ino.0);
        if opu > 0 || inode_dirty {
            self.write_dirty_nodes(ino.0);
        }
        self.out.flush();
        self.balance_fs();
        self.balance_fs_bg(false);
    }

    /// Write `ino`'s dirty node blocks (fsync's node stage).
    pub(super) fn write_dirty_nodes(&mut self, ino: u32) {
        let nids = std::mem::take(&mut self.inodes[ino as usize].nids);
        for &nid in &nids {
            if nid != NULL && self.node_dirty[nid as usize] {
                self.node_dirty[nid as usize] = false;
                self.dirty_nodes -= 1;
                self.write_node(nid, super::NodeWriter::Host);
            }
        }
        self.inodes[ino as usize].nids = nids;
        self.c.fsync_node_writes += 1;
    }

    fn inode_dirty(&self, ino: u32) -> bool {
        let n = self.inodes[ino as usize]
            .nids
            .first()
            .copied()
            .unwrap_or(NULL);
        n != NULL && self.node_dirty[n as usize]
    }

    /// Write back every dirty page (`sync`'s data part, or the dirty limit).
    pub(super) fn writeback_all(&mut self) {
        let mut files = std::mem::take(&mut self.dirty_files);
        for &ino in &files {
            if self.inodes[ino as usize].in_dirty_list {
                self.writeback_file(ino, Wb::Async);
            }
        }
        files.clear();
        if self.dirty_files.is_empty() {
            self.dirty_files = files;
        }
    }

    /// Drop stale entries of the dirty-file list (files written back by fsync since).
    fn compact_dirty_files(&mut self) {
        let inodes = &self.inodes;
        self.dirty_files.clear();
        self.dirty_files
            .extend((0..inodes.len() as u32).filter(|&i| inodes[i as usize].in_dirty_list));
    }

    /// `sync` / unmount: all dirty data, then a checkpoint.
    pub fn sync(&mut self) {
        self.writeback_all();
        self.out.barrier();
        self.checkpoint(CpReason::Sync);
    }

    /// Write back `ino`'s dirty pages in file order; returns the blocks written out of place.
    pub(super) fn writeback_file(&mut self, ino: u32, wb: Wb) -> u64 {
        let mut pages = std::mem::take(&mut self.scratch);
        self.inodes[ino as usize].dirty.drain_into(&mut pages);
        self.inodes[ino as usize].in_dirty_list = false;
        pages.sort_unstable();
        let n = pages.len() as u64;
        self.dirty_pages -= n;
        let dir = self.inodes[ino as usize].dir;
        if dir {
            self.dirty_dent_pages -= n;
        }
        let log = self.inodes[ino as usize].data_log;
        let mut opu = 0;
        for &fb in &pages {
            let old = self.inodes[ino as usize].addrs[fb as usize];
            if old != NEW && self.p.device_ipu && self.device_ipu(ino, fb, old, wb) {
                continue;
            }
            if old != NEW && self.should_ipu(ino, wb) {
                self.main_io(IoKind::Write, old);
                self.c.ipu_blocks += 1;
                self.c.data_bytes += BLOCK_BYTES;
                self.mtime_touch(old);
                continue;
            }
            if self.write_out_of_place(ino, fb, old, log, dir) {
                opu += 1;
            }
        }
        self.scratch = pages;
        opu
    }

    /// Write page `fb` of `ino` (held in `old`, or [`NEW`]) to a new block of `log`: the old
    /// block invalidated, the node dirty. False if no block was left (the page stays dirty).
    pub(super) fn write_out_of_place(
        &mut self,
        ino: u32,
        fb: u32,
        old: u32,
        log: u8,
        dir: bool,
    ) -> bool {
        let Some(b) = self.alloc(log) else {
            // No segment left (GC could not keep up): the page stays dirty (its block, NEW or
            // old, is kept, so this never fails).
            self.c.alloc_failures += 1;
            let kept = self.dirty_page(ino, fb);
            debug_assert!(kept);
            return false;
        };
        if old != NEW {
            self.invalidate(old);
        }
        self.own(b, (ino as u64) << 32 | fb as u64, 0);
        self.inodes[ino as usize].addrs[fb as usize] = b;
        self.dirty_node(ino, node::node_of(fb as u64));
        self.main_io(IoKind::Write, b);
        self.c.opu_blocks += 1;
        if dir {
            self.c.dentry_bytes += BLOCK_BYTES;
        } else {
            self.c.data_bytes += BLOCK_BYTES;
        }
        true
    }

    /// An in-place update refreshes its segment's age.
    fn mtime_touch(&mut self, b: u32) {
        let s = &mut self.segs.segs[(b / BLKS_PER_SEG) as usize];
        let v = s.valid.max(1) as u64;
        s.mtime = (s.mtime * (v - 1) + self.now) / v;
    }

    /// `should_update_outplace` then `should_update_inplace` for a page with a block.
    fn should_ipu(&self, ino: u32, wb: Wb) -> bool {
        if self.p.mode == FsMode::Lfs || self.inodes[ino as usize].dir {
            return false;
        }
        if wb == Wb::Direct {
            return true;
        }
        if self.inodes[ino as usize].data_log == super::COLD_DATA {
            return true;
        }
        let pol = self.p.ipu_policy;
        let util = 100 * self.valid_blocks / self.geo.user_blocks.max(1);
        let ssr = self.need_ssr();
        pol & IPU_FORCE != 0
            || (pol & IPU_SSR != 0 && ssr)
            || (pol & IPU_UTIL != 0 && util > self.p.min_ipu_util as u64)
            || (pol & IPU_SSR_UTIL != 0 && ssr && util > self.p.min_ipu_util as u64)
            || (pol & IPU_FSYNC != 0 && matches!(wb, Wb::Sync { ipu: true }))
    }

    /// The next block of `log`, opening a new segment when the current one is full.
    pub(super) fn alloc(&mut self, log: u8) -> Option<u32> {
        loop {
            let c = self.cur[log as usize];
            if c.seg != NULL {
                let base = c.seg * BLKS_PER_SEG;
                let mut blk = c.blk;
                if c.ssr {
                    while blk < BLKS_PER_SEG
                        && (self.owner[(base + blk) as usize] != NO_OWNER
                            || self.held.contains(base + blk))
                    {
                        blk += 1;
                    }
                }
                if blk < BLKS_PER_SEG {
                    self.cur[log as usize].blk = blk + 1;
                    return Some(base + blk);
                }
            }
            if !self.new_segment(log) {
                return None;
            }
        }
    }

    /// Move `log` to a new segment: the next one of its section, else (adaptive, space low)
    /// a dirty segment of its type (SSR), else a free section.
    fn new_segment(&mut self, log: u8) -> bool {
        let c = self.cur[log as usize];
        if c.seg != NULL {
            // The next segment of the section is opened before the current one is closed, so
            // a section being written never looks free (and is never reset under a log).
            let next = if c.ssr {
                None
            } else {
                self.segs.next_in_section(c.seg)
            };
            if let Some(n) = next {
                self.open(log, n);
            }
            if self.segs.close(c.seg) {
                let freed = self.segs.try_free(c.seg);
                self.on_freed(c.seg, freed);
            }
            self.ssa_pending += 1;
            if next.is_some() {
                return true;
            }
            self.cur[log as usize].seg = NULL;
        }
        if self.need_ssr() && self.open_ssr(log) {
            return true;
        }
        if let Some(s) = self.segs.take_section() {
            self.open(log, s);
            return true;
        }
        self.p.mode == FsMode::Adaptive && self.open_ssr(log)
    }

    fn open(&mut self, log: u8, seg: u32) {
        self.segs.open(seg, log, self.now);
        self.cur[log as usize] = super::Cur {
            seg,
            blk: 0,
            ssr: false,
        };
    }

    /// `f2fs_balance_fs_bg`: checkpoint on prefree pressure, dirty nodes or `CP_TIME`. `idle`:
    /// the device is idle (the background thread's gate; a foreground caller is not), which
    /// the prefree and timer triggers wait for where `Kernel::bg_cp_waits_for_idle`.
    pub(super) fn balance_fs_bg(&mut self, idle: bool) {
        let rec_prefree = (self.geo.main_segs() as u64 * 5 / 100).min(4096);
        let gated = !idle && self.p.kernel.bg_cp_waits_for_idle();
        let reason = if !gated && self.segs.prefree > rec_prefree {
            Some(CpReason::Prefree)
        } else if self.dirty_nodes > self.p.dirty_nodes_cp {
            Some(CpReason::DirtyNodes)
        } else if !gated
            && self.now.saturating_sub(self.last_cp_ns)
                >= self.p.cp_interval_ms.saturating_mul(1_000_000)
        {
            Some(CpReason::Timer)
        } else {
            None
        };
        if let Some(r) = reason {
            self.out.barrier();
            self.checkpoint(r);
        }
    }

    /// Sections the dirty nodes, dentries (and, in LFS, data where
    /// `Kernel::counts_dirty_data_in_lfs`) need, plus the reserve
    /// (`has_not_enough_free_secs`, its upper bound).
    pub(super) fn needed_secs(&self) -> u64 {
        let bps = self.geo.blocks_per_sec() as u64;
        let node = self.dirty_nodes.div_ceil(bps);
        let dent = self.dirty_dent_pages.div_ceil(bps);
        let data = if self.p.mode == FsMode::Lfs && self.p.kernel.counts_dirty_data_in_lfs() {
            (self.dirty_pages - self.dirty_dent_pages).div_ceil(bps)
        } else {
            0
        };
        node + 2 * dent + data + self.geo.reserved_sections() as u64
    }
}
