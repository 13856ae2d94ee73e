//! Ctrl-C during `zonesim run`: the run ends at the next check point, the requests in flight
//! complete, and the report of what ran is written, marked `interrupted`; exit code 130.

#![cfg(unix)]

use std::process::{Command, Stdio};
use std::time::Duration;

#[test]
fn ctrl_c_writes_the_report_of_what_ran() {
    let dir = std::env::temp_dir().join(format!("zonesim-interrupt-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let wl = dir.join("long.fio");
    // An hour of simulated random writes: far longer than the test waits.
    std::fs::write(
        &wl,
        "[w]\nrw=randwrite\nbs=4k\niodepth=8\ntime_based=1\nruntime=3600\n",
    )
    .unwrap();
    let json = dir.join("r.json");
    let _ = std::fs::remove_file(&json);
    let child = Command::new(env!("CARGO_BIN_EXE_zonesim"))
        .args(["run", "--workload", wl.to_str().unwrap(), "--json"])
        .arg(&json)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("zonesim starts");
    std::thread::sleep(Duration::from_millis(1500));
    // SAFETY: a signal to the child this test started.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGINT) }, 0);
    let out = child.wait_with_output().expect("zonesim ends");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{err}");
    let notice: Vec<&str> = err.lines().filter(|l| l.contains("interrupted")).collect();
    assert_eq!(notice.len(), 1, "one notice line: {err}");
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).expect("the report is written"))
            .expect("valid JSON");
    assert_eq!(r["interrupted"], true);
    let sim = &r["sim"];
    let done = sim["requests_completed"].as_u64().unwrap();
    assert!(done > 0, "{sim}");
    assert_eq!(sim["requests_issued"].as_u64(), Some(done), "{sim}");
    assert!(sim["simulated_ns"].as_u64().unwrap() < 3_600_000_000_000);
    assert_eq!(r["jobs"][0]["write"]["ios"].as_u64(), Some(done));
    // The summary of what ran reached stdout too.
    assert!(!out.stdout.is_empty());
}
