//! Shared setup of the `mcmq-*` reproductions (seed 004 §IV, MCMQ DATE'22): the `mcmq-2022` preset
//! (MLC, 8 channels, Table I latencies, 1/32 scale) with the multi-core firmware model, fio flows
//! (one job, one host queue and one FTL worker per flow), and the statistics the figures need.

use zonesim::config::{DeviceConfig, NamespaceConfig, NamespaceKind};
use zonesim::error::Result;
use zonesim::host::fio::parse_job_file;
use zonesim::sim::{Precondition, RunOptions, WorkloadSpec};
use zonesim::stats::Report;

/// Seed 004 §IV-C, the workload of Figs. 5-7.
pub const SRC_WORKLOAD: &str = "seed 004 §IV-C: \"The I/O threads generate requests to each logical page in the LPA space with equal probability. The size of each I/O request is set to 8KB.\"";

/// Core clock of the firmware cores: MCMQ's harts are QEMU-TCG RISC-V cores, which do about
/// 200-400 MHz of useful work; 250 MHz is the calibration point (docs/firmware.md, "Core clock
/// and lock hand-off").
pub const CORE_MHZ: f64 = 250.0;

/// The mcmq-2022 device with the cores model on, `flows` host queues and FTL workers,
/// namespaces of `ns_mib` MiB (on the channel lists given; an empty list: one namespace),
/// a data cache of `cache_mib` MiB, and `sets` overrides.
pub fn device(
    flows: u32,
    model: &str,
    namespaces: &[(u64, Vec<u32>)],
    cache_mib: u64,
) -> Result<DeviceConfig> {
    let sets: Vec<String> = vec![
        format!("firmware.model={model}"),
        format!("firmware.workers={flows}"),
        format!("firmware.core_mhz={CORE_MHZ}"),
        format!("host.queues={flows}"),
        format!("cache.bytes={}", cache_mib << 20),
        // Small: the flows' LPA space is the namespaces (MCMQ's host sizes them 1/32).
        "nand.blocks_per_plane=64".into(),
    ];
    let mut cfg = zonesim::load_device("mcmq-2022", &sets)?;
    cfg.namespaces = namespaces
        .iter()
        .map(|(mib, channels)| NamespaceConfig {
            kind: NamespaceKind::Conventional,
            capacity_bytes: mib << 20,
            zones: 0,
            slc_only: false,
            channels: channels.clone(),
        })
        .collect();
    cfg.validate()?;
    Ok(cfg)
}

/// `flows` fio jobs of uniform random 8 KiB `rw` at QD 1 (`norandommap`: every page equally
/// likely at each request, as seed 004 §IV-C), `ios` each; flow k on namespace
/// `ns_of(k)`.
pub fn flows(rw: &str, flows: u32, ios: u64, ns_of: impl Fn(u32) -> usize) -> Result<WorkloadSpec> {
    let mut text = String::new();
    for k in 0..flows {
        text.push_str(&format!(
            "[flow{k}]\nrw={rw}\nbs=8k\niodepth=1\nnorandommap=1\nnumber_ios={ios}\nnamespace={}\n",
            ns_of(k)
        ));
    }
    Ok(WorkloadSpec::Jobs(parse_job_file(&text, "mcmq-flows")?))
}

pub fn run(cfg: &DeviceConfig, w: &WorkloadSpec, pre: Precondition, seed: u64) -> Result<Report> {
    let opts = RunOptions {
        seed,
        precondition: pre,
        check_invariants: false,
        ..RunOptions::default()
    };
    zonesim::RunSpec::new(cfg.clone(), w.clone())
        .options(opts.clone())
        .run()
}

/// Requests per second of all flows (reads and writes).
pub fn total_iops(r: &Report) -> f64 {
    r.host.read.iops + r.host.write.iops
}

/// Mean end-to-end latency over reads and writes (µs).
pub fn mean_latency_us(r: &Report) -> f64 {
    let (rd, wr) = (&r.host.read, &r.host.write);
    let n = (rd.ios + wr.ios).max(1) as f64;
    (rd.latency_us.mean * rd.ios as f64 + wr.latency_us.mean * wr.ios as f64) / n
}

/// The busiest firmware resource: the core or single lock (plane-allocator locks are
/// reported together, so they are left out) held the largest share of the window.
pub fn saturating(r: &Report) -> (String, f64) {
    let Some(fw) = &r.firmware else {
        return ("flash (no firmware model)".into(), 0.0);
    };
    let window = r.host.window_ns.max(1) as f64 / 1000.0;
    let cores = fw
        .cores
        .iter()
        .map(|(n, c)| (format!("core {n} ({})", c.role), c.busy_share));
    let locks = fw
        .locks
        .iter()
        .filter(|(n, _)| *n != "plane_alloc")
        .map(|(n, l)| {
            (
                format!("lock {n}"),
                l.hold_mean_us * l.acquisitions as f64 / window,
            )
        });
    cores
        .chain(locks)
        .fold(("none".into(), 0.0), |a, b| if b.1 > a.1 { b } else { a })
}
