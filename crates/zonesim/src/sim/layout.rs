//! A file layout shared by runs: the host file system made on a fresh device (mkfs, the mount
//! of `[fs]`) and the files of a fio workload laid out on it once, as fio does before its jobs
//! start (with `create_serialize`, every file before any job: fio's HOWTO, "create_serialize");
//! each run then starts from an exact copy of that state. Experiments that run many workloads
//! from the same start (different write ratios or distributions over the same files) lay out
//! once instead of once per run.
//!
//! The copy is the whole state — device (map, flash, wear, controller, RNG draws) and file
//! system — so a run from a layout gives the same report as a run from a layout made afresh
//! with the same device, seed and files (tests: `tests/layout.rs`).

use super::fs::{self, FsHost};
use super::spec::{Workload, WorkloadSpec};
use super::{run_resolved, source, Control, RunOptions};
use crate::config::{DeviceConfig, NamespaceKind};
use crate::device::Device;
use crate::error::{Error, Result};
use crate::stats::Report;

/// A device with its file system made and a workload's files laid out.
#[derive(Clone)]
pub struct Layout {
    dev: Device,
    fs: FsHost,
    /// The run options the layout was made with (seed, namespace).
    seed: u64,
    namespace: usize,
}

impl Layout {
    /// Make `[fs]` on a fresh `cfg` device and lay out the files of `workload`'s fio jobs:
    /// each job's files created and those it reads written whole (fio's layout), in job
    /// order, each with an fsync, the commands submitted one job after another. `opts` gives
    /// the seed and the namespace; the device is not preconditioned (mkfs starts it).
    pub fn new(cfg: &DeviceConfig, workload: &WorkloadSpec, opts: &RunOptions) -> Result<Layout> {
        let Some(fs_cfg) = &cfg.fs else {
            return Err(Error::config(
                "fs",
                "a shared file layout is made by a host file system: the device has no [fs]",
            ));
        };
        let mut dev = Device::new(cfg, opts.seed)?;
        dev.check_namespace(opts.namespace)?;
        let mut host = fs::mount(&fs_cfg.clone(), &dev, opts.namespace)?;
        // mkfs's writes first, then each job's files.
        let start = dev.clock;
        let mut now = host.submit(&mut dev, start);
        let zoned = cfg
            .namespaces
            .get(opts.namespace)
            .is_some_and(|n| n.kind == NamespaceKind::Zoned);
        let (resolved, _) = workload.resolve(zoned)?;
        for mut s in source::build(&resolved, &dev, opts.namespace, opts.seed, true)? {
            if let Some(fj) = &mut s.files {
                host.fs.set_now(now.ns());
                fj.setup(&mut host);
                now = host.submit(&mut dev, now);
            }
        }
        dev.clock = now;
        Ok(Layout {
            dev,
            fs: host,
            seed: opts.seed,
            namespace: opts.namespace,
        })
    }

    /// The file system as laid out.
    pub fn fs(&self) -> &FsHost {
        &self.fs
    }

    /// The device as laid out (its clock: when the layout ended).
    pub fn device(&self) -> &Device {
        &self.dev
    }

    /// Run `workload` on a copy of the layout (the layout itself is unchanged): it starts when
    /// the layout ended, its counters from zero; files it opens by name are the laid-out ones.
    /// `opts` must carry the layout's seed and namespace.
    pub fn run(&self, workload: &WorkloadSpec, opts: &RunOptions) -> Result<Report> {
        if (opts.seed, opts.namespace) != (self.seed, self.namespace) {
            return Err(Error::Usage(format!(
                "a run from a shared layout keeps the layout's seed {} and namespace {} (asked: {} and {})",
                self.seed, self.namespace, opts.seed, opts.namespace
            )));
        }
        let Layout { mut dev, fs, .. } = self.clone();
        let zoned = dev
            .cfg
            .namespaces
            .get(opts.namespace)
            .is_some_and(|n| n.kind == NamespaceKind::Zoned);
        let (resolved, name) = workload.resolve(zoned)?;
        if let Workload::Scenario(_) = resolved {
            return Err(Error::Usage(
                "a run from a shared layout runs fio jobs or a trace; an aging scenario makes its own file system".into(),
            ));
        }
        let provenance = super::spec::provenance(&dev.cfg, workload, &resolved, name, opts);
        let mut report = run_resolved(&mut dev, Some(fs), &resolved, opts, &mut Control::none())?;
        report.provenance = Some(provenance);
        Ok(report)
    }
}
