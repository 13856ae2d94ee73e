//! fio's ioengine ABI, pinned to **fio 3.33** (Debian 12's `fio` package, `FIO_IOOPS_VERSION`
//! 31). Written from fio-3.33's `ioengines.h`, `parse.h`, `optgroup.h`, `io_u.h`, `file.h`,
//! `fio.h` and `zbd_types.h`; offsets of the structures this engine only reaches into were
//! measured with `offsetof` against those headers (x86-64 Linux, LP64).
//!
//! What a different fio does: fio refuses to load an engine whose `version` differs from its own
//! `FIO_IOOPS_VERSION` ("bad ioops version"), and [`thread_eo`] checks the back-pointer fio
//! stores at the start of the engine options before trusting the `thread_data` offset. Moving to
//! another fio version means re-measuring the `*_OFF` constants below and the version.

use std::ffi::{c_char, c_int, c_uint, c_void};

/// The fio releases whose ABI this engine was measured against (`fio --version`).
pub const SUPPORTED_FIO: &str = "fio-3.33";

/// Checks the loading fio's version string (`fio_version_string`, exported by fio) against
/// [`SUPPORTED_FIO`]; fine when it cannot be found (not loaded by fio: a test).
pub fn check_fio_version() -> Result<(), String> {
    // SAFETY: dlsym with RTLD_DEFAULT looks a symbol up in the process; fio's
    // `fio_version_string` is a NUL-terminated `const char[]` (init.c).
    let v = unsafe {
        let sym = libc::dlsym(libc::RTLD_DEFAULT, c"fio_version_string".as_ptr());
        if sym.is_null() {
            return Ok(());
        }
        std::ffi::CStr::from_ptr(sym as *const c_char)
            .to_string_lossy()
            .into_owned()
    };
    let release = v.split(['-', '.']).take(3).collect::<Vec<_>>().join(".");
    if release == "fio.3.33" {
        return Ok(());
    }
    Err(format!(
        "this libzonesim_fio.so is built for the ABI of {SUPPORTED_FIO} (FIO_IOOPS_VERSION {FIO_IOOPS_VERSION}) \
         and this is {v}; install fio 3.33 (Debian 12's package) or port crates/zonesim-fio/src/abi.rs \
         (docs/emulation.md, \"fio versions\")"
    ))
}

/// `FIO_IOOPS_VERSION` of fio 3.33.
pub const FIO_IOOPS_VERSION: c_int = 31;

// enum fio_q_status
pub const FIO_Q_COMPLETED: c_int = 0;
pub const FIO_Q_QUEUED: c_int = 1;

// enum fio_ioengine_flags
pub const FIO_DISKLESSIO: c_int = 1 << 2;
pub const FIO_NODISKUTIL: c_int = 1 << 4;

// enum fio_ddir
pub const DDIR_READ: c_int = 0;
pub const DDIR_WRITE: c_int = 1;
pub const DDIR_TRIM: c_int = 2;
pub const DDIR_SYNC: c_int = 3;
pub const DDIR_DATASYNC: c_int = 4;
pub const DDIR_SYNC_FILE_RANGE: c_int = 5;

// enum fio_filetype, enum fio_file_flags
pub const FIO_TYPE_BLOCK: c_uint = 2;
pub const FIO_FILE_SIZE_KNOWN: c_uint = 1 << 4;

// zbd_types.h
pub const ZBD_NONE: c_int = 1;
pub const ZBD_HOST_MANAGED: c_int = 3;
pub const ZBD_ZONE_TYPE_SWR: c_int = 2;
pub const ZBD_ZONE_COND_EMPTY: c_int = 0x1;
pub const ZBD_ZONE_COND_IMP_OPEN: c_int = 0x2;
pub const ZBD_ZONE_COND_EXP_OPEN: c_int = 0x3;
pub const ZBD_ZONE_COND_CLOSED: c_int = 0x4;
pub const ZBD_ZONE_COND_READONLY: c_int = 0xD;
pub const ZBD_ZONE_COND_FULL: c_int = 0xE;
pub const ZBD_ZONE_COND_OFFLINE: c_int = 0xF;

// parse.h / optgroup.h
pub const FIO_OPT_STR_STORE: c_int = 6;
pub const FIO_OPT_C_ENGINE: u64 = 1 << 6;
pub const FIO_OPT_G_INVALID: u64 = 1 << 40;

/// Offsets measured against fio 3.33 (see the module doc).
pub const TD_EO_OFF: usize = 4216; // struct thread_data: void *eo
pub const TD_NAME_OFF: usize = 104; // struct thread_data: o.name (char *)
pub const IO_U_DDIR_OFF: usize = 44; // enum fio_ddir ddir
pub const IO_U_OFFSET_OFF: usize = 72; // unsigned long long offset
pub const IO_U_XFER_BUF_OFF: usize = 104; // void *xfer_buf
pub const IO_U_XFER_BUFLEN_OFF: usize = 112; // unsigned long long xfer_buflen
pub const IO_U_RESID_OFF: usize = 136; // unsigned long long resid
pub const IO_U_ERROR_OFF: usize = 144; // int error
pub const FILE_TYPE_OFF: usize = 16; // struct fio_file: enum fio_filetype filetype
pub const FILE_REAL_SIZE_OFF: usize = 48; // uint64_t real_file_size
pub const FILE_FLAGS_OFF: usize = 364; // unsigned int flags

pub type Td = c_void;
pub type IoU = c_void;
pub type FioFile = c_void;

#[repr(C)]
pub struct FlistHead {
    pub next: *mut c_void,
    pub prev: *mut c_void,
}

/// `struct zbd_zone`.
#[repr(C)]
pub struct ZbdZone {
    pub start: u64,
    pub wp: u64,
    pub len: u64,
    pub capacity: u64,
    pub zone_type: c_int,
    pub cond: c_int,
}

/// `struct ioengine_ops` (264 bytes).
#[repr(C)]
pub struct IoengineOps {
    pub list: FlistHead,
    pub name: *const c_char,
    pub version: c_int,
    pub flags: c_int,
    pub dlhandle: *mut c_void,
    pub setup: Option<unsafe extern "C" fn(*mut Td) -> c_int>,
    pub init: Option<unsafe extern "C" fn(*mut Td) -> c_int>,
    pub post_init: Option<unsafe extern "C" fn(*mut Td) -> c_int>,
    pub prep: Option<unsafe extern "C" fn(*mut Td, *mut IoU) -> c_int>,
    pub queue: Option<unsafe extern "C" fn(*mut Td, *mut IoU) -> c_int>,
    pub commit: Option<unsafe extern "C" fn(*mut Td) -> c_int>,
    pub getevents: Option<unsafe extern "C" fn(*mut Td, c_uint, c_uint, *const c_void) -> c_int>,
    pub event: Option<unsafe extern "C" fn(*mut Td, c_int) -> *mut IoU>,
    pub errdetails: Option<unsafe extern "C" fn(*mut IoU) -> *mut c_char>,
    pub cancel: Option<unsafe extern "C" fn(*mut Td, *mut IoU) -> c_int>,
    pub cleanup: Option<unsafe extern "C" fn(*mut Td)>,
    pub open_file: Option<unsafe extern "C" fn(*mut Td, *mut FioFile) -> c_int>,
    pub close_file: Option<unsafe extern "C" fn(*mut Td, *mut FioFile) -> c_int>,
    pub invalidate: Option<unsafe extern "C" fn(*mut Td, *mut FioFile) -> c_int>,
    pub unlink_file: Option<unsafe extern "C" fn(*mut Td, *mut FioFile) -> c_int>,
    pub get_file_size: Option<unsafe extern "C" fn(*mut Td, *mut FioFile) -> c_int>,
    pub prepopulate_file: Option<unsafe extern "C" fn(*mut Td, *mut FioFile) -> c_int>,
    pub terminate: Option<unsafe extern "C" fn(*mut Td)>,
    pub iomem_alloc: Option<unsafe extern "C" fn(*mut Td, usize) -> c_int>,
    pub iomem_free: Option<unsafe extern "C" fn(*mut Td)>,
    pub io_u_init: Option<unsafe extern "C" fn(*mut Td, *mut IoU) -> c_int>,
    pub io_u_free: Option<unsafe extern "C" fn(*mut Td, *mut IoU)>,
    pub get_zoned_model: Option<unsafe extern "C" fn(*mut Td, *mut FioFile, *mut c_int) -> c_int>,
    pub report_zones:
        Option<unsafe extern "C" fn(*mut Td, *mut FioFile, u64, *mut ZbdZone, c_uint) -> c_int>,
    pub reset_wp: Option<unsafe extern "C" fn(*mut Td, *mut FioFile, u64, u64) -> c_int>,
    pub get_max_open_zones:
        Option<unsafe extern "C" fn(*mut Td, *mut FioFile, *mut c_uint) -> c_int>,
    pub option_struct_size: c_int,
    pub options: *mut FioOption,
}

/// `struct value_pair` (40 bytes).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ValuePair {
    pub ival: *const c_char,
    pub oval: u64,
    pub help: *const c_char,
    pub orval: c_int,
    pub cb: *mut c_void,
}

/// `struct fio_option` (1512 bytes).
#[repr(C)]
pub struct FioOption {
    pub name: *const c_char,
    pub lname: *const c_char,
    pub alias: *const c_char,
    pub opt_type: c_int,
    pub off: [c_uint; 6],
    pub maxval: u64,
    pub minval: c_int,
    pub maxfp: f64,
    pub minfp: f64,
    pub interval: c_uint,
    pub maxlen: c_uint,
    pub neg: c_int,
    pub prio: c_int,
    pub cb: *mut c_void,
    pub help: *const c_char,
    pub def: *const c_char,
    pub posval: [ValuePair; 32],
    pub parent: *const c_char,
    pub hide: c_int,
    pub hide_on_set: c_int,
    pub inverse: *const c_char,
    pub inv_opt: *mut FioOption,
    pub verify: *mut c_void,
    pub prof_name: *const c_char,
    pub prof_opts: *mut c_void,
    pub category: u64,
    pub group: u64,
    pub gui_data: *mut c_void,
    pub is_seconds: c_int,
    pub is_time: c_int,
    pub no_warn_def: c_int,
    pub pow2: c_int,
    pub no_free: c_int,
}

const NO_VALUE: ValuePair = ValuePair {
    ival: std::ptr::null(),
    oval: 0,
    help: std::ptr::null(),
    orval: 0,
    cb: std::ptr::null_mut(),
};

impl FioOption {
    /// The terminating entry of an option table (all zero).
    pub const END: FioOption = FioOption::string(std::ptr::null(), std::ptr::null(), 0);

    /// A string option stored (strdup'ed by fio) at byte `off` of the engine's option struct.
    pub const fn string(name: *const c_char, help: *const c_char, off: u32) -> FioOption {
        FioOption {
            name,
            lname: name,
            alias: std::ptr::null(),
            opt_type: if name.is_null() { 0 } else { FIO_OPT_STR_STORE },
            off: [off, 0, 0, 0, 0, 0],
            maxval: 0,
            minval: 0,
            maxfp: 0.0,
            minfp: 0.0,
            interval: 0,
            maxlen: 0,
            neg: 0,
            prio: 0,
            cb: std::ptr::null_mut(),
            help,
            def: std::ptr::null(),
            posval: [NO_VALUE; 32],
            parent: std::ptr::null(),
            hide: 0,
            hide_on_set: 0,
            inverse: std::ptr::null(),
            inv_opt: std::ptr::null_mut(),
            verify: std::ptr::null_mut(),
            prof_name: std::ptr::null(),
            prof_opts: std::ptr::null_mut(),
            category: if name.is_null() { 0 } else { FIO_OPT_C_ENGINE },
            group: if name.is_null() { 0 } else { FIO_OPT_G_INVALID },
            gui_data: std::ptr::null_mut(),
            is_seconds: 0,
            is_time: 0,
            no_warn_def: 0,
            pow2: 0,
            no_free: 0,
        }
    }
}

// The layouts as fio 3.33 has them (sizes and offsets measured with offsetof).
const _: () = {
    use std::mem::{offset_of, size_of};
    assert!(size_of::<IoengineOps>() == 264);
    assert!(offset_of!(IoengineOps, queue) == 72);
    assert!(offset_of!(IoengineOps, get_max_open_zones) == 240);
    assert!(offset_of!(IoengineOps, option_struct_size) == 248);
    assert!(size_of::<ValuePair>() == 40);
    assert!(size_of::<FioOption>() == 1512);
    assert!(offset_of!(FioOption, maxval) == 56);
    assert!(offset_of!(FioOption, cb) == 104);
    assert!(offset_of!(FioOption, posval) == 128);
    assert!(offset_of!(FioOption, parent) == 1408);
    assert!(offset_of!(FioOption, category) == 1464);
    assert!(offset_of!(FioOption, gui_data) == 1480);
    assert!(offset_of!(FioOption, no_free) == 1504);
    assert!(size_of::<ZbdZone>() == 40);
};

/// A field of a fio structure at a pinned offset.
///
/// # Safety
/// `base` points to a live structure of the pinned fio version with a `T` at `off`.
#[inline]
pub unsafe fn field<T>(base: *mut c_void, off: usize) -> *mut T {
    base.cast::<u8>().add(off).cast::<T>()
}

/// The engine option struct of a thread (`td->eo`), checked: fio stores the thread's own
/// `thread_data` pointer in its first word while it parses options and clears it when the job
/// is set up (`add_job`), so the word is either. `None` if the check fails (another layout).
///
/// # Safety
/// `td` is a live `struct thread_data` of fio.
pub unsafe fn thread_eo<E>(td: *mut Td) -> Option<*mut E> {
    let eo = *field::<*mut c_void>(td, TD_EO_OFF);
    if eo.is_null() {
        return None;
    }
    let back = *eo.cast::<*mut Td>();
    if !(back == td || back.is_null()) {
        return None;
    }
    Some(eo.cast())
}
