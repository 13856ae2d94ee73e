//! supgc-mysql-write's and supgc-mysql-rw's rows derived again from a record instead of from
//! new runs.
//!
//! At the paper's scale each figure simulates 13 runs on a 1 TiB device (about an hour of
//! CPU). Its rows are a pure function of what each run measured ([`Point`]), and the record
//! keeps every measurement the rows use: every field of the four default runs, TPS, latency,
//! erases and GC page moves of the variant and context runs, and GC page moves, erases and
//! pages written of every one-thread run (the run-length rows). Reading them back lets a
//! change to how the rows are judged (a known gap's reason, which rows are checked) be applied
//! to a record without simulating again. `rederived_rows_equal_the_rows_of_the_run` (tests)
//! holds the two paths equal.

use super::{
    cases, context_case, outcome, run_length_case, variant_case, Case, Figure, Point, FIG19, FIG20,
    POINT_METRICS, PREHEAT, SCHEMES, THREADS, TIME_S, VARIANTS,
};
use crate::scoreboard::{Record, RecordRow};
use crate::{ExpOptions, Outcome};
use zonesim::error::{Error, Result};

/// The outcome of the current rows on the measurements of `rec`, a record of either figure
/// read from `file` (named in errors).
pub fn rederive(rec: &Record, file: &str) -> Result<Outcome> {
    let name = rec.outcome.name.as_str();
    let f = figure(name)
        .ok_or_else(|| Error::parse(file, 0, format!("{name} is not supgc-mysql-write or -rw")))?;
    let o = ExpOptions {
        seed: rec.seed,
        scale: rec.scale,
    };
    let pts = points_of(&rec.outcome.rows).map_err(|what| {
        Error::parse(
            file,
            0,
            format!("no row of the case {what}: not a record of {name}'s rows"),
        )
    })?;
    Ok(outcome(&o, f, name, &pts))
}

fn figure(name: &str) -> Option<&'static Figure> {
    match name {
        "supgc-mysql-write" => Some(&FIG19),
        "supgc-mysql-rw" => Some(&FIG20),
        _ => None,
    }
}

/// The points of a record's rows, in [`cases`]' order; the fields no row keeps (a longer
/// run's TPS, for one) are left unknown (NaN). Err names a case without any row.
fn points_of(rows: &[RecordRow]) -> std::result::Result<Vec<Point>, String> {
    cases().iter().map(|c| point_of(rows, c)).collect()
}

fn point_of(rows: &[RecordRow], c: &Case) -> std::result::Result<Point, String> {
    let cases = labels(c);
    let mut v = [f64::NAN; 7];
    let mut found = false;
    for r in rows.iter().filter(|r| cases.contains(&r.case)) {
        if let Some(k) = POINT_METRICS.iter().position(|m| *m == r.metric) {
            v[k] = r.ours.unwrap_or(f64::NAN);
            found = true;
        }
    }
    if found {
        Ok(Point::from_fields(v))
    } else {
        Err(format!("'{}'", cases.join("' or '")))
    }
}

/// Every case name under which the rows keep measurements of the run `c`.
fn labels(&(p, threads, time_s, preheat): &Case) -> Vec<String> {
    if preheat != PREHEAT {
        return vec![context_case(p)];
    }
    let mut v = Vec::new();
    if (threads, time_s) == (THREADS, TIME_S) {
        v.push(SCHEMES[p].1.to_string());
    }
    for (label, th, t) in VARIANTS {
        if (th, t) == (threads, time_s) {
            v.push(variant_case(label, p));
        }
    }
    if threads == THREADS {
        v.push(run_length_case(time_s, p));
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scoreboard::{assert_rows_read_back, test_draws, Recorded};
    use crate::Scale;

    /// Points with every field set and nothing alike; with `gc` false no run moves a page
    /// (the other branch of the checked rows).
    fn points(gc: bool) -> Vec<Point> {
        let mut next = test_draws();
        cases()
            .iter()
            .map(|_| {
                Point::from_fields([
                    40.0 + 20.0 * next(),
                    15_000.0 + 10_000.0 * next(),
                    (300.0 + 1e3 * next()).round(),
                    if gc { (1e6 * next()).round() } else { 0.0 },
                    50_000.0 + 3e4 * next(),
                    0.5 + 0.4 * next(),
                    (2e3 + 1e4 * next()).round(),
                ])
            })
            .collect()
    }

    fn record_of(o: &Outcome, scale: Scale) -> Record {
        let text = Recorded::text(o, scale, 1, 1.0);
        serde_json::from_str(&text).expect("a record reads back")
    }

    /// What the record keeps is enough: the rows of the points read back from a record equal
    /// the record's rows, value for value (to the record's precision) and verdict for verdict, at every scale, for both
    /// figures, with and without GC page moves.
    #[test]
    fn rederived_rows_equal_the_rows_of_the_run() {
        for (name, f) in [("supgc-mysql-write", &FIG19), ("supgc-mysql-rw", &FIG20)] {
            for scale in Scale::ALL {
                for gc in [true, false] {
                    let o = ExpOptions { seed: 1, scale };
                    let first = outcome(&o, f, name, &points(gc));
                    let rec = record_of(&first, scale);
                    let again = rederive(&rec, "record").expect("read back");
                    let ctx = format!("{name} {scale} gc {gc}");
                    assert_rows_read_back(&first.rows, &again.rows, &ctx);
                    assert_eq!(first.notes, again.notes);
                }
            }
        }
    }

    /// A record without the rows the points are read from is bad input, naming a case.
    #[test]
    fn a_record_of_other_rows_names_the_case_it_lacks() {
        let o = ExpOptions {
            seed: 1,
            scale: Scale::Paper,
        };
        let mut first = outcome(&o, &FIG19, "supgc-mysql-write", &points(true));
        first.rows.retain(|r| !r.case.starts_with("16 threads"));
        let e = match rederive(&record_of(&first, Scale::Paper), "rec.json") {
            Ok(_) => panic!("a case is missing"),
            Err(e) => e.to_string(),
        };
        assert!(
            e.contains("rec.json") && e.contains("16 threads: SUP-GC"),
            "{e}"
        );
    }
}
