//! fio's job logs (`write_lat_log`, `write_bw_log`, `write_iops_log`, `log_avg_msec`): the
//! files fio would name, in the working directory, in fio 3.33's line format (`time, value,
//! direction, block size, priority`), their times increasing and their means the report's.

use std::path::{Path, PathBuf};
use std::process::Command;

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("zonesim-fio-logs-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Run `job` in `d`; the JSON report.
fn run(d: &Path, job: &str) -> serde_json::Value {
    std::fs::write(d.join("j.fio"), job).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_zonesim"))
        .current_dir(d)
        .args(["run", "--workload", "j.fio", "--json", "r.json"])
        .output()
        .expect("zonesim runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(&std::fs::read_to_string(d.join("r.json")).unwrap()).unwrap()
}

/// The rows of a log: five integers each.
fn rows(p: &Path) -> Vec<[u64; 5]> {
    let text = std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    text.lines()
        .map(|l| {
            let v: Vec<u64> = l.split(", ").map(|x| x.parse().expect(l)).collect();
            v.try_into()
                .unwrap_or_else(|_| panic!("{}: five columns: {l}", p.display()))
        })
        .collect()
}

fn mean_ns(r: &serde_json::Value, dir: &str) -> f64 {
    r["jobs"][0][dir]["latency_us"]["mean"].as_f64().unwrap() * 1000.0
}

const JOB: &str = "[t]\nrw=randrw\nbs=4k\niodepth=4\nnumber_ios=20000\n";

#[test]
fn per_io_logs_have_one_row_per_io() {
    let d = dir("per-io");
    let r = run(
        &d,
        &format!("{JOB}write_lat_log=t\nwrite_bw_log\nwrite_iops_log=t\n"),
    );
    let lat = rows(&d.join("t_clat.1.log"));
    assert_eq!(lat.len(), 20000);
    assert_eq!(rows(&d.join("t_lat.1.log")), lat);
    assert!(rows(&d.join("t_slat.1.log")).iter().all(|r| r[1] == 0));
    assert!(
        lat.windows(2).all(|w| w[0][0] <= w[1][0]),
        "times never decrease"
    );
    assert!(lat.iter().all(|r| r[2] <= 1 && r[3] == 4096 && r[4] == 0));
    for (dir, code) in [("read", 0), ("write", 1)] {
        let v: Vec<f64> = lat
            .iter()
            .filter(|r| r[2] == code)
            .map(|r| r[1] as f64)
            .collect();
        assert_eq!(v.len() as u64, r["jobs"][0][dir]["ios"].as_u64().unwrap());
        let mean = v.iter().sum::<f64>() / v.len() as f64;
        let want = mean_ns(&r, dir);
        // The report's mean is the histogram's (3 significant digits).
        assert!(
            (mean / want - 1.0).abs() < 2e-3,
            "{dir}: log {mean} report {want}"
        );
    }
    // A bare write_bw_log is named after the job.
    assert_eq!(rows(&d.join("t_bw.1.log")).len(), 20000);
    assert!(rows(&d.join("t_iops.1.log")).iter().all(|r| r[1] == 1));
}

#[test]
fn averaged_logs_have_one_row_per_window_and_direction() {
    let d = dir("avg");
    let job = format!("{JOB}write_lat_log=a\nwrite_iops_log=a\nlog_avg_msec=10\nper_job_logs=0\n");
    let r = run(&d, &job);
    let lat = rows(&d.join("a_clat.log"));
    let iops = rows(&d.join("a_iops.log"));
    assert_eq!(lat.len(), iops.len());
    for code in [0, 1] {
        let l: Vec<_> = lat.iter().filter(|r| r[2] == code).collect();
        let n: Vec<_> = iops.iter().filter(|r| r[2] == code).collect();
        assert!(l.windows(2).all(|w| w[0][0] < w[1][0]), "times increase");
        assert!(l.iter().all(|r| r[3] == 0), "block size 0 in averaged rows");
        // I/Os of each window from the IOPS log (10 ms windows, the last one shorter), to
        // weigh each window's mean latency.
        let (mut sum, mut ios) = (0.0, 0.0);
        for (a, b) in l.iter().zip(&n) {
            assert_eq!(a[0], b[0]);
            let len_ms = if a[0] % 10 == 0 { 10 } else { a[0] % 10 };
            let k = b[1] as f64 * len_ms as f64 / 1000.0;
            sum += a[1] as f64 * k;
            ios += k;
        }
        let dir = if code == 0 { "read" } else { "write" };
        let want_ios = r["jobs"][0][dir]["ios"].as_f64().unwrap();
        assert!(
            (ios / want_ios - 1.0).abs() < 2e-2,
            "{dir}: {ios} I/Os in the log, {want_ios}"
        );
        let (mean, want) = (sum / ios, mean_ns(&r, dir));
        assert!(
            (mean / want - 1.0).abs() < 2e-2,
            "{dir}: log {mean} report {want}"
        );
    }
}

#[test]
fn log_offset_is_refused_in_one_line() {
    let d = dir("offset");
    std::fs::write(
        d.join("j.fio"),
        format!("{JOB}write_lat_log=x\nlog_offset=1\n"),
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_zonesim"))
        .current_dir(&d)
        .args(["run", "--workload", "j.fio"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("j.fio:7") && err.contains("log_offset"),
        "{err}"
    );
}

#[test]
fn a_sweep_refuses_jobs_with_logs() {
    let d = dir("sweep");
    std::fs::write(d.join("j.fio"), format!("{JOB}write_lat_log=x\n")).unwrap();
    let grid = "workload = \"j.fio\"\n[grid]\n\"ftl.gc.victim\" = [\"greedy\", \"fifo\"]\n";
    std::fs::write(d.join("s.toml"), grid).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_zonesim"))
        .current_dir(&d)
        .args(["sweep", "s.toml", "--out", "o.csv"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("job 't' writes fio logs"), "{err}");
    assert!(!d.join("x_clat.1.log").exists());
}
