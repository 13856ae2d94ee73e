//! Power cuts (docs/power.md): what a cut loses is exactly what the model reports, a write
//! acknowledged before a completed flush survives, power-loss protection loses nothing,
//! recovery takes time and leaves the invariants holding; the report's `power` section.

use crate::common::{device, jobs};
use proptest::prelude::*;
use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap};
use zonesim::config::DeviceConfig;
use zonesim::device::{Device, PowerCycle};
use zonesim::engine::SimTime;
use zonesim::interface::{Command, Op};
use zonesim::sim::{PowerOff, Precondition, RunOptions};

/// A small conventional TLC device whose GC runs within a few thousand writes.
fn small(sets: &[&str]) -> DeviceConfig {
    let mut all = vec![
        "nand.blocks_per_plane=24",
        "nand.pages_per_block=48",
        "ftl.overprovisioning=0.25",
        "buffer.bytes=262144",
    ];
    all.extend_from_slice(sets);
    device("ufs-conventional", &all)
}

/// What the host saw of a closed-loop run at queue depth 32 driven straight on the device.
struct Driven {
    dev: Device,
    /// Per logical page: acknowledgement of its latest write issued before the cut
    /// (`SimTime::MAX`: in flight at the cut).
    last: Vec<Option<SimTime>>,
    /// Host flushes issued before the cut: (issued, done).
    flushes: Vec<(SimTime, SimTime)>,
}

/// Writes of 4-16 KiB at random pages of the first `span` pages, a flush every `flush_every`
/// commands, 32 in flight, until a command would arrive after `cut`.
fn drive(cfg: &DeviceConfig, seed: u64, span: u32, flush_every: u32, cut: SimTime) -> Driven {
    let mut dev = Device::new(cfg, seed).unwrap();
    assert!(dev.track_power().is_ok());
    let mut rng = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut next = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    let mut slots: BinaryHeap<Reverse<SimTime>> = (0..32).map(|_| Reverse(SimTime::ZERO)).collect();
    let mut last = vec![None; span as usize + 4];
    let mut flushes = Vec::new();
    for i in 1.. {
        let Reverse(at) = slots.pop().unwrap();
        if at > cut {
            break;
        }
        let c = if i % flush_every == 0 {
            let c = dev.submit(at, 0, Command::widen(Op::Flush, 0, 0));
            flushes.push((at, c.done));
            c
        } else {
            let pages = 1 + next() % 4;
            let lpa = next() % (span as u64);
            let cmd = Command::widen(Op::Write { hint: 0 }, lpa * 4096, pages * 4096);
            let c = dev.submit(at, 0, cmd);
            if !c.rejected {
                for l in lpa..lpa + pages {
                    last[l as usize] = Some(c.done);
                }
            }
            c
        };
        slots.push(Reverse(c.done));
    }
    Driven { dev, last, flushes }
}

fn mapped(dev: &Device) -> BTreeSet<u32> {
    dev.namespaces[0]
        .as_conventional()
        .unwrap()
        .mapped_pages()
        .into_iter()
        .collect()
}

/// Cut at `cut`: the lost set is what the model reports, acknowledged data a completed flush
/// covered survives, invariants hold after recovery.
fn check_cut(d: &mut Driven, cut: SimTime, plp: bool) -> PowerCycle {
    let before = mapped(&d.dev);
    let cy = d.dev.power_cycle(cut, plp);
    let after = mapped(&d.dev);
    d.dev.check_invariants().unwrap();
    let loss = &cy.losses[0];
    assert!(after.is_subset(&before));
    let gone: Vec<u32> = before.difference(&after).copied().collect();
    assert_eq!(gone, loss.lost_lpas, "the pages lost are the ones reported");
    // Writes acknowledged before the issue of a flush that completed by the cut.
    let covered = d.flushes.iter().filter(|f| f.1 <= cut).map(|f| f.0).max();
    for (l, ack) in d.last.iter().enumerate() {
        if let (Some(a), Some(c)) = (ack, covered) {
            if *a <= c {
                assert!(
                    after.contains(&(l as u32)),
                    "page {l} acknowledged at {a:?} before a flush that completed was lost"
                );
            }
        }
    }
    assert_eq!(loss.lost_after_flush, 0);
    if plp {
        assert!(loss.lost_lpas.is_empty());
    }
    assert!(cy.recovered > cut, "recovery takes simulated time");
    cy
}

#[test]
fn a_cut_mid_write_at_qd32_loses_what_the_model_says_and_nothing_a_flush_covered() {
    let cfg = small(&[]);
    let cut = SimTime::from_us(40_000.0);
    let mut d = drive(&cfg, 3, 20_000, 64, cut);
    let cy = check_cut(&mut d, cut, false);
    let loss = &cy.losses[0];
    assert!(loss.lost_acknowledged_pages > 0, "{loss:?}");
    assert!(loss.lost_acknowledged_writes > 0);
    // With power-loss protection the same history loses nothing.
    let mut d = drive(&cfg, 3, 20_000, 64, cut);
    let cy = check_cut(&mut d, cut, true);
    assert!(cy.losses[0].plp_flushed_pages > 0);
}

#[test]
fn paired_pages_are_lost_on_tlc_not_on_slc() {
    let cut = SimTime::from_us(30_000.0);
    let tlc = check_cut(
        &mut drive(&small(&[]), 5, 30_000, 1_000_000, cut),
        cut,
        false,
    );
    assert!(tlc.losses[0].by_reason[2] > 0, "{:?}", tlc.losses[0]);
    let slc = small(&["nand.cell=slc", "nand.pages_per_block=16"]);
    let cy = check_cut(&mut drive(&slc, 5, 30_000, 1_000_000, cut), cut, false);
    assert_eq!(cy.losses[0].by_reason[2], 0);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]
    /// Any cut point, flush rate and footprint (GC included): the loss is what the model says,
    /// flushed data survives, the device is consistent after recovery.
    #[test]
    fn any_cut_point(cut_us in 1u64..60_000, seed in 1u64..1000, flush_every in 2u32..200, span in 500u32..20_000) {
        let cut = SimTime::from_us(cut_us as f64);
        let mut d = drive(&small(&[]), seed, span, flush_every, cut);
        check_cut(&mut d, cut, false);
    }
}

fn run_cut(sets: &[&str], off: PowerOff) -> zonesim::stats::Report {
    let wl = jobs("[w]\nrw=randwrite\nbs=4k\niodepth=32\nnumber_ios=6000\nfsync=500\n");
    let opts = RunOptions {
        seed: 1,
        precondition: Precondition::None,
        namespace: 0,
        check_invariants: true,
        power_off: Some(off),
    };
    zonesim::RunSpec::new(small(sets), wl)
        .options(opts)
        .run()
        .unwrap()
}

#[test]
fn the_report_says_what_was_lost_the_recovery_and_the_energy() {
    let r = run_cut(&["power.plp=false"], PowerOff::AtRequest(3000));
    let p = r.power.as_ref().expect("power section");
    assert!(p.lost_acknowledged_writes.unwrap() > 0);
    assert!(p.recovery_us.unwrap() > 0.0);
    assert!(p.energy_j > 0.0 && p.average_w > 0.0);
    assert_eq!(r.sim.requests_issued, 3000);
    let cut = r.sim.requests_cut.unwrap();
    assert_eq!(r.sim.requests_issued, r.sim.requests_completed + cut);
    assert!(cut > 0 && cut <= 32);
    let ns = &p.namespaces[0];
    assert_eq!(ns.lost_after_flush, 0);
    let reasons = &ns.lost_by_reason;
    assert_eq!(
        reasons.buffer + reasons.program + reasons.paired_page,
        ns.lost_acknowledged_bytes / 4096
    );
    // The same run again: the same report (deterministic).
    let again = run_cut(&["power.plp=false"], PowerOff::AtRequest(3000));
    assert_eq!(again.power, r.power);
    let plp = run_cut(&["power.plp=true"], PowerOff::AtRequest(3000));
    assert_eq!(plp.power.unwrap().lost_acknowledged_writes, Some(0));
    // A cut at a time.
    let t = run_cut(&[], PowerOff::AtUs(5_000.0));
    assert_eq!(t.power.unwrap().cut_at_us, Some(5_000.0));
}

#[test]
fn no_power_option_no_power_section() {
    let wl = jobs("[w]\nrw=randwrite\nbs=4k\niodepth=4\nnumber_ios=500\n");
    let r = zonesim::RunSpec::new(small(&[]), wl.clone()).run().unwrap();
    assert!(r.power.is_none() && r.sim.requests_cut.is_none());
    let json = serde_json::to_value(&r).unwrap();
    assert!(json.get("power").is_none() && json["sim"].get("requests_cut").is_none());
    // Any power key set adds the section (energy and states, no cut).
    let r = zonesim::RunSpec::new(small(&["power.idle_w=0.1"]), wl)
        .run()
        .unwrap();
    let p = r.power.unwrap();
    assert!(p.lost_acknowledged_writes.is_none() && p.energy_j > 0.0);
}

#[test]
fn idle_gaps_put_the_device_to_sleep_and_cost_a_wake_up() {
    // Requests 200 ms apart: each finds the link in hibern8 and pays its exit.
    let wl = jobs("[r]\nrw=randwrite\nbs=4k\niodepth=1\nnumber_ios=5\nthinktime=200000\n");
    let r = zonesim::RunSpec::new(small(&["power.hibern8_exit_us=500"]), wl)
        .run()
        .unwrap();
    let s = r.power.unwrap().states;
    assert_eq!(s.hibern8_exits, 4);
    assert!(s.hibern8_us > 0.0 && s.clock_gated_us > 0.0 && s.idle_us > 0.0);
    assert!(r.host.write.latency_us.mean > 500.0 * 4.0 / 5.0);
}

#[test]
fn a_cut_is_refused_where_it_is_not_modelled() {
    let wl = jobs("[w]\nrw=randwrite\nbs=4k\niodepth=4\nnumber_ios=100\n");
    let cfg = crate::common::slc_device(&[]);
    let opts = RunOptions {
        power_off: Some(PowerOff::AtRequest(10)),
        ..RunOptions::default()
    };
    let e = zonesim::RunSpec::new(cfg, wl)
        .options(opts)
        .run()
        .unwrap_err();
    assert_eq!(e.exit_code(), 2, "{e}");
    assert!(e.to_string().contains("power"), "{e}");
}

/// Zoned: sequential writes of 16 KiB into `zones_in_turn` zones in turn at queue depth `qd`, a flush every
/// `flush_every` commands, until a command would arrive after `cut`; then the cut.
fn zoned_cut(
    seed: u64,
    zones_in_turn: u64,
    qd: usize,
    flush_every: u32,
    cut: SimTime,
    plp: bool,
) -> PowerCycle {
    let cfg = crate::common::small_zoned(&[]);
    let mut dev = Device::new(&cfg, seed).unwrap();
    dev.track_power().unwrap();
    let (zones, zone_lbas) = {
        let z = *dev.zones(1).unwrap().zone_config();
        (z.zones as u64, z.zone_size)
    };
    let cap = dev.zones(1).unwrap().zone_config().zone_capacity;
    let mut wp = vec![0u64; zones as usize];
    let mut acked: Vec<(u64, SimTime)> = Vec::new();
    let mut flushes = Vec::new();
    let mut slots: BinaryHeap<Reverse<SimTime>> = (0..qd).map(|_| Reverse(SimTime::ZERO)).collect();
    for i in 1u64.. {
        let Reverse(at) = slots.pop().unwrap();
        if at > cut {
            break;
        }
        let z = ((i + seed) % zones_in_turn) as usize;
        let c = if i % flush_every as u64 == 0 {
            let c = dev.submit(at, 1, Command::widen(Op::Flush, 0, 0));
            flushes.push((at, c.done));
            c
        } else if wp[z] + 4 <= cap {
            let lba = z as u64 * zone_lbas + wp[z];
            let c = dev.submit(
                at,
                1,
                Command::widen(Op::Write { hint: 0 }, lba * 4096, 16384),
            );
            wp[z] += 4;
            acked.extend((lba..lba + 4).map(|l| (l, c.done)));
            c
        } else {
            dev.submit(at, 1, Command::widen(Op::Read, 0, 4096))
        };
        slots.push(Reverse(c.done));
    }
    let written = |dev: &Device| -> BTreeSet<u32> {
        let v = dev.zones(1).unwrap();
        let ftl = dev.namespaces[1].as_zoned().unwrap();
        (0..zones)
            .flat_map(|z| {
                let start = z * zone_lbas;
                let w = start + ftl.written_lbas(z as u32);
                assert!(
                    w <= v
                        .zones
                        .write_pointer(zonesim::interface::zone::ZoneId(z as u32))
                        .0
                );
                (start..w).map(|l| l as u32)
            })
            .collect()
    };
    let before = written(&dev);
    let cy = dev.power_cycle(cut, plp);
    let after = written(&dev);
    dev.check_invariants().unwrap();
    let loss = &cy.losses[1];
    let gone: Vec<u32> = before.difference(&after).copied().collect();
    assert_eq!(
        gone, loss.lost_lpas,
        "the zones lost what the model reports"
    );
    let covered = flushes.iter().filter(|f| f.1 <= cut).map(|f| f.0).max();
    for &(l, a) in &acked {
        if covered.is_some_and(|c| a <= c) {
            assert!(
                after.contains(&(l as u32)),
                "LBA {l} acknowledged before a completed flush was lost"
            );
        }
    }
    let v = dev.zones(1).unwrap();
    assert_eq!(
        v.zones.open_count(),
        0,
        "open zones are CLOSED after a power cycle"
    );
    assert!(cy.recovered > cut);
    cy
}

#[test]
fn a_zoned_cut_mid_write_at_qd32_rolls_the_write_pointers_back_to_what_survived() {
    let cut = SimTime::from_us(20_000.0);
    // At queue depth 32 the writes wait for buffer space: what is lost was in flight.
    let cy = zoned_cut(1, 2, 32, 1000, cut, false);
    assert!(!cy.losses[1].lost_lpas.is_empty());
    // At queue depth 2 acknowledged data waits in the two buffers (conzone-paper's) until
    // they fill: a cut at some point loses some.
    let acked: Vec<u64> = (0..20)
        .map(|k| {
            let cut = SimTime::from_us(20_000.0 + 613.0 * k as f64);
            zoned_cut(1, 2, 2, 1000, cut, false).losses[1].lost_acknowledged_pages
        })
        .collect();
    assert!(acked.iter().any(|&n| n > 0), "{acked:?}");
    let cy = zoned_cut(1, 2, 32, 1000, cut, true);
    assert!(cy.losses[1].lost_lpas.is_empty());
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, ..ProptestConfig::default() })]
    #[test]
    fn any_zoned_cut_point(cut_us in 1u64..40_000, seed in 1u64..100, zones in 1u64..7, qd in 1usize..33, flush_every in 2u32..100) {
        zoned_cut(seed, zones, qd, flush_every, SimTime::from_us(cut_us as f64), false);
    }
}

/// Zoned UFS §2.1, Fig. 1: UFS devices have kept a power envelope "close to 1 W, only modestly
/// rising to 1.5 W". The default device saturated with random writes (programs on every die)
/// or reads stays inside it, and an idle-heavy run draws far less.
#[test]
fn a_saturated_ufs_device_stays_in_the_1_w_envelope() {
    let cfg = device("ufs-conventional", &["power.plp=true"]);
    let run = |text: &str| {
        let r = zonesim::RunSpec::new(cfg.clone(), jobs(text))
            .run()
            .unwrap();
        r.power.unwrap().average_w
    };
    let write = run("[w]\nrw=randwrite\nbs=4k\niodepth=32\nnumber_ios=60000\n");
    let read = run("[w]\nrw=write\nbs=128k\niodepth=4\nnumber_ios=400\n[r]\nstonewall\nrw=randread\nbs=4k\niodepth=32\nnumber_ios=60000\nsize=50m\n");
    let idle = run("[w]\nrw=randwrite\nbs=4k\niodepth=1\nnumber_ios=20\nthinktime=300000\n");
    assert!((0.6..=1.5).contains(&write), "random writes: {write} W");
    assert!((0.3..=1.5).contains(&read), "random reads: {read} W");
    assert!(idle < 0.05, "mostly in hibern8: {idle} W");
}

#[test]
fn a_scenario_power_off_step_cuts_recovers_and_goes_on() {
    let sc = |cut: bool| {
        let off = if cut {
            "[[repeat.step]]\nop = \"power_off\"\n"
        } else {
            ""
        };
        zonesim::host::scenario::Scenario::parse(
            &format!(
                "name = \"cut\"\n[repeat]\nmax_iterations = 3\n\
                 [[repeat.step]]\nop = \"create\"\ndir = \"/d\"\nfiles = 16\nsize = \"64k\"\nbs = \"64k\"\n\
                 [[repeat.step]]\nop = \"overwrite\"\ndir = \"/d\"\nbytes = \"2m\"\n{off}"
            ),
            "cut.toml",
        )
        .unwrap()
    };
    let run = |cut: bool| {
        crate::common::run(
            &device("ufs-conventional", &["fs.kind=f2fs"]),
            &zonesim::WorkloadSpec::Scenario(sc(cut)),
            Precondition::None,
            1,
        )
    };
    let r = run(true);
    assert_eq!(
        r.scenario.as_ref().unwrap().iterations.len(),
        3,
        "the run went on"
    );
    let p = r.power.as_ref().expect("a power section");
    assert_eq!(p.cuts, Some(3));
    assert!(p.recovery_us.unwrap() > 0.0);
    assert_eq!(p.namespaces[0].lost_after_flush, 0);
    // Without the step: no power section, nothing tracked.
    assert!(run(false).power.is_none());
}

/// The report's re-programming keys (docs/power.md, "Recovery"): `power.reprogrammed_pages`
/// and `power.reprogram_us`, beside `recovery_us`, count what a cut hit and did not lose,
/// programmed again after the recovery. Sequential 16 KiB writes into one zone of the small
/// zoned device (MLC) with a flush every 8 writes, cut at one request count after another:
/// some cut tears or disturbs a unit holding only flushed data, and its report says how many
/// pages were programmed again and for how long. The conventional namespace programs nothing
/// again: both keys are 0 there.
#[test]
fn the_report_counts_what_is_programmed_again_after_recovery() {
    let run = |cfg: DeviceConfig, text: &str, namespace: usize, cut: u64| {
        let opts = RunOptions {
            seed: 1,
            precondition: Precondition::None,
            namespace,
            check_invariants: true,
            power_off: Some(PowerOff::AtRequest(cut)),
        };
        let r = zonesim::RunSpec::new(cfg, jobs(text))
            .options(opts)
            .run()
            .unwrap();
        r.power.expect("a power section")
    };
    let zoned = "[w]\nzonemode=zbd\nmax_open_zones=1\nrw=write\nbs=16k\niodepth=1\n\
                 number_ios=2000\nfsync=8\n";
    let mlc = crate::common::small_zoned(&["nand.cell=mlc"]);
    let mut again = 0;
    for cut in (50..1500).step_by(37) {
        let p = run(mlc.clone(), zoned, 1, cut);
        let (pages, us) = (p.reprogrammed_pages.unwrap(), p.reprogram_us.unwrap());
        assert_eq!(
            pages == 0,
            us == 0.0,
            "cut at request {cut}: {pages} pages, {us} us"
        );
        again += u64::from(pages > 0);
    }
    assert!(again > 0, "some cut hit a unit whose data survived");
    let p = run_cut(&[], PowerOff::AtRequest(3000)).power.unwrap();
    assert_eq!((p.reprogrammed_pages, p.reprogram_us), (Some(0), Some(0.0)));
}

/// A second flush right after a first one that padded a partial unit (conventional) or moved
/// it to SLC (zoned): it finds the buffer empty, but that unit (data acknowledged before both
/// flushes) may still be on its way to flash. The second flush completes no earlier than the
/// first, so a cut once it has completed loses nothing a completed flush covered. fio with
/// `fsync=1` at queue depth 16 issues syncs back to back like this; before the fix the
/// conventional FTL completed the second flush at once and a cut after it lost the padded
/// unit (`lost_after_flush` > 0).
#[test]
fn a_flush_after_a_flush_waits_for_the_first_ones_programs() {
    let kinds = [
        (small(&["nand.cell=tlc"]), 0),
        (crate::common::small_zoned(&["nand.cell=tlc"]), 1),
    ];
    for (cfg, ns) in kinds {
        let mut dev = Device::new(&cfg, 1).unwrap();
        dev.track_power().unwrap();
        let w = dev.submit(
            SimTime::ZERO,
            ns,
            Command::widen(Op::Write { hint: 0 }, 0, 4096),
        );
        let f1 = dev.submit(w.done, ns, Command::widen(Op::Flush, 0, 0));
        let f2 = dev.submit(
            SimTime(w.done.0 + 1000),
            ns,
            Command::widen(Op::Flush, 0, 0),
        );
        assert!(
            f2.done >= f1.done,
            "ns {ns}: f2 {:?} ends before f1 {:?}",
            f2.done,
            f1.done
        );
        let cy = dev.power_cycle(f2.done, false);
        assert_eq!(
            cy.losses[ns].lost_after_flush, 0,
            "ns {ns}: {:?}",
            cy.losses[ns]
        );
    }
}
