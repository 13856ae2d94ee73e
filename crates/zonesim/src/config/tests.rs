//! Config loading and validation on hostile input: every bad value a located error, never a panic.

use super::*;

fn load(sets: &[&str]) -> Result<DeviceConfig> {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    DeviceConfig::load("ufs-conventional", &sets)
}

fn err(sets: &[&str]) -> String {
    match load(sets) {
        Ok(_) => panic!("{sets:?} accepted"),
        Err(e) => e.to_string(),
    }
}

/// Audit P2: a geometry whose slot product exceeds 2^64 is rejected with its exact count.
#[test]
fn geometry_product_overflow_is_rejected() {
    let e = err(&[
        "nand.channels=711",
        "nand.chips_per_channel=211",
        "nand.dies_per_chip=56",
        "nand.planes_per_die=9",
        "nand.blocks_per_plane=217414",
        "nand.pages_per_block=61208",
        "nand.page_bytes=675840",
        "nand.cell=slc",
        "buffer.bytes=8388608",
    ]);
    assert!(e.contains("impossible geometry"), "{e}");
    assert!(
        e.contains("166020696665070952320 physical 4 KiB slots"),
        "{e}"
    );
    let e = err(&[
        "nand.channels=1024",
        "nand.chips_per_channel=256",
        "nand.dies_per_chip=64",
        "nand.planes_per_die=16",
        "nand.blocks_per_plane=1048576",
        "nand.pages_per_block=65535",
        "nand.page_bytes=1048576",
        "nand.cell=slc",
    ]);
    assert!(e.contains("impossible geometry"), "{e}");
    assert!(!e.contains("18374686479671623680"), "wrapped count: {e}");
}

/// Audit P3, S2, S3: every time and cost key is bounded like the NAND timings.
#[test]
fn times_and_costs_are_bounded() {
    for (set, key) in [
        ("host.overhead_us=1e300", "host.overhead_us"),
        ("host.overhead_us=1e8", "host.overhead_us"),
        ("ftl.gc.suspend_us=1e300", "ftl.gc.suspend_us"),
        ("ftl.cost.host_cmd_ns=1e300", "ftl.cost.host_cmd_ns"),
        (
            "ftl.cost.bloom_gc_page_ns=2e10",
            "ftl.cost.bloom_gc_page_ns",
        ),
        ("ftl.cost.sup_write_ns=-1", "ftl.cost.sup_write_ns"),
    ] {
        let e = err(&[set]);
        assert!(e.starts_with(&format!("config: {key}: must be")), "{e}");
    }
    // The bounds themselves are accepted.
    load(&[
        "host.overhead_us=1e7",
        "ftl.gc.suspend_us=1e7",
        "ftl.cost.host_cmd_ns=1e10",
    ])
    .unwrap();
}

/// Audit H2: d-choice and windowed-greedy parameters are bounded.
#[test]
fn gc_d_and_window_are_bounded() {
    let e = err(&["ftl.gc.d=4294967295"]);
    assert_eq!(
        e, "config: ftl.gc.d: must be in 1..=1024 (got 4294967295)",
        "{e}"
    );
    let e = err(&["ftl.gc.window=4294967295"]);
    assert!(
        e.starts_with("config: ftl.gc.window: must be in 1..=1048576"),
        "{e}"
    );
    assert!(err(&["ftl.gc.d=0"]).starts_with("config: ftl.gc.d: must be in 1..="));
    load(&["ftl.gc.d=1024", "ftl.gc.window=1048576"]).unwrap();
}

/// Bloom filters sized by absurd parameters are rejected before they are allocated.
#[test]
fn bloom_filter_size_is_bounded() {
    let e = err(&[
        "ftl.gc.placement=bloom",
        "ftl.gc.bloom.window_pages=18446744073709551615",
    ]);
    assert!(e.starts_with("config: ftl.gc.bloom.window_pages:"), "{e}");
    let e = err(&[
        "ftl.gc.placement=bloom",
        "ftl.gc.bloom.window_pages=10000000",
        "ftl.gc.bloom.fp_rate=1e-300",
    ]);
    assert!(e.contains("MiB; at most 1024 MiB"), "{e}");
    load(&["ftl.gc.placement=bloom"]).unwrap();
}

/// Audit S1: `--set base=` is an error, not silently ignored.
#[test]
fn set_base_is_rejected() {
    let e = err(&["base=nvme-ssd"]);
    assert!(
        e.starts_with("config: base: --set base=nvme-ssd: base is only read from device files"),
        "{e}"
    );
}

/// Audit S6 / F6: each timing key has its own default, so one key of a cell can be set alone.
#[test]
fn one_timing_key_keeps_the_other_defaults() {
    let c = load(&["nand.timing.qlc.read_us=100"]).unwrap();
    let d = TimingTable::default();
    assert_eq!(c.nand.timing.qlc.read_us, 100.0);
    assert_eq!(c.nand.timing.qlc.program_us, d.qlc.program_us);
    assert_eq!(c.nand.timing.qlc.erase_us, d.qlc.erase_us);
    let c = load(&["nand.timing.mlc.erase_us=4000"]).unwrap();
    assert_eq!(c.nand.timing.mlc.erase_us, 4000.0);
    assert_eq!(c.nand.timing.mlc.read_us, d.mlc.read_us);
    // Unknown timing keys and cells are still errors, named in full.
    let e = err(&["nand.timing.qlc.reed_us=1"]);
    assert!(
        e.starts_with("config: nand.timing.qlc.reed_us: unknown key"),
        "{e}"
    );
    let e = err(&["nand.timing.plc.read_us=1"]);
    assert!(e.starts_with("config: nand.timing.plc: unknown key"), "{e}");
    // And the bounds still apply to a key set alone.
    let e = err(&["nand.timing.qlc.read_us=1e300"]);
    assert!(
        e.starts_with("config: nand.timing.qlc.read_us: must be in"),
        "{e}"
    );
}

/// Audit "message quality": a bad --set value is blamed on the --set, not on the preset.
#[test]
fn bad_set_value_names_the_set() {
    let e = err(&["nand.channels=two"]);
    assert!(e.starts_with("config: nand.channels:"), "{e}");
    assert!(e.contains("--set nand.channels=two"), "{e}");
    assert!(!e.contains("preset"), "{e}");
    let e = err(&["nand.chanels=2"]);
    assert!(e.contains("unknown key in --set nand.chanels=2"), "{e}");
    assert!(e.contains("did you mean `channels`?"), "{e}");
}

#[test]
fn a_misspelt_preset_gets_the_nearest_name() {
    let e = crate::load_device("conzone-papr", &[])
        .unwrap_err()
        .to_string();
    assert!(e.contains("did you mean conzone-paper?"), "{e}");
    let e = crate::load_device("nothing-like-it", &[])
        .unwrap_err()
        .to_string();
    assert!(!e.contains("did you mean"), "{e}");
}

/// A TOML file with a byte-order mark or CRLF line ends loads like any other.
#[test]
fn toml_text_variants() {
    let t = parse_toml("\u{feff}name = \"x\"\r\n", "f.toml").unwrap();
    assert_eq!(t["name"].as_str(), Some("x"));
}

/// Audit F8: the preset listing and the preset files say the same thing (the file is the
/// source; `zonesim presets` prints its `description`).
#[test]
fn preset_descriptions_match_their_files() {
    for (name, desc, _) in PRESETS {
        let c = DeviceConfig::load(name, &[]).unwrap();
        assert_eq!(&c.description, desc, "{name}");
    }
}

/// A rule reads the same in an error and, shorter, in the key tables.
#[test]
fn rules_read_as_errors_and_table_cells() {
    use super::rule::{at_least, float, int, Num};
    let cases = [
        (
            int(1, 1024),
            Num::Int(0),
            "must be in 1..=1024 (got 0)",
            "1..=1024",
        ),
        (
            at_least(2),
            Num::Int(1),
            "must be at least 2 (got 1)",
            "≥ 2",
        ),
        (
            int(4096, 1 << 20).multiple_of(4096).unit("bytes"),
            Num::Int(5000),
            "must be a multiple of 4 KiB in 4 KiB..=1 MiB (got 5000)",
            "multiple of 4 KiB, 4 KiB..=1 MiB",
        ),
        (
            int(0, 1 << 40).multiple_of(4096).unit("bytes"),
            Num::Int(1000),
            "must be a multiple of 4 KiB in 0..=1 TiB (got 1000)",
            "multiple of 4 KiB, ≤ 1 TiB",
        ),
        (
            at_least(4096).or_zero().unit("bytes"),
            Num::Int(100),
            "must be 0 or at least 4 KiB (got 100)",
            "0 or ≥ 4 KiB",
        ),
        (
            float(0.0, 4.0).open_min(),
            Num::Float(0.0),
            "must be in (0, 4] (got 0)",
            "(0, 4]",
        ),
        (
            float(0.01, 1e7),
            Num::Float(1e-300),
            "must be in [0.01, 1e7] (got 1e-300)",
            "[0.01, 1e7]",
        ),
        (
            float(0.001, 1e6).or_zero(),
            Num::Float(f64::NAN),
            "must be 0 or in [0.001, 1e6] (got NaN)",
            "0 or [0.001, 1e6]",
        ),
    ];
    for (spec, bad, message, cell) in cases {
        let e = spec.check("k", bad).unwrap_err().to_string();
        assert_eq!(e, format!("config: k: {message}"));
        assert_eq!(spec.compact(), cell);
    }
    assert!(int(0, 1 << 40).multiple_of(4096).admits(Num::Int(0)));
    assert!(at_least(4096).or_zero().admits(Num::Int(0)));
    assert!(!float(0.0, 1.0).admits(Num::Float(f64::INFINITY)));
}

/// A table left out takes its declared default; one given keeps the defaults of the keys it
/// leaves out, including a parent's per-cell defaults (`[nand.timing.<cell>]`).
#[test]
fn a_table_is_read_onto_its_defaults() {
    let c = load(&["slc.writeback_threshold=0.3"]).unwrap();
    let d = SlcConfig::default();
    assert_eq!(c.slc.writeback_threshold, 0.3);
    assert_eq!(c.slc.writeback_idle_us, d.writeback_idle_us);
    assert_eq!(c.slc.gc_threshold_free_superblocks, 2);
    let e = err(&["nand.timing.qlc.read_us_by_page=[1.0]"]);
    assert_eq!(
        e,
        "config: nand.timing.qlc.read_us_by_page: needs one time per page type (4 for qlc), got 1"
    );
}

/// `fs.kernel`: the releases as numbers or strings, the older `v` spellings, and one located
/// line for a release the model has no profile of or a knob the release lacks.
#[test]
fn fs_kernel_takes_releases_and_aliases() {
    use fs::FsKernel;
    let kernel = |s: &str| load(&[s]).unwrap().fs.unwrap().kernel;
    assert_eq!(kernel("fs.kernel=5.4"), FsKernel::V5_4);
    assert_eq!(kernel("fs.kernel=6.1"), FsKernel::V6_1);
    assert_eq!(kernel("fs.kernel=\"6.6\""), FsKernel::V6_6);
    assert_eq!(kernel("fs.kernel=6.12"), FsKernel::V6_12);
    assert_eq!(kernel("fs.kernel=v6.12"), FsKernel::V6_12);
    assert_eq!(kernel("fs.kernel=v6.18"), FsKernel::V6_18);
    assert_eq!(kernel("fs.kind=\"f2fs\""), FsKernel::V6_18);
    for k in [FsKernel::V5_4, FsKernel::V6_18] {
        assert_eq!(FsKernel::parse(k.name()), Some(k));
    }
    let e = err(&["fs.kernel=4.19"]);
    assert!(e.starts_with("config: fs.kernel:"), "{e}");
    assert!(e.contains("5.4, 6.1, 6.6, 6.12, 6.18"), "{e}");
    assert!(!e.contains('\n'), "{e}");
    let e = err(&["fs.kernel=5.4", "fs.gc_boost_zoned_gc_percent=10"]);
    assert!(
        e.starts_with("config: fs.gc_boost_zoned_gc_percent:") && e.contains("5.4"),
        "{e}"
    );
    load(&["fs.kernel=6.12", "fs.gc_boost_zoned_gc_percent=10"]).unwrap();
}
