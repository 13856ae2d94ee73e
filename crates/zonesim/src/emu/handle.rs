//! [`Handle`]: one namespace of a simulated device driven by real software, one command at a
//! time with a clock (the fio ioengine and the FUSE disk are thin layers over it).
//!
//! The host submits a request with its data; the handle asks the device for its completion time
//! (the same `Device::submit` the simulation runs use), keeps the data in the [`Store`], checks
//! reads with the [`Verifier`], records the request ([`Recorder`]) and returns a [`Ticket`]. The
//! host delivers completions in its own order with [`Handle::complete`], which paces them
//! ([`Pacer`]) and counts them in the same statistics the simulation reports. With `virtual` pacing
//! a request arrives at the simulated time of the latest completion delivered: a host that keeps
//! `n` requests in flight is a closed loop at queue depth `n`, as a fio job is in `zonesim run`.

use super::pace::Pace;
use super::persist::{Identity, Logged, Persist, StoreOpen};
use super::power::{PowerCuts, RandomCuts};
use super::record::{RecordFormat, Recorder};
use super::store::{Store, StoreSpec, Verifier};
use super::{Pacer, PAGE};
use crate::device::Device;
use crate::engine::SimTime;
use crate::error::{Error, Result};
use crate::host::{HostIo, IoKind};
use crate::interface::zone::{ZoneConfig, ZoneInfo};
use crate::sim::{assemble, PowerOff, RunRecord};
use crate::stats::emulation::{EmulationReport, PersistReport, RejectedReport, StoreReport};
use crate::stats::report::{HostReport, JobReport};
use crate::stats::{IoStats, Report};
use std::path::PathBuf;
use std::time::Instant;

/// What to emulate and how.
#[derive(Debug, Clone)]
pub struct HandleOptions {
    /// Preset name or TOML file.
    pub device: String,
    /// `KEY=VALUE` overrides.
    pub sets: Vec<String>,
    pub namespace: usize,
    pub store: StoreSpec,
    /// `--resume` / `--fresh` (a `sparse:PATH` store only): continue the store where its last
    /// run left it, or start it over; neither refuses a store that holds data.
    pub open: StoreOpen,
    pub verify: bool,
    pub pace: Pace,
    pub record: Option<(PathBuf, RecordFormat)>,
    pub seed: u64,
    /// The job name in the report.
    pub name: String,
    /// Bring the namespace to this state first (`none`, `seq`, `steady`; the fio engine's
    /// `zs_precondition`); its counters are reset after it, as in `zonesim run --precondition`.
    pub precondition: crate::sim::Precondition,
    /// Cut power once, after the N-th request or at a simulated time (emu::power); the
    /// device goes on after its recovery.
    pub power_off: Option<PowerOff>,
    /// Cut power at seeded random request counts (drawn from `seed`, emu::power); the device
    /// recovers after each cut and goes on.
    pub random_cuts: Option<RandomCuts>,
    /// Track what a power cut loses from the start, so [`Handle::power_off`] may cut (on with
    /// `power_off`, and on resuming a store made so).
    pub power_cuts: bool,
}

impl Default for HandleOptions {
    fn default() -> Self {
        HandleOptions {
            device: "ufs-conventional".into(),
            sets: Vec::new(),
            namespace: 0,
            store: StoreSpec::None,
            open: StoreOpen::New,
            verify: false,
            pace: Pace::Virtual,
            record: None,
            seed: 1,
            name: "emulation".into(),
            precondition: crate::sim::Precondition::None,
            power_off: None,
            random_cuts: None,
            power_cuts: false,
        }
    }
}

/// Why the device did not execute a request (it is answered at once and counted).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IoError {
    /// The range reaches past the namespace (`EINVAL` / `EIO` to the host).
    OutOfRange,
    /// A zone rule rejected it (write off the write pointer, too many open zones, ...).
    ZoneRule,
    /// A data store failure (`sparse:PATH` I/O error), or a verify mismatch.
    Data,
    /// Power failed before the request reached the device (`power_off` at a time): it was
    /// not executed.
    PowerCut,
}

/// A submitted request: deliver it with [`Handle::complete`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ticket {
    pub kind: IoKind,
    pub issued: SimTime,
    pub done: SimTime,
    pub bytes: u64,
}

/// One namespace of a device under emulation.
pub struct Handle {
    dev: Device,
    ns: usize,
    opts: HandleOptions,
    store: Store,
    verifier: Option<Verifier>,
    pacer: Pacer,
    recorder: Option<Recorder>,
    /// The command log of a `sparse:PATH` store (`emu::persist`); `None` for other stores.
    persist: Option<Persist>,
    /// What resuming replayed: commands, wall seconds.
    resumed: Option<(u64, f64)>,
    /// Power cuts (`None`: the device does not track them, and nothing of them is paid).
    power: Option<Box<PowerCuts>>,
    /// Requests in flight at a cut, delivered to the host as failed.
    cut_requests: u64,
    /// Arrival time of the latest request issued (a cut by request count happens then).
    last_issue: SimTime,
    stats: IoStats,
    /// Simulated time of the latest completion delivered.
    clock: SimTime,
    /// Where the measured part starts (after preconditioning) and what preconditioning did.
    start: SimTime,
    precondition: crate::stats::report::PreconditionReport,
    issued: u64,
    completed: u64,
    rejected: RejectedReport,
    bytes: [u64; 3],
    wall: Instant,
}

impl Handle {
    /// Builds the device and opens the store (bad options: a one-line [`Error`]).
    pub fn open(opts: HandleOptions) -> Result<Handle> {
        if opts.verify && opts.store == StoreSpec::None {
            return Err(Error::Usage(
                "--verify needs a data store: --store memory or sparse:PATH".into(),
            ));
        }
        let cfg = crate::load_device(&opts.device, &opts.sets)?;
        let mut dev = Device::new(&cfg, opts.seed)?;
        dev.check_namespace(opts.namespace)?;
        let power = opts.power_cuts
            || opts.power_off.is_some()
            || opts.random_cuts.is_some()
            || matches!((&opts.store, opts.open), (StoreSpec::Sparse(p), StoreOpen::Resume) if super::persist::tracks_power(p));
        if power {
            dev.track_power()?;
        }
        let precondition = crate::sim::precondition_device(
            &mut dev,
            opts.precondition,
            opts.namespace,
            opts.seed,
        )?;
        if cfg.host.iotailor {
            return Err(Error::config(
                "host.iotailor",
                "reshapes the writes of a simulated run's sources; the emulation handle submits each command as it comes",
            ));
        }
        let capacity = dev.capacity_bytes(opts.namespace);
        let store = Store::open(&opts.store, capacity, opts.open)?;
        let mut clock = dev.clock;
        let (mut persist, mut resumed) = (None, None);
        if let StoreSpec::Sparse(path) = &opts.store {
            let id = Identity::new(
                &cfg,
                capacity,
                opts.namespace,
                opts.seed,
                opts.precondition,
                power,
            );
            if opts.open == StoreOpen::Resume {
                let wall = Instant::now();
                let ns = opts.namespace;
                let plp = cfg.power.plp;
                let (p, r) = Persist::resume(path, &id, |at, e| match e {
                    Logged::Io(io) => {
                        dev.submit(at, ns, crate::sim::command(&io));
                    }
                    // The store already holds what survived the cut.
                    Logged::PowerCut => {
                        dev.power_cycle(at, plp);
                    }
                })?;
                // The report covers this run, as after preconditioning.
                dev.reset_counters();
                clock = clock.max(r.clock);
                resumed = Some((r.commands, wall.elapsed().as_secs_f64()));
                persist = Some(p);
            } else {
                persist = Some(Persist::create(path, &id)?);
            }
        }
        let mut verifier = opts.verify.then(Verifier::default);
        if let (Some(v), Some(_)) = (&mut verifier, resumed) {
            v.seed(&store)?;
        }
        let recorder = match &opts.record {
            Some((path, format)) => Some(Recorder::create(path, *format)?),
            None => None,
        };
        Ok(Handle {
            ns: opts.namespace,
            verifier,
            pacer: Pacer::new(opts.pace),
            store,
            recorder,
            persist,
            resumed,
            power: power.then(|| {
                let mut p = PowerCuts::new(opts.power_off);
                if let Some(r) = opts.random_cuts {
                    p.plan(r, opts.seed);
                }
                Box::new(p)
            }),
            cut_requests: 0,
            last_issue: clock,
            dev,
            opts,
            stats: IoStats::default(),
            clock,
            start: clock,
            precondition,
            issued: 0,
            completed: 0,
            rejected: RejectedReport::default(),
            bytes: [0; 3],
            wall: Instant::now(),
        })
    }

    /// Rename the job the report shows (a device shared by several fio jobs: their names).
    pub fn set_name(&mut self, name: String) {
        self.opts.name = name;
    }

    /// The job name the report shows.
    pub fn name(&self) -> &str {
        &self.opts.name
    }

    /// Capacity of the namespace in bytes.
    pub fn capacity(&self) -> u64 {
        self.dev.capacity_bytes(self.ns)
    }

    /// The zone geometry, if the namespace is zoned.
    pub fn zone_config(&self) -> Option<ZoneConfig> {
        self.dev.zones(self.ns).map(|z| *z.zone_config())
    }

    /// Up to `max` zones from the one holding byte `offset` (report zones).
    pub fn report_zones(&self, offset: u64, max: usize) -> Vec<ZoneInfo> {
        let Some(z) = self.dev.zones(self.ns) else {
            return Vec::new();
        };
        let first = z
            .zones
            .zone_of(crate::interface::zone::Lba(offset / super::PAGE));
        z.zones.report(first, max)
    }

    /// Simulated time of the latest completion delivered.
    pub fn clock(&self) -> SimTime {
        self.clock
    }

    /// Reads `buf.len()` bytes at `offset` into `buf`.
    pub fn read(&mut self, offset: u64, buf: &mut [u8]) -> std::result::Result<Ticket, IoError> {
        self.request(|h| {
            let t = h.submit(HostIo::new(IoKind::Read, offset, buf.len() as u64))?;
            if h.store.keeps_data() {
                h.store.read(offset, buf).map_err(|_| h.data_error())?;
                if let Some(v) = &mut h.verifier {
                    if v.check(&h.store, offset, buf).map_err(|_| IoError::Data)? > 0 {
                        return Err(h.data_error());
                    }
                }
            }
            h.bytes[0] += buf.len() as u64;
            Ok(t)
        })
    }

    /// Writes `data` at `offset`.
    pub fn write(&mut self, offset: u64, data: &[u8]) -> std::result::Result<Ticket, IoError> {
        self.request(|h| {
            let t = h.submit(HostIo::new(IoKind::Write, offset, data.len() as u64))?;
            h.store.write(offset, data).map_err(|_| h.data_error())?;
            if let Some(v) = &mut h.verifier {
                v.wrote(&h.store, offset, data).map_err(|_| IoError::Data)?;
            }
            h.bytes[1] += data.len() as u64;
            Ok(t)
        })
    }

    /// Trims (discards) `len` bytes at `offset`.
    pub fn trim(&mut self, offset: u64, len: u64) -> std::result::Result<Ticket, IoError> {
        self.request(|h| {
            let t = h.submit(HostIo::new(IoKind::Trim, offset, len))?;
            h.drop_data(offset, len)?;
            Ok(t)
        })
    }

    /// Flushes the device's write buffers.
    pub fn flush(&mut self) -> std::result::Result<Ticket, IoError> {
        self.request(|h| h.submit(HostIo::new(IoKind::Flush, 0, 0)))
    }

    /// Resets the zone holding byte `offset`; its data is dropped.
    pub fn zone_reset(&mut self, offset: u64) -> std::result::Result<Ticket, IoError> {
        self.request(|h| {
            let t = h.submit(HostIo::new(IoKind::ZoneReset, offset, 0))?;
            if let Some(zc) = h.zone_config() {
                let size = zc.zone_size * super::PAGE;
                h.drop_data(offset / size * size, size)?;
            }
            Ok(t)
        })
    }

    /// Runs one request (its command and its data), then the power cut its issue made due (by
    /// request count): the cut comes after the request's data reached the store, so the store
    /// loses what the model says, this request's data included.
    #[inline]
    fn request(
        &mut self,
        f: impl FnOnce(&mut Self) -> std::result::Result<Ticket, IoError>,
    ) -> std::result::Result<Ticket, IoError> {
        let r = f(self);
        if let Some(p) = &mut self.power {
            if p.due_by_count(self.issued) {
                self.cut(self.last_issue).map_err(|_| IoError::Data)?;
            }
        }
        r
    }

    fn drop_data(&mut self, offset: u64, len: u64) -> std::result::Result<(), IoError> {
        self.store
            .trim(offset, len)
            .map_err(|_| self.data_error())?;
        if let Some(v) = &mut self.verifier {
            v.trimmed(&self.store, offset, len)
                .map_err(|_| IoError::Data)?;
        }
        self.bytes[2] += len;
        Ok(())
    }

    #[cold]
    fn data_error(&mut self) -> IoError {
        self.rejected.data += 1;
        IoError::Data
    }

    /// Cuts power now (the device must track power cuts: `power_cuts` or `power_off` in the
    /// options): the device loses what the model says, the store follows, the device recovers
    /// and the clock moves past the recovery. Requests in flight fail when delivered.
    pub fn power_off(&mut self) -> Result<()> {
        if self.power.is_none() {
            return Err(Error::Usage(
                "power_off: the device does not track power cuts (open it with power_cuts or power_off)".into(),
            ));
        }
        let now = self.pacer.arrival(self.clock);
        self.cut(now)
    }

    /// Power cuts so far.
    pub fn power_cuts(&self) -> usize {
        self.power.as_ref().map_or(0, |p| p.cycles.len())
    }

    #[cold]
    fn cut(&mut self, at: SimTime) -> Result<()> {
        if let Some(p) = &mut self.persist {
            p.log_power_cut(at).map_err(|e| Error::io(p.path(), e))?;
        }
        let cycle = self.dev.power_cycle(at, self.dev.cfg.power.plp);
        for &lpa in &cycle.losses[self.ns].lost_lpas {
            let offset = u64::from(lpa) * PAGE;
            self.store.trim(offset, PAGE)?;
            if let Some(v) = &mut self.verifier {
                v.trimmed(&self.store, offset, PAGE)?;
            }
        }
        self.dev.check_invariants().map_err(Error::internal)?;
        self.clock = self.clock.max(cycle.recovered);
        if let Some(p) = &mut self.power {
            p.cycles.push(cycle);
        }
        Ok(())
    }

    /// Hands one request to the device at the current arrival time.
    fn submit(&mut self, io: HostIo) -> std::result::Result<Ticket, IoError> {
        let now = self.pacer.arrival(self.clock);
        if let Some(p) = &mut self.power {
            if let Some(at) = p.due_by_time(self.start, now) {
                self.cut(at).map_err(|_| IoError::Data)?;
                return Err(IoError::PowerCut);
            }
        }
        if let Some(r) = &mut self.recorder {
            r.record(now, io.kind, io.offset, io.len)
                .map_err(|_| IoError::Data)?;
        }
        if let Some(p) = &mut self.persist {
            p.log(now, &io).map_err(|_| IoError::Data)?;
        }
        let (oor, zone_errors) = (self.dev.out_of_range, self.zone_errors());
        let done = self.dev.submit(now, self.ns, crate::sim::command(&io)).done;
        if self.dev.out_of_range != oor {
            self.rejected.out_of_range += 1;
            return Err(IoError::OutOfRange);
        }
        if self.zone_errors() != zone_errors {
            self.rejected.zone_rule += 1;
            return Err(IoError::ZoneRule);
        }
        self.issued += 1;
        self.last_issue = now;
        self.stats.issued(now);
        Ok(Ticket {
            kind: io.kind,
            issued: now,
            done,
            bytes: io.len,
        })
    }

    fn zone_errors(&self) -> u64 {
        self.dev.zones(self.ns).map_or(0, |z| z.errors.total())
    }

    /// Delivers a completion: waits for it in wall time (`realtime`), counts it, and moves the
    /// clock to it. `false`: the request was in flight at a power cut and failed (counted
    /// apart, the clock stays).
    pub fn complete(&mut self, t: &Ticket) -> bool {
        if let Some(p) = &self.power {
            if p.cut_in_flight(t.issued, t.done) {
                self.cut_requests += 1;
                return false;
            }
        }
        self.pacer.wait(t.done);
        self.stats.record(t.kind, t.issued, t.done, t.bytes);
        self.clock = self.clock.max(t.done);
        self.completed += 1;
        true
    }

    /// Ends the recording (if any), saves a `sparse:PATH` store's data and device state (the
    /// next run may `--resume` it), and builds the report of everything delivered so far. The
    /// handle may take more commands afterwards.
    pub fn finish(&mut self) -> Result<Report> {
        if let Some(r) = &mut self.recorder {
            r.finish(self.clock)?;
        }
        if let Some(p) = &mut self.persist {
            self.store.sync()?;
            p.close(self.clock)?;
        }
        Ok(self.report())
    }

    /// The report: the same schema as `zonesim run --json`, plus `emulation`.
    pub fn report(&self) -> Report {
        let host = HostReport::from_stats(&self.stats);
        let wall_s = self.wall.elapsed().as_secs_f64();
        let record = RunRecord {
            seed: self.opts.seed,
            end: self.clock,
            wall_s,
            measure_wall_s: wall_s,
            events: self.completed,
            issued: self.issued,
            completed: self.completed,
            jobs: vec![JobReport {
                name: self.opts.name.clone(),
                namespace: self.ns,
                priority: None,
                host: host.clone(),
                latency_breakdown: None,
            }],
            host,
            precondition: self.precondition.clone(),
            start: self.start,
            emulation: Some(self.emulation_report()),
            power: self.power.as_ref().map(|p| {
                let bytes = self.stats.read.bytes + self.stats.write.bytes;
                crate::sim::report_cuts(&self.dev, self.start, self.clock, &p.cycles, bytes)
            }),
            cut: self
                .power
                .as_ref()
                .filter(|p| !p.cycles.is_empty())
                .map(|_| self.cut_requests),
            ..RunRecord::default()
        };
        assemble(&self.dev, None, record)
    }

    fn emulation_report(&self) -> EmulationReport {
        let (pages_verified, mismatches, first_mismatch_offset) =
            self.verifier.as_ref().map_or((0, 0, None), |v| {
                (v.pages_verified, v.mismatches, v.first_mismatch)
            });
        EmulationReport {
            store: StoreReport {
                kind: self.opts.store.name(),
                path: match &self.opts.store {
                    StoreSpec::Sparse(p) => Some(p.display().to_string()),
                    _ => None,
                },
                verify: self.opts.verify,
                bytes_read: self.bytes[0],
                bytes_written: self.bytes[1],
                bytes_trimmed: self.bytes[2],
                resident_pages: self.store.resident_pages(),
                pages_verified,
                mismatches,
                first_mismatch_offset,
                persist: self.persist.as_ref().map(|p| PersistReport {
                    metadata: p.path().display().to_string(),
                    resumed: self.resumed.is_some(),
                    replayed_commands: self.resumed.map_or(0, |r| r.0),
                    replay_wall_s: self.resumed.map_or(0.0, |r| r.1),
                    logged_commands: p.commands(),
                    log_bytes: p.log_bytes(),
                }),
            },
            pacing: self.pacer.report(),
            record: self.recorder.as_ref().map(Recorder::report),
            rejected: self.rejected.clone(),
        }
    }
}
