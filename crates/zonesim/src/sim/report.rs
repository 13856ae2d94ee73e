//! The one place a [`Report`] is built. Each driver of a device — the event engine (jobs,
//! traces), the scenario runner and the emulation handle — fills a [`RunRecord`] with what
//! only it knows (its requests, its clock, its optional sections) and calls [`assemble`], which
//! reads the device, the firmware and the host file system. A new report section is one field
//! here with its `Default`, not a line in every driver.

use super::fs::FsHost;
use crate::device::Device;
use crate::engine::SimTime;
use crate::host::hostfs::HostFs;
use crate::host::iotailor::TailorCounters;
use crate::host::order::OrderCounters;
use crate::host::sched::DispatchCounters;
use crate::stats::emulation::EmulationReport;
use crate::stats::fs::{FsReport, FsSection, ScenarioReport};
use crate::stats::fs_ext4::Ext4Report;
use crate::stats::power::PowerReport;
use crate::stats::report::{
    HostCpuReport, HostReport, JobCdf, JobReport, PreconditionReport, SimReport, TraceReport,
};
use crate::stats::{Report, TimeSeries};

/// What a driver knows of its run, for [`assemble`]. `Default` is a run that did nothing and
/// has no optional section.
pub struct RunRecord {
    pub seed: u64,
    /// Simulated start and end of the measured run.
    pub start: SimTime,
    pub end: SimTime,
    /// Wall time of the whole run (with preconditioning) and of the measured phase.
    pub wall_s: f64,
    pub measure_wall_s: f64,
    /// CPU time of the simulating thread in the measured phase (None: not measured).
    pub measure_cpu_s: Option<f64>,
    pub events: u64,
    pub issued: u64,
    pub completed: u64,
    /// Every request of the run, and per host queue (`host.queues`).
    pub host: HostReport,
    pub jobs: Vec<JobReport>,
    pub latency_cdfs: Vec<JobCdf>,
    pub precondition: PreconditionReport,
    pub trace: Option<TraceReport>,
    pub timeseries: Option<TimeSeries>,
    pub emulation: Option<EmulationReport>,
    pub scenario: Option<ScenarioReport>,
    /// The last `sysbench` step of a scenario.
    pub app: Option<crate::stats::app::AppReport>,
    pub ordering: Option<OrderCounters>,
    pub iotailor: Option<TailorCounters>,
    pub dispatch: Option<DispatchCounters>,
    /// The run was ended early on request (`Control::finish`, Ctrl-C): the report covers what
    /// ran until then.
    pub interrupted: bool,
    /// The host CPU model (`host.cpu.cores` > 0).
    pub host_cpu: Option<HostCpuReport>,
    /// Power cut, recovery, states and energy (a run with a power option).
    pub power: Option<PowerReport>,
    /// Requests in flight when power was cut (None: no cut).
    pub cut: Option<u64>,
}

impl Default for RunRecord {
    fn default() -> Self {
        RunRecord {
            seed: 0,
            start: SimTime::ZERO,
            end: SimTime::ZERO,
            wall_s: 0.0,
            measure_wall_s: 0.0,
            measure_cpu_s: None,
            events: 0,
            issued: 0,
            completed: 0,
            host: HostReport::default(),
            jobs: Vec::new(),
            latency_cdfs: Vec::new(),
            precondition: PreconditionReport {
                mode: "none".into(),
                ..PreconditionReport::default()
            },
            trace: None,
            timeseries: None,
            emulation: None,
            scenario: None,
            app: None,
            ordering: None,
            iotailor: None,
            dispatch: None,
            interrupted: false,
            host_cpu: None,
            power: None,
            cut: None,
        }
    }
}

/// The report of a run on `dev` (and its host file system `fs`, if mounted).
pub fn assemble(dev: &Device, fs: Option<&FsHost>, r: RunRecord) -> Report {
    let firmware = dev.firmware_report(r.host.window_ns);
    let device = dev.report();
    let fs = fs.map(|h| match &h.fs {
        HostFs::F2fs(f) => FsSection::F2fs(FsReport::new(f, h.meta_ns, h.main_ns, &device)),
        HostFs::Ext4(f) => FsSection::Ext4(Ext4Report::new(f, h.main_ns, &device)),
    });
    Report {
        zonesim_version: env!("CARGO_PKG_VERSION"),
        provenance: None,
        interrupted: r.interrupted,
        host: r.host,
        jobs: r.jobs,
        end_to_end_waf: fs.as_ref().map(|f| f.end_to_end_waf()),
        fs,
        scenario: r.scenario,
        app: r.app,
        power: r.power,
        host_cpu: r.host_cpu,
        device,
        precondition: r.precondition,
        sim: SimReport {
            seed: r.seed,
            simulated_ns: r.end.since(r.start),
            total_simulated_ns: r.end.ns(),
            wall_s: r.wall_s,
            measure_wall_s: r.measure_wall_s,
            events: r.events,
            requests_issued: r.issued,
            requests_completed: r.completed,
            requests_cut: r.cut,
            requests_per_wall_s: r.completed as f64 / r.measure_wall_s.max(1e-9),
            measure_cpu_s: r.measure_cpu_s,
            ordering: r.ordering,
            iotailor: r.iotailor,
            dispatch: r.dispatch,
        },
        trace: r.trace,
        firmware,
        emulation: r.emulation,
        timeseries: r.timeseries,
        latency_cdfs: r.latency_cdfs,
    }
}
