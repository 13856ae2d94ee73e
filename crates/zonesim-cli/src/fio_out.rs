//! fio's output formats for `zonesim run --output-format fio-json|terse`, so fio's parsers and
//! plotters read zonesim's results. The layout follows fio's `stat.c` (`show_thread_status_json`,
//! `add_ddir_status_json`, `show_thread_status_terse_all`): `jobs[]` with `jobname`, `groupid`
//! and `read` / `write` / `trim` objects (`io_bytes`, `bw` in KiB/s, `iops`, `runtime` in ms,
//! `total_ios`, `slat_ns` / `clat_ns` / `lat_ns` with `min`, `max`, `mean`, `stddev`, `N`,
//! `percentile` and json+ `bins`), `sync`, and a `disk_util` list.
//!
//! What the simulator measures is a request's time from issue to completion: fio's `lat` and
//! `clat` both carry it, `slat` is 0 (no submission cost is modelled apart from the host
//! overhead already inside it). A job's runtime in a direction is its own window (first issue to
//! last completion); "total" rows elsewhere follow fio's group reporting (summary.rs).

use serde_json::{json, Map, Value};
use zonesim::stats::report::{JobCdf, LatencyHist, OpReport};
use zonesim::stats::Report;

/// fio's default percentile list (`percentile_list`, stat.c).
pub const FIO_PERCENTILES: [f64; 17] = [
    1.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 95.0, 99.0, 99.5, 99.9, 99.95,
    99.99,
];

/// The version string zonesim writes where fio writes its own: the fio release whose layout
/// this follows, and zonesim's version.
pub fn version_string() -> String {
    format!("fio-3.33 (zonesim {})", env!("CARGO_PKG_VERSION"))
}

/// Parse `--percentiles 50,99,99.9`: 1 to 20 values in (0, 100].
pub fn parse_percentiles(s: &str) -> Result<Vec<f64>, String> {
    let v: Vec<f64> = s
        .split([',', ':'])
        .map(|p| {
            p.trim()
                .parse::<f64>()
                .ok()
                .filter(|x| *x > 0.0 && *x <= 100.0)
                .ok_or_else(|| format!("'{p}' is not a percentile in (0, 100]"))
        })
        .collect::<Result<_, _>>()?;
    if v.is_empty() || v.len() > 20 {
        return Err("give 1 to 20 percentiles (fio's limit)".into());
    }
    Ok(v)
}

/// The job's runtime in ms for one direction (its window: ios / iops).
fn runtime_ms(o: &OpReport) -> u64 {
    if o.ios == 0 || o.iops <= 0.0 {
        0
    } else {
        (o.ios as f64 / o.iops * 1000.0).round() as u64
    }
}

fn lat_json(h: &LatencyHist, pct: &[f64], with_pct: bool) -> Value {
    let mut o = Map::new();
    o.insert("min".into(), json!(h.min_ns));
    o.insert("max".into(), json!(h.max_ns));
    o.insert("mean".into(), json!(h.mean_ns));
    o.insert("stddev".into(), json!(h.stddev_ns));
    o.insert("N".into(), json!(h.n));
    if with_pct && h.n > 0 {
        let p: Map<String, Value> = pct
            .iter()
            .map(|p| (format!("{p:.6}"), json!(h.percentile(*p))))
            .collect();
        o.insert("percentile".into(), Value::Object(p));
        let bins: Map<String, Value> = h
            .bins
            .iter()
            .map(|(v, c)| (v.to_string(), json!(c)))
            .collect();
        o.insert("bins".into(), Value::Object(bins));
    }
    Value::Object(o)
}

fn hist_of<'a>(cdfs: &'a [JobCdf], job: &str, op: &str) -> Option<&'a LatencyHist> {
    cdfs.iter()
        .find(|c| c.job == job && c.op == op)
        .map(|c| &c.hist)
}

fn ddir_json(o: &OpReport, h: Option<&LatencyHist>, pct: &[f64]) -> Value {
    let empty = LatencyHist::default();
    let h = h.unwrap_or(&empty);
    let runt = runtime_ms(o);
    let bw_bytes = (1000 * o.bytes).checked_div(runt).unwrap_or(0);
    let iops = if runt > 0 {
        1000.0 * o.ios as f64 / runt as f64
    } else {
        0.0
    };
    json!({
        "io_bytes": o.bytes,
        "io_kbytes": o.bytes >> 10,
        "bw_bytes": bw_bytes,
        "bw": bw_bytes / 1024,
        "iops": iops,
        "runtime": runt,
        "total_ios": o.ios,
        "short_ios": 0,
        "drop_ios": 0,
        "slat_ns": lat_json(&LatencyHist::default(), pct, false),
        "clat_ns": lat_json(h, pct, true),
        "lat_ns": lat_json(h, pct, false),
        "bw_min": 0, "bw_max": 0, "bw_agg": if o.ios > 0 { 100.0 } else { 0.0 },
        "bw_mean": 0.0, "bw_dev": 0.0, "bw_samples": 0,
        "iops_min": 0, "iops_max": 0, "iops_mean": 0.0, "iops_stddev": 0.0, "iops_samples": 0,
    })
}

/// The report in fio's JSON layout. `groups[i]` is job i's reporting group (fio: a stonewall
/// starts a new one).
pub fn fio_json(r: &Report, groups: &[u32], pct: &[f64]) -> Value {
    let jobs: Vec<Value> = r
        .jobs
        .iter()
        .enumerate()
        .map(|(i, j)| {
            let h = &j.host;
            let sync = hist_of(&r.latency_cdfs, &j.name, "flush");
            let job_runtime = [&h.read, &h.write, &h.trim, &h.flush]
                .into_iter()
                .map(runtime_ms)
                .max()
                .unwrap_or(0);
            json!({
                "jobname": j.name,
                "groupid": groups.get(i).copied().unwrap_or(0),
                "error": 0,
                "eta": 0,
                "elapsed": job_runtime.div_ceil(1000),
                "job options": { "namespace": j.namespace.to_string() },
                "read": ddir_json(&h.read, hist_of(&r.latency_cdfs, &j.name, "read"), pct),
                "write": ddir_json(&h.write, hist_of(&r.latency_cdfs, &j.name, "write"), pct),
                "trim": ddir_json(&h.trim, hist_of(&r.latency_cdfs, &j.name, "trim"), pct),
                "sync": {
                    "total_ios": h.flush.ios,
                    "lat_ns": lat_json(sync.unwrap_or(&LatencyHist::default()), pct, true),
                },
                "job_runtime": job_runtime,
                "usr_cpu": 0.0, "sys_cpu": 0.0, "ctx": 0, "majf": 0, "minf": 0,
            })
        })
        .collect();
    let started = r
        .provenance
        .as_ref()
        .map(|p| p.started_at.clone())
        .unwrap_or_default();
    json!({
        "fio version": version_string(),
        "timestamp": 0,
        "timestamp_ms": 0,
        "time": started,
        "global options": {},
        "jobs": jobs,
        "disk_util": [{
            "name": r.device.name,
            "read_ios": r.host.read.ios,
            "write_ios": r.host.write.ios,
            "read_sectors": r.host.read.bytes / 512,
            "write_sectors": r.host.write.bytes / 512,
            "util": die_util(r),
        }],
    })
}

/// The device's utilisation in %: the busy fraction of its dies over the measured run.
fn die_util(r: &Report) -> f64 {
    let dies = r.provenance.as_ref().map_or(1.0, |p| {
        let n = |k: &str| p.device["nand"][k].as_u64().unwrap_or(1) as f64;
        n("channels") * n("chips_per_channel") * n("dies_per_chip")
    });
    let busy = r.device.flash.die_busy_ns as f64;
    let span = r.sim.simulated_ns.max(1) as f64;
    (busy / dies.max(1.0) / span * 100.0).min(100.0)
}

/// One direction of a terse v3 line.
fn ddir_terse(out: &mut String, o: &OpReport, h: Option<&LatencyHist>, pct: &[f64]) {
    use std::fmt::Write;
    let empty = LatencyHist::default();
    let h = h.unwrap_or(&empty);
    let runt = runtime_ms(o);
    let bw = (1000 * o.bytes).checked_div(runt).unwrap_or(0) / 1024;
    let iops = (1000 * o.ios).checked_div(runt).unwrap_or(0);
    let _ = write!(out, ";{};{bw};{iops};{runt}", o.bytes >> 10);
    let _ = write!(out, ";0;0;{:.6};{:.6}", 0.0, 0.0); // slat (us)
    let lat = |out: &mut String| {
        let _ = write!(
            out,
            ";{};{};{:.6};{:.6}",
            h.min_ns / 1000,
            h.max_ns / 1000,
            h.mean_ns / 1000.0,
            h.stddev_ns / 1000.0
        );
    };
    lat(out); // clat
    for i in 0..20 {
        match pct.get(i) {
            Some(p) if h.n > 0 => {
                let _ = write!(out, ";{p:.6}%={}", h.percentile(*p) / 1000);
            }
            _ => out.push_str(";0%=0"),
        }
    }
    lat(out); // lat
    let _ = write!(
        out,
        ";0;0;{:.6}%;{:.6};{:.6}",
        if o.ios > 0 { 100.0 } else { 0.0 },
        0.0,
        0.0
    );
}

/// The report as fio's terse v3 lines, one per job (`--output-format=terse`, `terse_version=3`).
pub fn terse(r: &Report, groups: &[u32], pct: &[f64]) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    for (i, j) in r.jobs.iter().enumerate() {
        let _ = write!(
            out,
            "3;{};{};{};0",
            version_string(),
            j.name,
            groups.get(i).copied().unwrap_or(0)
        );
        let h = &j.host;
        for (o, op) in [(&h.read, "read"), (&h.write, "write")] {
            ddir_terse(&mut out, o, hist_of(&r.latency_cdfs, &j.name, op), pct);
        }
        out.push_str(";0.000000%;0.000000%;0;0;0"); // cpu, ctx, faults: not modelled
        out.push_str(&";0.0%".repeat(7)); // iodepth distribution: not recorded
        out.push_str(&";0.00%".repeat(10 + 12)); // us / ms latency distribution
        let _ = writeln!(
            out,
            ";{};{};{};{};0;0;{};{:.2}%",
            r.device.name,
            r.host.read.ios,
            r.host.write.ios,
            0,
            0,
            die_util(r)
        );
    }
    out
}
