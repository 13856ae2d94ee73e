//! An ext4 model beside the F2FS one, on the same file interface (docs/ext4.md; the kernel's
//! fs/ext4 and fs/jbd2, read at Linux 4.15 — SUP-GC's host — and today's tree; e2fsprogs'
//! mke2fs for the layout). It turns file operations (create, write, read, fsync, unlink,
//! fallocate, sync) into device-neutral commands on one namespace ([`crate::fs_common::out`]),
//! which `sim` turns into device commands.
//!
//! Rooms: `layout` (mke2fs: groups, flex groups, inode tables, the journal's place and size),
//! `mballoc` (goal-based block allocation), `extent` (a file's extents and its tree blocks),
//! `journal` (jbd2 in ordered mode: transactions, commits, checkpoints, the log tail),
//! `delalloc` (page cache, delayed allocation at writeback, the flusher, fsync), `stats`
//! (counters), `check` (invariants: no block owned twice, bitmaps agree with extents, journal
//! replay reproduces the committed metadata).

pub mod check;
mod delalloc;
mod direct;
pub mod extent;
pub mod journal;
pub mod layout;
pub mod mballoc;
pub mod params;
pub mod stats;
#[cfg(test)]
mod tests;

pub use layout::{Layout, MetaId, MetaKind, BLOCK_BYTES};
pub use params::Ext4Params;
pub use stats::Ext4Counters;

use crate::fs_common::dirty::DirtySet;
use crate::fs_common::out::Out;
use crate::fs_common::{FsError, Ino, ROOT};
use extent::Extents;
use journal::Journal;
use mballoc::Balloc;
use zonesim_core::error::Result;

/// Bytes a directory block holds for entries (4,096 less the 12-byte checksum tail).
const DIR_BLOCK_ROOM: u64 = 4084;

/// One file or directory.
#[derive(Debug, Clone, Default)]
pub(crate) struct Inode {
    pub alive: bool,
    pub dir: bool,
    /// ext4 inode number.
    pub num: u32,
    pub parent: u32,
    pub size: u64,
    pub ext: Extents,
    /// Extent-tree blocks: (block, metadata id).
    pub tree: Vec<(u64, MetaId)>,
    /// Dirty pages in the page cache (file block indices).
    pub dirty: DirtySet,
    pub in_dirty_list: bool,
    /// When the first of its dirty pages became dirty.
    pub dirty_since: u64,
    /// Delalloc pages reserved (dirty, no block yet).
    pub reserved: u64,
    /// The directory block index of its entry in its parent.
    pub dent_block: u32,
    /// Directory: bytes used in its last block, and the metadata id of each block.
    pub dir_tail: u64,
    pub dir_meta: Vec<MetaId>,
    /// Transaction of the inode's last change, and of its last change fdatasync must commit.
    pub sync_tid: u64,
    pub datasync_tid: u64,
    /// The inode's preallocation: blocks taken for its next logical blocks.
    pub pa: Option<Pa>,
}

/// An inode preallocation (`ext4_prealloc_space`): logical blocks from `lblk` go to physical
/// blocks from `pblk`, `len` of them left. Its blocks are marked used on disk when taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Pa {
    pub lblk: u32,
    pub pblk: u64,
    pub len: u32,
}

/// The file system.
#[derive(Clone)]
pub struct Ext4 {
    pub p: Ext4Params,
    pub l: Layout,
    ba: Balloc,
    pub(crate) j: Journal,
    /// Inode bitmap (by inode number - 1) and free inodes per group.
    ibits: Vec<u64>,
    ifree: Vec<u32>,
    pub(crate) inodes: Vec<Inode>,
    free_idx: Vec<u32>,
    /// Dynamic metadata blocks (extent tree, directory): block and kind per id - `dyn_base`.
    dyn_block: Vec<(u64, MetaKind)>,
    free_dyn: Vec<MetaId>,
    /// Blocks freed in the running transaction: reusable after its commit.
    pending_free: Vec<(u64, u64)>,
    /// Delalloc reservations (blocks promised to dirty pages).
    reserved: u64,
    dirty_files: Vec<u32>,
    dirty_pages: u64,
    last_flusher: u64,
    orlov_next: u32,
    pub now: u64,
    pub out: Out,
    pub c: Ext4Counters,
    scratch: Vec<u32>,
    scratch_ids: Vec<MetaId>,
    scratch_blocks: Vec<(u64, MetaKind)>,
}

impl Ext4 {
    /// mkfs + mount on a namespace of `bytes`.
    pub fn new(p: Ext4Params, bytes: u64) -> Result<Ext4> {
        let mut l = Layout::mkfs(bytes, &p)?;
        let mut ba = Balloc::new(l.blocks, l.bpg);
        for (b, n) in l.static_meta() {
            ba.take(b, n);
        }
        let goal = l.journal_goal();
        let jb = l.journal_blocks;
        let Some(js) = ba.take_run(goal, jb) else {
            return Err(zonesim_core::error::Error::config(
                "fs.ext4.journal_blocks",
                format!("no {jb} contiguous free blocks for the journal"),
            ));
        };
        l.journal_start = js;
        let ipg = l.ipg as u64;
        let ids = l.dyn_base as usize;
        let mut fs = Ext4 {
            j: Journal::new(jb, ids),
            ibits: vec![0; (l.groups as u64 * ipg).div_ceil(64) as usize],
            ifree: vec![l.ipg; l.groups as usize],
            inodes: Vec::new(),
            free_idx: Vec::new(),
            dyn_block: Vec::new(),
            free_dyn: Vec::new(),
            pending_free: Vec::new(),
            reserved: 0,
            dirty_files: Vec::new(),
            dirty_pages: 0,
            last_flusher: 0,
            orlov_next: 1,
            now: 0,
            out: Out::new(p.max_bio_bytes),
            c: Ext4Counters::default(),
            scratch: Vec::new(),
            scratch_ids: Vec::new(),
            scratch_blocks: Vec::new(),
            ba,
            l,
            p,
        };
        // Reserved inodes 1..=10 (the root is 2).
        for num in 1..layout::FIRST_INO {
            fs.take_inode_num(num);
        }
        fs.inodes.push(Inode {
            alive: true,
            dir: true,
            num: layout::ROOT_INO,
            dir_tail: 24,
            ..Inode::default()
        });
        if !fs.add_dir_block(ROOT.0) {
            return Err(zonesim_core::error::Error::config(
                "fs.kind",
                "no block left for the root directory",
            ));
        }
        fs.inodes[0].dir_tail = 24;
        // mkfs's own writes are not modelled; the journal starts empty and all metadata home.
        fs.sync_all_home();
        fs.out.clear();
        fs.c = Ext4Counters::default();
        Ok(fs)
    }

    /// Everything committed and home, the log empty (end of mkfs).
    fn sync_all_home(&mut self) {
        if !self.j.running.is_empty() {
            self.j.commit(self.now);
        }
        self.release_pending();
        let mut ids = std::mem::take(&mut self.scratch_ids);
        self.j.take_home(true, 0, &mut ids);
        self.j.advance_tail();
        self.scratch_ids = ids;
    }

    fn take_inode_num(&mut self, num: u32) {
        let i = (num - 1) as usize;
        self.ibits[i >> 6] |= 1 << (i & 63);
        self.ifree[i / self.l.ipg as usize] -= 1;
    }

    pub(crate) fn inode_used(&self, num: u32) -> bool {
        let i = (num - 1) as usize;
        self.ibits[i >> 6] & (1 << (i & 63)) != 0
    }

    /// Metadata block `id` changed in the running transaction.
    #[inline]
    pub(crate) fn dirty_meta(&mut self, id: MetaId) {
        self.j.dirty(id, self.now);
    }

    /// The inode of `idx` changed (its inode-table block); `data`: a change fdatasync must
    /// commit too (size, blocks).
    #[inline]
    pub(crate) fn touch_inode(&mut self, idx: u32, data: bool) {
        let num = self.inodes[idx as usize].num;
        let id = self.l.it_id(num);
        self.dirty_meta(id);
        let tid = self.j.tid;
        let f = &mut self.inodes[idx as usize];
        f.sync_tid = tid;
        if data {
            f.datasync_tid = tid;
        }
    }

    /// Block and kind of metadata id `id`.
    pub fn meta_block(&self, id: MetaId) -> (u64, MetaKind) {
        if id < self.l.dyn_base {
            self.l.static_block(id)
        } else {
            self.dyn_block[(id - self.l.dyn_base) as usize]
        }
    }

    fn new_dyn(&mut self, b: u64, kind: MetaKind) -> MetaId {
        let id = match self.free_dyn.pop() {
            Some(id) => {
                self.dyn_block[(id - self.l.dyn_base) as usize] = (b, kind);
                self.j.dead.remove(id);
                id
            }
            None => {
                self.dyn_block.push((b, kind));
                let id = self.l.dyn_base + self.dyn_block.len() as u32 - 1;
                self.j.grow(id as usize + 1);
                id
            }
        };
        self.dirty_meta(id);
        id
    }

    fn drop_dyn(&mut self, id: MetaId) {
        self.j.running.remove(id);
        self.j.dead.insert(id);
        self.j.revokes += 1;
        self.free_dyn.push(id);
    }

    /// The goal of a file without extents (`ext4_inode_to_goal_block` with delalloc): the
    /// first block of its flex group's first group (directories) or second (regular files).
    pub(crate) fn inode_goal(&self, idx: u32) -> u64 {
        let f = &self.inodes[idx as usize];
        let mut g = (f.num - 1) / self.l.ipg;
        if self.l.flex >= 4 {
            g &= !(self.l.flex - 1);
            if !f.dir {
                g += 1;
            }
        }
        self.l.group_first(g.min(self.l.groups - 1))
    }

    /// Allocate up to `want` blocks near `goal`, dirtying the bitmaps and descriptors; on no
    /// space with frees pending, commit to release them and retry (`ext4_should_retry_alloc`).
    pub(crate) fn alloc_blocks(
        &mut self,
        goal: u64,
        want: u64,
        merge: bool,
        stream: bool,
    ) -> Option<(u64, u64)> {
        self.c.alloc_calls += 1;
        let mut r = self.ba.alloc(goal, want, merge, stream);
        if r.is_none() && !self.pending_free.is_empty() {
            self.commit(journal::CommitReason::Full);
            r = self.ba.alloc(goal, want, merge, stream);
        }
        let (b, n) = r?;
        if b == goal {
            self.c.goal_hits += 1;
        }
        self.dirty_groups(b, n);
        Some((b, n))
    }

    /// The block bitmaps and descriptors of the groups `[b, b + n)` touches.
    fn dirty_groups(&mut self, b: u64, n: u64) {
        let (g0, g1) = (self.l.group_of(b), self.l.group_of(b + n - 1));
        for g in g0..=g1 {
            self.dirty_meta(self.l.bb_id(g));
            self.dirty_meta(self.l.gd_id(g));
        }
    }

    pub(crate) fn free_blocks(&mut self, b: u64, n: u64) {
        self.dirty_groups(b, n);
        self.pending_free.push((b, n));
    }

    /// Frees of committed transactions become allocatable.
    pub(crate) fn release_pending(&mut self) {
        for (b, n) in std::mem::take(&mut self.pending_free) {
            self.ba.release(b, n);
        }
    }

    /// Blocks that can still be promised (free, less the delalloc reservations).
    pub(crate) fn available(&self) -> u64 {
        self.ba.free_total.saturating_sub(self.reserved)
    }

    /// An inode number for a new inode (`find_group_other` for files: the parent's group, then
    /// the next ones; directories under the root spread over the flex groups — `find_group_orlov`
    /// picks one at random among the emptier ones; the model takes them in turn).
    fn alloc_inode_num(&mut self, parent: u32, dir: bool) -> Option<u32> {
        let groups = self.l.groups;
        let pg = (self.inodes[parent as usize].num - 1) / self.l.ipg;
        let start = if dir && parent == ROOT.0 {
            let flexes = groups.div_ceil(self.l.flex);
            let f = self.orlov_next % flexes;
            self.orlov_next += 1;
            f * self.l.flex
        } else {
            pg
        };
        let g = (0..groups)
            .map(|k| (start + k) % groups)
            .find(|&g| self.ifree[g as usize] > 0)?;
        let base = g * self.l.ipg;
        let num = (0..self.l.ipg)
            .map(|i| base + i + 1)
            .find(|&n| !self.inode_used(n))?;
        self.take_inode_num(num);
        self.dirty_meta(self.l.ib_id(g));
        self.dirty_meta(self.l.gd_id(g));
        Some(num)
    }

    /// A new block for directory `dir`'s entries.
    fn add_dir_block(&mut self, dir: u32) -> bool {
        let fb = self.inodes[dir as usize].dir_meta.len() as u32;
        let goal = self.inodes[dir as usize]
            .ext
            .goal(fb)
            .unwrap_or_else(|| self.inode_goal(dir));
        let Some((b, _)) = self.alloc_blocks(goal, 1, true, false) else {
            return false;
        };
        self.map_extent(dir, fb, b, 1, false);
        let id = self.new_dyn(b, MetaKind::Directory);
        let f = &mut self.inodes[dir as usize];
        f.dir_meta.push(id);
        f.dir_tail = 0;
        f.size = f.dir_meta.len() as u64 * BLOCK_BYTES;
        self.touch_inode(dir, true);
        true
    }

    /// Record blocks `[b, b + n)` as file blocks `[fb, fb + n)` of `idx`, the extent tree
    /// grown (or shrunk by a merge) to fit.
    pub(crate) fn map_extent(&mut self, idx: u32, fb: u32, b: u64, n: u64, unwritten: bool) {
        self.inodes[idx as usize].ext.insert(extent::Extent {
            lblk: fb,
            len: n as u32,
            pblk: b,
            unwritten,
        });
        self.fit_tree(idx, fb);
    }

    /// The extent tree blocks `idx` needs for its extents now, the leaf holding `fb` dirty.
    pub(crate) fn fit_tree(&mut self, idx: u32, fb: u32) {
        let f = &self.inodes[idx as usize];
        let need = extent::tree_blocks(f.ext.len());
        while self.inodes[idx as usize].tree.len() < need {
            let goal = self.inode_goal(idx);
            let Some((b, _)) = self.alloc_blocks(goal, 1, false, false) else {
                // No block for the tree: counted; the extents stay (the kernel would fail the
                // write with ENOSPC; its metadata reserve makes this rare).
                self.c.alloc_failures += 1;
                break;
            };
            let id = self.new_dyn(b, MetaKind::Extent);
            self.inodes[idx as usize].tree.push((b, id));
        }
        while self.inodes[idx as usize].tree.len() > need {
            let (b, id) = self.inodes[idx as usize].tree.pop().unwrap_or_default();
            self.drop_dyn(id);
            self.free_blocks(b, 1);
        }
        let f = &self.inodes[idx as usize];
        if !f.tree.is_empty() {
            let i = f.ext.v.partition_point(|e| e.lblk <= fb).saturating_sub(1);
            let leaf = (i / extent::PER_BLOCK).min(f.tree.len() - 1);
            let id = f.tree[leaf].1;
            self.dirty_meta(id);
        }
        self.touch_inode(idx, true);
    }

    fn new_inode(
        &mut self,
        parent: u32,
        dir: bool,
        name_len: usize,
    ) -> std::result::Result<Ino, FsError> {
        if self.available() < 2 {
            self.c.enospc += 1;
            return Err(FsError::NoSpace);
        }
        let Some(num) = self.alloc_inode_num(parent, dir) else {
            self.c.enospc += 1;
            return Err(FsError::NoSpace);
        };
        self.c.creates += 1;
        let idx = self.free_idx.pop().unwrap_or_else(|| {
            self.inodes.push(Inode::default());
            self.inodes.len() as u32 - 1
        });
        self.inodes[idx as usize] = Inode {
            alive: true,
            dir,
            num,
            parent,
            ..Inode::default()
        };
        // The entry in the parent (`ext4_add_entry`): 8 bytes + the name rounded to 4.
        let rec = 8 + (name_len as u64).div_ceil(4) * 4;
        if self.inodes[parent as usize].dir_tail + rec > DIR_BLOCK_ROOM
            && !self.add_dir_block(parent)
        {
            self.c.enospc += 1;
        }
        let p = &mut self.inodes[parent as usize];
        p.dir_tail += rec;
        let dent = p.dir_meta.len().saturating_sub(1) as u32;
        if let Some(&id) = p.dir_meta.last() {
            self.dirty_meta(id);
        }
        self.inodes[idx as usize].dent_block = dent;
        self.touch_inode(parent, false);
        self.touch_inode(idx, true);
        if dir {
            self.inodes[idx as usize].dir_tail = 24;
            if !self.add_dir_block(idx) {
                self.c.enospc += 1;
            }
            self.inodes[idx as usize].dir_tail = 24;
        }
        self.timers();
        Ok(Ino(idx))
    }

    /// Make a directory in `parent`.
    pub fn mkdir(&mut self, parent: Ino) -> std::result::Result<Ino, FsError> {
        self.new_inode(parent.0, true, 8)
    }

    /// Create a regular file named `name` in `parent` (`hint` is F2FS's; ext4 has no
    /// temperature).
    pub fn create(
        &mut self,
        parent: Ino,
        name: &str,
        _hint: u8,
    ) -> std::result::Result<Ino, FsError> {
        self.new_inode(parent.0, false, name.len())
    }

    /// Remove file `ino`: its entry, blocks, tree blocks and inode are freed (the blocks after
    /// the transaction commits).
    pub fn unlink(&mut self, ino: Ino) {
        let i = ino.0 as usize;
        if ino == ROOT || !self.inodes[i].alive {
            return;
        }
        self.c.unlinks += 1;
        let (parent, dent) = (self.inodes[i].parent, self.inodes[i].dent_block);
        if let Some(&id) = self.inodes[parent as usize].dir_meta.get(dent as usize) {
            self.dirty_meta(id);
        }
        self.touch_inode(parent, false);
        self.discard_pa(ino.0);
        let f = std::mem::take(&mut self.inodes[i]);
        self.dirty_pages -= f.dirty.len() as u64;
        self.reserved -= f.reserved;
        for e in &f.ext.v {
            self.free_blocks(e.pblk, e.len as u64);
        }
        for &(b, id) in &f.tree {
            self.drop_dyn(id);
            self.free_blocks(b, 1);
        }
        for &id in &f.dir_meta {
            self.drop_dyn(id);
        }
        let n = f.num - 1;
        self.ibits[(n >> 6) as usize] &= !(1 << (n & 63));
        let g = n / self.l.ipg;
        self.ifree[g as usize] += 1;
        self.dirty_meta(self.l.ib_id(g));
        self.dirty_meta(self.l.gd_id(g));
        self.dirty_meta(self.l.it_id(f.num));
        self.free_idx.push(ino.0);
        self.timers();
    }

    /// `fallocate(fd, 0, 0, len)` as fio lays a file out before a write job (its default
    /// `fallocate=native`): unwritten extents up to `len`, the size set.
    pub fn fallocate(&mut self, ino: Ino, len: u64) -> std::result::Result<(), FsError> {
        let idx = ino.0;
        let blocks = len.div_ceil(BLOCK_BYTES) as u32;
        let mut fb = 0;
        while fb < blocks {
            let run = self.inodes[idx as usize].ext.run(fb);
            if run > 0 || self.inodes[idx as usize].dirty.contains(fb) {
                fb += run.max(1);
                continue;
            }
            self.discard_pa(idx);
            let mut n = 1;
            while fb + n < blocks
                && self.inodes[idx as usize].ext.map(fb + n).is_none()
                && !self.inodes[idx as usize].dirty.contains(fb + n)
            {
                n += 1;
            }
            if self.available() < n as u64 {
                self.c.enospc += 1;
                return Err(FsError::NoSpace);
            }
            let mut left = n;
            while left > 0 {
                let at = fb + n - left;
                let goal = self.inodes[idx as usize]
                    .ext
                    .goal(at)
                    .unwrap_or_else(|| self.inode_goal(idx));
                let merge = self.inodes[idx as usize].ext.continues(at, goal);
                let Some((b, got)) = self.alloc_blocks(goal, left as u64, merge, true) else {
                    self.c.enospc += 1;
                    return Err(FsError::NoSpace);
                };
                self.map_extent(idx, at, b, got, true);
                self.c.fallocated_blocks += got;
                left -= got as u32;
            }
            fb += n;
        }
        let f = &mut self.inodes[idx as usize];
        f.size = f.size.max(len);
        self.touch_inode(idx, true);
        self.timers();
        Ok(())
    }

    pub fn size(&self, ino: Ino) -> u64 {
        self.inodes[ino.0 as usize].size
    }

    pub fn counters(&self) -> &Ext4Counters {
        &self.c
    }

    pub fn dirty_pages(&self) -> u64 {
        self.dirty_pages
    }

    /// Blocks in use by files and metadata (the file system's `df` used).
    pub fn used_blocks(&self) -> u64 {
        self.l.blocks - self.ba.free_total
    }

    /// Blocks a user may fill (all but the static metadata and the journal).
    pub fn user_blocks(&self) -> u64 {
        let meta: u64 = self.l.static_meta().iter().map(|&(_, n)| n).sum();
        self.l.blocks - meta - self.l.journal_blocks
    }

    /// (files, extents in all, most extents of one file, extent-tree blocks).
    pub fn extent_stats(&self) -> (u64, u64, u64, u64) {
        let mut r = (0, 0, 0, 0);
        for f in self.inodes.iter().filter(|f| f.alive && !f.dir) {
            r.0 += 1;
            r.1 += f.ext.len() as u64;
            r.2 = r.2.max(f.ext.len() as u64);
            r.3 += f.tree.len() as u64;
        }
        r
    }

    /// Bytes a user may still write (free blocks less the delalloc reservations).
    pub fn free_bytes(&self) -> u64 {
        self.available() * BLOCK_BYTES
    }

    pub fn sample(&self) -> stats::Ext4Sample {
        stats::Ext4Sample {
            free_blocks: self.ba.free_total,
            dirty_pages: self.dirty_pages,
            journal_commits: self.c.commits.total(),
            data_blocks: self.c.data_blocks,
            journal_blocks: self.c.journal_blocks(),
            metadata_home_blocks: self.c.meta_home.total(),
            extents: self.extent_stats().1,
            fs_bytes_written: self.c.blocks_written() * BLOCK_BYTES,
        }
    }
}
