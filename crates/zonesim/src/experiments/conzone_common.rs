//! Helpers shared by the ConZone reproductions: the `conzone-paper` device, fio job text,
//! and reading numbers out of a report.

use crate::config::DeviceConfig;
use crate::device::Device;
use crate::error::Result;
use crate::host::fio::parse_job_file;
use crate::sim::{self, Precondition, RunOptions, Workload};
use crate::stats::Report;

/// The zoned data namespace of `conzone-paper`.
pub const ZONED_NS: usize = 1;

pub fn device(sets: &[String]) -> Result<DeviceConfig> {
    crate::load_device("conzone-paper", sets)
}

pub fn jobs(text: &str, name: &str) -> Result<Workload> {
    Ok(Workload::Jobs(parse_job_file(text, name)?))
}

pub fn opts(seed: u64, pre: Precondition, ns: usize) -> RunOptions {
    RunOptions {
        seed,
        precondition: pre,
        namespace: ns,
        check_invariants: false,
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
    sim::run(
        cfg,
        &jobs(text, "experiment")?,
        &opts(seed, pre, ns),
        &mut |_, _| {},
    )
}

/// Run `text` on an existing device.
pub fn run_on(dev: &mut Device, text: &str, ns: usize, seed: u64) -> Result<Report> {
    sim::run_device(
        dev,
        &jobs(text, "experiment")?,
        &opts(seed, Precondition::None, ns),
        &mut |_, _| {},
    )
}

/// Miss rate of the zoned namespaces' L2P lookups, percent.
pub fn zoned_miss_pct(r: &Report) -> f64 {
    r.device.l2p.zoned.miss_rate * 100.0
}
