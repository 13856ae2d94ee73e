//! supgc-fio's rows derived again from a record instead of from new runs.
//!
//! At the paper's scale the experiment simulates 40 runs on a 1 TiB device (about 3.3 hours of
//! CPU). Its rows are a pure function of what each run measured ([`Point`]), and the record
//! keeps every measurement the rows use: each run's IOPS, erases, GC page moves and p99 (the
//! info rows), the single stream's GC onsets (the onset rows) and its 1 % run's data volume
//! and late-vs-early IOPS. Reading them back lets a change to how the rows are judged (a known
//! gap's reason, a band) be applied to a record without simulating again; the free
//! parameters' tables, simulated at the quick size at every scale, are simulated anew.
//! `rederived_rows_equal_the_rows_of_the_run` (tests) holds the two paths equal.

use super::paper::ONSET;
use super::point::{Point, LATE_VS_EARLY, POINT_METRICS, WRITES_SHARE};
use super::setup::{size, POLICIES, RATIOS};
use super::{outcome, DISTS};
use crate::scoreboard::{Record, RecordRow};
#[cfg(test)]
use crate::Scale;
use crate::{ExpOptions, Outcome};
use zonesim::error::{Error, Result};

/// A value read from the record, or the row it lacks.
type Found<T> = std::result::Result<T, String>;

/// The outcome of the current rows on the measurements of `rec`, a supgc-fio record read
/// from `file` (named in errors).
pub fn rederive(rec: &Record, file: &str) -> Result<Outcome> {
    let o = ExpOptions {
        seed: rec.seed,
        scale: rec.scale,
    };
    let pts = points_of(&rec.outcome.rows, size(rec.scale).raw_mib()).map_err(|what| {
        Error::parse(
            file,
            0,
            format!("no row {what}: not a record of supgc-fio's rows"),
        )
    })?;
    outcome(&o, &pts)
}

/// The points of a record's rows, `[policy][dist * RATIOS.len() + ratio]`; the fields no row
/// keeps (the onset of a run no onset row reads, for one) are left unknown.
fn points_of(rows: &[RecordRow], raw_mib: f64) -> Found<Vec<Vec<Point>>> {
    let mut pts = Vec::with_capacity(POLICIES.len());
    for (label, _) in POLICIES {
        let mut of_policy = Vec::with_capacity(DISTS.len() * RATIOS.len());
        for (dname, _) in DISTS {
            for ratio in RATIOS {
                let case = format!("{dname}, {ratio}% writes, {label}");
                let mut v = [0.0; 4];
                for (k, metric) in POINT_METRICS.iter().enumerate() {
                    v[k] = value(rows, &case, metric)?;
                }
                of_policy.push(Point {
                    m: v,
                    onset_mib: None,
                    late_vs_early: f64::NAN,
                    volume_mib: f64::NAN,
                    raw_mib,
                });
            }
        }
        pts.push(of_policy);
    }
    // The single stream's uniform runs: what the onset and 1 % rows read of them.
    let single = &mut pts[0];
    for (ratio, fig, _) in ONSET {
        let i = RATIOS.iter().position(|&r| r == ratio).unwrap_or(0);
        let gb_per_tb = by_id(rows, &format!("supgc.fig{fig}.gc-onset"))?;
        single[i].onset_mib = gb_per_tb.is_finite().then(|| gb_per_tb * raw_mib / 1000.0);
    }
    let case = "uniform, 1% writes, single";
    let writes_pct = value(rows, case, WRITES_SHARE)?;
    single[0].volume_mib = writes_pct / 100.0 * raw_mib / 0.01;
    single[0].late_vs_early = value(rows, case, LATE_VS_EARLY)?;
    Ok(pts)
}

/// The value of the row (`case`, `metric`) (NaN where the record has null), or which row
/// is missing.
fn value(rows: &[RecordRow], case: &str, metric: &str) -> Found<f64> {
    rows.iter()
        .find(|r| r.case == case && r.metric == metric)
        .map(|r| r.ours.unwrap_or(f64::NAN))
        .ok_or_else(|| format!("'{case}' / '{metric}'"))
}

/// The value of the row with registry id `id`, or which row is missing.
fn by_id(rows: &[RecordRow], id: &str) -> Found<f64> {
    rows.iter()
        .find(|r| r.id.as_deref() == Some(id))
        .map(|r| r.ours.unwrap_or(f64::NAN))
        .ok_or_else(|| id.to_string())
}

#[cfg(test)]
mod tests {
    use super::super::point_rows;
    use super::*;
    use crate::scoreboard::{assert_rows_read_back, test_draws, Recorded};

    /// Points with every field set and nothing alike: GC onsets where GC ran, none at
    /// 25 % writes (GC never started, as on the paper's device), NaN-free measurements.
    fn points(raw_mib: f64) -> Vec<Vec<Point>> {
        let mut next = test_draws();
        (0..POLICIES.len())
            .map(|_| {
                (0..DISTS.len() * RATIOS.len())
                    .map(|i| {
                        let ratio = RATIOS[i % RATIOS.len()];
                        let gc = ratio > 25;
                        Point {
                            m: [
                                60_000.0 + 30_000.0 * next(),
                                if gc { (1e5 * next()).round() } else { 0.0 },
                                if gc { (1e8 * next()).round() } else { 0.0 },
                                200.0 + 5e4 * next(),
                            ],
                            onset_mib: gc.then(|| raw_mib * (0.2 + next())),
                            late_vs_early: 0.9 + 0.2 * next(),
                            volume_mib: raw_mib * (2.0 + next()),
                            raw_mib,
                        }
                    })
                    .collect()
            })
            .collect()
    }

    fn record_of(rows: Vec<crate::Row>, scale: Scale) -> Record {
        let o = Outcome {
            name: "supgc-fio".into(),
            title: String::new(),
            source: String::new(),
            rows,
            notes: Vec::new(),
        };
        let text = Recorded::text(&o, scale, 1, 1.0);
        serde_json::from_str(&text).expect("a record reads back")
    }

    /// What the record keeps is enough: the rows of the points read back from a record equal
    /// the record's rows, value for value (to rounding of the onset's unit change) and verdict
    /// for verdict, at every scale.
    #[test]
    fn rederived_rows_equal_the_rows_of_the_run() {
        for scale in Scale::ALL {
            let raw = size(scale).raw_mib();
            let first = point_rows(scale, &points(raw));
            let rec = record_of(first.clone(), scale);
            let again = point_rows(
                scale,
                &points_of(&rec.outcome.rows, raw).expect("read back"),
            );
            assert_rows_read_back(&first, &again, &scale.to_string());
        }
    }

    /// A record without the rows the points are read from is bad input, naming the row.
    #[test]
    fn a_record_of_other_rows_names_the_row_it_lacks() {
        let rec = record_of(Vec::new(), Scale::Paper);
        let e = points_of(&rec.outcome.rows, 1.0).err().expect("no rows");
        assert!(e.contains("uniform, 1% writes, single"), "{e}");
    }
}
