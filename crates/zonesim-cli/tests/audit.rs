//! The hostile-input audits of the command line: every reproducer a located one-line error
//! with exit 2, or a correct run.

mod common;

use common::*;

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
