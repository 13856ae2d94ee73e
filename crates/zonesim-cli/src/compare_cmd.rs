//! `zonesim compare A.json B.json [--html OUT.html]`: the deltas (B − A, absolute and in
//! percent of A) of two JSON reports' headline metrics per job and direction, then of the
//! device counters. Rows come in a fixed order (A's jobs in report order, then jobs only B
//! has; the counters in `report_json::DEVICE_COUNTERS` order). A percentage of a zero base is
//! printed as `undefined`; a value one report lacks as `-`.

use crate::report_json::{self as rj, num, LAT_KEYS};
use crate::svg::{self, esc};
use anyhow::Result;
use serde_json::{json, Value};
use std::fmt::Write;
use std::path::PathBuf;
use zonesim::Error;

/// Arguments of `zonesim compare`.
#[derive(clap::Args)]
pub struct CompareArgs {
    /// The base report (`zonesim run --json A.json`).
    #[arg(value_name = "A.json")]
    pub a: PathBuf,
    /// The report compared with it.
    #[arg(value_name = "B.json")]
    pub b: PathBuf,
    /// Also write the table as one self-contained HTML page.
    #[arg(long, value_name = "OUT.html")]
    pub html: Option<PathBuf>,
}

/// One compared quantity.
pub struct Delta {
    /// `job op` or `device`.
    pub what: String,
    pub metric: String,
    pub a: Option<f64>,
    pub b: Option<f64>,
}

impl Delta {
    /// B − A, when both have the value.
    pub fn abs(&self) -> Option<f64> {
        Some(self.b? - self.a?)
    }
    /// (B − A) / A in percent; None on a zero base or a missing value.
    pub fn pct(&self) -> Option<f64> {
        let a = self.a?;
        if a == 0.0 {
            None
        } else {
            Some((self.b? - a) / a * 100.0)
        }
    }
    fn pct_text(&self) -> String {
        match (self.a, self.b, self.pct()) {
            (Some(_), Some(_), Some(p)) => format!("{p:+.2}%"),
            (Some(_), Some(_), None) => "undefined".to_string(),
            _ => "-".to_string(),
        }
    }
}

pub fn run(a: CompareArgs) -> Result<()> {
    let ra = rj::load(&a.a)?;
    let rb = rj::load(&a.b)?;
    let deltas = deltas(&ra, &rb);
    print!("{}", text(&ra, &rb, &a, &deltas));
    if let Some(p) = &a.html {
        std::fs::write(p, html(&ra, &rb, &a, &deltas)).map_err(|e| Error::io(p, e))?;
        eprintln!("zonesim: wrote {}", p.display());
    }
    Ok(())
}

/// The compared quantities of two reports, in table order.
pub fn deltas(ra: &Value, rb: &Value) -> Vec<Delta> {
    let mut keys: Vec<(String, &'static str)> = Vec::new();
    for r in [ra, rb] {
        for row in rj::headline_rows(r) {
            let k = (row.job, row.op);
            if !keys.contains(&k) {
                keys.push(k);
            }
        }
    }
    let stats = |r: &Value, job: &str, op: &str| -> Option<Value> {
        rj::headline_rows(r)
            .into_iter()
            .find(|x| x.job == job && x.op == op)
            .map(|x| x.stats.clone())
    };
    let mut out = Vec::new();
    for (job, op) in &keys {
        let sa = stats(ra, job, op);
        let sb = stats(rb, job, op);
        let mut metrics: Vec<String> = ["ios", "iops", "bandwidth_mib_s"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        metrics.extend(LAT_KEYS.iter().map(|k| format!("latency_us.{k}")));
        for m in metrics {
            out.push(Delta {
                what: format!("{job} {op}"),
                a: sa.as_ref().and_then(|s| num(s, &m)),
                b: sb.as_ref().and_then(|s| num(s, &m)),
                metric: m,
            });
        }
    }
    for (k, _) in rj::DEVICE_COUNTERS {
        let (a, b) = (num(ra, k), num(rb, k));
        if a.is_some() || b.is_some() {
            out.push(Delta {
                what: "device".into(),
                metric: k.trim_start_matches("device.").to_string(),
                a,
                b,
            });
        }
    }
    out
}

fn val(v: Option<f64>) -> String {
    match v {
        None => "-".into(),
        Some(x) if x.fract() == 0.0 && x.abs() < 1e15 => format!("{}", x as i64),
        Some(x) => format!("{x:.3}"),
    }
}

fn signed(v: Option<f64>) -> String {
    match v {
        None => "-".into(),
        Some(x) if x.fract() == 0.0 && x.abs() < 1e15 => format!("{:+}", x as i64),
        Some(x) => format!("{x:+.3}"),
    }
}

fn header(ra: &Value, rb: &Value, a: &CompareArgs) -> [String; 2] {
    [(ra, &a.a), (rb, &a.b)].map(|(r, p)| {
        format!(
            "{}: {} · {} (seed {})",
            p.display(),
            rj::device_name(r),
            rj::workload_name(r),
            val(num(r, "sim.seed"))
        )
    })
}

/// The plain-text table.
pub fn text(ra: &Value, rb: &Value, a: &CompareArgs, deltas: &[Delta]) -> String {
    let [ha, hb] = header(ra, rb, a);
    let mut s = format!("A  {ha}\nB  {hb}\n\n");
    let _ = writeln!(
        s,
        "{:<24} {:<26} {:>16} {:>16} {:>16} {:>10}",
        "job / op", "metric", "A", "B", "B - A", "change"
    );
    for d in deltas {
        let _ = writeln!(
            s,
            "{:<24} {:<26} {:>16} {:>16} {:>16} {:>10}",
            d.what,
            d.metric,
            val(d.a),
            val(d.b),
            signed(d.abs()),
            d.pct_text()
        );
    }
    s
}

/// The table as one self-contained HTML page, its numbers also embedded as JSON.
pub fn html(ra: &Value, rb: &Value, a: &CompareArgs, deltas: &[Delta]) -> String {
    let [ha, hb] = header(ra, rb, a);
    let mut t = String::from("<table id=\"compare\"><tr><th>job / op</th><th>metric</th><th>A</th><th>B</th><th>B − A</th><th>change</th></tr>");
    let mut data = Vec::new();
    for d in deltas {
        let _ = write!(
            t,
            "<tr><td>{}</td><td class=\"l\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            esc(&d.what),
            esc(&d.metric),
            val(d.a),
            val(d.b),
            signed(d.abs()),
            d.pct_text()
        );
        data.push(
            json!({"what": d.what, "metric": d.metric, "a": d.a, "b": d.b,
            "delta": d.abs(), "pct": d.pct()}),
        );
    }
    t += "</table>";
    let data = serde_json::to_string(&data)
        .unwrap_or_default()
        .replace("</", "<\\/");
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>zonesim compare</title><style>{}</style></head><body>\n<h1>zonesim compare</h1><p>A: {}<br>B: {}</p><p class=\"note\">change: (B − A) / A; undefined where A is 0; - where a report lacks the value.</p>{t}\n<script type=\"application/json\" id=\"zonesim-data\">{data}</script>\n</body></html>\n",
        svg::STYLE,
        esc(&ha),
        esc(&hb)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percent_of_a_zero_base_is_undefined() {
        let d = Delta {
            what: "x".into(),
            metric: "m".into(),
            a: Some(0.0),
            b: Some(3.0),
        };
        assert_eq!(d.abs(), Some(3.0));
        assert_eq!(d.pct(), None);
        assert_eq!(d.pct_text(), "undefined");
        let d = Delta {
            a: Some(2.0),
            b: Some(3.0),
            ..d
        };
        assert_eq!(d.pct_text(), "+50.00%");
        let d = Delta { a: None, ..d };
        assert_eq!(d.pct_text(), "-");
    }

    #[test]
    fn rows_in_a_fixed_order_with_jobs_only_one_side_has() {
        let a = json!({"device": {"waf": 1.0}, "host": {"read": {"ios": 1}},
            "jobs": [{"name": "j1", "read": {"ios": 1, "iops": 2.0}}]});
        let b = json!({"device": {"waf": 2.0}, "host": {"read": {"ios": 1}},
            "jobs": [{"name": "j2", "read": {"ios": 1}}, {"name": "j1", "read": {"ios": 1, "iops": 3.0}}]});
        let d = deltas(&a, &b);
        let whats: Vec<&str> = d.iter().map(|d| d.what.as_str()).collect();
        let first: Vec<&str> = whats.iter().fold(Vec::new(), |mut v, w| {
            if !v.contains(w) {
                v.push(*w);
            }
            v
        });
        assert_eq!(first, vec!["j1 read", "total read", "j2 read", "device"]);
        let iops = d
            .iter()
            .find(|d| d.what == "j1 read" && d.metric == "iops")
            .unwrap();
        assert_eq!(iops.pct(), Some(50.0));
        let j2 = d.iter().find(|d| d.what == "j2 read").unwrap();
        assert_eq!(j2.a, None);
        let waf = d.iter().find(|d| d.metric == "waf").unwrap();
        assert_eq!(waf.pct(), Some(100.0));
    }
}
