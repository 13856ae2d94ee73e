//! The file system's hook to the device's budget-based in-place update (docs/fs.md; ZMS):
//! a file marked `ipu=1` has its overwrites sent in place on the zoned main area; refused ones
//! (budget exhausted) are written out of place. Runs check the FS and device invariants at the end
//! (`check_invariants`).

use crate::common;

use common::{data, device, jobs, run};
use serde_json::Value;
use zonesim::config::DeviceConfig;
use zonesim::sim::{Precondition, RunOptions};
use zonesim::stats::Report;

/// A 16 MiB file written sequentially, then 4 KiB random overwrites each followed by fsync
/// (`ipu` on the second job or not).
fn workload(ipu: bool) -> zonesim::sim::WorkloadSpec {
    jobs(&format!(
        "[global]\nbs=4k\n\
         [prep]\nrw=write\nfilename=/data/f\nfilesize=16m\nend_fsync=1\n\
         [sync]\nstonewall\nrw=randwrite\nfilename=/data/f\nfilesize=16m\nfsync=1\n\
         io_size=8m\nipu={}\n",
        ipu as u8
    ))
}

/// conzone-paper scaled down (40 zones of 12 MiB) with an IPU budget of `budget` bytes.
fn zoned(budget: u64) -> DeviceConfig {
    let b = format!("zone.ipu_budget_bytes={budget}");
    let path = data("conzone-paper-small.toml");
    device(path.to_str().unwrap(), &["fs.kind=f2fs", &b])
}

fn ipu_of(r: &Report) -> zonesim::host::fs::ipu::IpuHookCounters {
    r.fs.as_ref()
        .and_then(|f| f.f2fs())
        .unwrap()
        .ipu
        .expect("fs.ipu reported")
}

fn dev_ipu(r: &Report) -> Value {
    serde_json::to_value(&r.device).unwrap()["namespaces"][1]["ipu"].clone()
}

const WRITES: u64 = 2048;

#[test]
fn budget_large_enough_every_overwrite_in_place_no_node() {
    let r = run(&zoned(64 << 20), &workload(true), Precondition::None, 1);
    let i = ipu_of(&r);
    let f = r.fs.as_ref().and_then(|f| f.f2fs()).unwrap();
    assert_eq!(i.files, 1);
    assert_eq!(i.requests, WRITES, "each 4 KiB overwrite goes in place");
    assert_eq!(i.bytes, WRITES * 4096);
    assert_eq!((i.rejected, i.fallback_bytes), (0, 0));
    // The device took them all, against its budget.
    let d = dev_ipu(&r);
    assert_eq!(d["pages"].as_u64(), Some(WRITES));
    assert_eq!(d["rejected_pages"].as_u64(), Some(0));
    assert!(d["budget_in_use_max_bytes"].as_u64().unwrap() > 0);
    // No node was written by the overwrite fsyncs (only the first job's end_fsync wrote one),
    // and no overwrite went out of place.
    assert!(f.fsync_node_writes <= 2, "{}", f.fsync_node_writes);
    assert!(f.opu_blocks <= 4096 + 4, "{}", f.opu_blocks);
    assert_eq!(r.device.zones.errors.total(), 0);
}

#[test]
fn budget_exhausted_refused_updates_fall_back_out_of_place() {
    let budget = 1 << 20;
    let r = run(&zoned(budget), &workload(true), Precondition::None, 1);
    let i = ipu_of(&r);
    let d = dev_ipu(&r);
    assert_eq!(i.requests, WRITES);
    assert!(i.rejected > WRITES / 2, "most refused: {i:?}");
    // The FS saw exactly the device's refusals, and rewrote each refused page out of place.
    assert_eq!(d["rejected_pages"].as_u64(), Some(i.rejected));
    assert_eq!(d["pages"].as_u64(), Some(i.requests - i.rejected));
    assert_eq!(i.rejected_bytes, i.rejected * 4096);
    assert_eq!(i.fallback_bytes, i.rejected_bytes);
    assert_eq!(d["budget_in_use_max_bytes"].as_u64(), Some(budget));
    let f = r.fs.as_ref().and_then(|f| f.f2fs()).unwrap();
    // A fallback writes the file's node and flushes, as an ordinary fsync would.
    assert!(f.fsync_node_writes >= i.rejected, "{f:?}");
    // Data bytes: what reached the device (refused bytes not counted twice).
    assert_eq!(
        f.bytes_written.data,
        16 * (1 << 20) + WRITES * 4096,
        "prep + overwrites"
    );
    assert_eq!(r.device.zones.errors.total(), 0);
}

#[test]
fn deterministic() {
    let a = run(&zoned(1 << 20), &workload(true), Precondition::None, 7);
    let b = run(&zoned(1 << 20), &workload(true), Precondition::None, 7);
    let j = |r: &Report| {
        let mut v = serde_json::to_value(r).unwrap();
        v.as_object_mut().unwrap().remove("sim");
        v.as_object_mut().unwrap().remove("provenance"); // its start time
        v
    };
    assert_eq!(j(&a), j(&b));
}

#[test]
fn off_by_default_budget_unused_fs_unchanged() {
    // No file marked: the budget is never used and the FS does what it does without one.
    let with = run(&zoned(64 << 20), &workload(false), Precondition::None, 3);
    let without = run(&zoned(0), &workload(false), Precondition::None, 3);
    let fs =
        |r: &Report| serde_json::to_value(r.fs.as_ref().and_then(|f| f.f2fs()).unwrap()).unwrap();
    assert!(
        fs(&with).get("ipu").is_none(),
        "fs.ipu absent when no file is marked"
    );
    assert_eq!(fs(&with), fs(&without));
    assert_eq!(dev_ipu(&with)["commands"].as_u64(), Some(0));
}

#[test]
fn ipu_without_a_budget_is_a_job_file_error() {
    let opts = RunOptions {
        seed: 1,
        precondition: Precondition::None,
        namespace: 0,
        check_invariants: false,
        power_off: None,
    };
    let e = zonesim::RunSpec::new(zoned(0), workload(true))
        .options(opts.clone())
        .run()
        .expect_err("rejected")
        .to_string();
    assert!(
        e.contains("ipu=1") && e.contains("zone.ipu_budget_bytes"),
        "{e}"
    );
    assert_eq!(e.lines().count(), 1);
}
