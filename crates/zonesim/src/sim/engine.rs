//! The event engine of a run: one event queue over one device, the sources that issue host
//! requests (closed-loop at their queue depth, or open-loop at trace arrival times), stonewall
//! groups, the host file system's background thread, idle work and the time-series sampler.
//! One event per request: the device computes a request's completion when it arrives
//! (`Device::submit*`), and the completion event issues the source's next request. What a
//! request meets on its way to the device and back is the host path's (`host_path.rs`).

use super::fs::FsHost;
use super::host_cpu::{CpuRun, FsWork};
use super::host_path::{schedule, Held, HostPath, InFlight, Rejected, Released};
use super::power::PowerRun;
use super::source::Source;
use super::{Control, Tick, TICK_COMPLETIONS};
use crate::device::Device;
use crate::engine::{EventQueue, SimTime};
use crate::error::{Error, Result};
use crate::firmware::IdleWork;
use crate::host::{HostIo, IoKind};
use crate::interface::Completion;
use crate::stats::timeseries::MAX_JOB_SERIES;
use crate::stats::{Sampler, SeriesSection};

/// The events of a run, in one queue ordered by (time, insertion).
pub(super) enum Ev {
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
    /// A request (slot `slot` of the held requests) leaves its thread's submission path on
    /// the host CPU and enters the host path (`host.cpu`, host_cpu.rs).
    Arrive { slot: u32 },
    /// A request the device completed leaves its completion path on the host CPU: the source
    /// sees it now (`host.cpu`).
    HostDone(InFlight),
}

/// The engine state of one run over one device.
pub(super) struct Engine<'d> {
    /// Reported to the progress observer.
    pub phase: &'static str,
    pub dev: &'d mut Device,
    pub q: EventQueue<Ev>,
    pub sources: Vec<Source>,
    groups: Vec<Vec<u32>>,
    outstanding: u64,
    pub issued: u64,
    pub completed: u64,
    /// The idle work the device does and the host idle time before its first step.
    idle: Vec<(IdleWork, u64)>,
    error: Option<Error>,
    /// Queues, IOTailor, zone write ordering and tags between the sources and the device.
    pub host: HostPath,
    /// Time series of the measured phase (`stats.interval_ms`), when on.
    pub sampler: Option<Sampler>,
    /// The sampler's next interval boundary; `SimTime::MAX` when off (one compare per event).
    next_sample: SimTime,
    /// The host file system (`--fs`), if any.
    pub fs: Option<FsHost>,
    last_issue: SimTime,
    /// Ended early on request (`Control::finish`): the sources issue nothing more and the
    /// requests in flight complete.
    pub interrupted: bool,
    /// Events the interruption popped to sort out (not counted as processed).
    pub purged: u64,
    /// The host CPU (`host.cpu.cores` > 0, measured run only); None: the host takes no time.
    pub cpu: Option<CpuRun>,
    /// Power states and the wake-up of an idle device (a run with a power option).
    pub power: Option<Box<PowerRun>>,
    /// Power is cut once this many requests were issued, or at this time (MAX: never).
    pub cut_after: u64,
    pub cut_at: SimTime,
    /// When power was cut (`sim/power.rs`); the requests in flight then never complete.
    pub cut: Option<SimTime>,
}

impl<'d> Engine<'d> {
    /// `seed`: the run's (the host path's random draws derive from it).
    pub fn new(dev: &'d mut Device, mut sources: Vec<Source>, seed: u64) -> Engine<'d> {
        let host = HostPath::new(dev, &mut sources, seed);
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
        Engine {
            host,
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
            sampler: None,
            next_sample: SimTime::MAX,
            fs: None,
            last_issue: SimTime::ZERO,
            interrupted: false,
            purged: 0,
            cpu: None,
            power: None,
            cut_after: u64::MAX,
            cut_at: SimTime::MAX,
            cut: None,
        }
    }

    /// Sample a time series every `interval_ns` from `start` (the measured phase); runs of 2 to
    /// `MAX_JOB_SERIES` jobs sample each job's own rows too. Refused up front when a source that
    /// runs for a known time already needs more rows than the series may hold.
    pub fn sample_every(&mut self, interval_ns: u64, start: SimTime) -> Result<()> {
        let n = self.sources.len();
        let jobs: Vec<String> = if (2..=MAX_JOB_SERIES).contains(&n) {
            self.sources.iter().map(|s| s.name.clone()).collect()
        } else {
            Vec::new()
        };
        let s = Sampler::new(interval_ns, start, &self.sections(), &jobs);
        let (_, cols) = s.shape();
        let max_rows = s.max_rows();
        let lasts = self
            .sources
            .iter()
            .filter_map(|s| s.runs_at_least_ns())
            .max();
        if let Some(ns) = lasts.filter(|&ns| ns / interval_ns.max(1) >= max_rows as u64) {
            return Err(Error::config(
                "stats.interval_ms",
                format!(
                    "{} ms is too small for this run: its time-based jobs run {:.3} s, {} rows of {cols} columns, more than a time series holds (at most {} values); raise it",
                    interval_ns as f64 / 1e6,
                    ns as f64 / 1e9,
                    ns / interval_ns.max(1),
                    crate::stats::timeseries::MAX_VALUES,
                ),
            ));
        }
        self.next_sample = s.next_boundary();
        self.sampler = Some(s);
        Ok(())
    }

    /// The components whose state the time series samples, in column order after the host
    /// columns. Extension point: a model with its own columns (a host file system) implements
    /// `stats::SeriesSection` and is listed here.
    pub fn sections(&self) -> Vec<&dyn SeriesSection> {
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
        if s.full() {
            // The series is lost: the run ends here rather than simulating on without it.
            let (rows, cols) = s.shape();
            self.fail(series_too_long(s.interval_ns(), rows, cols));
        }
        self.sampler = Some(s);
    }

    pub fn run(&mut self, start: SimTime, ctl: &mut Control) -> Result<SimTime> {
        if ctl.finishing() {
            self.interrupt();
        }
        self.q.push(start, Ev::Group { g: 0 });
        if let Some(h) = &self.fs {
            if let Some(t) = h.fs.first_bg_wake(start.ns()) {
                self.q.push(SimTime(t), Ev::FsBg);
            }
        }
        let mut now = start;
        while let Some((t, ev)) = self.q.pop() {
            if t > self.cut_at {
                break; // power fails: what is still queued never happens
            }
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
                    self.host.on_resume(self.dev, &mut self.q, now, token, r)
                }
                Ev::Hold { ns, zone, gen } => {
                    let hold = (ns as usize, zone, gen);
                    self.host.on_hold(self.dev, &mut self.q, now, hold);
                }
                Ev::Issue { src } => self.issue(now, src),
                Ev::Submit { slot } => self.host.on_submit(self.dev, &mut self.q, now, slot),
                Ev::Group { g } => self.start_group(now, g),
                Ev::Idle { token, work } => self.on_idle(now, token, work),
                Ev::Fetch => self.host.on_fetch(self.dev, &mut self.q, now),
                Ev::Flash { token, r } => HostPath::on_flash(self.dev, &mut self.q, now, token, r),
                Ev::Arrive { slot } => self.on_arrive(now, slot),
                Ev::HostDone(r) => self.host_done(now, r.src, r.kind, r.issued, r.bytes),
                Ev::FsBg => {}
            }
            if let Some(e) = self.error.take() {
                return Err(e);
            }
            if let Some(r) = self.host.rejected {
                return Err(self.rejected_error(r));
            }
            if self.issued >= self.cut_after {
                self.cut = Some(now);
                return Ok(now);
            }
            if self.completed & (TICK_COMPLETIONS - 1) == 0 {
                ctl.tick(&self.snapshot(start, now))?;
                if !self.interrupted && ctl.finishing() {
                    self.interrupt();
                }
            }
        }
        if self.cut_at != SimTime::MAX {
            // Power fails at its time, even after the last request.
            now = now.max(self.cut_at);
            self.cut = Some(now);
            return Ok(now);
        }
        debug_assert_eq!(self.issued, self.completed, "requests lost or duplicated");
        Ok(now)
    }

    /// The phase (started at `start`) at `now`, for the progress observer.
    #[cold]
    fn snapshot(&self, start: SimTime, now: SimTime) -> Tick {
        let mut fraction = Some(0.0);
        let mut bytes = 0;
        for s in &self.sources {
            fraction = fraction.zip(s.progress(now)).map(|(a, b)| a + b);
            bytes += s.stats.read.bytes + s.stats.write.bytes + s.stats.trim.bytes;
        }
        Tick {
            phase: self.phase,
            completed: self.completed,
            bytes,
            simulated_ns: now.since(start),
            fraction: fraction.map(|f| f / self.sources.len().max(1) as f64),
        }
    }

    /// End the run early: every source stops issuing; the requests in flight complete, so
    /// every issued request completes once and the device invariants hold at the end.
    #[cold]
    fn interrupt(&mut self) {
        self.interrupted = true;
        for s in &mut self.sources {
            s.stop();
        }
        // The pending arrivals and group starts go (a later one would extend the run); the
        // events of requests in flight stay, in their order.
        let mut kept = Vec::with_capacity(self.q.len());
        self.purged = self.q.len() as u64; // popped here, not processed
        while let Some((t, ev)) = self.q.pop() {
            if !matches!(ev, Ev::Issue { .. } | Ev::Group { .. }) {
                kept.push((t, ev));
            }
        }
        for (t, ev) in kept {
            self.q.push(t, ev);
        }
    }

    fn start_group(&mut self, now: SimTime, g: u32) {
        if self.interrupted {
            return; // ended early: a later group does not start
        }
        for k in 0..self.groups[g as usize].len() {
            let src = self.groups[g as usize][k];
            // Zoned jobs of a later group start from the zones' write pointers as they are now.
            if g > 0 {
                let ns = self.sources[src as usize].ns;
                if let Some(w) = self.dev.zones(ns).map(|z| z.write_pointers()) {
                    self.sources[src as usize].refresh_zone_write_pointers(&w);
                }
            }
            let age = self.sources[src as usize].age_ns;
            if age > 0 {
                // fio `age`: the device sat unpowered before this job (retention passes).
                self.dev.age(now, age);
            }
            self.sources[src as usize].start(now);
            if let (Some(h), Some(fj)) = (&mut self.fs, &mut self.sources[src as usize].files) {
                h.fs.set_now(now.ns());
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

    /// The error that ends a run when a zoned namespace rejects a write of a source that does
    /// not continue on error: one line naming the job, the request and the zone rule.
    #[cold]
    fn rejected_error(&self, r: Rejected) -> Error {
        let s = &self.sources[r.src as usize];
        let what = if r.io.kind == IoKind::ZoneAppend {
            "zone append"
        } else {
            "write"
        };
        let (hint, coe) = if s.is_trace() {
            ("", "--continue-on-error")
        } else {
            (
                " (is the job missing zonemode=zbd?)",
                "continue_on_error=write",
            )
        };
        Error::Usage(format!(
            "job '{}': the zoned namespace {} rejected a {what} of {} bytes at byte {}: {} ({}){hint}; \
             set {coe} to count such writes and go on",
            s.name,
            r.ns,
            r.io.len,
            r.io.offset,
            r.kind,
            r.kind.rule(),
        ))
    }

    /// Records the first error of the run; nothing is issued after it.
    #[cold]
    fn fail(&mut self, e: Error) {
        self.error.get_or_insert(e);
    }

    fn issue(&mut self, now: SimTime, src: u32) {
        if self.error.is_some() || self.issued >= self.cut_after {
            // A source failed (a malformed trace line): the run stops at the first error.
            return;
        }
        let s = &mut self.sources[src as usize];
        let q = s.queue;
        if !self.host.queues.has_room(q) {
            // The source's submission queue is full: it waits for a slot.
            self.host.queues.blocked[q as usize].push_back(src);
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
            h.fs.set_now(now.ns());
            let before = self.cpu.as_ref().map(|_| FsWork::of(h.fs.work()));
            let done = match fj.run(h, &io) {
                Ok(copy) => {
                    if io.kind == IoKind::Read {
                        h.reads_in_flight += 1;
                    }
                    match &mut self.cpu {
                        None => h.submit(self.dev, now).max(now + copy),
                        Some(c) => {
                            // The call's host work on a core (the page copy among it), then its
                            // device requests, then their completion path.
                            let cmds = h.fs.out().cmds.len() as u64;
                            let work = (before.unwrap_or_default(), FsWork::of(h.fs.work()));
                            let at = c.fs_submit(src, now, &io, !fj.direct, work, cmds);
                            let end = h.submit(self.dev, at);
                            let done = c.fs_complete(src, at, end, cmds);
                            if cmds > 0 {
                                let token = c.arrived;
                                for &(work, after) in &self.idle {
                                    self.q.push(end + after, Ev::Idle { token, work });
                                }
                            }
                            done
                        }
                    }
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
            let (q, awake) = self.count_issued(now, src);
            let h = Held::issued(src, io, now);
            match &mut self.cpu {
                None if awake > now => {
                    // The device wakes first (ungate, hibern8 exit: sim/power.rs).
                    let slot = self.host.park(h);
                    self.q.push(awake, Ev::Arrive { slot });
                }
                None => self.host.admit(self.dev, &mut self.q, now, q, h),
                Some(c) => {
                    // The submission path on the host CPU first.
                    let at = c.submit(src, now).max(awake);
                    let slot = self.host.park(h);
                    self.q.push(at, Ev::Arrive { slot });
                }
            }
        }
        if self.sources[src as usize].open_loop() {
            self.schedule_arrival(src);
        }
    }

    /// Count a request of `src` issued at `now` (source, queue, totals); its queue and when
    /// the device is awake for it.
    #[inline(always)]
    fn count_issued(&mut self, now: SimTime, src: u32) -> (u32, SimTime) {
        let awake = match &mut self.power {
            Some(p) if self.outstanding == 0 => match &mut self.host.gating {
                // Clock gating on the dispatch path holds or requeues what meets the wake-up.
                Some(g) => {
                    g.woken(p.wake(now));
                    now
                }
                None => p.wake(now),
            },
            _ => now,
        };
        let s = &mut self.sources[src as usize];
        let q = s.queue;
        s.outstanding += 1;
        s.issued += 1;
        s.stats.issued(now);
        if let Some(st) = self.host.queues.stats.get_mut(q as usize) {
            st.issued(now);
        }
        self.outstanding += 1;
        self.issued += 1;
        self.host.queues.submitted(q);
        (q, awake)
    }

    /// Count a request of `src` issued at `now` and schedule its completion `c` (a request
    /// that bypasses the zone write ordering: file-system requests and job tails).
    fn book(&mut self, now: SimTime, src: u32, c: Completion, kind: IoKind, bytes: u64) {
        self.count_issued(now, src);
        let h = Held::issued(src, HostIo::new(kind, 0, bytes), now);
        schedule(&mut self.q, c, &h);
    }

    /// `Ev::Arrive`: a request leaves its submission path on the host CPU into the host path.
    fn on_arrive(&mut self, now: SimTime, slot: u32) {
        let h = self.host.unpark(slot);
        if let Some(c) = &mut self.cpu {
            c.arrive(h.src, now);
        }
        let q = self.sources[h.src as usize].queue;
        self.host.admit(self.dev, &mut self.q, now, q, h);
    }

    /// Request `r` completes now: the host path releases what it held; the host requests it
    /// carried complete.
    fn on_done(&mut self, now: SimTime, r: InFlight) {
        match self.host.release(self.dev, &mut self.q, now, r) {
            Released::Host(r) => self.device_done(now, r.src, r.kind, r.issued, r.bytes),
            Released::Tailored { ns, zone } => {
                // An IOTailor request: the host writes whose last bytes it carried complete.
                let mut done = self.host.tailored_done(ns);
                for h in done.drain(..) {
                    self.device_done(now, h.src, h.io.kind, h.issued, h.io.len);
                }
                self.host
                    .settle(self.dev, &mut self.q, now, (ns, zone), done);
            }
        }
    }

    /// The device completed host request `src` issued at `issued` now: with the host CPU on, a
    /// block request's completion path runs first (the device's idle work may start when it
    /// holds no request); else, and for file jobs (whose completion path was booked with
    /// their submission), it completes now.
    #[inline(always)]
    fn device_done(&mut self, now: SimTime, src: u32, kind: IoKind, issued: SimTime, bytes: u64) {
        let Some(c) = self
            .cpu
            .as_mut()
            .filter(|_| self.sources[src as usize].files.is_none())
        else {
            return self.host_done(now, src, kind, issued, bytes);
        };
        let at = c.complete(src, now);
        if c.at_device == 0 {
            let token = c.arrived;
            for &(work, after) in &self.idle {
                self.q.push(now + after, Ev::Idle { token, work });
            }
        }
        let h = Held::issued(src, HostIo::new(kind, 0, bytes), issued);
        self.q.push(at, Ev::HostDone(InFlight::of(&h)));
    }

    /// Host request of `src` issued at `issued` completes now: statistics, the source's next.
    fn host_done(&mut self, now: SimTime, src: u32, kind: IoKind, issued: SimTime, bytes: u64) {
        self.outstanding -= 1;
        self.completed += 1;
        let s = &mut self.sources[src as usize];
        s.outstanding -= 1;
        s.completed += 1;
        s.stats.record(kind, issued, now, bytes);
        if let Some(l) = &mut s.logs {
            l.record(kind, issued, now, bytes);
        }
        let q = s.queue;
        if let Some(st) = self.host.queues.stats.get_mut(q as usize) {
            st.record(kind, issued, now, bytes);
        }
        if let Some(ts) = &mut self.sampler {
            ts.record(src as usize, kind, issued, now, bytes);
        }
        if kind == IoKind::Read && s.files.is_some() {
            if let Some(h) = &mut self.fs {
                h.reads_in_flight -= 1;
            }
        }
        if let Some(waiting) = self.host.queues.completed(q) {
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
            if let Some(p) = &mut self.power {
                p.sleep(now);
            }
        }
        if self.outstanding == 0 && self.cpu.is_none() {
            for i in 0..self.idle.len() {
                let (work, after) = self.idle[i];
                let token = self.issued;
                self.q.push(now + after, Ev::Idle { token, work });
            }
        }
    }

    /// When every source of `src`'s group is finished, start the next group.
    ///
    /// Like `maybe_tail` and `count_issued`, inlined: called on every request, it is one check
    /// but was a call (the three: 63 instructions per random read in cachegrind).
    #[inline(always)]
    fn maybe_finish_group(&mut self, now: SimTime, src: u32) {
        if self.sources[src as usize].finished() {
            self.finish_group(now, src);
        } // else its group is not finished either (the common case: one check)
    }

    /// [`Engine::maybe_finish_group`] once `src` is finished.
    #[inline(never)]
    fn finish_group(&mut self, now: SimTime, src: u32) {
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
    #[inline(always)]
    fn maybe_tail(&mut self, now: SimTime, src: u32) {
        let s = &self.sources[src as usize];
        if s.outstanding == 0 && s.finished_issuing() {
            self.tail(now, src);
        } // else it still has requests of its own (the common case: one check)
    }

    /// [`Engine::maybe_tail`] once `src` has no request left or in flight.
    #[inline(never)]
    fn tail(&mut self, now: SimTime, src: u32) {
        let s = &mut self.sources[src as usize];
        let (Some(h), Some(fj)) = (&mut self.fs, &mut s.files) else {
            return;
        };
        if !fj.has_tail() {
            return;
        }
        h.fs.set_now(now.ns());
        fj.tail(h);
        let done = h.submit(self.dev, now);
        self.book(now, src, Completion::at(done), IoKind::Flush, 0);
    }

    /// The file system's background GC thread: gated by idleness (conventional thread: no
    /// request for `gc_idle_time`; the zoned policy of kernel 6.12 on, `F2fs::zoned_bg_gc`: no
    /// user read in flight), stops when every source is done.
    fn on_fs_bg(&mut self, now: SimTime) -> bool {
        if self.sources.iter().all(|s| s.finished()) {
            return false;
        }
        let Some(h) = &mut self.fs else { return false };
        let idle = if h.fs.zoned_bg_gc() {
            h.reads_in_flight == 0
        } else {
            self.outstanding == 0
                && now.since(self.last_issue) >= h.fs.gc_idle_time_ms().saturating_mul(1_000_000)
        };
        if let Some(sleep) = h.fs.bg_tick(now.ns(), idle) {
            match &mut self.cpu {
                None => {
                    h.submit(self.dev, now);
                }
                Some(c) => {
                    // The GC thread is a host thread of its own (after the sources').
                    let gc = self.sources.len() as u32;
                    let cmds = h.fs.out().cmds.len() as u64;
                    let at = c.background(gc, now, cmds);
                    let end = h.submit(self.dev, at);
                    c.background_done(gc, end, cmds);
                }
            }
            self.q.push(now + sleep.max(1), Ev::FsBg);
        }
        true
    }

    /// One step of idle work; the next when the device says (a request arriving in between
    /// waits only for the operations in flight).
    fn on_idle(&mut self, now: SimTime, token: u64, work: IdleWork) {
        let busy = match &self.cpu {
            None => token != self.issued || self.outstanding != 0,
            Some(c) => !c.idle(token, now),
        };
        if busy || self.q.is_empty() {
            // A request arrived since, or the run is over.
            return;
        }
        if let Some(next) = self.dev.idle(now, work) {
            self.q.push(next, Ev::Idle { token, work });
        }
    }
}

/// The error of a time series that reached [`crate::stats::timeseries::MAX_VALUES`] values
/// (`rows` x `cols`): the interval is too small for the run.
pub(super) fn series_too_long(interval_ns: u64, rows: usize, cols: usize) -> Error {
    Error::config(
        "stats.interval_ms",
        format!(
            "{} ms is too small for this run: its time series reached {rows} rows of {cols} columns (at most {} values) {:.3} s into the run, which stops there; raise it",
            interval_ns as f64 / 1e6,
            crate::stats::timeseries::MAX_VALUES,
            rows as f64 * interval_ns as f64 / 1e9
        ),
    )
}

/// Run sources on an existing device from `start` (used by preconditioning, `seed` its own);
/// returns the end.
pub(super) fn run_on(
    dev: &mut Device,
    sources: Vec<Source>,
    start: SimTime,
    ctl: &mut Control,
    seed: u64,
) -> Result<SimTime> {
    let mut eng = Engine::new(dev, sources, seed);
    eng.phase = "preconditioning";
    eng.run(start, ctl)
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
