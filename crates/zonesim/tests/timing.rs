//! Core timing correctness (docs/validation.md, "Checks against theory"): each test checks a
//! simulated figure against a bound computed from the geometry and timing of its device, never
//! against wall time.
//!
//! - dies never idle while work for them waits (die utilisation at the die-time bound);
//! - the write buffer admits pages FIFO and frees space when their program completes;
//! - GC copies spread over all dies and host writes wait when GC falls behind;
//! - a map page never written costs no flash read.

use crate::common;
use common::*;
use rand::Rng as _;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use zonesim::config::DeviceConfig;
use zonesim::device::Device;
use zonesim::engine::{rng_for, SimTime};
use zonesim::host::{HostIo, IoKind};
use zonesim::sim::Precondition;
use zonesim::stats::Report;

/// 2 channels x 2 chips x 1 die x 2 planes, MLC (2-page program unit: 4 x 4 KiB slots per
/// die), 64 pages per block, 128 blocks per plane: 4 dies, 128 superblocks of 2 MiB, 256 MiB.
fn small(extra: &[&str]) -> DeviceConfig {
    let mut sets = vec![
        "nand.channels=2",
        "nand.chips_per_channel=2",
        "nand.dies_per_chip=1",
        "nand.planes_per_die=2",
        "nand.blocks_per_plane=128",
        "nand.pages_per_block=64",
        "nand.page_bytes=4096",
        "nand.cell=mlc",
        "nand.channel_mb_s=400",
        "nand.timing.mlc.read_us=50",
        "nand.timing.mlc.program_us=600",
        "nand.timing.mlc.erase_us=3000",
        "host.link_mb_s=4000",
        "ftl.overprovisioning=0.1428571",
        "ftl.l2p_cache_bytes=1048576",
        "ftl.gc.victim=greedy",
        "ftl.gc.threshold_free_superblocks=4",
        "ftl.gc.background=false",
        "buffer.bytes=131072",
    ];
    sets.extend_from_slice(extra);
    device("nvme-ssd", &sets)
}

const DIES: f64 = 4.0;

/// Share of the measured run's die time the dies were busy.
fn die_utilisation(r: &Report) -> f64 {
    r.device.flash.die_busy_ns as f64 / (DIES * r.sim.simulated_ns as f64)
}

/// Channel time of `bytes` at `mib_s`, in seconds.
fn xfer_s(cfg: &DeviceConfig, bytes: f64) -> f64 {
    bytes / (cfg.nand.channel_mb_s * 1048576.0)
}

/// Saturated random reads with the whole map cached: every die senses and transfers back to
/// back, so IOPS reaches the die-time bound dies / (tR + transfer of 4 KiB) and the dies are
/// busy all the time.
#[test]
fn random_reads_reach_the_die_time_bound() {
    let cfg = small(&[]);
    let wl = jobs("[r]\nrw=randread\nbs=4k\niodepth=64\nnumber_ios=200000\nnorandommap=1\n");
    let r = run(&cfg, &wl, Precondition::Seq, 1);
    let per_read = cfg.nand.timing.mlc.read_us * 1e-6 + xfer_s(&cfg, 4096.0);
    let bound = DIES / per_read;
    let iops = r.host.read.iops;
    let util = die_utilisation(&r);
    eprintln!("random read: bound {bound:.0} IOPS, zonesim {iops:.0}, dies {util:.4} busy");
    assert_eq!(r.device.l2p.map_reads, 0);
    assert!((iops / bound - 1.0).abs() < 0.03, "{iops} vs {bound}");
    assert!(util > 0.97, "dies busy {util}");
}

/// Saturated random reads that mostly miss the L2P cache: a miss reads its map page (SLC, a
/// whole flash page) and then the data. The data read waits parked in the FTL until its map
/// page is in SRAM and then queues on its die (one extra event per miss), so the dies stay
/// busy (FIFO busy-until dies: 54-70 % busy, up to 47 % below the bound; data read booked at
/// submission on gap-filling dies: 96 %) and IOPS reaches dies / (die time per request),
/// counted from the run's own map reads.
#[test]
fn random_reads_with_map_misses_reach_the_die_time_bound() {
    // 16 KiB of L2P SRAM: 4 of the 64 map pages, so about 94 % of the reads miss.
    let cfg = small(&["ftl.l2p_cache_bytes=16384"]);
    let wl = jobs("[r]\nrw=randread\nbs=4k\niodepth=128\nnumber_ios=100000\nnorandommap=1\n");
    let r = run(&cfg, &wl, Precondition::Seq, 1);
    let ios = r.host.read.ios as f64;
    let misses = r.device.l2p.map_reads as f64;
    assert!(misses / ios > 0.85, "miss rate {}", misses / ios);
    let t = &cfg.nand.timing;
    let data = t.mlc.read_us * 1e-6 + xfer_s(&cfg, 4096.0);
    let map = t.slc.read_us * 1e-6 + xfer_s(&cfg, 4096.0);
    let bound = DIES / (data + misses / ios * map);
    let iops = r.host.read.iops;
    let util = die_utilisation(&r);
    eprintln!(
        "random read, {:.1} % misses: bound {bound:.0} IOPS, zonesim {iops:.0}, dies {util:.4} busy",
        100.0 * misses / ios
    );
    // A die holds its sensed page while the shared channel is busy (about 1.5 % of IOPS).
    assert!((iops / bound - 1.0).abs() < 0.03, "{iops} vs {bound}");
    assert!(util > 0.97, "dies busy {util}");
}

/// GC phase of random writes (steady state): programs, GC reads and erases keep every die
/// busy; the dies no longer sit in holes booked ahead of GC programs (before the fix: 47 %
/// busy on MQSim's small8g).
#[test]
fn gc_phase_random_writes_keep_the_dies_busy() {
    let cfg = small(&[]);
    let wl = jobs("[w]\nrw=randwrite\nbs=4k\niodepth=32\nio_size=256m\nnorandommap=1\n");
    let r = run(&cfg, &wl, Precondition::Steady, 1);
    assert!(r.device.gc.victims > 50, "GC ran");
    let util = die_utilisation(&r);
    eprintln!(
        "GC-phase random write: {:.0} IOPS, WAF {:.3}, dies {util:.4} busy",
        r.host.write.iops, r.device.waf
    );
    assert!(util > 0.97, "dies busy {util}");
}

/// A buffer of one die program unit (16 KiB): a unit's space is freed only when its program
/// completes and pages are admitted FIFO across requests, so one unit is in flight at a time:
/// 4 pages per (4 link transfers + channel transfer of the unit + tPROG). Before the fix QD 32
/// kept all dies programming, 4x this bound.
#[test]
fn one_unit_buffer_limits_writes_to_the_program_rate() {
    let cfg = small(&["buffer.bytes=16384"]);
    let wl = jobs("[w]\nrw=randwrite\nbs=4k\niodepth=32\nio_size=64m\nnorandommap=1\n");
    let r = run(&cfg, &wl, Precondition::None, 1);
    let unit = 4.0;
    let link = 4096.0 / (cfg.host.link_mb_s * 1048576.0);
    let period = unit * link + xfer_s(&cfg, unit * 4096.0) + cfg.nand.timing.mlc.program_us * 1e-6;
    let bound = unit / period;
    let iops = r.host.write.iops;
    eprintln!("one-unit buffer: bound {bound:.0} IOPS, zonesim {iops:.0}");
    assert_eq!(r.device.gc.victims, 0);
    assert!((iops / bound - 1.0).abs() < 0.05, "{iops} vs {bound}");
}

/// Expected time to collect one victim of `moved` valid slots, spread over the dies: its
/// page reads, its programs (4-slot units) and the erase of its block on every die.
fn victim_copy_s(cfg: &DeviceConfig, moved: f64) -> f64 {
    let t = &cfg.nand.timing.mlc;
    let reads = moved * (t.read_us * 1e-6 + xfer_s(cfg, 4096.0));
    let programs = moved / 4.0 * (xfer_s(cfg, 16384.0) + t.program_us * 1e-6);
    (reads + programs) / DIES + t.erase_us * 1e-6
}

/// GC steady state driven straight at the device in a closed loop (QD 32): the work booked
/// ahead on any die stays within a few victims' copy time (host writes wait when GC falls
/// behind: a host unit is programmed behind the GC work on its die and the buffer frees its
/// space only then), and p99.9 write latency stays within a small multiple of one victim's
/// copy time. Before the fix GC copies and host units alternated dies in one stream: one set
/// of dies built a backlog of seconds while host writes ran on the other.
#[test]
fn gc_backlog_and_write_tail_are_bounded() {
    let cfg = small(&[]);
    // Steady state first: the shared preconditioning.
    let mut dev = Device::new(&cfg, 1).unwrap();
    let pages = dev.capacity_bytes(0) / 4096;
    let mut rng = rng_for(7, 1);
    let qd = 32;
    let mut inflight: BinaryHeap<Reverse<SimTime>> = BinaryHeap::new();
    let mut now = SimTime::ZERO;
    let total = pages * 4;
    let mut max_backlog = 0u64;
    let mut lat = Vec::with_capacity(total as usize);
    for i in 0..total {
        if inflight.len() == qd {
            now = inflight.pop().unwrap().0;
        }
        let lpa = rng.gen_range(0..pages);
        let io = HostIo::new(IoKind::Write, lpa * 4096, 4096);
        let done = dev.submit(now, 0, zonesim::sim::command(&io)).done;
        inflight.push(Reverse(done));
        if i >= pages * 2 {
            lat.push((done - now) as f64 * 1e-9);
            for d in 0..4 {
                max_backlog =
                    max_backlog.max(dev.nand.die_free_at(d).ns().saturating_sub(now.ns()));
            }
        }
    }
    dev.check_invariants().unwrap();
    let ftl = dev.namespaces[0].as_conventional().unwrap();
    let rep = ftl.counters.gc_pages_moved as f64 / ftl.counters.gc_victims as f64;
    let copy = victim_copy_s(&cfg, rep);
    lat.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let p999 = lat[lat.len() * 999 / 1000];
    let backlog = max_backlog as f64 * 1e-9;
    eprintln!(
        "GC steady: victim {rep:.0} slots moved, copy {:.2} ms; max die backlog {:.2} ms; p99.9 write {:.2} ms",
        copy * 1e3,
        backlog * 1e3,
        p999 * 1e3
    );
    assert!(
        backlog < 4.0 * copy,
        "die backlog {backlog} s vs copy {copy} s"
    );
    assert!(p999 < 3.0 * copy, "p99.9 {p999} s vs copy {copy} s");
}

/// Random writes to a fresh device whose L2P SRAM holds the whole map: every map page is built
/// in SRAM (never written: all unmapped), none is read from flash. Before the fix each was
/// read once (64 reads here).
#[test]
fn never_written_map_pages_cost_no_flash_read() {
    let cfg = small(&[]);
    let wl = jobs("[w]\nrw=randwrite\nbs=4k\niodepth=8\nio_size=32m\nnorandommap=1\n");
    let r = run(&cfg, &wl, Precondition::None, 1);
    assert!(r.device.l2p.misses > 0);
    assert_eq!(r.device.l2p.map_reads, 0);
    // With a small cache, only pages written back before can be read back.
    let cfg = small(&["ftl.l2p_cache_bytes=16384"]);
    let r = run(&cfg, &wl, Precondition::None, 1);
    assert!(r.device.l2p.map_reads > 0);
    assert!(r.device.l2p.map_reads <= r.device.l2p.writebacks);
}
