//! The page cache and writeback with delayed allocation (fs/ext4/inode.c: `ext4_da_write_begin`
//! reserves a block per new dirty page, `ext4_da_writepages` → `mpage_map_and_submit_extent`
//! allocates each run of delayed pages as one request of up to 2,048 blocks at writeback, then
//! submits their data; overwrites of allocated blocks go in place; pages of unwritten extents
//! are written, then converted at I/O end, `ext4_convert_unwritten_extents`), the flusher
//! (`dirty_writeback_centisecs` period, files dirty for `dirty_expire_centisecs`; all dirty data
//! above the dirty limit), fsync (`ext4_sync_file`: the file's data, then the journal commit of
//! its transaction, or a cache flush when that is committed already), and the journal's commit,
//! checkpoint and home writes as commands (the rules in `journal`).
//!
//! `nodelalloc` maps blocks at write() (`ext4_write_begin` → `ext4_get_block`); the data is
//! still written at writeback.

use super::journal::CommitReason;
use super::layout::BLOCK_BYTES;
use super::mballoc::STREAM_REQ;
use super::stats::Flush;
use super::{Ext4, Pa};
use crate::fs_common::out::Area;
use crate::fs_common::{FsError, Ino};
use crate::IoKind;

/// Most blocks `mpage_map_and_submit_extent` maps at once (`MAX_WRITEPAGES_EXTENT_LEN`).
const MAX_MAP: u32 = 2048;

impl Ext4 {
    /// Write `len` bytes at `off` of `ino`: the pages become dirty (a block reserved for each new
    /// one); direct I/O is written back now.
    pub fn write(&mut self, ino: Ino, off: u64, len: u64, direct: bool) -> Result<(), FsError> {
        let idx = ino.0;
        if direct && self.write_direct_overwrite(idx, off, len) {
            return Ok(());
        }
        self.write_cached(idx, off, len, direct)
    }

    /// [`Ext4::write`] through the page cache (direct I/O written back at once).
    pub(super) fn write_cached(
        &mut self,
        idx: u32,
        off: u64,
        len: u64,
        direct: bool,
    ) -> Result<(), FsError> {
        let first = (off / BLOCK_BYTES) as u32;
        let end = (off + len).div_ceil(BLOCK_BYTES) as u32;
        self.c.user_bytes_requested += len;
        for fb in first..end {
            let f = &self.inodes[idx as usize];
            if f.dirty.contains(fb) {
                continue;
            }
            if f.ext.map(fb).is_none() {
                if self.available() == 0 {
                    self.c.enospc += 1;
                    return Err(FsError::NoSpace);
                }
                self.reserved += 1;
                self.inodes[idx as usize].reserved += 1;
            }
            let now = self.now;
            let f = &mut self.inodes[idx as usize];
            if f.dirty.is_empty() {
                f.dirty_since = now;
            }
            f.dirty.insert(fb);
            self.dirty_pages += 1;
            if !f.in_dirty_list {
                f.in_dirty_list = true;
                self.dirty_files.push(idx);
            }
        }
        let f = &mut self.inodes[idx as usize];
        let grew = off + len > f.size;
        if grew {
            f.size = off + len;
        }
        // mtime (`file_update_time`) and the size: the inode joins the transaction.
        self.touch_inode(idx, grew);
        if !self.p.delalloc && !self.map_dirty(idx) {
            self.c.alloc_failures += 1;
        }
        if direct {
            self.writeback_file(idx, Flush::Direct);
        } else if self.dirty_pages * BLOCK_BYTES > self.p.dirty_bytes {
            self.writeback_all(Flush::DirtyLimit);
        }
        self.timers();
        Ok(())
    }

    /// Read `len` bytes at `off` of `ino`: dirty pages, holes and unwritten blocks cost no
    /// device read; mapped runs are read in one command each.
    pub fn read(&mut self, ino: Ino, off: u64, len: u64) {
        let f = &self.inodes[ino.0 as usize];
        let first = (off / BLOCK_BYTES) as u32;
        let end = ((off + len).div_ceil(BLOCK_BYTES)).min(f.size.div_ceil(BLOCK_BYTES)) as u32;
        self.c.user_bytes_read += len;
        let n0 = self.out.cmds.len();
        for fb in first..end {
            if f.dirty.contains(fb) {
                continue;
            }
            if let Some((b, false)) = f.ext.map(fb) {
                self.out
                    .push(Area::Main, IoKind::Read, b * BLOCK_BYTES, BLOCK_BYTES);
            }
        }
        self.c.read_commands += (self.out.cmds.len() - n0) as u64;
    }

    /// fsync (`datasync = false`) or fdatasync of `ino`.
    pub fn fsync(&mut self, ino: Ino, datasync: bool) {
        if datasync {
            self.c.fdatasyncs += 1;
        } else {
            self.c.fsyncs += 1;
        }
        self.writeback_file(ino.0, Flush::Fsync);
        let f = &self.inodes[ino.0 as usize];
        let tid = if datasync { f.datasync_tid } else { f.sync_tid };
        if tid >= self.j.tid && !self.j.running.is_empty() {
            self.commit(CommitReason::Fsync);
        } else {
            self.c.fsync_flush_only += 1;
            self.out.flush();
        }
        self.timers();
    }

    /// `sync` / unmount: all dirty data, a commit, every committed block home.
    pub fn sync(&mut self) {
        self.writeback_all(Flush::Sync);
        for i in 0..self.inodes.len() as u32 {
            self.discard_pa(i);
        }
        self.commit(CommitReason::Sync);
        self.checkpoint();
    }

    /// Map every delayed page of `idx` (`nodelalloc` at write(), and writeback); false when
    /// space ran out (those pages stay delayed).
    fn map_dirty(&mut self, idx: u32) -> bool {
        let mut pages = std::mem::take(&mut self.scratch);
        pages.clear();
        pages.extend_from_slice(self.inodes[idx as usize].dirty.items());
        pages.sort_unstable();
        let mut ok = true;
        let mut i = 0;
        while i < pages.len() {
            let fb = pages[i];
            if self.inodes[idx as usize].ext.map(fb).is_some() {
                i += 1;
                continue;
            }
            let mut n = 1;
            while i + (n as usize) < pages.len()
                && pages[i + n as usize] == fb + n
                && n < MAX_MAP
                && self.inodes[idx as usize].ext.map(fb + n).is_none()
            {
                n += 1;
            }
            if !self.map_run(idx, fb, n) {
                ok = false;
                break;
            }
            i += n as usize;
        }
        self.scratch = pages;
        ok
    }

    /// Allocate blocks for the delayed pages `[fb, fb + n)` of `idx`: from the inode's
    /// preallocation when it continues there, else a request normalised as mballoc does for
    /// files of at least 16 blocks, whose surplus becomes the inode's preallocation.
    fn map_run(&mut self, idx: u32, fb: u32, n: u32) -> bool {
        let mut at = fb;
        while at < fb + n {
            let left = fb + n - at;
            if let Some(pa) = self.inodes[idx as usize].pa {
                if pa.lblk == at {
                    let k = left.min(pa.len);
                    self.map_extent(idx, at, pa.pblk, k as u64, false);
                    self.use_reserved(idx, k as u64);
                    self.c.pa_blocks_used += k as u64;
                    let f = &mut self.inodes[idx as usize];
                    f.pa = (pa.len > k).then_some(Pa {
                        lblk: pa.lblk + k,
                        pblk: pa.pblk + k as u64,
                        len: pa.len - k,
                    });
                    at += k;
                    continue;
                }
            }
            let f = &self.inodes[idx as usize];
            let goal = f.ext.goal(at).unwrap_or_else(|| self.inode_goal(idx));
            let merge = f.ext.continues(at, goal);
            let stream = f.size.div_ceil(BLOCK_BYTES) >= STREAM_REQ;
            let want = if stream {
                self.normalized(idx, at, left)
            } else {
                left
            };
            let got = match self.alloc_blocks(goal, want as u64, merge, stream) {
                Some(r) => Some(r),
                None if self.discard_all_pa() => {
                    self.alloc_blocks(goal, left as u64, merge, stream)
                }
                None => None,
            };
            let Some((b, got)) = got else {
                return false;
            };
            let used = got.min(left as u64);
            self.map_extent(idx, at, b, used, false);
            self.use_reserved(idx, used);
            if got > used {
                self.discard_pa(idx);
                self.inodes[idx as usize].pa = Some(Pa {
                    lblk: at + used as u32,
                    pblk: b + used,
                    len: (got - used) as u32,
                });
                self.c.pa_blocks += got - used;
            }
            at += used as u32;
        }
        true
    }

    /// `ext4_mb_normalize_request`: the file's size class (16 KiB .. 1 MiB from the file's
    /// start; 2, 4 or 8 MiB aligned windows beyond), less what is mapped already, at least the
    /// request; blocks from `at`.
    fn normalized(&self, idx: u32, at: u32, left: u32) -> u32 {
        let f = &self.inodes[idx as usize];
        let size = f.size.div_ceil(BLOCK_BYTES).max((at + left) as u64) as u32;
        let (start, len) = match size {
            s if s <= 256 => (0, s.next_power_of_two().max(4)),
            s if s <= 1024 => (at & !511, 512),
            s if s <= 2048 => (at & !1023, 1024),
            _ => (at & !2047, 2048),
        };
        let mut end = start + len;
        let next = f.ext.v.partition_point(|e| e.lblk <= at);
        if let Some(e) = f.ext.v.get(next) {
            end = end.min(e.lblk);
        }
        end.saturating_sub(at).max(left)
    }

    fn use_reserved(&mut self, idx: u32, n: u64) {
        let r = n.min(self.inodes[idx as usize].reserved);
        self.inodes[idx as usize].reserved -= r;
        self.reserved -= r;
        self.c.allocated_blocks += n;
    }

    /// Return `idx`'s preallocated blocks (`ext4_discard_preallocations`).
    pub(crate) fn discard_pa(&mut self, idx: u32) {
        if let Some(pa) = self.inodes[idx as usize].pa.take() {
            self.free_blocks(pa.pblk, pa.len as u64);
        }
    }

    /// Every inode's preallocation returned (no space left, or sync); true if any was.
    pub(crate) fn discard_all_pa(&mut self) -> bool {
        let mut any = false;
        for i in 0..self.inodes.len() as u32 {
            if self.inodes[i as usize].pa.is_some() {
                self.discard_pa(i);
                any = true;
            }
        }
        if any {
            self.commit(CommitReason::Full);
        }
        any
    }

    /// Write back `idx`'s dirty pages in file order: delayed runs allocated, then every page
    /// written (unwritten extents converted after).
    pub(crate) fn writeback_file(&mut self, idx: u32, why: Flush) {
        if self.inodes[idx as usize].dirty.is_empty() {
            return;
        }
        self.c.flushes.add(why);
        self.c.files_flushed += 1;
        let f = &self.inodes[idx as usize];
        let over = f
            .dirty
            .items()
            .iter()
            .filter(|&&fb| matches!(f.ext.map(fb), Some((_, false))))
            .count() as u64;
        self.c.overwrite_blocks += over;
        if !self.map_dirty(idx) {
            // No space for some delayed pages: they stay dirty (counted); the rest goes out.
            self.c.alloc_failures += 1;
        }
        let mut pages = std::mem::take(&mut self.scratch);
        self.inodes[idx as usize].dirty.drain_into(&mut pages);
        self.inodes[idx as usize].in_dirty_list = false;
        pages.sort_unstable();
        let mut kept = 0u64;
        let mut i = 0;
        while i < pages.len() {
            let fb = pages[i];
            let Some((b, unwritten)) = self.inodes[idx as usize].ext.map(fb) else {
                // Still delayed (no space): back in the page cache.
                self.inodes[idx as usize].dirty.insert(fb);
                kept += 1;
                i += 1;
                continue;
            };
            // The run of pages in the same extent state, contiguous on the device.
            let mut n = 1u32;
            while i + (n as usize) < pages.len()
                && pages[i + n as usize] == fb + n
                && self.inodes[idx as usize].ext.map(fb + n) == Some((b + n as u64, unwritten))
            {
                n += 1;
            }
            self.write_blocks(b, n as u64);
            self.c.data_blocks += n as u64;
            if unwritten {
                let z = self.inodes[idx as usize]
                    .ext
                    .convert(fb, n, self.p.max_zeroout_blocks);
                for (zb, zn) in z {
                    if zn > 0 {
                        self.write_blocks(zb, zn as u64);
                        self.c.zeroout_blocks += zn as u64;
                    }
                }
                self.fit_tree(idx, fb);
            }
            i += n as usize;
        }
        self.dirty_pages -= pages.len() as u64 - kept;
        pages.clear();
        self.scratch = pages;
        let f = &mut self.inodes[idx as usize];
        if kept > 0 && !f.in_dirty_list {
            f.in_dirty_list = true;
            self.dirty_files.push(idx);
        }
        self.touch_inode(idx, false);
    }

    /// Data writes of blocks `[b, b + n)` (merged into bio-sized commands).
    pub(super) fn write_blocks(&mut self, b: u64, n: u64) {
        for x in b..b + n {
            self.out
                .push(Area::Main, IoKind::Write, x * BLOCK_BYTES, BLOCK_BYTES);
        }
    }

    /// Write back every dirty file (`why`: the dirty limit or sync), in the order they became
    /// dirty.
    pub(crate) fn writeback_all(&mut self, why: Flush) {
        let files = std::mem::take(&mut self.dirty_files);
        for &idx in &files {
            if self.inodes[idx as usize].in_dirty_list {
                self.writeback_file(idx, why);
                self.commit_if_full();
            }
        }
        self.dirty_files
            .retain(|&i| self.inodes[i as usize].in_dirty_list);
        let mut files = files;
        files.clear();
        if self.dirty_files.is_empty() {
            self.dirty_files = files;
        }
    }

    /// Commit the running transaction (ordered: the data already queued goes first), making
    /// room in the log first; the frees it covers become allocatable.
    pub(crate) fn commit(&mut self, why: CommitReason) {
        if self.j.running.is_empty() {
            return;
        }
        if self.j.commit_size().total() > self.j.free_log() {
            self.checkpoint();
        }
        self.out.barrier();
        let (size, pieces) = self.j.commit(self.now);
        self.c.commits.add(why);
        self.c.journal_descriptor_blocks += size.descriptor;
        self.c.journal_metadata_blocks += size.metadata;
        self.c.journal_revoke_blocks += size.revoke;
        self.c.journal_commit_blocks += size.commit;
        let log0 = self.l.journal_start + 1;
        let total = size.total();
        let mut k = 0;
        for (at, n) in pieces {
            for x in at..at + n {
                k += 1;
                if k == total {
                    // The commit block: REQ_PREFLUSH | REQ_FUA.
                    self.out.flush();
                    self.out.push(
                        Area::Main,
                        IoKind::Write,
                        (log0 + x) * BLOCK_BYTES,
                        BLOCK_BYTES,
                    );
                    self.out.flush();
                } else {
                    self.out.push(
                        Area::Main,
                        IoKind::Write,
                        (log0 + x) * BLOCK_BYTES,
                        BLOCK_BYTES,
                    );
                }
            }
        }
        self.release_pending();
    }

    /// A transaction at a quarter of the log commits (handles wait for the next one).
    fn commit_if_full(&mut self) {
        if self.j.full() {
            self.commit(CommitReason::Full);
        }
    }

    /// Write committed metadata home: all of it (`all`, a checkpoint), else what is older than
    /// the dirty expiry; then advance the log tail (a journal-superblock write when it moves).
    fn write_home(&mut self, all: bool) {
        let expired = self
            .now
            .saturating_sub(self.p.dirty_expire_ms.saturating_mul(1_000_000));
        let mut ids = std::mem::take(&mut self.scratch_ids);
        self.j.take_home(all, expired, &mut ids);
        if !ids.is_empty() {
            self.out.barrier();
            let mut blocks = std::mem::take(&mut self.scratch_blocks);
            blocks.clear();
            blocks.extend(ids.iter().map(|&id| self.meta_block(id)));
            blocks.sort_unstable_by_key(|b| b.0);
            for &(b, kind) in &blocks {
                self.out
                    .push(Area::Main, IoKind::Write, b * BLOCK_BYTES, BLOCK_BYTES);
                self.c.meta_home.add(kind);
            }
            self.scratch_blocks = blocks;
        }
        self.scratch_ids = ids;
        if self.j.advance_tail() {
            self.out.flush();
            self.out.push(
                Area::Main,
                IoKind::Write,
                self.l.journal_start * BLOCK_BYTES,
                BLOCK_BYTES,
            );
            self.c.meta_home.add(super::MetaKind::JournalSuper);
        }
    }

    /// A checkpoint: every committed block home, the log emptied.
    pub(crate) fn checkpoint(&mut self) {
        self.c.checkpoints += 1;
        self.write_home(true);
    }

    /// The journal's commit timer, a transaction grown to a quarter of the log, and the
    /// flusher, as of `now` (checked at every operation and by the background tick).
    pub(crate) fn timers(&mut self) {
        if let Some(t0) = self.j.running_since {
            if self.now.saturating_sub(t0) >= self.p.commit_ms.saturating_mul(1_000_000) {
                self.commit(CommitReason::Timer);
            } else {
                self.commit_if_full();
            }
        }
        let period = self.p.dirty_writeback_ms.saturating_mul(1_000_000);
        if self.now.saturating_sub(self.last_flusher) >= period {
            self.last_flusher = self.now;
            self.flusher();
        }
    }

    /// One flusher round: files dirty for longer than the expiry are written back, then
    /// committed metadata as old is written home.
    fn flusher(&mut self) {
        let expire = self.p.dirty_expire_ms.saturating_mul(1_000_000);
        let files = std::mem::take(&mut self.dirty_files);
        for &idx in &files {
            let f = &self.inodes[idx as usize];
            if f.in_dirty_list && self.now.saturating_sub(f.dirty_since) >= expire {
                self.writeback_file(idx, Flush::Expired);
                self.commit_if_full();
            }
        }
        let mut files = files;
        files.retain(|&i| self.inodes[i as usize].in_dirty_list);
        files.append(&mut self.dirty_files);
        self.dirty_files = files;
        self.write_home(false);
    }

    /// The background tick at `now` (jbd2's commit timer, the flusher's wake-up): the
    /// commands are left in `out`; returns the time to the next tick (ns).
    pub fn bg_tick(&mut self, now: u64) -> u64 {
        self.now = now;
        self.timers();
        let flusher = self.last_flusher + self.p.dirty_writeback_ms.saturating_mul(1_000_000);
        let commit = self
            .j
            .running_since
            .map_or(u64::MAX, |t| t + self.p.commit_ms.saturating_mul(1_000_000));
        flusher.min(commit).saturating_sub(now).max(1_000_000)
    }
}
