//! Device configuration: TOML files and presets, `--set KEY=VALUE` overrides, validation.
//!
//! A device is described by dotted keys (`nand.channels`, `ftl.gc.victim`, ...). Loading goes
//! TOML text -> `toml::Table` -> overrides applied on the table -> typed [`DeviceConfig`] with
//! `deny_unknown_fields` everywhere, so an unknown key is an error naming the key. Every rule
//! that a value must obey on its own or against other keys is checked in
//! [`DeviceConfig::validate`]; the rules that need the device's namespace plan (layout, GC
//! reserve) are checked by `device::validate`. `zonesim::load_device` runs both before anything
//! simulates. This module imports nothing of the model above it (only `error`).
//! Units: times in microseconds (`*_us`), bandwidths in MiB/s (`*_mb_s`, 2^20 bytes per second),
//! sizes in bytes (`*_bytes`).

mod firmware;
pub mod fs;
mod presets;
mod validate;

pub use firmware::{
    Arbitration, CacheConfig, FirmwareConfig, FirmwareCost, FirmwareModel, LockGranularity,
    LockHandoff, QueuePriority, MAX_HOST_QUEUES,
};

pub use presets::{preset_text, PRESETS};

use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// Flash cell type; decides bits per cell, default timing and the program unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CellType {
    Slc,
    Mlc,
    Tlc,
    Qlc,
}

impl CellType {
    pub fn bits_per_cell(self) -> u32 {
        match self {
            CellType::Slc => 1,
            CellType::Mlc => 2,
            CellType::Tlc => 3,
            CellType::Qlc => 4,
        }
    }
    /// Pages programmed at once per plane (one-shot program): 1 SLC, 2 MLC, 3 TLC, 4 QLC.
    pub fn program_unit_pages(self) -> u32 {
        self.bits_per_cell()
    }
    pub fn name(self) -> &'static str {
        match self {
            CellType::Slc => "slc",
            CellType::Mlc => "mlc",
            CellType::Tlc => "tlc",
            CellType::Qlc => "qlc",
        }
    }
}

/// Latencies of one cell type. `program_us` is the time of one (multi-plane) program of a whole
/// program unit; `read_us` the array read (tR) of one page; `erase_us` a block erase.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct CellTiming {
    pub read_us: f64,
    pub program_us: f64,
    pub erase_us: f64,
    /// Array read time by page type (LSB, CSB, MSB, TSB: page index mod bits per cell), seed
    /// 004 Table I; empty = `read_us` for every page.
    #[serde(default, skip_serializing_if = "PageTimes::is_empty")]
    pub read_us_by_page: PageTimes,
    /// Program time by page type; a program unit (every page of a word line, programmed in
    /// order) takes their sum. Empty = `program_us` per unit.
    #[serde(default, skip_serializing_if = "PageTimes::is_empty")]
    pub program_us_by_page: PageTimes,
}

/// Times (µs) by page type, one per bit of the cell, or none.
#[derive(Debug, Clone, Copy, PartialEq, Default, Deserialize, Serialize)]
#[serde(try_from = "Vec<f64>", into = "Vec<f64>")]
pub struct PageTimes {
    n: u8,
    us: [f64; 4],
}

impl PageTimes {
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }
    pub fn as_slice(&self) -> &[f64] {
        &self.us[..self.n as usize]
    }
}

impl TryFrom<Vec<f64>> for PageTimes {
    type Error = String;
    fn try_from(v: Vec<f64>) -> std::result::Result<PageTimes, String> {
        if v.len() > 4 {
            return Err(format!("at most 4 page types (got {})", v.len()));
        }
        let mut us = [0.0; 4];
        us[..v.len()].copy_from_slice(&v);
        Ok(PageTimes {
            n: v.len() as u8,
            us,
        })
    }
}

impl From<PageTimes> for Vec<f64> {
    fn from(p: PageTimes) -> Vec<f64> {
        p.as_slice().to_vec()
    }
}

/// Timing per cell type. Defaults: ConZone Table 2 for SLC/TLC/QLC (read/program), erase 3.5 ms;
/// MLC from MQSim's default configuration (75 us read, 750 us program, 3.8 ms erase). Every
/// key has its own default: a table that gives only `read_us` keeps the cell's default program
/// and erase times.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize, Serialize)]
#[serde(from = "PartialTimingTable")]
pub struct TimingTable {
    pub slc: CellTiming,
    pub mlc: CellTiming,
    pub tlc: CellTiming,
    pub qlc: CellTiming,
}

impl Default for TimingTable {
    fn default() -> Self {
        TimingTable {
            slc: CellTiming {
                read_us: 20.0,
                program_us: 75.0,
                erase_us: 3500.0,
                read_us_by_page: PageTimes::default(),
                program_us_by_page: PageTimes::default(),
            },
            mlc: CellTiming {
                read_us: 75.0,
                program_us: 750.0,
                erase_us: 3800.0,
                read_us_by_page: PageTimes::default(),
                program_us_by_page: PageTimes::default(),
            },
            tlc: CellTiming {
                read_us: 32.0,
                program_us: 937.5,
                erase_us: 3500.0,
                read_us_by_page: PageTimes::default(),
                program_us_by_page: PageTimes::default(),
            },
            qlc: CellTiming {
                read_us: 85.0,
                program_us: 6400.0,
                erase_us: 3500.0,
                read_us_by_page: PageTimes::default(),
                program_us_by_page: PageTimes::default(),
            },
        }
    }
}

/// A `[nand.timing]` table as written: any key may be missing.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
struct PartialTimingTable {
    slc: PartialCellTiming,
    mlc: PartialCellTiming,
    tlc: PartialCellTiming,
    qlc: PartialCellTiming,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
struct PartialCellTiming {
    read_us: Option<f64>,
    program_us: Option<f64>,
    erase_us: Option<f64>,
    read_us_by_page: Option<PageTimes>,
    program_us_by_page: Option<PageTimes>,
}

impl PartialCellTiming {
    fn or(self, d: CellTiming) -> CellTiming {
        CellTiming {
            read_us: self.read_us.unwrap_or(d.read_us),
            program_us: self.program_us.unwrap_or(d.program_us),
            erase_us: self.erase_us.unwrap_or(d.erase_us),
            read_us_by_page: self.read_us_by_page.unwrap_or(d.read_us_by_page),
            program_us_by_page: self.program_us_by_page.unwrap_or(d.program_us_by_page),
        }
    }
}

impl From<PartialTimingTable> for TimingTable {
    fn from(p: PartialTimingTable) -> TimingTable {
        let d = TimingTable::default();
        TimingTable {
            slc: p.slc.or(d.slc),
            mlc: p.mlc.or(d.mlc),
            tlc: p.tlc.or(d.tlc),
            qlc: p.qlc.or(d.qlc),
        }
    }
}

impl TimingTable {
    pub fn of(&self, cell: CellType) -> CellTiming {
        match cell {
            CellType::Slc => self.slc,
            CellType::Mlc => self.mlc,
            CellType::Tlc => self.tlc,
            CellType::Qlc => self.qlc,
        }
    }
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct NandConfig {
    pub channels: u32,
    pub chips_per_channel: u32,
    pub dies_per_chip: u32,
    pub planes_per_die: u32,
    pub blocks_per_plane: u32,
    pub pages_per_block: u32,
    pub page_bytes: u32,
    pub cell: CellType,
    #[serde(default)]
    pub timing: TimingTable,
    pub channel_mb_s: f64,
    /// The first N blocks of every plane run in SLC mode (pSLC: `bits(SLC)/bits(cell)` of the
    /// pages, SLC timing). They hold conventional namespaces marked `slc_only` and the SLC
    /// secondary write buffer of zoned namespaces (ConZone §3.2, ConZone+ §4). Default 0.
    #[serde(default)]
    pub slc_blocks_per_plane: u32,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct HostConfig {
    /// Host link bandwidth (UFS M-PHY gears, PCIe lanes), per direction.
    pub link_mb_s: f64,
    /// Fixed host-stack time per request (kernel, driver, emulator) added before the device
    /// sees it, microseconds. Default 0.
    #[serde(default)]
    pub overhead_us: f64,
    /// Submission/completion queue pairs (NVMe up to 64 Ki, UFS 32); fio jobs and their
    /// `numjobs` clones take queues in turn (job k on queue k mod queues). 0 (default): one
    /// queue per job, unbounded, no per-queue report.
    #[serde(default)]
    pub queues: u32,
    /// Entries of each submission queue: a job waits while its queue holds this many
    /// commands. 0 (default): unbounded.
    #[serde(default)]
    pub queue_depth: u32,
    /// Which queue the controller fetches from next when several hold commands and the HIL
    /// core is busy (`rr` or `wrr`). Default `rr`.
    #[serde(default)]
    pub arbitration: Arbitration,
    /// Priority class of queue 0, 1, ... under `wrr` (`urgent`, `high`, `medium`, `low`);
    /// queues not listed are `medium`.
    #[serde(default)]
    pub queue_priority: Vec<QueuePriority>,
    /// Weights of the high, medium and low classes under `wrr`. Default [4, 2, 1].
    #[serde(default = "firmware::wrr_weights")]
    pub wrr_weights: [u32; 3],
    /// Zoned writes: at most one write in flight per zone, later ones wait in the host
    /// (mq-deadline's zone write locking, ZUFS §4.3). Zone appends need no lock. Default true.
    #[serde(default = "default_true")]
    pub zone_write_lock: bool,
    /// Probability that a dispatched zoned write is requeued (UFS clock gating, ZUFS §3.3)
    /// and reaches the device `requeue_delay_us` later, overtaken by the writes after it.
    /// Default 0.
    #[serde(default)]
    pub requeue_probability: f64,
    /// How long a requeued write waits before it is dispatched again (clock ungating), µs.
    /// Default 50 (chosen).
    #[serde(default = "default_requeue_delay_us")]
    pub requeue_delay_us: f64,
    /// Commands the device takes at once (UFS task tags, 32); requests beyond wait in the
    /// host scheduler and are dispatched by fio `prioclass` / `prio` (host/sched.rs). 0 = no
    /// limit (the default: nothing waits, priorities have no effect).
    #[serde(default)]
    pub device_tags: u32,
    /// IOTailor (ZMS, seed 002 "Challenge #1", `host/iotailor.rs`): zoned writes of the run's
    /// sources are split and grouped per zone into superpage-aligned requests before they
    /// reach the device. Needs the run's namespace to be zoned. Default false.
    #[serde(default)]
    pub iotailor: bool,
    /// IOTailor: the longest a partial (less than a superpage) group is held before it is
    /// issued as it is, µs (a bounded hold keeps closed-loop sources moving). Default 1000
    /// (chosen: about one TLC program, the cost of the SLC detour it avoids).
    #[serde(default = "default_iotailor_hold_us")]
    pub iotailor_hold_us: f64,
}

fn default_iotailor_hold_us() -> f64 {
    1000.0
}

fn default_requeue_delay_us() -> f64 {
    50.0
}

/// Victim selection policy of garbage collection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum VictimPolicy {
    Greedy,
    CostBenefit,
    Fifo,
    Random,
    DChoice,
    WindowedGreedy,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct GcConfig {
    pub victim: VictimPolicy,
    /// Foreground GC runs while fewer superblocks than this are free.
    pub threshold_free_superblocks: u32,
    /// Background GC when the device is idle (no outstanding host request for `idle_us`).
    #[serde(default)]
    pub background: bool,
    /// Background GC runs while fewer superblocks than this are free (>= foreground threshold).
    #[serde(default = "default_bg_threshold")]
    pub background_threshold_free_superblocks: u32,
    #[serde(default = "default_idle_us")]
    pub idle_us: f64,
    /// Candidates sampled by d-choice.
    #[serde(default = "default_d")]
    pub d: u32,
    /// Oldest closed superblocks considered by windowed greedy.
    #[serde(default = "default_window")]
    pub window: u32,
    /// Data placement policy: which write stream host pages and GC survivors go to.
    #[serde(default)]
    pub placement: PlacementPolicy,
    /// Streams of `age_k` (k: survived GC n times -> stream min(n, k-1)).
    #[serde(default = "default_streams")]
    pub streams: u32,
    /// Host reads suspend queued GC flash work on their die (program/erase suspend).
    #[serde(default)]
    pub preemptible: bool,
    /// Foreground GC spreads a victim's page moves over the host writes that follow (a quota
    /// per host program unit; default). `false`: a victim is collected whole as soon as GC
    /// starts, as a simple firmware (e.g. Cosmos+ GreedyFTL) does.
    #[serde(default = "default_true")]
    pub incremental: bool,
    /// Extra time a suspended GC operation loses per suspension (resume overhead).
    #[serde(default = "default_suspend_us")]
    pub suspend_us: f64,
    /// Parameters of the `bloom` placement.
    #[serde(default)]
    pub bloom: BloomConfig,
    /// Parameters of the `gcar` placement.
    #[serde(default)]
    pub gcar: GcarConfig,
}

/// GCaR-Optimized cache-aware GC (`ftl.gc.gcar.*`, seed 003 §5.1).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct GcarConfig {
    /// Share of the data buffer (`buffer.bytes`) that keeps GC-moved pages during replacement.
    pub cache_fraction: f64,
}

impl Default for GcarConfig {
    fn default() -> Self {
        GcarConfig {
            cache_fraction: 0.25,
        }
    }
}

/// Data placement policy of garbage collection (firmware/alloc/placement, seed 003).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PlacementPolicy {
    /// One stream for host data and GC survivors (the Cosmos+ baseline).
    #[default]
    Single,
    /// SUP-GC: host writes hot, GC survivors cold (seed 003 §3).
    Sup,
    /// Multiple Bloom filters with decay classify host writes hot or cold (seed 003 §2.2, §4).
    Bloom,
    /// k streams by GC survival count.
    AgeK,
    /// Host-supplied lifetime hint (fio `write_hint`) chooses the stream.
    Hint,
    /// GCaR-Optimized (seed 003 §5.1, §5.3): one stream like `single`; GC keeps the data it
    /// moves in the data buffer (a share of `buffer.bytes`) so host reads of it hit there, and
    /// every replacement traverses the buffer (`ftl.cost.gcar_*`).
    Gcar,
}

impl PlacementPolicy {
    pub fn name(self) -> &'static str {
        match self {
            PlacementPolicy::Single => "single",
            PlacementPolicy::Sup => "sup",
            PlacementPolicy::Bloom => "bloom",
            PlacementPolicy::AgeK => "age_k",
            PlacementPolicy::Hint => "hint",
            PlacementPolicy::Gcar => "gcar",
        }
    }
}

/// Maximum number of write streams of one FTL.
pub const MAX_STREAMS: usize = 8;

/// Streams of the `hint` placement: none, short, medium, long, extreme.
pub const HINT_STREAMS: usize = 5;

/// Streams a configuration needs (for validation and the device plan, before any FTL exists).
pub fn stream_count(gc: &GcConfig) -> usize {
    match gc.placement {
        PlacementPolicy::Single | PlacementPolicy::Gcar => 1,
        PlacementPolicy::Sup | PlacementPolicy::Bloom => 2,
        PlacementPolicy::AgeK => gc.streams as usize,
        PlacementPolicy::Hint => HINT_STREAMS,
    }
}

/// Multiple-Bloom-filter hot/cold classifier (`ftl.gc.bloom.*`).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct BloomConfig {
    /// Number of filters V; one is current, the oldest is cleared every window (decay).
    pub filters: u32,
    /// Host page writes per decay window; 0 = logical pages / 8.
    pub window_pages: u64,
    /// Target false-positive rate of one filter holding one window's pages.
    pub fp_rate: f64,
    /// Hot if the page is in at least this many filters (recent windows).
    pub hot_threshold: u32,
}

impl Default for BloomConfig {
    fn default() -> Self {
        BloomConfig {
            filters: 4,
            window_pages: 0,
            fp_rate: 0.01,
            hot_threshold: 2,
        }
    }
}

/// Controller-CPU cost of one policy (ns).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PolicyCost {
    /// Per host page written (classification at write time).
    pub write_ns: f64,
    /// Per page moved by GC (classification of a survivor).
    pub gc_page_ns: f64,
}

/// Firmware processing cost on the controller CPU (`ftl.cost.*`, firmware/cost.rs), flat keys
/// `<policy>_write_ns` and `<policy>_gc_page_ns` so each can be set alone. Defaults: seed 003
/// §5.3.1 (see docs/placement.md): single, sup, age_k and hint compute nothing beyond the
/// stream index; the Bloom-filter scheme hashes every written page and every GC survivor.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct CostConfig {
    /// Base firmware time per host command, every policy (0 = the CPU is never the limit).
    pub host_cmd_ns: f64,
    pub single_write_ns: f64,
    pub single_gc_page_ns: f64,
    pub sup_write_ns: f64,
    pub sup_gc_page_ns: f64,
    pub bloom_write_ns: f64,
    pub bloom_gc_page_ns: f64,
    pub age_k_write_ns: f64,
    pub age_k_gc_page_ns: f64,
    pub hint_write_ns: f64,
    pub hint_gc_page_ns: f64,
    /// GCaR: cache traversal per replacement (per host page written), seed 003 §5.3.1.
    pub gcar_write_ns: f64,
    /// GCaR: traversal per GC page kept in the buffer.
    pub gcar_gc_page_ns: f64,
}

impl Default for CostConfig {
    fn default() -> Self {
        CostConfig {
            host_cmd_ns: 0.0,
            single_write_ns: 0.0,
            single_gc_page_ns: 0.0,
            sup_write_ns: 0.0,
            sup_gc_page_ns: 0.0,
            bloom_write_ns: 1000.0,
            bloom_gc_page_ns: 500.0,
            age_k_write_ns: 0.0,
            age_k_gc_page_ns: 0.0,
            hint_write_ns: 0.0,
            hint_gc_page_ns: 0.0,
            // Fitted to seed 003 Fig. 13 (GCaR at 0.65 of Cosmos+ without GC) on the
            // supgc-throughput device: 10 us / (10 us + 4 pages x 1.35 us) = 0.65.
            gcar_write_ns: 1350.0,
            gcar_gc_page_ns: 1350.0,
        }
    }
}

impl CostConfig {
    /// The cost of `p`.
    pub fn of(&self, p: PlacementPolicy) -> PolicyCost {
        let (write_ns, gc_page_ns) = match p {
            PlacementPolicy::Single => (self.single_write_ns, self.single_gc_page_ns),
            PlacementPolicy::Sup => (self.sup_write_ns, self.sup_gc_page_ns),
            PlacementPolicy::Bloom => (self.bloom_write_ns, self.bloom_gc_page_ns),
            PlacementPolicy::AgeK => (self.age_k_write_ns, self.age_k_gc_page_ns),
            PlacementPolicy::Hint => (self.hint_write_ns, self.hint_gc_page_ns),
            PlacementPolicy::Gcar => (self.gcar_write_ns, self.gcar_gc_page_ns),
        };
        PolicyCost {
            write_ns,
            gc_page_ns,
        }
    }

    /// Every key with its value (for validation messages).
    pub fn keys(&self) -> [(&'static str, f64); 13] {
        [
            ("host_cmd_ns", self.host_cmd_ns),
            ("single_write_ns", self.single_write_ns),
            ("single_gc_page_ns", self.single_gc_page_ns),
            ("sup_write_ns", self.sup_write_ns),
            ("sup_gc_page_ns", self.sup_gc_page_ns),
            ("bloom_write_ns", self.bloom_write_ns),
            ("bloom_gc_page_ns", self.bloom_gc_page_ns),
            ("age_k_write_ns", self.age_k_write_ns),
            ("age_k_gc_page_ns", self.age_k_gc_page_ns),
            ("hint_write_ns", self.hint_write_ns),
            ("hint_gc_page_ns", self.hint_gc_page_ns),
            ("gcar_write_ns", self.gcar_write_ns),
            ("gcar_gc_page_ns", self.gcar_gc_page_ns),
        ]
    }
}

fn default_true() -> bool {
    true
}

fn default_bg_threshold() -> u32 {
    4
}
fn default_idle_us() -> f64 {
    1000.0
}
fn default_d() -> u32 {
    2
}
fn default_window() -> u32 {
    8
}
fn default_streams() -> u32 {
    4
}
fn default_suspend_us() -> f64 {
    10.0
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct FtlConfig {
    /// physical = logical x (1 + overprovisioning).
    pub overprovisioning: f64,
    /// SRAM for cached map pages (demand-loaded, LRU).
    pub l2p_cache_bytes: u64,
    /// Bytes of one page-level map entry in flash and in the cache.
    #[serde(default = "default_entry_bytes")]
    pub map_entry_bytes: u32,
    pub gc: GcConfig,
    /// Zoned namespaces: `page` (one entry per 4 KiB page), `hybrid` (zone / 4 MiB chunk /
    /// page entries, aggregated as physical contiguity allows; ConZone §3.3) or `zone` (ZMT:
    /// one 8-byte entry per zone wholly in SRAM, updates through the ZML; ZUFS §4.1).
    /// `two_level`: conventional namespaces use the CUFS two-level map (L1 entries pointing to
    /// L2 map tables, both cached in the L2P SRAM; ZUFS §2.2); no zoned namespace allowed.
    /// Default `page`.
    #[serde(default)]
    pub mapping: MappingKind,
    /// `zone` mapping: entries of the zone mapping log; a full log is checkpointed to flash
    /// (ZUFS §4.1). Default 256 (chosen).
    #[serde(default = "default_zml_entries")]
    pub zml_entries: u32,
    /// `two_level` mapping: an L1 entry maps a logically and physically contiguous region
    /// directly (compressed map, ZUFS §2.2) until a write breaks the contiguity. Default false.
    #[serde(default)]
    pub compressed_l1: bool,
    /// `two_level` mapping: logical bytes one L1 entry covers (one L2 map table, or one
    /// compressed region). Default 4 MiB (ZUFS §2.2).
    #[serde(default = "default_region_bytes")]
    pub compressed_region_bytes: u64,
    /// Zoned namespaces, hybrid mapping: how a miss finds the level of an entry. `multiple`
    /// probes zone, chunk, page entries on flash in turn; `bitmap` keeps 2 bits per page in SRAM
    /// and reads once (ConZone §3.3, §6.6). Default `multiple`.
    #[serde(default)]
    pub l2p_search: L2pSearch,
    /// Pin aggregated (zone and chunk) entries in the L2P cache when they are created, evicting
    /// the entries they cover (ConZone §6.6). Default false.
    #[serde(default)]
    pub l2p_pin_aggregated: bool,
    /// Controller-CPU processing cost of the placement policies.
    #[serde(default)]
    pub cost: CostConfig,
}

/// Mapping granularity of zoned namespaces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MappingKind {
    #[default]
    Page,
    Hybrid,
    Zone,
    TwoLevel,
}

impl MappingKind {
    pub fn name(self) -> &'static str {
        match self {
            MappingKind::Page => "page",
            MappingKind::Hybrid => "hybrid",
            MappingKind::Zone => "zone",
            MappingKind::TwoLevel => "two_level",
        }
    }
}

fn default_zml_entries() -> u32 {
    256
}
fn default_region_bytes() -> u64 {
    4 << 20
}

/// How a hybrid-map miss learns the level of the entry it must fetch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum L2pSearch {
    #[default]
    Multiple,
    Bitmap,
}

fn default_entry_bytes() -> u32 {
    4
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct BufferConfig {
    /// Global write buffer (SRAM/DRAM) in bytes, of each conventional namespace.
    pub bytes: u64,
    /// Zone write buffers shared by the zones of each zoned namespace (ConZone §3.2).
    /// Default 2.
    #[serde(default = "default_zone_buffers")]
    pub count: u32,
    /// Bytes of each zone write buffer. Default 393216 (384 KiB, ConZone+ §6.1).
    #[serde(default = "default_zone_buffer_bytes")]
    pub bytes_each: u64,
    /// Zone-to-buffer mapping: `assoc` (any zone any buffer; all taken: flush the fullest) or
    /// `modulo` (zone id mod count). Default `assoc` (ConZone's default).
    #[serde(default)]
    pub zone_mapping: ZoneBufferMapping,
    /// Zone write buffers of zoned namespaces: `static` (`count` x `bytes_each`, above) or
    /// `zabm` (ZUFS §4.2: `sram_bytes` split into 4 KiB slots shared by the open zones).
    /// Default `static`.
    #[serde(default)]
    pub kind: BufferKind,
    /// `zabm`: buffer SRAM of each zoned namespace, bytes (a multiple of 4096). Default
    /// 1572864 (1.5 MiB, chosen: the SRAM of two 768 KiB superpage buffers).
    #[serde(default = "default_sram_bytes")]
    pub sram_bytes: u64,
    /// `zabm`: a zone flushes as soon as one die's program unit is buffered (`die`) or only
    /// whole superpages (`superpage`). Default `die`.
    #[serde(default)]
    pub flush_unit: FlushUnit,
    /// `zabm`: slots every open zone keeps in reserve; busy zones borrow the rest. Default 16.
    #[serde(default = "default_min_slots")]
    pub min_slots_per_zone: u32,
}

fn default_sram_bytes() -> u64 {
    1536 * 1024
}
fn default_min_slots() -> u32 {
    16
}

/// Zone write buffer manager of zoned namespaces (`buffer.kind`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BufferKind {
    /// Fixed zone buffers (ConZone §3.2).
    #[default]
    Static,
    /// Zone-aware slot buffers (ZUFS §4.2, SGBM).
    Zabm,
}

/// When a ZABM zone flushes (`buffer.flush_unit`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FlushUnit {
    /// As soon as one die's program unit is buffered.
    #[default]
    Die,
    /// Only whole superpages (every die's unit), programmed in parallel.
    Superpage,
}

fn default_zone_buffers() -> u32 {
    2
}
fn default_zone_buffer_bytes() -> u64 {
    384 * 1024
}

/// Zone-to-buffer mapping of zone write buffers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ZoneBufferMapping {
    #[default]
    Assoc,
    Modulo,
}

/// Zone geometry and limits of zoned namespaces (`[zone]`).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct ZoneSection {
    /// Distance between zone starts, bytes. 0 (default) = the zone capacity rounded up to a
    /// power of two.
    pub size_bytes: u64,
    /// Writable bytes per zone (need not be a power of two). 0 (default) = one superblock of
    /// regular flash (one block with `sub_block`).
    pub capacity_bytes: u64,
    /// Maximum open zones (0 = unlimited). Default 6 (F2FS opens six; ZUFS requires >= 6).
    pub max_open: u32,
    /// Maximum active zones (0 = unlimited). Default 0.
    pub max_active: u32,
    /// Map zones onto single flash blocks instead of whole superblocks (ConZone+ §4.3).
    pub sub_block: bool,
    /// Budget of valid in-place-updated data held in SLC (ZMS budget-based in-place update,
    /// seed 002 "Challenge #2"), bytes, a multiple of 4 KiB. 0 (default) = off: JEDEC ZUFS
    /// forbids in-place updates, an `Op::InPlace` is then a plain write.
    pub ipu_budget_bytes: u64,
}

impl Default for ZoneSection {
    fn default() -> Self {
        ZoneSection {
            size_bytes: 0,
            capacity_bytes: 0,
            max_open: 6,
            max_active: 0,
            sub_block: false,
            ipu_budget_bytes: 0,
        }
    }
}

/// What goes through the SLC secondary buffer of zoned namespaces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SlcPolicy {
    /// Only premature (less than a program unit) flushes go to SLC (ConZone default for TLC).
    #[default]
    Bypass,
    /// Every flush lands in SLC and is migrated to regular flash by SLC GC (QLC).
    All,
}

/// Where SLC garbage collection puts valid data.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SlcGc {
    /// Rewrite it inside SLC.
    #[default]
    InPlace,
    /// Move whole program units of it to the zone's regular flash (the rest stays in SLC).
    Migrate,
}

/// The SLC secondary buffer of zoned namespaces (`[slc]`).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct SlcConfig {
    pub policy: SlcPolicy,
    pub gc: SlcGc,
    /// SLC GC runs when fewer free SLC superblocks than this remain. Default 2.
    pub gc_threshold_free_superblocks: u32,
    /// `page`: SLC allocated at page level, zones share the frontiers (ConZone `pageslc`);
    /// `zone`: each zone writes SLC superblocks of its own and SLC GC migrates whole zones
    /// (ConZone+ `ZONED_SLC`, seed 000 §6.5 Fig. 12). Default `page`.
    pub granularity: SlcGranularity,
    /// Conventional (page-mapped) namespaces in regular flash get an SLC write cache too: an
    /// equal share of the SLC blocks left after `slc_only` namespaces, with the zoned
    /// namespaces' buffers (`firmware/conventional/slc.rs`, docs/config.md). Their partial
    /// units at a flush go to SLC instead of being padded (`policy = bypass`), or every write
    /// does (`policy = all`); SLC GC migrates to regular flash (`gc = migrate` required).
    /// Default false.
    pub conventional_buffer: bool,
    /// When the conventional SLC cache writes its data back to regular flash (UFS
    /// WriteBooster buffer flush, JEDEC UFS 3.1 §13.4.14; `firmware/conventional/writeback.rs`):
    /// `full` only when SLC runs out of room (SLC GC); `idle` also after
    /// `writeback_idle_us` without a host request (flush during Hibern8); `threshold` also
    /// whenever more than `writeback_threshold` of the SLC superblocks are in use. Default
    /// `full`.
    pub writeback: SlcWriteback,
    /// `writeback = idle`: host idle time before the write-back starts, µs. Default 150,000
    /// (Linux ufshcd's default auto-Hibern8 idle timer, 150 ms).
    pub writeback_idle_us: f64,
    /// `writeback = threshold`: fraction of the SLC superblocks in use above which write-back
    /// runs. Default 0.6 (Linux ufshcd's `wb_flush_threshold`: a flush is needed when less
    /// than 40 % of the WriteBooster buffer is available).
    pub writeback_threshold: f64,
}

/// When a conventional namespace's SLC cache writes back to regular flash (`slc.writeback`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SlcWriteback {
    /// Only when SLC needs room (today's behaviour).
    #[default]
    Full,
    /// When the host has been idle `slc.writeback_idle_us`, until SLC is empty or a request
    /// arrives.
    Idle,
    /// Whenever more than `slc.writeback_threshold` of SLC is in use, in the background.
    Threshold,
}

/// How the SLC secondary buffer is managed (`slc.granularity`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SlcGranularity {
    #[default]
    Page,
    Zone,
}

impl Default for SlcConfig {
    fn default() -> Self {
        SlcConfig {
            policy: SlcPolicy::Bypass,
            gc: SlcGc::InPlace,
            gc_threshold_free_superblocks: 2,
            granularity: SlcGranularity::Page,
            conventional_buffer: false,
            writeback: SlcWriteback::Full,
            writeback_idle_us: 150_000.0,
            writeback_threshold: 0.6,
        }
    }
}

/// Per-die command queues (`[sched]`, ConZone+ §4.2).
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct SchedConfig {
    /// Host I/O overtakes (suspends) queued background work: SLC-to-regular migration and GC.
    /// Default false (FIFO).
    pub preempt_migration: bool,
}

/// What a run records beside the totals (`[stats]`).
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct StatsConfig {
    /// Sample a time series every this many simulated milliseconds (the report's
    /// `timeseries`, docs/report.md). Default 0: off.
    pub interval_ms: f64,
}

/// Kind of a namespace.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum NamespaceKind {
    Conventional,
    Zoned,
}

/// One namespace (`[[namespaces]]`, ConZone+ §4 Algorithm 1). Without any `[[namespaces]]`
/// the device has one conventional namespace over all its regular flash.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct NamespaceConfig {
    pub kind: NamespaceKind,
    /// Conventional: logical bytes (0 = everything left after the other namespaces, with
    /// `ftl.overprovisioning`). Zoned: ignored when `zones` is set.
    #[serde(default)]
    pub capacity_bytes: u64,
    /// Zoned: number of zones (0 = as many as the remaining regular flash holds).
    #[serde(default)]
    pub zones: u32,
    /// Conventional: live wholly in SLC blocks (ConZone+ §4: metadata namespace 0).
    #[serde(default)]
    pub slc_only: bool,
    /// Conventional: the NVM set, the channels the namespace's superblocks span (seed 004
    /// §III-C, MCMQ's per-namespace channel list). Empty (default): every channel.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub channels: Vec<u32>,
}

/// A whole device.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct DeviceConfig {
    pub name: String,
    pub description: String,
    /// Name of a preset this file starts from (its keys override the preset's). Only in files.
    #[serde(default, skip_serializing)]
    pub base: Option<String>,
    pub nand: NandConfig,
    pub host: HostConfig,
    pub ftl: FtlConfig,
    pub buffer: BufferConfig,
    #[serde(default)]
    pub zone: ZoneSection,
    #[serde(default)]
    pub slc: SlcConfig,
    #[serde(default)]
    pub sched: SchedConfig,
    /// Multi-core firmware model (issue 15); off by default.
    #[serde(default)]
    pub firmware: FirmwareConfig,
    /// DRAM data cache in front of the FTL; none by default.
    #[serde(default)]
    pub cache: CacheConfig,
    #[serde(default)]
    pub stats: StatsConfig,
    /// Namespaces in id order; empty = one conventional namespace.
    #[serde(default)]
    pub namespaces: Vec<NamespaceConfig>,
    /// The host file system run under the workload (docs/fs.md); absent = raw block I/O.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fs: Option<fs::FsConfig>,
}

impl DeviceConfig {
    /// Zones `k` times smaller and `k` times more of them, from the same flash: erase blocks of
    /// `pages_per_block / k` pages, `k` times as many regular and SLC blocks per plane (the SLC
    /// pool keeps its size), zone size and capacity divided by `k`, every zoned namespace's
    /// zone count multiplied by `k`. The die geometry and the timing are unchanged. Used to give
    /// a host file system more, smaller sections on a scaled device (F2FS counts sections).
    /// Call [`DeviceConfig::validate`] after.
    pub fn split_zones(&mut self, k: u32) {
        let regular = self.nand.blocks_per_plane - self.nand.slc_blocks_per_plane;
        self.nand.pages_per_block /= k;
        self.nand.slc_blocks_per_plane *= k;
        self.nand.blocks_per_plane = self.nand.slc_blocks_per_plane + regular * k;
        self.zone.capacity_bytes /= k as u64;
        self.zone.size_bytes /= k as u64;
        for ns in &mut self.namespaces {
            if ns.kind == NamespaceKind::Zoned {
                ns.zones *= k;
            }
        }
    }

    /// Load a preset name or a TOML file, apply `KEY=VALUE` overrides, check the config rules
    /// ([`DeviceConfig::validate`]). The device-plan rules are not checked here: load through
    /// `zonesim::load_device` to check both.
    pub fn load(spec: &str, sets: &[String]) -> Result<DeviceConfig> {
        let (origin, mut table) = match preset_text(spec) {
            Some(text) => (format!("preset {spec}"), parse_toml(text, spec)?),
            None => {
                let path = Path::new(spec);
                let text = crate::error::read_text_file(path)?;
                let mut t = parse_toml(&text, spec)?;
                if let Some(base) = t.get("base").cloned() {
                    let name = base
                        .as_str()
                        .ok_or_else(|| Error::config("base", "must be a preset name string"))?;
                    let text = preset_text(name)
                        .ok_or_else(|| Error::config("base", format!("unknown preset '{name}'")))?;
                    let mut b = parse_toml(text, name)?;
                    merge(&mut b, t);
                    t = b;
                }
                (spec.to_string(), t)
            }
        };
        for s in sets {
            apply_set(&mut table, s)?;
        }
        let cfg = from_table(table, &origin, sets)?;
        cfg.validate()?;
        Ok(cfg)
    }

    /// The built-in default device (`zonesim run` with no arguments).
    pub fn default_device() -> DeviceConfig {
        DeviceConfig::load("ufs-conventional", &[]).expect("built-in preset is valid")
    }
}

fn parse_toml(text: &str, origin: &str) -> Result<toml::Table> {
    text.parse::<toml::Table>().map_err(|e| {
        let line = e
            .span()
            .map(|s| text[..s.start.min(text.len())].lines().count().max(1) as u64)
            .unwrap_or(0);
        Error::parse(origin, line, e.message().trim().replace('\n', "; "))
    })
}

/// Deep-merge `over` into `base` (tables merge key by key, other values replace).
fn merge(base: &mut toml::Table, over: toml::Table) {
    for (k, v) in over {
        match (base.get_mut(&k), v) {
            (Some(toml::Value::Table(b)), toml::Value::Table(o)) => merge(b, o),
            (_, v) => {
                base.insert(k, v);
            }
        }
    }
}

/// Apply one `a.b.c=value` override. The value is read as a TOML literal (number, bool,
/// quoted string) and otherwise taken as a bare string (`nand.cell=tlc`).
pub fn apply_set(table: &mut toml::Table, set: &str) -> Result<()> {
    let (key, raw) = set
        .split_once('=')
        .ok_or_else(|| Error::Usage(format!("--set {set}: expected KEY=VALUE")))?;
    let key = key.trim();
    let raw = raw.trim();
    if key.is_empty() || key.split('.').any(|p| p.is_empty()) {
        return Err(Error::Usage(format!("--set {set}: empty key part")));
    }
    if key == "base" {
        return Err(Error::config(
            "base",
            format!("--set {set}: base is only read from device files; use --device {raw} to start from that preset"),
        ));
    }
    let value = format!("v = {raw}")
        .parse::<toml::Table>()
        .ok()
        .and_then(|mut t| t.remove("v"))
        .unwrap_or_else(|| toml::Value::String(raw.to_string()));
    let parts: Vec<&str> = key.split('.').collect();
    let mut cur = table;
    for (i, p) in parts[..parts.len() - 1].iter().enumerate() {
        let entry = cur
            .entry(p.to_string())
            .or_insert_with(|| toml::Value::Table(toml::Table::new()));
        cur = match entry {
            toml::Value::Table(t) => t,
            _ => {
                return Err(Error::config(
                    parts[..=i].join("."),
                    "is a value, not a table; cannot set a key below it",
                ))
            }
        };
    }
    cur.insert(parts[parts.len() - 1].to_string(), value);
    Ok(())
}

/// The last `--set` among `sets` that wrote `path` or a table above it.
fn set_of<'a>(sets: &'a [String], path: &str) -> Option<&'a String> {
    sets.iter().rev().find(|s| {
        let key = s.split_once('=').map_or("", |x| x.0).trim();
        !key.is_empty()
            && (key == path || path.strip_prefix(key).is_some_and(|r| r.starts_with('.')))
    })
}

fn from_table(table: toml::Table, origin: &str, sets: &[String]) -> Result<DeviceConfig> {
    let value = toml::Value::Table(table);
    serde_path_to_error::deserialize::<_, DeviceConfig>(value).map_err(|e| {
        let path = e.path().to_string();
        // A bad value given with --set is blamed on the --set, not on the file or preset.
        let set_origin;
        let origin = match set_of(sets, &path) {
            Some(s) => {
                set_origin = format!("--set {s}");
                set_origin.as_str()
            }
            None => origin,
        };
        // toml's messages may span lines ("... in `nand`"): keep the first, one-line rule.
        let msg = e.inner().to_string();
        let msg = msg.lines().next().unwrap_or("").trim().to_string();
        if let Some(rest) = msg.strip_prefix("unknown field `") {
            let expected = rest.split_once(", ").map(|x| x.1).unwrap_or("");
            return Error::config(path, format!("unknown key in {origin} ({expected})"));
        }
        if let Some(rest) = msg.strip_prefix("missing field `") {
            let name = rest.split('`').next().unwrap_or("");
            let key = if path == "." || path.is_empty() {
                name.to_string()
            } else {
                format!("{path}.{name}")
            };
            return Error::config(key, format!("required key missing in {origin}"));
        }
        Error::config(path, format!("{msg} (in {origin})"))
    })
}

#[cfg(test)]
mod tests;
