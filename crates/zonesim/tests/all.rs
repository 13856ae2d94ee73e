//! zonesim's integration tests, linked as one test binary: one binary per file linked the whole
//! simulator 21 times, which cost CI (2 cores, 15-minute budget) minutes of linking and over a
//! gigabyte of disk. Each file under `tests/` is a module here; `every_test_file_is_a_module`
//! fails when a file is added without its `mod` line (with `autotests = false` Cargo would not
//! build it at all).

mod clock_gating;
mod common;
mod config_keys;
mod correctness;
mod emulation;
mod firmware;
mod fs_copy_offload;
mod fs_ext4;
mod fs_ipu;
mod fs_presets;
mod fuzz;
mod host_cpu;
mod iotailor;
mod ipu_copy;
mod issue_ahead;
mod layout;
mod mixed_features;
mod namespace_contract;
mod ordering;
mod persist;
mod placement;
mod power;
mod power_emulation;
mod power_zoned;
mod report_schema;
mod run_path;
mod slc_cache;
mod slc_writeback;
mod steady_fast;
mod sysbench;
mod theory;
mod timeseries;
mod timing;
mod tiny_spare;
mod trace_replay;
mod wear_life;
mod wear_regions;
mod zoned;

/// Every `tests/*.rs` file is declared above, so none is silently left out of the build.
#[test]
fn every_test_file_is_a_module() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests");
    let this = include_str!("all.rs");
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let Some(stem) = path.file_stem().and_then(|s| s.to_str()) else {
            continue;
        };
        if path.extension().is_some_and(|e| e == "rs") && stem != "all" {
            let line = format!("\nmod {stem};\n");
            assert!(
                this.contains(&line),
                "tests/{stem}.rs is not declared in tests/all.rs"
            );
        }
    }
}
