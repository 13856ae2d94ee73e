//! `mcmq-scaling`: MCMQ §IV-C Fig. 5. Uniform random 8 KiB I/O from 1..6 flows on one
//! shared namespace, one host queue and one FTL worker per flow ("8 logical cores (allowing up
//! to 6 FTL workers)", §IV-A): per-flow throughput falls and latency rises as workers are
//! added, because every page serialises on the namespace's data-cache and mapping locks and all
//! flows share the HIL and TSU cores. The figure's numbers are not in the text, nor in MCMQ's
//! released code (docs/firmware.md "What MCMQ's code does"), so the rows check the directions
//! the text states (the total's sub-linear scaling among them) and print ours, with the
//! saturating resource. The cores' clock (`firmware.core_mhz` = 250) is a calibration without a
//! paper number and decides what saturates: a sensitivity table at 500 and 1000 MHz.

use super::mcmq_common::{self as m, Dims, CORE_MHZ, CORE_MHZ_SWEEP, CORE_MHZ_WHY, SRC_WORKLOAD};
use super::{row_dir, row_info, ExpOptions, Outcome, Row};
use zonesim::error::Result;
use zonesim::sim::Precondition;
use zonesim::stats::Report;

const SRC: &str = "MCMQ §IV-C Fig. 5: \"as the number of FTL threads increases, the I/O throughput does not scale linearly. Instead, the I/O throughput of each I/O trace decreases and the end-to-end request latency increases significantly, when more FTL threads are used.\"";
/// Flow (= FTL worker) counts: the paper's range.
const COUNTS: [u32; 6] = [1, 2, 3, 4, 5, 6];

/// One flow count at clock `mhz`.
fn point(n: u32, mhz: f64, dims: Dims, ios: u64, seed: u64) -> Result<Report> {
    let cfg = m::device(n, "cores", &[(dims.ns_mib, vec![])], dims, mhz)?;
    let w = m::flows("randrw", n, ios, |_| 0)?;
    m::run(&cfg, &w, Precondition::Seq, seed)
}

/// (per-flow IOPS, mean latency us, total IOPS) of a report of `n` flows.
fn figures(r: &Report, n: u32) -> (f64, f64, f64) {
    let total = m::total_iops(r);
    (total / n as f64, m::mean_latency_us(r), total)
}

/// The three direction rows from the first and last counts (`case` names the setting).
fn claims(case: &str, first: (f64, f64, f64), last: (f64, f64, f64), n: u32) -> [Row; 3] {
    [
        row_dir(
            case,
            "per-flow throughput change %",
            super::pct_change(last.0, first.0),
            false,
        )
        .src(SRC),
        row_dir(
            case,
            "mean latency change %",
            super::pct_change(last.1, first.1),
            true,
        )
        .src(SRC),
        row_dir(
            case,
            "total throughput vs linear scaling %",
            super::pct_change(last.2, n as f64 * first.2),
            false,
        )
        .src(SRC),
    ]
}

pub fn run_exp(o: &ExpOptions) -> Result<Outcome> {
    let dims = Dims::of(o.scale, 128);
    let ios = dims.ios(2);
    let mut rows = Vec::new();
    let mut first = (0.0, 0.0, 0.0);
    let mut last = first;
    let mut bottleneck = String::new();
    for &n in &COUNTS {
        let r = point(n, CORE_MHZ, dims, ios, o.seed)?;
        let f = figures(&r, n);
        let (res, share) = m::saturating(&r);
        let case = format!("{n} flows / {n} workers");
        rows.push(row_info(&case, "per-flow KIOPS", f.0 / 1000.0));
        rows.push(row_info(&case, "total KIOPS", f.2 / 1000.0));
        rows.push(row_info(&case, "mean latency us", f.1));
        rows.push(row_info(&case, "busiest resource's share", share));
        if n == COUNTS[0] {
            first = f;
        }
        last = f;
        bottleneck = res;
    }
    let n = COUNTS[COUNTS.len() - 1];
    let mut sens = Vec::new();
    for mhz in CORE_MHZ_SWEEP {
        let f1 = figures(&point(1, mhz, dims, ios, o.seed)?, 1);
        let last_r = point(n, mhz, dims, ios, o.seed)?;
        let fn_ = figures(&last_r, n);
        let case = format!("1 -> {n} flows, core_mhz {mhz} (sensitivity)");
        for r in claims(&case, f1, fn_, n) {
            rows.push(r.sensitivity());
        }
        sens.push(format!(
            "{mhz} MHz: per-flow {:+.1} %, latency {:+.1} % (busiest: {})",
            super::pct_change(fn_.0, f1.0),
            super::pct_change(fn_.1, f1.1),
            m::saturating(&last_r).0
        ));
    }
    let sens = sens.join("; ");
    let case = format!("1 -> {n} flows");
    let why = format!("{CORE_MHZ_WHY}; other clocks: {sens}");
    let ids = [
        "mcmq.fig5.per-flow-falls",
        "mcmq.fig5.latency-rises",
        "mcmq.fig5.total-sublinear",
    ];
    for (r, id) in claims(&case, first, last, n).into_iter().zip(ids) {
        let src = format!("{} ({why})", r.source);
        rows.push(r.id(id).src(&src));
    }
    Ok(Outcome {
        name: "mcmq-scaling".into(),
        title: "MCMQ Fig. 5: per-flow throughput and latency vs FTL workers, one shared namespace".into(),
        source: "MCMQ (DATE'22) §IV-C Fig. 5".into(),
        rows,
        notes: vec![
            format!("Workload: {SRC_WORKLOAD}; random 50/50 read/write at QD 1 per flow, {ios} requests per flow, over one {} MiB namespace (preconditioned sequentially), a {} MiB data cache, flow k on host queue k and FTL worker k; 1 to 6 flows (the paper's up to 6 FTL workers).", dims.ns_mib, dims.cache_mib),
            format!("Device: the mcmq-2022 preset (Table I latencies, 8 channels x 2 dies x 2 planes) with {} blocks per plane ({} GiB, 1/{} of the paper's 512 GB, with the namespace, cache and run length scaled alike); {CORE_MHZ_WHY}; other firmware costs are the documented defaults (docs/firmware.md).", dims.blocks_per_plane, dims.device_gib(), dims.div),
            format!("At {n} flows the busiest resource is {bottleneck} (its busy share is printed per count). Sensitivity to the clock: {sens}."),
            "The paper plots its numbers without giving them in the text; only the directions are checked.".into(),
        ],
    })
}
