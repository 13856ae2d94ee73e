//! Helpers shared by the Zoned UFS reproductions (seed 001 §5.3–5.4, `zufs-*`): the CUFS and
//! ZUFS presets, the random-read job of §5.2 ("four threads with a request size of 4 KB ...
//! libaio engine with a queue depth of 64"), and reading read throughput and map misses out of a
//! report.

use super::conzone_common::run;
use zonesim::config::DeviceConfig;
use zonesim::error::Result;
use zonesim::sim::Precondition;
use zonesim::stats::Report;

/// The zoned LU of `zufs-2026` (namespace 0 is the conventional LU for F2FS metadata).
pub const ZUFS_NS: usize = 1;
/// 1 GiB.
pub const GIB: u64 = 1 << 30;
/// `zufs-2026`'s zone capacity: one 1,056 MiB superblock (§4.1).
pub const ZONE_BYTES: u64 = 1056 << 20;

/// fio threads and per-thread queue depth of the paper's random-read runs (§5.2).
const THREADS: u32 = 4;
const QD: u32 = 64;

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
/// ZUFS; ZUFS reads whole zones (fio's zonemode=zbd), so its range is rounded up to zones.
pub fn randread_point(range: u64, bs: u64, ios: u64, seed: u64) -> Result<ReadPoint> {
    let cufs = zonesim::load_device("cufs-2026", &[])?;
    let zufs = zonesim::load_device("zufs-2026", &[])?;
    let pre = Precondition::Seq;
    let c = run(
        &cufs,
        &randread_job(false, &format!("{}m", range >> 20), bs, ios),
        pre,
        0,
        seed,
    )?;
    let zones = range.div_ceil(ZONE_BYTES);
    let z = run(
        &zufs,
        &randread_job(true, &format!("{zones}z"), bs, ios),
        pre,
        ZUFS_NS,
        seed,
    )?;
    Ok(ReadPoint { cufs: c, zufs: z })
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
