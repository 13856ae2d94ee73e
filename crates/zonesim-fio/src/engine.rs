//! One fio job's device: fio's `io_u`s in, completions out in simulated-completion order.

use crate::abi::*;
use crate::EngineOptions;
use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;
use std::ffi::{c_char, c_int, c_uint, CStr};
use std::path::PathBuf;
use std::sync::Mutex;
use zonesim::emu::{Handle, HandleOptions, IoError, Pace, RecordFormat, StoreSpec, Ticket, PAGE};
use zonesim::engine::SimTime;
use zonesim::interface::zone::ZoneCondition;

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

pub struct Engine {
    h: Handle,
    inflight: BinaryHeap<Reverse<Pending>>,
    seq: u64,
    /// The completions of the last `getevents`, read back by `event`.
    events: Vec<*mut IoU>,
    report: Option<PathBuf>,
}

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
        let e = |e: zonesim::Error| e.to_string();
        let mut o = HandleOptions::default();
        if let Some(d) = text(eo.device) {
            o.device = d;
        }
        if let Some(s) = text(eo.set) {
            o.sets = s.split(',').map(|kv| kv.trim().to_string()).collect();
        }
        if let Some(n) = text(eo.namespace) {
            o.namespace = n
                .trim()
                .parse()
                .map_err(|_| format!("zs_namespace: `{n}`: expected a namespace index"))?;
        }
        if let Some(s) = text(eo.store) {
            o.store = StoreSpec::parse("zs_store", s.trim()).map_err(e)?;
        }
        if let Some(v) = text(eo.verify) {
            o.verify = match v.trim() {
                "1" | "true" => true,
                "0" | "false" => false,
                _ => return Err(format!("zs_verify: `{v}`: expected 0 or 1")),
            };
        }
        if let Some(p) = text(eo.pace) {
            o.pace = Pace::parse("zs_pace", p.trim()).map_err(e)?;
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
        if let Some(name) = text(*field::<*const c_char>(td, TD_NAME_OFF)) {
            o.name = name;
        }
        Ok(Engine {
            h: Handle::open(o).map_err(e)?,
            inflight: BinaryHeap::new(),
            seq: 0,
            events: Vec::new(),
            report: text(eo.report).map(PathBuf::from),
        })
    }

    pub fn capacity(&self) -> u64 {
        self.h.capacity()
    }

    pub fn zoned(&self) -> bool {
        self.h.zone_config().is_some()
    }

    pub fn max_open_zones(&self) -> c_uint {
        self.h.zone_config().map_or(0, |z| z.max_open)
    }

    /// Hands an `io_u` to the device: queued (delivered by `getevents`) or, if the device
    /// refused it, completed at once with its error.
    ///
    /// # Safety
    /// `io_u` is a live fio `io_u` whose buffer holds `xfer_buflen` bytes.
    pub unsafe fn queue(&mut self, io_u: *mut IoU) -> c_int {
        let ddir = *field::<c_int>(io_u, IO_U_DDIR_OFF);
        let offset = *field::<u64>(io_u, IO_U_OFFSET_OFF);
        let len = *field::<u64>(io_u, IO_U_XFER_BUFLEN_OFF);
        let buf = *field::<*mut u8>(io_u, IO_U_XFER_BUF_OFF);
        let res = match ddir {
            DDIR_READ => self
                .h
                .read(offset, std::slice::from_raw_parts_mut(buf, len as usize)),
            DDIR_WRITE => self
                .h
                .write(offset, std::slice::from_raw_parts(buf, len as usize)),
            DDIR_TRIM => self.h.trim(offset, len),
            DDIR_SYNC | DDIR_DATASYNC | DDIR_SYNC_FILE_RANGE => self.h.flush(),
            _ => return FIO_Q_COMPLETED,
        };
        match res {
            Ok(ticket) => {
                *field::<u64>(io_u, IO_U_RESID_OFF) = 0;
                self.seq += 1;
                self.inflight.push(Reverse(Pending {
                    ticket,
                    seq: self.seq,
                    io_u,
                }));
                FIO_Q_QUEUED
            }
            Err(err) => {
                *field::<u64>(io_u, IO_U_RESID_OFF) = len;
                *field::<c_int>(io_u, IO_U_ERROR_OFF) = match err {
                    IoError::OutOfRange => libc::EINVAL,
                    IoError::ZoneRule | IoError::Data => libc::EIO,
                };
                FIO_Q_COMPLETED
            }
        }
    }

    /// Delivers at least `min` and at most `max` completions, earliest first: the first `min`
    /// whatever their time (the host waits for them), then those already due.
    pub fn getevents(&mut self, min: usize, max: usize) -> usize {
        self.events.clear();
        while self.events.len() < max {
            let due = match self.inflight.peek() {
                Some(Reverse(p)) => self.events.len() < min || p.ticket.done <= self.h.clock(),
                None => false,
            };
            if !due {
                break;
            }
            let Reverse(p) = self.inflight.pop().expect("peeked");
            self.h.complete(&p.ticket);
            self.events.push(p.io_u);
        }
        self.events.len()
    }

    pub fn event(&self, i: usize) -> *mut IoU {
        self.events.get(i).copied().unwrap_or(std::ptr::null_mut())
    }

    /// Fills `out` with the zones from the one holding `offset`; returns how many.
    pub fn report_zones(&self, offset: u64, out: &mut [ZbdZone]) -> usize {
        let Some(zc) = self.h.zone_config() else {
            return 0;
        };
        let zones = self.h.report_zones(offset, out.len());
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
        let zc = self
            .h
            .zone_config()
            .ok_or("reset_wp on a conventional namespace")?;
        let size = zc.zone_size * PAGE;
        let mut at = offset / size * size;
        while at < offset + len {
            match self.h.zone_reset(at) {
                Ok(t) => self.h.complete(&t),
                Err(_) => return Ok(-libc::EIO),
            }
            at += size;
        }
        Ok(0)
    }

    fn finish(mut self) -> Result<(), String> {
        let report = self.h.finish().map_err(|e| e.to_string())?;
        let mismatches = report.emulation.as_ref().map_or(0, |e| e.store.mismatches);
        if mismatches > 0 {
            eprintln!("zonesim engine: verify: {mismatches} page(s) read back differ from their last write");
        }
        if let Some(path) = &self.report {
            let text = serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?;
            std::fs::write(path, text + "\n").map_err(|e| format!("{}: {e}", path.display()))?;
        }
        Ok(())
    }
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
