//! fio's ioengine ABI for each fio release from 3.33 to 3.42: the offsets of the fields of
//! fio's structures the engine reads or writes, the layout of `struct ioengine_ops` and the
//! constants it uses. fio changes these between releases (fields and callbacks added or
//! removed, `FIO_IOOPS_VERSION` raised), so the engine picks the layout of the running fio at
//! load, from fio's exported `fio_version_string`, and refuses any other fio in one line
//! naming the supported releases.
//!
//! How the table was derived: `scripts/fio-abi-layouts FIO_CLONE` checks out each release tag
//! of fio's git repository, configures it and compiles `scripts/fio-abi/probe.c`, which prints
//! `offsetof` / `sizeof` of every field below and the constants (x86-64 Linux, LP64); its
//! output is [`LAYOUTS`]. Only fio 3.33 (Debian 12's package) is tested against a running fio
//! here; the other rows come from the headers alone. Fields and constants that no release in
//! the range changed are plain constants below (the probe checks them too).
//!
//! Two safety nets beyond the table: fio refuses an engine whose `version` differs from its
//! own `FIO_IOOPS_VERSION` ("bad ioops version"), and [`thread_eo`] checks the back-pointer
//! fio stores at the start of the engine options before trusting the `thread_data` offset (a
//! fio built with other configure options could move it).

use std::ffi::{c_char, c_int, c_uint, c_void};
use std::sync::OnceLock;

/// One or more fio releases with the same layout of what the engine touches.
#[derive(Debug)]
pub struct Layout {
    /// `MAJOR.MINOR` as in `fio --version` (`fio-3.33`).
    pub releases: &'static [&'static str],
    /// `FIO_IOOPS_VERSION` (ioengines.h).
    pub ioops_version: c_int,
    /// `struct thread_data`: `void *eo`.
    pub td_eo: usize,
    /// `struct io_u`: `offset`, `xfer_buf`, `xfer_buflen`, `resid`, `error`.
    pub io_u: [usize; 5],
    /// `struct fio_file`: `flags`.
    pub file_flags: usize,
    /// `sizeof(struct ioengine_ops)`.
    pub ops_size: usize,
    /// `struct ioengine_ops`: `cleanup`, `open_file`, `close_file`, `get_file_size`,
    /// `get_zoned_model`, `report_zones`, `reset_wp`, `get_max_open_zones`,
    /// `option_struct_size`, `options` (the callbacks before `cleanup` never moved).
    pub ops: [usize; 10],
    /// `FIO_OPT_G_INVALID` (optgroup.h): the option group of engine options.
    pub opt_g_invalid: u64,
}

/// Every supported release, oldest first (output of `scripts/fio-abi-layouts`).
pub const LAYOUTS: &[Layout] = &[
    Layout {
        releases: &["3.33"],
        ioops_version: 31,
        td_eo: 4216,
        io_u: [72, 104, 112, 136, 144],
        file_flags: 364,
        ops_size: 264,
        ops: [120, 128, 136, 160, 216, 224, 232, 240, 248, 256],
        opt_g_invalid: 1 << 40,
    },
    Layout {
        releases: &["3.34", "3.35"],
        ioops_version: 32,
        td_eo: 3280,
        io_u: [72, 104, 112, 136, 144],
        file_flags: 372,
        ops_size: 280,
        ops: [120, 128, 136, 160, 216, 224, 232, 240, 264, 272],
        opt_g_invalid: 1 << 40,
    },
    Layout {
        releases: &["3.36", "3.37"],
        ioops_version: 33,
        td_eo: 3304,
        io_u: [72, 104, 112, 136, 144],
        file_flags: 372,
        ops_size: 288,
        ops: [120, 128, 136, 160, 216, 224, 232, 240, 272, 280],
        opt_g_invalid: 1 << 40,
    },
    Layout {
        releases: &["3.38", "3.39"],
        ioops_version: 36,
        td_eo: 3520,
        io_u: [72, 104, 112, 136, 144],
        file_flags: 380,
        ops_size: 288,
        ops: [120, 128, 136, 160, 216, 224, 232, 240, 272, 280],
        opt_g_invalid: 1 << 39,
    },
    Layout {
        releases: &["3.40"],
        ioops_version: 37,
        td_eo: 3528,
        io_u: [72, 104, 112, 136, 144],
        file_flags: 380,
        ops_size: 296,
        ops: [120, 128, 136, 160, 216, 224, 232, 248, 280, 288],
        opt_g_invalid: 1 << 39,
    },
    Layout {
        releases: &["3.41"],
        ioops_version: 39,
        td_eo: 3560,
        io_u: [80, 112, 120, 144, 152],
        file_flags: 372,
        ops_size: 288,
        ops: [112, 120, 128, 152, 208, 216, 224, 240, 272, 280],
        opt_g_invalid: 1 << 39,
    },
    Layout {
        releases: &["3.42"],
        ioops_version: 39,
        td_eo: 3584,
        io_u: [80, 112, 120, 144, 152],
        file_flags: 372,
        ops_size: 288,
        ops: [112, 120, 128, 152, 208, 216, 224, 240, 272, 280],
        opt_g_invalid: 1 << 39,
    },
];

/// The supported releases as one list (`fio-3.33, fio-3.34, ...`).
pub fn supported() -> String {
    let all: Vec<String> = LAYOUTS
        .iter()
        .flat_map(|l| l.releases.iter().map(|r| format!("fio-{r}")))
        .collect();
    all.join(", ")
}

/// The layout of the release named by a fio version string (`fio-3.36`); an error naming the
/// supported releases otherwise (a build from git between releases, `fio-3.42-15-gab77`, is
/// not a release and is refused too).
pub fn layout_for(version: &str) -> Result<&'static Layout, String> {
    let release = version
        .trim()
        .strip_prefix("fio-")
        .unwrap_or(version.trim());
    LAYOUTS
        .iter()
        .find(|l| l.releases.contains(&release))
        .ok_or_else(|| {
            format!(
                "this fio is {version}, and libzonesim_fio.so knows the ABI of {} only \
                 (docs/emulation.md, \"fio versions\")",
                supported()
            )
        })
}

/// The running fio's version string (`fio_version_string`, exported by fio's binary); `None`
/// outside fio (a test).
fn running_fio() -> Option<String> {
    // SAFETY: dlsym with RTLD_DEFAULT looks a symbol up in the process; fio's
    // `fio_version_string` is a NUL-terminated `const char[]` (init.c).
    unsafe {
        let sym = libc::dlsym(libc::RTLD_DEFAULT, c"fio_version_string".as_ptr());
        if sym.is_null() {
            return None;
        }
        Some(
            std::ffi::CStr::from_ptr(sym as *const c_char)
                .to_string_lossy()
                .into_owned(),
        )
    }
}

/// The layout of the fio this engine is loaded into, decided once; outside fio (tests) the
/// oldest supported release.
pub fn layout() -> Result<&'static Layout, String> {
    static CHOSEN: OnceLock<Result<&'static Layout, String>> = OnceLock::new();
    CHOSEN
        .get_or_init(|| match running_fio() {
            Some(v) => layout_for(&v),
            None => Ok(&LAYOUTS[0]),
        })
        .clone()
}

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

// parse.h / optgroup.h (`FIO_OPT_G_INVALID` moved: [`Layout::opt_g_invalid`])
pub const FIO_OPT_STR_STORE: c_int = 6;
pub const FIO_OPT_C_ENGINE: u64 = 1 << 6;

/// Offsets no release from 3.33 to 3.42 moved (the others are in [`Layout`]).
pub const TD_NAME_OFF: usize = 104; // struct thread_data: o.name (char *)
pub const IO_U_DDIR_OFF: usize = 44; // enum fio_ddir ddir
pub const FILE_TYPE_OFF: usize = 16; // struct fio_file: enum fio_filetype filetype
pub const FILE_REAL_SIZE_OFF: usize = 48; // uint64_t real_file_size

pub type Td = c_void;
pub type IoU = c_void;
pub type FioFile = c_void;

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

/// The callbacks the engine gives fio; their slots in `struct ioengine_ops` come from the
/// [`Layout`] (those up to `event` are the same in every release).
pub struct Callbacks {
    pub init: unsafe extern "C" fn(*mut Td) -> c_int,
    pub queue: unsafe extern "C" fn(*mut Td, *mut IoU) -> c_int,
    pub commit: unsafe extern "C" fn(*mut Td) -> c_int,
    pub getevents: unsafe extern "C" fn(*mut Td, c_uint, c_uint, *const c_void) -> c_int,
    pub event: unsafe extern "C" fn(*mut Td, c_int) -> *mut IoU,
    pub cleanup: unsafe extern "C" fn(*mut Td),
    pub open_file: unsafe extern "C" fn(*mut Td, *mut FioFile) -> c_int,
    pub close_file: unsafe extern "C" fn(*mut Td, *mut FioFile) -> c_int,
    pub get_file_size: unsafe extern "C" fn(*mut Td, *mut FioFile) -> c_int,
    pub get_zoned_model: unsafe extern "C" fn(*mut Td, *mut FioFile, *mut c_int) -> c_int,
    pub report_zones:
        unsafe extern "C" fn(*mut Td, *mut FioFile, u64, *mut ZbdZone, c_uint) -> c_int,
    pub reset_wp: unsafe extern "C" fn(*mut Td, *mut FioFile, u64, u64) -> c_int,
    pub get_max_open_zones: unsafe extern "C" fn(*mut Td, *mut FioFile, *mut c_uint) -> c_int,
}

// `struct ioengine_ops` slots that never moved (3.33 to 3.42).
const OPS_NAME: usize = 16;
const OPS_VERSION: usize = 24;
const OPS_FLAGS: usize = 28;
const OPS_INIT: usize = 48;
const OPS_QUEUE: usize = 72;
const OPS_COMMIT: usize = 80;
const OPS_GETEVENTS: usize = 88;
const OPS_EVENT: usize = 96;

/// Room for the largest `struct ioengine_ops` of the table (296 bytes).
pub const OPS_BYTES: usize = 512;

/// Fills `ops` ([`OPS_BYTES`] long, 8-aligned) as `struct ioengine_ops` of `l`'s
/// releases: name, version, flags, the callbacks, the engine option table. Slots the engine
/// does not fill stay NULL, which fio reads as "not provided".
///
/// # Safety
/// `ops` points to [`OPS_BYTES`] writable, 8-aligned bytes.
pub unsafe fn fill_ops(
    ops: *mut u8,
    l: &Layout,
    name: *const c_char,
    flags: c_int,
    cb: &Callbacks,
    option_struct_size: c_int,
    options: *mut FioOption,
) {
    std::ptr::write_bytes(ops, 0, l.ops_size);
    let put = |off: usize, v: usize| ops.add(off).cast::<usize>().write(v);
    put(OPS_NAME, name as usize);
    ops.add(OPS_VERSION).cast::<c_int>().write(l.ioops_version);
    ops.add(OPS_FLAGS).cast::<c_int>().write(flags);
    put(OPS_INIT, cb.init as usize);
    put(OPS_QUEUE, cb.queue as usize);
    put(OPS_COMMIT, cb.commit as usize);
    put(OPS_GETEVENTS, cb.getevents as usize);
    put(OPS_EVENT, cb.event as usize);
    let [cleanup, open, close, size, model, report, reset, max_open, opt_size, opts] = l.ops;
    put(cleanup, cb.cleanup as usize);
    put(open, cb.open_file as usize);
    put(close, cb.close_file as usize);
    put(size, cb.get_file_size as usize);
    put(model, cb.get_zoned_model as usize);
    put(report, cb.report_zones as usize);
    put(reset, cb.reset_wp as usize);
    put(max_open, cb.get_max_open_zones as usize);
    ops.add(opt_size).cast::<c_int>().write(option_struct_size);
    put(opts, options as usize);
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
            group: 0, // the running release's FIO_OPT_G_INVALID, set at load
            gui_data: std::ptr::null_mut(),
            is_seconds: 0,
            is_time: 0,
            no_warn_def: 0,
            pow2: 0,
            no_free: 0,
        }
    }
}

// `struct fio_option` and `struct zbd_zone` as every release from 3.33 to 3.42 has them.
const _: () = {
    use std::mem::{offset_of, size_of};
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

/// A field of a fio structure at an offset of the running release.
///
/// # Safety
/// `base` points to a live structure of the running fio release with a `T` at `off`.
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
    let eo = *field::<*mut c_void>(td, layout().ok()?.td_eo);
    if eo.is_null() {
        return None;
    }
    let back = *eo.cast::<*mut Td>();
    if !(back == td || back.is_null()) {
        return None;
    }
    Some(eo.cast())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_supported_release_has_one_layout_and_others_are_refused() {
        assert_eq!(layout_for("fio-3.33").unwrap().ioops_version, 31);
        assert_eq!(layout_for("fio-3.42").unwrap().ioops_version, 39);
        assert_eq!(layout_for("fio-3.36").unwrap().td_eo, 3304);
        for bad in ["fio-3.32", "fio-3.43", "fio-3.42-15-gab776430", "fio-2.0"] {
            let e = layout_for(bad).unwrap_err();
            assert!(
                e.contains(bad) && e.contains("fio-3.33") && e.contains("fio-3.42"),
                "{e}"
            );
        }
        let all: Vec<&str> = LAYOUTS
            .iter()
            .flat_map(|l| l.releases.iter().copied())
            .collect();
        assert_eq!(all.len(), 10, "3.33 to 3.42");
        let mut sorted = all.clone();
        sorted.dedup();
        assert_eq!(sorted, all, "a release in two rows");
    }

    /// Every slot lies inside its release's `struct ioengine_ops`, pointer-aligned, after the
    /// fixed slots and in the struct's order, so `fill_ops` writes no slot twice.
    #[test]
    fn the_ops_slots_are_inside_the_struct_and_in_order() {
        for l in LAYOUTS {
            assert!(l.ops_size <= OPS_BYTES);
            let mut prev = OPS_EVENT;
            for &off in &l.ops {
                assert!(off > prev && off % 4 == 0 && off + 4 <= l.ops_size, "{l:?}");
                prev = off;
            }
            assert_eq!(l.ops[9] + 8, l.ops_size, "options is the last field: {l:?}");
        }
    }

    #[test]
    fn fill_ops_writes_the_version_and_the_options_where_the_release_has_them() {
        unsafe extern "C" fn td(_: *mut Td) -> c_int {
            0
        }
        unsafe extern "C" fn tdv(_: *mut Td) {}
        unsafe extern "C" fn io(_: *mut Td, _: *mut IoU) -> c_int {
            0
        }
        unsafe extern "C" fn ev(_: *mut Td, _: c_uint, _: c_uint, _: *const c_void) -> c_int {
            0
        }
        unsafe extern "C" fn ev1(_: *mut Td, _: c_int) -> *mut IoU {
            std::ptr::null_mut()
        }
        unsafe extern "C" fn f(_: *mut Td, _: *mut FioFile) -> c_int {
            0
        }
        unsafe extern "C" fn m(_: *mut Td, _: *mut FioFile, _: *mut c_int) -> c_int {
            0
        }
        unsafe extern "C" fn rz(
            _: *mut Td,
            _: *mut FioFile,
            _: u64,
            _: *mut ZbdZone,
            _: c_uint,
        ) -> c_int {
            0
        }
        unsafe extern "C" fn rw(_: *mut Td, _: *mut FioFile, _: u64, _: u64) -> c_int {
            0
        }
        unsafe extern "C" fn mo(_: *mut Td, _: *mut FioFile, _: *mut c_uint) -> c_int {
            0
        }
        let cb = Callbacks {
            init: td,
            queue: io,
            commit: td,
            getevents: ev,
            event: ev1,
            cleanup: tdv,
            open_file: f,
            close_file: f,
            get_file_size: f,
            get_zoned_model: m,
            report_zones: rz,
            reset_wp: rw,
            get_max_open_zones: mo,
        };
        for l in LAYOUTS {
            let mut buf = vec![0u64; OPS_BYTES / 8];
            let opts = 0x1000 as *mut FioOption;
            unsafe { fill_ops(buf.as_mut_ptr().cast(), l, c"x".as_ptr(), 4, &cb, 96, opts) };
            let bytes: &[u8] =
                unsafe { std::slice::from_raw_parts(buf.as_ptr().cast(), OPS_BYTES) };
            let int = |off: usize| c_int::from_ne_bytes(bytes[off..off + 4].try_into().unwrap());
            let word = |off: usize| usize::from_ne_bytes(bytes[off..off + 8].try_into().unwrap());
            assert_eq!(int(OPS_VERSION), l.ioops_version);
            assert_eq!(int(l.ops[8]), 96);
            assert_eq!(word(l.ops[9]), 0x1000);
            assert!(
                bytes[l.ops_size..].iter().all(|&b| b == 0),
                "nothing past the struct"
            );
        }
    }
}
