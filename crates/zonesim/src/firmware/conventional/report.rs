//! What a conventional namespace reports (docs/report.md): its entry of `device.namespaces`
//! (capacity, whether it lives in SLC, free superblocks, its SLC write cache), the details of
//! its superblock GC that `device.gc` summarises (victim statistics, placement; SUP-GC
//! §5), and its counters and time-series state in the contract's vocabulary
//! ([`NsCounters`], [`NsSample`]), which the device adds up.

use super::{PageFtl, SlcCache, WritebackCounters};
use crate::config::{SlcPolicy, SlcWriteback};
use crate::firmware::alloc::SlcCounters;
use crate::firmware::counters::GcCounters;
use crate::firmware::report::GcDetail;
use crate::firmware::{NamespaceReport, NsCounters, NsReport, NsSample};
use crate::nand::SLOT_BYTES;
use serde::Serialize;

/// A conventional namespace (`device.namespaces[i]`, kind `conventional`).
#[derive(Debug, Clone, Serialize)]
pub struct ConventionalNsReport {
    pub id: usize,
    pub capacity_bytes: u64,
    pub slc_only: bool,
    pub free_superblocks: u32,
    /// Its SLC write cache (`slc.conventional_buffer`; absent without).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub slc: Option<ConventionalSlcReport>,
}

/// `device.namespaces[i].slc` of a conventional namespace with an SLC write cache: the same
/// counter names as a zoned namespace's (docs/config.md `[slc]`).
#[derive(Debug, Clone, Serialize)]
pub struct ConventionalSlcReport {
    /// `bypass` or `all` (`slc.policy`).
    pub policy: &'static str,
    pub superblocks: u32,
    pub free_superblocks: u32,
    /// Pages held in SLC at the end.
    pub valid_pages: u64,
    #[serde(flatten)]
    pub counters: SlcCounters,
    /// `slc.writeback` when it is not `full`: `idle` or `threshold`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub writeback: Option<&'static str>,
    /// What the write-back did (`writeback_pages`, `_victims`, `_runs`, `_idle_ns`).
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub writeback_counters: Option<WritebackCounters>,
}

impl PageFtl {
    /// Its counters in the contract's vocabulary.
    pub(super) fn ns_counters(&self) -> NsCounters {
        let c = &self.counters;
        NsCounters {
            host_write_pages: c.host_write_pages,
            host_read_pages: c.host_read_pages,
            unwritten_reads: c.unwritten_reads,
            buffer: self.buffer.counters.clone(),
            padding_slots: c.padding_slots,
            map_reads: c.map_reads,
            map_programs: c.map_programs,
            copy_commands: c.copy_commands,
            copy_pages: c.copy_pages,
            gc: Some(GcCounters {
                pages_moved: c.gc_pages_moved,
                victims: c.gc_victims,
                foreground_victims: c.gc_foreground_victims,
                background_victims: c.gc_background_victims,
                cpu_busy_ns: self.cpu.busy_ns,
                cpu_wait_ns: self.cpu.wait_ns,
            }),
            slc: self.slc.as_ref().map(|s| s.counters.clone()),
            writeback: self.slc.as_ref().map(|s| s.wb.counters.clone()),
            zones: None,
            entries: None,
            two_level: self.two_level.as_ref().map(|t| t.counters.clone()),
            wear: self.wear.as_ref().map(|w| w.counters()),
        }
    }

    /// Its entry of `device.namespaces` and its GC's details.
    pub(super) fn ns_report(&self, id: usize) -> NsReport<'_> {
        let entry = ConventionalNsReport {
            id,
            capacity_bytes: self.logical_pages() * SLOT_BYTES,
            slc_only: self.slc_only,
            free_superblocks: self.free_superblocks(),
            slc: self.slc.as_deref().map(slc_report),
        };
        NsReport {
            entry: NamespaceReport::Conventional(entry),
            gc: Some(GcDetail {
                stats: &self.gc_stats,
                streams: self.streams(),
                placement: &self.placement,
                cpu: &self.cpu,
            }),
        }
    }

    /// Its state for the time series: superblock GC is its garbage collector.
    pub(super) fn ns_sample(&self) -> NsSample {
        NsSample {
            free_superblocks: self.free_superblocks().into(),
            gc_pages_moved: self.counters.gc_pages_moved,
            slc_valid_pages: self.slc_valid_pages(),
            slc_free_superblocks: self.slc.as_ref().map_or(0, |c| c.free_superblocks().into()),
            buffer_pages: self.buffer.buffered().into(),
        }
    }
}

/// Its SLC write cache (`device.namespaces[i].slc`).
fn slc_report(c: &SlcCache) -> ConventionalSlcReport {
    ConventionalSlcReport {
        policy: match c.policy() {
            SlcPolicy::Bypass => "bypass",
            SlcPolicy::All => "all",
        },
        superblocks: c.superblocks(),
        free_superblocks: c.free_superblocks(),
        valid_pages: c.valid_pages(),
        counters: c.counters.clone(),
        writeback: match c.wb.mode {
            SlcWriteback::Full => None,
            SlcWriteback::Idle => Some("idle"),
            SlcWriteback::Threshold => Some("threshold"),
        },
        writeback_counters: (c.wb.mode != SlcWriteback::Full).then(|| c.wb.counters.clone()),
    }
}
