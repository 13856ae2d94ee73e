//! One fio job's view of the run's device: fio's `io_u`s in, completions out in
//! simulated-completion order. The jobs of one fio run whose device options are the same share
//! one simulated device ([`SharedDevice`]), kept across `stonewall` groups: a fill job followed
//! by a read job reads what the fill wrote. Jobs run as threads of one process (`thread=1`);
//! forked jobs (fio's default) cannot share memory, so each would get its own device.

use crate::abi::*;
use crate::EngineOptions;
use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;
use std::ffi::{c_char, c_int, c_uint, CStr};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard};
use zonesim::emu::{
    Handle, HandleOptions, IoError, Pace, RandomCuts, RecordFormat, StoreOpen, StoreSpec, Ticket,
    PAGE,
};
use zonesim::engine::SimTime;
use zonesim::interface::zone::ZoneCondition;
use zonesim::sim::{PowerOff, Precondition};

/// An I/O handed to the device, waiting to be delivered to fio.
struct Pending {
    ticket: Ticket,
    seq: u64,
    io_u: *mut IoU,
}

impl Pending {
    fn key(&self) -> (SimTime, u64) {
        (self.ticket.done, self.seq)
    }
}

impl PartialEq for Pending {
    fn eq(&self, o: &Self) -> bool {
        self.key() == o.key()
    }
}
impl Eq for Pending {}
impl PartialOrd for Pending {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Pending {
    fn cmp(&self, o: &Self) -> Ordering {
        self.key().cmp(&o.key())
    }
}

/// The device of the jobs with the same device options, and how many of them are open.
pub struct SharedDevice {
    key: String,
    h: Mutex<Handle>,
    users: Mutex<usize>,
    report: Option<PathBuf>,
}

/// Every device of this fio run by its options; kept after its jobs close, for the jobs of
/// later `stonewall` groups.
static DEVICES: Mutex<Vec<Arc<SharedDevice>>> = Mutex::new(Vec::new());

pub struct Engine {
    dev: Arc<SharedDevice>,
    inflight: BinaryHeap<Reverse<Pending>>,
    seq: u64,
    /// The completions of the last `getevents`, read back by `event`.
    events: Vec<*mut IoU>,
}

/// The warning of `zs_pace=virtual`, printed once per process.
static VIRTUAL_WARNED: std::sync::Once = std::sync::Once::new();

/// The engines of the running jobs, by `thread_data` address.
struct Registry(Vec<(usize, Box<Engine>)>);
// SAFETY: each engine is used only by the fio thread of its `thread_data`; the raw `io_u`
// pointers it holds are fio's, handed back to that same thread.
unsafe impl Send for Registry {}

static ENGINES: Mutex<Registry> = Mutex::new(Registry(Vec::new()));

fn registry() -> std::sync::MutexGuard<'static, Registry> {
    ENGINES.lock().unwrap_or_else(|p| p.into_inner())
}

/// The engine of thread `td`, made by `make` on first use.
///
/// # Safety
/// The returned reference is used by `td`'s thread only, and not after [`close`].
pub unsafe fn for_thread<'a>(
    td: *mut Td,
    make: impl FnOnce() -> Result<Engine, String>,
) -> Result<&'a mut Engine, String> {
    let key = td as usize;
    let mut reg = registry();
    if let Some((_, e)) = reg.0.iter_mut().find(|(k, _)| *k == key) {
        return Ok(&mut *(e.as_mut() as *mut Engine));
    }
    let mut e = Box::new(make()?);
    let p = e.as_mut() as *mut Engine;
    reg.0.push((key, e));
    Ok(&mut *p)
}

/// The power cut of the options (`zs_power_off_at_request`, `zs_power_off_at_us`; one of them).
///
/// # Safety
/// `eo` is fio's, of the pinned version.
unsafe fn power_off(eo: &EngineOptions) -> Result<Option<PowerOff>, String> {
    match (text(eo.power_off_at_request), text(eo.power_off_at_us)) {
        (Some(_), Some(_)) => {
            Err("zs_power_off_at_request and zs_power_off_at_us: choose one".into())
        }
        (Some(n), None) => match n.trim().parse::<u64>() {
            Ok(n) if n >= 1 => Ok(Some(PowerOff::AtRequest(n))),
            _ => Err(format!(
                "zs_power_off_at_request: `{n}`: expected a request count of at least 1"
            )),
        },
        (None, Some(t)) => match t.trim().parse::<f64>() {
            Ok(t) if t.is_finite() && t >= 0.0 => Ok(Some(PowerOff::AtUs(t))),
            _ => Err(format!(
                "zs_power_off_at_us: `{t}`: expected a time in µs of at least 0"
            )),
        },
        (None, None) => Ok(None),
    }
}

/// The random cuts of the options (`zs_power_cuts=N` over `zs_power_cuts_within=R` requests).
///
/// # Safety
/// `eo` is fio's, of the pinned version.
unsafe fn random_cuts(eo: &EngineOptions) -> Result<Option<RandomCuts>, String> {
    let count = |name: &str, v: String| {
        v.trim()
            .parse::<u64>()
            .map_err(|_| format!("{name}: `{v}`: expected an unsigned integer"))
    };
    match (text(eo.power_cuts), text(eo.power_cuts_within)) {
        (None, None) => Ok(None),
        (Some(_), None) => {
            Err("zs_power_cuts: needs zs_power_cuts_within=R, the requests the cuts fall on".into())
        }
        (None, Some(_)) => Err("zs_power_cuts_within: without zs_power_cuts=N".into()),
        (Some(n), Some(r)) => {
            let (n, r) = (
                count("zs_power_cuts", n)?,
                count("zs_power_cuts_within", r)?,
            );
            RandomCuts::new(n, r, "zs_power_cuts, zs_power_cuts_within")
                .map(Some)
                .map_err(|e| e.to_string())
        }
    }
}

/// Ends thread `td`'s engine: writes its report (`zs_report`).
pub fn close(td: *mut Td) -> Result<(), String> {
    let key = td as usize;
    let e = {
        let mut reg = registry();
        let Some(i) = reg.0.iter().position(|(k, _)| *k == key) else {
            return Ok(());
        };
        reg.0.swap_remove(i).1
    };
    e.finish()
}

/// A `0`/`1` option (unset: 0).
///
/// # Safety
/// `p` is NULL or a NUL-terminated string.
unsafe fn flag(name: &str, p: *const c_char) -> Result<bool, String> {
    match text(p).as_deref().map(str::trim) {
        None | Some("0" | "false") => Ok(false),
        Some("1" | "true") => Ok(true),
        Some(v) => Err(format!("{name}: `{v}`: expected 0 or 1")),
    }
}

/// An option's string, if set.
///
/// # Safety
/// `p` is NULL or a NUL-terminated string.
unsafe fn text(p: *const c_char) -> Option<String> {
    (!p.is_null()).then(|| CStr::from_ptr(p).to_string_lossy().into_owned())
}

impl Engine {
    /// Builds the job's device from its options.
    ///
    /// # Safety
    /// `eo` and `td` are fio's, of the pinned version.
    pub unsafe fn open(eo: &EngineOptions, td: *mut Td) -> Result<Engine, String> {
        let mut o = HandleOptions::default();
        let device = text(eo.device);
        let sets = text(eo.set);
        // An error of the device or its keys names the engine options the user wrote.
        let e = |err: zonesim::Error| {
            let msg = err
                .to_string()
                .replace("--device", "zs_device")
                .replace("--set", "zs_set")
                .replace("--resume", "zs_resume=1")
                .replace("--fresh", "zs_fresh=1");
            format!(
                "zs_device={} zs_set={}: {msg}",
                device.as_deref().unwrap_or("ufs-conventional"),
                sets.as_deref().unwrap_or("")
            )
        };
        if let Some(d) = &device {
            o.device = d.clone();
        }
        if let Some(s) = &sets {
            o.sets = s.split(',').map(|kv| kv.trim().to_string()).collect();
        }
        if let Some(n) = text(eo.namespace) {
            o.namespace = n
                .trim()
                .parse()
                .map_err(|_| format!("zs_namespace: `{n}`: expected a namespace index"))?;
        } else {
            // The device's main namespace (1 for the zoned presets), as `zonesim run`.
            let cfg = zonesim::load_device(&o.device, &o.sets).map_err(e)?;
            o.namespace = cfg.main_namespace as usize;
        }
        if let Some(s) = text(eo.store) {
            o.store = StoreSpec::parse("zs_store", s.trim()).map_err(e)?;
        }
        o.verify = flag("zs_verify", eo.verify)?;
        o.power_off = power_off(eo)?;
        o.random_cuts = random_cuts(eo)?;
        if o.power_off.is_some() && o.random_cuts.is_some() {
            return Err("zs_power_cuts and zs_power_off_at_*: choose one".into());
        }
        o.open = match (flag("zs_resume", eo.resume)?, flag("zs_fresh", eo.fresh)?) {
            (true, true) => return Err("zs_resume=1 and zs_fresh=1: choose one".into()),
            (true, false) => StoreOpen::Resume,
            (false, true) => StoreOpen::Fresh,
            (false, false) => StoreOpen::New,
        };
        // Real time by default: fio's own clock then measures the device.
        o.pace = match text(eo.pace) {
            Some(p) => Pace::parse("zs_pace", p.trim()).map_err(e)?,
            None => Pace::Realtime,
        };
        if o.pace == Pace::Virtual {
            VIRTUAL_WARNED.call_once(|| {
                eprintln!(
                    "zonesim engine: warning: zs_pace=virtual: fio's own rates and latencies \
                     measure the emulator's speed, not the device's; the device's are in \
                     zs_report (zs_pace=realtime makes fio's numbers the device's)"
                )
            });
        }
        if let Some(p) = text(eo.precondition) {
            o.precondition = p.trim().parse::<Precondition>().map_err(|_| {
                format!(
                    "zs_precondition: `{}`: expected none, seq, steady or steady-fast",
                    p.trim()
                )
            })?;
        }
        if let Some(path) = text(eo.record) {
            let fmt = match text(eo.record_format) {
                Some(f) => RecordFormat::parse("zs_record_format", f.trim()).map_err(e)?,
                None => RecordFormat::Iolog,
            };
            o.record = Some((PathBuf::from(path), fmt));
        }
        if let Some(s) = text(eo.seed) {
            o.seed = s
                .trim()
                .parse()
                .map_err(|_| format!("zs_seed: `{s}`: expected an unsigned integer"))?;
        }
        let job = text(*field::<*const c_char>(td, TD_NAME_OFF)).unwrap_or_default();
        if !job.is_empty() {
            o.name = job.clone();
        }
        // Jobs with the same device options share the device (the report path is not part of
        // the device: the first job's wins).
        let key = format!(
            "{:?}|{:?}|{}|{:?}|{:?}|{}|{:?}|{:?}|{}|{:?}|{:?}|{:?}",
            o.device,
            o.sets,
            o.namespace,
            o.store,
            o.open,
            o.verify,
            o.pace,
            o.record,
            o.seed,
            o.precondition,
            o.power_off,
            o.random_cuts
        );
        let mut devices = DEVICES.lock().unwrap_or_else(|p| p.into_inner());
        let dev = match devices.iter().find(|d| d.key == key) {
            Some(d) => {
                let mut h = lock(&d.h);
                if !job.is_empty() && !h.name().split('+').any(|n| n == job) {
                    let name = format!("{}+{job}", h.name());
                    h.set_name(name);
                }
                d.clone()
            }
            None => {
                let d = Arc::new(SharedDevice {
                    key,
                    h: Mutex::new(Handle::open(o).map_err(e)?),
                    users: Mutex::new(0),
                    report: text(eo.report).map(PathBuf::from),
                });
                devices.push(d.clone());
                d
            }
        };
        *lock(&dev.users) += 1;
        Ok(Engine {
            dev,
            inflight: BinaryHeap::new(),
            seq: 0,
            events: Vec::new(),
        })
    }

    fn h(&self) -> MutexGuard<'_, Handle> {
        lock(&self.dev.h)
    }

    pub fn capacity(&self) -> u64 {
        self.h().capacity()
    }

    pub fn zoned(&self) -> bool {
        self.h().zone_config().is_some()
    }

    pub fn max_open_zones(&self) -> c_uint {
        self.h().zone_config().map_or(0, |z| z.max_open)
    }

    /// Hands an `io_u` to the device: queued (delivered by `getevents`) or, if the device
    /// refused it, completed at once with its error.
    ///
    /// # Safety
    /// `io_u` is a live fio `io_u` of the release `l` describes, whose buffer holds
    /// `xfer_buflen` bytes.
    pub unsafe fn queue(&mut self, io_u: *mut IoU, l: &Layout) -> c_int {
        let [o_offset, o_buf, o_len, o_resid, o_error] = l.io_u;
        let ddir = *field::<c_int>(io_u, IO_U_DDIR_OFF);
        let offset = *field::<u64>(io_u, o_offset);
        let len = *field::<u64>(io_u, o_len);
        let buf = *field::<*mut u8>(io_u, o_buf);
        let mut h = self.h();
        let res = match ddir {
            DDIR_READ => h.read(offset, std::slice::from_raw_parts_mut(buf, len as usize)),
            DDIR_WRITE => h.write(offset, std::slice::from_raw_parts(buf, len as usize)),
            DDIR_TRIM => h.trim(offset, len),
            DDIR_SYNC | DDIR_DATASYNC | DDIR_SYNC_FILE_RANGE => h.flush(),
            _ => return FIO_Q_COMPLETED,
        };
        drop(h);
        match res {
            Ok(ticket) => {
                *field::<u64>(io_u, o_resid) = 0;
                self.seq += 1;
                self.inflight.push(Reverse(Pending {
                    ticket,
                    seq: self.seq,
                    io_u,
                }));
                FIO_Q_QUEUED
            }
            Err(err) => {
                *field::<u64>(io_u, o_resid) = len;
                *field::<c_int>(io_u, o_error) = match err {
                    IoError::OutOfRange => libc::EINVAL,
                    IoError::ZoneRule | IoError::Data | IoError::PowerCut => libc::EIO,
                };
                FIO_Q_COMPLETED
            }
        }
    }

    /// Delivers at least `min` and at most `max` completions, earliest first: the first `min`
    /// whatever their time (the host waits for them), then those already due.
    pub fn getevents(&mut self, min: usize, max: usize, l: &Layout) -> usize {
        let [_, _, _, o_resid, o_error] = l.io_u;
        self.events.clear();
        let dev = self.dev.clone();
        let mut h = lock(&dev.h);
        while self.events.len() < max {
            let due = match self.inflight.peek() {
                Some(Reverse(p)) => self.events.len() < min || p.ticket.done <= h.clock(),
                None => false,
            };
            if !due {
                break;
            }
            let Reverse(p) = self.inflight.pop().expect("peeked");
            if !h.complete(&p.ticket) {
                // In flight at a power cut: its completion never came.
                // SAFETY: a live io_u of the layout this engine was opened with.
                unsafe {
                    *field::<u64>(p.io_u, o_resid) = p.ticket.bytes;
                    *field::<c_int>(p.io_u, o_error) = libc::EIO;
                }
            }
            self.events.push(p.io_u);
        }
        self.events.len()
    }

    pub fn event(&self, i: usize) -> *mut IoU {
        self.events.get(i).copied().unwrap_or(std::ptr::null_mut())
    }

    /// Fills `out` with the zones from the one holding `offset`; returns how many.
    pub fn report_zones(&self, offset: u64, out: &mut [ZbdZone]) -> usize {
        let h = self.h();
        let Some(zc) = h.zone_config() else {
            return 0;
        };
        let zones = h.report_zones(offset, out.len());
        for (slot, z) in out.iter_mut().zip(&zones) {
            *slot = ZbdZone {
                start: z.start.0 * PAGE,
                wp: z.write_pointer.0 * PAGE,
                len: zc.zone_size * PAGE,
                capacity: z.capacity * PAGE,
                zone_type: ZBD_ZONE_TYPE_SWR,
                cond: condition(z.condition),
            };
        }
        zones.len()
    }

    /// Resets every zone starting in `[offset, offset + len)` (fio waits for it).
    pub fn reset_wp(&mut self, offset: u64, len: u64) -> Result<c_int, String> {
        let mut h = self.h();
        let zc = h
            .zone_config()
            .ok_or("reset_wp on a conventional namespace")?;
        let size = zc.zone_size * PAGE;
        let mut at = offset / size * size;
        while at < offset + len {
            match h.zone_reset(at) {
                Ok(t) if h.complete(&t) => {}
                _ => return Ok(-libc::EIO),
            }
            at += size;
        }
        Ok(0)
    }

    /// The job ends. When it was the last open job of its device, the report is written
    /// (`zs_report`): the device stays for the jobs of a later `stonewall` group, and each
    /// group's end rewrites the report with everything the device did so far.
    fn finish(self) -> Result<(), String> {
        let mut users = lock(&self.dev.users);
        *users -= 1;
        if *users > 0 {
            return Ok(());
        }
        let report = self.h().finish().map_err(|e| e.to_string())?;
        let mismatches = report.emulation.as_ref().map_or(0, |e| e.store.mismatches);
        if mismatches > 0 {
            eprintln!("zonesim engine: verify: {mismatches} page(s) read back differ from their last write");
        }
        if let Some(path) = &self.dev.report {
            let text = serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?;
            std::fs::write(path, text + "\n").map_err(|e| format!("{}: {e}", path.display()))?;
        }
        Ok(())
    }
}

/// A lock that survives a panicked holder (every callback runs under `catch_unwind`).
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

fn condition(c: ZoneCondition) -> c_int {
    match c {
        ZoneCondition::Empty => ZBD_ZONE_COND_EMPTY,
        ZoneCondition::ImplicitOpen => ZBD_ZONE_COND_IMP_OPEN,
        ZoneCondition::ExplicitOpen => ZBD_ZONE_COND_EXP_OPEN,
        ZoneCondition::Closed => ZBD_ZONE_COND_CLOSED,
        ZoneCondition::Full => ZBD_ZONE_COND_FULL,
        ZoneCondition::ReadOnly => ZBD_ZONE_COND_READONLY,
        ZoneCondition::Offline => ZBD_ZONE_COND_OFFLINE,
    }
}
