//! A `sysbench` scenario step (`host::apps::sysbench` on `host::apps::innodb`, docs/innodb.md)
//! on the run's host file system: the application model's file calls become the file system's
//! device commands, submitted when the model asks and completed by the device.

use super::command;
use super::fs::FsHost;
use super::host_cpu::CpuRun;
use crate::config::HostCpuConfig;
use crate::device::Device;
use crate::engine::SimTime;
use crate::error::{Error, Result};
use crate::host::apps::files::{AppHost, RawFiles};
use crate::host::apps::sysbench::{self, SysbenchOutcome, SysbenchSpec};
use crate::host::cpu::Burst;
use crate::host::hostfs::HostFs;
use crate::stats::app::AppReport;

/// The model's view of the run: the file system (the one parameter naming it) and the device.
pub struct AppRun<'a> {
    pub dev: &'a mut Device,
    pub host: &'a mut FsHost,
    /// Reset the device's counters when the tables are loaded (they then count the run).
    pub measure_run: bool,
}

impl AppHost for AppRun<'_> {
    type Fs = HostFs;
    fn fs(&mut self) -> &mut HostFs {
        &mut self.host.fs
    }
    fn submit(&mut self, at: u64) -> u64 {
        self.host.submit(self.dev, SimTime(at)).ns()
    }
    fn prepared(&mut self, _at: u64) {
        if self.measure_run {
            self.dev.reset_counters();
        }
    }
}

/// The model's view of a run without a file system: its files straight on namespace `ns`
/// ([`RawFiles`]).
pub struct RawRun<'a> {
    pub dev: &'a mut Device,
    pub files: RawFiles,
    pub ns: usize,
    /// As [`AppRun::measure_run`].
    pub measure_run: bool,
}

impl AppHost for RawRun<'_> {
    type Fs = RawFiles;
    fn fs(&mut self) -> &mut RawFiles {
        &mut self.files
    }
    fn submit(&mut self, at: u64) -> u64 {
        let (mut start, mut end) = (SimTime(at), SimTime(at));
        for c in &self.files.out.cmds {
            if c.barrier {
                start = end;
            }
            end = end.max(self.dev.submit(start, self.ns, command(&c.io)).done);
        }
        self.files.out.clear();
        end.ns()
    }
    fn prepared(&mut self, _at: u64) {
        if self.measure_run {
            self.dev.reset_counters();
        }
    }
}

/// A host with the host CPU model on: the application's bursts run on its cores (one thread
/// per sysbench client); everything else is the inner host's.
struct OnCores<'h, H> {
    inner: &'h mut H,
    cpu: CpuRun,
}

impl<H: AppHost> AppHost for OnCores<'_, H> {
    type Fs = H::Fs;
    fn fs(&mut self) -> &mut H::Fs {
        self.inner.fs()
    }
    fn submit(&mut self, at: u64) -> u64 {
        self.inner.submit(at)
    }
    fn prepared(&mut self, at: u64) {
        self.inner.prepared(at)
    }
    fn cpu(&mut self, thread: u32, at: u64, b: &Burst) -> u64 {
        self.cpu.app(thread, SimTime(at), b).ns()
    }
}

/// Run step `s` from `now`: prepare, then the timed run (with `measure_run` the device's
/// counters restart when the tables are loaded), its statements on the host CPU `cpu` when
/// that is on. Returns its report section (with the host CPU's, `host_cpu`), the outcome and
/// when it ended. Tables that do not fit in `free` bytes are bad input.
pub fn run_step<H: AppHost>(
    run: &mut H,
    free: u64,
    s: &SysbenchSpec,
    cpu: &HostCpuConfig,
    now: SimTime,
    seed: u64,
    check: bool,
) -> Result<(AppReport, SysbenchOutcome, SimTime)> {
    let need = crate::host::apps::innodb::tablespace::Table::sbtest(s.table_size).bytes()
        * s.tables as u64;
    if need > free {
        return Err(Error::Usage(format!(
            "sysbench: {} tables of {} rows need {:.2} GiB, the file system has {:.2} GiB free (fewer tables or rows, or a larger device)",
            s.tables,
            s.table_size,
            need as f64 / (1u64 << 30) as f64,
            free as f64 / (1u64 << 30) as f64
        )));
    }
    let refused = |e| Error::Usage(format!("sysbench: the file system refused a write ({e:?})"));
    let (o, host_cpu) = match CpuRun::new(cpu, s.threads as usize) {
        None => (
            sysbench::run(run, s, now.ns(), seed, check).map_err(refused)?,
            None,
        ),
        Some(cpu) => {
            let mut on = OnCores { inner: run, cpu };
            let o = sysbench::run(&mut on, s, now.ns(), seed, check).map_err(refused)?;
            let rep = on.cpu.report(o.run_ns);
            (o, Some(rep))
        }
    };
    if let Some(why) = &o.invariant {
        return Err(Error::internal(why.clone()));
    }
    let end = SimTime(o.end);
    let mut rep = AppReport::sysbench(s, &o);
    rep.host_cpu = host_cpu;
    Ok((rep, o, end))
}
