//! `zms-multizone`: ZMS (seed 002, ATC'24 talk) "Challenge #1: Multi-zone Write Performance"
//! and "Performance of Writing to Multiple Zones": three concurrent writers, each writing its
//! own zone sequentially on `zms-2024` (two 384 KiB superpage buffers for the zoned LU, SLC
//! buffering of unaligned flushes), without and with IOTailor (`host.iotailor`,
//! `host/iotailor.rs`). The talk's claim: "IOTailor improves multi-zone write performance by
//! reducing SLC buffering".
//!
//! Scaling: the talk's jobs write files through F2FS ("Three concurrent Fio writing jobs, each
//! writing to its own files"); we issue the zoned writes directly, 512 KiB each (a common
//! largest bio of a UFS host, chosen: not a multiple of the 384 KiB superpage, so a buffer
//! switch finds a partial superpage), at queue depth 4 per writer (chosen). One zone (138 MiB)
//! per writer in the full form, 48 MiB each with `--quick`; the pattern repeats every 1.5 MiB,
//! so the figures do not depend on the length.

use super::conzone_common::run;
use super::{pct_change, row_dir, row_info, ExpOptions, Outcome, Row};
use zonesim::error::Result;
use zonesim::sim::Precondition;
use zonesim::stats::Report;

const SRC: &str = "seed 002, \"Performance of Writing to Multiple Zones\"";
/// The zoned LU of `zms-2024`.
const ZMS_NS: usize = 1;

/// Three writers, each its own zone (zones 0, 1, 2), `bs` KiB at queue depth `qd`.
fn job(bs_kib: u32, qd: u32, size: &str) -> String {
    let mut s = format!(
        "[global]\nzonemode=zbd\nrw=write\nbs={bs_kib}k\niodepth={qd}\nsize=1z\nio_size={size}\n"
    );
    for (i, name) in ["w1", "w2", "w3"].iter().enumerate() {
        s.push_str(&format!("[{name}]\noffset={i}z\n"));
    }
    s
}

/// The run without and with IOTailor.
fn pair(bs_kib: u32, qd: u32, size: &str, seed: u64) -> Result<[Report; 2]> {
    let run_with = |on: bool| {
        let cfg = zonesim::load_device("zms-2024", &[format!("host.iotailor={on}")])?;
        run(
            &cfg,
            &job(bs_kib, qd, size),
            Precondition::None,
            ZMS_NS,
            seed,
        )
    };
    Ok([run_with(false)?, run_with(true)?])
}

fn bw(r: &Report) -> f64 {
    r.host.write.bandwidth_mib_s
}

fn slc_pages(r: &Report) -> f64 {
    r.device.buffer.slc_buffered_pages as f64
}

/// Per-case rows: SLC-buffered pages, premature flushes, throughput, WAF, IOTailor's work.
fn case_rows(name: &str, r: &Report) -> Vec<Row> {
    let mut rows = vec![
        row_info(name, "SLC-buffered pages", slc_pages(r)),
        row_info(
            name,
            "premature flushes",
            r.device.buffer.premature_flushes as f64,
        ),
        row_info(name, "write MiB/s", bw(r)),
        row_info(name, "WAF", r.device.waf),
    ];
    if let Some(t) = &r.sim.iotailor {
        rows.push(row_info(name, "IOTailor requests in", t.requests_in as f64));
        rows.push(row_info(
            name,
            "IOTailor requests out",
            t.requests_out as f64,
        ));
        rows.push(row_info(name, "IOTailor splits", t.splits as f64));
        rows.push(row_info(name, "IOTailor merges", t.merges as f64));
        rows.push(row_info(
            name,
            "IOTailor added delay mean us",
            t.added_delay_mean_us,
        ));
    }
    rows
}

pub fn run_exp(o: &ExpOptions) -> Result<Outcome> {
    let size = if o.quick() { "48m" } else { "138m" };
    let (bs, qd) = (512, 4);
    let reps = pair(bs, qd, size, o.seed)?;
    let mut rows = Vec::new();
    for (name, r) in ["without IOTailor", "with IOTailor"].iter().zip(&reps) {
        rows.extend(case_rows(name, r));
    }
    let [off, on] = &reps;
    rows.push(
        row_dir(
            "with vs without IOTailor",
            "SLC-buffered pages change %",
            pct_change(slc_pages(on), slc_pages(off)),
            false,
        )
        .src(&format!(
            "{SRC}: \"IOTailor improves multi-zone write performance by reducing SLC buffering\""
        )),
    );
    rows.push(
        row_dir("with vs without IOTailor", "throughput change %", pct_change(bw(on), bw(off)), true)
            .src(&format!("{SRC}: \"IOTailor improves multi-zone write performance\" (the talk's chart gives no number we can read)")),
    );
    if !o.quick() {
        for (b, q) in [(128, 4), (512, 1), (4, 16)] {
            let [off, on] = pair(b, q, size, o.seed)?;
            let case = format!("{b} KiB writes, QD {q}");
            rows.push(row_info(
                &case,
                "SLC-buffered pages without IOTailor",
                slc_pages(&off),
            ));
            rows.push(row_info(
                &case,
                "SLC-buffered pages with IOTailor",
                slc_pages(&on),
            ));
            rows.push(row_info(
                &case,
                "throughput change %",
                pct_change(bw(&on), bw(&off)),
            ));
        }
    }
    Ok(Outcome {
        name: "zms-multizone".into(),
        title: "ZMS Challenge #1: three writers to their own zones, without and with IOTailor".into(),
        source: "seed 002 (ZMS, ATC'24 talk), \"Challenge #1\" and \"Performance of Writing to Multiple Zones\"".into(),
        rows,
        notes: vec![
            format!("zms-2024 zoned LU, three fio jobs writing zones 0, 1, 2 sequentially from empty ({size} each), {bs} KiB writes at QD {qd} per job (chosen: the talk's jobs write files through F2FS; sizes and depth are not given)."),
            "Mechanism: two 384 KiB buffers serve three zones; a 512 KiB write fills a superpage and leaves 128 KiB in the buffer, which the next zone's write evicts to SLC (an unaligned flush, later migrated: double writes). IOTailor cuts each zone's stream into 384 KiB superpage-aligned requests, so every buffer is full when it is switched.".into(),
            "IOTailor issues a partial group once it has been held host.iotailor_hold_us (1 ms) and its zone has no request in flight (with the zone write lock it could not reach the device earlier; its added delay mostly replaces the lock wait: mean host write latency falls); the full form also shows 128 KiB writes, a QD 1 writer (its partial tail can only go by the hold bound: IOTailor helps less and adds up to the hold per request) and 4 KiB writes at QD 16.".into(),
        ],
    })
}
