//! `mcmq-isolation`: MCMQ (seed 004) §IV-D Fig. 7. Four flows on a shared namespace, on four
//! namespaces sharing all channels (shared storage: the data cache is split four ways, each
//! namespace as large as the shared one), and on four namespaces each pinned to two of the eight
//! channels (no sharing: NVM sets, each a quarter of the capacity). The paper's order is no
//! sharing > shared namespace > shared storage; the data-cache hit rates explain it.

use super::mcmq_common::{self as m, SRC_WORKLOAD};
use super::{row_dir, row_info, ExpOptions, Outcome};
use zonesim::error::Result;
use zonesim::sim::Precondition;
use zonesim::stats::Report;

const SRC: &str = "seed 004 §IV-D Fig. 7: \"although namespace isolation reduces synchronization overhead between different FTL threads, the I/O performance is worse than shared namespace because the data cache is partitioned\"; \"No sharing has a significantly higher performance than both shared namespace and shared storage.\"";
const SRC_HIT: &str = "seed 004 §IV-D: \"Each namespace has a smaller data cache and the number of issued cache writebacks increases.\"";

const FLOWS: u32 = 4;
/// Capacity of the shared namespace (MiB) and the data cache (MiB).
const NS_MIB: u64 = 256;
const CACHE_MIB: u64 = 64;

/// Total IOPS, data-cache hit rate and write-backs of one sharing mode.
fn mode(namespaces: &[(u64, Vec<u32>)], o: &ExpOptions) -> Result<(f64, f64, u64)> {
    // Quick runs as many requests: fewer leave the 64 MiB cache unfilled (no write-back
    // reaches the flash and every mode runs at the cores' speed); the run takes under a second.
    let _ = o.quick();
    let ios = 20000;
    let cfg = m::device(FLOWS, "cores", namespaces, CACHE_MIB)?;
    let count = namespaces.len() as u32;
    let w = m::flows("randwrite", FLOWS, ios, |k| (k % count) as usize)?;
    let r = m::run(&cfg, &w, Precondition::None, o.seed)?;
    let (hits, all, wb) = cache_totals(&r);
    Ok((m::total_iops(&r), hits as f64 / all.max(1) as f64, wb))
}

fn cache_totals(r: &Report) -> (u64, u64, u64) {
    let Some(fw) = &r.firmware else {
        return (0, 0, 0);
    };
    fw.cache.values().fold((0, 0, 0), |(h, a, w), c| {
        let k = &c.counters;
        let hits = k.read_hits + k.write_hits;
        (
            h + hits,
            a + hits + k.read_misses + k.write_misses,
            w + k.writebacks,
        )
    })
}

pub fn run_exp(o: &ExpOptions) -> Result<Outcome> {
    let shared_ns = [(NS_MIB, vec![])];
    let shared_storage: Vec<(u64, Vec<u32>)> = (0..FLOWS).map(|_| (NS_MIB, vec![])).collect();
    let no_sharing: Vec<(u64, Vec<u32>)> = (0..FLOWS)
        .map(|k| (NS_MIB / FLOWS as u64, vec![2 * k, 2 * k + 1]))
        .collect();
    let mut rows = Vec::new();
    let mut iops = Vec::new();
    for (label, ns) in [
        ("shared namespace", &shared_ns[..]),
        ("shared storage", &shared_storage[..]),
        ("no sharing (NVM sets)", &no_sharing[..]),
    ] {
        let (t, hit, wb) = mode(ns, o)?;
        rows.push(row_info(label, "total KIOPS", t / 1000.0));
        rows.push(row_info(label, "data-cache hit rate", hit));
        rows.push(row_info(label, "cache write-backs", wb as f64));
        iops.push((t, hit, wb));
    }
    let (sn, ss, ns) = (iops[0], iops[1], iops[2]);
    rows.push(
        row_dir(
            "shared storage vs shared namespace",
            "throughput change %",
            super::pct_change(ss.0, sn.0),
            false,
        )
        .src(SRC),
    );
    rows.push(
        row_dir(
            "no sharing vs shared namespace",
            "throughput change %",
            super::pct_change(ns.0, sn.0),
            true,
        )
        .src(SRC),
    );
    rows.push(
        row_dir(
            "no sharing vs shared storage",
            "throughput change %",
            super::pct_change(ns.0, ss.0),
            true,
        )
        .src(SRC),
    );
    rows.push(
        row_dir(
            "shared storage vs shared namespace",
            "cache write-backs change %",
            super::pct_change(ss.2 as f64, sn.2 as f64),
            true,
        )
        .src(SRC_HIT),
    );
    Ok(Outcome {
        name: "mcmq-isolation".into(),
        title: "MCMQ Fig. 7: shared namespace vs shared storage vs no sharing (NVM sets)".into(),
        source: "seed 004_52ba186c000ebafa (MCMQ, DATE'22) §IV-D Fig. 7".into(),
        rows,
        notes: vec![
            format!("Workload: {SRC_WORKLOAD}; {FLOWS} flows of random 8 KiB writes at QD 1 on a fresh device (writes are what the data cache and its write-backs decide), one host queue and worker per flow."),
            format!("Shared namespace: one {NS_MIB} MiB namespace, the whole {CACHE_MIB} MiB data cache. Shared storage: {FLOWS} namespaces of {NS_MIB} MiB over all channels, the cache split {FLOWS} ways (MCMQ's rule). No sharing: {FLOWS} namespaces of {} MiB, each an NVM set of two channels (`[[namespaces]] channels`), the cache split the same way.", NS_MIB / FLOWS as u64),
            format!("firmware.core_mhz = {} (calibration, as in mcmq-scaling). The figure's values are not in the text: only the order is checked.", m::CORE_MHZ),
        ],
    })
}
