//! supgc-fio's set-up: the scaled Cosmos+ device, its controller costs, the fio jobs and one
//! run of a placement at a write ratio (SUP-GC §5.1 and §5.3.2).

use super::point::{point, Point};
use crate::{par_map, ExpOptions, Scale};
use zonesim::config::DeviceConfig;
use zonesim::error::{Error, Result};
use zonesim::host::fio::{default_job, Distribution, RwMode, SizeSpec};
use zonesim::sim::fs::mount;
use zonesim::sim::{Layout, Precondition, RunOptions, WorkloadSpec};

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
/// fio's `numjobs` of §5.3.2.
pub(super) const JOBS: u32 = 10;
/// SUP-GC §5.3.2's data volume per run: "a 700 GB data volume test", reads and writes
/// together (its GC onsets are read off the same axis: 500 GB at 25 % writes is 125 GB of
/// writes), bytes.
pub(crate) const PAPER_VOLUME: u64 = 700_000_000_000;

/// The device and the run length of a scale: the Cosmos+ shape (one die per chip, two planes
/// per die, 128 pages of 16 KiB per block) with `channels` x `chips` dies of `blocks` blocks
/// per plane, `ios` 4 KiB I/Os per job, the time series sampled every `interval_ms`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Size {
    pub(crate) channels: u32,
    pub(crate) chips: u32,
    pub(crate) blocks: u32,
    pub(crate) ios: u64,
    /// Sampling interval of the time series (GC onset, IOPS early vs late), ms: long enough
    /// that a run's series stays within the report's bound on its values, short enough that
    /// the onset is read to a fraction of an x-axis step of the paper's figures.
    pub(crate) interval_ms: f64,
}

impl Size {
    /// Raw flash capacity, MiB.
    /// Data volume of one run, reads and writes (bytes): the ten jobs' 4 KiB I/Os.
    pub(crate) fn volume_bytes(&self) -> u64 {
        self.ios * 4096 * JOBS as u64
    }

    pub(crate) fn raw_mib(&self) -> f64 {
        (self.channels * self.chips * 2 * self.blocks) as f64 * 128.0 * 16.0 / 1024.0
    }
}

/// The device and the run length at each scale. Quick and full: 2 dies (2 channels x 1 chip)
/// of 64 / 128 blocks per plane (512 MiB / 1 GiB raw), 60k / 250k I/Os per job. Paper:
/// the paper's Cosmos+ (§5.1: 8 channels x 8 ways, 64 dies of 8,192 blocks, 1 TiB raw MLC, the
/// geometry of `supgc-throughput --scale paper`) and its 700 GB of data volume per run.
pub(crate) fn size(scale: Scale) -> Size {
    let small = |blocks: u32, ios: u64, interval_ms: f64| Size {
        channels: 2,
        chips: 1,
        blocks,
        ios,
        interval_ms,
    };
    match scale {
        Scale::Quick => small(64, 60_000, 5.0),
        Scale::Full => small(128, 250_000, 20.0),
        Scale::Paper => Size {
            channels: 8,
            chips: 8,
            blocks: 4096,
            ios: PAPER_VOLUME / 4096 / JOBS as u64,
            interval_ms: 1000.0,
        },
    }
}

/// The host's cores (the paper does not describe its host): one per fio job, so the jobs never
/// wait for a core; each request pays the kernel steps at `[host.cpu]`'s defaults (assumed).
pub(super) const HOST_CORES: u32 = JOBS;

/// The scaled Cosmos+ device with ext4 on it (SUP-GC §5.3.2: fio on ext4 under Linux 4.15)
/// and the host CPU on; `extra` settings last (a sensitivity's).
pub(super) fn device(size: &Size, placement: &str, extra: &[String]) -> Result<DeviceConfig> {
    let sets: Vec<String> = [
        "name=\"cosmos-scaled\"".to_string(),
        format!("nand.channels={}", size.channels),
        format!("nand.chips_per_channel={}", size.chips),
        "nand.dies_per_chip=1".into(),
        "nand.planes_per_die=2".into(),
        format!("nand.blocks_per_plane={}", size.blocks),
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
        format!("stats.interval_ms={}", size.interval_ms),
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

/// The runs of `placement` at each (write ratio, distribution) of `cases` at the size of
/// `o`'s scale, as checked.
pub(super) fn run_checked(
    o: &ExpOptions,
    placement: &str,
    cases: &[(u32, Distribution)],
) -> Result<Vec<Point>> {
    let checked = Setting {
        size: size(o.scale),
        extra: Vec::new(),
        files_pct: FILES_PCT,
    };
    run_set(o.seed, &checked, placement, cases)
}

/// How a run is set up: the device and run length, settings added to the device, and the
/// share of the file system's free space the jobs' files take together, %.
pub(crate) struct Setting {
    pub(crate) size: Size,
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
    let mut v = run_set(seed, s, placement, &[(ratio, dist)])?;
    v.pop()
        .ok_or_else(|| Error::Internal("supgc-fio: a run gave no point".into()))
}

/// The runs of `placement` at each (write ratio, distribution) of `cases` under `s`, in
/// parallel, all from one layout: ext4 made on the empty device (mke2fs discards it whole,
/// its default) and the ten files laid out by fio before any job starts (`create_serialize`);
/// the files do not depend on the write ratio or the distribution, so every case starts from
/// an exact copy of the same state ([`zonesim::sim::Layout`]).
pub(crate) fn run_set(
    seed: u64,
    s: &Setting,
    placement: &str,
    cases: &[(u32, Distribution)],
) -> Result<Vec<Point>> {
    let cfg = device(&s.size, placement, &s.extra)?;
    // What mke2fs leaves free on this device (the layout makes the same file system).
    let free = {
        let dev = zonesim::device::Device::new(&cfg, seed)?;
        mount(&cfg.fs.clone().unwrap_or_default(), &dev, 0)?
            .fs
            .free_bytes()
    };
    let opts = RunOptions {
        seed,
        precondition: Precondition::None,
        check_invariants: false,
        ..RunOptions::default()
    };
    let files =
        |ratio: u32, dist: Distribution| workload(free, ratio, s.size.ios, dist, s.files_pct);
    let layout = Layout::new(&cfg, &files(50, Distribution::Uniform), &opts)?;
    let points = par_map(cases, |&(ratio, dist)| -> Result<Point> {
        let r = layout.run(&files(ratio, dist), &opts)?;
        // A file short of its size would leave the jobs reading holes: the set-up is wrong.
        if let Some(n) = r.fs.as_ref().map(|f| f.enospc()).filter(|&n| n > 0) {
            return Err(Error::Internal(format!(
                "supgc-fio: {n} ENOSPC laying out the jobs' files on ext4"
            )));
        }
        Ok(point(&r, s.size.raw_mib()))
    });
    points.into_iter().collect()
}

#[cfg(test)]
#[path = "setup_tests.rs"]
mod tests;
