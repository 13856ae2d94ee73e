//! The time series of a run (`stats.interval_ms`): off by default (no `timeseries` key), and
//! when on its rows add up to the run's totals and follow the device's state; the run facade
//! (`zonesim::run`) stops when asked.

use crate::common;

use common::{device, jobs, many_blocks, run};
use std::sync::atomic::AtomicBool;
use zonesim::sim::Precondition;
use zonesim::{Control, RunSpec, WorkloadSpec};

const MIX: &str = "[mix]\nrw=randrw\nbs=4k\niodepth=8\nnumber_ios=20000\n";

fn col(ts: &zonesim::stats::TimeSeries, name: &str) -> Vec<f64> {
    let i = ts
        .columns
        .iter()
        .position(|c| c == name)
        .unwrap_or_else(|| panic!("no column {name}"));
    ts.rows.iter().map(|r| r[i]).collect()
}

#[test]
fn off_by_default_leaves_the_report_as_it_was() {
    let r = run(
        &device("ufs-conventional", &[]),
        &jobs(MIX),
        Precondition::None,
        3,
    );
    assert!(r.timeseries.is_none());
    let json = serde_json::to_value(&r).unwrap();
    assert!(json.get("timeseries").is_none());
}

#[test]
fn rows_add_up_to_the_totals() {
    let cfg = device("ufs-conventional", &["stats.interval_ms=5"]);
    let r = run(&cfg, &jobs(MIX), Precondition::None, 3);
    let ts = r.timeseries.as_ref().expect("sampled");
    assert_eq!(ts.interval_ms, 5.0);
    let t = col(ts, "t_ms");
    assert!(t.len() > 3, "{} rows", t.len());
    let last = *t.last().unwrap();
    assert!(
        (last - r.sim.simulated_ns as f64 / 1e6).abs() < 1e-9,
        "ends with the run"
    );
    for dir in ["read", "write"] {
        let iops = col(ts, &format!("{dir}_iops"));
        // Each row's IOPS times its length is the requests completed in it.
        let mut prev = 0.0;
        let ios: f64 = iops
            .iter()
            .zip(&t)
            .map(|(x, &end)| {
                let n = x * (end - prev) / 1e3;
                prev = end;
                n
            })
            .sum();
        let total = if dir == "read" {
            r.host.read.ios
        } else {
            r.host.write.ios
        };
        assert!(
            (ios - total as f64).abs() < 1e-6 * total as f64 + 1e-6,
            "{dir}: {ios} vs {total}"
        );
    }
    let waf = col(ts, "waf");
    assert!(
        (waf.last().unwrap() - r.device.waf).abs() < 1e-12,
        "cumulative WAF ends at the report's"
    );
    let p99 = col(ts, "read_lat_p99_us");
    assert!(
        p99.iter().all(|&x| x > 0.0),
        "every interval completes reads"
    );
}

#[test]
fn gc_and_free_superblocks_follow_the_device() {
    let cfg = many_blocks(0.1, "greedy", 64);
    let mut cfg = cfg;
    cfg.stats.interval_ms = 20.0;
    let wl = jobs("[w]\nrw=randwrite\nbs=4k\niodepth=4\nnumber_ios=40000\n");
    let r = run(&cfg, &wl, Precondition::Seq, 1);
    let ts = r.timeseries.as_ref().unwrap();
    let moved = col(ts, "gc_pages_moved");
    assert!(moved.windows(2).all(|w| w[0] <= w[1]), "cumulative");
    assert_eq!(*moved.last().unwrap() as u64, r.device.gc.pages_moved);
    assert!(r.device.gc.pages_moved > 0);
    let free = col(ts, "free_superblocks");
    assert!(free.iter().all(|&f| f > 0.0 && f < 64.0), "{free:?}");
}

#[test]
fn zoned_runs_sample_slc_and_buffers() {
    let cfg = common::small_zoned(&["stats.interval_ms=1", "slc.policy=all", "slc.gc=migrate"]);
    let mut spec = RunSpec::new(cfg, WorkloadSpec::Default);
    spec.options.namespace = 1;
    spec.options.check_invariants = true;
    let r = zonesim::run(&spec, &mut Control::none()).expect("runs");
    let ts = r.timeseries.as_ref().unwrap();
    assert!(col(ts, "slc_valid_pages").iter().any(|&x| x > 0.0));
}

#[test]
fn a_stop_flag_interrupts_the_run() {
    let spec = RunSpec::new(
        device("ufs-conventional", &[]),
        WorkloadSpec::FioText {
            text: "[w]\nrw=randwrite\nbs=4k\nnumber_ios=300000\n".into(),
            name: "w.fio".into(),
        },
    );
    let stop = AtomicBool::new(true);
    let e = zonesim::run(
        &spec,
        &mut Control {
            progress: None,
            stop: Some(&stop),
            finish: None,
        },
    )
    .unwrap_err();
    assert!(matches!(e, zonesim::Error::Interrupted { .. }), "{e}");
}

#[test]
fn the_facade_equals_the_plain_run() {
    let cfg = device("ufs-conventional", &[]);
    let a = run(&cfg, &jobs(MIX), Precondition::None, 9);
    let mut spec = RunSpec::new(
        cfg,
        WorkloadSpec::FioText {
            text: MIX.into(),
            name: "test.fio".into(),
        },
    );
    spec.options.seed = 9;
    spec.options.check_invariants = true;
    let b = zonesim::run(&spec, &mut Control::none()).unwrap();
    // The same run; only the provenance's record of how the workload was given differs.
    let strip = |r: &zonesim::stats::Report| {
        let mut v = r.deterministic_json();
        v.as_object_mut().unwrap().remove("provenance");
        v
    };
    assert_eq!(strip(&a), strip(&b));
    let _: WorkloadSpec = spec.resolve_workload().unwrap().0;
}

#[test]
fn bad_intervals_are_config_errors() {
    for set in [
        "stats.interval_ms=-1",
        "stats.interval_ms=0.0001",
        "stats.intervalms=5",
    ] {
        let e = zonesim::load_device("ufs-conventional", &[set.to_string()]).unwrap_err();
        assert!(e.to_string().contains("stats.interval"), "{set}: {e}");
    }
}

#[test]
fn a_finish_flag_ends_the_run_with_the_report_of_what_ran() {
    let spec = RunSpec::new(
        device("ufs-conventional", &[]),
        WorkloadSpec::FioText {
            text: "[w]\nrw=randwrite\nbs=4k\niodepth=8\nnumber_ios=300000\n".into(),
            name: "w.fio".into(),
        },
    );
    // Set after the first progress snapshot past 50,000 completions, as a Ctrl-C would.
    let finish = AtomicBool::new(false);
    let mut seen = Vec::new();
    let mut progress = |t: &zonesim::Tick| {
        seen.push(*t);
        if t.completed >= 50_000 {
            finish.store(true, std::sync::atomic::Ordering::Relaxed);
        }
    };
    let r = zonesim::run(
        &spec,
        &mut Control {
            progress: Some(&mut progress),
            stop: None,
            finish: Some(&finish),
        },
    )
    .expect("an interrupted run still reports");
    assert!(r.interrupted);
    let done = r.sim.requests_completed;
    assert_eq!(r.sim.requests_issued, done, "in-flight requests completed");
    assert!(
        (50_000..50_000 + 2 * zonesim::sim::TICK_COMPLETIONS).contains(&done),
        "{done}"
    );
    assert_eq!(r.jobs[0].host.write.ios, done);
    // Snapshots: the fraction of number_ios done, increasing.
    let f: Vec<f64> = seen.iter().filter_map(|t| t.fraction).collect();
    assert!(f.windows(2).all(|w| w[0] <= w[1]), "{f:?}");
    let last = seen.last().unwrap();
    assert!((last.fraction.unwrap() - last.completed as f64 / 300_000.0).abs() < 1e-3);
    // Not interrupted: false.
    let cfg = device("ufs-conventional", &[]);
    assert!(!run(&cfg, &jobs(MIX), Precondition::None, 3).interrupted);
}

#[test]
fn each_job_has_its_own_rows_that_add_up_to_the_totals() {
    let cfg = device("ufs-conventional", &["stats.interval_ms=5"]);
    let two = "[r]\nrw=randread\nbs=4k\niodepth=4\nnumber_ios=8000\n[w]\nrw=randwrite\nbs=16k\niodepth=2\nnumber_ios=3000\n";
    let r = run(&cfg, &jobs(two), Precondition::None, 3);
    let ts = r.timeseries.as_ref().expect("sampled");
    let names: Vec<&str> = ts.jobs.iter().map(|j| j.name.as_str()).collect();
    assert_eq!(names, ["r", "w"]);
    for j in &ts.jobs {
        assert_eq!(j.rows.len(), ts.rows.len());
        assert_eq!(j.columns, ts.columns[..9]);
    }
    for (k, row) in ts.rows.iter().enumerate() {
        assert_eq!(ts.jobs[0].rows[k][0], row[0], "same intervals");
        for (c, (name, &total)) in ts.columns.iter().zip(row).enumerate().take(9).skip(1) {
            if name.ends_with("_iops") || name.ends_with("_mib_s") {
                let sum = ts.jobs[0].rows[k][c] + ts.jobs[1].rows[k][c];
                assert!((sum - total).abs() <= 1e-6 * total.max(1.0), "{name}");
            }
        }
    }
    // One job: no per-job rows (they would repeat the totals).
    let r = run(&cfg, &jobs(MIX), Precondition::None, 3);
    assert!(r.timeseries.unwrap().jobs.is_empty());
}

/// A time series is bounded in values (rows x columns), and reaching the bound ends the run at
/// once with one error naming `stats.interval_ms` (the rest of the run is not simulated for a
/// series already lost). A world of the soak (seed 361 then) slowed every page by 1.5 s of
/// controller time (`ftl.cost.single_write_ns`) with an interval of 8.3 us under the host file
/// system: about 10^9 rows were asked for, each sampling every segment of the file system,
/// and the run went on for hours of simulated time after its series had filled.
#[test]
fn a_series_past_its_bound_ends_the_run_there() {
    let cfg = device(
        "ufs-conventional",
        &[
            "stats.interval_ms=0.0083",
            "ftl.cost.single_write_ns=1.5e9",
            "fs.kind=\"f2fs\"",
        ],
    );
    let spec = RunSpec::new(
        cfg,
        WorkloadSpec::FioText {
            text: "[w]\nrw=randwrite\nbs=16k\niodepth=8\nnumber_ios=3000\ndirectory=/d\nnrfiles=8\nfilesize=2m\nfsync=4\n".into(),
            name: "w.fio".into(),
        },
    );
    let e = zonesim::run(&spec, &mut Control::none()).unwrap_err();
    let msg = e.to_string();
    assert_eq!(e.exit_code(), 2, "{msg}");
    assert!(
        msg.starts_with("config: stats.interval_ms: 0.0083 ms is too small"),
        "{msg}"
    );
    // It stops where the series filled: rows x interval, not the run's end (hours later).
    let cols = 27;
    let rows = zonesim::stats::timeseries::MAX_VALUES / cols;
    assert!(
        msg.contains(&format!("{rows} rows of {cols} columns")),
        "{msg}"
    );
    assert!(
        msg.contains(&format!("{:.3} s into the run", rows as f64 * 8300.0 / 1e9)),
        "{msg}"
    );
    // A time-based run whose length is known is refused before it starts.
    let spec = RunSpec::new(
        device("ufs-conventional", &["stats.interval_ms=0.001"]),
        WorkloadSpec::FioText {
            text: "[w]\nrw=randwrite\nbs=4k\nsize=64m\nruntime=20s\ntime_based\n".into(),
            name: "w.fio".into(),
        },
    );
    let t = std::time::Instant::now();
    let e = zonesim::run(&spec, &mut Control::none()).unwrap_err();
    assert!(
        e.to_string()
            .contains("its time-based jobs run 20.000 s, 20000000 rows"),
        "{e}"
    );
    assert!(
        t.elapsed().as_secs() < 5,
        "refused up front: {:?}",
        t.elapsed()
    );
}
