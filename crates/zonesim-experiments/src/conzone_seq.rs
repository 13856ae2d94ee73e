//! `conzone-seq`: ConZone+ §6.2 "The Accuracy of ConZone+", Fig. 8: 512 KiB sequential writes
//! and reads, 1 thread (ST) and 4 threads (MT), zoned device (`conzone-paper` namespace 1) vs a
//! block device of the same hardware (namespace 1 conventional, page mapped, with the 768 KiB of
//! zone-buffer SRAM as its global write buffer).
//!
//! The paper prints no bandwidths in the text; it states that (a) zoned and block write
//! bandwidth match ZMS and a Pixel 6 (printed, not compared: no number), and (b) MT reads reach
//! "nearly twice" ST on the zoned device and "roughly" double on the block device (checked as
//! ratios). The paper attributes (b) on its emulator to host CPU effects; the runs are on the
//! host CPU as ConZone+ had it (`conzone_common::with_host_cpu`: 18 cores, Linux 6.12.16, each
//! fio thread on them), and the ratio still comes from die parallelism (one thread at QD 1
//! keeps one die busy at a time); sensitivity rows run the host CPU off.
//!
//! Scale: the paper gives no size per thread; `paper` / `full` write and read 8 zones' worth
//! (384 MiB) per thread on the 4 GiB device, `quick` 2.

use super::conzone_common::{device, run, with_host_cpu, ZONED_NS};
use super::{row_info, row_range, ExpOptions, Outcome};
use zonesim::config::{DeviceConfig, NamespaceConfig, NamespaceKind};
use zonesim::error::Result;
use zonesim::sim::Precondition;

/// Write then read `per_thread` zones' worth per thread with `threads` threads on device `d`
/// (0 zoned, 1 block) of `cfg`: (write MiB/s, read MiB/s, mean host µs per read request).
fn measure(
    cfg: &DeviceConfig,
    d: usize,
    threads: u32,
    per_thread: u32,
    seed: u64,
) -> Result<[f64; 3]> {
    let zb = if d == 0 { "zonemode=zbd\n" } else { "" };
    // Each thread its own region of `per_thread` zones' worth (48 MiB each).
    let region = |k: u32| {
        if d == 0 {
            (format!("{}z", k * per_thread), format!("{per_thread}z"))
        } else {
            (
                format!("{}m", k * per_thread * 48),
                format!("{}m", per_thread * 48),
            )
        }
    };
    let mut text = String::new();
    for k in 0..threads {
        let (off, size) = region(k);
        text += &format!("[w{k}]\nrw=write\nbs=512k\niodepth=1\n{zb}offset={off}\nsize={size}\n");
    }
    for k in 0..threads {
        let (off, size) = region(k);
        let sw = if k == 0 { "stonewall\n" } else { "" };
        text +=
            &format!("[r{k}]\n{sw}rw=read\nbs=512k\niodepth=1\n{zb}offset={off}\nsize={size}\n");
    }
    let r = run(cfg, &text, Precondition::None, ZONED_NS, seed)?;
    let n = threads as usize;
    let w = r.jobs[..n]
        .iter()
        .map(|j| j.host.write.bandwidth_mib_s)
        .sum();
    let rd = r.jobs[n..]
        .iter()
        .map(|j| j.host.read.bandwidth_mib_s)
        .sum();
    let host = r.jobs[n..]
        .iter()
        .map(|j| j.latency_breakdown.map_or(0.0, |b| b.host_us))
        .sum::<f64>()
        / n as f64;
    Ok([w, rd, host])
}

pub fn run_exp(o: &ExpOptions) -> Result<Outcome> {
    let zoned = device(&[])?;
    let mut block = zoned.clone();
    block.name = "conzone-paper-block".into();
    block.namespaces[1] = NamespaceConfig {
        kind: NamespaceKind::Conventional,
        capacity_bytes: 0,
        zones: 0,
        slc_only: false,
        channels: Vec::new(),
    };
    block.buffer.bytes = 2 * zoned.buffer.bytes_each;
    block.validate()?;
    let per_thread = if o.quick() { 2 } else { 8 };
    let mut rows = Vec::new();
    // [host CPU on, off][zoned, block][ST, MT] read MiB/s.
    let mut read_bw = [[[0.0; 2]; 2]; 2];
    for (h, on) in [true, false].into_iter().enumerate() {
        for (d, (name, base)) in [("zoned", &zoned), ("block", &block)].iter().enumerate() {
            let mut cfg = (*base).clone();
            if on {
                with_host_cpu(&mut cfg)?;
            }
            for (t, threads) in [1u32, 4].iter().enumerate() {
                let [w, rd, host] = measure(&cfg, d, *threads, per_thread, o.seed)?;
                read_bw[h][d][t] = rd;
                let th = if *threads == 1 { "ST" } else { "MT" };
                if !on {
                    let case = format!("{name} {th}, host CPU off (sensitivity)");
                    rows.push(row_info(&case, "read MiB/s", rd).sensitivity());
                    continue;
                }
                let wrow = row_info(&format!("{name} {th}"), "write MiB/s", w);
                rows.push(match (d, t) {
                    (0, 0) => wrow.id("conzone.fig8.zoned-write").src("ConZone+ §6.2 Fig. 8: zoned writes \"closely aligned\" with ZMS, ST and MT (no number in the text)"),
                    (1, 0) => wrow.id("conzone.fig8.block-write").src("ConZone+ §6.2 Fig. 8: block writes \"closely aligned\" with the Pixel 6, ST and MT (no number in the text)"),
                    _ => wrow,
                });
                rows.push(row_info(&format!("{name} {th}"), "read MiB/s", rd));
                rows.push(row_info(
                    &format!("{name} {th}"),
                    "read host us / request",
                    host,
                ));
            }
        }
    }
    for (d, name) in ["zoned", "block"].iter().enumerate() {
        let off = read_bw[1][d];
        rows.push(
            row_info(
                &format!("{name} MT / ST, host CPU off (sensitivity)"),
                "read bandwidth ratio",
                off[1] / off[0],
            )
            .sensitivity(),
        );
    }
    let read_bw = read_bw[0];
    let mut zr = row_range(
        "zoned MT / ST",
        "read bandwidth ratio",
        read_bw[0][1] / read_bw[0][0],
        2.0,
        1.75,
        2.0,
    );
    zr.tolerance = format!(
        "{} (\"nearly twice\": under 2, within 25 % of the doubling)",
        zr.tolerance
    );
    rows.push(zr.id("conzone.fig8.zoned-mt-read").src("ConZone+ §6.2 Fig. 8: \"in ConZone - Zoned Device, the read bandwidth in the MT case is nearly twice that of the ST case\" (the paper's cause is host CPU, ours die parallelism)"));
    let mut br = row_range(
        "block MT / ST",
        "read bandwidth ratio",
        read_bw[1][1] / read_bw[1][0],
        2.0,
        1.75,
        2.25,
    );
    br.tolerance = format!(
        "{} (\"roughly doubling\": +-25 % of the doubling)",
        br.tolerance
    );
    rows.push(br.id("conzone.fig8.block-mt-read").src("ConZone+ §6.2 Fig. 8: the Pixel 6 \"mirrors that of both ConZone - Zoned Device and ConZone - Block Device, with the bandwidth roughly doubling as the thread count increases\""));
    Ok(Outcome {
        name: "conzone-seq".into(),
        title: "512 KiB sequential write and read, 1 and 4 threads, zoned vs block device".into(),
        source: "ConZone+ §6.2 Fig. 8 (no bandwidths in the text; MT reads nearly 2x ST on the zoned device, roughly 2x on the block device)".into(),
        rows,
        notes: vec![
            format!("each thread writes then reads {per_thread} x 48 MiB at QD 1; per-thread bandwidths summed"),
            "MT / ST read ratios: 'nearly twice' read as [1.75, 2.0], 'roughly doubling' as [1.75, 2.25] (+-25 % of the doubling). The paper attributes its zoned 2x to host CPU single- vs multi-core speed; on the host CPU model (18 cores of the paper's Xeons, [host.cpu] kernel steps per request, host.overhead_us lowered by them) a 512 KiB read spends a few us on the host beside hundreds on the device, so ours is die parallelism (4 threads keep 4 dies busy); the host CPU off changes the ratios little (sensitivity rows).".into(),
            "Zoned writes: each 512 KiB request overflows the 384 KiB buffer; with 4 threads, 4 zones share 2 buffers and conflict (premature flushes to SLC).".into(),
        ],
    })
}
