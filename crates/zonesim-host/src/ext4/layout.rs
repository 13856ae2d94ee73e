//! mke2fs's layout of an ext4 file system on one namespace (e2fsprogs `misc/mke2fs.c`,
//! `lib/ext2fs/initialize.c`, `alloc_tables.c`, `mkjournal.c`; the defaults of mke2fs.conf's
//! `ext4` type as e2fsprogs 1.44 had them on Ubuntu 18.04, SUP-GC's Linux 4.15 host): 4 KiB
//! blocks, block groups of `blocks_per_group` (32,768 = 128 MiB), `inode_ratio` bytes per inode,
//! `inode_size`-byte inodes, 64-byte group descriptors (`64bit`), `flex_bg` groups whose block
//! bitmaps, inode bitmaps and inode tables are packed at the start of the flex group's first
//! group, superblock backups in groups 0, 1 and powers of 3, 5, 7 (`sparse_super`), and the
//! journal (inode 8) contiguous at the start of the middle flex group
//! (`get_midpoint_journal_block`), sized by `ext2fs_default_journal_size`.
//!
//! Metadata blocks are named by a dense id ([`MetaId`]) so the journal can keep a version per
//! block in plain vectors: group-descriptor blocks, then block bitmaps, inode bitmaps, inode
//! table blocks, the journal superblock, then ids handed out at run time for extent-tree and
//! directory blocks.

use super::params::Ext4Params;
use zonesim_core::error::{Error, Result};

/// Bytes of a block.
pub const BLOCK_BYTES: u64 = 4096;
/// Bytes of a group descriptor (`64bit` feature, `EXT4_DESC_SIZE`).
const DESC_BYTES: u64 = 64;
/// Inodes reserved by ext4 (1..=10; the first file gets 11, `EXT4_GOOD_OLD_FIRST_INO`).
pub const FIRST_INO: u32 = 11;
/// The root directory's inode number.
pub const ROOT_INO: u32 = 2;

/// A metadata block's dense id.
pub type MetaId = u32;

/// What a metadata block holds (the report counts home writes by kind).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MetaKind {
    GroupDesc,
    BlockBitmap,
    InodeBitmap,
    InodeTable,
    JournalSuper,
    Extent,
    Directory,
}

/// The static layout.
#[derive(Debug, Clone)]
pub struct Layout {
    pub blocks: u64,
    pub groups: u32,
    pub bpg: u64,
    pub ipg: u32,
    pub inode_size: u32,
    /// Inode-table blocks per group.
    pub itb: u32,
    pub gdt_blocks: u32,
    pub flex: u32,
    pub journal_start: u64,
    pub journal_blocks: u64,
    /// First dynamic metadata id (extent-tree and directory blocks).
    pub dyn_base: MetaId,
}

/// `ext2fs_default_journal_size` (e2fsprogs 1.43–1.46): journal blocks for a file system of
/// `blocks` 4 KiB blocks; `None` below 2,048 blocks (no journal).
pub fn default_journal_blocks(blocks: u64) -> Option<u64> {
    Some(match blocks {
        b if b < 2048 => return None,
        b if b < 32_768 => 1024,
        b if b < 256 * 1024 => 4096,
        b if b < 512 * 1024 => 8192,
        b if b < 4096 * 1024 => 16_384,
        b if b < 8192 * 1024 => 32_768,
        b if b < 16_384 * 1024 => 65_536,
        b if b < 32_768 * 1024 => 131_072,
        _ => 262_144,
    })
}

/// `ext2fs_bg_has_super` with `sparse_super`: groups 0, 1 and powers of 3, 5 and 7.
pub fn has_super(g: u32) -> bool {
    if g <= 1 {
        return true;
    }
    [3u32, 5, 7].iter().any(|&b| {
        let mut x = g;
        while x.is_multiple_of(b) {
            x /= b;
        }
        x == 1
    })
}

impl Layout {
    /// mkfs on a namespace of `bytes`.
    pub fn mkfs(bytes: u64, p: &Ext4Params) -> Result<Layout> {
        let blocks = bytes / BLOCK_BYTES;
        let bpg = p.blocks_per_group;
        if blocks < 4096 {
            return Err(Error::config(
                "fs.kind",
                format!("ext4 needs a namespace of at least 16 MiB, got {bytes} bytes"),
            ));
        }
        let groups = blocks.div_ceil(bpg) as u32;
        let per_block = (BLOCK_BYTES / p.inode_size as u64) as u32;
        // Inodes per group: the ratio's count rounded up to whole inode-table blocks, at most
        // the bits of one inode-bitmap block.
        let ipg = ((bpg * BLOCK_BYTES / p.inode_ratio) as u32)
            .div_ceil(per_block)
            .max(1)
            .saturating_mul(per_block)
            .min(8 * BLOCK_BYTES as u32);
        let itb = ipg / per_block;
        let gdt_blocks = (groups as u64 * DESC_BYTES).div_ceil(BLOCK_BYTES) as u32;
        let flex = p.flex_bg;
        let head = 1 + gdt_blocks as u64 + 2 * flex as u64 + flex as u64 * itb as u64;
        if head > bpg {
            return Err(Error::config(
                "fs.ext4.inode_ratio",
                format!("a flex group's inode tables ({} blocks) do not fit in one block group of {bpg} blocks: raise the ratio or lower fs.ext4.flex_bg", flex as u64 * itb as u64),
            ));
        }
        let journal_blocks = match p.journal_blocks {
            Some(j) => j,
            None => default_journal_blocks(blocks).unwrap_or(1024),
        };
        if journal_blocks * 2 > blocks {
            return Err(Error::config(
                "fs.ext4.journal_blocks",
                format!("{journal_blocks} blocks is more than half the file system ({blocks} blocks), which mke2fs refuses"),
            ));
        }
        let mut l = Layout {
            blocks,
            groups,
            bpg,
            ipg,
            inode_size: p.inode_size,
            itb,
            gdt_blocks,
            flex,
            journal_start: 0,
            journal_blocks,
            dyn_base: 0,
        };
        l.dyn_base = l.journal_super_id() + 1;
        Ok(l)
    }

    pub fn group_first(&self, g: u32) -> u64 {
        g as u64 * self.bpg
    }

    /// Blocks in group `g` (the last may be short).
    pub fn group_len(&self, g: u32) -> u64 {
        (self.blocks - self.group_first(g)).min(self.bpg)
    }

    pub fn group_of(&self, b: u64) -> u32 {
        (b / self.bpg) as u32
    }

    /// Blocks of the superblock backup and descriptor copy at the start of `g` (0 if none).
    pub fn super_blocks(&self, g: u32) -> u64 {
        if has_super(g) {
            1 + self.gdt_blocks as u64
        } else {
            0
        }
    }

    /// First block of the packed flex metadata of the flex group whose first group is `g`.
    fn flex_meta_start(&self, g: u32) -> u64 {
        self.group_first(g) + self.super_blocks(g)
    }

    /// Block of group `g`'s block bitmap, inode bitmap, and first inode-table block.
    pub fn block_bitmap(&self, g: u32) -> u64 {
        let f = g - g % self.flex;
        self.flex_meta_start(f) + (g - f) as u64
    }

    pub fn inode_bitmap(&self, g: u32) -> u64 {
        let f = g - g % self.flex;
        self.flex_meta_start(f) + self.flex as u64 + (g - f) as u64
    }

    pub fn inode_table(&self, g: u32) -> u64 {
        let f = g - g % self.flex;
        self.flex_meta_start(f) + 2 * self.flex as u64 + (g - f) as u64 * self.itb as u64
    }

    /// Every static metadata extent (superblocks and descriptor copies, bitmaps, inode
    /// tables), as (first block, blocks).
    pub fn static_meta(&self) -> Vec<(u64, u64)> {
        let mut v = Vec::new();
        for g in 0..self.groups {
            let s = self.super_blocks(g);
            if g % self.flex == 0 {
                let n = (self.groups - g).min(self.flex) as u64;
                v.push((self.group_first(g), s + 2 * self.flex as u64));
                v.push((self.inode_table(g), n * self.itb as u64));
            } else if s > 0 {
                v.push((self.group_first(g), s));
            }
        }
        v
    }

    /// The group whose start the journal goal is (`get_midpoint_journal_block`).
    pub fn journal_goal(&self) -> u64 {
        let mut g = (self.groups - 1) / 2;
        if self.groups > self.flex {
            g &= !(self.flex - 1);
        }
        self.group_first(g)
    }

    // Metadata ids.
    pub fn gd_id(&self, g: u32) -> MetaId {
        (g as u64 * DESC_BYTES / BLOCK_BYTES) as MetaId
    }
    pub fn bb_id(&self, g: u32) -> MetaId {
        self.gdt_blocks + g
    }
    pub fn ib_id(&self, g: u32) -> MetaId {
        self.gdt_blocks + self.groups + g
    }
    /// The inode-table block holding inode number `num`.
    pub fn it_id(&self, num: u32) -> MetaId {
        let (g, i) = ((num - 1) / self.ipg, (num - 1) % self.ipg);
        self.gdt_blocks + 2 * self.groups + g * self.itb + i * self.inode_size / BLOCK_BYTES as u32
    }
    pub fn journal_super_id(&self) -> MetaId {
        self.gdt_blocks + 2 * self.groups + self.groups * self.itb
    }

    /// Block and kind of a static metadata id.
    pub fn static_block(&self, id: MetaId) -> (u64, MetaKind) {
        let (gdt, g) = (self.gdt_blocks, self.groups);
        if id < gdt {
            (1 + id as u64, MetaKind::GroupDesc)
        } else if id < gdt + g {
            (self.block_bitmap(id - gdt), MetaKind::BlockBitmap)
        } else if id < gdt + 2 * g {
            (self.inode_bitmap(id - gdt - g), MetaKind::InodeBitmap)
        } else if id < self.journal_super_id() {
            let k = id - gdt - 2 * g;
            let (grp, b) = (k / self.itb, k % self.itb);
            (self.inode_table(grp) + b as u64, MetaKind::InodeTable)
        } else {
            (self.journal_start, MetaKind::JournalSuper)
        }
    }
}
