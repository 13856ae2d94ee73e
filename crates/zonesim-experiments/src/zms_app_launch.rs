//! `zms-app-launch`: ZMS (ATC'24 talk) "Random Read Performance": "Application launch time:
//! 5.8 ~ 11.6% reduction", ZMS against the block baseline, over the talk's apps in five
//! categories ("Evaluation Setup": basic 8, image 3, video 5, education 4, game 17; Android 11,
//! Linux 5.4, SM8350).
//!
//! Both sides are the `zms-2024` hardware at the run's scale (`zms_common`; the paper scale is
//! the talk's 128 GiB device) with F2FS (the talk's kernel 5.4, metadata on the conventional
//! LU): the **baseline** with the data LU conventional (`as_block`: page-mapped FTL with the
//! L2P map-page cache calibrated for `zms-randread`), F2FS adaptive; **ZMS** with the zoned LU
//! (zone map), F2FS LFS. Each side: the two-stage aging of Zoned UFS §5.6.1 (`fs_aging`, scaled
//! by k = user capacity / 512 GB; stopped when free space falls below "40 GB" x k or twice the
//! apps' files, whichever is more), then one app per category installed, dexopt'd and used (`app_launch`), then
//! per app: other apps' random reads over the aged files (so the device's map cache holds
//! theirs), then the app's cold launch.
//!
//! The app's own CPU work per launch is set by a stated rule, not fitted to the talk: Android's
//! IORap study (Android 11, the talk's release; "Improving app startup with I/O prefetching",
//! Android Developers blog, 2020) found that "80%+ [of popular apps] spent 10%+ time in
//! blocking I/O during launch time, while ~50% of the apps even spent 20%+": the checked rows
//! give each app the work that makes 20 % of its baseline launch blocking I/O (the median app),
//! and the same work on ZMS; 10 % and 30 % are sensitivity rows. The reads' device time does not
//! depend on the gaps between them (nothing runs there in this model), so each side's launch is
//! measured once and its time composed with the work (`Launch::with_app_ns`).
//!
//! What decides the result (measured, [`SCALE_WHY`]): on the talk's 128 GiB device the aging
//! leaves 40 GB x k free, F2FS adaptive installs the apps by slack space recycling into the
//! holes the aging left, and the baseline's launches need about twice ZMS's device requests
//! (its map-cache misses add little: an app's files lie within a few of its 32 MiB map pages);
//! on the smaller devices of `--quick` and `full` the apps find free segments, so the checked
//! row is a known gap there. A baseline with 1 MiB map units (the two-level map, same SRAM) is a
//! sensitivity side: the map unit the talk's UFS loads on a miss is unstated.

use super::app_launch::{apps, install, launch, others_read, plan, App, Launch, LaunchCpu};
use super::fs_aging::{scale_k, scaled, stage1, stage2, Aging, PAPER};
use super::fs_common::{as_block, FsRig};
use super::zms_common::{zms_device, HOST_KERNEL};
use super::{pct_change, row_info, row_range, Cause, ExpOptions, Outcome, Row, Scale};
use zonesim::config::fs::FsConfig;
use zonesim::config::{DeviceConfig, MappingKind};
use zonesim::error::Result;
use zonesim::host::fs::{Ino, BLOCK_BYTES};

const EXP: &str = "zms-app-launch";
const SRC: &str = "ZMS \"Random Read Performance\" (Application launch time)";
/// The data LU of both sides.
const DATA_NS: usize = 1;
/// The talk's range of the reduction, percent (printed, never used in the computation).
const RANGE: (f64, f64) = (5.8, 11.6);
/// The blocking-I/O share of a baseline launch of the checked rows (IORap's median app) and
/// of the sensitivity rows.
const IO_SHARE: f64 = 0.20;
const IO_SHARES: [f64; 2] = [0.10, 0.30];
/// The baseline's map unit of the sensitivity side: L2 tables of 1 MiB of data (1 KiB of map;
/// the preset's map page of 32 KiB maps 32 MiB).
const MAP_UNIT_SENS: u64 = 1 << 20;

/// What one scale runs: the zone shrink of the device, the app size divisor, the use rounds
/// and the other apps' reads before each launch.
struct Plan {
    quick_div: u64,
    app_div: u64,
    rounds: u64,
    others: u64,
}

fn plan_of(scale: Scale) -> Plan {
    match scale {
        Scale::Quick => Plan {
            quick_div: 4,
            app_div: 4,
            rounds: 50,
            others: 5_000,
        },
        Scale::Full | Scale::Paper => Plan {
            quick_div: 1,
            app_div: 1,
            rounds: 200,
            others: 20_000,
        },
    }
}

/// One side after its launches.
struct Side {
    passes: u64,
    free_gib: f64,
    /// Free space after aging over the user capacity.
    free_share: f64,
    /// SSR segments F2FS opened while the apps were installed and used.
    ssr: u64,
    /// Per app: its launch and its files' fragments (extents).
    launches: Vec<(Launch, u64)>,
}

/// A side: ZMS, the block baseline, or the baseline with the two-level map of `region` bytes
/// per L2 table (sensitivity: the map unit the talk's UFS loads on a miss is unstated).
#[derive(Clone, Copy, PartialEq)]
enum Variant {
    Zms,
    Baseline,
    TwoLevel(u64),
}

fn device(scale: Scale, v: Variant) -> Result<DeviceConfig> {
    let d = zms_device(scale, plan_of(scale).quick_div)?;
    if v == Variant::Zms {
        return Ok(d);
    }
    let mut b = as_block(&d, DATA_NS)?;
    if let Variant::TwoLevel(region) = v {
        b.ftl.mapping = MappingKind::TwoLevel;
        b.ftl.compressed_region_bytes = region;
        b.validate()?;
    }
    zonesim::device::validate(&b)?;
    Ok(b)
}

fn simulate(cfg: &DeviceConfig, apps: &[App], p: &Plan, seed: u64) -> Result<Side> {
    let fs = FsConfig {
        meta_namespace: Some(0),
        main_namespace: Some(DATA_NS),
        kernel: HOST_KERNEL,
        ..FsConfig::default()
    };
    let mut rig = FsRig::new(cfg, &fs, seed)?;
    let k = scale_k(&rig);
    let total: u64 = apps.iter().map(App::bytes).sum();
    let floor_gb = PAPER.floor_gb.max(2.0 * total as f64 / 1e9 / k);
    let kept = stage1(&mut rig, EXP, k)?;
    let a = Aging { floor_gb, ..PAPER };
    let (passes, s2) = stage2(&mut rig, EXP, k, a, seed)?;
    let free = rig.f2fs().free_bytes();
    let free_gib = free as f64 / (1u64 << 30) as f64;
    let free_share = free as f64 / (rig.f2fs().geo.user_blocks * BLOCK_BYTES) as f64;
    let ssr0 = rig.f2fs().c.ssr_segments;
    let inst = install(&mut rig, EXP, apps, p.rounds, seed)?;
    let ssr = rig.f2fs().c.ssr_segments - ssr0;
    let mut others: Vec<(Ino, u64)> = kept.iter().map(|&f| (f, scaled(k, 1e9))).collect();
    others.extend(s2.iter().map(|&f| (f, scaled(k, 64e6))));
    let mut cpu = LaunchCpu::sm8350();
    let mut launches = Vec::new();
    for (i, (app, ins)) in apps.iter().zip(&inst).enumerate() {
        let s = seed.wrapping_add(i as u64);
        others_read(&mut rig, &others, p.others, s);
        let l = launch(&mut rig, ins, &plan(app, s), &mut cpu, 0);
        let frags = ins.inos.iter().map(|&f| rig.f2fs().file_extents(f)).sum();
        launches.push((l, frags));
    }
    Ok(Side {
        passes,
        free_gib,
        free_share,
        ssr,
        launches,
    })
}

/// The app's work per read that makes `share` of the baseline launch `b` blocking I/O.
fn app_ns(b: &Launch, share: f64) -> u64 {
    let cpu = b.io_ns as f64 * (1.0 - share) / share;
    ((cpu - b.kernel_ns as f64).max(0.0) / b.reads.max(1) as f64).round() as u64
}

/// Launch-time reduction of ZMS against the baseline, percent (positive = shorter), per app
/// at blocking-I/O share `share`, and their mean.
fn reductions(base: &Side, zms: &Side, share: f64) -> (Vec<f64>, f64) {
    let v: Vec<f64> = base
        .launches
        .iter()
        .zip(&zms.launches)
        .map(|((b, _), (z, _))| {
            let a = app_ns(b, share);
            -pct_change(
                z.with_app_ns(a).time_ns as f64,
                b.with_app_ns(a).time_ns as f64,
            )
        })
        .collect();
    let mean = v.iter().sum::<f64>() / v.len().max(1) as f64;
    (v, mean)
}

/// Map-cache misses over lookups of a side's launches, percent.
fn mean_miss(s: &Side) -> f64 {
    let (h, m) = s
        .launches
        .iter()
        .fold((0, 0), |(h, m), (l, _)| (h + l.map_hits, m + l.map_misses));
    100.0 * m as f64 / (h + m).max(1) as f64
}

fn miss_pct(l: &Launch) -> f64 {
    100.0 * l.map_misses as f64 / (l.map_hits + l.map_misses).max(1) as f64
}

pub fn run_exp(o: &ExpOptions) -> Result<Outcome> {
    let p = plan_of(o.scale);
    let apps = apps(p.app_div);
    let variants = [
        Variant::Baseline,
        Variant::Zms,
        Variant::TwoLevel(MAP_UNIT_SENS),
    ];
    let sides = super::par_map(&variants, |&v| {
        simulate(&device(o.scale, v)?, &apps, &p, o.seed)
    });
    let mut sides = sides.into_iter();
    let base = sides.next().expect("three sides")?;
    let zms = sides.next().expect("three sides")?;
    let tl = sides.next().expect("three sides")?;
    let mut rows = Vec::new();
    for (name, s) in [("baseline", &base), ("ZMS", &zms)] {
        rows.push(row_info(name, "stage-2 passes", s.passes as f64));
        rows.push(row_info(name, "free after aging GiB", s.free_gib));
        rows.push(row_info(name, "free after aging %", s.free_share * 100.0));
        rows.push(row_info(
            name,
            "SSR segments installing the apps",
            s.ssr as f64,
        ));
        rows.push(row_info(
            name,
            "fragments of the apps' files",
            frags(s) as f64,
        ));
    }
    let (per_app, mean) = reductions(&base, &zms, IO_SHARE);
    for (i, app) in apps.iter().enumerate() {
        let (b, bf) = &base.launches[i];
        let (z, zf) = &zms.launches[i];
        let a = app_ns(b, IO_SHARE);
        let c = app.category;
        rows.push(row_info(c, "reads", b.reads as f64));
        rows.push(row_info(c, "read MiB", b.bytes as f64 / (1 << 20) as f64));
        rows.push(row_info(&format!("{c}, baseline"), "fragments", *bf as f64));
        rows.push(row_info(&format!("{c}, ZMS"), "fragments", *zf as f64));
        rows.push(row_info(
            &format!("{c}, baseline"),
            "device requests",
            b.requests as f64,
        ));
        rows.push(row_info(
            &format!("{c}, ZMS"),
            "device requests",
            z.requests as f64,
        ));
        rows.push(row_info(
            &format!("{c}, baseline"),
            "map cache miss %",
            miss_pct(b),
        ));
        rows.push(row_info(
            &format!("{c}, baseline"),
            "blocking I/O ms",
            b.io_ns as f64 / 1e6,
        ));
        rows.push(row_info(
            &format!("{c}, ZMS"),
            "blocking I/O ms",
            z.io_ns as f64 / 1e6,
        ));
        rows.push(row_info(
            &format!("{c}, baseline"),
            "launch ms",
            b.with_app_ns(a).time_ns as f64 / 1e6,
        ));
        rows.push(row_info(
            &format!("{c}, ZMS"),
            "launch ms",
            z.with_app_ns(a).time_ns as f64 / 1e6,
        ));
        rows.push(row_info(
            &format!("{c}, ZMS vs baseline"),
            "launch time reduction %",
            per_app[i],
        ));
    }
    for share in IO_SHARES {
        let (_, m) = reductions(&base, &zms, share);
        rows.push(
            row_range(
                &format!(
                    "ZMS vs baseline, mean of 5 apps, {:.0} % blocking I/O (sensitivity)",
                    share * 100.0
                ),
                "launch time reduction %",
                m,
                8.7,
                RANGE.0,
                RANGE.1,
            )
            .src(&format!(
                "{SRC}: \"5.8 ~ 11.6% reduction\"; the blocking-I/O share of a launch is unstated"
            ))
            .sensitivity(),
        );
    }
    let (_, m_tl) = reductions(&tl, &zms, IO_SHARE);
    let tl_case = "baseline with a two-level map of 1 MiB units (sensitivity)";
    rows.push(row_info(tl_case, "map cache miss %", mean_miss(&tl)).sensitivity());
    rows.push(
        row_range(
            &format!("ZMS vs {tl_case}, mean of 5 apps, 20 % blocking I/O"),
            "launch time reduction %",
            m_tl,
            8.7,
            RANGE.0,
            RANGE.1,
        )
        .src(&format!("{SRC}: \"5.8 ~ 11.6% reduction\"; the map unit the talk's UFS loads on a miss is unstated"))
        .sensitivity(),
    );
    rows.push(row_info(
        "baseline, mean of 5 apps",
        "map cache miss %",
        mean_miss(&base),
    ));
    let m = Measured {
        free_pct: base.free_share * 100.0,
        base_ssr: base.ssr,
        base_frags: frags(&base),
        zms_frags: frags(&zms),
        base_miss: mean_miss(&base),
        io_ratio: mean_io_ratio(&base, &zms),
    };
    rows.push(checked(o.scale, mean, &m));
    Ok(Outcome {
        name: EXP.into(),
        title: "ZMS: cold launch of an app per category on an aged F2FS, block baseline vs ZMS: launch time".into(),
        source: "ZMS (ATC'24 talk), \"Random Read Performance\" (Application launch time)".into(),
        rows,
        notes: notes(o.scale, &p, &apps),
    })
}

/// ZMS's blocking I/O over the baseline's, mean over the apps.
fn mean_io_ratio(base: &Side, zms: &Side) -> f64 {
    let n = base.launches.len().max(1) as f64;
    base.launches
        .iter()
        .zip(&zms.launches)
        .map(|((b, _), (z, _))| z.io_ns as f64 / b.io_ns.max(1) as f64)
        .sum::<f64>()
        / n
}

/// Why the checked row's verdict depends on the scale (measured, seed 1).
const SCALE_WHY: &str = "measured (seed 1): the apps' files are not scaled with the device and the aging stops at twice their size free, which leaves 25 % of the quick and full devices free against 7.7 % of the talk's 128 GiB device (40 GB x k); there F2FS installs the apps by SSR into the holes the aging left (4,961 SSR segments; the baseline's app files in 209,951 fragments, ZMS's 3,191), the baseline's launches need 2.2 times ZMS's device requests and ZMS's launches are 8.8 % shorter; on the smaller devices the installs mostly find free segments (full: 143 SSR segments, 491 fragments, as many requests as ZMS, 1.0 % shorter; quick: 333 SSR segments, 7,586 fragments, 1.4 times the requests, 3.5 %)";

/// The checked row: the mean reduction over the five apps at the median app's blocking I/O;
/// a known gap at the scales below the paper's, with the measured reason.
fn checked(scale: Scale, mean: f64, m: &Measured) -> Row {
    let need = 100.0 * (1.0 - RANGE.0 / (100.0 * IO_SHARE));
    let why = format!(
        "scale artifact: at this scale the aging leaves {:.0} % of the device free for the apps, F2FS opens {} SSR segments installing them and the baseline's app files lie in {} fragments (ZMS's {}); its launches miss the map cache {:.2} % of the time, so ZMS's blocking I/O is {:.0} % of the baseline's, where the talk's 5.8 % at a 20 % I/O share needs at most {need:.0} % ({SCALE_WHY})",
        m.free_pct, m.base_ssr, m.base_frags, m.zms_frags, m.base_miss, m.io_ratio * 100.0,
    );
    row_range(
        "ZMS vs baseline, mean of 5 apps, 20 % blocking I/O",
        "launch time reduction %",
        mean,
        8.7,
        RANGE.0,
        RANGE.1,
    )
    .id("zms.randread.app-launch")
    .src(&format!("{SRC}: \"Application launch time: 5.8 ~ 11.6% reduction\" (the talk's range over its apps, not widened; the app's work set so that 20 % of the baseline launch is blocking I/O, IORap's median app)"))
    .scale_dependent(SCALE_WHY)
    .gap_at(scale, &[Scale::Quick, Scale::Full], Cause::UnstatedParameter, &why)
}

/// What the known gap's explanation quotes.
struct Measured {
    free_pct: f64,
    base_ssr: u64,
    base_frags: u64,
    zms_frags: u64,
    base_miss: f64,
    io_ratio: f64,
}

/// Fragments of all the apps' files of a side.
fn frags(s: &Side) -> u64 {
    s.launches.iter().map(|(_, f)| f).sum()
}

fn notes(scale: Scale, p: &Plan, apps: &[App]) -> Vec<String> {
    let dev = match scale {
        Scale::Paper => "the talk's 128 GiB device (938 zones of 138 MiB, zms_common)",
        Scale::Full => "zms-2024's 64 zones of 138 MiB (8.6 GiB; the talk: 128 GiB)",
        Scale::Quick => "zms-2024's 64 zones, each 4x smaller (2.2 GiB; the talk: 128 GiB)",
    };
    let sizes: Vec<String> = apps
        .iter()
        .map(|a| {
            format!(
                "{} {:.0} MiB",
                a.category,
                a.bytes() as f64 / (1 << 20) as f64
            )
        })
        .collect();
    vec![
        format!("Device: {dev}; baseline = the data LU conventional (page-mapped FTL, L2P map-page cache of zms-2024), F2FS adaptive; ZMS = the zoned LU (zone map), F2FS LFS; F2FS kernel 5.4 (the talk's), metadata on the conventional LU."),
        format!("Aging: Zoned UFS §5.6.1's two stages scaled by k = user capacity / 512 GB, stopped when free space is below max(40 GB x k, twice the apps' files); then one app per category installed (APKs and libraries, then dexopt outputs; sequential 512 KiB writes, fsync per file, another app writing 256 KiB after each 4 MiB written back), then {} rounds of use (a 4 KiB fsync'd update to each database, other apps' cache files created and every second deleted).", p.rounds),
        format!("Apps (assumed sizes{}): {}. A cold launch reads the APK's central directory (last 64 KiB), the whole .art, the database headers, then page faults (4 KiB 70 %, 16 KiB 20 %, 32 KiB 10 %) over 10 % of the APKs, 20 % of the libraries (a game's 30 %), 20 % of the .odex, 15 % of the .vdex, 10 % of the databases and 3 % of a game's asset pack, interleaved at random; before each launch other apps read {} random 4 KiB pages of the aged files.", if p.app_div > 1 { ", divided by 4 in --quick" } else { "" }, sizes.join(", "), p.others),
        "Launch time = the launching thread's time from the first read to the last completion: per read the host CPU model's kernel steps (syscall_ns + block_submit_ns per request before the device, completion_ns per request after; [host.cpu] defaults on the SM8350's 8 cores), the blocking device reads, and the app's own work. The work is set per app so that blocking I/O is 20 % of its baseline launch (IORap, Android 11: about half of popular apps spend 20 %+ of their launch in blocking I/O, 80 %+ spend 10 %+), the same work on ZMS; 10 % and 30 % are sensitivity rows.".into(),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rule's work gives the asked blocking-I/O share on the baseline.
    #[test]
    fn app_work_sets_the_io_share() {
        let b = Launch {
            reads: 100,
            io_ns: 2_000_000,
            kernel_ns: 600_000,
            time_ns: 2_600_000,
            ..Launch::default()
        };
        let l = b.with_app_ns(app_ns(&b, 0.2));
        assert!((l.io_share() - 0.2).abs() < 1e-3, "{}", l.io_share());
    }
}
