//! The simulation run: drives host sources (fio jobs, trace replay) against a [`Device`] with
//! the event engine, preconditions, collects statistics and builds the [`Report`].
//!
//! Each source is closed-loop at its queue depth (a fio job at `iodepth`, a trace replayed as
//! fast as possible at `--qd`) or open-loop (a trace replayed at its arrival times). One event
//! per request: the device computes a request's completion when it arrives, and the completion
//! event issues the source's next request. Jobs separated by `stonewall` run in groups.

pub mod fs;
mod precondition;
mod queues;
mod report;
pub mod scenario;
mod source;
mod spec;
pub mod sweep;

pub use precondition::Precondition;
pub use report::{assemble, RunRecord};
pub use source::{ReplayMode, TraceReplay};
use spec::Workload;
pub use spec::{
    execute, run_device, RunSpec, WorkloadSpec, DEFAULT_WORKLOAD, DEFAULT_ZONED_WORKLOAD,
};

use crate::device::{Device, Submitted};
use crate::engine::{EventQueue, SimTime};
use crate::error::{Error, Result};
use crate::firmware::IdleWork;
use crate::host::iotailor::{Hold, IoTailor, TailorConfig, TailorCounters};
use crate::host::order::{OrderConfig, OrderCounters, ZoneWriteOrder};
use crate::host::sched::PrioDispatch;
use crate::host::{HostIo, IoKind};
use crate::interface::{Command, Completion, Op, ZoneAction};
use crate::stats::report::{HostReport, JobCdf, JobPriority, JobReport};
use crate::stats::{IoStats, Report, Sampler, SeriesSection};
use queues::HostQueues;
use source::Source;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

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

/// What the caller of a run sees and steers while it runs.
#[derive(Default)]
pub struct Control<'a> {
    /// Called now and then (every 65536 completions) with the phase and the requests completed.
    pub progress: Option<Progress<'a>>,
    /// Checked at the same points: once set (by another thread, a signal handler), the run
    /// stops with [`Error::Interrupted`].
    pub stop: Option<&'a AtomicBool>,
}

impl Control<'_> {
    /// Neither a progress observer nor a stop flag.
    pub fn none() -> Control<'static> {
        Control::default()
    }

    /// Report progress; an error if the run is to stop.
    #[cold]
    fn tick(&mut self, phase: &'static str, completed: u64) -> Result<()> {
        if let Some(p) = &mut self.progress {
            p(phase, completed);
        }
        match self.stop {
            Some(s) if s.load(Ordering::Relaxed) => Err(Error::Interrupted { phase, completed }),
            _ => Ok(()),
        }
    }
}

enum Ev {
    /// A request completes.
    Done(InFlight),
    /// A requeued zoned write (slot `slot` of the held requests) reaches the device.
    Submit { slot: u32 },
    /// A request parked in the device as `token` (a read waiting for its map page) continues.
    Resume { token: u32, r: InFlight },
    /// IOTailor's hold bound for zone `zone` of namespace `ns` (generation `gen`) expires.
    Hold { ns: u32, zone: u32, gen: u32 },
    /// Source `src` issues its next request (after think time / at a trace arrival).
    Issue { src: u32 },
    /// Stonewall group `g` starts.
    Group { g: u32 },
    /// A step of idle work `work` (background GC, SLC write-back), valid if no request was
    /// issued since `token`.
    Idle { token: u64, work: IdleWork },
    /// The controller fetches the next command from the host queues (sim/queues.rs).
    Fetch,
    /// The flash work of a request is done: the firmware cores complete it (`token`).
    Flash { token: u32, r: InFlight },
    /// The host file system's background GC thread wakes.
    FsBg,
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
    /// The idle work the device does and the host idle time before its first step.
    idle: Vec<(IdleWork, u64)>,
    error: Option<Error>,
    queues: HostQueues,
    /// Time series of the measured phase (`stats.interval_ms`), when on.
    sampler: Option<Sampler>,
    /// The sampler's next interval boundary; `SimTime::MAX` when off (one compare per event).
    next_sample: SimTime,
    /// The host file system (`--fs`), if any.
    fs: Option<fs::FsHost>,
    last_issue: SimTime,
    /// Zone write locks and requeueing of the zoned namespaces' writes (host/order.rs), by
    /// namespace; None for a conventional namespace.
    order: Vec<Option<ZoneWriteOrder<Held>>>,
    /// Requeued requests on their way (slots reused through `free_held`).
    held: Vec<Held>,
    free_held: Vec<u32>,
    /// IOTailor's per-zone queues of the zoned namespaces (host/iotailor.rs), by namespace;
    /// empty unless `host.iotailor` (measured run only).
    tailor: Vec<Option<IoTailor<Held>>>,
    /// The host scheduler in front of the device's tags (`host.device_tags` > 0).
    sched: Option<PrioDispatch<Held>>,
}

/// A zoned write between the host and the device: issued, waiting for its zone's lock or
/// requeued.
#[derive(Debug, Clone, Copy)]
struct Held {
    src: u32,
    io: HostIo,
    issued: SimTime,
    zone: u32,
    /// The IOTailor request this is, or NO_OUT (a host request as issued).
    out: u32,
    /// It holds one of the device's tags (`host.device_tags`, host/sched.rs).
    tag: bool,
}

/// A request the device is working on, as its completion events carry it: what the host
/// needs to finish it (Held without the offset, which the device has taken).
#[derive(Debug, Clone, Copy)]
struct InFlight {
    src: u32,
    kind: IoKind,
    issued: SimTime,
    bytes: u64,
    /// The zone whose write lock it holds, or NO_LOCK.
    zone: u32,
    /// The IOTailor request it is, or NO_OUT (a host request as issued).
    out: u32,
    /// It holds one of the device's tags (`host.device_tags`, host/sched.rs).
    tag: bool,
}

impl InFlight {
    fn of(h: &Held) -> InFlight {
        InFlight {
            src: h.src,
            kind: h.io.kind,
            issued: h.issued,
            bytes: h.io.len,
            zone: h.zone,
            out: h.out,
            tag: h.tag,
        }
    }

    /// Back to a host request (offset 0: the device has it) to reschedule.
    fn held(self) -> Held {
        Held {
            src: self.src,
            io: HostIo::new(self.kind, 0, self.bytes),
            issued: self.issued,
            zone: self.zone,
            out: self.out,
            tag: self.tag,
        }
    }
}

/// No zone lock held by a request.
const NO_LOCK: u32 = u32::MAX;
/// Not an IOTailor request.
const NO_OUT: u32 = u32::MAX;

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
        let idle = IdleWork::ALL
            .into_iter()
            .filter_map(|w| Some((w, dev.idle_timer(w)?.after_ns)))
            .collect();
        let order = (0..dev.namespaces.len())
            .map(|ns| {
                let z = dev.zones(ns)?;
                let h = &dev.cfg.host;
                let cfg = OrderConfig {
                    zone_write_lock: h.zone_write_lock,
                    requeue_probability: h.requeue_probability,
                    requeue_delay_ns: SimTime::from_us(h.requeue_delay_us).ns(),
                };
                let zc = z.zone_config();
                let zone_bytes = zc.zone_size * crate::nand::SLOT_BYTES;
                Some(ZoneWriteOrder::new(cfg, zc.zones, zone_bytes, ns as u64))
            })
            .collect();
        let depth = dev.cfg.host.device_tags;
        Engine {
            order,
            tailor: Vec::new(),
            sched: (depth > 0).then(|| PrioDispatch::new(depth)),
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
            idle,
            error: None,
            queues,
            sampler: None,
            next_sample: SimTime::MAX,
            fs: None,
            last_issue: SimTime::ZERO,
        }
    }

    /// Sample a time series every `interval_ns` from `start` (the measured phase).
    fn sample_every(&mut self, interval_ns: u64, start: SimTime) {
        let s = Sampler::new(interval_ns, start, &self.sections());
        self.next_sample = s.next_boundary();
        self.sampler = Some(s);
    }

    /// The components whose state the time series samples, in column order after the host
    /// columns. Extension point: a model with its own columns (a host file system) implements
    /// `stats::SeriesSection` and is listed here.
    fn sections(&self) -> Vec<&dyn SeriesSection> {
        let mut v: Vec<&dyn SeriesSection> = vec![&*self.dev];
        if let Some(fs) = &self.fs {
            v.push(fs);
        }
        v
    }

    /// Close the intervals of the time series that end at or before `now`.
    #[cold]
    fn sample(&mut self, now: SimTime) {
        let Some(mut s) = self.sampler.take() else {
            return;
        };
        s.advance(now, &self.sections());
        self.next_sample = s.next_boundary();
        self.sampler = Some(s);
    }

    fn run(&mut self, start: SimTime, ctl: &mut Control) -> Result<SimTime> {
        self.q.push(start, Ev::Group { g: 0 });
        if let Some(h) = &self.fs {
            if h.fs.p.background_gc {
                self.q
                    .push(start + h.fs.p.gc_min_sleep_time_ms * 1_000_000, Ev::FsBg);
            }
        }
        let mut now = start;
        while let Some((t, ev)) = self.q.pop() {
            if let Ev::FsBg = ev {
                // The file system's GC thread does not extend a finished run.
                if self.on_fs_bg(t) {
                    now = t;
                }
                continue;
            }
            now = t;
            if t >= self.next_sample {
                self.sample(t);
            }
            match ev {
                Ev::Done(r) => self.on_done(now, r),
                Ev::Resume { token, r } => {
                    let ns = self.sources[r.src as usize].ns;
                    let c = self.dev.resume(now, ns, token);
                    self.schedule(c, r.held());
                }
                Ev::Hold { ns, zone, gen } => {
                    let t = self.tailor[ns as usize].as_mut().expect("iotailor");
                    t.expire(now.ns(), zone, gen);
                    self.issue_tailored(now, ns as usize);
                }
                Ev::Issue { src } => self.issue(now, src),
                Ev::Submit { slot } => {
                    let h = self.held[slot as usize];
                    self.free_held.push(slot);
                    self.submit(now, h);
                }
                Ev::Group { g } => self.start_group(now, g),
                Ev::Idle { token, work } => self.on_idle(now, token, work),
                Ev::Fetch => self.on_fetch(now),
                Ev::Flash { token, r } => {
                    let done = self.dev.complete_queued(now, token);
                    self.schedule(Completion::at(done), r.held());
                }
                Ev::FsBg => {}
            }
            if let Some(e) = self.error.take() {
                return Err(e);
            }
            if self.completed & 0xFFFF == 0 {
                ctl.tick(self.phase, self.completed)?;
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
                if let Some(w) = self.dev.zones(ns).map(|z| z.write_pointers()) {
                    self.sources[src as usize].refresh_zone_write_pointers(&w);
                }
            }
            self.sources[src as usize].start(now);
            if let (Some(h), Some(fj)) = (&mut self.fs, &mut self.sources[src as usize].files) {
                h.fs.now = now.ns();
                fj.setup(h);
                let ready = h.submit(self.dev, now);
                if ready > now {
                    for _ in 0..self.sources[src as usize].depth {
                        self.q.push(ready, Ev::Issue { src });
                    }
                    continue;
                }
            }
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
            Ok(None) => {
                self.maybe_tail(now, src);
                return;
            }
            Err(e) => {
                self.fail(e);
                return;
            }
        };
        self.last_issue = now;
        if s.files.is_none() {
            // Offsets of a file job are file offsets: nothing to prefetch on the device.
            let dev = &*self.dev;
            s.upcoming(|offset| dev.prefetch(s.ns, offset));
        }
        if let (Some(h), Some(fj)) = (&mut self.fs, &mut s.files) {
            // A file job: the host file system issues the device's requests (no host queues).
            h.fs.now = now.ns();
            let done = match fj.run(h, &io) {
                Ok(cpu) => {
                    if io.kind == IoKind::Read {
                        h.reads_in_flight += 1;
                    }
                    h.submit(self.dev, now).max(now + cpu)
                }
                Err(_) => {
                    // ENOSPC: counted by the file system; the job ends like fio's (what
                    // the failed call queued, e.g. GC and checkpoints, still reaches the
                    // device).
                    h.submit(self.dev, now);
                    s.stop();
                    self.maybe_tail(now, src);
                    return;
                }
            };
            self.book(now, src, Completion::at(done), io.kind, io.len);
        } else {
            let q = self.count_issued(now, src);
            let h = Held {
                src,
                io,
                issued: now,
                zone: NO_LOCK,
                out: NO_OUT,
                tag: false,
            };
            match self.dev.fetch_free_at(now) {
                // Fetching takes the HIL core: the command waits in its queue unless the core
                // is free and no other command waits.
                Some(free) if free > now || self.queues.any_waiting() => {
                    self.queues.wait(q, h);
                    self.schedule_fetch(now.max(free));
                }
                _ => self.route(now, h),
            }
        }
        if self.sources[src as usize].open_loop() {
            self.schedule_arrival(src);
        }
    }

    /// Count a request of `src` issued at `now` (source, queue, totals); its queue.
    fn count_issued(&mut self, now: SimTime, src: u32) -> u32 {
        let s = &mut self.sources[src as usize];
        let q = s.queue;
        s.outstanding += 1;
        s.issued += 1;
        s.stats.issued(now);
        if let Some(st) = self.queues.stats.get_mut(q as usize) {
            st.issued(now);
        }
        self.outstanding += 1;
        self.issued += 1;
        self.queues.submitted(q);
        q
    }

    fn schedule_fetch(&mut self, at: SimTime) {
        if !self.queues.fetch_scheduled {
            self.queues.fetch_scheduled = true;
            self.q.push(at, Ev::Fetch);
        }
    }

    /// The controller fetches the command the arbiter picks (it goes on through the zone
    /// write ordering); the next fetch when the HIL core is free again.
    fn on_fetch(&mut self, now: SimTime) {
        self.queues.fetch_scheduled = false;
        let free = self.dev.fetch_free_at(now).unwrap_or(now);
        if free > now {
            self.schedule_fetch(free);
            return;
        }
        if let Some((_, h)) = self.queues.fetch() {
            self.route(now, h);
        }
        if self.queues.any_waiting() {
            let free = self.dev.fetch_free_at(now).unwrap_or(now);
            self.schedule_fetch(free.max(now));
        }
    }

    /// Count a request of `src` issued at `now` and schedule its completion `c` (a request
    /// that bypasses the zone write ordering: file-system requests and job tails).
    fn book(&mut self, now: SimTime, src: u32, c: Completion, kind: IoKind, bytes: u64) {
        self.count_issued(now, src);
        let h = Held {
            src,
            io: HostIo::new(kind, 0, bytes),
            issued: now,
            zone: NO_LOCK,
            out: NO_OUT,
            tag: false,
        };
        self.schedule(c, h);
    }

    /// Schedule the completion `c` of request `h` (of `h.io.len` bytes, issued at `h.issued`,
    /// holding `h.zone`'s write lock or NO_LOCK, and a device tag or not), or its resumption
    /// when the device parked it.
    fn schedule(&mut self, c: Completion, h: Held) {
        let r = InFlight::of(&h);
        let ev = match c.resume {
            None => Ev::Done(r),
            Some(token) => Ev::Resume { token, r },
        };
        self.q.push(c.done, ev);
    }

    /// A device request through the host's zone write ordering: zoned writes wait for their
    /// zone's lock (appends need none: the device picks their LBA); the rest go at once.
    fn route(&mut self, now: SimTime, h: Held) {
        let ns = self.sources[h.src as usize].ns;
        if h.out == NO_OUT
            && self.tailor.get(ns).is_some_and(Option::is_some)
            && self.tailor_io(now, ns, h)
        {
            return;
        }
        self.order_io(now, ns, h);
    }

    /// A host request through IOTailor (host/iotailor.rs): a zoned write enters its zone's
    /// queue (true: the queue owns it); a flush or zone command first releases the held
    /// bytes it orders after, then goes on (false).
    fn tailor_io(&mut self, now: SimTime, ns: usize, h: Held) -> bool {
        let t = self.tailor[ns].as_mut().expect("iotailor");
        let io = h.io;
        let taken = match io.kind {
            IoKind::Write if t.fits(io.offset, io.len) => {
                if let Some(Hold { zone, gen, at_ns }) = t.write(now.ns(), io.offset, io.len, h) {
                    let ev = Ev::Hold {
                        ns: ns as u32,
                        zone,
                        gen,
                    };
                    self.q.push(SimTime(at_ns), ev);
                }
                true
            }
            IoKind::Write => {
                t.bypass(now.ns(), io.offset);
                false
            }
            IoKind::Flush => {
                t.sync_all(now.ns());
                false
            }
            IoKind::ZoneReset | IoKind::ZoneFinish | IoKind::ZoneClose => {
                let z = t.zone_of(io.offset);
                t.sync_zone(now.ns(), z);
                false
            }
            _ => false,
        };
        self.issue_tailored(now, ns);
        taken
    }

    /// The device requests IOTailor just released, through the zone write ordering.
    fn issue_tailored(&mut self, now: SimTime, ns: usize) {
        let t = self.tailor[ns].as_mut().expect("iotailor");
        let mut issued = std::mem::take(&mut t.issued);
        for e in issued.drain(..) {
            let h = Held {
                io: HostIo {
                    offset: e.offset,
                    len: e.len,
                    ..e.tag.io
                },
                issued: now,
                out: e.id,
                ..e.tag
            };
            self.order_io(now, ns, h);
        }
        self.tailor[ns].as_mut().expect("iotailor").issued = issued;
    }

    /// A device request through the host's zone write ordering (see `route`).
    fn order_io(&mut self, now: SimTime, ns: usize, h: Held) {
        match self.zoned_write(ns, h.io) {
            Some(_) if h.io.kind == IoKind::ZoneAppend => self.dispatch(now, h),
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

    /// Put IOTailor (`host.iotailor`) in front of every zoned namespace.
    fn tailor_writes(&mut self) {
        let hold_ns = SimTime::from_us(self.dev.cfg.host.iotailor_hold_us).ns();
        self.tailor = (0..self.dev.namespaces.len())
            .map(|ns| {
                let z = self.dev.zones(ns)?;
                let zc = z.zone_config();
                let cfg = TailorConfig {
                    superpage: z.superpage_bytes,
                    zone_bytes: zc.zone_size * crate::nand::SLOT_BYTES,
                    zone_capacity: zc.zone_capacity * crate::nand::SLOT_BYTES,
                    hold_ns,
                };
                Some(IoTailor::new(cfg, zc.zones))
            })
            .collect();
    }

    /// IOTailor's counters of the zoned namespaces, merged; None when it is off.
    fn iotailor(&self) -> Option<TailorCounters> {
        let mut all = self.tailor.iter().flatten().peekable();
        all.peek()?;
        let mut c = TailorCounters::default();
        for t in all {
            c.merge(&t.counters());
        }
        Some(c)
    }

    /// The zone of a write or append to a zoned namespace (they go through the host's zone
    /// write ordering), else None.
    #[inline]
    fn zoned_write(&self, ns: usize, io: HostIo) -> Option<u32> {
        if !matches!(io.kind, IoKind::Write | IoKind::ZoneAppend) {
            return None;
        }
        // A zoned namespace is one with a zone write ordering.
        Some(self.order[ns].as_ref()?.zone_of(io.offset))
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

    /// The request leaves the host: to the device now, or into the host scheduler when every
    /// device tag is in use (`host.device_tags`, host/sched.rs).
    #[inline]
    fn submit(&mut self, now: SimTime, h: Held) {
        let Some(sched) = &mut self.sched else {
            self.reach_device(now, h, false);
            return;
        };
        let prio = self.sources[h.src as usize].prio;
        if let Some(h) = sched.admit(prio, h) {
            self.reach_device(now, h, true);
        }
    }

    /// The request reaches the device now; its completion (or resumption) is scheduled.
    /// With the firmware model on, the cores book the whole request (device/firmware.rs): the
    /// flash part ends in an `Ev::Flash`, then the cores' back half completes it.
    #[inline]
    fn reach_device(&mut self, now: SimTime, h: Held, tag: bool) {
        let h = Held { tag, ..h };
        let s = &self.sources[h.src as usize];
        let (ns, q) = (s.ns, s.queue);
        if self.dev.fw.off() {
            let c = self.dev.submit_deferring(now, ns, command(&h.io));
            self.schedule(c, h);
            return;
        }
        match self.dev.submit_queued(h.issued, now, ns, q, command(&h.io)) {
            Submitted::Done(c) => self.schedule(c, h),
            Submitted::Flash { at, token, .. } => {
                let ev = Ev::Flash {
                    token,
                    r: InFlight::of(&h),
                };
                self.q.push(at, ev);
            }
        }
    }

    /// Request `r` completes now: its device tag, zone lock and IOTailor request are released.
    fn on_done(&mut self, now: SimTime, r: InFlight) {
        let InFlight {
            src,
            kind,
            issued,
            bytes,
            zone,
            out,
            tag,
        } = r;
        let ns = self.sources[src as usize].ns;
        if tag {
            let next = self.sched.as_mut().and_then(PrioDispatch::release);
            if let Some(h) = next {
                self.reach_device(now, h, true);
            }
        }
        if zone != NO_LOCK {
            if let Some(next) = self.order[ns].as_mut().and_then(|o| o.completed(zone)) {
                self.dispatch(now, next);
            }
        }
        if out == NO_OUT {
            self.host_done(now, src, kind, issued, bytes);
            return;
        }
        // An IOTailor request: the host writes whose last bytes it carried complete.
        let t = self.tailor[ns].as_mut().expect("iotailor");
        let z = t.completed(out);
        let mut done = std::mem::take(&mut t.done);
        for h in done.drain(..) {
            self.host_done(now, h.src, h.io.kind, h.issued, h.io.len);
        }
        let t = self.tailor[ns].as_mut().expect("iotailor");
        t.done = done;
        t.settle(now.ns(), z);
        self.issue_tailored(now, ns);
    }

    /// Host request of `src` issued at `issued` completes now: statistics, the source's next.
    fn host_done(&mut self, now: SimTime, src: u32, kind: IoKind, issued: SimTime, bytes: u64) {
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
        if let Some(ts) = &mut self.sampler {
            ts.record(kind, issued, now, bytes);
        }
        if kind == IoKind::Read && s.files.is_some() {
            if let Some(h) = &mut self.fs {
                h.reads_in_flight -= 1;
            }
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
        self.maybe_tail(now, src);
        self.maybe_finish_group(now, src);
        if self.outstanding == 0 {
            for i in 0..self.idle.len() {
                let (work, after) = self.idle[i];
                let token = self.issued;
                self.q.push(now + after, Ev::Idle { token, work });
            }
        }
    }

    /// When every source of `src`'s group is finished, start the next group.
    fn maybe_finish_group(&mut self, now: SimTime, src: u32) {
        if !self.sources[src as usize].finished() {
            return; // its group is not finished either (the common case: one check)
        }
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

    /// A file job that ran out of requests: its `end_fsync` / `unlink`, as one more request.
    fn maybe_tail(&mut self, now: SimTime, src: u32) {
        let s = &mut self.sources[src as usize];
        if s.outstanding > 0 || !s.finished_issuing() {
            return;
        }
        let (Some(h), Some(fj)) = (&mut self.fs, &mut s.files) else {
            return;
        };
        if !fj.has_tail() {
            return;
        }
        h.fs.now = now.ns();
        fj.tail(h);
        let done = h.submit(self.dev, now);
        self.book(now, src, Completion::at(done), IoKind::Flush, 0);
    }

    /// The file system's background GC thread: gated by idleness (conventional: no request
    /// for `gc_idle_time`; zoned: no user read in flight), stops when every source is done.
    fn on_fs_bg(&mut self, now: SimTime) -> bool {
        if self.sources.iter().all(|s| s.finished()) {
            return false;
        }
        let Some(h) = &mut self.fs else { return false };
        let idle = if h.fs.geo.zoned {
            h.reads_in_flight == 0
        } else {
            self.outstanding == 0
                && now.since(self.last_issue) >= h.fs.p.gc_idle_time_ms * 1_000_000
        };
        if let Some(sleep) = h.fs.bg_tick(now.ns(), idle) {
            h.submit(self.dev, now);
            self.q.push(now + sleep.max(1), Ev::FsBg);
        }
        true
    }

    /// One step of idle work; the next when the device says (a request arriving in between
    /// waits only for the operations in flight).
    fn on_idle(&mut self, now: SimTime, token: u64, work: IdleWork) {
        if token != self.issued || self.outstanding != 0 || self.q.is_empty() {
            // A request arrived since, or the run is over.
            return;
        }
        if let Some(next) = self.dev.idle(now, work) {
            self.q.push(next, Ev::Idle { token, work });
        }
    }
}

/// Run a resolved workload on `dev` (fresh, or after what it already ran): the body of
/// [`execute`] and [`run_device`]. A scenario runs on the host file system step by step
/// (`scenario.rs`); jobs and traces run on the event engine.
pub(crate) fn run_resolved(
    dev: &mut Device,
    workload: &Workload,
    opts: &RunOptions,
    ctl: &mut Control,
) -> Result<Report> {
    if let Workload::Scenario(sc) = workload {
        return scenario::run(dev, sc, opts);
    }
    let wall = Instant::now();
    dev.check_namespace(opts.namespace)?;
    check_iotailor(dev, opts.namespace)?;
    // mkfs reads the device's layout only, so its rules are checked before preconditioning;
    // its writes reach the device after it, before the measured run.
    let mut fs_host = match &dev.cfg.fs {
        Some(c) => Some(fs::mount(&c.clone(), dev, opts.namespace)?),
        None => None,
    };
    let pre = precondition::run(dev, opts, ctl)?;
    let t0 = dev.clock;
    if opts.check_invariants {
        dev.check_invariants().map_err(invariant)?;
    }
    let t0 = match &mut fs_host {
        Some(h) => h.submit(dev, t0),
        None => t0,
    };
    dev.reset_counters();
    let sources = source::build(workload, dev, opts.namespace, opts.seed, fs_host.is_some())?;
    if let Some(h) = &fs_host {
        for s in &sources {
            if let Some(fj) = &s.files {
                fj.check_ipu(&s.name, h)?;
            }
        }
    }
    let measure = Instant::now();
    let measure_cpu = crate::stats::report::thread_cpu_s();
    let interval_ns = SimTime::from_us(dev.cfg.stats.interval_ms * 1000.0).ns();
    let mut eng = Engine::new(dev, sources);
    if eng.dev.cfg.host.iotailor {
        eng.tailor_writes();
    }
    eng.fs = fs_host;
    if interval_ns > 0 {
        eng.sample_every(interval_ns, t0);
    }
    let mut end = eng.run(t0, ctl)?;
    let timeseries = eng.sampler.take().map(|s| s.finish(end, &eng.sections()));
    // Unmount: the dirty data and a checkpoint reach the device.
    let mut fs_host = eng.fs.take();
    if let Some(h) = &mut fs_host {
        h.fs.now = end.ns();
        h.fs.sync();
        end = end.max(h.submit(eng.dev, end));
        if opts.check_invariants {
            h.fs.check_invariants().map_err(invariant)?;
        }
    }
    let measure_wall_s = measure.elapsed().as_secs_f64();
    let measure_cpu_s = crate::stats::report::thread_cpu_s() - measure_cpu;
    let (issued, completed, events) = (eng.issued, eng.completed, eng.q.events());
    let ordering = eng.ordering();
    let iotailor = eng.iotailor();
    let dispatch = eng.sched.as_ref().map(|s| s.counters.clone());
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
    let mut latency_cdfs = Vec::new();
    for s in &sources {
        total.merge(&s.stats);
        latency_cdfs.extend(s.stats.cdfs().into_iter().map(|(op, points)| JobCdf {
            job: s.name.clone(),
            op,
            points,
        }));
        jobs.push(JobReport {
            name: s.name.clone(),
            namespace: s.ns,
            priority: JobPriority::of(s.prio),
            host: HostReport::from_stats(&s.stats),
        });
        if let Some(t) = s.trace_report() {
            trace = Some(t);
        }
    }
    let mut host = HostReport::from_stats(&total);
    host.queues = queue_stats.iter().map(HostReport::from_stats).collect();
    let record = report::RunRecord {
        seed: opts.seed,
        start: t0,
        end,
        wall_s: wall.elapsed().as_secs_f64(),
        measure_wall_s,
        measure_cpu_s: Some(measure_cpu_s),
        events,
        issued,
        completed,
        host,
        jobs,
        latency_cdfs,
        precondition: pre,
        trace,
        timeseries,
        ordering,
        iotailor,
        dispatch,
        ..report::RunRecord::default()
    };
    Ok(report::assemble(dev, fs_host.as_ref(), record))
}

/// `host.iotailor` reshapes the zoned writes of the run's sources: the run's namespace must be
/// zoned, and a host file system (which submits its own commands) is not tailored.
pub(crate) fn check_iotailor(dev: &Device, ns: usize) -> Result<()> {
    if !dev.cfg.host.iotailor {
        return Ok(());
    }
    if dev.zones(ns).is_none() {
        return Err(Error::config(
            "host.iotailor",
            format!("reshapes writes to zones; namespace {ns} (--namespace) is not zoned"),
        ));
    }
    if dev.cfg.fs.is_some() {
        return Err(Error::config(
            "host.iotailor",
            "the host file system (fs) submits its own device commands, which IOTailor does not reshape; set one of them",
        ));
    }
    Ok(())
}

fn invariant(msg: String) -> Error {
    Error::internal(msg)
}

/// Run sources on an existing device from `start` (used by preconditioning); returns the end.
fn run_on(
    dev: &mut Device,
    sources: Vec<Source>,
    start: SimTime,
    ctl: &mut Control,
) -> Result<SimTime> {
    let mut eng = Engine::new(dev, sources);
    eng.phase = "preconditioning";
    eng.run(start, ctl)
}

/// The device command for a host request: the run is the adapter between the host side
/// (requests in bytes) and the device side (commands on 4 KiB logical pages).
pub fn command(io: &HostIo) -> Command {
    let op = match io.kind {
        IoKind::Read => Op::Read,
        IoKind::Write => Op::Write { hint: io.hint },
        IoKind::ZoneAppend => Op::Append,
        IoKind::InPlace => Op::InPlace { hint: io.hint },
        IoKind::Trim => Op::Trim,
        IoKind::Flush => Op::Flush,
        IoKind::ZoneOpen => Op::Zone(ZoneAction::Open),
        IoKind::ZoneClose => Op::Zone(ZoneAction::Close),
        IoKind::ZoneFinish => Op::Zone(ZoneAction::Finish),
        IoKind::ZoneReset => Op::Zone(ZoneAction::Reset),
    };
    Command::widen(op, io.offset, io.len)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The event queue moves events by value: the in-flight request is carried once, and an
    /// event stays five words (it was before `InFlight`).
    #[test]
    fn event_stays_small() {
        assert_eq!(std::mem::size_of::<InFlight>(), 32);
        assert!(
            std::mem::size_of::<Ev>() <= 40,
            "{}",
            std::mem::size_of::<Ev>()
        );
    }
}
