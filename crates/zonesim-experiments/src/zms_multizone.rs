//! `zms-multizone`: ZMS (ATC'24 talk) "Challenge #1: Multi-zone Write Performance"
//! and "Performance of Writing to Multiple Zones": three concurrent writers, each writing its
//! own zone sequentially on `zms-2024` (two 384 KiB superpage buffers for the zoned LU, SLC
//! buffering of unaligned flushes), without and with IOTailor (`host.iotailor`,
//! `host/iotailor.rs`). The talk's claim: "IOTailor improves multi-zone write performance by
//! reducing SLC buffering".
//!
//! Scaling: the talk's jobs write files through F2FS ("Three concurrent Fio writing jobs, each
//! writing to its own files"); we issue the zoned writes directly, 512 KiB each (a common
//! largest bio of a UFS host, chosen: not a multiple of the 384 KiB superpage, so a buffer
//! switch finds a partial superpage), at queue depth 4 per writer (chosen); other sizes and
//! depths are a sensitivity table. One zone (138 MiB) per writer at full and paper scale (the
//! paper scale on the talk's 128 GiB device), 48 MiB each with `--quick`; the pattern repeats
//! every 1.5 MiB, so the figures do not depend on the length. The Conclusion's "by avoiding
//! unaligned buffer flushes due to buffer switching" is checked on the premature flushes.

use super::conzone_common::run;
use super::zms_common::zms_device;
use super::{pct_change, row_dir, row_info, ExpOptions, Outcome, Row, Scale};
use zonesim::config::DeviceConfig;
use zonesim::error::Result;
use zonesim::sim::Precondition;
use zonesim::stats::Report;

const SRC: &str = "ZMS, \"Performance of Writing to Multiple Zones\"";
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
fn pair(cfg: &DeviceConfig, bs_kib: u32, qd: u32, size: &str, seed: u64) -> Result<[Report; 2]> {
    let run_with = |on: bool| {
        let mut c = cfg.clone();
        c.host.iotailor = on;
        c.validate()?;
        run(&c, &job(bs_kib, qd, size), Precondition::None, ZMS_NS, seed)
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

/// The request size and queue depth per writer of the checked rows (chosen: the talk's jobs
/// write files through F2FS, whose write-back sets the device requests) and of the
/// sensitivity table.
const CHECKED: (u32, u32) = (512, 4);
const VARIANTS: [(u32, u32); 3] = [(128, 4), (512, 1), (4, 16)];

pub fn run_exp(o: &ExpOptions) -> Result<Outcome> {
    let size = if o.quick() { "48m" } else { "138m" };
    let cfg = zms_device(o.scale, 1)?;
    let (bs, qd) = CHECKED;
    let reps = pair(&cfg, bs, qd, size, o.seed)?;
    let mut rows = Vec::new();
    for (name, r) in ["without IOTailor", "with IOTailor"].iter().zip(&reps) {
        rows.extend(case_rows(name, r));
    }
    let [off, on] = &reps;
    let mut table = Vec::new();
    for (b, q) in VARIANTS {
        let [off, on] = pair(&cfg, b, q, size, o.seed)?;
        let case = format!("{b} KiB writes, QD {q} (sensitivity: request size and depth)");
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
        let slc = pct_change(slc_pages(&on), slc_pages(&off));
        let tput = pct_change(bw(&on), bw(&off));
        rows.push(
            row_dir(&case, "SLC-buffered pages change %", slc, false)
                .src(&format!(
                    "{SRC}: \"... by reducing SLC buffering\"; request size and depth not given"
                ))
                .sensitivity(),
        );
        rows.push(
            row_dir(&case, "throughput change %", tput, true)
                .src(&format!("{SRC}: \"IOTailor improves multi-zone write performance\"; request size and depth not given"))
                .sensitivity(),
        );
        table.push(format!(
            "{b} KiB QD {q}: SLC pages {slc:+.0} %, throughput {tput:+.1} %"
        ));
    }
    let table = table.join("; ");
    rows.push(
        row_dir(
            "with vs without IOTailor",
            "SLC-buffered pages change %",
            pct_change(slc_pages(on), slc_pages(off)),
            false,
        )
        .id("zms.multizone.slc-buffering")
        .src(&format!(
            "{SRC}: \"IOTailor improves multi-zone write performance by reducing SLC buffering\" ({bs} KiB writes at QD {qd} per writer, chosen; other sizes and depths: {table})"
        )),
    );
    rows.push(
        row_dir("with vs without IOTailor", "throughput change %", pct_change(bw(on), bw(off)), true)
            .id("zms.multizone.throughput")
            .src(&format!("{SRC}: \"IOTailor improves multi-zone write performance\" (the talk's chart gives no number we can read; {bs} KiB at QD {qd}, chosen; other sizes and depths: {table})")),
    );
    rows.push(
        row_dir(
            "with vs without IOTailor",
            "premature (unaligned) buffer flushes change %",
            pct_change(
                on.device.buffer.premature_flushes as f64,
                off.device.buffer.premature_flushes as f64,
            ),
            false,
        )
        .id("zms.conclusion.unaligned-flushes")
        .src("ZMS \"Conclusion\": \"IOTailor improves performance of writing to multiple zones by avoiding unaligned buffer flushes due to buffer switching\" (a premature flush is a buffer flushed before it holds a TLC program unit)"),
    );
    let dev = if o.scale == Scale::Paper {
        "the talk's 128 GiB device (938 zones, zms_common)"
    } else {
        "zms-2024 (64 zones; the talk: 128 GiB)"
    };
    Ok(Outcome {
        name: "zms-multizone".into(),
        title: "ZMS Challenge #1: three writers to their own zones, without and with IOTailor".into(),
        source: "ZMS (ATC'24 talk), \"Challenge #1\", \"Performance of Writing to Multiple Zones\" and \"Conclusion\"".into(),
        rows,
        notes: vec![
            format!("{dev}, zoned LU; three fio jobs writing zones 0, 1, 2 sequentially from empty ({size} each: one zone at full and paper scale), {bs} KiB writes at QD {qd} per job (chosen: the talk's jobs write files through F2FS, whose write-back decides the device's request sizes; the talk gives neither). Sensitivity rows: 128 KiB at QD 4, 512 KiB at QD 1, 4 KiB at QD 16."),
            "Mechanism: two 384 KiB buffers serve three zones; a 512 KiB write fills a superpage and leaves 128 KiB in the buffer, which the next zone's write evicts to SLC (an unaligned flush, later migrated: double writes). IOTailor cuts each zone's stream into 384 KiB superpage-aligned requests, so every buffer is full when it is switched.".into(),
            "IOTailor issues a partial group once it has been held host.iotailor_hold_us (1 ms) and its zone has no request in flight (with the zone write lock it could not reach the device earlier; its added delay mostly replaces the lock wait: mean host write latency falls); a QD 1 writer's partial tail can only go by the hold bound, so IOTailor helps it less and adds up to the hold per request.".into(),
        ],
    })
}
