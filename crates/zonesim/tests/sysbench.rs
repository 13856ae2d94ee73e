//! A `sysbench` scenario step end to end: InnoDB on the F2FS model on a device, with the
//! invariants on; the `app` section; determinism; bad tables refused as input.

use crate::common;
use zonesim::error::Error;
use zonesim::host::scenario::Scenario;
use zonesim::{RunSpec, WorkloadSpec};

fn spec(step: &str) -> RunSpec {
    spec_with(step, &[])
}

fn spec_with(step: &str, set: &[&str]) -> RunSpec {
    let sc = Scenario::parse(&format!("[[step]]\nsysbench = {{ {step} }}\n"), "sb.toml").unwrap();
    let set: Vec<&str> = ["fs.kind=f2fs"].iter().chain(set).copied().collect();
    let cfg = common::device("ufs-conventional", &set);
    RunSpec::new(cfg, WorkloadSpec::Scenario(sc)).check_invariants(true)
}

const RW: &str = "test = \"oltp_read_write\", tables = 2, table_size = 30000, threads = 4, time_s = 1, buffer_pool_mb = 5";

#[test]
fn sysbench_reports_tps_and_innodb_counters() {
    let r = spec(RW).run().expect("sysbench runs");
    let app = r.app.as_ref().expect("app section");
    let (s, i) = (&app.sysbench, &app.innodb);
    assert!(s.transactions > 50 && s.tps > 0.0, "{s:?}");
    assert!(s.latency_us.p95 >= s.latency_us.mean * 0.5 && s.latency_us.p99 >= s.latency_us.p95);
    assert!(
        i.pages_read > 0 && i.log_bytes_written > 0 && i.commit_groups > 0,
        "{i:?}"
    );
    assert_eq!(i.doublewrite_pages, i.pages_written);
    assert!(i.checkpoint_age_max <= i.log_capacity);
    assert!(r.device.flash.programmed_slots > 0);
    let b = spec(RW).run().unwrap();
    assert_eq!(r.deterministic_json(), b.deterministic_json());
}

#[test]
fn tables_larger_than_the_file_system_are_bad_input() {
    let e = spec(
        "test = \"oltp_write_only\", tables = 100, table_size = 9000000, threads = 1, time_s = 1",
    )
    .run()
    .unwrap_err();
    assert!(matches!(e, Error::Usage(_)), "{e}");
    assert_eq!(e.exit_code(), 2);
    assert!(
        e.to_string()
            .contains("sysbench: 100 tables of 9000000 rows need"),
        "{e}"
    );
}

/// With the host CPU model on, the statements, pages and commits cost CPU time on the cores:
/// the run reports it per InnoDB class, and four client threads on one core complete fewer
/// transactions than on four cores, which complete fewer than with no CPU time at all.
#[test]
fn statements_run_on_the_host_cores() {
    let free = spec(RW).run().unwrap();
    assert!(free.host_cpu.is_none());
    let on = |cores: &str| {
        spec_with(RW, &[cores])
            .run()
            .expect("sysbench on cores runs")
    };
    let (one, four) = (on("host.cpu.cores=1"), on("host.cpu.cores=4"));
    let tps = |r: &zonesim::stats::report::Report| r.app.as_ref().unwrap().sysbench.tps;
    assert!(
        tps(&one) < tps(&four) && tps(&four) < tps(&free),
        "{} {} {}",
        tps(&one),
        tps(&four),
        tps(&free)
    );
    let cpu = one.host_cpu.as_ref().expect("host_cpu section");
    let t = &cpu.time_ns;
    let txns = one.app.as_ref().unwrap().sysbench.transactions;
    assert!(t["innodb_commit"] >= txns * 10_000, "{t:?}");
    assert!(
        t["innodb_statement"] > t["innodb_commit"] && t["innodb_page"] > 0,
        "{t:?}"
    );
    assert!(cpu.busy[0] > 0.1 && cpu.busy[0] <= 1.0, "{:?}", cpu.busy);
    assert_eq!(
        one.deterministic_json(),
        on("host.cpu.cores=1").deterministic_json()
    );
}
