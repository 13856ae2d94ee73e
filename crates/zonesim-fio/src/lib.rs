//! `libzonesim_fio.so`: a fio external ioengine over zonesim (`ioengine=external:PATH`).
//!
//! The jobs of one fio run (threads, `thread=1`) with the same device options share one
//! simulated device, an [`zonesim::emu::Handle`] on one namespace, kept across `stonewall`
//! groups: fio's I/Os become device commands at the simulated arrival time, their data goes
//! to the data store, and completions are delivered to fio in simulated-completion order, so a
//! job at `iodepth=N` is a closed loop at queue depth N as in `zonesim run`. A zoned namespace
//! answers fio's zoned callbacks (`get_zoned_model`, `report_zones`, `reset_wp`,
//! `get_max_open_zones`), so `zonemode=zbd` jobs run unmodified. At job end the engine writes
//! zonesim's JSON report (`zs_report`).
//!
//! Engine options (all strings): `zs_device` (preset or TOML; default `ufs-conventional`),
//! `zs_set` (comma-separated `key=value` overrides), `zs_namespace` (default: the device's
//! `main_namespace`), `zs_store` (`none|memory|sparse:PATH`, default `none`), `zs_report`
//! (JSON report path), and beside them `zs_verify` (`1`: check every read against the last
//! write), `zs_pace` (`realtime`, the default: fio's clock measures the device; `virtual`:
//! as fast as the emulator goes, with a warning), `zs_precondition`
//! (`none|seq|steady|steady-fast`), `zs_record` (trace file), `zs_record_format`
//! (`iolog|blkparse`), `zs_seed`, and for a `sparse:PATH` store `zs_resume=1` (continue it
//! where its last run left it: the store and the device state saved beside it) or `zs_fresh=1`
//! (start it over); with neither, a store holding data is refused. A power cut
//! (docs/power.md, "Crash testing"): `zs_power_off_at_request=N` (once the N-th request of the
//! device is issued) or `zs_power_off_at_us=T` (at T µs of simulated time), or several at
//! random: `zs_power_cuts=N` with `zs_power_cuts_within=R` (N cuts, 1 to 100,000, at distinct
//! request counts drawn uniformly from 1 to R ≥ N by `zs_seed`; `emu::power::RandomCuts`);
//! requests in flight at a cut fail with `EIO`, what the model says is lost reads back as
//! zeros, and the device recovers and goes on.
//!
//! fio's structures differ between releases: the engine knows the layouts of fio 3.33 to 3.42
//! ([`abi`]), picks the running one at load from fio's version string, and refuses another
//! fio in one line naming the supported releases. No panic crosses into fio: every callback runs
//! under `catch_unwind`, and a failure becomes a fio error (`EIO` on the I/O, or a failed
//! callback with the message on stderr).

mod abi;
mod engine;

use abi::*;
use engine::Engine;
use std::ffi::{c_char, c_int, c_uint, c_void};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// The engine options as fio stores them (`td->eo`): fio's back-pointer first, then one
/// `strdup`'ed string (or NULL) per option.
#[repr(C)]
pub struct EngineOptions {
    td: *mut Td,
    pub device: *mut c_char,
    pub set: *mut c_char,
    pub namespace: *mut c_char,
    pub store: *mut c_char,
    pub report: *mut c_char,
    pub verify: *mut c_char,
    pub pace: *mut c_char,
    pub record: *mut c_char,
    pub record_format: *mut c_char,
    pub seed: *mut c_char,
    pub precondition: *mut c_char,
    pub resume: *mut c_char,
    pub fresh: *mut c_char,
    pub power_off_at_request: *mut c_char,
    pub power_off_at_us: *mut c_char,
    pub power_cuts: *mut c_char,
    pub power_cuts_within: *mut c_char,
}

macro_rules! opt {
    ($name:literal, $field:ident, $help:literal) => {
        FioOption::string(
            $name.as_ptr(),
            $help.as_ptr(),
            std::mem::offset_of!(EngineOptions, $field) as u32,
        )
    };
}

/// fio's option table for the engine (fio writes into its entries while parsing: mutable).
static mut OPTIONS: [FioOption; 18] = [
    opt!(
        c"zs_device",
        device,
        c"zonesim device: preset name or TOML file"
    ),
    opt!(
        c"zs_set",
        set,
        c"comma-separated key=value device overrides"
    ),
    opt!(
        c"zs_namespace",
        namespace,
        c"namespace index (default: the device's main namespace)"
    ),
    opt!(
        c"zs_store",
        store,
        c"data store: none, memory or sparse:PATH"
    ),
    opt!(
        c"zs_report",
        report,
        c"write zonesim's JSON report here at job end"
    ),
    opt!(
        c"zs_verify",
        verify,
        c"1: check every read against the last write"
    ),
    opt!(
        c"zs_pace",
        pace,
        c"realtime (default: fio measures the device) or virtual"
    ),
    opt!(c"zs_record", record, c"record the I/O as a trace file"),
    opt!(
        c"zs_record_format",
        record_format,
        c"iolog (default) or blkparse"
    ),
    opt!(c"zs_seed", seed, c"simulation seed (default 1)"),
    opt!(
        c"zs_precondition",
        precondition,
        c"none (default), seq, steady or steady-fast: the device's state before the jobs"
    ),
    opt!(
        c"zs_resume",
        resume,
        c"1: continue the sparse:PATH store where its last run left it"
    ),
    opt!(
        c"zs_fresh",
        fresh,
        c"1: start the sparse:PATH store over (its data is lost)"
    ),
    opt!(
        c"zs_power_off_at_request",
        power_off_at_request,
        c"cut power once the N-th request is issued; the device recovers and goes on"
    ),
    opt!(
        c"zs_power_off_at_us",
        power_off_at_us,
        c"cut power T us of simulated time after the device opened"
    ),
    opt!(
        c"zs_power_cuts",
        power_cuts,
        c"cut power N times (1-100000) at seeded random requests; the device recovers after each"
    ),
    opt!(
        c"zs_power_cuts_within",
        power_cuts_within,
        c"the random cuts fall on the first R requests of the device (R >= N)"
    ),
    FioOption::END,
];

/// `struct ioengine_ops` as the running fio release lays it out, filled once by
/// [`get_ioengine`].
#[repr(C, align(16))]
struct OpsBuf([u8; OPS_BYTES]);
static mut OPS: OpsBuf = OpsBuf([0; OPS_BYTES]);
static OPS_READY: std::sync::Once = std::sync::Once::new();

/// What fio calls to get the engine (`dlsym(handle, "get_ioengine")`, as it does for engines
/// that build their `ioengine_ops` at run time): the ops in the running release's layout, or
/// NULL with one line naming the supported releases (fio then refuses the engine).
///
/// # Safety
/// Called by fio with a writable `ops` pointer.
#[no_mangle]
pub unsafe extern "C" fn get_ioengine(ops: *mut *mut c_void) {
    let l = match abi::layout() {
        Ok(l) => l,
        Err(msg) => {
            eprintln!("zonesim engine: {msg}");
            *ops = std::ptr::null_mut();
            return;
        }
    };
    OPS_READY.call_once(|| {
        let options = std::ptr::addr_of_mut!(OPTIONS).cast::<FioOption>();
        let mut o = options;
        while !(*o).name.is_null() {
            (*o).group = l.opt_g_invalid;
            o = o.add(1);
        }
        let cb = Callbacks {
            init: zs_init,
            queue: zs_queue,
            commit: zs_commit,
            getevents: zs_getevents,
            event: zs_event,
            cleanup: zs_cleanup,
            open_file: zs_open_file,
            close_file: zs_close_file,
            get_file_size: zs_get_file_size,
            get_zoned_model: zs_get_zoned_model,
            report_zones: zs_report_zones,
            reset_wp: zs_reset_wp,
            get_max_open_zones: zs_get_max_open_zones,
        };
        fill_ops(
            std::ptr::addr_of_mut!(OPS).cast::<u8>(),
            l,
            c"zonesim".as_ptr(),
            FIO_DISKLESSIO | FIO_NODISKUTIL,
            &cb,
            std::mem::size_of::<EngineOptions>() as c_int,
            options,
        );
    });
    *ops = std::ptr::addr_of_mut!(OPS).cast();
}

/// Runs `f`; a panic or an error becomes `fail` (the message goes to stderr, as fio's own).
fn guard<T>(what: &str, fail: T, f: impl FnOnce() -> Result<T, String>) -> T {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(v)) => v,
        // An error of the engine's options names them itself (`zs_device=...: ...`).
        Ok(Err(msg)) if msg.starts_with("zs_") => {
            eprintln!("zonesim engine: {msg}");
            fail
        }
        Ok(Err(msg)) => {
            eprintln!("zonesim engine: {what}: {msg}");
            fail
        }
        Err(_) => {
            eprintln!("zonesim engine: {what}: internal error (panic caught)");
            fail
        }
    }
}

/// The thread's engine, created on first use from its options.
///
/// # Safety
/// `td` is a live fio `thread_data`.
unsafe fn engine<'a>(td: *mut Td) -> Result<&'a mut Engine, String> {
    engine::for_thread(td, || {
        let eo = thread_eo::<EngineOptions>(td).ok_or(
            "fio's thread_data does not have the layout of this fio release (engine options not found)",
        )?;
        Engine::open(&*eo, td)
    })
}

unsafe extern "C" fn zs_init(td: *mut Td) -> c_int {
    guard("init", 1, || {
        abi::layout()?;
        zonesim::stats::provenance::set_commit(env!("ZONESIM_GIT_COMMIT"));
        engine(td).map(|_| 0)
    })
}

unsafe extern "C" fn zs_queue(td: *mut Td, io_u: *mut IoU) -> c_int {
    guard("queue", FIO_Q_COMPLETED, || {
        let l = abi::layout()?;
        let e = engine(td)?;
        Ok(e.queue(io_u, l))
    })
}

unsafe extern "C" fn zs_commit(_td: *mut Td) -> c_int {
    0
}

unsafe extern "C" fn zs_getevents(
    td: *mut Td,
    min: c_uint,
    max: c_uint,
    _t: *const c_void,
) -> c_int {
    guard("getevents", -libc::EIO, || {
        let l = abi::layout()?;
        Ok(engine(td)?.getevents(min as usize, max as usize, l) as c_int)
    })
}

unsafe extern "C" fn zs_event(td: *mut Td, i: c_int) -> *mut IoU {
    guard("event", std::ptr::null_mut(), || {
        Ok(engine(td)?.event(i as usize))
    })
}

unsafe extern "C" fn zs_cleanup(td: *mut Td) {
    guard("cleanup", (), || engine::close(td));
}

unsafe extern "C" fn zs_open_file(_td: *mut Td, _f: *mut FioFile) -> c_int {
    0
}

unsafe extern "C" fn zs_close_file(_td: *mut Td, _f: *mut FioFile) -> c_int {
    0
}

unsafe extern "C" fn zs_get_file_size(td: *mut Td, f: *mut FioFile) -> c_int {
    guard("get_file_size", 1, || {
        let size = engine(td)?.capacity();
        *field::<u64>(f, FILE_REAL_SIZE_OFF) = size;
        *field::<c_uint>(f, abi::layout()?.file_flags) |= FIO_FILE_SIZE_KNOWN;
        // A device, not a regular file: fio asks the engine for zones instead of emulating them.
        *field::<c_uint>(f, FILE_TYPE_OFF) = FIO_TYPE_BLOCK;
        Ok(0)
    })
}

unsafe extern "C" fn zs_get_zoned_model(td: *mut Td, _f: *mut FioFile, model: *mut c_int) -> c_int {
    guard("get_zoned_model", -libc::EIO, || {
        let zoned = engine(td)?.zoned();
        *model = if zoned { ZBD_HOST_MANAGED } else { ZBD_NONE };
        Ok(0)
    })
}

unsafe extern "C" fn zs_report_zones(
    td: *mut Td,
    _f: *mut FioFile,
    offset: u64,
    zones: *mut ZbdZone,
    nr: c_uint,
) -> c_int {
    guard("report_zones", -libc::EIO, || {
        let out = std::slice::from_raw_parts_mut(zones, nr as usize);
        Ok(engine(td)?.report_zones(offset, out) as c_int)
    })
}

unsafe extern "C" fn zs_reset_wp(td: *mut Td, _f: *mut FioFile, offset: u64, len: u64) -> c_int {
    guard("reset_wp", -libc::EIO, || engine(td)?.reset_wp(offset, len))
}

unsafe extern "C" fn zs_get_max_open_zones(
    td: *mut Td,
    _f: *mut FioFile,
    max: *mut c_uint,
) -> c_int {
    guard("get_max_open_zones", -libc::EIO, || {
        *max = engine(td)?.max_open_zones();
        Ok(0)
    })
}
