//! `zonesim mount DIR`: the namespace as the file `DIR/disk` through FUSE (fuser), until
//! unmounted (`umount DIR`, `fusermount3 -u DIR`, or SIGINT/SIGTERM); then the JSON report.
//!
//! Every read, write, fsync and hole punch the kernel sends for `DIR/disk` becomes one request
//! of a [`Handle`] (the file is opened in direct-I/O mode, so the page cache above the FUSE file
//! absorbs nothing): a loop device on it takes `mkfs.ext4` / `mkfs.xfs` and a mount, and the
//! file system's I/O is what the report shows. The FUSE loop is one thread, so requests reach
//! the device one at a time (queue depth 1).

use anyhow::{Context, Result};
use fuser::{
    Config, Errno, FileAttr, FileHandle, FileType, Filesystem, FopenFlags, INodeNo, LockOwner,
    MountOption, OpenFlags, ReplyAttr, ReplyData, ReplyDirectory, ReplyEmpty, ReplyEntry,
    ReplyOpen, ReplyWrite, Request, WriteFlags,
};
use std::ffi::OsStr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, SystemTime};
use zonesim::emu::{
    Handle, HandleOptions, IoError, Pace, RecordFormat, StoreOpen, StoreSpec, Ticket,
};

#[derive(clap::Args)]
pub struct MountArgs {
    /// Mount point (an existing directory); the namespace appears as DIR/disk.
    pub dir: PathBuf,
    /// Device: a preset name (see `zonesim presets`) or a TOML file.
    #[arg(long, default_value = "ufs-conventional")]
    pub device: String,
    /// Override a device key: --set nand.channels=4 (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub sets: Vec<String>,
    /// Namespace exposed as DIR/disk (default 0). A FUSE file is not a zoned block device, so
    /// on a zoned namespace only writes at each zone's write pointer succeed (others fail with
    /// EIO); file systems need a conventional namespace (docs/emulation.md).
    #[arg(long, default_value_t = 0)]
    pub namespace: usize,
    /// Data store: none | memory | sparse:PATH.
    #[arg(long, default_value = "memory")]
    pub store: String,
    /// Continue a sparse:PATH store where its last run left it: its data and the device state
    /// saved beside it (PATH.zsmeta) at the last clean unmount.
    #[arg(long, conflicts_with = "fresh")]
    pub resume: bool,
    /// Start a sparse:PATH store over (its data is lost). Without --resume or --fresh, a store
    /// holding data is refused.
    #[arg(long)]
    pub fresh: bool,
    /// Check every read against the last write of each page (mismatches fail the read: EIO).
    #[arg(long)]
    pub verify: bool,
    /// virtual (as fast as possible) | realtime (completions paced to simulated time).
    #[arg(long, default_value = "virtual")]
    pub pace: String,
    /// Record the requests as a trace (fio iolog v3, or blkparse with --record-format).
    #[arg(long)]
    pub record: Option<PathBuf>,
    /// Format of --record: iolog (fio iolog v3, replayable by `zonesim run --trace`) |
    /// blkparse.
    #[arg(long, default_value = "iolog")]
    pub record_format: String,
    /// Seed of the device's random choices (as `zonesim run --seed`).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Write the JSON report here at unmount.
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Cut power once the N-th request of this mount reaches the device (docs/power.md,
    /// "Cutting power under real software"): the request in flight fails with EIO, the device
    /// loses what the model says, recovers, and serves the requests after it (with
    /// --halt-after-cut: fails them until unmount); the store's log records the cut, so
    /// --resume replays it.
    #[arg(long, value_name = "N", help_heading = "Power", conflicts_with = "power_off_at_us", value_parser = clap::value_parser!(u64).range(1..))]
    pub power_off_at_request: Option<u64>,
    /// Cut power at T µs of simulated time after the mount (as --power-off-at-request).
    #[arg(long, value_name = "T", help_heading = "Power")]
    pub power_off_at_us: Option<f64>,
    /// Track power cuts from the start, so SIGUSR1 cuts power at once (as
    /// --power-off-at-request; each SIGUSR1 cuts again); a store made so is resumed with
    /// tracking on.
    #[arg(long, help_heading = "Power")]
    pub power_cuts: bool,
    /// After a power cut, fail every request with EIO until unmount, as if the host went down
    /// with the device (scripts/crash-test uses it: the file system must not write on after
    /// the cut); only the first cut then happens.
    #[arg(long, help_heading = "Power")]
    pub halt_after_cut: bool,
}

const ROOT: INodeNo = INodeNo::ROOT;
const DISK: INodeNo = INodeNo(2);
const TTL: Duration = Duration::from_secs(1);

/// The FUSE file system: a root directory holding `disk`.
struct Disk {
    handle: Arc<Mutex<Handle>>,
    size: u64,
    /// `--halt-after-cut`: every request after a power cut fails.
    halt: bool,
    uid: u32,
    gid: u32,
}

fn errno(e: IoError) -> Errno {
    match e {
        IoError::OutOfRange => Errno::EINVAL,
        IoError::ZoneRule | IoError::Data | IoError::PowerCut => Errno::EIO,
    }
}

impl Disk {
    fn handle(&self) -> MutexGuard<'_, Handle> {
        self.handle.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn attr(&self, ino: INodeNo) -> FileAttr {
        let dir = ino == ROOT;
        FileAttr {
            ino,
            size: if dir { 0 } else { self.size },
            blocks: if dir { 0 } else { self.size.div_ceil(512) },
            atime: SystemTime::UNIX_EPOCH,
            mtime: SystemTime::UNIX_EPOCH,
            ctime: SystemTime::UNIX_EPOCH,
            crtime: SystemTime::UNIX_EPOCH,
            kind: if dir {
                FileType::Directory
            } else {
                FileType::RegularFile
            },
            perm: if dir { 0o755 } else { 0o644 },
            nlink: if dir { 2 } else { 1 },
            uid: self.uid,
            gid: self.gid,
            rdev: 0,
            flags: 0,
            blksize: zonesim::emu::PAGE as u32,
        }
    }

    /// Runs one request on the device and delivers its completion.
    fn run(
        &self,
        f: impl FnOnce(&mut Handle) -> std::result::Result<Ticket, IoError>,
    ) -> std::result::Result<(), Errno> {
        let mut h = self.handle();
        // Otherwise the device came back after its recovery and serves the request.
        if self.halted(&h) {
            return Err(Errno::EIO);
        }
        let t = f(&mut h).map_err(errno)?;
        if h.complete(&t) {
            Ok(())
        } else {
            // In flight at a cut: its completion never came.
            Err(Errno::EIO)
        }
    }

    /// `--halt-after-cut` after a cut: the host is gone with the device, nothing more reaches it.
    fn halted(&self, h: &Handle) -> bool {
        self.halt && h.power_cuts() > 0
    }

    /// Cuts power now (SIGUSR1): the device's power cycle and recovery. `false`: nothing was
    /// cut (with --halt-after-cut, only the first cut happens: the host is already down).
    fn power_cut(&self) -> zonesim::Result<bool> {
        let mut h = self.handle();
        if self.halted(&h) {
            return Ok(false);
        }
        h.power_off()?;
        Ok(true)
    }

    /// `len` bytes at `offset`, clipped to the disk.
    fn clip(&self, offset: u64, len: u64) -> u64 {
        len.min(self.size.saturating_sub(offset))
    }
}

impl Filesystem for Disk {
    fn lookup(&self, _req: &Request, parent: INodeNo, name: &OsStr, reply: ReplyEntry) {
        if parent == ROOT && name == "disk" {
            reply.entry(&TTL, &self.attr(DISK), fuser::Generation(0));
        } else {
            reply.error(Errno::ENOENT);
        }
    }

    fn getattr(&self, _req: &Request, ino: INodeNo, _fh: Option<FileHandle>, reply: ReplyAttr) {
        match ino {
            ROOT | DISK => reply.attr(&TTL, &self.attr(ino)),
            _ => reply.error(Errno::ENOENT),
        }
    }

    fn setattr(
        &self,
        _req: &Request,
        ino: INodeNo,
        _mode: Option<u32>,
        _uid: Option<u32>,
        _gid: Option<u32>,
        size: Option<u64>,
        _atime: Option<fuser::TimeOrNow>,
        _mtime: Option<fuser::TimeOrNow>,
        _ctime: Option<SystemTime>,
        _fh: Option<FileHandle>,
        _crtime: Option<SystemTime>,
        _chgtime: Option<SystemTime>,
        _bkuptime: Option<SystemTime>,
        _flags: Option<fuser::BsdFileFlags>,
        reply: ReplyAttr,
    ) {
        // The disk has the namespace's size: it cannot be resized.
        match size {
            Some(s) if s != self.size => reply.error(Errno::EPERM),
            _ => reply.attr(&TTL, &self.attr(ino)),
        }
    }

    fn open(&self, _req: &Request, ino: INodeNo, _flags: OpenFlags, reply: ReplyOpen) {
        if ino == DISK {
            reply.opened(FileHandle(0), FopenFlags::FOPEN_DIRECT_IO);
        } else {
            reply.error(Errno::EISDIR);
        }
    }

    fn read(
        &self,
        _req: &Request,
        _ino: INodeNo,
        _fh: FileHandle,
        offset: u64,
        size: u32,
        _flags: OpenFlags,
        _lock: Option<LockOwner>,
        reply: ReplyData,
    ) {
        let mut buf = vec![0u8; self.clip(offset, u64::from(size)) as usize];
        if buf.is_empty() {
            return reply.data(&[]);
        }
        match self.run(|h| h.read(offset, &mut buf)) {
            Ok(()) => reply.data(&buf),
            Err(e) => reply.error(e),
        }
    }

    fn write(
        &self,
        _req: &Request,
        _ino: INodeNo,
        _fh: FileHandle,
        offset: u64,
        data: &[u8],
        _write_flags: WriteFlags,
        _flags: OpenFlags,
        _lock: Option<LockOwner>,
        reply: ReplyWrite,
    ) {
        if self.clip(offset, data.len() as u64) < data.len() as u64 {
            return reply.error(Errno::ENOSPC);
        }
        match self.run(|h| h.write(offset, data)) {
            Ok(()) => reply.written(data.len() as u32),
            Err(e) => reply.error(e),
        }
    }

    fn flush(
        &self,
        _req: &Request,
        _ino: INodeNo,
        _fh: FileHandle,
        _lo: LockOwner,
        reply: ReplyEmpty,
    ) {
        // close(): nothing is cached above the device.
        reply.ok();
    }

    fn fsync(&self, _req: &Request, _ino: INodeNo, _fh: FileHandle, _ds: bool, reply: ReplyEmpty) {
        match self.run(Handle::flush) {
            Ok(()) => reply.ok(),
            Err(e) => reply.error(e),
        }
    }

    fn fallocate(
        &self,
        _req: &Request,
        _ino: INodeNo,
        _fh: FileHandle,
        offset: u64,
        length: u64,
        mode: i32,
        reply: ReplyEmpty,
    ) {
        const DROP: i32 = libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_ZERO_RANGE;
        let len = self.clip(offset, length);
        let res = if mode & DROP != 0 && len > 0 {
            // Discard (loop device REQ_OP_DISCARD) and write-zeroes: a trim, reading as zeros.
            self.run(|h| h.trim(offset, len))
        } else if mode & !libc::FALLOC_FL_KEEP_SIZE == 0 {
            Ok(()) // preallocation: the whole disk is already there
        } else {
            Err(Errno::EOPNOTSUPP)
        };
        match res {
            Ok(()) => reply.ok(),
            Err(e) => reply.error(e),
        }
    }

    fn readdir(
        &self,
        _req: &Request,
        ino: INodeNo,
        _fh: FileHandle,
        offset: u64,
        mut reply: ReplyDirectory,
    ) {
        if ino != ROOT {
            return reply.error(Errno::ENOTDIR);
        }
        let entries = [
            (ROOT, FileType::Directory, "."),
            (ROOT, FileType::Directory, ".."),
            (DISK, FileType::RegularFile, "disk"),
        ];
        for (i, (ino, kind, name)) in entries.into_iter().enumerate().skip(offset as usize) {
            if reply.add(ino, (i + 1) as u64, kind, name) {
                break;
            }
        }
        reply.ok();
    }
}

static STOP: AtomicBool = AtomicBool::new(false);
static CUT: AtomicBool = AtomicBool::new(false);

extern "C" fn on_signal(_: libc::c_int) {
    STOP.store(true, Ordering::SeqCst);
}

extern "C" fn on_cut(_: libc::c_int) {
    CUT.store(true, Ordering::SeqCst);
}

fn handle_options(a: &MountArgs) -> zonesim::Result<HandleOptions> {
    Ok(HandleOptions {
        device: a.device.clone(),
        sets: a.sets.clone(),
        namespace: a.namespace,
        store: StoreSpec::parse("--store", &a.store)?,
        open: match (a.resume, a.fresh) {
            (true, _) => StoreOpen::Resume,
            (_, true) => StoreOpen::Fresh,
            _ => StoreOpen::New,
        },
        verify: a.verify,
        pace: Pace::parse("--pace", &a.pace)?,
        record: match &a.record {
            Some(p) => Some((
                p.clone(),
                RecordFormat::parse("--record-format", &a.record_format)?,
            )),
            None => None,
        },
        seed: a.seed,
        name: "mount".into(),
        precondition: zonesim::sim::Precondition::None,
        power_off: match (a.power_off_at_request, a.power_off_at_us) {
            (Some(n), _) => Some(zonesim::sim::PowerOff::AtRequest(n)),
            (None, Some(us)) if us.is_finite() && us >= 0.0 => {
                Some(zonesim::sim::PowerOff::AtUs(us))
            }
            (None, Some(us)) => {
                return Err(zonesim::Error::Usage(format!(
                    "--power-off-at-us: `{us}`: expected a time in µs of at least 0"
                )))
            }
            (None, None) => None,
        },
        random_cuts: None,
        power_cuts: a.power_cuts,
    })
}

pub fn run(a: MountArgs) -> Result<()> {
    // The mount point first: a store is opened (and with --fresh truncated) only for a mount
    // that can happen.
    if !a.dir.is_dir() {
        return Err(zonesim::Error::Usage(format!(
            "{}: the mount point must be an existing directory",
            a.dir.display()
        ))
        .into());
    }
    let handle = Handle::open(handle_options(&a)?)?;
    let size = handle.capacity();
    let handle = Arc::new(Mutex::new(handle));
    let disk = Disk {
        handle: Arc::clone(&handle),
        size,
        halt: a.halt_after_cut,
        // SAFETY: getuid/getgid cannot fail.
        uid: unsafe { libc::getuid() },
        gid: unsafe { libc::getgid() },
    };
    let mut cfg = Config::default();
    cfg.mount_options = vec![
        MountOption::FSName("zonesim".into()),
        MountOption::Subtype("zonesim".into()),
        MountOption::NoAtime,
    ];
    // SAFETY: the handler only stores to an atomic.
    unsafe {
        libc::signal(libc::SIGINT, on_signal as *const () as libc::sighandler_t);
        libc::signal(libc::SIGTERM, on_signal as *const () as libc::sighandler_t);
        if a.power_cuts {
            libc::signal(libc::SIGUSR1, on_cut as *const () as libc::sighandler_t);
        }
    }
    // The signal loop's view of the same disk (SIGUSR1 cuts through it).
    let cutter = Disk {
        handle: Arc::clone(&handle),
        ..disk
    };
    let session = fuser::spawn_mount(disk, &a.dir, &cfg).with_context(|| {
        format!(
            "mounting {} (needs /dev/fuse and fusermount3)",
            a.dir.display()
        )
    })?;
    eprintln!(
        "zonesim: {}/disk is namespace {} of {} ({} bytes); unmount to stop",
        a.dir.display(),
        a.namespace,
        a.device,
        size
    );
    while !session.guard.is_finished() && !STOP.load(Ordering::SeqCst) {
        std::thread::sleep(Duration::from_millis(50));
        if CUT.swap(false, Ordering::SeqCst) && cutter.power_cut()? {
            eprintln!(
                "zonesim: power cut (SIGUSR1); {}",
                if a.halt_after_cut {
                    "every request fails until unmount"
                } else {
                    "the device recovered and serves requests again"
                }
            );
        }
    }
    if session.guard.is_finished() {
        session.join().context("FUSE session")?;
    } else {
        session.umount_and_join().context("unmounting")?;
    }
    let report = handle.lock().unwrap_or_else(|p| p.into_inner()).finish()?;
    if let Some(path) = &a.json {
        let text = serde_json::to_string_pretty(&report)?;
        std::fs::write(path, text + "\n").map_err(|e| zonesim::Error::io(path, e))?;
    }
    let e = report.emulation.as_ref().expect("an emulation report");
    eprintln!(
        "zonesim: unmounted: {} reads, {} writes, {} trims, {} flushes; WAF {:.3}; verify mismatches {}",
        report.host.read.ios,
        report.host.write.ios,
        report.host.trim.ios,
        report.host.flush.ios,
        report.device.waf,
        e.store.mismatches
    );
    if let Some(p) = report.power.as_ref().filter(|p| p.cuts.unwrap_or(0) > 0) {
        eprintln!(
            "zonesim: {} power cut(s), the last at {:.1} us: {} acknowledged writes lost, {} requests in flight failed, recovery {:.1} us",
            p.cuts.unwrap_or(0),
            p.cut_at_us.unwrap_or(0.0),
            p.lost_acknowledged_writes.unwrap_or(0),
            report.sim.requests_cut.unwrap_or(0),
            p.recovery_us.unwrap_or(0.0)
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    //! The disk below its FUSE callbacks (a mount needs root and /dev/fuse): what a request
    //! meets at and after a power cut.
    use super::*;
    use zonesim::sim::PowerOff;

    fn disk(halt: bool, power_off: Option<PowerOff>) -> Disk {
        let h = Handle::open(HandleOptions {
            store: StoreSpec::Memory,
            verify: true,
            power_off,
            power_cuts: true,
            ..Default::default()
        })
        .unwrap();
        Disk {
            size: h.capacity(),
            handle: Arc::new(Mutex::new(h)),
            halt,
            uid: 0,
            gid: 0,
        }
    }

    fn write(d: &Disk, page: u64, byte: u8) -> std::result::Result<(), Errno> {
        d.run(|h| h.write(page * 4096, &[byte; 4096]))
    }

    fn read(d: &Disk, page: u64) -> std::result::Result<u8, Errno> {
        let mut b = [0u8; 4096];
        d.run(|h| h.read(page * 4096, &mut b))?;
        Ok(b[0])
    }

    #[test]
    fn the_disk_carries_on_after_a_cut() {
        let d = disk(false, Some(PowerOff::AtRequest(3)));
        write(&d, 0, 1).unwrap();
        d.run(Handle::flush).unwrap();
        // The third request reaches the device as power fails: its answer never comes.
        assert_eq!(write(&d, 1, 2), Err(Errno::EIO));
        let after_cut = d.handle().clock();
        // The device recovered: later requests are served, past the recovery.
        write(&d, 2, 3).unwrap();
        assert!(d.handle().clock() > after_cut);
        assert_eq!(read(&d, 0), Ok(1), "flushed before the cut");
        assert_eq!(read(&d, 2), Ok(3));
        // The request in flight lost its data (nothing flushed it): zeros, as never written.
        assert_eq!(read(&d, 1), Ok(0));
        // A cut now (SIGUSR1) cuts again, and the disk goes on again.
        assert!(d.power_cut().unwrap());
        write(&d, 3, 4).unwrap();
        d.run(Handle::flush).unwrap();
        assert_eq!(read(&d, 3), Ok(4));
        let r = d.handle().report();
        assert_eq!(r.power.unwrap().cuts, Some(2));
        assert_eq!(r.sim.requests_cut, Some(1));
        assert_eq!(r.emulation.unwrap().store.mismatches, 0);
    }

    #[test]
    fn halt_after_cut_fails_every_later_request() {
        let d = disk(true, Some(PowerOff::AtRequest(2)));
        write(&d, 0, 1).unwrap();
        assert_eq!(write(&d, 1, 2), Err(Errno::EIO));
        assert_eq!(write(&d, 2, 3), Err(Errno::EIO));
        assert_eq!(read(&d, 0), Err(Errno::EIO));
        assert_eq!(d.run(Handle::flush), Err(Errno::EIO));
        // The host is down: a further cut changes nothing.
        assert!(!d.power_cut().unwrap());
        assert_eq!(d.handle().power_cuts(), 1);
    }

    #[test]
    fn a_cut_by_time_fails_the_request_that_finds_the_power_off() {
        let d = disk(false, Some(PowerOff::AtUs(0.0)));
        assert_eq!(write(&d, 0, 1), Err(Errno::EIO));
        write(&d, 0, 1).unwrap();
        assert_eq!(read(&d, 0), Ok(1));
        assert_eq!(d.handle().power_cuts(), 1);
    }
}
