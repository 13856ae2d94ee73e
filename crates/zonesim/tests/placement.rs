//! Placement policies end to end on a small device (docs/placement.md): where pages land, no page
//! lost or duplicated, and the GC page-move effects theory predicts.

use crate::common;

use proptest::prelude::*;
use zonesim::config::DeviceConfig;
use zonesim::device::Device;
use zonesim::engine::SimTime;
use zonesim::firmware::conventional::PageFtl;
use zonesim::firmware::mapping::{Entry, Lpa};
use zonesim::firmware::IdleWork;
use zonesim::host::fio::{default_job, Distribution, RwMode, SizeSpec};
use zonesim::host::{HostIo, IoKind};
use zonesim::interface::Command;
use zonesim::sim::{self, Precondition, RunOptions, WorkloadSpec};

const POLICIES: [&str; 5] = ["single", "sup", "bloom", "age_k", "hint"];

/// 1 channel, 1 die, 2 planes, 64 blocks of 64 SLC pages of 4 KiB: 64 superblocks of 128
/// slots, die unit 2 slots.
fn tiny(extra: &[&str]) -> DeviceConfig {
    let mut sets: Vec<String> = [
        "nand.channels=1",
        "nand.chips_per_channel=1",
        "nand.planes_per_die=2",
        "nand.blocks_per_plane=64",
        "nand.pages_per_block=64",
        "nand.page_bytes=4096",
        "nand.cell=slc",
        "buffer.bytes=65536",
        "ftl.l2p_cache_bytes=65536",
        "ftl.overprovisioning=0.22",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    sets.extend(extra.iter().map(|s| s.to_string()));
    zonesim::load_device("ufs-conventional", &sets).expect("valid tiny device")
}

fn ftl(dev: &Device) -> &PageFtl {
    dev.namespaces[0]
        .as_conventional()
        .expect("namespace 0 is conventional")
}

fn io(kind: IoKind, lpa: u32, hint: u8) -> Command {
    let mut io = HostIo::new(
        kind,
        lpa as u64 * 4096,
        if kind == IoKind::Flush { 0 } else { 4096 },
    );
    io.hint = hint;
    sim::command(&io)
}

/// Write `lpas` one page at a time (hint `hint`), then flush; returns the time after.
fn write_all(dev: &mut Device, t: &mut u64, lpas: impl Iterator<Item = u32>, hint: u8) {
    for l in lpas {
        *t = dev
            .submit(SimTime(*t), 0, io(IoKind::Write, l, hint))
            .done
            .ns();
    }
    *t = dev
        .submit(SimTime(*t), 0, io(IoKind::Flush, 0, 0))
        .done
        .ns();
}

/// Let background GC run (the dies go idle between steps) until it has nothing to do.
fn bg_gc_until_done(dev: &mut Device, mut t: u64) -> u64 {
    for _ in 0..10_000 {
        t = t.max(dev.nand.all_idle_at().ns());
        if dev.idle(SimTime(t), IdleWork::Gc).is_none() {
            return t;
        }
    }
    panic!("background GC never finished");
}

#[test]
fn each_policy_places_host_pages_and_survivors_as_documented() {
    // (policy, host stream of the first pass, stream of the 8 GC survivors)
    for (policy, host, survivor) in [
        ("single", 0, 0),
        ("sup", 0, 1),
        ("bloom", 1, 1), // written once: cold, and still cold when moved
        ("age_k", 0, 1),
        ("hint", 3, 3), // host said "long"; GC keeps the class
    ] {
        let cfg = tiny(&[
            &format!("ftl.gc.placement={policy}"),
            "ftl.gc.background=true",
            "ftl.gc.background_threshold_free_superblocks=64",
        ]);
        let mut dev = Device::new(&cfg, 1).unwrap();
        let mut t = 0;
        // One superblock's worth (128 slots) of fresh pages.
        write_all(&mut dev, &mut t, 0..128, 3);
        let (a, s) = ftl(&dev).superblock_of(Lpa(0)).unwrap();
        assert_eq!(s as usize, host, "{policy}: host stream");
        for l in 0..128 {
            assert_eq!(
                ftl(&dev).superblock_of(Lpa(l)),
                Some((a, s)),
                "{policy}: lpa {l}"
            );
        }
        // Overwrite all but 0..8: superblock `a` keeps 8 valid pages and is the greedy victim.
        write_all(&mut dev, &mut t, 8..128, 3);
        bg_gc_until_done(&mut dev, t);
        let f = ftl(&dev);
        assert_eq!(f.counters.gc_pages_moved, 8, "{policy}");
        for l in 0..8 {
            let (sb, st) = f.superblock_of(Lpa(l)).unwrap();
            assert_ne!(sb, a, "{policy}: survivor {l} left the victim");
            assert_eq!(st as usize, survivor, "{policy}: survivor {l} stream");
        }
        let rep = dev.report();
        assert_eq!(rep.gc.background_victims, 1, "{policy}");
        assert_eq!(rep.gc.pages_moved_per_victim.max, 8, "{policy}");
        let ps = &rep.gc.per_stream[host];
        assert_eq!(ps.victims, 1, "{policy}");
        assert!((ps.valid_ratio_at_victim_mean - 8.0 / 128.0).abs() < 1e-9);
        dev.check_invariants().unwrap();
    }
}

#[test]
fn age_k_moves_a_second_time_survivor_one_stream_further() {
    let cfg = tiny(&[
        "ftl.gc.placement=age_k",
        "ftl.gc.streams=3",
        "ftl.gc.background=true",
        "ftl.gc.background_threshold_free_superblocks=64",
    ]);
    let mut dev = Device::new(&cfg, 1).unwrap();
    let mut t = 0;
    // 16 superblocks of data, then overwrite all but lpa 128k..128k+8 of each: 16 victims
    // with 8 survivors each fill exactly one stream-1 superblock (128 slots).
    write_all(&mut dev, &mut t, 0..16 * 128, 0);
    write_all(&mut dev, &mut t, (0..16 * 128).filter(|l| l % 128 >= 8), 0);
    t = bg_gc_until_done(&mut dev, t);
    let (sb1, st) = ftl(&dev).superblock_of(Lpa(0)).unwrap();
    assert_eq!(st, 1);
    // Overwrite all survivors but lpa 0: the stream-1 superblock becomes the best victim.
    write_all(
        &mut dev,
        &mut t,
        (0..16 * 128).filter(|&l| l % 128 < 8 && l != 0),
        0,
    );
    bg_gc_until_done(&mut dev, t);
    let (sb2, st) = ftl(&dev).superblock_of(Lpa(0)).unwrap();
    assert_ne!(sb1, sb2);
    assert_eq!(st, 2, "survived twice -> stream 2");
    dev.check_invariants().unwrap();
}

#[derive(Debug, Clone)]
enum Op {
    Write(u32, u8),
    Trim(u32, u8),
    Flush,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        8 => (0u32..1200, 0u8..5).prop_map(|(l, h)| Op::Write(l, h)),
        2 => (0u32..1200, 1u8..8).prop_map(|(l, n)| Op::Trim(l, n)),
        1 => Just(Op::Flush),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]
    /// No policy loses or duplicates a page: after random writes, trims and flushes (enough to
    /// run GC many times: 1200 hot pages on a 6714-page device otherwise filled)
    /// every live page is mapped once, every trimmed one unmapped, and the map, reverse map and
    /// valid counts agree.
    #[test]
    fn no_policy_loses_or_duplicates_pages(ops in prop::collection::vec(op(), 200..400),
                                           policy in 0usize..5, reps in 15usize..25) {
        let cfg = tiny(&[
            &format!("ftl.gc.placement={}", POLICIES[policy]),
            "ftl.gc.bloom.window_pages=256",
        ]);
        let mut dev = Device::new(&cfg, 3).unwrap();
        let logical = ftl(&dev).logical_pages() as u32;
        let mut live = vec![false; logical as usize];
        let mut t = 0u64;
        // Fill part of the device so GC has cold data to move.
        for l in 1200..logical.min(7000) {
            t = dev.submit(SimTime(t), 0, io(IoKind::Write, l, 0)).done.ns();
            live[l as usize] = true;
        }
        for _ in 0..reps {
            for o in &ops {
                t = match *o {
                    Op::Write(l, h) => {
                        live[l as usize] = true;
                        dev.submit(SimTime(t), 0, io(IoKind::Write, l, h))
                    }
                    Op::Trim(l, n) => {
                        for k in l..(l + n as u32).min(logical) {
                            live[k as usize] = false;
                        }
                        let len = ((l + n as u32).min(logical) - l) as u64 * 4096;
                        dev.submit(SimTime(t), 0, sim::command(&HostIo::new(IoKind::Trim, l as u64 * 4096, len)))
                    }
                    Op::Flush => dev.submit(SimTime(t), 0, io(IoKind::Flush, 0, 0)),
                }
                .done
                .ns()
                .max(t);
            }
        }
        prop_assert!(ftl(&dev).counters.gc_victims > 0, "GC ran");
        dev.check_invariants().map_err(TestCaseError::fail)?;
        let f = ftl(&dev);
        for l in 0..logical {
            let mapped = f.lookup(Lpa(l)) != Entry::Unmapped;
            prop_assert_eq!(mapped, live[l as usize], "lpa {}", l);
        }
    }
}

fn run(cfg: &DeviceConfig, j: zonesim::host::fio::JobSpec, seed: u64) -> zonesim::stats::Report {
    common::run(cfg, &WorkloadSpec::Jobs(vec![j]), Precondition::Seq, seed)
}

/// 4 KiB zipf random writes of `x` times the capacity, `rw` mode, depth `qd`.
fn zipf_job(cfg: &DeviceConfig, rw: RwMode, x: u64, qd: u32) -> zonesim::host::fio::JobSpec {
    let cap = Device::new(cfg, 1).unwrap().capacity_bytes(0);
    let mut j = default_job();
    j.name = "zipf".into();
    j.rw = rw;
    j.iodepth = qd;
    j.norandommap = true;
    j.distribution = Distribution::Zipf(1.2);
    j.io_size = Some(SizeSpec::Bytes(x * cap));
    j
}

#[test]
fn background_gc_runs_in_idle_gaps_above_its_threshold() {
    let mut j = zipf_job(&tiny(&[]), RwMode::RandWrite, 1, 1);
    j.thinktime_ns = 2_000_000;
    let fg = run(&tiny(&[]), j.clone(), 2);
    assert_eq!(fg.device.gc.background_victims, 0);
    let bg_cfg = tiny(&[
        "ftl.gc.background=true",
        "ftl.gc.background_threshold_free_superblocks=6",
        "ftl.gc.idle_us=100",
    ]);
    let bg = run(&bg_cfg, j, 2);
    let g = &bg.device.gc;
    eprintln!(
        "background: fg-only victims {} / with bg: fg {} bg {}",
        fg.device.gc.victims, g.foreground_victims, g.background_victims
    );
    assert!(g.background_victims > 0);
    assert!(g.foreground_victims < fg.device.gc.foreground_victims / 2);
    // Background GC stops at its threshold: the pool never grows far beyond it.
    let free = bg.device.namespaces[0]
        .conventional()
        .unwrap()
        .free_superblocks;
    assert!(free <= 7, "free superblocks {free}");
}

#[test]
fn preemptible_gc_lets_reads_overtake() {
    // Overwrites leave invalid data behind; then reads with idle gaps, during which background
    // GC collects (threshold well above the free pool) and reads arrive while it works.
    let bg = [
        "ftl.gc.background=true",
        "ftl.gc.background_threshold_free_superblocks=20",
        "ftl.gc.idle_us=20",
    ];
    let w = zipf_job(&tiny(&bg), RwMode::RandWrite, 2, 8);
    let mut r = zipf_job(&tiny(&bg), RwMode::RandRead, 1, 1);
    r.io_size = None;
    r.number_ios = Some(3000);
    r.thinktime_ns = 100_000;
    r.stonewall = true;
    let go = |sets: &[&str]| {
        let opts = RunOptions {
            seed: 4,
            precondition: Precondition::Seq,
            ..RunOptions::default()
        };
        let jobs = WorkloadSpec::Jobs(vec![w.clone(), r.clone()]);
        zonesim::RunSpec::new(tiny(sets), jobs.clone())
            .options(opts.clone())
            .run()
            .unwrap()
    };
    let plain = go(&bg);
    let mut sets = bg.to_vec();
    sets.push("ftl.gc.preemptible=true");
    let pre = go(&sets);
    let p99 = |r: &zonesim::stats::Report| r.host.read.latency_us.p99;
    eprintln!(
        "read p99: plain {:.1} us, preemptible {:.1} us; bg victims {}",
        p99(&plain),
        p99(&pre),
        pre.device.gc.background_victims
    );
    assert!(pre.device.gc.suspensions > 0);
    assert_eq!(plain.device.gc.suspensions, 0);
    assert!(p99(&pre) < p99(&plain) * 0.5);
    let share = pre.device.gc.time_share;
    assert!(share > 0.0 && share < 1.0, "time share {share}");
}

#[test]
fn classification_cost_shows_in_iops() {
    // A controller that spends 5 us per command, queue depth 1: the CPU is on the critical
    // path, so 20 us of classification per written page costs IOPS.
    let free = tiny(&[
        "ftl.gc.placement=bloom",
        "ftl.cost.host_cmd_ns=5000",
        "ftl.cost.bloom_write_ns=0",
        "ftl.cost.bloom_gc_page_ns=0",
    ]);
    let costly = tiny(&[
        "ftl.gc.placement=bloom",
        "ftl.cost.host_cmd_ns=5000",
        "ftl.cost.bloom_write_ns=20000",
    ]);
    let mut j = zipf_job(&free, RwMode::RandRw, 1, 1);
    j.rwmixread = 50;
    let a = run(&free, j.clone(), 6);
    let b = run(&costly, j, 6);
    let busy = b.device.gc.cpu_busy_ns;
    let writes = b.device.host_pages_written;
    let moved = b.device.gc.pages_moved;
    let cmds = b.host.read.ios + b.host.write.ios;
    assert_eq!(busy, cmds * 5000 + writes * 20_000 + moved * 500);
    let iops = |r: &zonesim::stats::Report| r.host.read.iops + r.host.write.iops;
    eprintln!("iops: free {:.0}, 20 us/write {:.0}", iops(&a), iops(&b));
    assert!(iops(&b) < iops(&a) * 0.97);
    // Same classification, same flash traffic: the cost is time only.
    assert_eq!(a.device.gc.pages_moved, b.device.gc.pages_moved);
}

#[test]
fn controller_cores_share_the_cost() {
    // Queue depth 8 on a CPU-bound controller: with two cores the same work spreads over both
    // (each core's busy time in the report, adding up to the total) and IOPS rise; the same
    // classification and flash traffic, so only time differs.
    let sets = |cores: &'static str| {
        tiny(&[
            "ftl.gc.placement=bloom",
            "ftl.cost.host_cmd_ns=1000000",
            "ftl.gc.bloom.record_gc=true",
            "ftl.cost.bloom_hash_ns=25",
            cores,
        ])
    };
    let (one, two) = (sets("ftl.cost.cores=1"), sets("ftl.cost.cores=2"));
    let mut j = zipf_job(&one, RwMode::RandRw, 1, 8);
    j.rwmixread = 50;
    let a = run(&one, j.clone(), 6);
    let b = run(&two, j, 6);
    let placement = |r: &zonesim::stats::Report| r.device.gc.placement.all()[0].clone();
    assert!(
        placement(&a).cores_busy_ns.is_none(),
        "one core: no per-core list"
    );
    let per_core = placement(&b).cores_busy_ns.expect("two cores listed");
    assert_eq!(per_core.len(), 2);
    assert!(per_core.iter().all(|&c| c > 0), "{per_core:?}");
    assert_eq!(per_core.iter().sum::<u64>(), b.device.gc.cpu_busy_ns);
    let iops = |r: &zonesim::stats::Report| r.host.read.iops + r.host.write.iops;
    eprintln!("iops: 1 core {:.0}, 2 cores {:.0}", iops(&a), iops(&b));
    assert!(iops(&b) > iops(&a) * 1.2);
    // The filters recorded GC relocations and report their fill.
    let sat = placement(&b)
        .bloom
        .and_then(|x| x.saturation)
        .expect("record_gc");
    assert!(sat.gc_inserts > 0 && sat.fill_mean > 0.0, "{sat:?}");
}

/// GC pages moved by a 4 KiB random-write run of `writes_x` times the logical capacity after a
/// sequential fill, under `dist`.
fn pages_moved(policy: &str, dist: Distribution, writes_x: u64, seed: u64) -> u64 {
    let cfg = tiny(&[&format!("ftl.gc.placement={policy}")]);
    let cap = Device::new(&cfg, seed).unwrap().capacity_bytes(0);
    let mut j = default_job();
    j.name = "overwrite".into();
    j.rw = RwMode::RandWrite;
    j.iodepth = 8;
    j.norandommap = true;
    j.distribution = dist;
    j.io_size = Some(SizeSpec::Bytes(writes_x * cap));
    let opts = RunOptions {
        seed,
        precondition: Precondition::Seq,
        check_invariants: false,
        ..RunOptions::default()
    };
    let r = zonesim::RunSpec::new(cfg.clone(), WorkloadSpec::Jobs(vec![j]))
        .options(opts.clone())
        .run()
        .unwrap();
    r.device.gc.pages_moved
}

#[test]
fn sup_and_bloom_move_fewer_pages_under_skew() {
    let base = pages_moved("single", Distribution::Zipf(1.2), 6, 5);
    for (p, max_ratio) in [("sup", 0.85), ("bloom", 0.85)] {
        let m = pages_moved(p, Distribution::Zipf(1.2), 6, 5);
        let ratio = m as f64 / base as f64;
        eprintln!("zipf 1.2: {p} moved {m} vs single {base}: ratio {ratio:.3}");
        assert!(ratio < max_ratio, "{p}: {m} vs single {base} ({ratio:.3})");
    }
}

#[test]
fn no_policy_beats_single_by_more_than_noise_under_uniform_writes() {
    let base = pages_moved("single", Distribution::Uniform, 6, 9);
    for p in ["sup", "bloom", "age_k"] {
        let m = pages_moved(p, Distribution::Uniform, 6, 9);
        let ratio = m as f64 / base as f64;
        eprintln!("uniform: {p} moved {m} vs single {base}: ratio {ratio:.3}");
        assert!(ratio > 0.97, "{p}: {m} vs single {base} ({ratio:.3})");
    }
}
