//! The device of the `zms-*` reproductions (ZMS, ATC'24 talk) at each scale, and the
//! bands the talk's words give.
//!
//! The talk's device ("Evaluation Setup"): "Zoned UFS: 128GiB, UFS 2.1; zone size: 138MiB; a
//! conventional logical unit for F2FS meta area". The `zms-2024` preset has its geometry,
//! timing and buffers with 64 zones (8.6 GiB); the paper scale has the talk's capacity:
//! - 938 zones of 138 MiB (129,444 MiB) and a metadata LU of 1,568 MiB: 131,012 MiB, the most
//!   whole zones that fit 128 GiB beside the metadata the F2FS model's mkfs lays out for them
//!   (CP, SIT, NAT, SSA over the zones' 256 MiB zone size, of which 138 MiB are usable:
//!   1,546 MiB for 938 zones; the preset's 128 MiB serves 64 zones);
//! - the metadata LU lives in SLC as in the preset, so the SLC blocks grow by the 35 SLC
//!   superblocks (46 MiB each) it needs; the SLC room left for the zoned LU's secondary buffer
//!   stays the preset's 11 superblocks (the talk gives no SLC size);
//! - blocks per plane: 938 zones + 46 SLC = 984.
//!
//! `--quick` of the file-system experiments shrinks every zone fourfold (the same 64
//! sections): [`zms_2024_scaled`].

use super::Scale;
use zonesim::config::fs::FsKernel;
use zonesim::config::DeviceConfig;
use zonesim::error::Result;

/// The talk's host kernel: Android 11 on Linux 5.4 ("Evaluation Setup"), the F2FS profile of
/// every ZMS experiment on a file system (docs/fs.md "What differs between kernels").
pub const HOST_KERNEL: FsKernel = FsKernel::V5_4;

/// Zones of the talk's 128 GiB device.
pub const PAPER_ZONES: u32 = 938;
/// Its metadata LU, bytes.
const PAPER_META_BYTES: u64 = 1568 << 20;
/// SLC blocks per plane: the preset's 14 (3 superblocks of metadata, 11 of secondary buffer)
/// with 35 superblocks of metadata instead of 3.
const PAPER_SLC_BLOCKS: u32 = 46;

/// The `zms-2024` preset with every zone (blocks, zone capacity, the metadata LU) `div`-fold
/// smaller: the same 64 zones.
pub fn zms_2024_scaled(div: u64) -> Result<DeviceConfig> {
    let mut cfg = zonesim::load_device("zms-2024", &[])?;
    if div > 1 {
        cfg.nand.pages_per_block /= div as u32;
        cfg.zone.capacity_bytes /= div;
        cfg.namespaces[0].capacity_bytes /= div;
    }
    Ok(cfg)
}

/// The talk's 128 GiB device: `zms-2024` with 938 zones (module doc).
pub fn zms_2024_paper() -> Result<DeviceConfig> {
    let mut cfg = zonesim::load_device("zms-2024", &[])?;
    cfg.name = "zms-2024-128g".into();
    cfg.nand.slc_blocks_per_plane = PAPER_SLC_BLOCKS;
    cfg.nand.blocks_per_plane = PAPER_ZONES + PAPER_SLC_BLOCKS;
    cfg.namespaces[0].capacity_bytes = PAPER_META_BYTES;
    cfg.namespaces[1].zones = PAPER_ZONES;
    cfg.validate()?;
    zonesim::device::validate(&cfg)?;
    Ok(cfg)
}

/// The device of a reproduction at `scale`: the paper's 128 GiB device, or the preset's 64
/// zones, each zone `quick_div`-fold smaller in the quick form.
pub fn zms_device(scale: Scale, quick_div: u64) -> Result<DeviceConfig> {
    match scale {
        Scale::Paper => zms_2024_paper(),
        Scale::Full => zms_2024_scaled(1),
        Scale::Quick => zms_2024_scaled(quick_div),
    }
}

/// Zones of the data LU at `scale` (for the notes).
pub fn zones(scale: Scale) -> u32 {
    if scale == Scale::Paper {
        PAPER_ZONES
    } else {
        64
    }
}

/// "No performance degradation" as a band around 1: the smallest change the talk reports as a
/// result is the 5.8 % shorter app launch ("Random Read Performance"), so a ratio within
/// ±5.8 % of parity is what it would not call a change.
pub const NO_CHANGE: (f64, f64) = (0.942, 1.058);
