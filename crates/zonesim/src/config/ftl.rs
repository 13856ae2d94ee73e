//! `[ftl]`: the mapping, garbage collection, data placement and the controller CPU's cost of
//! them (`[ftl.gc]`, `[ftl.gc.bloom]`, `[ftl.gc.gcar]`, `[ftl.cost]`).

use super::declare::{choice, section};
use super::rule::{float, free, int, Spec};

/// A firmware cost per operation: at most 10 s in ns, as the NAND timings.
const COST_NS: Spec = float(0.0, 1e10).unit("ns");

/// Superblock counts: no device has more than 2^20 superblocks.
const SUPERBLOCKS: Spec = int(1, 1 << 20).unit("superblocks");

/// Most streams of the `age_k` placement.
pub const MAX_STREAMS: usize = 8;

/// Streams of the `hint` placement: none, short, medium, long, extreme.
pub const HINT_STREAMS: usize = 5;

choice! {
    /// Victim selection policy of garbage collection.
    pub enum VictimPolicy {
        Greedy = "greedy",
        CostBenefit = "cost_benefit",
        Fifo = "fifo",
        Random = "random",
        DChoice = "d_choice",
        WindowedGreedy = "windowed_greedy",
    }
}

choice! {
    /// Data placement policy of garbage collection (firmware/alloc/placement, SUP-GC).
    #[derive(Default)]
    pub enum PlacementPolicy {
        /// One stream for host data and GC survivors (the Cosmos+ baseline).
        #[default]
        Single = "single",
        /// SUP-GC: host writes hot, GC survivors cold (SUP-GC §3).
        Sup = "sup",
        /// Multiple Bloom filters with decay classify host writes hot or cold (SUP-GC §2.2,
        /// §4).
        Bloom = "bloom",
        /// k streams by GC survival count.
        AgeK = "age_k",
        /// Host-supplied lifetime hint (fio `write_hint`) chooses the stream.
        Hint = "hint",
        /// GCaR-Optimized (SUP-GC §5.1, §5.3): one stream like `single`; GC keeps the data
        /// it moves in the data buffer (a share of `buffer.bytes`) so host reads of it hit
        /// there, and every replacement traverses the buffer (`ftl.cost.gcar_*`).
        Gcar = "gcar",
    }
}

/// Streams a configuration needs (for validation and the device plan, before any FTL exists).
pub fn stream_count(gc: &GcConfig) -> usize {
    match gc.placement {
        PlacementPolicy::Single | PlacementPolicy::Gcar => 1,
        PlacementPolicy::Sup | PlacementPolicy::Bloom => 2,
        PlacementPolicy::AgeK => gc.streams as usize,
        PlacementPolicy::Hint => HINT_STREAMS,
    }
}

section! {
    /// Garbage collection (`[ftl.gc]`, docs/placement.md).
    #[derive(Debug, Clone)]
    pub struct GcConfig {
        /// Victim selection policy: `cost_benefit` scores age x (1 - u) / 2u, `d_choice`
        /// samples `d` candidates, `windowed_greedy` looks at the `window` oldest.
        pub victim: VictimPolicy, free();
        /// Foreground GC starts when this many superblocks (plus the streams beyond the first)
        /// or fewer are free.
        pub threshold_free_superblocks: u32, SUPERBLOCKS;
        /// Background GC while the host is idle (nothing outstanding for `idle_us` and the
        /// namespace's dies drained).
        pub background: bool = false, free();
        /// Background GC runs while fewer superblocks than this are free; at least
        /// `threshold_free_superblocks` when `background` is on.
        pub background_threshold_free_superblocks: u32 = 4, int(0, 1 << 20).unit("superblocks");
        /// Idle time before background GC starts.
        pub idle_us: f64 = 1000.0, float(0.001, 1e9).unit("µs");
        /// Candidates sampled by `d_choice` (each victim draws d).
        pub d: u32 = 2, int(1, 1024);
        /// Oldest closed superblocks considered by `windowed_greedy`.
        pub window: u32 = 8, SUPERBLOCKS;
        /// Data placement: which write stream host pages and GC survivors go to
        /// (docs/placement.md).
        pub placement: PlacementPolicy = PlacementPolicy::Single, free();
        /// Streams of `age_k` (a page that survived GC n times goes to stream min(n, k-1)).
        pub streams: u32 = 4, int(2, MAX_STREAMS as u64);
        /// Host reads suspend queued GC flash work on their die (program/erase suspend); host
        /// writes still queue behind GC.
        pub preemptible: bool = false, free();
        /// Foreground GC spreads a victim's page moves over the host writes that follow (a
        /// quota per host program unit). `false`: a victim is collected whole as soon as GC
        /// starts, as a simple firmware (e.g. Cosmos+ GreedyFTL) does.
        pub incremental: bool = true, free();
        /// Time a suspended GC operation loses per suspension (resume overhead).
        pub suspend_us: f64 = 10.0, float(0.0, 1e7).unit("µs");
        /// Parameters of the `bloom` placement.
        pub bloom: BloomConfig = BloomConfig::default(), free();
        /// Parameters of the `gcar` placement.
        pub gcar: GcarConfig = GcarConfig::default(), free();
    }
}

section! {
    /// Multiple-Bloom-filter hot/cold classifier (`[ftl.gc.bloom]`). Its filters may take at
    /// most 1 GiB.
    #[derive(Debug, Clone)]
    pub struct BloomConfig [Default] {
        /// Number of filters V; one is current, the oldest is cleared every window (decay).
        pub filters: u32 = 4, int(1, 16);
        /// Host page writes per decay window; 0: logical pages / 8. At most 2^31, the
        /// logical pages of the largest array the page map addresses.
        pub window_pages: u64 = 0, int(0, 1 << 31).unit("pages");
        /// Target false-positive rate of one filter holding one window's pages.
        pub fp_rate: f64 = 0.01, float(0.0, 1.0).open_min().open_max();
        /// Hot if the page is in at least this many filters (recent windows); at most
        /// `filters`.
        pub hot_threshold: u32 = 2, int(1, 16);
        /// Record GC relocation writes in the filters as host writes are (the filters see
        /// every page programmed), while the window still counts host writes only: under GC
        /// the filters take more insertions per window than they are sized for, fill, and
        /// their false-positive rate rises (SUP-GC §5.3.2, BF-Optimized under heavy GC;
        /// docs/placement.md "Filter saturation"). `false`: GC only probes.
        #[serde(skip_serializing_if = "super::declare::is_false")]
        pub record_gc: bool = false, free();
    }
}

section! {
    /// GCaR-Optimized cache-aware GC (`[ftl.gc.gcar]`, SUP-GC §5.1).
    #[derive(Debug, Clone)]
    pub struct GcarConfig [Default] {
        /// Share of the data buffer (`buffer.bytes`) that keeps GC-moved pages during
        /// replacement.
        pub cache_fraction: f64 = 0.25, float(0.0, 1.0).open_min();
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

section! {
    /// Firmware processing cost on the controller CPU (`[ftl.cost]`, firmware/cost.rs): the
    /// FTL's controller cores (`cores` timelines); commands and GC work wait for them. Flat keys `<policy>_write_ns` and
    /// `<policy>_gc_page_ns` so each can be set alone; the basis of the defaults (SUP-GC
    /// §5.3.1) is in docs/placement.md.
    #[derive(Debug, Clone)]
    pub struct CostConfig [Default] {
        /// Controller cores the firmware work of a conventional namespace runs on: each job (a
        /// command's handling with its pages' classification, a GC read's survivors'
        /// classification) takes the core that is free first. 1 to 64; 1 is one timeline
        /// (the default); Cosmos+ has two ARM Cortex-A9 (SUP-GC §5.1).
        #[serde(skip_serializing_if = "super::declare::is_one_u32")]
        pub cores: u32 = 1, int(1, 64).unit("cores");
        /// Base firmware time per host command, every policy (0: the CPU is never the limit;
        /// supgc-fio sets 10 µs).
        pub host_cmd_ns: f64 = 0.0, COST_NS;
        /// `single`: per host page written (only a stream index: nothing).
        pub single_write_ns: f64 = 0.0, COST_NS;
        /// `single`: per GC page moved.
        pub single_gc_page_ns: f64 = 0.0, COST_NS;
        /// `sup`: per host page written (SUP-GC only tags superblocks, SUP-GC §3.3).
        pub sup_write_ns: f64 = 0.0, COST_NS;
        /// `sup`: per GC page moved.
        pub sup_gc_page_ns: f64 = 0.0, COST_NS;
        /// `bloom`: per host page written, about V + 1 filter probes of k hashes (SUP-GC
        /// §5.3.1: BF-Optimized loses ~5 % on the CPU-bound Cosmos+).
        pub bloom_write_ns: f64 = 1000.0, COST_NS;
        /// `bloom`: per GC page moved (a survivor is probed, not recorded).
        pub bloom_gc_page_ns: f64 = 500.0, COST_NS;
        /// `bloom`: time of one hash-function evaluation. Above 0 a Bloom classification
        /// costs this per hash it evaluates at the filters' current fill (a probe stops at
        /// the first clear bit, so fuller filters cost more; docs/placement.md "Filter
        /// saturation") instead of `bloom_write_ns` / `bloom_gc_page_ns`. 0: those fixed costs.
        #[serde(skip_serializing_if = "super::declare::is_zero_f64")]
        pub bloom_hash_ns: f64 = 0.0, COST_NS;
        /// `age_k`: per host page written (a table lookup: nothing).
        pub age_k_write_ns: f64 = 0.0, COST_NS;
        /// `age_k`: per GC page moved.
        pub age_k_gc_page_ns: f64 = 0.0, COST_NS;
        /// `hint`: per host page written (a table lookup: nothing).
        pub hint_write_ns: f64 = 0.0, COST_NS;
        /// `hint`: per GC page moved.
        pub hint_gc_page_ns: f64 = 0.0, COST_NS;
        /// `gcar`: cache traversal per replacement (per host page written); calibrated to
        /// SUP-GC Fig. 13 (GCaR at 0.65 of Cosmos+ on the supgc-throughput device: 10 µs / (10 µs
        /// + 4 pages x 1.35 µs)).
        pub gcar_write_ns: f64 = 1350.0, COST_NS;
        /// `gcar`: traversal per GC page kept in the buffer (calibrated as `gcar_write_ns`).
        pub gcar_gc_page_ns: f64 = 1350.0, COST_NS;
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
}

choice! {
    /// Map of the namespaces (`ftl.mapping`): `page`, `hybrid` and `zone` map zoned
    /// namespaces; `two_level` maps conventional ones.
    #[derive(Default)]
    pub enum MappingKind {
        #[default]
        Page = "page",
        Hybrid = "hybrid",
        Zone = "zone",
        TwoLevel = "two_level",
    }
}

choice! {
    /// How a hybrid-map miss learns the level of the entry it must fetch.
    #[derive(Default)]
    pub enum L2pSearch {
        #[default]
        Multiple = "multiple",
        Bitmap = "bitmap",
    }
}

section! {
    /// The flash translation layer (`[ftl]`).
    #[derive(Debug, Clone)]
    pub struct FtlConfig {
        /// Spare flash: physical = logical x (1 + overprovisioning). Must leave enough spare
        /// superblocks for GC (`2 x streams + 1`; under `threshold_free_superblocks + streams + 1`
        /// the run warns that the effective spare is small).
        pub overprovisioning: f64, float(0.0, 4.0).open_min();
        /// SRAM for cached map pages (demand-loaded, LRU; DFTL-like): at least one map page
        /// (`nand.page_bytes`).
        pub l2p_cache_bytes: u64, int(4096, 1 << 36).unit("bytes");
        /// Bytes of one page-level map entry in flash and in the cache; divides
        /// `nand.page_bytes` (a map page holds page_bytes / entry entries).
        pub map_entry_bytes: u32 = 4, int(1, 1 << 20).unit("bytes");
        /// Garbage collection and data placement.
        pub gc: GcConfig, free();
        /// Zoned namespaces: `page` (one entry per 4 KiB page), `hybrid` (zone / 4 MiB chunk /
        /// page entries, aggregated as physical contiguity allows; ConZone §3.3) or `zone`
        /// (ZMT: one 8-byte entry per zone wholly in SRAM, updates through the ZML; ZUFS
        /// §4.1). `two_level`: conventional namespaces use the CUFS two-level map (L1 entries
        /// pointing to L2 map tables, both cached in the L2P SRAM; ZUFS §2.2); no zoned
        /// namespace allowed.
        pub mapping: MappingKind = MappingKind::Page, free();
        /// `zone` mapping: entries of the zone mapping log; a full log is checkpointed to
        /// flash (ZUFS §4.1; chosen).
        pub zml_entries: u32 = 256, int(1, 1 << 20).unit("entries");
        /// `two_level` mapping: an L1 entry maps a logically and physically contiguous region
        /// directly (compressed map, ZUFS §2.2) until a write breaks the contiguity.
        pub compressed_l1: bool = false, free();
        /// `two_level` mapping: logical bytes one L1 entry covers, with or without
        /// `compressed_l1`: one L2 map table (`/ 4096 x map_entry_bytes` bytes of SRAM, also
        /// the size of an L1 segment) or one compressed region (ZUFS §2.2). Larger regions
        /// mean fewer, larger map units, so it changes the L2P cache's behaviour; an L1 segment
        /// and an L2 table must fit `ftl.l2p_cache_bytes` together. Inert with other mappings.
        pub compressed_region_bytes: u64 = 4 << 20,
            int(1 << 20, 1 << 34).power_of_two().unit("bytes");
        /// Hybrid mapping: how a miss finds the level of an entry. `multiple` probes zone,
        /// chunk, page entries on flash in turn; `bitmap` keeps 2 bits per page in SRAM and
        /// reads once (ConZone §3.3, §6.6). Not with `ftl.mapping = zone`.
        pub l2p_search: L2pSearch = L2pSearch::Multiple, free();
        /// Pin aggregated (zone and chunk) entries in the L2P cache when they are created,
        /// evicting the entries they cover (ConZone §6.6).
        pub l2p_pin_aggregated: bool = false, free();
        /// Controller-CPU processing cost of the placement policies.
        pub cost: CostConfig = CostConfig::default(), free();
        // Read reclaim, retention refresh and wear levelling (firmware/wear, docs/wear.md):
        // keep these last.
        /// Relocate a superblock whose most-read block passed `read_reclaim_reads` reads since
        /// its erase (read disturb), or whose data is older than `retention_refresh_days`
        /// (retention); on a zoned namespace the zone moves whole (not with `zone.sub_block`).
        #[serde(skip_serializing_if = "super::declare::is_false")]
        pub read_reclaim: bool = false, free();
        /// Reads of one block since its erase that trigger read reclaim. Default: 100,000,
        /// the read-disturb count Cai et al. (DSN 2015) characterise MLC blocks up to.
        #[serde(skip_serializing_if = "is_default_reads")]
        pub read_reclaim_reads: u64 = DEFAULT_RECLAIM_READS, int(1, u32::MAX as u64).unit("reads");
        /// Age of programmed data that triggers a retention refresh. Default: one year, JEDEC
        /// JESD218's retention requirement for client SSDs.
        #[serde(skip_serializing_if = "is_default_days")]
        pub retention_refresh_days: f64 = DEFAULT_REFRESH_DAYS, float(0.001, 36500.0).unit("days");
        /// `dynamic`: a new superblock is the free one erased least; `static`: also move the
        /// data off the least-erased full superblock when the erase-count spread passes
        /// `wear_leveling_spread` (on a zoned namespace: move its zone whole, docs/wear.md).
        #[serde(skip_serializing_if = "WearLeveling::is_off")]
        pub wear_leveling: WearLeveling = WearLeveling::Off, free();
        /// Erase-count spread (max - min over the superblocks in service) that starts a static
        /// wear-levelling move.
        #[serde(skip_serializing_if = "is_default_spread")]
        pub wear_leveling_spread: u32 = DEFAULT_WL_SPREAD, int(1, 1 << 24).unit("P/E cycles");
    }
}

choice! {
    /// Wear levelling (`ftl.wear_leveling`).
    #[derive(Default)]
    /// (`off` is listed last: a key left at its default stays out of the serialized config.)
    pub enum WearLeveling {
        /// Allocation takes the least-erased free superblock.
        Dynamic = "dynamic",
        /// Dynamic, and cold data is moved off the least-erased superblocks.
        Static = "static",
        /// Free superblocks are taken in the order they were erased (FIFO).
        #[default]
        Off = "off",
    }
}

impl WearLeveling {
    fn is_off(&self) -> bool {
        *self == WearLeveling::Off
    }
}

/// Default `ftl.read_reclaim_reads`.
pub const DEFAULT_RECLAIM_READS: u64 = 100_000;
/// Default `ftl.retention_refresh_days`.
pub const DEFAULT_REFRESH_DAYS: f64 = 365.0;
/// Default `ftl.wear_leveling_spread`.
pub const DEFAULT_WL_SPREAD: u32 = 100;

fn is_default_reads(v: &u64) -> bool {
    *v == DEFAULT_RECLAIM_READS
}

fn is_default_days(v: &f64) -> bool {
    *v == DEFAULT_REFRESH_DAYS
}

fn is_default_spread(v: &u32) -> bool {
    *v == DEFAULT_WL_SPREAD
}
