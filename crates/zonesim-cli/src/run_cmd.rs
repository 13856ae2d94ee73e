//! `zonesim run`.

use crate::summary;
use crate::trace_cmd::TraceReadOpts;
use anyhow::Result;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use zonesim::sim::{PowerOff, Precondition, ReplayMode, RunOptions, TraceReplay};
use zonesim::{Control, Error, RunSpec, WorkloadSpec};

#[derive(clap::Args)]
pub struct RunArgs {
    /// Device: a preset name (see `zonesim presets`) or a TOML file.
    #[arg(long, default_value = "ufs-conventional")]
    pub device: String,
    /// fio job file: the subset of fio's options that docs/workloads.md lists (a fio option
    /// outside it is refused, naming it); without one, the namespace's default workload.
    #[arg(long, value_name = "JOB.fio", conflicts_with = "trace")]
    pub workload: Option<PathBuf>,
    /// Block trace to replay (MSR, blkparse, DiskSim, fio iolog, Alibaba, Tencent; format
    /// detected unless --trace-format; docs/traces.md); the options under "Trace replay"
    /// shape the replay.
    #[arg(long, value_name = "FILE")]
    pub trace: Option<PathBuf>,
    /// Run the fio jobs on files of a host file system (`f2fs`, docs/fs.md; `ext4`,
    /// docs/ext4.md) or on the raw namespace (`none`, the default unless the device has an
    /// `[fs]` section).
    #[arg(long, value_parser = ["f2fs", "ext4", "none"])]
    pub fs: Option<String>,
    /// Aging scenario (TOML steps with a loop and stop condition, docs/fs.md) run on the
    /// host file system instead of fio jobs.
    #[arg(long, conflicts_with_all = ["workload", "trace"])]
    pub scenario: Option<PathBuf>,
    /// Override a device key: --set nand.channels=4 (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub sets: Vec<String>,
    /// Seed of every random choice of the run (fio's random offsets and read/write mixes, the
    /// random and d-choice GC victims, requeue draws): the same inputs and seed give the same
    /// report.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Bring the device to a state before measuring; its counters are reset after it.
    /// `none`: empty device (reads of unwritten pages are warned about). `seq`: every
    /// logical page written once, sequentially (about the time of writing the capacity).
    /// `steady`: `seq`, then random 4 KiB overwrites of twice the capacity, driving GC to its
    /// steady state (three times `seq`'s writes, and GC: the slowest). `steady-fast`: the
    /// state `steady` leaves, synthesised instead of simulated, in time linear in the device's
    /// pages (conventional namespaces only).
    #[arg(long, default_value = "none", value_parser = parse_pre)]
    pub precondition: Precondition,
    /// Namespace the workload, trace and preconditioning target (default: the device's
    /// `main_namespace`, 1 for the zoned presets).
    #[arg(long)]
    pub namespace: Option<usize>,
    /// Write the JSON report here.
    #[arg(long)]
    pub json: Option<PathBuf>,
    #[command(flatten)]
    pub trace_opts: TraceReadOpts,
    /// Replay the trace as fast as possible at --qd instead of at its arrival times.
    #[arg(long, help_heading = "Trace replay")]
    pub as_fast_as_possible: bool,
    /// Queue depth of an as-fast-as-possible replay, 1..=65536 (the fio `iodepth` bound).
    #[arg(long, help_heading = "Trace replay", default_value_t = 32, value_parser = clap::value_parser!(u32).range(1..=zonesim::host::fio::MAX_IODEPTH as i64))]
    pub qd: u32,
    /// Multiply trace inter-arrival times (timed replay).
    #[arg(long, help_heading = "Trace replay", default_value_t = 1.0)]
    pub time_scale: f64,
    /// Fold addresses beyond capacity modulo the capacity (default).
    #[arg(long, help_heading = "Trace replay", overrides_with = "no_fold")]
    pub fold: bool,
    /// Reject (skip and count) requests beyond capacity instead of folding them.
    #[arg(long, help_heading = "Trace replay")]
    pub no_fold: bool,
    /// Replay only records at or after this trace time (ns).
    #[arg(long, help_heading = "Trace replay", default_value_t = 0)]
    pub trace_start_ns: u64,
    /// Stop the replay at this trace time (ns).
    #[arg(long, help_heading = "Trace replay")]
    pub trace_stop_ns: Option<u64>,
    /// Skip the first N requests of the trace.
    #[arg(long, help_heading = "Trace replay", default_value_t = 0)]
    pub trace_skip: u64,
    /// Replay at most N requests.
    #[arg(long, help_heading = "Trace replay")]
    pub trace_max_requests: Option<u64>,
    /// Trace replay on a zoned namespace: count the writes the zone rules reject and go on
    /// (fio jobs set `continue_on_error=write` in the job file); without it the first
    /// rejected write ends the run with an error.
    #[arg(long, help_heading = "Trace replay")]
    pub continue_on_error: bool,
    /// Check the device invariants (map, valid counts, pools) before and after the run.
    #[arg(long)]
    pub check_invariants: bool,
    /// Cut power once the N-th request of the measured run is issued: what the device loses,
    /// its recovery and the energy go to the report's `power` section (docs/power.md).
    #[arg(long, value_name = "N", help_heading = "Power", conflicts_with = "power_off_at_us", value_parser = clap::value_parser!(u64).range(1..))]
    pub power_off_at_request: Option<u64>,
    /// Cut power T simulated microseconds after the measured run starts (docs/power.md).
    #[arg(long, value_name = "T", help_heading = "Power", value_parser = parse_cut_us)]
    pub power_off_at_us: Option<f64>,
    /// Print the JSON report to stdout instead of the summary table (= --output-format json).
    #[arg(long)]
    pub json_stdout: bool,
    /// What stdout gets: `normal` (the summary table), `json` (the JSON report), `fio-json`
    /// (fio's JSON layout, for fio's parsers), `terse` (fio's terse v3 lines).
    #[arg(long, default_value = "normal", value_parser = ["normal", "json", "fio-json", "terse"])]
    pub output_format: String,
    /// Percentiles of fio-json and terse output (fio's `percentile_list`), e.g. 50,99,99.9;
    /// default fio's 17.
    #[arg(long, value_name = "LIST", value_parser = parse_percentiles)]
    pub percentiles: Option<Percentiles>,
    /// Sample a time series every MS simulated milliseconds (the report's `timeseries`; sets
    /// the device key stats.interval_ms).
    #[arg(long, value_name = "MS")]
    pub interval_ms: Option<f64>,
    /// Write the time series as CSV here (sampled every --interval-ms, stats.interval_ms, or
    /// 100 simulated ms when neither is set).
    #[arg(long, value_name = "FILE.csv")]
    pub timeseries: Option<PathBuf>,
}

fn parse_pre(s: &str) -> Result<Precondition, Error> {
    s.parse()
}

/// The `--percentiles` list (one argument, comma-separated).
#[derive(Debug, Clone)]
pub struct Percentiles(pub Vec<f64>);

/// `--power-off-at-us T`: a finite time of at least 0 µs, at most 1e12 (11.6 days).
fn parse_cut_us(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if (0.0..=1e12).contains(&v) => Ok(v),
        _ => Err(format!("must be a time in µs in [0, 1e12] (got '{s}')")),
    }
}

fn parse_percentiles(s: &str) -> Result<Percentiles, String> {
    crate::fio_out::parse_percentiles(s).map(Percentiles)
}

/// Where the requests come from: the trace with its replay options, the job file, or the
/// namespace's default workload.
fn workload_spec(a: &RunArgs) -> WorkloadSpec {
    if let Some(t) = &a.trace {
        let mode = if a.as_fast_as_possible {
            ReplayMode::AsFastAsPossible { qd: a.qd }
        } else {
            ReplayMode::Timed {
                time_scale: a.time_scale,
            }
        };
        let mut r = TraceReplay::new(t, mode);
        r.opts = a.trace_opts.options();
        r.fold = !a.no_fold;
        r.start_ns = a.trace_start_ns;
        r.stop_ns = a.trace_stop_ns;
        r.skip = a.trace_skip;
        r.max_requests = a.trace_max_requests;
        r.continue_on_error = a.continue_on_error;
        return WorkloadSpec::Trace(r);
    }
    if let Some(p) = &a.scenario {
        return WorkloadSpec::ScenarioFile(p.clone());
    }
    match &a.workload {
        Some(p) => WorkloadSpec::FioFile(p.clone()),
        None => WorkloadSpec::Default,
    }
}

/// The device keys of the run's own flags (`--fs`, `--interval-ms`) around the `--set`s.
fn device_sets(a: &RunArgs) -> Vec<String> {
    let mut sets = a.sets.clone();
    if let Some(kind @ ("f2fs" | "ext4")) = a.fs.as_deref() {
        sets.insert(0, format!("fs.kind={kind}"));
    }
    if let Some(ms) = a.interval_ms {
        sets.push(format!("stats.interval_ms={ms:?}"));
    }
    sets
}

/// The sampling interval of `--timeseries` when neither `--interval-ms` nor `stats.interval_ms`
/// gives one: 100 simulated ms.
const DEFAULT_TIMESERIES_INTERVAL_MS: f64 = 100.0;

pub fn run(a: RunArgs) -> Result<()> {
    let mut cfg = zonesim::load_device(&a.device, &device_sets(&a))?;
    if a.fs.as_deref() == Some("none") {
        cfg.fs = None;
    }
    // Printed once, when the device is built and the run starts (the first progress call), so
    // an input error is the only line a bad run prints.
    let mut spare_warning = zonesim::device::effective_spare_warning(&cfg);
    if a.timeseries.is_some() && cfg.stats.interval_ms == 0.0 {
        // `--timeseries` alone: sample at the default interval rather than refuse.
        cfg.stats.interval_ms = DEFAULT_TIMESERIES_INTERVAL_MS;
    }
    let options = RunOptions {
        seed: a.seed,
        precondition: a.precondition,
        namespace: a.namespace.unwrap_or(cfg.main_namespace as usize),
        check_invariants: a.check_invariants || cfg!(debug_assertions),
        power_off: match (a.power_off_at_request, a.power_off_at_us) {
            (Some(n), _) => Some(PowerOff::AtRequest(n)),
            (None, Some(us)) => Some(PowerOff::AtUs(us)),
            (None, None) => None,
        },
    };
    let mut spec = RunSpec::new(cfg, workload_spec(&a));
    spec.options = options;
    // Resolved once here for the summary's name and parse errors before anything runs.
    let (resolved, wl_name) = spec.resolve_workload()?;
    let groups = report_groups(&resolved);
    let mut display = crate::progress::Display::new(show_progress());
    let mut progress = |t: &zonesim::Tick| {
        // The "effective spare" warning, once the device is built (a run that fails before
        // that prints only its error).
        if let Some(w) = spare_warning.take() {
            eprintln!("zonesim: warning: {w}");
        }
        display.tick(t);
    };
    // Ctrl-C ends the run with the report of what ran (a scenario runs its steps to the end:
    // there the default disposition stays).
    if !matches!(resolved, WorkloadSpec::Scenario(_)) {
        on_ctrl_c_finish();
    }
    let report = zonesim::run(
        &spec,
        &mut Control {
            progress: Some(&mut progress),
            stop: None,
            finish: Some(&CTRL_C),
        },
    )?;
    display.finish();
    if let Some(w) = spare_warning {
        // A run that never reported progress.
        eprintln!("zonesim: warning: {w}");
    }
    for w in [unwritten_warning(&report), enospc_warning(&report)]
        .into_iter()
        .flatten()
    {
        eprintln!("zonesim: warning: {w}");
    }
    emit(&a, &spec.device, &wl_name, &report, &groups)?;
    if report.interrupted {
        return Err(Interrupted {
            completed: report.sim.requests_completed,
            simulated_s: report.sim.simulated_ns as f64 / 1e9,
        }
        .into());
    }
    Ok(())
}

/// Whether the progress line is shown: on a terminal (stderr), unless `ZONESIM_PROGRESS=0`;
/// `ZONESIM_PROGRESS=1` forces it (a terminal multiplexer that is no tty).
fn show_progress() -> bool {
    match std::env::var("ZONESIM_PROGRESS").as_deref() {
        Ok("1") => true,
        Ok("0") => false,
        _ => std::io::stderr().is_terminal(),
    }
}

/// Set by the first Ctrl-C of `zonesim run`.
static CTRL_C: AtomicBool = AtomicBool::new(false);

/// Exit code of a run ended by Ctrl-C: 128 + SIGINT, what shells report for a command SIGINT
/// ended.
pub const EXIT_INTERRUPTED: u8 = 130;

/// A run ended early by Ctrl-C, after its report was written: `main` prints this one line and
/// exits with [`EXIT_INTERRUPTED`].
#[derive(Debug)]
pub struct Interrupted {
    completed: u64,
    simulated_s: f64,
}

impl std::fmt::Display for Interrupted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "interrupted: the report covers the {} requests of the first {:.6} simulated s (the requests in flight completed)",
            self.completed, self.simulated_s
        )
    }
}

impl std::error::Error for Interrupted {}

/// The first Ctrl-C (SIGINT) asks the run to end with its report (`CTRL_C`); a second one
/// ends the process at once, as SIGINT does by default.
fn on_ctrl_c_finish() {
    #[cfg(unix)]
    {
        extern "C" fn on_sigint(_: libc::c_int) {
            if CTRL_C.swap(true, Ordering::SeqCst) {
                // SAFETY: signal and raise are async-signal-safe.
                unsafe {
                    libc::signal(libc::SIGINT, libc::SIG_DFL);
                    libc::raise(libc::SIGINT);
                }
            }
        }
        // SAFETY: the handler only swaps an atomic, or restores the default and re-raises.
        unsafe {
            libc::signal(libc::SIGINT, on_sigint as *const () as libc::sighandler_t);
        }
    }
}

/// Each job's fio reporting group (a `stonewall` starts a new one, as in fio), in report order.
fn report_groups(w: &WorkloadSpec) -> Vec<u32> {
    let WorkloadSpec::Jobs(jobs) = w else {
        return vec![0];
    };
    let mut g = 0u32;
    let mut out = Vec::new();
    for (i, j) in jobs.iter().enumerate() {
        if i > 0 && j.stonewall {
            g += 1;
        }
        out.extend(std::iter::repeat_n(g, j.numjobs.max(1) as usize));
    }
    out
}

/// Write the report: `--json FILE`, `--timeseries FILE.csv`, `--json-stdout` or the summary.
fn emit(
    a: &RunArgs,
    cfg: &zonesim::config::DeviceConfig,
    wl_name: &str,
    report: &zonesim::stats::Report,
    groups: &[u32],
) -> Result<()> {
    if let Some(p) = &a.json {
        let text = serde_json::to_string_pretty(report)?;
        std::fs::write(p, text + "\n").map_err(|e| Error::io(p, e))?;
    }
    if let (Some(p), Some(ts)) = (&a.timeseries, &report.timeseries) {
        std::fs::write(p, ts.to_csv()).map_err(|e| Error::io(p, e))?;
    }
    let pct = a
        .percentiles
        .clone()
        .map_or_else(|| crate::fio_out::FIO_PERCENTILES.to_vec(), |p| p.0);
    let format = if a.json_stdout {
        "json"
    } else {
        a.output_format.as_str()
    };
    match format {
        "json" => println!("{}", serde_json::to_string_pretty(report)?),
        "fio-json" => {
            let v = crate::fio_out::fio_json(report, groups, &pct);
            println!("{}", serde_json::to_string_pretty(&v)?);
        }
        "terse" => print!("{}", crate::fio_out::terse(report, groups, &pct)),
        _ => print!("{}", summary::render(cfg, wl_name, report)),
    }
    Ok(())
}

/// The warning of a run whose reads hit never-written pages (their latencies are those of an
/// empty device: no map or flash read), or None.
/// The warning for a host file system that ran out of space: its jobs stopped writing there (as
/// fio's do on ENOSPC), so their numbers cover less work than the job file asked for.
pub fn enospc_warning(r: &zonesim::stats::Report) -> Option<String> {
    let n = r.fs.as_ref().map_or(0, |f| f.enospc());
    (n > 0).then(|| {
        format!(
            "the file system ran out of space {n} time(s) (fs.enospc): the jobs that hit it \
             stopped writing, so they did less than the job file asks; give the files less room \
             (size, nrfiles) or the device more"
        )
    })
}

pub fn unwritten_warning(r: &zonesim::stats::Report) -> Option<String> {
    let d = &r.device;
    (d.unwritten_reads > 0).then(|| {
        format!(
            "{:.1}% of the page reads ({} pages) read never-written pages, which cost no flash \
             read; write the data first (--precondition seq, or a fill job before a stonewall)",
            d.unwritten_read_fraction * 100.0,
            d.unwritten_reads
        )
    })
}
