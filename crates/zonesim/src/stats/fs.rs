//! The `fs` section of the report (docs/fs.md) and `end_to_end_waf`: what the host file system
//! wrote by kind, its WAF, segment and section classes, fragmentation, GC by kind and phase,
//! fragments per file and the sizes of its device reads.

use super::device::DeviceReport;
use super::ratio;
use crate::host::fs::stats::{CpCounts, Fragments, GcKindCounts, ReadSizes};
use crate::host::fs::{F2fs, FsCounters, FsMode, GcPhase, BLOCK_BYTES};
use serde::Serialize;

/// The `fs` section: whichever model ran (`kind` says which).
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
#[allow(clippy::large_enum_variant)] // one per report
pub enum FsSection {
    F2fs(FsReport),
    Ext4(super::fs_ext4::Ext4Report),
}

impl FsSection {
    pub fn f2fs(&self) -> Option<&FsReport> {
        match self {
            FsSection::F2fs(r) => Some(r),
            FsSection::Ext4(_) => None,
        }
    }

    pub fn ext4(&self) -> Option<&super::fs_ext4::Ext4Report> {
        match self {
            FsSection::Ext4(r) => Some(r),
            FsSection::F2fs(_) => None,
        }
    }

    pub fn kind(&self) -> &'static str {
        match self {
            FsSection::F2fs(r) => r.kind,
            FsSection::Ext4(r) => r.kind,
        }
    }

    pub fn enospc(&self) -> u64 {
        match self {
            FsSection::F2fs(r) => r.enospc,
            FsSection::Ext4(r) => r.enospc,
        }
    }

    pub fn end_to_end_waf(&self) -> f64 {
        match self {
            FsSection::F2fs(r) => r.end_to_end_waf,
            FsSection::Ext4(r) => r.end_to_end_waf,
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct FsReport {
    pub kind: &'static str,
    pub mode: &'static str,
    /// The kernel profile that ran (`fs.kernel`): "v5.4", "v6.1", "v6.6", "v6.12" or "v6.18".
    pub kernel: &'static str,
    /// File-system writes / user data writes.
    pub waf: f64,
    /// Flash programs / user data writes (= `waf` × `device.waf`).
    pub end_to_end_waf: f64,
    pub bytes_written: BytesWritten,
    pub segments: Classes,
    pub sections: Classes,
    /// dirty / (dirty + free) segments, as F2FS's sysfs.
    pub fragmentation: f64,
    /// dirty / (dirty + free) sections.
    pub fragmentation_sections: f64,
    pub gc: FsGcReport,
    pub checkpoints: CpCounts,
    pub fragments_per_file: Fragments,
    pub read_sizes: ReadSizes,
    pub layout: FsLayoutReport,
    pub ipu_blocks: u64,
    /// In-place updates through the device's budget (files marked, ZMS); absent when none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ipu: Option<crate::host::fs::ipu::IpuHookCounters>,
    pub opu_blocks: u64,
    pub ssr_segments: u64,
    pub zone_resets: u64,
    pub discard_bytes: u64,
    pub fsyncs: u64,
    pub fdatasyncs: u64,
    pub fsync_node_writes: u64,
    pub creates: u64,
    pub unlinks: u64,
    pub enospc: u64,
    pub alloc_failures: u64,
    pub dirty_limit_writebacks: u64,
    pub user_bytes_requested: u64,
    pub user_bytes_read: u64,
    pub valid_bytes: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct BytesWritten {
    /// Regular-file data (the user writes).
    pub user: u64,
    pub data: u64,
    pub dentry: u64,
    pub node: u64,
    /// NAT, SIT, SSA.
    pub metadata: u64,
    pub checkpoint: u64,
    pub gc_data: u64,
    pub gc_node: u64,
    pub gc: u64,
    pub total: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct Classes {
    pub free: u64,
    pub dirty: u64,
    /// Full (every block valid).
    pub valid: u64,
    pub prefree: u64,
    pub total: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct FsGcReport {
    pub foreground: GcKindCounts,
    pub background_normal: GcKindCounts,
    pub background_boosted: GcKindCounts,
    pub read_bytes: u64,
    pub foreground_calls: u64,
    pub no_victim: u64,
    pub background_wakes: u64,
    pub background_paused: u64,
    pub phase: GcPhase,
    pub phase_time_ns: PhaseTime,
    /// GC bytes moved by device-side copy (`fs.gc_copy_offload`); absent when off.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub copy_offload_bytes: Option<u64>,
    /// Host-link bytes the copy offload saved (reads and writes of moved blocks not
    /// transferred); absent when off.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub link_bytes_saved: Option<u64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct PhaseTime {
    pub off: u64,
    pub no_gc: u64,
    pub normal: u64,
    pub boosted: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct FsLayoutReport {
    pub meta_namespace: usize,
    pub main_namespace: usize,
    pub zoned: bool,
    pub segs_per_sec: u32,
    pub usable_segs_per_sec: u32,
    pub sections: u32,
    pub reserved_segments: u64,
    pub overprovision_percent: f64,
    pub overprovision_segments: u64,
    pub user_capacity_bytes: u64,
}

impl FsReport {
    pub fn new(fs: &F2fs, meta_ns: usize, main_ns: usize, dev: &DeviceReport) -> FsReport {
        let c: &FsCounters = fs.counters();
        let s = fs.sample();
        let (sf, sd, sv, sp) = fs.section_classes();
        let g = &fs.geo;
        let total = c.fs_bytes_written();
        FsReport {
            kind: "f2fs",
            mode: match fs.mode() {
                FsMode::Adaptive => "adaptive",
                FsMode::Lfs => "lfs",
            },
            kernel: fs.p.kernel.name(),
            waf: ratio(total, c.data_bytes),
            end_to_end_waf: ratio(dev.flash.programmed_slots * BLOCK_BYTES, c.data_bytes),
            bytes_written: BytesWritten {
                user: c.data_bytes,
                data: c.data_bytes,
                dentry: c.dentry_bytes,
                node: c.node_bytes,
                metadata: c.meta_bytes,
                checkpoint: c.cp_bytes,
                gc_data: c.gc_data_bytes,
                gc_node: c.gc_node_bytes,
                gc: c.gc_data_bytes + c.gc_node_bytes,
                total,
            },
            segments: Classes {
                free: s.free_segments,
                dirty: s.dirty_segments,
                valid: s.valid_segments,
                prefree: s.prefree_segments,
                total: g.usable_segs(),
            },
            sections: Classes {
                free: sf,
                dirty: sd,
                valid: sv,
                prefree: sp,
                total: g.sections as u64,
            },
            fragmentation: s.fragmentation,
            fragmentation_sections: crate::host::fs::stats::frag(sd, sf),
            gc: FsGcReport {
                foreground: c.gc[0],
                background_normal: c.gc[1],
                background_boosted: c.gc[2],
                read_bytes: c.gc_read_bytes,
                foreground_calls: c.fg_gc_calls,
                no_victim: c.gc_no_victim,
                background_wakes: c.bg_wakes,
                background_paused: c.bg_paused,
                phase: fs.gc_phase(),
                phase_time_ns: PhaseTime {
                    off: c.phase_ns[0],
                    no_gc: c.phase_ns[1],
                    normal: c.phase_ns[2],
                    boosted: c.phase_ns[3],
                },
                copy_offload_bytes: fs.p.gc_copy_offload.then_some(c.gc_copy_bytes),
                link_bytes_saved: fs.p.gc_copy_offload.then_some(c.gc_link_bytes_saved),
            },
            checkpoints: c.checkpoints.clone(),
            fragments_per_file: fs.fragments(),
            read_sizes: c.read_sizes.clone(),
            layout: FsLayoutReport {
                meta_namespace: meta_ns,
                main_namespace: main_ns,
                zoned: g.zoned,
                segs_per_sec: g.segs_per_sec,
                usable_segs_per_sec: g.usable_segs_per_sec,
                sections: g.sections,
                reserved_segments: g.reserved_segments,
                overprovision_percent: g.overprovision_pct,
                overprovision_segments: g.ovp_segments,
                user_capacity_bytes: g.user_blocks * BLOCK_BYTES,
            },
            ipu_blocks: c.ipu_blocks,
            ipu: fs.ipu_counters(),
            opu_blocks: c.opu_blocks,
            ssr_segments: c.ssr_segments,
            zone_resets: c.zone_resets,
            discard_bytes: c.discard_bytes,
            fsyncs: c.fsyncs,
            fdatasyncs: c.fdatasyncs,
            fsync_node_writes: c.fsync_node_writes,
            creates: c.creates,
            unlinks: c.unlinks,
            enospc: c.enospc,
            alloc_failures: c.alloc_failures,
            dirty_limit_writebacks: c.dirty_limit_writebacks,
            user_bytes_requested: c.user_bytes_requested,
            user_bytes_read: c.user_bytes_read,
            valid_bytes: fs.valid_bytes(),
        }
    }
}

/// One iteration's record.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Iteration {
    pub iteration: u64,
    pub end_ns: u64,
    /// Every write request of the iteration (`create`, `write`, `overwrite` steps): bytes over
    /// their summed latency.
    pub write_mib_s: f64,
    /// The `write` steps alone (a test file written and fsync'd, as the Zoned UFS §5.5 loop
    /// measures it): bytes over the summed latency of their writes and fsyncs; 0 without one.
    pub file_write_mib_s: f64,
    pub read_mib_s: f64,
    pub written_bytes: u64,
    pub read_bytes: u64,
    pub free_bytes: u64,
    pub fs_waf: f64,
    pub device_waf: f64,
    pub end_to_end_waf: f64,
    #[serde(flatten)]
    pub sample: crate::host::hostfs::Sample,
}

/// The `scenario` section of the report.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ScenarioReport {
    pub name: String,
    pub iterations: Vec<Iteration>,
    /// Why the loop ended: `max_iterations`, `free_space` or `enospc`.
    pub stopped_by: &'static str,
}
