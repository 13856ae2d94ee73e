//! The ext4 model's counters (the report's `fs` section when `fs.kind = "ext4"`, docs/ext4.md).

use super::journal::CommitReason;
use super::layout::MetaKind;

/// Metadata blocks written home, by kind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MetaBlocks {
    pub inode_table: u64,
    pub block_bitmap: u64,
    pub inode_bitmap: u64,
    pub group_desc: u64,
    pub extent: u64,
    pub directory: u64,
    pub journal_super: u64,
}

impl MetaBlocks {
    pub fn add(&mut self, k: MetaKind) {
        *match k {
            MetaKind::InodeTable => &mut self.inode_table,
            MetaKind::BlockBitmap => &mut self.block_bitmap,
            MetaKind::InodeBitmap => &mut self.inode_bitmap,
            MetaKind::GroupDesc => &mut self.group_desc,
            MetaKind::Extent => &mut self.extent,
            MetaKind::Directory => &mut self.directory,
            MetaKind::JournalSuper => &mut self.journal_super,
        } += 1;
    }

    pub fn total(&self) -> u64 {
        self.inode_table
            + self.block_bitmap
            + self.inode_bitmap
            + self.group_desc
            + self.extent
            + self.directory
            + self.journal_super
    }
}

/// Journal commits by reason.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Commits {
    pub timer: u64,
    pub fsync: u64,
    pub full: u64,
    pub sync: u64,
}

impl Commits {
    pub fn add(&mut self, r: CommitReason) {
        *match r {
            CommitReason::Timer => &mut self.timer,
            CommitReason::Fsync => &mut self.fsync,
            CommitReason::Full => &mut self.full,
            CommitReason::Sync => &mut self.sync,
        } += 1;
    }

    pub fn total(&self) -> u64 {
        self.timer + self.fsync + self.full + self.sync
    }
}

/// Why dirty data was written back (each a delalloc flush of the files it covers).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flush {
    Fsync,
    DirtyLimit,
    Expired,
    Sync,
    Direct,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Flushes {
    pub fsync: u64,
    pub dirty_limit: u64,
    pub expired: u64,
    pub sync: u64,
    pub direct: u64,
}

impl Flushes {
    pub fn add(&mut self, r: Flush) {
        *match r {
            Flush::Fsync => &mut self.fsync,
            Flush::DirtyLimit => &mut self.dirty_limit,
            Flush::Expired => &mut self.expired,
            Flush::Sync => &mut self.sync,
            Flush::Direct => &mut self.direct,
        } += 1;
    }
}

/// Every counter of the model (from mount).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Ext4Counters {
    /// Data blocks written (allocating writeback and overwrites).
    pub data_blocks: u64,
    /// Of them, overwrites of allocated blocks (in place).
    pub overwrite_blocks: u64,
    /// Unwritten blocks zeroed instead of split.
    pub zeroout_blocks: u64,
    /// Blocks allocated at writeback (delayed allocation) or at write() (`nodelalloc`).
    pub allocated_blocks: u64,
    /// Allocations that took the goal block.
    pub goal_hits: u64,
    pub alloc_calls: u64,
    pub fallocated_blocks: u64,
    /// Blocks preallocated to inodes beyond their requests, and of them used.
    pub pa_blocks: u64,
    pub pa_blocks_used: u64,
    pub commits: Commits,
    pub journal_descriptor_blocks: u64,
    pub journal_metadata_blocks: u64,
    pub journal_revoke_blocks: u64,
    pub journal_commit_blocks: u64,
    /// Checkpoints forced by a full log, and those at sync.
    pub checkpoints: u64,
    pub meta_home: MetaBlocks,
    pub flushes: Flushes,
    /// Files written back by the flushes.
    pub files_flushed: u64,
    pub fsyncs: u64,
    pub fdatasyncs: u64,
    /// fsyncs whose changes were committed already (a cache flush only).
    pub fsync_flush_only: u64,
    pub creates: u64,
    pub unlinks: u64,
    pub enospc: u64,
    pub alloc_failures: u64,
    pub user_bytes_requested: u64,
    pub user_bytes_read: u64,
    pub read_commands: u64,
}

impl Ext4Counters {
    pub fn journal_blocks(&self) -> u64 {
        self.journal_descriptor_blocks
            + self.journal_metadata_blocks
            + self.journal_revoke_blocks
            + self.journal_commit_blocks
    }

    /// Blocks the file system wrote: data, zeroing, journal and metadata home.
    pub fn blocks_written(&self) -> u64 {
        self.data_blocks + self.zeroout_blocks + self.journal_blocks() + self.meta_home.total()
    }
}

/// The state a scenario iteration or the time series records.
#[derive(Debug, Clone, Copy, Default, serde::Serialize)]
pub struct Ext4Sample {
    pub free_blocks: u64,
    pub dirty_pages: u64,
    pub journal_commits: u64,
    pub data_blocks: u64,
    pub journal_blocks: u64,
    pub metadata_home_blocks: u64,
    pub extents: u64,
    pub fs_bytes_written: u64,
}
