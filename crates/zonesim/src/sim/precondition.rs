//! Preconditioning: bring the device to a defined state before measuring (SNIA PTS style).
//!
//! - `seq`: write the whole logical space of the namespace once, sequentially (128 KiB writes,
//!   queue depth 8). On a zoned namespace: every zone written full, in zone order (fio
//!   `zonemode=zbd`, writes stop at each zone's capacity).
//! - `steady`: `seq`, then uniform random 4 KiB overwrites (independent draws, fio
//!   `norandommap`) of twice the logical capacity
//!   (queue depth 32), which drives GC to its steady state. On a zoned namespace the random
//!   phase is fio `zonemode=zbd` random writes (zones picked at random, written at their write
//!   pointers, full zones reset before rewrite, `max_open_zones` = the device's open limit).
//!
//! - `steady-fast`: the state `steady` leaves on a conventional namespace, synthesised
//!   instead of simulated (`firmware/steady`: a superblock-level model of the same history under
//!   the configured victim and placement policies, then the map, reverse map, valid counts,
//!   free pool and frontiers built from it), in time linear in the device's pages. The
//!   measured run starts at the simulated time the history would have taken (estimated from
//!   the flash timing), so the closing times cost_benefit compares lie in the past. Zoned
//!   namespaces, the SLC write cache and the `bloom` placement are refused (exit 2).
//!
//! `seq` and `steady` are simulated through the same device model as the measured run (GC, map
//! cache and buffer state are real). Afterwards every counter is reset; the report keeps the
//! preconditioning pass's own WAF (`steady-fast`: the model's, over the same history;
//! docs/report.md).

use super::{run_on, source, RunOptions};
use crate::device::Device;
use crate::error::{Error, Result};
use crate::host::fio::{default_job, RwMode, SizeSpec, ZoneMode};
pub use crate::stats::report::PreconditionReport;
use std::str::FromStr;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Precondition {
    None,
    Seq,
    Steady,
    SteadyFast,
}

impl FromStr for Precondition {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "none" => Ok(Precondition::None),
            "seq" => Ok(Precondition::Seq),
            "steady" => Ok(Precondition::Steady),
            "steady-fast" => Ok(Precondition::SteadyFast),
            _ => Err(Error::Usage(format!(
                "--precondition {s}: expected none, seq, steady or steady-fast"
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
            Precondition::SteadyFast => "steady-fast",
        }
    }
}

pub(super) fn run(
    dev: &mut Device,
    opts: &RunOptions,
    ctl: &mut super::Control,
) -> Result<PreconditionReport> {
    let mut rep = PreconditionReport {
        mode: opts.precondition.name().to_string(),
        ..Default::default()
    };
    if opts.precondition == Precondition::None {
        return Ok(rep);
    }
    if opts.precondition == Precondition::SteadyFast {
        return steady_fast(dev, opts, rep);
    }
    let target = source::NsTarget::of(dev, opts.namespace);
    let cap = target.target.capacity_bytes;
    let zoned = target.target.zone.is_some();
    let mut seq = default_job();
    seq.name = "precondition-seq".into();
    seq.rw = RwMode::Write;
    seq.bs = 128 * 1024;
    seq.iodepth = 8;
    if zoned {
        // Every usable zone written full, in zone order (writes stop at each zone's capacity;
        // READ_ONLY and OFFLINE zones, on a worn device, are skipped as fio skips them).
        seq.zonemode = ZoneMode::Zbd;
        let unusable = target.unusable.iter().filter(|&&u| u).count() as u64;
        if let (Some(z), true) = (target.target.zone, unusable > 0) {
            let usable = target.unusable.len() as u64 - unusable;
            seq.io_size = Some(SizeSpec::Bytes(usable * z.capacity_bytes));
        }
    } else {
        seq.size = Some(SizeSpec::Bytes(cap / seq.bs * seq.bs));
    }
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
        if zoned {
            rnd.zonemode = ZoneMode::Zbd;
            rnd.max_open_zones = dev
                .zones(opts.namespace)
                .map_or(0, |z| z.zone_config().max_open);
        }
        specs.push(rnd);
    }
    // The random phase starts from the write pointers the sequential phase leaves.
    let rnd = specs.split_off(1);
    let sources = source::jobs(&specs, dev, opts.namespace, opts.seed ^ 0x5052_4543)?;
    // A device that already ran continues from its clock.
    let start = dev.clock;
    let mut end = run_on(dev, sources, start, ctl, opts.seed ^ 0x5052_4543)?;
    if !rnd.is_empty() {
        let seed = (opts.seed ^ 0x5052_4543).wrapping_add(7919);
        let sources = source::jobs(&rnd, dev, opts.namespace, seed)?;
        end = run_on(dev, sources, end, ctl, seed)?;
    }
    // The data cache (cache.bytes) is written back and emptied: the measured phase starts
    // cold and clean (docs/firmware.md "Data cache and preconditioning").
    end = dev.drain_data_caches(end);
    let (programmed, host) = dev.write_volume();
    rep.waf = if host == 0 {
        0.0
    } else {
        programmed as f64 / host as f64
    };
    rep.host_pages_written = host;
    rep.simulated_ns = end.since(start);
    dev.clock = end;
    Ok(rep)
}

/// `steady-fast`: synthesise the state (module docs). The report gives the model's figures for
/// the history the state stands for: its WAF (survivors moved, no map pages), its host pages
/// (the fill plus two capacities) and the simulated time it would have taken.
fn steady_fast(
    dev: &mut Device,
    opts: &RunOptions,
    mut rep: PreconditionReport,
) -> Result<PreconditionReport> {
    let ns = opts.namespace;
    let start = dev.clock;
    let s = dev
        .steady_fast(ns, opts.seed ^ 0x5354_4641)
        .map_err(|e| match e {
            Error::Usage(why) => {
                Error::Usage(format!("--precondition steady-fast: namespace {ns}: {why}"))
            }
            e => e,
        })?;
    rep.waf = s.waf;
    rep.host_pages_written = s.host_pages;
    rep.simulated_ns = s.end.since(start);
    dev.clock = s.end;
    Ok(rep)
}
