//! Hostile input never panics: random bytes and random mutations of valid files thrown at every
//! parser — fio job files (parsed, then generated from), device TOML (loaded and validated),
//! `--set` overrides of every declared key, aging-scenario and sweep files, and each of the six
//! trace formats (read, `trace stats`, `trace convert`) — and mutated traces replayed through
//! the simulator. The valid files mutated are the corpus (the shipped examples and
//! `tests/data/fuzz/`). `ZONESIM_FUZZ_CASES=N` runs N cases of each for a longer hunt. Every input ends in a result or a located error. Case counts are
//! modest so the suite stays fast.

use crate::common;

use proptest::prelude::*;
use std::io::Cursor;
use std::path::{Path, PathBuf};
use zonesim::config::DeviceConfig;
use zonesim::host::fio::{parse_job_file, JobGen, Target, ZoneGeom};
use zonesim::host::trace::{
    convert, trace_stats, ConvertFormat, TraceFormat, TraceOptions, TraceReader,
};
use zonesim::sim::{Precondition, ReplayMode, RunOptions, TraceReplay, WorkloadSpec};

/// `cases` cases (or `ZONESIM_FUZZ_CASES` for a longer hunt); a failure prints its minimal
/// input (integration tests have no source file beside which proptest could persist it).
fn config(cases: u32) -> ProptestConfig {
    let cases = std::env::var("ZONESIM_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(cases);
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

fn root(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(rel)
}

fn read(rel: &str) -> Vec<u8> {
    std::fs::read(root(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// Tokens that break parsers: extreme and negative numbers, separators, units, encodings.
const TOKENS: &[&str] = &[
    "18446744073709551615",
    "18446744073709551616",
    "36028797018963967",
    "4294967295",
    "99999999999999999999999",
    "-1",
    "0",
    "1e300",
    "1e-300",
    "NaN",
    "inf",
    "\n",
    "\r\n",
    ",",
    " ",
    "\t",
    "=",
    "[",
    "]",
    "%",
    "z",
    "1p",
    ":",
    ".",
    "+",
    "#",
    "\u{feff}",
    "\"",
    "\0",
];

/// One mutation: where (scaled to the input), what, and a byte or token index.
type Mutation = (u16, u8, u8);

fn mutations() -> impl Strategy<Value = Vec<Mutation>> {
    proptest::collection::vec((any::<u16>(), 0u8..6, any::<u8>()), 1..6)
}

/// Applies `muts` to `base`: overwrite a byte, insert a byte, delete a run, insert a token,
/// duplicate a line, or truncate.
fn mutate(base: &[u8], muts: &[Mutation]) -> Vec<u8> {
    let mut v = base.to_vec();
    for &(at, op, x) in muts {
        let pos = if v.is_empty() {
            0
        } else {
            at as usize * v.len() / (u16::MAX as usize + 1)
        };
        match op {
            0 if !v.is_empty() => v[pos] = x,
            1 => v.insert(pos, x),
            2 if !v.is_empty() => {
                let end = (pos + 1 + x as usize % 16).min(v.len());
                v.drain(pos..end);
            }
            3 => {
                let t = TOKENS[x as usize % TOKENS.len()].as_bytes();
                v.splice(pos..pos, t.iter().copied());
            }
            4 => {
                let start = v[..pos]
                    .iter()
                    .rposition(|b| *b == b'\n')
                    .map_or(0, |i| i + 1);
                let end = v[pos..]
                    .iter()
                    .position(|b| *b == b'\n')
                    .map_or(v.len(), |i| pos + i + 1);
                let line = v[start..end].to_vec();
                v.splice(start..start, line);
            }
            _ => v.truncate(pos),
        }
    }
    v
}

// ---- fio job files -------------------------------------------------------------------------

const FIO: &[&str] = &[
    "workloads/default.fio",
    "workloads/default-zoned.fio",
    "examples/mixed.fio",
    "examples/my.fio",
    "examples/zoned.fio",
];

/// Parses `bytes` as a job file and, if it is valid, generates a few hundred I/Os of each job
/// on a small conventional and a small zoned target.
fn fio_never_panics(bytes: &[u8]) {
    let text = String::from_utf8_lossy(bytes);
    let Ok(jobs) = parse_job_file(&text, "f.fio") else {
        return;
    };
    let conv = Target {
        capacity_bytes: 64 << 20,
        zone: None,
    };
    let zoned = Target {
        capacity_bytes: 64 << 20,
        zone: Some(ZoneGeom {
            size_bytes: 8 << 20,
            capacity_bytes: 6 << 20,
        }),
    };
    for spec in &jobs {
        for target in [&conv, &zoned] {
            if let Ok(mut g) = JobGen::new(spec, target, 1, 0) {
                for _ in 0..300 {
                    if g.next().is_none() {
                        break;
                    }
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(config(96))]

    #[test]
    fn fio_random_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
        fio_never_panics(&bytes);
    }

    #[test]
    fn fio_mutated_files(i in 0..FIO.len(), muts in mutations()) {
        fio_never_panics(&mutate(&read(FIO[i]), &muts));
    }
}

/// The unmutated inputs are valid: the mutations start from files that parse, load and read.
#[test]
fn base_inputs_are_valid() {
    for f in FIO {
        let jobs = parse_job_file(&String::from_utf8_lossy(&read(f)), f).unwrap();
        assert!(!jobs.is_empty(), "{f}");
    }
    for f in TOML {
        DeviceConfig::load(root(f).to_str().unwrap(), &[]).unwrap_or_else(|e| panic!("{e}"));
    }
    for (i, (name, format)) in TRACES.iter().enumerate() {
        let mut r = reader(&sample(i), None).unwrap();
        assert_eq!(r.format(), *format, "{name}");
        while r.next_record().unwrap().is_some() {}
        assert!(r.records() > 0, "{name}");
    }
}

proptest! {
    #![proptest_config(config(24))]

    /// Mutated job files run on a 4 GiB conventional device, or (zbd jobs) on the zoned
    /// namespace of a small zoned device, each job cut to 2000 I/Os: a report or an error.
    #[test]
    fn fio_mutated_runs(
        i in 0..FIO.len(),
        muts in proptest::collection::vec((any::<u16>(), 0u8..6, any::<u8>()), 1..3),
    ) {
        let text = String::from_utf8_lossy(&mutate(&read(FIO[i]), &muts)).into_owned();
        let zoned = text.contains("zbd");
        let Ok(mut jobs) = parse_job_file(&text, "f.fio") else {
            return Ok(());
        };
        for j in &mut jobs {
            j.number_ios = Some(j.number_ios.unwrap_or(2000).min(2000));
            j.numjobs = j.numjobs.min(4);
        }
        let (cfg, ns) = if zoned {
            let p = root("crates/zonesim/tests/data/small-zoned.toml");
            (DeviceConfig::load(p.to_str().unwrap(), &[]).unwrap(), 1)
        } else {
            let sets = ["nand.blocks_per_plane=64", "ftl.overprovisioning=0.28"];
            (common::device("ufs-conventional", &sets), 0)
        };
        let opts = RunOptions {
            seed: 1,
            precondition: Precondition::None,
            namespace: ns,
            check_invariants: true,
            power_off: None,
        };
        if let Ok(r) = zonesim::RunSpec::new(cfg.clone(), WorkloadSpec::Jobs(jobs)).options(opts.clone()).run() {
            prop_assert_eq!(r.sim.requests_issued, r.sim.requests_completed);
        }
    }
}

// ---- device TOML -----------------------------------------------------------------------------

const TOML: &[&str] = &[
    "presets/ufs-conventional.toml",
    "presets/nvme-ssd.toml",
    "presets/conzone-paper.toml",
    "examples/my-ufs.toml",
    "crates/zonesim/tests/data/small-zoned.toml",
];

/// Loads and validates `bytes` as a device file; a valid one is also built when small.
fn toml_never_panics(bytes: &[u8], case: &str) {
    let dir = std::env::temp_dir().join(format!("zonesim-fuzz-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{case}.toml"));
    std::fs::write(&path, bytes).unwrap();
    let r = DeviceConfig::load(path.to_str().unwrap(), &[]);
    let _ = std::fs::remove_file(&path);
    if let Ok(cfg) = r {
        let g = zonesim::nand::Geometry::new(&cfg.nand);
        if g.total_slots() <= 1 << 22 {
            let _ = zonesim::device::Device::new(&cfg, 1);
        }
    }
}

/// Keys and values for `--set` fuzzing.
const KEYS: &[&str] = &[
    "nand.channels",
    "nand.blocks_per_plane",
    "nand.pages_per_block",
    "nand.page_bytes",
    "nand.slc_blocks_per_plane",
    "nand.timing.qlc.read_us",
    "nand.channel_mb_s",
    "host.overhead_us",
    "ftl.overprovisioning",
    "ftl.l2p_cache_bytes",
    "ftl.map_entry_bytes",
    "ftl.gc.threshold_free_superblocks",
    "ftl.gc.d",
    "ftl.gc.window",
    "ftl.gc.streams",
    "ftl.gc.bloom.window_pages",
    "ftl.gc.bloom.fp_rate",
    "ftl.cost.host_cmd_ns",
    "buffer.bytes",
    "buffer.count",
    "zone.size_bytes",
    "zone.max_open",
    "base",
    "nand",
    "nand.cell.x",
];

proptest! {
    #![proptest_config(config(64))]

    #[test]
    fn toml_random_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
        toml_never_panics(&bytes, "random");
    }

    #[test]
    fn toml_mutated_files(i in 0..TOML.len(), muts in mutations()) {
        toml_never_panics(&mutate(&read(TOML[i]), &muts), "mutated");
    }

    #[test]
    fn set_overrides(
        sets in proptest::collection::vec((0..KEYS.len(), 0..TOKENS.len(), any::<u32>()), 1..4)
    ) {
        let sets: Vec<String> = sets
            .iter()
            .map(|&(k, t, n)| {
                let v = if n % 2 == 0 { TOKENS[t].to_string() } else { n.to_string() };
                format!("{}={v}", KEYS[k])
            })
            .collect();
        let _ = DeviceConfig::load("ufs-conventional", &sets);
        let _ = DeviceConfig::load("conzone-paper", &sets);
    }
}

// ---- traces ----------------------------------------------------------------------------------

/// A valid sample of each reader (iolog twice: v2 and v3).
const TRACES: &[(&str, TraceFormat)] = &[
    ("sample.disksim", TraceFormat::Disksim),
    ("sample.blkparse", TraceFormat::Blkparse),
    ("sample.msr.csv", TraceFormat::Msr),
    ("sample.iolog2", TraceFormat::Iolog),
    ("sample.iolog3", TraceFormat::Iolog),
    ("sample.alibaba.csv", TraceFormat::Alibaba),
    ("sample.tencent.csv", TraceFormat::Tencent),
];

fn sample(i: usize) -> Vec<u8> {
    read(&format!(
        "crates/zonesim-host/tests/data/traces/{}",
        TRACES[i].0
    ))
}

fn reader(bytes: &[u8], format: Option<TraceFormat>) -> Option<TraceReader> {
    let o = TraceOptions {
        format,
        ..TraceOptions::default()
    };
    TraceReader::from_reader("t", Box::new(Cursor::new(bytes.to_vec())), &o).ok()
}

/// Reads `bytes` to the end, takes its statistics and converts it both ways: results or
/// located errors, never a panic.
fn trace_never_panics(bytes: &[u8], format: Option<TraceFormat>) {
    if let Some(mut r) = reader(bytes, format) {
        loop {
            match r.next_record() {
                Ok(Some(rec)) => {
                    assert!(rec.io.offset.checked_add(rec.io.len).is_some());
                }
                Ok(None) => break,
                Err(e) => {
                    assert!(e.to_string().starts_with("t:"), "{e}");
                    break;
                }
            }
        }
    }
    if let Some(mut r) = reader(bytes, format) {
        let _ = trace_stats(&mut r, 3);
    }
    for to in [ConvertFormat::Disksim, ConvertFormat::Iolog] {
        if let Some(mut r) = reader(bytes, format) {
            let _ = convert(&mut r, &mut Vec::new(), to);
        }
    }
}

proptest! {
    #![proptest_config(config(64))]

    #[test]
    fn trace_random_bytes(
        bytes in proptest::collection::vec(any::<u8>(), 0..300),
        f in proptest::option::of(0usize..6),
    ) {
        trace_never_panics(&bytes, f.map(|i| TraceFormat::ALL[i]));
    }

    #[test]
    fn trace_mutated_samples(i in 0..TRACES.len(), muts in mutations(), forced in any::<bool>()) {
        let bytes = mutate(&sample(i), &muts);
        trace_never_panics(&bytes, forced.then_some(TRACES[i].1));
    }
}

proptest! {
    #![proptest_config(config(24))]

    /// Mutated traces replayed through a small device, timed and as fast as possible, with and
    /// without folding: a report or a located error.
    #[test]
    fn trace_mutated_replays(
        i in 0..TRACES.len(),
        muts in mutations(),
        afap in any::<bool>(),
        fold in any::<bool>(),
    ) {
        let bytes = mutate(&sample(i), &muts);
        let dir = std::env::temp_dir().join(format!("zonesim-fuzz-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(format!("replay-{i}.trace"));
        std::fs::write(&path, &bytes).unwrap();
        let cfg = common::many_blocks(0.25, "greedy", 32);
        let mode = if afap {
            ReplayMode::AsFastAsPossible { qd: 8 }
        } else {
            ReplayMode::Timed { time_scale: 1.0 }
        };
        let mut t = TraceReplay::new(&path, mode);
        t.opts.format = Some(TRACES[i].1);
        t.fold = fold;
        let opts = RunOptions {
            seed: 1,
            precondition: Precondition::None,
            namespace: 0,
            check_invariants: true,
            power_off: None,
        };
        match zonesim::RunSpec::new(cfg.clone(), WorkloadSpec::Trace(t)).options(opts.clone()).run() {
            Ok(r) => prop_assert_eq!(r.sim.requests_issued, r.sim.requests_completed),
            Err(e) => prop_assert!(e.to_string().contains(path.to_str().unwrap()), "{}", e),
        }
        let _ = std::fs::remove_file(&path);
    }
}

// ---- `--set` over every declared key, scenario and sweep files -------------------------------

proptest! {
    #![proptest_config(config(64))]

    /// Any declared key (the declarations' own list, `config keys`) with a hostile or random
    /// value: a config or a one-line error naming a key, never a panic.
    #[test]
    fn set_any_declared_key(
        picks in proptest::collection::vec((any::<u16>(), 0..TOKENS.len(), any::<u64>(), 0u8..4), 1..4),
        preset in 0..zonesim::config::PRESETS.len(),
    ) {
        let keys = zonesim::config::keys::keys();
        let sets: Vec<String> = picks
            .iter()
            .map(|&(k, t, n, how)| {
                let key = keys[k as usize % keys.len()].key.replace("[]", "");
                let v = match how {
                    0 => TOKENS[t].to_string(),
                    1 => n.to_string(),
                    2 => format!("{}", f64::from_bits(n)),
                    _ => format!("\"{}\"", TOKENS[t]),
                };
                format!("{key}={v}")
            })
            .collect();
        match zonesim::load_device(zonesim::config::PRESETS[preset].0, &sets) {
            Ok(cfg) => {
                let g = zonesim::nand::Geometry::new(&cfg.nand);
                if g.total_slots() <= 1 << 22 {
                    let _ = zonesim::device::Device::new(&cfg, 1);
                }
            }
            // Bad input, never a simulator bug (the CLI prints any message on one line).
            Err(e) => prop_assert_eq!(e.exit_code(), 2, "{}", e),
        }
    }
}

const SCENARIOS: &[&str] = &[
    "crates/zonesim/tests/data/fuzz/scenario-aging.toml",
    "crates/zonesim/tests/data/fuzz/scenario-steps.toml",
];

/// Parses `bytes` as a scenario file; a valid one runs on a small device with the host file
/// system: a report or a one-line error, never a panic.
fn scenario_never_panics(bytes: &[u8], run: bool) -> Result<(), TestCaseError> {
    let text = String::from_utf8_lossy(bytes);
    let sc = match zonesim::host::scenario::Scenario::parse(&text, "sc.toml") {
        Ok(sc) => sc,
        Err(e) => {
            prop_assert!(e.to_string().starts_with("sc.toml:"), "{}", e);
            return Ok(());
        }
    };
    if run {
        let cfg = common::device("ufs-conventional", &["fs.kind=f2fs"]);
        let opts = RunOptions {
            seed: 1,
            precondition: Precondition::None,
            namespace: 0,
            check_invariants: true,
            power_off: None,
        };
        if let Ok(r) = zonesim::RunSpec::new(cfg, WorkloadSpec::Scenario(sc))
            .options(opts)
            .run()
        {
            prop_assert_eq!(r.sim.requests_issued, r.sim.requests_completed);
        }
    }
    Ok(())
}

/// Writes `bytes` as a sweep file beside a job file and loads it: points or a one-line error.
fn sweep_never_panics(bytes: &[u8]) -> Result<(), TestCaseError> {
    let dir = std::env::temp_dir().join(format!("zonesim-fuzz-sweep-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("w.fio"), "[w]\nrw=randwrite\nsize=4m\n").unwrap();
    let path = dir.join("s.toml");
    std::fs::write(&path, bytes).unwrap();
    match zonesim::sim::sweep::SweepFile::load(&path) {
        Ok(s) => {
            let n = zonesim::sim::sweep::count_runs(&s.grid, s.seeds.len(), "s").unwrap();
            prop_assert!(n <= zonesim::sim::sweep::MAX_RUNS);
            prop_assert_eq!(
                zonesim::sim::sweep::points(&s.grid).len() as u64 * s.seeds.len() as u64,
                n
            );
        }
        Err(e) => prop_assert_eq!(e.exit_code(), 2, "{}", e),
    }
    Ok(())
}

proptest! {
    #![proptest_config(config(64))]

    #[test]
    fn scenario_random_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
        scenario_never_panics(&bytes, false)?;
    }

    #[test]
    fn scenario_mutated_files(i in 0..SCENARIOS.len(), muts in mutations()) {
        scenario_never_panics(&mutate(&read(SCENARIOS[i]), &muts), false)?;
    }

    #[test]
    fn sweep_random_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
        sweep_never_panics(&bytes)?;
    }

    #[test]
    fn sweep_mutated_files(muts in mutations()) {
        sweep_never_panics(&mutate(&read("crates/zonesim/tests/data/fuzz/sweep.toml"), &muts))?;
    }
}

proptest! {
    #![proptest_config(config(8))]

    /// Mutated scenarios run on the host file system of a small device.
    #[test]
    fn scenario_mutated_runs(i in 0..SCENARIOS.len(), muts in proptest::collection::vec((any::<u16>(), 0u8..6, any::<u8>()), 1..3)) {
        scenario_never_panics(&mutate(&read(SCENARIOS[i]), &muts), true)?;
    }
}

/// The corpus files are valid: the mutations start from files that parse.
#[test]
fn scenario_and_sweep_corpus_is_valid() {
    for f in SCENARIOS {
        zonesim::host::scenario::Scenario::parse(&String::from_utf8_lossy(&read(f)), f).unwrap();
    }
    let s =
        zonesim::sim::sweep::SweepFile::load(&root("crates/zonesim/tests/data/fuzz/sweep.toml"))
            .unwrap();
    assert_eq!(zonesim::sim::sweep::points(&s.grid).len(), 4);
}
