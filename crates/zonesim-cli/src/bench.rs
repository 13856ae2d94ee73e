//! `zonesim bench`: the standard speed cases (README "Speed", docs/validation.md). Prints simulated
//! host requests completed per wall-clock second and per CPU second of the measured phase (the
//! latter varies less on a busy machine) and the process's peak memory. Compare numbers from one
//! run on one machine; the machine may be noisy.

use anyhow::Result;
use std::time::Instant;
use zonesim::host::fio::{default_job, RwMode, SizeSpec};
use zonesim::sim::{Precondition, ReplayMode, RunOptions, TraceReplay};
use zonesim::{RunSpec, WorkloadSpec};

#[derive(clap::Args)]
pub struct BenchArgs {
    /// Requests per case, 1..=100000000 (the trace case uses 5x this many lines: 10 M by
    /// default).
    #[arg(long, default_value_t = 2_000_000, value_parser = clap::value_parser!(u64).range(1..=100_000_000))]
    pub ios: u64,
    /// Run only the case of this name, or else the cases whose name contains this.
    #[arg(long)]
    pub only: Option<String>,
    /// Print a markdown table (the README's speed table is pasted from it).
    #[arg(long)]
    pub markdown: bool,
}

/// Peak resident memory of this process (VmHWM), bytes; 0 where /proc is unavailable.
pub fn peak_rss_bytes() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse::<u64>().ok())
        })
        .map(|kib| kib * 1024)
        .unwrap_or(0)
}

fn job(rw: RwMode, ios: u64, depth: u32) -> WorkloadSpec {
    let mut j = default_job();
    j.name = "bench".into();
    j.rw = rw;
    j.bs = 4096;
    j.iodepth = depth;
    j.io_size = Some(SizeSpec::Bytes(ios * 4096));
    WorkloadSpec::Jobs(vec![j])
}

/// Requests of `randwrite-4k-empty` at most: 8 GiB of 4 KiB writes, half the 16 GiB device, so
/// no GC runs whatever `--ios` asks.
const EMPTY_WRITE_LIMIT: u64 = 2 * 1024 * 1024;

/// The device overrides of the two mcmq cases (the same device, the core model off and on).
const MCMQ_OFF: &[&str] = &[
    "nand.blocks_per_plane=64",
    "host.queues=8",
    "cache.bytes=67108864",
    "firmware.model=off",
];
const MCMQ_CORES: &[&str] = &[
    "nand.blocks_per_plane=64",
    "host.queues=8",
    "cache.bytes=67108864",
    "firmware.model=cores",
    "firmware.workers=8",
];

/// Eight uniform 8 KiB random read/write jobs, `ios` requests in all.
fn mcmq_jobs(ios: u64) -> Result<WorkloadSpec> {
    fio(&format!(
        "[m]\nrw=randrw\nbs=8k\niodepth=4\nnumjobs=8\nnorandommap\nnumber_ios={}\n",
        (ios / 8).max(1)
    ))
}

struct Case {
    name: &'static str,
    what: &'static str,
    /// Device preset and namespace.
    device: &'static str,
    namespace: usize,
    pre: Precondition,
    workload: WorkloadSpec,
    /// Device overrides (`--set`), e.g. the host file system.
    sets: &'static [&'static str],
    /// What a floor case leaves out, checked on its report: a floor that did the work it
    /// claims to leave out would measure nothing.
    floor: Floor,
}

/// The work a floor case leaves out of the case above it.
#[derive(Clone, Copy, PartialEq)]
enum Floor {
    /// A normal case.
    No,
    /// No flash read at all (map pages included).
    NoFlashRead,
    /// No garbage collection.
    NoGc,
}

impl Floor {
    /// The claim `r` breaks, if any.
    fn broken_by(self, r: &zonesim::stats::Report) -> Option<&'static str> {
        match self {
            Floor::NoFlashRead if r.device.flash.page_reads > 0 => Some("no flash read"),
            Floor::NoGc if r.device.gc.victims > 0 => Some("no GC"),
            _ => None,
        }
    }
}

/// A fio job file as a workload (the zoned cases use `zonemode=zbd`).
fn fio(text: &str) -> Result<WorkloadSpec> {
    Ok(WorkloadSpec::Jobs(zonesim::host::fio::parse_job_file(
        text,
        "bench.fio",
    )?))
}

pub fn run(a: BenchArgs) -> Result<()> {
    let tmp = std::env::temp_dir().join(format!("zonesim-bench-{}.trace", std::process::id()));
    let trace_lines = a.ios * 5;
    let mut cases = vec![
        Case {
            name: "randread-4k",
            what: "4 KiB uniform random reads, 16 GiB device, after seq precondition, QD 32",
            device: "ufs-conventional",
            namespace: 0,
            pre: Precondition::Seq,
            workload: job(RwMode::RandRead, a.ios, 32),
            sets: &[],
            floor: Floor::No,
        },
        Case {
            name: "randread-4k-unwritten",
            what: "the same reads on an empty device: every page is unwritten, so no map or flash read (the host, engine and FTL lookup alone: the floor under randread-4k)",
            device: "ufs-conventional",
            namespace: 0,
            pre: Precondition::None,
            workload: job(RwMode::RandRead, a.ios, 32),
            sets: &[],
            floor: Floor::NoFlashRead,
        },
        Case {
            name: "randwrite-4k-steady",
            what:
                "4 KiB uniform random writes in GC steady state (after steady precondition), QD 32",
            device: "ufs-conventional",
            namespace: 0,
            pre: Precondition::Steady,
            workload: job(RwMode::RandWrite, a.ios, 32),
            sets: &[],
            floor: Floor::No,
        },
        Case {
            name: "randwrite-4k-empty",
            what: "4 KiB uniform random writes on an empty device, at most half its capacity (no GC: the floor under randwrite-4k-steady), QD 32",
            device: "ufs-conventional",
            namespace: 0,
            pre: Precondition::None,
            workload: job(RwMode::RandWrite, a.ios.min(EMPTY_WRITE_LIMIT), 32),
            sets: &[],
            floor: Floor::NoGc,
        },
        Case {
            name: "trace-disksim-afap",
            what: "DiskSim trace (MQSim-like sizes, 70% reads) parse + replay as fast as possible after seq precondition, QD 32",
            device: "ufs-conventional",
            namespace: 0,
            pre: Precondition::Seq,
            workload: WorkloadSpec::Trace(TraceReplay::new(
                &tmp,
                ReplayMode::AsFastAsPossible { qd: 32 },
            )),
            sets: &[],
            floor: Floor::No,
        },
        Case {
            name: "zoned-randread-4k",
            what: "conzone-paper zoned namespace (hybrid map), 4 KiB random reads after seq precondition, QD 32",
            device: "conzone-paper",
            namespace: 1,
            pre: Precondition::Seq,
            workload: fio(&format!(
                "[r]\nrw=randread\nbs=4k\niodepth=32\nzonemode=zbd\nnumber_ios={}\ntime_based\nruntime=1h\n",
                a.ios
            ))?,
            sets: &[],
            floor: Floor::No,
        },
        Case {
            name: "zoned-randwrite-4k",
            what: "conzone-paper zoned namespace, 4 KiB zbd random writes over 6 open zones (premature flushes to SLC), QD 32",
            device: "conzone-paper",
            namespace: 1,
            pre: Precondition::None,
            workload: fio(&format!(
                "[w]\nrw=randwrite\nbs=4k\niodepth=32\nzonemode=zbd\nmax_open_zones=6\nnumber_ios={}\ntime_based\nruntime=1h\n",
                a.ios
            ))?,
            sets: &[],
            floor: Floor::No,
        },
        Case {
            name: "fs-randwrite-4k",
            what: "F2FS model (--fs f2fs) on the 16 GiB device: 4 KiB buffered random writes over 8 x 64 MiB files, fsync every 32 (each a device flush), QD 1 (user writes per wall s)",
            device: "ufs-conventional",
            namespace: 0,
            pre: Precondition::None,
            workload: fio(&format!(
                "[w]\nrw=randwrite\nbs=4k\ndirectory=/data\nnrfiles=8\nfilesize=64m\nnorandommap\nfsync=32\nnumber_ios={}\ntime_based\nruntime=1h\n",
                a.ios
            ))?,
            sets: &["fs.kind=f2fs"],
            floor: Floor::No,
        },
        Case {
            name: "mcmq-randrw-8k-off",
            what: "mcmq-2022 preset (64 blocks/plane), 8 KiB random 50/50 read/write, 8 jobs on 8 host queues, QD 4 each, 64 MiB data cache, firmware.model = off (the baseline of mcmq-randrw-8k-cores)",
            device: "mcmq-2022",
            namespace: 0,
            pre: Precondition::Seq,
            workload: mcmq_jobs(a.ios)?,
            sets: MCMQ_OFF,
            floor: Floor::No,
        },
        Case {
            name: "mcmq-randrw-8k-cores",
            what: "the same with firmware.model = cores (HIL, TSU, completion and 8 worker cores, locks, mailboxes; docs/firmware.md): its speed over mcmq-randrw-8k-off is the cost of the core model",
            device: "mcmq-2022",
            namespace: 0,
            pre: Precondition::Seq,
            workload: mcmq_jobs(a.ios)?,
            sets: MCMQ_CORES,
            floor: Floor::No,
        },
    ];
    if let Some(o) = &a.only {
        let exact = cases.iter().any(|c| c.name == o.as_str());
        cases.retain(|c| c.name == o.as_str() || (!exact && c.name.contains(o.as_str())));
    }
    if cases.iter().any(|c| c.name.starts_with("trace")) {
        zonesim::host::trace::write_synthetic_disksim(&tmp, trace_lines, 7)?;
    }
    if a.markdown {
        println!("| case | requests | wall s | requests/s | requests/CPU s | peak MiB | what |");
        println!("|---|---:|---:|---:|---:|---:|---|");
    } else {
        println!(
            "{:<22} {:>12} {:>10} {:>14} {:>14} {:>12}  what",
            "case", "requests", "wall s", "requests/s", "requests/CPU s", "peak MiB"
        );
    }
    for c in cases {
        let sets: Vec<String> = c.sets.iter().map(|s| s.to_string()).collect();
        let cfg = zonesim::load_device(c.device, &sets)?;
        let opts = RunOptions {
            seed: 1,
            precondition: c.pre,
            namespace: c.namespace,
            check_invariants: false,
        };
        let t = Instant::now();
        let r = RunSpec::new(cfg.clone(), c.workload.clone())
            .options(opts.clone())
            .run()?;
        let total = t.elapsed().as_secs_f64();
        if let Some(claim) = c.floor.broken_by(&r) {
            anyhow::bail!(
                "bench case {}: its report breaks the floor's rule ({claim})",
                c.name
            );
        }
        if a.markdown {
            println!(
                "| {} | {} | {:.3} | {:.0} | {:.0} | {:.1} | {} (incl. precondition: {:.1} s) |",
                c.name,
                r.sim.requests_completed,
                r.sim.measure_wall_s,
                r.sim.requests_per_wall_s,
                r.sim.requests_per_cpu_s().unwrap_or(0.0),
                peak_rss_bytes() as f64 / 1048576.0,
                c.what,
                total
            );
            continue;
        }
        println!(
            "{:<22} {:>12} {:>10.3} {:>14.0} {:>14.0} {:>12.1}  {} (incl. precondition: {:.1} s)",
            c.name,
            r.sim.requests_completed,
            r.sim.measure_wall_s,
            r.sim.requests_per_wall_s,
            r.sim.requests_per_cpu_s().unwrap_or(0.0),
            peak_rss_bytes() as f64 / 1048576.0,
            c.what,
            total
        );
    }
    let _ = std::fs::remove_file(&tmp);
    let cfg = zonesim::load_device("ufs-conventional", &[])?;
    let capacity = zonesim::device::Device::new(&cfg, 1)?.capacity_bytes(0);
    if a.markdown {
        println!();
    }
    println!(
        "conventional cases: {} ({} logical 4 KiB pages); peak memory is cumulative over the cases",
        cfg.name,
        capacity / 4096
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 1,000 requests of `rw` on a 2.8 GiB version of the bench device (64 blocks per plane)
    /// after `pre`.
    fn small_run(rw: RwMode, pre: Precondition) -> zonesim::stats::Report {
        let cfg = zonesim::load_device("ufs-conventional", &["nand.blocks_per_plane=64".into()])
            .expect("preset");
        let opts = RunOptions {
            seed: 1,
            precondition: pre,
            namespace: 0,
            check_invariants: true,
        };
        RunSpec::new(cfg.clone(), job(rw, 1_000, 32))
            .options(opts.clone())
            .run()
            .expect("runs")
    }

    #[test]
    fn a_floor_that_does_the_work_it_leaves_out_is_refused() {
        let empty = small_run(RwMode::RandRead, Precondition::None);
        assert_eq!(Floor::NoFlashRead.broken_by(&empty), None);
        let written = small_run(RwMode::RandRead, Precondition::Seq);
        assert_eq!(
            Floor::NoFlashRead.broken_by(&written),
            Some("no flash read")
        );
        assert_eq!(Floor::No.broken_by(&written), None);
        let fresh = small_run(RwMode::RandWrite, Precondition::None);
        assert_eq!(Floor::NoGc.broken_by(&fresh), None);
        let steady = small_run(RwMode::RandWrite, Precondition::Steady);
        assert_eq!(Floor::NoGc.broken_by(&steady), Some("no GC"));
    }
}
