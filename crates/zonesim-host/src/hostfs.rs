//! The host file system of a run, either model (`fs.kind`): an enum over F2FS (`fs`) and ext4
//! (`ext4`), matched once per file operation (never per page), and the file interface both
//! offer ([`Files`]), which the application models (`apps`) are written against.

use crate::ext4::Ext4;
use crate::fs::F2fs;
use crate::fs_common::out::Out;
use crate::fs_common::{FsError, Ino};
use serde::Serialize;

/// The state of either model a scenario iteration records (flattened into it).
#[derive(Debug, Clone, Copy, Serialize)]
#[serde(untagged)]
pub enum Sample {
    F2fs(crate::fs::FsSample),
    Ext4(crate::ext4::stats::Ext4Sample),
}

impl Sample {
    /// The F2FS sample (all zero when ext4 ran): for the F2FS reproductions.
    pub fn f2fs(&self) -> crate::fs::FsSample {
        match self {
            Sample::F2fs(s) => *s,
            Sample::Ext4(_) => crate::fs::FsSample::default(),
        }
    }
}

/// The file operations an application model needs, implemented by both models and the enum.
pub trait Files {
    fn create(&mut self, parent: Ino, name: &str, hint: u8) -> Result<Ino, FsError>;
    fn write(&mut self, ino: Ino, off: u64, len: u64, direct: bool) -> Result<(), FsError>;
    fn read(&mut self, ino: Ino, off: u64, len: u64);
    fn fsync(&mut self, ino: Ino, datasync: bool);
    fn unlink(&mut self, ino: Ino);
    fn size(&self, ino: Ino) -> u64;
    /// Mark a file for the device's budget-based in-place update (F2FS on ZMS); false when the
    /// model or the device has none.
    fn mark_ipu(&mut self, ino: Ino) -> bool;
    /// Set the model's clock (ns) before an operation.
    fn set_now(&mut self, ns: u64);
}

macro_rules! files_for {
    ($t:ty, $ipu:expr) => {
        impl Files for $t {
            #[inline]
            fn create(&mut self, parent: Ino, name: &str, hint: u8) -> Result<Ino, FsError> {
                <$t>::create(self, parent, name, hint)
            }
            #[inline]
            fn write(&mut self, ino: Ino, off: u64, len: u64, direct: bool) -> Result<(), FsError> {
                <$t>::write(self, ino, off, len, direct)
            }
            #[inline]
            fn read(&mut self, ino: Ino, off: u64, len: u64) {
                <$t>::read(self, ino, off, len)
            }
            #[inline]
            fn fsync(&mut self, ino: Ino, datasync: bool) {
                <$t>::fsync(self, ino, datasync)
            }
            #[inline]
            fn unlink(&mut self, ino: Ino) {
                <$t>::unlink(self, ino)
            }
            #[inline]
            fn size(&self, ino: Ino) -> u64 {
                <$t>::size(self, ino)
            }
            #[inline]
            fn mark_ipu(&mut self, ino: Ino) -> bool {
                #[allow(clippy::redundant_closure_call)]
                ($ipu)(self, ino)
            }
            #[inline]
            fn set_now(&mut self, ns: u64) {
                self.now = ns;
            }
        }
    };
}

files_for!(F2fs, |fs: &mut F2fs, ino| fs.mark_ipu(ino));
files_for!(Ext4, |_: &mut Ext4, _| false);

/// The mounted model (one per run, held by value: no indirection on each call).
#[allow(clippy::large_enum_variant)]
#[derive(Clone)]
pub enum HostFs {
    F2fs(F2fs),
    Ext4(Ext4),
}

/// One expression over whichever model is mounted.
macro_rules! each {
    ($s:expr, $fs:ident => $e:expr) => {
        match $s {
            HostFs::F2fs($fs) => $e,
            HostFs::Ext4($fs) => $e,
        }
    };
}

impl Files for HostFs {
    fn create(&mut self, parent: Ino, name: &str, hint: u8) -> Result<Ino, FsError> {
        each!(self, fs => fs.create(parent, name, hint))
    }
    fn write(&mut self, ino: Ino, off: u64, len: u64, direct: bool) -> Result<(), FsError> {
        each!(self, fs => fs.write(ino, off, len, direct))
    }
    fn read(&mut self, ino: Ino, off: u64, len: u64) {
        each!(self, fs => fs.read(ino, off, len))
    }
    fn fsync(&mut self, ino: Ino, datasync: bool) {
        each!(self, fs => fs.fsync(ino, datasync))
    }
    fn unlink(&mut self, ino: Ino) {
        each!(self, fs => fs.unlink(ino))
    }
    fn size(&self, ino: Ino) -> u64 {
        each!(self, fs => fs.size(ino))
    }
    fn mark_ipu(&mut self, ino: Ino) -> bool {
        each!(self, fs => Files::mark_ipu(fs, ino))
    }
    fn set_now(&mut self, ns: u64) {
        HostFs::set_now(self, ns)
    }
}

impl HostFs {
    /// The model's name in the report (`fs.kind`).
    pub fn kind(&self) -> &'static str {
        match self {
            HostFs::F2fs(_) => "f2fs",
            HostFs::Ext4(_) => "ext4",
        }
    }

    pub fn as_f2fs(&self) -> Option<&F2fs> {
        match self {
            HostFs::F2fs(f) => Some(f),
            HostFs::Ext4(_) => None,
        }
    }

    pub fn as_f2fs_mut(&mut self) -> Option<&mut F2fs> {
        match self {
            HostFs::F2fs(f) => Some(f),
            HostFs::Ext4(_) => None,
        }
    }

    pub fn as_ext4(&self) -> Option<&Ext4> {
        match self {
            HostFs::Ext4(f) => Some(f),
            HostFs::F2fs(_) => None,
        }
    }

    /// The simulated clock, in ns.
    #[inline]
    pub fn set_now(&mut self, ns: u64) {
        each!(self, fs => fs.now = ns)
    }

    /// The commands the last operations queued.
    #[inline]
    pub fn out(&mut self) -> &mut Out {
        each!(self, fs => &mut fs.out)
    }

    pub fn mkdir(&mut self, parent: Ino) -> Result<Ino, FsError> {
        each!(self, fs => fs.mkdir(parent))
    }

    /// `sync` (and unmount): all dirty data and metadata to the device.
    pub fn sync(&mut self) {
        each!(self, fs => fs.sync())
    }

    pub fn check_invariants(&self) -> Result<(), String> {
        each!(self, fs => fs.check_invariants())
    }

    /// Host time to copy a 4 KiB page into the page cache.
    #[inline]
    pub fn page_copy_ns(&self) -> u64 {
        match self {
            HostFs::F2fs(f) => f.p.page_copy_ns,
            HostFs::Ext4(f) => f.p.page_copy_ns,
        }
    }

    /// The main area is zoned (F2FS only; ext4 needs a conventional namespace).
    pub fn zoned(&self) -> bool {
        self.as_f2fs().is_some_and(|f| f.geo.zoned)
    }

    /// Background GC follows F2FS's zoned policy (a zoned main area under kernel 6.12 or later;
    /// never for ext4): see [`F2fs::zoned_bg_gc`].
    pub fn zoned_bg_gc(&self) -> bool {
        self.as_f2fs().is_some_and(|f| f.zoned_bg_gc())
    }

    /// Idle time before F2FS's conventional background GC runs (0 for ext4).
    pub fn gc_idle_time_ms(&self) -> u64 {
        self.as_f2fs().map_or(0, |f| f.p.gc_idle_time_ms)
    }

    /// The first wake of the model's background thread after `start` (ns): F2FS's GC thread
    /// when on, ext4's journal commit timer and flusher.
    pub fn first_bg_wake(&self, start: u64) -> Option<u64> {
        match self {
            HostFs::F2fs(f) => {
                f.p.background_gc
                    .then(|| start + f.p.gc_min_sleep_time_ms.saturating_mul(1_000_000))
            }
            HostFs::Ext4(f) => Some(start + f.p.dirty_writeback_ms.saturating_mul(1_000_000)),
        }
    }

    /// One wake of the background thread at `now` (`idle`: F2FS's idle gate); its commands
    /// are left in `out`; the sleep to the next wake (ns), or None when it stops.
    pub fn bg_tick(&mut self, now: u64, idle: bool) -> Option<u64> {
        match self {
            HostFs::F2fs(f) => f.bg_tick(now, idle),
            HostFs::Ext4(f) => Some(f.bg_tick(now)),
        }
    }

    /// Lay out a file job's file of `len` bytes before it writes (fio's `fallocate=native`):
    /// ext4 allocates unwritten extents; the F2FS model has no preallocation (nothing).
    pub fn preallocate(&mut self, ino: Ino, len: u64) -> Result<(), FsError> {
        match self {
            HostFs::F2fs(_) => Ok(()),
            HostFs::Ext4(f) => f.fallocate(ino, len),
        }
    }

    /// In-place updates the device refused are written out of place (F2FS with ZMS).
    pub fn ipu_fallback(&mut self) -> bool {
        match self {
            HostFs::F2fs(f) => f.ipu_fallback(),
            HostFs::Ext4(_) => false,
        }
    }

    pub fn ipu_rejected(&mut self, offset: u64, len: u64) {
        if let HostFs::F2fs(f) = self {
            f.ipu_rejected(offset, len)
        }
    }

    /// The device takes budgeted in-place updates (F2FS's `device_ipu`).
    pub fn device_ipu(&self) -> bool {
        self.as_f2fs().is_some_and(|f| f.p.device_ipu)
    }

    /// (ext4, metadata blocks written, checkpoints or journal commits) so far: the host CPU
    /// model charges the work between two calls (F2FS node blocks and checkpoints, ext4
    /// journalled blocks and commits).
    pub fn work(&self) -> (bool, u64, u64) {
        match self {
            HostFs::F2fs(f) => (false, f.c.node_bytes / 4096, f.c.checkpoints.total),
            HostFs::Ext4(f) => (true, f.c.journal_metadata_blocks, f.c.commits.total()),
        }
    }

    /// Bytes a user may still write.
    pub fn free_bytes(&self) -> u64 {
        match self {
            HostFs::F2fs(f) => f.free_bytes(),
            HostFs::Ext4(f) => f.free_bytes(),
        }
    }

    /// (bytes the file system wrote, user data bytes among them): its WAF's terms.
    pub fn written(&self) -> (u64, u64) {
        match self {
            HostFs::F2fs(f) => (f.c.fs_bytes_written(), f.c.data_bytes),
            HostFs::Ext4(f) => (
                f.c.blocks_written() * crate::ext4::BLOCK_BYTES,
                f.c.data_blocks * crate::ext4::BLOCK_BYTES,
            ),
        }
    }

    pub fn sample(&self) -> Sample {
        match self {
            HostFs::F2fs(f) => Sample::F2fs(f.sample()),
            HostFs::Ext4(f) => Sample::Ext4(f.sample()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ext4::Ext4Params;
    use crate::fs::{FsDevice, FsParams, Kernel};
    use crate::fs_common::ROOT;
    use proptest::prelude::*;

    fn both() -> [HostFs; 2] {
        let dev = FsDevice {
            main_ns_bytes: 64 << 20,
            zone: None,
            meta_ns_bytes: None,
        };
        let f2fs = F2fs::new(FsParams::kernel_default(false, Kernel::V6_18, 1), &dev).unwrap();
        let ext4 = Ext4::new(Ext4Params::default(), 64 << 20).unwrap();
        [HostFs::F2fs(f2fs), HostFs::Ext4(ext4)]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(12))]
        /// The file system property test over both models through the one interface: random
        /// creates, writes, fsyncs, reads, unlinks, syncs and background ticks keep each
        /// model's invariants, and both agree on every file's size.
        #[test]
        fn both_models_keep_their_invariants_and_agree_on_sizes(
            ops in proptest::collection::vec((0u8..7, 0u32..5, 0u64..2000), 1..250),
        ) {
            let mut models = both();
            let mut files: Vec<[Option<Ino>; 2]> = vec![[None; 2]; 5];
            // Files a model refused a write to (ENOSPC: the models' capacities differ).
            let mut diverged = [false; 5];
            let mut now = 0u64;
            for (op, k, b) in ops {
                now += b * 5_000_000;
                for (m, fs) in models.iter_mut().enumerate() {
                    fs.set_now(now);
                    let slot = &mut files[k as usize][m];
                    match (op, *slot) {
                        (0, None) => *slot = fs.create(ROOT, &format!("f{k}"), 0).ok(),
                        (0 | 1, Some(i)) => {
                            if fs.write(i, b * 4096, 4096 * (1 + b % 4), false).is_err() {
                                diverged[k as usize] = true;
                            }
                        }
                        (2, Some(i)) => fs.fsync(i, b % 2 == 0),
                        (3, Some(i)) => {
                            fs.unlink(i);
                            *slot = None;
                            diverged[k as usize] = false;
                        }
                        (4, _) => fs.sync(),
                        (5, Some(i)) => fs.read(i, b * 4096, 16384),
                        _ => { fs.bg_tick(now, true); }
                    }
                    fs.out().clear();
                    prop_assert!(fs.check_invariants().is_ok(), "{}: {:?}", fs.kind(), fs.check_invariants());
                }
                for (f, d) in files.iter().zip(diverged) {
                    if let (false, [Some(a), Some(b)]) = (d, f) {
                        prop_assert_eq!(models[0].size(*a), models[1].size(*b));
                    }
                }
            }
        }
    }
}
