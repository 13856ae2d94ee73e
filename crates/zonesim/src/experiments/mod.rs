//! Reproductions of published experiments (design.md §3). Each experiment builds its devices
//! and workloads, *simulates* them, and prints our number beside the reference's, with the
//! tolerance and why. Reference values are printed, never used in the computation.

mod conzone_buffer_conflict;
mod conzone_common;
mod conzone_hybrid_read;
mod conzone_l2p_search;
mod conzone_seq;
pub mod supgc_fio;

use crate::error::{Error, Result};
use serde::Serialize;
use std::fmt::Write;

/// One compared quantity.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    /// The case, e.g. "page mapping, 16 MiB range".
    pub case: String,
    /// The quantity, e.g. "KIOPS" or "change vs baseline %".
    pub metric: String,
    pub ours: f64,
    /// The published value, if the reference gives one for this row.
    pub reference: Option<f64>,
    /// The acceptance band, in words (e.g. "within 25%", "same sign").
    pub tolerance: String,
    /// Whether `ours` is within the tolerance (None when there is no reference).
    pub within: Option<bool>,
}

/// The result of one experiment run.
#[derive(Debug, Clone, Serialize)]
pub struct Outcome {
    pub name: String,
    pub title: String,
    /// Where the reference numbers come from (seed file and section).
    pub source: String,
    pub rows: Vec<Row>,
    /// Why our magnitudes may differ, which parameters the reference hides, etc.
    pub notes: Vec<String>,
}

/// Options common to all experiments.
#[derive(Debug, Clone, Copy)]
pub struct ExpOptions {
    pub seed: u64,
    /// Smaller runs (for tests and CI); same structure.
    pub quick: bool,
}

/// A runnable reproduction.
pub struct Experiment {
    pub name: &'static str,
    pub title: &'static str,
    pub run: fn(&ExpOptions) -> Result<Outcome>,
}

/// All experiments, in listing order.
pub fn all() -> Vec<Experiment> {
    vec![
        Experiment {
            name: "conzone-hybrid-read",
            title: "ConZone §6.3: 4 KiB random reads, page vs hybrid mapping over 1 MiB / 16 MiB / 1 GiB",
            run: conzone_hybrid_read::run_exp,
        },
        Experiment {
            name: "conzone-buffer-conflict",
            title: "ConZone §6.3: write-buffer conflicts, two writers, modulo mapping",
            run: conzone_buffer_conflict::run_exp,
        },
        Experiment {
            name: "conzone-l2p-search",
            title: "ConZone §6.6: MULTIPLE vs BITMAP L2P search at ~27% misses",
            run: conzone_l2p_search::run_exp,
        },
        Experiment {
            name: "conzone-seq",
            title: "ConZone+ §6.2: 512 KiB sequential I/O, 1 and 4 threads, zoned vs block",
            run: conzone_seq::run_exp,
        },
        Experiment {
            name: "supgc-fio",
            title: "SUP-GC / Bloom / single-stream GC placement under fio randrw (seed 003 §5.3.2)",
            run: supgc_fio::run,
        },
    ]
}

pub fn find(name: &str) -> Result<Experiment> {
    all().into_iter().find(|e| e.name == name).ok_or_else(|| {
        let names: Vec<&str> = all().iter().map(|e| e.name).collect();
        Error::Usage(format!(
            "unknown experiment '{name}'; known: {}",
            names.join(", ")
        ))
    })
}

/// Relative change of `x` against `base`, in percent.
pub fn pct_change(x: f64, base: f64) -> f64 {
    if base == 0.0 {
        0.0
    } else {
        (x / base - 1.0) * 100.0
    }
}

/// A row whose tolerance is an absolute band around the reference.
pub fn row_abs(case: &str, metric: &str, ours: f64, reference: f64, band: f64) -> Row {
    Row {
        case: case.into(),
        metric: metric.into(),
        ours,
        reference: Some(reference),
        tolerance: format!("within ±{band}"),
        within: Some((ours - reference).abs() <= band),
    }
}

/// A row whose tolerance is a relative band around the reference.
pub fn row_rel(case: &str, metric: &str, ours: f64, reference: f64, frac: f64) -> Row {
    Row {
        case: case.into(),
        metric: metric.into(),
        ours,
        reference: Some(reference),
        tolerance: format!("within {:.0}%", frac * 100.0),
        within: Some((ours - reference).abs() <= frac * reference.abs()),
    }
}

/// A row that only has to agree with the reference in sign (direction of the effect).
pub fn row_sign(case: &str, metric: &str, ours: f64, reference: f64) -> Row {
    Row {
        case: case.into(),
        metric: metric.into(),
        ours,
        reference: Some(reference),
        tolerance: "same direction".into(),
        within: Some(ours.signum() == reference.signum()),
    }
}

/// A row with no reference value (context).
pub fn row_info(case: &str, metric: &str, ours: f64) -> Row {
    Row {
        case: case.into(),
        metric: metric.into(),
        ours,
        reference: None,
        tolerance: "-".into(),
        within: None,
    }
}

/// The table printed by `zonesim experiment run`.
pub fn render(o: &Outcome) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "{}: {}", o.name, o.title);
    let _ = writeln!(s, "reference: {}", o.source);
    let _ = writeln!(s);
    let _ = writeln!(
        s,
        "{:<40} {:<26} {:>12} {:>12}  {:<18} ok",
        "case", "metric", "zonesim", "reference", "tolerance"
    );
    for r in &o.rows {
        let reference = r
            .reference
            .map(|v| format!("{v:.2}"))
            .unwrap_or_else(|| "-".into());
        let ok = match r.within {
            Some(true) => "yes",
            Some(false) => "NO",
            None => "",
        };
        let _ = writeln!(
            s,
            "{:<40} {:<26} {:>12.2} {:>12}  {:<18} {}",
            r.case, r.metric, r.ours, reference, r.tolerance, ok
        );
    }
    if !o.notes.is_empty() {
        let _ = writeln!(s);
        for n in &o.notes {
            let _ = writeln!(s, "note: {n}");
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every experiment runs in quick mode and produces rows; the ConZone reproductions whose
    /// direction the model must get right are checked.
    #[test]
    fn experiments_run_quick() {
        for e in all() {
            let o = (e.run)(&ExpOptions {
                seed: 1,
                quick: true,
            })
            .unwrap_or_else(|err| panic!("{}: {err}", e.name));
            assert!(!o.rows.is_empty(), "{}", e.name);
            let render = render(&o);
            assert!(render.contains(e.name));
            if e.name == "conzone-l2p-search" || e.name == "conzone-hybrid-read" {
                let bad: Vec<&Row> = o
                    .rows
                    .iter()
                    .filter(|r| r.within == Some(false) && !r.metric.contains("miss rate"))
                    .collect();
                assert!(bad.is_empty(), "{}: {bad:?}", e.name);
            }
        }
    }
}
