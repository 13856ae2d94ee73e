//! The layouts: mkfs.f2fs's ([`format`]), the ConZone+ §4.1 namespace sizing ([`namespaces`]),
//! and how the simulated file system's mkfs ([`Geometry::mkfs`]) stands to both.

use super::format::{f2fs_layout, F2fsLayout, MAX_VOLUME_BYTES};
use super::namespaces::{size_namespaces, NamespaceLayout, PhysicalSizing};
use super::*;
use crate::fs::{F2fs, Kernel};

const MIB: u64 = 1 << 20;
const GIB: u64 = 1 << 30;

fn plain(data: u64, zone: u64) -> NamespaceLayout {
    size_namespaces(data, zone, &PhysicalSizing::default()).unwrap()
}

// ---- mkfs.f2fs's layout and the §4.1 sizing ----

/// By hand: 4 GiB data, 64 MiB zones (32 segments, 16384 blocks). With a 2-zone (128 MiB)
/// metadata namespace: segment0 = 16384; device 0 gives (128-64)/2 = 32 segments, the data
/// device 2048, so segment_count = 2080.
/// SIT: ceil(2080/55) = 38 blocks -> 1 segment -> 2. NAT: (2080-4)*512 = 1062912 blocks / 455
/// -> 2337 blocks -> 5 segments (cap 3836*8/512 = 59) -> 10.
/// SSA: 2080-14 = 2066 segments + 1 = 2067 blocks -> 5 segments; 2+2+10+5 = 19, padded to 32 ->
/// SSA 18. Metadata = 1 zone; main at 16384 + 16384 = 32768 = the zoned namespace's start.
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
    assert_eq!(f.meta_segments(), 32);
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

/// By hand: 4 GiB data, 32 MiB zones (16 segments). Two zones do not suffice: the metadata
/// needs 19 segments = 2 zones, so main would start at 3 zones but the zoned namespace at 2.
/// With three zones (96 MiB): segment_count = 32 + 2048 = 2080, the same CP/SIT/NAT as above,
/// SSA 5 padded to 18 (19 -> 32 = 2 zones), main at 8192 + 2 * 8192 = 24576 blocks = 96 MiB =
/// the zoned namespace's start.
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

/// mkfs.f2fs gives the SSA one block more than the segments it summarises. By hand: 1022 MiB of
/// data in 2 MiB zones (511 segments). With 10 zones of metadata namespace: segment_count =
/// 9 + 511 = 520; SIT 2, NAT ceil(516*512/455) = 581 blocks -> 2 segments -> 4; 512 segments
/// left, so 513 SSA blocks = 2 segments: 10 metadata segments, one more than the 9 before the
/// zoned namespace. With 11 zones: 521 segments, NAT 4, 513 left, 514 blocks = 2 segments,
/// 10 metadata segments, aligned. (Without the extra block 10 zones would have looked aligned.)
#[test]
fn ssa_has_a_block_more_than_its_segments() {
    let ten = f2fs_layout(20 * MIB, 1022 * MIB, 2 * MIB);
    assert_eq!(ten.segment_count, 520);
    assert_eq!(
        (
            ten.segment_count_sit,
            ten.segment_count_nat,
            ten.segment_count_ssa
        ),
        (2, 4, 2)
    );
    assert_eq!(ten.main_blkaddr, 512 + 10 * 512);
    assert_eq!(ten.zoned_start_blkaddr, 512 + 9 * 512);
    let l = plain(1022 * MIB, 2 * MIB);
    assert_eq!(l.conventional_zones, 11);
    assert_eq!(l.f2fs.segment_count_ssa, 2);
    assert_eq!(l.f2fs.main_blkaddr, l.f2fs.zoned_start_blkaddr);
}

/// The paper: "Typically, one zone is sufficient to store metadata for small-capacity devices
/// (e.g., 4 GiB). F2FS reserves the first zone [...] we recommend starting with a reservation of
/// two zones".
#[test]
fn paper_claim_two_zones_for_4gib() {
    for zone in [64 * MIB, 128 * MIB, 256 * MIB, 512 * MIB] {
        let l = plain(4 * GIB, zone);
        assert_eq!(l.conventional_zones, 2, "zone {zone}");
        assert_eq!(l.f2fs.meta_zones, 1);
        assert_eq!(l.f2fs.segment0_blkaddr * BLOCK_BYTES, zone);
    }
}

/// The answer aligns the main area with the zoned namespace, and it is the smallest that does:
/// one segment less and mkfs.f2fs's metadata runs into the zoned namespace.
#[test]
fn result_is_aligned_and_minimal() {
    for zone_mib in [2u64, 4, 8, 16, 32, 64, 96, 128, 256] {
        for data_zones in [8u64, 20, 64, 500, 511, 4096] {
            let zone = zone_mib * MIB;
            let Ok(l) = size_namespaces(data_zones * zone, zone, &PhysicalSizing::default()) else {
                continue;
            };
            assert_eq!(l.f2fs.main_blkaddr, l.f2fs.zoned_start_blkaddr);
            assert_eq!(l.conventional_zones, 1 + l.f2fs.meta_zones);
            let less = f2fs_layout(
                l.conventional_logical_bytes - SEG_BYTES,
                data_zones * zone,
                zone,
            );
            assert!(
                less.main_blkaddr > less.zoned_start_blkaddr,
                "{zone_mib} MiB x {data_zones}"
            );
            let f = l.f2fs;
            assert_eq!(f.meta_segments() % f.segs_per_zone, 0);
            assert_eq!(f.meta_segments() / f.segs_per_zone, f.meta_zones);
            assert_eq!(
                f.segment_count,
                (l.conventional_zones - 1 + data_zones) * f.segs_per_zone
            );
            assert_eq!(f.main_zones, data_zones);
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

/// 4 TiB of 2 MiB zones: 2098151 segments, ceil(/55) = 38149 SIT blocks = 75 segments a copy,
/// a 4800-byte SIT bitmap: over 3836 bytes, so it moves to ceil(4800/4096) = 2 cp_payload blocks
/// and the NAT gets the whole 3900-byte room, 60 segments a copy.
#[test]
fn a_large_sit_bitmap_moves_to_cp_payload() {
    let f = f2fs_layout(1000 * 2 * MIB, 4 << 40, 2 * MIB);
    assert_eq!(f.segment_count, 999 + 2 * 1024 * 1024);
    assert_eq!(f.segment_count_sit, 150);
    assert_eq!(f.cp_payload, 2);
    assert_eq!(f.segment_count_nat, 120);
}

/// One conventional device (2 MiB zones, the default without zones): by hand for 16 GiB,
/// segment0 = 512, 8191 segments, SIT 2, NAT ceil(8187*512/455) = 9213 blocks -> 18 -> 36,
/// SSA 8151 + 1 blocks -> 16: 56 metadata segments, main from segment 57, 8135 segments.
#[test]
fn single_device_layout() {
    let f = f2fs_layout(16 * GIB, 0, 2 * MIB);
    assert_eq!(f.segment0_blkaddr, 512);
    assert_eq!(f.segment_count, 8191);
    assert_eq!(
        (
            f.segment_count_sit,
            f.segment_count_nat,
            f.segment_count_ssa
        ),
        (2, 36, 16)
    );
    assert_eq!(f.main_blkaddr, 57 * 512);
    assert_eq!(f.segment_count_main, 8135);
}

#[test]
fn physical_sizes() {
    let p = PhysicalSizing {
        meta_superblock_bytes: 24 * MIB,
        meta_op_percent: 7,
        data_slc_bytes: 96 * MIB,
    };
    let l = size_namespaces(4 * GIB, 64 * MIB, &p).unwrap();
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
    let e = |d, z| size_namespaces(d, z, &p).unwrap_err().to_string();
    assert!(e(4 * GIB, 0).contains("zone size"));
    assert!(e(4 * GIB, 3 * MIB).contains("zone size"));
    assert!(e(0, 64 * MIB).contains("data capacity"));
    assert!(e(4 * GIB + MIB, 64 * MIB).contains("data capacity"));
    assert!(e(6 * 64 * MIB, 64 * MIB).contains("main-area zones"));
    assert!(e(u64::MAX / (64 * MIB) * (64 * MIB), 64 * MIB).contains("overflow"));
    // mkfs.f2fs formats at most 16 TiB, both devices together.
    assert!(e(16 << 40, 64 * MIB).contains("16 TiB"));
    assert!(e(1 << 60, 2 * MIB).contains("16 TiB"));
    assert!(e(MAX_VOLUME_BYTES - 64 * 64 * MIB, 64 * MIB).contains("at least"));
    let l = plain(MAX_VOLUME_BYTES - 128 * GIB, 64 * MIB);
    assert_eq!(l.conventional_zones, 533);
    assert!(l.conventional_logical_bytes + l.zoned_logical_bytes <= MAX_VOLUME_BYTES);
}

// ---- the advice and the simulated file system ----

/// A zoned main namespace of `data` bytes in zones of `zone` bytes (`cap` usable) with a
/// metadata namespace of `meta` bytes, as the run describes a ConZone+-like device.
fn split(data: u64, zone: u64, cap: u64, meta: u64) -> FsDevice {
    FsDevice {
        main_ns_bytes: data,
        zone: Some((zone, cap)),
        meta_ns_bytes: Some(meta),
    }
}

fn params(zone: u64) -> FsParams {
    FsParams::kernel_default(true, Kernel::V6_12, (zone / SEG_BYTES) as u32)
}

/// [`params`] with an explicit reserve of two sections, so that only the layout decides.
fn two_section_reserve(zone: u64) -> FsParams {
    let mut p = params(zone);
    p.reserved_segments = Some(2 * zone / SEG_BYTES);
    p
}

/// Devices where the advice holds the simulated metadata (`Geometry::mkfs`'s own areas), with
/// zone capacities below the zone size as ConZone+ has them.
const SMALL: [(u64, u64, u64); 5] = [
    (4 * GIB, 64 * MIB, 48 * MIB),
    (85 * 64 * MIB, 64 * MIB, 48 * MIB),
    (16 * GIB, 64 * MIB, 64 * MIB),
    (64 * GIB, 64 * MIB, 64 * MIB),
    (1022 * MIB, 2 * MIB, 2 * MIB),
];

/// On a device sized by the advice the simulated file system mounts, and its main area is
/// mkfs.f2fs's: every zone of the zoned namespace, from its first byte, zone-sized sections.
#[test]
fn the_advice_mounts_the_simulated_f2fs_with_mkfs_f2fs_main_area() {
    for (data, zone, cap) in SMALL {
        let a = plain(data, zone);
        let dev = split(data, zone, cap, a.conventional_logical_bytes);
        let g = Geometry::mkfs(&dev, &params(zone)).unwrap();
        let f = a.f2fs;
        assert_eq!(g.segs_per_sec as u64, f.segs_per_zone, "{data} {zone}");
        assert_eq!(g.sections as u64, f.main_zones, "{data} {zone}");
        assert_eq!(g.main_segs() as u64, f.segment_count_main);
        // mkfs.f2fs's main area starts where the zoned namespace does; so does the model's.
        assert_eq!(f.main_blkaddr * BLOCK_BYTES, a.conventional_logical_bytes);
        assert_eq!(g.main_base_bytes, 0);
        assert!(g.meta.blocks * BLOCK_BYTES <= a.conventional_logical_bytes);
    }
    let a = plain(4 * GIB, 64 * MIB);
    let dev = split(4 * GIB, 64 * MIB, 48 * MIB, a.conventional_logical_bytes);
    let fs = F2fs::new(params(64 * MIB), &dev).unwrap();
    assert_eq!(fs.geo.sections as u64, a.f2fs.main_zones);
}

/// The simulated mkfs's own threshold: a metadata namespace of exactly the blocks of its
/// [`meta_layout`] for the whole main namespace mounts, one block less does not. That is less
/// than the advice on small devices and more on large ones (the NAT is not capped).
/// KNOWN GAP, pinned until the simulated file system moves to mkfs.f2fs's areas (which changes
/// simulation results): (data, zone, advised bytes, simulated metadata blocks).
#[test]
fn known_gap_simulated_metadata_is_not_mkfs_f2fs() {
    for (data, zone, advised, sim_blocks) in [
        (4 * GIB, 64 * MIB, 128 * MIB, 7_758),
        (85 * 64 * MIB, 64 * MIB, 128 * MIB, 9_966),
        (16 * GIB, 64 * MIB, 192 * MIB, 27_952),
        (64 * GIB, 64 * MIB, 448 * MIB, 108_732),
        (128 * GIB, 64 * MIB, 576 * MIB, 216_438),
        (512 * GIB, 64 * MIB, 1344 * MIB, 862_672),
    ] {
        let a = plain(data, zone);
        assert_eq!(a.conventional_logical_bytes, advised, "{data}");
        let m = meta_layout(data / SEG_BYTES, 0);
        assert_eq!(m.blocks, sim_blocks, "{data}");
        let p = two_section_reserve(zone);
        let fits = |meta: u64| Geometry::mkfs(&split(data, zone, zone, meta), &p).is_ok();
        assert!(fits(sim_blocks * BLOCK_BYTES), "{data}");
        assert!(!fits(sim_blocks * BLOCK_BYTES - BLOCK_BYTES), "{data}");
        assert_eq!(fits(advised), sim_blocks * BLOCK_BYTES <= advised, "{data}");
    }
    // From 128 GiB of 64 MiB zones on, the advice is too small for the model.
    let a = plain(128 * GIB, 64 * MIB);
    let dev = split(128 * GIB, 64 * MIB, 64 * MIB, a.conventional_logical_bytes);
    let p = two_section_reserve(64 * MIB);
    let e = Geometry::mkfs(&dev, &p).unwrap_err().to_string();
    assert!(
        e.contains("need 845 MiB") && e.contains("holds 576 MiB"),
        "{e}"
    );
}

/// With the metadata leading a single conventional namespace, the model's main area starts a
/// few segments away from mkfs.f2fs's. KNOWN GAP, pinned as above: (namespace MiB, mkfs.f2fs
/// main segments, model main segments).
#[test]
fn known_gap_single_namespace_main_area() {
    for (mib, mkfs_main, model_main) in [
        (1024u64, 502u64, 505u32),
        (4096, 2029, 2031),
        (16384, 8135, 8136),
        (65536, 32581, 32554),
        (262144, 130693, 130227),
    ] {
        let f = f2fs_layout(mib * MIB, 0, 2 * MIB);
        assert_eq!(f.segment_count_main, mkfs_main, "{mib}");
        let dev = FsDevice {
            main_ns_bytes: mib * MIB,
            zone: None,
            meta_ns_bytes: None,
        };
        let p = FsParams::kernel_default(false, Kernel::V6_12, 1);
        let g = Geometry::mkfs(&dev, &p).unwrap();
        assert_eq!(g.sections, model_main, "{mib}");
    }
}

/// The fields the table and JSON of `zonesim layout` read are the layout's.
#[test]
fn layout_is_serializable() {
    let v = serde_json::to_value(plain(4 * GIB, 64 * MIB)).unwrap();
    assert_eq!(v["conventional_logical_bytes"], 128 * MIB);
    assert_eq!(v["f2fs"]["segment_count_nat"], 10);
    let f: F2fsLayout = plain(4 * GIB, 64 * MIB).f2fs;
    assert_eq!(v["f2fs"]["main_zones"], f.main_zones);
}
