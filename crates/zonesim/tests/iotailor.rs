//! IOTailor (ZMS "Challenge #1", `host/iotailor.rs`): under random writes,
//! completions, hold timers and syncs, every host write completes exactly once and only after
//! all its bytes were issued and completed, and every byte reaches the device once, in order
//! per zone, in requests no longer than a superpage ending on a superpage boundary (or a
//! release); end to end, runs with IOTailor complete every request and break no zone rule.

use crate::common;

use proptest::prelude::*;
use std::collections::BTreeMap;
use zonesim::host::iotailor::{IoTailor, TailorConfig};
use zonesim::sim::{Precondition, RunOptions};

const SP: u64 = 64 << 10;
const ZONE: u64 = 1 << 20;
const CAP: u64 = 800 << 10;
const ZONES: u32 = 3;

#[derive(Debug, Clone)]
enum Step {
    /// Write `pages` 4 KiB pages to zone `z` (at its write pointer; `gap`: skip 4 KiB first).
    Write { z: u32, pages: u64, gap: bool },
    /// Complete the `k`-th (mod count) device request in flight.
    Complete(usize),
    /// Fire zone `z`'s latest hold timer.
    Expire(u32),
    /// A flush.
    SyncAll,
    /// A zone command for zone `z`.
    SyncZone(u32),
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        4 => (0..ZONES, 1u64..40, prop::bool::weighted(0.05))
            .prop_map(|(z, pages, gap)| Step::Write { z, pages, gap }),
        4 => (0usize..64).prop_map(Step::Complete),
        1 => (0..ZONES).prop_map(Step::Expire),
        1 => Just(Step::SyncAll),
        1 => (0..ZONES).prop_map(Step::SyncZone),
    ]
}

/// The model: what each host write covers, and what the device saw per zone.
#[derive(Default)]
struct Model {
    /// Host write id -> (offset, end).
    writes: Vec<(u64, u64)>,
    /// Bytes written by the host per zone, in order (as ranges).
    host_bytes: BTreeMap<u32, Vec<(u64, u64)>>,
    /// Bytes issued to the device per zone, in order.
    dev_bytes: BTreeMap<u32, Vec<(u64, u64)>>,
    /// Device requests in flight: (id, offset, end).
    inflight: Vec<(u32, u64, u64)>,
    /// Completed device byte ranges.
    completed: Vec<(u64, u64)>,
    done: Vec<u32>,
    /// Latest hold timer per zone.
    timers: BTreeMap<u32, u32>,
}

/// Merge adjacent ranges.
fn coalesce(v: &[(u64, u64)]) -> Vec<(u64, u64)> {
    let mut out: Vec<(u64, u64)> = Vec::new();
    for &(a, b) in v {
        match out.last_mut() {
            Some(l) if l.1 == a => l.1 = b,
            _ => out.push((a, b)),
        }
    }
    out
}

fn drain(t: &mut IoTailor<u32>, m: &mut Model) {
    for e in t.issued.drain(..) {
        let z = (e.offset / ZONE) as u32;
        let rel = e.offset % ZONE;
        assert!(e.len > 0 && e.len <= SP, "request of {} bytes", e.len);
        assert!(rel + e.len <= CAP, "request crosses the zone capacity");
        // At most one superpage: never crosses a superpage boundary.
        assert!(
            rel / SP == (rel + e.len - 1) / SP,
            "request crosses a boundary"
        );
        m.dev_bytes
            .entry(z)
            .or_default()
            .push((e.offset, e.offset + e.len));
        m.inflight.push((e.id, e.offset, e.offset + e.len));
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, .. ProptestConfig::default() })]

    #[test]
    fn every_write_completes_once_and_bytes_arrive_once_in_order(steps in prop::collection::vec(step(), 1..120)) {
        let cfg = TailorConfig { superpage: SP, zone_bytes: ZONE, zone_capacity: CAP, hold_ns: 10 };
        let mut t: IoTailor<u32> = IoTailor::new(cfg, ZONES);
        let mut m = Model::default();
        let mut wp = [0u64; ZONES as usize];
        let mut now = 0;
        for s in steps {
            now += 1;
            match s {
                Step::Write { z, pages, gap } => {
                    let zi = z as usize;
                    let start = wp[zi] + if gap { 4096 } else { 0 };
                    let len = (pages * 4096).min(CAP.saturating_sub(start));
                    if len == 0 {
                        continue;
                    }
                    let off = z as u64 * ZONE + start;
                    prop_assert!(t.fits(off, len));
                    let id = m.writes.len() as u32;
                    m.writes.push((off, off + len));
                    m.host_bytes.entry(z).or_default().push((off, off + len));
                    wp[zi] = start + len;
                    if let Some(h) = t.write(now, off, len, id) {
                        prop_assert_eq!(h.zone, z);
                        m.timers.insert(z, h.gen);
                    }
                }
                Step::Complete(k) => {
                    if m.inflight.is_empty() {
                        continue;
                    }
                    let (id, a, b) = m.inflight.remove(k % m.inflight.len());
                    m.completed.push((a, b));
                    let z = t.completed(id);
                    prop_assert_eq!(z as u64, a / ZONE);
                    m.done.append(&mut t.done);
                    t.settle(now, z);
                }
                Step::Expire(z) => {
                    if let Some(&g) = m.timers.get(&z) {
                        t.expire(now, z, g);
                    }
                }
                Step::SyncAll => t.sync_all(now),
                Step::SyncZone(z) => t.sync_zone(now, z),
            }
            drain(&mut t, &mut m);
        }
        // End: release everything, complete everything.
        t.sync_all(now + 1);
        drain(&mut t, &mut m);
        prop_assert_eq!(t.held_bytes(), 0);
        while let Some((id, a, b)) = m.inflight.pop() {
            m.completed.push((a, b));
            t.completed(id);
            m.done.append(&mut t.done);
        }
        // Every host write completed exactly once.
        let mut done = m.done.clone();
        done.sort_unstable();
        let all: Vec<u32> = (0..m.writes.len() as u32).collect();
        prop_assert_eq!(done, all);
        // Every byte reached the device once, in the order written, per zone.
        for (z, host) in &m.host_bytes {
            let dev = m.dev_bytes.get(z).cloned().unwrap_or_default();
            prop_assert_eq!(coalesce(host), coalesce(&dev), "zone {}", z);
        }
        let c = t.counters();
        prop_assert_eq!(c.requests_in, m.writes.len() as u64);
        prop_assert_eq!(
            c.requests_out,
            c.released_aligned + c.released_timeout + c.released_sync + c.released_gap
        );
    }

    #[test]
    fn no_write_completes_before_its_bytes_did(pages in prop::collection::vec(1u64..100, 1..30), order in prop::collection::vec(0usize..64, 0..200)) {
        let cfg = TailorConfig { superpage: SP, zone_bytes: ZONE, zone_capacity: CAP, hold_ns: 10 };
        let mut t: IoTailor<u32> = IoTailor::new(cfg, 1);
        let mut m = Model::default();
        let mut off = 0;
        for (i, p) in pages.iter().enumerate() {
            let len = (p * 4096).min(CAP - off);
            if len == 0 {
                break;
            }
            m.writes.push((off, off + len));
            t.write(i as u64, off, len, i as u32);
            off += len;
            drain(&mut t, &mut m);
        }
        t.sync_all(1000);
        drain(&mut t, &mut m);
        for k in order.into_iter().chain(std::iter::repeat_n(0, m.inflight.len())) {
            if m.inflight.is_empty() {
                break;
            }
            let (id, a, b) = m.inflight.remove(k % m.inflight.len());
            m.completed.push((a, b));
            t.completed(id);
            for w in t.done.drain(..) {
                let (wa, wb) = m.writes[w as usize];
                // Every byte of the write is in a completed device request.
                let covered: u64 = m.completed.iter().map(|&(a, b)| b.min(wb).saturating_sub(a.max(wa))).sum();
                prop_assert_eq!(covered, wb - wa, "write {} completed early", w);
                m.done.push(w);
            }
        }
        prop_assert_eq!(m.done.len(), m.writes.len());
    }
}

/// End to end on the small zoned device: three writers at random sizes and depths, with the
/// zone write lock and requeueing or without both; every request completes once, the device
/// sees exactly the bytes written, no zone rule breaks.
#[test]
fn runs_with_iotailor_complete_every_request_and_keep_zone_order() {
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig {
        cases: 12,
        ..ProptestConfig::default()
    });
    let strat = (1u64..200, 1u32..9, prop::bool::ANY);
    runner
        .run(&strat, |(kib4, qd, lock)| {
            let bs = kib4 * 4;
            // With the zone write lock, requeued tailored requests cannot overtake (no
            // unaligned writes); without it, nothing is requeued, so nothing overtakes either.
            let requeue = format!("host.requeue_probability={}", if lock { 0.05 } else { 0.0 });
            let lock = format!("host.zone_write_lock={lock}");
            let cfg = common::small_zoned(&["host.iotailor=true", &lock, &requeue]);
            let text = format!(
                "[global]\nzonemode=zbd\nrw=write\nbs={bs}k\niodepth={qd}\nsize=1z\nio_size=2m\n[a]\noffset=0z\n[b]\noffset=1z\n[c]\noffset=2z\n"
            );
            let opts = RunOptions {
                seed: 5,
                precondition: Precondition::None,
                namespace: 1,
                check_invariants: true,
                power_off: None,
            };
            let r = zonesim::RunSpec::new(cfg.clone(), common::jobs(&text)).options(opts.clone()).run().unwrap();
            let t = r.sim.iotailor.clone().expect("sim.iotailor");
            prop_assert_eq!(r.sim.requests_issued, r.sim.requests_completed);
            prop_assert_eq!(t.requests_in, r.host.write.ios);
            prop_assert_eq!(r.device.zones.errors.total(), 0);
            prop_assert_eq!(r.device.host_pages_written * 4096, r.host.write.bytes);
            prop_assert!(r.host.write.bytes >= 3 * (2 << 20));
            Ok(())
        })
        .unwrap();
}

/// `host.iotailor` needs the run's namespace to be zoned.
#[test]
fn iotailor_on_a_conventional_namespace_is_an_error_naming_the_key() {
    let cfg = common::small_zoned(&["host.iotailor=true"]);
    let opts = RunOptions {
        namespace: 0,
        check_invariants: false,
        ..RunOptions::default()
    };
    let e = zonesim::RunSpec::new(cfg.clone(), common::jobs("[w]\nrw=write\nbs=4k\nsize=1m\n"))
        .options(opts.clone())
        .run()
        .expect_err("rejected")
        .to_string();
    assert!(e.starts_with("config: host.iotailor:"), "{e}");
}
