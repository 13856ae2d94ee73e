//! One suite over every namespace kind (as tokio's `rt_test!` runs one suite on every runtime
//! flavor): the namespace contract `zonesim::firmware::Ftl` as the device exposes it —
//! read-after-write, flush durability, trim, zone-rule rejection, invariants under a random
//! command mix, determinism, and every request completing exactly once. Instantiated for a
//! conventional namespace, a conventional namespace in SLC, and zoned namespaces with page and
//! hybrid mapping; each kind a later device adds gets one more `kind!` line.

use crate::common;

use proptest::prelude::*;
use zonesim::config::DeviceConfig;
use zonesim::device::Device;
use zonesim::engine::SimTime;
use zonesim::interface::zone::Lba;
use zonesim::interface::{Command, Op, ZoneAction};
use zonesim::sim::{self, Precondition, RunOptions, Workload};

/// A namespace kind under test: its device, its namespace and whether it is zoned.
struct Kind {
    cfg: DeviceConfig,
    ns: usize,
    zoned: bool,
}

use common::small_zoned;

fn conventional() -> Kind {
    let cfg = common::device(
        "ufs-conventional",
        &[
            "nand.blocks_per_plane=64",
            "nand.channels=2",
            "buffer.bytes=131072",
        ],
    );
    Kind {
        cfg,
        ns: 0,
        zoned: false,
    }
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
fn conventional_slc_cache(policy: &str) -> Kind {
    let cfg = common::device(
        "ufs-conventional",
        &[
            "nand.blocks_per_plane=69",
            "nand.slc_blocks_per_plane=5",
            "nand.pages_per_block=48",
            "nand.channels=2",
            "buffer.bytes=131072",
            "slc.conventional_buffer=true",
            "slc.gc=migrate",
            policy,
        ],
    );
    Kind {
        cfg,
        ns: 0,
        zoned: false,
    }
}

fn zoned_page() -> Kind {
    Kind {
        cfg: small_zoned(&["ftl.mapping=page"]),
        ns: 1,
        zoned: true,
    }
}

fn zoned_hybrid() -> Kind {
    Kind {
        cfg: small_zoned(&["ftl.mapping=hybrid"]),
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
    let mut t = SimTime(0);
    for i in 0..64 {
        t = dev.submit(t, k.ns, cmd(W, i * 4, 4)).done;
    }
    let before = dev.namespaces[k.ns].counters();
    let r = dev.submit(t, k.ns, cmd(Op::Read, 0, 256));
    assert!(r.done > t, "a read takes time");
    let after = dev.namespaces[k.ns].counters();
    assert_eq!(after.host_write_pages, 256);
    assert_eq!(after.host_read_pages - before.host_read_pages, 256);
    assert_eq!(after.unwritten_reads, 0, "written data is found");
    let r = dev.submit(r.done, k.ns, cmd(Op::Read, 256, 8));
    assert!(r.done >= t);
    // Never-written pages read as unwritten (conventional) or, past the write pointer, are a
    // zone error (zoned).
    let (unwritten, errors) = (
        dev.namespaces[k.ns].counters().unwritten_reads,
        zone_errors(&dev, &k),
    );
    assert_eq!((unwritten, errors), if k.zoned { (0, 1) } else { (8, 0) });
    dev.check_invariants().unwrap();
}

fn flush_is_durable(k: Kind) {
    let mut dev = Device::new(&k.cfg, 1).unwrap();
    let w = dev.submit(SimTime(0), k.ns, cmd(W, 0, 3));
    let f = dev.submit(w.done, k.ns, cmd(Op::Flush, 0, 0));
    assert!(f.done > w.done, "a flush programs the buffered data");
    let hits = dev.namespaces[k.ns].counters().buffer.read_hits;
    dev.submit(f.done, k.ns, cmd(Op::Read, 0, 3));
    let c = dev.namespaces[k.ns].counters();
    assert_eq!(c.buffer.read_hits, hits, "flushed data is read from flash");
    assert_eq!(c.unwritten_reads, 0);
    // A second flush with nothing buffered completes at once.
    let t = SimTime(f.done.ns() + 10_000_000);
    let f2 = dev.submit(t, k.ns, cmd(Op::Flush, 0, 0));
    assert!(f2.done.ns() - t.ns() < 1_000_000, "empty flush is cheap");
    dev.check_invariants().unwrap();
}

fn trim(k: Kind) {
    let mut dev = Device::new(&k.cfg, 1).unwrap();
    let w = dev.submit(SimTime(0), k.ns, cmd(W, 0, 16));
    let f = dev.submit(w.done, k.ns, cmd(Op::Flush, 0, 0));
    let t = dev.submit(f.done, k.ns, cmd(Op::Trim, 0, 8));
    dev.submit(t.done, k.ns, cmd(Op::Read, 0, 16));
    let unwritten = dev.namespaces[k.ns].counters().unwritten_reads;
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
    let w = dev.submit(SimTime(0), k.ns, cmd(W, z1, 4));
    // Not at the write pointer (zoned: rejected, completes at once, changes nothing).
    let bad = dev.submit(w.done, k.ns, cmd(W, z1 + 100, 4));
    let c = dev.namespaces[k.ns].counters();
    if k.zoned {
        assert_eq!(c.host_write_pages, 4, "a rejected write writes nothing");
        assert!(bad.done.ns() - w.done.ns() < 1_000_000);
    } else {
        assert_eq!(c.host_write_pages, 8, "conventional: any LBA is writable");
    }
    assert_eq!(zone_errors(&dev, &k), k.zoned as u64);
    // Reset (zoned: the zone is empty again, its data unreadable; conventional: a no-op).
    let r = dev.submit(bad.done, k.ns, cmd(Op::Zone(ZoneAction::Reset), z1, 0));
    dev.submit(r.done, k.ns, cmd(Op::Read, z1, 4));
    assert_eq!(dev.namespaces[k.ns].counters().unwritten_reads, 0);
    assert_eq!(zone_errors(&dev, &k), 2 * k.zoned as u64);
    // Zone append: the device picks the LBA on a zoned namespace.
    let a = dev.submit(r.done, k.ns, cmd(Op::Append, z1, 2));
    assert_eq!(a.appended, k.zoned.then_some(Lba(z1)));
    dev.check_invariants().unwrap();
}

/// A random valid command mix: writes at each zone's write pointer (sequential in a region on
/// a conventional namespace), reads of anything, flushes, resets of a zone.
fn random_mix(k: &Kind, ops: &[(u8, u8, u8)]) -> Result<(), TestCaseError> {
    let mut dev = Device::new(&k.cfg, 7).unwrap();
    let zones = 4u64;
    let per_zone = zone_pages(&dev, k);
    let mut wp = vec![0u64; zones as usize];
    let mut t = SimTime(0);
    for (i, &(op, zone, len)) in ops.iter().enumerate() {
        let z = (zone as u64) % zones;
        let start = zone_start(&dev, k, z);
        let n = 1 + len as u64 % 16;
        let c = match op % 8 {
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
            _ => {
                wp[z as usize] = 0;
                cmd(Op::Zone(ZoneAction::Reset), start, 0)
            }
        };
        let done = dev.submit(t, k.ns, c).done;
        prop_assert!(done >= t, "completes no earlier than it arrives");
        t = SimTime(t.ns() + 20_000);
        if i % 25 == 0 {
            dev.check_invariants().map_err(TestCaseError::fail)?;
        }
    }
    dev.check_invariants().map_err(TestCaseError::fail)?;
    Ok(())
}

fn run_workload(k: &Kind, seed: u64) -> zonesim::stats::Report {
    let text = if k.zoned {
        "[w]\nzonemode=zbd\nrw=randwrite\nbs=16k\niodepth=8\nmax_open_zones=4\nnumber_ios=3000\n\
         [r]\nstonewall\nzonemode=zbd\nrw=randread\nbs=4k\niodepth=16\nnumber_ios=3000\n"
    } else {
        "[w]\nrw=randwrite\nbs=4k\niodepth=16\nsize=50%\nnumber_ios=6000\nfsync=64\n\
         [r]\nstonewall\nrw=randread\nbs=4k\niodepth=16\nnumber_ios=3000\n"
    };
    let opts = RunOptions {
        seed,
        precondition: Precondition::None,
        namespace: k.ns,
        check_invariants: true,
    };
    let wl: Workload = common::jobs(text);
    let r = sim::run(&k.cfg, &wl, &opts, &mut |_, _| {}).expect("run succeeds");
    assert_eq!(
        r.sim.requests_issued, r.sim.requests_completed,
        "every request completes exactly once"
    );
    assert!(r.sim.requests_completed >= 3000);
    r
}

fn deterministic(k: Kind) {
    let a = run_workload(&k, 5).deterministic_json();
    let b = run_workload(&k, 5).deterministic_json();
    assert_eq!(a, b, "same inputs and seed, same report");
}

/// Instantiate the suite for one namespace kind.
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

kind!(conventional_ns, conventional());
kind!(conventional_in_slc, conventional_slc());
kind!(
    conventional_slc_cache_bypass,
    conventional_slc_cache("slc.policy=bypass")
);
kind!(
    conventional_slc_cache_all,
    conventional_slc_cache("slc.policy=all")
);
kind!(zoned_page_map, zoned_page());
kind!(zoned_hybrid_map, zoned_hybrid());
