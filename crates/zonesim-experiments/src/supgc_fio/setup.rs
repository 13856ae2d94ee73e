//! supgc-fio's set-up: the scaled Cosmos+ device, its controller costs, the fio jobs and one
//! run of a placement at a write ratio (SUP-GC §5.1 and §5.3.2).

use super::point::{point, Point};
use crate::{ExpOptions, Scale};
use zonesim::config::DeviceConfig;
use zonesim::error::{Error, Result};
use zonesim::host::fio::{default_job, Distribution, RwMode, SizeSpec};
use zonesim::sim::fs::mount;
use zonesim::sim::{Precondition, RunOptions, WorkloadSpec};

/// Write ratios of §5.3.2, percent.
pub(super) const RATIOS: [u32; 5] = [1, 25, 50, 75, 99];
/// Policies run: (label, `ftl.gc.placement`).
pub(super) const POLICIES: [(&str, &str); 4] = [
    ("single", "single"),
    ("bloom", "bloom"),
    ("sup", "sup"),
    ("gcar", "gcar"),
];
/// The schemes SUP-GC is compared with: (id part, name, index in [`POLICIES`]).
pub(super) const OTHERS: [(&str, &str, usize); 3] = [
    ("cosmos", "Cosmos+", 0),
    ("bf", "BF-Optimized", 1),
    ("gcar", "GCaR-Optimized", 3),
];
/// The metrics compared: (id part, row metric).
pub(super) const METRICS: [(&str, &str); 4] = [
    ("iops", "IOPS change %"),
    ("erases", "erases change %"),
    ("moves", "GC moves change %"),
    ("p99", "p99 change %"),
];
/// Firmware time per command on the core that takes it, ns (assumed; the paper gives none):
/// with the two cores, the same controller throughput as 10 us on one.
pub(crate) const HOST_CMD_NS: u64 = 20_000;
/// GCaR-Optimized's traversal per page, ns: calibrated by supgc-throughput (Fig. 13's 0.65:
/// 20 us / (20 us + 4 x 2.692 us)).
pub(crate) const GCAR_NS: u64 = 2_692;
/// The Bloom classifier's time per hash evaluation, ns: calibrated by supgc-throughput (Fig.
/// 13's 0.95).
pub(crate) const BLOOM_HASH_NS: u64 = 23;
/// The Cosmos+ controller of both experiments (SUP-GC §5.1: two ARM Cortex-A9 cores): the
/// firmware cost on two cores, the calibrated scheme costs, and BF-Optimized's filters
/// recording GC relocations (placement/bloom.rs "Filter saturation").
pub(crate) fn cosmos_cpu() -> [String; 6] {
    [
        "ftl.cost.cores=2".into(),
        format!("ftl.cost.host_cmd_ns={HOST_CMD_NS}"),
        format!("ftl.cost.gcar_write_ns={GCAR_NS}"),
        format!("ftl.cost.gcar_gc_page_ns={GCAR_NS}"),
        format!("ftl.cost.bloom_hash_ns={BLOOM_HASH_NS}"),
        "ftl.gc.bloom.record_gc=true".into(),
    ]
}
/// The assumed skew of the sensitivity case (the paper names no distribution).
pub(super) const ZIPF_THETA: f64 = 1.2;
pub(super) const JOBS: u32 = 10;
/// Sampling interval of the runs' time series (GC onset, IOPS early vs late), ms.
/// At the quick size (64 blocks per plane); larger devices run longer, and the interval grows
/// with the square of the size (full 20 ms, paper 80 ms) so that the time series stays within
/// the report's bound on its values.
pub(super) const INTERVAL_MS: f64 = 5.0;

/// Blocks per plane and 4 KiB I/Os per job at each scale.
pub(crate) fn size(scale: Scale) -> (u32, u64) {
    match scale {
        Scale::Quick => (64, 60_000),
        Scale::Full => (128, 250_000),
        Scale::Paper => (256, 500_000),
    }
}

/// The host's cores (the paper does not describe its host): one per fio job, so the jobs never
/// wait for a core; each request pays the kernel steps at `[host.cpu]`'s defaults (assumed).
pub(super) const HOST_CORES: u32 = JOBS;

/// The scaled Cosmos+ device with ext4 on it (SUP-GC §5.3.2: fio on ext4 under Linux 4.15)
/// and the host CPU on; `extra` settings last (a sensitivity's).
pub(super) fn device(blocks: u32, placement: &str, extra: &[String]) -> Result<DeviceConfig> {
    let sets: Vec<String> = [
        "name=\"cosmos-scaled\"".to_string(),
        "nand.channels=2".into(),
        "nand.chips_per_channel=1".into(),
        "nand.dies_per_chip=1".into(),
        "nand.planes_per_die=2".into(),
        format!("nand.blocks_per_plane={blocks}"),
        "nand.pages_per_block=128".into(),
        "nand.page_bytes=16384".into(),
        "nand.cell=mlc".into(),
        "nand.channel_mb_s=800.0".into(),
        "host.link_mb_s=3200.0".into(),
        "ftl.overprovisioning=0.10".into(),
        // Cosmos+ keeps the whole page map in its 1 GB DRAM.
        "ftl.l2p_cache_bytes=4194304".into(),
        "buffer.bytes=4194304".into(),
        "ftl.gc.victim=greedy".into(),
        "ftl.gc.threshold_free_superblocks=2".into(),
        format!(
            "stats.interval_ms={}",
            INTERVAL_MS * (blocks as f64 / 64.0).powi(2)
        ),
        format!("ftl.gc.placement={placement}"),
        "fs.kind=ext4".into(),
        format!("host.cpu.cores={HOST_CORES}"),
    ]
    .into_iter()
    // A CPU-heavy firmware path per command on the two A9 cores (assumed).
    .chain(cosmos_cpu())
    .chain(extra.iter().cloned())
    .collect();
    zonesim::load_device("ufs-conventional", &sets)
}

/// The share of the file system's free space the checked runs' files take together, %: the
/// rest free, as the raw-device runs trimmed the filled device back to 90 %. On the quick device
/// it is the most the ext4 model lays out in whole per cent (measured: at 91 % a file's layout
/// meets ENOSPC, which [`run_with`] refuses); 80 % is the sensitivity with more free space.
pub(crate) const FILES_PCT: u64 = 90;

/// Ten 4 KiB randrw jobs with direct I/O (fio's libaio), each on its own file in one
/// directory as fio `numjobs=10` with `directory=` makes them; `free` bytes of the file
/// system shared by the ten files, `files_pct` % of it together. fio lays each file out (writes it
/// whole) before its job starts, as it does for a job that reads.
pub(super) fn workload(
    free: u64,
    write_pct: u32,
    ios_per_job: u64,
    dist: Distribution,
    files_pct: u64,
) -> WorkloadSpec {
    let file_bytes = free * files_pct / 100 / JOBS as u64 / 4096 * 4096;
    let jobs = (0..JOBS)
        .map(|i| {
            let mut j = default_job();
            j.name = format!("randrw-{i}");
            j.rw = RwMode::RandRw;
            j.bs = 4096;
            j.rwmixread = 100 - write_pct;
            j.distribution = dist;
            j.norandommap = true;
            j.size = Some(SizeSpec::Bytes(file_bytes));
            j.io_size = Some(SizeSpec::Bytes(ios_per_job * 4096));
            j.files.directory = Some("fio".into());
            j.files.direct = Some(true);
            j
        })
        .collect();
    WorkloadSpec::Jobs(jobs)
}

/// One run of `placement` at `ratio` % writes at the size of `o`'s scale, as checked.
pub(super) fn run_one(
    o: &ExpOptions,
    placement: &str,
    ratio: u32,
    dist: Distribution,
) -> Result<Point> {
    let checked = Setting {
        size: size(o.scale),
        extra: Vec::new(),
        files_pct: FILES_PCT,
    };
    run_with(o.seed, &checked, placement, ratio, dist)
}

/// How a run is set up: (blocks per plane, I/Os per job), settings added to the device, and
/// the share of the file system's free space the jobs' files take together, %.
pub(crate) struct Setting {
    pub(crate) size: (u32, u64),
    pub(crate) extra: Vec<String>,
    pub(crate) files_pct: u64,
}

/// One run of `placement` at `ratio` % writes under `s`.
pub(crate) fn run_with(
    seed: u64,
    s: &Setting,
    placement: &str,
    ratio: u32,
    dist: Distribution,
) -> Result<Point> {
    let (blocks, ios_per_job) = s.size;
    let cfg = device(blocks, placement, &s.extra)?;
    let dev = zonesim::device::Device::new(&cfg, seed)?;
    // What mke2fs leaves free on this device (the run makes the same file system).
    let free = mount(&cfg.fs.clone().unwrap_or_default(), &dev, 0)?
        .fs
        .free_bytes();
    let n = &cfg.nand;
    let raw = n.channels as f64
        * n.chips_per_channel as f64
        * n.dies_per_chip as f64
        * n.planes_per_die as f64
        * n.blocks_per_plane as f64
        * n.pages_per_block as f64
        * n.page_bytes as f64;
    let opts = RunOptions {
        seed,
        // mke2fs discards the whole device (its default): the file system starts on an
        // empty one, and fio lays the files out.
        precondition: Precondition::None,
        check_invariants: false,
        ..RunOptions::default()
    };
    let r = zonesim::RunSpec::new(
        cfg.clone(),
        workload(free, ratio, ios_per_job, dist, s.files_pct),
    )
    .options(opts)
    .run()?;
    // A file short of its size would leave the jobs reading holes: the set-up is wrong.
    if let Some(n) = r.fs.as_ref().map(|f| f.enospc()).filter(|&n| n > 0) {
        return Err(Error::Internal(format!(
            "supgc-fio: {n} ENOSPC laying out the jobs' files on ext4"
        )));
    }
    Ok(point(&r, raw / (1 << 20) as f64))
}

#[cfg(test)]
#[path = "setup_tests.rs"]
mod tests;
