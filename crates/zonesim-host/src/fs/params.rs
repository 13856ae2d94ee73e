//! Parameters of the F2FS model under their mount-option and sysfs names (docs/fs.md "Kernel
//! behaviour the model follows", "What differs between kernels"; Zoned UFS Table 1). `config::FsConfig` is the TOML
//! vocabulary; `sim` resolves it into these plain values (zoned and conventional defaults switch as
//! in the kernel).

/// `mode=`: adaptive (IPU and SSR allowed) or LFS (always out of place). Forced to LFS on a
/// zoned main area, as `default_options()` does for `blkzoned`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FsMode {
    Adaptive,
    Lfs,
}

/// The kernel release whose F2FS policies the model follows (docs/fs.md "What differs between
/// kernels", read from `fs/f2fs` of v5.4, v6.1, v6.6, v6.12 and v6.18). Every policy that
/// differs between them is one method below; the model asks these, never the version.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kernel {
    /// Linux 5.4 (Android 11; ZMS's host).
    V5_4,
    /// Linux 6.1.
    V6_1,
    /// Linux 6.6.
    V6_6,
    /// Linux 6.12: the zoned background GC rework; `one_time` (and with it
    /// `gc_valid_thresh_ratio`) only while boosted.
    V6_12,
    /// Linux 6.18: `one_time` on every zoned BG round (fix e462fc48).
    V6_18,
}

impl Kernel {
    /// Every profile, oldest first.
    pub const ALL: [Kernel; 5] = [
        Kernel::V5_4,
        Kernel::V6_1,
        Kernel::V6_6,
        Kernel::V6_12,
        Kernel::V6_18,
    ];

    /// The name the report gives (`fs.kernel`).
    pub fn name(self) -> &'static str {
        match self {
            Kernel::V5_4 => "v5.4",
            Kernel::V6_1 => "v6.1",
            Kernel::V6_6 => "v6.6",
            Kernel::V6_12 => "v6.12",
            Kernel::V6_18 => "v6.18",
        }
    }

    /// Background GC on a zoned main area has its own policy (`gc.c` `gc_thread_func`, 6.12's
    /// zoned GC series): the No-GC / Normal / Boosted phases, windows of
    /// `migration_window_granularity` segments, 10 / 20 / 60,000 ms sleeps, and an idle gate
    /// that waits only for reads (`is_idle` with `zoned_gc`). Before 6.12 a zoned main area gets
    /// the conventional thread: 30 / 60 / 300 s sleeps, idle only with no I/O in flight and no
    /// request for 5 s (`DEF_IDLE_INTERVAL`), cost-benefit over whole sections.
    pub fn zoned_bg_gc(self) -> bool {
        self >= Kernel::V6_12
    }

    /// Every zoned background round is a `one_time` round, so the `gc_valid_thresh_ratio`
    /// filter applies to Normal rounds too (6.18, commit e462fc48); in 6.12 only boosted
    /// rounds were.
    pub fn one_time_every_zoned_round(self) -> bool {
        self >= Kernel::V6_18
    }

    /// Default `gc_valid_thresh_ratio` (`DEF_GC_THREAD_VALID_THRESH_RATIO`): 95 since 6.12;
    /// the model's 6.18 profile takes 80 from commit 81464df3 (October 2025), which v6.18.2
    /// does not carry yet (docs/fs.md).
    pub fn valid_thresh_ratio(self) -> u32 {
        if self >= Kernel::V6_18 {
            80
        } else {
            95
        }
    }

    /// Foreground GC counts the dirty data pages in LFS mode among what the free sections
    /// must hold (`__get_secs_required`, commit "fix to account dirty data", 2025). The model
    /// keeps it for its 6.12 profile too, whose results predate this table (docs/fs.md); 6.6
    /// and older count only nodes, dentries and inode metadata.
    pub fn counts_dirty_data_in_lfs(self) -> bool {
        self >= Kernel::V6_12
    }

    /// `f2fs_balance_fs_bg` checkpoints for prefree segments and `CP_TIME` only when the
    /// device is idle (`is_idle(REQ_TIME)`), dirty nodes aside (5.4); from 6.1 prefree pressure
    /// checkpoints at once and `CP_TIME` waits only for in-flight I/O, which the model does
    /// not gate on.
    pub fn bg_cp_waits_for_idle(self) -> bool {
        self <= Kernel::V5_4
    }
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
        // The zoned background GC knobs and sleeps exist from 6.12 on.
        let zoned_gc = zoned && kernel.zoned_bg_gc();
        FsParams {
            mode: if zoned { FsMode::Lfs } else { FsMode::Adaptive },
            kernel,
            overprovision: None,
            reserved_segments: None,
            ipu_policy: if zoned { 0 } else { IPU_FSYNC },
            min_fsync_blocks: 8,
            min_ipu_util: 70,
            background_gc: true,
            gc_min_sleep_time_ms: if zoned_gc { 10 } else { 30_000 },
            gc_max_sleep_time_ms: if zoned_gc { 20 } else { 60_000 },
            gc_no_gc_sleep_time_ms: if zoned_gc { 60_000 } else { 300_000 },
            gc_idle_time_ms: 5_000,
            gc_no_zoned_gc_percent: if zoned_gc { 60 } else { 0 },
            gc_boost_zoned_gc_percent: if zoned_gc { 25 } else { 0 },
            gc_valid_thresh_ratio: kernel.valid_thresh_ratio(),
            gc_boost_gc_multiple: 5,
            gc_boost_gc_greedy: true,
            migration_window_granularity: if zoned_gc { 3 } else { segs_per_sec },
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
