//! The rules that relate config keys to each other, checked before anything simulates, after
//! every key was checked against its own declared range ([`DeviceConfig::check_keys`]). The
//! rules that need the namespace plan (layout, GC spare superblocks) live in `device::plan`.

use super::DeviceConfig;
use crate::error::{Error, Result};

/// Physical 4 KiB slots are addressed with 31 bits (the page map stores 4-byte entries with a
/// flag bit): at most 2^31 - 1 slots, 8 TiB.
const MAX_SLOTS: u64 = (1 << 31) - 1;

/// Most bytes the Bloom filters of the `bloom` placement may take (1 GiB).
const MAX_BLOOM_BYTES: f64 = (1u64 << 30) as f64;

impl DeviceConfig {
    /// Check every rule of the config: each key's declared range, then the rules between keys.
    pub fn validate(&self) -> Result<()> {
        self.check_keys()?;
        self.validate_firmware()?;
        if self.power.hibern8_after_us < self.power.clock_gate_after_us {
            return Err(Error::config(
                "power.hibern8_after_us",
                format!(
                    "must be at least power.clock_gate_after_us ({} µs): the link enters hibern8 after the clocks are gated (got {} µs)",
                    self.power.clock_gate_after_us, self.power.hibern8_after_us
                ),
            ));
        }
        if !self.power.clock_gating.is_off() && self.host.requeue_probability > 0.0 {
            return Err(Error::config(
                "host.requeue_probability",
                format!(
                    "must be 0 with power.clock_gating = \"{}\": both model the requeues of UFS clock gating (the probability is the abstract stand-in for the mechanism), got {}",
                    self.power.clock_gating.name(),
                    self.host.requeue_probability
                ),
            ));
        }
        if let Some(fs) = &self.fs {
            fs.areas(&self.namespace_kinds(), 0)?;
            fs.kernel_knobs()?;
        }
        let n = &self.nand;
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
        if n.ecc.soft_bits < n.ecc.hard_bits {
            return Err(Error::config(
                "nand.ecc.soft_bits",
                format!(
                    "must be at least nand.ecc.hard_bits ({}), got {}",
                    n.ecc.hard_bits, n.ecc.soft_bits
                ),
            ));
        }
        let e = self.ftl.map_entry_bytes;
        if !n.page_bytes.is_multiple_of(e) {
            return Err(Error::config(
                "ftl.map_entry_bytes",
                "must divide nand.page_bytes (map pages hold whole entries)",
            ));
        }
        if self.ftl.l2p_cache_bytes < n.page_bytes as u64 {
            return Err(Error::config(
                "ftl.l2p_cache_bytes",
                format!(
                    "must hold at least one map page ({} bytes), got {}",
                    n.page_bytes, self.ftl.l2p_cache_bytes
                ),
            ));
        }
        let g = &self.ftl.gc;
        if g.background && g.background_threshold_free_superblocks < g.threshold_free_superblocks {
            return Err(Error::config(
                "ftl.gc.background_threshold_free_superblocks",
                "must be at least ftl.gc.threshold_free_superblocks",
            ));
        }
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
        self.validate_zoned()
    }

    /// Rules of the zoned device keys (docs/zoned.md): zone buffers, SLC secondary buffer, namespace
    /// layout keys that need no plan. The layout itself (`device::plan`, run by
    /// `device::validate`) names the key it cannot satisfy.
    fn validate_zoned(&self) -> Result<()> {
        use super::{NamespaceKind, SlcGc, SlcPolicy};
        let b = &self.buffer;
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
        if zoned && b.bytes_each < unit {
            return Err(Error::config(
                "buffer.bytes_each",
                format!(
                    "{}: must hold at least one regular program unit ({unit} bytes) on a device with a zoned namespace",
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
        if self.slc.conventional_buffer && self.buffer.issue_ahead_us > 0.0 {
            return Err(Error::config(
                "buffer.issue_ahead_us",
                "must be 0 when slc.conventional_buffer = true (the SLC write cache takes every flush of the buffer at once)",
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
        if self.ftl.l2p_cache_bytes < self.ftl.map_entry_bytes as u64 {
            return Err(Error::config(
                "ftl.l2p_cache_bytes",
                "must hold at least one map entry",
            ));
        }
        if self.namespaces.len() > 255 {
            return Err(Error::config("namespaces", "at most 255 namespaces"));
        }
        let count = self.namespaces.len().max(1);
        if self.main_namespace as usize >= count {
            return Err(Error::config(
                "main_namespace",
                format!(
                    "{} is not a namespace of the device (it has {count}: 0..={})",
                    self.main_namespace,
                    count - 1
                ),
            ));
        }
        self.validate_wear(zoned)?;
        self.validate_zufs(zoned, unit)
    }

    /// Bad blocks, reclaim and wear levelling (firmware/wear): a zoned namespace remaps whole
    /// zones of superblocks, so sub-block zones refuse them.
    fn validate_wear(&self, zoned: bool) -> Result<()> {
        let (n, f) = (&self.nand, &self.ftl);
        let on = [
            ("nand.endurance_pe", n.endurance_pe > 0),
            ("nand.factory_bad_fraction", n.factory_bad_fraction > 0.0),
            ("ftl.read_reclaim", f.read_reclaim),
            (
                "ftl.wear_leveling",
                f.wear_leveling != super::WearLeveling::Off,
            ),
        ];
        match on.iter().find(|(_, on)| *on) {
            Some((key, _)) if zoned && self.zone.sub_block => Err(Error::config(
                *key,
                "is modelled on zones of whole superblocks; it conflicts with zone.sub_block = true",
            )),
            _ => Ok(()),
        }
    }

    /// Rules of the ZUFS / ZMS keys (docs/zufs.md): ZABM slot buffers, the zone and two-level
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
        if f.mapping == MappingKind::TwoLevel {
            // A lookup holds an L1 segment and an L2 table, each one map unit of
            // `compressed_region_bytes / 4 KiB` entries, in the L2P SRAM at once.
            let unit = f.compressed_region_bytes / 4096 * f.map_entry_bytes as u64;
            if unit.saturating_mul(2) > f.l2p_cache_bytes {
                return Err(Error::config(
                    "ftl.compressed_region_bytes",
                    format!(
                        "{}: its L2 table ({unit} bytes: one {}-byte entry per 4 KiB) and an L1 segment of the same size must fit ftl.l2p_cache_bytes ({}) together; at most {} with this cache",
                        f.compressed_region_bytes,
                        f.map_entry_bytes,
                        f.l2p_cache_bytes,
                        max_region(f.l2p_cache_bytes, f.map_entry_bytes),
                    ),
                ));
            }
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
        self.validate_ipu(zoned)?;
        let h = &self.host;
        if h.iotailor && !zoned {
            return Err(Error::config(
                "host.iotailor",
                "reshapes writes to zones; the device has no zoned namespace",
            ));
        }
        if h.cpu.little_cores > h.cpu.cores {
            return Err(Error::config(
                "host.cpu.little_cores",
                format!(
                    "{} little cores among host.cpu.cores = {}: at most the cores there are",
                    h.cpu.little_cores, h.cpu.cores
                ),
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
    /// Rules of the placement, preemption and firmware-cost keys (docs/placement.md), on an array of
    /// `slots` physical 4 KiB slots.
    fn validate_placement(&self, slots: u64) -> Result<()> {
        let g = &self.ftl.gc;
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
        if b.hot_threshold > b.filters {
            return Err(Error::config(
                "ftl.gc.bloom.hot_threshold",
                format!(
                    "must be in 1..=ftl.gc.bloom.filters ({}) (got {})",
                    b.filters, b.hot_threshold
                ),
            ));
        }
        Ok(())
    }
}

/// The largest `ftl.compressed_region_bytes` (a power of two of at least 1 MiB) whose map unit
/// fits twice in `l2p_cache_bytes`, or "none" when not even 1 MiB does.
fn max_region(l2p_cache_bytes: u64, entry_bytes: u32) -> String {
    let entries = l2p_cache_bytes / 2 / entry_bytes as u64;
    let region = entries.saturating_mul(4096);
    if region < 1 << 20 {
        return "none (raise ftl.l2p_cache_bytes or lower ftl.map_entry_bytes)".into();
    }
    let pow = 1u64 << (63 - region.leading_zeros());
    super::rule::binary_size(pow).unwrap_or_else(|| pow.to_string())
}
