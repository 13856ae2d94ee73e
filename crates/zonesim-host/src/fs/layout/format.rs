//! The on-disk layout mkfs.f2fs writes: where the checkpoint, SIT, NAT and SSA areas go and where
//! the main area starts, for one device or for a conventional device followed by a zoned one
//! (the multi-device volume of ConZone+ §4.1, whose metadata namespace is sized by
//! [`super::namespaces`]).
//!
//! The computation is mkfs.f2fs's superblock preparation (f2fs-tools, `mkfs/f2fs_format.c`,
//! `f2fs_prepare_super_block`), restated for 4 KiB blocks, 2 MiB segments, one section per zone,
//! default features (no `large_nat_bitmap`) and start sector 0:
//! - The first zone is reserved (it holds the two superblocks); segment 0 starts at the next
//!   zone boundary.
//! - The volume's segments are counted over every device, the metadata device after its
//!   reserved zone and the data device whole, and rounded down to whole zones.
//! - Two checkpoint segments.
//! - The SIT has a 74-byte entry per segment of the whole volume, 55 to a block, rounded up to
//!   whole segments, and two copies.
//! - The NAT has a 9-byte entry per block left after checkpoint and SIT, 455 to a block, rounded
//!   up to whole segments, then capped so that its version bitmap (a bit per NAT block) fits in
//!   the checkpoint block beside the SIT's (3,900 bytes for both; when the SIT bitmap takes more
//!   than 3,836 of them it moves to extra `cp_payload` blocks and the NAT gets all 3,900); two
//!   copies.
//! - The SSA has a summary block per segment left after checkpoint, SIT and NAT, plus one,
//!   rounded up to whole segments, then padded so that the metadata ends on a zone boundary.
//! - The main area is every zone after the metadata; mkfs.f2fs refuses six or fewer of them and
//!   a volume over 16 TiB (block addresses are 32-bit).
//!
//! The simulated file system (`Geometry::mkfs`) places its metadata areas with its own, smaller
//! model ([`super::MetaLayout`]); docs/fs.md "Layout, logs and nodes" says how the two differ.

use super::{BLKS_PER_SEG, BLOCK_BYTES, NAT_PER_BLOCK, SEG_BYTES, SIT_PER_BLOCK};
use serde::Serialize;

/// Blocks per segment, as a `u64`.
const BPS: u64 = BLKS_PER_SEG as u64;
/// Checkpoint packs, a segment each.
const CHECKPOINT_SEGMENTS: u64 = 2;
/// The most segments a volume can have: 32-bit block addresses of 4 KiB, 16 TiB.
pub const MAX_SEGMENTS: u64 = 16 * 1024 * 1024 / 2;
/// The largest volume mkfs.f2fs formats, summed over its devices.
pub const MAX_VOLUME_BYTES: u64 = MAX_SEGMENTS * SEG_BYTES;
/// Bytes of the checkpoint block between its fixed fields and its checksum, where the SIT and
/// NAT version bitmaps go (a 4,096-byte block, the checksum in its last 4 bytes, 192 bytes of
/// fields before the bitmaps).
const CP_BITMAP_BYTES: u64 = 4092 - 192;
/// Bytes of that room kept for the NAT bitmap at least.
const MIN_NAT_BITMAP_BYTES: u64 = 64;
/// mkfs.f2fs needs more main-area zones than this.
pub const MIN_MAIN_ZONES_EXCLUSIVE: u64 = 6;

/// The F2FS layout mkfs.f2fs computes. Block addresses are 4 KiB blocks from the start of the
/// first device; counts are 2 MiB segments.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct F2fsLayout {
    /// Segments per zone (= per section).
    pub segs_per_zone: u64,
    /// First block of segment 0 (= the checkpoint area); every block before it is the reserved
    /// first zone.
    pub segment0_blkaddr: u64,
    /// Segments of every device after segment 0, whole zones only.
    pub segment_count: u64,
    pub segment_count_ckpt: u64,
    pub segment_count_sit: u64,
    pub segment_count_nat: u64,
    /// Including the padding to a zone boundary.
    pub segment_count_ssa: u64,
    /// Extra checkpoint blocks holding the SIT bitmap when it does not fit in the checkpoint.
    pub cp_payload: u64,
    pub sit_blkaddr: u64,
    pub nat_blkaddr: u64,
    pub ssa_blkaddr: u64,
    /// First block of the main (data) area.
    pub main_blkaddr: u64,
    /// Zones taken by checkpoint, SIT, NAT and SSA.
    pub meta_zones: u64,
    pub segment_count_main: u64,
    pub main_zones: u64,
    /// First block of the second (zoned) device; the end of the first for a single device.
    pub zoned_start_blkaddr: u64,
}

impl F2fsLayout {
    /// Segments of the metadata areas (checkpoint, SIT, NAT, SSA with its padding).
    pub fn meta_segments(&self) -> u64 {
        self.segment_count_ckpt
            + self.segment_count_sit
            + self.segment_count_nat
            + self.segment_count_ssa
    }
}

/// The layout of a volume of a first device of `meta_ns_bytes` (conventional: it holds the
/// superblocks and the metadata) followed by a second of `data_ns_bytes` (0 for a single
/// device), with zones of `zone_size_bytes`. The caller checks the inputs: `zone_size_bytes` a
/// positive multiple of 2 MiB, `meta_ns_bytes` at least one zone, the volume at most
/// [`MAX_VOLUME_BYTES`] ([`super::namespaces::size_namespaces`] does).
pub fn f2fs_layout(meta_ns_bytes: u64, data_ns_bytes: u64, zone_size_bytes: u64) -> F2fsLayout {
    let segs_per_zone = zone_size_bytes / SEG_BYTES;
    let zone_blocks = segs_per_zone * BPS;
    // The two superblocks (blocks 0 and 1) rounded up to a zone.
    let align_start = (2 * BLOCK_BYTES).div_ceil(zone_size_bytes) * zone_size_bytes;
    let segment0 = align_start / BLOCK_BYTES;
    let dev0_segs = (meta_ns_bytes - align_start) / SEG_BYTES;
    let dev1_segs = data_ns_bytes / SEG_BYTES;
    let zoned_start = segment0 + dev0_segs * BPS;
    let segment_count = (dev0_segs + dev1_segs) / segs_per_zone * segs_per_zone;

    let ckpt = CHECKPOINT_SEGMENTS;
    let sit_blkaddr = segment0 + ckpt * BPS;
    let sit = segment_count.div_ceil(SIT_PER_BLOCK).div_ceil(BPS) * 2;
    let nat_blkaddr = sit_blkaddr + sit * BPS;

    let nat_blocks = (segment_count.saturating_sub(ckpt + sit) * BPS).div_ceil(NAT_PER_BLOCK);
    // The version bitmaps of one SIT and one NAT copy share the checkpoint block.
    let max_sit_bitmap = MAX_SEGMENTS.div_ceil(SIT_PER_BLOCK).div_ceil(BPS) * BPS / 8;
    let sit_bitmap = ((sit / 2) * BPS / 8).min(max_sit_bitmap);
    let (max_nat_bitmap, cp_payload) = if sit_bitmap > CP_BITMAP_BYTES - MIN_NAT_BITMAP_BYTES {
        (CP_BITMAP_BYTES, sit_bitmap.div_ceil(BLOCK_BYTES))
    } else {
        (CP_BITMAP_BYTES - sit_bitmap, 0)
    };
    let nat = nat_blocks.div_ceil(BPS).min(max_nat_bitmap * 8 / BPS) * 2;
    let ssa_blkaddr = nat_blkaddr + nat * BPS;

    let ssa_blocks = segment_count.saturating_sub(ckpt + sit + nat) + 1;
    let mut ssa = ssa_blocks.div_ceil(BPS);
    let meta_segments = ckpt + sit + nat + ssa;
    let meta_zones = meta_segments.div_ceil(segs_per_zone);
    ssa += meta_zones * segs_per_zone - meta_segments;
    let main_blkaddr = segment0 + meta_zones * zone_blocks;
    let main_zones = (segment_count / segs_per_zone).saturating_sub(meta_zones);
    F2fsLayout {
        segs_per_zone,
        segment0_blkaddr: segment0,
        segment_count,
        segment_count_ckpt: ckpt,
        segment_count_sit: sit,
        segment_count_nat: nat,
        segment_count_ssa: ssa,
        cp_payload,
        sit_blkaddr,
        nat_blkaddr,
        ssa_blkaddr,
        main_blkaddr,
        meta_zones,
        segment_count_main: main_zones * segs_per_zone,
        main_zones,
        zoned_start_blkaddr: zoned_start,
    }
}
