//! `[fs.ext4]`: the ext4 model's keys (`fs.kind = "ext4"`, docs/ext4.md), under their mke2fs
//! and mount-option names. The page-cache keys shared with F2FS stay in `[fs]`
//! (`dirty_bytes`, `max_bio_bytes`, `page_copy_ns`).

use super::declare::{choice, section};
use super::rule::{free, int};

choice! {
    /// The journalling mode (`data=`): only ordered (the default) is modelled.
    #[derive(Default)]
    pub enum Ext4Data {
        #[default]
        Ordered = "ordered",
    }
}

section! {
    /// `[fs.ext4]` keys: mke2fs.conf's ext4 defaults and the kernel's mount and writeback
    /// defaults unless set.
    #[derive(Debug, Clone, PartialEq)]
    pub struct Ext4Config [Default] {
        /// Journal size in 4 KiB blocks (mke2fs `-J size=`). Unset: mke2fs's table by file
        /// system size (`ext2fs_default_journal_size`: 4 MiB below 128 MiB ... 1 GiB from
        /// 128 GiB). From jbd2's minimum of 1,024 blocks to mke2fs's maximum of 10,240,000; at
        /// most half the file system.
        pub journal_blocks: Option<u64> = None, int(1024, 10_240_000).unit("blocks");
        /// Journal commit interval (mount option `commit=`): the running transaction commits
        /// this long after it started. 1 s to 1 day.
        pub commit: u64 = 5, int(1, 86_400).unit("s");
        /// `data=`: ordered (data written before the commit covering its metadata).
        pub data: Ext4Data = Ext4Data::Ordered, free();
        /// Mount with `nodelalloc`: blocks are allocated at write() instead of at writeback.
        pub nodelalloc: bool = false, free();
        /// Blocks per group (mke2fs `-g`): 32,768 (128 MiB) by default, the most a 4 KiB
        /// bitmap block covers; at least 1,024, a multiple of 64.
        pub blocks_per_group: u64 = 32_768, int(1024, 32_768).multiple_of(64).unit("blocks");
        /// Inode size (mke2fs `-I`): 256 by default; a power of two from 128 to 4,096.
        pub inode_size: u32 = 256, int(128, 4096).power_of_two().unit("bytes");
        /// Bytes per inode (mke2fs `-i`): 16,384 by default; 1,024 to 64 MiB.
        pub inode_ratio: u64 = 16_384, int(1024, 1 << 26).unit("bytes");
        /// Groups per flex group (mke2fs `-G`), whose bitmaps and inode tables are packed
        /// together: 16 by default; a power of two up to 1,024.
        pub flex_bg: u32 = 16, int(1, 1024).power_of_two().unit("groups");
        /// `dirty_expire_centisecs` in ms: dirty data and committed metadata older than this
        /// is written back by the flusher. 30 s by default; 1 ms to 1 day.
        pub dirty_expire: u64 = 30_000, int(1, 86_400_000).unit("ms");
        /// `dirty_writeback_centisecs` in ms: the flusher's period. 5 s by default; 1 ms to
        /// 1 day.
        pub dirty_writeback: u64 = 5_000, int(1, 86_400_000).unit("ms");
        /// `extent_max_zeroout_kb`: an unwritten piece at most this long is zeroed instead of
        /// split off when a write lands in an unwritten extent. 32 by default; 0 to 128 MiB
        /// (an extent's most).
        pub extent_max_zeroout_kb: u64 = 32, int(0, 131_072).multiple_of(4).unit("KiB");
    }
}
