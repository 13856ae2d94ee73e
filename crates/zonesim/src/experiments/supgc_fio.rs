//! `supgc-fio`: seed 003 §5.3.2 (FIO at the file-system layer) scaled down.
//!
//! The paper runs fio `randrw`, 4 KiB, 10 jobs, write ratios 1/25/50/75/99%, on a Cosmos+
//! OpenSSD (MLC, 16 KiB pages, 128 pages per block, 64 dies, page mapping, greedy GC) filled
//! from empty to nearly full (700 GB), and compares Cosmos+ (single stream, greedy),
//! BF-Optimized (Bloom-filter hot/cold) and SUP-GC by IOPS, block erases, GC page moves and p99
//! latency. Here: a Cosmos+-like MLC device of the same page and block shape but 4 dies and
//! well under 1 GiB, written full sequentially and then trimmed back to 90% (near full), then
//! ten 4 KiB `randrw` jobs with a zipf overwrite skew, one run per policy and write ratio.
//! Reference figures are SUP-GC (and where derivable BF-Optimized) relative to Cosmos+ at
//! 700 GB (§5.3.2 text); only their direction is required to match (see the notes).

use super::{pct_change, row_abs, row_info, row_sign, ExpOptions, Outcome, Row};
use crate::config::DeviceConfig;
use crate::error::Result;
use crate::host::fio::{default_job, Distribution, JobSpec, RwMode, SizeSpec};
use crate::sim::{self, Precondition, RunOptions, Workload};
use crate::stats::Report;

/// Write ratios of §5.3.2, percent.
const RATIOS: [u32; 5] = [1, 25, 50, 75, 99];
/// Policies compared: (label, `ftl.gc.placement`).
const POLICIES: [(&str, &str); 3] = [("single", "single"), ("bloom", "bloom"), ("sup", "sup")];
/// Overwrite skew (the paper does not state fio's distribution; the issue asks for a skewed
/// one).
const ZIPF_THETA: f64 = 1.2;
const JOBS: u32 = 10;

/// SUP-GC vs Cosmos+ at 700 GB, percent (§5.3.2): (ratio, IOPS, erases, GC page moves, p99).
const PAPER_SUP: [(u32, [Option<f64>; 4]); 4] = [
    (25, [Some(15.7), Some(-5.7), Some(-15.2), Some(-70.2)]),
    (50, [Some(35.1), Some(-22.1), Some(-44.7), Some(-87.2)]),
    (75, [Some(73.5), Some(-35.0), Some(-65.9), Some(-87.2)]),
    (99, [Some(57.9), Some(-22.5), None, None]),
];

/// The scaled Cosmos+ device.
fn device(quick: bool, placement: &str) -> Result<DeviceConfig> {
    let blocks = if quick { 64 } else { 128 };
    let sets = [
        "name=\"cosmos-scaled\"".to_string(),
        "nand.channels=2".into(),
        "nand.chips_per_channel=1".into(),
        "nand.dies_per_chip=1".into(),
        "nand.planes_per_die=2".into(),
        format!("nand.blocks_per_plane={blocks}"),
        "nand.pages_per_block=128".into(),
        "nand.page_bytes=16384".into(),
        "nand.cell=mlc".into(),
        "nand.channel_mb_s=800.0".into(),
        "host.link_mb_s=3200.0".into(),
        "ftl.overprovisioning=0.10".into(),
        // Cosmos+ keeps the whole page map in its 1 GB DRAM.
        "ftl.l2p_cache_bytes=4194304".into(),
        "buffer.bytes=4194304".into(),
        "ftl.gc.victim=greedy".into(),
        "ftl.gc.threshold_free_superblocks=2".into(),
        // A CPU-heavy firmware path per command (assumed, Cosmos+ runs its FTL on an ARM A9).
        "ftl.cost.host_cmd_ns=10000".into(),
        format!("ftl.gc.placement={placement}"),
    ];
    crate::load_device("ufs-conventional", &sets)
}

/// Trim the last 10% (near full), then ten 4 KiB randrw jobs.
fn workload(cap: u64, write_pct: u32, ios_per_job: u64) -> Workload {
    let mut trim = default_job();
    trim.name = "trim-to-90pct".into();
    trim.rw = RwMode::Trim;
    trim.bs = 1 << 20;
    trim.offset = SizeSpec::Bytes(cap * 9 / 10 / trim.bs * trim.bs);
    let mut jobs: Vec<JobSpec> = vec![trim];
    for i in 0..JOBS {
        let mut j = default_job();
        j.name = format!("randrw-{i}");
        j.rw = RwMode::RandRw;
        j.bs = 4096;
        j.rwmixread = 100 - write_pct;
        j.distribution = Distribution::Zipf(ZIPF_THETA);
        j.norandommap = true;
        j.io_size = Some(SizeSpec::Bytes(ios_per_job * 4096));
        j.stonewall = i == 0;
        jobs.push(j);
    }
    Workload::Jobs(jobs)
}

struct Point {
    iops: f64,
    erases: f64,
    moves: f64,
    p99_us: f64,
}

fn point(r: &Report) -> Point {
    let h = &r.host;
    let d = &r.device;
    Point {
        iops: h.read.iops + h.write.iops,
        erases: d.flash.block_erases as f64,
        moves: d.gc.pages_moved as f64,
        // The worse direction's p99 (the report keeps directions apart).
        p99_us: h.read.latency_us.p99.max(h.write.latency_us.p99),
    }
}

pub fn run(o: &ExpOptions) -> Result<Outcome> {
    let ios_per_job = if o.quick { 60_000 } else { 250_000 };
    let mut rows: Vec<Row> = Vec::new();
    for &ratio in &RATIOS {
        let mut pts = Vec::new();
        for (label, placement) in POLICIES {
            let cfg = device(o.quick, placement)?;
            let cap = crate::device::Device::new(&cfg, o.seed)?.capacity_bytes(0);
            let opts = RunOptions {
                seed: o.seed,
                precondition: Precondition::Seq,
                check_invariants: false,
                ..RunOptions::default()
            };
            let r = sim::run(
                &cfg,
                &workload(cap, ratio, ios_per_job),
                &opts,
                &mut |_, _| {},
            )?;
            let p = point(&r);
            let case = format!("{ratio}% writes, {label}");
            rows.push(row_info(&case, "IOPS", p.iops));
            rows.push(row_info(&case, "block erases", p.erases));
            rows.push(row_info(&case, "GC page moves", p.moves));
            rows.push(row_info(&case, "p99 latency us", p.p99_us));
            pts.push((label, p));
        }
        let base = &pts[0].1;
        let paper = PAPER_SUP.iter().find(|p| p.0 == ratio);
        for (label, p) in &pts[1..] {
            let case = format!("{ratio}% writes, {label} vs single");
            let changes = [
                ("IOPS change %", pct_change(p.iops, base.iops)),
                ("erases change %", pct_change(p.erases, base.erases)),
                ("GC moves change %", pct_change(p.moves, base.moves)),
                ("p99 change %", pct_change(p.p99_us, base.p99_us)),
            ];
            for (k, (metric, ours)) in changes.into_iter().enumerate() {
                let reference = match (*label, paper, ratio) {
                    ("sup", Some((_, paper)), _) => paper[k],
                    // BF-Optimized vs Cosmos+ derived from SUP's figures against both (50%).
                    ("bloom", _, 50) => [Some(22.7), Some(-20.5), Some(-41.4), Some(-59.7)][k],
                    ("bloom", _, 1) if k == 0 => Some(-5.0),
                    ("sup", None, 1) if k == 0 => Some(0.0),
                    _ => None,
                };
                rows.push(match reference {
                    Some(0.0) => row_abs(&case, metric, ours, 0.0, 2.0),
                    Some(r) => row_sign(&case, metric, ours, r),
                    None => row_info(&case, metric, ours),
                });
            }
        }
    }
    Ok(Outcome {
        name: "supgc-fio".into(),
        title: "SUP-GC vs single-stream greedy vs Bloom-filter hot/cold, fio randrw write ratios"
            .into(),
        source: "seed 003_2bba45ff35fd98e6 (SUP-GC) §5.3.2, Figs. 14-18 and text; BF-Optimized \
                 at 50% derived from SUP's gains over both baselines"
            .into(),
        rows,
        notes: notes(o.quick),
    })
}

fn notes(quick: bool) -> Vec<String> {
    let mut n = vec![
        "Tolerance: the direction of every change vs single must match the paper; magnitudes are \
         printed, not required (reasons below). SUP at 1% writes must be within +-2% of single \
         (no GC, no extra work)."
            .to_string(),
        "Scale: 4 dies and < 1 GiB instead of 64 dies and 1 TiB; spare space after the trim to \
         90% is ~20% of the logical space (10% OP + 10% unwritten), the paper's at 700 GB is not \
         stated. GC page-move reductions grow steeply as spare shrinks, so the magnitude depends \
         on this choice."
            .to_string(),
        "Skew: zipf(1.2) overwrites (each job its own hot set, fio-like); the paper does not \
         state fio's distribution. With uniform writes separation gains little (tests/placement.rs \
         asserts it) and SUP/bloom move more pages than single."
            .to_string(),
        "IOPS: the scaled device is flash-bound (4 dies), so fewer GC moves turn into more IOPS \
         only in proportion to the die time GC takes; the paper's Cosmos+ is CPU- and GC-bound \
         at 700 GB and its baseline 'significantly deteriorates', which is where its +35..74% \
         come from. p99 is the worse of the read and write p99s."
            .to_string(),
        "Bloom cost: 1 us per written page and 0.5 us per GC page (ftl.cost defaults) on a 10 us \
         per-command controller CPU; §5.3.1's -5% (sequential writes, CPU-bound Cosmos+) cannot \
         show at 1% writes unless a write costs ~5x a whole command, so only the sign is \
         required there."
            .to_string(),
        "p99: our tails are reads queued behind GC copies on a die (writes complete in the \
         write buffer); SUP and bloom collect fewer but fuller cold victims, so their read tail \
         does not shrink like the paper's and the p99 rows at 50-75% can disagree; with \
         ftl.gc.preemptible=true reads overtake GC (tests/placement.rs)."
            .to_string(),
        "Bloom at 1% writes: measured slightly faster than single, not 5% slower; the 1 us/page \
         cost touches 1% of commands, and the two streams place the few writes' 750 us MLC \
         programs differently, which moves read queueing by more than the cost."
            .to_string(),
        "GCaR (cache-aware GC) is not modelled.".to_string(),
    ];
    if quick {
        n.push(
            "--quick: 64 instead of 128 blocks per plane and 60k instead of 250k I/Os per job; \
             same structure."
                .into(),
        );
    }
    n
}
