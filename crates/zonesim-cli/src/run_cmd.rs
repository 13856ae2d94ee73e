//! `zonesim run`.

use crate::summary;
use crate::trace_cmd::TraceReadOpts;
use anyhow::Result;
use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::{Duration, Instant};
use zonesim::config::DeviceConfig;
use zonesim::host::fio::parse_job_file;
use zonesim::sim::{self, Precondition, ReplayMode, RunOptions, TraceReplay, Workload};
use zonesim::Error;

/// The default workloads of `zonesim run`: workloads/default.fio on a conventional namespace,
/// workloads/default-zoned.fio on a zoned one.
pub const DEFAULT_WORKLOAD: &str = include_str!("../../../workloads/default.fio");
pub const DEFAULT_ZONED_WORKLOAD: &str = include_str!("../../../workloads/default-zoned.fio");

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
    /// Bring the device to a state first: none | seq | steady.
    #[arg(long, default_value = "none", value_parser = parse_pre)]
    pub precondition: Precondition,
    /// Namespace the workload, trace and preconditioning target.
    #[arg(long, default_value_t = 0)]
    pub namespace: usize,
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
    /// Check the device invariants (map, valid counts, pools) before and after the run.
    #[arg(long)]
    pub check_invariants: bool,
    /// Print the JSON report to stdout instead of the summary table.
    #[arg(long)]
    pub json_stdout: bool,
}

fn parse_pre(s: &str) -> Result<Precondition, Error> {
    s.parse()
}

pub fn workload(a: &RunArgs, cfg: &DeviceConfig) -> Result<(Workload, String), Error> {
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
        return Ok((Workload::Trace(r), format!("trace {}", t.display())));
    }
    let (text, name) = match &a.workload {
        Some(p) => (zonesim::error::read_text_file(p)?, p.display().to_string()),
        None => {
            let zoned = cfg
                .namespaces
                .get(a.namespace)
                .is_some_and(|n| n.kind == zonesim::config::NamespaceKind::Zoned);
            if zoned {
                (
                    DEFAULT_ZONED_WORKLOAD.to_string(),
                    "workloads/default-zoned.fio".into(),
                )
            } else {
                (DEFAULT_WORKLOAD.to_string(), "workloads/default.fio".into())
            }
        }
    };
    let jobs = parse_job_file(&text, &name)?;
    Ok((Workload::Jobs(jobs), format!("fio {name}")))
}

/// Loads the device; a name that is neither a preset nor a file lists the presets.
pub fn load_device(spec: &str, sets: &[String]) -> Result<DeviceConfig, Error> {
    zonesim::load_device(spec, sets).map_err(|e| match e {
        Error::Io { source, .. }
            if source.kind() == std::io::ErrorKind::NotFound && !spec.contains(['/', '.']) =>
        {
            let names: Vec<&str> = zonesim::config::PRESETS.iter().map(|p| p.0).collect();
            Error::Usage(format!(
                "--device {spec}: no such preset or file (presets: {})",
                names.join(", ")
            ))
        }
        e => e,
    })
}

pub fn run(a: RunArgs) -> Result<()> {
    let mut sets = a.sets.clone();
    if a.fs.as_deref() == Some("f2fs") {
        sets.insert(0, "fs.kind=f2fs".to_string());
    }
    let mut cfg = load_device(&a.device, &sets)?;
    if a.fs.as_deref() == Some("none") {
        cfg.fs = None;
    }
    if let Some(w) = zonesim::device::effective_spare_warning(&cfg) {
        eprintln!("zonesim: warning: {w}");
    }
    let opts = RunOptions {
        seed: a.seed,
        precondition: a.precondition,
        namespace: a.namespace,
        check_invariants: a.check_invariants || cfg!(debug_assertions),
    };
    if let Some(path) = &a.scenario {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        let sc = zonesim::host::scenario::Scenario::parse(&text, &path.display().to_string())?;
        let report = sim::scenario::run(&cfg, &sc, &opts)?;
        return emit(&a, &cfg, &path.display().to_string(), &report);
    }
    let (wl, wl_name) = workload(&a, &cfg)?;
    let started = Instant::now();
    let interactive = std::io::stderr().is_terminal();
    let mut bar: Option<ProgressBar> = None;
    let mut progress = |phase: &'static str, done: u64| {
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
    let report = sim::run(&cfg, &wl, &opts, &mut progress)?;
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    emit(&a, &cfg, &wl_name, &report)
}

/// Write the report: `--json FILE`, `--json-stdout` or the summary.
fn emit(
    a: &RunArgs,
    cfg: &DeviceConfig,
    wl_name: &str,
    report: &zonesim::stats::Report,
) -> Result<()> {
    if let Some(p) = &a.json {
        let text = serde_json::to_string_pretty(&report)?;
        std::fs::write(p, text + "\n").map_err(|e| Error::io(p, e))?;
    }
    if a.json_stdout {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", summary::render(cfg, wl_name, report));
    }
    Ok(())
}
