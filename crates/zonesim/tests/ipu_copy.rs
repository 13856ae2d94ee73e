//! The device commands of ZMS: budget-based in-place update (`Op::InPlace`,
//! `zone.ipu_budget_bytes`) and device-side copy (`Op::Copy`), on a small zoned device.

use crate::common;

use proptest::prelude::*;
use std::collections::BTreeSet;
use zonesim::device::Device;
use zonesim::engine::SimTime;
use zonesim::interface::zone::Lba;
use zonesim::interface::{Command, Op, ZoneAction};

const NS: usize = 1;
const W: Op = Op::Write { hint: 0 };
const IPU: Op = Op::InPlace { hint: 0 };

fn cmd(op: Op, lba: u64, pages: u32) -> Command {
    Command {
        op,
        lba: Lba(lba),
        pages,
    }
}

/// The small zoned device with an IPU budget of `budget` pages and a small SLC (GC runs soon).
fn device(budget: u64) -> Device {
    let b = format!("zone.ipu_budget_bytes={}", budget * 4096);
    let cfg = common::small_zoned(&[&b, "nand.slc_blocks_per_plane=13"]);
    Device::new(&cfg, 1).unwrap()
}

fn ipu(dev: &Device) -> zonesim::firmware::zoned::IpuCounters {
    dev.namespaces[NS]
        .as_zoned()
        .unwrap()
        .ipu()
        .unwrap()
        .clone()
}

#[derive(Debug, Clone)]
enum Step {
    /// Append `n` pages at zone `z`'s write pointer.
    Write(u64, u32),
    /// Host flush (partial data goes to SLC).
    Flush,
    /// In-place update of `n` pages at `frac` of zone `z`'s written part.
    InPlace(u64, u8, u32),
    /// Read one page at `frac` of zone `z`'s written part.
    Read(u64, u8),
    Reset(u64),
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        6 => (0u64..4, 1u32..40).prop_map(|(z, n)| Step::Write(z, n)),
        2 => Just(Step::Flush),
        6 => (0u64..4, any::<u8>(), 1u32..6).prop_map(|(z, f, n)| Step::InPlace(z, f, n)),
        4 => (0u64..4, any::<u8>()).prop_map(|(z, f)| Step::Read(z, f)),
        1 => (0u64..4).prop_map(Step::Reset),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    /// IPU data is mapped once: a page has an IPU copy only after an accepted in-place update
    /// of it (since its zone's reset); a read of it is served from the copy exactly when it has
    /// one (after fold-back, from the zone); accepted pages not copied were absorbed by the
    /// buffer; valid counts (zones + IPU copies = SLC valid pages, within the budget) agree
    /// after every command.
    #[test]
    fn ipu_data_is_mapped_once(steps in proptest::collection::vec(step(), 1..120)) {
        let mut dev = device(96);
        let z = *dev.namespaces[NS].as_zoned().unwrap().zone_config();
        let (size, cap) = (z.zone_size, z.zone_capacity);
        let mut wp = [0u64; 4];
        let mut live: BTreeSet<u64> = BTreeSet::new();
        let mut t = SimTime(0);
        for s in steps {
            match s {
                Step::Write(zi, n) => {
                    let n = (n as u64).min(cap - wp[zi as usize]) as u32;
                    if n == 0 { continue; }
                    let c = dev.submit(t, NS, cmd(W, zi * size + wp[zi as usize], n));
                    prop_assert!(!c.rejected);
                    wp[zi as usize] += n as u64;
                    t = c.done;
                }
                Step::Flush => t = dev.submit(t, NS, cmd(Op::Flush, 0, 0)).done,
                Step::InPlace(zi, f, n) => {
                    let w = wp[zi as usize];
                    if w == 0 { continue; }
                    let off = w * f as u64 / 256;
                    let n = (n as u64).min(w - off) as u32;
                    let lba = zi * size + off;
                    let before = ipu(&dev);
                    let c = dev.submit(t, NS, cmd(IPU, lba, n));
                    let after = ipu(&dev);
                    if c.rejected {
                        prop_assert_eq!(after.rejected_commands, before.rejected_commands + 1);
                        prop_assert_eq!(after.pages, before.pages);
                    } else {
                        let zf = dev.namespaces[NS].as_zoned().unwrap();
                        let copied = (lba..lba + n as u64).filter(|&l| zf.has_ipu_copy(Lba(l))).count() as u64;
                        prop_assert_eq!(after.slc_pages - before.slc_pages, copied);
                        prop_assert_eq!(after.buffer_pages - before.buffer_pages, n as u64 - copied);
                        live.extend((lba..lba + n as u64).filter(|&l| zf.has_ipu_copy(Lba(l))));
                    }
                    t = c.done.max(t);
                }
                Step::Read(zi, f) => {
                    let w = wp[zi as usize];
                    if w == 0 { continue; }
                    let lba = zi * size + w * f as u64 / 256;
                    let has = dev.namespaces[NS].as_zoned().unwrap().has_ipu_copy(Lba(lba));
                    let before = ipu(&dev).read_pages;
                    t = dev.submit(t, NS, cmd(Op::Read, lba, 1)).done;
                    prop_assert_eq!(ipu(&dev).read_pages - before, has as u64);
                }
                Step::Reset(zi) => {
                    t = dev.submit(t, NS, cmd(Op::Zone(ZoneAction::Reset), zi * size, 0)).done;
                    wp[zi as usize] = 0;
                    live.retain(|&l| l / size != zi);
                }
            }
            let zf = dev.namespaces[NS].as_zoned().unwrap();
            for zi in 0..4u64 {
                for l in zi * size..zi * size + wp[zi as usize] {
                    // A copy only where an accepted IPU put one (a fold-back removes it).
                    prop_assert!(!zf.has_ipu_copy(Lba(l)) || live.contains(&l), "stray IPU copy of {}", l);
                }
            }
            let c = ipu(&dev);
            let copies = live.iter().filter(|&&l| zf.has_ipu_copy(Lba(l))).count() as u64;
            prop_assert_eq!(c.budget_in_use_bytes, copies * 4096);
            dev.check_invariants().map_err(TestCaseError::fail)?;
        }
    }
}

/// Partial zone data in SLC, updated in place, then pushed out by SLC GC: the IPU copies fold
/// back into the zone and reads no longer come from them.
#[test]
fn slc_gc_folds_ipu_data_back_into_the_zone() {
    let mut dev = device(4096);
    let size = dev.namespaces[NS]
        .as_zoned()
        .unwrap()
        .zone_config()
        .zone_size;
    let mut t = SimTime(0);
    let mut folded = 0;
    let mut updated = Vec::new();
    for round in 0..400u64 {
        let z = round % 8;
        let lba = z * size + (round / 8) * 8;
        t = dev.submit(t, NS, cmd(W, lba, 8)).done;
        t = dev.submit(t, NS, cmd(Op::Flush, 0, 0)).done;
        let c = dev.submit(t, NS, cmd(IPU, lba, 4));
        assert!(!c.rejected);
        updated.extend(lba..lba + 4);
        t = c.done;
        dev.check_invariants().unwrap();
        folded = ipu(&dev).folded_pages;
        if folded > 0 {
            break;
        }
    }
    assert!(folded > 0, "SLC GC never folded IPU data back");
    let c = ipu(&dev);
    assert!(c.slc_pages > c.folded_pages);
    // Some updated page lost its copy to a fold: its reads come from the zone again.
    let zf = dev.namespaces[NS].as_zoned().unwrap();
    let gone: Vec<u64> = updated
        .into_iter()
        .filter(|&l| !zf.has_ipu_copy(Lba(l)))
        .collect();
    assert_eq!(gone.len() as u64, c.folded_pages);
    let gone = gone[0];
    let before = ipu(&dev).read_pages;
    dev.submit(t, NS, cmd(Op::Read, gone, 1));
    assert_eq!(ipu(&dev).read_pages, before);
}

#[test]
fn budget_rejects_and_no_budget_means_plain_writes() {
    let mut dev = device(4);
    let mut t = SimTime(0);
    t = dev.submit(t, NS, cmd(W, 0, 64)).done;
    t = dev.submit(t, NS, cmd(Op::Flush, 0, 0)).done;
    let c = dev.submit(t, NS, cmd(IPU, 0, 4));
    assert!(!c.rejected && c.done > t);
    // Updating the same pages again takes no more budget; new pages beyond it are refused.
    assert!(!dev.submit(c.done, NS, cmd(IPU, 0, 4)).rejected);
    let r = dev.submit(c.done, NS, cmd(IPU, 8, 1));
    assert!(r.rejected);
    assert_eq!(ipu(&dev).rejected_commands, 1);
    // At the write pointer an in-place update is a write.
    assert!(!dev.submit(c.done, NS, cmd(IPU, 64, 4)).rejected);
    dev.check_invariants().unwrap();

    // Without a budget (JEDEC ZUFS) it is a write: below the write pointer, a zone error.
    let cfg = common::small_zoned(&[]);
    let mut dev = Device::new(&cfg, 1).unwrap();
    let t = dev.submit(SimTime(0), NS, cmd(W, 0, 8)).done;
    dev.submit(t, NS, cmd(IPU, 0, 4));
    let z = dev.namespaces[NS].as_zoned().unwrap();
    assert!(z.ipu().is_none());
    assert_eq!(z.errors.total(), 1);
}

#[test]
fn copy_reads_and_writes_inside_the_device() {
    let cfg = common::small_zoned(&[]);
    let mut dev = Device::new(&cfg, 1).unwrap();
    let size = dev.namespaces[NS]
        .as_zoned()
        .unwrap()
        .zone_config()
        .zone_size;
    let mut t = SimTime(0);
    t = dev.submit(t, NS, cmd(W, 0, 256)).done;
    t = dev.submit(t, NS, cmd(Op::Flush, 0, 0)).done;
    let link_before = dev.link.bytes_moved();
    let c = dev.submit(t, NS, cmd(Op::Copy { dst: Lba(size) }, 0, 128));
    assert!(!c.rejected && c.done > t);
    assert_eq!(dev.link.bytes_moved(), link_before, "no host-link transfer");
    let z = dev.namespaces[NS].as_zoned().unwrap();
    assert_eq!((z.counters.copy_commands, z.counters.copy_pages), (1, 128));
    assert_eq!(z.write_pointers()[1], 128 * 4096);
    // The destination must be at the write pointer, as for a write; the source written.
    let e = z.errors.total();
    assert!(
        dev.submit(c.done, NS, cmd(Op::Copy { dst: Lba(size) }, 0, 8))
            .rejected
    );
    assert!(
        dev.submit(
            c.done,
            NS,
            cmd(
                Op::Copy {
                    dst: Lba(size + 128)
                },
                300,
                8
            )
        )
        .rejected
    );
    assert_eq!(dev.namespaces[NS].as_zoned().unwrap().errors.total(), e + 2);
    // Out of the namespace: refused by the device.
    let lbas = dev.capacity_bytes(NS) / 4096;
    assert!(
        dev.submit(c.done, NS, cmd(Op::Copy { dst: Lba(lbas) }, 0, 8))
            .rejected
    );
    // Conventional namespace: a copy too.
    let r = dev.submit(c.done, 0, cmd(W, 0, 16));
    let c2 = dev.submit(r.done, 0, cmd(Op::Copy { dst: Lba(64) }, 0, 16));
    assert!(!c2.rejected);
    dev.check_invariants().unwrap();
}
