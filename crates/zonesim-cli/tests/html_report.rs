//! `zonesim report --html` and `zonesim compare`: the page's embedded data against the JSON
//! report, the page rendered by headless Chromium (skipped with a message only where Chromium
//! is absent and CI is not set), and the comparison table.

mod common;

use common::{dir, ok, s, zonesim};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A small conventional run with a time series, and a small zoned run.
fn reports(d: &Path) -> (PathBuf, PathBuf) {
    let wl = d.join("w.fio");
    std::fs::write(
        &wl,
        "[fill]\nrw=randwrite\nbs=4k\niodepth=8\nnumber_ios=3000\n[read]\nstonewall\nrw=randread\nbs=4k\niodepth=4\nnumber_ios=2000\n",
    )
    .unwrap();
    let a = d.join("a.json");
    ok(&[
        "run",
        "--set",
        "nand.blocks_per_plane=96",
        "--workload",
        s(&wl),
        "--interval-ms",
        "5",
        "--json",
        s(&a),
    ]);
    let zwl = d.join("z.fio");
    std::fs::write(
        &zwl,
        "[z]\nzonemode=zbd\nrw=write\nbs=64k\niodepth=4\nsize=192m\n",
    )
    .unwrap();
    let z = d.join("z.json");
    ok(&[
        "run",
        "--device",
        "conzone-paper",
        "--namespace",
        "1",
        "--workload",
        s(&zwl),
        "--json",
        s(&z),
    ]);
    (a, z)
}

/// The page's `zonesim-data` block.
fn embedded(page: &str) -> Value {
    let tag = "id=\"zonesim-data\">";
    let start = page.find(tag).expect("data block") + tag.len();
    let end = start + page[start..].find("</script>").unwrap();
    serde_json::from_str(&page[start..end].replace("<\\/", "</")).expect("data block is JSON")
}

/// The numbers the page shows are the report's.
fn check_against_report(data: &Value, report: &Value) {
    let rows = data["headline"].as_array().unwrap();
    let mut expected = 0;
    let mut check = |job: &str, stats: &Value| {
        for op in ["read", "write", "trim", "flush", "zone_mgmt"] {
            let st = &stats[op];
            if st["ios"].as_f64().unwrap_or(0.0) == 0.0 {
                continue;
            }
            expected += 1;
            let row = rows
                .iter()
                .find(|r| r["job"] == job && r["op"] == op)
                .unwrap_or_else(|| panic!("no row {job} {op}"));
            for k in ["ios", "iops", "bandwidth_mib_s"] {
                assert_eq!(row[k].as_f64(), st[k].as_f64(), "{job} {op} {k}");
            }
            for k in ["mean", "p50", "p99", "p999", "max"] {
                assert_eq!(
                    row["latency_us"][k].as_f64(),
                    st["latency_us"][k].as_f64(),
                    "{job} {op} {k}"
                );
            }
        }
    };
    for j in report["jobs"].as_array().unwrap() {
        check(j["name"].as_str().unwrap(), j);
    }
    check("total", &report["host"]);
    assert_eq!(rows.len(), expected);
    for (k, v) in data["device_counters"].as_object().unwrap() {
        let want = k
            .split('.')
            .fold(report, |v, k| &v[k])
            .as_f64()
            .unwrap_or(f64::NAN);
        assert_eq!(v.as_f64(), Some(want), "{k}");
    }
    assert_eq!(data["device"], report["device"]["name"]);
    match report.get("timeseries") {
        Some(ts) => assert_eq!(
            data["timeseries"]["rows"].as_u64(),
            Some(ts["rows"].as_array().unwrap().len() as u64)
        ),
        None => assert!(data.get("timeseries").is_none()),
    }
    let zoned: Vec<&Value> = report["device"]["namespaces"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n.get("zone_conditions").is_some())
        .collect();
    assert_eq!(data["zones"].as_array().unwrap().len(), zoned.len());
    for (z, ns) in data["zones"].as_array().unwrap().iter().zip(zoned) {
        assert_eq!(z["conditions"], ns["zone_conditions"]);
    }
}

fn load(p: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

#[test]
fn html_report_is_self_contained_and_shows_the_reports_numbers() {
    let d = dir("html");
    let (a, z) = reports(&d);
    for (json, name) in [(&a, "a.html"), (&z, "z.html")] {
        let html = d.join(name);
        ok(&["report", s(json), "--html", s(&html)]);
        let page = std::fs::read_to_string(&html).unwrap();
        assert!(page.starts_with("<!DOCTYPE html>"));
        for remote in ["src=\"http", "href=\"http", "@import", "<link"] {
            assert!(!page.contains(remote), "{name} loads {remote}");
        }
        let report = load(json);
        let device = report["device"]["name"].as_str().unwrap();
        assert!(
            page.contains(&format!("· {device} ·")),
            "figures name the device"
        );
        check_against_report(&embedded(&page), &report);
        // Deterministic: the same report gives the same page.
        let again = d.join(format!("again-{name}"));
        ok(&["report", s(json), "--html", s(&again)]);
        assert_eq!(page, std::fs::read_to_string(&again).unwrap());
    }
    let page = std::fs::read_to_string(d.join("a.html")).unwrap();
    assert!(page.contains("free space"), "time series figures");
    let page = std::fs::read_to_string(d.join("z.html")).unwrap();
    assert!(page.contains("zones of namespace 1 by condition"));
    assert!(page.contains("no time series"));
}

/// Chromium's binary, if installed.
fn chromium() -> Option<String> {
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .find(|b| {
            Command::new("sh")
                .args(["-c", &format!("command -v {b}")])
                .output()
                .map(|o| o.status.success())
                .unwrap_or(false)
        })
        .map(|b| b.to_string())
}

fn headless(bin: &str, d: &Path, extra: &[&str], page: &Path) -> Output {
    let profile = d.join("chromium-profile");
    let mut args: Vec<String> = [
        "120",
        bin,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--no-first-run",
        "--hide-scrollbars",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    args.push(format!("--user-data-dir={}", profile.display()));
    args.extend(extra.iter().map(|s| s.to_string()));
    args.push(format!("file://{}", page.display()));
    Command::new("timeout")
        .args(&args)
        .env("HOME", d)
        .output()
        .expect("timeout runs chromium")
}

#[test]
fn html_report_renders_in_headless_chromium() {
    let Some(bin) = chromium() else {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI is set but chromium is not installed (.ci/run installs Debian's chromium)"
        );
        eprintln!("SKIPPED html_report_renders_in_headless_chromium: chromium is not installed (Debian: apt-get install chromium); CI installs it");
        return;
    };
    let d = dir("chromium");
    let (a, _) = reports(&d);
    let html = d.join("a.html");
    ok(&["report", s(&a), "--html", s(&html)]);
    let blank = d.join("blank.html");
    std::fs::write(&blank, "<!DOCTYPE html><html><body></body></html>").unwrap();
    let shot = |page: &Path, png: &Path| {
        let arg = format!("--screenshot={}", png.display());
        let out = headless(&bin, &d, &[&arg, "--window-size=1280,4000"], page);
        let size = std::fs::metadata(png).map(|m| m.len()).unwrap_or(0);
        assert!(
            size > 0,
            "no screenshot of {}: {}",
            page.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        size
    };
    let report_png = shot(&html, &d.join("report.png"));
    let blank_png = shot(&blank, &d.join("blank.png"));
    // A page of tables and figures compresses far worse than an empty one.
    assert!(
        report_png > 4 * blank_png,
        "the report's screenshot ({report_png} B) is not much larger than an empty page's ({blank_png} B)"
    );
    let out = headless(&bin, &d, &["--dump-dom"], &html);
    let dom = String::from_utf8_lossy(&out.stdout);
    assert!(
        dom.contains("data-check=\"ok\""),
        "the page's script did not run: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report = load(&a);
    let data = embedded(&dom);
    check_against_report(&data, &report);
    let rows = data["headline"].as_array().unwrap().len();
    assert!(
        dom.contains(&format!("embedded data: {rows} headline rows, ")),
        "{dom}"
    );
}

#[test]
fn compare_prints_deltas_in_a_fixed_order() {
    let d = dir("compare");
    let (a, _) = reports(&d);
    let b = d.join("b.json");
    ok(&[
        "run",
        "--set",
        "nand.blocks_per_plane=96",
        "--set",
        "buffer.bytes=524288",
        "--workload",
        s(&d.join("w.fio")),
        "--seed",
        "2",
        "--json",
        s(&b),
    ]);
    let html = d.join("c.html");
    let text = ok(&["compare", s(&a), s(&b), "--html", s(&html)]);
    assert_eq!(text, ok(&["compare", s(&a), s(&b)]), "deterministic");
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("A  ") && lines[1].starts_with("B  "));
    assert!(text.contains("fill") && text.contains("total") && text.contains("waf"));
    // GC did not run in either: a zero base has no percentage.
    let victims = lines
        .iter()
        .find(|l| l.contains(" gc.victims "))
        .expect("gc.victims row");
    assert!(victims.ends_with("undefined"), "{victims}");
    let fill = text.find("fill ").unwrap();
    let read = text.find("read ").unwrap();
    let total = text.find("total ").unwrap();
    let device = text.find("device ").unwrap();
    assert!(
        fill < total && read < total && total < device,
        "order: {text}"
    );
    let page = std::fs::read_to_string(&html).unwrap();
    let data = embedded(&page);
    assert_eq!(
        data.as_array().unwrap().len(),
        lines.len() - 4,
        "one data row per table row"
    );
    // Bad input: one line, exit 2.
    let out = zonesim(&["compare", s(&a), s(&d.join("w.fio"))]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(err.contains("w.fio"), "{err}");
}
