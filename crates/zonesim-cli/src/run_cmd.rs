//! `zonesim run`.

use crate::summary;
use crate::trace_cmd::TraceReadOpts;
use anyhow::Result;
use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::{Duration, Instant};
use zonesim::sim::{Precondition, ReplayMode, RunOptions, TraceReplay};
use zonesim::{Control, Error, RunSpec, WorkloadSpec};

#[derive(clap::Args)]
pub struct RunArgs {
    /// Device: a preset name (see `zonesim presets`) or a TOML file.
    #[arg(long, default_value = "ufs-conventional")]
    pub device: String,
    /// fio job file.
    #[arg(long, conflicts_with = "trace")]
    pub workload: Option<PathBuf>,
    /// Block trace to replay.
    #[arg(long)]
    pub trace: Option<PathBuf>,
    /// Run the fio jobs on files of a host file system (`f2fs`, docs/fs.md) or on the raw
    /// namespace (`none`, the default unless the device has an `[fs]` section).
    #[arg(long, value_parser = ["f2fs", "none"])]
    pub fs: Option<String>,
    /// Aging scenario (TOML steps with a loop and stop condition, docs/fs.md) run on the
    /// host file system instead of fio jobs.
    #[arg(long, conflicts_with_all = ["workload", "trace"])]
    pub scenario: Option<PathBuf>,
    /// Override a device key: --set nand.channels=4 (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub sets: Vec<String>,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Bring the device to a state first: none | seq | steady | steady-fast (steady synthesised, conventional namespaces).
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
    #[arg(long)]
    pub as_fast_as_possible: bool,
    /// Queue depth of an as-fast-as-possible replay, 1..=65536 (the fio `iodepth` bound).
    #[arg(long, default_value_t = 32, value_parser = clap::value_parser!(u32).range(1..=zonesim::host::fio::MAX_IODEPTH as i64))]
    pub qd: u32,
    /// Multiply trace inter-arrival times (timed replay).
    #[arg(long, default_value_t = 1.0)]
    pub time_scale: f64,
    /// Fold addresses beyond capacity modulo the capacity (default).
    #[arg(long, overrides_with = "no_fold")]
    pub fold: bool,
    /// Reject (skip and count) requests beyond capacity instead of folding them.
    #[arg(long)]
    pub no_fold: bool,
    /// Replay only records at or after this trace time (ns).
    #[arg(long, default_value_t = 0)]
    pub trace_start_ns: u64,
    /// Stop the replay at this trace time (ns).
    #[arg(long)]
    pub trace_stop_ns: Option<u64>,
    /// Skip the first N requests of the trace.
    #[arg(long, default_value_t = 0)]
    pub trace_skip: u64,
    /// Replay at most N requests.
    #[arg(long)]
    pub trace_max_requests: Option<u64>,
    /// Trace replay on a zoned namespace: count the writes the zone rules reject and go on
    /// (fio jobs set `continue_on_error=write` in the job file); without it the first
    /// rejected write ends the run with an error.
    #[arg(long)]
    pub continue_on_error: bool,
    /// Check the device invariants (map, valid counts, pools) before and after the run.
    #[arg(long)]
    pub check_invariants: bool,
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
    if a.fs.as_deref() == Some("f2fs") {
        sets.insert(0, "fs.kind=f2fs".to_string());
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
    };
    let mut spec = RunSpec::new(cfg, workload_spec(&a));
    spec.options = options;
    // Resolved once here for the summary's name and parse errors before anything runs.
    let (resolved, wl_name) = spec.resolve_workload()?;
    let groups = report_groups(&resolved);
    let started = Instant::now();
    let interactive = std::io::stderr().is_terminal();
    let mut bar: Option<ProgressBar> = None;
    let mut progress = |phase: &'static str, done: u64| {
        if let Some(w) = spare_warning.take() {
            eprintln!("zonesim: warning: {w}");
        }
        if !interactive || started.elapsed() < Duration::from_secs(1) {
            return;
        }
        let b = bar.get_or_insert_with(|| {
            let b = ProgressBar::new_spinner();
            b.set_style(
                ProgressStyle::with_template("{spinner} {elapsed} {msg}").expect("valid template"),
            );
            b
        });
        b.set_message(format!("{phase}: {done} requests completed"));
        b.tick();
    };
    let report = zonesim::run(
        &spec,
        &mut Control {
            progress: Some(&mut progress),
            stop: None,
        },
    )?;
    if let Some(b) = bar {
        b.finish_and_clear();
    }
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
    emit(&a, &spec.device, &wl_name, &report, &groups)
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
    let n = r.fs.as_ref().map_or(0, |f| f.enospc);
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
