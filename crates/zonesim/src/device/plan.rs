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
//!   left over as its SLC secondary buffer.
//!
//! One namespace may leave its size open (`capacity_bytes = 0` for a conventional one, `zones =
//! 0` for a zoned one): it gets the regular flash the others leave. Without `[[namespaces]]`
//! the device has one conventional namespace over all regular flash (the presets of issue 2).

use crate::config::{stream_count, DeviceConfig, NamespaceKind};
use crate::error::{Error, Result};
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
        logical_pages: u64,
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

impl NsPlan {
    pub fn kind_name(&self) -> &'static str {
        match self {
            NsPlan::Conventional { .. } => "conventional",
            NsPlan::Zoned { .. } => "zoned",
        }
    }
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

/// Enough spare superblocks must exist for GC to make progress ([`gc_reserve_superblocks`]).
fn check_spare_superblocks(cfg: &DeviceConfig, geo: &Geometry) -> Result<()> {
    let user_sbs = geo.superblocks as u64;
    let logical = geo.logical_pages(cfg.ftl.overprovisioning);
    let needed = logical.div_ceil(geo.slots_per_superblock() as u64);
    let spare = user_sbs.saturating_sub(needed);
    let streams = stream_count(&cfg.ftl.gc);
    let want = gc_reserve_superblocks(cfg);
    if spare < want {
        return Err(Error::config(
            "ftl.overprovisioning",
            format!(
                "too small for GC to work: {spare} spare superblocks of {user_sbs}, need at least {want} (threshold {} + {streams} open streams of placement {} + 1); raise the OP or nand.blocks_per_plane",
                cfg.ftl.gc.threshold_free_superblocks,
                cfg.ftl.gc.placement.name(),
            ),
        ));
    }
    Ok(())
}

/// The rules of a device config that need its namespace plan: the layout of the namespaces on
/// the array and the GC spare-superblock reserve. Run after [`DeviceConfig::validate`] (which
/// [`DeviceConfig::load`] runs); `zonesim::load_device` runs both, and [`super::Device::new`]
/// fails with the same error.
pub fn validate(cfg: &DeviceConfig) -> Result<()> {
    plan(cfg).map(|_| ())
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
        let rows = Rows {
            first: slc_total,
            count: regular_total,
        };
        let view = geo.region(rows.first, rows.count, geo.cell);
        let plans = vec![NsPlan::Conventional {
            rows,
            slc: false,
            logical_pages: view.logical_pages(cfg.ftl.overprovisioning),
        }];
        check_spare_superblocks(cfg, &geo)?;
        return Ok(plans);
    }
    let slc_geo = geo.region(0, 1, crate::config::CellType::Slc);
    let slc_sb_slots = slc_geo.slots_per_superblock() as u64;
    let sb_slots = geo.slots_per_superblock() as u64;
    let open_ended: Vec<usize> = cfg
        .namespaces
        .iter()
        .enumerate()
        .filter(|(_, n)| match n.kind {
            NamespaceKind::Conventional => n.capacity_bytes == 0 && !n.slc_only,
            NamespaceKind::Zoned => n.zones == 0,
        })
        .map(|(i, _)| i)
        .collect();
    if open_ended.len() > 1 {
        return Err(Error::config(
            format!("namespaces[{}]", open_ended[1]),
            "only one namespace may leave its size open (capacity_bytes = 0 / zones = 0)",
        ));
    }
    let zoned_count = cfg
        .namespaces
        .iter()
        .filter(|n| n.kind == NamespaceKind::Zoned)
        .count() as u32;
    let zgeo = if zoned_count > 0 {
        Some(zone_geometry(cfg, &geo)?)
    } else {
        None
    };
    // Pass 1: sizes in rows (regular) / SLC rows.
    let mut reg_rows = vec![0u64; cfg.namespaces.len()];
    let mut slc_rows = vec![0u64; cfg.namespaces.len()];
    let mut zones_of = vec![0u64; cfg.namespaces.len()];
    let rows_per_zone = |zones: u64| -> (u64, u32) {
        let (cap, _, unit_slots) = zgeo.expect("zoned");
        let units = cap.div_ceil(unit_slots);
        if cfg.zone.sub_block {
            let lanes = (geo.dies * geo.planes) as u64;
            ((zones * units).div_ceil(lanes), units as u32)
        } else {
            (zones * units, units as u32)
        }
    };
    for (i, n) in cfg.namespaces.iter().enumerate() {
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
                    slc_rows[i] = conventional_sbs(cfg, logical, slc_sb_slots);
                } else {
                    reg_rows[i] = conventional_sbs(cfg, logical, sb_slots);
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
                    zones_of[i] = n.zones as u64;
                    reg_rows[i] = rows_per_zone(n.zones as u64).0;
                }
            }
        }
    }
    let used: u64 = reg_rows.iter().sum();
    if used > regular_total as u64 {
        return Err(Error::config(
            "nand.blocks_per_plane",
            format!(
                "{}: the namespaces need {used} regular blocks per plane but only {regular_total} are regular (after {slc_total} SLC blocks)",
                cfg.nand.blocks_per_plane
            ),
        ));
    }
    if let Some(&i) = open_ended.first() {
        let left = regular_total as u64 - used;
        let n = &cfg.namespaces[i];
        match n.kind {
            NamespaceKind::Conventional => reg_rows[i] = left,
            NamespaceKind::Zoned => {
                let (cap, _, unit_slots) = zgeo.expect("zoned");
                let units = cap.div_ceil(unit_slots);
                let zones = if cfg.zone.sub_block {
                    left * (geo.dies * geo.planes) as u64 / units
                } else {
                    left / units
                };
                zones_of[i] = zones;
                reg_rows[i] = rows_per_zone(zones).0;
            }
        }
        if reg_rows[i] == 0 || (n.kind == NamespaceKind::Zoned && zones_of[i] == 0) {
            return Err(Error::config(
                format!("namespaces[{i}]"),
                "no regular flash left for this namespace",
            ));
        }
    }
    let slc_used: u64 = slc_rows.iter().sum();
    if slc_used > slc_total as u64 {
        return Err(Error::config(
            "nand.slc_blocks_per_plane",
            format!(
                "{slc_total}: slc_only namespaces need {slc_used} SLC blocks per plane (capacity with ftl.overprovisioning and the GC reserve)"
            ),
        ));
    }
    if zoned_count > 0 {
        let share = (slc_total as u64 - slc_used) / zoned_count as u64;
        let need = cfg.slc.gc_threshold_free_superblocks as u64 + 3;
        if share < need {
            return Err(Error::config(
                "nand.slc_blocks_per_plane",
                format!(
                    "{slc_total}: each zoned namespace needs at least {need} SLC blocks per plane for its SLC secondary buffer (slc.gc_threshold_free_superblocks + 3), {share} left"
                ),
            ));
        }
        for (i, n) in cfg.namespaces.iter().enumerate() {
            if n.kind == NamespaceKind::Zoned {
                slc_rows[i] = share;
            }
        }
    }
    // Pass 2: place.
    let mut slc_next = 0u32;
    let mut reg_next = slc_total;
    let mut out = Vec::new();
    for (i, n) in cfg.namespaces.iter().enumerate() {
        match n.kind {
            NamespaceKind::Conventional => {
                let logical = if n.capacity_bytes == 0 {
                    let view = geo.region(reg_next, reg_rows[i] as u32, geo.cell);
                    view.logical_pages(cfg.ftl.overprovisioning)
                } else {
                    n.capacity_bytes / SLOT_BYTES
                };
                let rows = if n.slc_only {
                    Rows::take(&mut slc_next, slc_rows[i])
                } else {
                    Rows::take(&mut reg_next, reg_rows[i])
                };
                out.push(NsPlan::Conventional {
                    rows,
                    slc: n.slc_only,
                    logical_pages: logical,
                });
            }
            NamespaceKind::Zoned => {
                let (cap, size, _) = zgeo.expect("zoned");
                let zone = ZoneConfig {
                    zone_size: size,
                    zone_capacity: cap,
                    zones: zones_of[i] as u32,
                    max_open: cfg.zone.max_open,
                    max_active: cfg.zone.max_active,
                };
                zone.validate()?;
                let rows = Rows::take(&mut reg_next, reg_rows[i]);
                let slc = Rows::take(&mut slc_next, slc_rows[i]);
                out.push(NsPlan::Zoned {
                    zone,
                    rows,
                    slc_rows: slc,
                    units_per_zone: rows_per_zone(zones_of[i]).1,
                    sub_block: cfg.zone.sub_block,
                });
            }
        }
    }
    Ok(out)
}
