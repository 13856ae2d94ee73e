//! Host write ordering of zoned writes at QD > 1 (host/order.rs, ZUFS §3.3/§4.3) end to end
//! through a run: requeueing without the zone write lock breaks sequential writes, the lock
//! keeps them, and zone appends (fio `zone_append=1`) need no lock.

use crate::common;

use zonesim::config::DeviceConfig;
use zonesim::interface::zone::ZoneErrorKind;
use zonesim::sim::{Precondition, RunOptions};
use zonesim::stats::Report;

const NS: usize = 1;

fn device(lock: bool, requeue: f64) -> DeviceConfig {
    let l = format!("host.zone_write_lock={lock}");
    let p = format!("host.requeue_probability={requeue}");
    common::small_zoned(&[&l, &p])
}

fn run_ns(cfg: &DeviceConfig, text: &str) -> Report {
    let opts = RunOptions {
        seed: 3,
        precondition: Precondition::None,
        namespace: NS,
        check_invariants: true,
        power_off: None,
    };
    let r = zonesim::RunSpec::new(cfg.clone(), common::jobs(text))
        .options(opts.clone())
        .run()
        .expect("run succeeds");
    assert_eq!(r.sim.requests_issued, r.sim.requests_completed);
    r
}

fn unaligned(r: &Report) -> u64 {
    r.device.zones.errors.count(ZoneErrorKind::UnalignedWrite)
}

fn zone_pages(cfg: &DeviceConfig) -> u64 {
    let dev = zonesim::device::Device::new(cfg, 1).unwrap();
    let z = dev.zones(NS).unwrap().zone_config();
    z.zone_capacity
}

const WRITE: &str = "[w]\nzonemode=zbd\nrw=write\nbs=16k\niodepth=16\nsize=2z\n";

#[test]
fn zone_appends_need_no_lock_and_fill_the_zones() {
    let cfg = device(false, 0.2);
    // Appends at QD 16 with a fifth of them requeued, then every page read back.
    let text =
        format!("{WRITE}zone_append=1\n[r]\nstonewall\nzonemode=zbd\nrw=read\nbs=16k\nsize=2z\n");
    let r = run_ns(&cfg, &text);
    let ord = r
        .sim
        .ordering
        .clone()
        .expect("requeued appends are counted");
    assert!(ord.requeued > 0, "{ord:?}");
    assert_eq!(ord.lock_waits, 0, "appends take no lock");
    assert_eq!(r.device.zones.errors.total(), 0, "no append is refused");
    let pages = zone_pages(&cfg);
    assert_eq!(
        r.device.host_pages_written,
        2 * pages,
        "both zones written once"
    );
    assert_eq!(full_zones(&r), 2, "the appends filled both zones");
    assert_eq!(
        r.device.unwritten_reads, 0,
        "every page read back was written"
    );
    assert_eq!(
        r.jobs[1].host.read.ios * 4,
        2 * pages,
        "16 KiB reads over both zones"
    );
}

fn full_zones(r: &Report) -> u64 {
    r.device
        .namespaces
        .iter()
        .find_map(|n| n.zoned()?.zone_conditions.get("FULL").copied())
        .unwrap_or(0)
}

#[test]
fn requeued_writes_without_the_lock_are_unaligned_with_it_none() {
    // The unaligned writes are counted (continue_on_error), not the end of the run.
    let free = run_ns(
        &device(false, 0.05),
        &format!("{WRITE}continue_on_error=write\n"),
    );
    assert!(unaligned(&free) > 0, "requeued writes are overtaken");
    // Without continue_on_error the first one ends the run, naming the job and the rule.
    let e = zonesim::RunSpec::new(device(false, 0.05), common::jobs(WRITE))
        .namespace(NS)
        .run()
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("job 'w'") && e.contains("unaligned_write") && e.contains("continue_on_error"),
        "{e}"
    );
    let locked = run_ns(&device(true, 0.05), WRITE);
    assert_eq!(unaligned(&locked), 0);
    let ord = locked.sim.ordering.clone().unwrap();
    assert!(ord.lock_waits > 0 && ord.requeued > 0, "{ord:?}");
    assert_eq!(full_zones(&locked), 2);
}

#[test]
fn without_requeueing_qd_writes_stay_in_order_even_unlocked() {
    let r = run_ns(&device(false, 0.0), WRITE);
    assert_eq!(unaligned(&r), 0);
    assert_eq!(full_zones(&r), 2);
}

/// Two readers, realtime and idle, on a conventional device.
const PRIO_READS: &str = "[hi]\nrw=randread\nbs=4k\niodepth=16\nsize=64m\nnumber_ios=3000\nprioclass=1\nprio=0\n[lo]\nrw=randread\nbs=4k\niodepth=16\nsize=64m\nnumber_ios=3000\nprioclass=3\n";

fn prio_run(depth: u32) -> Report {
    let d = format!("host.device_tags={depth}");
    let cfg = common::device("ufs-conventional", &[&d]);
    common::run(&cfg, &common::jobs(PRIO_READS), Precondition::Seq, 4)
}

#[test]
fn priorities_order_the_host_queue_when_tags_run_out() {
    let r = prio_run(4);
    let (hi, lo) = (&r.jobs[0], &r.jobs[1]);
    let p = hi.priority.as_ref().expect("priority reported");
    assert_eq!((p.class, p.prio, p.rank), ("realtime", 0, 0));
    assert_eq!(lo.priority.as_ref().unwrap().class, "idle");
    assert!(
        hi.host.read.latency_us.mean * 1.5 < lo.host.read.latency_us.mean,
        "realtime {} us vs idle {} us",
        hi.host.read.latency_us.mean,
        lo.host.read.latency_us.mean
    );
    let d = r.sim.dispatch.clone().expect("scheduler counters");
    assert_eq!(d.device_tags, 4);
    assert!(
        d.queued > 0 && d.overtakes > 0 && d.max_waiting <= 28,
        "{d:?}"
    );
    // Without a tag limit nothing waits and the classes are served alike.
    let free = prio_run(0);
    assert!(free.sim.dispatch.is_none());
    let (a, b) = (&free.jobs[0].host.read, &free.jobs[1].host.read);
    assert!((a.latency_us.mean / b.latency_us.mean - 1.0).abs() < 0.1);
}

#[test]
fn with_the_zone_lock_priorities_cannot_reorder_zoned_writes() {
    // Writers of different priority to their own zones, two device tags, requeueing: the
    // scheduler reorders across zones, never within one.
    let cfg = common::small_zoned(&[
        "host.zone_write_lock=true",
        "host.device_tags=2",
        "host.requeue_probability=0.05",
    ]);
    let text = "[a]\nzonemode=zbd\nrw=write\nbs=16k\niodepth=8\noffset=0z\nsize=2z\nprioclass=1\n\
                [b]\nzonemode=zbd\nrw=write\nbs=16k\niodepth=8\noffset=2z\nsize=2z\nprioclass=3\n";
    let r = run_ns(&cfg, text);
    assert_eq!(unaligned(&r), 0);
    assert_eq!(full_zones(&r), 4);
    let d = r.sim.dispatch.clone().unwrap();
    assert!(d.queued > 0, "{d:?}");
}
