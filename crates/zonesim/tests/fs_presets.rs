//! The F2FS-like host model works on the conventional presets and on the ConZone+, ZMS and ZUFS
//! presets (docs/fs.md, "On every preset"). Every shipped preset runs a file workload (create,
//! random overwrite with fsync, large sequential reads) with the invariants checked (debug builds);
//! the zoned ZMS and ZUFS presets, scaled down, also run under file-system GC pressure. mkfs.f2fs's
//! reserve formula cannot fit the scaled 12-zone ZUFS preset: that is a clear configuration error
//! naming `fs.reserved_segments`.

use crate::common;

use common::{device, jobs, run};
use serde_json::Value;
use zonesim::config::DeviceConfig;
use zonesim::sim::Precondition;
use zonesim::stats::Report;

/// Eight 8 MiB files written sequentially; 32 MiB of 4 KiB random writes with an fsync every 32
/// on a second job's eight files; a third job's files read in 512 KiB requests (fio names files
/// per job, `jobname.jobnum.filenum`, and lays a read job's files out first: 64 MiB more).
const FILES: &str = "[global]\nbs=4k\niodepth=4\ndirectory=/data\nnrfiles=8\nfilesize=8m\n\
    [fill]\nrw=write\n\
    [over]\nstonewall\nrw=randwrite\nnorandommap=1\nio_size=32m\nfsync=32\n\
    [read]\nstonewall\nrw=read\nbs=512k\n";

/// The `--set` keys a preset needs for `--fs f2fs`: the 12-zone ZUFS preset takes the paper's
/// explicit reserve, scaled (2 sections instead of mkfs's formula).
fn fs_sets(preset: &str) -> Vec<&'static str> {
    let mut v = vec!["fs.kind=f2fs"];
    if preset == "zufs-2026" {
        v.push("fs.reserved_segments=1056");
    }
    v
}

fn fs(r: &Report) -> Value {
    serde_json::to_value(r.fs.as_ref().expect("fs section in the report")).unwrap()
}

fn zone_errors(r: &Report) -> u64 {
    let d = serde_json::to_value(&r.device).unwrap();
    d["zones"]["errors"]
        .as_object()
        .unwrap()
        .values()
        .map(|v| v.as_u64().unwrap())
        .sum()
}

/// Checks common to every file run: all user bytes written and read, no ENOSPC, no zone
/// error, write amplifications consistent.
fn check_run(name: &str, r: &Report, user: u64, read: u64) -> Value {
    let f = fs(r);
    assert_eq!(f["enospc"], 0, "{name}: ENOSPC");
    assert_eq!(f["user_bytes_requested"], user, "{name}: user bytes");
    assert_eq!(f["user_bytes_read"], read, "{name}: bytes read");
    assert_eq!(zone_errors(r), 0, "{name}: zone errors");
    let waf = f["waf"].as_f64().unwrap();
    let e2e = f["end_to_end_waf"].as_f64().unwrap();
    assert!(waf >= 1.0, "{name}: FS WAF {waf}");
    assert!(e2e >= 1.0, "{name}: end-to-end WAF {e2e}");
    f
}

#[test]
fn every_preset_runs_a_file_workload() {
    let wl = jobs(FILES);
    for &(preset, _, _) in zonesim::config::PRESETS {
        let cfg = device(preset, &fs_sets(preset));
        let r = run(&cfg, &wl, Precondition::None, 1);
        let f = check_run(preset, &r, (64 + 32 + 64) << 20, 64 << 20);
        let zoned = f["layout"]["zoned"].as_bool().unwrap();
        let has_zoned_ns = cfg
            .namespaces
            .iter()
            .any(|n| matches!(n.kind, zonesim::config::NamespaceKind::Zoned));
        assert_eq!(
            zoned, has_zoned_ns,
            "{preset}: main area on the zoned namespace"
        );
        if zoned {
            assert_eq!(
                f["mode"], "lfs",
                "{preset}: LFS forced on a zoned namespace"
            );
        }
        // 512 KiB sequential reads of freshly written files: mostly large device reads.
        let rs = &f["read_sizes"];
        let big = rs["buckets_kib"]
            .as_array()
            .unwrap()
            .last()
            .unwrap()
            .as_u64()
            .unwrap();
        let all = rs["requests"].as_u64().unwrap();
        assert!(all > 0 && big * 2 > all, "{preset}: read sizes {rs}");
        assert_eq!(rs["bytes"], 64u64 << 20, "{preset}: device read bytes");
    }
}

#[test]
fn zufs_preset_without_a_reserve_is_a_clear_error() {
    let sets = vec!["fs.kind=f2fs".to_string()];
    let cfg = zonesim::load_device("zufs-2026", &sets).expect("valid device");
    let opts = zonesim::sim::RunOptions {
        seed: 1,
        precondition: Precondition::None,
        namespace: 0,
        check_invariants: true,
        power_off: None,
    };
    let Err(err) = zonesim::RunSpec::new(cfg.clone(), jobs(FILES))
        .options(opts.clone())
        .run()
    else {
        panic!("mkfs's reserve does not fit 12 sections");
    };
    let msg = err.to_string();
    assert!(msg.contains("fs.reserved_segments"), "{msg}");
    assert!(!msg.contains('\n'), "one line: {msg}");
}

/// A preset with the file system on, rescaled by `f` and validated.
fn rescaled(preset: &str, reserve: &str, f: impl FnOnce(&mut DeviceConfig)) -> DeviceConfig {
    let mut cfg = device(preset, &["fs.kind=f2fs", reserve]);
    f(&mut cfg);
    cfg.validate().expect("valid rescaled device");
    cfg
}

/// zms-2024 with 24 zones of 34.5 MiB (276-page blocks, as `zms-randwrite --quick`); 2-section
/// reserve.
fn small_zms() -> DeviceConfig {
    rescaled("zms-2024", "fs.reserved_segments=34", |c| {
        c.nand.pages_per_block /= 4;
        c.zone.capacity_bytes /= 4;
        c.namespaces[0].capacity_bytes /= 4;
        c.namespaces[1].zones = 24;
    })
}

/// zufs-2026 with 24 zones of 66 MiB (zones 16x smaller as `zufs-fragmentation` makes them 8x,
/// the SLC pool the same size); the paper's 12-section reserve scaled to 2 sections.
fn small_zufs() -> DeviceConfig {
    rescaled("zufs-2026", "fs.reserved_segments=66", |c| {
        c.split_zones(16);
        c.namespaces[1].zones = 24;
    })
}

/// The user capacity the file system offers on `cfg`, in MiB.
fn user_mib(cfg: &DeviceConfig) -> u64 {
    let probe = jobs("[p]\nrw=write\ndirectory=/d\nfilesize=4k\nnrfiles=1\n");
    let r = run(cfg, &probe, Precondition::None, 1);
    fs(&r)["layout"]["user_capacity_bytes"].as_u64().unwrap() >> 20
}

/// 16 files holding about 60 % of the file system, written by 4 KiB random writes of twice
/// their size (the first pass fills them, the rest overwrites): F2FS's GC must clean sections
/// and reset zones, with the invariants checked before and after.
#[test]
fn zoned_presets_under_fs_gc_pressure() {
    for (name, cfg) in [
        ("zms-2024 (24 zones of 34.5 MiB)", small_zms()),
        ("zufs-2026 (24 zones of 66 MiB)", small_zufs()),
    ] {
        let filesize = user_mib(&cfg) * 6 / 10 / 16;
        let total = filesize * 16 * 2;
        let wl = jobs(&format!(
            "[w]\ndirectory=/data\nnrfiles=16\nfilesize={filesize}m\nrw=randwrite\nbs=4k\n\
             iodepth=8\nnorandommap=1\nio_size={total}m\nfsync=256\n"
        ));
        let r = run(&cfg, &wl, Precondition::None, 7);
        let f = check_run(name, &r, total << 20, 0);
        let gc = &f["gc"];
        let moved: u64 = ["foreground", "background_normal", "background_boosted"]
            .iter()
            .map(|k| gc[k]["blocks_moved"].as_u64().unwrap())
            .sum();
        assert!(moved > 0, "{name}: no GC under pressure: {gc}");
        eprintln!(
            "{name}: {filesize} MiB x 16 files, GC moved {moved} blocks, FS WAF {}",
            f["waf"]
        );
        assert!(
            f["zone_resets"].as_u64().unwrap() > 0,
            "{name}: no zone reset"
        );
        assert!(
            f["waf"].as_f64().unwrap() > 1.05,
            "{name}: FS WAF {}",
            f["waf"]
        );
    }
}

/// conzone-paper's metadata namespace is what `zonesim layout` advises for its zoned namespace
/// (ConZone+ §4.1), and the file system mounted on it has mkfs.f2fs's main area: every zone of
/// the zoned namespace.
#[test]
fn conzone_paper_metadata_namespace_is_the_layout_advice() {
    use zonesim::host::fs::layout::namespaces::{size_namespaces, PhysicalSizing};
    let cfg = device("conzone-paper", &["fs.kind=f2fs"]);
    let dev = zonesim::device::Device::new(&cfg, 1).unwrap();
    let zone = dev.zones(1).unwrap().zone_config().zone_size * zonesim::nand::SLOT_BYTES;
    let data = dev.capacity_bytes(1);
    let advice = size_namespaces(data, zone, &PhysicalSizing::default()).unwrap();
    assert_eq!(dev.capacity_bytes(0), advice.conventional_logical_bytes);
    let probe = jobs("[p]\nrw=write\ndirectory=/d\nfilesize=4k\nnrfiles=1\n");
    let r = run(&cfg, &probe, Precondition::None, 1);
    let layout = &fs(&r)["layout"];
    assert_eq!(layout["main_namespace"], 1);
    assert_eq!(layout["sections"], advice.f2fs.main_zones);
    assert_eq!(layout["segs_per_sec"], advice.f2fs.segs_per_zone);
}
