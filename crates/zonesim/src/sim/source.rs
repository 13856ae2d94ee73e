//! Sources of host requests: fio jobs (closed loop at `iodepth`) and trace replay (open loop
//! at the trace's arrival times, or closed loop at a queue depth).

use crate::engine::SimTime;
use crate::error::{Error, Result};
use crate::host::fio::{JobGen, JobSpec, Target, ZoneGeom};
use crate::host::trace::{TraceOptions, TraceReader, TraceRecord};
use crate::host::{HostIo, IoKind};
use crate::nand::SLOT_BYTES;
use crate::stats::report::{TraceMode, TraceReport};
use crate::stats::IoStats;
use std::path::PathBuf;

use super::fio_log::JobLogs;
use super::Workload;

/// The latest arrival a timed replay schedules, relative to its first record (2^62 ns, 146
/// years): simulated time stays far from its 64-bit limit.
const MAX_ARRIVAL_NS: u64 = 1 << 62;

/// How a trace is replayed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ReplayMode {
    /// Arrival times honoured, multiplied by `time_scale` (2.0 = half the rate).
    Timed { time_scale: f64 },
    /// As fast as possible, keeping `qd` requests outstanding.
    AsFastAsPossible { qd: u32 },
}

/// A trace replay: file, reader options and replay options.
#[derive(Debug, Clone)]
pub struct TraceReplay {
    pub path: PathBuf,
    pub opts: TraceOptions,
    pub mode: ReplayMode,
    /// Fold addresses beyond capacity modulo the capacity (true) or reject those requests.
    pub fold: bool,
    /// Replay only records with `start_ns <= time < stop_ns`.
    pub start_ns: u64,
    pub stop_ns: Option<u64>,
    /// Skip the first `skip` requests, then replay at most `max_requests`.
    pub skip: u64,
    pub max_requests: Option<u64>,
    /// Count the writes a zoned namespace rejects instead of ending the run (fio's
    /// `continue_on_error=write`; `zonesim run --continue-on-error`).
    pub continue_on_error: bool,
}

impl TraceReplay {
    pub fn new(path: impl Into<PathBuf>, mode: ReplayMode) -> TraceReplay {
        TraceReplay {
            path: path.into(),
            opts: TraceOptions::default(),
            mode,
            fold: true,
            start_ns: 0,
            stop_ns: None,
            skip: 0,
            max_requests: None,
            continue_on_error: false,
        }
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct TraceCounts {
    requests: u64,
    reads: u64,
    writes: u64,
    trims: u64,
    flushes: u64,
    folded: u64,
    rejected: u64,
    seen: u64,
}

struct TraceFeed {
    reader: TraceReader,
    replay: TraceReplay,
    capacity: u64,
    base: SimTime,
    /// The latest arrival scheduled (timed replay).
    last_arrival: SimTime,
    next: Option<TraceRecord>,
    counts: TraceCounts,
    /// As fast as possible: the record after the one last issued, read one step early so its
    /// map entry can be prefetched ([`Source::upcoming`]).
    ahead: Lookahead,
}

/// A record read one step ahead, with the counts as they were before it was read: the report
/// shows those until the record is issued, so counts, errors and `max_requests` are exactly
/// those of reading it when it is issued. Updated in place (no moves of the whole).
#[derive(Default)]
struct Lookahead {
    /// A record (or the end, or an error) has been read ahead.
    read: bool,
    next: Option<TraceRecord>,
    error: Option<Error>,
    counts: TraceCounts,
    lines: u64,
    skipped: u64,
}

impl TraceFeed {
    /// A replay of `reader` that has read nothing yet.
    fn new(reader: TraceReader, replay: &TraceReplay, capacity: u64) -> TraceFeed {
        TraceFeed {
            reader,
            replay: replay.clone(),
            capacity,
            base: SimTime::ZERO,
            last_arrival: SimTime::ZERO,
            next: None,
            counts: TraceCounts::default(),
            ahead: Lookahead::default(),
        }
    }

    /// As fast as possible: the next record, and the one after it read ahead.
    fn next_ahead(&mut self) -> Result<Option<TraceRecord>> {
        let a = &mut self.ahead;
        let r = if a.read {
            a.read = false;
            if let Some(e) = a.error.take() {
                return Err(e);
            }
            a.next
        } else {
            self.next_record()?
        };
        if r.is_some() {
            self.ahead.counts = self.counts;
            self.ahead.lines = self.reader.lines();
            self.ahead.skipped = self.reader.skipped();
            match self.next_record() {
                Ok(next) => self.ahead.next = next,
                Err(e) => self.ahead.error = Some(e),
            }
            self.ahead.read = true;
        }
        Ok(r)
    }

    /// The counts, lines and skipped lines of the records issued so far (not those of a
    /// record read ahead).
    fn shown(&self) -> (TraceCounts, u64, u64) {
        let a = &self.ahead;
        if a.read {
            (a.counts, a.lines, a.skipped)
        } else {
            (self.counts, self.reader.lines(), self.reader.skipped())
        }
    }

    /// Next record inside the replay window, folded or rejected against the capacity.
    fn next_record(&mut self) -> Result<Option<TraceRecord>> {
        loop {
            if self
                .replay
                .max_requests
                .is_some_and(|m| self.counts.requests >= m)
            {
                return Ok(None);
            }
            let Some(mut r) = self.reader.next_record()? else {
                return Ok(None);
            };
            if r.time_ns < self.replay.start_ns {
                continue;
            }
            if self.replay.stop_ns.is_some_and(|s| r.time_ns >= s) {
                return Ok(None);
            }
            self.counts.seen += 1;
            if self.counts.seen <= self.replay.skip {
                continue;
            }
            if r.io.offset + r.io.len > self.capacity {
                if !self.replay.fold {
                    self.counts.rejected += 1;
                    continue;
                }
                self.counts.folded += 1;
                r.io = fold(r.io, self.capacity);
            }
            self.counts.requests += 1;
            match r.io.kind {
                IoKind::Read => self.counts.reads += 1,
                IoKind::Write => self.counts.writes += 1,
                IoKind::Trim => self.counts.trims += 1,
                _ => self.counts.flushes += 1,
            }
            return Ok(Some(r));
        }
    }
}

/// Fold a request that ends beyond `cap` into the device (MQSim's rule: start modulo the
/// capacity); if it would still cross the end, it is moved back to end at the capacity.
fn fold(mut io: HostIo, cap: u64) -> HostIo {
    io.len = io.len.min(cap);
    io.offset %= cap;
    if io.offset + io.len > cap {
        io.offset = (cap - io.len) / SLOT_BYTES * SLOT_BYTES;
    }
    io
}

enum Kind {
    Job(Box<JobGen>),
    Trace(Box<TraceFeed>),
}

/// One source of requests and its statistics.
pub(super) struct Source {
    pub name: String,
    /// Namespace the source's requests go to.
    pub ns: usize,
    /// Zone size in bytes of a zoned target.
    zone_size: Option<u64>,
    pub stonewall: bool,
    pub depth: u32,
    pub thinktime_ns: u64,
    /// fio job option `age` (a zonesim extension): unpowered time before the job starts, ns.
    pub age_ns: u64,
    /// fio `prio` / `prioclass`: the source's rank in the host scheduler (host/sched.rs).
    pub prio: crate::host::sched::IoPrio,
    runtime_ns: Option<u64>,
    /// fio `time_based`: the source runs for its whole `runtime_ns`.
    time_based: bool,
    deadline: Option<SimTime>,
    exhausted: bool,
    kind: Kind,
    pub outstanding: u64,
    pub issued: u64,
    pub completed: u64,
    pub stats: IoStats,
    pub group_reported: bool,
    /// Host queue the source submits to (sim/queues.rs).
    pub queue: u32,
    /// A job on the host file system's files.
    pub files: Option<Box<super::fs::FileJob>>,
    /// fio's logs of the job (`write_lat_log`, ...), when it writes any.
    pub logs: Option<Box<JobLogs>>,
    /// A write its zoned namespace rejects is counted and the source goes on; otherwise it
    /// ends the run (fio jobs and traces: their `continue_on_error`).
    pub continue_on_error: bool,
}

impl Source {
    fn new(name: String, kind: Kind, depth: u32) -> Source {
        Source {
            name,
            ns: 0,
            zone_size: None,
            stonewall: false,
            depth: depth.max(1),
            thinktime_ns: 0,
            age_ns: 0,
            prio: crate::host::sched::IoPrio::default(),
            runtime_ns: None,
            time_based: false,
            deadline: None,
            exhausted: false,
            kind,
            outstanding: 0,
            issued: 0,
            completed: 0,
            stats: IoStats::default(),
            group_reported: false,
            queue: 0,
            files: None,
            logs: None,
            continue_on_error: true,
        }
    }

    /// End the source now (ENOSPC on the file system).
    pub fn stop(&mut self) {
        self.exhausted = true;
    }

    /// Job number `num` (from 1, clones counted, as fio numbers its jobs for log names);
    /// its fio logs are created now.
    pub fn job(spec: &JobSpec, name: String, gen: JobGen, num: usize) -> Result<Source> {
        let mut s = Source::new(name, Kind::Job(Box::new(gen)), spec.iodepth);
        s.stonewall = spec.stonewall;
        s.thinktime_ns = spec.thinktime_ns;
        s.age_ns = spec.age_ns;
        s.prio = spec.prio;
        s.runtime_ns = spec.runtime_ns;
        s.time_based = spec.time_based;
        s.continue_on_error = spec.continue_on_error.writes();
        let realtime = spec.prio.class == crate::host::sched::CLASS_RT;
        s.logs = JobLogs::open(&spec.logs, &spec.name, num, realtime)?.map(Box::new);
        Ok(s)
    }

    /// Zoned job: take the device's written bytes per zone (`wps`, whole namespace).
    pub fn refresh_zone_write_pointers(&mut self, wps: &[u64]) {
        if let Kind::Job(g) = &mut self.kind {
            if let (Some(zs), Some(_)) = (self.zone_size, g.zone_write_pointers()) {
                let first = (g.region().0 / zs) as usize;
                if first < wps.len() {
                    g.set_zone_write_pointers(&wps[first..]);
                }
            }
        }
    }

    /// How long the source runs at least, when that is known before the run (a time-based
    /// job: its runtime).
    pub fn runs_at_least_ns(&self) -> Option<u64> {
        self.runtime_ns.filter(|_| self.time_based)
    }

    pub fn start(&mut self, now: SimTime) {
        self.deadline = self.runtime_ns.map(|r| now + r);
        if let Some(l) = &mut self.logs {
            l.start(now);
        }
        if let Kind::Trace(t) = &mut self.kind {
            t.base = now;
            t.last_arrival = now;
        }
    }

    /// The fraction of the source done at `now` (0..=1): the larger of its runtime elapsed
    /// and its request, byte or trace budget used (whichever ends it first); None when no
    /// total is known (a trace read from a pipe). Cold: for the progress observer.
    pub fn progress(&self, now: SimTime) -> Option<f64> {
        if self.exhausted {
            return Some(1.0);
        }
        let time = match (self.runtime_ns, self.deadline) {
            (Some(r), Some(d)) => Some(1.0 - d.since(now) as f64 / r.max(1) as f64),
            (Some(_), None) => Some(0.0), // not started (a later stonewall group)
            _ => None,
        };
        let own = match &self.kind {
            Kind::Job(g) => g.progress(),
            Kind::Trace(t) => match t.replay.max_requests {
                Some(m) => Some(t.counts.requests as f64 / m.max(1) as f64),
                None => t.reader.fraction_read(),
            },
        };
        match (time, own) {
            (Some(a), Some(b)) => Some(a.max(b).clamp(0.0, 1.0)),
            (a, b) => a.or(b).map(|f| f.clamp(0.0, 1.0)),
        }
    }

    /// A trace replay (not an fio job).
    pub fn is_trace(&self) -> bool {
        matches!(&self.kind, Kind::Trace(_))
    }

    /// Replayed at arrival times (not closed-loop).
    pub fn open_loop(&self) -> bool {
        matches!(&self.kind, Kind::Trace(t) if matches!(t.replay.mode, ReplayMode::Timed { .. }))
    }

    pub fn finished(&self) -> bool {
        self.exhausted
            && self.outstanding == 0
            && !self.files.as_ref().is_some_and(|f| f.has_tail())
    }

    /// No more requests of its own (a file job's tail may follow).
    pub fn finished_issuing(&self) -> bool {
        self.exhausted
    }

    /// The next request to issue at `now`, or None when the source is done.
    pub fn next_io(&mut self, now: SimTime) -> Result<Option<HostIo>> {
        if self.exhausted {
            return Ok(None);
        }
        if self.deadline.is_some_and(|d| now >= d) {
            self.exhausted = true;
            return Ok(None);
        }
        let io = match &mut self.kind {
            Kind::Job(g) => g.next(),
            Kind::Trace(t) => match t.replay.mode {
                ReplayMode::Timed { .. } => t.next.take().map(|r| r.io),
                ReplayMode::AsFastAsPossible { .. } => t.next_ahead()?.map(|r| r.io),
            },
        };
        if io.is_none() {
            self.exhausted = true;
        }
        Ok(io)
    }

    /// Byte offsets this source may request next, when known in advance (fio's random map,
    /// the record read ahead of an as-fast-as-possible replay): the engine prefetches their
    /// map entries ([`JobGen::upcoming`]).
    #[inline]
    pub fn upcoming(&self, mut f: impl FnMut(u64)) {
        match &self.kind {
            Kind::Job(g) => g.upcoming(f),
            Kind::Trace(t) => {
                if let (true, Some(r)) = (t.ahead.read, &t.ahead.next) {
                    f(r.io.offset);
                }
            }
        }
    }

    /// Open loop: read the next record and return its arrival time.
    pub fn next_arrival(&mut self) -> Result<Option<SimTime>> {
        let Kind::Trace(t) = &mut self.kind else {
            return Ok(None);
        };
        let ReplayMode::Timed { time_scale } = t.replay.mode else {
            return Ok(None);
        };
        t.next = t.next_record()?;
        match t.next {
            Some(r) => {
                let rel = r.time_ns.saturating_sub(t.replay.start_ns) as f64 * time_scale;
                if rel > MAX_ARRIVAL_NS as f64 {
                    return Err(Error::parse(
                        t.reader.name(),
                        t.reader.lines(),
                        format!(
                            "arrival {rel:.0} ns after the first record (time x --time-scale) is beyond the replay horizon of 2^62 ns (146 years)"
                        ),
                    ));
                }
                // Arrival times never go backwards: a record stamped before the previous one
                // arrives with it (records are never reordered).
                let at = (t.base + rel.round() as u64).max(t.last_arrival);
                t.last_arrival = at;
                Ok(Some(at))
            }
            None => {
                self.exhausted = true;
                Ok(None)
            }
        }
    }

    /// The `trace` section of the report, for a trace source.
    pub fn trace_report(&self) -> Option<TraceReport> {
        let Kind::Trace(t) = &self.kind else {
            return None;
        };
        let (c, lines, skipped) = t.shown();
        Some(TraceReport {
            file: t.replay.path.display().to_string(),
            format: t.reader.format(),
            requests: c.requests,
            reads: c.reads,
            writes: c.writes,
            trims: c.trims,
            flushes: c.flushes,
            folded: c.folded,
            rejected: c.rejected,
            skipped,
            lines,
            fold: t.replay.fold,
            mode: match t.replay.mode {
                ReplayMode::Timed { time_scale } => TraceMode::Timed { time_scale },
                ReplayMode::AsFastAsPossible { qd } => TraceMode::AsFastAsPossible { qd },
            },
        })
    }
}

/// What the sources run against: the target namespace, zoned or not, and (zoned) the bytes
/// already written in each zone.
#[derive(Debug, Clone)]
pub(super) struct NsTarget {
    pub target: Target,
    pub write_pointers: Vec<u64>,
    /// (zoned) The zones jobs do not use: READ_ONLY or OFFLINE.
    pub unusable: Vec<bool>,
}

impl NsTarget {
    pub fn of(dev: &crate::device::Device, ns: usize) -> NsTarget {
        match dev.zones(ns) {
            Some(z) => {
                let zc = z.zone_config();
                NsTarget {
                    target: Target {
                        capacity_bytes: dev.capacity_bytes(ns),
                        zone: Some(ZoneGeom {
                            size_bytes: zc.zone_size * SLOT_BYTES,
                            capacity_bytes: zc.zone_capacity * SLOT_BYTES,
                        }),
                    },
                    write_pointers: z.write_pointers(),
                    unusable: z.unusable_zones(),
                }
            }
            None => NsTarget {
                target: Target {
                    capacity_bytes: dev.capacity_bytes(ns),
                    zone: None,
                },
                write_pointers: Vec::new(),
                unusable: Vec::new(),
            },
        }
    }
}

/// Build the sources of a workload; `ns` is the run's namespace (`--namespace`), which jobs
/// without a `namespace=` option and traces target.
pub(super) fn build(
    workload: &Workload,
    dev: &crate::device::Device,
    ns: usize,
    seed: u64,
    fs: bool,
) -> Result<Vec<Source>> {
    let capacity = NsTarget::of(dev, ns).target.capacity_bytes;
    match workload {
        Workload::Jobs(specs) if fs => distinct_logs(file_jobs(specs, seed)?),
        Workload::Jobs(specs) => distinct_logs(jobs(specs, dev, ns, seed)?),
        Workload::Scenario(_) => Err(Error::Internal(
            "a scenario has no sources: it runs step by step (sim/scenario.rs)".into(),
        )),
        Workload::Trace(_) if fs => Err(Error::Usage(
            "--fs runs fio jobs on files; a trace replays block I/O (drop --fs or the [fs] section)".into(),
        )),
        Workload::Trace(t) => {
            let reader = TraceReader::open(&t.path, &t.opts)?;
            let depth = match t.mode {
                ReplayMode::AsFastAsPossible { qd } => {
                    let max = crate::host::fio::MAX_IODEPTH;
                    if qd == 0 || qd > max {
                        return Err(Error::Usage(format!(
                            "--qd must be in 1..={max} (got {qd})"
                        )));
                    }
                    qd
                }
                ReplayMode::Timed { time_scale } => {
                    if !(time_scale.is_finite() && time_scale > 0.0) {
                        return Err(Error::Usage(format!(
                            "--time-scale must be a positive number (got {time_scale})"
                        )));
                    }
                    1
                }
            };
            let name = t.path.display().to_string();
            let feed = TraceFeed::new(reader, t, capacity);
            let mut s = Source::new(name, Kind::Trace(Box::new(feed)), depth);
            s.ns = ns;
            s.continue_on_error = t.continue_on_error;
            Ok(vec![s])
        }
    }
}

/// Expand `numjobs` clones and build a generator for each, on the job's namespace (its
/// `namespace=` option, else `default_ns`). Zoned jobs start from the namespace's zone write
/// pointers.
pub(super) fn jobs(
    specs: &[JobSpec],
    dev: &crate::device::Device,
    default_ns: usize,
    seed: u64,
) -> Result<Vec<Source>> {
    let mut out = Vec::new();
    for (j, spec) in specs.iter().enumerate() {
        if let Some(o) = spec.files.fs_only_option() {
            let name = o.split('=').next().unwrap_or(o);
            return Err(Error::parse(
                &spec.file,
                spec.line_of(&[name]),
                format!(
                    "job '{}': {o} needs a file system: run with --fs f2fs",
                    spec.name
                ),
            ));
        }
        let ns = spec.namespace.map_or(default_ns, |n| n as usize);
        if ns >= dev.namespaces.len() {
            return Err(Error::Usage(format!(
                "job '{}': namespace={ns}, but the device has {} namespace(s)",
                spec.name,
                dev.namespaces.len()
            )));
        }
        let t = NsTarget::of(dev, ns);
        let target = t.target;
        for k in 0..spec.numjobs {
            let mut gen = JobGen::new(spec, &target, seed.wrapping_add(j as u64 * 7919), k)?;
            if let (Some(z), Some(_)) = (target.zone, gen.zone_write_pointers()) {
                let first = (gen.region().0 / z.size_bytes) as usize;
                if first < t.write_pointers.len() {
                    gen.set_unusable_zones(&t.unusable[first..]);
                    gen.set_zone_write_pointers(&t.write_pointers[first..]);
                }
            }
            let name = if spec.numjobs > 1 {
                format!("{}.{k}", spec.name)
            } else {
                spec.name.clone()
            };
            let mut s = Source::job(spec, name, gen, out.len() + 1)?;
            s.ns = ns;
            s.zone_size = target.zone.map(|z| z.size_bytes);
            // Only the first clone carries the stonewall: the clones run together.
            s.stonewall = spec.stonewall && k == 0;
            out.push(s);
        }
    }
    Ok(out)
}

/// Jobs whose fio logs are distinct files (`per_job_logs=0` with jobs of one name would mix
/// two jobs' rows in one file).
fn distinct_logs(sources: Vec<Source>) -> Result<Vec<Source>> {
    let mut seen = std::collections::HashMap::new();
    for s in &sources {
        for p in s.logs.iter().flat_map(|l| l.paths()) {
            if let Some(other) = seen.insert(p, &s.name) {
                return Err(Error::Usage(format!(
                    "jobs '{other}' and '{}' would write the same log file {}: set per_job_logs=1 or give their logs distinct names",
                    s.name,
                    p.display()
                )));
            }
        }
    }
    Ok(sources)
}

/// Sources of fio jobs on the host file system's files.
fn file_jobs(specs: &[JobSpec], seed: u64) -> Result<Vec<Source>> {
    // Files of all jobs and clones together (each a few hundred bytes of host state): each
    // option is bounded alone, their product is bounded here.
    let mut files = 0u64;
    for spec in specs {
        files += spec.files.nrfiles.unwrap_or(1) as u64 * spec.numjobs as u64;
        if files > super::fs::MAX_FILES {
            return Err(Error::parse(
                &spec.file,
                spec.line_of(&["nrfiles", "numjobs"]),
                format!(
                    "job '{}': the jobs open more than {} files in all (nrfiles x numjobs, summed over the jobs)",
                    spec.name,
                    super::fs::MAX_FILES
                ),
            ));
        }
    }
    let mut out = Vec::new();
    for (j, spec) in specs.iter().enumerate() {
        for k in 0..spec.numjobs {
            let (fj, gspec) = super::fs::FileJob::new(spec, k, 0)?;
            let target = Target {
                capacity_bytes: fj.filesize * fj.names.len() as u64,
                zone: None,
            };
            let gen = JobGen::new(&gspec, &target, seed.wrapping_add(j as u64 * 7919), k)?;
            let name = if spec.numjobs > 1 {
                format!("{}.{k}", spec.name)
            } else {
                spec.name.clone()
            };
            let mut s = Source::job(spec, name, gen, out.len() + 1)?;
            s.files = Some(Box::new(fj));
            s.stonewall = spec.stonewall && k == 0;
            out.push(s);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::io::Cursor;

    fn feed(text: &str, replay: &TraceReplay, capacity: u64) -> TraceFeed {
        let input = Box::new(Cursor::new(text.to_string()));
        let reader = TraceReader::from_reader("t", input, &replay.opts).unwrap();
        TraceFeed::new(reader, replay, capacity)
    }

    /// The report's counts of a trace source.
    fn shown(s: &Source) -> [u64; 9] {
        let r = s.trace_report().unwrap();
        [
            r.requests, r.reads, r.writes, r.trims, r.flushes, r.folded, r.rejected, r.skipped,
            r.lines,
        ]
    }

    proptest! {
        /// Reading one record ahead (for the prefetch) changes nothing a replay shows: after
        /// every request issued, the same request (or error) and the same counts as reading
        /// each record when it is issued, whatever the window, skip and `max_requests`.
        #[test]
        fn lookahead_issues_and_counts_like_reading_on_demand(
            recs in proptest::collection::vec((0u64..100, 0u64..64, 0u64..4, any::<bool>()), 0..30),
            bad in proptest::option::of(0usize..30),
            max in proptest::option::of(0u64..20),
            skip in 0u64..4,
            start in 0u64..200,
            fold in any::<bool>(),
        ) {
            let mut lines = Vec::new();
            let mut t = 0;
            for (i, (gap, sector, n, read)) in recs.iter().enumerate() {
                t += gap;
                if bad == Some(i) {
                    lines.push("1 2 3".to_string());
                }
                lines.push(format!("{t} 0 {sector} {n} {}", u8::from(*read)));
            }
            let text = lines.join("\n");
            let mut replay = TraceReplay::new("t", ReplayMode::AsFastAsPossible { qd: 4 });
            replay.opts.format = Some(crate::host::trace::TraceFormat::Disksim);
            replay.max_requests = max;
            replay.skip = skip;
            replay.start_ns = start;
            replay.fold = fold;
            let cap = 40 * 512;
            let mut reference = feed(&text, &replay, cap);
            let mut s = Source::new("t".into(), Kind::Trace(Box::new(feed(&text, &replay, cap))), 4);
            loop {
                let want = reference.next_record().map_err(|e| e.to_string());
                let got = s.next_io(SimTime::ZERO).map_err(|e| e.to_string());
                prop_assert_eq!(&got, &want.clone().map(|r| r.map(|r| r.io)));
                let c = &reference.counts;
                let (lines, skipped) = (reference.reader.lines(), reference.reader.skipped());
                prop_assert_eq!(
                    shown(&s),
                    [c.requests, c.reads, c.writes, c.trims, c.flushes, c.folded, c.rejected,
                     skipped, lines]
                );
                if !matches!(want, Ok(Some(_))) {
                    break;
                }
            }
        }
    }

    #[test]
    fn folding_keeps_requests_inside_capacity() {
        let cap = 1 << 20;
        let io = fold(HostIo::new(IoKind::Read, cap + 8192, 4096), cap);
        assert_eq!(io.offset, 8192);
        let io = fold(HostIo::new(IoKind::Read, 2 * cap - 4096, 8192), cap);
        assert!(io.offset + io.len <= cap);
        let io = fold(HostIo::new(IoKind::Write, 5 * cap, 2 * cap), cap);
        assert_eq!((io.offset, io.len), (0, cap));
    }
}
