//! Shared file layouts (`sim/layout.rs`): a run from a copy of a layout gives the same report
//! as a run from a layout made afresh, leaves the layout as it was, does not lay the files out
//! again, and a layout needs a host file system.

use crate::common::{device, jobs};
use serde_json::Value;
use zonesim::sim::{Layout, RunOptions};
use zonesim::stats::report::without_wall_clock;

/// Four direct randrw jobs, each on its own 16 MiB file (fio lays them out: the jobs read).
fn files(write_pct: u32, ios: u32) -> zonesim::sim::WorkloadSpec {
    jobs(&format!(
        "[global]\nrw=randrw\nrwmixread={}\nbs=4k\ndirect=1\nnorandommap=1\ndirectory=/fio\n\
         size=16m\nnumber_ios={ios}\nnumjobs=4\n[j]\n",
        100 - write_pct
    ))
}

fn json(r: &zonesim::stats::Report) -> Value {
    let mut v = without_wall_clock(serde_json::to_value(r).unwrap());
    if let Some(sim) = v.get_mut("sim").and_then(|s| s.as_object_mut()) {
        sim.retain(|k, _| !k.contains("cpu_s"));
    }
    v
}

fn opts(seed: u64) -> RunOptions {
    RunOptions {
        seed,
        ..RunOptions::default()
    }
}

#[test]
fn a_run_from_a_copy_equals_a_run_from_a_fresh_layout() {
    let cfg = device(
        "ufs-conventional",
        &["fs.kind=ext4", "host.cpu.cores=4", "ftl.gc.placement=sup"],
    );
    for (seed, write_pct) in [(1, 50), (7, 25)] {
        let o = opts(seed);
        let layout = Layout::new(&cfg, &files(50, 1), &o).unwrap();
        let first = json(&layout.run(&files(write_pct, 3000), &o).unwrap());
        // The layout is unchanged by a run from it: a second run gives the same report.
        let second = json(&layout.run(&files(write_pct, 3000), &o).unwrap());
        assert_eq!(first, second, "a run changed the layout it started from");
        // A layout made afresh (its jobs at another write ratio: the files are the same).
        let fresh = Layout::new(&cfg, &files(write_pct, 1), &o).unwrap();
        let third = json(&fresh.run(&files(write_pct, 3000), &o).unwrap());
        assert_eq!(first, third, "seed {seed}, {write_pct} % writes");
        assert_eq!(first["fs"]["kind"], "ext4");
        assert_eq!(first["fs"]["enospc"], 0);
        // The files are not laid out again: the run programs about its own writes (3000 I/Os
        // per job at `write_pct` %, with the journal's), far below the 64 MiB of files.
        let slots = first["device"]["flash"]["programmed_slots"]
            .as_u64()
            .unwrap();
        assert!(slots < 4 * 16 * 256 / 2, "{slots} slots programmed");
        let writes = first["host"]["write"]["ios"].as_u64().unwrap();
        assert!(
            writes > 0 && slots >= writes,
            "{writes} writes, {slots} slots"
        );
    }
}

#[test]
fn a_layout_needs_a_file_system_and_its_own_seed() {
    let raw = device("ufs-conventional", &[]);
    let e = Layout::new(&raw, &files(50, 1), &opts(1))
        .err()
        .expect("no [fs]");
    assert!(format!("{e}").contains("fs"), "{e}");
    let cfg = device("ufs-conventional", &["fs.kind=ext4"]);
    let layout = Layout::new(&cfg, &files(50, 1), &opts(1)).unwrap();
    let e = layout
        .run(&files(50, 10), &opts(2))
        .expect_err("another seed");
    assert!(format!("{e}").contains("seed"), "{e}");
}
