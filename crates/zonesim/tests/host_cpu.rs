//! The host CPU model (`[host.cpu]`, docs/host-cpu.md): off it changes nothing in the report;
//! on, a closed loop leaves the device gaps in which its idle work (SLC write-back) runs;
//! threads contend for cores; busy fractions and the time per step class agree.

use crate::common;

use common::{device, jobs, run};
use serde_json::Value;
use zonesim::config::DeviceConfig;
use zonesim::sim::Precondition;

fn json(cfg: &DeviceConfig, text: &str) -> Value {
    run(cfg, &jobs(text), Precondition::None, 3).deterministic_json()
}

/// Off (`cores = 0`), whatever the costs, the report is the one of a run without the keys:
/// the same numbers and the same resolved device in its provenance.
#[test]
fn off_changes_nothing() {
    let off = [
        "host.cpu.cores=0",
        "host.cpu.syscall_ns=123456",
        "host.cpu.completion_ns=7",
        "host.cpu.little_speed=0.9",
    ];
    let raw = "[w]\nrw=randwrite\nbs=4k\niodepth=4\nnumber_ios=3000\n[r]\nrw=randread\nbs=16k\niodepth=2\nnumber_ios=1000\n";
    let files = "[db]\nrw=randwrite\nbs=4k\nsize=16m\nnrfiles=4\nfsync=8\nnumber_ios=2000\n";
    for (preset, sets, text) in [
        ("ufs-conventional", vec![], raw),
        ("conzone-paper", vec!["fs.kind=f2fs"], files),
    ] {
        let base = json(&device(preset, &sets), text);
        let mut with: Vec<&str> = sets.clone();
        with.extend_from_slice(&off);
        let keyed = json(&device(preset, &with), text);
        assert_eq!(base, keyed, "{preset}: host.cpu off changed the report");
        assert!(base.get("host_cpu").is_none());
        assert!(base["jobs"][0].get("latency_breakdown").is_none());
    }
}

/// A small conventional TLC device with a 16-block SLC write cache written back when the
/// device has been idle 10 µs (`common::slc_device`, the setup of tests/slc_writeback.rs).
fn slc_device(sets: &[&str]) -> DeviceConfig {
    let mut all = vec!["slc.writeback=idle", "slc.writeback_idle_us=10"];
    all.extend_from_slice(sets);
    common::slc_device(&all)
}

/// Issue 33's "done means": a closed loop at queue depth 1 without host time never leaves the
/// device idle, so the SLC write-back starves; with the host's submission and completion paths
/// on a core (here 6.5 µs + the write's own, above the 10 µs idle threshold) the write-back
/// runs in the gaps between requests.
#[test]
fn host_time_gives_idle_work_its_gaps() {
    let job = "[w]\nrw=randwrite\nbs=4k\nsize=64m\niodepth=1\nfsync=1\nnumber_ios=3000\n";
    let slc = |v: &Value| v["device"]["namespaces"][0]["slc"].clone();
    let zero = json(&slc_device(&[]), job);
    assert_eq!(slc(&zero)["writeback_pages"], 0, "{}", slc(&zero));
    let cpu = json(
        &slc_device(&["host.cpu.cores=2", "host.cpu.completion_ns=8000"]),
        job,
    );
    let s = slc(&cpu);
    assert!(s["writeback_pages"].as_u64().unwrap() > 1000, "{s}");
    assert!(s["writeback_runs"].as_u64().unwrap() > 100, "{s}");
    // The host's share of the latency is the CPU work (8 µs completion + 2.5 µs submission).
    let b = &cpu["jobs"][0]["latency_breakdown"];
    let host = b["host_us"].as_f64().unwrap();
    assert!((host - 10.5).abs() < 0.5, "{b}");
    assert!(b["device_us"].as_f64().unwrap() > 0.0, "{b}");
}

/// `numjobs` threads whose requests are dominated by host CPU time: on one core they take
/// about N times as long as one thread, on N cores about as long as one.
#[test]
fn threads_contend_for_cores() {
    let job = |n: u32| format!("[r]\nrw=randread\nbs=4k\niodepth=1\nnumjobs={n}\nnumber_ios=200\n");
    let secs = |cores: u32, n: u32| {
        let c = format!("host.cpu.cores={cores}");
        let cfg = device(
            "ufs-conventional",
            &[c.as_str(), "host.cpu.syscall_ns=10000000"],
        );
        let v = json(&cfg, &job(n));
        v["sim"]["simulated_ns"].as_f64().unwrap()
    };
    let one = secs(1, 1);
    for n in [2u32, 4] {
        let shared = secs(1, n) / one;
        let own = secs(n, n) / one;
        assert!(
            (shared / n as f64 - 1.0).abs() < 0.05,
            "{n} threads on 1 core: {shared}x"
        );
        assert!((own - 1.0).abs() < 0.05, "{n} threads on {n} cores: {own}x");
    }
}

/// Busy fractions lie in [0, 1] and the time per step class adds up to the cores' busy time;
/// a file workload charges F2FS's classes and the page copy.
#[test]
fn busy_and_step_times_agree() {
    let text = "[db]\nrw=randwrite\nbs=4k\nsize=64m\nnrfiles=4\niodepth=1\nfsync=8\nnumber_ios=4000\n[w2]\nrw=write\nbs=64k\nsize=32m\nnumjobs=2\n";
    let cfg = device(
        "conzone-paper",
        &[
            "fs.kind=f2fs",
            "host.cpu.cores=2",
            "host.cpu.little_cores=1",
        ],
    );
    let v = json(&cfg, text);
    let h = &v["host_cpu"];
    let busy: Vec<f64> = h["busy"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b.as_f64().unwrap())
        .collect();
    assert_eq!(busy.len(), 2);
    assert!(busy.iter().all(|&b| (0.0..=1.0).contains(&b)), "{h}");
    assert!(busy[0] > 0.0, "{h}");
    let window = h["window_ns"].as_f64().unwrap();
    assert_eq!(window, v["sim"]["simulated_ns"].as_f64().unwrap());
    let classes: f64 = h["time_ns"]
        .as_object()
        .unwrap()
        .values()
        .map(|t| t.as_f64().unwrap())
        .sum();
    let cores: f64 = busy.iter().sum::<f64>() * window;
    assert!((classes - cores).abs() <= 1e-6 * classes.max(1.0), "{h}");
    for class in [
        "syscall",
        "page_copy",
        "f2fs_write",
        "f2fs_fsync",
        "block_submit",
        "completion",
    ] {
        assert!(h["time_ns"][class].as_u64().unwrap() > 0, "{class}: {h}");
    }
    for j in v["jobs"].as_array().unwrap() {
        assert!(
            j["latency_breakdown"]["host_us"].as_f64().unwrap() > 0.0,
            "{j}"
        );
    }
}

#[test]
fn more_little_cores_than_cores_rejected() {
    let sets = [
        "host.cpu.cores=2".to_string(),
        "host.cpu.little_cores=3".to_string(),
    ];
    let e = zonesim::load_device("ufs-conventional", &sets).unwrap_err();
    assert!(e.to_string().contains("host.cpu.little_cores"), "{e}");
    assert_eq!(e.exit_code(), 2);
}
