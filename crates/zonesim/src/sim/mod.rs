//! The simulation run: drives host sources (fio jobs, trace replay) against a [`Device`] with
//! the event engine, preconditions, collects statistics and builds the [`Report`].
//!
//! Each source is closed-loop at its queue depth (a fio job at `iodepth`, a trace replayed as
//! fast as possible at `--qd`) or open-loop (a trace replayed at its arrival times). One event
//! per request: the device computes a request's completion when it arrives, and the completion
//! event issues the source's next request. Jobs separated by `stonewall` run in groups.

mod precondition;
mod source;

pub use precondition::Precondition;
pub use source::{ReplayMode, TraceReplay};

use crate::config::DeviceConfig;
use crate::device::Device;
use crate::engine::{EventQueue, SimTime};
use crate::error::{Error, Result};
use crate::host::fio::JobSpec;
use crate::host::order::{OrderConfig, OrderCounters, ZoneWriteOrder};
use crate::host::{HostIo, IoKind};
use crate::interface::{Command, Op, ZoneAction};
use crate::stats::report::{HostReport, JobReport, SimReport};
use crate::stats::{IoStats, Report};
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
    /// A request of source `src` completes; `zone`: the zone whose write lock it holds.
    Done {
        src: u32,
        kind: IoKind,
        issued: SimTime,
        bytes: u64,
        zone: u32,
    },
    /// A requeued zoned write (slot `slot` of the held requests) reaches the device.
    Submit { slot: u32 },
    /// Source `src` issues its next request (after think time / at a trace arrival).
    Issue { src: u32 },
    /// Stonewall group `g` starts.
    Group { g: u32 },
    /// Background GC opportunity, valid if no request was issued since `token`.
    BgGc { token: u64 },
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
    /// Zone write locks and requeueing of the zoned namespaces' writes (host/order.rs), by
    /// namespace; None for a conventional namespace.
    order: Vec<Option<ZoneWriteOrder<Held>>>,
    /// Requeued requests on their way (slots reused through `free_held`).
    held: Vec<Held>,
    free_held: Vec<u32>,
}

/// A zoned write between the host and the device: issued, waiting for its zone's lock or
/// requeued.
#[derive(Debug, Clone, Copy)]
struct Held {
    src: u32,
    io: HostIo,
    issued: SimTime,
    zone: u32,
}

/// No zone lock held by a request.
const NO_LOCK: u32 = u32::MAX;

impl<'d> Engine<'d> {
    fn new(dev: &'d mut Device, sources: Vec<Source>) -> Engine<'d> {
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
        let order = (0..dev.namespaces.len())
            .map(|ns| {
                let z = dev.zoned(ns)?;
                let h = &dev.cfg.host;
                let cfg = OrderConfig {
                    zone_write_lock: h.zone_write_lock,
                    requeue_probability: h.requeue_probability,
                    requeue_delay_ns: SimTime::from_us(h.requeue_delay_us).ns(),
                };
                Some(ZoneWriteOrder::new(cfg, z.zone_config().zones, ns as u64))
            })
            .collect();
        Engine {
            order,
            held: Vec::new(),
            free_held: Vec::new(),
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
                    zone,
                } => self.on_done(now, src, kind, issued, bytes, zone),
                Ev::Issue { src } => self.issue(now, src),
                Ev::Submit { slot } => {
                    let h = self.held[slot as usize];
                    self.free_held.push(slot);
                    self.submit(now, h);
                }
                Ev::Group { g } => self.start_group(now, g),
                Ev::BgGc { token } => self.on_bg_gc(now, token),
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
        let (ns, open_loop) = (s.ns, s.open_loop());
        self.outstanding += 1;
        self.issued += 1;
        let h = Held {
            src,
            io,
            issued: now,
            zone: NO_LOCK,
        };
        match self.zoned_write(ns, io) {
            // Zone appends need no lock: the device picks their LBA.
            Some(_) if io.kind == IoKind::ZoneAppend => self.dispatch(now, h),
            Some(zone) => {
                let order = self.order[ns].as_mut().expect("zoned");
                let h = Held {
                    zone: if order.locks() { zone } else { NO_LOCK },
                    ..h
                };
                if let Some(h) = order.write(zone, h) {
                    self.dispatch(now, h);
                }
            }
            None => self.submit(now, h),
        }
        if open_loop {
            self.schedule_arrival(src);
        }
    }

    /// The ordering counters of the zoned namespaces, merged; None if nothing was requeued
    /// or waited for a lock (the report then has no `sim.ordering`).
    fn ordering(&self) -> Option<OrderCounters> {
        let mut c = OrderCounters::default();
        for o in self.order.iter().flatten() {
            c.dispatched += o.counters.dispatched;
            c.requeued += o.counters.requeued;
            c.lock_waits += o.counters.lock_waits;
        }
        (c.requeued + c.lock_waits > 0).then_some(c)
    }

    /// The zone of a write or append to a zoned namespace (they go through the host's zone
    /// write ordering), else None.
    #[inline]
    fn zoned_write(&self, ns: usize, io: HostIo) -> Option<u32> {
        if !matches!(io.kind, IoKind::Write | IoKind::ZoneAppend) {
            return None;
        }
        let z = self.dev.zoned(ns)?;
        let zone_bytes = z.zone_config().zone_size * crate::nand::SLOT_BYTES;
        Some((io.offset / zone_bytes) as u32)
    }

    /// Dispatch a zoned write or append to the device: at once, or requeued (held until the
    /// requeue delay has passed).
    fn dispatch(&mut self, now: SimTime, h: Held) {
        let ns = self.sources[h.src as usize].ns;
        let delay = self.order[ns].as_mut().expect("zoned").dispatch_delay();
        if delay == 0 {
            self.submit(now, h);
            return;
        }
        let slot = match self.free_held.pop() {
            Some(s) => {
                self.held[s as usize] = h;
                s
            }
            None => {
                self.held.push(h);
                self.held.len() as u32 - 1
            }
        };
        self.q.push(now + delay, Ev::Submit { slot });
    }

    /// The request reaches the device now; its completion event is scheduled.
    #[inline]
    fn submit(&mut self, now: SimTime, h: Held) {
        let ns = self.sources[h.src as usize].ns;
        let done = self.dev.submit(now, ns, command(&h.io)).done;
        self.q.push(
            done,
            Ev::Done {
                src: h.src,
                kind: h.io.kind,
                issued: h.issued,
                bytes: h.io.len,
                zone: h.zone,
            },
        );
    }

    fn on_done(
        &mut self,
        now: SimTime,
        src: u32,
        kind: IoKind,
        issued: SimTime,
        bytes: u64,
        zone: u32,
    ) {
        if zone != NO_LOCK {
            let ns = self.sources[src as usize].ns;
            if let Some(next) = self.order[ns].as_mut().and_then(|o| o.completed(zone)) {
                self.dispatch(now, next);
            }
        }
        self.outstanding -= 1;
        self.completed += 1;
        let s = &mut self.sources[src as usize];
        s.outstanding -= 1;
        s.completed += 1;
        s.stats.record(kind, issued, now, bytes);
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
    let ordering = eng.ordering();
    let sources = std::mem::take(&mut eng.sources);
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
    Ok(Report {
        zonesim_version: env!("CARGO_PKG_VERSION"),
        host: HostReport::from_stats(&total),
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
            ordering,
        },
        trace,
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
