//! What a zoned namespace reports (docs/zoned.md): its entry of `device.namespaces` — the
//! zone geometry and limits, zones by condition, the free regular-flash units and SLC
//! superblocks, its own counters and those of its optional rooms (the ZUFS zone map §4.1,
//! ZABM §4.2, ZMS in-place updates) — and its counters and time-series state in the
//! contract's vocabulary ([`NsCounters`], [`NsSample`]), which the device adds up.

use super::{IpuCounters, ZonedCounters, ZonedFtl};
use crate::firmware::buffer::{BufferCounters, ZabmCounters};
use crate::firmware::counters::{EntryCounters, ZoneCounters};
use crate::firmware::mapping::ZoneMapCounters;
use crate::firmware::{NamespaceReport, NsCounters, NsReport, NsSample, ZonedView};
use crate::interface::zone::ZoneId;
use crate::nand::SLOT_BYTES;
use serde::Serialize;
use std::collections::BTreeMap;

/// A zoned namespace (`device.namespaces[i]`, kind `zoned`).
#[derive(Debug, Clone, Serialize)]
pub struct ZonedNsReport {
    pub id: usize,
    pub capacity_bytes: u64,
    pub zone_size_bytes: u64,
    pub zone_capacity_bytes: u64,
    pub zones: u32,
    pub max_open: u32,
    pub max_active: u32,
    /// Zones by condition name; conditions no zone is in are absent.
    pub zone_conditions: BTreeMap<&'static str, u64>,
    pub regular_free_units: u32,
    pub regular_units: u32,
    pub slc_free_superblocks: u32,
    pub counters: ZonedCounters,
    /// SRAM of the zone mapping table (`ftl.mapping = zone`, ZUFS §4.1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub zmt_bytes: Option<u64>,
    /// The ZMT + ZML counters (`ftl.mapping = zone`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub zone_map: Option<ZoneMapCounters>,
    /// The ZABM slot buffer (`buffer.kind = zabm`, ZUFS §4.2).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub zabm: Option<ZabmCounters>,
    /// Budget-based in-place update (`zone.ipu_budget_bytes > 0`, ZMS; docs/zoned.md).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ipu: Option<IpuCounters>,
}

impl ZonedFtl {
    /// The contract's view of its zones ([`crate::firmware::Ftl::zones`]).
    pub(super) fn view(&self) -> ZonedView<'_> {
        ZonedView {
            zones: &self.zones,
            errors: &self.errors,
            superpage_bytes: self.superpage as u64 * SLOT_BYTES,
            in_place_updates: self.ipu.is_some(),
        }
    }

    /// Its counters in the contract's vocabulary.
    pub(super) fn ns_counters(&self) -> NsCounters {
        let c = &self.counters;
        NsCounters {
            host_write_pages: c.host_write_pages,
            host_read_pages: c.host_read_pages,
            unwritten_reads: c.unwritten_reads,
            buffer: BufferCounters {
                full_flushes: c.full_flushes,
                premature_flushes: c.premature_flushes,
                host_flushes: c.host_flushes,
                host_forced_flushes: c.host_forced_flushes,
                write_hits: 0,
                read_hits: c.buffer_read_hits,
                stall_ns: c.stall_ns,
            },
            padding_slots: c.padding_slots,
            map_reads: c.map.map_reads,
            map_programs: c.map.map_programs,
            copy_commands: c.copy_commands,
            copy_pages: c.copy_pages,
            gc: None,
            slc: Some(c.slc.clone()),
            writeback: None,
            zones: Some(ZoneCounters {
                resets: c.zone_resets,
                finishes: c.zone_finishes,
                ignored_trims: c.ignored_trims,
                combined_pages: c.combined_pages,
            }),
            entries: Some(EntryCounters {
                hits: c.map.l2p_hits,
                misses: c.map.l2p_misses,
                lookups_zone: c.map.lookups_zone,
                lookups_chunk: c.map.lookups_chunk,
                lookups_page: c.map.lookups_page,
                bitmap_sram_bytes: self.map.bitmap_sram_bytes(self.zones.namespace_lbas()),
            }),
            two_level: None,
            wear: self.wear_counters(),
        }
    }

    /// Its entry of `device.namespaces`.
    pub(super) fn ns_report(&self, id: usize) -> NsReport<'_> {
        let zc = self.zone_config();
        let mut zone_conditions = BTreeMap::new();
        for zone in 0..zc.zones {
            *zone_conditions
                .entry(self.zones.condition(ZoneId(zone)).as_str())
                .or_insert(0) += 1;
        }
        let entry = ZonedNsReport {
            id,
            capacity_bytes: zc.zones as u64 * zc.zone_capacity * SLOT_BYTES,
            zone_size_bytes: zc.zone_size * SLOT_BYTES,
            zone_capacity_bytes: zc.zone_capacity * SLOT_BYTES,
            zones: zc.zones,
            max_open: zc.max_open,
            max_active: zc.max_active,
            zone_conditions,
            regular_free_units: self.space.free_units(),
            regular_units: self.space.total_units(),
            slc_free_superblocks: self.slc.free_superblocks(),
            counters: self.counters.clone(),
            zmt_bytes: self.zmap.as_ref().map(|m| m.zmt_bytes()),
            zone_map: self.zmap.as_ref().map(|m| m.counters.clone()),
            zabm: self.bufs.zabm().cloned(),
            ipu: self.ipu.as_ref().map(|i| i.counters.clone()),
        };
        NsReport {
            entry: NamespaceReport::Zoned(entry),
            gc: None,
        }
    }

    /// Its state for the time series: SLC GC is its garbage collector.
    pub(super) fn ns_sample(&self) -> NsSample {
        let buffered = (0..self.bufs.len() as u32).map(|b| self.bufs.count(b) as u64);
        NsSample {
            free_superblocks: 0,
            gc_pages_moved: self.counters.slc.slc_gc_pages_moved,
            slc_valid_pages: self.slc.valid_total(),
            slc_free_superblocks: self.slc.free_superblocks().into(),
            buffer_pages: buffered.sum(),
        }
    }
}
