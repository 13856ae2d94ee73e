//! Parameters of the F2FS model under their mount-option and sysfs names (docs/fs.md "Kernel
//! behaviour the model follows"; Zoned UFS Table 1). `config::FsConfig` is the TOML
//! vocabulary; `sim` resolves it into these plain values (zoned and conventional defaults switch as
//! in the kernel).

/// `mode=`: adaptive (IPU and SSR allowed) or LFS (always out of place). Forced to LFS on a
/// zoned main area, as `default_options()` does for `blkzoned`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FsMode {
    Adaptive,
    Lfs,
}

/// Kernel profile: the zoned BG GC valid-threshold rule changed between them (docs/fs.md
/// "Background GC on a zoned main area").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kernel {
    /// `one_time` (and with it `gc_valid_thresh_ratio`) only while boosted.
    V6_12,
    /// `one_time` on every zoned BG round (fix e462fc48).
    V6_18,
}

/// Victim policy of foreground GC (greedy in the kernel; FIFO is a model extension for the
/// validation against the FIFO cleaning model).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FgVictim {
    Greedy,
    Fifo,
}

/// `ipu_policy` bits (`F2FS_IPU_*`).
pub const IPU_FORCE: u32 = 0x01;
pub const IPU_SSR: u32 = 0x02;
pub const IPU_UTIL: u32 = 0x04;
pub const IPU_SSR_UTIL: u32 = 0x08;
pub const IPU_FSYNC: u32 = 0x10;

/// Every parameter of one mounted file system.
#[derive(Debug, Clone, PartialEq)]
pub struct FsParams {
    pub mode: FsMode,
    pub kernel: Kernel,
    /// mkfs `-o`: overprovision percent; `None` = mkfs's search for the best one.
    pub overprovision: Option<f64>,
    /// Reserved segments set explicitly (ZUFS: 6336); `None` = mkfs's formula.
    pub reserved_segments: Option<u64>,
    pub ipu_policy: u32,
    pub min_fsync_blocks: u32,
    pub min_ipu_util: u32,
    /// Background GC thread on (`background_gc=on`).
    pub background_gc: bool,
    pub gc_min_sleep_time_ms: u64,
    pub gc_max_sleep_time_ms: u64,
    pub gc_no_gc_sleep_time_ms: u64,
    /// Conventional BG GC idle gate: no request for this long.
    pub gc_idle_time_ms: u64,
    pub gc_no_zoned_gc_percent: u32,
    pub gc_boost_zoned_gc_percent: u32,
    pub gc_valid_thresh_ratio: u32,
    pub gc_boost_gc_multiple: u32,
    pub gc_boost_gc_greedy: bool,
    /// Segments per BG GC round (3 zoned, else segs_per_sec).
    pub migration_window_granularity: u32,
    pub max_victim_search: u32,
    pub fg_victim: FgVictim,
    /// `CP_TIME`: checkpoint interval.
    pub cp_interval_ms: u64,
    /// Page-cache dirty limit: writeback of all dirty data when exceeded (the writer waits).
    pub dirty_bytes: u64,
    /// Checkpoint when this many node pages are dirty (stand-in for `excess_dirty_nodes`).
    pub dirty_nodes_cp: u64,
    /// Discard (trim) freed segments at checkpoint on a conventional main area.
    pub discard: bool,
    /// Largest device write the FS issues (bio size).
    pub max_bio_bytes: u64,
    /// Time to copy one 4 KiB page into the page cache (buffered write or cached read).
    pub page_copy_ns: u64,
    /// File-name extensions placed in HOT_DATA (mkfs `-e`-style list; default `db`).
    pub hot_extensions: Vec<String>,
    /// File-name extensions placed in COLD_DATA (media).
    pub cold_extensions: Vec<String>,
    /// Move GC data with the device's copy command (ZMS copy offload). Needs a device that has
    /// one; `sim` rejects it otherwise.
    pub gc_copy_offload: bool,
    /// The main area's device takes budgeted in-place updates (ZMS `zone.ipu_budget_bytes`):
    /// files marked for in-place update use them (`ipu`). Set by `sim` from the device.
    pub device_ipu: bool,
}

impl FsParams {
    /// The kernel's defaults for a conventional (`zoned = false`) or zoned main area with
    /// `segs_per_sec` segments per section.
    pub fn kernel_default(zoned: bool, kernel: Kernel, segs_per_sec: u32) -> FsParams {
        FsParams {
            mode: if zoned { FsMode::Lfs } else { FsMode::Adaptive },
            kernel,
            overprovision: None,
            reserved_segments: None,
            ipu_policy: if zoned { 0 } else { IPU_FSYNC },
            min_fsync_blocks: 8,
            min_ipu_util: 70,
            background_gc: true,
            gc_min_sleep_time_ms: if zoned { 10 } else { 30_000 },
            gc_max_sleep_time_ms: if zoned { 20 } else { 60_000 },
            gc_no_gc_sleep_time_ms: if zoned { 60_000 } else { 300_000 },
            gc_idle_time_ms: 5_000,
            gc_no_zoned_gc_percent: if zoned { 60 } else { 0 },
            gc_boost_zoned_gc_percent: if zoned { 25 } else { 0 },
            gc_valid_thresh_ratio: match kernel {
                Kernel::V6_12 => 95,
                Kernel::V6_18 => 80,
            },
            gc_boost_gc_multiple: 5,
            gc_boost_gc_greedy: true,
            migration_window_granularity: if zoned { 3 } else { segs_per_sec },
            max_victim_search: 4096,
            fg_victim: FgVictim::Greedy,
            cp_interval_ms: 60_000,
            dirty_bytes: 64 << 20,
            dirty_nodes_cp: 4096,
            discard: true,
            max_bio_bytes: 512 << 10,
            page_copy_ns: 1_000,
            hot_extensions: vec!["db".into()],
            cold_extensions: [
                "mp4", "jpg", "jpeg", "png", "gif", "avi", "mkv", "mp3", "apk", "so", "zip", "gz",
            ]
            .iter()
            .map(|s| s.to_string())
            .collect(),
            gc_copy_offload: false,
            device_ipu: false,
        }
    }
}
