//! Reading a JSON report (`zonesim run --json`) for the commands that work on finished runs
//! (`zonesim report`, `zonesim compare`): loading with one-line errors, key paths, the names of
//! the device and the workload, and the headline rows.

use serde_json::Value;
use std::path::Path;
use zonesim::Error;

/// The directions of a job's or the host's statistics, in report order.
pub const OPS: [&str; 5] = ["read", "write", "trim", "flush", "zone_mgmt"];
/// The latency keys of a direction's `latency_us`, in table order.
pub const LAT_KEYS: [&str; 5] = ["mean", "p50", "p99", "p999", "max"];

/// Loads a report; bad input (missing file, not JSON, not a zonesim report) is a
/// `zonesim::Error` naming the file (and line).
pub fn load(path: &Path) -> Result<Value, Error> {
    let text = zonesim::error::read_text_file(path)?;
    let v: Value = serde_json::from_str(&text).map_err(|e| {
        Error::parse(
            path.display().to_string(),
            e.line() as u64,
            format!("not a JSON report: {e}"),
        )
    })?;
    if v.get("device").is_none() || v.get("host").is_none() {
        return Err(Error::Usage(format!(
            "{}: not a zonesim report (no `device` and `host` keys; write one with `zonesim run --json FILE`)",
            path.display()
        )));
    }
    Ok(v)
}

/// The value at a dotted key path (`device.flash.page_reads`).
pub fn at<'a>(v: &'a Value, path: &str) -> Option<&'a Value> {
    path.split('.').try_fold(v, |v, k| v.get(k))
}

/// The number at a key path (absent: None).
pub fn num(v: &Value, path: &str) -> Option<f64> {
    at(v, path).and_then(Value::as_f64)
}

/// The device's name (and, from the provenance where present, its source).
pub fn device_name(r: &Value) -> String {
    at(r, "device.name")
        .and_then(Value::as_str)
        .unwrap_or("unnamed device")
        .to_string()
}

/// What the run ran: the provenance's workload where the report has one, else the trace
/// replayed, else the names of its jobs.
pub fn workload_name(r: &Value) -> String {
    if let Some(w) = at(r, "provenance.workload") {
        if let Some(s) = w.as_str() {
            return s.to_string();
        }
        for k in ["path", "file", "job_file", "trace", "name", "kind"] {
            if let Some(s) = w.get(k).and_then(Value::as_str) {
                return s.to_string();
            }
        }
    }
    if let Some(f) = at(r, "trace.file").and_then(Value::as_str) {
        return format!("trace {f}");
    }
    let jobs: Vec<&str> = r
        .get("jobs")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|j| j.get("name").and_then(Value::as_str))
                .collect()
        })
        .unwrap_or_default();
    match jobs.len() {
        0 => "workload not recorded".to_string(),
        1..=4 => format!("jobs {}", jobs.join(", ")),
        n => format!("jobs {} ... ({n} jobs)", jobs[..3].join(", ")),
    }
}

/// One headline row: a job (or `total`, the host's all-jobs statistics) and a direction.
pub struct Row<'a> {
    pub job: String,
    pub op: &'static str,
    pub stats: &'a Value,
}

/// The rows of the report's headline table: each job's directions that completed requests,
/// in report order, then the `total` rows (the report's `host` object).
pub fn headline_rows(r: &Value) -> Vec<Row<'_>> {
    let mut rows = Vec::new();
    let jobs = r.get("jobs").and_then(Value::as_array);
    for (i, j) in jobs.into_iter().flatten().enumerate() {
        let name = j
            .get("name")
            .and_then(Value::as_str)
            .map(str::to_string)
            .unwrap_or_else(|| format!("job{i}"));
        push_ops(&mut rows, &name, j, false);
    }
    if let Some(h) = r.get("host") {
        push_ops(&mut rows, "total", h, false);
    }
    rows
}

/// The rows of every direction of `v` that completed requests (all five with `all`).
pub fn push_ops<'a>(rows: &mut Vec<Row<'a>>, job: &str, v: &'a Value, all: bool) {
    for op in OPS {
        if let Some(s) = v.get(op) {
            if all || s.get("ios").and_then(Value::as_f64).unwrap_or(0.0) > 0.0 {
                rows.push(Row {
                    job: job.to_string(),
                    op,
                    stats: s,
                });
            }
        }
    }
}

/// The device counters the pages and `compare` show, as (key path, meaning); absent keys are
/// skipped where shown.
pub const DEVICE_COUNTERS: [(&str, &str); 20] = [
    ("device.waf", "write amplification"),
    (
        "device.host_pages_written",
        "4 KiB pages written by the host",
    ),
    ("device.flash.page_reads", "flash page reads"),
    ("device.flash.page_programs", "flash page programs"),
    ("device.flash.block_erases", "block erases"),
    (
        "device.flash.die_busy_ns",
        "die busy time summed over dies (ns)",
    ),
    (
        "device.flash.suspensions",
        "suspended background operations",
    ),
    ("device.gc.victims", "GC victims"),
    ("device.gc.foreground_victims", "foreground GC victims"),
    ("device.gc.background_victims", "background GC victims"),
    ("device.gc.pages_moved", "pages moved by GC"),
    ("device.l2p.hits", "L2P cache hits"),
    ("device.l2p.misses", "L2P cache misses"),
    ("device.l2p.writebacks", "L2P write-backs"),
    ("device.buffer.full_flushes", "full buffer flushes"),
    (
        "device.buffer.premature_flushes",
        "premature buffer flushes",
    ),
    ("device.buffer.host_flushes", "host flush commands"),
    ("device.unwritten_reads", "reads of never-written pages"),
    ("device.out_of_range", "requests beyond their namespace"),
    (
        "sim.simulated_ns",
        "simulated time of the measured run (ns)",
    ),
];

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn names_degrade_gracefully() {
        let r =
            json!({"device": {"name": "d"}, "host": {}, "jobs": [{"name": "a"}, {"name": "b"}]});
        assert_eq!(device_name(&r), "d");
        assert_eq!(workload_name(&r), "jobs a, b");
        let r = json!({"device": {}, "host": {}, "trace": {"file": "x.trace"}});
        assert_eq!(workload_name(&r), "trace x.trace");
        let r = json!({"device": {}, "host": {}, "provenance": {"workload": {"path": "w.fio"}}});
        assert_eq!(workload_name(&r), "w.fio");
        assert_eq!(device_name(&r), "unnamed device");
    }

    #[test]
    fn headline_rows_skip_idle_directions_and_end_with_total() {
        let r = json!({"device": {}, "host": {"read": {"ios": 2}, "write": {"ios": 0}},
            "jobs": [{"name": "a", "read": {"ios": 2}, "write": {"ios": 0}}]});
        let rows = headline_rows(&r);
        let names: Vec<(String, &str)> = rows.iter().map(|r| (r.job.clone(), r.op)).collect();
        assert_eq!(
            names,
            vec![("a".to_string(), "read"), ("total".to_string(), "read")]
        );
    }
}
