//! The command line: default run, presets, JSON report keys, and bad input -> one line, exit 2.

use std::process::{Command, Output};

fn zonesim(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_zonesim"))
        .args(args)
        .output()
        .expect("zonesim runs")
}

fn tmp(name: &str, text: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("zonesim-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// Exit code 2 and exactly one line on stderr containing every `needles`.
fn bad_input(args: &[&str], needles: &[&str]) {
    let out = zonesim(args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
    for n in needles {
        assert!(err.contains(n), "{args:?}: '{err}' lacks '{n}'");
    }
}

#[test]
fn default_run_prints_a_summary() {
    let out = zonesim(&["run", "--set", "nand.blocks_per_plane=96"]);
    assert!(out.status.success());
    let s = String::from_utf8_lossy(&out.stdout);
    for needle in ["randwrite", "randread", "WAF", "requests/wall s"] {
        assert!(s.contains(needle), "{s}");
    }
}

#[test]
fn presets_are_listed() {
    let out = zonesim(&["presets"]);
    let s = String::from_utf8_lossy(&out.stdout);
    assert!(s.contains("ufs-conventional") && s.contains("nvme-ssd"));
}

#[test]
fn json_report_has_the_contract_keys() {
    let wl = tmp(
        "mix.fio",
        "[m]\nrw=randrw\nbs=4k\niodepth=8\nsize=64m\nio_size=16m\n",
    );
    let json = std::env::temp_dir().join(format!("zonesim-report-{}.json", std::process::id()));
    let out = zonesim(&[
        "run",
        "--device",
        "nvme-ssd",
        "--set",
        "nand.blocks_per_plane=16",
        "--set",
        "ftl.overprovisioning=0.6",
        "--workload",
        wl.to_str().unwrap(),
        "--precondition",
        "seq",
        "--json",
        json.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    for dir in ["read", "write"] {
        for k in ["ios", "iops", "bandwidth_mib_s"] {
            assert!(r["host"][dir][k].is_number(), "host.{dir}.{k}");
        }
        for k in ["mean", "p50", "p99", "p999", "max"] {
            assert!(
                r["host"][dir]["latency_us"][k].is_number(),
                "host.{dir}.latency_us.{k}"
            );
        }
    }
    let d = &r["device"];
    assert!(d["waf"].is_number());
    for k in ["page_reads", "page_programs", "block_erases"] {
        assert!(d["flash"][k].is_number(), "{k}");
    }
    for (s, k) in [
        ("gc", "pages_moved"),
        ("gc", "victims"),
        ("l2p", "hits"),
        ("l2p", "misses"),
    ] {
        assert!(d[s][k].is_number(), "{s}.{k}");
    }
    for k in ["full_flushes", "premature_flushes", "host_flushes"] {
        assert!(d["buffer"][k].is_number(), "{k}");
    }
    assert!(r["precondition"]["waf"].as_f64().unwrap() > 0.99);
    for k in ["simulated_ns", "wall_s", "events"] {
        assert!(r["sim"][k].is_number(), "{k}");
    }
}

#[test]
fn trace_run_reports_requests_and_folding() {
    let trace = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/traces/tpcc-small.trace"
    );
    let out = zonesim(&[
        "run",
        "--set",
        "nand.blocks_per_plane=64",
        "--set",
        "ftl.overprovisioning=0.28",
        "--trace",
        trace,
        "--as-fast-as-possible",
        "--json-stdout",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["trace"]["requests"], 6999);
    assert!(r["trace"]["folded"].as_u64().unwrap() > 0);
}

#[test]
fn bad_input_is_one_line_and_exit_2() {
    // One `--set` each: the key named, and the rule.
    for (set, needles) in [
        ("nand.chanels=2", &["nand.chanels", "unknown key"][..]),
        ("nand.channels=0", &["nand.channels", "1..=1024"]),
        (
            "nand.blocks_per_plane=1000000",
            &["nand.blocks_per_plane", "impossible geometry"],
        ),
        ("nand.channel_mb_s=1e-300", &["nand.channel_mb_s", "1e-300"]),
        ("buffer.bytes=1000000000000", &["buffer.bytes", "at most"]),
        ("nand.cell=plc", &["nand.cell"]),
        (
            "ftl.overprovisioning=0.001",
            &["ftl.overprovisioning", "too small for GC"],
        ),
        ("ftl.gc.victim=oldest", &["ftl.gc.victim"]),
    ] {
        bad_input(&["run", "--set", set], needles);
    }
    bad_input(
        &["run", "--device", "no-such-device.toml"],
        &["no-such-device.toml"],
    );
    let dev = tmp(
        "bad.toml",
        "base = \"ufs-conventional\"\n[nand]\nchannels = 2\nfrobnicate = 1\n",
    );
    bad_input(
        &["run", "--device", dev.to_str().unwrap()],
        &["nand.frobnicate"],
    );
    let dev = tmp("broken.toml", "[nand\nchannels = 2\n");
    bad_input(
        &["run", "--device", dev.to_str().unwrap()],
        &["broken.toml:1"],
    );
    let fio = tmp("bad.fio", "[j]\nrw=randread\nbs=4k\nfrobnicate=3\n");
    bad_input(
        &["run", "--workload", fio.to_str().unwrap()],
        &["bad.fio:4", "frobnicate"],
    );
    let tr = tmp("bad.trace", "0 0 0 8 1\n100 0 8 8 1\n200 0 x 8 0\n");
    bad_input(&["run", "--trace", tr.to_str().unwrap()], &["bad.trace:3"]);
    bad_input(&["run", "--precondition", "warm"], &["warm"]);
    bad_input(&["run", "--namespace", "3"], &["namespace"]);
    bad_input(&["experiment", "run", "no-such"], &["no-such"]);
}

#[test]
fn same_seed_same_report() {
    let a = zonesim(&[
        "run",
        "--set",
        "nand.blocks_per_plane=96",
        "--seed",
        "7",
        "--json-stdout",
    ]);
    let b = zonesim(&[
        "run",
        "--set",
        "nand.blocks_per_plane=96",
        "--seed",
        "7",
        "--json-stdout",
    ]);
    let strip = |o: &Output| {
        zonesim::stats::report::without_wall_clock(serde_json::from_slice(&o.stdout).unwrap())
    };
    assert_eq!(strip(&a), strip(&b));
}
