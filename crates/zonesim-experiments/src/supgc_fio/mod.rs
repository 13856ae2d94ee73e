//! `supgc-fio`: SUP-GC §5.3.2, the FIO test at the file-system layer (Figs. 14-18).
//!
//! The paper runs fio `randrw` (libaio, 4 KB blocks, 10 jobs) at write ratios of 1, 25, 50, 75
//! and 99 % on its 1 TB MLC Cosmos+ (16 KB pages, 128 pages per block, 64 dies, page mapping,
//! greedy GC) over 700 GB of data volume, and compares SUP-GC with Cosmos+ (one write stream),
//! BF-Optimized (Bloom-filter hot/cold) and GCaR-Optimized by IOPS, block erases, GC page
//! moves and p99 latency at 700 GB; it also reads off where GC starts (Figs. 15-17) and that
//! nothing is collected at 1 % writes (Fig. 14).
//!
//! Here: a Cosmos+-shaped MLC device (same page and block shape) — at paper scale the
//! paper's own (64 dies of 8,192 blocks, 1 TiB raw, 700 GB of data volume per run), at quick
//! and full scale 2 dies of a fraction of the capacity ([`size`]) — with the ext4 model on it
//! (the paper's fio ran on ext4 under Linux 4.15; mke2fs discards the device, so ext4 starts
//! on an empty one), then ten 4 KiB direct `randrw` jobs per write ratio and policy, each on
//! its own file in one directory (fio `numjobs=10` with `directory=`), the ten files laid out
//! by fio before any job starts and together taking 90 % of the file system's free space (one
//! layout per policy, each run from an exact copy of it: `zonesim::sim::Layout`); each request
//! pays the host's kernel steps on the host CPU model (`[host.cpu]`, one core per job:
//! docs/host-cpu.md). The access distribution is not stated, so fio's default (uniform) is the
//! checked workload; zipf 1.2 is an assumption shown as sensitivity rows beside each checked
//! one. Every checked row names its registry id; the rows that disagree carry their cause and
//! the measured evidence ([`gaps::gap_of`]).

mod gaps;
mod paper;
mod point;
mod rederive;
mod rows;
mod setup;

pub(crate) use paper::{band, ONSET, PAPER};
pub(crate) use point::Point;
use point::POINT_METRICS;
pub use rederive::rederive;
use rows::{comparison_rows, direction_rows, one_percent_rows, onset_rows};
pub(crate) use setup::{
    cosmos_cpu, run_with, size, Setting, BLOOM_HASH_NS, FILES_PCT, GCAR_NS, HOST_CMD_NS,
};
use setup::{run_checked, HOST_CORES, METRICS, POLICIES, RATIOS, ZIPF_THETA};

use super::supgc_free;
use super::{pct_change, row_info, ExpOptions, Outcome, Row, Scale};
use zonesim::error::Result;
use zonesim::host::fio::Distribution;

pub fn run(o: &ExpOptions) -> Result<Outcome> {
    // One layout per policy (the placement decides where the layout's pages land), its ten
    // cases run from copies of it: pts[policy][dist][ratio].
    let cases: Vec<(u32, Distribution)> = DISTS
        .iter()
        .flat_map(|&(_, dist)| RATIOS.map(|ratio| (ratio, dist)))
        .collect();
    let mut pts: Vec<Vec<Point>> = Vec::with_capacity(POLICIES.len());
    for (_, placement) in POLICIES {
        pts.push(run_checked(o, placement, &cases)?);
    }
    outcome(o, &pts)
}

/// The distributions, named, in the order of the points of each policy.
const DISTS: [(&str, Distribution); 2] = [
    ("uniform", Distribution::Uniform),
    ("zipf1.2", Distribution::Zipf(ZIPF_THETA)),
];

/// The outcome of the points `pts[policy][dist * RATIOS.len() + ratio]` (simulated by [`run`]
/// or read back from a record by [`rederive`]); the free parameters' tables are simulated.
fn outcome(o: &ExpOptions, pts: &[Vec<Point>]) -> Result<Outcome> {
    let mut rows = point_rows(o.scale, pts);
    rows.extend(supgc_free::rows(o)?);
    Ok(Outcome {
        name: "supgc-fio".into(),
        title: "SUP-GC vs Cosmos+ / BF-Optimized / GCaR-Optimized, fio randrw 4 KiB numjobs 10: uniform (checked) and zipf 1.2 (assumed skew, sensitivity)".into(),
        source: "SUP-GC §5.3.2, Figs. 14-18 and their text".into(),
        rows,
        notes: notes(o.scale),
    })
}

/// The rows of the points: each run's measurements (info), then the checked rows.
fn point_rows(scale: Scale, pts: &[Vec<Point>]) -> Vec<Row> {
    let at = |d: usize, ratio: u32, p: usize| -> &Point {
        let ri = RATIOS.iter().position(|&r| r == ratio).unwrap_or(0);
        &pts[p][d * RATIOS.len() + ri]
    };
    let mut rows: Vec<Row> = Vec::new();
    for (di, (dname, _)) in DISTS.iter().enumerate() {
        for ratio in RATIOS {
            for (p, (label, _)) in POLICIES.iter().enumerate() {
                let case = format!("{dname}, {ratio}% writes, {label}");
                let pt = at(di, ratio, p);
                for (metric, v) in POINT_METRICS.iter().zip(pt.m) {
                    rows.push(row_info(&case, metric, v));
                }
            }
            for (label, p) in [("bloom", 1), ("gcar", 3)] {
                let case = format!("{dname}, {ratio}% writes, {label} vs single");
                for (k, (_, metric)) in METRICS.iter().enumerate() {
                    let ch = pct_change(at(di, ratio, p).m[k], at(di, ratio, 0).m[k]);
                    rows.push(row_info(&case, metric, ch));
                }
            }
        }
    }
    rows.extend(one_percent_rows(&at));
    rows.extend(onset_rows(&at, scale));
    rows.extend(comparison_rows(&at));
    rows.extend(direction_rows(&at));
    // The checked rows name the free parameters they depend on and their sensitivity rows.
    for r in rows.iter_mut() {
        if let Some(id) = &r.id {
            let note = supgc_free::unstated(id);
            r.source.push_str(&note);
        }
    }
    rows
}

fn notes(scale: Scale) -> Vec<String> {
    let z = size(scale);
    vec![
        format!(
            "This run ({scale} scale): {} channels x {} dies x 2 planes x {} blocks of 128 x 16 KiB pages ({} MiB raw), 10% OP, ext4 on it (mke2fs's discard: an empty device), then 10 jobs x {} 4 KiB direct I/Os per write ratio and policy ({:.1} GB of data volume), each job on its own file (fio numjobs=10 in one directory), the files laid out by fio before any job starts and sized to 90% of the file system's free space together; the layout is made once per policy and each of its 10 runs (2 distributions x 5 write ratios) starts from an exact copy of it. Quick: 2 dies of 64 blocks per plane, 60k I/Os per job; full: 128 blocks, 250k; paper: the paper's 1 TiB Cosmos+ (64 dies of 8,192 blocks, §5.1) and 700 GB of data volume per run (§5.3.2).",
            z.channels,
            z.chips,
            z.blocks,
            z.raw_mib(),
            z.ios,
            z.volume_bytes() as f64 / 1e9
        ),
        "Checked: SUP-GC's change against each scheme under uniform access (fio's default; the paper names no distribution), against the numbers the paper quotes at 700 GB, in a band of 30% of the value (at least 3 points). Zipf 1.2 (each job its own hot set) is an assumed skew: its rows are sensitivity, not predictions.".to_string(),
        "GC onset (Figs. 15-17): reads + writes issued until the first GC page move, as a share of the raw capacity scaled to 1 TB; it depends on the free space at the start, which the paper does not give (its onsets imply about 13-15% of its 1 TB).".to_string(),
        format!("Controller: the Cosmos+'s two ARM Cortex-A9 cores (SUP-GC §5.1; ftl.cost.cores = 2), {} us of firmware time per command on the core that takes it (assumed); the schemes' costs run on the same cores. GCaR-Optimized: GC-moved pages kept in a quarter of the data buffer, {:.3} us traversal per written and kept page (calibrated by supgc-throughput). BF-Optimized: {BLOOM_HASH_NS} ns per hash evaluation (calibrated by supgc-throughput), its filters recording GC relocations too (ftl.gc.bloom.record_gc), so under GC they fill beyond their size, their false positives and the hashes per probe rise (placement/bloom.rs).", HOST_CMD_NS / 1000, GCAR_NS as f64 / 1000.0),
        format!("Host: each job a thread on the host CPU model with {HOST_CORES} cores (one per job; the paper does not describe its host), each request paying the system call, ext4's write path for a write, the block layer and the completion path at [host.cpu]'s defaults (docs/host-cpu.md); direct I/O copies nothing through the page cache."),
        "p99 is the worse of the read and write p99s.".to_string(),
        "Free parameters (supgc_free.rs), sensitivity tables at the quick size at every scale (64 blocks per plane, 60k I/Os per job, uniform): the firmware time per command 0 / 20 (checked, on each of 2 cores) / 50 us; the files over 90 % (checked) or 80 % of the file system's free space; BF-Optimized's false-positive rate 0.1 / 0.01 / 0.001 and 2 / 4 / 8 filters. Each checked row names the ones it depends on.".to_string(),
    ]
}
