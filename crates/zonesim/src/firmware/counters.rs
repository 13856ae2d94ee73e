//! The counters of one namespace in the contract's vocabulary: [`NsCounters`] names every
//! counter each namespace kind keeps once (the names of the device report, docs/report.md),
//! with an optional part for each mechanism only some kinds have — superblock GC, an SLC
//! buffer and its write-back, zones, the zone/chunk/page entry cache, the two-level map. Each
//! FTL fills one from its own counters ([`super::Ftl::counters`]); the device adds them up
//! with `+=` for the `device` section of the report without knowing which kind each came
//! from. [`NsSample`] is the same for the state the time series samples.
//!
//! Filling them is cold (a report, a sample interval); the FTLs keep counting into their own
//! structs on the hot path.

use super::alloc::SlcCounters;
use super::buffer::BufferCounters;
use super::conventional::WritebackCounters;
use super::mapping::TwoLevelCounters;
use super::wear::WearCounters;
use std::ops::AddAssign;

/// Everything one namespace counted since the last reset, one name per counter.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NsCounters {
    /// 4 KiB pages the host wrote and read.
    pub host_write_pages: u64,
    pub host_read_pages: u64,
    /// Reads of never-written (or trimmed, or reset) pages, answered without flash access.
    pub unwritten_reads: u64,
    /// The write buffer: flushes by trigger, hits, stalls (`device.buffer`).
    pub buffer: BufferCounters,
    /// Slots programmed as padding of partial program units.
    pub padding_slots: u64,
    /// Flash reads of map pages or entries (L2P misses) and programs of map pages evicted
    /// dirty (`device.l2p.map_reads`, `map_programs`).
    pub map_reads: u64,
    pub map_programs: u64,
    /// Device-side copy commands (`Op::Copy`) and the pages they copied.
    pub copy_commands: u64,
    pub copy_pages: u64,
    /// Superblock garbage collection (`device.gc`).
    pub gc: Option<GcCounters>,
    /// The SLC buffer: a zoned namespace's secondary buffer, a conventional one's SLC write
    /// cache (`device.slc`).
    pub slc: Option<SlcCounters>,
    /// The SLC write-back to regular flash (`slc.writeback`).
    pub writeback: Option<WritebackCounters>,
    /// Zone management and the zone data path (`device.zones`).
    pub zones: Option<ZoneCounters>,
    /// The zone / chunk / page entries in the L2P SRAM (`device.l2p.zoned`).
    pub entries: Option<EntryCounters>,
    /// The two-level map (`device.l2p.two_level`).
    pub two_level: Option<TwoLevelCounters>,
    /// Bad blocks, reclaim and wear levelling (firmware/wear), when on.
    pub wear: Option<WearCounters>,
}

/// Superblock GC of a page-mapped namespace, and the controller CPU its placement policy uses.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GcCounters {
    pub pages_moved: u64,
    pub victims: u64,
    pub foreground_victims: u64,
    pub background_victims: u64,
    /// Controller CPU time of the placement policy, and time work waited for it (ns).
    pub cpu_busy_ns: u64,
    pub cpu_wait_ns: u64,
}

/// Zone management and what only a zoned data path does.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ZoneCounters {
    pub resets: u64,
    pub finishes: u64,
    /// Trims, which a zoned namespace ignores.
    pub ignored_trims: u64,
    /// SLC pages read back and programmed to regular flash with new data (ConZone+ Fig. 4 ③).
    pub combined_pages: u64,
}

/// The zone / chunk / page entries of a zoned namespace's map in the shared L2P SRAM.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EntryCounters {
    pub hits: u64,
    pub misses: u64,
    /// Lookups by the level that maps the page.
    pub lookups_zone: u64,
    pub lookups_chunk: u64,
    pub lookups_page: u64,
    /// SRAM of the granularity bitmap (`ftl.l2p_search = bitmap`), bytes.
    pub bitmap_sram_bytes: u64,
}

/// The state of one namespace the time series samples (`timeseries`, docs/report.md).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NsSample {
    /// Free superblocks of its regular flash (page-mapped namespaces).
    pub free_superblocks: u64,
    /// Pages its garbage collector moved so far.
    pub gc_pages_moved: u64,
    /// Valid pages held in SLC, and free SLC superblocks.
    pub slc_valid_pages: u64,
    pub slc_free_superblocks: u64,
    /// Pages in its write buffer.
    pub buffer_pages: u64,
}

/// `AddAssign<&T>` for a struct of `u64` counters. The destructuring pattern names every
/// field, so a counter added to the struct and not here is a compile error.
macro_rules! add_counters {
    ($t:ident { $($f:ident),* $(,)? }) => {
        impl AddAssign<&$t> for $t {
            fn add_assign(&mut self, o: &$t) {
                let $t { $($f),* } = o;
                $(self.$f += *$f;)*
            }
        }
    };
}

add_counters!(BufferCounters {
    full_flushes,
    premature_flushes,
    host_flushes,
    host_forced_flushes,
    write_hits,
    read_hits,
    stall_ns,
});
add_counters!(GcCounters {
    pages_moved,
    victims,
    foreground_victims,
    background_victims,
    cpu_busy_ns,
    cpu_wait_ns,
});
add_counters!(SlcCounters {
    flushes_to_slc,
    slc_buffered_pages,
    slc_gc_pages_moved,
    slc_gc_victims,
    slc_direct_erases,
    gc_migrated_pages,
});
add_counters!(WritebackCounters {
    writeback_pages,
    writeback_victims,
    writeback_runs,
    writeback_idle_ns,
});
add_counters!(ZoneCounters {
    resets,
    finishes,
    ignored_trims,
    combined_pages,
});
add_counters!(EntryCounters {
    hits,
    misses,
    lookups_zone,
    lookups_chunk,
    lookups_page,
    bitmap_sram_bytes,
});
add_counters!(TwoLevelCounters {
    l1_hits,
    l1_misses,
    l2_hits,
    l2_misses,
    compressed_hits,
    compressed_regions,
});
add_counters!(NsSample {
    free_superblocks,
    gc_pages_moved,
    slc_valid_pages,
    slc_free_superblocks,
    buffer_pages,
});

/// Add an optional part: present in the sum when present in either.
fn add_part<T>(sum: &mut Option<T>, part: &Option<T>)
where
    T: Default + for<'a> AddAssign<&'a T>,
{
    if let Some(p) = part {
        *sum.get_or_insert_with(T::default) += p;
    }
}

impl AddAssign<&NsCounters> for NsCounters {
    fn add_assign(&mut self, o: &NsCounters) {
        let NsCounters {
            host_write_pages,
            host_read_pages,
            unwritten_reads,
            buffer,
            padding_slots,
            map_reads,
            map_programs,
            copy_commands,
            copy_pages,
            gc,
            slc,
            writeback,
            zones,
            entries,
            two_level,
            wear,
        } = o;
        self.host_write_pages += host_write_pages;
        self.host_read_pages += host_read_pages;
        self.unwritten_reads += unwritten_reads;
        self.buffer += buffer;
        self.padding_slots += padding_slots;
        self.map_reads += map_reads;
        self.map_programs += map_programs;
        self.copy_commands += copy_commands;
        self.copy_pages += copy_pages;
        add_part(&mut self.gc, gc);
        add_part(&mut self.slc, slc);
        add_part(&mut self.writeback, writeback);
        add_part(&mut self.zones, zones);
        add_part(&mut self.entries, entries);
        add_part(&mut self.two_level, two_level);
        add_part(&mut self.wear, wear);
    }
}

impl NsCounters {
    /// SLC pages moved to regular flash: combined with new data, or migrated by SLC GC
    /// (`device.buffer.migrated_pages`, `device.slc.pages_migrated`).
    pub fn slc_pages_migrated(&self) -> u64 {
        self.zones.as_ref().map_or(0, |z| z.combined_pages)
            + self.slc.as_ref().map_or(0, |s| s.gc_migrated_pages)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_add_up_and_appear_when_either_side_has_them() {
        let mut a = NsCounters {
            host_write_pages: 3,
            gc: Some(GcCounters {
                victims: 2,
                ..Default::default()
            }),
            ..Default::default()
        };
        let b = NsCounters {
            host_write_pages: 4,
            zones: Some(ZoneCounters {
                resets: 1,
                combined_pages: 5,
                ..Default::default()
            }),
            slc: Some(SlcCounters {
                gc_migrated_pages: 6,
                ..Default::default()
            }),
            ..Default::default()
        };
        a += &b;
        a += &b;
        assert_eq!(a.host_write_pages, 11);
        assert_eq!(a.gc.as_ref().map(|g| g.victims), Some(2));
        assert_eq!(a.zones.as_ref().map(|z| z.resets), Some(2));
        assert_eq!(a.slc_pages_migrated(), 22);
        assert_eq!(a.two_level, None);
    }
}
