//! The experiment's table as text (`zonesim experiment run`) and as markdown (the docs and
//! snapshots are pasted from it), with its verdict line.

use crate::{Outcome, Status};
use std::fmt::Write;

/// A number as the tables print it (an undefined change, e.g. against a zero base, as such).
fn num(v: f64) -> String {
    if v.is_nan() {
        "undefined".into()
    } else {
        format!("{v:.2}")
    }
}

/// The outcome as a markdown table (docs are pasted from this, with the command and commit).
pub fn render_markdown(o: &Outcome) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "**{}**: {}  ", o.name, o.title);
    let _ = writeln!(s, "reference: {}", o.source);
    let _ = writeln!(s);
    let _ = writeln!(
        s,
        "| case | metric | zonesim | paper | source | tolerance | verdict |"
    );
    let _ = writeln!(s, "|---|---|---:|---:|---|---|---|");
    for r in &o.rows {
        let reference = r
            .reference
            .map(|v| format!("{v:.2}"))
            .unwrap_or_else(|| "-".into());
        let verdict = match &r.known_gap {
            Some(g) if r.status == Status::KnownGap => match r.cause {
                Some(c) => format!("known gap ({}): {g}", c.name()),
                None => format!("known gap: {g}"),
            },
            _ => r.verdict.to_string(),
        };
        let cell = |t: &str| t.replace('|', "\\|");
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} | {} |",
            cell(&r.case),
            cell(&r.metric),
            num(r.ours),
            reference,
            cell(&r.source),
            cell(&r.tolerance),
            cell(&verdict)
        );
    }
    let _ = writeln!(s);
    let _ = writeln!(s, "verdict: {}", o.verdict_line());
    if !o.notes.is_empty() {
        let _ = writeln!(s);
        for n in &o.notes {
            let _ = writeln!(s, "- {n}");
        }
    }
    s
}

/// The table printed by `zonesim experiment run`.
pub fn render(o: &Outcome) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "{}: {}", o.name, o.title);
    let _ = writeln!(s, "reference: {}", o.source);
    let _ = writeln!(s);
    let _ = writeln!(
        s,
        "{:<40} {:<26} {:>12} {:>12}  {:<18} verdict",
        "case", "metric", "zonesim", "reference", "tolerance"
    );
    for r in &o.rows {
        let reference = r
            .reference
            .map(|v| format!("{v:.2}"))
            .unwrap_or_else(|| "-".into());
        let ok = r.verdict;
        let _ = writeln!(
            s,
            "{:<40} {:<26} {:>12} {:>12}  {:<18} {}",
            r.case,
            r.metric,
            num(r.ours),
            reference,
            r.tolerance,
            ok
        );
    }
    for r in &o.rows {
        if let Some(g) = &r.known_gap {
            let _ = writeln!(s, "known gap: {} / {}: {g}", r.case, r.metric);
        }
    }
    let _ = writeln!(s, "verdict: {}", o.verdict_line());
    if !o.notes.is_empty() {
        let _ = writeln!(s);
        for n in &o.notes {
            let _ = writeln!(s, "note: {n}");
        }
    }
    s
}
