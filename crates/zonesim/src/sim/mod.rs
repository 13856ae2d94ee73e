//! The simulation run: drives host sources (fio jobs, trace replay, aging scenarios) against a
//! [`Device`], preconditions, collects statistics and builds the [`Report`]. The rooms:
//!
//! - `spec.rs`: the one entry, [`RunSpec`] + [`execute`] (and [`run_device`], step-wise);
//! - this file: one run's phases — checks, mkfs, preconditioning (`precondition.rs`), the
//!   measured run, unmount, invariants, report;
//! - `engine.rs`: the event loop, the sources (`source.rs`), stonewall groups, idle work;
//! - `host_path.rs`: what a request meets between its source and the device: the host queues
//!   (`queues.rs`), IOTailor, the zone write ordering and the device tags;
//! - `fs.rs`: the host file system bound to the device's namespaces; `scenario.rs`: aging
//!   scenarios on it, step by step; `layout.rs`: a file system and a workload's files laid
//!   out once, runs from exact copies of it;
//! - `report.rs`: the report, built in one place; `sweep.rs`: grids of runs.

mod clock_gating;
mod engine;
mod fio_log;
pub mod fs;
mod host_cpu;
mod host_path;
mod layout;
mod power;
mod precondition;
mod queues;
mod report;
pub mod scenario;
mod source;
mod spec;
pub mod sweep;
pub mod sysbench;

pub use host_cpu::cpu_model;
pub use layout::Layout;
pub use power::{report_cuts, PowerOff};
pub use precondition::Precondition;
pub use report::{assemble, RunRecord};
pub use source::{ReplayMode, TraceReplay};
use spec::Workload;
pub use spec::{
    execute, run_device, RunSpec, WorkloadSpec, DEFAULT_WORKLOAD, DEFAULT_ZONED_WORKLOAD,
};

use crate::device::Device;
use crate::engine::SimTime;
use crate::error::{Error, Result};
use crate::host::{HostIo, IoKind};
use crate::interface::{Command, Op, ZoneAction};
use crate::stats::report::{HostReport, JobCdf, JobPriority, JobReport, PreconditionReport};
use crate::stats::{IoStats, Report};
use engine::{run_on, Engine};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// How to run it.
#[derive(Debug, Clone)]
pub struct RunOptions {
    pub seed: u64,
    pub precondition: Precondition,
    /// Namespace the workload (and preconditioning) targets.
    pub namespace: usize,
    /// Check the device invariants after preconditioning and at the end (slow on big devices;
    /// always on in debug builds).
    pub check_invariants: bool,
    /// Cut power during the measured run (`--power-off-at-request`, `--power-off-at-us`;
    /// docs/power.md): the run ends at the cut, after the device's recovery.
    pub power_off: Option<PowerOff>,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            seed: 1,
            precondition: Precondition::None,
            namespace: 0,
            check_invariants: cfg!(debug_assertions),
            power_off: None,
        }
    }
}

/// Progress observer: called now and then (every [`TICK_COMPLETIONS`] completions) with a
/// snapshot of the phase.
pub type Progress<'a> = &'a mut dyn FnMut(&Tick);

/// How often the run reports progress and checks its stop flags: every this many completions
/// (a power of two; a mask test per event, the snapshot only then).
pub const TICK_COMPLETIONS: u64 = 1 << 14;

/// A snapshot of a running phase, for progress displays.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tick {
    /// "preconditioning" or "running".
    pub phase: &'static str,
    /// Requests completed in the phase so far, and the bytes they moved.
    pub completed: u64,
    pub bytes: u64,
    /// Simulated time since the phase started, ns.
    pub simulated_ns: u64,
    /// The fraction of the phase done (0..=1): the mean over its sources of each one's
    /// runtime elapsed or request, byte or trace budget used; None when a source has no known
    /// total (a trace read from a pipe).
    pub fraction: Option<f64>,
}

/// What the caller of a run sees and steers while it runs.
#[derive(Default)]
pub struct Control<'a> {
    /// Called now and then (every [`TICK_COMPLETIONS`] completions) with a snapshot.
    pub progress: Option<Progress<'a>>,
    /// Checked at the same points: once set (by another thread, a signal handler), the run
    /// stops with [`Error::Interrupted`] and no report.
    pub stop: Option<&'a AtomicBool>,
    /// Checked at the same points: once set (Ctrl-C in `zonesim run`), the sources issue
    /// nothing more, the requests in flight complete, and the run ends with the report of what
    /// ran, marked `interrupted` (set during preconditioning: the measured run issues nothing).
    pub finish: Option<&'a AtomicBool>,
}

impl Control<'_> {
    /// Neither a progress observer nor a stop flag.
    pub fn none() -> Control<'static> {
        Control::default()
    }

    /// Report progress; an error if the run is to stop.
    #[cold]
    fn tick(&mut self, t: &Tick) -> Result<()> {
        if let Some(p) = &mut self.progress {
            p(t);
        }
        match self.stop {
            Some(s) if s.load(Ordering::Relaxed) => Err(Error::Interrupted {
                phase: t.phase,
                completed: t.completed,
            }),
            _ => Ok(()),
        }
    }

    /// Whether the run is asked to end early with the report of what ran.
    fn finishing(&self) -> bool {
        self.finish.is_some_and(|f| f.load(Ordering::Relaxed))
    }
}

/// Bring namespace `ns` of `dev` to state `p` (as `--precondition`), then reset its counters,
/// so what runs next is measured alone: the emulation handle's `precondition` option (the fio
/// engine's `zs_precondition`).
pub fn precondition_device(
    dev: &mut Device,
    p: Precondition,
    ns: usize,
    seed: u64,
) -> Result<PreconditionReport> {
    let opts = RunOptions {
        seed,
        precondition: p,
        namespace: ns,
        check_invariants: false,
        power_off: None,
    };
    let rep = precondition::run(dev, &opts, &mut Control::none())?;
    dev.reset_counters();
    Ok(rep)
}

/// Run a resolved workload on `dev` (fresh, or after what it already ran): the body of
/// [`execute`], [`run_device`] and [`Layout::run`]. A scenario runs on the host file system
/// step by step (`scenario.rs`); jobs and traces run on the event engine. `mounted`: the
/// file system already made on `dev` (a shared layout's); `None` makes `[fs]` afresh.
pub(crate) fn run_resolved(
    dev: &mut Device,
    mounted: Option<fs::FsHost>,
    workload: &Workload,
    opts: &RunOptions,
    ctl: &mut Control,
) -> Result<Report> {
    if let Workload::Scenario(sc) = workload {
        if opts.power_off.is_some() {
            return Err(Error::Usage(
                "--power-off-at-request / --power-off-at-us: a power cut is modelled for fio jobs and traces, not for aging scenarios".into(),
            ));
        }
        return scenario::run(dev, sc, opts);
    }
    let wall = Instant::now();
    dev.check_namespace(opts.namespace)?;
    check_iotailor(dev, opts.namespace)?;
    if opts.power_off.is_some() {
        if dev.cfg.fs.is_some() {
            return Err(Error::config(
                "fs",
                "a power cut (--power-off-at-request / --power-off-at-us) is modelled on the raw device; the host file system's state after a cut is not",
            ));
        }
        dev.track_power()?;
    }
    // mkfs reads the device's layout only, so its rules are checked before preconditioning;
    // its writes reach the device after it, before the measured run.
    let mut fs_host = match (mounted, &dev.cfg.fs) {
        (Some(h), _) => Some(h),
        (None, Some(c)) => Some(fs::mount(&c.clone(), dev, opts.namespace)?),
        (None, None) => None,
    };
    let pre = precondition::run(dev, opts, ctl)?;
    let t0 = dev.clock;
    if opts.check_invariants {
        dev.check_invariants().map_err(invariant)?;
    }
    let t0 = match &mut fs_host {
        Some(h) => h.submit(dev, t0),
        None => t0,
    };
    dev.reset_counters();
    let sources = source::build(workload, dev, opts.namespace, opts.seed, fs_host.is_some())?;
    if let Some(h) = &fs_host {
        for s in &sources {
            if let Some(fj) = &s.files {
                fj.check_ipu(&s.name, h)?;
            }
        }
    }
    let measure = Instant::now();
    let measure_cpu = crate::stats::report::thread_cpu_s();
    let interval_ns = SimTime::from_us(dev.cfg.stats.interval_ms * 1000.0).ns();
    let threads = sources.len();
    let mut eng = Engine::new(dev, sources, opts.seed);
    eng.cpu = host_cpu::CpuRun::new(&eng.dev.cfg.host.cpu, threads);
    if eng.dev.cfg.host.iotailor {
        eng.host.tailor_writes(eng.dev);
    }
    eng.fs = fs_host;
    if interval_ns > 0 {
        eng.sample_every(interval_ns, t0)?;
    }
    if opts.power_off.is_some() || !eng.dev.cfg.power.is_default() {
        eng.power = Some(Box::new(power::PowerRun::new(&eng.dev.cfg.power, t0)));
        eng.host.gating = clock_gating::ClockGating::new(&eng.dev.cfg);
    }
    match opts.power_off {
        Some(PowerOff::AtRequest(n)) => eng.cut_after = n,
        Some(PowerOff::AtUs(us)) => eng.cut_at = t0 + SimTime::from_us(us).ns(),
        None => {}
    }
    let mut end = eng.run(t0, ctl)?;
    let (cut, power_run) = (eng.cut, eng.power.take());
    let interrupted = eng.interrupted;
    let timeseries = eng.sampler.take().map(|s| s.finish(end, &eng.sections()));
    if let Some(t) = &timeseries {
        let (rows, cols) = (t.rows.len(), t.columns.len());
        if rows >= crate::stats::timeseries::MAX_VALUES / cols {
            return Err(engine::series_too_long(interval_ns, rows, cols));
        }
    }
    // Unmount: the dirty data and a checkpoint reach the device.
    let mut fs_host = eng.fs.take();
    if let Some(h) = &mut fs_host {
        h.fs.set_now(end.ns());
        h.fs.sync();
        end = end.max(h.submit(eng.dev, end));
        if opts.check_invariants {
            h.fs.check_invariants().map_err(invariant)?;
        }
    }
    let measure_wall_s = measure.elapsed().as_secs_f64();
    let measure_cpu_s = crate::stats::report::thread_cpu_s() - measure_cpu;
    let (issued, completed) = (eng.issued, eng.completed);
    let events = eng.q.events() - eng.purged;
    let ordering = eng.host.ordering();
    let iotailor = eng.host.iotailor();
    let dispatch = eng.host.dispatch();
    let gating = eng.host.gating.take();
    let mut sources = std::mem::take(&mut eng.sources);
    let queue_stats = std::mem::take(&mut eng.host.queues.stats);
    let cpu = eng.cpu.take();
    drop(eng);
    // Power fails, comes back at once, the device recovers (the run ends then).
    let cycle = cut.map(|t| dev.power_cycle(t, dev.cfg.power.plp));
    if let Some(c) = &cycle {
        end = c.recovered;
    }
    dev.clock = end;
    if opts.check_invariants || cycle.is_some() {
        dev.check_invariants().map_err(invariant)?;
    }
    for s in &mut sources {
        if let Some(l) = &mut s.logs {
            l.finish(s.stats.last_completion.max(t0))?;
        }
    }
    let mut total = IoStats::default();
    let mut jobs = Vec::new();
    let mut trace = None;
    let mut latency_cdfs = Vec::new();
    for (i, s) in sources.iter().enumerate() {
        total.merge(&s.stats);
        latency_cdfs.extend(s.stats.cdfs().into_iter().map(|(op, points, hist)| JobCdf {
            job: s.name.clone(),
            op,
            points,
            hist,
        }));
        jobs.push(JobReport {
            name: s.name.clone(),
            namespace: s.ns,
            priority: JobPriority::of(s.prio),
            host: HostReport::from_stats(&s.stats),
            latency_breakdown: cpu.as_ref().map(|c| c.breakdown(i)),
        });
        if let Some(t) = s.trace_report() {
            trace = Some(t);
        }
    }
    let power = power_run.map(|p| {
        let bytes = total.read.bytes + total.write.bytes;
        p.report(dev, end, cycle.as_ref(), bytes, gating.as_ref())
    });
    let mut host = HostReport::from_stats(&total);
    host.queues = queue_stats.iter().map(HostReport::from_stats).collect();
    let record = report::RunRecord {
        seed: opts.seed,
        start: t0,
        end,
        wall_s: wall.elapsed().as_secs_f64(),
        measure_wall_s,
        measure_cpu_s: Some(measure_cpu_s),
        events,
        issued,
        completed,
        host,
        jobs,
        latency_cdfs,
        precondition: pre,
        trace,
        timeseries,
        ordering,
        iotailor,
        dispatch,
        interrupted,
        host_cpu: cpu.as_ref().map(|c| c.report(end.since(t0))),
        power,
        cut: cut.map(|_| issued - completed),
        ..report::RunRecord::default()
    };
    Ok(report::assemble(dev, fs_host.as_ref(), record))
}

/// `host.iotailor` reshapes the zoned writes of the run's sources: the run's namespace must be
/// zoned, and a host file system (which submits its own commands) is not tailored.
pub(crate) fn check_iotailor(dev: &Device, ns: usize) -> Result<()> {
    if !dev.cfg.host.iotailor {
        return Ok(());
    }
    if dev.zones(ns).is_none() {
        return Err(Error::config(
            "host.iotailor",
            format!("reshapes writes to zones; namespace {ns} (--namespace) is not zoned"),
        ));
    }
    if dev.cfg.fs.is_some() {
        return Err(Error::config(
            "host.iotailor",
            "the host file system (fs) submits its own device commands, which IOTailor does not reshape; set one of them",
        ));
    }
    Ok(())
}

fn invariant(msg: String) -> Error {
    Error::internal(msg)
}

/// The device command for a host request: the run is the adapter between the host side
/// (requests in bytes) and the device side (commands on 4 KiB logical pages).
pub fn command(io: &HostIo) -> Command {
    let op = match io.kind {
        IoKind::Read => Op::Read,
        IoKind::Write => Op::Write { hint: io.hint },
        IoKind::ZoneAppend => Op::Append,
        IoKind::InPlace => Op::InPlace { hint: io.hint },
        IoKind::Trim => Op::Trim,
        IoKind::Flush => Op::Flush,
        IoKind::ZoneOpen => Op::Zone(ZoneAction::Open),
        IoKind::ZoneClose => Op::Zone(ZoneAction::Close),
        IoKind::ZoneFinish => Op::Zone(ZoneAction::Finish),
        IoKind::ZoneReset => Op::Zone(ZoneAction::Reset),
    };
    Command::widen(op, io.offset, io.len)
}
