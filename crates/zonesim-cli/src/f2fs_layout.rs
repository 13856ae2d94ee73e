//! Namespace sizing for F2FS on a device with a conventional (block) namespace for metadata and
//! a zoned namespace for data: the rule of ConZone+ §4.1 (seed 000), behind `zonesim layout`.
//!
//! # The rule (seed 000_4c29618666cb0f33.txt, §4.1 "Namespace Size Configuration")
//!
//! > "Since zoned-interface namespaces do not require over-provisioned (OP) space, the total
//! > physical size of this namespace equals the logical size plus the capacity of the blocks
//! > programmed as SLC. For the namespace used to store file system metadata, the logical size
//! > requires additional consideration. This is because mkfs.f2fs, when formatting multiple
//! > devices, concatenates them into a single logical address space and calculates metadata
//! > requirements based on the total capacity. In other words, the starting address of the data
//! > section in F2FS may not align with the starting offset of the namespace that is used to store
//! > data. If misaligned, some user data may be written to the metadata device [...] Users can try
//! > different logical sizes for the metadata namespace and inspect the output to verify
//! > correctness. This process is not time-consuming, since the metadata section in F2FS is
//! > aligned with the zone size. The zone size of F2FS matches that of the underlying zoned
//! > storage. Typically, one zone is sufficient to store metadata for small-capacity devices
//! > (e.g., 4 GiB). F2FS reserves the first zone and starts placing metadata from the second
//! > zone. Therefore, in practice, we recommend starting with a reservation of two zones and
//! > increasing the size incrementally as needed. [...] The physical size of the metadata
//! > namespace should be aligned with the flash superblock size and account for necessary OP
//! > space, based on the configured logical size. Finally, the total size of both namespaces
//! > must be summed to form the load-time configuration for ConZone+."
//!
//! (Algorithm 1 of §4.1 only instantiates the namespaces from `LOGICAL_NS_SIZE[]` and
//! `PHYSICAL_NS_SIZE[]`; the sizes themselves come from the rule above.)
//!
//! # What we compute
//!
//! [`metadata_layout`] does the paper's search without running mkfs: it tries a metadata
//! namespace of `k` zones, `k = 2, 3, ...`, and computes, as mkfs.f2fs does for the two devices
//! concatenated ([`f2fs_layout`]), where the F2FS main area starts. The first `k` for which the
//! main area starts exactly at the first LBA of the zoned namespace is the answer (it cannot start
//! earlier for the first `k` that fits, since the metadata only grows with `k` and is zone
//! aligned). Then the physical sizes follow the quoted rule.
//!
//! [`f2fs_layout`] follows `f2fs_prepare_super_block()` in f2fs-tools `mkfs/f2fs_format.c`
//! (upstream master, 4 KiB blocks, 2 MiB segments, one section per zone, default features, no
//! `large_nat_bitmap`, start sector 0):
//! - segment 0 starts after the first zone (reserved, holds the two superblocks);
//! - device 0 contributes `(dev0 - zone) / segment` segments and the zoned device
//!   `dev1 / segment` segments, each rounded down to whole zones; `segment_count` is their sum;
//! - checkpoint: 2 segments;
//! - SIT: `ceil(segment_count / 55)` blocks (55 = 4096 / 74-byte SIT entries), rounded up to
//!   segments, times 2 (two copies);
//! - NAT: `ceil((segment_count - cp - sit) * 512 / 455)` blocks (455 = 4096 / 9-byte NAT
//!   entries), rounded up to segments, capped so its version bitmap fits in the checkpoint block
//!   (3900 bytes less the SIT bitmap when the SIT bitmap fits, i.e. is at most 3836 bytes; else 3900
//!   bytes and the SIT bitmap moves to `cp_payload` blocks), times 2;
//! - SSA: one block per remaining segment, rounded up to segments, then padded so that the
//!   metadata ends on a zone boundary;
//! - main area start = segment 0 + whole metadata zones.
//!
//! mkfs also refuses a volume with 6 or fewer main-area zones; so do we.

use serde::Serialize;

use zonesim::error::{Error, Result};

/// F2FS block size.
pub const F2FS_BLOCK_BYTES: u64 = 4096;
/// F2FS blocks per segment (2 MiB segments).
pub const F2FS_BLOCKS_PER_SEGMENT: u64 = 512;
/// F2FS segment size.
pub const F2FS_SEGMENT_BYTES: u64 = F2FS_BLOCK_BYTES * F2FS_BLOCKS_PER_SEGMENT;

/// `F2FS_NUMBER_OF_CHECKPOINT_PACK`.
const CHECKPOINT_SEGMENTS: u64 = 2;
/// `SIT_ENTRY_PER_BLOCK` = 4096 / sizeof(struct f2fs_sit_entry) (2 + 64 + 8 bytes).
const SIT_ENTRY_PER_BLOCK: u64 = F2FS_BLOCK_BYTES / 74;
/// `NAT_ENTRY_PER_BLOCK` = 4096 / sizeof(struct f2fs_nat_entry) (1 + 4 + 4 bytes).
const NAT_ENTRY_PER_BLOCK: u64 = F2FS_BLOCK_BYTES / 9;
/// `F2FS_MAX_SEGMENT`: 16 TiB / 2 MiB.
const F2FS_MAX_SEGMENT: u64 = 16 * 1024 * 1024 / 2;
/// `CP_CHKSUM_OFFSET - CP_BITMAP_OFFSET` = (4096 - 4) - 192.
const MAX_BITMAP_SIZE_IN_CKPT: u64 = 3900;
/// `MAX_BITMAP_SIZE_IN_CKPT - MIN_NAT_BITMAP_SIZE` (64).
const MAX_SIT_BITMAP_SIZE_IN_CKPT: u64 = MAX_BITMAP_SIZE_IN_CKPT - 64;
/// mkfs.f2fs needs more than this many main-area zones.
const MIN_MAIN_ZONES_EXCLUSIVE: u64 = 6;

fn div_ceil(a: u64, b: u64) -> u64 {
    a.div_ceil(b)
}

/// The F2FS on-disk layout mkfs.f2fs would compute for a conventional device of `meta_ns_bytes`
/// followed by a zoned device of `data_ns_bytes`. Block addresses are F2FS 4 KiB blocks from the
/// start of the metadata namespace; segment counts are 2 MiB segments.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct F2fsLayout {
    /// Segments per zone (= per section).
    pub segs_per_zone: u64,
    /// First block of segment 0 (= checkpoint area); everything before is the reserved zone.
    pub segment0_blkaddr: u64,
    /// Segments of both devices after segment 0, whole zones only.
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
    /// First block of the zoned namespace in the concatenated address space.
    pub zoned_start_blkaddr: u64,
}

/// mkfs.f2fs's metadata computation (see the module documentation). `zone_size_bytes` must be a
/// positive multiple of 2 MiB and `meta_ns_bytes` at least one zone; [`metadata_layout`] checks
/// this before calling.
pub fn f2fs_layout(meta_ns_bytes: u64, data_ns_bytes: u64, zone_size_bytes: u64) -> F2fsLayout {
    let bps = F2FS_BLOCKS_PER_SEGMENT;
    let segs_per_zone = zone_size_bytes / F2FS_SEGMENT_BYTES;
    let zone_blocks = segs_per_zone * bps;
    // zone_align_start_offset: round 2 blocks (the superblocks) up to a zone.
    let align_start = div_ceil(2 * F2FS_BLOCK_BYTES, zone_size_bytes) * zone_size_bytes;
    let segment0 = align_start / F2FS_BLOCK_BYTES;
    let dev0_segs =
        (meta_ns_bytes - align_start) / F2FS_SEGMENT_BYTES / segs_per_zone * segs_per_zone;
    let dev1_segs = data_ns_bytes / F2FS_SEGMENT_BYTES / segs_per_zone * segs_per_zone;
    let zoned_start = segment0 + dev0_segs * bps;
    let segment_count = dev0_segs + dev1_segs;

    let ckpt = CHECKPOINT_SEGMENTS;
    let sit_blkaddr = segment0 + ckpt * bps;
    let blocks_for_sit = div_ceil(segment_count, SIT_ENTRY_PER_BLOCK);
    let sit = div_ceil(blocks_for_sit, bps) * 2;
    let nat_blkaddr = sit_blkaddr + sit * bps;

    let valid_blocks = segment_count.saturating_sub(ckpt + sit) * bps;
    let blocks_for_nat = div_ceil(valid_blocks, NAT_ENTRY_PER_BLOCK);
    let mut nat = div_ceil(blocks_for_nat, bps);
    // The NAT version bitmap must fit in the checkpoint block next to the SIT bitmap.
    let max_sit_bitmap_size =
        div_ceil(div_ceil(F2FS_MAX_SEGMENT, SIT_ENTRY_PER_BLOCK), bps) * bps / 8;
    let sit_bitmap_size = ((sit / 2) * bps / 8).min(max_sit_bitmap_size);
    let (max_nat_bitmap_size, cp_payload) = if sit_bitmap_size > MAX_SIT_BITMAP_SIZE_IN_CKPT {
        (
            MAX_BITMAP_SIZE_IN_CKPT,
            div_ceil(sit_bitmap_size, F2FS_BLOCK_BYTES),
        )
    } else {
        (MAX_BITMAP_SIZE_IN_CKPT - sit_bitmap_size, 0)
    };
    let max_nat_segments = max_nat_bitmap_size * 8 / bps;
    nat = nat.min(max_nat_segments) * 2;
    let ssa_blkaddr = nat_blkaddr + nat * bps;

    let valid_blocks = segment_count.saturating_sub(ckpt + sit + nat) * bps;
    let blocks_for_ssa = valid_blocks / bps; // one 4 KiB summary block per segment
    let mut ssa = div_ceil(blocks_for_ssa, bps);
    let total_meta_segments = ckpt + sit + nat + ssa;
    let diff = total_meta_segments % segs_per_zone;
    if diff != 0 {
        ssa += segs_per_zone - diff;
    }
    let meta_zones = div_ceil(total_meta_segments * bps, zone_blocks);
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
pub struct Layout {
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

/// ConZone+ §4.1: size the conventional metadata namespace so that F2FS's main area starts
/// exactly at the zoned namespace, and give both physical sizes. See the module documentation
/// for the quoted rule.
///
/// Errors (bad input, reported to the user): zone size not a positive multiple of the 2 MiB F2FS
/// segment, data capacity not a positive multiple of the zone size, a volume too small for
/// mkfs.f2fs (6 or fewer main-area zones), or sizes that overflow.
pub fn metadata_layout(
    data_capacity_bytes: u64,
    zone_size_bytes: u64,
    physical: &PhysicalSizing,
) -> Result<Layout> {
    if zone_size_bytes == 0 || !zone_size_bytes.is_multiple_of(F2FS_SEGMENT_BYTES) {
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
    let zoned_zones = data_capacity_bytes / zone_size_bytes;
    // Each extra zone of metadata namespace adds at most one zone of metadata need, so the search
    // ends long before this bound; it only guards against a logic error.
    let max_zones = zoned_zones + 64;
    let mut k = 2u64;
    let f2fs = loop {
        let meta_bytes = k.checked_mul(zone_size_bytes).ok_or_else(overflow)?;
        meta_bytes
            .checked_add(data_capacity_bytes)
            .ok_or_else(overflow)?;
        let l = f2fs_layout(meta_bytes, data_capacity_bytes, zone_size_bytes);
        if l.main_blkaddr <= l.zoned_start_blkaddr {
            debug_assert_eq!(l.main_blkaddr, l.zoned_start_blkaddr);
            break l;
        }
        k += 1;
        if k > max_zones {
            return Err(Error::Usage(
                "layout: no metadata namespace size aligns the F2FS main area with the zoned namespace"
                    .into(),
            ));
        }
    };
    if f2fs.main_zones <= MIN_MAIN_ZONES_EXCLUSIVE {
        return Err(Error::Usage(format!(
            "layout: {} F2FS main-area zones; mkfs.f2fs needs more than {MIN_MAIN_ZONES_EXCLUSIVE} (use a larger data capacity or smaller zones)",
            f2fs.main_zones
        )));
    }
    let conventional_logical_bytes = k * zone_size_bytes;
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
    Ok(Layout {
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

fn human(bytes: u64) -> String {
    const UNITS: [(&str, u64); 4] = [
        ("TiB", 1 << 40),
        ("GiB", 1 << 30),
        ("MiB", 1 << 20),
        ("KiB", 1 << 10),
    ];
    for (u, n) in UNITS {
        if bytes >= n && bytes.is_multiple_of(n) {
            return format!("{} {u}", bytes / n);
        }
    }
    for (u, n) in UNITS {
        if bytes >= n {
            return format!("{:.2} {u}", bytes as f64 / n as f64);
        }
    }
    format!("{bytes} B")
}

/// A readable table of a [`Layout`], for `zonesim layout`.
pub fn render(l: &Layout) -> String {
    use std::fmt::Write;
    let f = &l.f2fs;
    let seg = |n: u64| human(n * F2FS_SEGMENT_BYTES);
    let mut s = String::new();
    let row = |s: &mut String, k: &str, v: String| {
        let _ = writeln!(s, "  {k:<34} {v}");
    };
    row(
        &mut s,
        "zone size",
        format!("{} ({} bytes)", human(l.zone_size_bytes), l.zone_size_bytes),
    );
    s.push_str("namespaces (ConZone+ §4.1)\n");
    row(
        &mut s,
        "ns 0 conventional, logical",
        format!(
            "{} ({} zones, {} bytes)",
            human(l.conventional_logical_bytes),
            l.conventional_zones,
            l.conventional_logical_bytes
        ),
    );
    row(
        &mut s,
        "ns 0 conventional, physical",
        format!(
            "{} (+{}% OP, superblock {})",
            human(l.conventional_physical_bytes),
            l.physical.meta_op_percent,
            if l.physical.meta_superblock_bytes == 0 {
                "-".to_string()
            } else {
                human(l.physical.meta_superblock_bytes)
            }
        ),
    );
    row(
        &mut s,
        "ns 1 zoned, logical",
        format!(
            "{} ({} zones, {} bytes)",
            human(l.zoned_logical_bytes),
            l.zoned_zones,
            l.zoned_logical_bytes
        ),
    );
    row(
        &mut s,
        "ns 1 zoned, physical",
        format!(
            "{} (+{} SLC)",
            human(l.zoned_physical_bytes),
            human(l.physical.data_slc_bytes)
        ),
    );
    row(
        &mut s,
        "device total, physical",
        human(l.total_physical_bytes),
    );
    row(
        &mut s,
        "metadata sizes tried",
        format!("{} (from 2 zones)", l.tries),
    );
    s.push_str("F2FS layout (mkfs.f2fs, 4 KiB blocks, 2 MiB segments)\n");
    row(&mut s, "segments per zone", f.segs_per_zone.to_string());
    row(
        &mut s,
        "reserved (superblocks)",
        format!(
            "blocks 0..{} ({})",
            f.segment0_blkaddr,
            human(f.segment0_blkaddr * F2FS_BLOCK_BYTES)
        ),
    );
    row(
        &mut s,
        "segment count",
        format!("{} ({})", f.segment_count, seg(f.segment_count)),
    );
    row(
        &mut s,
        "checkpoint (CP)",
        format!(
            "{} segments at block {}, cp_payload {}",
            f.segment_count_ckpt, f.segment0_blkaddr, f.cp_payload
        ),
    );
    row(
        &mut s,
        "SIT",
        format!(
            "{} segments at block {}",
            f.segment_count_sit, f.sit_blkaddr
        ),
    );
    row(
        &mut s,
        "NAT",
        format!(
            "{} segments at block {}",
            f.segment_count_nat, f.nat_blkaddr
        ),
    );
    row(
        &mut s,
        "SSA (zone padded)",
        format!(
            "{} segments at block {}",
            f.segment_count_ssa, f.ssa_blkaddr
        ),
    );
    row(&mut s, "metadata zones", f.meta_zones.to_string());
    row(
        &mut s,
        "main area",
        format!(
            "block {} ({}), {} zones",
            f.main_blkaddr,
            human(f.main_blkaddr * F2FS_BLOCK_BYTES),
            f.main_zones
        ),
    );
    row(
        &mut s,
        "zoned namespace starts",
        format!(
            "block {} (aligned: {})",
            f.zoned_start_blkaddr,
            f.main_blkaddr == f.zoned_start_blkaddr
        ),
    );
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIB: u64 = 1 << 20;
    const GIB: u64 = 1 << 30;

    fn plain(data: u64, zone: u64) -> Layout {
        metadata_layout(data, zone, &PhysicalSizing::default()).unwrap()
    }

    /// Hand-computed (see the report): 4 GiB data, 64 MiB zones (32 segments, 16384 blocks).
    /// With a 2-zone (128 MiB) metadata namespace: segment0 = 16384; device 0 gives
    /// (128-64)/2 = 32 segments, the data device 2048, so segment_count = 2080.
    /// SIT: ceil(2080/55) = 38 blocks -> 1 segment -> 2. NAT: (2080-4)*512 = 1062912 valid
    /// blocks / 455 -> 2337 blocks -> 5 segments (cap 3836*8/512 = 59) -> 10.
    /// SSA: 2080-14 = 2066 blocks -> 5 segments; 2+2+10+5 = 19, padded to 32 -> SSA 18.
    /// Metadata = 1 zone; main at 16384 + 16384 = 32768 = the zoned namespace start.
    #[test]
    fn hand_computed_4gib_64mib() {
        let l = plain(4 * GIB, 64 * MIB);
        assert_eq!(l.conventional_zones, 2);
        assert_eq!(l.conventional_logical_bytes, 128 * MIB);
        assert_eq!(l.tries, 1);
        assert_eq!(l.zoned_zones, 64);
        let f = l.f2fs;
        assert_eq!(f.segs_per_zone, 32);
        assert_eq!(f.segment0_blkaddr, 16384);
        assert_eq!(f.segment_count, 2080);
        assert_eq!(f.segment_count_ckpt, 2);
        assert_eq!(f.segment_count_sit, 2);
        assert_eq!(f.segment_count_nat, 10);
        assert_eq!(f.segment_count_ssa, 18);
        assert_eq!(f.cp_payload, 0);
        assert_eq!(f.sit_blkaddr, 16384 + 1024);
        assert_eq!(f.nat_blkaddr, 16384 + 2048);
        assert_eq!(f.ssa_blkaddr, 16384 + 2048 + 5120);
        assert_eq!(f.meta_zones, 1);
        assert_eq!(f.main_blkaddr, 32768);
        assert_eq!(f.zoned_start_blkaddr, 32768);
        assert_eq!(f.main_zones, 2080 / 32 - 1);
        assert_eq!(f.segment_count_main, 64 * 32);
    }

    /// Hand-computed: 4 GiB data, 32 MiB zones (16 segments). Two zones do not suffice: the
    /// metadata needs 19 segments = 2 zones, so main would start at 3 zones but the zoned
    /// namespace at 2. With three zones (96 MiB): segment_count = 32 + 2048 = 2080, same
    /// CP/SIT/NAT as above, SSA 5 padded to 18 (19 -> 32 = 2 zones), main at
    /// 8192 + 2 * 8192 = 24576 blocks = 96 MiB = the zoned namespace start.
    #[test]
    fn hand_computed_4gib_32mib_needs_three_zones() {
        let l = plain(4 * GIB, 32 * MIB);
        assert_eq!(l.conventional_zones, 3);
        assert_eq!(l.tries, 2);
        assert_eq!(l.f2fs.meta_zones, 2);
        assert_eq!(l.f2fs.segment_count, 2080);
        assert_eq!(l.f2fs.segment_count_ssa, 18);
        assert_eq!(l.f2fs.main_blkaddr, 24576);
        let two = f2fs_layout(64 * MIB, 4 * GIB, 32 * MIB);
        assert!(two.main_blkaddr > two.zoned_start_blkaddr);
    }

    /// The paper: "Typically, one zone is sufficient to store metadata for small-capacity devices
    /// (e.g., 4 GiB). F2FS reserves the first zone [...] we recommend starting with a
    /// reservation of two zones".
    #[test]
    fn paper_claim_two_zones_for_4gib() {
        for zone in [64 * MIB, 128 * MIB, 256 * MIB, 512 * MIB] {
            let l = plain(4 * GIB, zone);
            assert_eq!(l.conventional_zones, 2, "zone {zone}");
            assert_eq!(l.f2fs.meta_zones, 1);
            assert_eq!(l.f2fs.segment0_blkaddr * F2FS_BLOCK_BYTES, zone);
        }
    }

    #[test]
    fn result_is_aligned_and_minimal() {
        for zone_mib in [2u64, 4, 8, 16, 32, 64, 96, 128, 256] {
            for data_zones in [8u64, 20, 64, 500, 4096] {
                let zone = zone_mib * MIB;
                let Ok(l) = metadata_layout(data_zones * zone, zone, &PhysicalSizing::default())
                else {
                    continue;
                };
                assert_eq!(l.f2fs.main_blkaddr, l.f2fs.zoned_start_blkaddr);
                assert_eq!(l.conventional_zones, 1 + l.f2fs.meta_zones);
                if l.conventional_zones > 2 {
                    let smaller =
                        f2fs_layout((l.conventional_zones - 1) * zone, data_zones * zone, zone);
                    assert!(smaller.main_blkaddr > smaller.zoned_start_blkaddr);
                }
                let f = l.f2fs;
                let meta = f.segment_count_ckpt
                    + f.segment_count_sit
                    + f.segment_count_nat
                    + f.segment_count_ssa;
                assert_eq!(meta % f.segs_per_zone, 0);
                assert_eq!(meta / f.segs_per_zone, f.meta_zones);
                assert_eq!(
                    f.segment_count,
                    (l.conventional_zones - 1 + data_zones) * f.segs_per_zone
                );
            }
        }
    }

    #[test]
    fn small_zones_need_many_metadata_zones() {
        // 2 MiB zones: every segment is a zone; 64 GiB of data.
        let l = plain(64 * GIB, 2 * MIB);
        assert!(l.conventional_zones > 10);
        assert_eq!(l.f2fs.main_blkaddr, l.f2fs.zoned_start_blkaddr);
    }

    #[test]
    fn nat_is_capped_by_the_checkpoint_bitmap() {
        // 512 GiB, 2 MiB zones: SIT 20 segments, SIT bitmap 640 bytes, NAT bitmap room
        // 3900 - 640 = 3260 bytes -> 50 segments (577 wanted), times 2.
        let l = plain(512 * GIB, 2 * MIB);
        assert_eq!(l.f2fs.segment_count_sit, 20);
        assert_eq!(l.f2fs.segment_count_nat, 100);
        assert_eq!(l.f2fs.cp_payload, 0);
    }

    #[test]
    fn physical_sizes() {
        let p = PhysicalSizing {
            meta_superblock_bytes: 24 * MIB,
            meta_op_percent: 7,
            data_slc_bytes: 96 * MIB,
        };
        let l = metadata_layout(4 * GIB, 64 * MIB, &p).unwrap();
        // 128 MiB + 7% = 136.96 MiB -> 6 superblocks of 24 MiB = 144 MiB.
        assert_eq!(l.conventional_physical_bytes, 144 * MIB);
        assert_eq!(l.zoned_physical_bytes, 4 * GIB + 96 * MIB);
        assert_eq!(l.total_physical_bytes, 144 * MIB + 4 * GIB + 96 * MIB);
        // No OP, no rounding: physical = logical.
        let l = plain(4 * GIB, 64 * MIB);
        assert_eq!(l.conventional_physical_bytes, l.conventional_logical_bytes);
        assert_eq!(l.total_physical_bytes, 4 * GIB + 128 * MIB);
    }

    #[test]
    fn bad_inputs_are_errors() {
        let p = PhysicalSizing::default();
        let e = |d, z| metadata_layout(d, z, &p).unwrap_err().to_string();
        assert!(e(4 * GIB, 0).contains("zone size"));
        assert!(e(4 * GIB, 3 * MIB).contains("zone size"));
        assert!(e(0, 64 * MIB).contains("data capacity"));
        assert!(e(4 * GIB + MIB, 64 * MIB).contains("data capacity"));
        assert!(e(6 * 64 * MIB, 64 * MIB).contains("main-area zones"));
        assert!(e(u64::MAX / (64 * MIB) * (64 * MIB), 64 * MIB).contains("overflow"));
    }

    #[test]
    fn render_and_json() {
        let l = plain(4 * GIB, 64 * MIB);
        let t = render(&l);
        assert!(t.contains("128 MiB (2 zones"), "{t}");
        assert!(t.contains("4 GiB (64 zones"), "{t}");
        assert!(t.contains("aligned: true"), "{t}");
        let v = serde_json::to_value(l).unwrap();
        assert_eq!(v["conventional_logical_bytes"], 128 * MIB);
        assert_eq!(v["f2fs"]["segment_count_nat"], 10);
    }
}
