//! The command line: default run, presets, JSON report keys, and bad input -> one line, exit 2.

mod common;

use common::*;
use std::process::Output;

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
        "/../../tests/fixtures/traces/tpcc-small.trace"
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

/// `experiment rederive` of a record it cannot read back: exit 2, one line naming the file
/// and what is missing (another experiment's record, a record without the rows the
/// measurements are read from, a file that is not JSON).
#[test]
fn rederive_refuses_records_it_cannot_read_back() {
    let head = r#"{"scale": "paper", "seed": 1, "wall_s": 1.0, "outcome": {"name": "#;
    let other = tmp(
        "zms.json",
        &format!(r#"{head}"zms-randread", "rows": []}}}}"#),
    );
    bad_input(
        &["experiment", "rederive", other.to_str().unwrap()],
        &["zms.json", "zms-randread", "only supgc-fio"],
    );
    let empty = tmp(
        "supgc.json",
        &format!(r#"{head}"supgc-fio", "rows": []}}}}"#),
    );
    bad_input(
        &["experiment", "rederive", empty.to_str().unwrap()],
        &["supgc.json", "uniform, 1% writes, single"],
    );
    let broken = tmp("broken.json", "{");
    bad_input(
        &["experiment", "rederive", broken.to_str().unwrap()],
        &["broken.json"],
    );
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

/// Low effective OP runs, with a warning naming the effective spare.
#[test]
fn low_effective_op_warns() {
    let w = tmp("w8.fio", "[w]\nrw=randwrite\nsize=4m\n");
    let err = good_run(&[
        "run",
        "--workload",
        w.to_str().unwrap(),
        "--set",
        "nand.blocks_per_plane=256",
        "--set",
        "nand.pages_per_block=48",
        "--set",
        "ftl.overprovisioning=0.04",
        "--set",
        "ftl.gc.victim=windowed_greedy",
        "--set",
        "ftl.gc.placement=age_k",
    ]);
    assert!(
        err.contains("warning: ftl.overprovisioning: effective spare 1.56%"),
        "{err}"
    );
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
}

/// Audit F2, F8: the README's examples exist and the preset listing is the files' own words.
#[test]
fn readme_examples_and_presets_listing() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../");
    let readme = std::fs::read_to_string(format!("{root}README.md")).unwrap();
    for f in ["examples/my.fio", "examples/zoned.fio"] {
        assert!(readme.contains(f), "README names {f}");
        assert!(std::path::Path::new(&format!("{root}{f}")).exists(), "{f}");
    }
    let out = zonesim(&["presets"]);
    let listing = String::from_utf8_lossy(&out.stdout);
    for p in ["ufs-conventional", "nvme-ssd", "conzone-paper"] {
        let text = std::fs::read_to_string(format!("{root}presets/{p}.toml")).unwrap();
        let desc = text
            .lines()
            .find_map(|l| l.strip_prefix("description = \""))
            .unwrap()
            .trim_end_matches('"');
        assert!(listing.contains(desc), "{p}: {listing}");
    }
}

/// A `sparse:PATH` store holding data is never truncated silently: without `--resume` or
/// `--fresh` it is refused (before anything is mounted), as is a resume of a store of another
/// size; a mount that cannot happen leaves it alone even with `--fresh`.
#[cfg(target_os = "linux")]
#[test]
fn mount_refuses_to_truncate_or_resume_a_mismatched_store() {
    let dir = std::env::temp_dir().join(format!("zonesim-cli-store-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let img = dir.join("held.img");
    std::fs::write(&img, b"data of an earlier run").unwrap();
    let (d, store) = (dir.to_str().unwrap(), format!("sparse:{}", img.display()));
    bad_input(
        &["mount", d, "--store", &store],
        &["held.img", "--resume", "--fresh"],
    );
    bad_input(
        &["mount", d, "--store", &store, "--resume"],
        &["held.img", "--resume", "bytes"],
    );
    bad_input(
        &["mount", d, "--store", "memory", "--resume"],
        &["--resume", "sparse:PATH"],
    );
    bad_input(
        &[
            "mount",
            "/nonexistent-zonesim-dir",
            "--store",
            &store,
            "--fresh",
        ],
        &["/nonexistent-zonesim-dir"],
    );
    assert_eq!(
        std::fs::read(&img).unwrap(),
        b"data of an earlier run",
        "the refused mounts left the store alone"
    );
}

#[cfg(target_os = "linux")]
#[test]
fn mount_bad_input_is_one_line_exit_2() {
    let dir = std::env::temp_dir();
    let d = dir.to_str().unwrap();
    bad_input(&["mount", d, "--store", "ram"], &["--store", "sparse:PATH"]);
    bad_input(&["mount", d, "--pace", "fast"], &["--pace", "realtime"]);
    bad_input(&["mount", d, "--store", "none", "--verify"], &["--verify"]);
    bad_input(
        &[
            "mount",
            "/nonexistent-zonesim-dir",
            "--device",
            "ufs-conventional",
        ],
        &["/nonexistent-zonesim-dir", "directory"],
    );
    bad_input(&["mount", d, "--namespace", "3"], &["namespace"]);
}

/// The two floor cases run (their own check refuses a floor that did the work it leaves out)
/// and print one row each with the requests asked for.
#[test]
fn bench_floor_cases_run() {
    for case in ["randread-4k-unwritten", "randwrite-4k-empty"] {
        let out = zonesim(&["bench", "--ios", "3000", "--only", case]);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{case}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let rows: Vec<&str> = text
            .lines()
            .filter(|l| l.starts_with("randw") || l.starts_with("randr"))
            .collect();
        assert_eq!(rows.len(), 1, "{text}");
        let fields: Vec<&str> = rows[0].split_whitespace().collect();
        assert_eq!(&fields[..2], &[case, "3000"], "{text}");
    }
}

/// `bench --against` runs each case with both builds (here the same one) and prints one row per
/// case: the rounds asked for, both rates, two ratios and both peaks; `--rounds` alone is
/// refused.
#[test]
fn bench_against_compares_two_builds_case_by_case() {
    let me = env!("CARGO_BIN_EXE_zonesim");
    let out = zonesim(&[
        "bench",
        "--ios",
        "2000",
        "--only",
        "randread-4k-unwritten",
        "--against",
        me,
        "--rounds",
        "2",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let row: Vec<&str> = text
        .lines()
        .find(|l| l.starts_with("randread-4k-unwritten"))
        .unwrap_or_else(|| panic!("no row: {text}"))
        .split_whitespace()
        .collect();
    assert_eq!(row[1], "2", "{text}");
    for v in &row[2..6] {
        let x: f64 = v.parse().unwrap_or_else(|_| panic!("{v}: {text}"));
        assert!(x > 0.0 && x.is_finite(), "{text}");
    }
    assert!(
        text.contains("2 rounds, the binaries taking turns"),
        "{text}"
    );
    bad_input(&["bench", "--rounds", "2"], &["--against"]);
    bad_input(
        &[
            "bench",
            "--only",
            "randread-4k-unwritten",
            "--against",
            "/nonexistent-zonesim",
        ],
        &["--against", "/nonexistent-zonesim"],
    );
}

/// `--scenario` goes through the run facade like every other workload: a JSON report with the
/// scenario's iterations, and the scenario's own bad input as one line, exit 2.
#[test]
fn scenario_runs_and_its_errors_are_one_line() {
    let sc = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/fixtures/scenarios/tiny-aging.toml"
    );
    let out = zonesim(&[
        "run",
        "--device",
        "conzone-paper",
        "--fs",
        "f2fs",
        "--scenario",
        sc,
        "--json-stdout",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["scenario"]["iterations"].as_array().unwrap().len(), 3);
    bad_input(
        &["run", "--device", "conzone-paper", "--scenario", sc],
        &["host file system"],
    );
    bad_input(
        &[
            "run",
            "--device",
            "conzone-paper",
            "--fs",
            "f2fs",
            "--scenario",
            sc,
            "--precondition",
            "seq",
        ],
        &["--precondition seq", "scenario"],
    );
}

/// `zonesim config keys`: the tables of the keys' declarations (docs/config.md is its
/// `--markdown` output), one section or key at a time; an unknown name is bad input.
#[test]
fn config_keys_prints_the_declared_tables() {
    let out = zonesim(&["config", "keys", "--markdown", "fs"]);
    assert!(out.status.success());
    let keys = zonesim::config::table::select(&["fs".to_string()]).unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        zonesim::config::table::markdown(&keys)
    );
    let out = zonesim(&["config", "keys", "ftl.gc.idle_us"]);
    let s = String::from_utf8_lossy(&out.stdout);
    assert!(
        s.contains("ftl.gc.idle_us") && s.contains("[0.001, 1e9]"),
        "{s}"
    );
    assert_eq!(s.lines().count(), 3, "{s}");
    let out = zonesim(&["config", "keys"]);
    let s = String::from_utf8_lossy(&out.stdout);
    assert!(s.contains("namespaces[].kind") && s.contains("nand.timing.qlc.erase_us"));
    bad_input(
        &["config", "keys", "ftl.nope"],
        &["no key or section 'ftl.nope'"],
    );
}

/// The `fs` rules are checked before preconditioning: a namespace that cannot hold the
/// metadata at load time, an impossible mkfs reserve before the device is written (on a
/// 12 GiB device whose steady-state preconditioning would take minutes).
#[test]
fn bad_fs_keys_fail_before_preconditioning() {
    let t = std::time::Instant::now();
    bad_input(
        &[
            "run",
            "--device",
            "zufs-2026",
            "--precondition",
            "steady",
            "--set",
            "fs.meta_namespace=1",
        ],
        &["config: fs.meta_namespace: F2FS updates its metadata in place"],
    );
    bad_input(
        &[
            "run",
            "--device",
            "zufs-2026",
            "--precondition",
            "steady",
            "--fs",
            "f2fs",
        ],
        &["config: fs.reserved_segments:"],
    );
    assert!(t.elapsed().as_secs() < 20, "{:?}", t.elapsed());
}

/// The zone write lock orders zone resets behind the writes waiting on their zone: zbd
/// random writes at queue depth 8 with resets reach the device in order (no unaligned write;
/// before resets waited, this job gave 3 and 155 on zufs-2026 and zms-2024).
#[test]
fn zone_resets_wait_behind_locked_writes() {
    let zr = tmp(
        "zr.fio",
        "[z]\nnamespace=1\nzonemode=zbd\nrw=randwrite\nbs=64k\niodepth=8\nmax_open_zones=4\nio_size=3g\nzone_reset_threshold=0.1\nzone_reset_frequency=0.05\n",
    );
    for preset in ["zufs-2026", "zms-2024"] {
        let out = zonesim(&[
            "run",
            "--device",
            preset,
            "--workload",
            zr.to_str().unwrap(),
            "--json-stdout",
        ]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let z = &r["device"]["zones"];
        assert!(z["resets"].as_u64().unwrap() > 0, "{preset}: {z}");
        assert_eq!(z["errors"]["unaligned_write"], 0, "{preset}: {z}");
    }
}

/// `zonesim soak`: a bounded number of random valid worlds in the test build (debug
/// assertions on); `scripts/soak SEED COUNT` runs more in the release build.
#[test]
fn soak_random_worlds() {
    let count = std::env::var("ZONESIM_SOAK_COUNT").unwrap_or_else(|_| "12".into());
    let dir = std::env::temp_dir().join(format!("zonesim-soak-ci-{}", std::process::id()));
    let out = zonesim(&["soak", "1", &count, "--out", dir.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains(&format!("{count} draws")) && text.contains("0 failed"),
        "{text}"
    );
}
