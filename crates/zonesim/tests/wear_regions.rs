//! `device.wear.regions`: one region per namespace (`ns{i}`, labelled with the namespace's own
//! index) and one per namespace's SLC rows (`ns{i}_slc`), which together hold every block of
//! the array once, so their erase counts add up to the device's.

use crate::common;

use common::{device, jobs, run, small_zoned};
use zonesim::config::DeviceConfig;
use zonesim::device::Device;
use zonesim::sim::{Precondition, RunOptions};
use zonesim::stats::device::NamespaceReport;
use zonesim::stats::Report;

/// Blocks of the whole array.
fn array_blocks(cfg: &DeviceConfig) -> u64 {
    Device::new(cfg, 1)
        .expect("device")
        .nand
        .erase_counts()
        .len() as u64
}

/// Sum of the regions' blocks and of their erases.
fn region_totals(r: &Report) -> (u64, f64) {
    let regions = r.device.wear.regions.values();
    regions.fold((0, 0.0), |(b, e), w| {
        (b + w.blocks as u64, e + w.blocks as f64 * w.erase_mean)
    })
}

#[test]
fn every_preset_s_regions_hold_every_block_once() {
    let small = jobs("[w]\nrw=write\nbs=128k\nsize=1m\n");
    for (name, _, _) in zonesim::config::PRESETS {
        let cfg = device(name, &[]);
        let r = run(&cfg, &small, Precondition::None, 1);
        let (blocks, _) = region_totals(&r);
        assert_eq!(
            blocks,
            array_blocks(&cfg),
            "{name}: {:?}",
            r.device.wear.regions.keys()
        );
        for i in 0..r.device.namespaces.len() {
            assert!(
                r.device.wear.regions.contains_key(&format!("ns{i}")),
                "{name}: ns{i}"
            );
        }
    }
}

#[test]
fn region_erases_add_up_to_the_device_s() {
    let cfg = small_zoned(&[]);
    // Random overwrites, three times namespace 0's 8 MiB: GC erases its SLC blocks.
    let wl = jobs("[w]\nrw=randwrite\nbs=4k\nsize=8m\nio_size=24m\n");
    let r = run(&cfg, &wl, Precondition::None, 1);
    assert_erases_add_up(&r, &["ns0"]);
    // Zoned random writes over six open zones: premature flushes fill the SLC area, whose GC
    // erases it, and zone data migrates to the regular rows.
    let wl = jobs("[w]\nrw=randwrite\nbs=4k\nzonemode=zbd\nmax_open_zones=6\nio_size=96m\n");
    let opts = RunOptions {
        seed: 1,
        precondition: Precondition::None,
        namespace: 1,
        check_invariants: true,
        power_off: None,
    };
    let r = zonesim::RunSpec::new(cfg.clone(), wl.clone())
        .options(opts.clone())
        .run()
        .expect("zoned run");
    assert_erases_add_up(&r, &["ns1", "ns1_slc"]);
}

/// The regions' erases add up to the run's, and each region of `erased` has some.
fn assert_erases_add_up(r: &Report, erased: &[&str]) {
    let w = &r.device.wear.regions;
    let (_, erases) = region_totals(r);
    assert_eq!(erases.round() as u64, r.device.flash.block_erases, "{w:?}");
    for name in erased {
        assert!(w[*name].erase_max > 0, "{name}: {w:?}");
    }
}

#[test]
fn regions_are_named_after_the_namespace_index() {
    // A zoned namespace first, the conventional SLC one second: the conventional one's blocks
    // are region ns1 (they were labelled ns0: the count of conventional namespaces before it).
    let text = std::fs::read_to_string(common::data("small-zoned.toml")).expect("test device");
    let (head, nss) = text.split_once("[[namespaces]]").expect("namespaces");
    let (conventional, zoned) = nss.split_once("[[namespaces]]").expect("two namespaces");
    let swapped = format!("{head}[[namespaces]]{zoned}\n[[namespaces]]{conventional}");
    let path = std::env::temp_dir().join(format!("zonesim-swapped-{}.toml", std::process::id()));
    std::fs::write(&path, swapped).expect("temp file");
    let cfg = device(path.to_str().expect("utf-8 path"), &[]);
    let r = run(
        &cfg,
        &jobs("[r]\nrw=read\nbs=4k\nsize=64k\n"),
        Precondition::None,
        1,
    );
    let _ = std::fs::remove_file(&path);
    assert!(matches!(r.device.namespaces[0], NamespaceReport::Zoned(_)));
    let w = &r.device.wear.regions;
    assert_eq!(w["ns0"].cell, "tlc", "{w:?}");
    assert_eq!(w["ns0_slc"].cell, "slc", "{w:?}");
    assert_eq!(w["ns1"].cell, "slc", "{w:?}");
    assert_eq!(w.len(), 3, "{w:?}");
    let (blocks, _) = region_totals(&r);
    assert_eq!(blocks, array_blocks(&cfg));
}
