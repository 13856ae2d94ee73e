//! `zonesim import mqsim`: MQSim's example files imported and run; bad XML and bad values as
//! one line naming the file, line and element.

mod common;

use common::{dir, ok, repo, s, zonesim};
use std::process::Command;

#[test]
fn mqsim_example_imports_and_runs() {
    let d = dir("mqsim");
    let fx = repo().join("tests/fixtures/mqsim");
    let out_dir = d.join("imp");
    let out = zonesim(&[
        "import",
        "mqsim",
        s(&fx.join("ssdconfig.xml")),
        s(&fx.join("workload.xml")),
        "--out",
        s(&out_dir),
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    // Parameters set away from MQSim's defaults without an equivalent: warned once each.
    for p in ["Data_Cache_DRAM_Data_Rate", "Transaction_Scheduling_Policy"] {
        assert_eq!(err.matches(p).count(), 1, "{p}: {err}");
    }
    assert!(
        !err.contains("Use_Copyback_for_GC"),
        "defaults are not warned: {err}"
    );
    let toml = std::fs::read_to_string(out_dir.join("mqsim-ssdconfig.toml")).unwrap();
    for k in [
        "channels = 8",
        "chips_per_channel = 4",
        "blocks_per_plane = 2048",
        "page_bytes = 8192",
        "cell = \"mlc\"",
        "program_us = 750.0",
        "l2p_cache_bytes = 2097152",
        "victim = \"d_choice\"",
        "threshold_free_superblocks = 102",
        "bytes = 268435456",
    ] {
        assert!(toml.contains(k), "{k}:\n{toml}");
    }
    let s1 = std::fs::read_to_string(out_dir.join("scenario-1.fio")).unwrap();
    for k in [
        "rw=randwrite",
        "bs=4096",
        "iodepth=16",
        "iodepth=2",
        "offset=50%",
        "size=25%",
        "runtime=10s",
    ] {
        assert!(s1.contains(k), "{k}:\n{s1}");
    }
    assert!(out_dir.join("scenario-3.sh").exists());
    // The imported device, as written, runs the imported jobs (their 10 simulated seconds cut
    // to 2 ms: 6 million requests are too many for a test).
    let short = d.join("s1-short.fio");
    std::fs::write(&short, s1.replace("runtime=10s", "runtime=2ms")).unwrap();
    let dev = out_dir.join("mqsim-ssdconfig.toml");
    let text = ok(&["run", "--device", s(&dev), "--workload", s(&short)]);
    assert!(
        text.contains("mqsim-ssdconfig") && text.contains("flow1"),
        "{text}"
    );
    // The trace-based scenario's command replays the trace (from tests/fixtures, where MQSim's
    // relative path traces/tpcc-small.trace resolves), on a smaller copy of the device.
    let sh = std::fs::read_to_string(out_dir.join("scenario-3.sh")).unwrap();
    assert!(sh.contains("--trace traces/tpcc-small.trace"), "{sh}");
    let out = Command::new(env!("CARGO_BIN_EXE_zonesim"))
        .current_dir(repo().join("tests/fixtures"))
        .args([
            "run",
            "--device",
            s(&dev),
            "--set",
            "nand.blocks_per_plane=64",
            "--set",
            "ftl.gc.threshold_free_superblocks=1",
            "--trace",
            "traces/tpcc-small.trace",
            "--trace-format",
            "disksim",
            "--trace-max-requests",
            "500",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Deterministic output.
    let again = d.join("again");
    ok(&[
        "import",
        "mqsim",
        s(&fx.join("ssdconfig.xml")),
        s(&fx.join("workload.xml")),
        "--out",
        s(&again),
    ]);
    assert_eq!(
        toml,
        std::fs::read_to_string(again.join("mqsim-ssdconfig.toml")).unwrap()
    );
}

#[test]
fn mqsim_bad_input_is_one_line_with_file_line_and_element() {
    let d = dir("mqsim-bad");
    let fx = repo().join("tests/fixtures/mqsim");
    let wl = fx.join("workload.xml");
    let bad = d.join("broken.xml");
    std::fs::write(
        &bad,
        "<?xml version=\"1.0\"?>\n<Execution_Parameter_Set>\n  <Device_Parameter_Set>\n    <Seed>1</Seedx>\n  </Device_Parameter_Set>\n</Execution_Parameter_Set>\n",
    )
    .unwrap();
    let value = d.join("value.xml");
    std::fs::write(
        &value,
        "<?xml version=\"1.0\"?>\n<Execution_Parameter_Set>\n  <Device_Parameter_Set>\n    <Flash_Channel_Count>eight</Flash_Channel_Count>\n  </Device_Parameter_Set>\n</Execution_Parameter_Set>\n",
    )
    .unwrap();
    let cut = d.join("cut.xml");
    std::fs::write(
        &cut,
        "<?xml version=\"1.0\"?>\n<Execution_Parameter_Set>\n  <Device_Parameter_Set>\n    <Flash_Channel_Count>8\n",
    )
    .unwrap();
    for (file, needles) in [
        (&bad, ["broken.xml:4:", "<Seed>"]),
        (&value, ["value.xml:4:", "<Flash_Channel_Count>"]),
        (&cut, ["cut.xml:4:", "<Flash_Channel_Count>"]),
    ] {
        let out = zonesim(&["import", "mqsim", s(file), s(&wl), "--out", s(&d.join("o"))]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        for n in needles {
            assert!(err.contains(n), "'{err}' lacks '{n}'");
        }
    }
}
