//! The one way to run the simulator: a [`RunSpec`] (device config, workload, run options) and
//! [`execute`] (`zonesim::run`). Every front end goes through it — `zonesim run` (jobs, traces
//! and `--scenario`), `zonesim bench`, `zonesim sweep`, the experiments, the tests and Python
//! (`zonesim.run`); they only translate their arguments into a `RunSpec` and render the
//! [`Report`]. Nothing of a run is decided outside the library.
//!
//! Two lower-level entries remain, each for a caller that a `RunSpec` cannot describe:
//! [`run_device`] runs a workload on a device that already ran (a step of a multi-phase
//! experiment), and [`crate::emu::Handle`] drives one namespace one command at a time for real
//! software (the fio ioengine, the FUSE disk). All three build their report with
//! [`super::report::assemble`].
//!
//! A spec is a builder: `RunSpec::preset("conzone-paper", &[])?.fio(JOBS).namespace(1).seed(7)
//! .run()?`.

use super::{Control, Precondition, RunOptions, TraceReplay};
use crate::config::{DeviceConfig, NamespaceKind};
use crate::device::Device;
use crate::error::Result;
use crate::host::fio::{parse_job_file, JobSpec};
use crate::host::scenario::Scenario;
use crate::stats::{Provenance, Report, WorkloadProvenance};
use std::path::PathBuf;

/// The default workload of a conventional namespace (`workloads/default.fio`).
pub const DEFAULT_WORKLOAD: &str = include_str!("../../../../workloads/default.fio");
/// The default workload of a zoned namespace (`workloads/default-zoned.fio`).
pub const DEFAULT_ZONED_WORKLOAD: &str = include_str!("../../../../workloads/default-zoned.fio");

/// Where the requests of a run come from.
#[derive(Debug, Clone, Default)]
pub enum WorkloadSpec {
    /// The default workload of the target namespace's kind (workloads/default.fio on a
    /// conventional namespace, workloads/default-zoned.fio on a zoned one).
    #[default]
    Default,
    /// An fio job file.
    FioFile(PathBuf),
    /// The text of an fio job file; `name` stands for it in messages and the summary.
    FioText { text: String, name: String },
    /// Jobs already parsed (or built in code).
    Jobs(Vec<JobSpec>),
    /// A block trace to replay.
    Trace(TraceReplay),
    /// An aging scenario file (docs/fs.md), run on the host file system.
    ScenarioFile(PathBuf),
    /// An aging scenario already parsed.
    Scenario(Scenario),
}

/// A workload resolved: parsed and ready to build sources from.
pub(crate) enum Workload {
    Jobs(Vec<JobSpec>),
    Trace(TraceReplay),
    Scenario(Scenario),
}

impl WorkloadSpec {
    /// The text of an fio job file, named "experiment" in messages.
    pub fn fio(text: &str) -> WorkloadSpec {
        WorkloadSpec::FioText {
            text: text.to_string(),
            name: "experiment".into(),
        }
    }

    /// The workload, parsed, and what to call it (`fio PATH`, `trace PATH`, `scenario PATH`);
    /// `zoned`: whether the run's namespace is zoned (it picks the default workload).
    pub(super) fn resolve(&self, zoned: bool) -> Result<(Workload, String)> {
        let (text, name) = match self {
            WorkloadSpec::Trace(t) => {
                let name = format!("trace {}", t.path.display());
                return Ok((Workload::Trace(t.clone()), name));
            }
            WorkloadSpec::Jobs(jobs) => return Ok((Workload::Jobs(jobs.clone()), "jobs".into())),
            WorkloadSpec::Scenario(sc) => {
                let name = format!("scenario {}", sc.name);
                return Ok((Workload::Scenario(sc.clone()), name));
            }
            WorkloadSpec::ScenarioFile(p) => {
                let text = crate::error::read_text_file(p)?;
                let sc = Scenario::parse(&text, &p.display().to_string())?;
                return Ok((Workload::Scenario(sc), p.display().to_string()));
            }
            WorkloadSpec::FioFile(p) => (crate::error::read_text_file(p)?, p.display().to_string()),
            WorkloadSpec::FioText { text, name } => (text.clone(), name.clone()),
            WorkloadSpec::Default if zoned => (
                DEFAULT_ZONED_WORKLOAD.to_string(),
                "workloads/default-zoned.fio".into(),
            ),
            WorkloadSpec::Default => (DEFAULT_WORKLOAD.to_string(), "workloads/default.fio".into()),
        };
        let jobs = parse_job_file(&text, &name)?;
        Ok((Workload::Jobs(jobs), format!("fio {name}")))
    }
}

/// Everything a run needs: the device, the workload and how to run it.
#[derive(Debug, Clone)]
pub struct RunSpec {
    pub device: DeviceConfig,
    pub workload: WorkloadSpec,
    pub options: RunOptions,
}

impl RunSpec {
    /// A run of `workload` on `device` with the default options (seed 1, no preconditioning,
    /// namespace 0).
    pub fn new(device: DeviceConfig, workload: WorkloadSpec) -> RunSpec {
        RunSpec {
            device,
            workload,
            options: RunOptions::default(),
        }
    }

    /// The default workload on a device loaded and checked as `--device SPEC --set KEY=VALUE`
    /// would load it ([`crate::load_device`]).
    pub fn preset(spec: &str, sets: &[String]) -> Result<RunSpec> {
        Ok(RunSpec::new(
            crate::load_device(spec, sets)?,
            WorkloadSpec::Default,
        ))
    }

    /// The same run with another workload.
    pub fn workload(mut self, w: WorkloadSpec) -> RunSpec {
        self.workload = w;
        self
    }

    /// The same run with the fio job file `text` as its workload.
    pub fn fio(self, text: &str) -> RunSpec {
        self.workload(WorkloadSpec::fio(text))
    }

    /// The same run with other options.
    pub fn options(mut self, o: RunOptions) -> RunSpec {
        self.options = o;
        self
    }

    pub fn seed(mut self, seed: u64) -> RunSpec {
        self.options.seed = seed;
        self
    }

    pub fn precondition(mut self, p: Precondition) -> RunSpec {
        self.options.precondition = p;
        self
    }

    /// The namespace the workload and the preconditioning target.
    pub fn namespace(mut self, ns: usize) -> RunSpec {
        self.options.namespace = ns;
        self
    }

    pub fn check_invariants(mut self, on: bool) -> RunSpec {
        self.options.check_invariants = on;
        self
    }

    /// The workload, parsed, and what to call it (`fio PATH`, `trace PATH`, `scenario PATH`).
    pub fn resolve_workload(&self) -> Result<(WorkloadSpec, String)> {
        let (w, name) = self.workload.resolve(self.zoned_target())?;
        let spec = match w {
            Workload::Jobs(j) => WorkloadSpec::Jobs(j),
            Workload::Trace(t) => WorkloadSpec::Trace(t),
            Workload::Scenario(s) => WorkloadSpec::Scenario(s),
        };
        Ok((spec, name))
    }

    /// Whether the run's namespace is zoned.
    fn zoned_target(&self) -> bool {
        self.device
            .namespaces
            .get(self.options.namespace)
            .is_some_and(|n| n.kind == NamespaceKind::Zoned)
    }

    /// [`execute`] without a progress observer or stop flag.
    pub fn run(&self) -> Result<Report> {
        execute(self, &mut Control::none())
    }
}

/// Run `spec`: resolve its workload, build the device, simulate, report. `ctl` observes
/// progress and may stop the run.
pub fn execute(spec: &RunSpec, ctl: &mut Control) -> Result<Report> {
    let (workload, name) = spec.workload.resolve(spec.zoned_target())?;
    let o = &spec.options;
    let provenance = provenance(&spec.device, &spec.workload, &workload, name, o);
    let mut dev = Device::new(&spec.device, o.seed)?;
    let mut report = super::run_resolved(&mut dev, None, &workload, o, ctl)?;
    report.provenance = Some(provenance);
    Ok(report)
}

/// The provenance of a run of `spec` (resolved: `workload`, called `name`) on `device`.
pub(super) fn provenance(
    device: &DeviceConfig,
    spec: &WorkloadSpec,
    workload: &Workload,
    name: String,
    o: &RunOptions,
) -> Provenance {
    Provenance::new(
        device,
        spec.provenance(workload, name),
        o.seed,
        o.precondition.name().to_string(),
        o.namespace,
    )
}

impl WorkloadSpec {
    /// The workload as the report's provenance records it (`workload`: this spec resolved,
    /// `name`: what the summary calls it).
    fn provenance(&self, workload: &Workload, name: String) -> WorkloadProvenance {
        let fio_name = name.strip_prefix("fio ").unwrap_or(&name).to_string();
        match (self, workload) {
            (_, Workload::Trace(t)) => WorkloadProvenance::trace(&t.path),
            (WorkloadSpec::ScenarioFile(p), _) => WorkloadProvenance::Scenario {
                name: p.display().to_string(),
                text: crate::error::read_text_file(p).unwrap_or_default(),
            },
            (_, Workload::Scenario(sc)) => WorkloadProvenance::Other {
                name: format!("scenario {}", sc.name),
            },
            (WorkloadSpec::FioFile(p), _) => WorkloadProvenance::Fio {
                name: fio_name,
                text: crate::error::read_text_file(p).unwrap_or_default(),
            },
            (WorkloadSpec::FioText { text, .. }, _) => WorkloadProvenance::Fio {
                name: fio_name,
                text: text.clone(),
            },
            (WorkloadSpec::Default, _) => WorkloadProvenance::Fio {
                name: fio_name,
                text: if self.default_is_zoned(&name) {
                    DEFAULT_ZONED_WORKLOAD
                } else {
                    DEFAULT_WORKLOAD
                }
                .to_string(),
            },
            (_, Workload::Jobs(jobs)) => WorkloadProvenance::Jobs {
                names: jobs.iter().map(|j| j.name.clone()).collect(),
            },
        }
    }

    fn default_is_zoned(&self, name: &str) -> bool {
        name.contains("default-zoned")
    }
}

/// Run `workload` on an existing device, after what it already ran: it starts when the
/// device's last run ended. Counters are reset first, so the report covers this run only.
/// The step-wise entry for multi-phase experiments; a fresh device is [`execute`]'s.
pub fn run_device(
    dev: &mut Device,
    workload: &WorkloadSpec,
    opts: &RunOptions,
    ctl: &mut Control,
) -> Result<Report> {
    let zoned = dev
        .cfg
        .namespaces
        .get(opts.namespace)
        .is_some_and(|n| n.kind == NamespaceKind::Zoned);
    let (resolved, name) = workload.resolve(zoned)?;
    let provenance = provenance(&dev.cfg, workload, &resolved, name, opts);
    let mut report = super::run_resolved(dev, None, &resolved, opts, ctl)?;
    report.provenance = Some(provenance);
    Ok(report)
}
