//! Zoned namespace (ConZone device) tests: zone rules on replay, reset, SLC buffering and
//! migration, buffer mapping, invariants under SLC GC, hybrid vs page map misses.

use crate::common;

use zonesim::device::Device;
use zonesim::engine::SimTime;
use zonesim::host::{HostIo, IoKind};
use zonesim::interface::zone::{Lba, ZoneErrorKind, ZoneId};
use zonesim::sim::{self, Precondition, ReplayMode, RunOptions, TraceReplay, WorkloadSpec};

const NS: usize = 1;

use common::{data, jobs, small_zoned as small};

fn opts() -> RunOptions {
    RunOptions {
        seed: 3,
        precondition: Precondition::None,
        namespace: NS,
        check_invariants: true,
        power_off: None,
    }
}

fn w(dev: &mut Device, t: u64, kind: IoKind, off_kib: u64, len_kib: u64) -> SimTime {
    let io = HostIo::new(kind, off_kib * 1024, len_kib * 1024);
    dev.submit(SimTime(t), NS, sim::command(&io)).done
}

#[test]
fn out_of_order_trace_counts_unaligned_writes_only() {
    let cfg = small(&[]);
    let mut t = TraceReplay::new(
        data("zoned-out-of-order.disksim"),
        ReplayMode::AsFastAsPossible { qd: 1 },
    );
    t.fold = false;
    // Without continue_on_error the first rejected write ends the run.
    let e = zonesim::RunSpec::new(cfg.clone(), WorkloadSpec::Trace(t.clone()))
        .options(opts())
        .run()
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("unaligned_write") && e.contains("--continue-on-error"),
        "{e}"
    );
    t.continue_on_error = true;
    let r = zonesim::RunSpec::new(cfg.clone(), WorkloadSpec::Trace(t))
        .options(opts())
        .run()
        .unwrap();
    assert_eq!(r.sim.requests_issued, 10);
    assert_eq!(r.sim.requests_completed, 10);
    let e = &r.device.zones.errors;
    assert_eq!(e.count(ZoneErrorKind::UnalignedWrite), 3, "{e:?}");
    assert_eq!(e.total(), 3, "only unaligned writes: {e:?}");
    let first = &r.device.zones.first_errors;
    assert_eq!(first.len(), 3);
    assert_eq!(first[0].op, "write");
    // 5 accepted writes of 8 KiB = 10 pages; 2 reads served.
    assert_eq!(r.device.host_pages_written, 10);
    assert_eq!(r.host.read.ios, 2);
}

#[test]
fn premature_flush_goes_to_slc_and_is_migrated_with_the_next_unit() {
    // Modulo over two buffers: zones 0 and 2 share buffer 0. Program unit 96 KiB = 24 pages.
    let cfg = small(&["buffer.zone_mapping=modulo"]);
    let mut dev = Device::new(&cfg, 1).unwrap();
    let zone = 8 * 1024; // zone size, KiB
    w(&mut dev, 0, IoKind::Write, 0, 48); // zone 0: 12 pages buffered
    w(&mut dev, 1000, IoKind::Write, 2 * zone, 48); // conflict: zone 0's 12 pages -> SLC
    let z = dev.namespaces[NS].as_zoned().unwrap();
    assert_eq!(z.counters.premature_flushes, 1);
    assert_eq!(z.counters.slc.slc_buffered_pages, 12);
    assert_eq!(z.counters.combined_pages, 0);
    // Zone 0 again: evicts zone 2 (12 more pages to SLC); zone 0's 12 SLC pages + 12 new make a
    // unit: read back, invalidated, programmed to TLC (Fig. 4 ③).
    w(&mut dev, 2000, IoKind::Write, 48, 48);
    let z = dev.namespaces[NS].as_zoned().unwrap();
    assert_eq!(z.counters.premature_flushes, 2);
    assert_eq!(z.counters.slc.slc_buffered_pages, 24);
    assert_eq!(z.counters.combined_pages, 12);
    assert_eq!(z.counters.full_flushes, 1);
    dev.check_invariants().unwrap();
    // SLC programs: 24 slots; TLC: one 24-slot unit. Reads: the 12 SLC slots read back.
    assert_eq!(dev.nand.counters.programmed_slots, 24 + 24);
    // A host flush drains zone 2's... nothing buffered; zone 0 holds nothing either.
    let done = w(&mut dev, 3000, IoKind::Flush, 0, 0);
    assert!(done >= SimTime(3000));
    dev.check_invariants().unwrap();
    let r = dev.report();
    assert_eq!(r.slc.pages_written, 24);
    assert_eq!(r.slc.pages_migrated, 12);
}

#[test]
fn assoc_mapping_avoids_the_conflict_modulo_has() {
    let run = |mapping: &str, zones: &[u64]| {
        let cfg = small(&[&format!("buffer.zone_mapping={mapping}")]);
        let mut dev = Device::new(&cfg, 1).unwrap();
        let mut off = [0u64; 16];
        let mut t = 0;
        for _round in 0..8 {
            for &z in zones {
                w(&mut dev, t, IoKind::Write, z * 8192 + off[z as usize], 48);
                off[z as usize] += 48;
                t += 10_000;
            }
        }
        dev.check_invariants().unwrap();
        dev.namespaces[NS].as_zoned().unwrap().counters.clone()
    };
    let m = run("modulo", &[0, 2]);
    let a = run("assoc", &[0, 2]);
    // Every other write evicts the other zone (after a unit completes the buffer is empty).
    assert!(
        m.premature_flushes >= 7 && m.slc.slc_buffered_pages > 0,
        "modulo conflicts: {m:?}"
    );
    assert_eq!(a.premature_flushes, 0, "assoc: one buffer each: {a:?}");
    assert_eq!(a.slc.slc_buffered_pages, 0);
    // Three zones, two buffers, assoc: every switch must evict the fullest buffer.
    let a3 = run("assoc", &[0, 1, 2]);
    assert!(
        a3.premature_flushes > 0 && a3.slc.slc_buffered_pages > 0,
        "{a3:?}"
    );
}

#[test]
fn zone_reset_erases_and_returns_blocks() {
    let cfg = small(&[]);
    let mut dev = Device::new(&cfg, 1).unwrap();
    let (free0, total) = {
        let z = dev.namespaces[NS].as_zoned().unwrap();
        (z.regular_free_units(), z.regular_total_units())
    };
    assert_eq!(free0, total);
    // Write zone 3 fully (6 MiB capacity) plus a premature 16 KiB into zone 4, then flush.
    let mut t = 0;
    for k in 0..48 {
        t = w(&mut dev, t, IoKind::Write, 3 * 8192 + k * 128, 128).ns();
    }
    w(&mut dev, t, IoKind::Write, 4 * 8192, 16);
    w(&mut dev, t + 10, IoKind::Flush, 0, 0);
    let z = dev.namespaces[NS].as_zoned().unwrap();
    assert_eq!(z.regular_free_units(), total - 2);
    assert_eq!(z.zones.condition(ZoneId(3)).as_str(), "FULL");
    let erases0 = dev.nand.counters.block_erases;
    let slc_valid_before = dev.report().slc.pages_written;
    assert_eq!(slc_valid_before, 4);
    w(&mut dev, t + 20, IoKind::ZoneReset, 3 * 8192, 0);
    w(&mut dev, t + 30, IoKind::ZoneReset, 4 * 8192, 0);
    let z = dev.namespaces[NS].as_zoned().unwrap();
    assert_eq!(z.regular_free_units(), total);
    assert_eq!(z.zones.condition(ZoneId(3)).as_str(), "EMPTY");
    // One superblock per zone: every plane of every die (4 dies x 2 planes) erased, twice.
    assert_eq!(dev.nand.counters.block_erases - erases0, 16);
    dev.check_invariants().unwrap();
    // Reads of a reset zone are beyond its write pointer.
    w(&mut dev, t + 40, IoKind::Read, 3 * 8192, 4);
    assert_eq!(
        dev.zone_errors()
            .count(zonesim::interface::zone::ZoneErrorKind::ReadBeyondWp),
        1
    );
    // Sub-block mode: a zone is one block of one plane; reset erases exactly one block.
    let cfg = small(&[
        "zone.sub_block=true",
        "zone.capacity_bytes=786432",
        "zone.size_bytes=1048576",
    ]);
    let mut dev = Device::new(&cfg, 1).unwrap();
    w(&mut dev, 0, IoKind::Write, 0, 768);
    let e0 = dev.nand.counters.block_erases;
    w(&mut dev, 1_000_000, IoKind::ZoneReset, 0, 0);
    assert_eq!(dev.nand.counters.block_erases - e0, 1);
    dev.check_invariants().unwrap();
}

#[test]
fn zone_append_returns_the_write_pointer() {
    let cfg = small(&[]);
    let mut dev = Device::new(&cfg, 1).unwrap();
    let a = dev.zone_append(SimTime(0), NS, ZoneId(5), 8192).appended;
    let b = dev.zone_append(SimTime(10), NS, ZoneId(5), 4096).appended;
    let zs = 8 * 1024 * 1024 / 4096;
    assert_eq!(a, Some(Lba(5 * zs)));
    assert_eq!(b, Some(Lba(5 * zs + 2)));
    dev.check_invariants().unwrap();
}

/// fsync-heavy zoned writes over many zones with resets: premature flushes fill the SLC
/// buffer so SLC GC must run; invariants (map/reverse map, valid counts, SLC accounting,
/// buffers, every request completing once) are checked after the run.
fn churn(sets: &[&str]) -> zonesim::stats::Report {
    let cfg = small(sets);
    let text = "[w]\nrw=randwrite\nbs=12k\nzonemode=zbd\nmax_open_zones=4\nfsync=1\niodepth=4\nio_size=120m\n\
                [r]\nrw=randread\nbs=4k\nzonemode=zbd\niodepth=4\nnumber_ios=2000\nio_size=8m\n";
    let r = zonesim::RunSpec::new(cfg.clone(), jobs(text))
        .options(opts())
        .run()
        .unwrap();
    assert_eq!(r.sim.requests_issued, r.sim.requests_completed);
    assert_eq!(
        r.device.zones.errors.total(),
        0,
        "{:?}",
        r.device.zones.errors
    );
    r
}

#[test]
fn invariants_hold_with_slc_gc_in_place() {
    let r = churn(&[]);
    assert!(
        r.device.slc.gc_victims > 0,
        "SLC GC ran: {:?}",
        r.device.slc
    );
    assert!(r.device.slc.pages_migrated > 0);
    assert!(r.device.zones.resets > 0);
}

#[test]
fn invariants_hold_with_slc_all_and_migrating_gc() {
    let r = churn(&[
        "slc.policy=all",
        "slc.gc=migrate",
        "sched.preempt_migration=true",
    ]);
    assert!(r.device.slc.gc_victims > 0, "{:?}", r.device.slc);
    assert!(r.device.slc.pages_migrated > 0, "{:?}", r.device.slc);
    // Everything the host wrote went through SLC first.
    assert!(r.device.slc.pages_written >= r.device.host_pages_written);
}

#[test]
fn hybrid_mapping_misses_less_than_page_mapping() {
    let run = |mapping: &str| {
        let cfg = small(&[&format!("ftl.mapping={mapping}")]);
        let text = "[fill]\nrw=write\nbs=128k\nzonemode=zbd\niodepth=8\n\
                    [r]\nstonewall\nrw=randread\nbs=4k\nzonemode=zbd\niodepth=1\nnumber_ios=3000\nio_size=12m\nnorandommap=1\n";
        let r = zonesim::RunSpec::new(cfg.clone(), jobs(text))
            .options(opts())
            .run()
            .unwrap();
        (r.device.l2p.zoned.miss_rate, r.jobs[1].host.read.iops)
    };
    let (pm, pi) = run("page");
    let (hm, hi) = run("hybrid");
    assert!(pm > 0.8, "page mapping: cold page entries miss ({pm})");
    assert!(
        hm < 0.01,
        "hybrid: zone entries cached when zones filled ({hm})"
    );
    assert!(hi > pi * 1.2, "hybrid faster: {hi} vs {pi}");
}

/// A FULL zone is one zone entry, also when its last unit left the buffer before the write
/// that filled it (ConZone §3.3): with `ftl.l2p_pin_aggregated` one pinned entry per zone.
#[test]
fn a_full_zone_becomes_one_pinned_zone_entry() {
    let cfg = small(&["ftl.mapping=hybrid", "ftl.l2p_pin_aggregated=true"]);
    let text = "[fill]\nrw=write\nbs=128k\nzonemode=zbd\nsize=2z\niodepth=8\n";
    let r = zonesim::RunSpec::new(cfg.clone(), jobs(text))
        .options(opts())
        .run()
        .unwrap();
    let zoned = r.device.namespaces[1].zoned().unwrap();
    assert_eq!(zoned.zone_conditions["FULL"], 2);
    assert_eq!(r.device.l2p.zoned.pinned, 2, "{:?}", r.device.l2p.zoned);
    assert_eq!(r.device.l2p.zoned.entries, 2, "{:?}", r.device.l2p.zoned);
}

#[test]
fn seq_precondition_fills_every_zone_in_order() {
    let cfg = small(&[]);
    let mut o = opts();
    o.precondition = Precondition::Seq;
    let r = zonesim::RunSpec::new(
        cfg.clone(),
        jobs("[r]\nrw=read\nbs=128k\nzonemode=zbd\nsize=2z\n"),
    )
    .options(o.clone())
    .run()
    .unwrap();
    assert_eq!(
        r.device.namespaces[1].zoned().unwrap().zone_conditions["FULL"],
        16
    );
    assert_eq!(r.precondition.host_pages_written, 16 * 6 * 256);
    assert_eq!(r.host.read.bytes, 2 * 6 * 1024 * 1024);
}

#[test]
fn bad_zoned_configs_name_the_key() {
    let err = |sets: &[&str]| {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        zonesim::load_device(data("small-zoned.toml").to_str().unwrap(), &sets)
            .unwrap_err()
            .to_string()
    };
    assert!(err(&["zone.capacity_bytes=1000"]).contains("zone.capacity_bytes"));
    assert!(
        err(&["zone.capacity_bytes=16777216", "zone.size_bytes=8388608"])
            .contains("zone.capacity_bytes")
    );
    assert!(err(&["slc.policy=all"]).contains("slc.gc"));
    assert!(err(&["nand.slc_blocks_per_plane=10"]).contains("nand.slc_blocks_per_plane"));
    assert!(err(&["buffer.bytes_each=4096"]).contains("buffer.bytes_each"));
    assert!(err(&["buffer.zone_mapping=lru"]).contains("buffer.zone_mapping"));
    assert!(err(&["ftl.l2p_search=guess"]).contains("ftl.l2p_search"));
}

/// The namespaces share one L2P SRAM: zoned page entries fill it while the zoned namespace is
/// busy, then the conventional namespace's map pages take it back (one LRU order), and its
/// dirty map pages evicted by zoned entries are written back.
#[test]
fn namespaces_share_one_l2p_sram() {
    // 32 KiB of SRAM: two 16 KiB map pages, or 8192 entries of 4 bytes.
    let cfg = small(&["ftl.mapping=page", "ftl.l2p_cache_bytes=32768"]);
    let budget = cfg.ftl.l2p_cache_bytes;
    let mut dev = Device::new(&cfg, 1).unwrap();
    let entries = |dev: &Device| dev.report().l2p.zoned.entries as u64;
    let pages = |dev: &Device| dev.report().l2p.cached_map_pages as u64;
    // Conventional namespace 0: dirty its map pages.
    let mut o = opts();
    o.namespace = 0;
    sim::run_device(
        &mut dev,
        &jobs("[w]\nrw=randwrite\nbs=4k\niodepth=4\nnumber_ios=3000\n"),
        &o,
        &mut zonesim::Control::none(),
    )
    .unwrap();
    let p0 = pages(&dev);
    assert!(p0 > 0);
    // Zoned namespace 1: write, then read every page at page granularity.
    let wl = jobs("[w]\nrw=write\nbs=64k\niodepth=1\nzonemode=zbd\nsize=8z\n[r]\nstonewall\nrw=randread\nbs=4k\niodepth=4\nzonemode=zbd\nsize=8z\nnumber_ios=40000\n");
    let r = sim::run_device(&mut dev, &wl, &opts(), &mut zonesim::Control::none()).unwrap();
    let e1 = entries(&dev);
    assert_eq!(
        pages(&dev),
        0,
        "zoned entries took the SRAM of idle map pages"
    );
    assert!(
        e1 * cfg.ftl.map_entry_bytes as u64 > budget / 2,
        "{e1} entries"
    );
    assert!(
        r.device.l2p.writebacks > 0,
        "dirty map pages were written back"
    );
    // The conventional namespace becomes busy again and takes SRAM back.
    sim::run_device(
        &mut dev,
        &jobs("[r]\nrw=randread\nbs=4k\niodepth=4\nnumber_ios=3000\n"),
        &o,
        &mut zonesim::Control::none(),
    )
    .unwrap();
    assert!(entries(&dev) < e1);
    assert!(pages(&dev) > 0);
    dev.check_invariants().unwrap();
}

/// Jobs name their namespace (`namespace=`, a zonesim extension): metadata writes on the
/// conventional namespace and zoned data writes run at once on one device and compete for its
/// dies; each job's report names its namespace.
#[test]
fn jobs_on_two_namespaces_run_concurrently_and_share_the_dies() {
    let cfg = small(&[]);
    let both = "[meta]\nnamespace=0\nrw=randwrite\nbs=4k\niodepth=4\nnumber_ios=2000\nfsync=16\n\
                [data]\nnamespace=1\nrw=write\nbs=128k\niodepth=2\nzonemode=zbd\nsize=4z\n";
    let alone = "[data]\nnamespace=1\nrw=write\nbs=128k\niodepth=2\nzonemode=zbd\nsize=4z\n";
    let mut o = opts();
    o.namespace = 0;
    let r = zonesim::RunSpec::new(cfg.clone(), jobs(both))
        .options(o.clone())
        .run()
        .unwrap();
    assert_eq!(r.jobs[0].namespace, 0);
    assert_eq!(r.jobs[1].namespace, 1);
    assert_eq!(r.jobs[0].host.write.ios, 2000);
    assert!(r.jobs[1].host.write.ios > 0);
    assert_eq!(r.device.zones.errors.total(), 0);
    let solo = zonesim::RunSpec::new(cfg.clone(), jobs(alone))
        .options(o.clone())
        .run()
        .unwrap();
    assert!(
        r.jobs[1].host.write.bandwidth_mib_s < solo.jobs[0].host.write.bandwidth_mib_s,
        "metadata traffic slows the data writer: {} vs {} MiB/s",
        r.jobs[1].host.write.bandwidth_mib_s,
        solo.jobs[0].host.write.bandwidth_mib_s
    );
    let err = zonesim::RunSpec::new(cfg.clone(), jobs("[x]\nnamespace=5\nrw=read\n"))
        .options(o.clone())
        .run()
        .unwrap_err();
    assert!(err.to_string().contains("namespace=5"), "{err}");
}

/// Same inputs and seed, same report on the zoned path too (wall-clock fields aside).
#[test]
fn zoned_runs_are_deterministic() {
    let cfg = small(&["ftl.mapping=hybrid", "slc.gc=migrate"]);
    let wl = jobs("[w]\nrw=randwrite\nbs=16k\niodepth=8\nzonemode=zbd\nmax_open_zones=4\nsize=8z\nio_size=24m\n[r]\nstonewall\nrw=randread\nbs=4k\niodepth=8\nzonemode=zbd\nsize=8z\nnumber_ios=5000\n");
    let a = zonesim::RunSpec::new(cfg.clone(), wl.clone())
        .options(opts())
        .run()
        .unwrap()
        .deterministic_json();
    let b = zonesim::RunSpec::new(cfg.clone(), wl.clone())
        .options(opts())
        .run()
        .unwrap()
        .deterministic_json();
    assert_eq!(a, b);
    assert!(a["device"]["buffer"]["premature_flushes"].as_u64().unwrap() > 0);
}

/// `slc.granularity = "zone"` (ConZone+ ZONED_SLC, ConZone+ §6.5 Fig. 12): invariants hold
/// under churn with both SLC GC modes, and the Fig. 12(b)(c) counters are reported (migration
/// volume, direct SLC erases). The paper's comparison itself needs the F2FS host (docs/zoned.md).
#[test]
fn zone_granular_slc_keeps_invariants_and_reports_fig12_counters() {
    let page = churn(&["slc.policy=all", "slc.gc=migrate"]);
    let zone = churn(&["slc.policy=all", "slc.gc=migrate", "slc.granularity=zone"]);
    assert_eq!(page.device.slc.granularity, "page");
    assert_eq!(zone.device.slc.granularity, "zone");
    assert!(zone.device.slc.gc_victims > 0, "{:?}", zone.device.slc);
    assert!(zone.device.slc.pages_migrated > 0, "{:?}", zone.device.slc);
    assert!(zone.device.slc.direct_erases > 0, "{:?}", zone.device.slc);
    assert_ne!(
        (zone.device.slc.gc_victims, zone.device.slc.gc_pages_moved),
        (page.device.slc.gc_victims, page.device.slc.gc_pages_moved),
        "the granularity changes what SLC GC does"
    );
    let inplace = churn(&["slc.granularity=zone"]);
    assert!(
        inplace.device.slc.gc_victims > 0,
        "{:?}",
        inplace.device.slc
    );
}
