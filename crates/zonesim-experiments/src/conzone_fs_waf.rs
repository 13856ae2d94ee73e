//! `conzone-fs-waf` (ConZone+, seed 000 §6.4, Fig. 11): F2FS on zoned vs block storage. A data area
//! of 85 zones (85 × 48 MiB zone capacity ≈ 4 GiB) on `conzone-paper`; step 1 writes a file of half
//! the data area sequentially with 4 KiB direct writes; step 2 updates it with 4 KiB direct random
//! writes, four times the file (the paper: 2 GiB, then 8 GiB). Four configurations:
//! - `zoned`: zoned namespace, F2FS defaults for a zoned main area (LFS, zoned BG GC 60 / 25 %);
//! - `zoned-config`: the same with the BG GC sleep times of a block device (30 / 60 / 300 s) and
//!   `gc_no_zoned_gc_percent = gc_boost_zoned_gc_percent = 0`, as the paper configured it;
//! - `block-adaptive`: the namespace conventional (page-mapped), `mode=adaptive` (default);
//! - `block-lfs`: conventional, `mode=lfs`.
//!
//! Everything is simulated: the F2FS model on the device model, closed loop at queue depth 1
//! (`fs_common`). `--quick` scales the data area to 22 zones (1 GiB) with the same ratios
//! (file = half the data area, updates = 4× the file).

use super::conzone_common::fs_device;
use super::fs_common::{FsRig, Xs};
use super::{row_abs, row_dir, row_info, row_rel, ExpOptions, Outcome, Row};
use zonesim::config::fs::{FsConfig, FsModeCfg};
use zonesim::error::Result;
use zonesim::host::fs::ROOT;

const SRC: &str = "seed 000 §6.4";
/// The sensitivity case: zoned with the BG GC thread's no-GC sleep shortened.
const SENS: &str = "zoned, no-GC sleep 1 s (sensitivity)";

/// Mark `r` a known gap with `why` when it fails.
fn gap(r: Row, why: &str) -> Row {
    if r.fails() {
        r.known_gap(why)
    } else {
        r
    }
}

struct Case {
    name: &'static str,
    block: bool,
    fs: FsConfig,
}

/// Result of one configuration.
struct Run {
    fs_waf: f64,
    dev_waf: f64,
    e2e: f64,
    step1_mib_s: f64,
    step2_mib_s: f64,
    enospc: u64,
    user_gib: f64,
    gc_gib: f64,
    /// Blocks moved by foreground, background normal and background boosted GC.
    moved: [u64; 3],
    bg_wakes: u64,
    step1_s: f64,
    step2_s: f64,
}

fn cases() -> Vec<Case> {
    let zcfg = FsConfig {
        gc_min_sleep_time: Some(30_000),
        gc_max_sleep_time: Some(60_000),
        gc_no_gc_sleep_time: Some(300_000),
        gc_no_zoned_gc_percent: Some(0),
        gc_boost_zoned_gc_percent: Some(0),
        ..FsConfig::default()
    };
    vec![
        Case {
            name: "zoned",
            block: false,
            fs: FsConfig::default(),
        },
        Case {
            name: "zoned-config",
            block: false,
            fs: zcfg,
        },
        Case {
            name: SENS,
            block: false,
            fs: FsConfig {
                gc_no_gc_sleep_time: Some(1_000),
                ..FsConfig::default()
            },
        },
        Case {
            name: "block-adaptive",
            block: true,
            fs: FsConfig {
                mode: Some(FsModeCfg::Adaptive),
                ..FsConfig::default()
            },
        },
        Case {
            name: "block-lfs",
            block: true,
            fs: FsConfig {
                mode: Some(FsModeCfg::Lfs),
                ..FsConfig::default()
            },
        },
    ]
}

fn simulate(c: &Case, o: &ExpOptions) -> Result<Run> {
    let (cfg, data) = fs_device(c.block, o.quick())?;
    let mut fs = c.fs.clone();
    fs.meta_namespace = Some(0);
    fs.main_namespace = Some(1);
    let mut rig = FsRig::new(&cfg, &fs, o.seed)?;
    let blocks = data / 2 / 4096;
    let f = rig.op(0, |fs| fs.create(ROOT, "file", 0));
    let Ok(f) = f else {
        return Err(zonesim::error::Error::Usage(
            "conzone-fs-waf: no space for the file".into(),
        ));
    };
    let copy = rig.host.fs.p.page_copy_ns;
    for b in 0..blocks {
        rig.op(copy, |fs| fs.write(f, b * 4096, 4096, true)).ok();
    }
    let step1 = rig.elapsed_s();
    let step1_mib_s = (blocks * 4096) as f64 / (1 << 20) as f64 / step1;
    rig.mark();
    let mut x = Xs::new(o.seed);
    for _ in 0..4 * blocks {
        let b = x.below(blocks);
        if rig
            .op(copy, |fs| fs.write(f, b * 4096, 4096, true))
            .is_err()
        {
            break;
        }
    }
    let c1 = rig.host.fs.c.clone();
    let d = rig.device();
    Ok(Run {
        fs_waf: rig.fs_waf(),
        dev_waf: d.waf,
        e2e: rig.end_to_end_waf(),
        step1_mib_s,
        step2_mib_s: c1.data_bytes as f64 / (1 << 20) as f64 / rig.elapsed_s(),
        enospc: c1.enospc,
        user_gib: c1.data_bytes as f64 / (1u64 << 30) as f64,
        gc_gib: (c1.gc_data_bytes + c1.gc_node_bytes) as f64 / (1u64 << 30) as f64,
        moved: c1.gc.map(|k| k.blocks_moved),
        bg_wakes: c1.bg_wakes,
        step1_s: step1,
        step2_s: rig.elapsed_s(),
    })
}

pub fn run_exp(o: &ExpOptions) -> Result<Outcome> {
    let zones = 85;
    let zone_mib = if o.quick() { 12 } else { 48 };
    let mut rows: Vec<Row> = Vec::new();
    let mut runs = Vec::new();
    for c in cases() {
        let r = simulate(&c, o)?;
        rows.push(row_info(c.name, "step 1 write MiB/s", r.step1_mib_s));
        rows.push(row_info(c.name, "step 2 write MiB/s", r.step2_mib_s));
        rows.push(row_info(c.name, "user data written GiB", r.user_gib));
        rows.push(row_info(c.name, "FS GC written GiB", r.gc_gib));
        for (k, n) in ["FG", "BG normal", "BG boosted"].iter().zip(r.moved) {
            rows.push(row_info(c.name, &format!("{k} GC blocks moved"), n as f64));
        }
        rows.push(row_info(c.name, "ENOSPC answered", r.enospc as f64));
        rows.push(row_info(c.name, "BG GC wakes", r.bg_wakes as f64));
        rows.push(row_info(c.name, "device WAF", r.dev_waf));
        rows.push(row_info(c.name, "end-to-end WAF", r.e2e));
        runs.push((c.name, r));
    }
    let get = |n: &str| &runs.iter().find(|(k, _)| *k == n).expect("case").1;
    let (z, zc, zs, ba, bl) = (
        get("zoned"),
        get("zoned-config"),
        get(SENS),
        get("block-adaptive"),
        get("block-lfs"),
    );
    rows.push(row_info(SENS, "FS WAF", zs.fs_waf));
    rows.push(row_info(
        &format!("block-adaptive / {SENS}"),
        "step 2 bandwidth ratio",
        ba.step2_mib_s / zs.step2_mib_s,
    ));
    let bg = format!(
        "measured: our zoned run lasts {:.0} s of simulated time, under the BG GC thread's first no-GC sleep (gc_no_gc_sleep_time = 60 s on a zoned main area), so only FG GC cleans ({:.0} BG wakes); the paper's took about 4 minutes (2 GiB at 86 MiB/s, 8 GiB at 35.6 MiB/s). With the thread awake (sensitivity row, gc_no_gc_sleep_time = 1 s) ours gives FS WAF {:.2}, step 2 {:.1} MiB/s, block-adaptive / zoned bandwidth {:.2}, end-to-end WAF {:.2} vs block {:.2}: the paper's GC-driven FS WAF is the zoned BG GC (10-20 ms sleeps, cost-benefit victims moved 3 segments a round)",
        z.step1_s + z.step2_s,
        z.bg_wakes,
        zs.fs_waf,
        zs.step2_mib_s,
        ba.step2_mib_s / zs.step2_mib_s,
        zs.e2e,
        ba.e2e
    );
    rows.push(gap(
        row_rel("zoned", "FS WAF", z.fs_waf, 3.81, 0.25).src(&format!("{SRC}: \"the file system write amplification factor (FS WAF) for zoned storage was 3.81\"")),
        &bg,
    ));
    rows.push(gap(
        row_rel("zoned-config", "FS WAF", zc.fs_waf, 3.54, 0.25).src(&format!(
            "{SRC}: \"the file system write amplification decreased to 3.54\""
        )),
        &format!("with gc_no_zoned_gc_percent = 0 our zoned BG GC never runs (free sections > 0 % of the main area, as has_enough_free_blocks reads it), so zoned-config is FG GC only, FS WAF {:.2} = greedy cleaning at the mkfs reserve; the paper's 3.54 means its BG GC still ran (the block sleep times, 30-60 s), which our compressed run ({:.0} s) cannot reach; see zoned / FS WAF for the BG GC sensitivity", zc.fs_waf, zc.step1_s + zc.step2_s),
    ));
    rows.push(
        row_abs("block-adaptive", "FS WAF", ba.fs_waf, 1.0, 0.15).src(&format!(
            "{SRC}: \"while block-adaptive was very close to 1\""
        )),
    );
    rows.push(gap(
        row_dir(
            "zoned-config vs zoned",
            "FS WAF change %",
            super::pct_change(zc.fs_waf, z.fs_waf),
            false,
        )
        .src(&format!(
            "{SRC}: zoned-config 3.54 vs zoned 3.81 (GC thresholds adjusted, \"did not significantly improve\")"
        )),
        &format!("neither of our two zoned runs wakes its BG GC thread, so they are identical; with the zoned thread awake (sensitivity) zoned is {:.2} and zoned-config stays {:.2}: lower, as the paper's (see zoned / FS WAF)", zs.fs_waf, zc.fs_waf),
    ));
    let mut lfs = row_dir(
        "block-lfs",
        "ENOSPC (1 = ran out of space)",
        if bl.enospc > 0 { 1.0 } else { -1.0 },
        true,
    )
    .src(&format!(
        "{SRC}: \"block-lfs could not complete the experiment smoothly due to insufficient file system space\""
    ));
    if bl.enospc == 0 {
        lfs = lfs.known_gap(&format!("our LFS mode on a block main area keeps the mkfs reserve for FG GC and never answers ENOSPC with a file at half the data area: it completes at FS WAF {:.2}, {:.1} MiB/s; the paper does not state what exhausted its space (checkpoint=disable or a different reserve is unstated)", bl.fs_waf, bl.step2_mib_s));
    }
    rows.push(lfs);
    rows.push(gap(
        row_rel(
            "block-adaptive / zoned",
            "step 2 bandwidth ratio",
            ba.step2_mib_s / z.step2_mib_s,
            84.9 / 35.6,
            0.5,
        )
        .src(&format!(
            "{SRC}: \"Zoned storage exhibited a write bandwidth of 35.6 MiB/s (9.125 K IOPS), whereas block-adaptive achieved 84.9 MiB/s\"; ratio 84.9 / 35.6 = 2.38"
        )),
        &bg,
    ));
    rows.push(
        row_rel(
            "zoned-config / zoned",
            "step 2 bandwidth ratio",
            zc.step2_mib_s / z.step2_mib_s,
            38.1 / 35.6,
            0.15,
        )
        .src(&format!(
            "{SRC}: \"The write bandwidth of zoned-config only increased to 38.1 MiB/s\"; ratio 38.1 / 35.6 = 1.07"
        )),
    );
    rows.push(gap(
        row_dir(
            "block-adaptive vs zoned",
            "step 1 bandwidth change %",
            super::pct_change(ba.step1_mib_s, z.step1_mib_s),
            true,
        )
        .src(&format!(
            "{SRC}: \"the write bandwidth of zoned storage (average 86 MiB/s) is lower than that of block storage (average 106 MiB/s)\""
        )),
        "on a zoned main area F2FS turns direct writes into buffered ones (LFS), so our zoned step 1 leaves as 512 KiB writeback bios while block-adaptive issues every 4 KiB write at queue depth 1; the paper's zoned path was slower, a per-4 KiB host cost (page cache, F2FS locking) we do not model (host CPU time is outside zonesim; ConZone+ §6.2 also credits the host CPU for part of its Fig. 8 results)",
    ));
    rows.push(gap(
        row_dir(
            "zoned vs block-adaptive",
            "end-to-end WAF change %",
            super::pct_change(z.e2e, ba.e2e),
            true,
        )
        .src(&format!(
            "{SRC}: \"its end-to-end write amplification (E2E WAF) remained higher than that of block storage\""
        )),
        &bg,
    ));
    Ok(Outcome {
        name: "conzone-fs-waf".into(),
        title: "F2FS on zoned vs block storage: FS WAF, bandwidth, block-lfs space (ConZone+ §6.4, Fig. 11)".into(),
        source: "seed 000 (ConZone+) §6.4 and Fig. 11".into(),
        rows,
        notes: vec![
            format!("data area {zones} zones x {zone_mib} MiB on conzone-paper ({} MiB); file = half of it written with 4 KiB direct writes, then 4 KiB direct random updates of 4x the file; the paper: 4 GiB, 2 GiB, 8 GiB{}", zones * zone_mib, if o.quick() { "; --quick: every zone 4x smaller (96-page blocks), the same 85 sections, mkfs reserve (13 sections) and ratios" } else { "" }),
            "closed loop, queue depth 1, host page copy 1 us per 4 KiB (fs.page_copy_ns); direct I/O is buffered on a zoned main area (as F2FS does) and in place on adaptive".into(),
            "block = namespace 1 turned conventional (page-mapped, 7 % OP) of the same capacity, its buffer the two zone buffers together".into(),
            "FS WAF = everything F2FS wrote (data, node, NAT/SIT/SSA, checkpoints, GC) / user data written in step 2".into(),
        ],
    })
}
