use super::device::DeviceReport;
use super::{IoStats, OpStats};
use crate::host::trace::TraceFormat;
use serde::{Serialize, Serializer};

/// Latency summary in microseconds.
#[derive(Debug, Clone, Serialize, Default)]
pub struct LatencyReport {
    pub mean: f64,
    pub min: f64,
    pub p50: f64,
    pub p99: f64,
    pub p999: f64,
    pub max: f64,
}

/// One direction's summary.
#[derive(Debug, Clone, Serialize, Default)]
pub struct OpReport {
    pub ios: u64,
    pub bytes: u64,
    pub iops: f64,
    pub bandwidth_mib_s: f64,
    pub latency_us: LatencyReport,
}

impl OpReport {
    pub fn from_stats(s: &OpStats, window_ns: u64) -> OpReport {
        let secs = (window_ns as f64 / 1e9).max(1e-12);
        let us = |v: u64| v as f64 / 1000.0;
        let latency_us = match &s.hist {
            None => LatencyReport::default(),
            Some(h) => LatencyReport {
                mean: h.mean() / 1000.0,
                min: us(h.min()),
                p50: us(h.value_at_quantile(0.50)),
                p99: us(h.value_at_quantile(0.99)),
                p999: us(h.value_at_quantile(0.999)),
                max: us(h.max()),
            },
        };
        OpReport {
            ios: s.ios,
            bytes: s.bytes,
            iops: if window_ns == 0 {
                0.0
            } else {
                s.ios as f64 / secs
            },
            bandwidth_mib_s: if window_ns == 0 {
                0.0
            } else {
                s.bytes as f64 / 1048576.0 / secs
            },
            latency_us,
        }
    }
}

/// Host-side summary of a set of requests (per job or total).
#[derive(Debug, Clone, Serialize, Default)]
pub struct HostReport {
    pub read: OpReport,
    pub write: OpReport,
    pub trim: OpReport,
    pub flush: OpReport,
    pub zone_mgmt: OpReport,
    /// Window the rates are computed over: first issue to last completion (ns).
    pub window_ns: u64,
    /// `host.queues.N`: the requests of host queue N (with `host.queues` set).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub queues: Vec<HostReport>,
}

impl HostReport {
    pub fn from_stats(s: &IoStats) -> HostReport {
        let window_ns = s
            .first_issue
            .map(|f| s.last_completion.since(f))
            .unwrap_or(0);
        HostReport {
            read: OpReport::from_stats(&s.read, window_ns),
            write: OpReport::from_stats(&s.write, window_ns),
            trim: OpReport::from_stats(&s.trim, window_ns),
            flush: OpReport::from_stats(&s.flush, window_ns),
            zone_mgmt: OpReport::from_stats(&s.zone_mgmt, window_ns),
            window_ns,
            queues: Vec::new(),
        }
    }
}

/// The whole JSON report. Schema: docs/report.md.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub zonesim_version: &'static str,
    /// What produced the report: version, commit, command, resolved device, workload, seed,
    /// preconditioning, start time (runs of a `RunSpec`; absent for the lower-level entries).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provenance: Option<super::Provenance>,
    /// The run was ended early (Ctrl-C in `zonesim run`): the report covers the requests
    /// issued until then, each completed; false for a run that ran to its end.
    pub interrupted: bool,
    pub host: HostReport,
    pub jobs: Vec<JobReport>,
    #[serde(serialize_with = "sorted_keys")]
    pub device: DeviceReport,
    pub precondition: PreconditionReport,
    pub sim: SimReport,
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "sorted_keys"
    )]
    pub trace: Option<TraceReport>,
    /// The multi-core firmware model and the data cache (absent when both are off).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub firmware: Option<super::firmware::FirmwareReport>,
    /// A device driven by real software (fio ioengine, FUSE disk) only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub emulation: Option<super::emulation::EmulationReport>,
    /// Sampled per simulated interval when `stats.interval_ms` > 0 (absent otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeseries: Option<super::TimeSeries>,
    /// The host file system (`--fs`), docs/fs.md.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fs: Option<super::fs::FsSection>,
    /// Flash programs / user data bytes of the file system (= `fs.waf` × `device.waf`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end_to_end_waf: Option<f64>,
    /// The host CPU model (`host.cpu.cores` > 0): busy per core, time per step class.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host_cpu: Option<HostCpuReport>,
    /// An aging scenario's per-iteration records (`zonesim run --scenario`), docs/fs.md.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scenario: Option<super::fs::ScenarioReport>,
    /// An application model's results (`sysbench` scenario steps), docs/innodb.md.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub app: Option<super::app::AppReport>,
    /// Power cut, recovery, power states and energy (docs/power.md): only in runs with a
    /// power option.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub power: Option<super::power::PowerReport>,
    /// Latency distribution of each job and direction (not in the JSON report; the Python
    /// package's `Result.latency_cdf`).
    #[serde(skip)]
    pub latency_cdfs: Vec<JobCdf>,
}

/// One job's latency distribution in one direction: (latency us, fraction at or below).
#[derive(Debug, Clone)]
pub struct JobCdf {
    pub job: String,
    pub op: &'static str,
    pub points: Vec<(f64, f64)>,
    /// The exact distribution: statistics and the histogram's buckets.
    pub hist: LatencyHist,
}

/// A latency distribution in ns, exact to the histogram's resolution (3 significant digits):
/// fio's `clat_ns` statistics and its json+ `bins` come from it (`zonesim run --output-format
/// fio-json`).
#[derive(Debug, Clone, Default)]
pub struct LatencyHist {
    pub n: u64,
    pub min_ns: u64,
    pub max_ns: u64,
    pub mean_ns: f64,
    pub stddev_ns: f64,
    /// (the bucket's highest equivalent latency in ns, requests in it), ascending, non-empty
    /// buckets only.
    pub bins: Vec<(u64, u64)>,
}

impl LatencyHist {
    /// The latency at percentile `p` (0..=100): the smallest bucket value with at least `p` %
    /// of the requests at or below it (fio's rule).
    pub fn percentile(&self, p: f64) -> u64 {
        let want = ((p / 100.0) * self.n as f64).ceil().max(1.0) as u64;
        let mut seen = 0;
        for &(v, c) in &self.bins {
            seen += c;
            if seen >= want {
                return v;
            }
        }
        self.max_ns
    }
}

/// `device` and `trace` with their keys sorted at every level, as they were written when they
/// were JSON maps before they were typed: `--json` output stays byte-identical, whatever the
/// declaration order of the structs and of the counters they embed.
fn sorted_keys<T: Serialize, S: Serializer>(v: &T, s: S) -> Result<S::Ok, S::Error> {
    serde_json::to_value(v)
        .map_err(serde::ser::Error::custom)?
        .serialize(s)
}

/// Fields of `sim` that measure the host's clock rather than the simulation.
pub const WALL_CLOCK_FIELDS: [&str; 3] = ["wall_s", "measure_wall_s", "requests_per_wall_s"];

/// CPU time this thread has used, seconds (0 where the clock is unavailable). On a shared,
/// noisy machine the CPU time of a run varies far less than its wall time.
pub fn thread_cpu_s() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes the timespec it is given and nothing else.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    if rc != 0 {
        return 0.0;
    }
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

/// A JSON report without its wall-clock fields: equal for equal inputs and seed.
pub fn without_wall_clock(mut report: serde_json::Value) -> serde_json::Value {
    if let Some(sim) = report.get_mut("sim").and_then(|s| s.as_object_mut()) {
        for k in WALL_CLOCK_FIELDS {
            sim.remove(k);
        }
    }
    if let Some(p) = report.get_mut("provenance").and_then(|s| s.as_object_mut()) {
        for k in PROVENANCE_WALL_CLOCK_FIELDS {
            p.remove(k);
        }
    }
    report
}

/// Fields of `provenance` that read the host's clock.
pub const PROVENANCE_WALL_CLOCK_FIELDS: [&str; 1] = ["started_at"];

impl Report {
    /// The headline metrics of a run, one number each (a sweep's columns, docs/python.md):
    /// IOPS, MiB/s and mean/p99 latency (us) per direction, WAF, GC pages moved and victims,
    /// block erases, simulated seconds.
    pub fn headline(&self) -> Vec<(&'static str, f64)> {
        let (r, w) = (&self.host.read, &self.host.write);
        let d = &self.device;
        let values = [
            r.iops,
            r.bandwidth_mib_s,
            r.latency_us.mean,
            r.latency_us.p99,
            w.iops,
            w.bandwidth_mib_s,
            w.latency_us.mean,
            w.latency_us.p99,
            d.waf,
            d.gc.pages_moved as f64,
            d.gc.victims as f64,
            d.flash.block_erases as f64,
            self.sim.simulated_ns as f64 / 1e9,
        ];
        Self::headline_names().iter().copied().zip(values).collect()
    }

    /// The names of [`Report::headline`]'s metrics, in order.
    pub fn headline_names() -> &'static [&'static str; 13] {
        &[
            "read_iops",
            "read_mib_s",
            "read_mean_us",
            "read_p99_us",
            "write_iops",
            "write_mib_s",
            "write_mean_us",
            "write_p99_us",
            "waf",
            "gc_pages_moved",
            "gc_victims",
            "block_erases",
            "simulated_s",
        ]
    }

    /// The report as JSON without its wall-clock fields (see [`without_wall_clock`]).
    pub fn deterministic_json(&self) -> serde_json::Value {
        without_wall_clock(serde_json::to_value(self).expect("report serialises"))
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct JobReport {
    pub name: String,
    pub namespace: usize,
    /// fio `prioclass` / `prio` of the job, when it set either (host/sched.rs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub priority: Option<JobPriority>,
    #[serde(flatten)]
    pub host: HostReport,
    /// Mean host and device time per request (`host.cpu.cores` > 0 only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub latency_breakdown: Option<LatencyBreakdown>,
}

/// `jobs[i].latency_breakdown`: where a job's mean latency went (host CPU model on).
#[derive(Debug, Clone, Copy, Serialize, Default)]
pub struct LatencyBreakdown {
    /// Mean per request of the host's time: submission and completion paths on the host
    /// cores, waiting for a core included (µs).
    pub host_us: f64,
    /// Mean per request from the end of the submission path to the device's completion: the
    /// host path's stages (queues, zone locks, tags) and the device (µs).
    pub device_us: f64,
}

/// `host_cpu`: the host CPU model (`host.cpu.cores` > 0), docs/host-cpu.md.
#[derive(Debug, Clone, Serialize)]
pub struct HostCpuReport {
    pub cores: u32,
    /// Fraction of the measured window each core was busy, by core (big cores first).
    pub busy: Vec<f64>,
    /// CPU time spent in each step class over the run (ns); sums to the cores' busy time.
    pub time_ns: std::collections::BTreeMap<&'static str, u64>,
    /// The window `busy` is a fraction of: the measured run's simulated time (ns).
    pub window_ns: u64,
}

/// `jobs[i].priority`: the job's I/O priority as the host scheduler used it.
#[derive(Debug, Clone, Serialize)]
pub struct JobPriority {
    /// fio `prioclass` as given (0-3).
    pub prioclass: u8,
    /// `realtime`, `best-effort`, `idle` or `none` (= best-effort).
    pub class: &'static str,
    /// fio `prio` (0-7), or Linux's default level 4 when unset.
    pub prio: u8,
    /// Scheduling rank, lower dispatched first (RT 0-7, BE 8-15, idle 16).
    pub rank: usize,
}

impl JobPriority {
    /// The report of `p`, or None for a job that set neither option.
    pub fn of(p: crate::host::sched::IoPrio) -> Option<JobPriority> {
        (p != crate::host::sched::IoPrio::default()).then(|| JobPriority {
            prioclass: p.class,
            class: p.class_name(),
            prio: p.level.unwrap_or(crate::host::sched::LEVEL_NORM),
            rank: p.rank(),
        })
    }
}

#[derive(Debug, Clone, Serialize, Default)]
pub struct PreconditionReport {
    pub mode: String,
    /// WAF of the preconditioning pass itself.
    pub waf: f64,
    pub host_pages_written: u64,
    pub simulated_ns: u64,
}

#[derive(Debug, Clone, Serialize, Default)]
pub struct SimReport {
    pub seed: u64,
    /// Simulated time of the measured run (after preconditioning), ns.
    pub simulated_ns: u64,
    /// Simulated time including preconditioning, ns.
    pub total_simulated_ns: u64,
    /// Wall time of the whole run, including preconditioning.
    pub wall_s: f64,
    /// Wall time of the measured phase only.
    pub measure_wall_s: f64,
    pub events: u64,
    pub requests_issued: u64,
    pub requests_completed: u64,
    /// Requests issued but never completed: in flight when power was cut (absent without a
    /// cut). Every other request completes once: issued = completed + cut.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub requests_cut: Option<u64>,
    /// Host requests completed per wall-clock second of the measured phase (the simulator's
    /// speed).
    pub requests_per_wall_s: f64,
    /// CPU time of the simulating thread in the measured phase (None for emulation, whose
    /// requests arrive on several threads). Not in the JSON report, whose host-clock fields
    /// are the `wall` ones: `zonesim bench` prints it.
    #[serde(skip)]
    pub measure_cpu_s: Option<f64>,
    /// Host dispatch of zoned writes (host/order.rs): only when a zoned namespace's writes
    /// were requeued or waited for a zone write lock.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ordering: Option<crate::host::order::OrderCounters>,
    /// IOTailor's per-zone request reshaping (host/iotailor.rs): only with `host.iotailor`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub iotailor: Option<crate::host::iotailor::TailorCounters>,
    /// The host scheduler in front of the device's tags (`host.device_tags` > 0,
    /// host/sched.rs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dispatch: Option<crate::host::sched::DispatchCounters>,
}

impl SimReport {
    /// Host requests completed per CPU second of the measured phase: the simulator's speed as
    /// a noisy machine measures it best (`zonesim bench`; not in the JSON report).
    pub fn requests_per_cpu_s(&self) -> Option<f64> {
        self.measure_cpu_s
            .map(|s| self.requests_completed as f64 / s.max(1e-9))
    }
}

/// `trace`: what a trace replay read and replayed (trace replay only).
#[derive(Debug, Clone, Serialize)]
pub struct TraceReport {
    pub file: String,
    pub format: TraceFormat,
    /// Requests replayed.
    pub requests: u64,
    pub reads: u64,
    pub writes: u64,
    pub trims: u64,
    pub flushes: u64,
    /// Requests beyond capacity folded modulo the capacity.
    pub folded: u64,
    /// Requests beyond capacity dropped (`--no-fold`).
    pub rejected: u64,
    /// Well-formed lines that are not requests.
    pub skipped: u64,
    pub lines: u64,
    pub fold: bool,
    pub mode: TraceMode,
}

/// `trace.mode`: `{"timed": {"time_scale": ..}}` or `{"as_fast_as_possible": {"qd": ..}}`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TraceMode {
    Timed { time_scale: f64 },
    AsFastAsPossible { qd: u32 },
}
