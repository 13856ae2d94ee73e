//! Shared setup of the `mcmq-*` reproductions (MCMQ §IV, MCMQ DATE'22): the `mcmq-2022` preset
//! (MLC, 8 channels, Table I latencies) with the multi-core firmware model, fio flows (one job,
//! one host queue and one FTL worker per flow), and the statistics the figures need.
//!
//! Scales ([`Dims`]): at paper scale the device is the paper's ("we simulate an MLC SSD with a
//! capacity of 512GB and 8 flash channels", §IV-A: 8,192 blocks per plane of the preset's
//! geometry), its data cache the 512 MiB of MCMQ's sample configuration (the preset), and each
//! namespace 1/32 of the flash it spans, as MCMQ's host sizes them (docs/firmware.md "What
//! MCMQ's code does"; the paper gives no namespace size): 16 GiB over all channels. The paper
//! gives no run length: each flow issues as many requests as the cache has pages (twice that
//! for the write-only flows of Fig. 7), so that the cache fills and turns over. Full and quick
//! are the same device with fewer blocks per plane (1/8, and 1/16 to 1/128), the namespaces,
//! the cache and the run length scaled with it: the same dies and channels, the same shares of
//! cache to namespace and of run to cache, so the same regime at a fraction of the cost. As in
//! MCMQ's code, every namespace's whole map is cached (its mapping cache is sized per namespace
//! and holds all of a 1/32-size namespace): the L2P SRAM is grown to the namespaces' maps.

use super::Scale;
use zonesim::config::{DeviceConfig, NamespaceConfig, NamespaceKind};
use zonesim::error::Result;
use zonesim::host::fio::parse_job_file;
use zonesim::sim::{Precondition, RunOptions, WorkloadSpec};
use zonesim::stats::Report;

/// Seed 004 §IV-C, the workload of Figs. 5-7.
pub const SRC_WORKLOAD: &str = "MCMQ §IV-C: \"The I/O threads generate requests to each logical page in the LPA space with equal probability. The size of each I/O request is set to 8KB.\"";

/// Core clock of the firmware cores: MCMQ's harts are QEMU-TCG RISC-V cores, which do about
/// 200-400 MHz of useful work; 250 MHz is a calibration without a paper number (the paper
/// gives neither a clock nor a figure value to fit it to; docs/firmware.md, "Core clock and
/// lock hand-off"). It decides which resource saturates, so the experiments print sensitivity
/// rows at [`CORE_MHZ_SWEEP`].
pub const CORE_MHZ: f64 = 250.0;
pub const CORE_MHZ_SWEEP: [f64; 2] = [500.0, 1000.0];
/// The wording of the calibration, for the rows that depend on it.
pub const CORE_MHZ_WHY: &str = "firmware.core_mhz = 250 is a calibration without a paper number (QEMU-TCG harts do about 200-400 MHz of work; the paper states no clock)";

/// The sizes of a run at one scale.
#[derive(Debug, Clone, Copy)]
pub struct Dims {
    /// The paper's device divided by this (1, 8, 128).
    pub div: u64,
    /// Blocks per plane of the device (8 ch x 2 dies x 2 planes, 256 pages of 8 KiB).
    pub blocks_per_plane: u32,
    /// The shared namespace (one over all channels, 1/32 of the device), MiB.
    pub ns_mib: u64,
    /// The data cache, MiB.
    pub cache_mib: u64,
}

impl Dims {
    /// The sizes at `scale`; the quick form divides the paper's device by `quick_div`.
    pub fn of(scale: Scale, quick_div: u64) -> Dims {
        let div = match scale {
            Scale::Paper => 1,
            Scale::Full => 8,
            Scale::Quick => quick_div,
        };
        Dims {
            div,
            blocks_per_plane: (8192 / div) as u32,
            ns_mib: (16 << 10) / div,
            cache_mib: 512 / div,
        }
    }

    /// Device capacity, GiB (fractions rounded down).
    pub fn device_gib(&self) -> u64 {
        // 8 channels x 2 dies x 2 planes x 256 pages x 8 KiB.
        (self.blocks_per_plane as u64 * 32 * 256 * 8192) >> 30
    }

    /// Requests per flow: the cache's pages (8 KiB) times `turns`.
    pub fn ios(&self, turns: u64) -> u64 {
        turns * (self.cache_mib << 20) / 8192
    }
}

/// The mcmq-2022 device with the cores model on, `flows` host queues and FTL workers,
/// namespaces of `ns_mib` MiB (on the channel lists given; an empty list: one namespace),
/// the scale's device size and data cache, and the cores' clock `mhz`.
pub fn device(
    flows: u32,
    model: &str,
    namespaces: &[(u64, Vec<u32>)],
    dims: Dims,
    mhz: f64,
) -> Result<DeviceConfig> {
    let sets: Vec<String> = vec![
        format!("firmware.model={model}"),
        format!("firmware.workers={flows}"),
        format!("firmware.core_mhz={mhz}"),
        format!("host.queues={flows}"),
        format!("cache.bytes={}", dims.cache_mib << 20),
        format!("nand.blocks_per_plane={}", dims.blocks_per_plane),
    ];
    let mut cfg = zonesim::load_device("mcmq-2022", &sets)?;
    // The map of every namespace cached (4 B per 4 KiB page), as MCMQ's runs had it.
    let mapped: u64 = namespaces.iter().map(|(mib, _)| (mib << 20) / 1024).sum();
    cfg.ftl.l2p_cache_bytes = cfg.ftl.l2p_cache_bytes.max(mapped);
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
/// likely at each request, as MCMQ §IV-C), `ios` each; flow k on namespace
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
