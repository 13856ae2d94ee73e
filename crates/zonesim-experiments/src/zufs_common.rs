//! Helpers shared by the Zoned UFS reproductions (ZUFS §5.2–5.6, `zufs-*`): the CUFS and
//! ZUFS devices at each scale (the presets, and the paper's 512 GB phone, §5.1), the
//! random-read job of §5.2 ("four threads with a request size of 4 KB ... libaio engine with a
//! queue depth of 64"), and reading read throughput and map misses out of a report.

use super::conzone_common::run;
use super::ExpOptions;
use zonesim::config::fs::FsConfig;
use zonesim::config::{DeviceConfig, HostCpuConfig};
use zonesim::error::Result;
use zonesim::sim::Precondition;
use zonesim::stats::Report;

/// The zoned LU of `zufs-2026` (namespace 0 is the conventional LU for F2FS metadata).
pub const ZUFS_NS: usize = 1;
/// 1 GiB.
pub const GIB: u64 = 1 << 30;
/// `zufs-2026`'s zone capacity: one 1,056 MiB superblock (§4.1).
pub const ZONE_BYTES: u64 = 1056 << 20;

/// The host of the paper's phone (§5.1: a Google Pixel 10 Pro, Android kernel 6.6): its
/// Tensor G5 has 8 cores (one Cortex-X4, five Cortex-A725, two Cortex-A520: the two little);
/// the step costs are `[host.cpu]`'s defaults (docs/host-cpu.md).
pub fn phone_host() -> HostCpuConfig {
    HostCpuConfig {
        cores: 8,
        little_cores: 2,
        ..HostCpuConfig::default()
    }
}

/// fio threads and per-thread queue depth of the paper's random-read runs (§5.2).
const THREADS: u32 = 4;
const QD: u32 = 64;

/// Blocks per plane of the paper's device: "512 GB ZUFS" (§5.1) on the four TLC dies of
/// `zufs-2026` (4 planes, 4,224-page blocks of 16 KiB: 1,056 MiB superblocks, §4.1) is four
/// 1 Tbit dies (our assumption: the paper gives the user capacity, not the raw one), 512 GiB
/// raw = 496 superblocks.
pub const PAPER_BLOCKS_PER_PLANE: u32 = 496;
/// The paper's zoned LU: 512 GB in zones of 1,056 MiB (§4.1, §5.1) = 462 zones (476 GiB).
pub const PAPER_ZONES: u32 = 462;
/// The paper's CUFS: the same flash as one conventional LU of 512 GB (§5.1): 512 GiB raw over
/// 476.8 GiB logical is 7 % spare (`ftl.overprovisioning`).
pub const PAPER_CUFS_OP: f64 = 0.07;
/// `cufs-2026` at the scale `o` asks for: the paper's 512 GB device (§5.1) at `--scale paper`,
/// the preset (14.7 GiB) otherwise; `sets` override it.
pub fn cufs(o: &ExpOptions, sets: &[String]) -> Result<DeviceConfig> {
    let mut cfg = zonesim::load_device("cufs-2026", sets)?;
    if o.paper() {
        cfg.nand.blocks_per_plane = PAPER_BLOCKS_PER_PLANE;
        cfg.ftl.overprovisioning = PAPER_CUFS_OP;
        check(&cfg)?;
    }
    Ok(cfg)
}

/// `zufs-2026` at the scale `o` asks for: at `--scale paper` the paper's 512 GB device, 462
/// zones of 1,056 MiB on 496 superblocks, the other 34 blocks per plane pSLC (12 GiB: the
/// conventional LU, sized for the F2FS metadata of 462 sections, 6.5 GiB, and the SLC buffer of
/// premature flushes; our choice, the paper gives no SLC size); the preset (12 zones)
/// otherwise.
pub fn zufs(o: &ExpOptions, sets: &[String]) -> Result<DeviceConfig> {
    let mut cfg = zonesim::load_device("zufs-2026", sets)?;
    if o.paper() {
        cfg.nand.blocks_per_plane = PAPER_BLOCKS_PER_PLANE;
        cfg.nand.slc_blocks_per_plane = PAPER_BLOCKS_PER_PLANE - PAPER_ZONES;
        cfg.namespaces[0].capacity_bytes = 6656 << 20;
        cfg.namespaces[ZUFS_NS].zones = PAPER_ZONES;
        check(&cfg)?;
    }
    Ok(cfg)
}

fn check(cfg: &DeviceConfig) -> Result<()> {
    cfg.validate()?;
    zonesim::device::validate(cfg)
}

/// The ZUFS device of the file-system experiments and its F2FS setup: at `--scale paper` the
/// paper's device (462 sections of 1,056 MiB) with its `reserved_segments` (6,336); otherwise
/// [`fs_zufs_device`] (96 sections of 132 MiB) with the same 12 sections reserved.
pub fn fs_zufs(o: &ExpOptions) -> Result<(DeviceConfig, FsConfig)> {
    let cfg = if o.paper() {
        zufs(o, &[])?
    } else {
        fs_zufs_device()?
    };
    let fs = FsConfig {
        reserved_segments: Some(paper_reserved_segments(&cfg)),
        ..FsConfig::default()
    };
    Ok((cfg, fs))
}

/// The two sides of one random-read point: CUFS and ZUFS read throughput and map misses.
pub struct ReadPoint {
    pub cufs: Report,
    pub zufs: Report,
}

impl ReadPoint {
    pub fn cufs_kiops(&self) -> f64 {
        self.cufs.host.read.iops / 1000.0
    }
    pub fn zufs_kiops(&self) -> f64 {
        self.zufs.host.read.iops / 1000.0
    }
    pub fn cufs_mib_s(&self) -> f64 {
        self.cufs.host.read.bandwidth_mib_s
    }
    pub fn zufs_mib_s(&self) -> f64 {
        self.zufs.host.read.bandwidth_mib_s
    }
    /// ZUFS over CUFS, percent.
    pub fn zufs_gain_pct(&self) -> f64 {
        super::pct_change(self.zufs_mib_s(), self.cufs_mib_s())
    }
    /// Share of CUFS map lookups (L1 + L2) that missed, percent.
    pub fn cufs_miss_pct(&self) -> f64 {
        map_miss_pct(&self.cufs)
    }
    /// Every map miss of the ZUFS run, of any table (page cache, zoned cache, L1/L2).
    pub fn zufs_misses(&self) -> u64 {
        all_map_misses(&self.zufs)
    }
}

/// Share of lookups that missed in the two-level map (or the page map), percent.
pub fn map_miss_pct(r: &Report) -> f64 {
    let l = &r.device.l2p;
    let (miss, all) = match &l.two_level {
        Some(t) => (
            t.l1_misses + t.l2_misses,
            t.l1_hits + t.l1_misses + t.l2_hits + t.l2_misses,
        ),
        None => (l.misses, l.hits + l.misses),
    };
    if all == 0 {
        0.0
    } else {
        miss as f64 * 100.0 / all as f64
    }
}

/// Map misses of every table the device has.
pub fn all_map_misses(r: &Report) -> u64 {
    let l = &r.device.l2p;
    let two = l
        .two_level
        .as_ref()
        .map_or(0, |t| t.l1_misses + t.l2_misses);
    l.misses + l.zoned.misses + two
}

/// fio text of the random-read job: `range_bytes` of the namespace, `bs`, `ios` per thread.
fn randread_job(zoned: bool, size: &str, bs: u64, ios: u64) -> String {
    let zbd = if zoned { "zonemode=zbd\n" } else { "" };
    format!(
        "[r]\n{zbd}rw=randread\nbs={bs}\niodepth={QD}\nnumjobs={THREADS}\nsize={size}\nnorandommap=1\nnumber_ios={ios}\n"
    )
}

/// Random reads of `bs` bytes over `range` bytes of freshly (sequentially) written CUFS and
/// ZUFS (`cufs`, `zufs`); ZUFS reads whole zones (fio's zonemode=zbd), so its range is rounded
/// up to zones.
pub fn randread_point(
    cufs: &DeviceConfig,
    zufs: &DeviceConfig,
    range: u64,
    bs: u64,
    ios: u64,
    seed: u64,
) -> Result<ReadPoint> {
    let c = randread_cufs(cufs, range, bs, ios, seed)?;
    let zones = range.div_ceil(ZONE_BYTES);
    let z = run(
        zufs,
        &randread_job(true, &format!("{zones}z"), bs, ios),
        Precondition::Seq,
        ZUFS_NS,
        seed,
    )?;
    Ok(ReadPoint { cufs: c, zufs: z })
}

/// The CUFS side of [`randread_point`] alone (the sensitivity runs vary only CUFS's map).
pub fn randread_cufs(
    cufs: &DeviceConfig,
    range: u64,
    bs: u64,
    ios: u64,
    seed: u64,
) -> Result<Report> {
    run(
        cufs,
        &randread_job(false, &format!("{}m", range >> 20), bs, ios),
        Precondition::Seq,
        0,
        seed,
    )
}

/// A range in words ("256 MiB", "8 GiB").
pub fn range_name(bytes: u64) -> String {
    if bytes >= GIB {
        format!("{} GiB", bytes / GIB)
    } else {
        format!("{} MiB", bytes >> 20)
    }
}

/// `zufs-2026` rescaled so that the file system sees the paper's proportions: zones (F2FS
/// sections) 8x smaller and 8x more of them (132 MiB zones, 96 of them, the same 12.4 GiB), the
/// SLC pool the same size. F2FS keeps six logs, each holding a whole section, and its GC
/// thresholds count sections: on 12 sections of 1,056 MiB the six open logs alone hold half of
/// the device and foreground GC starts within a few iterations; the paper's 512 GB device has
/// about 480 sections. The flash geometry per die and the timing are unchanged.
pub fn fs_zufs_device() -> Result<DeviceConfig> {
    let mut cfg = zonesim::load_device("zufs-2026", &[])?;
    cfg.split_zones(8);
    cfg.validate()?;
    zonesim::device::validate(&cfg)?;
    Ok(cfg)
}

/// The paper's F2FS reserve on ZUFS, 12 sections (6,336 segments of its 1,056 MiB sections),
/// in 2 MiB segments of `cfg`'s zones (`fs.reserved_segments`).
pub fn paper_reserved_segments(cfg: &DeviceConfig) -> u64 {
    12 * cfg.zone.capacity_bytes / (2 << 20)
}
