//! A power cut on a zoned namespace mid regular program (docs/power.md, "Zoned namespaces"):
//! the torn regular unit and, on MLC, the unit before it on its word lines' die and block are
//! lost unless a completed flush covered their data; the zone's write pointer goes back to the
//! first lost page; the report names the reasons. Fixed cases on the small zoned device.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use zonesim::device::{Device, PowerCycle};
use zonesim::engine::SimTime;
use zonesim::interface::{Command, Op};

/// What a one-zone run saw before its cut.
struct OneZone {
    cy: PowerCycle,
    /// Zone 0's LBAs holding data before and after the cut (below the write pointer; a FULL
    /// zone keeps its condition, what it lost reads as unwritten).
    before: u64,
    after: u64,
    /// Each written LBA's acknowledgement.
    acks: Vec<SimTime>,
    /// Issue time of the latest flush that completed by the cut.
    covered: Option<SimTime>,
}

/// Sequential 16 KiB writes into zone 0 of the small zoned device (cell `cell`) at queue
/// depth `qd`, a flush after write `flush_at` (waited for: the next write goes after it
/// completes), until a write would arrive after `cut`; then the cut.
fn one_zone(cell: &str, qd: usize, flush_at: Option<u64>, cut: SimTime) -> OneZone {
    let cfg = crate::common::small_zoned(&[cell]);
    let mut dev = Device::new(&cfg, 1).unwrap();
    dev.track_power().unwrap();
    let cap = dev.zones(1).unwrap().zone_config().zone_capacity;
    let mut slots: BinaryHeap<Reverse<SimTime>> = (0..qd).map(|_| Reverse(SimTime::ZERO)).collect();
    let (mut wp, mut acks, mut flushes) = (0u64, Vec::new(), Vec::new());
    for i in 0u64.. {
        let Reverse(at) = slots.pop().unwrap();
        if at > cut || wp + 4 > cap {
            break;
        }
        let cmd = Command::widen(Op::Write { hint: 0 }, wp * 4096, 16384);
        let c = dev.submit(at, 1, cmd);
        assert!(!c.rejected);
        wp += 4;
        acks.extend([c.done; 4]);
        let mut next = c.done;
        if flush_at == Some(i) {
            let f = dev.submit(c.done, 1, Command::widen(Op::Flush, 0, 0));
            flushes.push((c.done, f.done));
            next = f.done;
        }
        slots.push(Reverse(next));
    }
    let wp_of = |dev: &Device| dev.namespaces[1].as_zoned().unwrap().written_lbas(0);
    let before = wp_of(&dev);
    let cy = dev.power_cycle(cut, false);
    dev.check_invariants().unwrap();
    let after = wp_of(&dev);
    let covered = flushes.iter().filter(|f| f.1 <= cut).map(|f| f.0).max();
    OneZone {
        cy,
        before,
        after,
        acks,
        covered,
    }
}

/// The lost LBAs are those past the new write pointer; nothing a completed flush covered is
/// lost; returns the acknowledged pages lost by reason (buffer, program, paired_page).
fn check(r: &OneZone, cut: SimTime) -> [u64; 3] {
    let loss = &r.cy.losses[1];
    let gone: Vec<u32> = (r.after..r.before).map(|l| l as u32).collect();
    assert_eq!(gone, loss.lost_lpas, "the zone lost what the model reports");
    assert_eq!(loss.lost_after_flush, 0);
    let acked = (r.after..r.before)
        .filter(|&l| r.acks[l as usize] <= cut)
        .count() as u64;
    assert_eq!(loss.lost_acknowledged_pages, acked);
    if let Some(c) = r.covered {
        let kept = r.acks.iter().take_while(|&&a| a <= c).count() as u64;
        assert!(r.after >= kept, "LBAs a completed flush covered were lost");
    }
    assert!(r.cy.recovered > cut);
    loss.by_reason
}

/// The cut points of a one-zone run: every 97 µs over its first 40 ms.
fn cuts() -> impl Iterator<Item = SimTime> {
    (1..400).map(|k| SimTime::from_us(97.0 * k as f64))
}

#[test]
fn a_cut_mid_regular_program_on_mlc_loses_the_unit_and_its_paired_pages() {
    // Queue depth 1: each write is acknowledged once its data is in the buffer, and the full
    // buffer's units are programmed behind the host; cuts land in regular programs.
    let mut sum = [0u64; 3];
    for cut in cuts() {
        let r = one_zone("nand.cell=mlc", 1, None, cut);
        let by = check(&r, cut);
        if by[1] > 0 {
            // The write pointer went back to a unit's start: the first lost page is the
            // first of a torn or paired unit (nothing of it was flushed).
            assert!(r.after < r.before);
        }
        for (s, b) in sum.iter_mut().zip(by) {
            *s += b;
        }
    }
    assert!(
        sum[1] > 0,
        "acknowledged data lost in torn regular programs: {sum:?}"
    );
    assert!(sum[2] > 0, "paired pages lost on MLC: {sum:?}");
}

#[test]
fn no_paired_pages_on_slc_and_flushed_data_survives_a_torn_program() {
    // SLC has no paired pages.
    for cut in cuts().step_by(7) {
        let r = one_zone("nand.cell=slc", 1, None, cut);
        assert_eq!(check(&r, cut)[2], 0, "no paired pages on SLC");
    }
    // A flush after write 40: what it covered survives every later cut, also when the
    // programs after it tear its word lines.
    let mut paired_after_flush = 0;
    for cut in cuts() {
        let r = one_zone("nand.cell=mlc", 1, Some(40), cut);
        let by = check(&r, cut);
        if r.covered.is_some() {
            paired_after_flush += by[2];
        }
    }
    assert!(
        paired_after_flush > 0,
        "later word lines still lose their paired pages"
    );
}

#[test]
fn at_queue_depth_32_torn_units_lose_acknowledged_writes_the_buffer_had_released() {
    let mut program = 0;
    for cut in cuts().step_by(3) {
        let r = one_zone("nand.cell=tlc", 32, None, cut);
        program += check(&r, cut)[1];
    }
    assert!(
        program > 0,
        "the regular programs in flight held acknowledged data"
    );
}

/// Zone 0's LBAs holding data (below its write pointer).
fn zone0_written(dev: &Device) -> u64 {
    dev.namespaces[1].as_zoned().unwrap().written_lbas(0)
}

/// Writes of `bytes` at zone 0's write pointer from `at` at queue depth 1, `n` of them (fewer
/// at the zone's end or once the next would come after `until`); returns each (issue,
/// completion).
fn write_on(
    dev: &mut Device,
    mut at: SimTime,
    until: SimTime,
    bytes: u64,
    n: usize,
) -> Vec<(SimTime, SimTime)> {
    let cap = dev.zones(1).unwrap().zone_config().zone_capacity;
    let mut out = Vec::new();
    for _ in 0..n {
        let wp = zone0_written(dev);
        if wp + bytes / 4096 > cap || at > until {
            break;
        }
        let c = dev.submit(
            at,
            1,
            Command::widen(Op::Write { hint: 0 }, wp * 4096, bytes),
        );
        assert!(!c.rejected);
        out.push((at, c.done));
        at = c.done;
    }
    out
}

/// Two cuts in one run. Cut 1 lands on a 512 KiB write `W` (larger than a zone buffer, so its
/// first units were programmed, and ended, before it was acknowledged): once just before its
/// acknowledgement, once just at it. Both twins keep the same part of `W` on flash; only
/// whether the host saw `W` complete differs. The host then writes on identically, and cut 2
/// tears the units programmed after cut 1 — on MLC also the word lines before them, `W`'s
/// units. Whether the host saw a write complete cannot change what flash keeps: both twins
/// must lose the same LBAs at cut 2 and read back the same prefix; only the acknowledged
/// counts may differ (`W`'s pages are acknowledged losses only in the twin that saw it
/// complete).
#[test]
fn a_write_in_flight_at_a_first_cut_is_lost_like_any_other_at_the_second() {
    let cfg = crate::common::small_zoned(&["nand.cell=mlc"]);
    let mut dev = Device::new(&cfg, 1).unwrap();
    dev.track_power().unwrap();
    let big = write_on(&mut dev, SimTime::ZERO, SimTime::MAX, 512 << 10, 4);
    let (w_issued, w_done) = big[3];
    let w_start = 3 * 128;
    let mut reached_w = 0;
    assert!(SimTime(w_done.0 - 1) > w_issued);
    let twin = |c1: SimTime| {
        let mut d = dev.clone();
        let cy = d.power_cycle(c1, false);
        d.check_invariants().unwrap();
        (d, cy)
    };
    let (a, cya) = twin(SimTime(w_done.0 - 1));
    let (b, cyb) = twin(w_done);
    let kept = zone0_written(&a);
    assert_eq!(
        kept,
        zone0_written(&b),
        "the twins keep the same data at cut 1"
    );
    assert_eq!(cya.losses[1].lost_lpas, cyb.losses[1].lost_lpas);
    assert!(
        kept > w_start,
        "part of W survived cut 1 ({kept} LBAs kept)"
    );
    // The host writes on identically once both have recovered.
    let on = cya.recovered.max(cyb.recovered);
    for k in 1..120u64 {
        let c2 = SimTime(on.0 + SimTime::from_us(25.0 * k as f64).0);
        let mut seen = Vec::new();
        for base in [&a, &b] {
            let mut d = base.clone();
            write_on(&mut d, on, c2, 16 << 10, 400);
            let cy = d.power_cycle(c2, false);
            d.check_invariants().unwrap();
            seen.push((zone0_written(&d), cy.losses[1].clone()));
        }
        let (wa, la) = &seen[0];
        let (wb, lb) = &seen[1];
        assert_eq!(
            wa, wb,
            "cut 2 at {c2:?}: LBAs kept by the twin with W in flight at cut 1 (left) and by \
             the one that saw W complete (right)"
        );
        assert_eq!(la.lost_lpas, lb.lost_lpas, "cut 2 at {c2:?}");
        assert_eq!(la.lost_after_flush + lb.lost_after_flush, 0);
        if *wa < kept {
            // W lost at cut 2: an acknowledged loss only where the host saw it complete.
            reached_w += 1;
            assert_eq!(la.lost_acknowledged_writes + 1, lb.lost_acknowledged_writes);
        }
    }
    assert!(
        reached_w > 0,
        "some second cut reached back into what survived of W"
    );
}

/// Re-programming after recovery (docs/power.md, "Recovery"): a regular unit a cut tore or
/// disturbed whose data a completed flush covered lost nothing, so the firmware programs it
/// again from the copy it kept, after the recovery and not in `recovery_us`. A flush after
/// write 40, then cuts every 97 µs: the word lines before a torn unit, or the torn units
/// themselves, hold flushed data at some of them. Each cut's re-programming is whole units and
/// takes time after the recovery; a cut that re-programs nothing reports 0 time.
#[test]
fn flushed_units_a_cut_hits_are_programmed_again_after_recovery() {
    let cfg = crate::common::small_zoned(&["nand.cell=mlc"]);
    let unit = u64::from(cfg.nand.cell.program_unit_pages() * cfg.nand.planes_per_die);
    let mut again = 0;
    for cut in cuts() {
        let r = one_zone("nand.cell=mlc", 1, Some(40), cut);
        check(&r, cut);
        let cy = &r.cy;
        if cy.reprogrammed_pages == 0 {
            assert_eq!(cy.reprogram_ns, 0, "cut at {cut:?}: no pages, no time");
            continue;
        }
        again += 1;
        assert_eq!(
            cy.reprogrammed_pages % unit,
            0,
            "cut at {cut:?}: whole units"
        );
        assert!(cy.reprogram_ns > 0, "cut at {cut:?}: programs take time");
        assert!(
            r.covered.is_some(),
            "cut at {cut:?}: only flushed data survives a hit"
        );
    }
    assert!(again > 0, "some cut hit a unit of flushed data");
}

/// Without a flush nothing a cut hits survives on this run (no SLC migration is in flight at
/// queue depth 1 into one zone), and with power-loss protection nothing is hit: no unit is
/// programmed again, and the re-programming time is 0.
#[test]
fn nothing_is_programmed_again_when_nothing_hit_survived() {
    for cut in cuts().step_by(3) {
        for plp in [false, true] {
            let cfg = crate::common::small_zoned(&["nand.cell=mlc"]);
            let mut dev = Device::new(&cfg, 1).unwrap();
            dev.track_power().unwrap();
            write_on(&mut dev, SimTime::ZERO, cut, 16 << 10, 4000);
            let cy = dev.power_cycle(cut, plp);
            dev.check_invariants().unwrap();
            assert_eq!(
                (cy.reprogrammed_pages, cy.reprogram_ns),
                (0, 0),
                "cut at {cut:?}, plp {plp}"
            );
        }
    }
}

/// A power cut in the middle of a whole-zone remap (read reclaim on the zone map,
/// firmware/zoned/wear.rs): the copy steps whose programs the cut aborted are issued again
/// after recovery (the victim still holds their data), the copy completes, and the invariants
/// hold at the cut and after. Zone 0 is written full, then read on its first 64 KiB until read
/// disturb starts the remap; the cut comes 2 ms into the copy (16 steps of about 1.1 ms), 100 us
/// after a read booked the step in progress.
#[test]
fn a_cut_during_a_zone_remap_issues_the_aborted_steps_again() {
    let cfg = crate::common::small_zoned(&[
        "ftl.mapping=zone",
        "ftl.read_reclaim=true",
        "ftl.read_reclaim_reads=1000",
    ]);
    let mut dev = Device::new(&cfg, 1).unwrap();
    dev.track_power().unwrap();
    let zone_pages = dev.zones(1).unwrap().zone_config().zone_capacity;
    let w = write_on(&mut dev, SimTime::ZERO, SimTime::MAX, 128 << 10, usize::MAX);
    let wear = |dev: &Device, k: &str| {
        serde_json::to_value(dev.report().wear).unwrap()[k]
            .as_u64()
            .unwrap()
    };
    let mut at = w.last().unwrap().1;
    let read = |dev: &mut Device, at: &mut SimTime, i: u64| {
        let c = dev.submit(*at, 1, Command::widen(Op::Read, (i % 16) * 4096, 4096));
        *at = c.done;
    };
    let mut i = 0;
    while wear(&dev, "zone_remaps") == 0 {
        read(&mut dev, &mut at, i);
        i += 1;
        assert!(i < 100_000, "no remap");
    }
    let until = at + SimTime::from_us(2000.0).ns();
    while at < until {
        read(&mut dev, &mut at, i);
        i += 1;
    }
    // This read books the step issued since the last one; the cut comes 100 us into it.
    let issued = at;
    read(&mut dev, &mut at, i);
    let booked = wear(&dev, "reclaim_moves");
    assert!(
        booked < zone_pages,
        "the copy is under way at the cut: {booked}"
    );
    let cy = dev.power_cycle(issued + SimTime::from_us(100.0).ns(), false);
    dev.check_invariants().unwrap();
    at = cy.recovered;
    let until = at + SimTime::from_us(30_000.0).ns();
    while at < until {
        read(&mut dev, &mut at, i);
        i += 1;
    }
    dev.check_invariants().unwrap();
    let moved = wear(&dev, "reclaim_moves");
    assert_eq!(wear(&dev, "zone_remaps"), 1);
    // The whole zone moved, and the step the cut aborted moved twice.
    assert!(
        moved > zone_pages,
        "moved {moved} of a {zone_pages}-page zone"
    );
}
