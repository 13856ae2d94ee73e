//! Bad-input messages, one test per family: where they point (job file and option line, the
//! key at fault), how they show what was typed (control bytes escaped), when a sweep's failure
//! is the sweep's own, and that a warning never precedes an input error.

mod common;

use common::zonesim;
use std::path::PathBuf;

fn tmp(name: &str, text: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("zonesim-messages-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// Exit code 2 and exactly one line on stderr, which is returned.
fn one_line(args: &[&str]) -> String {
    let out = zonesim(args);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
    err
}

/// Errors of a job on the host file system's files name the job file and the line of the
/// option at fault (not a generic "job file" and the section's line).
#[test]
fn file_job_errors_name_the_job_file_and_the_option_line() {
    for (name, body, line) in [
        ("small.fio", "nrfiles=4\nfilesize=3k\nio_size=8m\n", 5),
        ("zbd.fio", "nrfiles=1\nfilesize=64k\nzonemode=zbd\n", 6),
        ("pct.fio", "nrfiles=1\nsize=10%\n", 5),
        ("ipu.fio", "nrfiles=1\nfilesize=64k\nipu=1\n", 6),
    ] {
        let f = tmp(name, &format!("[job]\nrw=randwrite\ndirectory=/d\n{body}"));
        let err = one_line(&["run", "--fs", "f2fs", "--workload", f.to_str().unwrap()]);
        let at = format!("{}:{line}: job 'job': ", f.display());
        assert!(err.starts_with(&format!("zonesim: {at}")), "{err}");
    }
    let trim = tmp(
        "trim.fio",
        "[job]\nrw=trim\ndirectory=/d\nnrfiles=1\nfilesize=64k\n",
    );
    let err = one_line(&["run", "--fs", "f2fs", "--workload", trim.to_str().unwrap()]);
    assert!(err.contains("trim.fio:2: job 'job': trim jobs"), "{err}");
    // A file option without a file system, and zone_append without zbd: the option's line too.
    let d0 = tmp("d0.fio", "[job]\nrw=randwrite\nsize=4m\ndirect=0\n");
    let err = one_line(&["run", "--workload", d0.to_str().unwrap()]);
    assert!(
        err.contains("d0.fio:4: job 'job': direct=0 needs a file system"),
        "{err}"
    );
    let za = tmp("za.fio", "[job]\nrw=randwrite\nzone_append=1\nsize=4m\n");
    let err = one_line(&["run", "--workload", za.to_str().unwrap()]);
    assert!(err.contains("za.fio:3: job 'job': zone_append=1"), "{err}");
}

/// A rule between keys names the key whose value breaks it.
#[test]
fn key_errors_name_the_key_at_fault() {
    let f = tmp(
        "fs1.fio",
        "[f]\nrw=write\ndirectory=/d\nnrfiles=1\nfilesize=64k\n",
    );
    let f = f.to_str().unwrap();
    for (set, key) in [
        ("fs.max_victim_search=0", "fs.max_victim_search"),
        (
            "fs.migration_window_granularity=4294967295",
            "fs.migration_window_granularity",
        ),
        (
            "fs.gc_boost_gc_multiple=4294967295",
            "fs.gc_boost_gc_multiple",
        ),
    ] {
        let err = one_line(&["run", "--fs", "f2fs", "--workload", f, "--set", set]);
        assert!(
            err.starts_with(&format!("zonesim: config: {key}: must be")),
            "{set}: {err}"
        );
    }
}

/// Control characters echoed from the input are shown escaped, never sent to the terminal.
#[test]
fn control_bytes_in_echoed_input_are_escaped() {
    let err = one_line(&["run", "--set", "base=\n"]);
    assert!(err.contains("--set base=\\n: base is only read"), "{err}");
    let err = one_line(&["run", "--set", "nand.channels=\u{1b}[31m"]);
    assert!(err.contains("nand.channels=\\u{1b}[31m"), "{err}");
    let job = tmp("esc.fio", "[job]\nrw=rand\u{1b}write\nfoo\u{7}=1\n");
    let err = one_line(&["run", "--workload", job.to_str().unwrap()]);
    assert!(err.contains("got 'rand\\u{1b}write'"), "{err}");
    let trace = tmp("t.disksim", "2000 0 1\u{b}6 8 0\n");
    let err = one_line(&[
        "run",
        "--trace",
        trace.to_str().unwrap(),
        "--trace-format",
        "disksim",
    ]);
    assert!(err.contains("`1\\u{b}6`"), "{err}");
    assert!(!err.trim_end().chars().any(|c| c.is_control()), "{err:?}");
}

/// A sweep whose every point fails with the same message fails as the sweep (exit 2, that
/// message); a job file that does not load is refused before any point runs; a sweep with
/// some failed points keeps exit 1.
#[test]
fn a_sweep_failing_alike_everywhere_is_bad_input() {
    let job = tmp("sw.fio", "[w]\nrw=randwrite\nbs=4k\nnumber_ios=500\n");
    let s1 = tmp(
        "s1.toml",
        "workload = \"nope.fio\"\n[grid]\n\"ftl.gc.victim\" = [\"greedy\", \"fifo\"]\n",
    );
    let err = one_line(&["sweep", s1.to_str().unwrap(), "--out", "/dev/null"]);
    assert!(err.contains("nope.fio"), "{err}");
    let s3 = tmp(
        "s3.toml",
        &format!(
            "workload = \"{}\"\nnamespace = 99\n[grid]\n\"ftl.gc.victim\" = [\"greedy\", \"fifo\"]\n",
            job.display()
        ),
    );
    let out = tmp("s3.csv", "");
    let err = one_line(&[
        "sweep",
        s3.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(err.contains("99"), "{err}");
    let s4 = tmp(
        "s4.toml",
        &format!(
            "workload = \"{}\"\n[grid]\n\"ftl.gc.victim\" = [\"greedy\", \"bogus\"]\n",
            job.display()
        ),
    );
    let o = zonesim(&[
        "sweep",
        s4.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
}

/// Rows are written as points finish, in grid order whatever the number of workers.
#[test]
fn sweep_rows_are_streamed_in_grid_order() {
    let job = tmp("sw2.fio", "[w]\nrw=randwrite\nbs=4k\nnumber_ios=300\n");
    let s = tmp(
        "s5.toml",
        &format!(
            "workload = \"{}\"\nseeds = [1, 2]\n[grid]\n\"ftl.gc.victim\" = [\"greedy\", \"fifo\", \"cost_benefit\"]\n\"ftl.overprovisioning\" = [0.07, 0.28]\n",
            job.display()
        ),
    );
    let mut csvs = Vec::new();
    for w in ["1", "3"] {
        let out = tmp(&format!("s5-{w}.csv"), "");
        let o = zonesim(&[
            "sweep",
            s.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--workers",
            w,
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        csvs.push(std::fs::read_to_string(&out).unwrap());
    }
    assert_eq!(csvs[0], csvs[1]);
    let keys: Vec<String> = csvs[0]
        .lines()
        .skip(1)
        .map(|l| l.split(',').take(3).collect::<Vec<_>>().join(","))
        .collect();
    assert_eq!(keys.len(), 12);
    assert_eq!(keys[0], "greedy,0.07,1");
    assert_eq!(keys[1], "greedy,0.07,2");
    assert_eq!(keys[2], "greedy,0.28,1");
    assert_eq!(keys[11], "cost_benefit,0.28,2");
}

/// The effective-spare warning of a small device is printed once the device is built and the
/// run starts: never before an input error, once for a run.
#[test]
fn the_spare_warning_is_printed_once_when_the_run_starts() {
    let dev = tmp(
        "tiny.toml",
        "base = \"ufs-conventional\"\nnand.blocks_per_plane = 16\nnand.pages_per_block = 96\nftl.overprovisioning = 0.5\n",
    );
    let bad = tmp("bad.fio", "[job]\nrw=randwrite\nfoo=bar\n");
    let err = one_line(&[
        "run",
        "--device",
        dev.to_str().unwrap(),
        "--workload",
        bad.to_str().unwrap(),
    ]);
    assert!(err.contains("bad.fio:3: unknown fio option 'foo'"), "{err}");
    let ok = tmp("ok.fio", "[job]\nrw=randwrite\nbs=4k\nnumber_ios=100\n");
    let o = zonesim(&[
        "run",
        "--device",
        dev.to_str().unwrap(),
        "--workload",
        ok.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert_eq!(err.matches("effective spare").count(), 1, "{err}");
}

/// Writes `text` as the sweep file `s.toml` in a fresh folder `name` and runs `zonesim sweep`
/// on it with `extra` arguments: the run, and the path of its CSV.
fn sweep_file(name: &str, text: &str, extra: &[&str]) -> (std::process::Output, PathBuf) {
    let dir = common::dir(name);
    let s = dir.join("s.toml");
    std::fs::write(&s, text).unwrap();
    let out = dir.join("o.csv");
    let mut args = vec!["sweep", s.to_str().unwrap(), "--out", out.to_str().unwrap()];
    args.extend_from_slice(extra);
    (zonesim(&args), out)
}

/// A sweep file's value errors name the key of their line; `--workers -1` reaches the range
/// check; grid values are written to the CSV as their text (a multi-line string, a datetime).
#[test]
fn sweep_file_values_are_named_and_written_as_written() {
    let bad_ns = "namespace = -1\n[grid]\n\"ftl.gc.victim\" = [\"greedy\"]\n";
    let (o, _) = sweep_file("sweep-values", bad_ns, &[]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("s.toml:1: namespace: "), "{err}");
    let (o, _) = sweep_file("sweep-values", bad_ns, &["--workers", "-1"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("--workers") && err.contains("0..=1024"),
        "{err}"
    );
    let (_, out) = sweep_file(
        "sweep-values",
        "[grid]\n\"ftl.gc.victim\" = [\"a\\\"b\\nc,d\", 1979-05-27T07:32:00Z]\n",
        &[],
    );
    let csv = std::fs::read_to_string(&out).unwrap();
    let body = csv.split_once('\n').unwrap().1;
    assert!(body.starts_with("\"a\"\"b\nc,d\",1,"), "{csv}");
    assert!(csv.contains("\n1979-05-27T07:32:00Z,1,"), "{csv}");
}

/// A file job that runs out of space stops writing (as fio does on ENOSPC); the run says so
/// instead of showing only a counter in the JSON.
#[test]
fn running_out_of_file_system_space_is_warned() {
    let dir = common::dir("enospc");
    let job = dir.join("over.fio");
    std::fs::write(
        &job,
        "[over]\nrw=write\nbs=256k\ndirectory=/d\nnrfiles=4\nfilesize=6g\n",
    )
    .unwrap();
    let o = zonesim(&["run", "--fs", "f2fs", "--workload", job.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("warning: the file system ran out of space 1 time(s)"),
        "{err}"
    );
}

/// A sweep file's namespace beyond the device is the file's error (exit 2), named as such.
#[test]
fn a_sweep_namespace_beyond_the_device_is_named() {
    let (o, _) = sweep_file(
        "sweep-ns",
        "namespace = 99\n[grid]\n\"ftl.gc.victim\" = [\"greedy\"]\n",
        &[],
    );
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("namespace 99 (`--namespace`, a sweep file's"),
        "{err}"
    );
}
