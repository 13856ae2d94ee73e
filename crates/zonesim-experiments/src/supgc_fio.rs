//! `supgc-fio`: SUP-GC (seed 003) §5.3.2 (FIO at the file-system layer) scaled down.
//!
//! The paper runs fio `randrw`, 4 KiB, 10 jobs, write ratios 1/25/50/75/99%, on a Cosmos+
//! OpenSSD (MLC, 16 KiB pages, 128 pages per block, 64 dies, page mapping, greedy GC) filled
//! from empty to nearly full (700 GB), and compares Cosmos+ (single stream, greedy),
//! BF-Optimized (Bloom-filter hot/cold) and SUP-GC by IOPS, block erases, GC page moves and p99
//! latency. Here: a Cosmos+-like MLC device of the same page and block shape but 4 dies and
//! well under 1 GiB, written full sequentially and then trimmed back to 90% (near full), then
//! ten 4 KiB `randrw` jobs with a zipf overwrite skew, one run per policy and write ratio.
//! Reference figures are SUP-GC (and where derivable BF-Optimized) relative to Cosmos+ at
//! 700 GB (§5.3.2 text); only their direction is required to match (see the notes this
//! experiment prints).

use super::{pct_change, row_abs, row_dir_by, row_info, row_sign, ExpOptions, Outcome, Row};
use zonesim::config::DeviceConfig;
use zonesim::error::Result;
use zonesim::host::fio::{default_job, Distribution, JobSpec, RwMode, SizeSpec};
use zonesim::sim::{Precondition, RunOptions, WorkloadSpec};
use zonesim::stats::Report;

/// Write ratios of §5.3.2, percent.
const RATIOS: [u32; 5] = [1, 25, 50, 75, 99];
/// Policies compared: (label, `ftl.gc.placement`).
const POLICIES: [(&str, &str); 4] = [
    ("single", "single"),
    ("bloom", "bloom"),
    ("sup", "sup"),
    ("gcar", "gcar"),
];
/// The skewed case's overwrite skew: an assumption (the paper names no distribution, so fio's
/// default, uniform, is the primary case).
const ZIPF_THETA: f64 = 1.2;
const JOBS: u32 = 10;

/// SUP-GC's changes at 700 GB (seed 003 §5.3.2), percent, as quoted: (ratio, vs Cosmos+, vs
/// BF-Optimized, vs GCaR-Optimized) for IOPS, block erases, GC page moves, p99 latency.
type Quad = [Option<f64>; 4];
const PAPER: [(u32, Quad, Quad, Quad, &str); 4] = [
    (25, [Some(15.7), Some(-5.7), Some(-15.2), Some(-70.2)], [Some(11.5), Some(-5.2), Some(-14.3), Some(-7.4)], [Some(17.5), Some(-5.6), Some(-15.2), Some(-68.9)],
     "seed 003 §5.3.2, text after Fig. 15: \"IOPS is about 15.7% higher than Cosmos+, 11.5% higher than BF-Optimized, and 17,5% higher than GCaR; ... block erase count is about 5.7% lower ...; GC page movement count is about 15.2% lower ...; 99% tail latency is about 70.2% lower\""),
    (50, [Some(35.1), Some(-22.1), Some(-44.7), Some(-87.2)], [Some(10.1), Some(-2.0), Some(-5.6), Some(-68.3)], [Some(35.2), Some(-22.0), Some(-44.6), Some(-87.2)],
     "seed 003 §5.3.2, text after Fig. 16: \"IOPS is about 35.1% higher than Cosmos+, 10.1% higher than BF-Optimized, and 35.2% higher than GCaR; ... 22.1% ... 44.7% ... 87.2% lower\""),
    (75, [Some(73.5), Some(-35.0), Some(-65.9), Some(-87.2)], [Some(72.6), Some(-32.7), Some(-63.7), Some(-68.3)], [Some(75.6), Some(-35.3), Some(-66.1), Some(-87.2)],
     "seed 003 §5.3.2, text after Fig. 17: \"IOPS is about 73.5% higher than Cosmos+, 72.6% higher than BF-Optimized, and 75.6% higher than GCaR; ... 35% ... 65.9% ... 87.2% lower\" (the p99 sentence repeats the 50% one word for word: low confidence)"),
    (99, [Some(57.9), Some(-22.5), None, None], [Some(69.9), Some(-28.3), None, None], [Some(59.8), Some(-22.6), None, None],
     "seed 003 §5.3.2, text after Fig. 18: \"a performance advantage of 57.9%, 69.9%, and 59.8% over Cosmos+, BF-Optimized, and GCaR-Optimized ... block erase count ... reduced by 22.5%, 28.3%, and 22.6%\""),
];

/// X vs Cosmos+ derived from SUP's gains over both: (1 + sup/single) / (1 + sup/X) - 1, %.
fn derive(sup_vs_single: f64, sup_vs_x: f64) -> f64 {
    ((1.0 + sup_vs_single / 100.0) / (1.0 + sup_vs_x / 100.0) - 1.0) * 100.0
}

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
    zonesim::load_device("ufs-conventional", &sets)
}

/// Trim the last 10% (near full), then ten 4 KiB randrw jobs.
fn workload(cap: u64, write_pct: u32, ios_per_job: u64, dist: Distribution) -> WorkloadSpec {
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
        j.distribution = dist;
        j.norandommap = true;
        j.io_size = Some(SizeSpec::Bytes(ios_per_job * 4096));
        j.stonewall = i == 0;
        jobs.push(j);
    }
    WorkloadSpec::Jobs(jobs)
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
    let ios_per_job = if o.quick() { 60_000 } else { 250_000 };
    let mut rows: Vec<Row> = Vec::new();
    let dists = [
        ("uniform", Distribution::Uniform),
        ("zipf1.2", Distribution::Zipf(ZIPF_THETA)),
    ];
    for (dname, dist) in dists {
        for &ratio in &RATIOS {
            let mut pts = Vec::new();
            for (label, placement) in POLICIES {
                let cfg = device(o.quick(), placement)?;
                let cap = zonesim::device::Device::new(&cfg, o.seed)?.capacity_bytes(0);
                let opts = RunOptions {
                    seed: o.seed,
                    precondition: Precondition::Seq,
                    check_invariants: false,
                    ..RunOptions::default()
                };
                let r = zonesim::RunSpec::new(cfg.clone(), workload(cap, ratio, ios_per_job, dist))
                    .options(opts.clone())
                    .run()?;
                let p = point(&r);
                let case = format!("{dname}, {ratio}% writes, {label}");
                rows.push(row_info(&case, "IOPS", p.iops));
                rows.push(row_info(&case, "block erases", p.erases));
                rows.push(row_info(&case, "GC page moves", p.moves));
                rows.push(row_info(&case, "p99 latency us", p.p99_us));
                pts.push((label, p));
            }
            let base = &pts[0].1;
            let paper = PAPER.iter().find(|p| p.0 == ratio);
            for (label, p) in &pts[1..] {
                let case = format!("{dname}, {ratio}% writes, {label} vs single");
                let changes = [
                    ("IOPS change %", pct_change(p.iops, base.iops)),
                    ("erases change %", pct_change(p.erases, base.erases)),
                    ("GC moves change %", pct_change(p.moves, base.moves)),
                    ("p99 change %", pct_change(p.p99_us, base.p99_us)),
                ];
                for (k, (metric, ours)) in changes.into_iter().enumerate() {
                    rows.push(reference_row(&case, metric, ours, label, ratio, k, paper));
                }
            }
        }
    }
    let rows = rows.into_iter().map(mark_known_gaps).collect();
    Ok(Outcome {
        name: "supgc-fio".into(),
        title: "SUP-GC / BF-Optimized / GCaR-Optimized vs single-stream greedy, fio randrw 4 KiB numjobs 10, uniform (the paper's) and zipf 1.2 (assumed)".into(),
        source: "seed 003_2bba45ff35fd98e6 (SUP-GC) §5.3.2, Figs. 14-18 and their text; BF-Optimized and GCaR-Optimized vs Cosmos+ derived from SUP's gains over each".into(),
        rows,
        notes: notes(o.quick()),
    })
}

/// The reference of one change row, with its source and kind.
fn reference_row(
    case: &str,
    metric: &str,
    ours: f64,
    label: &str,
    ratio: u32,
    k: usize,
    paper: Option<&(u32, Quad, Quad, Quad, &str)>,
) -> Row {
    const M: [&str; 4] = ["IOPS", "erases", "GC moves", "p99"];
    // At 1% writes the IOPS of two policies differ by tenths of a per cent with the random
    // sequence alone, so a claimed decline must exceed 1% (the derived rows' rule below).
    const DIR_BAND: f64 = 1.0;
    if ratio == 1 {
        return match (label, k) {
            ("sup", 0) => row_abs(case, metric, ours, 0.0, 2.0).src("seed 003 §5.3.2 Fig. 14 text: SUP-GC \"exhibits performance identical to the baseline in this test\""),
            ("bloom", 0) => row_dir_by(case, metric, ours, false, DIR_BAND).src("seed 003 §5.3.2 Fig. 14 text: \"BF-Optimized's average performance is approximately 5% lower than the baseline\" (a number, but of §5.3.1's CPU-bound cost; checked as a direction here)"),
            ("gcar", 0) => row_dir_by(case, metric, ours, false, DIR_BAND).src("seed 003 §5.3.2 Fig. 14 text: \"GCaR experiences a certain degree of performance decline relative to the baseline\""),
            _ => row_info(case, metric, ours),
        };
    }
    let Some((_, sup, bf, gcar, src)) = paper else {
        return row_info(case, metric, ours);
    };
    match label {
        "sup" => match sup[k] {
            Some(r) => row_sign(case, metric, ours, r).src(src),
            None => row_info(case, metric, ours),
        },
        "bloom" | "gcar" => {
            let other = if label == "bloom" { bf } else { gcar };
            match (sup[k], other[k]) {
                (Some(a), Some(b)) => {
                    let d = derive(a, b);
                    let who = if label == "bloom" {
                        "BF-Optimized"
                    } else {
                        "GCaR"
                    };
                    let caveat = if label == "bloom" && ratio == 75 && k == 0 {
                        " [the §5.3.2 text after Fig. 17 also says BF \"sharply declines, slightly falling below Cosmos+ and GCaR\" at 700 GB: derived value and sentence disagree in sign]"
                    } else {
                        ""
                    };
                    let src = format!(
                        "derived: (1 + {a}/100) / (1 + {b}/100) - 1 = {d:.1}% ({} of SUP vs Cosmos+ and vs {who}){caveat}; {src}",
                        M[k]
                    );
                    if d.abs() < 1.0 {
                        // Below 1% the derivation claims no direction (rounding of the
                        // quoted percentages alone moves it by that much).
                        return row_info(case, metric, ours)
                            .src(&format!("{src} [|derived| < 1%: no direction claimed]"));
                    }
                    row_sign(case, metric, ours, (d * 10.0).round() / 10.0).src(&src)
                }
                _ => row_info(case, metric, ours),
            }
        }
        _ => row_info(case, metric, ours),
    }
}

/// Known disagreements of this experiment (docs/experiments.md lists them): a row here that
/// fails is printed `known gap` with the reason instead of failing the run.
fn mark_known_gaps(r: Row) -> Row {
    if !r.fails() {
        return r;
    }
    let c = r.case.as_str();
    let high = c.contains(" 75% writes") || c.contains(" 99% writes");
    let why = if c.starts_with("uniform") && !c.contains("1% writes") {
        "under fio's default uniform distribution (the paper's stated workload) separating hot from cold gains nothing and SUP/BF move more pages than single (docs/experiments.md, Known gaps); the paper's gains need a skew it does not state, and its device, fill (700 GB of 1 TB) and GC timing are not reproduced at this scale"
    } else if c.contains("1% writes") {
        "at 1% writes the classification cost touches 1% of commands on a flash-bound scaled device, so the CPU-bound -5% (BF) and GCaR's traversal decline of the Cosmos+ controller do not show (docs/experiments.md, Known gaps)"
    } else if r.metric.starts_with("p99") {
        "our tail is reads queued behind GC copies on a die; SUP and BF collect fewer but fuller cold victims, so the read tail does not shrink like the paper's (and the paper's 75% p99 sentence repeats its 50% one)"
    } else if c.contains("bloom") && high {
        "the paper's BF-Optimized falls to or below Cosmos+ at 75-99% (\"unable to effectively distinguish between hot and cold data\"); our multi-Bloom classifier keeps separating under zipf 1.2 and gains like SUP"
    } else if c.contains("gcar") && !c.contains(" 1% writes") {
        "GCaR's paper gap to Cosmos+ is about 1% at 25-99%, the size of run-to-run noise here; its sign follows the traversal cost against the GC-read hits of the scaled device"
    } else {
        return r;
    };
    r.known_gap(why)
}

fn notes(quick: bool) -> Vec<String> {
    let mut n = vec![
        "Tolerance: the direction of every change vs single must match the paper; magnitudes are \
         printed, not required (reasons below). SUP at 1% writes must be within +-2% of single \
         (no GC, no extra work); the 1%-write declines of BF and GCaR must exceed 1%, the size \
         of a change of random sequence there."
            .to_string(),
        "Scale: 2 dies x 2 planes and < 1 GiB instead of 64 dies and 1 TiB; spare space after the trim to \
         90% is ~20% of the logical space (10% OP + 10% unwritten), the paper's at 700 GB is not \
         stated. GC page-move reductions grow steeply as spare shrinks, so the magnitude depends \
         on this choice."
            .to_string(),
        "Workload: the paper gives \"libaio, randrw, 4 KB, numjobs 10\" and no distribution, so \
         fio's default (uniform) is the primary case; zipf(1.2) overwrites (each job its own hot \
         set) are an assumption printed beside it. Under uniform writes separation gains nothing \
         and SUP/BF lose to single (known gaps); every matching direction needs the skew."
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
        "GCaR-Optimized: ftl.gc.placement=gcar (GC-moved pages kept in a quarter of the data \
         buffer, host reads of them hit there; cache traversal 1.35 us per written and kept page on \
         the controller CPU, fitted to Fig. 13 by supgc-throughput). Its rows vs Cosmos+ are derived from SUP's gains over both."
            .to_string(),
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
