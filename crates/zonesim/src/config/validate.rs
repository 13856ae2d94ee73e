//! The rules a device config must obey on its own, checked before anything simulates. The
//! rules that need the namespace plan (layout, GC spare superblocks) live in `device::plan`.

use super::DeviceConfig;
use crate::error::{Error, Result};

fn positive(key: &str, v: u64) -> Result<()> {
    if v == 0 {
        return Err(Error::config(key, "must be at least 1"));
    }
    Ok(())
}

/// A count in `1..=max`.
pub(super) fn count(key: &str, v: u32, max: u32) -> Result<()> {
    if v == 0 || v > max {
        return Err(Error::config(
            key,
            format!("must be in 1..={max} (got {v})"),
        ));
    }
    Ok(())
}

/// A positive number within `[min, max]` (keeps integer time arithmetic exact and finite).
pub(super) fn in_range(key: &str, v: f64, min: f64, max: f64) -> Result<()> {
    if !(v.is_finite() && v >= min && v <= max) {
        return Err(Error::config(
            key,
            format!("must be in [{min:?}, {max:?}] (got {v:?})"),
        ));
    }
    Ok(())
}

/// Physical 4 KiB slots are addressed with 31 bits (the page map stores 4-byte entries with a
/// flag bit): at most 2^31 - 1 slots, 8 TiB.
const MAX_SLOTS: u64 = (1 << 31) - 1;

/// The longest time key, in µs (10 s, as the NAND timings): keeps simulated time far from
/// the 64-bit ns limit whatever the run.
const MAX_US: f64 = 1e7;

/// Most candidates d-choice samples per victim (each victim costs `d` draws).
const MAX_GC_D: u32 = 1024;

/// Most bytes the Bloom filters of the `bloom` placement may take (1 GiB).
const MAX_BLOOM_BYTES: f64 = (1u64 << 30) as f64;

/// Largest windowed-greedy window; no device has more superblocks (2^20 blocks per plane).
const MAX_GC_WINDOW: u32 = 1 << 20;

impl DeviceConfig {
    pub fn validate(&self) -> Result<()> {
        self.validate_firmware()?;
        if let Some(fs) = &self.fs {
            fs.validate()?;
        }
        let n = &self.nand;
        count("nand.channels", n.channels, 1024)?;
        count("nand.chips_per_channel", n.chips_per_channel, 256)?;
        count("nand.dies_per_chip", n.dies_per_chip, 64)?;
        count("nand.planes_per_die", n.planes_per_die, 16)?;
        count("nand.blocks_per_plane", n.blocks_per_plane, 1 << 20)?;
        count("nand.pages_per_block", n.pages_per_block, 1 << 16)?;
        if n.page_bytes == 0 || !n.page_bytes.is_multiple_of(4096) || n.page_bytes > 1 << 20 {
            return Err(Error::config(
                "nand.page_bytes",
                format!(
                    "must be a positive multiple of 4096 up to 1 MiB (got {})",
                    n.page_bytes
                ),
            ));
        }
        // In u128: the product of the factors' maxima (2^86) cannot overflow it.
        let slots128 = [
            n.channels,
            n.chips_per_channel,
            n.dies_per_chip,
            n.planes_per_die,
            n.blocks_per_plane,
            n.pages_per_block,
            n.page_bytes / 4096,
        ]
        .iter()
        .fold(1u128, |p, &f| p * f as u128);
        if slots128 > MAX_SLOTS as u128 {
            let slots = slots128;
            return Err(Error::config(
                "nand.blocks_per_plane",
                format!(
                    "impossible geometry: {slots} physical 4 KiB slots exceed the {MAX_SLOTS} (8 TiB) the page map addresses; use fewer channels, chips, dies, planes, blocks or pages"
                ),
            ));
        }
        let slots = slots128 as u64;
        let pu = n.cell.program_unit_pages();
        if !n.pages_per_block.is_multiple_of(pu) {
            return Err(Error::config(
                "nand.pages_per_block",
                format!(
                    "must be a multiple of the {} program unit ({pu} pages), got {}",
                    n.cell.name(),
                    n.pages_per_block
                ),
            ));
        }
        for (cell, t) in [
            ("slc", n.timing.slc),
            ("mlc", n.timing.mlc),
            ("tlc", n.timing.tlc),
            ("qlc", n.timing.qlc),
        ] {
            in_range(
                &format!("nand.timing.{cell}.read_us"),
                t.read_us,
                0.001,
                1e7,
            )?;
            in_range(
                &format!("nand.timing.{cell}.program_us"),
                t.program_us,
                0.001,
                1e7,
            )?;
            in_range(
                &format!("nand.timing.{cell}.erase_us"),
                t.erase_us,
                0.001,
                1e7,
            )?;
        }
        in_range("nand.channel_mb_s", n.channel_mb_s, 0.01, 1e7)?;
        in_range("host.link_mb_s", self.host.link_mb_s, 0.01, 1e7)?;
        let op = self.ftl.overprovisioning;
        if !(op.is_finite() && op > 0.0 && op <= 4.0) {
            return Err(Error::config(
                "ftl.overprovisioning",
                format!("must be in (0, 4] (got {op})"),
            ));
        }
        let e = self.ftl.map_entry_bytes;
        if e == 0 || !n.page_bytes.is_multiple_of(e) {
            return Err(Error::config(
                "ftl.map_entry_bytes",
                "must divide nand.page_bytes (map pages hold whole entries)",
            ));
        }
        if self.ftl.l2p_cache_bytes < n.page_bytes as u64 || self.ftl.l2p_cache_bytes > 1 << 36 {
            return Err(Error::config(
                "ftl.l2p_cache_bytes",
                format!(
                    "must hold at least one map page ({} bytes) and at most 64 GiB, got {}",
                    n.page_bytes, self.ftl.l2p_cache_bytes
                ),
            ));
        }
        let g = &self.ftl.gc;
        positive(
            "ftl.gc.threshold_free_superblocks",
            g.threshold_free_superblocks.into(),
        )?;
        if g.background && g.background_threshold_free_superblocks < g.threshold_free_superblocks {
            return Err(Error::config(
                "ftl.gc.background_threshold_free_superblocks",
                "must be at least ftl.gc.threshold_free_superblocks",
            ));
        }
        in_range("ftl.gc.idle_us", g.idle_us, 0.001, 1e9)?;
        count("ftl.gc.d", g.d, MAX_GC_D)?;
        count("ftl.gc.window", g.window, MAX_GC_WINDOW)?;
        self.validate_placement(slots)?;
        // One die unit: the program unit of every plane of one die (`nand::Geometry`).
        let unit = pu as u64 * n.planes_per_die as u64 * n.page_bytes as u64;
        if self.buffer.bytes < unit || self.buffer.bytes > slots * 4096 {
            return Err(Error::config(
                "buffer.bytes",
                format!(
                    "must hold at least one die program unit ({unit} bytes = {pu} pages x {} planes x {} bytes) and at most the flash capacity ({} bytes), got {}",
                    n.planes_per_die,
                    n.page_bytes,
                    slots * 4096,
                    self.buffer.bytes
                ),
            ));
        }
        in_range("host.overhead_us", self.host.overhead_us, 0.0, MAX_US)?;
        let iv = self.stats.interval_ms;
        if iv != 0.0 {
            in_range("stats.interval_ms", iv, 0.001, 1e6)?;
        }
        self.validate_zoned()
    }

    /// Rules of the zoned device keys (issue 3): zone buffers, SLC secondary buffer, namespace
    /// layout keys that need no plan. The layout itself (`device::plan`, run by
    /// `device::validate`) names the key it cannot satisfy.
    fn validate_zoned(&self) -> Result<()> {
        use super::{NamespaceKind, SlcGc, SlcPolicy};
        let b = &self.buffer;
        positive("buffer.count", b.count.into())?;
        let zoned = self
            .namespaces
            .iter()
            .any(|n| n.kind == NamespaceKind::Zoned);
        let n = &self.nand;
        let pu = n.cell.program_unit_pages();
        let unit = if self.zone.sub_block {
            (pu * n.page_bytes) as u64
        } else {
            pu as u64 * n.planes_per_die as u64 * n.page_bytes as u64
        };
        if !b.bytes_each.is_multiple_of(4096) || (zoned && b.bytes_each < unit) {
            return Err(Error::config(
                "buffer.bytes_each",
                format!(
                    "{}: must be a multiple of 4096 holding at least one regular program unit ({unit} bytes)",
                    b.bytes_each
                ),
            ));
        }
        if self.slc.policy == SlcPolicy::All && self.slc.gc != SlcGc::Migrate {
            return Err(Error::config(
                "slc.gc",
                "must be migrate when slc.policy = all (data must leave SLC eventually)",
            ));
        }
        if self.slc.conventional_buffer && self.slc.gc != SlcGc::Migrate {
            return Err(Error::config(
                "slc.gc",
                "must be migrate when slc.conventional_buffer = true (a page-mapped namespace's SLC data leaves SLC only by migration)",
            ));
        }
        if self.slc.conventional_buffer && self.ftl.mapping == super::MappingKind::TwoLevel {
            return Err(Error::config(
                "slc.conventional_buffer",
                "conflicts with ftl.mapping = two_level (the SLC write cache is modelled with the page map only)",
            ));
        }
        if self.slc.writeback != super::SlcWriteback::Full && !self.slc.conventional_buffer {
            return Err(Error::config(
                "slc.writeback",
                "idle and threshold write-back are modelled for the conventional SLC cache only: needs slc.conventional_buffer = true",
            ));
        }
        in_range(
            "slc.writeback_idle_us",
            self.slc.writeback_idle_us,
            0.001,
            1e9,
        )?;
        in_range(
            "slc.writeback_threshold",
            self.slc.writeback_threshold,
            0.0,
            1.0,
        )?;
        if self.slc.gc_threshold_free_superblocks < 2 {
            return Err(Error::config(
                "slc.gc_threshold_free_superblocks",
                "must be at least 2 (one open SLC superblock for host data, one for GC)",
            ));
        }
        if self.ftl.l2p_cache_bytes < self.ftl.map_entry_bytes as u64 {
            return Err(Error::config(
                "ftl.l2p_cache_bytes",
                "must hold at least one map entry",
            ));
        }
        if self.namespaces.len() > 255 {
            return Err(Error::config("namespaces", "at most 255 namespaces"));
        }
        self.validate_zufs(zoned, unit)
    }

    /// Rules of the ZUFS / ZMS keys (issue 12): ZABM slot buffers, the zone and two-level
    /// maps, host write ordering; a mix the model cannot simulate names both keys.
    fn validate_zufs(&self, zoned: bool, unit: u64) -> Result<()> {
        use super::{BufferKind, MappingKind};
        let b = &self.buffer;
        if b.kind == BufferKind::Zabm {
            let slots = b.sram_bytes / 4096;
            if !b.sram_bytes.is_multiple_of(4096) || b.sram_bytes < unit {
                return Err(Error::config(
                    "buffer.sram_bytes",
                    format!(
                        "{}: must be a multiple of 4096 holding at least one regular program unit ({unit} bytes)",
                        b.sram_bytes
                    ),
                ));
            }
            let reserve = b.min_slots_per_zone as u64 * self.zone.max_open.max(1) as u64;
            if reserve > slots {
                return Err(Error::config(
                    "buffer.min_slots_per_zone",
                    format!(
                        "{} slots x zone.max_open {} = {reserve} exceeds the {slots} slots of buffer.sram_bytes",
                        b.min_slots_per_zone, self.zone.max_open
                    ),
                ));
            }
            if self.zone.sub_block {
                return Err(Error::config(
                    "buffer.kind",
                    "zabm flushes die units of superblock zones; it conflicts with zone.sub_block = true",
                ));
            }
        }
        let f = &self.ftl;
        let conventional = self.namespaces.is_empty()
            || self
                .namespaces
                .iter()
                .any(|n| n.kind == super::NamespaceKind::Conventional);
        match f.mapping {
            MappingKind::TwoLevel if zoned => {
                let i = self
                    .namespaces
                    .iter()
                    .position(|n| n.kind == super::NamespaceKind::Zoned)
                    .unwrap_or(0);
                return Err(Error::config(
                    "ftl.mapping",
                    format!("two_level maps conventional namespaces; it conflicts with namespaces[{i}].kind = zoned, which needs page, hybrid or zone"),
                ));
            }
            MappingKind::TwoLevel if !conventional => {
                return Err(Error::config(
                    "ftl.mapping",
                    "two_level needs a conventional namespace (namespaces[].kind = conventional)",
                ));
            }
            MappingKind::Zone if f.l2p_search != super::L2pSearch::Multiple => {
                return Err(Error::config(
                    "ftl.l2p_search",
                    "bitmap searches the hybrid map; it conflicts with ftl.mapping = zone (the ZMT is never missed)",
                ));
            }
            _ => {}
        }
        if f.compressed_l1 && f.mapping != MappingKind::TwoLevel {
            return Err(Error::config(
                "ftl.compressed_l1",
                format!(
                    "compresses the L1 of ftl.mapping = two_level (ftl.mapping is {})",
                    f.mapping.name()
                ),
            ));
        }
        let r = f.compressed_region_bytes;
        if r < 1 << 20 || !r.is_power_of_two() || r > 1 << 34 {
            return Err(Error::config(
                "ftl.compressed_region_bytes",
                format!("{r}: must be a power of two from 1 MiB to 16 GiB"),
            ));
        }
        if f.zml_entries == 0 || f.zml_entries > 1 << 20 {
            return Err(Error::config(
                "ftl.zml_entries",
                format!("must be in 1..=1048576 (got {})", f.zml_entries),
            ));
        }
        self.validate_ipu(zoned)?;
        let h = &self.host;
        in_range("host.requeue_probability", h.requeue_probability, 0.0, 0.99)?;
        in_range("host.requeue_delay_us", h.requeue_delay_us, 0.0, MAX_US)?;
        in_range("host.iotailor_hold_us", h.iotailor_hold_us, 0.0, MAX_US)?;
        if h.iotailor && !zoned {
            return Err(Error::config(
                "host.iotailor",
                "reshapes writes to zones; the device has no zoned namespace",
            ));
        }
        if h.device_tags > 1 << 16 {
            return Err(Error::config(
                "host.device_tags",
                format!("{}: must be at most 65536 (0 = no limit)", h.device_tags),
            ));
        }
        Ok(())
    }

    /// Rules of the budget-based in-place update (`zone.ipu_budget_bytes`, ZMS).
    fn validate_ipu(&self, zoned: bool) -> Result<()> {
        let ipu = self.zone.ipu_budget_bytes;
        if ipu == 0 {
            return Ok(());
        }
        if !ipu.is_multiple_of(4096) || ipu > 1 << 40 {
            return Err(Error::config(
                "zone.ipu_budget_bytes",
                format!("{ipu}: must be a multiple of 4096, at most 1 TiB"),
            ));
        }
        if !zoned {
            return Err(Error::config(
                "zone.ipu_budget_bytes",
                "budgets in-place updates of zoned namespaces; the device has none",
            ));
        }
        if self.slc.granularity == super::SlcGranularity::Zone {
            return Err(Error::config(
                "zone.ipu_budget_bytes",
                "in-place updates share the page-level SLC frontier; they conflict with slc.granularity = zone",
            ));
        }
        Ok(())
    }
}

impl DeviceConfig {
    /// Rules of the placement, preemption and firmware-cost keys (issue 4), on an array of
    /// `slots` physical 4 KiB slots.
    fn validate_placement(&self, slots: u64) -> Result<()> {
        use super::MAX_STREAMS;
        let g = &self.ftl.gc;
        if !(2..=MAX_STREAMS as u32).contains(&g.streams) {
            return Err(Error::config(
                "ftl.gc.streams",
                format!("must be in 2..={MAX_STREAMS} (got {})", g.streams),
            ));
        }
        in_range("ftl.gc.suspend_us", g.suspend_us, 0.0, MAX_US)?;
        let b = &g.bloom;
        if g.placement == super::PlacementPolicy::Bloom && b.fp_rate > 0.0 && b.fp_rate < 1.0 {
            // The filters' size: n pages at false-positive rate p take -n ln p / ln² 2 bits.
            // The logical pages of the device (as `nand::Geometry::logical_pages`).
            let logical = (slots as f64 / (1.0 + self.ftl.overprovisioning)).floor() as u64;
            let window = if b.window_pages == 0 {
                (logical / 8).max(1)
            } else {
                b.window_pages
            };
            let ln2 = std::f64::consts::LN_2;
            let bytes = window as f64 * -b.fp_rate.ln() / (ln2 * ln2) / 8.0 * b.filters as f64;
            if bytes > MAX_BLOOM_BYTES {
                return Err(Error::config(
                    "ftl.gc.bloom.window_pages",
                    format!(
                        "{} filters of {window} pages at fp_rate {} would take {:.0} MiB; at most {} MiB (lower window_pages or raise fp_rate)",
                        b.filters,
                        b.fp_rate,
                        bytes / 1048576.0,
                        MAX_BLOOM_BYTES / 1048576.0
                    ),
                ));
            }
        }
        if !(1..=16).contains(&b.filters) {
            return Err(Error::config(
                "ftl.gc.bloom.filters",
                format!("must be in 1..=16 (got {})", b.filters),
            ));
        }
        if !(b.fp_rate > 0.0 && b.fp_rate < 1.0) {
            return Err(Error::config(
                "ftl.gc.bloom.fp_rate",
                format!("must be in (0, 1) (got {})", b.fp_rate),
            ));
        }
        if b.hot_threshold == 0 || b.hot_threshold > b.filters {
            return Err(Error::config(
                "ftl.gc.bloom.hot_threshold",
                format!(
                    "must be in 1..=ftl.gc.bloom.filters ({}) (got {})",
                    b.filters, b.hot_threshold
                ),
            ));
        }
        let f = g.gcar.cache_fraction;
        if !(f > 0.0 && f <= 1.0) {
            return Err(Error::config(
                "ftl.gc.gcar.cache_fraction",
                format!("must be in (0, 1] (got {f})"),
            ));
        }
        for (key, v) in self.ftl.cost.keys() {
            if !(v.is_finite() && (0.0..=MAX_US * 1e3).contains(&v)) {
                return Err(Error::config(
                    format!("ftl.cost.{key}"),
                    format!("must be a number of ns in [0.0, 1e10] (got {v:?})"),
                ));
            }
        }
        Ok(())
    }
}
