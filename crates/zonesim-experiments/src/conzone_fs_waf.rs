//! `conzone-fs-waf` (ConZone+ §6.4, Fig. 11; §4.1): F2FS on zoned vs block storage.
//! A data area of 85 zones (85 × 48 MiB zone capacity ≈ 4 GiB) on `conzone-paper`; step 1
//! writes a file of half the data area sequentially with 4 KiB direct writes; step 2 updates it
//! with 4 KiB direct random writes, four times the file (the paper: 2 GiB, then 8 GiB). Four
//! configurations, F2FS as the paper's kernel 6.12 (§6.1):
//! - `zoned`: zoned namespace, F2FS defaults for a zoned main area (LFS, zoned BG GC 60 / 25 %);
//! - `zoned-config`: the same with the BG GC sleep times of a block device (30 / 60 / 300 s) and
//!   `gc_no_zoned_gc_percent = gc_boost_zoned_gc_percent = 0`, as the paper configured it;
//! - `block-adaptive`: the namespace conventional (page-mapped), `mode=adaptive` (default);
//! - `block-lfs`: conventional, `mode=lfs`.
//!
//! Host time. The runs are on the host CPU as ConZone+ had it (`conzone_common::with_host_cpu`:
//! 18 cores, Linux 6.12.16; `host_cpu::RigCpu`): fio's thread runs each write call's system
//! call and F2FS write path, the page-cache copy where F2FS buffers it (a zoned main area),
//! node blocks, checkpoints and the block layer on a core before its device requests, and
//! their completion path after. What the model has no step for — fio's own time per I/O and
//! the emulator's — decides how long the paper's run lasted and so whether F2FS's background
//! GC thread woke (it sleeps 60 s after its first look on a zoned main area). We fit that rest
//! as one host time per 4 KiB write (`HOST_TARGET`) so that block-adaptive's step 1 — the
//! simplest path, in-place direct writes — runs at the paper's 106 MiB/s (a calibration, that
//! row says so; every other row is checked against it), and apply it to every case;
//! sensitivity rows run without it, with twice it, and with the host CPU off (the host time
//! fitted the same way as a plain delay, the model before).
//!
//! Everything else is simulated: the F2FS model on the device model, closed loop at queue
//! depth 1 (`fs_common`). Scale: `paper` / `full` are the paper's sizes (§6.4); `quick`
//! shrinks every zone 4x (the same 85 sections, 1 GiB) with the same ratios, and scales the
//! BG GC thread's no-GC sleep by the same 1/4, so that its first wake keeps its place in the
//! (4x shorter) run.

use super::conzone_common::{band, fs_device, with_host_cpu};
use super::fs_common::{waf_rows, FsRig, Xs};
use super::host_cpu::RigCpu;
use super::{
    par_map, pct_change, row_abs, row_dir, row_info, row_range, Cause, ExpOptions, Outcome, Row,
    Scale,
};
use zonesim::config::fs::{FsConfig, FsKernel, FsModeCfg};
use zonesim::engine::SimTime;
use zonesim::error::Result;
use zonesim::host::cpu::{Burst, Step};
use zonesim::host::fs::ROOT;

const SRC: &str = "ConZone+ §6.4";
/// Block-adaptive's step-1 bandwidth in the paper, MiB/s: the host time is fitted to it.
const HOST_TARGET: f64 = 106.0;

/// One configuration.
#[derive(Clone)]
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
    /// Zones the metadata namespace needs: the reserved first zone + CP/SIT/NAT/SSA (§4.1).
    meta_zones: f64,
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

/// Run case `c` with `host_ns` of host time per 4 KiB write besides the host CPU model's
/// steps (`cpu`; off: besides the page copy); `step1_only` stops after step 1.
fn simulate(c: &Case, o: &ExpOptions, host_ns: u64, cpu: bool, step1_only: bool) -> Result<Run> {
    let (mut cfg, data) = fs_device(c.block, o.quick())?;
    if cpu {
        with_host_cpu(&mut cfg)?;
    }
    let mut fs = c.fs.clone();
    fs.kernel = FsKernel::V6_12;
    fs.meta_namespace = Some(0);
    fs.main_namespace = Some(1);
    if o.quick() {
        // A quarter of the volume runs a quarter of the time: the first BG GC wake with it.
        let kernel_default = if c.block { 300_000 } else { 60_000 };
        fs.gc_no_gc_sleep_time = Some(fs.gc_no_gc_sleep_time.unwrap_or(kernel_default) / 4);
    }
    let mut rig = FsRig::new(&cfg, &fs, o.seed)?;
    let geo = &rig.f2fs().geo;
    let meta_zones = 1.0 + (geo.meta.blocks * 4096).div_ceil(cfg.zone.size_bytes) as f64;
    let blocks = data / 2 / 4096;
    let Ok(f) = rig.op(0, |fs| fs.create(ROOT, "file", 0)) else {
        return Err(zonesim::error::Error::Usage(
            "conzone-fs-waf: no space for the file".into(),
        ));
    };
    let mut cores = RigCpu::new(&cfg.host.cpu);
    let per_op = host_ns + if cpu { 0 } else { rig.f2fs().p.page_copy_ns };
    // One 4 KiB direct write of fio's thread: on the cores (the host time after it), or the
    // page copy and the host time as a delay.
    let mut write = |rig: &mut FsRig, b: u64| match cores.as_mut() {
        None => rig.op(per_op, |fs| fs.write(f, b * 4096, 4096, true)),
        Some(c) => {
            let call = Burst::of(Step::Syscall).with(Step::F2fsWrite, 1);
            let r = c.op(rig, |fs| fs.write(f, b * 4096, 4096, true), |_| call);
            rig.advance_to(SimTime(rig.now.ns() + per_op));
            r
        }
    };
    for b in 0..blocks {
        write(&mut rig, b).ok();
    }
    let step1 = rig.elapsed_s();
    let step1_mib_s = (blocks * 4096) as f64 / (1 << 20) as f64 / step1;
    rig.mark();
    let mut x = Xs::new(o.seed);
    for _ in 0..if step1_only { 0 } else { 4 * blocks } {
        let b = x.below(blocks);
        if write(&mut rig, b).is_err() {
            break;
        }
    }
    let c1 = rig.f2fs().c.clone();
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
        meta_zones,
    })
}

/// Context rows of one run.
fn info_rows(rows: &mut Vec<Row>, name: &str, r: &Run) {
    rows.push(row_info(name, "step 1 write MiB/s", r.step1_mib_s));
    rows.push(row_info(name, "step 2 write MiB/s", r.step2_mib_s));
    waf_rows(rows, name, r.fs_waf, r.dev_waf, r.e2e);
    rows.push(row_info(name, "user data written GiB", r.user_gib));
    rows.push(row_info(name, "FS GC written GiB", r.gc_gib));
    for (k, n) in ["FG", "BG normal", "BG boosted"].iter().zip(r.moved) {
        rows.push(row_info(name, &format!("{k} GC blocks moved"), n as f64));
    }
    rows.push(row_info(name, "ENOSPC answered", r.enospc as f64));
    rows.push(row_info(name, "BG GC wakes", r.bg_wakes as f64));
    rows.push(row_info(
        name,
        "simulated s (steps 1 + 2)",
        r.step1_s + r.step2_s,
    ));
}

/// A number of §6.4: (registry id, case, metric, ours, the paper's value, the value of no
/// effect, the source after "ConZone+ §6.4", the row's declared gap).
type Number<'a> = (
    &'a str,
    &'a str,
    &'a str,
    f64,
    f64,
    f64,
    String,
    &'a dyn Fn(Row) -> Row,
);

/// Where the paper's `paper` lies against our values without the extra host time (`none`) and
/// with the fitted one (`fitted`), which grow with it.
fn where_between(paper: f64, none: f64, fitted: f64) -> &'static str {
    if paper < none.min(fitted) {
        "below even the run without extra host time"
    } else if paper > none.max(fitted) {
        "above the run with the fitted host time"
    } else {
        "between no extra host time and the fitted one"
    }
}

pub fn run_exp(o: &ExpOptions) -> Result<Outcome> {
    let cs = cases();
    let (zoned, block) = (&cs[0], &cs[2]);
    // The host time per 4 KiB write: what block-adaptive's step 1 lacks of the paper's pace,
    // on the host CPU model (checked) and with it off (the sensitivity pair).
    let fit = |cpu: bool| -> Result<(u64, f64)> {
        let bare = simulate(block, o, 0, cpu, true)?;
        let per_write_s = 4096.0 / (bare.step1_mib_s * (1 << 20) as f64);
        let target_s = 4096.0 / (HOST_TARGET * (1 << 20) as f64);
        let ns = ((target_s - per_write_s).max(0.0) * 1e9).round() as u64;
        Ok((ns, bare.step1_mib_s))
    };
    let ((host_ns, bare_mib_s), (off_ns, _)) = (fit(true)?, fit(false)?);
    // The four configurations with it, zoned / block-adaptive without it and with twice it,
    // and zoned / block-adaptive with the host CPU off.
    let mut jobs: Vec<(Case, u64, bool)> = cs.iter().map(|c| (c.clone(), host_ns, true)).collect();
    for (h, cpu) in [(0, true), (2 * host_ns, true), (off_ns, false)] {
        jobs.push((zoned.clone(), h, cpu));
        jobs.push((block.clone(), h, cpu));
    }
    let runs: Vec<Run> = par_map(&jobs, |(c, h, cpu)| simulate(c, o, *h, *cpu, false))
        .into_iter()
        .collect::<Result<_>>()?;
    let (z, zc, ba, bl) = (&runs[0], &runs[1], &runs[2], &runs[3]);
    let mut rows: Vec<Row> = Vec::new();
    let host_us = host_ns as f64 / 1000.0;
    let (z0, b0, z2, b2) = (&runs[4], &runs[5], &runs[6], &runs[7]);
    // The host time per 4 KiB write decides how long the run lasts, and so how much F2FS's
    // background GC cleans on the zoned main area (it wakes and cleans while free sections are
    // under gc_no_zoned_gc_percent): without it, fitted, twice it.
    let host_why = format!(
        "measured: the paper's fio and emulator time per 4 KiB write (beside the kernel steps the host CPU model charges) is not stated; it sets how long step 2 lasts and so how much F2FS's zoned background GC cleans. Host time 0 / {host_us:.1} (fitted to block-adaptive's step 1) / {:.1} us per write: zoned FS WAF {:.2} / {:.2} / {:.2}, zoned step 2 {:.1} / {:.1} / {:.1} MiB/s, block-adaptive / zoned step 2 {:.2} / {:.2} / {:.2}, zoned BG GC wakes {} / {} / {} over {:.0} / {:.0} / {:.0} simulated s. The paper's FS WAF 3.81 lies {} and its step-2 ratio 2.38 {}; once awake our BG GC keeps cleaning (free sections stay under its 60 % target at this fill), so FS WAF grows with the run's length. Host CPU off (the host time fitted as a plain delay, {:.1} us): FS WAF {:.2}, step-2 ratio {:.2}",
        2.0 * host_us,
        z0.fs_waf, z.fs_waf, z2.fs_waf,
        z0.step2_mib_s, z.step2_mib_s, z2.step2_mib_s,
        b0.step2_mib_s / z0.step2_mib_s, ba.step2_mib_s / z.step2_mib_s, b2.step2_mib_s / z2.step2_mib_s,
        z0.bg_wakes, z.bg_wakes, z2.bg_wakes,
        z0.step1_s + z0.step2_s, z.step1_s + z.step2_s, z2.step1_s + z2.step2_s,
        where_between(3.81, z0.fs_waf, z.fs_waf),
        where_between(84.9 / 35.6, b0.step2_mib_s / z0.step2_mib_s, ba.step2_mib_s / z.step2_mib_s),
        off_ns as f64 / 1000.0,
        runs[8].fs_waf,
        runs[9].step2_mib_s / runs[8].step2_mib_s,
    );
    let zc_why = format!(
        "measured: with the block device's GC sleep times and the zoned GC percentages at 0, our F2FS's background GC only cleans when the device is idle, which a closed loop never is: {} wakes, {} blocks moved by BG GC; foreground GC alone cleans at FS WAF {:.2} and step 2 runs at {:.1} MiB/s. The paper's zoned-config still cleaned at FS WAF 3.54: what made its GC run is not in the text, and our model does not reproduce it",
        zc.bg_wakes, zc.moved[1] + zc.moved[2], zc.fs_waf, zc.step2_mib_s,
    );
    let step1_why = format!(
        "measured: zoned step 1 {:.1} MiB/s against block-adaptive's {:.1} (host CPU off: {:.1}): our F2FS buffers zoned direct writes in the page cache as the paper says, and the host CPU model charges each call its copy on a core, but F2FS's writeback then sends the pages in large sequential requests after the call returns, so zoned is faster. The paper's zoned path was slower, as if each fallen-back direct write were written back and waited for before the call returned (O_DIRECT's semantics); our F2FS model has no such synchronous writeback",
        z.step1_mib_s, ba.step1_mib_s, runs[8].step1_mib_s,
    );
    let lfs_why = format!(
        "measured: block-lfs completed every update ({:.2} GiB of user data, {} ENOSPC, FS GC wrote {:.2} GiB): foreground GC keeps up on our block device. The configuration that made the paper's block-lfs run out of space (its reserve and over-provisioning settings) is not stated, and its smaller user-data volume follows from stopping early",
        bl.user_gib, bl.enospc, bl.gc_gib,
    );
    // Measured at both scales (seed 1): quick (every zone 4x smaller, the no-GC sleep / 4) and
    // paper.
    const STEP2_SCALE: &str = "measured on the ConZone+ host CPU: quick zoned step 2 40.0 MiB/s, ratio 2.65 (inside the bands); paper 14.5 MiB/s, ratio 7.30 (outside): the paper-scale run lasts 572 simulated s against 52 in quick (whose no-GC sleep is a quarter too), and once awake our zoned BG GC cleans for all of it (25,627 wakes against 1,860)";
    rows.push(
        row_abs("zoned", "metadata namespace zones", z.meta_zones, 2.0, 0.0)
            .id("conzone.sec4-1.metadata-zones")
            .src("ConZone+ §4.1: \"one zone is sufficient to store metadata for small-capacity devices (e.g., 4 GiB). F2FS reserves the first zone and starts placing metadata from the second zone ... we recommend starting with a reservation of two zones\""),
    );
    rows.push(
        band("block-adaptive", "step 1 write MiB/s", ba.step1_mib_s, 106.0, 0.0)
            .id("conzone.sec6-4.step1-block")
            .src(&format!("{SRC}: \"the write bandwidth of zoned storage (average 86 MiB/s) is lower than that of block storage (average 106 MiB/s)\""))
            .calibration(&format!("host time per 4 KiB write besides the host CPU model's steps {host_us:.1} us fitted to it (block-adaptive step 1 without it: {bare_mib_s:.1} MiB/s); the other rows are checked with it")),
    );
    let step2_gap = |r: Row| {
        r.scale_dependent(STEP2_SCALE).gap_at(
            o.scale,
            &[Scale::Full, Scale::Paper],
            Cause::UnstatedParameter,
            &host_why,
        )
    };
    let (step1_gap, zc_gap) = (
        |r: Row| r.gap(Cause::MissingMechanism, &step1_why),
        |r: Row| r.gap(Cause::ModelDefect, &zc_why),
    );
    // The paper's numbers of §6.4 in its order: (registry id, case, metric, ours, the paper's
    // value, the value of no effect (`band`), the source after "ConZone+ §6.4"), and the
    // declared gap of each.
    #[rustfmt::skip]
    let numbers: [Number; 10] = [
        ("conzone.sec6-4.step1-zoned", "zoned", "step 1 write MiB/s", z.step1_mib_s, 86.0, 0.0, ": \"the write bandwidth of zoned storage (average 86 MiB/s)\"".into(), &step1_gap),
        ("conzone.sec6-4.step1-ratio", "block-adaptive / zoned", "step 1 bandwidth ratio", ba.step1_mib_s / z.step1_mib_s, 106.0 / 86.0, 1.0, ": 106 vs 86 MiB/s; ratio 106 / 86 = 1.23".into(), &step1_gap),
        ("conzone.sec6-4.step2-zoned", "zoned", "step 2 write MiB/s", z.step2_mib_s, 35.6, 0.0, ": \"Zoned storage exhibited a write bandwidth of 35.6 MiB/s (9.125 K IOPS)\"".into(), &step2_gap),
        ("conzone.sec6-4.step2-block-adaptive", "block-adaptive", "step 2 write MiB/s", ba.step2_mib_s, 84.9, 0.0, ": \"whereas block-adaptive achieved 84.9 MiB/s (21.7 K IOPS)\"".into(), &|r| r),
        ("conzone.sec6-4.step2-zoned-config", "zoned-config", "step 2 write MiB/s", zc.step2_mib_s, 38.1, 0.0, ": \"The write bandwidth of zoned-config only increased to 38.1 MiB/s (9.766 K IOPS)\"".into(), &zc_gap),
        ("conzone.sec6-4.step2-ratio", "block-adaptive / zoned", "step 2 bandwidth ratio", ba.step2_mib_s / z.step2_mib_s, 84.9 / 35.6, 1.0, ": 84.9 vs 35.6 MiB/s; ratio 84.9 / 35.6 = 2.38".into(), &step2_gap),
        ("conzone.sec6-4.zoned-config-ratio", "zoned-config / zoned", "step 2 bandwidth ratio", zc.step2_mib_s / z.step2_mib_s, 38.1 / 35.6, 1.0, ": 38.1 vs 35.6 MiB/s; ratio 38.1 / 35.6 = 1.07".into(), &zc_gap),
        ("conzone.fig11a.zoned-fs-waf", "zoned", "FS WAF", z.fs_waf, 3.81, 1.0, " Fig. 11(a): \"the file system write amplification factor (FS WAF) for zoned storage was 3.81\"".into(), &|r| r.gap(Cause::UnstatedParameter, &host_why)),
        ("conzone.fig11a.zoned-config-fs-waf", "zoned-config", "FS WAF", zc.fs_waf, 3.54, 1.0, " Fig. 11(a): \"the file system write amplification decreased to 3.54\"".into(), &zc_gap),
        ("conzone.fig11a.zoned-config-lower", "zoned-config vs zoned", "FS WAF change %", pct_change(zc.fs_waf, z.fs_waf), (3.54 / 3.81 - 1.0) * 100.0, 0.0, " Fig. 11(a): zoned-config 3.54 vs zoned 3.81: 3.54 / 3.81 - 1 = -7.1 %".into(), &zc_gap),
    ];
    for (id, case, metric, ours, reference, none, src, gap) in numbers {
        let r = band(case, metric, ours, reference, none)
            .id(id)
            .src(&format!("{SRC}{src}"));
        rows.push(gap(r));
        if id == "conzone.fig11a.zoned-config-fs-waf" {
            let mut close = row_range("block-adaptive", "FS WAF", ba.fs_waf, 1.0, 1.0, 1.1);
            close.tolerance = format!("{} (\"very close to 1\")", close.tolerance);
            rows.push(
                close
                    .id("conzone.fig11a.block-adaptive-fs-waf")
                    .src(&format!(
                        "{SRC} Fig. 11(a): \"while block-adaptive was very close to 1\""
                    )),
            );
        }
    }
    // The claims of §6.4 without a number: (registry id, case, metric, ours, higher, the
    // source after "ConZone+ §6.4"); the two of block-lfs are known gaps.
    let least = z.user_gib.min(zc.user_gib).min(ba.user_gib);
    #[rustfmt::skip]
    let claims = [
        ("conzone.sec6-4.block-lfs-enospc", "block-lfs", "ENOSPC (1 = ran out of space)", if bl.enospc > 0 { 1.0 } else { -1.0 }, true, ": \"block-lfs could not complete the experiment smoothly due to insufficient file system space\""),
        ("conzone.fig11b.block-lfs-user-data", "block-lfs vs the least of the other three", "user data written change %", pct_change(bl.user_gib, least), false, " Fig. 11(b): \"the user data written by block-lfs was less than that of the other three comparison objects\""),
        ("conzone.sec6-4.dev-waf", "zoned vs block-adaptive", "device WAF change %", pct_change(z.dev_waf, ba.dev_waf), false, ": \"Despite the lower device write amplification (Dev WAF) of zoned storage\""),
        ("conzone.sec6-4.e2e-waf", "zoned vs block-adaptive", "end-to-end WAF change %", pct_change(z.e2e, ba.e2e), true, ": \"its end-to-end write amplification (E2E WAF) remained higher than that of block storage\""),
    ];
    for (id, case, metric, ours, higher, src) in claims {
        let r = row_dir(case, metric, ours, higher)
            .id(id)
            .src(&format!("{SRC}{src}"));
        rows.push(if case.starts_with("block-lfs") {
            r.gap(Cause::UnstatedParameter, &lfs_why)
        } else {
            r
        });
    }
    for (c, r) in cs.iter().zip(&runs) {
        info_rows(&mut rows, c.name, r);
    }
    rows.push(row_info(
        "all cases",
        "host time per 4 KiB write us (fitted)",
        host_us,
    ));
    let off_label = format!(
        "host CPU off, host time {:.1} us fitted",
        off_ns as f64 / 1000.0
    );
    for (k, label) in [
        (4, "host time 0"),
        (6, "host time x2"),
        (8, off_label.as_str()),
    ] {
        let (sz, sb) = (&runs[k], &runs[k + 1]);
        let case = format!("{label} (sensitivity)");
        rows.push(row_info(&case, "zoned step 1 MiB/s", sz.step1_mib_s).sensitivity());
        rows.push(row_info(&case, "zoned FS WAF", sz.fs_waf).sensitivity());
        rows.push(row_info(&case, "zoned step 2 MiB/s", sz.step2_mib_s).sensitivity());
        rows.push(row_info(&case, "block-adaptive step 2 MiB/s", sb.step2_mib_s).sensitivity());
        rows.push(
            row_info(
                &case,
                "block-adaptive / zoned step 2 ratio",
                sb.step2_mib_s / sz.step2_mib_s,
            )
            .sensitivity(),
        );
        rows.push(
            row_info(
                &case,
                "zoned vs block-adaptive end-to-end WAF change %",
                pct_change(sz.e2e, sb.e2e),
            )
            .sensitivity(),
        );
        rows.push(row_info(&case, "zoned BG GC wakes", sz.bg_wakes as f64).sensitivity());
        rows.push(row_info(&case, "zoned simulated s", sz.step1_s + sz.step2_s).sensitivity());
    }
    let zones = 85;
    let zone_mib = if o.quick() { 12 } else { 48 };
    Ok(Outcome {
        name: "conzone-fs-waf".into(),
        title: "F2FS on zoned vs block storage: FS WAF, bandwidth, block-lfs space (ConZone+ §6.4, Fig. 11)".into(),
        source: "ConZone+ §6.4 and Fig. 11; §4.1".into(),
        rows,
        notes: vec![
            format!("data area {zones} zones x {zone_mib} MiB on conzone-paper ({} MiB); file = half of it written with 4 KiB direct writes, then 4 KiB direct random updates of 4x the file; the paper: 4 GiB, 2 GiB, 8 GiB{}", zones * zone_mib, if o.quick() { "; --quick: every zone 4x smaller (96-page blocks), the same 85 sections, mkfs reserve (13 sections) and ratios, F2FS's no-GC sleep / 4" } else { "" }),
            format!("closed loop, queue depth 1, on the host CPU as ConZone+ ran it (18 cores of two Xeon Silver 4114, Linux 6.12.16): per 4 KiB write fio's thread runs the system call and F2FS's write path, the page-cache copy where F2FS buffers the write, node blocks, checkpoints and the block layer on a core ([host.cpu] defaults), then the device requests and their completion path; beside them {host_us:.1} us of host time (fio's own and the emulator's) fitted so that block-adaptive's step 1 runs at the paper's 106 MiB/s; every device command also pays host.overhead_us lowered by the kernel part on the cores (15.3 - 6.5 = 8.8 us). F2FS as kernel 6.12 (the paper's 6.12.16); direct I/O is buffered on a zoned main area (as F2FS does) and in place on adaptive"),
            "block = namespace 1 turned conventional (page-mapped, 7 % OP) of the same capacity, its buffer the two zone buffers together".into(),
            "FS WAF = everything F2FS wrote (data, node, NAT/SIT/SSA, checkpoints, GC) / user data written in step 2; end-to-end WAF = flash programs / user data".into(),
            "Bands: +-25 % of the paper's effect (a bandwidth, a ratio minus 1, a WAF minus 1); 'very close to 1' as [1.0, 1.1].".into(),
        ],
    })
}
