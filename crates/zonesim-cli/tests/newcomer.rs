//! What a newcomer meets first: misuse of a zoned namespace ends the run, never-written reads
//! warn, zoned presets run their main namespace, reports carry their provenance, `config show`
//! round-trips, and fio's output formats are what fio's own tools read.

use std::path::PathBuf;
use std::process::{Command, Output};

fn zonesim(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_zonesim"))
        .args(args)
        .output()
        .expect("zonesim runs")
}

fn tmp(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("zonesim-newcomer-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

const PLAIN: &str = "[r]\nrw=randwrite\nbs=4k\niodepth=8\nnumber_ios=2000\n";

#[test]
fn a_write_the_zoned_namespace_rejects_ends_the_run() {
    let wl = tmp("plain.fio", PLAIN);
    let out = zonesim(&[
        "run",
        "--device",
        "conzone-paper",
        "--workload",
        wl.to_str().unwrap(),
    ]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    for n in [
        "job 'r'",
        "namespace 1",
        "write pointer",
        "continue_on_error=write",
    ] {
        assert!(err.contains(n), "'{err}' lacks '{n}'");
    }
    // fio's continue_on_error opts into counting.
    let wl = tmp("coe.fio", &format!("{PLAIN}continue_on_error=write\n"));
    let json = tmp("coe.json", "");
    let out = zonesim(&[
        "run",
        "--device",
        "conzone-paper",
        "--workload",
        wl.to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let errors: u64 = v["device"]["zones"]["errors"]
        .as_object()
        .unwrap()
        .values()
        .map(|x| x.as_u64().unwrap())
        .sum();
    assert!(
        errors > 0,
        "zone errors are counted: {}",
        v["device"]["zones"]
    );
}

#[test]
fn zoned_presets_run_their_main_namespace_and_say_so() {
    let wl = tmp(
        "zbd.fio",
        "[w]\nzonemode=zbd\nrw=write\nbs=128k\nsize=1z\n[r]\nstonewall\nzonemode=zbd\nrw=read\nbs=128k\nsize=1z\n",
    );
    let out = zonesim(&[
        "run",
        "--device",
        "conzone-paper",
        "--workload",
        wl.to_str().unwrap(),
    ]);
    let s = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(s.contains("namespace 1 (zoned, main; 2 namespaces)"), "{s}");
    let out = zonesim(&[
        "run",
        "--device",
        "conzone-paper",
        "--namespace",
        "0",
        "--workload",
        tmp("small.fio", "[w]\nrw=write\nbs=128k\nsize=8m\n")
            .to_str()
            .unwrap(),
    ]);
    assert!(text(&out.stdout).contains("namespace 0 (conventional, not the main one"));
}

#[test]
fn reads_of_never_written_pages_warn_with_the_fraction() {
    let wl = tmp("rr.fio", "[r]\nrw=randread\nbs=4k\nnumber_ios=1000\n");
    let json = tmp("rr.json", "");
    let out = zonesim(&[
        "run",
        "--set",
        "nand.blocks_per_plane=96",
        "--workload",
        wl.to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
    ]);
    let err = text(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("warning: 100.0% of the page reads"), "{err}");
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(v["device"]["unwritten_read_fraction"], 1.0);
    // Preconditioned: no warning.
    let out = zonesim(&[
        "run",
        "--set",
        "nand.blocks_per_plane=96",
        "--workload",
        wl.to_str().unwrap(),
        "--precondition",
        "seq",
    ]);
    assert!(
        !text(&out.stderr).contains("warning"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn reports_carry_their_provenance_outside_determinism() {
    let wl = tmp(
        "mix.fio",
        "[m]\nrw=randrw\nbs=4k\niodepth=4\nsize=64m\nnumber_ios=500\n",
    );
    let args = [
        "run",
        "--set",
        "nand.blocks_per_plane=96",
        "--seed",
        "9",
        "--workload",
        wl.to_str().unwrap(),
        "--output-format",
        "json",
    ];
    let (a, b) = (zonesim(&args), zonesim(&args));
    let va: serde_json::Value = serde_json::from_slice(&a.stdout).unwrap();
    let p = &va["provenance"];
    for k in [
        "version",
        "commit",
        "command",
        "device",
        "workload",
        "seed",
        "precondition",
        "started_at",
    ] {
        assert!(p.get(k).is_some(), "provenance lacks {k}: {p}");
    }
    assert_eq!(p["seed"], 9);
    assert_eq!(p["device"]["nand"]["blocks_per_plane"], 96);
    assert!(p["workload"]["text"]
        .as_str()
        .unwrap()
        .contains("rw=randrw"));
    assert!(p["command"]
        .as_array()
        .unwrap()
        .iter()
        .any(|a| a == "--seed"));
    let strip = |o: &Output| {
        zonesim::stats::report::without_wall_clock(serde_json::from_slice(&o.stdout).unwrap())
    };
    assert_eq!(strip(&a), strip(&b));
    assert!(strip(&a)["provenance"].get("started_at").is_none());
}

#[test]
fn config_show_round_trips_every_preset() {
    for (name, _, _) in zonesim::config::PRESETS {
        let out = zonesim(&[
            "config",
            "show",
            "--device",
            name,
            "--set",
            "ftl.gc.victim=fifo",
        ]);
        assert!(out.status.success(), "{name}: {}", text(&out.stderr));
        let file = tmp(&format!("{name}.toml"), &text(&out.stdout));
        let want = zonesim::load_device(name, &["ftl.gc.victim=fifo".into()]).unwrap();
        let got = zonesim::load_device(file.to_str().unwrap(), &[]).unwrap();
        assert_eq!(
            serde_json::to_value(&want).unwrap(),
            serde_json::to_value(&got).unwrap(),
            "{name}"
        );
    }
}

#[test]
fn fio_output_formats_and_group_totals() {
    let wl = tmp(
        "two.fio",
        "[w]\nrw=write\nbs=4k\niodepth=8\nsize=32m\n[r]\nstonewall\nrw=randread\nbs=4k\niodepth=8\nsize=32m\nnumber_ios=4000\n",
    );
    let base = [
        "run",
        "--set",
        "nand.blocks_per_plane=96",
        "--workload",
        wl.to_str().unwrap(),
    ];
    let with = |extra: &[&'static str]| [&base[..], extra].concat();
    let out = zonesim(&with(&[
        "--output-format",
        "fio-json",
        "--percentiles",
        "50,99,99.9",
    ]));
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["fio version"].as_str().unwrap().starts_with("fio-"));
    let jobs = v["jobs"].as_array().unwrap();
    assert_eq!(
        (jobs[0]["jobname"].as_str(), jobs[0]["groupid"].as_u64()),
        (Some("w"), Some(0))
    );
    assert_eq!(
        (jobs[1]["jobname"].as_str(), jobs[1]["groupid"].as_u64()),
        (Some("r"), Some(1))
    );
    let r = &jobs[1]["read"];
    assert_eq!(r["total_ios"], 4000);
    let pct = r["clat_ns"]["percentile"].as_object().unwrap();
    assert_eq!(
        pct.keys().cloned().collect::<Vec<_>>(),
        ["50.000000", "99.000000", "99.900000"]
    );
    let bins: u64 = r["clat_ns"]["bins"]
        .as_object()
        .unwrap()
        .values()
        .map(|c| c.as_u64().unwrap())
        .sum();
    assert_eq!(bins, 4000, "the json+ bins hold every request");
    // bw is KiB/s over the job's own runtime (ms), as fio computes it.
    let (bytes, runtime) = (
        r["io_bytes"].as_u64().unwrap(),
        r["runtime"].as_u64().unwrap(),
    );
    assert_eq!(r["bw"].as_u64().unwrap(), 1000 * bytes / runtime / 1024);
    // fio's own json+ reader takes it (Debian's fio package ships it).
    if Command::new("fio_jsonplus_clat2csv")
        .arg("--help")
        .output()
        .is_ok()
    {
        let f = tmp("fio.json", &text(&out.stdout));
        let csv = f.with_extension("csv");
        let run = |extra: &[&str]| {
            Command::new("fio_jsonplus_clat2csv")
                .args([f.to_str().unwrap(), csv.to_str().unwrap()])
                .args(extra)
                .output()
                .unwrap()
        };
        assert!(run(&[]).status.success());
        let o = run(&["--validate"]);
        assert!(text(&o.stdout).contains("validated"), "{}", text(&o.stderr));
    }
    // terse v3: one line per job.
    let out = zonesim(&with(&["--output-format", "terse"]));
    let t = text(&out.stdout);
    assert_eq!(t.lines().count(), 2, "{t}");
    assert!(t.lines().all(|l| l.starts_with("3;fio-")), "{t}");
    // The summary's "total read" is the read job's rate (fio's group reporting), not the
    // reads over the whole run.
    let s = text(&zonesim(&base).stdout);
    let iops = |row: &str| -> f64 {
        let l = s
            .lines()
            .find(|l| {
                l.split_whitespace().take(2).collect::<Vec<_>>()
                    == row.split(' ').collect::<Vec<_>>()
            })
            .unwrap();
        l.split_whitespace().nth(3).unwrap().parse().unwrap()
    };
    assert_eq!(iops("r read"), iops("total read"), "{s}");
}
