//! `supgc-fio`: SUP-GC §5.3.2, the FIO test at the file-system layer (Figs. 14-18).
//!
//! The paper runs fio `randrw` (libaio, 4 KB blocks, 10 jobs) at write ratios of 1, 25, 50, 75
//! and 99 % on its 1 TB MLC Cosmos+ (16 KB pages, 128 pages per block, 64 dies, page mapping,
//! greedy GC) over 700 GB of data volume, and compares SUP-GC with Cosmos+ (one write stream),
//! BF-Optimized (Bloom-filter hot/cold) and GCaR-Optimized by IOPS, block erases, GC page
//! moves and p99 latency at 700 GB; it also reads off where GC starts (Figs. 15-17) and that
//! nothing is collected at 1 % writes (Fig. 14).
//!
//! Here: a Cosmos+-shaped MLC device (same page and block shape, 4 dies, a fraction of the
//! capacity: [`size`]), written full sequentially, trimmed back to 90 %, then ten 4 KiB
//! `randrw` jobs per write ratio and policy. The access distribution is not stated, so fio's
//! default (uniform) is the checked workload; zipf 1.2 is an assumption shown as sensitivity
//! rows beside each checked one. Every checked row names its registry id; the rows that
//! disagree carry their cause and the measured evidence ([`gap_of`]).

use super::supgc_free;
use super::{
    par_map, pct_change, row_abs, row_dir, row_dir_by, row_info, row_range, Cause, ExpOptions,
    Outcome, Row, Scale,
};
use zonesim::config::DeviceConfig;
use zonesim::error::Result;
use zonesim::host::fio::{default_job, Distribution, JobSpec, RwMode, SizeSpec};
use zonesim::sim::{Precondition, RunOptions, WorkloadSpec};
use zonesim::stats::Report;

/// Write ratios of §5.3.2, percent.
const RATIOS: [u32; 5] = [1, 25, 50, 75, 99];
/// Policies run: (label, `ftl.gc.placement`).
const POLICIES: [(&str, &str); 4] = [
    ("single", "single"),
    ("bloom", "bloom"),
    ("sup", "sup"),
    ("gcar", "gcar"),
];
/// The schemes SUP-GC is compared with: (id part, name, index in [`POLICIES`]).
const OTHERS: [(&str, &str, usize); 3] = [
    ("cosmos", "Cosmos+", 0),
    ("bf", "BF-Optimized", 1),
    ("gcar", "GCaR-Optimized", 3),
];
/// The metrics compared: (id part, row metric).
const METRICS: [(&str, &str); 4] = [
    ("iops", "IOPS change %"),
    ("erases", "erases change %"),
    ("moves", "GC moves change %"),
    ("p99", "p99 change %"),
];
/// Firmware time per command on the core that takes it, ns (assumed; the paper gives none):
/// with the two cores, the same controller throughput as 10 us on one.
pub(super) const HOST_CMD_NS: u64 = 20_000;
/// GCaR-Optimized's traversal per page, ns: calibrated by supgc-throughput (Fig. 13's 0.65:
/// 20 us / (20 us + 4 x 2.692 us)).
pub(super) const GCAR_NS: u64 = 2_692;
/// The Bloom classifier's time per hash evaluation, ns: calibrated by supgc-throughput (Fig.
/// 13's 0.95).
pub(super) const BLOOM_HASH_NS: u64 = 23;
/// The Cosmos+ controller of both experiments (SUP-GC §5.1: two ARM Cortex-A9 cores): the
/// firmware cost on two cores, the calibrated scheme costs, and BF-Optimized's filters
/// recording GC relocations (placement/bloom.rs "Filter saturation").
pub(super) fn cosmos_cpu() -> [String; 6] {
    [
        "ftl.cost.cores=2".into(),
        format!("ftl.cost.host_cmd_ns={HOST_CMD_NS}"),
        format!("ftl.cost.gcar_write_ns={GCAR_NS}"),
        format!("ftl.cost.gcar_gc_page_ns={GCAR_NS}"),
        format!("ftl.cost.bloom_hash_ns={BLOOM_HASH_NS}"),
        "ftl.gc.bloom.record_gc=true".into(),
    ]
}
/// The assumed skew of the sensitivity case (the paper names no distribution).
const ZIPF_THETA: f64 = 1.2;
const JOBS: u32 = 10;
/// Sampling interval of the runs' time series (GC onset, IOPS early vs late), ms.
/// At the quick size (64 blocks per plane); larger devices run longer, and the interval grows
/// with the square of the size (full 20 ms, paper 80 ms) so that the time series stays within
/// the report's bound on its values.
const INTERVAL_MS: f64 = 5.0;

/// SUP-GC's changes at 700 GB as the text after each figure quotes them, percent: (write
/// ratio, figure, [vs Cosmos+, vs BF-Optimized, vs GCaR-Optimized] x [IOPS, erases, GC page
/// moves, p99]).
type Quad = [Option<f64>; 4];
pub(super) const PAPER: [(u32, u32, [Quad; 3]); 4] = [
    (
        25,
        15,
        [
            [Some(15.7), Some(-5.7), Some(-15.2), Some(-70.2)],
            [Some(11.5), Some(-5.2), Some(-14.3), Some(-7.4)],
            [Some(17.5), Some(-5.6), Some(-15.2), Some(-68.9)],
        ],
    ),
    (
        50,
        16,
        [
            [Some(35.1), Some(-22.1), Some(-44.7), Some(-87.2)],
            [Some(10.1), Some(-2.0), Some(-5.6), Some(-68.3)],
            [Some(35.2), Some(-22.0), Some(-44.6), Some(-87.2)],
        ],
    ),
    (
        75,
        17,
        [
            [Some(73.5), Some(-35.0), Some(-65.9), Some(-87.2)],
            [Some(72.6), Some(-32.7), Some(-63.7), Some(-68.3)],
            [Some(75.6), Some(-35.3), Some(-66.1), Some(-87.2)],
        ],
    ),
    (
        99,
        18,
        [
            [Some(57.9), Some(-22.5), None, None],
            [Some(69.9), Some(-28.3), None, None],
            [Some(59.8), Some(-22.6), None, None],
        ],
    ),
];

/// Why the 25 % onset row passes at quick scale and not at the paper's (measured, seed 1).
const ONSET_25_SCALE: &str = "measured: quick 486 GB (pass), paper scale 660 GB (known gap): GC starts when the free superblocks reach the threshold of 2, which is 3.1 % of the quick device's 64 superblocks and 0.8 % of the paper-scale device's 256, so host writes at onset are 12.1 % of the raw capacity at quick and 16.5 % at paper scale (the paper's 25 % onset implies 12.5 %, its 50 / 75 % onsets 15 %)";

/// SUP vs BF erase rows whose verdict differs between the quick and the paper scale, with the
/// scales at which each is a known gap (full: not measured, taken with the paper scale for the
/// rows that fail there).
const BF_SCALE_GAPS: [(&str, &[Scale]); 4] = [
    ("supgc.fig15.sup-vs-bf-erases", &[Scale::Full, Scale::Paper]),
    ("supgc.fig16.sup-vs-bf-erases", &[Scale::Quick, Scale::Full]),
    ("supgc.fig17.sup-vs-bf-erases", &[Scale::Full, Scale::Paper]),
    ("supgc.fig18.sup-vs-bf-erases", &[Scale::Full, Scale::Paper]),
];
/// Why they differ (measured, seed 1).
const BF_SCALE: &str = "measured SUP vs BF erases at 25 / 50 / 75 / 99 % writes: quick -7.6 / -20.8 / -24.6 / -22.7 %, paper scale -0.7 / -2.0 / -2.4 / -2.6 % (paper -5.2 / -2.0 / -32.7 / -28.3): BF's filters (a window of 1/8 of the logical pages) saturate on the small quick device and hardly on the paper-scale one, where the uniform GC load per window is lower (as SUP vs Cosmos+ shrinks with capacity)";
/// The known gap where the row disagrees.
const BF_SCALE_WHY: &str = "BF's filters record GC relocations and lose the separation as they saturate (the paper's BF under heavy GC); how far they saturate depends on the GC relocations per window, which the paper's filter parameters (not given; §5.3.3: readjusted per workload) and the device's size set: on the quick device they saturate at 25-99 % writes (the paper's 75-99 % leads pass, its small 50 % one is exceeded), on the paper-scale one hardly at all (the 50 % row passes, the 75-99 % leads do not appear).";

/// GC onset of Figs. 15-17: (write ratio, figure, data volume in GB on the 1 TB Cosmos+).
pub(super) const ONSET: [(u32, u32, f64); 3] = [(25, 15, 500.0), (50, 16, 300.0), (75, 17, 200.0)];

/// Blocks per plane and 4 KiB I/Os per job at each scale.
pub(super) fn size(scale: Scale) -> (u32, u64) {
    match scale {
        Scale::Quick => (64, 60_000),
        Scale::Full => (128, 250_000),
        Scale::Paper => (256, 500_000),
    }
}

/// The scaled Cosmos+ device; `extra` settings last (a sensitivity's).
fn device(blocks: u32, placement: &str, extra: &[String]) -> Result<DeviceConfig> {
    let sets: Vec<String> = [
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
        format!(
            "stats.interval_ms={}",
            INTERVAL_MS * (blocks as f64 / 64.0).powi(2)
        ),
        format!("ftl.gc.placement={placement}"),
    ]
    .into_iter()
    // A CPU-heavy firmware path per command on the two A9 cores (assumed).
    .chain(cosmos_cpu())
    .chain(extra.iter().cloned())
    .collect();
    zonesim::load_device("ufs-conventional", &sets)
}

/// Trim the last 10% (near full; without `trim` the device stays full), then ten 4 KiB randrw
/// jobs.
fn workload(
    cap: u64,
    write_pct: u32,
    ios_per_job: u64,
    dist: Distribution,
    trim: bool,
) -> WorkloadSpec {
    let mut trim_job = default_job();
    trim_job.name = "trim-to-90pct".into();
    trim_job.rw = RwMode::Trim;
    trim_job.bs = 1 << 20;
    trim_job.offset = SizeSpec::Bytes(cap * 9 / 10 / trim_job.bs * trim_job.bs);
    let mut jobs: Vec<JobSpec> = if trim { vec![trim_job] } else { Vec::new() };
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

/// What one run gives.
pub(super) struct Point {
    /// IOPS, block erases, GC page moves, p99 latency (us): in [`METRICS`] order.
    pub(super) m: [f64; 4],
    /// Host data volume (reads + writes) when the first GC page moved, MiB (None: never).
    pub(super) onset_mib: Option<f64>,
    /// Mean IOPS over the last and the first quarter of the randrw phase.
    pub(super) late_vs_early: f64,
    /// Host data volume of the whole run (reads + writes), MiB.
    pub(super) volume_mib: f64,
    /// Raw flash capacity, MiB.
    pub(super) raw_mib: f64,
}

impl Point {
    /// The data volume (reads + writes) at the first GC page move, per TB of raw capacity
    /// (GB; NaN if GC never ran).
    pub(super) fn onset_gb_per_tb(&self) -> f64 {
        self.onset_mib
            .map_or(f64::NAN, |v| v / self.raw_mib * 1000.0)
    }
}

fn point(r: &Report, raw_mib: f64) -> Point {
    let h = &r.host;
    let d = &r.device;
    let (onset_mib, late_vs_early, volume_mib) =
        r.timeseries
            .as_ref()
            .map_or((None, f64::NAN, f64::NAN), |ts| {
                let col = |n: &str| ts.columns.iter().position(|c| c == n);
                let (Some(t), Some(ri), Some(wi), Some(rm), Some(wm), Some(gc)) = (
                    col("t_ms"),
                    col("read_iops"),
                    col("write_iops"),
                    col("read_mib_s"),
                    col("write_mib_s"),
                    col("gc_pages_moved"),
                ) else {
                    return (None, f64::NAN, f64::NAN);
                };
                let mut vol = 0.0;
                let mut prev_t = 0.0;
                let mut onset = None;
                let mut iops = Vec::new();
                for row in &ts.rows {
                    let secs = (row[t] - prev_t) / 1000.0;
                    prev_t = row[t];
                    vol += (row[rm] + row[wm]) * secs;
                    if onset.is_none() && row[gc] > 0.0 {
                        onset = Some(vol);
                    }
                    let io = row[ri] + row[wi];
                    if io > 0.0 || !iops.is_empty() {
                        iops.push(io);
                    }
                }
                let q = (iops.len() / 4).max(1);
                let mean = |s: &[f64]| s.iter().sum::<f64>() / s.len().max(1) as f64;
                let ratio =
                    mean(&iops[iops.len().saturating_sub(q)..]) / mean(&iops[..q.min(iops.len())]);
                (onset, ratio, vol)
            });
    Point {
        m: [
            h.read.iops + h.write.iops,
            d.flash.block_erases as f64,
            d.gc.pages_moved as f64,
            // The worse direction's p99 (the report keeps directions apart).
            h.read.latency_us.p99.max(h.write.latency_us.p99),
        ],
        onset_mib,
        late_vs_early,
        volume_mib,
        raw_mib,
    }
}

/// One run of `placement` at `ratio` % writes at the size of `o`'s scale, as checked.
fn run_one(o: &ExpOptions, placement: &str, ratio: u32, dist: Distribution) -> Result<Point> {
    let checked = Setting {
        size: size(o.scale),
        extra: Vec::new(),
        trim: true,
    };
    run_with(o.seed, &checked, placement, ratio, dist)
}

/// How a run is set up: (blocks per plane, I/Os per job), settings added to the device, and
/// whether the filled device is trimmed back to 90 % first.
pub(super) struct Setting {
    pub(super) size: (u32, u64),
    pub(super) extra: Vec<String>,
    pub(super) trim: bool,
}

/// One run of `placement` at `ratio` % writes under `s`.
pub(super) fn run_with(
    seed: u64,
    s: &Setting,
    placement: &str,
    ratio: u32,
    dist: Distribution,
) -> Result<Point> {
    let (blocks, ios_per_job) = s.size;
    let cfg = device(blocks, placement, &s.extra)?;
    let dev = zonesim::device::Device::new(&cfg, seed)?;
    let cap = dev.capacity_bytes(0);
    let n = &cfg.nand;
    let raw = n.channels as f64
        * n.chips_per_channel as f64
        * n.dies_per_chip as f64
        * n.planes_per_die as f64
        * n.blocks_per_plane as f64
        * n.pages_per_block as f64
        * n.page_bytes as f64;
    let opts = RunOptions {
        seed,
        precondition: Precondition::Seq,
        check_invariants: false,
        ..RunOptions::default()
    };
    let r = zonesim::RunSpec::new(cfg.clone(), workload(cap, ratio, ios_per_job, dist, s.trim))
        .options(opts)
        .run()?;
    Ok(point(&r, raw / (1 << 20) as f64))
}

/// The band of a SUP-GC change the paper quotes: 30 % of its value, at least 3 points.
pub(super) fn band(reference: f64) -> f64 {
    ((0.3 * reference.abs()).max(3.0) * 100.0).round() / 100.0
}

pub fn run(o: &ExpOptions) -> Result<Outcome> {
    let dists = [
        ("uniform", Distribution::Uniform),
        ("zipf1.2", Distribution::Zipf(ZIPF_THETA)),
    ];
    let mut cases = Vec::new();
    for (d, dist) in dists {
        for ratio in RATIOS {
            for (p, _) in POLICIES.iter().enumerate() {
                cases.push((d, dist, ratio, p));
            }
        }
    }
    let points = par_map(&cases, |&(_, dist, ratio, p)| {
        run_one(o, POLICIES[p].1, ratio, dist)
    });
    let mut pts: Vec<Point> = Vec::with_capacity(points.len());
    for p in points {
        pts.push(p?);
    }
    // pts[dist][ratio][policy]
    let at = |d: usize, ratio: u32, p: usize| -> &Point {
        let ri = RATIOS.iter().position(|&r| r == ratio).unwrap_or(0);
        &pts[(d * RATIOS.len() + ri) * POLICIES.len() + p]
    };
    let mut rows: Vec<Row> = Vec::new();
    for (di, (dname, _)) in dists.iter().enumerate() {
        for ratio in RATIOS {
            for (p, (label, _)) in POLICIES.iter().enumerate() {
                let case = format!("{dname}, {ratio}% writes, {label}");
                let pt = at(di, ratio, p);
                rows.push(row_info(&case, "IOPS", pt.m[0]));
                rows.push(row_info(&case, "block erases", pt.m[1]));
                rows.push(row_info(&case, "GC page moves", pt.m[2]));
                rows.push(row_info(&case, "p99 latency us", pt.m[3]));
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
    rows.extend(onset_rows(&at, o.scale));
    rows.extend(comparison_rows(&at, o.scale));
    rows.extend(direction_rows(&at));
    // The checked rows name the free parameters they depend on and their sensitivity rows.
    for r in rows.iter_mut() {
        if let Some(id) = &r.id {
            let note = supgc_free::unstated(id);
            r.source.push_str(&note);
        }
    }
    rows.extend(supgc_free::rows(o)?);
    Ok(Outcome {
        name: "supgc-fio".into(),
        title: "SUP-GC vs Cosmos+ / BF-Optimized / GCaR-Optimized, fio randrw 4 KiB numjobs 10: uniform (checked) and zipf 1.2 (assumed skew, sensitivity)".into(),
        source: "SUP-GC §5.3.2, Figs. 14-18 and their text".into(),
        rows,
        notes: notes(o.scale),
    })
}

type At<'a> = dyn Fn(usize, u32, usize) -> &'a Point + 'a;

/// Fig. 14, 1 % writes: no GC, the classification cost alone.
fn one_percent_rows(at: &At<'_>) -> Vec<Row> {
    let src = "SUP-GC §5.3.2 Fig. 14 (1% writes)";
    let iops = |p: usize| pct_change(at(0, 1, p).m[0], at(0, 1, 0).m[0]);
    let most = |k: usize| {
        (0..POLICIES.len())
            .map(|p| at(0, 1, p).m[k])
            .fold(0.0, f64::max)
    };
    let single = at(0, 1, 0);
    vec![
        row_abs("uniform, 1% writes, sup vs single", "IOPS change %", iops(2), 0.0, 2.0)
            .id("supgc.fig14.sup-iops")
            .src(&format!("{src}: SUP-GC \"exhibits performance identical to the baseline in this test\""))
            .structural("SUP-GC costs no controller time in the model and places host writes as single does until GC runs; the runs differ only in which stream the few writes open"),
        row_abs("uniform, 1% writes, bloom vs single", "IOPS change %", iops(1), -5.0, 2.5)
            .id("supgc.fig14.bf-iops")
            .src(&format!("{src}: \"BF-Optimized's average performance is approximately 5% lower than the baseline\"; band +-2.5: \"approximately\""))
            .gap(Cause::UnstatedParameter, &format!(
                "measured {:.2} %: the paper puts the loss on the Bloom hashing \"during each write operation\", but at 1% writes hashing touches 1 command in 100; a 5 % loss needs about 5 commands' time (100 us) of hashing per written page, against the model's {BLOOM_HASH_NS} ns per hash evaluation (about 11 to 35 evaluations per page as the filters fill), calibrated by supgc-throughput on §5.3.1's 0.95", iops(1))),
        row_dir_by("uniform, 1% writes, gcar vs single", "IOPS change %", iops(3), false, 1.0)
            .id("supgc.fig14.gcar-iops")
            .src(&format!("{src}: \"GCaR experiences a certain degree of performance decline relative to the baseline\"; a decline must exceed 1%, the size of a change of the random sequence at 1% writes"))
            .gap(Cause::MissingMechanism, &format!(
                "measured {:.2} %: the paper's decline is I/O blocking while GCaR traverses its cache; the model charges GCaR's traversal per written page ({:.3} us, calibrated by supgc-throughput) on the controller's two cores, where it delays the commands queued behind it, but a replacement happens on a write only, so at 1% writes it costs 1 command in 100", iops(3), GCAR_NS as f64 / 1000.0)),
        with_gap(
            row_abs("uniform, 1% writes, all schemes", "most block erases", most(1), 0.0, 0.0)
                .id("supgc.fig14.no-erases")
                .src(&format!("{src}: \"both the block erase count and the GC page move count remain at zero\"")),
            &format!("Measured: the 1 % writes are {:.1} % of the raw capacity here.", single.volume_mib * 0.01 / single.raw_mib * 100.0),
        ),
        row_abs("uniform, 1% writes, all schemes", "most GC page moves", most(2), 0.0, 0.0)
            .id("supgc.fig14.no-moves")
            .src(&format!("{src}: \"both the block erase count and the GC page move count remain at zero\"")),
        row_range("uniform, 1% writes, single", "IOPS last / first quarter of the run", single.late_vs_early, 1.0, 0.9, 1.1)
            .id("supgc.fig14.no-degradation")
            .src(&format!("{src}: \"we observe no performance degradation as the data volume increases from 100 GB to 700 GB\"; no degradation read as within 10 %")),
    ]
}

/// `r` with the gap [`gap_of`] declares for its id, the measured `evidence` appended.
fn with_gap(r: Row, evidence: &str) -> Row {
    match r.id.as_deref().and_then(gap_of) {
        Some((cause, why)) => {
            let text = format!("{why} {evidence}");
            r.gap(cause, &text)
        }
        None => r,
    }
}

/// Figs. 15-17: the data volume at which GC starts, as a share of the raw capacity scaled to
/// the paper's 1 TB.
fn onset_rows(at: &At<'_>, scale: Scale) -> Vec<Row> {
    let mut rows = Vec::new();
    for (ratio, fig, gb) in ONSET {
        let s = at(0, ratio, 0);
        let ours = s.onset_gb_per_tb();
        let writes = s
            .onset_mib
            .map_or(f64::NAN, |v| v * ratio as f64 / s.raw_mib);
        let case = format!("uniform, {ratio}% writes, single");
        rows.push(row_info(
            &case,
            "host writes at GC onset, % of raw capacity",
            writes,
        ));
        let r = row_abs(&case, "GC onset, GB of data volume per TB raw", ours, gb, 100.0)
            .id(&format!("supgc.fig{fig}.gc-onset"))
            .src(&format!("SUP-GC §5.3.2 Fig. {fig}: erases and GC page moves start to rise at {gb} GB; ours is the reads + writes issued until the first GC page move, as a share of the raw capacity x 1,000 GB (a ratio of capacity: the device here is smaller); band +-100 GB, the figure's x-axis step"));
        let measured = format!("Measured: host writes at onset {:.1} % of the raw capacity; the paper's 500 / 300 / 200 GB at 25 / 50 / 75 % writes are 125 / 150 / 150 GB of writes, 12.5 / 15 / 15 % of its 1 TB.", writes);
        rows.push(if ratio == 25 {
            r.scale_dependent(ONSET_25_SCALE).gap_at(scale, &[Scale::Paper], Cause::UnstatedParameter, &format!("The free space at the start of the paper's run is not given; GC starts here once the free superblocks reach the threshold of 2, after host writes of 16.5 % of the raw capacity at paper scale at every ratio, against the 12.5 % the paper's 25 % onset implies (its 50 and 75 % onsets imply 15 %, which ours meet). {measured}"))
        } else {
            r
        });
    }
    rows
}

/// Figs. 15-18: SUP-GC against each scheme at each write ratio (uniform checked, zipf 1.2
/// beside it as sensitivity).
fn comparison_rows(at: &At<'_>, scale: Scale) -> Vec<Row> {
    let mut rows = Vec::new();
    for (ratio, fig, paper) in PAPER {
        for (wi, (wid, wname, p)) in OTHERS.iter().enumerate() {
            for (k, (mid, metric)) in METRICS.iter().enumerate() {
                let Some(reference) = paper[wi][k] else {
                    continue;
                };
                let id = format!("supgc.fig{fig}.sup-vs-{wid}-{mid}");
                let ch = |d: usize| pct_change(at(d, ratio, 2).m[k], at(d, ratio, *p).m[k]);
                let (u, z) = (ch(0), ch(1));
                let b = band(reference);
                let src = format!(
                    "SUP-GC §5.3.2, text after Fig. {fig}: SUP-GC {reference:+}% vs {wname} at 700 GB; band 30% of the value, at least 3 points (the paper gives one run per point and no spread; 3 points is over 6x the seed-to-seed sd of these changes, at most 0.5 point over seeds 1-3){}",
                    if ratio == 75 && k == 3 { " [the 75% p99 sentence repeats the 50% one word for word]" } else { "" }
                );
                let case = format!("uniform, {ratio}% writes, sup vs {wname}");
                let mut r = row_abs(&case, metric, u, reference, b).id(&id).src(&src);
                if let Some(&(_, at_scales)) = BF_SCALE_GAPS.iter().find(|g| g.0 == id) {
                    r = r.scale_dependent(BF_SCALE).gap_at(
                        scale,
                        at_scales,
                        Cause::UnstatedParameter,
                        &format!("{BF_SCALE_WHY} Measured: uniform {u:+.1}."),
                    );
                }
                rows.push(with_gap(
                    r,
                    &format!("Measured: uniform {u:+.1}, zipf 1.2 (assumed skew) {z:+.1}."),
                ));
                rows.push(
                    row_abs(
                        &format!("zipf1.2 (assumed), {ratio}% writes, sup vs {wname}"),
                        metric,
                        z,
                        reference,
                        b,
                    )
                    .src(&src)
                    .sensitivity(),
                );
            }
        }
    }
    rows
}

/// The claims of Figs. 17-18 that give no number.
fn direction_rows(at: &At<'_>) -> Vec<Row> {
    let ch = |d: usize, ratio: u32, p: usize, k: usize| {
        pct_change(at(d, ratio, p).m[k], at(d, ratio, 0).m[k])
    };
    let items: [(&str, &str, u32, usize, usize, bool, &str); 4] = [
        ("supgc.fig17.bf-below-cosmos", "bloom vs single", 75, 1, 0, false,
         "SUP-GC §5.3.2 Fig. 17: at 700 GB BF-Optimized \"sharply declines, slightly falling below Cosmos+ and GCaR\" (the quoted gains derive to BF +0.5% above Cosmos+: the text disagrees with its numbers)"),
        ("supgc.fig18.sup-moves-lower", "sup vs single", 99, 2, 2, false,
         "SUP-GC §5.3.2 Fig. 18(d): \"SUP-GC shows a significantly lower GC page move count\""),
        ("supgc.fig18.sup-p99-lower", "sup vs single", 99, 2, 3, false,
         "SUP-GC §5.3.2 Fig. 18(e): \"SUP-GC demonstrates significantly lower tail latency compared to Cosmos+\""),
        ("supgc.fig18.bf-moves-higher", "bloom vs single", 99, 1, 2, true,
         "SUP-GC §5.3.2 Fig. 18(c)(d): BF-Optimized's erases and GC page moves are \"consistently higher than those of Cosmos+ and GCaR\""),
    ];
    let mut rows = Vec::new();
    for (id, who, ratio, p, k, higher, src) in items {
        let metric = METRICS[k].1;
        let (u, z) = (ch(0, ratio, p, k), ch(1, ratio, p, k));
        let r = row_dir(
            &format!("uniform, {ratio}% writes, {who}"),
            metric,
            u,
            higher,
        )
        .id(id)
        .src(src);
        rows.push(with_gap(
            r,
            &format!("Measured: uniform {u:+.1}, zipf 1.2 (assumed skew) {z:+.1}."),
        ));
        rows.push(
            row_dir(
                &format!("zipf1.2 (assumed), {ratio}% writes, {who}"),
                metric,
                z,
                higher,
            )
            .src(src)
            .sensitivity(),
        );
    }
    rows
}

/// The declared known gaps of this experiment, by registry id: cause and reason (the
/// measured values are appended where the row is built). Every other checked row must pass.
fn gap_of(id: &str) -> Option<(Cause, &'static str)> {
    gaps::GAPS
        .iter()
        .find(|g| g.0 == id)
        .map(|&(_, cause, why)| (cause, why))
}

mod gaps {
    use super::Cause;

    const SKEW: &str = "Under fio's default uniform distribution (the paper names none) separating host writes from GC survivors gains nothing: the survivors of a uniform workload are no colder than new writes, and SUP's two open streams leave fuller victims; the paper's sign needs a skewed workload, which the zipf 1.2 sensitivity row beside this one shows.";
    const TAIL: &str = "The model's p99 is reads queued behind GC copies on their die; SUP and BF collect fewer but fuller victims, so the tail does not fall as the paper's does, under either distribution (Cosmos+'s read/GC scheduling is not described).";
    const BF: &str = "The paper's BF-Optimized \"struggles to effectively distinguish between hot and cold data\" under heavy GC and falls to Cosmos+'s level. The model's filters record GC relocations (ftl.gc.bloom.record_gc), fill beyond their size and lose the separation, so BF falls behind SUP in erases as the paper's does (those rows pass); SUP's lead in IOPS and GC moves stays short of the paper's under uniform access, where SUP itself gains nothing over Cosmos+ (the SKEW rows), and is nearer under the zipf 1.2 sensitivity.";

    const BF_LOW: &str = "The paper's BF-Optimized trails SUP-GC by about 10 % IOPS at 25-50 % writes and by little in erases and moves at 50 %; its filter parameters for the FIO test are not given (§5.3.3: they were readjusted per workload). The model's BF (4 filters, a window of 1/8 of the logical pages) records GC relocations, and its filters saturate as GC runs: under uniform access the steady-state GC load of these runs is set by the device's fullness, not by the write ratio, so the filters saturate at 50 % writes about as at 75 %, and SUP's lead over BF is smaller than the paper's at 25 % and larger at 50 %.";
    const VOLUME: &str = "The erases are of the trimmed, wholly invalid superblocks, taken once the free superblocks reach the GC threshold (no page moves): our run issues its I/O volume over several times the capacity to reach GC steady state at the other ratios, so 1 % of it is a few % of the raw capacity, against the paper's 7 GB on 1 TB with about 130 GB free (a scale artifact of the run length, not of the GC policy).";

    pub(super) static GAPS: &[(&str, Cause, &str)] = &[
        (
            "supgc.fig15.sup-vs-cosmos-iops",
            Cause::UnstatedParameter,
            SKEW,
        ),
        (
            "supgc.fig15.sup-vs-cosmos-erases",
            Cause::UnstatedParameter,
            SKEW,
        ),
        (
            "supgc.fig15.sup-vs-cosmos-moves",
            Cause::UnstatedParameter,
            SKEW,
        ),
        ("supgc.fig15.sup-vs-cosmos-p99", Cause::ModelDefect, TAIL),
        (
            "supgc.fig15.sup-vs-gcar-iops",
            Cause::UnstatedParameter,
            SKEW,
        ),
        (
            "supgc.fig15.sup-vs-gcar-erases",
            Cause::UnstatedParameter,
            SKEW,
        ),
        (
            "supgc.fig15.sup-vs-gcar-moves",
            Cause::UnstatedParameter,
            SKEW,
        ),
        ("supgc.fig15.sup-vs-gcar-p99", Cause::ModelDefect, TAIL),
        (
            "supgc.fig15.sup-vs-bf-iops",
            Cause::UnstatedParameter,
            BF_LOW,
        ),
        (
            "supgc.fig15.sup-vs-bf-moves",
            Cause::UnstatedParameter,
            BF_LOW,
        ),
        ("supgc.fig15.sup-vs-bf-p99", Cause::ModelDefect, TAIL),
        (
            "supgc.fig16.sup-vs-cosmos-iops",
            Cause::UnstatedParameter,
            SKEW,
        ),
        (
            "supgc.fig16.sup-vs-cosmos-erases",
            Cause::UnstatedParameter,
            SKEW,
        ),
        (
            "supgc.fig16.sup-vs-cosmos-moves",
            Cause::UnstatedParameter,
            SKEW,
        ),
        ("supgc.fig16.sup-vs-cosmos-p99", Cause::ModelDefect, TAIL),
        (
            "supgc.fig16.sup-vs-gcar-iops",
            Cause::UnstatedParameter,
            SKEW,
        ),
        (
            "supgc.fig16.sup-vs-gcar-erases",
            Cause::UnstatedParameter,
            SKEW,
        ),
        (
            "supgc.fig16.sup-vs-gcar-moves",
            Cause::UnstatedParameter,
            SKEW,
        ),
        ("supgc.fig16.sup-vs-gcar-p99", Cause::ModelDefect, TAIL),
        (
            "supgc.fig16.sup-vs-bf-iops",
            Cause::UnstatedParameter,
            BF_LOW,
        ),
        (
            "supgc.fig16.sup-vs-bf-moves",
            Cause::UnstatedParameter,
            BF_LOW,
        ),
        ("supgc.fig16.sup-vs-bf-p99", Cause::ModelDefect, TAIL),
        (
            "supgc.fig17.sup-vs-cosmos-iops",
            Cause::UnstatedParameter,
            SKEW,
        ),
        (
            "supgc.fig17.sup-vs-cosmos-erases",
            Cause::UnstatedParameter,
            SKEW,
        ),
        (
            "supgc.fig17.sup-vs-cosmos-moves",
            Cause::UnstatedParameter,
            SKEW,
        ),
        ("supgc.fig17.sup-vs-cosmos-p99", Cause::ModelDefect, TAIL),
        (
            "supgc.fig17.sup-vs-gcar-iops",
            Cause::UnstatedParameter,
            SKEW,
        ),
        (
            "supgc.fig17.sup-vs-gcar-erases",
            Cause::UnstatedParameter,
            SKEW,
        ),
        (
            "supgc.fig17.sup-vs-gcar-moves",
            Cause::UnstatedParameter,
            SKEW,
        ),
        ("supgc.fig17.sup-vs-gcar-p99", Cause::ModelDefect, TAIL),
        ("supgc.fig17.sup-vs-bf-iops", Cause::UnstatedParameter, BF),
        ("supgc.fig17.sup-vs-bf-moves", Cause::UnstatedParameter, BF),
        ("supgc.fig17.sup-vs-bf-p99", Cause::ModelDefect, TAIL),
        (
            "supgc.fig18.sup-vs-cosmos-iops",
            Cause::UnstatedParameter,
            SKEW,
        ),
        (
            "supgc.fig18.sup-vs-cosmos-erases",
            Cause::UnstatedParameter,
            SKEW,
        ),
        (
            "supgc.fig18.sup-vs-gcar-iops",
            Cause::UnstatedParameter,
            SKEW,
        ),
        (
            "supgc.fig18.sup-vs-gcar-erases",
            Cause::UnstatedParameter,
            SKEW,
        ),
        ("supgc.fig18.sup-vs-bf-iops", Cause::UnstatedParameter, BF),
        (
            "supgc.fig18.sup-moves-lower",
            Cause::UnstatedParameter,
            SKEW,
        ),
        ("supgc.fig18.sup-p99-lower", Cause::ModelDefect, TAIL),
        ("supgc.fig14.no-erases", Cause::ModelDefect, VOLUME),
    ];
}

fn notes(scale: Scale) -> Vec<String> {
    let (blocks, ios) = size(scale);
    vec![
        format!(
            "This run ({scale} scale): 2 channels x 1 die x 2 planes x {blocks} blocks of 128 x 16 KiB pages ({} MiB raw), 10% OP, filled sequentially and trimmed back to 90%, then 10 jobs x {ios} 4 KiB I/Os per write ratio and policy. Quick 64 blocks / 60k, full 128 / 250k, paper 256 / 500k (docs/experiments.md: why not the paper's 1 TB).",
            4 * blocks as u64 * 2
        ),
        "Checked: SUP-GC's change against each scheme under uniform access (fio's default; the paper names no distribution), against the numbers the paper quotes at 700 GB, in a band of 30% of the value (at least 3 points). Zipf 1.2 (each job its own hot set) is an assumed skew: its rows are sensitivity, not predictions.".to_string(),
        "GC onset (Figs. 15-17): reads + writes issued until the first GC page move, as a share of the raw capacity scaled to 1 TB; it depends on the free space at the start, which the paper does not give (its onsets imply about 13-15% of its 1 TB).".to_string(),
        format!("Controller: the Cosmos+'s two ARM Cortex-A9 cores (SUP-GC §5.1; ftl.cost.cores = 2), {} us of firmware time per command on the core that takes it (assumed); the schemes' costs run on the same cores. GCaR-Optimized: GC-moved pages kept in a quarter of the data buffer, {:.3} us traversal per written and kept page (calibrated by supgc-throughput). BF-Optimized: {BLOOM_HASH_NS} ns per hash evaluation (calibrated by supgc-throughput), its filters recording GC relocations too (ftl.gc.bloom.record_gc), so under GC they fill beyond their size, their false positives and the hashes per probe rise (placement/bloom.rs).", HOST_CMD_NS / 1000, GCAR_NS as f64 / 1000.0),
        "p99 is the worse of the read and write p99s.".to_string(),
        "Free parameters (supgc_free.rs), sensitivity tables at the quick size at every scale (64 blocks per plane, 60k I/Os per job, uniform): the firmware time per command 0 / 20 (checked, on each of 2 cores) / 50 us; the device trimmed back to 90 % or left full; BF-Optimized's false-positive rate 0.1 / 0.01 / 0.001 and 2 / 4 / 8 filters. Each checked row names the ones it depends on.".to_string(),
    ]
}
