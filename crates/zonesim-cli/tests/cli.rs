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

/// Exit code 0; returns stderr.
fn good_run(args: &[&str]) -> String {
    let out = zonesim(args);
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(0), "{args:?}: {err}");
    err
}

/// Every bad-input reproducer found when the CLI was audited for hostile input: a located
/// one-line error with exit 2, or a correct run. The short ids (P1, S5, H1, ...) only label the
/// cases.
#[test]
fn audit_reproducers() {
    let small = tmp("w.fio", "[w]\nrw=randwrite\nsize=4m\n");
    let w = small.to_str().unwrap();
    // P1, S5: offset + length overflowing u64, in run, trace stats and trace convert.
    let wrap = tmp("wrap.disksim", "0 0 0 8 0\n1000 0 36028797018963967 16 0\n");
    let wrap = wrap.to_str().unwrap();
    for args in [
        &["run", "--trace", wrap][..],
        &["run", "--trace", wrap, "--no-fold"],
        &["trace", "stats", wrap],
        &["trace", "convert", wrap, "--to", "disksim"],
    ] {
        bad_input(args, &["wrap.disksim:2: ", "overflows 64 bits"]);
    }
    let msr = tmp(
        "wrap.msr",
        "128166372003071629,hm,1,Write,18446744073709547520,8192,1\n",
    );
    bad_input(
        &[
            "run",
            "--trace",
            msr.to_str().unwrap(),
            "--trace-format",
            "msr",
        ],
        &["wrap.msr:1: ", "overflows 64 bits"],
    );
    // P2: geometry product beyond 2^64.
    bad_input(
        &[
            "run",
            "--workload",
            w,
            "--set",
            "nand.channels=711",
            "--set",
            "nand.chips_per_channel=211",
            "--set",
            "nand.dies_per_chip=56",
            "--set",
            "nand.planes_per_die=9",
            "--set",
            "nand.blocks_per_plane=217414",
            "--set",
            "nand.pages_per_block=61208",
            "--set",
            "nand.page_bytes=675840",
            "--set",
            "nand.cell=slc",
            "--set",
            "buffer.bytes=8388608",
        ],
        &["nand.blocks_per_plane", "166020696665070952320 physical"],
    );
    // P3, S2, S3: times and costs bounded.
    for (set, key) in [
        ("ftl.cost.host_cmd_ns=1e300", "ftl.cost.host_cmd_ns"),
        ("host.overhead_us=1e300", "host.overhead_us"),
        ("ftl.gc.suspend_us=1e300", "ftl.gc.suspend_us"),
    ] {
        bad_input(&["run", "--workload", w, "--set", set], &[key, "must be"]);
    }
    // H1: time_based without runtime.
    let tb = tmp("tb.fio", "[job]\nrw=randread\nsize=4m\ntime_based\n");
    bad_input(
        &["run", "--workload", tb.to_str().unwrap()],
        &["tb.fio:4: ", "time_based needs a runtime"],
    );
    // H2: ftl.gc.d and ftl.gc.window.
    bad_input(
        &["run", "--workload", w, "--set", "ftl.gc.d=4294967295"],
        &["ftl.gc.d", "1..=1024"],
    );
    bad_input(
        &["run", "--workload", w, "--set", "ftl.gc.window=4294967295"],
        &["ftl.gc.window", "1..=1048576"],
    );
    // H3, H4: practically endless byte budgets.
    for (name, opt) in [
        ("loops.fio", "loops=18446744073709551615"),
        ("iosize.fio", "io_size=1p"),
    ] {
        let f = tmp(name, &format!("[job]\nrw=randwrite\nsize=4m\n{opt}\n"));
        bad_input(
            &["run", "--workload", f.to_str().unwrap()],
            &["job 'job'", "without a runtime"],
        );
    }
    // C1: no line breaks (/dev/zero) is "line too long", in run and trace stats.
    if std::path::Path::new("/dev/zero").exists() {
        bad_input(
            &["run", "--trace", "/dev/zero"],
            &["/dev/zero:1: line longer than"],
        );
        bad_input(
            &["run", "--trace", "/dev/zero", "--trace-format", "disksim"],
            &["/dev/zero:1: line longer than"],
        );
        bad_input(
            &["trace", "stats", "/dev/zero"],
            &["/dev/zero:1: line longer than"],
        );
    }
    // C1: --workload and --device /dev/zero end at the file size limit.
    if std::path::Path::new("/dev/zero").exists() {
        bad_input(
            &["run", "--workload", "/dev/zero"],
            &["/dev/zero: larger than 64 MiB"],
        );
        bad_input(
            &["run", "--device", "/dev/zero"],
            &["/dev/zero: larger than 64 MiB"],
        );
    }
    // C2: iodepth and --qd bounded.
    let depth = tmp(
        "depth.fio",
        "[job]\nrw=randread\nsize=4m\niodepth=4294967295\ntime_based\nruntime=1s\n",
    );
    bad_input(
        &["run", "--workload", depth.to_str().unwrap()],
        &["depth.fio:4: ", "iodepth", "1..=65536"],
    );
    let t3 = tmp("t3.disksim", "0 0 0 8 1\n10 0 8 8 1\n20 0 16 8 0\n");
    let t3 = t3.to_str().unwrap();
    bad_input(
        &[
            "run",
            "--trace",
            t3,
            "--as-fast-as-possible",
            "--qd",
            "4294967295",
        ],
        &["--qd", "4294967295"],
    );
    // S1: --set base= is an error.
    bad_input(
        &["run", "--set", "base=nvme-ssd", "--workload", w],
        &["base", "--device nvme-ssd"],
    );
    // S4: an unknown blkparse RWBS letter.
    let z = tmp(
        "z.blkparse",
        "  8,0 0 1 0.000000000 1 D W 0 + 8 [fio]\n  8,0 0 2 0.000100000 1 D Z 8 + 8 [fio]\n",
    );
    bad_input(
        &[
            "run",
            "--trace",
            z.to_str().unwrap(),
            "--trace-format",
            "blkparse",
        ],
        &["z.blkparse:2: RWBS", "`Z`"],
    );
    // S6: one timing key of a cell the preset does not list runs (with its other defaults).
    good_run(&[
        "run",
        "--workload",
        w,
        "--set",
        "nand.timing.qlc.read_us=100",
        "--set",
        "nand.timing.mlc.erase_us=4000",
    ]);
    // V1: as fast as possible at QD > 1, the first malformed line is reported.
    let t = tmp(
        "t.disksim",
        "0 0 0 8 0\n1 0 8 8 7\n2 0 16 x 0\n3 0 24 8 0\n",
    );
    bad_input(
        &[
            "run",
            "--trace",
            t.to_str().unwrap(),
            "--as-fast-as-possible",
        ],
        &["t.disksim:2: type: must be 1 (read) or 0 (write)"],
    );
    let v1 = tmp(
        "v1.iolog",
        "fio version 1 iolog\n/dev/sdb write 0 4096\n/dev/sdb write 4096 4096\n",
    );
    bad_input(
        &[
            "run",
            "--trace",
            v1.to_str().unwrap(),
            "--trace-format",
            "iolog",
            "--as-fast-as-possible",
        ],
        &["v1.iolog:1: ", "fio version 1 iolog"],
    );
    // V2: a missing required argument is named.
    bad_input(&["experiment", "run"], &["required", "<NAME>"]);
    bad_input(&["trace", "convert", t3], &["required", "--to"]);
    // V3: a negative number names its flag.
    for (args, flag) in [
        (&["run", "--qd", "-1"][..], "--qd"),
        (&["run", "--seed", "-1"], "--seed"),
        (&["run", "--namespace", "-1"], "--namespace"),
        (&["trace", "stats", t3, "--filter", "-1"], "--filter"),
    ] {
        bad_input(args, &[flag, "-1"]);
    }
    // V5: layout sizes beyond 64-bit arithmetic name the flag.
    bad_input(
        &[
            "layout",
            "--data-bytes",
            "18446744073642442752",
            "--zone-bytes",
            "64m",
        ],
        &["--data-bytes", "at most 1 EiB"],
    );
    // A volume mkfs.f2fs refuses (over 16 TiB with its metadata namespace) is bad input.
    bad_input(
        &["layout", "--data-bytes", "16t", "--zone-bytes", "64m"],
        &["16 TiB", "mkfs.f2fs refuses"],
    );
    // V4: bench --ios 0 names --ios.
    bad_input(&["bench", "--ios", "0"], &["--ios", "0"]);
    // The OS error text once; a preset typo lists the presets.
    let out = zonesim(&["run", "--workload", "nope.fio"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(err.matches("os error 2").count(), 1, "{err}");
    bad_input(
        &["run", "--device", "UFS-CONVENTIONAL"],
        &["UFS-CONVENTIONAL", "presets: ufs-conventional"],
    );
    // A bad --set value is blamed on the --set.
    let out = zonesim(&["run", "--set", "nand.channels=two"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--set nand.channels=two") && !err.contains("preset"),
        "{err}"
    );
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

/// The reproducers of the audit of the newer surfaces (file-system keys, aging scenarios,
/// sweeps, zone buffers, the data cache, the two-level map, the time series): each a located
/// one-line error with exit 2 before anything runs long, or a correct run.
#[test]
fn newer_surfaces_bad_input() {
    let fs1 = tmp(
        "fs1.fio",
        "[f]\nrw=write\ndirectory=/d\nnrfiles=1\nfilesize=64k\n",
    );
    let fs1 = fs1.to_str().unwrap();
    // The two-level map: a region whose L2 table and L1 segment overflow the SRAM.
    for region in ["1073741824", "4294967296", "17179869184"] {
        let set = format!("ftl.compressed_region_bytes={region}");
        bad_input(
            &["run", "--device", "cufs-2026", "--set", &set],
            &["ftl.compressed_region_bytes", "ftl.l2p_cache_bytes"],
        );
    }
    // Time and size keys: bounded where declared, checked before the run.
    for (set, key) in [
        ("fs.cp_interval=9223372036854775807", "fs.cp_interval"),
        (
            "fs.gc_min_sleep_time=9223372036854775807",
            "fs.gc_min_sleep_time",
        ),
        (
            "fs.gc_no_gc_sleep_time=9223372036854775807",
            "fs.gc_no_gc_sleep_time",
        ),
        ("fs.gc_min_sleep_time=0", "fs.gc_min_sleep_time"),
        ("fs.gc_no_gc_sleep_time=0", "fs.gc_no_gc_sleep_time"),
        ("fs.page_copy_ns=9223372036854775807", "fs.page_copy_ns"),
        ("fs.overprovision=1e-300", "fs.overprovision"),
        ("fs.max_victim_search=0", "fs.max_victim_search"),
        (
            "fs.migration_window_granularity=0",
            "fs.migration_window_granularity",
        ),
    ] {
        bad_input(
            &["run", "--fs", "f2fs", "--workload", fs1, "--set", set],
            &[key, "must be"],
        );
    }
    bad_input(
        &[
            "run",
            "--device",
            "conzone-paper",
            "--set",
            "buffer.count=4294967295",
        ],
        &["buffer.count", "must be"],
    );
    bad_input(
        &[
            "run",
            "--device",
            "mcmq-2022",
            "--set",
            "cache.bytes=9223372036854775807",
        ],
        &["cache.bytes", "must be"],
    );
    // Scenarios: bounded idle and iterations, at the line of the key.
    let idle = tmp(
        "idle.toml",
        "[[setup]]\nop = \"idle\"\nms = 9223372036854775807\n",
    );
    bad_input(
        &["run", "--fs", "f2fs", "--scenario", idle.to_str().unwrap()],
        &["idle.toml:3: setup step 1: ms must be in"],
    );
    let endless = tmp(
        "endless.toml",
        "[repeat]\nmax_iterations = 9223372036854775807\n[[repeat.step]]\nop = \"sync\"\n",
    );
    bad_input(
        &[
            "run",
            "--fs",
            "f2fs",
            "--scenario",
            endless.to_str().unwrap(),
        ],
        &["endless.toml:2: repeat.max_iterations must be in 1..="],
    );
    // Memory bounded by the work: files over job clones, a sweep grid, time-series rows.
    let many = tmp(
        "many.fio",
        "[job]\nrw=randwrite\ndirectory=/d\nnrfiles=1048576\nfilesize=4k\nnumjobs=1024\nio_size=8m\n",
    );
    bad_input(
        &["run", "--fs", "f2fs", "--workload", many.to_str().unwrap()],
        &["job 'job'", "more than 1048576 files"],
    );
    let mut grid = String::from("[grid]\n");
    for i in 0..8 {
        grid.push_str(&format!("\"name{i}\" = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\n"));
    }
    let s2 = tmp("s2.toml", &grid);
    let t = std::time::Instant::now();
    bad_input(
        &["sweep", s2.to_str().unwrap(), "--out", "/dev/null"],
        &["grid", "more than 1000000 runs"],
    );
    assert!(t.elapsed().as_secs() < 10, "{:?}", t.elapsed());
    let ts = tmp(
        "ts.fio",
        "[w]\nrw=randwrite\nbs=4k\nsize=64m\nruntime=2s\ntime_based\n",
    );
    bad_input(
        &[
            "run",
            "--workload",
            ts.to_str().unwrap(),
            "--interval-ms",
            "0.001",
        ],
        &["stats.interval_ms", "rows"],
    );
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
