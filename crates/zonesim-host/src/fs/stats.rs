//! Counters of the file system and the sample a per-interval sampler takes (free / dirty /
//! valid / prefree segments, fragmentation, GC phase, bytes written by kind).

use super::gc::GcPhase;
use super::layout::BLOCK_BYTES;
use super::{F2fs, NEW, NULL};
use serde::Serialize;

/// Why a checkpoint was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CpReason {
    Mount,
    Sync,
    Timer,
    Prefree,
    DirtyNodes,
    FgGc,
}

/// Checkpoints by trigger.
#[derive(Debug, Clone, Default, Serialize)]
pub struct CpCounts {
    pub total: u64,
    pub sync: u64,
    pub timer: u64,
    pub prefree: u64,
    pub dirty_nodes: u64,
    pub fg_gc: u64,
}

impl CpCounts {
    pub fn count(&mut self, r: CpReason) {
        self.total += 1;
        match r {
            CpReason::Mount => {}
            CpReason::Sync => self.sync += 1,
            CpReason::Timer => self.timer += 1,
            CpReason::Prefree => self.prefree += 1,
            CpReason::DirtyNodes => self.dirty_nodes += 1,
            CpReason::FgGc => self.fg_gc += 1,
        }
    }
}

/// GC work of one kind (foreground, background normal, background boosted).
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct GcKindCounts {
    pub victims: u64,
    pub blocks_moved: u64,
}

/// Device read requests of the file system by size: 4 KiB, 8 KiB, … 256 KiB, ≥ 512 KiB.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ReadSizes {
    pub buckets_kib: [u64; 8],
    pub requests: u64,
    pub bytes: u64,
}

impl ReadSizes {
    /// Upper bounds of the buckets in KiB (the last one is open).
    pub const BOUNDS_KIB: [u64; 8] = [4, 8, 16, 32, 64, 128, 256, 512];

    #[inline]
    pub fn record(&mut self, len: u64) {
        let kib = len.div_ceil(1024).max(4);
        let k = (63 - kib.leading_zeros() as usize).saturating_sub(2).min(7);
        self.buckets_kib[k] += 1;
        self.requests += 1;
        self.bytes += len;
    }
}

/// Everything the file system counts.
#[derive(Debug, Clone, Default, Serialize)]
pub struct FsCounters {
    /// Bytes the application asked to write.
    pub user_bytes_requested: u64,
    pub user_bytes_read: u64,
    /// Regular-file data written to the device (in place or out of place): the user writes.
    pub data_bytes: u64,
    pub dentry_bytes: u64,
    pub node_bytes: u64,
    /// NAT, SIT and SSA blocks.
    pub meta_bytes: u64,
    pub cp_bytes: u64,
    pub gc_data_bytes: u64,
    pub gc_node_bytes: u64,
    pub gc_read_bytes: u64,
    /// GC bytes moved by device-side copy (`gc_copy_offload`), counted in `gc_data_bytes` /
    /// `gc_node_bytes` too.
    pub gc_copy_bytes: u64,
    /// Host-link bytes the copy offload saved against reading and writing the moved blocks.
    pub gc_link_bytes_saved: u64,
    pub discard_bytes: u64,
    pub ipu_blocks: u64,
    pub opu_blocks: u64,
    pub ssr_segments: u64,
    pub zone_resets: u64,
    pub checkpoints: CpCounts,
    pub fsyncs: u64,
    pub fdatasyncs: u64,
    pub fsync_node_writes: u64,
    pub creates: u64,
    pub unlinks: u64,
    pub enospc: u64,
    pub alloc_failures: u64,
    pub dirty_limit_writebacks: u64,
    pub fg_gc_calls: u64,
    pub gc_no_victim: u64,
    /// Foreground, background normal, background boosted.
    pub gc: [GcKindCounts; 3],
    pub bg_wakes: u64,
    pub bg_paused: u64,
    /// Time in each BG GC phase (off, no_gc, normal, boosted), ns.
    pub phase_ns: [u64; 4],
    pub read_sizes: ReadSizes,
    /// In-place updates through the device's budget (files marked, ZMS).
    pub ipu: super::ipu::IpuHookCounters,
}

impl FsCounters {
    /// Every byte the file system wrote to the device.
    pub fn fs_bytes_written(&self) -> u64 {
        self.data_bytes
            + self.dentry_bytes
            + self.node_bytes
            + self.meta_bytes
            + self.cp_bytes
            + self.gc_data_bytes
            + self.gc_node_bytes
    }
}

/// The state a time-series sampler records.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct FsSample {
    pub free_segments: u64,
    pub dirty_segments: u64,
    /// Full segments (F2FS's "valid" class in ZUFS Fig. 10).
    pub valid_segments: u64,
    pub prefree_segments: u64,
    pub free_sections: u64,
    /// dirty / (dirty + free) segments, as sysfs.
    pub fragmentation: f64,
    pub gc_phase: GcPhase,
    pub user_bytes: u64,
    pub fs_bytes_written: u64,
    pub gc_bytes_written: u64,
    pub node_bytes: u64,
    pub meta_bytes: u64,
}

/// Extents per file: a run of blocks adjacent on the device is one fragment.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Fragments {
    pub files: u64,
    pub mean: f64,
    pub max: u64,
    /// Files with 1, 2–3, 4–7, 8–15, … ≥ 128 fragments.
    pub histogram: [u64; 8],
}

impl F2fs {
    /// The sample of the state now.
    pub fn sample(&self) -> FsSample {
        let (free, dirty, full, prefree) = self.segs.classes();
        FsSample {
            free_segments: free,
            dirty_segments: dirty,
            valid_segments: full,
            prefree_segments: prefree,
            free_sections: self.segs.free_secs as u64,
            fragmentation: frag(dirty, free),
            gc_phase: self.gc_phase(),
            user_bytes: self.c.data_bytes,
            fs_bytes_written: self.c.fs_bytes_written(),
            gc_bytes_written: self.c.gc_data_bytes + self.c.gc_node_bytes,
            node_bytes: self.c.node_bytes,
            meta_bytes: self.c.meta_bytes + self.c.cp_bytes,
        }
    }

    /// Section classes (free, dirty, full, prefree).
    pub fn section_classes(&self) -> (u64, u64, u64, u64) {
        self.segs.sec_classes(self.cap_blocks_pub())
    }

    fn cap_blocks_pub(&self) -> u32 {
        self.geo.usable_segs_per_sec * super::layout::BLKS_PER_SEG
    }

    /// Fragments per regular file.
    pub fn fragments(&self) -> Fragments {
        let mut f = Fragments::default();
        let mut total = 0u64;
        for (_, dir, addrs) in self.files() {
            if dir {
                continue;
            }
            let n = extents(addrs);
            if n == 0 {
                continue;
            }
            f.files += 1;
            total += n;
            f.max = f.max.max(n);
            f.histogram[(63 - n.leading_zeros() as usize).min(7)] += 1;
        }
        f.mean = if f.files > 0 {
            total as f64 / f.files as f64
        } else {
            0.0
        };
        f
    }

    /// Fragments (runs of consecutive blocks) of file `ino`.
    pub fn file_extents(&self, ino: super::Ino) -> u64 {
        extents(&self.inodes[ino.0 as usize].addrs)
    }

    /// Segments in use (not free) by the data logs: the space data circulates through.
    pub fn data_segments_in_use(&self) -> u64 {
        self.segs
            .segs
            .iter()
            .filter(|s| !s.free && s.log <= super::COLD_DATA)
            .count() as u64
    }

    /// Space left for files and nodes (user capacity − valid blocks), bytes.
    pub fn free_bytes(&self) -> u64 {
        self.geo.user_blocks.saturating_sub(self.valid_blocks) * BLOCK_BYTES
    }

    /// Bytes of data blocks held by files and nodes.
    pub fn valid_bytes(&self) -> u64 {
        self.valid_blocks * BLOCK_BYTES
    }
}

/// Runs of consecutive block addresses in a file's block list (holes and reserved blocks
/// belong to none): its fragments, as `filefrag` counts extents.
pub fn extents(addrs: &[u32]) -> u64 {
    let mut n = 0u64;
    let mut prev = NULL;
    for &a in addrs {
        if a != NULL && a != NEW && (prev == NULL || prev == NEW || a != prev + 1) {
            n += 1;
        }
        prev = a;
    }
    n
}

/// dirty / (dirty + free), 0 when both are 0.
pub fn frag(dirty: u64, free: u64) -> f64 {
    if dirty + free == 0 {
        0.0
    } else {
        dirty as f64 / (dirty + free) as f64
    }
}
