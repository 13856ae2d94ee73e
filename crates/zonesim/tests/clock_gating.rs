//! Clock gating on the dispatch path (`power.clock_gating`, sim/clock_gating.rs; Zoned UFS
//! §3.3/§4.3) end to end: the clocks are gated only after the idle timer, a request that finds
//! them gated pays the ungate once, requeues follow the gating events, and requeued zoned
//! writes are overtaken without the zone write lock, never with it or with synchronous
//! ungating.

use crate::common;

use zonesim::config::DeviceConfig;
use zonesim::interface::zone::ZoneErrorKind;
use zonesim::sim::Precondition;
use zonesim::stats::power::PowerStates;
use zonesim::stats::Report;

/// Clocks gated after 1 ms of idle, hibern8 out of reach, `ungate_us` to ungate.
fn gated(mode: &str, ungate_us: f64, more: &[&str]) -> Vec<String> {
    let mut sets = vec![
        format!("power.clock_gating={mode}"),
        "power.clock_gate_after_us=1000".into(),
        "power.hibern8_after_us=1000000000".into(),
        format!("power.ungate_us={ungate_us}"),
    ];
    sets.extend(more.iter().map(|s| s.to_string()));
    sets
}

fn conventional(sets: &[String]) -> DeviceConfig {
    let sets: Vec<&str> = sets.iter().map(String::as_str).collect();
    common::device("ufs-conventional", &sets)
}

fn zoned(sets: &[String]) -> DeviceConfig {
    let sets: Vec<&str> = sets.iter().map(String::as_str).collect();
    common::small_zoned(&sets)
}

fn run_ns(cfg: &DeviceConfig, text: &str, ns: usize) -> Report {
    common::run_ns(cfg, &common::jobs(text), Precondition::None, 5, ns)
}

fn states(r: &Report) -> PowerStates {
    r.power.as_ref().expect("power section").states.clone()
}

/// Requests requeued or held for the clocks.
fn held(s: &PowerStates) -> Option<u64> {
    Some(s.requeues? + s.ungate_waits?)
}

/// 20 writes of 4 KiB at QD 1, `think_us` apart (from a completion to the next issue).
fn spaced(think_us: u32) -> String {
    format!("[w]\nrw=randwrite\nbs=4k\niodepth=1\nnumber_ios=20\nthinktime={think_us}\n")
}

#[test]
fn the_clocks_are_gated_only_after_the_idle_timer() {
    for mode in ["requeue", "wait"] {
        let cfg = conventional(&gated(mode, 20.0, &[]));
        let s = states(&run_ns(&cfg, &spaced(999), 0));
        assert_eq!((s.gatings, s.ungates), (Some(0), 0), "{mode}: 999 µs gaps");
        assert_eq!(held(&s), Some(0));
        assert_eq!(s.clock_gated_us, 0.0);
        let s = states(&run_ns(&cfg, &spaced(1000), 0));
        // 19 gaps between the 20 requests, and the run ends after the last think time.
        assert_eq!((s.gatings, s.ungates), (Some(20), 19), "{mode}: 1 ms gaps");
        assert_eq!(held(&s), Some(19), "{mode}");
        assert_eq!(s.hibern8_exits, 0);
    }
}

#[test]
fn a_request_on_gated_clocks_pays_the_ungate_once() {
    let mean = |mode: &str, ungate: f64| {
        let cfg = conventional(&gated(mode, ungate, &["host.requeue_delay_us=50"]));
        let r = run_ns(&cfg, &spaced(2000), 0);
        let s = states(&r);
        // Each of the 19 requests after a gap is held (or requeued) once, not again when it
        // is dispatched the second time; an ungate of no time holds nothing.
        let want = if ungate > 0.0 { 19 } else { 0 };
        assert_eq!(held(&s), Some(want), "{mode}, ungate {ungate} µs");
        assert_eq!(s.ungates, 19);
        r.host.write.latency_us.mean
    };
    let base = mean("wait", 0.0);
    for (mode, extra) in [("wait", 100.0), ("requeue", 150.0)] {
        let got = mean(mode, 100.0) - base;
        let want = extra * 19.0 / 20.0;
        assert!(
            (got - want).abs() < 1.0,
            "{mode}: {got} µs more, not {want}"
        );
    }
}

/// Bursts of QD 4 sequential 16 KiB writes to the zoned namespace, 2 ms apart per slot.
const BURSTS: &str =
    "[w]\nzonemode=zbd\nrw=write\nbs=16k\niodepth=4\nsize=1z\nthinktime=2000\ncontinue_on_error=write\n";

fn unaligned(r: &Report) -> u64 {
    r.device.zones.errors.count(ZoneErrorKind::UnalignedWrite)
}

#[test]
fn requeues_after_idle_gaps_reorder_unlocked_zoned_writes() {
    let lock = |on: bool| format!("host.zone_write_lock={on}");
    let requeued = run_ns(&zoned(&gated("requeue", 10.0, &[&lock(false)])), BURSTS, 1);
    let s = states(&requeued);
    assert!(s.ungates > 0, "{s:?}");
    assert!(s.requeues.unwrap() >= s.ungates, "{s:?}");
    assert!(unaligned(&requeued) > 0, "requeued writes are overtaken");
    // Synchronous ungating keeps the dispatch order; so does the zone write lock.
    let waited = run_ns(&zoned(&gated("wait", 10.0, &[&lock(false)])), BURSTS, 1);
    assert!(states(&waited).ungate_waits.unwrap() > 0);
    assert_eq!(unaligned(&waited), 0);
    let locked = run_ns(&zoned(&gated("requeue", 10.0, &[&lock(true)])), BURSTS, 1);
    assert!(states(&locked).requeues.unwrap() > 0);
    assert_eq!(unaligned(&locked), 0);
    assert_eq!(locked.device.zones.errors.total(), 0);
}

#[test]
fn clock_gating_runs_are_deterministic() {
    let cfg = zoned(&gated("requeue", 10.0, &["host.zone_write_lock=false"]));
    let a = run_ns(&cfg, BURSTS, 1).deterministic_json();
    let b = run_ns(&cfg, BURSTS, 1).deterministic_json();
    assert_eq!(a, b);
}

#[test]
fn the_abstract_and_the_modelled_requeue_are_not_combined() {
    let sets = ["power.clock_gating=requeue", "host.requeue_probability=0.1"].map(String::from);
    let e = zonesim::load_device("ufs-conventional", &sets).unwrap_err();
    assert_eq!(e.exit_code(), 2, "{e}");
    let msg = e.to_string();
    assert!(
        msg.contains("host.requeue_probability") && msg.contains("clock_gating"),
        "{msg}"
    );
}

#[test]
fn off_reports_no_gating_fields() {
    let cfg = conventional(&["power.idle_w=0.1".into()]);
    let r = run_ns(&cfg, &spaced(2000), 0);
    let json = serde_json::to_value(&r).unwrap();
    let states = &json["power"]["states"];
    for k in ["gatings", "requeues", "ungate_waits"] {
        assert!(states.get(k).is_none(), "{k} without the mechanism");
    }
    let cfg = serde_json::to_string(&cfg).unwrap();
    assert!(
        !cfg.contains("clock_gating"),
        "the key stays out of the config while off"
    );
}
