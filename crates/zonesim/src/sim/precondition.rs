//! Preconditioning: bring the device to a defined state before measuring (SNIA PTS style).
//!
//! - `seq`: write the whole logical space of the namespace once, sequentially (128 KiB writes,
//!   queue depth 8).
//! - `steady`: `seq`, then uniform random 4 KiB overwrites (independent draws, fio
//!   `norandommap`) of twice the logical capacity
//!   (queue depth 32), which drives GC to its steady state.
//!
//! Both are simulated through the same device model as the measured run (GC, map cache and
//! buffer state are real). Afterwards every counter is reset; the report keeps the
//! preconditioning pass's own WAF.

use super::{run_on, source, RunOptions};
use crate::device::Device;
use crate::engine::SimTime;
use crate::error::{Error, Result};
use crate::host::fio::{default_job, RwMode, SizeSpec};
pub use crate::stats::report::PreconditionReport;
use std::str::FromStr;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Precondition {
    None,
    Seq,
    Steady,
}

impl FromStr for Precondition {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "none" => Ok(Precondition::None),
            "seq" => Ok(Precondition::Seq),
            "steady" => Ok(Precondition::Steady),
            _ => Err(Error::Usage(format!(
                "--precondition {s}: expected none, seq or steady"
            ))),
        }
    }
}

impl Precondition {
    pub fn name(self) -> &'static str {
        match self {
            Precondition::None => "none",
            Precondition::Seq => "seq",
            Precondition::Steady => "steady",
        }
    }
}

pub(super) fn run(dev: &mut Device, opts: &RunOptions) -> Result<PreconditionReport> {
    let mut rep = PreconditionReport {
        mode: opts.precondition.name().to_string(),
        ..Default::default()
    };
    if opts.precondition == Precondition::None {
        return Ok(rep);
    }
    let cap = dev.capacity_bytes(opts.namespace);
    let mut seq = default_job();
    seq.name = "precondition-seq".into();
    seq.rw = RwMode::Write;
    seq.bs = 128 * 1024;
    seq.iodepth = 8;
    seq.size = Some(SizeSpec::Bytes(cap / seq.bs * seq.bs));
    let mut specs = vec![seq];
    if opts.precondition == Precondition::Steady {
        let mut rnd = default_job();
        rnd.name = "precondition-random".into();
        rnd.rw = RwMode::RandWrite;
        rnd.bs = 4096;
        rnd.iodepth = 32;
        rnd.stonewall = true;
        rnd.io_size = Some(SizeSpec::Bytes(2 * cap));
        rnd.norandommap = true;
        specs.push(rnd);
    }
    let sources = source::jobs(&specs, cap, opts.seed ^ 0x5052_4543)?;
    let end = run_on(dev, sources, opts.namespace, SimTime::ZERO)?;
    let (programmed, host) = dev.write_volume();
    rep.waf = if host == 0 {
        0.0
    } else {
        programmed as f64 / host as f64
    };
    rep.host_pages_written = host;
    rep.simulated_ns = end.ns();
    Ok(rep)
}
