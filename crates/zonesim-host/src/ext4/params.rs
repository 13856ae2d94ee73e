//! Parameters of the ext4 model under their mount-option and mke2fs names (docs/ext4.md).
//! `config::Ext4Config` is the TOML vocabulary; `sim` resolves it into these plain values.

/// Every parameter of one mounted ext4.
#[derive(Debug, Clone, PartialEq)]
pub struct Ext4Params {
    /// mke2fs `-J size=`, in blocks; `None`: `ext2fs_default_journal_size`.
    pub journal_blocks: Option<u64>,
    /// `commit=`: the journal commits the running transaction this long after it started.
    pub commit_ms: u64,
    /// Delayed allocation (`delalloc`, the default; `nodelalloc` allocates at write()).
    pub delalloc: bool,
    /// mke2fs `-g`.
    pub blocks_per_group: u64,
    /// mke2fs `-I`.
    pub inode_size: u32,
    /// mke2fs `-i`.
    pub inode_ratio: u64,
    /// mke2fs `-G`: groups per flex group.
    pub flex_bg: u32,
    /// `dirty_expire_centisecs`: dirty data and metadata older than this is written back by
    /// the flusher.
    pub dirty_expire_ms: u64,
    /// `dirty_writeback_centisecs`: the flusher's period.
    pub dirty_writeback_ms: u64,
    /// Page-cache dirty limit: everything is written back when it is exceeded.
    pub dirty_bytes: u64,
    /// Largest device command (bio).
    pub max_bio_bytes: u64,
    /// Host time to copy a 4 KiB page into the page cache.
    pub page_copy_ns: u64,
    /// `extent_max_zeroout_kb` / 4: unwritten pieces this short are zeroed instead of split.
    pub max_zeroout_blocks: u32,
}

impl Default for Ext4Params {
    /// mke2fs.conf's ext4 defaults and the kernel's mount and writeback defaults.
    fn default() -> Self {
        Ext4Params {
            journal_blocks: None,
            commit_ms: 5_000,
            delalloc: true,
            blocks_per_group: 32_768,
            inode_size: 256,
            inode_ratio: 16_384,
            flex_bg: 16,
            dirty_expire_ms: 30_000,
            dirty_writeback_ms: 5_000,
            dirty_bytes: 64 << 20,
            max_bio_bytes: 512 << 10,
            page_copy_ns: 1_000,
            max_zeroout_blocks: 8,
        }
    }
}
