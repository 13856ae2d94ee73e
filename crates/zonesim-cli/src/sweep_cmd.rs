//! `zonesim sweep SWEEP.toml --out results.csv --workers N`: every point of a grid of device
//! keys (file format: `zonesim::sim::sweep`, docs/python.md) for every seed, `N` runs at a time
//! (default: one per core; each run stays on one thread, so the rows are the same for any `N`)
//! on a local pool of threads; one CSV row per point and seed (grid values, seed, the headline
//! metrics, `error`), written as the rows complete, in grid order: the grid is counted, never
//! expanded, and memory holds only the rows in flight. A point that fails keeps its row with
//! the message; the exit code is 1 then, 2 for a bad sweep file, and 2 with the message when
//! every point failed with the same one (the file's job file or namespace is at fault).

use anyhow::Result;
use indicatif::{ProgressBar, ProgressStyle};
use std::io::{IsTerminal, Write as _};
use std::path::PathBuf;
use std::sync::{Condvar, Mutex};
use zonesim::sim::sweep::{count_runs, point, SweepFile};
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
    #[arg(long, visible_alias = "jobs", default_value_t = 0, allow_negative_numbers = true, value_parser = clap::value_parser!(u32).range(0..=1024))]
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
        power_off: None,
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
    zonesim::sim::sweep::refuse_fio_logs(&text, &p.display().to_string())
}

/// A CSV field: quoted when it holds a comma, quote or newline.
/// A grid value as its CSV cell: a string as its text (TOML's quoting and escapes undone, a
/// multi-line string included), anything else as written.
fn grid_cell(literal: &str) -> String {
    match toml::from_str::<toml::Table>(&format!("v = {literal}")) {
        Ok(t) => match t.get("v") {
            Some(toml::Value::String(s)) => s.clone(),
            _ => literal.to_string(),
        },
        Err(_) => literal.to_string(),
    }
}

fn field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// Rows finished ahead of the next row to write that a worker may add before it waits: the
/// rows held in memory are bounded by the work in flight, whatever the grid's size.
const AHEAD_PER_WORKER: u64 = 4;

/// The rows in flight: taken, finished out of order, and written in task order.
struct Rows {
    /// The next task to take and the next row to write.
    next: u64,
    written: u64,
    /// Finished rows waiting for the rows before them.
    done: std::collections::BTreeMap<u64, String>,
    failed: u64,
    /// The first failure, and whether every failure so far had its message.
    first_error: Option<Error>,
    same_error: bool,
    write_error: Option<std::io::Error>,
}

/// A finished task's CSV row; a failure counted in `rows`.
fn row(s: &SweepFile, t: &Task, r: PointResult, rows: &mut Rows) -> String {
    let metrics = zonesim::stats::Report::headline_names().len();
    let mut row: Vec<String> = t
        .sets
        .iter()
        .map(|kv| field(&grid_cell(kv.split_once('=').map_or("", |x| x.1))))
        .collect();
    debug_assert_eq!(row.len(), s.grid.len());
    row.push(t.seed.to_string());
    match r {
        Ok(h) => {
            row.extend(h.iter().map(|(_, v)| v.to_string()));
            row.push(String::new());
        }
        Err(e) => {
            rows.failed += 1;
            row.extend(std::iter::repeat_n(String::new(), metrics));
            row.push(field(&e.to_string()));
            match &rows.first_error {
                None => rows.first_error = Some(e),
                Some(f) => rows.same_error &= f.to_string() == e.to_string(),
            }
        }
    }
    let mut line = row.join(",");
    line.push('\n');
    line
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
    // The base device and the job file must load: a bad one is the file's error, not every
    // point's.
    let base = zonesim::load_device(&s.device, &s.sets)?;
    refuse_logs(&s)?;
    if let Some(w) = &s.workload {
        RunSpec::new(base, WorkloadSpec::FioFile(w.clone())).resolve_workload()?;
    }
    // Counted, never expanded: each task makes its point from its index.
    let runs = count_runs(&s.grid, s.seeds.len(), &a.file.display().to_string())?;
    let seeds = s.seeds.len() as u64;
    let out = std::fs::File::create(&a.out).map_err(|e| Error::io(&a.out, e))?;
    let mut out = std::io::BufWriter::new(out);
    let mut header: Vec<String> = s.grid.iter().map(|(k, _)| field(k)).collect();
    header.push("seed".into());
    header.extend(
        zonesim::stats::Report::headline_names()
            .iter()
            .map(|m| m.to_string()),
    );
    header.push("error".into());
    writeln!(out, "{}", header.join(",")).map_err(|e| Error::io(&a.out, e))?;
    let bar = if std::io::stderr().is_terminal() {
        let b = ProgressBar::new(runs);
        b.set_style(
            ProgressStyle::with_template("{bar:30} {pos}/{len} runs {elapsed}")
                .expect("valid template"),
        );
        b
    } else {
        ProgressBar::hidden()
    };
    let workers = match a.workers {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get() as u32),
        n => n,
    }
    .min(runs.min(u32::MAX as u64) as u32);
    let ahead = AHEAD_PER_WORKER * workers as u64;
    let rows = Mutex::new(Rows {
        next: 0,
        written: 0,
        done: Default::default(),
        failed: 0,
        first_error: None,
        same_error: true,
        write_error: None,
    });
    let turn = Condvar::new();
    let out = Mutex::new(out);
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| loop {
                let i = {
                    let mut r = rows.lock().expect("not poisoned");
                    while r.next < runs && r.next >= r.written + ahead {
                        r = turn.wait(r).expect("not poisoned");
                    }
                    if r.next >= runs {
                        break;
                    }
                    r.next += 1;
                    r.next - 1
                };
                let t = Task {
                    sets: point(&s.grid, i / seeds),
                    seed: s.seeds[(i % seeds) as usize],
                };
                let res = run_point(&s, &t);
                let mut guard = rows.lock().expect("not poisoned");
                let r = &mut *guard;
                let line = row(&s, &t, res, r);
                r.done.insert(i, line);
                let mut w = out.lock().expect("not poisoned");
                while let Some(line) = r.done.remove(&r.written) {
                    if let Err(e) = w.write_all(line.as_bytes()) {
                        r.write_error.get_or_insert(e);
                    }
                    r.written += 1;
                }
                drop(w);
                drop(guard);
                turn.notify_all();
                bar.inc(1);
            });
        }
    });
    bar.finish_and_clear();
    let r = rows.into_inner().expect("not poisoned");
    let mut out = out.into_inner().expect("not poisoned");
    if let Some(e) = r.write_error.or_else(|| out.flush().err()) {
        return Err(Error::io(&a.out, e).into());
    }
    println!("{runs} rows ({} failed) -> {}", r.failed, a.out.display());
    match r.first_error {
        // Every point failed alike: the sweep's own input is at fault (a job file, a
        // namespace), so its message and exit code are the sweep's.
        Some(e) if r.failed == runs && r.same_error => Err(e.into()),
        Some(_) => std::process::exit(1),
        None => Ok(()),
    }
}
