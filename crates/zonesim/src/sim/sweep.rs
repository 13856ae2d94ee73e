//! Parameter sweeps: a grid of device keys, expanded into points, each point run with
//! [`super::execute`] like any run. The CLI (`zonesim sweep SWEEP.toml`) runs the points on a
//! local pool of threads; the Python package (`zonesim.sweep`) on a local pool or Ray. Both
//! expand the grid here and report [`crate::stats::Report::headline`] per point and seed.
//!
//! A sweep file (docs/python.md, "Sweeps from the command line"):
//!
//! ```toml
//! device = "ufs-conventional"        # preset or TOML path (default ufs-conventional)
//! workload = "examples/mixed.fio"    # fio job file (default: the namespace's default)
//! seeds = [1, 2]                     # default [1]
//! precondition = "seq"               # none | seq | steady | steady-fast (default none)
//! namespace = 0
//! [set]                              # fixed overrides (optional)
//! "nand.channels" = 4
//! [grid]                             # key = [values]; every combination is a point
//! "ftl.overprovisioning" = [0.07, 0.28]
//! "ftl.gc.victim" = ["greedy", "fifo"]
//! ```

use super::Precondition;
use crate::error::{Error, Result};
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// The most runs a sweep may ask for (points x seeds): counted before any point is expanded,
/// so a typo in a grid is refused at once instead of filling the memory.
pub const MAX_RUNS: u64 = 1_000_000;

/// The runs of `grid` x `seeds` (the product of the value counts), or the error naming the
/// grid when it exceeds [`MAX_RUNS`] (`origin`: where the grid comes from).
/// Refuses a sweep's job file (`text`, read from `origin`) whose jobs write fio's logs
/// (`write_lat_log`, `write_bw_log`, `write_iops_log`): every point of the sweep would write the
/// same log files at once. The CLI's and Python's sweeps both ask here.
pub fn refuse_fio_logs(text: &str, origin: &str) -> Result<()> {
    let jobs = crate::host::fio::parse_job_file(text, origin)?;
    match jobs.iter().find(|j| j.logs.any()) {
        Some(j) => Err(Error::Usage(format!(
            "{origin}: job '{}' writes fio logs (write_lat_log, write_bw_log, write_iops_log), which every point of the sweep would write to the same files; drop them from the sweep's job file",
            j.name
        ))),
        None => Ok(()),
    }
}

pub fn count_runs(grid: &[(String, Vec<String>)], seeds: usize, origin: &str) -> Result<u64> {
    let n = grid
        .iter()
        .try_fold(seeds as u64, |n, (_, v)| n.checked_mul(v.len() as u64))
        .filter(|&n| n <= MAX_RUNS);
    n.ok_or_else(|| {
        let sizes: Vec<String> = grid.iter().map(|(_, v)| v.len().to_string()).collect();
        Error::config(
            "grid",
            format!(
                "{} points x {seeds} seeds are more than {MAX_RUNS} runs (in {origin}); split the sweep",
                sizes.join(" x ")
            ),
        )
    })
}

/// Point `i` of the grid (in [`points`] order) without expanding the others: the grid's
/// value lists read as the digits of `i`, the last key the lowest. `i` below the product of
/// the value counts ([`count_runs`] with one seed).
pub fn point(grid: &[(String, Vec<String>)], mut i: u64) -> Vec<String> {
    let mut out = vec![String::new(); grid.len()];
    for (k, (key, values)) in grid.iter().enumerate().rev() {
        let n = values.len() as u64;
        out[k] = format!("{key}={}", values[(i % n) as usize]);
        i /= n;
    }
    out
}

/// Every combination of the grid's values, in key order with the last key varying fastest;
/// each point is the list of its `KEY=VALUE` overrides (values as `--set` literals).
pub fn points(grid: &[(String, Vec<String>)]) -> Vec<Vec<String>> {
    let mut out: Vec<Vec<String>> = vec![Vec::new()];
    for (key, values) in grid {
        out = out
            .iter()
            .flat_map(|p| {
                values.iter().map(move |v| {
                    let mut q = p.clone();
                    q.push(format!("{key}={v}"));
                    q
                })
            })
            .collect();
    }
    out
}

/// A sweep file as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSweep {
    #[serde(default = "default_device")]
    device: String,
    workload: Option<PathBuf>,
    #[serde(default = "default_seeds")]
    seeds: Vec<u64>,
    #[serde(default)]
    precondition: Option<String>,
    #[serde(default)]
    namespace: usize,
    #[serde(default)]
    set: toml::Table,
    grid: toml::Table,
}

fn default_device() -> String {
    "ufs-conventional".into()
}

fn default_seeds() -> Vec<u64> {
    vec![1]
}

/// A parsed sweep file: the base run, fixed overrides and the grid.
#[derive(Debug, Clone)]
pub struct SweepFile {
    pub device: String,
    /// The job file, relative paths resolved against the sweep file's folder.
    pub workload: Option<PathBuf>,
    pub seeds: Vec<u64>,
    pub precondition: Precondition,
    pub namespace: usize,
    /// Fixed `KEY=VALUE` overrides of every point.
    pub sets: Vec<String>,
    /// Grid keys and their values as `--set` literals, in key order.
    pub grid: Vec<(String, Vec<String>)>,
}

impl SweepFile {
    pub fn load(path: &Path) -> Result<SweepFile> {
        let origin = path.display().to_string();
        let text = crate::error::read_text_file(path)?;
        let raw: RawSweep = toml::from_str(&text).map_err(|e| {
            let line = e
                .span()
                .map(|s| text[..s.start.min(text.len())].lines().count().max(1) as u64)
                .unwrap_or(0);
            let msg = e.message().trim().replace('\n', "; ");
            // Name the key of the line at fault (`namespace = 1e99`): toml's value errors do not.
            let key = text
                .lines()
                .nth(line.saturating_sub(1) as usize)
                .and_then(|l| l.split_once('='))
                .map(|(k, _)| k.trim().trim_matches('"'))
                .filter(|k| !k.is_empty() && !k.starts_with('['));
            let msg = key.map_or(msg.clone(), |k| format!("{k}: {msg}"));
            Error::parse(&origin, line, msg)
        })?;
        let dir = path.parent().unwrap_or(Path::new("."));
        let relative = |p: &str| -> String {
            if (p.contains('/') || p.ends_with(".toml")) && Path::new(p).is_relative() {
                dir.join(p).display().to_string()
            } else {
                p.to_string()
            }
        };
        // A value as a `--set` literal (a datetime as its own text, not serde's wrapper).
        let literal = |v: &toml::Value| match v {
            toml::Value::Datetime(d) => d.to_string(),
            v => v.to_string(),
        };
        let mut grid = Vec::new();
        for (k, v) in &raw.grid {
            let values = match v {
                toml::Value::Array(a) if !a.is_empty() => a.iter().map(literal).collect(),
                _ => {
                    return Err(Error::config(
                        format!("grid.{k}"),
                        format!("must be a non-empty array of values (in {origin})"),
                    ))
                }
            };
            grid.push((k.clone(), values));
        }
        if raw.seeds.is_empty() {
            return Err(Error::config(
                "seeds",
                format!("must not be empty (in {origin})"),
            ));
        }
        count_runs(&grid, raw.seeds.len(), &origin)?;
        Ok(SweepFile {
            device: relative(&raw.device),
            workload: raw.workload.map(|w| dir.join(w)),
            seeds: raw.seeds,
            precondition: raw.precondition.as_deref().unwrap_or("none").parse()?,
            namespace: raw.namespace,
            sets: raw
                .set
                .iter()
                .map(|(k, v)| format!("{k}={}", literal(v)))
                .collect(),
            grid,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_are_the_cartesian_product_last_key_fastest() {
        let g = vec![
            ("a".to_string(), vec!["1".to_string(), "2".to_string()]),
            (
                "b".to_string(),
                vec!["x".to_string(), "y".to_string(), "z".to_string()],
            ),
        ];
        let p = points(&g);
        assert_eq!(p.len(), 6);
        assert_eq!(p[0], vec!["a=1", "b=x"]);
        assert_eq!(p[1], vec!["a=1", "b=y"]);
        assert_eq!(p[5], vec!["a=2", "b=z"]);
        assert_eq!(points(&[]), vec![Vec::<String>::new()]);
        for (i, q) in p.iter().enumerate() {
            assert_eq!(&point(&g, i as u64), q);
        }
        assert_eq!(point(&[], 0), Vec::<String>::new());
    }

    #[test]
    fn sweep_files_parse_and_reject_unknown_keys() {
        let dir = std::env::temp_dir().join(format!("zonesim-sweep-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("s.toml");
        std::fs::write(
            &f,
            "workload = \"j.fio\"\nseeds = [1, 2]\n[set]\n\"nand.channels\" = 4\n[grid]\n\"ftl.gc.victim\" = [\"greedy\", \"fifo\"]\n\"ftl.overprovisioning\" = [0.07]\n",
        )
        .unwrap();
        let s = SweepFile::load(&f).unwrap();
        assert_eq!(s.device, "ufs-conventional");
        assert_eq!(s.workload, Some(dir.join("j.fio")));
        assert_eq!(s.sets, vec!["nand.channels=4"]);
        assert_eq!(s.grid[0].1, vec!["\"greedy\"", "\"fifo\""]);
        assert_eq!(points(&s.grid).len(), 2);
        std::fs::write(&f, "[grid]\nx = [1]\nbogus = 1\n").unwrap();
        assert!(SweepFile::load(&f)
            .unwrap_err()
            .to_string()
            .contains("grid.bogus"));
        std::fs::write(&f, "grids = 1\n").unwrap();
        assert!(SweepFile::load(&f).is_err());
        std::fs::remove_dir_all(&dir).ok();
    }
}
