//! Helpers shared by the ConZone reproductions: the `conzone-paper` device (and its zoned /
//! block forms for the file-system reproductions), fio job text, reading numbers out of a
//! report, and the paper's tolerance rule ([`band`]).

use super::fs_common::as_block;
use super::{row_effect, Row};
use zonesim::config::{DeviceConfig, HostCpuConfig, SlcGc, SlcPolicy};
use zonesim::device::Device;
use zonesim::error::Result;
use zonesim::host::fio::parse_job_file;
use zonesim::sim::{Precondition, RunOptions, WorkloadSpec};
use zonesim::stats::Report;

/// The zoned data namespace of `conzone-paper`.
pub const ZONED_NS: usize = 1;

pub fn device(sets: &[String]) -> Result<DeviceConfig> {
    zonesim::load_device("conzone-paper", sets)
}

/// The device of the F2FS reproductions (§6.3 SQLite, §6.4, §6.5): `conzone-paper`, its
/// 85-zone data namespace, or with `block` that namespace conventional (page-mapped) with the
/// zoned data capacity (the FTL's over-provisioning on top). `quick` shrinks every zone
/// fourfold (96-page blocks: 12 MiB zone capacity, 16 MiB zone size) so that the file system
/// keeps the same number of sections and the same mkfs reserve in sections (13 of 85) — the
/// reserve is a section count, so shrinking the zone count instead would leave no user space.
/// Returns the device and its data-area bytes.
pub fn fs_device(block: bool, quick: bool) -> Result<(DeviceConfig, u64)> {
    let mut cfg = device(&[])?;
    if quick {
        cfg.nand.pages_per_block /= 4;
        cfg.zone.size_bytes /= 4;
        cfg.zone.capacity_bytes /= 4;
        cfg.namespaces[0].capacity_bytes /= 4;
    }
    let data = cfg.namespaces[ZONED_NS].zones as u64 * cfg.zone.capacity_bytes;
    if block {
        cfg = as_block(&cfg, ZONED_NS)?;
        cfg.namespaces[ZONED_NS].capacity_bytes = data;
        fit_flash(&mut cfg)?;
    }
    cfg.validate()?;
    zonesim::device::validate(&cfg)?;
    Ok((cfg, data))
}

/// Grow `blocks_per_plane` to the fewest that hold the namespaces (the block configuration's
/// data area is the zoned one's capacity; its FTL over-provisioning comes on top).
fn fit_flash(cfg: &mut DeviceConfig) -> Result<()> {
    let base = cfg.nand.blocks_per_plane;
    for extra in 0..=base {
        cfg.nand.blocks_per_plane = base + extra;
        if zonesim::device::validate(cfg).is_ok() {
            return Ok(());
        }
    }
    zonesim::device::validate(cfg)
}

/// SQLite's CPU time per transaction on the ConZone+ host, ns: the SQLite FAQ ("INSERT is
/// really slow", sqlite.org/faq.html) gives "50,000 or more INSERT statements per second on an
/// average desktop computer", 20 µs per statement. Not `host.cpu.sqlite_txn_ns`'s default
/// (50 µs), which was chosen to bring `conzone.fig10a` near the paper and so cannot be used to
/// check it.
pub const SQLITE_TXN_NS: u64 = 20_000;

/// The host as ConZone+ ran it (§6.1 "Evaluation Environment"): two Xeon Silver 4114 of 10
/// cores under Linux 6.12.16, two cores "reserved ... for executing ConZone+", so 18 cores run
/// the host's threads; the kernel's step costs are `[host.cpu]`'s defaults (taken from
/// measurements on x86 server cores, docs/host-cpu.md) at speed 1, SQLite's per transaction
/// [`SQLITE_TXN_NS`]. `host.overhead_us` (15.3 µs, fitted to §6.3's QD1 random reads with no
/// host CPU) is lowered by the kernel part the model now charges per request (system call,
/// block layer, completion), so the host stack is not counted twice and that calibration
/// still holds.
pub fn with_host_cpu(cfg: &mut DeviceConfig) -> Result<()> {
    let cpu = HostCpuConfig {
        cores: 18,
        sqlite_txn_ns: SQLITE_TXN_NS,
        ..HostCpuConfig::default()
    };
    let kernel_ns = cpu.syscall_ns + cpu.block_submit_ns + cpu.completion_ns;
    cfg.host.overhead_us = (cfg.host.overhead_us - kernel_ns as f64 / 1000.0).max(0.0);
    cfg.host.cpu = cpu;
    cfg.validate()
}

/// Give the block configuration's conventional namespaces the SLC write cache
/// (`slc.conventional_buffer`) the paper's block device has: the SLC blocks a zoned
/// namespace's secondary buffer had, SLC GC migrating to regular flash, `policy` (bypass:
/// partial units at a flush; all: every write, as on QLC).
pub fn with_slc_cache(cfg: &mut DeviceConfig, policy: SlcPolicy) -> Result<()> {
    cfg.slc.conventional_buffer = true;
    cfg.slc.gc = SlcGc::Migrate;
    cfg.slc.policy = policy;
    cfg.validate()?;
    zonesim::device::validate(cfg)
}

/// Grow the SLC region to the fewest blocks per plane that hold the `slc_only` namespaces and
/// the zoned namespaces' SLC needs (the regular blocks grow with it, so that the regular region
/// keeps its size).
pub fn grow_slc(cfg: &mut DeviceConfig) -> Result<()> {
    let (slc, all) = (cfg.nand.slc_blocks_per_plane, cfg.nand.blocks_per_plane);
    for extra in 0..=16 * all {
        cfg.nand.slc_blocks_per_plane = slc + extra;
        cfg.nand.blocks_per_plane = all + extra;
        if zonesim::device::validate(cfg).is_ok() {
            return Ok(());
        }
    }
    zonesim::device::validate(cfg)
}

pub fn jobs(text: &str, name: &str) -> Result<WorkloadSpec> {
    Ok(WorkloadSpec::Jobs(parse_job_file(text, name)?))
}

pub fn opts(seed: u64, pre: Precondition, ns: usize) -> RunOptions {
    RunOptions {
        seed,
        precondition: pre,
        namespace: ns,
        check_invariants: false,
        power_off: None,
    }
}

/// Run `text` (fio jobs) on a fresh device.
pub fn run(
    cfg: &DeviceConfig,
    text: &str,
    pre: Precondition,
    ns: usize,
    seed: u64,
) -> Result<Report> {
    zonesim::RunSpec::new(cfg.clone(), jobs(text, "experiment")?)
        .options(opts(seed, pre, ns))
        .run()
}

/// Run `text` on an existing device.
pub fn run_on(dev: &mut Device, text: &str, ns: usize, seed: u64) -> Result<Report> {
    zonesim::sim::run_device(
        dev,
        &jobs(text, "experiment")?,
        &opts(seed, Precondition::None, ns),
        &mut zonesim::Control::none(),
    )
}

/// Miss rate of the zoned namespaces' L2P lookups, percent.
pub fn zoned_miss_pct(r: &Report) -> f64 {
    r.device.l2p.zoned.miss_rate * 100.0
}

/// The tolerance rule for a number of ConZone+ (registry/conzone.toml): the paper gives single
/// numbers from one emulator run, without spread, so a number is checked in a two-sided band
/// of +-25 % of the paper's effect, the distance of `reference` from `none` (0 for a change in
/// % or an absolute level, 1 for a ratio or a WAF, 100 for a miss rate near 100 %: its hit
/// rate). One rule for every number of the paper, not chosen per row.
pub fn band(case: &str, metric: &str, ours: f64, reference: f64, none: f64) -> Row {
    row_effect(case, metric, ours, reference, none, 0.25)
}
