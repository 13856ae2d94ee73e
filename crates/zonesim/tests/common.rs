//! Helpers shared by the integration tests.

use zonesim::config::DeviceConfig;
use zonesim::host::fio::parse_job_file;
use zonesim::sim::{Precondition, RunOptions, WorkloadSpec};
use zonesim::stats::Report;

/// A preset with `--set` overrides.
pub fn device(preset: &str, sets: &[&str]) -> DeviceConfig {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    zonesim::load_device(preset, &sets).expect("valid test device")
}

/// A small conventional TLC device (2 x 2 dies, 48-page blocks) with a 16-block-per-plane SLC
/// write cache (16 SLC superblocks of 512 slots), and `sets` on top.
pub fn slc_device(sets: &[&str]) -> DeviceConfig {
    let mut all = vec![
        "nand.blocks_per_plane=80",
        "nand.slc_blocks_per_plane=16",
        "nand.pages_per_block=48",
        "slc.gc=migrate",
        "slc.conventional_buffer=true",
    ];
    all.extend_from_slice(sets);
    device("ufs-conventional", &all)
}

/// A file of `tests/data/`.
pub fn data(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

/// The small ConZone-like test device (`tests/data/small-zoned.toml`: namespace 0
/// conventional in SLC, namespace 1 zoned) with `--set` overrides.
pub fn small_zoned(sets: &[&str]) -> DeviceConfig {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/small-zoned.toml");
    device(path, sets)
}

/// A small device with many small superblocks (1 die, 1 plane, SLC, 4 KiB pages): GC behaves
/// like the analytic models, which assume many erase units.
pub fn many_blocks(op: f64, victim: &str, blocks: u32) -> DeviceConfig {
    many_blocks_with(op, victim, blocks, &[])
}

/// [`many_blocks`] with further keys `sets`.
pub fn many_blocks_with(op: f64, victim: &str, blocks: u32, sets: &[&str]) -> DeviceConfig {
    let op = format!("ftl.overprovisioning={op}");
    let victim = format!("ftl.gc.victim={victim}");
    let blocks = format!("nand.blocks_per_plane={blocks}");
    let mut all = vec![
        "nand.channels=1",
        "nand.chips_per_channel=1",
        "nand.planes_per_die=1",
        "nand.cell=slc",
        "nand.page_bytes=4096",
        "nand.pages_per_block=64",
        &blocks,
        &op,
        &victim,
        // The whole map fits in the cache: no map traffic, pure GC amplification.
        "ftl.l2p_cache_bytes=4194304",
        "buffer.bytes=65536",
    ];
    all.extend_from_slice(sets);
    device("ufs-conventional", &all)
}

pub fn jobs(text: &str) -> WorkloadSpec {
    WorkloadSpec::Jobs(parse_job_file(text, "test.fio").expect("valid job file"))
}

pub fn run(cfg: &DeviceConfig, wl: &WorkloadSpec, pre: Precondition, seed: u64) -> Report {
    run_ns(cfg, wl, pre, seed, 0)
}

/// [`run`] on namespace `ns`: invariants checked, every request completed once.
pub fn run_ns(
    cfg: &DeviceConfig,
    wl: &WorkloadSpec,
    pre: Precondition,
    seed: u64,
    ns: usize,
) -> Report {
    let opts = RunOptions {
        seed,
        precondition: pre,
        namespace: ns,
        check_invariants: true,
        power_off: None,
    };
    let r = zonesim::RunSpec::new(cfg.clone(), wl.clone())
        .options(opts.clone())
        .run()
        .expect("run succeeds");
    assert_eq!(
        r.sim.requests_issued, r.sim.requests_completed,
        "every request completes exactly once"
    );
    r
}

/// Two runs of the same writes (`a` the reference) agree on WAF and write IOPS within 2 %;
/// prints both.
pub fn assert_waf_and_iops_agree(name: &str, a: &Report, b: &Report) {
    let dw = b.device.waf / a.device.waf - 1.0;
    let di = b.host.write.iops / a.host.write.iops - 1.0;
    eprintln!(
        "{name}: WAF {:.3} vs {:.3} ({:+.2} %), IOPS {:.0} vs {:.0} ({:+.2} %)",
        a.device.waf,
        b.device.waf,
        100.0 * dw,
        a.host.write.iops,
        b.host.write.iops,
        100.0 * di
    );
    assert!(
        dw.abs() <= 0.02 && di.abs() <= 0.02,
        "{name}: off by more than 2 %"
    );
}
