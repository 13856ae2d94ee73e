//! Runs an aging scenario (`host::scenario`, docs/fs.md) on the host file system of a fresh
//! device: steps one request at a time (each waits for the last), the `[setup]` steps once,
//! then the `[repeat]` steps until `max_iterations` or the free-space stop condition, with a
//! record per iteration (throughput, segment classes, fragmentation, GC phase, WAFs). The file
//! system's background GC thread wakes on its own schedule between requests (zoned: idle while
//! no read is in flight; conventional: only in `idle` steps after `gc_idle_time`).

use super::fs::{mount, FsHost};
use super::report::{assemble, RunRecord};
use super::{Precondition, RunOptions};
use crate::device::Device;
use crate::engine::{rng_for, SimTime};
use crate::error::{Error, Result};
use crate::host::fs::{Ino, BLOCK_BYTES};
use crate::host::hostfs::Files;
use crate::host::scenario::{Scenario, Step};
use crate::host::IoKind;
use crate::stats::fs::{Iteration, ScenarioReport};
use crate::stats::report::{HostReport, JobReport};
use crate::stats::{IoStats, Report};
use rand::RngCore;
use std::collections::{HashMap, VecDeque};
use std::time::Instant;

struct Runner<'a> {
    dev: &'a mut Device,
    h: FsHost,
    now: SimTime,
    stats: IoStats,
    /// Live files per directory (inode and creation number, which names it), oldest first,
    /// and where the batch created since the last `delete_every` of the directory starts.
    live: HashMap<String, (VecDeque<(Ino, u64)>, usize)>,
    created: u64,
    rng: crate::engine::Rng,
    next_bg: Option<SimTime>,
    enospc: bool,
    written: u64,
    read: u64,
    write_ns: u64,
    read_ns: u64,
    /// Bytes and time of the `write` steps (their writes and fsyncs).
    file_written: u64,
    file_ns: u64,
    check: bool,
    seed: u64,
    /// The last `sysbench` step's report section.
    app: Option<crate::stats::app::AppReport>,
    /// The `power_off` steps' power cycles (`None`: the scenario has none, nothing tracked).
    cycles: Option<Vec<crate::device::PowerCycle>>,
}

impl Runner<'_> {
    /// Wake the BG GC thread for every wake due by `until`.
    fn bg_until(&mut self, until: SimTime, idle: bool) {
        while let Some(t) = self.next_bg.filter(|&t| t <= until) {
            self.h.fs.set_now(t.ns());
            let sleep = self.h.fs.bg_tick(t.ns(), idle);
            self.h.submit(self.dev, t);
            self.next_bg = sleep.map(|s| t + s.max(1));
        }
    }

    /// Submit what the file system queued for one request of `kind` issued now; advance time.
    fn finish(&mut self, kind: IoKind, bytes: u64, cpu: u64) {
        let start = self.now;
        let done = self.h.submit(self.dev, start).max(start + cpu);
        self.stats.issued(start);
        self.stats.record(kind, start, done, bytes);
        let dt = done.since(start);
        match kind {
            IoKind::Write => {
                self.written += bytes;
                self.write_ns += dt;
            }
            IoKind::Read => {
                self.read += bytes;
                self.read_ns += dt;
            }
            _ => {}
        }
        self.now = done;
        let zoned_idle = self.h.fs.zoned_bg_gc() && kind != IoKind::Read;
        self.bg_until(self.now, zoned_idle);
    }

    fn write_file(&mut self, ino: Ino, size: u64, bs: u64) {
        let mut off = 0;
        while off < size && !self.enospc {
            let len = bs.min(size - off);
            self.h.fs.set_now(self.now.ns());
            if self.h.fs.write(ino, off, len, false).is_err() {
                self.h.submit(self.dev, self.now);
                self.enospc = true;
                return;
            }
            let cpu = len.div_ceil(BLOCK_BYTES) * self.h.fs.page_copy_ns();
            self.finish(IoKind::Write, len, cpu);
            off += len;
        }
    }

    fn fsync(&mut self, ino: Ino) {
        self.h.fs.set_now(self.now.ns());
        self.h.fs.fsync(ino, false);
        self.finish(IoKind::Flush, 0, 0);
    }

    fn open(&mut self, name: &str) -> Option<Ino> {
        match self.h.open(name, 0) {
            Ok(i) => Some(i),
            Err(_) => {
                self.enospc = true;
                None
            }
        }
    }

    /// One step; with invariant checks on, the file system's invariants after it.
    fn step(&mut self, s: &Step) -> Result<()> {
        if let Step::Sysbench(spec) = s {
            let seed = self.seed ^ self.created;
            let free = self.h.fs.free_bytes();
            let cpu = &self.dev.cfg.host.cpu.clone();
            let mut app = super::sysbench::AppRun {
                dev: self.dev,
                host: &mut self.h,
                measure_run: false,
            };
            let (rep, _, end) =
                super::sysbench::run_step(&mut app, free, spec, cpu, self.now, seed, self.check)?;
            self.created += 1;
            self.app = Some(rep);
            self.now = end;
            self.bg_until(end, self.h.fs.zoned_bg_gc());
        } else {
            self.apply(s);
        }
        if matches!(s, Step::PowerOff) {
            // The recovered device's invariants, as after a run's cut.
            self.dev.check_invariants().map_err(Error::internal)?;
        }
        if self.check {
            self.h.fs.check_invariants().map_err(Error::internal)?;
        }
        Ok(())
    }

    fn apply(&mut self, s: &Step) {
        match s {
            Step::Create {
                dir,
                files,
                size,
                bs,
            } => {
                for _ in 0..*files {
                    let n = self.created;
                    self.created += 1;
                    let Some(ino) = self.open(&created_name(dir, n)) else {
                        return;
                    };
                    self.live
                        .entry(dir.clone())
                        .or_default()
                        .0
                        .push_back((ino, n));
                    self.write_file(ino, *size, *bs);
                    if self.enospc {
                        return;
                    }
                }
            }
            Step::DeleteEvery { dir, k } => {
                // Every k-th file of the batch created since the last delete_every here.
                let (list, start) = self.live.remove(dir).unwrap_or_default();
                let mut keep = VecDeque::with_capacity(list.len());
                for (i, (ino, n)) in list.into_iter().enumerate() {
                    if i >= start && ((i - start + 1) as u64).is_multiple_of(*k) {
                        // Its name goes with it: names of deleted files would pile up over
                        // the iterations (millions in the §5.5 loop at paper scale).
                        self.h.remove(&created_name(dir, n));
                        self.h.fs.set_now(self.now.ns());
                        self.h.fs.unlink(ino);
                        self.finish(IoKind::Trim, 0, 0);
                    } else {
                        keep.push_back((ino, n));
                    }
                }
                let n = keep.len();
                self.live.insert(dir.clone(), (keep, n));
            }
            Step::Write { file, size, bs } => {
                let Some(ino) = self.open(file) else { return };
                let (b0, t0) = (self.written, self.now);
                self.write_file(ino, *size, *bs);
                if !self.enospc {
                    self.fsync(ino);
                }
                self.file_written += self.written - b0;
                self.file_ns += self.now.since(t0);
            }
            Step::Read { file, bs } => {
                let Some(ino) = self.open(file) else { return };
                let size = self.h.fs.size(ino);
                let mut off = 0;
                while off < size {
                    let len = (*bs).min(size - off);
                    self.h.fs.set_now(self.now.ns());
                    self.h.fs.read(ino, off, len);
                    self.finish(IoKind::Read, len, 0);
                    off += len;
                }
            }
            Step::Overwrite {
                dir,
                bytes,
                bs,
                fsync,
            } => {
                let files: Vec<Ino> = self
                    .live
                    .get(dir)
                    .map(|l| l.0.iter().map(|f| f.0).collect())
                    .unwrap_or_default();
                if files.is_empty() {
                    return;
                }
                for n in 0..bytes / bs {
                    let ino = files[(self.rng.next_u64() % files.len() as u64) as usize];
                    let slots = (self.h.fs.size(ino) / bs).max(1);
                    let off = (self.rng.next_u64() % slots) * bs;
                    self.h.fs.set_now(self.now.ns());
                    if self.h.fs.write(ino, off, *bs, false).is_err() {
                        self.h.submit(self.dev, self.now);
                        self.enospc = true;
                        return;
                    }
                    let cpu = bs / BLOCK_BYTES * self.h.fs.page_copy_ns();
                    self.finish(IoKind::Write, *bs, cpu);
                    if *fsync > 0 && (n + 1) % fsync == 0 {
                        self.fsync(ino);
                    }
                }
            }
            Step::Unlink { file } => {
                if let Some(ino) = self.h.remove(file) {
                    self.h.fs.set_now(self.now.ns());
                    self.h.fs.unlink(ino);
                    self.finish(IoKind::Trim, 0, 0);
                }
            }
            Step::Sync => {
                self.h.fs.set_now(self.now.ns());
                self.h.fs.sync();
                self.finish(IoKind::Flush, 0, 0);
            }
            Step::Sysbench(_) => {}
            Step::PowerOff => {
                let c = self.dev.power_cycle(self.now, self.dev.cfg.power.plp);
                self.now = c.recovered;
                if let Some(v) = &mut self.cycles {
                    v.push(c);
                }
            }
            Step::Age { days } => {
                self.dev
                    .age(self.now, days.saturating_mul(86_400_000_000_000));
            }
            Step::Idle { ms } => {
                let until = self.now + ms.saturating_mul(1_000_000);
                let gate = self.now + self.h.fs.gc_idle_time_ms().saturating_mul(1_000_000);
                self.bg_until(gate.min(until), self.h.fs.zoned_bg_gc());
                self.bg_until(until, true);
                self.now = until;
            }
        }
    }

    fn record(&mut self, iteration: u64) -> Iteration {
        let d = self.dev.report();
        let (fs_bytes, data_bytes) = self.h.fs.written();
        let fsw = fs_bytes as f64 / data_bytes.max(1) as f64;
        let e2e = d.flash.programmed_slots as f64 * BLOCK_BYTES as f64 / data_bytes.max(1) as f64;
        let mib_s = |b: u64, ns: u64| {
            if ns == 0 {
                0.0
            } else {
                b as f64 / 1048576.0 / (ns as f64 / 1e9)
            }
        };
        let it = Iteration {
            iteration,
            end_ns: self.now.ns(),
            write_mib_s: mib_s(self.written, self.write_ns),
            file_write_mib_s: mib_s(self.file_written, self.file_ns),
            read_mib_s: mib_s(self.read, self.read_ns),
            written_bytes: self.written,
            read_bytes: self.read,
            free_bytes: self.h.fs.free_bytes(),
            fs_waf: fsw,
            device_waf: d.waf,
            end_to_end_waf: e2e,
            sample: self.h.fs.sample(),
        };
        (self.written, self.read, self.write_ns, self.read_ns) = (0, 0, 0, 0);
        (self.file_written, self.file_ns) = (0, 0);
        it
    }
}

/// The name of the `n`-th file a `create` step made, in `dir`.
fn created_name(dir: &str, n: u64) -> String {
    format!("{}/f{n}", dir.trim_end_matches('/'))
}

/// Run scenario `sc` on the host file system (`[fs]`) of `dev`, from its clock on.
pub(super) fn run(dev: &mut Device, sc: &Scenario, opts: &RunOptions) -> Result<Report> {
    let wall = Instant::now();
    let fs_cfg = dev.cfg.fs.clone().ok_or_else(|| {
        Error::Usage(
            "a scenario runs on the host file system: add --fs f2fs or an [fs] section".into(),
        )
    })?;
    if opts.precondition != Precondition::None {
        return Err(Error::Usage(format!(
            "--precondition {}: a scenario ages its own file system from mkfs on; drop it",
            opts.precondition.name()
        )));
    }
    dev.check_namespace(opts.namespace)?;
    super::check_iotailor(dev, opts.namespace)?;
    let cuts = sc
        .setup
        .iter()
        .chain(&sc.steps)
        .any(|s| *s == Step::PowerOff);
    if cuts {
        dev.track_power()?;
    }
    let mut h = mount(&fs_cfg, dev, opts.namespace)?;
    let t0 = h.submit(dev, dev.clock);
    dev.reset_counters();
    let next_bg = h.fs.first_bg_wake(t0.ns()).map(SimTime);
    let measure = Instant::now();
    let measure_cpu = crate::stats::report::thread_cpu_s();
    let mut r = Runner {
        dev,
        h,
        now: t0,
        stats: IoStats::default(),
        live: HashMap::new(),
        created: 0,
        rng: rng_for(opts.seed, 0x5ce7),
        next_bg,
        enospc: false,
        written: 0,
        read: 0,
        write_ns: 0,
        read_ns: 0,
        file_written: 0,
        file_ns: 0,
        check: opts.check_invariants,
        seed: opts.seed,
        app: None,
        cycles: cuts.then(Vec::new),
    };
    for s in &sc.setup {
        r.step(s)?;
    }
    let mut iterations = Vec::new();
    let mut stopped_by = "max_iterations";
    for it in 0..sc.max_iterations {
        for s in &sc.steps {
            if r.enospc {
                break;
            }
            r.step(s)?;
        }
        iterations.push(r.record(it + 1));
        if r.enospc {
            stopped_by = "enospc";
            break;
        }
        if sc
            .stop_when_free_below
            .is_some_and(|x| r.h.fs.free_bytes() < x)
        {
            stopped_by = "free_space";
            break;
        }
    }
    r.h.fs.set_now(r.now.ns());
    r.h.fs.sync();
    let end = r.h.submit(r.dev, r.now);
    r.h.fs.check_invariants().map_err(Error::internal)?;
    let measure_wall_s = measure.elapsed().as_secs_f64();
    let measure_cpu_s = crate::stats::report::thread_cpu_s() - measure_cpu;
    let stats = std::mem::take(&mut r.stats);
    let h = r.h;
    r.dev.clock = end;
    let completed = stats.read.ios + stats.write.ios + stats.flush.ios + stats.trim.ios;
    let host = HostReport::from_stats(&stats);
    let power = r.cycles.as_ref().map(|c| {
        let bytes = stats.read.bytes + stats.write.bytes;
        super::power::report_cuts(r.dev, t0, end, c, bytes)
    });
    let record = RunRecord {
        seed: opts.seed,
        start: t0,
        end,
        wall_s: wall.elapsed().as_secs_f64(),
        measure_wall_s,
        measure_cpu_s: Some(measure_cpu_s),
        events: completed,
        issued: completed,
        completed,
        jobs: vec![JobReport {
            name: if sc.name.is_empty() {
                "scenario".into()
            } else {
                sc.name.clone()
            },
            namespace: h.main_ns,
            priority: None,
            host: host.clone(),
            latency_breakdown: None,
        }],
        host,
        scenario: Some(ScenarioReport {
            name: sc.name.clone(),
            iterations,
            stopped_by,
        }),
        host_cpu: r.app.as_mut().and_then(|a| a.host_cpu.take()),
        app: r.app.take(),
        power,
        ..RunRecord::default()
    };
    Ok(assemble(r.dev, Some(&h), record))
}
