//! A `sysbench` scenario step (`host::apps::sysbench` on `host::apps::innodb`, docs/innodb.md)
//! on the run's host file system: the application model's file calls become the file system's
//! device commands, submitted when the model asks and completed by the device.

use super::command;
use super::fs::FsHost;
use crate::device::Device;
use crate::engine::SimTime;
use crate::error::{Error, Result};
use crate::host::apps::files::{AppHost, RawFiles};
use crate::host::apps::sysbench::{self, SysbenchOutcome, SysbenchSpec};
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

/// Run step `s` from `now`: prepare, then the timed run (with `measure_run` the device's
/// counters restart when the tables are loaded). Returns its report section, the outcome and
/// when it ended. Tables that do not fit in `free` bytes are bad input.
pub fn run_step<H: AppHost>(
    run: &mut H,
    free: u64,
    s: &SysbenchSpec,
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
    let o = sysbench::run(run, s, now.ns(), seed, check)
        .map_err(|e| Error::Usage(format!("sysbench: the file system refused a write ({e:?})")))?;
    if let Some(why) = &o.invariant {
        return Err(Error::internal(why.clone()));
    }
    let end = SimTime(o.end);
    Ok((AppReport::sysbench(s, &o), o, end))
}
