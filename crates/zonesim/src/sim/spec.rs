//! The library's "run this device with these options" facade: a [`RunSpec`] (device config,
//! workload, run options) and [`execute`], the one function the CLI's `zonesim run`, the Python
//! bindings (`zonesim.run`) and any other front end (a fio ioengine) call. Front ends only
//! translate their arguments into a `RunSpec` and render the [`Report`]; nothing of the run is
//! decided outside the library.

use super::{run_with, Control, RunOptions, TraceReplay, Workload};
use crate::config::{DeviceConfig, NamespaceKind};
use crate::error::Result;
use crate::host::fio::parse_job_file;
use crate::stats::Report;
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
    /// A block trace to replay.
    Trace(TraceReplay),
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

    /// The workload, parsed, and what to call it (`fio PATH`, `trace PATH`).
    pub fn resolve_workload(&self) -> Result<(Workload, String)> {
        let (text, name) = match &self.workload {
            WorkloadSpec::Trace(t) => {
                let name = format!("trace {}", t.path.display());
                return Ok((Workload::Trace(t.clone()), name));
            }
            WorkloadSpec::FioFile(p) => (crate::error::read_text_file(p)?, p.display().to_string()),
            WorkloadSpec::FioText { text, name } => (text.clone(), name.clone()),
            WorkloadSpec::Default => {
                let zoned = self
                    .device
                    .namespaces
                    .get(self.options.namespace)
                    .is_some_and(|n| n.kind == NamespaceKind::Zoned);
                if zoned {
                    (
                        DEFAULT_ZONED_WORKLOAD.to_string(),
                        "workloads/default-zoned.fio".into(),
                    )
                } else {
                    (DEFAULT_WORKLOAD.to_string(), "workloads/default.fio".into())
                }
            }
        };
        let jobs = parse_job_file(&text, &name)?;
        Ok((Workload::Jobs(jobs), format!("fio {name}")))
    }
}

/// Run `spec`: resolve its workload, build the device, simulate, report. `ctl` observes
/// progress and may stop the run.
pub fn execute(spec: &RunSpec, ctl: &mut Control) -> Result<Report> {
    let (workload, _) = spec.resolve_workload()?;
    run_with(&spec.device, &workload, &spec.options, ctl)
}
