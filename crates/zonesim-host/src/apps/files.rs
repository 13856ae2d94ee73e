//! The file interface an application model speaks ([`FileIo`]): create, positioned write and
//! read, fsync, and the clock, with one handle type per backing. Every file-system model gets it
//! from the interface the models share (`hostfs::Files`); the model's device commands are left
//! for the caller to submit (the model's `out`). The InnoDB model is written against this trait
//! only, so one type parameter names what carries the files. [`RawFiles`] puts the files
//! straight on the device (no file system).

use crate::cpu::Burst;
use crate::fs::{Area, FsError, Ino, ROOT};
use crate::hostfs::Files;
use crate::IoKind;

/// The file operations of an application model.
pub trait FileIo {
    /// A file handle.
    type File: Copy;
    /// Create `name` (empty) in the root directory.
    fn create_file(&mut self, name: &str) -> Result<Self::File, FsError>;
    /// Write `len` bytes at `off`: buffered (the page cache) or direct (`O_DIRECT`: now).
    fn write_at(&mut self, f: Self::File, off: u64, len: u64, direct: bool) -> Result<(), FsError>;
    /// Read `len` bytes at `off` (pages in the page cache cost no device read).
    fn read_at(&mut self, f: Self::File, off: u64, len: u64);
    /// `fsync` (`datasync`: `fdatasync`).
    fn sync_file(&mut self, f: Self::File, datasync: bool);
    /// Set the file system's clock (ns) before an operation.
    fn set_now(&mut self, ns: u64);
}

/// Every file-system model (F2FS, ext4, and the enum a run mounts) through the one file
/// interface they share ([`Files`]): files in the root directory, no placement hint.
impl<T: Files> FileIo for T {
    type File = Ino;
    fn create_file(&mut self, name: &str) -> Result<Ino, FsError> {
        Files::create(self, ROOT, name, 0)
    }
    fn write_at(&mut self, f: Ino, off: u64, len: u64, direct: bool) -> Result<(), FsError> {
        Files::write(self, f, off, len, direct)
    }
    fn read_at(&mut self, f: Ino, off: u64, len: u64) {
        Files::read(self, f, off, len);
    }
    fn sync_file(&mut self, f: Ino, datasync: bool) {
        Files::fsync(self, f, datasync);
    }
    fn set_now(&mut self, ns: u64) {
        Files::set_now(self, ns);
    }
}

/// What runs an application model: its file system and the device behind it. `submit`
/// sends the file system's queued commands from `at` (ns) and returns when the last completes
/// (at least `at`).
pub trait AppHost {
    type Fs: FileIo;
    fn fs(&mut self) -> &mut Self::Fs;
    fn submit(&mut self, at: u64) -> u64;
    /// The application's setup (sysbench's `prepare`) ended at `at`: what follows is measured.
    fn prepared(&mut self, _at: u64) {}
    /// Application thread `thread` runs CPU burst `b` ready at `at` (ns); returns when it
    /// ends. Without a host CPU model (the default) the application takes no CPU time.
    #[inline]
    fn cpu(&mut self, _thread: u32, at: u64, _b: &Burst) -> u64 {
        at
    }
}

/// Files straight on a block device, no file system: each file a list of 1 MiB extents taken
/// from the front of the device as the file grows (a file written front to back lies
/// contiguously), every write in place at once, `fsync` a device cache flush after the writes
/// before it. It stands for an in-place file system such as ext4 without its journal and
/// metadata: the device sees the application's own write pattern.
#[derive(Debug, Clone)]
pub struct RawFiles {
    capacity: u64,
    next: u64,
    /// Per file, the device offset of each of its extents.
    extents: Vec<Vec<u64>>,
    /// The device commands of the calls since the last submission.
    pub out: crate::fs::Out,
}

/// The extent of [`RawFiles`].
pub const RAW_EXTENT: u64 = 1 << 20;
/// The device's logical block.
const BLOCK: u64 = 4096;

impl RawFiles {
    /// Files on a device of `capacity` bytes.
    pub fn new(capacity: u64) -> RawFiles {
        RawFiles {
            capacity,
            next: 0,
            extents: Vec::new(),
            out: crate::fs::Out::new(RAW_EXTENT),
        }
    }

    /// Bytes not yet given to a file.
    pub fn free_bytes(&self) -> u64 {
        self.capacity - self.next
    }

    /// Queue `kind` over `[off, off + len)` of file `f`, extent by extent, allocating
    /// extents the range reaches first.
    fn io(&mut self, f: u32, off: u64, len: u64, kind: IoKind) -> Result<(), FsError> {
        let mut at = off;
        while at < off + len {
            let e = (at / RAW_EXTENT) as usize;
            let ext = &mut self.extents[f as usize];
            while ext.len() <= e {
                if self.next + RAW_EXTENT > self.capacity {
                    return Err(FsError::NoSpace);
                }
                ext.push(self.next);
                self.next += RAW_EXTENT;
            }
            let n = (RAW_EXTENT - at % RAW_EXTENT).min(off + len - at);
            // Whole 4 KiB blocks, as the block layer sends them (inside the extent).
            let dev = ext[e] + at % RAW_EXTENT;
            let (lo, hi) = (dev / BLOCK * BLOCK, (dev + n).div_ceil(BLOCK) * BLOCK);
            self.out.push(Area::Main, kind, lo, hi - lo);
            at += n;
        }
        Ok(())
    }
}

impl FileIo for RawFiles {
    type File = u32;
    fn create_file(&mut self, _name: &str) -> Result<u32, FsError> {
        self.extents.push(Vec::new());
        Ok(self.extents.len() as u32 - 1)
    }
    fn write_at(&mut self, f: u32, off: u64, len: u64, _direct: bool) -> Result<(), FsError> {
        self.io(f, off, len, IoKind::Write)
    }
    fn read_at(&mut self, f: u32, off: u64, len: u64) {
        // A read past what was written reads nothing (the model writes before it reads).
        let written = self.extents[f as usize].len() as u64 * RAW_EXTENT;
        let len = len.min(written.saturating_sub(off));
        if len > 0 {
            let _ = self.io(f, off, len, IoKind::Read);
        }
    }
    fn sync_file(&mut self, _f: u32, _datasync: bool) {
        self.out.barrier();
        self.out.push(Area::Main, IoKind::Flush, 0, 0);
        self.out.barrier();
    }
    fn set_now(&mut self, _ns: u64) {}
}
