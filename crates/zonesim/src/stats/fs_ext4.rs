//! The `fs` section of the report when the ext4 model ran (`kind: "ext4"`, docs/ext4.md): what
//! it wrote by kind (data, journal, metadata home), its WAF, the journal's commits and blocks,
//! metadata blocks by kind, the delalloc flushes, extents per file, allocation and layout.

use super::device::DeviceReport;
use super::ratio;
use crate::host::ext4::stats::{Commits, Flushes, MetaBlocks};
use crate::host::ext4::{Ext4, BLOCK_BYTES};
use serde::Serialize;

#[derive(Debug, Clone, Serialize)]
pub struct Ext4Report {
    pub kind: &'static str,
    pub data: &'static str,
    pub delalloc: bool,
    /// File-system writes / user data writes.
    pub waf: f64,
    /// Flash programs / user data writes.
    pub end_to_end_waf: f64,
    pub bytes_written: Ext4Bytes,
    pub journal: JournalReport,
    /// Metadata blocks written home (checkpoints and the flusher), by kind.
    pub metadata_blocks: MetaBlocksReport,
    pub data_blocks: u64,
    pub overwrite_blocks: u64,
    pub zeroout_blocks: u64,
    pub allocation: AllocReport,
    pub delalloc_flushes: FlushesReport,
    pub files_flushed: u64,
    pub extents_per_file: ExtentsReport,
    pub layout: Ext4LayoutReport,
    pub fsyncs: u64,
    pub fdatasyncs: u64,
    /// fsyncs whose changes were committed already: a cache flush only.
    pub fsync_flush_only: u64,
    pub creates: u64,
    pub unlinks: u64,
    pub enospc: u64,
    pub alloc_failures: u64,
    pub user_bytes_requested: u64,
    pub user_bytes_read: u64,
    pub read_commands: u64,
    pub used_bytes: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct Ext4Bytes {
    pub user: u64,
    pub data: u64,
    pub zeroout: u64,
    pub journal: u64,
    pub metadata: u64,
    pub total: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct JournalReport {
    pub commits: u64,
    pub commits_timer: u64,
    pub commits_fsync: u64,
    pub commits_full: u64,
    pub commits_sync: u64,
    pub blocks_written: u64,
    pub descriptor_blocks: u64,
    pub metadata_blocks: u64,
    pub revoke_blocks: u64,
    pub commit_blocks: u64,
    pub checkpoints: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct MetaBlocksReport {
    pub inode_table: u64,
    pub block_bitmap: u64,
    pub inode_bitmap: u64,
    pub group_desc: u64,
    pub extent: u64,
    pub directory: u64,
    pub journal_superblock: u64,
    pub total: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct AllocReport {
    pub calls: u64,
    pub goal_hits: u64,
    pub allocated_blocks: u64,
    pub fallocated_blocks: u64,
    pub preallocated_blocks: u64,
    pub preallocated_used: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct FlushesReport {
    pub fsync: u64,
    pub dirty_limit: u64,
    pub expired: u64,
    pub sync: u64,
    pub direct: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct ExtentsReport {
    pub files: u64,
    pub mean: f64,
    pub max: u64,
    pub tree_blocks: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct Ext4LayoutReport {
    pub namespace: usize,
    pub groups: u32,
    pub blocks_per_group: u64,
    pub inodes_per_group: u32,
    pub inode_size: u32,
    pub flex_bg: u32,
    pub journal_blocks: u64,
    pub user_capacity_bytes: u64,
}

impl Ext4Report {
    pub fn new(fs: &Ext4, ns: usize, dev: &DeviceReport) -> Ext4Report {
        let c = fs.counters();
        let (
            Commits {
                timer,
                fsync,
                full,
                sync,
            },
            m,
        ): (Commits, MetaBlocks) = (c.commits, c.meta_home);
        let Flushes {
            fsync: f_fsync,
            dirty_limit,
            expired,
            sync: f_sync,
            direct,
        } = c.flushes;
        let data = c.data_blocks * BLOCK_BYTES;
        let total = c.blocks_written() * BLOCK_BYTES;
        let (files, extents, max, tree) = fs.extent_stats();
        let l = &fs.l;
        Ext4Report {
            kind: "ext4",
            data: "ordered",
            delalloc: fs.p.delalloc,
            waf: ratio(total, data),
            end_to_end_waf: ratio(dev.flash.programmed_slots * BLOCK_BYTES, data),
            bytes_written: Ext4Bytes {
                user: data,
                data,
                zeroout: c.zeroout_blocks * BLOCK_BYTES,
                journal: c.journal_blocks() * BLOCK_BYTES,
                metadata: m.total() * BLOCK_BYTES,
                total,
            },
            journal: JournalReport {
                commits: c.commits.total(),
                commits_timer: timer,
                commits_fsync: fsync,
                commits_full: full,
                commits_sync: sync,
                blocks_written: c.journal_blocks(),
                descriptor_blocks: c.journal_descriptor_blocks,
                metadata_blocks: c.journal_metadata_blocks,
                revoke_blocks: c.journal_revoke_blocks,
                commit_blocks: c.journal_commit_blocks,
                checkpoints: c.checkpoints,
            },
            metadata_blocks: MetaBlocksReport {
                inode_table: m.inode_table,
                block_bitmap: m.block_bitmap,
                inode_bitmap: m.inode_bitmap,
                group_desc: m.group_desc,
                extent: m.extent,
                directory: m.directory,
                journal_superblock: m.journal_super,
                total: m.total(),
            },
            data_blocks: c.data_blocks,
            overwrite_blocks: c.overwrite_blocks,
            zeroout_blocks: c.zeroout_blocks,
            allocation: AllocReport {
                calls: c.alloc_calls,
                goal_hits: c.goal_hits,
                allocated_blocks: c.allocated_blocks,
                fallocated_blocks: c.fallocated_blocks,
                preallocated_blocks: c.pa_blocks,
                preallocated_used: c.pa_blocks_used,
            },
            delalloc_flushes: FlushesReport {
                fsync: f_fsync,
                dirty_limit,
                expired,
                sync: f_sync,
                direct,
            },
            files_flushed: c.files_flushed,
            extents_per_file: ExtentsReport {
                files,
                mean: ratio(extents, files),
                max,
                tree_blocks: tree,
            },
            layout: Ext4LayoutReport {
                namespace: ns,
                groups: l.groups,
                blocks_per_group: l.bpg,
                inodes_per_group: l.ipg,
                inode_size: l.inode_size,
                flex_bg: l.flex,
                journal_blocks: l.journal_blocks,
                user_capacity_bytes: fs.user_blocks() * BLOCK_BYTES,
            },
            fsyncs: c.fsyncs,
            fdatasyncs: c.fdatasyncs,
            fsync_flush_only: c.fsync_flush_only,
            creates: c.creates,
            unlinks: c.unlinks,
            enospc: c.enospc,
            alloc_failures: c.alloc_failures,
            user_bytes_requested: c.user_bytes_requested,
            user_bytes_read: c.user_bytes_read,
            read_commands: c.read_commands,
            used_bytes: fs.used_blocks() * BLOCK_BYTES,
        }
    }
}
