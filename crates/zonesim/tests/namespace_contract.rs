//! One suite over every namespace configuration (as tokio's `rt_test!` runs one suite on every
//! runtime flavor): the namespace contract `zonesim::firmware::Ftl` as the device exposes it —
//! read-after-write, flush durability, trim, zone-rule rejection, idle-time work, invariants
//! under a random command mix, determinism, and every request completing exactly once.
//!
//! Commands go through the device's whole command path (`Device::submit_queued`: the
//! multi-core firmware and the data cache when they are on, the FTL alone otherwise) in time
//! order, as a run's engine issues them. Instantiated for every namespace kind and every
//! mechanism that changes one (map, buffer, SLC cache and its write-back, in-place updates,
//! background GC, firmware model, data cache); each configuration a later device adds gets one
//! more `kind!` line.

use crate::common;

use proptest::prelude::*;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use zonesim::config::DeviceConfig;
use zonesim::device::{Device, Submitted};
use zonesim::engine::SimTime;
use zonesim::firmware::{IdleWork, NsCounters};
use zonesim::interface::zone::Lba;
use zonesim::interface::{Command, Completion, Op, ZoneAction};
use zonesim::sim::{Precondition, RunOptions, WorkloadSpec};

use common::small_zoned;

/// A namespace configuration under test: its device, its namespace and whether it is zoned.
struct Kind {
    cfg: DeviceConfig,
    ns: usize,
    zoned: bool,
}

impl Kind {
    /// A data cache sits in front of the FTL (`cache.bytes`): it absorbs writes and serves
    /// reads, so the namespace's own counters see only its misses and write-backs, and the
    /// checks of exact host page counts do not apply to it.
    fn cached(&self) -> bool {
        self.cfg.cache.bytes > 0
    }

    /// Written pages a read may find unwritten in the FTL: none, or with a data cache those
    /// it still holds dirty (a read that misses the cache anywhere goes to the FTL whole, and
    /// the FTL has not seen those pages yet; their data comes from the cache).
    fn unwritten_allowed(&self) -> u64 {
        self.cfg.cache.bytes / 4096
    }
}

/// A small conventional TLC device (2 channels, 64 blocks per plane) with `sets`.
fn conventional_with(sets: &[&str]) -> Kind {
    let mut all = vec![
        "nand.blocks_per_plane=64",
        "nand.channels=2",
        "buffer.bytes=131072",
    ];
    all.extend_from_slice(sets);
    Kind {
        cfg: common::device("ufs-conventional", &all),
        ns: 0,
        zoned: false,
    }
}

fn conventional() -> Kind {
    conventional_with(&[])
}

fn conventional_slc() -> Kind {
    Kind {
        cfg: small_zoned(&[]),
        ns: 0,
        zoned: false,
    }
}

/// A conventional TLC namespace with an SLC write cache (`slc.conventional_buffer`) of the
/// smallest size SLC GC allows (5 SLC blocks per plane), so the mix forces SLC migrations.
fn conventional_slc_cache(sets: &[&str]) -> Kind {
    let mut all = vec![
        "nand.blocks_per_plane=69",
        "nand.slc_blocks_per_plane=5",
        "nand.pages_per_block=48",
        "nand.channels=2",
        "buffer.bytes=131072",
        "slc.conventional_buffer=true",
        "slc.gc=migrate",
    ];
    all.extend_from_slice(sets);
    Kind {
        cfg: common::device("ufs-conventional", &all),
        ns: 0,
        zoned: false,
    }
}

fn zoned(sets: &[&str]) -> Kind {
    Kind {
        cfg: small_zoned(sets),
        ns: 1,
        zoned: true,
    }
}

fn cmd(op: Op, lba: u64, pages: u32) -> Command {
    Command {
        op,
        lba: Lba(lba),
        pages,
    }
}

const W: Op = Op::Write { hint: 0 };

/// Command `c` of namespace `ns` arriving at `t`, through the device's command path; a flash
/// part handed to the firmware cores is completed at once (the callers submit in time order).
fn submit(dev: &mut Device, t: SimTime, ns: usize, c: Command) -> Completion {
    match dev.submit_queued(t, t, ns, 0, c) {
        Submitted::Done(c) => c,
        Submitted::Flash { at, token, flash } => Completion {
            done: dev.complete_queued(at, token),
            ..flash
        },
    }
}

fn counters(dev: &Device, k: &Kind) -> NsCounters {
    dev.namespaces[k.ns].counters()
}

/// A 4 KiB page count one zone holds (zoned) or a region of the namespace (conventional).
fn zone_pages(dev: &Device, k: &Kind) -> u64 {
    match dev.zones(k.ns) {
        Some(z) => z.zone_config().zone_capacity,
        None => 256,
    }
}

fn zone_start(dev: &Device, k: &Kind, zone: u64) -> u64 {
    match dev.zones(k.ns) {
        Some(z) => zone * z.zone_config().zone_size,
        None => zone * 256,
    }
}

/// Zone errors counted by the namespace (none on a conventional one).
fn zone_errors(dev: &Device, k: &Kind) -> u64 {
    dev.zones(k.ns).map_or(0, |z| z.errors.total())
}

fn read_after_write(k: Kind) {
    let mut dev = Device::new(&k.cfg, 1).unwrap();
    assert_eq!(dev.zones(k.ns).is_some(), k.zoned, "zoned iff it has zones");
    // 256 pages, or a whole zone if one holds fewer.
    let n = zone_pages(&dev, &k).min(256);
    let mut t = SimTime(0);
    for i in 0..n / 4 {
        t = submit(&mut dev, t, k.ns, cmd(W, i * 4, 4)).done;
    }
    let before = counters(&dev, &k);
    let r = submit(&mut dev, t, k.ns, cmd(Op::Read, 0, n as u32));
    assert!(r.done > t, "a read takes time");
    let after = counters(&dev, &k);
    if !k.cached() {
        assert_eq!(after.host_write_pages, n);
        assert_eq!(after.host_read_pages - before.host_read_pages, n);
    }
    assert!(
        after.unwritten_reads <= k.unwritten_allowed(),
        "written data is found ({} unwritten)",
        after.unwritten_reads
    );
    let r = submit(&mut dev, r.done, k.ns, cmd(Op::Read, n, 8));
    assert!(r.done >= t);
    // Never-written pages read as unwritten (conventional) or, past the write pointer, are a
    // zone error (zoned).
    let unwritten = counters(&dev, &k).unwritten_reads - after.unwritten_reads;
    let errors = zone_errors(&dev, &k);
    assert_eq!((unwritten, errors), if k.zoned { (0, 1) } else { (8, 0) });
    dev.check_invariants().unwrap();
}

fn flush_is_durable(k: Kind) {
    let mut dev = Device::new(&k.cfg, 1).unwrap();
    let w = submit(&mut dev, SimTime(0), k.ns, cmd(W, 0, 3));
    let f = submit(&mut dev, w.done, k.ns, cmd(Op::Flush, 0, 0));
    assert!(f.done > w.done, "a flush programs the buffered data");
    let hits = counters(&dev, &k).buffer.read_hits;
    submit(&mut dev, f.done, k.ns, cmd(Op::Read, 0, 3));
    let c = counters(&dev, &k);
    assert_eq!(c.buffer.read_hits, hits, "flushed data is read from flash");
    assert_eq!(c.unwritten_reads, 0);
    // A second flush with nothing buffered completes at once.
    let t = SimTime(f.done.ns() + 10_000_000);
    let f2 = submit(&mut dev, t, k.ns, cmd(Op::Flush, 0, 0));
    assert!(f2.done.ns() - t.ns() < 1_000_000, "empty flush is cheap");
    dev.check_invariants().unwrap();
}

fn trim(k: Kind) {
    let mut dev = Device::new(&k.cfg, 1).unwrap();
    let w = submit(&mut dev, SimTime(0), k.ns, cmd(W, 0, 16));
    let f = submit(&mut dev, w.done, k.ns, cmd(Op::Flush, 0, 0));
    let t = submit(&mut dev, f.done, k.ns, cmd(Op::Trim, 0, 8));
    submit(&mut dev, t.done, k.ns, cmd(Op::Read, 0, 16));
    let unwritten = counters(&dev, &k).unwritten_reads;
    // Zoned namespaces free space by reset: trim is ignored, the data stays.
    let expect = if k.zoned { 0 } else { 8 };
    assert_eq!(
        unwritten, expect,
        "trimmed pages (conventional) read as unwritten"
    );
    dev.check_invariants().unwrap();
}

fn zone_rules(k: Kind) {
    let mut dev = Device::new(&k.cfg, 1).unwrap();
    let z1 = zone_start(&dev, &k, 1);
    let w = submit(&mut dev, SimTime(0), k.ns, cmd(W, z1, 4));
    // Not at the write pointer (zoned: rejected, completes at once, changes nothing).
    let bad = submit(&mut dev, w.done, k.ns, cmd(W, z1 + 100, 4));
    let c = counters(&dev, &k);
    if k.zoned {
        assert_eq!(c.host_write_pages, 4, "a rejected write writes nothing");
        assert!(bad.done.ns() - w.done.ns() < 1_000_000);
    } else if !k.cached() {
        assert_eq!(c.host_write_pages, 8, "conventional: any LBA is writable");
    }
    assert_eq!(zone_errors(&dev, &k), k.zoned as u64);
    // Reset (zoned: the zone is empty again, its data unreadable; conventional: a no-op).
    let r = submit(
        &mut dev,
        bad.done,
        k.ns,
        cmd(Op::Zone(ZoneAction::Reset), z1, 0),
    );
    submit(&mut dev, r.done, k.ns, cmd(Op::Read, z1, 4));
    assert_eq!(counters(&dev, &k).unwritten_reads, 0);
    assert_eq!(zone_errors(&dev, &k), 2 * k.zoned as u64);
    // Zone append: the device picks the LBA on a zoned namespace.
    let a = submit(&mut dev, r.done, k.ns, cmd(Op::Append, z1, 2));
    assert_eq!(a.appended, k.zoned.then_some(Lba(z1)));
    dev.check_invariants().unwrap();
}

/// Idle-time work (`Ftl::idle`): after writes and flushes, every kind of idle work the device
/// does runs step by step until it has nothing left; each next step is later than the last,
/// the data stays readable, the host counters do not move, the invariants hold.
fn idle_work(k: Kind) {
    let mut dev = Device::new(&k.cfg, 1).unwrap();
    // 384 pages, or a whole zone if one holds fewer.
    let n = zone_pages(&dev, &k).min(384);
    let mut t = SimTime(0);
    for i in 0..n / 4 {
        t = submit(&mut dev, t, k.ns, cmd(W, i * 4, 4)).done;
        if i % 3 == 2 {
            t = submit(&mut dev, t, k.ns, cmd(Op::Flush, 0, 0)).done;
        }
    }
    // Overwrite the first half (a conventional namespace leaves invalid data to collect).
    if !k.zoned {
        for i in 0..n / 8 {
            t = submit(&mut dev, t, k.ns, cmd(W, i * 4, 4)).done;
        }
        t = submit(&mut dev, t, k.ns, cmd(Op::Flush, 0, 0)).done;
        // Then full units without a flush: a buffer that issues lazily keeps some dirty for
        // its idle timer (`buffer.issue_ahead_us`).
        for i in 0..n / 8 {
            t = submit(&mut dev, t, k.ns, cmd(W, i * 4, 4)).done;
        }
    }
    let before = counters(&dev, &k);
    let programmed = dev.nand.counters.programmed_slots;
    let mut timers = 0;
    for work in IdleWork::ALL {
        let Some(timer) = dev.idle_timer(work) else {
            continue;
        };
        timers += 1;
        let mut at = t.max(dev.nand.all_idle_at()) + timer.after_ns;
        let mut steps = 0;
        while let Some(next) = dev.idle(at, work) {
            assert!(next > at, "{work:?}: the next step comes later");
            at = next;
            steps += 1;
            assert!(steps < 100_000, "{work:?} never ends");
        }
        t = at;
        dev.check_invariants().unwrap();
    }
    if timers > 0 {
        // The configurations with idle work leave it something to do here.
        assert!(
            dev.nand.counters.programmed_slots > programmed,
            "idle work moved data"
        );
    }
    let after = counters(&dev, &k);
    assert_eq!(after.host_write_pages, before.host_write_pages);
    assert_eq!(after.host_read_pages, before.host_read_pages);
    let t = t.max(dev.nand.all_idle_at());
    let r = submit(&mut dev, t, k.ns, cmd(Op::Read, 0, n as u32));
    assert!(r.done > t);
    let unwritten = counters(&dev, &k).unwritten_reads - after.unwritten_reads;
    assert!(unwritten <= k.unwritten_allowed(), "idle work keeps data");
    assert_eq!(zone_errors(&dev, &k), 0, "every command was valid");
    dev.check_invariants().unwrap();
}

/// Idle work runs in a whole run too, between requests (think time): the report is the same
/// for the same seed and every request completes once.
fn idle_in_a_run(k: Kind) {
    let text = if k.zoned {
        "[w]\nzonemode=zbd\nrw=write\nbs=16k\niodepth=1\nmax_open_zones=2\nnumber_ios=600\n\
         thinktime=2000\nfsync=4\n"
    } else {
        "[w]\nrw=randwrite\nbs=4k\niodepth=1\nsize=25%\nnumber_ios=1500\nthinktime=2000\n\
         fsync=8\n"
    };
    let a = run(&k, text, 9);
    assert_eq!(
        a.deterministic_json(),
        run(&k, text, 9).deterministic_json()
    );
}

/// A random valid command mix: writes at each zone's write pointer (sequential in a region on
/// a conventional namespace), in-place updates below it, reads of anything, flushes, resets of
/// a zone. Commands arrive every 20 µs whatever their completions; flash parts handed to the
/// firmware cores complete in time order, as the run's events would.
fn random_mix(k: &Kind, ops: &[(u8, u8, u8)]) -> Result<(), TestCaseError> {
    let mut dev = Device::new(&k.cfg, 7).unwrap();
    let zones = 4u64;
    let per_zone = zone_pages(&dev, k);
    let mut wp = vec![0u64; zones as usize];
    let mut t = SimTime(0);
    let mut flash = BinaryHeap::new();
    for (i, &(op, zone, len)) in ops.iter().enumerate() {
        let z = (zone as u64) % zones;
        let start = zone_start(&dev, k, z);
        let n = 1 + len as u64 % 16;
        let c = match op % 9 {
            0..=3 => {
                let n = n.min(per_zone - wp[z as usize]);
                if n == 0 {
                    continue;
                }
                let c = cmd(W, start + wp[z as usize], n as u32);
                wp[z as usize] += n;
                c
            }
            4 | 5 => cmd(Op::Read, start + (len as u64 % per_zone.min(64)), n as u32),
            6 => cmd(Op::Flush, 0, 0),
            7 => {
                let n = n.min(wp[z as usize]);
                if n == 0 {
                    continue;
                }
                cmd(Op::InPlace { hint: 0 }, start, n as u32)
            }
            _ => {
                wp[z as usize] = 0;
                cmd(Op::Zone(ZoneAction::Reset), start, 0)
            }
        };
        while let Some(&Reverse((at, token))) = flash.peek() {
            if at > t {
                break;
            }
            flash.pop();
            prop_assert!(dev.complete_queued(at, token) >= at);
        }
        let done = match dev.submit_queued(t, t, k.ns, 0, c) {
            Submitted::Done(c) => c.done,
            Submitted::Flash { at, token, .. } => {
                flash.push(Reverse((at, token)));
                at
            }
        };
        prop_assert!(done >= t, "completes no earlier than it arrives");
        t = SimTime(t.ns() + 20_000);
        if i % 25 == 0 {
            dev.check_invariants().map_err(TestCaseError::fail)?;
        }
    }
    while let Some(Reverse((at, token))) = flash.pop() {
        dev.complete_queued(at, token);
    }
    dev.check_invariants().map_err(TestCaseError::fail)?;
    Ok(())
}

fn run(k: &Kind, text: &str, seed: u64) -> zonesim::stats::Report {
    let opts = RunOptions {
        seed,
        precondition: Precondition::None,
        namespace: k.ns,
        check_invariants: true,
        power_off: None,
    };
    let wl: WorkloadSpec = common::jobs(text);
    let r = zonesim::RunSpec::new(k.cfg.clone(), wl.clone())
        .options(opts.clone())
        .run()
        .expect("run succeeds");
    assert_eq!(
        r.sim.requests_issued, r.sim.requests_completed,
        "every request completes exactly once"
    );
    r
}

fn run_workload(k: &Kind, seed: u64) -> zonesim::stats::Report {
    let text = if k.zoned {
        "[w]\nzonemode=zbd\nrw=randwrite\nbs=16k\niodepth=8\nmax_open_zones=4\nnumber_ios=3000\n\
         [r]\nstonewall\nzonemode=zbd\nrw=randread\nbs=4k\niodepth=16\nnumber_ios=3000\n"
    } else {
        "[w]\nrw=randwrite\nbs=4k\niodepth=16\nsize=50%\nnumber_ios=6000\nfsync=64\n\
         [r]\nstonewall\nrw=randread\nbs=4k\niodepth=16\nnumber_ios=3000\n"
    };
    let r = run(k, text, seed);
    assert!(r.sim.requests_completed >= 3000);
    r
}

fn deterministic(k: Kind) {
    let a = run_workload(&k, 5).deterministic_json();
    let b = run_workload(&k, 5).deterministic_json();
    assert_eq!(a, b, "same inputs and seed, same report");
}

/// Instantiate the suite for one namespace configuration.
/// A power cut (docs/power.md) after a flushed write and an unflushed one: a kind the cut does
/// not model refuses it as bad input; the others keep what the flush covered, recover in
/// simulated time and keep their invariants.
fn power_cut(k: Kind) {
    let mut dev = Device::new(&k.cfg, 1).unwrap();
    if let Err(e) = dev.track_power() {
        assert_eq!(e.exit_code(), 2, "{e}");
        return;
    }
    let start = zone_start(&dev, &k, 0);
    let w = submit(&mut dev, SimTime(0), k.ns, cmd(W, start, 8));
    let f = submit(&mut dev, w.done, k.ns, cmd(Op::Flush, 0, 0));
    let w2 = submit(&mut dev, f.done, k.ns, cmd(W, start + 8, 3));
    let cy = dev.power_cycle(w2.done, false);
    dev.check_invariants().unwrap();
    let lost = &cy.losses[k.ns].lost_lpas;
    assert!(
        lost.iter().all(|&l| l as u64 >= start + 8),
        "flushed pages survive: {lost:?}"
    );
    assert!(cy.recovered > w2.done, "recovery takes simulated time");
    let unwritten = counters(&dev, &k).unwritten_reads;
    submit(&mut dev, cy.recovered, k.ns, cmd(Op::Read, start, 8));
    assert_eq!(counters(&dev, &k).unwritten_reads, unwritten);
}

macro_rules! kind {
    ($name:ident, $make:expr) => {
        mod $name {
            use super::*;

            #[test]
            fn read_after_write() {
                super::read_after_write($make);
            }
            #[test]
            fn flush_is_durable() {
                super::flush_is_durable($make);
            }
            #[test]
            fn trim() {
                super::trim($make);
            }
            #[test]
            fn zone_rules() {
                super::zone_rules($make);
            }
            #[test]
            fn idle_work() {
                super::idle_work($make);
            }
            #[test]
            fn idle_in_a_run() {
                super::idle_in_a_run($make);
            }
            #[test]
            fn power_cut() {
                super::power_cut($make);
            }
            #[test]
            fn deterministic_and_every_request_completes_once() {
                super::deterministic($make);
            }
            proptest! {
                #![proptest_config(ProptestConfig::with_cases(12))]
                #[test]
                fn random_mix_keeps_invariants(
                    ops in proptest::collection::vec((any::<u8>(), any::<u8>(), any::<u8>()), 1..200)
                ) {
                    super::random_mix(&$make, &ops)?;
                }
            }
        }
    };
}

/// Flash that ages (docs/nand.md): latency variability, multi-pass programs, and bit errors on
/// blocks aged as if each erase were 3,000 P/E cycles after 200 days on a shelf, so reads
/// of erased blocks take retry steps.
const AGED_NAND: [&str; 5] = [
    "nand.variability=true",
    "nand.program_scheme=multi_pass",
    "nand.errors=true",
    "nand.rber.pe_scale=3000",
    "nand.rber.retention_days=200",
];

kind!(conventional_ns, conventional());
kind!(conventional_in_slc, conventional_slc());
kind!(
    conventional_two_level_map,
    conventional_with(&[
        "ftl.mapping=two_level",
        "ftl.compressed_l1=true",
        "ftl.l2p_cache_bytes=16384",
    ])
);
kind!(
    conventional_background_gc,
    conventional_with(&[
        "nand.pages_per_block=6",
        "ftl.gc.background=true",
        "ftl.gc.background_threshold_free_superblocks=63",
        "ftl.gc.idle_us=200",
    ])
);
kind!(
    conventional_slc_cache_bypass,
    conventional_slc_cache(&["slc.policy=bypass"])
);
kind!(
    conventional_slc_cache_all,
    conventional_slc_cache(&["slc.policy=all"])
);
kind!(
    conventional_slc_writeback_idle,
    conventional_slc_cache(&["slc.writeback=idle", "slc.writeback_idle_us=500"])
);
kind!(
    conventional_slc_writeback_threshold,
    conventional_slc_cache(&["slc.writeback=threshold", "slc.writeback_threshold=0.3"])
);
kind!(
    conventional_firmware_cores,
    conventional_with(&["firmware.model=cores"])
);
kind!(
    conventional_data_cache,
    conventional_with(&["cache.bytes=65536"])
);
kind!(
    conventional_aged,
    conventional_with(&[
        "nand.pages_per_block=6",
        "ftl.overprovisioning=0.3",
        "nand.endurance_pe=20",
        "nand.initial_pe=15",
        "nand.factory_bad_fraction=0.05",
        "ftl.read_reclaim=true",
        "ftl.read_reclaim_reads=50",
        "ftl.wear_leveling=static",
        "ftl.wear_leveling_spread=2",
    ])
);
kind!(conventional_aged_nand, conventional_with(&AGED_NAND));
kind!(
    conventional_issue_ahead,
    conventional_with(&["buffer.bytes=1048576", "buffer.issue_ahead_us=100"])
);
kind!(
    conventional_issue_ahead_gc,
    conventional_with(&[
        "nand.pages_per_block=6",
        "buffer.issue_ahead_us=500",
        "ftl.gc.background=true",
        "ftl.gc.background_threshold_free_superblocks=63",
        "ftl.gc.idle_us=200",
    ])
);
kind!(zoned_page_map, zoned(&["ftl.mapping=page"]));
kind!(zoned_hybrid_map, zoned(&["ftl.mapping=hybrid"]));
kind!(zoned_zone_map, zoned(&["ftl.mapping=zone"]));
kind!(zoned_zabm, zoned(&["buffer.kind=zabm"]));
kind!(zoned_slc_per_zone, zoned(&["slc.granularity=zone"]));
kind!(zoned_sub_block, zoned(&["zone.sub_block=true"]));
kind!(zoned_firmware_cores, zoned(&["firmware.model=cores"]));
kind!(zoned_aged_nand, zoned(&AGED_NAND));
kind!(
    zoned_aged,
    zoned(&[
        "ftl.mapping=zone",
        "nand.endurance_pe=1000",
        "nand.initial_pe=500",
        "ftl.read_reclaim=true",
        "ftl.read_reclaim_reads=4",
        "ftl.wear_leveling=static",
        "ftl.wear_leveling_spread=1",
    ])
);
kind!(
    zoned_in_place_updates,
    zoned(&["zone.ipu_budget_bytes=1048576"])
);
