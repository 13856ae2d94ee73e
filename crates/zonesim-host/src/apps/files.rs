//! The file interface an application model speaks ([`FileIo`]): create, positioned write and
//! read, fsync, and the clock. A file-system model implements it once; the model's device
//! commands are left for the caller to submit (the F2FS model's `out`). The InnoDB model is
//! written against this trait only, so one type parameter names the file system.

use crate::fs::{F2fs, FsError, Ino, ROOT};

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

impl FileIo for F2fs {
    type File = Ino;
    fn create_file(&mut self, name: &str) -> Result<Ino, FsError> {
        self.create(ROOT, name, 0)
    }
    fn write_at(&mut self, f: Ino, off: u64, len: u64, direct: bool) -> Result<(), FsError> {
        self.write(f, off, len, direct)
    }
    fn read_at(&mut self, f: Ino, off: u64, len: u64) {
        self.read(f, off, len);
    }
    fn sync_file(&mut self, f: Ino, datasync: bool) {
        self.fsync(f, datasync);
    }
    fn set_now(&mut self, ns: u64) {
        self.now = ns;
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
}
