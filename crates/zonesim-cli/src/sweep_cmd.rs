//! `zonesim sweep SWEEP.toml --out results.csv --workers N`: every point of a grid of device
//! keys (file format: `zonesim::sim::sweep`, docs/python.md) for every seed, `N` runs at a time
//! (default: one per core; each run stays on one thread, so the rows are the same for any `N`)
//! on a local pool of threads; one CSV row per point and seed (grid values, seed, the headline
//! metrics, `error`). A point that fails keeps its row with the message; the exit code is 1
//! then, 2 for a bad sweep file.

use anyhow::Result;
use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use zonesim::sim::sweep::{points, SweepFile};
use zonesim::sim::RunOptions;
use zonesim::{Control, Error, RunSpec, WorkloadSpec};

#[derive(clap::Args)]
pub struct SweepArgs {
    /// The sweep file (TOML: device, workload, seeds, [set], [grid]).
    pub file: PathBuf,
    /// Results as CSV (Parquet: `python -m zonesim sweep`).
    #[arg(long)]
    pub out: PathBuf,
    /// Runs at a time (`--jobs` too); 0: one per core (each run stays on one thread).
    #[arg(long, visible_alias = "jobs", default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=1024))]
    pub workers: u32,
}

/// One point and seed: its overrides, and its headline metrics or why it failed.
struct Task {
    sets: Vec<String>,
    seed: u64,
}

/// A point's headline metrics, or why it failed.
type PointResult = Result<Vec<(&'static str, f64)>, Error>;

fn run_point(s: &SweepFile, t: &Task) -> PointResult {
    let sets: Vec<String> = s.sets.iter().chain(&t.sets).cloned().collect();
    let cfg = zonesim::load_device(&s.device, &sets)?;
    let workload = match &s.workload {
        Some(p) => WorkloadSpec::FioFile(p.clone()),
        None => WorkloadSpec::Default,
    };
    let mut spec = RunSpec::new(cfg, workload);
    spec.options = RunOptions {
        seed: t.seed,
        precondition: s.precondition,
        namespace: s.namespace,
        check_invariants: cfg!(debug_assertions),
    };
    let r = zonesim::run(&spec, &mut Control::none())?;
    Ok(r.headline())
}

/// fio's logs (`write_lat_log`, ...) name their files after the job, so every point of a
/// sweep would write the same files at once: refused.
fn refuse_logs(s: &SweepFile) -> Result<(), Error> {
    let Some(p) = &s.workload else {
        return Ok(());
    };
    let text = zonesim::error::read_text_file(p)?;
    let jobs = zonesim::host::fio::parse_job_file(&text, &p.display().to_string())?;
    match jobs.iter().find(|j| j.logs.any()) {
        Some(j) => Err(Error::Usage(format!(
            "{}: job '{}' writes fio logs (write_lat_log, write_bw_log, write_iops_log), which every point of the sweep would write to the same files; drop them from the sweep's job file",
            p.display(),
            j.name
        ))),
        None => Ok(()),
    }
}

/// A CSV field: quoted when it holds a comma, quote or newline.
fn field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

pub fn run(a: SweepArgs) -> Result<()> {
    if a.out.extension().is_some_and(|e| e != "csv") {
        return Err(Error::Usage(format!(
            "--out {}: zonesim sweep writes .csv (Parquet: python -m zonesim sweep)",
            a.out.display()
        ))
        .into());
    }
    let s = SweepFile::load(&a.file)?;
    // The base device must load: a bad base is the file's error, not every point's.
    zonesim::load_device(&s.device, &s.sets)?;
    refuse_logs(&s)?;
    let tasks: Vec<Task> = points(&s.grid)
        .into_iter()
        .flat_map(|p| {
            s.seeds.iter().map(move |&seed| Task {
                sets: p.clone(),
                seed,
            })
        })
        .collect();
    let results: Vec<Mutex<Option<PointResult>>> = tasks.iter().map(|_| Mutex::new(None)).collect();
    let bar = if std::io::stderr().is_terminal() {
        let b = ProgressBar::new(tasks.len() as u64);
        b.set_style(
            ProgressStyle::with_template("{bar:30} {pos}/{len} runs {elapsed}")
                .expect("valid template"),
        );
        b
    } else {
        ProgressBar::hidden()
    };
    let next = AtomicUsize::new(0);
    let workers = match a.workers {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get() as u32),
        n => n,
    };
    std::thread::scope(|scope| {
        for _ in 0..workers.min(tasks.len() as u32) {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(t) = tasks.get(i) else { break };
                let r = run_point(&s, t);
                *results[i].lock().expect("not poisoned") = Some(r);
                bar.inc(1);
            });
        }
    });
    bar.finish_and_clear();
    let metrics: Vec<&str> = zonesim::stats::Report::headline_names().to_vec();
    let mut csv = String::new();
    let mut header: Vec<String> = s.grid.iter().map(|(k, _)| field(k)).collect();
    header.push("seed".into());
    header.extend(metrics.iter().map(|m| m.to_string()));
    header.push("error".into());
    csv.push_str(&header.join(","));
    csv.push('\n');
    let mut failed = 0;
    for (t, r) in tasks.iter().zip(results) {
        let mut row: Vec<String> = t
            .sets
            .iter()
            .map(|kv| field(kv.split_once('=').map_or("", |x| x.1).trim_matches('"')))
            .collect();
        row.push(t.seed.to_string());
        match r
            .into_inner()
            .expect("not poisoned")
            .expect("every task ran")
        {
            Ok(h) => {
                row.extend(h.iter().map(|(_, v)| v.to_string()));
                row.push(String::new());
            }
            Err(e) => {
                failed += 1;
                row.extend(metrics.iter().map(|_| String::new()));
                row.push(field(&e.to_string()));
            }
        }
        csv.push_str(&row.join(","));
        csv.push('\n');
    }
    std::fs::write(&a.out, csv).map_err(|e| Error::io(&a.out, e))?;
    println!(
        "{} rows ({failed} failed) -> {}",
        tasks.len(),
        a.out.display()
    );
    if failed > 0 {
        std::process::exit(1);
    }
    Ok(())
}
