//! `zonesim._zonesim`: the native module under the `zonesim` Python package (python/zonesim).
//!
//! Thin, like the CLI: it turns Python arguments into a [`zonesim::RunSpec`], calls the one run
//! function of the library ([`zonesim::run`]) with the GIL released, and hands the report back
//! as the CLI's JSON text. Nothing of the simulation is here or in Python. Ctrl-C: the run's
//! progress observer takes the GIL every `zonesim::sim::TICK_COMPLETIONS` (16384) completed requests to
//! let Python see pending signals; a `KeyboardInterrupt` sets the run's stop flag and is raised
//! when it returns.

// pyo3 0.22's macros test a `gil-refs` cfg that newer rustc does not know.
#![allow(unexpected_cfgs)]
// pyo3 0.22's #[pyfunction] expands `?` conversions clippy calls useless.
#![allow(clippy::useless_conversion)]

use pyo3::create_exception;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use zonesim::sim::{PowerOff, Precondition, ReplayMode, RunOptions, TraceReplay};
use zonesim::{Control, RunSpec, WorkloadSpec};
use zonesim_experiments::{self as experiments, ExpOptions, Scale};

create_exception!(
    _zonesim,
    ConfigError,
    PyValueError,
    "Bad input (device key, job file, trace): the message the CLI prints."
);

create_exception!(
    _zonesim,
    InternalError,
    PyRuntimeError,
    "A simulator bug (an invariant check failed): not bad input; the CLI exits 70 for it."
);

/// A library error as the CLI shows it (one line, without the `zonesim: ` prefix): bad input
/// as `ConfigError`, a simulator bug as `InternalError`.
fn to_py(e: zonesim::Error) -> PyErr {
    let msg = zonesim::error::printable(&e.to_string());
    match e {
        zonesim::Error::Internal(_) => InternalError::new_err(msg),
        zonesim::Error::Io { ref source, .. } if source.kind() == std::io::ErrorKind::NotFound => {
            Python::with_gil(|py| match MISSING_FILE.get(py) {
                Some(t) => PyErr::from_type_bound(t.bind(py).clone(), msg),
                None => ConfigError::new_err(msg),
            })
        }
        _ => ConfigError::new_err(msg),
    }
}

/// `MissingFileError`: an input file that does not exist. A subclass of both `ConfigError` (bad
/// input, as the CLI treats it) and the built-in `FileNotFoundError`, so either `except` catches
/// it. Made at import with `type()`, since two exception bases need Python's own class machinery.
static MISSING_FILE: pyo3::sync::GILOnceCell<Py<pyo3::types::PyType>> =
    pyo3::sync::GILOnceCell::new();

fn missing_file_type(py: Python<'_>) -> PyResult<Bound<'_, pyo3::types::PyType>> {
    let bases = (
        py.get_type_bound::<ConfigError>(),
        py.get_type_bound::<pyo3::exceptions::PyFileNotFoundError>(),
    );
    let ns = pyo3::types::PyDict::new_bound(py);
    ns.set_item("__module__", "zonesim")?;
    ns.set_item(
        "__doc__",
        "An input file (job file, trace, device TOML) that does not exist: a ConfigError and a FileNotFoundError.",
    )?;
    let t = py
        .get_type_bound::<pyo3::types::PyType>()
        .call1(("MissingFileError", bases, ns))?;
    Ok(t.downcast_into::<pyo3::types::PyType>()?)
}

/// The names of the device presets, in `zonesim presets` order.
#[pyfunction]
fn presets() -> Vec<&'static str> {
    zonesim::config::PRESETS.iter().map(|p| p.0).collect()
}

/// Load and check a device (preset name or TOML path, then `KEY=VALUE` overrides); its config
/// as JSON. Raises `ConfigError` with the CLI's message.
#[pyfunction]
fn device_config(spec: &str, sets: Vec<String>) -> PyResult<String> {
    let cfg = zonesim::load_device(spec, &sets).map_err(to_py)?;
    Ok(serde_json::to_string(&cfg).expect("config serialises"))
}

/// The workload of a run: an aging scenario file, a trace, an fio job file or its text, or
/// the default.
fn workload_spec(
    workload: Option<PathBuf>,
    fio_text: Option<(String, String)>,
    trace: Option<TraceReplay>,
    scenario: Option<PathBuf>,
) -> WorkloadSpec {
    match (scenario, trace, fio_text, workload) {
        (Some(s), _, _, _) => WorkloadSpec::ScenarioFile(s),
        (None, Some(t), _, _) => WorkloadSpec::Trace(t),
        (None, None, Some((text, name)), _) => WorkloadSpec::FioText { text, name },
        (None, None, None, Some(p)) => WorkloadSpec::FioFile(p),
        (None, None, None, None) => WorkloadSpec::Default,
    }
}

/// A job's latency distribution in one direction: (job, op, [(latency us, fraction)]).
type Cdf = (String, &'static str, Vec<(f64, f64)>);

/// What `run` hands back: the JSON report, the headline metrics, the latency CDFs.
type RunOutput = (String, Vec<(&'static str, f64)>, Vec<Cdf>);

/// Run a simulation; returns (the JSON report, the headline metrics, the latency CDFs).
#[pyfunction]
#[pyo3(signature = (device, sets, workload=None, fio_text=None, trace=None, seed=1,
    precondition="none", namespace=None, as_fast_as_possible=false, qd=32, time_scale=1.0,
    check_invariants=false, progress=None, scenario=None, power_off_at_request=None,
    power_off_at_us=None))]
#[allow(clippy::too_many_arguments)]
fn run(
    py: Python<'_>,
    device: &str,
    sets: Vec<String>,
    workload: Option<PathBuf>,
    fio_text: Option<(String, String)>,
    trace: Option<PathBuf>,
    seed: u64,
    precondition: &str,
    namespace: Option<usize>,
    as_fast_as_possible: bool,
    qd: u32,
    time_scale: f64,
    check_invariants: bool,
    progress: Option<PyObject>,
    scenario: Option<PathBuf>,
    power_off_at_request: Option<u64>,
    power_off_at_us: Option<f64>,
) -> PyResult<RunOutput> {
    let power_off = match (power_off_at_request, power_off_at_us) {
        (Some(_), Some(_)) => {
            return Err(to_py(zonesim::Error::Usage(
                "power_off_at_request and power_off_at_us: give one of them".into(),
            )))
        }
        (Some(0), None) => {
            return Err(to_py(zonesim::Error::Usage(
                "power_off_at_request must be at least 1".into(),
            )))
        }
        (Some(n), None) => Some(PowerOff::AtRequest(n)),
        (None, Some(us)) if !(0.0..=1e12).contains(&us) => {
            return Err(to_py(zonesim::Error::Usage(format!(
                "power_off_at_us must be a time in µs in [0, 1e12] (got {us})"
            ))))
        }
        (None, Some(us)) => Some(PowerOff::AtUs(us)),
        (None, None) => None,
    };
    let cfg = zonesim::load_device(device, &sets).map_err(to_py)?;
    let trace = trace.map(|t| {
        let mode = if as_fast_as_possible {
            ReplayMode::AsFastAsPossible { qd }
        } else {
            ReplayMode::Timed { time_scale }
        };
        TraceReplay::new(t, mode)
    });
    let main_namespace = cfg.main_namespace as usize;
    let mut spec = RunSpec::new(cfg, workload_spec(workload, fio_text, trace, scenario));
    spec.options = RunOptions {
        seed,
        precondition: precondition.parse::<Precondition>().map_err(to_py)?,
        namespace: namespace.unwrap_or(main_namespace),
        check_invariants,
        power_off,
    };
    let stop = AtomicBool::new(false);
    let raised: Mutex<Option<PyErr>> = Mutex::new(None);
    let result = py.allow_threads(|| {
        let mut observe = |t: &zonesim::Tick| {
            Python::with_gil(|py| {
                let r = py.check_signals().and_then(|()| match &progress {
                    Some(cb) => cb.call1(py, (t.phase, t.completed, t.fraction)).map(drop),
                    None => Ok(()),
                });
                if let Err(e) = r {
                    *raised.lock().expect("not poisoned") = Some(e);
                    stop.store(true, Ordering::Relaxed);
                }
            })
        };
        zonesim::run(
            &spec,
            &mut Control {
                progress: Some(&mut observe),
                stop: Some(&stop),
                finish: None,
            },
        )
    });
    if let Some(e) = raised.into_inner().expect("not poisoned") {
        return Err(e);
    }
    let report = result.map_err(to_py)?;
    let json = serde_json::to_string_pretty(&report).expect("report serialises");
    let headline = report.headline();
    let cdfs = report
        .latency_cdfs
        .into_iter()
        .map(|c| (c.job, c.op, c.points))
        .collect();
    Ok((json, headline, cdfs))
}

/// The reproductions: (name, title).
#[pyfunction]
fn experiment_list() -> Vec<(&'static str, &'static str)> {
    experiments::all()
        .iter()
        .map(|e| (e.name, e.title))
        .collect()
}

/// Run one reproduction at `scale` (quick, full or paper); its outcome (rows with id,
/// source, kind, status) as JSON, and the run's wall time in seconds.
#[pyfunction]
#[pyo3(signature = (name, scale="full", seed=1))]
fn experiment(py: Python<'_>, name: &str, scale: &str, seed: u64) -> PyResult<(String, f64)> {
    let (out, _, wall_s) = run_experiment(py, name, scale, seed)?;
    Ok((
        serde_json::to_string(&out).expect("outcome serialises"),
        wall_s,
    ))
}

/// Run experiment `name` at `scale` with the GIL released: its outcome, scale and wall time.
fn run_experiment(
    py: Python<'_>,
    name: &str,
    scale: &str,
    seed: u64,
) -> PyResult<(experiments::Outcome, Scale, f64)> {
    let e = experiments::find(name).map_err(to_py)?;
    let scale: Scale = scale
        .parse()
        .map_err(|m: String| ConfigError::new_err(format!("scale {m}")))?;
    let t = std::time::Instant::now();
    let out = py
        .allow_threads(|| (e.run)(&ExpOptions { seed, scale }))
        .map_err(to_py)?;
    Ok((out, scale, t.elapsed().as_secs_f64()))
}

/// The points of a sweep grid: every combination of the values of `grid` (key, values as
/// `--set` literals), the last key varying fastest; each point a list of `KEY=VALUE`. A grid
/// whose points times `seeds` are more than `zonesim::sim::sweep::MAX_RUNS` runs is a
/// `ValueError`, raised before any point is made.
#[pyfunction]
#[pyo3(signature = (grid, seeds = 1))]
fn grid_points(grid: Vec<(String, Vec<String>)>, seeds: usize) -> PyResult<Vec<Vec<String>>> {
    zonesim::sim::sweep::count_runs(&grid, seeds, "grid").map_err(to_py)?;
    Ok(zonesim::sim::sweep::points(&grid))
}

/// Refuses a sweep's job text whose jobs write fio's logs (`ConfigError`), as `zonesim sweep`
/// does: `zonesim::sim::sweep::refuse_fio_logs`. Job text that does not parse is left to the
/// points, whose rows carry the error, as before.
#[pyfunction]
fn refuse_fio_logs(text: &str, origin: &str) -> PyResult<()> {
    match zonesim::sim::sweep::refuse_fio_logs(text, origin) {
        Err(e @ zonesim::Error::Usage(_)) => Err(to_py(e)),
        _ => Ok(()),
    }
}

/// The names of the headline metrics of a run (a sweep's columns), in order.
#[pyfunction]
fn headline_names() -> Vec<&'static str> {
    zonesim::stats::Report::headline_names().to_vec()
}

/// A sweep file (`zonesim sweep` format) as JSON: device, workload, seeds, precondition,
/// namespace, sets (`KEY=VALUE`) and grid (`[key, [literal, ...]]`).
#[pyfunction]
fn sweep_file(path: PathBuf) -> PyResult<String> {
    let s = zonesim::sim::sweep::SweepFile::load(&path).map_err(to_py)?;
    Ok(serde_json::json!({
        "device": s.device,
        "workload": s.workload,
        "seeds": s.seeds,
        "precondition": s.precondition.name(),
        "namespace": s.namespace,
        "sets": s.sets,
        "grid": s.grid,
    })
    .to_string())
}

/// The scoreboard of the records in `dir` (default: those built in): (JSON, markdown).
#[pyfunction]
#[pyo3(signature = (dir=None))]
fn scoreboard(dir: Option<PathBuf>) -> PyResult<(String, String)> {
    use zonesim_experiments::scoreboard as sb;
    let records = match &dir {
        Some(d) => sb::from_dir(d),
        None => sb::embedded(),
    }
    .map_err(to_py)?;
    let board = sb::score(&records).map_err(to_py)?;
    let md = format!(
        "{}\n{}",
        sb::totals_markdown(&board),
        sb::results_markdown(&board)
    );
    Ok((
        serde_json::to_string(&board).expect("scoreboard serialises"),
        md,
    ))
}

/// One experiment's record as `zonesim experiment run NAME --out DIR` writes it.
#[pyfunction]
#[pyo3(signature = (name, scale, seed=1))]
fn experiment_record(py: Python<'_>, name: &str, scale: &str, seed: u64) -> PyResult<String> {
    let (out, scale, wall_s) = run_experiment(py, name, scale, seed)?;
    Ok(experiments::scoreboard::Recorded::text(
        &out, scale, seed, wall_s,
    ))
}

#[pymodule]
fn _zonesim(m: &Bound<'_, PyModule>) -> PyResult<()> {
    zonesim::stats::provenance::set_commit(env!("ZONESIM_GIT_COMMIT"));
    m.add("ConfigError", m.py().get_type_bound::<ConfigError>())?;
    m.add("InternalError", m.py().get_type_bound::<InternalError>())?;
    let missing = missing_file_type(m.py())?;
    let _ = MISSING_FILE.set(m.py(), missing.clone().unbind());
    m.add("MissingFileError", missing)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(presets, m)?)?;
    m.add_function(wrap_pyfunction!(device_config, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(experiment_list, m)?)?;
    m.add_function(wrap_pyfunction!(scoreboard, m)?)?;
    m.add_function(wrap_pyfunction!(experiment_record, m)?)?;
    m.add_function(wrap_pyfunction!(experiment, m)?)?;
    m.add_function(wrap_pyfunction!(grid_points, m)?)?;
    m.add_function(wrap_pyfunction!(refuse_fio_logs, m)?)?;
    m.add_function(wrap_pyfunction!(headline_names, m)?)?;
    m.add_function(wrap_pyfunction!(sweep_file, m)?)?;
    Ok(())
}
