//! Replay of every supported trace format through the simulator: the replay's counts agree
//! with an independent pass of `trace stats`, trims and flushes reach the device, and
//! replaying twice gives identical reports.

use crate::common;
use common::*;
use std::path::PathBuf;
use zonesim::host::trace::{trace_stats, TraceOptions, TraceReader};
use zonesim::sim::{Precondition, ReplayMode, TraceReplay, WorkloadSpec};

fn sample(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../zonesim-host/tests/data/traces")
        .join(name)
}

/// A 4 GiB device (the real traces address more: they are folded).
fn small_device() -> zonesim::config::DeviceConfig {
    device(
        "ufs-conventional",
        &["nand.blocks_per_plane=64", "ftl.overprovisioning=0.28"],
    )
}

/// The TPC-C trace of tests/fixtures/traces (repository root).
fn tpcc() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/traces/tpcc-small.trace")
}

#[test]
fn every_format_replays_with_consistent_counts_and_deterministically() {
    let cfg = small_device();
    for (file, format) in [
        ("sample.disksim", "disksim"),
        ("sample.blkparse", "blkparse"),
        ("sample.msr.csv", "msr"),
        ("sample.iolog2", "iolog"),
        ("sample.iolog3", "iolog"),
        ("sample.alibaba.csv", "alibaba"),
        ("sample.tencent.csv", "tencent"),
    ] {
        let path = sample(file);
        let mut reader = TraceReader::open(&path, &TraceOptions::default()).unwrap();
        let stats = trace_stats(&mut reader, 3).unwrap();
        for mode in [
            ReplayMode::Timed { time_scale: 1.0 },
            ReplayMode::AsFastAsPossible { qd: 4 },
        ] {
            let wl = WorkloadSpec::Trace(TraceReplay::new(&path, mode));
            let a = run(&cfg, &wl, Precondition::None, 1);
            let t = a.trace.clone().unwrap();
            assert_eq!(t.format.name(), format, "{file}");
            assert_eq!(t.reads, stats.reads.count, "{file}");
            assert_eq!(t.writes, stats.writes.count, "{file}");
            assert_eq!(t.trims, stats.trims.count, "{file}");
            assert_eq!(t.flushes, stats.flushes, "{file}");
            assert_eq!(t.skipped, stats.skipped, "{file}");
            assert_eq!(a.host.read.ios, stats.reads.count, "{file}");
            assert_eq!(a.host.write.ios, stats.writes.count, "{file}");
            assert_eq!(a.host.trim.ios, stats.trims.count, "{file}");
            assert_eq!(a.host.flush.ios, stats.flushes, "{file}");
            let b = run(&cfg, &wl, Precondition::None, 1);
            assert_eq!(
                a.deterministic_json(),
                b.deterministic_json(),
                "{file}: replay is deterministic"
            );
        }
    }
}

#[test]
fn the_blkparse_sample_carries_trims_and_flushes_to_the_device() {
    let cfg = small_device();
    let wl = WorkloadSpec::Trace(TraceReplay::new(
        sample("sample.blkparse"),
        ReplayMode::AsFastAsPossible { qd: 1 },
    ));
    let r = run(&cfg, &wl, Precondition::None, 1);
    let t = r.trace.unwrap();
    assert!(t.trims > 0 && t.flushes > 0);
    assert_eq!(r.device.buffer.host_flushes, t.flushes);
    assert!(t.skipped > 0, "Q/G/I/C events are skipped");
}

#[test]
fn no_fold_rejects_requests_beyond_capacity() {
    let cfg = small_device();
    let path = tpcc();
    let mut t = TraceReplay::new(&path, ReplayMode::AsFastAsPossible { qd: 8 });
    t.fold = false;
    let r = run(&cfg, &WorkloadSpec::Trace(t), Precondition::None, 1);
    let tr = r.trace.unwrap();
    let rejected = tr.rejected;
    assert!(rejected > 0);
    assert_eq!(tr.folded, 0);
    assert_eq!(tr.requests + rejected, 6999);
}

#[test]
fn replay_window_options_select_requests() {
    let cfg = small_device();
    let path = tpcc();
    let mut t = TraceReplay::new(&path, ReplayMode::AsFastAsPossible { qd: 8 });
    t.skip = 100;
    t.max_requests = Some(500);
    let r = run(&cfg, &WorkloadSpec::Trace(t), Precondition::None, 1);
    assert_eq!(r.trace.unwrap().requests, 500);
    let mut t = TraceReplay::new(&path, ReplayMode::Timed { time_scale: 1.0 });
    t.stop_ns = Some(10_000_000);
    let r = run(&cfg, &WorkloadSpec::Trace(t), Precondition::None, 1);
    let n = r.trace.unwrap().requests;
    assert!(n > 0 && n < 6999);
    assert!(r.sim.simulated_ns < 12_000_000);
}

/// Timed replay of hostile stamps: a record stamped before the previous one arrives with it, so
/// time never goes backwards (back-and-forth stamps overflowed a stall counter); an arrival beyond
/// 2^62 ns (a u64::MAX stamp, a huge --time-scale) is a located error.
#[test]
fn timed_replay_time_is_monotonic_and_bounded() {
    let cfg = small_device();
    let dir = std::env::temp_dir().join(format!("zonesim-replay-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let back = dir.join("back.disksim");
    let mut text = String::new();
    for i in 0..200u64 {
        // Alternately far ahead and back near the start.
        let t = if i % 2 == 0 { i } else { (1 << 61) + i };
        text += &format!("{t} 0 {} 8 0\n", i * 8);
    }
    std::fs::write(&back, text).unwrap();
    let wl = WorkloadSpec::Trace(TraceReplay::new(
        &back,
        ReplayMode::Timed { time_scale: 1.0 },
    ));
    let r = run(&cfg, &wl, Precondition::None, 1);
    assert_eq!(r.host.write.ios, 200);
    let huge = dir.join("huge.disksim");
    std::fs::write(&huge, "0 0 0 8 1\n18446744073709551615 0 8 8 1\n").unwrap();
    let wl = WorkloadSpec::Trace(TraceReplay::new(
        &huge,
        ReplayMode::Timed { time_scale: 1.0 },
    ));
    let opts = zonesim::sim::RunOptions::default();
    let e = zonesim::RunSpec::new(cfg.clone(), wl.clone())
        .options(opts.clone())
        .run()
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with(&format!("{}:2: arrival", huge.display())) && e.contains("2^62"),
        "{e}"
    );
    let wl = WorkloadSpec::Trace(TraceReplay::new(
        sample("sample.disksim"),
        ReplayMode::Timed { time_scale: 1e300 },
    ));
    let e = zonesim::RunSpec::new(cfg.clone(), wl.clone())
        .options(opts.clone())
        .run()
        .unwrap_err()
        .to_string();
    assert!(e.contains("beyond the replay horizon"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}
