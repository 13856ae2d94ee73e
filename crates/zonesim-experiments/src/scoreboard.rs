//! The scoreboard: every registry result with its status at the paper's scale, per paper and
//! in total (`zonesim experiment scoreboard`). The verdicts of record are the paper-scale
//! outcomes stored in the repository (`results/paper/NAME.json`, written by `zonesim
//! experiment run all --scale paper --out results/paper` or `scoreboard --run`); the
//! registry says which row checks which result.

use crate::registry::{registry, Entry};
use crate::row::{Cause, Status};
use crate::{Outcome, Scale};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::Path;
use zonesim::error::{Error, Result};

/// The paper-scale outcomes embedded at build time (`build.rs`: `results/paper/*.json`).
mod stored {
    include!(concat!(env!("OUT_DIR"), "/stored.rs"));
}

/// An outcome as stored: the outcome and how it was run.
#[derive(Serialize)]
pub struct Recorded<'a> {
    pub scale: Scale,
    pub seed: u64,
    /// Wall time of the run, seconds (the docs state each experiment's paper-scale time).
    pub wall_s: f64,
    /// Set when the rows were derived again from an earlier record's measurements by the
    /// current code (`zonesim experiment rederive`), not simulated for this record: how.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rows_rederived: Option<String>,
    pub outcome: &'a Outcome,
}

impl Recorded<'_> {
    /// The record's text as stored (`results/paper/NAME.json`; the CLI's `--out` and Python's
    /// suite write it): pretty JSON, the wall time to 0.1 s. Serialised from the outcome itself,
    /// never re-parsed, so every number is the run's to the last digit.
    pub fn text(o: &Outcome, scale: Scale, seed: u64, wall_s: f64) -> String {
        let rec = Recorded {
            scale,
            seed,
            wall_s: (wall_s * 10.0).round() / 10.0,
            rows_rederived: None,
            outcome: o,
        };
        rec.to_text()
    }

    /// The record of `o`, whose rows were derived again from the measurements of `from`
    /// (its scale, seed and wall time are the simulation's).
    pub fn rederived_text(o: &Outcome, from: &Record) -> String {
        let how = from.rows_rederived.clone().unwrap_or_else(|| {
            "rows derived again from the measurements of the record by `zonesim experiment rederive` (the simulation was not run again)".into()
        });
        let rec = Recorded {
            scale: from.scale,
            seed: from.seed,
            wall_s: from.wall_s,
            rows_rederived: Some(how),
            outcome: o,
        };
        rec.to_text()
    }

    fn to_text(&self) -> String {
        serde_json::to_string_pretty(self).expect("a record serialises") + "\n"
    }
}

/// A stored outcome read back: what the scoreboard needs of it.
#[derive(Debug, Clone, Deserialize)]
pub struct Record {
    pub scale: Scale,
    pub seed: u64,
    pub wall_s: f64,
    /// How the rows were derived again, if they were ([`Recorded::rows_rederived`]).
    #[serde(default)]
    pub rows_rederived: Option<String>,
    pub outcome: RecordOutcome,
}

#[derive(Debug, Clone, Deserialize)]
pub struct RecordOutcome {
    pub name: String,
    pub rows: Vec<RecordRow>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct RecordRow {
    pub id: Option<String>,
    pub case: String,
    pub metric: String,
    pub ours: Option<f64>,
    pub status: String,
    pub cause: Option<String>,
    pub known_gap: Option<String>,
    pub scale_dependent: Option<String>,
}

impl RecordRow {
    /// The row's key within its experiment (as [`crate::Row::key`]).
    pub fn key(&self) -> String {
        match &self.id {
            Some(id) => id.clone(),
            None => format!("{} / {}", self.case, self.metric),
        }
    }
}

/// The records embedded in the binary, by experiment name.
pub fn embedded() -> Result<BTreeMap<String, Record>> {
    let mut out = BTreeMap::new();
    for (name, text) in stored::STORED {
        out.insert(name.to_string(), parse(name, text)?);
    }
    Ok(out)
}

/// The records of a directory (`NAME.json` each).
pub fn from_dir(dir: &Path) -> Result<BTreeMap<String, Record>> {
    let mut out = BTreeMap::new();
    let rd = std::fs::read_dir(dir).map_err(|e| Error::io(dir, e))?;
    for f in rd {
        let p = f.map_err(|e| Error::io(dir, e))?.path();
        if p.extension().and_then(|e| e.to_str()) != Some("json") {
            continue;
        }
        let text = zonesim::error::read_text_file(&p)?;
        let name = p.file_stem().and_then(|s| s.to_str()).unwrap_or_default();
        out.insert(name.to_string(), parse(&p.display().to_string(), &text)?);
    }
    Ok(out)
}

/// The record in the file `p`.
pub fn read(p: &Path) -> Result<Record> {
    let text = zonesim::error::read_text_file(p)?;
    parse(&p.display().to_string(), &text)
}

fn parse(name: &str, text: &str) -> Result<Record> {
    serde_json::from_str(text).map_err(|e| Error::parse(name, e.line() as u64, e.to_string()))
}

/// One registry result with its status.
#[derive(Debug, Clone, Serialize)]
pub struct Scored {
    pub id: String,
    /// The paper's code (`000`...`004`).
    pub paper: String,
    pub paper_name: String,
    pub source: String,
    pub quote: String,
    pub reference: Option<f64>,
    pub unit: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub derivation: String,
    pub status: Status,
    /// For `known_gap` and `uncovered`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cause: Option<Cause>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub experiment: Option<String>,
    /// Our value at the paper's scale.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ours: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scale_dependent: Option<String>,
}

/// Counts of one paper or of all.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Totals {
    pub results: usize,
    /// Results some row checks.
    pub covered: usize,
    /// Results by status (`pass`, `direction`, `known_gap`, ..., `uncovered`).
    #[serde(flatten)]
    pub by_status: BTreeMap<&'static str, usize>,
    /// Known gaps and uncovered results by cause.
    pub known_gap_by_cause: BTreeMap<&'static str, usize>,
    pub uncovered_by_cause: BTreeMap<&'static str, usize>,
}

impl Totals {
    fn add(&mut self, s: &Scored) {
        self.results += 1;
        if s.status != Status::Uncovered {
            self.covered += 1;
        }
        *self.by_status.entry(s.status.name()).or_default() += 1;
        match (s.status, s.cause) {
            (Status::KnownGap, Some(c)) => {
                *self.known_gap_by_cause.entry(c.name()).or_default() += 1
            }
            (Status::Uncovered, Some(c)) => {
                *self.uncovered_by_cause.entry(c.name()).or_default() += 1
            }
            _ => {}
        }
    }

    fn zeroed() -> Totals {
        let mut t = Totals::default();
        for s in Status::ALL {
            t.by_status.insert(s.name(), 0);
        }
        for c in Cause::ALL {
            t.known_gap_by_cause.insert(c.name(), 0);
            t.uncovered_by_cause.insert(c.name(), 0);
        }
        t
    }
}

/// The whole scoreboard.
#[derive(Debug, Clone, Serialize)]
pub struct Scoreboard {
    pub results: Vec<Scored>,
    /// `all` and each paper code.
    pub totals: BTreeMap<String, Totals>,
}

/// Join the registry with the records: every result's status at the paper's scale. A result
/// whose experiment has no record, or whose record has no row with its id, is an error (the
/// record is stale).
pub fn score(records: &BTreeMap<String, Record>) -> Result<Scoreboard> {
    let reg = registry()?;
    let mut results = Vec::new();
    for e in reg {
        results.push(score_one(e, records)?);
    }
    let mut totals: BTreeMap<String, Totals> = BTreeMap::new();
    totals.insert("all".into(), Totals::zeroed());
    for s in &results {
        totals
            .entry("all".into())
            .or_insert_with(Totals::zeroed)
            .add(s);
        totals
            .entry(s.paper.clone())
            .or_insert_with(Totals::zeroed)
            .add(s);
    }
    Ok(Scoreboard { results, totals })
}

fn score_one(e: &Entry, records: &BTreeMap<String, Record>) -> Result<Scored> {
    let mut s = Scored {
        id: e.id.clone(),
        paper: e.paper.clone(),
        paper_name: e.paper_name.clone(),
        source: e.source.clone(),
        quote: e.quote.clone(),
        reference: e.reference,
        unit: e.unit.clone(),
        derivation: e.derivation.clone(),
        status: Status::Uncovered,
        cause: None,
        why: None,
        experiment: e.experiment.clone(),
        ours: None,
        scale_dependent: None,
    };
    if let Some((cause, why)) = &e.uncovered {
        s.cause = Some(*cause);
        s.why = Some(why.clone());
        return Ok(s);
    }
    let name = e.experiment.as_deref().unwrap_or_default();
    let rec = records.get(name).ok_or_else(|| {
        Error::Usage(format!(
            "{}: experiment {name} has no paper-scale record (run `zonesim experiment scoreboard --run`)",
            e.id
        ))
    })?;
    let row = rec
        .outcome
        .rows
        .iter()
        .find(|r| r.id.as_deref() == Some(e.id.as_str()))
        .ok_or_else(|| {
            Error::Usage(format!(
                "{}: the record of {name} has no row with this id (stale record: re-run it)",
                e.id
            ))
        })?;
    s.status = Status::ALL
        .into_iter()
        .find(|x| x.name() == row.status)
        .ok_or_else(|| Error::Usage(format!("{}: unknown status '{}'", e.id, row.status)))?;
    s.cause = row.cause.as_deref().and_then(Cause::parse);
    s.why = row.known_gap.clone();
    s.ours = row.ours;
    s.scale_dependent = row.scale_dependent.clone();
    Ok(s)
}

/// The columns of the totals table, in order.
const COLUMNS: [(&str, &str); 10] = [
    ("pass", "pass (prediction)"),
    ("direction", "direction only"),
    ("known_gap", "known gap"),
    ("fail", "fail"),
    ("calibration", "calibration"),
    ("set_point", "set point"),
    ("structural", "structural"),
    ("sensitivity", "sensitivity"),
    ("info", "info"),
    ("uncovered", "uncovered"),
];

/// The totals per paper and in all, and the known gaps by cause, as markdown.
pub fn totals_markdown(sb: &Scoreboard) -> String {
    let mut s = String::new();
    let cols = &COLUMNS;
    let _ = write!(s, "| paper | results | covered |");
    for (_, h) in cols {
        let _ = write!(s, " {h} |");
    }
    let _ = writeln!(s);
    let _ = writeln!(s, "|---|---:|---:|{}", "---:|".repeat(cols.len()));
    let mut papers: Vec<(&String, &Totals)> =
        sb.totals.iter().filter(|(k, _)| *k != "all").collect();
    papers.sort_by(|a, b| a.0.cmp(b.0));
    let name_of = |code: &str| {
        sb.results
            .iter()
            .find(|r| r.paper == code)
            .map(|r| format!("{} ({code})", r.paper_name))
            .unwrap_or_else(|| code.to_string())
    };
    let all = sb.totals.get("all").cloned().unwrap_or_else(Totals::zeroed);
    for (label, t) in papers
        .into_iter()
        .map(|(k, t)| (name_of(k), t))
        .chain(std::iter::once(("**total**".to_string(), &all)))
    {
        let _ = write!(s, "| {label} | {} | {} |", t.results, t.covered);
        for (k, _) in cols {
            let _ = write!(s, " {} |", t.by_status.get(k).copied().unwrap_or(0));
        }
        let _ = writeln!(s);
    }
    let _ = writeln!(s);
    let causes: Vec<String> = Cause::ALL
        .iter()
        .map(|c| {
            format!(
                "{} {} / {}",
                c.name().replace('_', " "),
                all.known_gap_by_cause.get(c.name()).copied().unwrap_or(0),
                all.uncovered_by_cause.get(c.name()).copied().unwrap_or(0)
            )
        })
        .collect();
    let _ = writeln!(
        s,
        "Known gaps / uncovered results by cause: {}.",
        causes.join("; ")
    );
    s
}

/// The totals per paper and in all, as the terminal shows them.
pub fn totals_text(sb: &Scoreboard) -> String {
    let mut s = String::new();
    let cols = &COLUMNS;
    let _ = write!(s, "{:<16} {:>7} {:>7}", "paper", "results", "covered");
    for (k, _) in cols {
        let _ = write!(s, " {:>11}", k);
    }
    let _ = writeln!(s);
    let mut keys: Vec<String> = sb.totals.keys().filter(|k| *k != "all").cloned().collect();
    keys.sort();
    keys.push("all".into());
    let zero = Totals::zeroed();
    for k in keys {
        let t = sb.totals.get(&k).unwrap_or(&zero);
        let label = sb
            .results
            .iter()
            .find(|r| r.paper == k)
            .map_or_else(|| "total".to_string(), |r| r.paper_name.clone());
        let _ = write!(s, "{label:<16} {:>7} {:>7}", t.results, t.covered);
        for (c, _) in cols {
            let _ = write!(s, " {:>11}", t.by_status.get(c).copied().unwrap_or(0));
        }
        let _ = writeln!(s);
    }
    s
}

/// Every result, one row each, as markdown.
pub fn results_markdown(sb: &Scoreboard) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "| id | source | paper | zonesim | status | experiment / why |"
    );
    let _ = writeln!(s, "|---|---|---:|---:|---|---|");
    for r in &sb.results {
        let num = |v: Option<f64>| v.map(|x| format!("{x:.2}")).unwrap_or_else(|| "-".into());
        let status = match r.cause {
            Some(c) => format!("{} ({})", r.status.name(), c.name()),
            None => r.status.name().to_string(),
        };
        let what = match (&r.experiment, &r.why) {
            (_, Some(w)) if r.status == Status::Uncovered => w.clone(),
            (Some(e), _) => e.clone(),
            (None, _) => String::new(),
        };
        let cell = |t: &str| t.replace('|', "\\|");
        let _ = writeln!(
            s,
            "| `{}` | {} {} | {} {} | {} | {} | {} |",
            r.id,
            cell(&r.paper_name),
            cell(&r.source),
            num(r.reference),
            cell(&r.unit),
            num(r.ours),
            status,
            cell(&what)
        );
    }
    s
}

/// Rows of `quick` whose status differs from the record's at the paper's scale and that are
/// not marked scale-dependent: `(experiment, row key, quick status, paper status)`.
pub fn scale_mismatches(quick: &Outcome, rec: &Record) -> Vec<(String, String, String, String)> {
    let mut out = Vec::new();
    for r in &quick.rows {
        let key = r.key();
        let Some(p) = rec.outcome.rows.iter().find(|p| p.key() == key) else {
            continue;
        };
        if p.status != r.status.name() && r.scale_dependent.is_none() && p.scale_dependent.is_none()
        {
            out.push((
                quick.name.clone(),
                key,
                r.status.name().into(),
                p.status.clone(),
            ));
        }
    }
    out
}

/// Sensitivity rows present on one side only, the run `quick` or the record `rec` at the
/// paper's scale: `(experiment, row key, the side that has it)`. A sensitivity table must have
/// the same points at every scale (its rows are not checked, so a point lost or renamed would
/// otherwise pass unseen).
pub fn sensitivity_drift(quick: &Outcome, rec: &Record) -> Vec<(String, String, &'static str)> {
    let ours: Vec<String> = quick
        .rows
        .iter()
        .filter(|r| r.status == Status::Sensitivity)
        .map(|r| r.key())
        .collect();
    let theirs: Vec<String> = rec
        .outcome
        .rows
        .iter()
        .filter(|r| r.status == Status::Sensitivity.name())
        .map(|r| r.key())
        .collect();
    let only = |a: &[String], b: &[String], side: &'static str| {
        a.iter()
            .filter(|k| !b.contains(k))
            .map(|k| (quick.name.clone(), k.clone(), side))
            .collect::<Vec<_>>()
    };
    let mut out = only(&ours, &theirs, "this run");
    out.extend(only(&theirs, &ours, "the record"));
    out
}

/// Test support for the experiments that derive their rows again from a record: the rows of
/// the points read back (`again`) equal the rows of the run (`first`), key for key, verdict
/// for verdict and value for value to the record's precision; `ctx` names the case.
#[cfg(test)]
pub(crate) fn assert_rows_read_back(first: &[crate::Row], again: &[crate::Row], ctx: &str) {
    assert_eq!(first.len(), again.len(), "{ctx}");
    for (a, b) in first.iter().zip(again) {
        let key = a.key();
        assert_eq!(key, b.key(), "{ctx}");
        assert_eq!((a.status, a.verdict), (b.status, b.verdict), "{ctx}: {key}");
        assert_eq!(a.known_gap, b.known_gap, "{ctx}: {key}");
        let same = a.ours == b.ours
            || (a.ours.is_nan() && b.ours.is_nan())
            || (a.ours - b.ours).abs() <= 1e-9 * a.ours.abs();
        assert!(same, "{ctx}: {key}: {} vs {}", a.ours, b.ours);
    }
}

/// Test support: a fixed sequence of draws in [0, 1) (a 64-bit LCG), for synthetic points
/// whose values are all different.
#[cfg(test)]
pub(crate) fn test_draws() -> impl FnMut() -> f64 {
    let mut x = 0x9e37_79b9_u64;
    move || {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (x >> 11) as f64 / (1u64 << 53) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::row::row_info;

    fn record_of(o: &Outcome) -> Record {
        let text = serde_json::to_string(&Recorded {
            scale: Scale::Paper,
            seed: 1,
            wall_s: 0.0,
            rows_rederived: None,
            outcome: o,
        })
        .expect("serialises");
        serde_json::from_str(&text).expect("reads back")
    }

    fn outcome(rows: Vec<crate::Row>) -> Outcome {
        Outcome {
            name: "x".into(),
            title: String::new(),
            source: String::new(),
            rows,
            notes: Vec::new(),
        }
    }

    #[test]
    fn sensitivity_rows_must_match_the_record() {
        let sens = |case: &str| row_info(case, "IOPS", 1.0).sensitivity();
        let rec = record_of(&outcome(vec![
            sens("QD 4"),
            sens("QD 8"),
            row_info("a", "b", 1.0),
        ]));
        // The same points (info rows may come and go: they are not sensitivity).
        assert!(sensitivity_drift(&outcome(vec![sens("QD 8"), sens("QD 4")]), &rec).is_empty());
        // A point lost and a point added: both named, with the side that has it.
        let drift = sensitivity_drift(&outcome(vec![sens("QD 4"), sens("QD 16")]), &rec);
        assert_eq!(
            drift,
            vec![
                ("x".to_string(), "QD 16 / IOPS".to_string(), "this run"),
                ("x".to_string(), "QD 8 / IOPS".to_string(), "the record"),
            ]
        );
    }
}
