//! The `device` section of the report (schema: docs/report.md, docs/zoned.md, docs/placement.md)
//! as typed structs. `Device::report` (device/report.rs) fills them from the firmware's typed
//! counters; only serialization turns them into JSON, so readers (CLI, experiments, tests)
//! read fields and a renamed key is a compile error. The entries of `device.namespaces` are
//! built by each namespace kind itself (`crate::firmware::report`) and re-exported here.
//!
//! Field names are the JSON keys. The report writes them sorted (see `Report::device`), so
//! the declaration order here does not show in the output.

use crate::firmware::mapping::TwoLevelCounters;
use crate::firmware::wear::WearCounters;
use crate::interface::zone::{ZoneErrorLog, ZoneErrorRecord};
use serde::Serialize;
use std::collections::BTreeMap;

pub use crate::firmware::conventional::{ConventionalNsReport, ConventionalSlcReport};
pub use crate::firmware::report::NamespaceReport;
pub use crate::firmware::zoned::ZonedNsReport;

/// `device`: the whole device after the measured run.
#[derive(Debug, Clone, Serialize)]
pub struct DeviceReport {
    pub name: String,
    /// Logical capacity of namespace 0.
    pub capacity_bytes: u64,
    /// 4 KiB slots programmed on flash / 4 KiB pages written by the host (0 if none).
    pub waf: f64,
    pub host_pages_written: u64,
    pub flash: FlashReport,
    pub gc: GcReport,
    pub l2p: L2pReport,
    pub buffer: BufferReport,
    pub slc: SlcReport,
    pub zones: ZonesReport,
    /// Host page reads of never-written pages (they cost no flash read).
    pub unwritten_reads: u64,
    /// `unwritten_reads` over the host's page reads (0 without reads): above 0 the read
    /// latencies are partly those of an empty device (`zonesim run` warns).
    pub unwritten_read_fraction: f64,
    pub out_of_range: u64,
    pub wear: WearReport,
    pub namespaces: Vec<NamespaceReport>,
    /// Device-side copy commands (`Op::Copy`) of every namespace and the pages they copied
    /// (absent when none).
    #[serde(skip_serializing_if = "crate::firmware::is_zero")]
    pub copy_commands: u64,
    #[serde(skip_serializing_if = "crate::firmware::is_zero")]
    pub copy_pages: u64,
    /// Bytes over the host link in the measured run; in the JSON only when the run issued
    /// device-side copies (whose point is the link traffic they save).
    #[serde(skip_serializing_if = "LinkBytes::hidden")]
    pub link_bytes: LinkBytes,
}

/// `device.link_bytes`: data bytes that crossed the host link each way.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct LinkBytes {
    pub host_to_device: u64,
    pub device_to_host: u64,
    /// Serialized (the run issued copies).
    #[serde(skip)]
    pub shown: bool,
}

impl LinkBytes {
    fn hidden(&self) -> bool {
        !self.shown
    }

    pub fn total(&self) -> u64 {
        self.host_to_device + self.device_to_host
    }
}

/// `device.flash`.
#[derive(Debug, Clone, Serialize)]
pub struct FlashReport {
    pub page_reads: u64,
    pub page_programs: u64,
    pub block_erases: u64,
    pub programmed_slots: u64,
    pub die_busy_ns: u64,
    pub suspensions: u64,
    /// `nand.errors` on: bit errors, retries and uncorrectable reads (absent when off).
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub errors: Option<FlashErrorsReport>,
}

/// `device.flash` with `nand.errors` (docs/nand.md).
#[derive(Debug, Clone, Serialize)]
pub struct FlashErrorsReport {
    /// Flash reads the error model checked (host and GC data reads).
    pub checked_reads: u64,
    /// Read-retry steps, total (each a re-sense with shifted references plus the transfer).
    pub read_retries: u64,
    /// Mean retry steps per checked read.
    pub retries_per_read: f64,
    /// Checked reads by retry steps: entry s counts reads corrected after s steps; the last
    /// entry counts reads that went on to soft decoding.
    pub retry_histogram: Vec<u64>,
    /// Reads that needed an LDPC soft decode.
    pub soft_decodes: u64,
    /// Reads no decode corrected (host and GC).
    pub uncorrectable_reads: u64,
    /// Host commands completed with a media error.
    pub media_errors: u64,
}

/// `device.gc`: garbage collection of the conventional namespaces (docs/placement.md).
#[derive(Debug, Clone, Serialize)]
pub struct GcReport {
    pub pages_moved: u64,
    pub victims: u64,
    pub foreground_victims: u64,
    pub background_victims: u64,
    /// Background die busy time / die busy time.
    pub time_share: f64,
    pub suspensions: u64,
    pub pages_moved_per_victim: MovedPerVictim,
    pub per_stream: Vec<StreamGcReport>,
    pub placement: PlacementSection,
    pub cpu_busy_ns: u64,
    pub cpu_wait_ns: u64,
}

/// `device.gc.pages_moved_per_victim`.
#[derive(Debug, Clone, Serialize)]
pub struct MovedPerVictim {
    pub min: u64,
    pub mean: f64,
    pub p50: u64,
    pub max: u64,
    pub victims: u64,
}

/// `device.gc.per_stream[i]`.
#[derive(Debug, Clone, Serialize)]
pub struct StreamGcReport {
    pub stream: usize,
    pub victims: u64,
    pub valid_ratio_at_victim_mean: f64,
}

/// `device.gc.placement`: one object for a device with one conventional namespace, else an
/// array with one entry per conventional namespace.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum PlacementSection {
    One(PlacementReport),
    Many(Vec<PlacementReport>),
}

impl PlacementSection {
    pub fn new(mut all: Vec<PlacementReport>) -> PlacementSection {
        if all.len() == 1 {
            PlacementSection::One(all.pop().expect("one entry"))
        } else {
            PlacementSection::Many(all)
        }
    }

    /// One entry per conventional namespace.
    pub fn all(&self) -> &[PlacementReport] {
        match self {
            PlacementSection::One(p) => std::slice::from_ref(p),
            PlacementSection::Many(v) => v,
        }
    }
}

/// The placement classifier of one conventional namespace.
#[derive(Debug, Clone, Serialize)]
pub struct PlacementReport {
    pub policy: &'static str,
    pub streams: usize,
    /// Busy time of each controller core (`ftl.cost.cores` > 1 only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cores_busy_ns: Option<Vec<u64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bloom: Option<BloomReport>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gcar: Option<GcarReport>,
}

/// The GC share of the data buffer of the `gcar` placement.
#[derive(Debug, Clone, Serialize)]
pub struct GcarReport {
    pub cache_pages: u64,
    pub kept_pages: u64,
    pub read_hits: u64,
}

/// Resources of the `bloom` classifier.
#[derive(Debug, Clone, Serialize)]
pub struct BloomReport {
    pub filters: usize,
    pub hash_functions: u64,
    pub window_pages: u64,
    pub sram_bytes: u64,
    pub hash_ops: u64,
    pub decays: u64,
    pub hot_writes: u64,
    pub cold_writes: u64,
    /// The filters' saturation (`ftl.gc.bloom.record_gc` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub saturation: Option<BloomSaturationReport>,
}

/// `device.gc.placement.bloom.saturation`: GC relocations recorded in the filters and the
/// filters' estimated fill and false-positive rate at the end of the run.
#[derive(Debug, Clone, Serialize)]
pub struct BloomSaturationReport {
    pub gc_inserts: u64,
    pub fill_mean: f64,
    pub fp_rate_mean: f64,
}

/// `device.l2p`: the shared L2P SRAM.
#[derive(Debug, Clone, Serialize)]
pub struct L2pReport {
    pub hits: u64,
    pub misses: u64,
    pub writebacks: u64,
    pub map_reads: u64,
    pub map_programs: u64,
    pub sram_bytes: u64,
    pub sram_used_bytes: u64,
    pub cached_map_pages: u32,
    pub zoned: ZonedL2pReport,
    /// L1 / L2 hits and misses of the CUFS two-level map (`ftl.mapping = two_level`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub two_level: Option<TwoLevelCounters>,
}

/// `device.l2p.zoned`: the zoned namespaces' entry cache.
#[derive(Debug, Clone, Serialize)]
pub struct ZonedL2pReport {
    pub hits: u64,
    pub misses: u64,
    pub miss_rate: f64,
    pub map_reads: u64,
    pub entries: u32,
    pub pinned: u32,
    pub evictions: u64,
    pub lookups_zone: u64,
    pub lookups_chunk: u64,
    pub lookups_page: u64,
    pub bitmap_sram_bytes: u64,
}

/// `device.buffer`: write buffers of every namespace.
#[derive(Debug, Clone, Serialize)]
pub struct BufferReport {
    pub full_flushes: u64,
    pub premature_flushes: u64,
    pub host_flushes: u64,
    pub host_forced_flushes: u64,
    pub flushes_to_slc: u64,
    pub slc_buffered_pages: u64,
    pub migrated_pages: u64,
    pub write_hits: u64,
    pub read_hits: u64,
    pub stall_ns: u64,
    pub padding_slots: u64,
}

/// `device.slc`: the SLC region of the zoned namespaces and the conventional namespaces'
/// SLC write caches.
#[derive(Debug, Clone, Serialize)]
pub struct SlcReport {
    pub pages_written: u64,
    pub pages_migrated: u64,
    pub gc_pages_moved: u64,
    pub gc_victims: u64,
    /// SLC victims erased without copying anything (ConZone+ Fig. 12(c)).
    pub direct_erases: u64,
    /// `page` or `zone` (`slc.granularity`).
    pub granularity: &'static str,
}

/// `device.zones`: zone errors and zone management of the zoned namespaces.
#[derive(Debug, Clone, Serialize)]
pub struct ZonesReport {
    /// Counts by kind (the log serializes as `{kind: count}`).
    pub errors: ZoneErrorLog,
    pub first_errors: Vec<ZoneErrorRecord>,
    pub resets: u64,
    pub finishes: u64,
}

/// `device.wear`: erase counts over all blocks, and per conventional namespace region.
#[derive(Debug, Clone, Serialize)]
pub struct WearReport {
    pub erase_min: u32,
    pub erase_max: u32,
    pub erase_mean: f64,
    pub erase_stddev: f64,
    /// `ns{i}`: the blocks of namespace i (the zones' regular rows for a zoned one);
    /// `ns{i}_slc`: its SLC rows (a zoned namespace's SLC area, a conventional one's SLC write
    /// cache), where it has any.
    pub regions: BTreeMap<String, RegionWear>,
    /// Bad blocks, reclaim, wear levelling and the projected lifetime (firmware/wear), when
    /// one of them is on.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub life: Option<WearLife>,
}

/// The fields of `device.wear` that firmware/wear adds (docs/wear.md).
#[derive(Debug, Clone, Serialize)]
pub struct WearLife {
    /// `nand.endurance_pe` (0: no wear-out).
    pub endurance_pe: u64,
    /// Blocks in service and their erase counts (each physical block once, spares swapped in
    /// included): percentiles.
    pub blocks_in_service: u64,
    pub erase_p50: u64,
    pub erase_p90: u64,
    pub erase_p99: u64,
    /// Grown bad blocks (failed erases and programs), factory-bad blocks, blocks a pre-worn
    /// device (`nand.initial_pe`) wore out before format, bad blocks replaced by a spare of
    /// their plane, superblocks out of service.
    pub retired_blocks: u64,
    pub factory_bad_blocks: u64,
    pub preworn_bad_blocks: u64,
    pub remapped_blocks: u64,
    pub retired_superblocks: u64,
    pub erase_failures: u64,
    pub program_failures: u64,
    /// Superblocks in service beyond what the namespaces need (below 0: read-only).
    pub spare_superblocks: i64,
    pub read_only_namespaces: u64,
    /// Host pages whose writes were refused (read-only).
    pub refused_writes: u64,
    /// Pages moved by read reclaim and retention refresh, by static wear levelling, and out
    /// of superblocks whose program failed.
    pub reclaim_moves: u64,
    pub wear_leveling_moves: u64,
    pub retire_moves: u64,
    /// Whole zones remapped the ZUFS way (zoned namespaces; 0 on conventional ones).
    pub zone_remaps: u64,
    /// Superblocks queued by read disturb, by retention, by static wear levelling.
    pub read_reclaims: u64,
    pub retention_refreshes: u64,
    pub wear_leveling_victims: u64,
    /// Days the device was aged (`age` steps).
    pub aged_days: f64,
    /// Projected host bytes written (TB, 10^12) when the mean block reaches the rating:
    /// host bytes x blocks in service x endurance / block erases of the run; null without a
    /// rating or erases.
    pub lifetime_tbw: Option<f64>,
    /// `lifetime_tbw` at the run's write rate (host bytes over the span of its writes), days.
    pub lifetime_days: Option<f64>,
}

impl WearLife {
    /// From the namespaces' wear counters and the host pages written.
    pub fn of(w: &WearCounters, host_pages: u64) -> WearLife {
        let host_bytes = host_pages as f64 * 4096.0;
        let lifetime = (w.endurance_pe > 0 && w.block_erases > 0).then(|| {
            host_bytes * w.blocks_in_service as f64 * w.endurance_pe as f64 / w.block_erases as f64
        });
        let rate = (w.write_span_ns > 0).then(|| host_bytes / (w.write_span_ns as f64 / 1e9));
        WearLife {
            endurance_pe: w.endurance_pe,
            blocks_in_service: w.blocks_in_service,
            erase_p50: percentile(&w.erase_hist, 0.50),
            erase_p90: percentile(&w.erase_hist, 0.90),
            erase_p99: percentile(&w.erase_hist, 0.99),
            retired_blocks: w.retired_blocks,
            factory_bad_blocks: w.factory_bad_blocks,
            preworn_bad_blocks: w.preworn_bad_blocks,
            remapped_blocks: w.remapped_blocks,
            retired_superblocks: w.retired_superblocks,
            erase_failures: w.erase_failures,
            program_failures: w.program_failures,
            spare_superblocks: w.spare_superblocks,
            read_only_namespaces: w.read_only_namespaces,
            refused_writes: w.refused_writes,
            reclaim_moves: w.reclaim_moves,
            wear_leveling_moves: w.wear_leveling_moves,
            retire_moves: w.retire_moves,
            zone_remaps: w.zone_remaps,
            read_reclaims: w.read_reclaims,
            retention_refreshes: w.retention_refreshes,
            wear_leveling_victims: w.wear_leveling_victims,
            aged_days: w.aged_ns as f64 / 86_400e9,
            lifetime_tbw: lifetime.map(|b| b / 1e12),
            lifetime_days: lifetime
                .zip(rate.filter(|&r| r > 0.0))
                .map(|(b, r)| b / r / 86_400.0),
        }
    }
}

/// The `q` quantile of a histogram (`hist[v]`: how many have value v), nearest rank.
fn percentile(hist: &[u64], q: f64) -> u64 {
    let n: u64 = hist.iter().sum();
    if n == 0 {
        return 0;
    }
    let rank = ((q * n as f64).ceil() as u64).max(1);
    let mut seen = 0;
    for (v, &c) in hist.iter().enumerate() {
        seen += c;
        if seen >= rank {
            return v as u64;
        }
    }
    hist.len() as u64 - 1
}

/// `device.wear.regions.*`: erase counts over the blocks of one region of the array.
#[derive(Debug, Clone, Serialize)]
pub struct RegionWear {
    pub erase_min: u32,
    pub erase_max: u32,
    pub erase_mean: f64,
    pub erase_stddev: f64,
    pub blocks: usize,
    pub cell: &'static str,
}

/// `{min, max, mean, stddev}` of a set of erase counts (0s for an empty set).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EraseSummary {
    pub min: u32,
    pub max: u32,
    pub mean: f64,
    pub stddev: f64,
    pub blocks: usize,
}

impl EraseSummary {
    pub fn of(counts: impl Iterator<Item = u32> + Clone) -> EraseSummary {
        let blocks = counts.clone().count();
        let n = blocks.max(1) as f64;
        let mean = counts.clone().map(|c| c as f64).sum::<f64>() / n;
        let var = counts
            .clone()
            .map(|c| (c as f64 - mean).powi(2))
            .sum::<f64>()
            / n;
        EraseSummary {
            min: counts.clone().min().unwrap_or(0),
            max: counts.max().unwrap_or(0),
            mean,
            stddev: var.sqrt(),
            blocks,
        }
    }
}
