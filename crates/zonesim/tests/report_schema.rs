//! The JSON schema of the report is what docs/report.md documents: the key paths of a
//! conventional run (fio jobs, Bloom placement) and of zoned runs (trace replay, timed and as
//! fast as possible, with zone errors) and of an emulated device (`emu`) together equal the list under "All key paths" in
//! docs/report.md. A key renamed, added or removed without the docs fails here.

use crate::common;

use common::{device, jobs, run};
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::PathBuf;
use zonesim::config::DeviceConfig;
use zonesim::sim::{Precondition, ReplayMode, RunOptions, TraceReplay, WorkloadSpec};

/// Objects whose keys are data (region names, zone conditions), not schema: listed as `*`.
const DYNAMIC_KEYS: [&str; 2] = ["device.wear.regions", "device.namespaces[].zone_conditions"];

/// Every key path of `v` under `prefix`: objects add `.key`, arrays add `[]` and list the
/// paths of their elements.
fn paths(v: &Value, prefix: &str, out: &mut BTreeSet<String>) {
    if prefix == "provenance.device" {
        return; // the device config, whose keys docs/config.md lists
    }
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                let k = if DYNAMIC_KEYS.contains(&prefix) {
                    "*"
                } else {
                    k
                };
                let p = if prefix.is_empty() {
                    k.to_string()
                } else {
                    format!("{prefix}.{k}")
                };
                out.insert(p.clone());
                paths(x, &p, out);
            }
        }
        Value::Array(a) => {
            for x in a {
                paths(x, &format!("{prefix}[]"), out);
            }
        }
        _ => {}
    }
}

/// The fenced block after the "All key paths" heading of docs/report.md.
fn documented() -> BTreeSet<String> {
    let doc = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/report.md");
    let text = std::fs::read_to_string(&doc).expect("docs/report.md");
    let section = text
        .split("\n## All key paths")
        .nth(1)
        .expect("docs/report.md has an \"All key paths\" section");
    let block = section
        .split("```")
        .nth(1)
        .expect("a fenced block of key paths");
    block
        .lines()
        .skip(1) // the fence's info string
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(String::from)
        .collect()
}

fn zoned_trace(mode: ReplayMode) -> Value {
    let data = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let cfg = DeviceConfig::load(data.join("small-zoned.toml").to_str().unwrap(), &[]).unwrap();
    let mut t = TraceReplay::new(data.join("zoned-out-of-order.disksim"), mode);
    t.fold = false;
    t.continue_on_error = true; // the zone errors are what this report must show
    let opts = RunOptions {
        seed: 3,
        precondition: Precondition::None,
        namespace: 1,
        check_invariants: true,
        power_off: None,
    };
    let r = zonesim::RunSpec::new(cfg.clone(), WorkloadSpec::Trace(t))
        .options(opts.clone())
        .run()
        .unwrap();
    assert!(
        r.device.zones.errors.total() > 0,
        "first_errors is not empty"
    );
    serde_json::to_value(&r).unwrap()
}

fn conventional() -> Value {
    let cfg = device(
        "ufs-conventional",
        &[
            "nand.blocks_per_plane=256",
            "nand.channels=2",
            "ftl.gc.placement=bloom",
            "ftl.gc.bloom.record_gc=true",
            "ftl.cost.cores=2",
            "stats.interval_ms=1",
            "host.cpu.cores=2",
            "nand.errors=true",
        ],
    );
    let wl = jobs("[w]\nrw=randwrite\nbs=4k\niodepth=8\nnumber_ios=2000\n[r]\nrw=randread\nbs=4k\niodepth=4\nnumber_ios=500\n");
    serde_json::to_value(run(&cfg, &wl, Precondition::None, 1)).unwrap()
}

/// A power cut mid-write (the `power` section with its loss, recovery, states and energy;
/// `sim.requests_cut`).
fn power_cut() -> Value {
    // With clock gating on the dispatch path (`power.states.{gatings, requeues, ...}`).
    let sets = ["nand.blocks_per_plane=64", "power.clock_gating=requeue"];
    let cfg = device("ufs-conventional", &sets);
    let wl = jobs("[w]\nrw=randwrite\nbs=4k\niodepth=32\nnumber_ios=2000\n");
    let opts = RunOptions {
        seed: 1,
        precondition: Precondition::None,
        namespace: 0,
        check_invariants: true,
        power_off: Some(zonesim::sim::PowerOff::AtRequest(1000)),
    };
    let r = zonesim::RunSpec::new(cfg, wl).options(opts).run().unwrap();
    serde_json::to_value(r).unwrap()
}

/// A conventional namespace with its SLC write cache (`device.namespaces[].slc`).
fn conventional_slc_cache() -> Value {
    let cfg = device(
        "ufs-conventional",
        &[
            "nand.blocks_per_plane=72",
            "nand.slc_blocks_per_plane=8",
            "slc.conventional_buffer=true",
            "slc.gc=migrate",
            // The lifetime fields of `device.wear` (firmware/wear).
            "nand.endurance_pe=3000",
        ],
    );
    let wl = jobs("[w]\nrw=randwrite\nbs=4k\nfsync=1\nnumber_ios=200\n");
    serde_json::to_value(run(&cfg, &wl, Precondition::None, 1)).unwrap()
}

/// A device driven through the emulation handle: sparse store with verify (and one page changed
/// behind it, so the mismatch offset appears), a recorded trace.
fn emulated() -> Value {
    use std::os::unix::fs::FileExt;
    use zonesim::emu::{Handle, HandleOptions, RecordFormat, StoreSpec};
    let dir = std::env::temp_dir().join(format!("zonesim-schema-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let img = dir.join("store.img");
    let _ = std::fs::remove_file(&img); // a store holding data would be refused
    let mut h = Handle::open(HandleOptions {
        device: concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/small-zoned.toml").into(),
        store: StoreSpec::Sparse(img.clone()),
        verify: true,
        record: Some((dir.join("rec.iolog"), RecordFormat::Iolog)),
        ..Default::default()
    })
    .unwrap();
    let t = h.write(0, &[1u8; 8192]).unwrap();
    h.complete(&t);
    let f = std::fs::OpenOptions::new().write(true).open(&img).unwrap();
    f.write_all_at(&[2], 10).unwrap();
    assert!(h.read(0, &mut [0u8; 8192]).is_err());
    serde_json::to_value(h.finish().unwrap()).unwrap()
}

#[test]
fn report_key_paths_are_the_documented_ones() {
    let mut emitted = BTreeSet::new();
    for r in [
        conventional(),
        power_cut(),
        conventional_slc_cache(),
        zoned_trace(ReplayMode::AsFastAsPossible { qd: 1 }),
        zoned_trace(ReplayMode::Timed { time_scale: 1.0 }),
        emulated(),
    ] {
        paths(&r, "", &mut emitted);
    }
    let documented = documented();
    let undocumented: Vec<_> = emitted.difference(&documented).collect();
    let missing: Vec<_> = documented.difference(&emitted).collect();
    assert!(
        undocumented.is_empty() && missing.is_empty(),
        "docs/report.md \"All key paths\" is out of date.\nemitted but not documented:\n{}\n\
         documented but not emitted:\n{}",
        undocumented
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        missing
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join("\n"),
    );
}
