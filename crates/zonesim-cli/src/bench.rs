//! `zonesim bench`: the standard speed cases (README "Speed", docs/validation.md). Prints simulated
//! host requests completed per wall-clock second and per CPU second of the measured phase (the
//! latter varies less on a busy machine) and each case's peak memory. Compare numbers from one
//! run on one machine; the machine may be noisy.
//!
//! Peak memory is per case: when more than one case is selected, each runs in a child process
//! of this binary (`bench --only NAME --row`), whose peak resident size (VmHWM) is its own,
//! precondition included. One selected case runs in this process, so profilers that follow one
//! process (callgrind) see the simulation.
//!
//! `--against OTHER` compares this build with another, case by case (`bench_against.rs`).

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
    /// Print only the case's row, no header or footer (how a case runs in its own process).
    #[arg(long, hide = true, conflicts_with = "against")]
    pub row: bool,
    /// Compare with another zonesim build (its path): every selected case runs with both
    /// binaries, each in its own process, taking turns to go first, and the table gives both
    /// builds' requests per CPU second and their ratios.
    #[arg(long, value_name = "ZONESIM")]
    pub against: Option<std::path::PathBuf>,
    /// Rounds of `--against`, 1..=100.
    #[arg(long, default_value_t = 3, requires = "against", value_parser = clap::value_parser!(u32).range(1..=100))]
    pub rounds: u32,
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

/// The consumer device of the map-miss cases: the mcmq-2022 geometry (16 GiB of MLC, 8 KiB
/// pages, 32 dies) with a 1 MiB L2P cache (128 of its 2,048 map pages), no data cache, and one
/// read and one program time for every page (so builds that predate per-page-type timing run
/// the same simulation: README "Speed").
const MAPMISS: &[&str] = &[
    "cache.bytes=0",
    "ftl.l2p_cache_bytes=1048576",
    "nand.timing.mlc.read_us_by_page=[]",
    "nand.timing.mlc.program_us_by_page=[]",
];

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
    /// `--precondition` value.
    pre: &'static str,
    workload: WorkloadSpec,
    /// Device overrides (`--set`), e.g. the host file system.
    sets: &'static [&'static str],
    /// What a floor case leaves out, checked on its report: a floor that did the work it
    /// claims to leave out would measure nothing.
    floor: Floor,
}

impl Case {
    /// The device and precondition of the case.
    fn setup(&self) -> Result<(zonesim::config::DeviceConfig, Precondition)> {
        let sets: Vec<String> = self.sets.iter().map(|s| s.to_string()).collect();
        let cfg = zonesim::load_device(self.device, &sets)?;
        Ok((cfg, self.pre.parse::<Precondition>()?))
    }
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
            pre: "seq",
            workload: job(RwMode::RandRead, a.ios, 32),
            sets: &[],
            floor: Floor::No,
        },
        Case {
            name: "randread-4k-unwritten",
            what: "the same reads on an empty device: every page is unwritten, so no map or flash read (the host, engine and FTL lookup alone: the floor under randread-4k)",
            device: "ufs-conventional",
            namespace: 0,
            pre: "none",
            workload: job(RwMode::RandRead, a.ios, 32),
            sets: &[],
            floor: Floor::NoFlashRead,
        },
        Case {
            name: "randread-4k-aged",
            what: "randread-4k with the flash models of docs/nand.md on (nand.variability: a drawn latency per operation; nand.errors: an RBER, ECC and read-retry decision per read): its speed over randread-4k is their cost",
            device: "ufs-conventional",
            namespace: 0,
            pre: "seq",
            workload: job(RwMode::RandRead, a.ios, 32),
            sets: &["nand.variability=true", "nand.errors=true"],
            floor: Floor::No,
        },
        Case {
            name: "randwrite-4k-steady",
            what:
                "4 KiB uniform random writes in GC steady state (after steady precondition), QD 32",
            device: "ufs-conventional",
            namespace: 0,
            pre: "steady",
            workload: job(RwMode::RandWrite, a.ios, 32),
            sets: &[],
            floor: Floor::No,
        },
        Case {
            name: "randwrite-4k-empty",
            what: "4 KiB uniform random writes on an empty device, at most half its capacity (no GC: the floor under randwrite-4k-steady), QD 32",
            device: "ufs-conventional",
            namespace: 0,
            pre: "none",
            workload: job(RwMode::RandWrite, a.ios.min(EMPTY_WRITE_LIMIT), 32),
            sets: &[],
            floor: Floor::NoGc,
        },
        Case {
            name: "randwrite-4k-mapmiss-steady",
            what: "16 GiB MLC consumer device (mcmq-2022 geometry, 32 dies) with a 1 MiB L2P cache: 4 KiB uniform random writes in GC steady state (after steady precondition), most evicting a dirty map page (WAF about 13), QD 32",
            device: "mcmq-2022",
            namespace: 0,
            pre: "steady",
            workload: job(RwMode::RandWrite, a.ios, 32),
            sets: MAPMISS,
            floor: Floor::No,
        },
        Case {
            name: "randread-4k-mapmiss",
            what: "the same device: 4 KiB uniform random reads after seq precondition, about 94 % of them missing the L2P cache (a map-page read, then the data read), QD 32",
            device: "mcmq-2022",
            namespace: 0,
            pre: "seq",
            workload: job(RwMode::RandRead, a.ios, 32),
            sets: MAPMISS,
            floor: Floor::No,
        },
        Case {
            name: "trace-disksim-afap",
            what: "DiskSim trace (MQSim-like sizes, 70% reads) parse + replay as fast as possible after seq precondition, QD 32",
            device: "ufs-conventional",
            namespace: 0,
            pre: "seq",
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
            pre: "seq",
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
            pre: "none",
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
            pre: "none",
            workload: fio(&format!(
                "[w]\nrw=randwrite\nbs=4k\ndirectory=/data\nnrfiles=8\nfilesize=64m\nnorandommap\nfsync=32\nnumber_ios={}\ntime_based\nruntime=1h\n",
                a.ios
            ))?,
            sets: &["fs.kind=f2fs"],
            floor: Floor::No,
        },
        Case {
            name: "fs-zoned-randwrite-4k",
            what: "F2FS model on the conzone-paper zoned namespace (sections = zones, LFS, zoned GC; metadata on namespace 0): the job of fs-randwrite-4k, QD 1 (user writes per wall s)",
            device: "conzone-paper",
            namespace: 1,
            pre: "none",
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
            pre: "seq",
            workload: mcmq_jobs(a.ios)?,
            sets: MCMQ_OFF,
            floor: Floor::No,
        },
        Case {
            name: "mcmq-randrw-8k-cores",
            what: "the same with firmware.model = cores (HIL, TSU, completion and 8 worker cores, locks, mailboxes; docs/firmware.md): its speed over mcmq-randrw-8k-off is the cost of the core model",
            device: "mcmq-2022",
            namespace: 0,
            pre: "seq",
            workload: mcmq_jobs(a.ios)?,
            sets: MCMQ_CORES,
            floor: Floor::No,
        },
        Case {
            name: "randwrite-4k-1tb",
            what: "1 TB MLC device (supgc-cosmos: SUP-GC's Cosmos+ geometry, 64 dies) brought to GC steady state by steady-fast, then 4 KiB uniform random writes, QD 32",
            device: "supgc-cosmos",
            namespace: 0,
            pre: "steady-fast",
            workload: job(RwMode::RandWrite, a.ios, 32),
            sets: &[],
            floor: Floor::No,
        },
    ];
    if let Some(o) = &a.only {
        let exact = cases.iter().any(|c| c.name == o.as_str());
        cases.retain(|c| c.name == o.as_str() || (!exact && c.name.contains(o.as_str())));
        if cases.is_empty() {
            return Err(zonesim::Error::Usage(format!("bench --only {o}: no such case")).into());
        }
    }
    if let Some(other) = &a.against {
        let names: Vec<&str> = cases.iter().map(|c| c.name).collect();
        return super::bench_against::run(&a, &names, other);
    }
    if cases.len() == 1 {
        let c = cases.pop().expect("one case");
        let setup = c.setup()?;
        if !a.row {
            header(a.markdown);
        }
        if c.name.starts_with("trace") {
            zonesim::host::trace::write_synthetic_disksim(&tmp, trace_lines, 7)?;
        }
        let row = run_case(&c, setup, a.markdown);
        let _ = std::fs::remove_file(&tmp);
        println!("{}", row?);
    } else {
        if !a.row {
            header(a.markdown);
        }
        let exe = std::env::current_exe()?;
        for c in &cases {
            print!("{}", run_child(&exe, &a, c.name, a.markdown)?);
        }
    }
    if !a.row {
        footer(a.markdown)?;
    }
    Ok(())
}

fn header(markdown: bool) {
    if markdown {
        println!("| case | requests | wall s | requests/s | requests/CPU s | peak MiB | what |");
        println!("|---|---:|---:|---:|---:|---:|---|");
    } else {
        println!(
            "{:<28} {:>12} {:>10} {:>14} {:>14} {:>12}  what",
            "case", "requests", "wall s", "requests/s", "requests/CPU s", "peak MiB"
        );
    }
}

fn footer(markdown: bool) -> Result<()> {
    let cfg = zonesim::load_device("ufs-conventional", &[])?;
    let capacity = zonesim::device::Device::new(&cfg, 1)?.capacity_bytes(0);
    if markdown {
        println!();
    }
    println!(
        "conventional cases without a device named: {} ({} logical 4 KiB pages); peak memory is per case (its own process, precondition included)",
        cfg.name,
        capacity / 4096
    );
    Ok(())
}

/// Run case `name` in a child process of `exe` (this binary, or the other build of
/// `--against`); its row as printed.
pub(crate) fn run_child(
    exe: &std::path::Path,
    a: &BenchArgs,
    name: &str,
    markdown: bool,
) -> Result<String> {
    let mut cmd = std::process::Command::new(exe);
    cmd.args([
        "bench",
        "--row",
        "--only",
        name,
        "--ios",
        &a.ios.to_string(),
    ]);
    if markdown {
        cmd.arg("--markdown");
    }
    let out = cmd.stderr(std::process::Stdio::inherit()).output()?;
    if !out.status.success() {
        anyhow::bail!("bench case {name} failed ({})", out.status);
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Run one case in this process; its row.
fn run_case(
    c: &Case,
    (cfg, precondition): (zonesim::config::DeviceConfig, Precondition),
    markdown: bool,
) -> Result<String> {
    let opts = RunOptions {
        seed: 1,
        precondition,
        namespace: c.namespace,
        check_invariants: false,
        power_off: None,
    };
    let t = Instant::now();
    let r = RunSpec::new(cfg, c.workload.clone()).options(opts).run()?;
    let total = t.elapsed().as_secs_f64();
    if let Some(claim) = c.floor.broken_by(&r) {
        anyhow::bail!(
            "bench case {}: its report breaks the floor's rule ({claim})",
            c.name
        );
    }
    let peak = peak_rss_bytes() as f64 / 1048576.0;
    let s = &r.sim;
    let cpu = s.requests_per_cpu_s().unwrap_or(0.0);
    Ok(if markdown {
        format!(
            "| {} | {} | {:.3} | {:.0} | {:.0} | {:.1} | {} (incl. precondition: {:.1} s) |",
            c.name,
            s.requests_completed,
            s.measure_wall_s,
            s.requests_per_wall_s,
            cpu,
            peak,
            c.what,
            total
        )
    } else {
        format!(
            "{:<28} {:>12} {:>10.3} {:>14.0} {:>14.0} {:>12.1}  {} (incl. precondition: {:.1} s)",
            c.name,
            s.requests_completed,
            s.measure_wall_s,
            s.requests_per_wall_s,
            cpu,
            peak,
            c.what,
            total
        )
    })
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
            power_off: None,
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
