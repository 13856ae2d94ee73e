//! supgc-fio's checked rows: Fig. 14 (1 % writes), the GC onsets of Figs. 15-17, SUP-GC's
//! changes against each scheme (Figs. 15-18) and the claims that give no number.

use super::gaps::gap_of;
use super::paper::{band, ONSET, PAPER};
use super::point::{Point, LATE_VS_EARLY, WRITES_SHARE};
use super::setup::{size, BLOOM_HASH_NS, GCAR_NS, METRICS, OTHERS, POLICIES};
use crate::{pct_change, row_abs, row_dir, row_dir_by, row_info, row_range, Cause, Row, Scale};

/// The point of (distribution, write ratio, policy).
pub(super) type At<'a> = dyn Fn(usize, u32, usize) -> &'a Point + 'a;

/// Fig. 14, 1 % writes: no GC, the classification cost alone.
pub(super) fn one_percent_rows(at: &At<'_>) -> Vec<Row> {
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
                "measured {:.2} %: the paper puts the loss on the Bloom hashing \"during each write operation\", but at 1% writes hashing touches 1 command in 100; a 5 % loss needs about 5 commands' time (100 us) of hashing per written page, against the model's {BLOOM_HASH_NS} ns per hash evaluation (11 per written page on the empty filters of supgc-throughput, more as they fill), calibrated by supgc-throughput on §5.3.1's 0.95", iops(1))),
        row_dir_by("uniform, 1% writes, gcar vs single", "IOPS change %", iops(3), false, 1.0)
            .id("supgc.fig14.gcar-iops")
            .src(&format!("{src}: \"GCaR experiences a certain degree of performance decline relative to the baseline\"; a decline must exceed 1%, the size of a change of the random sequence at 1% writes"))
            .gap(Cause::MissingMechanism, &format!(
                "measured {:.2} %: the paper's decline is I/O blocking while GCaR traverses its cache; the model charges GCaR's traversal per written page ({:.3} us, calibrated by supgc-throughput) on the controller's two cores, where it delays the commands queued behind it, but a replacement happens on a write only, so at 1% writes it costs 1 command in 100", iops(3), GCAR_NS as f64 / 1000.0)),
        row_info("uniform, 1% writes, single", WRITES_SHARE, single.volume_mib * 0.01 / single.raw_mib * 100.0),
        row_abs("uniform, 1% writes, all schemes", "most block erases", most(1), 0.0, 0.0)
            .id("supgc.fig14.no-erases")
            .src(&format!("{src}: \"both the block erase count and the GC page move count remain at zero\"")),
        row_abs("uniform, 1% writes, all schemes", "most GC page moves", most(2), 0.0, 0.0)
            .id("supgc.fig14.no-moves")
            .src(&format!("{src}: \"both the block erase count and the GC page move count remain at zero\"")),
        row_range("uniform, 1% writes, single", LATE_VS_EARLY, single.late_vs_early, 1.0, 0.9, 1.1)
            .id("supgc.fig14.no-degradation")
            .src(&format!("{src}: \"we observe no performance degradation as the data volume increases from 100 GB to 700 GB\"; no degradation read as within 10 %")),
    ]
}

/// `r` with the gap [`gap_of`] declares for its id, the measured `evidence` appended.
pub(super) fn with_gap(r: Row, evidence: &str) -> Row {
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
pub(super) fn onset_rows(at: &At<'_>, scale: Scale) -> Vec<Row> {
    let mut rows = Vec::new();
    for (ratio, fig, gb) in ONSET {
        let s = at(0, ratio, 0);
        let ours = s.onset_gb_per_tb();
        let writes = writes_at_onset(s, ratio);
        let case = format!("uniform, {ratio}% writes, single");
        rows.push(row_info(
            &case,
            "host writes at GC onset, % of raw capacity",
            writes,
        ));
        let r = row_abs(&case, "GC onset, GB of data volume per TB raw", ours, gb, 100.0)
            .id(&format!("supgc.fig{fig}.gc-onset"))
            .src(&format!("SUP-GC §5.3.2 Fig. {fig}: erases and GC page moves start to rise at {gb} GB; ours is the reads + writes issued until the first GC page move, as a share of the raw capacity x 1,000 GB (a ratio of capacity: the device here is smaller); band +-100 GB, the figure's x-axis step{}", if ratio == 50 { format!(". {ONSET_SCALE}") } else { String::new() }));
        rows.push(if ratio == 25 {
            r.gap(Cause::UnstatedParameter, &format!("The free space at the start of the paper's run is not given. Here the ten files take 90 % of the file system on an empty device, and GC starts once the free superblocks reach the threshold of 2: after host writes of {} % of the raw capacity at 25 / 50 / 75 % writes, about the same at every ratio, against the 12.5 % the paper's 25 % onset implies and the 15 % of its 50 and 75 % onsets (its 500 / 300 / 200 GB at 25 / 50 / 75 % writes are 125 / 150 / 150 GB of writes on its 1 TB). The same writes are 4x the data volume at 25 % writes and 2x at 50 %, so the band of one x-axis step holds ours at 50 and 75 % and not at 25 %.{}", onset_writes(at), no_onset(s, ratio, scale)))
        } else {
            r
        });
    }
    rows
}

/// How the onset moves with the scale (measured: the quick snapshot and the paper-scale
/// record, results/paper/supgc-fio.json).
const ONSET_SCALE: &str = "The onset moves with the scale: GC starts once the free superblocks fall to 2 (ftl.gc.threshold_free_superblocks), 3.1 % of the raw capacity on the quick device and 0.05 % on the paper's 1 TiB (64 dies, 256 MiB superblocks), so with the same files (90 % of the file system's free space) GC starts after host writes of 17.6 % of the raw capacity at quick scale and 19.5 % at the paper's: 352 and 389 GB of data volume per TB at 50 % writes, both within the band.";

/// At a scale where the run at `ratio` % writes ends before GC starts: what it wrote (empty
/// if GC started).
fn no_onset(p: &Point, ratio: u32, scale: Scale) -> String {
    if p.onset_mib.is_some() {
        return String::new();
    }
    let z = size(scale);
    let volume = z.volume_bytes() as f64;
    let writes_mib = volume / 1048576.0 * ratio as f64 / 100.0;
    format!(
        " At this scale GC does not start within the run: its {:.0} GB of data volume at {ratio} % writes hold {:.1} % of the raw capacity in writes, below the onset.",
        volume / 1e9,
        writes_mib / z.raw_mib() * 100.0
    )
}

/// Host writes until the first GC page move at `ratio` % writes, % of the raw capacity.
fn writes_at_onset(p: &Point, ratio: u32) -> f64 {
    p.onset_mib
        .map_or(f64::NAN, |v| v * ratio as f64 / p.raw_mib)
}

/// [`writes_at_onset`] of the single stream at the onset rows' ratios, "a / b / c" ("none"
/// where GC did not start).
fn onset_writes(at: &At<'_>) -> String {
    let w: Vec<String> = ONSET
        .iter()
        .map(|&(ratio, _, _)| {
            let w = writes_at_onset(at(0, ratio, 0), ratio);
            if w.is_nan() {
                "none".into()
            } else {
                format!("{w:.1}")
            }
        })
        .collect();
    w.join(" / ")
}

/// Figs. 15-18: SUP-GC against each scheme at each write ratio (uniform checked, zipf 1.2
/// beside it as sensitivity).
pub(super) fn comparison_rows(at: &At<'_>) -> Vec<Row> {
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
                    "SUP-GC §5.3.2, text after Fig. {fig}: SUP-GC {reference:+}% vs {wname} at 700 GB; band 30% of the value, at least 3 points (the paper gives one run per point and no spread; 3 points is over 5x the seed-to-seed sd of the IOPS, erase and GC-move changes, at most 0.54 point over seeds 1-3 at quick scale; the p99 changes scatter more, up to 6.1 points){}",
                    if ratio == 75 && k == 3 { " [the 75% p99 sentence repeats the 50% one word for word]" } else { "" }
                );
                let case = format!("uniform, {ratio}% writes, sup vs {wname}");
                let r = row_abs(&case, metric, u, reference, b).id(&id).src(&src);
                let measured =
                    format!("Measured: uniform {u:+.1}, zipf 1.2 (assumed skew) {z:+.1}.");
                let collected = |p: usize| at(0, ratio, p).m[2] > 0.0;
                rows.push(if collected(2) || collected(*p) {
                    with_gap(r, &measured)
                } else {
                    r.gap(Cause::UnstatedParameter, &format!("{NO_GC} {measured}"))
                });
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

/// Why a comparison whose runs collected nothing differs from the paper's.
const NO_GC: &str = "Neither run collected garbage (0 GC page moves under uniform access): the run's writes end before GC starts, so the schemes, which differ in where GC puts what it moves, differ here only by their controller time per write. When GC starts depends on the free space at the start, which the paper does not give (here the files take 90 % of the file system's free space; see this figure's gc-onset row).";

/// The claims of Figs. 17-18 that give no number.
pub(super) fn direction_rows(at: &At<'_>) -> Vec<Row> {
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
