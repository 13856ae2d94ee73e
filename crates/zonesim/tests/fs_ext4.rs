//! The ext4 model in runs (docs/ext4.md): fio file jobs and an aging scenario on
//! `fs.kind = "ext4"` with the invariants checked, the report's `fs` section saying `ext4`,
//! determinism, and the refusal of a zoned namespace.

use crate::common;

use common::{device, jobs, run};
use serde_json::Value;
use zonesim::sim::{Precondition, RunOptions, WorkloadSpec};

/// Four 16 MiB files written at random with an fsync every 8 writes, then read back.
const FILES: &str = "[global]\nbs=4k\ndirectory=/db\nnrfiles=4\nsize=64m\n\
    [w]\nrw=randwrite\nfsync=8\nnumber_ios=8000\n\
    [r]\nstonewall\nrw=read\nbs=128k\n";

fn fs(r: &zonesim::stats::Report) -> Value {
    serde_json::to_value(r.fs.as_ref().expect("fs section")).unwrap()
}

#[test]
fn file_jobs_run_on_ext4() {
    let cfg = device("ufs-conventional", &["fs.kind=ext4"]);
    let r = run(&cfg, &jobs(FILES), Precondition::None, 1);
    let f = fs(&r);
    assert_eq!(f["kind"], "ext4");
    assert_eq!(f["enospc"], 0);
    // The writes, and the read job's own files laid out first (fio writes them).
    assert_eq!(f["user_bytes_requested"], 8000 * 4096 + (64 << 20));
    // fio preallocates write jobs' files: unwritten extents, converted as they are written.
    assert_eq!(f["allocation"]["fallocated_blocks"], 4 * 4096);
    assert!(f["extents_per_file"]["mean"].as_f64().unwrap() > 4.0, "{f}");
    // One journal commit per fsync (each changed the inode), each with a commit block; the
    // read job's layout adds one fsync per file.
    let j = &f["journal"];
    assert_eq!(j["commits_fsync"], 1000 + 4, "{j}");
    assert_eq!(j["commit_blocks"], j["commits"]);
    assert!(f["waf"].as_f64().unwrap() > 1.0);
    // Deterministic: the same run gives the same section.
    let again = run(&cfg, &jobs(FILES), Precondition::None, 1);
    assert_eq!(fs(&again), f);
}

#[test]
fn buffered_appends_are_allocated_at_writeback() {
    let cfg = device("ufs-conventional", &["fs.kind=ext4", "fs.ext4.commit=1"]);
    let wl =
        jobs("[a]\nrw=write\nbs=64k\nfilename=/log\nsize=32m\ncreate_on_open=1\nend_fsync=1\n");
    let r = run(&cfg, &wl, Precondition::None, 1);
    let f = fs(&r);
    assert_eq!(f["allocation"]["fallocated_blocks"], 0);
    assert_eq!(f["allocation"]["allocated_blocks"], 8192);
    // Delayed allocation keeps one sequential file in few extents.
    assert!(f["extents_per_file"]["max"].as_u64().unwrap() <= 4, "{f}");
}

#[test]
fn an_aging_scenario_runs_on_ext4() {
    let sc = zonesim::host::scenario::Scenario::parse(
        "name = \"age\"\n[repeat]\nmax_iterations = 3\n\
         [[repeat.step]]\nop = \"create\"\ndir = \"/age\"\nfiles = 64\nsize = \"128k\"\nbs = \"128k\"\n\
         [[repeat.step]]\nop = \"delete_every\"\ndir = \"/age\"\nk = 2\n\
         [[repeat.step]]\nop = \"write\"\nfile = \"/t/big\"\nsize = \"8m\"\n\
         [[repeat.step]]\nop = \"read\"\nfile = \"/t/big\"\n\
         [[repeat.step]]\nop = \"unlink\"\nfile = \"/t/big\"\n",
        "age.toml",
    )
    .unwrap();
    let cfg = device("ufs-conventional", &["fs.kind=ext4"]);
    let opts = RunOptions {
        seed: 1,
        precondition: Precondition::None,
        namespace: 0,
        check_invariants: true,
        power_off: None,
    };
    let r = zonesim::RunSpec::new(cfg, WorkloadSpec::Scenario(sc))
        .options(opts)
        .run()
        .unwrap();
    let s = r.scenario.as_ref().unwrap();
    assert_eq!(s.iterations.len(), 3);
    let it = serde_json::to_value(&s.iterations[2]).unwrap();
    assert!(it["journal_commits"].as_u64().unwrap() > 0, "{it}");
    assert_eq!(fs(&r)["kind"], "ext4");
}

#[test]
fn ext4_on_a_zoned_namespace_is_refused() {
    let cfg = zonesim::config::DeviceConfig::load("conzone-paper", &["fs.kind=ext4".into()]);
    let msg = match cfg {
        Err(e) => e.to_string(),
        Ok(cfg) => zonesim::RunSpec::new(cfg, jobs("[w]\nrw=write\nsize=1m\n"))
            .options(RunOptions {
                seed: 1,
                precondition: Precondition::None,
                namespace: 1,
                check_invariants: true,
                power_off: None,
            })
            .run()
            .expect_err("refused")
            .to_string(),
    };
    assert!(msg.contains("conventional namespace"), "{msg}");
}

#[test]
fn the_host_cpu_charges_ext4_steps() {
    let cfg = device("ufs-conventional", &["fs.kind=ext4", "host.cpu.cores=2"]);
    let wl = jobs("[w]\nrw=randwrite\nbs=4k\nsize=8m\nfsync=4\nnumber_ios=400\n");
    let r = run(&cfg, &wl, Precondition::None, 1);
    let t =
        &serde_json::to_value(r.host_cpu.as_ref().expect("host_cpu section")).unwrap()["time_ns"];
    for step in [
        "ext4_write",
        "ext4_fsync",
        "ext4_commit",
        "ext4_journal_block",
    ] {
        assert!(t[step].as_u64().unwrap() > 0, "{step}: {t}");
    }
    for step in ["f2fs_write", "f2fs_fsync", "f2fs_node", "f2fs_checkpoint"] {
        assert_eq!(t[step], 0, "{step}: {t}");
    }
}

#[test]
fn f2fs_keys_are_refused_with_ext4() {
    let e = zonesim::config::DeviceConfig::load(
        "ufs-conventional",
        &["fs.kind=ext4".into(), "fs.mode=lfs".into()],
    )
    .expect_err("refused")
    .to_string();
    assert!(e.contains("fs.mode") && e.contains("F2FS key"), "{e}");
}
