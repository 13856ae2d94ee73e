//! The one run path: every kind of workload — fio jobs, traces, aging scenarios — goes through
//! `RunSpec` + `execute`, the step-wise `run_device` gives the same report on a fresh device,
//! and a simulator bug is an internal error (exit 70), never bad input (exit 2).

use crate::common;
use std::path::PathBuf;
use zonesim::device::Device;
use zonesim::sim::{run_device, Precondition, RunOptions};
use zonesim::{Control, Error, RunSpec, WorkloadSpec};

fn tiny_scenario() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/scenarios/tiny-aging.toml")
}

fn scenario_spec() -> RunSpec {
    let cfg = common::device("conzone-paper", &["fs.kind=f2fs"]);
    RunSpec::new(cfg, WorkloadSpec::ScenarioFile(tiny_scenario())).check_invariants(true)
}

#[test]
fn a_scenario_runs_through_the_facade() {
    let r = scenario_spec().run().expect("scenario runs");
    let sc = r.scenario.as_ref().expect("scenario section");
    assert_eq!(sc.name, "tiny-aging");
    assert_eq!(sc.iterations.len(), 3);
    assert_eq!(sc.stopped_by, "max_iterations");
    assert!(r.fs.is_some() && r.end_to_end_waf.is_some());
    assert!(r.host.write.ios > 0 && r.host.read.ios > 0);
    assert_eq!(r.sim.requests_issued, r.sim.requests_completed);
}

#[test]
fn run_device_on_a_fresh_device_is_execute() {
    let spec = scenario_spec();
    let a = spec.run().unwrap();
    let mut dev = Device::new(&spec.device, spec.options.seed).unwrap();
    let b = run_device(
        &mut dev,
        &spec.workload,
        &spec.options,
        &mut Control::none(),
    )
    .unwrap();
    assert_eq!(a.deterministic_json(), b.deterministic_json());
    let jobs = common::jobs("[w]\nrw=randwrite\nbs=4k\nnumber_ios=2000\n");
    let spec = RunSpec::new(common::device("ufs-conventional", &[]), jobs).seed(5);
    let a = spec.run().unwrap();
    let mut dev = Device::new(&spec.device, 5).unwrap();
    let b = run_device(
        &mut dev,
        &spec.workload,
        &spec.options,
        &mut Control::none(),
    )
    .unwrap();
    assert_eq!(a.deterministic_json(), b.deterministic_json());
}

#[test]
fn a_scenario_refuses_preconditioning_and_a_device_without_fs() {
    let e = scenario_spec()
        .precondition(Precondition::Seq)
        .run()
        .unwrap_err();
    assert!(matches!(e, Error::Usage(_)), "{e}");
    assert!(e.to_string().contains("--precondition seq"), "{e}");
    let cfg = common::device("conzone-paper", &[]);
    let e = RunSpec::new(cfg, WorkloadSpec::ScenarioFile(tiny_scenario()))
        .run()
        .unwrap_err();
    assert!(e.to_string().contains("host file system"), "{e}");
    assert_eq!(e.exit_code(), 2);
}

#[test]
fn a_broken_invariant_is_an_internal_error() {
    // Break an invariant as only a simulator bug could (the L2P SRAM holding more than its
    // budget) and run with the checks on.
    let cfg = common::device("ufs-conventional", &["nand.blocks_per_plane=64"]);
    let mut dev = Device::new(&cfg, 1).unwrap();
    dev.sram.break_budget_for_test();
    let opts = RunOptions {
        check_invariants: true,
        ..RunOptions::default()
    };
    let jobs = common::jobs("[w]\nrw=randwrite\nbs=4k\nnumber_ios=2000\n");
    let e = run_device(&mut dev, &jobs, &opts, &mut Control::none()).unwrap_err();
    assert!(matches!(e, Error::Internal(_)), "{e}");
    assert_eq!(e.exit_code(), 70);
    assert!(e.to_string().starts_with("internal error"), "{e}");
}
