//! The simulation run: drives host sources (fio jobs, trace replay) against a [`Device`] with
//! the event engine, preconditions, collects statistics and builds the [`Report`].
//!
//! Each source is closed-loop at its queue depth (a fio job at `iodepth`, a trace replayed as
//! fast as possible at `--qd`) or open-loop (a trace replayed at its arrival times). One event
//! per request: the device computes a request's completion when it arrives, and the completion
//! event issues the source's next request. Jobs separated by `stonewall` run in groups.

mod precondition;
mod queues;
mod source;

pub use precondition::Precondition;
pub use source::{ReplayMode, TraceReplay};

use crate::config::DeviceConfig;
use crate::device::{Device, Submitted};
use crate::engine::{EventQueue, SimTime};
use crate::error::{Error, Result};
use crate::host::fio::JobSpec;
use crate::host::{HostIo, IoKind};
use crate::interface::{Command, Op, ZoneAction};
use crate::stats::report::{HostReport, JobReport, SimReport};
use crate::stats::{IoStats, Report};
use queues::{HostQueues, Waiting};
use source::Source;
use std::time::Instant;

/// What to run.
pub enum Workload {
    Jobs(Vec<JobSpec>),
    Trace(TraceReplay),
}

/// How to run it.
#[derive(Debug, Clone)]
pub struct RunOptions {
    pub seed: u64,
    pub precondition: Precondition,
    /// Namespace the workload (and preconditioning) targets.
    pub namespace: usize,
    /// Check the device invariants after preconditioning and at the end (slow on big devices;
    /// always on in debug builds).
    pub check_invariants: bool,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            seed: 1,
            precondition: Precondition::None,
            namespace: 0,
            check_invariants: cfg!(debug_assertions),
        }
    }
}

/// Progress observer: called now and then with the phase ("preconditioning" or "running")
/// and the requests completed so far in it.
pub type Progress<'a> = &'a mut dyn FnMut(&'static str, u64);

enum Ev {
    /// A request of source `src` completes.
    Done {
        src: u32,
        kind: IoKind,
        issued: SimTime,
        bytes: u64,
    },
    /// Source `src` issues its next request (after think time / at a trace arrival).
    Issue { src: u32 },
    /// Stonewall group `g` starts.
    Group { g: u32 },
    /// Background GC opportunity, valid if no request was issued since `token`.
    BgGc { token: u64 },
    /// The controller fetches the next command from the host queues (sim/queues.rs).
    Fetch,
    /// The flash work of a request of source `src` is done: the firmware cores complete it.
    Flash {
        src: u32,
        kind: IoKind,
        token: u32,
        issued: SimTime,
        bytes: u64,
    },
}

/// The engine state of one run over one device.
struct Engine<'d> {
    /// Reported to the progress observer.
    phase: &'static str,
    dev: &'d mut Device,
    q: EventQueue<Ev>,
    sources: Vec<Source>,
    groups: Vec<Vec<u32>>,
    outstanding: u64,
    issued: u64,
    completed: u64,
    bg_idle_ns: Option<u64>,
    error: Option<Error>,
    queues: HostQueues,
}

impl<'d> Engine<'d> {
    fn new(dev: &'d mut Device, mut sources: Vec<Source>) -> Engine<'d> {
        let mut queue_of: Vec<u32> = vec![0; sources.len()];
        let queues = HostQueues::new(&dev.cfg, &mut queue_of);
        for (s, q) in sources.iter_mut().zip(queue_of) {
            s.queue = q;
        }
        let mut groups: Vec<Vec<u32>> = vec![Vec::new()];
        for (i, s) in sources.iter().enumerate() {
            if s.stonewall && !groups.last().unwrap().is_empty() {
                groups.push(Vec::new());
            }
            groups.last_mut().unwrap().push(i as u32);
        }
        let bg_idle_ns = dev
            .cfg
            .ftl
            .gc
            .background
            .then(|| SimTime::from_us(dev.cfg.ftl.gc.idle_us).ns());
        Engine {
            phase: "running",
            dev,
            q: EventQueue::new(),
            sources,
            groups,
            outstanding: 0,
            issued: 0,
            completed: 0,
            bg_idle_ns,
            error: None,
            queues,
        }
    }

    fn run(&mut self, start: SimTime, progress: Progress) -> Result<SimTime> {
        self.q.push(start, Ev::Group { g: 0 });
        let mut now = start;
        while let Some((t, ev)) = self.q.pop() {
            now = t;
            match ev {
                Ev::Done {
                    src,
                    kind,
                    issued,
                    bytes,
                } => self.on_done(now, src, kind, issued, bytes),
                Ev::Issue { src } => self.issue(now, src),
                Ev::Group { g } => self.start_group(now, g),
                Ev::BgGc { token } => self.on_bg_gc(now, token),
                Ev::Fetch => self.on_fetch(now),
                Ev::Flash {
                    src,
                    kind,
                    token,
                    issued,
                    bytes,
                } => {
                    let done = self.dev.complete_queued(now, token);
                    self.q.push(
                        done,
                        Ev::Done {
                            src,
                            kind,
                            issued,
                            bytes,
                        },
                    );
                }
            }
            if let Some(e) = self.error.take() {
                return Err(e);
            }
            if self.completed & 0xFFFF == 0 {
                progress(self.phase, self.completed);
            }
        }
        debug_assert_eq!(self.issued, self.completed, "requests lost or duplicated");
        Ok(now)
    }

    fn start_group(&mut self, now: SimTime, g: u32) {
        for k in 0..self.groups[g as usize].len() {
            let src = self.groups[g as usize][k];
            // Zoned jobs of a later group start from the zones' write pointers as they are now.
            if g > 0 {
                let ns = self.sources[src as usize].ns;
                if let Some(w) = self.dev.zoned(ns).map(|z| z.write_pointers()) {
                    self.sources[src as usize].refresh_zone_write_pointers(&w);
                }
            }
            self.sources[src as usize].start(now);
            if self.sources[src as usize].open_loop() {
                self.schedule_arrival(src);
            } else {
                for _ in 0..self.sources[src as usize].depth {
                    if self.error.is_some() {
                        return;
                    }
                    self.issue(now, src);
                }
            }
            self.maybe_finish_group(now, src);
        }
    }

    /// Open-loop source: schedule its next arrival.
    fn schedule_arrival(&mut self, src: u32) {
        match self.sources[src as usize].next_arrival() {
            Ok(Some(t)) => self.q.push(t, Ev::Issue { src }),
            Ok(None) => {}
            Err(e) => self.fail(e),
        }
    }

    /// Records the first error of the run; nothing is issued after it.
    #[cold]
    fn fail(&mut self, e: Error) {
        self.error.get_or_insert(e);
    }

    fn issue(&mut self, now: SimTime, src: u32) {
        if self.error.is_some() {
            // A source failed (a malformed trace line): the run stops at the first error.
            return;
        }
        let s = &mut self.sources[src as usize];
        let q = s.queue;
        if !self.queues.has_room(q) {
            // The source's submission queue is full: it waits for a slot.
            self.queues.blocked[q as usize].push_back(src);
            return;
        }
        let io = match s.next_io(now) {
            Ok(Some(io)) => io,
            Ok(None) => return,
            Err(e) => {
                self.fail(e);
                return;
            }
        };
        s.outstanding += 1;
        s.issued += 1;
        s.stats.issued(now);
        if let Some(st) = self.queues.stats.get_mut(q as usize) {
            st.issued(now);
        }
        self.outstanding += 1;
        self.issued += 1;
        self.queues.submitted(q);
        let open_loop = s.open_loop();
        match self.dev.fetch_free_at(now) {
            // Fetching takes the HIL core: the command waits in its queue unless the core is
            // free and no other command waits.
            Some(free) if free > now || self.queues.any_waiting() => {
                self.queues.wait(
                    q,
                    Waiting {
                        src,
                        io,
                        issued: now,
                    },
                );
                self.schedule_fetch(now.max(free));
            }
            _ => self.submit(now, src, q, io, now),
        }
        if open_loop {
            self.schedule_arrival(src);
        }
    }

    /// Hand a command of source `src` from queue `q` to the device at `now`.
    fn submit(&mut self, now: SimTime, src: u32, q: u32, io: HostIo, issued: SimTime) {
        let ns = self.sources[src as usize].ns;
        let (kind, bytes) = (io.kind, io.len);
        match self.dev.submit_queued(issued, now, ns, q, command(&io)) {
            Submitted::Done(c) => self.q.push(
                c.done,
                Ev::Done {
                    src,
                    kind,
                    issued,
                    bytes,
                },
            ),
            Submitted::Flash { at, token } => self.q.push(
                at,
                Ev::Flash {
                    src,
                    kind,
                    token,
                    issued,
                    bytes,
                },
            ),
        }
    }

    fn schedule_fetch(&mut self, at: SimTime) {
        if !self.queues.fetch_scheduled {
            self.queues.fetch_scheduled = true;
            self.q.push(at, Ev::Fetch);
        }
    }

    /// The controller fetches the command the arbiter picks; the next fetch when the HIL
    /// core is free again.
    fn on_fetch(&mut self, now: SimTime) {
        self.queues.fetch_scheduled = false;
        let free = self.dev.fetch_free_at(now).unwrap_or(now);
        if free > now {
            self.schedule_fetch(free);
            return;
        }
        if let Some((q, w)) = self.queues.fetch() {
            self.submit(now, w.src, q, w.io, w.issued);
        }
        if self.queues.any_waiting() {
            let free = self.dev.fetch_free_at(now).unwrap_or(now);
            self.schedule_fetch(free.max(now));
        }
    }

    fn on_done(&mut self, now: SimTime, src: u32, kind: IoKind, issued: SimTime, bytes: u64) {
        self.outstanding -= 1;
        self.completed += 1;
        let s = &mut self.sources[src as usize];
        s.outstanding -= 1;
        s.completed += 1;
        s.stats.record(kind, issued, now, bytes);
        let q = s.queue;
        if let Some(st) = self.queues.stats.get_mut(q as usize) {
            st.record(kind, issued, now, bytes);
        }
        if let Some(waiting) = self.queues.completed(q) {
            // A source waited for this slot of the queue.
            self.issue(now, waiting);
        }
        let s = &mut self.sources[src as usize];
        if !s.open_loop() {
            if s.thinktime_ns > 0 {
                let t = now + s.thinktime_ns;
                self.q.push(t, Ev::Issue { src });
            } else {
                self.issue(now, src);
            }
        }
        self.maybe_finish_group(now, src);
        if self.outstanding == 0 {
            if let Some(idle) = self.bg_idle_ns {
                self.q.push(now + idle, Ev::BgGc { token: self.issued });
            }
        }
    }

    /// When every source of `src`'s group is finished, start the next group.
    fn maybe_finish_group(&mut self, now: SimTime, src: u32) {
        let Some(g) = self.groups.iter().position(|g| g.contains(&src)) else {
            return;
        };
        let all_done = self.groups[g]
            .iter()
            .all(|&s| self.sources[s as usize].finished());
        if all_done && !self.sources[src as usize].group_reported {
            for &s in &self.groups[g] {
                self.sources[s as usize].group_reported = true;
            }
            if g + 1 < self.groups.len() {
                self.q.push(now, Ev::Group { g: g as u32 + 1 });
            }
        }
    }

    fn on_bg_gc(&mut self, now: SimTime, token: u64) {
        if token != self.issued || self.outstanding != 0 || self.q.is_empty() {
            // A request arrived since, or the run is over.
            return;
        }
        if self.dev.background_gc(now) {
            let idle = self.bg_idle_ns.unwrap_or(0);
            let next = (now + idle).max(self.dev.nand.all_idle_at());
            self.q.push(next, Ev::BgGc { token });
        }
    }
}

/// Run `workload` on a fresh device built from `cfg`.
pub fn run(
    cfg: &DeviceConfig,
    workload: &Workload,
    opts: &RunOptions,
    progress: Progress,
) -> Result<Report> {
    let mut dev = Device::new(cfg, opts.seed)?;
    run_device(&mut dev, workload, opts, progress)
}

/// Run `workload` on an existing device (after what it already ran: it starts when the device's
/// last run ended). Counters are reset first, so the report covers this run only.
pub fn run_device(
    dev: &mut Device,
    workload: &Workload,
    opts: &RunOptions,
    progress: Progress,
) -> Result<Report> {
    let wall = Instant::now();
    dev.check_namespace(opts.namespace)?;
    let pre = precondition::run(dev, opts, progress)?;
    let t0 = dev.clock;
    if opts.check_invariants {
        dev.check_invariants().map_err(invariant)?;
    }
    dev.reset_counters();
    let sources = source::build(workload, dev, opts.namespace, opts.seed)?;
    let measure = Instant::now();
    let mut eng = Engine::new(dev, sources);
    let end = eng.run(t0, progress)?;
    let measure_wall_s = measure.elapsed().as_secs_f64();
    let (issued, completed, events) = (eng.issued, eng.completed, eng.q.events());
    let sources = std::mem::take(&mut eng.sources);
    let queue_stats = std::mem::take(&mut eng.queues.stats);
    drop(eng);
    dev.clock = end;
    if opts.check_invariants {
        dev.check_invariants().map_err(invariant)?;
    }
    let mut total = IoStats::default();
    let mut jobs = Vec::new();
    let mut trace = None;
    for s in &sources {
        total.merge(&s.stats);
        jobs.push(JobReport {
            name: s.name.clone(),
            namespace: s.ns,
            host: HostReport::from_stats(&s.stats),
        });
        if let Some(t) = s.trace_report() {
            trace = Some(t);
        }
    }
    let wall_s = wall.elapsed().as_secs_f64();
    let mut host = HostReport::from_stats(&total);
    host.queues = queue_stats.iter().map(HostReport::from_stats).collect();
    let firmware = dev.firmware_report(host.window_ns);
    Ok(Report {
        zonesim_version: env!("CARGO_PKG_VERSION"),
        host,
        jobs,
        device: dev.report(),
        precondition: pre,
        sim: SimReport {
            seed: opts.seed,
            simulated_ns: end.since(t0),
            total_simulated_ns: end.ns(),
            wall_s,
            measure_wall_s,
            events,
            requests_issued: issued,
            requests_completed: completed,
            requests_per_wall_s: completed as f64 / measure_wall_s.max(1e-9),
        },
        trace,
        firmware,
    })
}

fn invariant(msg: String) -> Error {
    Error::Usage(format!("internal invariant violated: {msg}"))
}

/// Run sources on an existing device from `start` (used by preconditioning); returns the end.
fn run_on(
    dev: &mut Device,
    sources: Vec<Source>,
    start: SimTime,
    progress: Progress,
) -> Result<SimTime> {
    let mut eng = Engine::new(dev, sources);
    eng.phase = "preconditioning";
    eng.run(start, progress)
}

/// The device command for a host request: the run is the adapter between the host side
/// (requests in bytes) and the device side (commands on 4 KiB logical pages).
pub fn command(io: &HostIo) -> Command {
    let op = match io.kind {
        IoKind::Read => Op::Read,
        IoKind::Write => Op::Write { hint: io.hint },
        IoKind::ZoneAppend => Op::Append,
        IoKind::Trim => Op::Trim,
        IoKind::Flush => Op::Flush,
        IoKind::ZoneOpen => Op::Zone(ZoneAction::Open),
        IoKind::ZoneClose => Op::Zone(ZoneAction::Close),
        IoKind::ZoneFinish => Op::Zone(ZoneAction::Finish),
        IoKind::ZoneReset => Op::Zone(ZoneAction::Reset),
    };
    Command::widen(op, io.offset, io.len)
}
