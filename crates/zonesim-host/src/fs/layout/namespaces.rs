//! Sizing the two namespaces of a device that carries F2FS with its metadata on a conventional
//! namespace and its data on a zoned one (ConZone+ §4.1, "Namespace Size Configuration"); what
//! `zonesim layout` prints.
//!
//! mkfs.f2fs lays the two devices out as one address space and sizes the metadata for the whole
//! of it, so where its main area starts depends on the size of the metadata namespace. Unless it
//! starts exactly at the zoned namespace, either user data lands on the metadata namespace or
//! metadata on the zoned one. The paper's recipe is to try metadata namespaces of two zones
//! (the first zone is reserved for the superblocks), then three, and so on, until mkfs.f2fs's
//! output shows the two aligned. [`size_namespaces`] runs that search with mkfs.f2fs's own
//! arithmetic ([`super::format::f2fs_layout`]) instead of mkfs: the first size that aligns is
//! the answer (metadata only grows with the namespace and is zone aligned, so the main area
//! cannot start before the zoned namespace at the first size where it does not start after it).
//!
//! The physical sizes then follow the paper: the zoned namespace needs no over-provisioning, so
//! its physical size is its logical size plus the SLC blocks buffering it; the metadata
//! namespace's is its logical size plus its over-provisioning, rounded up to a flash
//! superblock; the device's capacity is the sum.

use super::format::{f2fs_layout, F2fsLayout, MAX_VOLUME_BYTES, MIN_MAIN_ZONES_EXCLUSIVE};
use super::SEG_BYTES;
use serde::Serialize;
use zonesim_core::error::{Error, Result};

/// Physical-size inputs of the rule (all may be 0).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct PhysicalSizing {
    /// Flash superblock size, in bytes, of the blocks holding the metadata namespace (in SLC mode
    /// if that namespace lives in SLC). The metadata namespace's physical size is rounded up to
    /// it; 0 = no rounding.
    pub meta_superblock_bytes: u64,
    /// Over-provisioning of the metadata namespace, percent of its logical size (the paper gives
    /// no value).
    pub meta_op_percent: u32,
    /// Capacity of the SLC blocks serving the zoned namespace as a secondary write buffer.
    pub data_slc_bytes: u64,
}

/// Sizes of the two namespaces and the F2FS layout behind them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct NamespaceLayout {
    pub zone_size_bytes: u64,
    /// Zones in the zoned (data) namespace.
    pub zoned_zones: u64,
    /// Logical size of the zoned namespace (the user's data capacity).
    pub zoned_logical_bytes: u64,
    /// Zoned logical size plus the SLC secondary buffer.
    pub zoned_physical_bytes: u64,
    /// Zones' worth of LBAs in the conventional (metadata) namespace, the reserved first zone
    /// included.
    pub conventional_zones: u64,
    pub conventional_logical_bytes: u64,
    /// Logical size plus OP, rounded up to the superblock size.
    pub conventional_physical_bytes: u64,
    /// Sum of both physical sizes: the device's load-time capacity.
    pub total_physical_bytes: u64,
    /// Metadata namespace sizes tried (2 zones, 3 zones, ...).
    pub tries: u64,
    pub physical: PhysicalSizing,
    pub f2fs: F2fsLayout,
}

/// The metadata namespace that aligns F2FS's main area with the zoned namespace of
/// `data_capacity_bytes`, and both physical sizes (see the module documentation).
///
/// Errors (bad input, [`Error::Usage`]): a zone size that is not a positive multiple of the
/// 2 MiB segment, a data capacity that is not a positive multiple of the zone size, a volume
/// mkfs.f2fs refuses (6 or fewer main-area zones, over 16 TiB), or sizes that overflow.
pub fn size_namespaces(
    data_capacity_bytes: u64,
    zone_size_bytes: u64,
    physical: &PhysicalSizing,
) -> Result<NamespaceLayout> {
    if zone_size_bytes == 0 || !zone_size_bytes.is_multiple_of(SEG_BYTES) {
        return Err(Error::Usage(format!(
            "layout: zone size {zone_size_bytes} bytes must be a positive multiple of the 2 MiB F2FS segment"
        )));
    }
    if data_capacity_bytes == 0 || !data_capacity_bytes.is_multiple_of(zone_size_bytes) {
        return Err(Error::Usage(format!(
            "layout: data capacity {data_capacity_bytes} bytes must be a positive multiple of the zone size ({zone_size_bytes} bytes)"
        )));
    }
    let overflow = || Error::Usage("layout: sizes overflow 64 bits".into());
    let too_large = |meta_bytes: u64| {
        Error::Usage(format!(
            "layout: a {data_capacity_bytes}-byte zoned namespace needs a metadata namespace of at least {meta_bytes} bytes, and together they exceed the 16 TiB ({MAX_VOLUME_BYTES} bytes) F2FS addresses: mkfs.f2fs refuses the volume"
        ))
    };
    let zoned_zones = data_capacity_bytes / zone_size_bytes;
    // The volume is checked before the search, so that the search stays short.
    let mut k = 2u64;
    let mut meta_bytes = k.checked_mul(zone_size_bytes).ok_or_else(overflow)?;
    let fits = |meta_bytes: u64| {
        meta_bytes
            .checked_add(data_capacity_bytes)
            .ok_or_else(overflow)
            .map(|total| total <= MAX_VOLUME_BYTES)
    };
    if !fits(meta_bytes)? {
        return Err(too_large(meta_bytes));
    }
    let f2fs = loop {
        let l = f2fs_layout(meta_bytes, data_capacity_bytes, zone_size_bytes);
        if l.main_blkaddr <= l.zoned_start_blkaddr {
            debug_assert_eq!(l.main_blkaddr, l.zoned_start_blkaddr);
            break l;
        }
        k += 1;
        meta_bytes = k * zone_size_bytes;
        if !fits(meta_bytes)? {
            return Err(too_large(meta_bytes));
        }
    };
    if f2fs.main_zones <= MIN_MAIN_ZONES_EXCLUSIVE {
        return Err(Error::Usage(format!(
            "layout: {} F2FS main-area zones; mkfs.f2fs needs more than {MIN_MAIN_ZONES_EXCLUSIVE} (use a larger data capacity or smaller zones)",
            f2fs.main_zones
        )));
    }
    let conventional_logical_bytes = meta_bytes;
    let op = conventional_logical_bytes
        .checked_mul(u64::from(physical.meta_op_percent))
        .ok_or_else(overflow)?
        .div_ceil(100);
    let mut conventional_physical_bytes = conventional_logical_bytes
        .checked_add(op)
        .ok_or_else(overflow)?;
    if physical.meta_superblock_bytes != 0 {
        conventional_physical_bytes = conventional_physical_bytes
            .div_ceil(physical.meta_superblock_bytes)
            .checked_mul(physical.meta_superblock_bytes)
            .ok_or_else(overflow)?;
    }
    let zoned_physical_bytes = data_capacity_bytes
        .checked_add(physical.data_slc_bytes)
        .ok_or_else(overflow)?;
    let total_physical_bytes = conventional_physical_bytes
        .checked_add(zoned_physical_bytes)
        .ok_or_else(overflow)?;
    Ok(NamespaceLayout {
        zone_size_bytes,
        zoned_zones,
        zoned_logical_bytes: data_capacity_bytes,
        zoned_physical_bytes,
        conventional_zones: k,
        conventional_logical_bytes,
        conventional_physical_bytes,
        total_physical_bytes,
        tries: k - 1,
        physical: *physical,
        f2fs,
    })
}
