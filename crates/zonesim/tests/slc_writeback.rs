//! SLC write-back of the conventional SLC cache (`slc.writeback`,
//! `firmware/conventional/writeback.rs`): with `idle`, an idle gap empties SLC into regular
//! flash (all but less than one regular program unit) with map, reverse map and valid counts
//! consistent; a host request arriving during the
//! write-back waits only for the operations in flight; with `threshold`, SLC use stays under
//! the threshold plus one superblock; the engine runs it between requests (fio `thinktime`).

use crate::common;

use serde_json::Value;
use zonesim::config::{CellType, DeviceConfig};
use zonesim::device::Device;
use zonesim::engine::SimTime;
use zonesim::firmware::mapping::{Entry, Lpa};
use zonesim::firmware::IdleWork;
use zonesim::interface::zone::Lba;
use zonesim::interface::{Command, Op};
use zonesim::sim::Precondition;

use common::slc_device as dev;

fn cmd(op: Op, lba: u64, pages: u32) -> Command {
    Command {
        op,
        lba: Lba(lba),
        pages,
    }
}

/// `n` x (4 KiB write at a scattered LBA + flush) from `t`, each at the previous completion;
/// returns the time after the last one and the LPAs written.
fn fsync_writes(
    d: &mut Device,
    mut t: SimTime,
    n: u64,
    mut after: impl FnMut(&Device),
) -> (SimTime, Vec<u32>) {
    let mut lpas = Vec::new();
    for i in 0..n {
        let lba = (i * 7919) % 20_000;
        lpas.push(lba as u32);
        t = d.submit(t, 0, cmd(Op::Write { hint: 0 }, lba, 1)).done;
        t = d.submit(t, 0, cmd(Op::Flush, 0, 0)).done.max(t);
        after(d);
    }
    (t, lpas)
}

fn slc_valid(d: &Device) -> u64 {
    d.namespaces[0].as_conventional().unwrap().slc_valid_pages()
}

/// Run idle write-back steps from `t` until it has nothing left; returns the steps taken.
fn drain(d: &mut Device, mut t: SimTime) -> u32 {
    let mut steps = 0;
    while d.idle(t, IdleWork::SlcWriteback).is_some() {
        steps += 1;
        t = SimTime(t.ns() + 1).max(d.nand.all_idle_at());
        assert!(steps < 100_000, "write-back does not end");
    }
    steps
}

#[test]
fn idle_gap_empties_slc_into_regular_flash() {
    let cfg = dev(&["slc.writeback=idle", "slc.writeback_idle_us=1000"]);
    let mut d = Device::new(&cfg, 5).unwrap();
    assert_eq!(
        d.idle_timer(IdleWork::SlcWriteback).map(|t| t.after_ns),
        Some(1_000_000)
    );
    let (t, lpas) = fsync_writes(&mut d, SimTime(0), 1500, |_| {});
    let held = slc_valid(&d);
    assert!(held > 500, "SLC holds the fsync'd pages ({held})");
    let steps = drain(&mut d, t + 1_000_000);
    assert!(steps > 0);
    // A TLC word line is programmed whole: less than one regular unit (2 planes x 3 pages x
    // 4 slots = 24) may stay in SLC; everything else is in regular flash.
    let left = slc_valid(&d);
    assert!(left < 24, "SLC holds {left} pages after the idle gap");
    d.check_invariants().unwrap();
    let f = d.namespaces[0].as_conventional().unwrap();
    let mut in_slc = 0;
    for &l in &lpas {
        if f.in_slc(Lpa(l)) {
            in_slc += 1;
        } else {
            assert!(
                matches!(f.lookup(Lpa(l)), Entry::Flash(_)),
                "lpa {l} in regular flash"
            );
        }
    }
    assert_eq!(in_slc, left);
    let wb = &f.slc_cache().unwrap().wb.counters;
    assert_eq!(wb.writeback_pages, held - left);
    assert_eq!(wb.writeback_runs, 1);
    assert!(wb.writeback_idle_ns > 0);
    // Nothing left: the next idle gap does nothing.
    let later = d.nand.all_idle_at() + 1_000_000;
    assert_eq!(drain(&mut d, later), 0);
}

#[test]
fn host_request_during_writeback_waits_only_for_operations_in_flight() {
    let cfg = dev(&["slc.writeback=idle", "slc.writeback_idle_us=1000"]);
    let slc = cfg.nand.timing.of(CellType::Slc);
    let tlc = cfg.nand.timing.of(CellType::Tlc);
    let mut d = Device::new(&cfg, 5).unwrap();
    let (t, _) = fsync_writes(&mut d, SimTime(0), 1500, |_| {});
    // A read of a page in regular flash on an idle device, for reference.
    let t0 = d.nand.all_idle_at() + 1_000_000;
    let alone = d.submit(t0, 0, cmd(Op::Read, 19_999, 1)).done.since(t0);
    let mut w = d.nand.all_idle_at().max(t) + 1_000_000;
    // One step's flash work: the SLC reads that fill one regular unit (6 SLC pages), its
    // program and, when it empties a victim, the victim's erase; no step books more than
    // that (plus slack for the transfers).
    let step_max = ((6.0 * slc.read_us + tlc.program_us + slc.erase_us) * 1.5 * 1000.0) as u64;
    for k in 0..40 {
        assert!(d.idle(w, IdleWork::SlcWriteback).is_some());
        let in_flight = d.nand.all_idle_at().since(w);
        assert!(
            in_flight <= step_max,
            "step {k} booked {in_flight} ns > {step_max}"
        );
        w = SimTime(w.ns() + 1).max(d.nand.all_idle_at());
    }
    // A host read arriving just after a step started waits at most for that step's
    // operations (write-back stops with it: its next step would be after the read).
    assert!(d.idle(w, IdleWork::SlcWriteback).is_some());
    let tr = w + 1;
    let booked = d.nand.all_idle_at().since(tr);
    assert!(booked > 0, "the step's operations are in flight");
    let lat = d.submit(tr, 0, cmd(Op::Read, 19_999, 1)).done.since(tr);
    assert!(
        lat <= alone + booked,
        "read latency {lat} > alone {alone} + in flight {booked}"
    );
    d.check_invariants().unwrap();
}

#[test]
fn threshold_keeps_slc_use_under_threshold_plus_one_superblock() {
    let used = |d: &Device| {
        let c = d.namespaces[0]
            .as_conventional()
            .unwrap()
            .slc_cache()
            .unwrap();
        c.superblocks() - c.free_superblocks()
    };
    let base = dev(&[]);
    let mut d = Device::new(&base, 5).unwrap();
    let mut most = 0;
    fsync_writes(&mut d, SimTime(0), 6000, |d| most = most.max(used(d)));
    assert!(
        most >= 12,
        "without write-back SLC fills ({most} of 16 in use)"
    );
    let cfg = dev(&["slc.writeback=threshold", "slc.writeback_threshold=0.25"]);
    let mut d = Device::new(&cfg, 5).unwrap();
    let mut most = 0;
    let mut n = 0;
    fsync_writes(&mut d, SimTime(0), 6000, |d| {
        most = most.max(used(d));
        n += 1;
        if n % 500 == 0 {
            d.check_invariants().unwrap();
        }
    });
    assert!(most <= 4 + 1, "SLC use {most} superblocks > 0.25 x 16 + 1");
    let f = d.namespaces[0].as_conventional().unwrap();
    let wb = &f.slc_cache().unwrap().wb.counters;
    assert!(wb.writeback_pages > 0 && wb.writeback_runs > 0);
    d.check_invariants().unwrap();
}

fn run(cfg: &DeviceConfig, text: &str) -> Value {
    common::run(cfg, &common::jobs(text), Precondition::None, 3).deterministic_json()
}

#[test]
fn engine_runs_idle_writeback_between_requests_and_reports_it() {
    let job = "[w]\nrw=randwrite\nbs=4k\nsize=64m\niodepth=1\nfsync=1\nnumber_ios=3000\nthinktime=";
    let ns = |v: &Value| v["device"]["namespaces"][0]["slc"].clone();
    // Gaps (2 ms) longer than the idle time (1 ms): SLC is written back between requests.
    let on = run(
        &dev(&["slc.writeback=idle", "slc.writeback_idle_us=1000"]),
        &format!("{job}2000\n"),
    );
    let s = ns(&on);
    assert_eq!(s["writeback"], "idle");
    assert!(s["writeback_pages"].as_u64().unwrap() > 1000, "{s}");
    assert!(s["writeback_runs"].as_u64().unwrap() > 100, "{s}");
    assert!(s["valid_pages"].as_u64().unwrap() < 50, "{s}");
    // Gaps shorter than the idle time: nothing is written back; `full` reports no write-back keys.
    let short = run(
        &dev(&["slc.writeback=idle", "slc.writeback_idle_us=5000"]),
        &format!("{job}2000\n"),
    );
    assert_eq!(ns(&short)["writeback_pages"], 0);
    let full = run(&dev(&[]), &format!("{job}2000\n"));
    assert!(ns(&full).get("writeback_pages").is_none());
    assert!(ns(&full).get("writeback").is_none());
}

#[test]
fn bad_writeback_settings_rejected() {
    let bad = |sets: &[&str]| {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        zonesim::load_device("ufs-conventional", &sets)
            .expect_err("rejected")
            .to_string()
    };
    let e = bad(&["slc.writeback=idle"]);
    assert!(
        e.contains("slc.writeback") && e.contains("conventional_buffer"),
        "{e}"
    );
    let e = bad(&["slc.writeback=sometimes"]);
    assert!(e.contains("writeback"), "{e}");
    let e = bad(&["slc.writeback_threshold=1.5"]);
    assert!(e.contains("slc.writeback_threshold"), "{e}");
    let e = bad(&["slc.writeback_idle_us=-1"]);
    assert!(e.contains("slc.writeback_idle_us"), "{e}");
}
