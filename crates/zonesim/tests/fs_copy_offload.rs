//! `fs.gc_copy_offload` (docs/fs.md; ZMS copy offloading, ZMS): F2FS GC moves valid blocks
//! with device-side copies instead of reads and writes over the host link. With GC in the
//! foreground only (its decisions do not depend on time), the file system ends in the same state
//! with and without the offload; the host link carries exactly the bytes the FS says it saved
//! fewer, at least twice the bytes copied; a zoned main area accepts every copy.

use crate::common;

use common::{data, device, jobs, run};
use serde_json::Value;
use zonesim::config::DeviceConfig;
use zonesim::sim::Precondition;
use zonesim::stats::Report;

/// Files filled to about 60 % of the FS, then 4 KiB random overwrites with fsync: a run where
/// foreground GC moves many blocks.
fn workload(nrfiles: u32, overwrite_mib: u32) -> zonesim::sim::WorkloadSpec {
    jobs(&format!(
        "[global]\nbs=4k\niodepth=8\n\
         [fill]\nrw=write\ndirectory=/data\nnrfiles={nrfiles}\nfilesize=8m\n\
         [over]\nstonewall\nrw=randwrite\ndirectory=/data\nnrfiles={nrfiles}\nfilesize=8m\n\
         norandommap=1\nio_size={overwrite_mib}m\nfsync=32\n"
    ))
}

/// A small ufs-conventional (24 blocks per plane, about 950 MiB for the FS) in LFS mode: no
/// in-place updates or SSR, so overwrites need GC; background GC sleeps 30 s, longer than the run.
fn conventional(offload: bool) -> DeviceConfig {
    let o = format!("fs.gc_copy_offload={offload}");
    device(
        "ufs-conventional",
        &[
            "fs.kind=f2fs",
            "fs.mode=lfs",
            "nand.blocks_per_plane=24",
            "ftl.overprovisioning=0.2",
            &o,
        ],
    )
}

/// conzone-paper scaled down (tests/data/conzone-paper-small.toml: 40 zones of 12 MiB
/// capacity); zoned background GC held in its No-GC phase (`gc_no_zoned_gc_percent = 0`) so
/// only foreground GC, which does not depend on time, moves blocks.
fn zoned(offload: bool) -> DeviceConfig {
    let o = format!("fs.gc_copy_offload={offload}");
    let path = data("conzone-paper-small.toml");
    device(
        path.to_str().unwrap(),
        &["fs.kind=f2fs", "fs.gc_no_zoned_gc_percent=0", &o],
    )
}

fn fs_json(r: &Report, key: &str) -> Value {
    serde_json::to_value(r.fs.as_ref().expect("fs section")).unwrap()[key].clone()
}

/// The FS state and write counts that must not depend on the offload.
fn fs_state(r: &Report) -> Vec<Value> {
    let mut gc = fs_json(r, "gc");
    let g = gc.as_object_mut().unwrap();
    for k in ["read_bytes", "copy_offload_bytes", "link_bytes_saved"] {
        g.remove(k);
    }
    vec![
        fs_json(r, "bytes_written"),
        fs_json(r, "segments"),
        fs_json(r, "sections"),
        fs_json(r, "checkpoints"),
        fs_json(r, "waf"),
        fs_json(r, "enospc"),
        gc,
    ]
}

fn check_pair(off: &Report, on: &Report) {
    let (f0, f1) = (
        off.fs.as_ref().and_then(|f| f.f2fs()).unwrap(),
        on.fs.as_ref().and_then(|f| f.f2fs()).unwrap(),
    );
    // Off: the report has no offload keys, the device no copies.
    assert_eq!(f0.gc.copy_offload_bytes, None);
    assert_eq!(off.device.copy_commands, 0);
    let moved = f0.bytes_written.gc;
    assert!(moved > 64 << 20, "a GC-heavy run: {moved} GC bytes");
    assert_eq!(
        f0.gc.read_bytes, moved,
        "without offload GC reads what it moves"
    );
    assert_eq!(f0.enospc, 0);
    // Same FS end state and FS write counts.
    assert_eq!(fs_state(off), fs_state(on));
    // On: no GC reads; copies carry (nearly) everything moved.
    let copied = f1.gc.copy_offload_bytes.expect("offload bytes reported");
    let saved = f1.gc.link_bytes_saved.expect("link bytes saved reported");
    assert_eq!(f1.gc.read_bytes, 0);
    assert!(
        copied <= moved && copied * 100 >= moved * 99,
        "{copied} of {moved}"
    );
    assert_eq!(on.device.copy_pages * 4096, copied);
    assert!(on.device.copy_commands > 0 && on.device.copy_commands < on.device.copy_pages);
    // The link carries exactly the saved bytes fewer: about twice the bytes moved.
    let (l0, l1) = (off.device.link_bytes.total(), on.device.link_bytes.total());
    assert_eq!(l0 - l1, saved, "link {l0} -> {l1}");
    assert!(saved >= 2 * copied && saved <= 2 * moved);
    // No zone rule was broken by a copy (or anything else).
    assert_eq!(on.device.zones.errors.total(), 0);
    assert_eq!(off.device.zones.errors.total(), 0);
    // The JSON shows the device's link bytes only when copies happened.
    let d0 = serde_json::to_value(&off.device).unwrap();
    let d1 = serde_json::to_value(&on.device).unwrap();
    assert!(d0.get("link_bytes").is_none() && d0.get("copy_commands").is_none());
    assert_eq!(
        d1["link_bytes"]["host_to_device"].as_u64().unwrap()
            + d1["link_bytes"]["device_to_host"].as_u64().unwrap(),
        l1
    );
}

#[test]
fn conventional_offload_saves_link_bytes_same_fs_state() {
    let wl = workload(84, 256);
    let off = run(&conventional(false), &wl, Precondition::None, 1);
    let on = run(&conventional(true), &wl, Precondition::None, 1);
    check_pair(&off, &on);
}

#[test]
fn zoned_offload_copies_to_the_write_pointer() {
    let wl = workload(20, 160);
    let off = run(&zoned(false), &wl, Precondition::None, 1);
    let on = run(&zoned(true), &wl, Precondition::None, 1);
    assert_eq!(
        on.fs
            .as_ref()
            .and_then(|f| f.f2fs())
            .unwrap()
            .layout
            .main_namespace,
        1
    );
    assert!(on.fs.as_ref().and_then(|f| f.f2fs()).unwrap().layout.zoned);
    check_pair(&off, &on);
}

#[test]
fn offload_is_deterministic() {
    let wl = workload(20, 160);
    let a = run(&zoned(true), &wl, Precondition::None, 7);
    let b = run(&zoned(true), &wl, Precondition::None, 7);
    assert!(a.device.copy_commands > 0);
    let (ja, jb) = (
        serde_json::to_value(&a.device).unwrap(),
        serde_json::to_value(&b.device).unwrap(),
    );
    assert_eq!(ja, jb);
    assert_eq!(fs_state(&a), fs_state(&b));
}
