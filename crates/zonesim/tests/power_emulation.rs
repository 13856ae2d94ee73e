//! Power cuts through the emulation handle (`emu::power`): real data at queue depth 32 on a
//! conventional (TLC) and a zoned namespace, cut mid-write. After the cut the store holds
//! exactly what the model says survived — every page reads back as its last write or, when the
//! report counts it lost, as zeros — nothing a completed flush covered is lost, and the report's
//! lost pages and acknowledged writes are those the data shows. A `sparse:PATH` store cut, closed
//! and resumed continues exactly as the device that went on after the cut.

use proptest::prelude::*;
use std::collections::BTreeSet;
use std::path::PathBuf;
use zonesim::emu::{Handle, HandleOptions, RandomCuts, StoreOpen, StoreSpec, Ticket, PAGE};
use zonesim::engine::SimTime;
use zonesim::sim::PowerOff;

const SMALL: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/small-zoned.toml");
const QD: usize = 32;

/// The last write of each page: its content byte, the write's number and acknowledgement.
#[derive(Clone, Copy)]
struct Last {
    byte: u8,
    write: u64,
    done: SimTime,
}

struct Driven {
    last: Vec<Option<Last>>,
    /// Issue time of the latest flush that completed by the cut.
    covered: SimTime,
    cut: SimTime,
}

fn complete_oldest(h: &mut Handle, inflight: &mut Vec<(Ticket, Option<u64>)>) {
    let i = (0..inflight.len())
        .min_by_key(|&i| inflight[i].0.done)
        .expect("a request in flight");
    let (t, _) = inflight.swap_remove(i);
    h.complete(&t);
}

/// Writes one page at a time at queue depth 32 (`next` gives each write's page), a flush every
/// `flush_every` writes, and cuts power before write number `cut_at`; then delivers what was in
/// flight (those issued before the cut fail).
fn drive(
    h: &mut Handle,
    pages: u64,
    cut_at: u64,
    flush_every: u64,
    next: &mut dyn FnMut(&mut Handle, u64) -> u64,
) -> Driven {
    let mut last: Vec<Option<Last>> = vec![None; pages as usize];
    let mut inflight: Vec<(Ticket, Option<u64>)> = Vec::new();
    let mut flushes: Vec<Ticket> = Vec::new();
    let mut writes: Vec<(u64, Ticket)> = Vec::new();
    for w in 0..cut_at {
        while inflight.len() >= QD {
            complete_oldest(h, &mut inflight);
        }
        if w % flush_every == flush_every - 1 {
            let t = h.flush().unwrap();
            flushes.push(t);
            inflight.push((t, None));
            continue;
        }
        let page = next(h, w);
        let byte = 1 + (w % 255) as u8;
        let t = h.write(page * PAGE, &vec![byte; PAGE as usize]).unwrap();
        writes.push((page, t));
        last[page as usize] = Some(Last {
            byte,
            write: w,
            done: t.done,
        });
        inflight.push((t, Some(page)));
    }
    let cut = h.clock();
    h.power_off().unwrap();
    assert!(h.clock() > cut, "the recovery takes time");
    let mut failed = 0;
    for (t, _) in inflight.drain(..) {
        if !h.complete(&t) {
            failed += 1;
            assert!(t.issued <= cut && t.done > cut);
        }
    }
    assert!(failed > 0, "requests were in flight at the cut");
    let covered = flushes
        .iter()
        .filter(|f| f.done <= cut)
        .map(|f| f.issued)
        .max()
        .unwrap_or(SimTime::ZERO);
    Driven { last, covered, cut }
}

/// Checks the data against the model: returns (lost pages, lost acknowledged writes) as the
/// data shows them.
fn check(d: &Driven, read: &mut dyn FnMut(u64) -> Option<Vec<u8>>) -> (u64, u64) {
    let (mut lost, mut writes) = (0, BTreeSet::new());
    for (page, l) in d.last.iter().enumerate() {
        let Some(l) = l else { continue };
        let data = read(page as u64);
        let survived = match &data {
            Some(b) if b.iter().all(|&x| x == l.byte) => true,
            Some(b) => {
                assert!(
                    b.iter().all(|&x| x == 0),
                    "page {page}: neither its last write nor zeros"
                );
                false
            }
            None => false, // beyond a zone's write pointer
        };
        if !survived {
            lost += 1;
            assert!(
                l.done > d.covered,
                "page {page}: lost although a completed flush covered it"
            );
            if l.done <= d.cut {
                writes.insert(l.write);
            }
        }
    }
    (lost, writes.len() as u64)
}

/// Writes at the write pointers of zones `w % zones` (`pages` pages of zones of `size`
/// pages; a FULL zone passes its turn to zone + `zones`, and so on), a flush every
/// `flush_every` writes, power cut after `cut_at` requests, as [`drive`] does; then every
/// page below the write pointers read back and [`check`]ed: (lost, written) as `check` gives
/// them.
fn drive_zones(
    h: &mut Handle,
    size: u64,
    pages: u64,
    cut_at: u64,
    zones: u64,
    flush_every: u64,
) -> (u64, u64) {
    let all = (pages / size) as usize;
    let mut next = |h: &mut Handle, w: u64| {
        let mut z = w % zones;
        loop {
            let i = h.report_zones(z * size * PAGE, 1)[0];
            if i.write_pointer.0 < i.start.0 + i.capacity {
                return i.write_pointer.0;
            }
            z += zones;
            assert!(z < all as u64, "a zone to write");
        }
    };
    let d = drive(h, pages, cut_at, flush_every, &mut next);
    let zones = h.report_zones(0, all);
    let mut read = |p: u64| {
        let z = zones[(p / size) as usize];
        (p < z.write_pointer.0).then(|| {
            let mut b = vec![0u8; PAGE as usize];
            let t = h.read(p * PAGE, &mut b).unwrap();
            h.complete(&t);
            b
        })
    };
    check(&d, &mut read)
}

fn report_losses(h: &mut Handle, ns: usize) -> (u64, u64) {
    let r = h.report();
    let p = r.power.expect("a power section");
    assert_eq!(p.cuts, Some(1));
    assert!(p.recovery_us.unwrap() > 0.0);
    let n = &p.namespaces[ns];
    assert_eq!(n.lost_after_flush, 0);
    assert_eq!(
        r.sim.requests_issued,
        r.sim.requests_completed + r.sim.requests_cut.unwrap()
    );
    (n.lost_pages, n.lost_acknowledged_writes)
}

#[test]
fn a_conventional_cut_at_qd32_loses_exactly_what_the_report_says() {
    let pages = 6000u64;
    for (seed, flush_every) in [(1u64, 400u64), (7, 97)] {
        let mut h = Handle::open(HandleOptions {
            device: "ufs-conventional".into(),
            store: StoreSpec::Memory,
            verify: true,
            power_cuts: true,
            seed,
            ..Default::default()
        })
        .unwrap();
        let mut next = |_: &mut Handle, w: u64| (w * 7919 + seed * 13) % pages;
        let d = drive(&mut h, pages, 3000 + seed, flush_every, &mut next);
        let mut read = |p: u64| {
            let mut b = vec![0u8; PAGE as usize];
            let t = h.read(p * PAGE, &mut b).unwrap();
            h.complete(&t);
            Some(b)
        };
        let seen = check(&d, &mut read);
        assert!(
            seen.0 > 0,
            "a cut mid-write at QD 32 without PLP loses data"
        );
        assert_eq!(seen, report_losses(&mut h, 0));
    }
}

#[test]
fn plp_loses_nothing_through_the_handle() {
    let mut h = Handle::open(HandleOptions {
        device: "ufs-conventional".into(),
        sets: vec!["power.plp=true".into()],
        store: StoreSpec::Memory,
        power_off: Some(PowerOff::AtRequest(1_000_000)),
        ..Default::default()
    })
    .unwrap();
    let mut next = |_: &mut Handle, w: u64| w % 5000;
    let d = drive(&mut h, 5000, 2500, 1000, &mut next);
    let mut read = |p: u64| {
        let mut b = vec![0u8; PAGE as usize];
        let t = h.read(p * PAGE, &mut b).unwrap();
        h.complete(&t);
        Some(b)
    };
    assert_eq!(check(&d, &mut read), (0, 0));
}

#[test]
fn a_zoned_cut_at_qd32_rolls_back_to_what_survived() {
    let mut h = Handle::open(HandleOptions {
        device: SMALL.into(),
        namespace: 1,
        store: StoreSpec::Memory,
        power_cuts: true,
        ..Default::default()
    })
    .unwrap();
    let zc = h.zone_config().unwrap();
    let size = zc.zone_size;
    let pages = 4 * size;
    // Zone w % 4, at its write pointer.
    let seen = drive_zones(&mut h, size, pages, 700, 4, 150);
    assert_eq!(seen, report_losses(&mut h, 1));
    // The host writes on from the write pointer the cut left.
    let z = h.report_zones(0, 1)[0];
    let t = h
        .write(z.write_pointer.0 * PAGE, &vec![9u8; PAGE as usize])
        .unwrap();
    assert!(h.complete(&t));
}

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("zonesim-power-emu-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// Writes `n` pages from `from` at queue depth 1; returns each completion time.
fn writes(h: &mut Handle, from: u64, n: u64) -> Vec<u64> {
    (from..from + n)
        .map(|p| {
            let t = h
                .write(
                    p * 3 % 2000 * PAGE,
                    &vec![(p % 250) as u8 + 1; PAGE as usize],
                )
                .unwrap();
            h.complete(&t);
            t.done.ns()
        })
        .collect()
}

fn all_data(h: &mut Handle) -> Vec<u8> {
    let mut b = vec![0u8; 2000 * PAGE as usize];
    let t = h.read(0, &mut b).unwrap();
    h.complete(&t);
    b
}

#[test]
fn a_store_cut_and_resumed_goes_on_as_the_device_that_recovered() {
    let o = |path: PathBuf, open| HandleOptions {
        device: SMALL.into(),
        store: StoreSpec::Sparse(path),
        open,
        verify: true,
        power_off: (open != StoreOpen::Resume).then_some(PowerOff::AtRequest(300)),
        ..Default::default()
    };
    let one = tmp("one.img");
    let mut a = Handle::open(o(one, StoreOpen::Fresh)).unwrap();
    let before = writes(&mut a, 0, 400);
    let after = writes(&mut a, 400, 200);
    let end = all_data(&mut a);
    assert_eq!(a.power_cuts(), 1);

    let two = tmp("two.img");
    let mut b = Handle::open(o(two.clone(), StoreOpen::Fresh)).unwrap();
    assert_eq!(writes(&mut b, 0, 400), before);
    b.finish().unwrap();
    drop(b);
    let mut b = Handle::open(o(two, StoreOpen::Resume)).unwrap();
    assert_eq!(writes(&mut b, 400, 200), after, "after resume");
    assert_eq!(all_data(&mut b), end);
    let r = b.finish().unwrap();
    assert_eq!(r.emulation.unwrap().store.mismatches, 0);
}

/// Runs 6,000 writes at queue depth 32 (a flush every 500) through seeded random cuts, then
/// reads every page back under the verifier; returns the cut times and the report's counts.
fn random_cuts_run(seed: u64) -> (Vec<u64>, u64, u64) {
    let mut h = Handle::open(HandleOptions {
        device: "ufs-conventional".into(),
        store: StoreSpec::Memory,
        verify: true,
        random_cuts: Some(RandomCuts::new(5, 6000, "test").unwrap()),
        seed,
        ..Default::default()
    })
    .unwrap();
    let pages = 3000u64;
    let mut inflight: Vec<Ticket> = Vec::new();
    let (mut ok, mut failed, mut cut_times) = (0u64, 0u64, Vec::new());
    for w in 0..6000u64 {
        while inflight.len() >= QD {
            let i = (0..inflight.len())
                .min_by_key(|&i| inflight[i].done)
                .unwrap();
            let t = inflight.swap_remove(i);
            if h.complete(&t) {
                ok += 1;
            } else {
                failed += 1;
            }
        }
        let before = h.power_cuts();
        let t = if w % 500 == 499 {
            h.flush().unwrap()
        } else {
            let page = (w * 7919 + seed) % pages;
            h.write(page * PAGE, &vec![1 + (w % 251) as u8; PAGE as usize])
                .unwrap()
        };
        if h.power_cuts() > before {
            cut_times.push(t.issued.ns());
        }
        inflight.push(t);
    }
    for t in inflight.drain(..) {
        if h.complete(&t) {
            ok += 1;
        } else {
            failed += 1;
        }
    }
    assert_eq!(h.power_cuts(), 5, "every planned cut fired");
    assert!(failed >= 5, "each cut failed the request that reached it");
    // The device serves requests after the cuts: every page reads as its last write or, when
    // a cut lost it, as zeros (the verifier follows the losses; a mismatch fails the read).
    let mut b = vec![0u8; (pages * PAGE) as usize];
    let t = h.read(0, &mut b).expect("reads after the cuts verify");
    assert!(h.complete(&t));
    let r = h.report();
    let p = r.power.expect("a power section");
    assert_eq!(p.cuts, Some(5));
    assert_eq!(p.namespaces[0].lost_after_flush, 0);
    assert_eq!(r.sim.requests_cut, Some(failed));
    assert_eq!(r.sim.requests_completed, ok + 1);
    assert_eq!(
        r.sim.requests_issued,
        r.sim.requests_completed + r.sim.requests_cut.unwrap()
    );
    (cut_times, failed, p.namespaces[0].lost_pages)
}

#[test]
fn random_cuts_recover_and_go_on_deterministically() {
    let a = random_cuts_run(3);
    assert_eq!(a, random_cuts_run(3), "same options and seed, same cuts");
    assert_ne!(a.0, random_cuts_run(4).0, "another seed cuts elsewhere");
}

/// The report's (lost pages, lost acknowledged writes) over every cut so far.
fn losses_so_far(h: &Handle, ns: usize) -> (u64, u64) {
    let p = h.report().power.expect("a power section");
    let n = &p.namespaces[ns];
    assert_eq!(n.lost_after_flush, 0);
    (n.lost_pages, n.lost_acknowledged_writes)
}

/// A device that went on after a cut is cut again: the second cut loses what the data shows,
/// as the first did (each cut's part of the report's sums), on both namespace kinds.
#[test]
fn a_second_cut_loses_exactly_what_the_report_adds() {
    // Conventional.
    let mut h = Handle::open(HandleOptions {
        device: "ufs-conventional".into(),
        store: StoreSpec::Memory,
        verify: true,
        power_cuts: true,
        ..Default::default()
    })
    .unwrap();
    let pages = 6000u64;
    let mut first = (0, 0);
    for round in 0..2u64 {
        let mut next = |_: &mut Handle, w: u64| (w * 7919 + round * 31) % pages;
        let d = drive(&mut h, pages, 3000, 400, &mut next);
        let mut read = |p: u64| {
            let mut b = vec![0u8; PAGE as usize];
            let t = h.read(p * PAGE, &mut b).unwrap();
            h.complete(&t);
            Some(b)
        };
        let seen = check(&d, &mut read);
        assert!(seen.0 > 0, "round {round}: the cut lost data");
        let total = losses_so_far(&h, 0);
        assert_eq!(
            seen,
            (total.0 - first.0, total.1 - first.1),
            "round {round}"
        );
        first = total;
    }
    // Zoned: each round writes on from the write pointers the last cut left.
    let mut h = Handle::open(HandleOptions {
        device: SMALL.into(),
        namespace: 1,
        store: StoreSpec::Memory,
        power_cuts: true,
        ..Default::default()
    })
    .unwrap();
    let size = h.zone_config().unwrap().zone_size;
    let mut first = (0, 0);
    for round in 0..2 {
        let seen = drive_zones(&mut h, size, 4 * size, 500, 4, 150);
        let total = losses_so_far(&h, 1);
        assert_eq!(
            seen,
            (total.0 - first.0, total.1 - first.1),
            "zoned round {round}"
        );
        first = total;
    }
}

/// A page's data as the host knows it across several cuts.
#[derive(Clone, Copy)]
struct Held {
    byte: u8,
    write: u64,
    done: SimTime,
    /// The cut its write was in flight at (the write failed; part of its data may survive).
    failed_at: Option<SimTime>,
}

impl Held {
    /// A completed flush issued at or after this time covers the data: its write's
    /// acknowledgement, or the cut at which its write failed (what survived is on flash).
    fn covered_from(&self) -> SimTime {
        self.failed_at.unwrap_or(self.done)
    }
}

/// The host side of a zoned namespace driven through several cuts: each page's data and the
/// flushes (issue, completion, completed).
struct Host {
    held: Vec<Option<Held>>,
    flushes: Vec<(SimTime, SimTime, bool)>,
    writes: u64,
}

impl Host {
    /// Writes (and a flush every `flush_every` requests) at the write pointers of zones
    /// `w % zones` as [`drive_zones`] does, at queue depth 32, `n` requests; then the cut,
    /// the requests in flight delivered (those issued before it fail). Returns the cut time.
    fn round(
        &mut self,
        h: &mut Handle,
        size: u64,
        n: u64,
        zones: u64,
        flush_every: u64,
    ) -> SimTime {
        let all = self.held.len() as u64 / size;
        let mut inflight: Vec<(Ticket, Option<u64>)> = Vec::new();
        for _ in 0..n {
            while inflight.len() >= QD {
                complete_oldest(h, &mut inflight);
            }
            let w = self.writes;
            self.writes += 1;
            if w % flush_every == flush_every - 1 {
                let t = h.flush().unwrap();
                self.flushes.push((t.issued, t.done, true));
                inflight.push((t, None));
                continue;
            }
            let mut z = w % zones;
            let page = loop {
                let i = h.report_zones(z * size * PAGE, 1)[0];
                if i.write_pointer.0 < i.start.0 + i.capacity {
                    break i.write_pointer.0;
                }
                z += zones;
                assert!(z < all, "a zone to write");
            };
            let byte = 1 + (w % 255) as u8;
            let t = h.write(page * PAGE, &vec![byte; PAGE as usize]).unwrap();
            self.held[page as usize] = Some(Held {
                byte,
                write: w,
                done: t.done,
                failed_at: None,
            });
            inflight.push((t, Some(page)));
        }
        let cut = h.clock();
        h.power_off().unwrap();
        for (t, _) in inflight.drain(..) {
            if !h.complete(&t) {
                assert!(t.issued <= cut && t.done > cut);
            }
        }
        for f in &mut self.flushes {
            f.2 &= f.1 <= cut;
        }
        for l in self.held.iter_mut().flatten() {
            if l.failed_at.is_none() && l.done > cut {
                l.failed_at = Some(cut);
            }
        }
        cut
    }

    /// After the cut at `cut`: every page reads back as its data or, lost, as zeros (or lies
    /// beyond its zone's write pointer); nothing a completed flush covered is lost. Lost pages
    /// are forgotten (they read as unwritten from now on). Returns (lost pages, lost
    /// acknowledged writes) as the data shows them.
    fn check(&mut self, h: &mut Handle, size: u64, cut: SimTime) -> (u64, u64) {
        let covered = self
            .flushes
            .iter()
            .filter(|f| f.2)
            .map(|f| f.0)
            .max()
            .unwrap_or(SimTime::ZERO);
        let zones = h.report_zones(0, self.held.len() / size as usize);
        let (mut lost, mut writes) = (0, BTreeSet::new());
        for (page, slot) in self.held.iter_mut().enumerate() {
            let Some(l) = *slot else { continue };
            let p = page as u64;
            let survived = p < zones[(p / size) as usize].write_pointer.0 && {
                let mut b = vec![0u8; PAGE as usize];
                let t = h.read(p * PAGE, &mut b).unwrap();
                h.complete(&t);
                let ok = b.iter().all(|&x| x == l.byte);
                assert!(
                    ok || b.iter().all(|&x| x == 0),
                    "page {page}: neither its data nor zeros"
                );
                ok
            };
            if survived {
                continue;
            }
            lost += 1;
            assert!(
                l.covered_from() > covered,
                "page {page}: lost although a completed flush covered it"
            );
            if l.failed_at.is_none() {
                writes.insert(l.write);
            }
            *slot = None;
        }
        assert!(cut < h.clock());
        (lost, writes.len() as u64)
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]
    /// Random zoned workloads on MLC and TLC through one to three cuts, the device recovering
    /// after each and the host writing on at the write pointers (regular programs and the word
    /// lines before them hit as the model says, buffers and SLC tails lost; a write in flight
    /// at a cut is never acknowledged, and what survived of it is lost by a later cut like any
    /// data no flush covered). After each cut every page reads back as its data or, when lost,
    /// as zeros; nothing a completed flush covered is lost; the report's lost pages and
    /// acknowledged writes grow by what the data shows; the invariants hold (`power_off` fails
    /// if not) and the host writes on at the write pointers.
    #[test]
    fn any_zoned_cut_keeps_every_durable_write(
        seed in 1u64..1000,
        rounds in proptest::collection::vec(40u64..4000, 1..4),
        flush_every in 3u64..400,
        zones in 1u64..5,
        mlc in any::<bool>(),
        migrate in any::<bool>(),
    ) {
        let cell = if mlc { "nand.cell=mlc" } else { "nand.cell=tlc" };
        let mut sets = vec![cell.to_string()];
        if migrate {
            // Every flush to SLC, and SLC GC migrating whole units to regular flash.
            sets.extend(["slc.policy=all", "slc.gc=migrate", "nand.slc_blocks_per_plane=13"].map(String::from));
        }
        let mut h = Handle::open(HandleOptions {
            device: SMALL.into(),
            namespace: 1,
            sets,
            store: StoreSpec::Memory,
            power_cuts: true,
            seed,
            ..Default::default()
        })
        .unwrap();
        let size = h.zone_config().unwrap().zone_size;
        let mut host = Host { held: vec![None; 16 * size as usize], flushes: Vec::new(), writes: 0 };
        let mut total = (0, 0);
        for (k, &n) in rounds.iter().enumerate() {
            let cut = host.round(&mut h, size, n, zones, flush_every);
            let seen = host.check(&mut h, size, cut);
            let r = h.report();
            let p = r.power.expect("a power section");
            prop_assert_eq!(p.cuts, Some(k as u64 + 1));
            let ns = &p.namespaces[1];
            prop_assert_eq!(ns.lost_after_flush, 0);
            prop_assert_eq!(seen, (ns.lost_pages - total.0, ns.lost_acknowledged_writes - total.1), "cut {}", k + 1);
            total = (ns.lost_pages, ns.lost_acknowledged_writes);
        }
        for i in h.report_zones(0, zones as usize) {
            if i.write_pointer.0 < i.start.0 + i.capacity {
                let t = h.write(i.write_pointer.0 * PAGE, &vec![7u8; PAGE as usize]).unwrap();
                prop_assert!(h.complete(&t));
            }
        }
    }
}
