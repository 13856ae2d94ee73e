//! `mcmq-scaling`: MCMQ (seed 004) §IV-C Fig. 5. Uniform random 8 KiB I/O from 1..8 flows on one
//! shared namespace, one host queue and one FTL worker per flow: per-flow throughput falls and
//! latency rises as workers are added, because every page serialises on the namespace's data-cache
//! and mapping locks and all flows share the HIL and TSU cores. The figure's numbers are not in the
//! text, nor in MCMQ's released code (docs/firmware.md "What MCMQ's code does"), so the rows check
//! the directions the text states and print ours, with the saturating resource.

use super::mcmq_common::{self as m, SRC_WORKLOAD};
use super::{row_dir, row_info, ExpOptions, Outcome};
use zonesim::error::Result;
use zonesim::sim::Precondition;

const SRC: &str = "seed 004 §IV-C Fig. 5: \"as the number of FTL threads increases, the I/O throughput does not scale linearly. Instead, the I/O throughput of each I/O trace decreases and the end-to-end request latency increases significantly, when more FTL threads are used.\"";

pub fn run_exp(o: &ExpOptions) -> Result<Outcome> {
    let ios = if o.quick() { 1500 } else { 10000 };
    let counts: &[u32] = if o.quick() {
        &[1, 2, 4, 8]
    } else {
        &[1, 2, 3, 4, 5, 6, 7, 8]
    };
    let mut rows = Vec::new();
    let mut first = (0.0, 0.0);
    let mut last = (0.0, 0.0);
    let mut bottleneck = String::new();
    for &n in counts {
        let cfg = m::device(n, "cores", &[(512, vec![])], 64)?;
        let w = m::flows("randrw", n, ios, |_| 0)?;
        let r = m::run(&cfg, &w, Precondition::Seq, o.seed)?;
        let per_flow = m::total_iops(&r) / n as f64;
        let lat = m::mean_latency_us(&r);
        let (res, share) = m::saturating(&r);
        let case = format!("{n} flows / {n} workers");
        rows.push(row_info(&case, "per-flow KIOPS", per_flow / 1000.0));
        rows.push(row_info(&case, "total KIOPS", m::total_iops(&r) / 1000.0));
        rows.push(row_info(&case, "mean latency us", lat));
        rows.push(row_info(&case, &format!("busiest: {res}"), share));
        if n == counts[0] {
            first = (per_flow, lat);
        }
        last = (per_flow, lat);
        bottleneck = res;
    }
    let n = counts[counts.len() - 1];
    rows.push(
        row_dir(
            &format!("1 -> {n} flows"),
            "per-flow throughput change %",
            super::pct_change(last.0, first.0),
            false,
        )
        .src(SRC),
    );
    rows.push(
        row_dir(
            &format!("1 -> {n} flows"),
            "mean latency change %",
            super::pct_change(last.1, first.1),
            true,
        )
        .src(SRC),
    );
    Ok(Outcome {
        name: "mcmq-scaling".into(),
        title: "MCMQ Fig. 5: per-flow throughput and latency vs FTL workers, one shared namespace".into(),
        source: "seed 004_52ba186c000ebafa (MCMQ, DATE'22) §IV-C Fig. 5".into(),
        rows,
        notes: vec![
            format!("Workload: {SRC_WORKLOAD}; random 50/50 read/write at QD 1 per flow over one 512 MiB namespace (preconditioned sequentially), a 64 MiB data cache, flow k on host queue k and FTL worker k."),
            format!("Device: the mcmq-2022 preset (Table I latencies, 8 channels x 2 dies x 2 planes) with 64 blocks per plane; firmware.core_mhz = {} (a calibration: MCMQ's QEMU-TCG harts do about 200-400 MHz of useful work; docs/firmware.md, \"Core clock and lock hand-off\"); other firmware costs are the documented defaults (docs/firmware.md).", m::CORE_MHZ),
            format!("At the largest flow count the busiest resource is {bottleneck} (the saturating one: its busy share is printed beside it)."),
            "The paper plots its numbers without giving them in the text; only the directions are checked.".into(),
        ],
    })
}
