//! The SLC write cache of a conventional namespace (`slc.conventional_buffer`,
//! `firmware/conventional/slc.rs`): fsync-heavy 4 KiB writes program far fewer regular-flash
//! slots with it than padded partial units without it; `slc.policy = all` lands every page in
//! SLC and migrates everything that does not fit; map, reverse map and valid counts stay
//! consistent under random writes, flushes, trims and reads (property test).

use crate::common;

use proptest::prelude::*;
use serde_json::Value;
use zonesim::config::DeviceConfig;
use zonesim::device::Device;
use zonesim::engine::SimTime;
use zonesim::firmware::mapping::{Entry, Lpa};
use zonesim::interface::zone::Lba;
use zonesim::interface::{Command, Op};
use zonesim::sim::{Precondition, RunOptions};

/// A small conventional TLC device (2 x 2 dies, 48-page blocks: 96 KiB regular units, SLC
/// superblocks of 512 slots); `cache`: 8 SLC blocks per plane as its SLC write cache.
fn dev(cache: bool, sets: &[&str]) -> DeviceConfig {
    let mut all = vec![
        "nand.blocks_per_plane=72",
        "nand.slc_blocks_per_plane=8",
        "nand.pages_per_block=48",
        "slc.gc=migrate",
    ];
    if cache {
        all.push("slc.conventional_buffer=true");
    }
    all.extend_from_slice(sets);
    common::device("ufs-conventional", &all)
}

fn run(cfg: &DeviceConfig, text: &str) -> Value {
    let opts = RunOptions {
        seed: 3,
        precondition: Precondition::None,
        namespace: 0,
        check_invariants: true,
        power_off: None,
    };
    let r = zonesim::RunSpec::new(cfg.clone(), common::jobs(text))
        .options(opts.clone())
        .run()
        .expect("run");
    assert_eq!(r.sim.requests_issued, r.sim.requests_completed);
    r.deterministic_json()
}

fn u(v: &Value, path: &str) -> u64 {
    path.split('.')
        .fold(v, |v, k| match k.parse::<usize>() {
            Ok(i) => &v[i],
            Err(_) => &v[k],
        })
        .as_u64()
        .unwrap_or_else(|| panic!("{path} missing"))
}

const FSYNC: &str = "[w]\nrw=randwrite\nbs=4k\nsize=64m\niodepth=1\nfsync=1\nnumber_ios=4000\n";

#[test]
fn fsync_heavy_writes_go_to_slc_not_padded_units() {
    let without = run(&dev(false, &[]), FSYNC);
    let with = run(&dev(true, &[]), FSYNC);
    let host = u(&with, "device.host_pages_written");
    assert_eq!(host, 4000);
    // Without the cache every fsync pads a 96 KiB TLC unit (24 slots per 4 KiB page).
    assert!(u(&without, "device.buffer.padding_slots") > 20 * host);
    assert_eq!(u(&with, "device.buffer.padding_slots"), 0);
    let (a, b) = (
        u(&without, "device.flash.programmed_slots"),
        u(&with, "device.flash.programmed_slots"),
    );
    assert!(
        b * 10 < a,
        "programmed slots with the cache {b}, without {a}"
    );
    assert_eq!(u(&with, "device.buffer.flushes_to_slc"), 4000);
    assert_eq!(
        u(&with, "device.namespaces.0.slc.flushes_to_slc"),
        u(&with, "device.buffer.flushes_to_slc")
    );
    assert_eq!(
        u(&with, "device.buffer.premature_flushes"),
        u(&without, "device.buffer.premature_flushes")
    );
    // The cache (8 x 512 slots) holds 4000 pages at most partly: SLC GC migrated the rest.
    assert!(u(&with, "device.slc.gc_victims") > 0);
    assert!(u(&with, "device.slc.pages_migrated") > 0);
    // Faster too: a 4 KiB SLC program instead of a TLC unit per fsync.
    let iops = |v: &Value| v["jobs"][0]["write"]["iops"].as_f64().expect("iops");
    assert!(iops(&with) > 2.0 * iops(&without));
}

#[test]
fn policy_all_lands_everything_in_slc_and_migrates_it() {
    let text = "[w]\nrw=write\nbs=64k\nsize=48m\niodepth=4\n";
    let v = run(&dev(true, &["slc.policy=all"]), text);
    let host = u(&v, "device.host_pages_written");
    assert_eq!(host, 48 * 256);
    assert_eq!(u(&v, "device.namespaces.0.slc.slc_buffered_pages"), host);
    let held = u(&v, "device.namespaces.0.slc.valid_pages");
    let cap = u(&v, "device.namespaces.0.slc.superblocks") * 512;
    assert!(held <= cap);
    // Everything that is not still in SLC was migrated to regular flash, once.
    assert_eq!(u(&v, "device.slc.pages_migrated") + held, host);
    assert_eq!(u(&v, "device.buffer.padding_slots"), 0);
    // Bypass: full units go straight to TLC, nothing to SLC without flushes.
    let b = run(&dev(true, &["slc.policy=bypass"]), text);
    assert_eq!(u(&b, "device.buffer.slc_buffered_pages"), 0);
}

#[test]
fn off_by_default_and_bad_combinations_rejected() {
    let v = run(&dev(false, &[]), FSYNC);
    assert!(v["device"]["namespaces"][0].get("slc").is_none());
    assert_eq!(u(&v, "device.buffer.flushes_to_slc"), 0);
    let bad = |sets: &[&str]| {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        zonesim::load_device("ufs-conventional", &sets)
            .expect_err("rejected")
            .to_string()
    };
    let e = bad(&["slc.conventional_buffer=true", "slc.gc=migrate"]);
    assert!(e.contains("nand.slc_blocks_per_plane"), "{e}");
    let e = bad(&[
        "slc.conventional_buffer=true",
        "nand.slc_blocks_per_plane=8",
        "nand.blocks_per_plane=376",
    ]);
    assert!(e.contains("slc.gc"), "{e}");
    let e = bad(&[
        "slc.conventional_buffer=true",
        "slc.gc=migrate",
        "nand.slc_blocks_per_plane=8",
        "nand.blocks_per_plane=376",
        "ftl.mapping=two_level",
    ]);
    assert!(e.contains("slc.conventional_buffer"), "{e}");
}

fn cmd(op: Op, lba: u64, pages: u32) -> Command {
    Command {
        op,
        lba: Lba(lba),
        pages,
    }
}

/// Random writes, flushes, trims and reads over 3,000 pages (more than the cache holds, so
/// SLC GC migrates); invariants after every few commands, and a model of which pages hold data.
fn mix(policy: &str, ops: &[(u8, u16, u8)]) -> Result<(), TestCaseError> {
    // The smallest cache SLC GC allows (5 SLC blocks per plane, 2,560 slots): migrations.
    let cfg = dev(
        true,
        &[
            policy,
            "buffer.bytes=131072",
            "nand.slc_blocks_per_plane=5",
            "nand.blocks_per_plane=69",
        ],
    );
    let mut d = Device::new(&cfg, 7).unwrap();
    let span = 3000u64;
    let mut written = vec![false; span as usize];
    let mut t = SimTime(0);
    let mut pages = 0;
    for (i, &(op, at, len)) in ops.iter().enumerate() {
        let lba = at as u64 % span;
        let n = (1 + len as u64 % 64).min(span - lba);
        let c = match op % 10 {
            0..=4 => {
                written[lba as usize..(lba + n) as usize].fill(true);
                pages += n;
                cmd(Op::Write { hint: 0 }, lba, n as u32)
            }
            5 | 6 => cmd(Op::Flush, 0, 0),
            7 => {
                written[lba as usize..(lba + n) as usize].fill(false);
                cmd(Op::Trim, lba, n as u32)
            }
            _ => cmd(Op::Read, lba, n as u32),
        };
        let done = d.submit(t, 0, c).done;
        prop_assert!(done >= t);
        t = SimTime(t.ns() + 30_000);
        if i % 20 == 0 {
            d.check_invariants().map_err(TestCaseError::fail)?;
        }
    }
    d.check_invariants().map_err(TestCaseError::fail)?;
    let f = d.namespaces[0].as_conventional().unwrap();
    let c = &f.slc_cache().expect("cache").counters;
    if policy.ends_with("all") && pages > 6000 {
        prop_assert!(
            c.slc_gc_victims > 0 && c.gc_migrated_pages > 0,
            "SLC GC migrated"
        );
    }
    for (l, &w) in written.iter().enumerate() {
        let l = Lpa(l as u32);
        let holds = f.lookup(l) != Entry::Unmapped || f.in_slc(l);
        prop_assert_eq!(
            holds,
            w,
            "lpa {} holds data iff written and not trimmed",
            l.0
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]
    #[test]
    fn random_mix_keeps_slc_and_map_consistent(
        ops in proptest::collection::vec((any::<u8>(), any::<u16>(), any::<u8>()), 1..400),
        all in any::<bool>(),
    ) {
        mix(if all { "slc.policy=all" } else { "slc.policy=bypass" }, &ops)?;
    }
}
