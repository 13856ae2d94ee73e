//! `zonesim report RUN.json --html OUT.html`: one self-contained HTML page of a JSON report —
//! device and workload, the headline table, latency CDFs per job, the time series (throughput,
//! latency, WAF, free space, GC, buffer) when the run sampled one (`--interval-ms`), GC and
//! die activity, zone states. Figures are inline SVG drawn by `svg.rs`: no script or style
//! from the network, and the same report gives the same bytes. The numbers the page shows are
//! also embedded as `<script type="application/json" id="zonesim-data">`, which the tests
//! compare with the report.

use crate::report_json::{self as rj, at, num, Row, LAT_KEYS};
use crate::svg::{self, esc, Chart, Series};
use anyhow::Result;
use serde_json::{json, Map, Value};
use std::fmt::Write;
use std::path::PathBuf;
use zonesim::Error;

/// Arguments of `zonesim report`.
#[derive(clap::Args)]
pub struct ReportArgs {
    /// A JSON report written by `zonesim run --json RUN.json`.
    #[arg(value_name = "RUN.json")]
    pub run: PathBuf,
    /// Write one self-contained HTML page here (inline SVG figures; opens offline).
    #[arg(long, value_name = "OUT.html", required = true)]
    pub html: PathBuf,
}

pub fn run(a: ReportArgs) -> Result<()> {
    let report = rj::load(&a.run)?;
    let page = render(&report, &a.run.display().to_string());
    std::fs::write(&a.html, page).map_err(|e| Error::io(&a.html, e))?;
    println!("wrote {}", a.html.display());
    Ok(())
}

/// The most points a time-series line gets (longer series are thinned by a fixed stride).
const MAX_POINTS: usize = 2000;

/// The page of `report` (read from `source`).
pub fn render(report: &Value, source: &str) -> String {
    let device = rj::device_name(report);
    let workload = rj::workload_name(report);
    let who = format!("{device} · {}", shorten(&workload, 48));
    let rows = rj::headline_rows(report);
    let mut data = Map::new();
    data.insert("source".into(), json!(source));
    data.insert("device".into(), json!(device));
    data.insert("workload".into(), json!(workload));

    let mut body = String::new();
    let _ = write!(
        body,
        "<h1>zonesim report: {} — {}</h1><p class=\"note\">from {}</p>",
        esc(&device),
        esc(&workload),
        esc(source)
    );
    body += &setup_section(report, &device, &workload);
    body += &headline_section(&rows, &mut data);
    body += &counters_section(report, &mut data);
    body += &cdf_section(&rows, &who, &mut data);
    body += &timeseries_section(report, &who, &mut data);
    body += &activity_section(report, &who);
    body += &zones_section(report, &who, &mut data);

    // `</` never appears inside the JSON block, so the block cannot end early.
    let data_text = serde_json::to_string(&Value::Object(data))
        .unwrap_or_default()
        .replace("</", "<\\/");
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>zonesim report: {} — {}</title><style>{}</style></head><body>\n{body}\n<p id=\"zonesim-check\" class=\"note\"></p>\n<script type=\"application/json\" id=\"zonesim-data\">{data_text}</script>\n<script>{CHECK_JS}</script>\n</body></html>\n",
        esc(&device),
        esc(&workload),
        svg::STYLE
    )
}

/// Reads the embedded data back and says what the page holds (the headless-browser test
/// reads `data-check` and this line from the rendered DOM).
const CHECK_JS: &str = "(function(){var d=JSON.parse(document.getElementById('zonesim-data').textContent);\
var n=document.querySelectorAll('svg.chart').length;\
document.getElementById('zonesim-check').textContent='embedded data: '+d.headline.length+' headline rows, '+n+' figures';\
document.body.setAttribute('data-check','ok');})();";

fn shorten(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        let t: String = s.chars().take(n - 3).collect();
        t + "..."
    }
}

fn fmt(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else if v.abs() >= 100.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.3}")
    }
}

fn kv_table(rows: &[(String, String)]) -> String {
    let mut t = String::from("<table>");
    for (k, v) in rows {
        let _ = write!(
            t,
            "<tr><td class=\"l\">{}</td><td class=\"l\">{}</td></tr>",
            esc(k),
            esc(v)
        );
    }
    t + "</table>"
}

fn setup_section(r: &Value, device: &str, workload: &str) -> String {
    let mut kv = vec![
        ("device".to_string(), device.to_string()),
        ("workload".to_string(), workload.to_string()),
    ];
    if let Some(c) = num(r, "device.capacity_bytes") {
        kv.push((
            "capacity (namespace 0)".into(),
            format!("{:.2} GiB", c / (1u64 << 30) as f64),
        ));
    }
    for ns in at(r, "device.namespaces")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let id = ns.get("id").and_then(Value::as_u64).unwrap_or(0);
        let kind = ns.get("kind").and_then(Value::as_str).unwrap_or("?");
        let cap = ns
            .get("capacity_bytes")
            .and_then(Value::as_f64)
            .unwrap_or(0.0);
        kv.push((
            format!("namespace {id}"),
            format!("{kind}, {:.2} GiB", cap / (1u64 << 30) as f64),
        ));
    }
    if let Some(p) = r.get("provenance").and_then(Value::as_object) {
        for (k, v) in p {
            if k == "device" || k == "workload" {
                continue;
            }
            let text = match v {
                Value::String(s) => s.clone(),
                Value::Array(a) => a
                    .iter()
                    .map(|x| x.as_str().map(str::to_string).unwrap_or(x.to_string()))
                    .collect::<Vec<_>>()
                    .join(" "),
                v => v.to_string(),
            };
            kv.push((format!("provenance.{k}"), shorten(&text, 200)));
        }
    } else {
        kv.push((
            "provenance".into(),
            "not in this report (written before reports carried it)".into(),
        ));
    }
    if let Some(s) = num(r, "sim.seed") {
        kv.push(("seed".into(), fmt(s)));
    }
    if let Some(m) = at(r, "precondition.mode").and_then(Value::as_str) {
        kv.push(("precondition".into(), m.to_string()));
    }
    if let Some(ns) = num(r, "sim.simulated_ns") {
        kv.push(("simulated time".into(), format!("{:.3} s", ns / 1e9)));
    }
    if let Some(v) = at(r, "zonesim_version").and_then(Value::as_str) {
        kv.push(("zonesim version".into(), v.to_string()));
    }
    format!("<h2>Device and workload</h2>{}", kv_table(&kv))
}

fn headline_section(rows: &[Row], data: &mut Map<String, Value>) -> String {
    let mut t = String::from("<h2>Headline</h2><table id=\"headline\"><tr><th>job</th><th>op</th><th>ios</th><th>iops</th><th>MiB/s</th><th>mean µs</th><th>p50 µs</th><th>p99 µs</th><th>p99.9 µs</th><th>max µs</th></tr>");
    let mut out = Vec::new();
    for row in rows {
        let s = row.stats;
        let g = |k: &str| s.get(k).and_then(Value::as_f64).unwrap_or(0.0);
        let lat = |k: &str| num(s, &format!("latency_us.{k}")).unwrap_or(0.0);
        let _ = write!(
            t,
            "<tr><td>{}</td><td class=\"l\">{}</td><td>{}</td><td>{:.0}</td><td>{:.1}</td>",
            esc(&row.job),
            row.op,
            fmt(g("ios")),
            g("iops"),
            g("bandwidth_mib_s")
        );
        let mut lats = Map::new();
        for k in LAT_KEYS {
            let _ = write!(t, "<td>{:.1}</td>", lat(k));
            lats.insert(k.into(), json!(lat(k)));
        }
        t += "</tr>";
        out.push(
            json!({"job": row.job, "op": row.op, "ios": g("ios"), "iops": g("iops"),
            "bandwidth_mib_s": g("bandwidth_mib_s"), "latency_us": lats}),
        );
    }
    t += "</table><p class=\"note\">total: all jobs together (the report's <code>host</code>), over the whole measured window.</p>";
    data.insert("headline".into(), Value::Array(out));
    t
}

fn counters_section(r: &Value, data: &mut Map<String, Value>) -> String {
    let mut kv = Vec::new();
    let mut out = Map::new();
    for (k, meaning) in rj::DEVICE_COUNTERS {
        if let Some(v) = num(r, k) {
            kv.push((format!("{k} ({meaning})"), fmt(v)));
            out.insert(k.into(), json!(v));
        }
    }
    data.insert("device_counters".into(), Value::Object(out));
    format!("<h2>Device counters</h2>{}", kv_table(&kv))
}

/// The points of a latency CDF (µs, fraction): from the direction's histogram buckets
/// (`latency_us.histogram`: `[upper_us, count]` pairs, `{upper_us|le_us, count}` objects, or
/// one object `{"upper_us": count}`)
/// where the report has them, else from its percentiles (`latency_us.percentiles`, keys in
/// percent, or the fixed min / p50 / p99 / p99.9 / max).
pub fn cdf_points(stats: &Value) -> (Vec<(f64, f64)>, &'static str) {
    let lat = match stats.get("latency_us") {
        Some(l) => l,
        None => return (Vec::new(), "none"),
    };
    let hist: Option<Vec<Value>> = match lat.get("histogram") {
        Some(Value::Array(a)) => Some(a.clone()),
        // fio json+ style: {"upper bound in µs": count}.
        Some(Value::Object(o)) => {
            let mut v: Vec<(f64, Value)> = o
                .iter()
                .filter_map(|(k, c)| Some((k.parse::<f64>().ok()?, c.clone())))
                .collect();
            v.sort_by(|a, b| a.0.total_cmp(&b.0));
            Some(v.into_iter().map(|(k, c)| json!([k, c])).collect())
        }
        _ => None,
    };
    if let Some(h) = hist {
        let buckets: Vec<(f64, f64)> = h
            .iter()
            .filter_map(|b| match b {
                Value::Array(a) if a.len() >= 2 => Some((a[0].as_f64()?, a[1].as_f64()?)),
                Value::Object(o) => Some((
                    o.get("upper_us").or(o.get("le_us"))?.as_f64()?,
                    o.get("count")?.as_f64()?,
                )),
                _ => None,
            })
            .collect();
        let total: f64 = buckets.iter().map(|b| b.1).sum();
        if total > 0.0 {
            let mut acc = 0.0;
            let pts = buckets
                .iter()
                .map(|&(x, c)| {
                    acc += c;
                    (x, acc / total)
                })
                .collect();
            return (pts, "histogram");
        }
    }
    let mut pts: Vec<(f64, f64)> = Vec::new();
    let mut source = "percentiles";
    if let Some(p) = lat.get("percentiles").and_then(Value::as_object) {
        for (k, v) in p {
            if let (Ok(q), Some(x)) = (k.trim_start_matches('p').parse::<f64>(), v.as_f64()) {
                pts.push((x, q / 100.0));
            }
        }
    }
    if pts.is_empty() {
        source = "min/p50/p99/p99.9/max";
        for (k, q) in [
            ("min", 0.0),
            ("p50", 0.5),
            ("p99", 0.99),
            ("p999", 0.999),
            ("max", 1.0),
        ] {
            if let Some(x) = lat.get(k).and_then(Value::as_f64) {
                pts.push((x, q));
            }
        }
    } else if let Some(x) = lat.get("max").and_then(Value::as_f64) {
        pts.push((x, 1.0));
    }
    pts.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
    (pts, source)
}

fn cdf_section(rows: &[Row], who: &str, data: &mut Map<String, Value>) -> String {
    let mut s = String::from("<h2>Latency CDFs</h2>");
    let mut jobs: Vec<&str> = Vec::new();
    for r in rows {
        if !jobs.contains(&r.job.as_str()) {
            jobs.push(&r.job);
        }
    }
    let mut out = Map::new();
    let mut sources = Vec::new();
    for job in jobs {
        let mut series = Vec::new();
        let mut per_op = Map::new();
        for r in rows.iter().filter(|r| r.job == job) {
            let (pts, src) = cdf_points(r.stats);
            if !sources.contains(&src) {
                sources.push(src);
            }
            per_op.insert(r.op.into(), json!(pts));
            series.push(Series {
                name: r.op.to_string(),
                points: pts,
                step: true,
            });
        }
        out.insert(job.into(), Value::Object(per_op));
        s += &svg::line_chart(&Chart {
            title: format!("latency CDF, job {job} · {who}"),
            x_label: "latency (µs, log scale)".into(),
            y_label: "fraction of requests".into(),
            series,
            x_log: true,
            y_integer: false,
            y_range: Some((0.0, 1.0)),
        });
    }
    let _ = write!(
        s,
        "<p class=\"note\">Drawn from the report's {}; a staircase through these points only (exact where the report has histogram buckets).</p>",
        sources.join(", ")
    );
    data.insert("cdf".into(), Value::Object(out));
    s
}

/// The time-series figures: (title, y label, integer ticks, columns).
const TS_FIGURES: [(&str, &str, bool, &[&str]); 7] = [
    ("throughput", "MiB/s", false, &["read_mib_s", "write_mib_s"]),
    ("IOPS", "requests/s", false, &["read_iops", "write_iops"]),
    (
        "latency per interval",
        "µs",
        false,
        &[
            "read_lat_mean_us",
            "read_lat_p99_us",
            "write_lat_mean_us",
            "write_lat_p99_us",
        ],
    ),
    ("write amplification (cumulative)", "WAF", false, &["waf"]),
    (
        "free space",
        "free superblocks",
        true,
        &["free_superblocks", "slc_free_superblocks"],
    ),
    (
        "GC pages moved (cumulative)",
        "pages",
        true,
        &["gc_pages_moved"],
    ),
    (
        "write buffer and SLC",
        "4 KiB pages",
        true,
        &["buffer_pages", "slc_valid_pages"],
    ),
];

fn timeseries_section(r: &Value, who: &str, data: &mut Map<String, Value>) -> String {
    let mut s = String::from("<h2>Over time</h2>");
    let ts = match r.get("timeseries") {
        Some(t) => t,
        None => {
            s += "<p class=\"note\">This run sampled no time series: run with <code>zonesim run --interval-ms MS --json RUN.json</code> (device key <code>stats.interval_ms</code>) to get throughput, latency, WAF and free space over time.</p>";
            return s;
        }
    };
    let cols: Vec<&str> = ts
        .get("columns")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let rows: Vec<&Vec<Value>> = ts
        .get("rows")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_array).collect())
        .unwrap_or_default();
    let t_idx = cols.iter().position(|c| *c == "t_ms");
    let stride = rows.len().div_ceil(MAX_POINTS).max(1);
    data.insert(
        "timeseries".into(),
        json!({"columns": cols, "rows": rows.len(), "interval_ms": ts.get("interval_ms")}),
    );
    let Some(t_idx) = t_idx else {
        return s + "<p class=\"note\">The time series has no t_ms column.</p>";
    };
    let column = |c: &str| -> Option<Vec<(f64, f64)>> {
        let i = cols.iter().position(|x| *x == c)?;
        Some(
            rows.iter()
                .enumerate()
                .filter(|(k, _)| k % stride == 0 || *k + 1 == rows.len())
                .filter_map(|(_, row)| {
                    Some((row.get(t_idx)?.as_f64()? / 1e3, row.get(i)?.as_f64()?))
                })
                .collect(),
        )
    };
    for (title, unit, integer, names) in TS_FIGURES {
        let series: Vec<Series> = names
            .iter()
            .filter_map(|c| {
                column(c).map(|points| Series {
                    name: c.to_string(),
                    points,
                    step: false,
                })
            })
            .collect();
        if series.is_empty() {
            continue;
        }
        s += &svg::line_chart(&Chart {
            title: format!("{title} · {who}"),
            x_label: "simulated time (s)".into(),
            y_label: unit.into(),
            series,
            x_log: false,
            y_integer: integer,
            y_range: None,
        });
    }
    s += &job_throughput(ts, who, stride);
    let _ = write!(
        s,
        "<p class=\"note\">{} intervals of {} ms{}.</p>",
        rows.len(),
        ts.get("interval_ms")
            .map(|v| v.to_string())
            .unwrap_or_default(),
        if stride > 1 {
            format!("; every {stride}th drawn")
        } else {
            String::new()
        }
    );
    s
}

/// Each job's throughput (read + write MiB/s) over time, from the time series' per-job rows
/// (`timeseries.jobs`, runs of several jobs); empty without them.
fn job_throughput(ts: &Value, who: &str, stride: usize) -> String {
    let Some(jobs) = ts.get("jobs").and_then(Value::as_array) else {
        return String::new();
    };
    let series: Vec<Series> = jobs
        .iter()
        .filter_map(|j| {
            let cols: Vec<&str> = j["columns"]
                .as_array()?
                .iter()
                .filter_map(Value::as_str)
                .collect();
            let at = |c: &str| cols.iter().position(|x| *x == c);
            let (t, r, w) = (at("t_ms")?, at("read_mib_s")?, at("write_mib_s")?);
            let rows = j["rows"].as_array()?;
            let points = rows
                .iter()
                .enumerate()
                .filter(|(k, _)| k % stride == 0 || *k + 1 == rows.len())
                .filter_map(|(_, row)| {
                    let v = |i: usize| row.get(i).and_then(Value::as_f64);
                    Some((v(t)? / 1e3, v(r)? + v(w)?))
                })
                .collect();
            Some(Series {
                name: j["name"].as_str()?.to_string(),
                points,
                step: false,
            })
        })
        .collect();
    if series.is_empty() {
        return String::new();
    }
    svg::line_chart(&Chart {
        title: format!("throughput per job · {who}"),
        x_label: "simulated time (s)".into(),
        y_label: "MiB/s (read + write)".into(),
        series,
        x_log: false,
        y_integer: false,
        y_range: None,
    })
}

fn activity_section(r: &Value, who: &str) -> String {
    let mut s = String::from("<h2>GC and die activity</h2>");
    let mut kv = Vec::new();
    let sim_ns = num(r, "sim.simulated_ns").unwrap_or(0.0);
    if let (Some(busy), true) = (num(r, "device.flash.die_busy_ns"), sim_ns > 0.0) {
        kv.push((
            "dies busy on average (die busy time / simulated time)".to_string(),
            format!("{:.3}", busy / sim_ns),
        ));
    }
    for k in [
        "device.gc.time_share",
        "device.gc.cpu_busy_ns",
        "device.gc.suspensions",
        "device.gc.pages_moved_per_victim.mean",
        "device.gc.pages_moved_per_victim.max",
        "device.wear.erase_min",
        "device.wear.erase_max",
        "device.wear.erase_mean",
    ] {
        if let Some(v) = num(r, k) {
            kv.push((k.to_string(), fmt(v)));
        }
    }
    s += &kv_table(&kv);
    let bars: Vec<(String, f64)> = [
        ("page reads", "device.flash.page_reads"),
        ("page programs", "device.flash.page_programs"),
        ("block erases", "device.flash.block_erases"),
        ("GC pages moved", "device.gc.pages_moved"),
    ]
    .iter()
    .filter_map(|(n, k)| num(r, k).map(|v| (n.to_string(), v)))
    .collect();
    s += &svg::bar_chart(&format!("flash operations · {who}"), "count", &bars);
    let gc: Vec<(String, f64)> = [
        ("foreground", "device.gc.foreground_victims"),
        ("background", "device.gc.background_victims"),
    ]
    .iter()
    .filter_map(|(n, k)| num(r, k).map(|v| (n.to_string(), v)))
    .collect();
    s += &svg::bar_chart(&format!("GC victims · {who}"), "superblocks", &gc);
    s
}

fn zones_section(r: &Value, who: &str, data: &mut Map<String, Value>) -> String {
    let mut s = String::from("<h2>Zone states</h2>");
    let mut out = Vec::new();
    for ns in at(r, "device.namespaces")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let Some(cond) = ns.get("zone_conditions").and_then(Value::as_object) else {
            continue;
        };
        let id = ns.get("id").and_then(Value::as_u64).unwrap_or(0);
        let bars: Vec<(String, f64)> = cond
            .iter()
            .map(|(k, v)| (k.clone(), v.as_f64().unwrap_or(0.0)))
            .collect();
        s += &svg::bar_chart(
            &format!("zones of namespace {id} by condition · {who}"),
            "zones",
            &bars,
        );
        let mut kv = Vec::new();
        for k in [
            "zones",
            "zone_size_bytes",
            "zone_capacity_bytes",
            "max_open",
            "max_active",
        ] {
            if let Some(v) = ns.get(k).and_then(Value::as_f64) {
                kv.push((format!("namespace {id} {k}"), fmt(v)));
            }
        }
        s += &kv_table(&kv);
        out.push(json!({"namespace": id, "conditions": cond}));
    }
    if out.is_empty() {
        s += "<p class=\"note\">No zoned namespace in this device.</p>";
    }
    data.insert("zones".into(), Value::Array(out));
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Value {
        json!({
            "zonesim_version": "0.1.0",
            "device": {"name": "dev<1>", "waf": 1.5, "flash": {"page_reads": 10, "die_busy_ns": 500},
                "gc": {"victims": 2, "foreground_victims": 2, "background_victims": 0},
                "namespaces": [{"id": 1, "kind": "zoned", "zones": 4,
                    "zone_conditions": {"EMPTY": 3, "FULL": 1}}]},
            "host": {"write": {"ios": 5, "iops": 10.0, "bandwidth_mib_s": 1.0,
                "latency_us": {"mean": 2.0, "min": 1.0, "p50": 2.0, "p99": 3.0, "p999": 3.5, "max": 4.0}}},
            "jobs": [{"name": "w", "write": {"ios": 5, "iops": 10.0, "bandwidth_mib_s": 1.0,
                "latency_us": {"mean": 2.0, "min": 1.0, "p50": 2.0, "p99": 3.0, "p999": 3.5, "max": 4.0}}}],
            "sim": {"seed": 1, "simulated_ns": 1000},
            "timeseries": {"interval_ms": 1.0, "columns": ["t_ms", "write_mib_s", "waf", "free_superblocks"],
                "rows": [[1.0, 2.0, 1.0, 5.0], [2.0, 3.0, 1.2, 4.0]]}
        })
    }

    #[test]
    fn page_is_deterministic_and_escapes_names() {
        let r = sample();
        let a = render(&r, "r.json");
        assert_eq!(a, render(&r, "r.json"));
        assert!(a.contains("dev&lt;1&gt;"));
        let visible = &a[..a.find("id=\"zonesim-data\"").unwrap()];
        assert!(!visible.contains("dev<1>"));
        assert!(a.contains("zones of namespace 1 by condition"));
        assert!(a.contains("free space"));
        assert!(!a.contains("http://") || !a.contains("src=\"http"));
    }

    #[test]
    fn embedded_data_matches_the_report() {
        let r = sample();
        let page = render(&r, "r.json");
        let start = page.find("id=\"zonesim-data\">").unwrap() + "id=\"zonesim-data\">".len();
        let end = start + page[start..].find("</script>").unwrap();
        let d: Value = serde_json::from_str(&page[start..end].replace("<\\/", "</")).unwrap();
        assert_eq!(d["headline"].as_array().unwrap().len(), 2);
        assert_eq!(d["headline"][0]["latency_us"]["p99"], json!(3.0));
        assert_eq!(d["device_counters"]["device.waf"], json!(1.5));
        assert_eq!(d["timeseries"]["rows"], json!(2));
        assert_eq!(d["zones"][0]["conditions"]["FULL"], json!(1));
    }

    #[test]
    fn per_job_throughput_is_drawn_when_the_series_has_jobs() {
        let mut r = sample();
        assert!(!render(&r, "r.json").contains("throughput per job"));
        let cols = json!(["t_ms", "read_mib_s", "write_mib_s"]);
        r["timeseries"]["jobs"] = json!([
            {"name": "fill<a>", "columns": cols, "rows": [[1.0, 0.0, 2.0], [2.0, 0.0, 3.0]]},
            {"name": "scan", "columns": cols, "rows": [[1.0, 4.0, 0.0], [2.0, 5.0, 0.0]]}
        ]);
        let page = render(&r, "r.json");
        assert!(page.contains("throughput per job"));
        assert!(page.contains("fill&lt;a&gt;") && page.contains("scan"));
    }

    #[test]
    fn cdf_from_histogram_or_percentiles() {
        let s = json!({"latency_us": {"histogram": [[1.0, 1], [2.0, 3]]}});
        assert_eq!(cdf_points(&s), (vec![(1.0, 0.25), (2.0, 1.0)], "histogram"));
        let s = json!({"latency_us": {"histogram": {"10": 3, "2.5": 1}}});
        assert_eq!(
            cdf_points(&s),
            (vec![(2.5, 0.25), (10.0, 1.0)], "histogram")
        );
        let s =
            json!({"latency_us": {"min": 1.0, "p50": 2.0, "p99": 3.0, "p999": 4.0, "max": 5.0}});
        let (p, _) = cdf_points(&s);
        assert_eq!(p.first(), Some(&(1.0, 0.0)));
        assert_eq!(p.last(), Some(&(5.0, 1.0)));
    }
}
