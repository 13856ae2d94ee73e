//! Where each namespace lives on the shared NAND array (ConZone+ §4, Algorithm 1: every
//! namespace gets its own FTL instance over its share of one physical device).
//!
//! The first `nand.slc_blocks_per_plane` blocks of every plane form the SLC region (pSLC);
//! the rest is regular flash. Namespaces take, in id order:
//! - conventional, `slc_only`: SLC superblocks enough for its logical size with
//!   `ftl.overprovisioning` and at least the GC reserve (ConZone+ §4: metadata in SLC);
//! - conventional: regular superblocks the same way;
//! - zoned: `zones` x (superblocks per zone) regular superblocks (sub-block mode: enough block
//!   rows for `zones` x (blocks per zone) single blocks), plus an equal share of the SLC blocks
//!   left over as its SLC secondary buffer; with `slc.conventional_buffer`, conventional
//!   namespaces in regular flash take an equal share too (their SLC write cache).
//!
//! One namespace may leave its size open (`capacity_bytes = 0` for a conventional one, `zones =
//! 0` for a zoned one): it gets the regular flash the others leave. Without `[[namespaces]]`
//! the device has one conventional namespace over all regular flash (the conventional presets).

use crate::config::{stream_count, DeviceConfig, NamespaceConfig, NamespaceKind};
use crate::error::{Error, Result};
use crate::firmware::gc::min_spare_superblocks;
use crate::interface::zone::ZoneConfig;
use crate::nand::{Geometry, SLOT_BYTES};

/// A contiguous range of superblock rows (block indices in every plane).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rows {
    pub first: u32,
    pub count: u32,
}

impl Rows {
    /// The next `count` rows from `*next`, which moves past them.
    fn take(next: &mut u32, count: u64) -> Rows {
        let r = Rows {
            first: *next,
            count: count as u32,
        };
        *next += r.count;
        r
    }
}

/// The plan of one namespace.
#[derive(Debug, Clone)]
pub enum NsPlan {
    Conventional {
        rows: Rows,
        slc: bool,
        /// SLC rows of its SLC write cache (`slc.conventional_buffer`; none: count 0).
        slc_rows: Rows,
        logical_pages: u64,
        /// The NVM set: channels its superblocks span (empty: all).
        channels: Vec<u32>,
    },
    Zoned {
        zone: ZoneConfig,
        /// Regular-flash rows holding the zones.
        rows: Rows,
        /// SLC rows of its secondary buffer.
        slc_rows: Rows,
        /// Allocation units (superblocks, or single blocks in sub-block mode) per zone.
        units_per_zone: u32,
        sub_block: bool,
    },
}

/// Zone capacity and size in 4 KiB LBAs after defaults, and the slots of one allocation unit.
pub fn zone_geometry(cfg: &DeviceConfig, geo: &Geometry) -> Result<(u64, u64, u64)> {
    let z = &cfg.zone;
    let unit_slots = if z.sub_block {
        (geo.pages_per_block * geo.slots_per_page) as u64
    } else {
        geo.slots_per_superblock() as u64
    };
    for (key, v) in [
        ("zone.size_bytes", z.size_bytes),
        ("zone.capacity_bytes", z.capacity_bytes),
    ] {
        if !v.is_multiple_of(SLOT_BYTES) {
            return Err(Error::config(
                key,
                format!("{v}: must be a multiple of 4096 bytes"),
            ));
        }
    }
    let cap = if z.capacity_bytes == 0 {
        unit_slots
    } else {
        z.capacity_bytes / SLOT_BYTES
    };
    let size = if z.size_bytes == 0 {
        cap.next_power_of_two()
    } else {
        z.size_bytes / SLOT_BYTES
    };
    if cap == 0 || cap > size {
        return Err(Error::config(
            "zone.capacity_bytes",
            format!(
                "{} bytes: must be between 4096 and zone.size_bytes ({} bytes)",
                cap * SLOT_BYTES,
                size * SLOT_BYTES
            ),
        ));
    }
    if cap > unit_slots && !cap.is_multiple_of(unit_slots) {
        let what = if z.sub_block { "block" } else { "superblock" };
        return Err(Error::config(
            "zone.capacity_bytes",
            format!(
                "{} bytes: a zone maps to whole {what}s ({} bytes each): capacity must be at most one {what} or a multiple of it",
                cap * SLOT_BYTES,
                unit_slots * SLOT_BYTES
            ),
        ));
    }
    Ok((cap, size, unit_slots))
}

/// Channels of a namespace's NVM set out of `channels` (all when it names none).
fn set_of(n: &NamespaceConfig, channels: u32) -> impl Iterator<Item = u32> + '_ {
    let all = if n.channels.is_empty() { channels } else { 0 };
    n.channels.iter().copied().chain(0..all)
}

/// How many of the array's `channels` a namespace's superblocks span.
fn set_width(n: &NamespaceConfig, channels: u32) -> u32 {
    if n.channels.is_empty() {
        channels
    } else {
        n.channels.len() as u32
    }
}

/// The rules of `namespaces[i].channels`.
fn check_set(
    i: usize,
    n: &NamespaceConfig,
    channels: u32,
    cfg_conventional_buffer: bool,
) -> Result<()> {
    if n.channels.is_empty() {
        return Ok(());
    }
    let key = format!("namespaces[{i}].channels");
    if cfg_conventional_buffer {
        return Err(Error::config(
            key,
            "an NVM set keeps to its channels; it conflicts with slc.conventional_buffer (the SLC write cache spans every channel)",
        ));
    }
    if n.kind != NamespaceKind::Conventional || n.slc_only {
        return Err(Error::config(
            key,
            "only conventional namespaces in regular flash take an NVM set (not zoned, not slc_only)",
        ));
    }
    for (k, &c) in n.channels.iter().enumerate() {
        if c >= channels {
            return Err(Error::config(
                key,
                format!("channel {c} does not exist (nand.channels = {channels})"),
            ));
        }
        if n.channels[..k].contains(&c) {
            return Err(Error::config(key, format!("channel {c} listed twice")));
        }
    }
    Ok(())
}

/// Superblocks a conventional namespace of `logical` pages needs with `op` and the GC reserve.
fn conventional_sbs(cfg: &DeviceConfig, logical: u64, sb_slots: u64) -> u64 {
    let with_op = ((logical as f64) * (1.0 + cfg.ftl.overprovisioning) / sb_slots as f64).ceil();
    let reserve = logical.div_ceil(sb_slots) + gc_reserve_superblocks(cfg);
    (with_op as u64).max(reserve)
}

/// Spare superblocks a page-mapped namespace needs for GC to make progress: the foreground
/// threshold plus one open superblock per write stream of the placement plus one to copy
/// into.
pub fn gc_reserve_superblocks(cfg: &DeviceConfig) -> u64 {
    let streams = stream_count(&cfg.ftl.gc);
    cfg.ftl.gc.threshold_free_superblocks as u64 + streams as u64 + 1
}

/// Enough spare superblocks must exist for GC to make progress ([`min_spare_superblocks`]);
/// a configuration between that and [`gc_reserve_superblocks`] runs, with the
/// [`effective_spare_warning`].
fn check_spare_superblocks(cfg: &DeviceConfig, geo: &Geometry) -> Result<()> {
    let user_sbs = geo.superblocks as u64;
    let logical = geo.logical_pages(cfg.ftl.overprovisioning);
    let needed = logical.div_ceil(geo.slots_per_superblock() as u64);
    let spare = user_sbs.saturating_sub(needed);
    let streams = stream_count(&cfg.ftl.gc);
    let want = min_spare_superblocks(streams as u32);
    if spare < want {
        return Err(Error::config(
            "ftl.overprovisioning",
            format!(
                "too small for GC to work: {spare} spare superblocks of {user_sbs}, need at least {want} (2 x {streams} open streams of placement {} + 1); raise the OP or nand.blocks_per_plane",
                cfg.ftl.gc.placement.name(),
            ),
        ));
    }
    Ok(())
}

/// Effective overprovisioning (docs/config.md warns when it is under half the configured OP):
/// the spare space GC can actually use once
/// the superblocks of [`gc_reserve_superblocks`] (bar the one GC copies into)
/// are held free or open. A warning when it is less than half the configured OP, e.g.
/// `age_k` with many streams at 3% OP leaves about 0.4% and GC moves almost only valid
/// pages. `None` for devices with explicit namespaces (their spare is planned per
/// namespace) and for healthy configurations. Kept beside the reserve rule so the two
/// move together.
pub fn effective_spare_warning(cfg: &DeviceConfig) -> Option<String> {
    if !cfg.namespaces.is_empty() {
        return None;
    }
    let geo = Geometry::new(&cfg.nand);
    let op = cfg.ftl.overprovisioning;
    let logical = geo.logical_pages(op);
    let per_sb = geo.slots_per_superblock() as u64;
    let user = geo.superblocks as u64 * per_sb;
    let held = (gc_reserve_superblocks(cfg) - 1) * per_sb;
    let effective = user.saturating_sub(logical).saturating_sub(held);
    let eff_op = effective as f64 / logical.max(1) as f64;
    if eff_op >= op / 2.0 {
        return None;
    }
    let streams = stream_count(&cfg.ftl.gc);
    Some(format!(
        "ftl.overprovisioning: effective spare {:.2}% of the logical space, not {:.2}%: GC keeps {} of {} superblocks free or open (threshold {} + {streams} open streams of placement {}), so victims are mostly valid and WAF will be very high; raise the OP or nand.blocks_per_plane, or use fewer streams",
        eff_op * 100.0,
        op * 100.0,
        gc_reserve_superblocks(cfg) - 1,
        geo.superblocks,
        cfg.ftl.gc.threshold_free_superblocks,
        cfg.ftl.gc.placement.name(),
    ))
}

/// The rules of a device config that need its namespace plan: the layout of the namespaces on
/// the array and the GC spare-superblock reserve. Run after [`DeviceConfig::validate`] (which
/// [`DeviceConfig::load`] runs); `zonesim::load_device` runs both, and [`super::Device::new`]
/// fails with the same error.
pub fn validate(cfg: &DeviceConfig) -> Result<()> {
    plan(cfg).map(|_| ())
}

/// The SLC rows per plane one namespace's SLC buffer gets (`share`), if enough for SLC GC:
/// at least `slc.gc_threshold_free_superblocks + 3`.
fn check_slc_share(cfg: &DeviceConfig, share: u64) -> Result<u64> {
    let need = cfg.slc.gc_threshold_free_superblocks as u64 + 3;
    if share < need {
        let slc_total = cfg.nand.slc_blocks_per_plane;
        return Err(Error::config(
            "nand.slc_blocks_per_plane",
            format!(
                "{slc_total}: each namespace with an SLC buffer (zoned, or conventional with slc.conventional_buffer) needs at least {need} SLC blocks per plane (slc.gc_threshold_free_superblocks + 3), {share} left"
            ),
        ));
    }
    Ok(share)
}

/// What the plan needs to know of a namespace's kind before sizing it.
#[derive(Debug, Clone, Copy)]
struct Shape {
    zoned: bool,
    /// It leaves its size open: it gets the regular flash the others leave.
    open_ended: bool,
    /// It takes an equal share of the SLC blocks left as its SLC buffer.
    slc_buffer: bool,
}

impl Shape {
    fn of(cfg: &DeviceConfig, n: &NamespaceConfig) -> Shape {
        match n.kind {
            NamespaceKind::Conventional => Shape {
                zoned: false,
                open_ended: n.capacity_bytes == 0 && !n.slc_only,
                slc_buffer: cfg.slc.conventional_buffer && !n.slc_only,
            },
            NamespaceKind::Zoned => Shape {
                zoned: true,
                open_ended: n.zones == 0,
                slc_buffer: true,
            },
        }
    }
}

/// The rows (blocks per plane) each namespace takes, before placement.
struct Sizes {
    /// Regular rows, SLC rows and zones of each namespace.
    reg_rows: Vec<u64>,
    slc_rows: Vec<u64>,
    zones: Vec<u64>,
}

/// The device being planned: its array and the zone geometry of its zoned namespaces.
struct Planner<'a> {
    cfg: &'a DeviceConfig,
    geo: Geometry,
    slc_total: u32,
    regular_total: u32,
    /// Zone capacity, size and allocation-unit slots (with any zoned namespace).
    zgeo: Option<(u64, u64, u64)>,
}

/// Lay the namespaces out on the array, or say which key makes it impossible.
pub fn plan(cfg: &DeviceConfig) -> Result<Vec<NsPlan>> {
    let geo = Geometry::new(&cfg.nand);
    let slc_total = cfg.nand.slc_blocks_per_plane;
    if slc_total >= cfg.nand.blocks_per_plane {
        return Err(Error::config(
            "nand.slc_blocks_per_plane",
            format!(
                "{slc_total}: must leave regular blocks (nand.blocks_per_plane = {})",
                cfg.nand.blocks_per_plane
            ),
        ));
    }
    let regular_total = cfg.nand.blocks_per_plane - slc_total;
    if cfg.namespaces.is_empty() {
        return one_namespace(cfg, &geo, slc_total, regular_total);
    }
    let shapes: Vec<Shape> = cfg.namespaces.iter().map(|n| Shape::of(cfg, n)).collect();
    let open_ended: Vec<usize> = (0..shapes.len())
        .filter(|&i| shapes[i].open_ended)
        .collect();
    if open_ended.len() > 1 {
        return Err(Error::config(
            format!("namespaces[{}]", open_ended[1]),
            "only one namespace may leave its size open (capacity_bytes = 0 / zones = 0)",
        ));
    }
    let zgeo = if shapes.iter().any(|s| s.zoned) {
        Some(zone_geometry(cfg, &geo)?)
    } else {
        None
    };
    let p = Planner {
        cfg,
        geo,
        slc_total,
        regular_total,
        zgeo,
    };
    let mut sizes = p.size()?;
    let used_on = p.rows_used_on(&sizes)?;
    if let Some(&i) = open_ended.first() {
        p.fill_open(i, &used_on, &mut sizes)?;
    }
    p.share_slc(&shapes, &mut sizes)?;
    p.place(&sizes)
}

/// Without `[[namespaces]]`: one conventional namespace over all regular flash.
fn one_namespace(
    cfg: &DeviceConfig,
    geo: &Geometry,
    slc_total: u32,
    regular_total: u32,
) -> Result<Vec<NsPlan>> {
    let rows = Rows {
        first: slc_total,
        count: regular_total,
    };
    let view = geo.region(rows.first, rows.count, geo.cell);
    let slc_rows = Rows {
        first: 0,
        count: if cfg.slc.conventional_buffer {
            check_slc_share(cfg, slc_total as u64)? as u32
        } else {
            0
        },
    };
    let plans = vec![NsPlan::Conventional {
        rows,
        slc: false,
        slc_rows,
        logical_pages: view.logical_pages(cfg.ftl.overprovisioning),
        channels: Vec::new(),
    }];
    check_spare_superblocks(cfg, geo)?;
    Ok(plans)
}

impl Planner<'_> {
    /// Regular rows for `zones` zones and the allocation units of one zone.
    fn rows_per_zone(&self, zones: u64) -> (u64, u32) {
        let (cap, _, unit_slots) = self.zgeo.expect("zoned");
        let units = cap.div_ceil(unit_slots);
        if self.cfg.zone.sub_block {
            let lanes = (self.geo.dies * self.geo.planes) as u64;
            ((zones * units).div_ceil(lanes), units as u32)
        } else {
            (zones * units, units as u32)
        }
    }

    /// Pass 1: the rows each namespace of explicit size needs, checking its keys.
    fn size(&self) -> Result<Sizes> {
        let (cfg, geo) = (self.cfg, &self.geo);
        let count = cfg.namespaces.len();
        let mut s = Sizes {
            reg_rows: vec![0; count],
            slc_rows: vec![0; count],
            zones: vec![0; count],
        };
        let slc_sb_slots = geo
            .region(0, 1, crate::config::CellType::Slc)
            .slots_per_superblock() as u64;
        let sb_slots = geo.slots_per_superblock() as u64;
        for (i, n) in cfg.namespaces.iter().enumerate() {
            check_set(i, n, geo.channels, cfg.slc.conventional_buffer)?;
            let key = |k: &str| format!("namespaces[{i}].{k}");
            match n.kind {
                NamespaceKind::Conventional => {
                    if n.zones != 0 {
                        return Err(Error::config(key("zones"), "only for zoned namespaces"));
                    }
                    if !n.capacity_bytes.is_multiple_of(SLOT_BYTES) {
                        return Err(Error::config(
                            key("capacity_bytes"),
                            "must be a multiple of 4096",
                        ));
                    }
                    if n.slc_only && n.capacity_bytes == 0 {
                        return Err(Error::config(
                            key("capacity_bytes"),
                            "an slc_only namespace needs an explicit capacity",
                        ));
                    }
                    if n.capacity_bytes == 0 {
                        continue;
                    }
                    let logical = n.capacity_bytes / SLOT_BYTES;
                    if n.slc_only {
                        s.slc_rows[i] = conventional_sbs(cfg, logical, slc_sb_slots);
                    } else {
                        let set_slots =
                            sb_slots * set_width(n, geo.channels) as u64 / geo.channels as u64;
                        s.reg_rows[i] = conventional_sbs(cfg, logical, set_slots);
                    }
                }
                NamespaceKind::Zoned => {
                    if n.slc_only {
                        return Err(Error::config(
                            key("slc_only"),
                            "only for conventional namespaces (zones live in regular flash)",
                        ));
                    }
                    if n.zones != 0 {
                        s.zones[i] = n.zones as u64;
                        s.reg_rows[i] = self.rows_per_zone(n.zones as u64).0;
                    }
                }
            }
        }
        Ok(s)
    }

    /// Rows in use on each channel (namespaces on other channels take the same rows there),
    /// if the regular rows hold them.
    fn rows_used_on(&self, s: &Sizes) -> Result<Vec<u64>> {
        let mut used_on = vec![0u64; self.geo.channels as usize];
        for (i, n) in self.cfg.namespaces.iter().enumerate() {
            for c in set_of(n, self.geo.channels) {
                used_on[c as usize] += s.reg_rows[i];
            }
        }
        let used = used_on.iter().copied().max().unwrap_or(0);
        if used > self.regular_total as u64 {
            return Err(Error::config(
                "nand.blocks_per_plane",
                format!(
                    "{}: the namespaces need {used} regular blocks per plane but only {} are regular (after {} SLC blocks)",
                    self.cfg.nand.blocks_per_plane, self.regular_total, self.slc_total
                ),
            ));
        }
        Ok(used_on)
    }

    /// The open-ended namespace `i` gets the regular rows the others leave on its channels.
    fn fill_open(&self, i: usize, used_on: &[u64], s: &mut Sizes) -> Result<()> {
        let n = &self.cfg.namespaces[i];
        let used = set_of(n, self.geo.channels)
            .map(|c| used_on[c as usize])
            .max()
            .unwrap_or(0);
        let left = self.regular_total as u64 - used;
        let zoned = match n.kind {
            NamespaceKind::Conventional => {
                s.reg_rows[i] = left;
                false
            }
            NamespaceKind::Zoned => {
                let (cap, _, unit_slots) = self.zgeo.expect("zoned");
                let units = cap.div_ceil(unit_slots);
                let lanes = (self.geo.dies * self.geo.planes) as u64;
                s.zones[i] = if self.cfg.zone.sub_block {
                    left * lanes / units
                } else {
                    left / units
                };
                s.reg_rows[i] = self.rows_per_zone(s.zones[i]).0;
                true
            }
        };
        if s.reg_rows[i] == 0 || (zoned && s.zones[i] == 0) {
            return Err(Error::config(
                format!("namespaces[{i}]"),
                "no regular flash left for this namespace",
            ));
        }
        Ok(())
    }

    /// The SLC blocks left after the slc_only namespaces: an equal share for each namespace
    /// with an SLC buffer (zoned ones always, conventional ones in regular flash with
    /// `slc.conventional_buffer`).
    fn share_slc(&self, shapes: &[Shape], s: &mut Sizes) -> Result<()> {
        let slc_used: u64 = s.slc_rows.iter().sum();
        let slc_total = self.slc_total;
        if slc_used > slc_total as u64 {
            return Err(Error::config(
                "nand.slc_blocks_per_plane",
                format!(
                    "{slc_total}: slc_only namespaces need {slc_used} SLC blocks per plane (capacity with ftl.overprovisioning and the GC reserve)"
                ),
            ));
        }
        let buffered = shapes.iter().filter(|x| x.slc_buffer).count() as u64;
        if let Some(each) = (slc_total as u64 - slc_used).checked_div(buffered) {
            let share = check_slc_share(self.cfg, each)?;
            for (i, x) in shapes.iter().enumerate() {
                if x.slc_buffer {
                    s.slc_rows[i] = share;
                }
            }
        }
        Ok(())
    }

    /// Pass 2: place. A namespace's rows start after every earlier namespace on its channels.
    /// The layout switch: each kind's plan is built here.
    fn place(&self, s: &Sizes) -> Result<Vec<NsPlan>> {
        let (cfg, geo) = (self.cfg, &self.geo);
        let mut slc_next = 0u32;
        let mut reg_next_on = vec![self.slc_total; geo.channels as usize];
        let mut out = Vec::new();
        for (i, n) in cfg.namespaces.iter().enumerate() {
            let mut reg_next = set_of(n, geo.channels)
                .map(|c| reg_next_on[c as usize])
                .max()
                .unwrap_or(self.slc_total);
            let mut take_regular = |count: u64| -> Result<Rows> {
                let rows = Rows::take(&mut reg_next, count);
                if reg_next > cfg.nand.blocks_per_plane {
                    return Err(Error::config(
                        format!("namespaces[{i}].channels"),
                        format!(
                            "the namespace does not fit on its channels: it needs blocks {}..{} of each plane, there are {}",
                            rows.first, reg_next, cfg.nand.blocks_per_plane
                        ),
                    ));
                }
                for c in set_of(n, geo.channels) {
                    reg_next_on[c as usize] = reg_next;
                }
                Ok(rows)
            };
            match n.kind {
                NamespaceKind::Conventional => {
                    let channels = n.channels.clone();
                    let (rows, cache) = if n.slc_only {
                        let rows = Rows::take(&mut slc_next, s.slc_rows[i]);
                        (rows, Rows { first: 0, count: 0 })
                    } else {
                        let cache = Rows::take(&mut slc_next, s.slc_rows[i]);
                        (take_regular(s.reg_rows[i])?, cache)
                    };
                    let logical = if n.capacity_bytes == 0 {
                        let mut view = geo.region(rows.first, rows.count, geo.cell);
                        if !channels.is_empty() {
                            view = view.on_channels(&channels);
                        }
                        // The rest of the flash, less what GC keeps spare: on a small
                        // remainder the OP alone may leave GC fewer free superblocks than it
                        // needs to make progress.
                        let sb_slots = view.slots_per_superblock() as u64;
                        let room = (view.superblocks as u64)
                            .saturating_sub(gc_reserve_superblocks(cfg))
                            * sb_slots;
                        let logical = view.logical_pages(cfg.ftl.overprovisioning).min(room);
                        if logical == 0 {
                            return Err(Error::config(
                                format!("namespaces[{i}].capacity_bytes"),
                                format!(
                                    "0 (the rest of the flash): {} superblocks are left, no more than GC keeps spare ({}); give the other namespaces less or raise nand.blocks_per_plane",
                                    view.superblocks,
                                    gc_reserve_superblocks(cfg)
                                ),
                            ));
                        }
                        logical
                    } else {
                        n.capacity_bytes / SLOT_BYTES
                    };
                    out.push(NsPlan::Conventional {
                        rows,
                        slc: n.slc_only,
                        slc_rows: cache,
                        logical_pages: logical,
                        channels,
                    });
                }
                NamespaceKind::Zoned => {
                    let (cap, size, _) = self.zgeo.expect("zoned");
                    let zone = ZoneConfig {
                        zone_size: size,
                        zone_capacity: cap,
                        zones: s.zones[i] as u32,
                        max_open: cfg.zone.max_open,
                        max_active: cfg.zone.max_active,
                    };
                    zone.validate()?;
                    // Zone starts are 32-bit page numbers in the maps (twice the span with the
                    // IPU copies' second logical space): the zones' span must stay below 2^31.
                    let span = zone.zone_size.saturating_mul(zone.zones as u64);
                    if span >= 1 << 31 {
                        return Err(Error::config(
                            "zone.size_bytes",
                            format!(
                                "{} zones of {} bytes span {} 4 KiB pages; a zoned namespace spans fewer than 2^31 (8 TiB): lower zone.size_bytes or the zones of namespaces[{i}]",
                                zone.zones,
                                zone.zone_size * SLOT_BYTES,
                                span
                            ),
                        ));
                    }
                    let rows = take_regular(s.reg_rows[i])?;
                    let slc = Rows::take(&mut slc_next, s.slc_rows[i]);
                    out.push(NsPlan::Zoned {
                        zone,
                        rows,
                        slc_rows: slc,
                        units_per_zone: self.rows_per_zone(s.zones[i]).1,
                        sub_block: cfg.zone.sub_block,
                    });
                }
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::PRESETS;

    fn load(sets: &[&str]) -> Result<DeviceConfig> {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        DeviceConfig::load("ufs-conventional", &sets)
    }

    /// age_k at 3% OP passes the reserve rule but leaves almost no
    /// effective spare; the warning names the figure. The presets and healthy devices get none.
    #[test]
    fn low_effective_spare_warns_with_the_figure() {
        let low_op = [
            "nand.blocks_per_plane=256",
            "nand.pages_per_block=48",
            "ftl.overprovisioning=0.03",
            "ftl.gc.victim=windowed_greedy",
            "ftl.gc.placement=age_k",
        ];
        let c = load(&low_op).unwrap();
        let w = effective_spare_warning(&c).expect("a warning");
        assert!(
            w.starts_with("ftl.overprovisioning: effective spare 0.") && w.contains("not 3.00%"),
            "{w}"
        );
        assert!(w.contains("placement age_k"), "{w}");
        let mut single = low_op;
        single[4] = "ftl.gc.placement=single";
        // One stream at 3% keeps more than half the spare.
        assert_eq!(effective_spare_warning(&load(&single).unwrap()), None);
        for (name, _, _) in PRESETS {
            let c = DeviceConfig::load(name, &[]).unwrap();
            assert_eq!(effective_spare_warning(&c), None, "{name}");
        }
    }
}
