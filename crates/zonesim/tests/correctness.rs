//! Correctness bars: invariants under random operation mixes (property test), long GC-heavy
//! runs, trace replay of the real traces, determinism.

use crate::common;
use common::*;
use proptest::prelude::*;
use zonesim::device::Device;
use zonesim::engine::SimTime;
use zonesim::host::{HostIo, IoKind};
use zonesim::sim::{self, Precondition, ReplayMode, TraceReplay, WorkloadSpec};

fn tiny() -> zonesim::config::DeviceConfig {
    device(
        "ufs-conventional",
        &[
            "nand.channels=2",
            "nand.chips_per_channel=1",
            "nand.planes_per_die=2",
            "nand.cell=tlc",
            "nand.page_bytes=8192",
            "nand.pages_per_block=12",
            "nand.blocks_per_plane=40",
            "ftl.overprovisioning=0.25",
            "ftl.l2p_cache_bytes=16384",
            "buffer.bytes=196608",
        ],
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Random writes, reads, trims and flushes straight at the device: map and reverse map
    /// agree, valid counts match and the pools add up after every batch, and every completion
    /// is at or after its arrival.
    #[test]
    fn device_invariants_hold_under_random_ops(
        ops in proptest::collection::vec((0u8..10, 0u64..4096, 1u64..24, 0u64..2000), 1..400),
        victim in prop_oneof![Just("greedy"), Just("fifo"), Just("cost_benefit"), Just("random"), Just("d_choice"), Just("windowed_greedy")],
    ) {
        let mut cfg = tiny();
        cfg.ftl.gc.victim = serde_json::from_value(serde_json::json!(victim)).unwrap();
        let mut dev = Device::new(&cfg, 9).unwrap();
        let cap_pages = dev.capacity_bytes(0) / 4096;
        let mut now = SimTime::ZERO;
        for (i, (kind, page, len, gap)) in ops.into_iter().enumerate() {
            now += gap * 1000;
            let page = page % cap_pages;
            let len = len.min(cap_pages - page);
            let kind = match kind {
                0..=5 => IoKind::Write,
                6 | 7 => IoKind::Read,
                8 => IoKind::Trim,
                _ => IoKind::Flush,
            };
            let io = HostIo::new(kind, page * 4096, if kind == IoKind::Flush { 0 } else { len * 4096 });
            let done = dev.submit(now, 0, sim::command(&io)).done;
            prop_assert!(done >= now);
            if i % 50 == 0 {
                dev.check_invariants().map_err(TestCaseError::fail)?;
            }
        }
        dev.check_invariants().map_err(TestCaseError::fail)?;
    }
}

/// A GC-heavy run: 4x the capacity of random writes finishes with every request done and the
/// invariants intact, for every victim policy.
#[test]
fn long_gc_heavy_runs_finish() {
    for victim in [
        "greedy",
        "cost_benefit",
        "fifo",
        "random",
        "d_choice",
        "windowed_greedy",
    ] {
        let mut cfg = tiny();
        cfg.ftl.gc.victim = serde_json::from_value(serde_json::json!(victim)).unwrap();
        let cap = Device::new(&cfg, 1).unwrap().capacity_bytes(0);
        let wl = jobs(&format!(
            "[w]\nrw=randwrite\nbs=4k\niodepth=32\nnorandommap=1\nio_size={}\n[r]\nrw=randread\nbs=8k\niodepth=4\nio_size={}\n",
            4 * cap,
            cap
        ));
        let r = run(&cfg, &wl, Precondition::Seq, 5);
        assert!(r.device.gc.victims > 50, "{victim}");
        assert_eq!(r.host.write.ios, 4 * cap / 4096, "{victim}");
        assert!(r.device.waf > 1.0);
    }
}

/// Background GC reclaims space while the host idles (thinktime), and not otherwise.
#[test]
fn background_gc_runs_when_idle() {
    let mut cfg = tiny();
    cfg.ftl.gc.background = true;
    cfg.ftl.gc.background_threshold_free_superblocks = 8;
    cfg.ftl.gc.idle_us = 200.0;
    let cap = Device::new(&cfg, 1).unwrap().capacity_bytes(0);
    let wl = jobs(&format!(
        "[w]\nrw=randwrite\nbs=4k\niodepth=1\nnorandommap=1\nthinktime=3000\nio_size={}\n",
        2 * cap
    ));
    let r = run(&cfg, &wl, Precondition::Seq, 5);
    assert!(r.device.gc.background_victims > 0);
    cfg.ftl.gc.background = false;
    let r = run(&cfg, &wl, Precondition::Seq, 5);
    assert_eq!(r.device.gc.background_victims, 0);
}

fn trace(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/traces")
        .join(name)
}

/// Both real traces replay completely, timed and as fast as possible, with the file's counts.
#[test]
fn real_traces_replay_completely() {
    let cfg = device(
        "ufs-conventional",
        &["nand.blocks_per_plane=64", "ftl.overprovisioning=0.28"],
    );
    for (file, reads, writes) in [
        ("tpcc-small.trace", 4381, 2618),
        ("wsrch-small.trace", 24779, 4),
    ] {
        for mode in [
            ReplayMode::Timed { time_scale: 1.0 },
            ReplayMode::AsFastAsPossible { qd: 16 },
        ] {
            let wl = WorkloadSpec::Trace(TraceReplay::new(trace(file), mode));
            let r = run(&cfg, &wl, Precondition::None, 1);
            let t = r.trace.as_ref().unwrap();
            assert_eq!(t.reads, reads, "{file}");
            assert_eq!(t.writes, writes, "{file}");
            assert_eq!(r.host.read.ios, reads);
            assert_eq!(r.host.write.ios, writes);
            assert!(t.folded > 0, "{file}: addresses exceed 4 GiB");
            assert_eq!(t.format.name(), "disksim");
        }
    }
}

/// Timed replay honours arrival times: the run lasts at least the trace's span.
#[test]
fn timed_replay_honours_arrival_times() {
    let cfg = device(
        "ufs-conventional",
        &["nand.blocks_per_plane=64", "ftl.overprovisioning=0.28"],
    );
    let span_ns = {
        let text = std::fs::read_to_string(trace("tpcc-small.trace")).unwrap();
        let times: Vec<u64> = text
            .lines()
            .map(|l| l.split_whitespace().next().unwrap().parse().unwrap())
            .collect();
        times.last().unwrap() - times[0]
    };
    let mut t = TraceReplay::new(
        trace("tpcc-small.trace"),
        ReplayMode::Timed { time_scale: 2.0 },
    );
    t.fold = true;
    let r = run(&cfg, &WorkloadSpec::Trace(t), Precondition::None, 1);
    assert!(
        r.sim.simulated_ns >= 2 * span_ns,
        "{} < 2 x {span_ns}",
        r.sim.simulated_ns
    );
    assert!(r.sim.simulated_ns < 2 * span_ns + 50_000_000);
}

/// Same inputs and seed, same report (wall-clock fields aside); another seed differs.
#[test]
fn runs_are_deterministic() {
    let cfg = tiny();
    let wl = jobs("[a]\nrw=randrw\nbs=4k\niodepth=8\nio_size=8m\nrandom_distribution=zipf:1.2\n[b]\nrw=write\nbs=64k\niodepth=2\nio_size=4m\nfsync=4\n");
    let a = run(&cfg, &wl, Precondition::Seq, 42).deterministic_json();
    let b = run(&cfg, &wl, Precondition::Seq, 42).deterministic_json();
    let c = run(&cfg, &wl, Precondition::Seq, 43).deterministic_json();
    assert_eq!(a, b);
    assert_ne!(a["host"], c["host"]);
}

/// Reads of never-written pages cost no flash access and are counted.
#[test]
fn unwritten_reads_touch_no_flash() {
    let cfg = tiny();
    let wl = jobs("[r]\nrw=randread\nbs=4k\niodepth=4\nnumber_ios=1000\n");
    let r = run(&cfg, &wl, Precondition::None, 1);
    assert_eq!(r.device.unwritten_reads, 1000);
    assert_eq!(r.device.flash.page_reads, 0);
}

/// fsync drains the buffer: partial units are padded (premature flushes) and host flushes are
/// counted; a trim makes pages read as unwritten.
#[test]
fn flush_and_trim_semantics() {
    let cfg = tiny();
    let wl = jobs("[w]\nrw=write\nbs=4k\niodepth=1\nsize=400k\nfsync=5\n[t]\nstonewall\nrw=trim\nbs=80k\nsize=400k\n[r]\nstonewall\nrw=read\nbs=4k\nsize=400k\n");
    let r = run(&cfg, &wl, Precondition::None, 1);
    let b = &r.device.buffer;
    assert_eq!(b.host_flushes, 20);
    assert!(b.premature_flushes > 0);
    assert!(b.padding_slots > 0);
    assert_eq!(r.device.unwritten_reads, 100);
}

/// A request beyond the namespace is rejected and counted, never a panic.
#[test]
fn out_of_range_requests_are_rejected_and_counted() {
    let mut dev = Device::new(&tiny(), 1).unwrap();
    let cap = dev.capacity_bytes(0);
    let t = dev
        .submit(
            SimTime(5),
            0,
            sim::command(&HostIo::new(IoKind::Write, cap - 4096, 8192)),
        )
        .done;
    assert_eq!(t, SimTime(5));
    dev.submit(
        SimTime(6),
        0,
        sim::command(&HostIo::new(IoKind::Read, cap, 4096)),
    );
    assert_eq!(dev.report().out_of_range, 2);
    dev.check_invariants().unwrap();
}

/// Incremental foreground GC spreads a victim's copies over the host writes that follow;
/// blocking GC (`ftl.gc.incremental = false`) collects it at once, so host writes see longer
/// stalls for the same amount of GC work.
#[test]
fn incremental_gc_spreads_stalls_blocking_gc_concentrates_them() {
    let run_with = |incremental: bool| {
        // Fine-grained units (SLC, 4 KiB pages) and 2 MiB superblocks.
        let mut cfg = device(
            "ufs-conventional",
            &[
                "nand.channels=2",
                "nand.chips_per_channel=1",
                "nand.planes_per_die=1",
                "nand.cell=slc",
                "nand.page_bytes=4096",
                "nand.pages_per_block=256",
                "nand.blocks_per_plane=64",
                "ftl.overprovisioning=0.25",
                "ftl.l2p_cache_bytes=262144",
                "buffer.bytes=65536",
            ],
        );
        cfg.ftl.gc.incremental = incremental;
        let cap = Device::new(&cfg, 1).unwrap().capacity_bytes(0);
        let wl = jobs(&format!(
            "[w]\nrw=randwrite\nbs=4k\niodepth=4\nnorandommap=1\nio_size={}\n",
            3 * cap
        ));
        run(&cfg, &wl, Precondition::Seq, 5)
    };
    let inc = run_with(true);
    let blk = run_with(false);
    let moves = |r: &zonesim::stats::Report| r.device.gc.pages_moved as f64;
    eprintln!(
        "write p99/max latency: incremental {:.0}/{:.0} us, blocking {:.0}/{:.0} us; moves {} / {}",
        inc.host.write.latency_us.p99,
        inc.host.write.latency_us.max,
        blk.host.write.latency_us.p99,
        blk.host.write.latency_us.max,
        moves(&inc),
        moves(&blk)
    );
    assert!(
        (moves(&inc) / moves(&blk) - 1.0).abs() < 0.1,
        "same GC work"
    );
    assert!(blk.host.write.latency_us.p99 > 3.0 * inc.host.write.latency_us.p99);
    assert!(blk.host.write.latency_us.max > 3.0 * inc.host.write.latency_us.max);
}
