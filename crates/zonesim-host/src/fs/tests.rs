use super::*;
use proptest::prelude::*;

fn conv(mb: u64) -> F2fs {
    let dev = FsDevice {
        main_ns_bytes: mb << 20,
        zone: None,
        meta_ns_bytes: None,
    };
    F2fs::new(FsParams::kernel_default(false, Kernel::V6_18, 1), &dev).unwrap()
}

fn zoned(zones: u64) -> F2fs {
    let dev = FsDevice {
        main_ns_bytes: zones * (64 << 20),
        zone: Some((64 << 20, 48 << 20)),
        meta_ns_bytes: Some(128 << 20),
    };
    F2fs::new(FsParams::kernel_default(true, Kernel::V6_18, 32), &dev).unwrap()
}

/// Fill `files` files of `blocks` blocks, then random overwrites with fsync every 32.
fn churn(fs: &mut F2fs, files: u32, blocks: u64, overwrites: u64, seed: u64) -> Vec<Ino> {
    let dir = fs.mkdir(ROOT).unwrap();
    let inos: Vec<Ino> = (0..files)
        .map(|k| fs.create(dir, &format!("f{k}"), 0).unwrap())
        .collect();
    for &i in &inos {
        fs.write(i, 0, blocks * 4096, false).unwrap();
    }
    let mut x = seed | 1;
    for n in 0..overwrites {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let i = inos[(x % files as u64) as usize];
        let b = (x >> 20) % blocks;
        fs.write(i, b * 4096, 4096, false).unwrap();
        if n % 32 == 31 {
            fs.fsync(i, false);
        }
        if n % 4096 == 0 {
            fs.out.clear();
        }
    }
    fs.sync();
    fs.out.clear();
    inos
}

#[test]
fn mkfs_reserve_follows_the_formula() {
    let fs = conv(1024);
    // 512-ish segments: ovp searched in 0.01..10 %.
    assert!(
        fs.geo.reserved_segments > 6 && fs.geo.reserved_segments < 100,
        "{:?}",
        fs.geo
    );
    let z = zoned(85);
    assert_eq!(z.geo.segs_per_sec, 32);
    assert_eq!(z.geo.usable_segs_per_sec, 24);
    assert_eq!(z.geo.reserved_segments % 32, 0);
}

/// mkfs's own choice without a device: at 512 GB of 2 MiB segments the search settles where
/// reserved and overprovision segments meet (0.20 %, 100/0.2 + 7 = 507 reserved), and it is
/// what a mount of the same main area picks.
#[test]
fn mkfs_reserve_alone_matches_the_mount() {
    let (ovp, r) = layout::mkfs_reserve(244_140);
    assert!((ovp - 0.20).abs() < 1e-6 && r == 507, "{ovp} {r}");
    let fs = conv(1024);
    let (ovp, r) = layout::mkfs_reserve(fs.geo.usable_segs());
    assert_eq!(
        (ovp, r),
        (fs.geo.overprovision_pct, fs.geo.reserved_segments)
    );
}

#[test]
fn conventional_churn_collects_and_keeps_invariants() {
    let mut fs = conv(256);
    churn(&mut fs, 16, 2560, 60_000, 7);
    fs.check_invariants().unwrap();
    let c = fs.counters();
    assert!(c.fs_bytes_written() > c.data_bytes);
    assert!(c.checkpoints.total > 1);
    let (free, dirty, full, pre) = fs.segs.classes();
    assert!(free + dirty + full + pre > 0);
}

#[test]
fn zoned_churn_resets_zones_and_never_writes_in_place() {
    let mut fs = zoned(24);
    churn(&mut fs, 8, 8000, 150_000, 3);
    fs.check_invariants().unwrap();
    let c = fs.counters();
    assert_eq!(c.ipu_blocks, 0);
    assert!(c.gc[0].blocks_moved > 0, "{c:?}");
    assert!(c.zone_resets > 0);
}

#[test]
fn small_fsync_updates_in_place_in_adaptive_mode() {
    let mut fs = conv(256);
    let f = fs.create(ROOT, "a", 0).unwrap();
    fs.write(f, 0, 16 * 4096, false).unwrap();
    fs.fsync(f, false);
    let before = fs.counters().node_bytes;
    fs.write(f, 4096, 4096, false).unwrap();
    fs.fsync(f, true);
    assert_eq!(fs.counters().ipu_blocks, 1);
    assert_eq!(
        fs.counters().node_bytes,
        before,
        "IPU-only fdatasync writes no node"
    );
    fs.check_invariants().unwrap();
}

#[test]
fn unlink_frees_space_after_checkpoint() {
    let mut fs = conv(256);
    let f = fs.create(ROOT, "a", 0).unwrap();
    fs.write(f, 0, 4 << 20, false).unwrap();
    fs.sync();
    let free0 = fs.sample().free_segments;
    fs.unlink(f);
    fs.check_invariants().unwrap();
    fs.sync();
    assert!(
        fs.sample().free_segments > free0,
        "one full segment freed (the other is still the current one)"
    );
    fs.check_invariants().unwrap();
}

#[test]
fn full_file_system_answers_enospc() {
    let mut fs = conv(64);
    let f = fs.create(ROOT, "big", 0).unwrap();
    let mut err = false;
    for k in 0..20_000u64 {
        if fs.write(f, k * 4096, 4096, false).is_err() {
            err = true;
            break;
        }
    }
    assert!(err);
    assert!(fs.counters().enospc > 0);
    fs.sync();
    fs.check_invariants().unwrap();
}

/// Files deleted every second one leave dirty segments; writing on when free sections run low
/// reuses them (SSR), and the kept dirty segment lists still match the segments.
#[test]
fn holes_of_deleted_files_are_recycled_and_the_dirty_lists_kept() {
    let mut fs = conv(64);
    // Fill with 32 KiB files (written back every 64), then delete every second one.
    let fill = |fs: &mut F2fs, prefix: &str| {
        let mut inos = Vec::new();
        for k in 0.. {
            let Ok(i) = fs.create(ROOT, &format!("{prefix}{k}"), 0) else {
                break;
            };
            inos.push(i);
            if fs.write(i, 0, 32 << 10, false).is_err() {
                break;
            }
            if k % 64 == 63 {
                fs.sync();
                fs.check_invariants().unwrap();
            }
            fs.out.clear();
        }
        fs.sync();
        fs.out.clear();
        inos
    };
    let inos = fill(&mut fs, "f");
    for i in inos.iter().step_by(2) {
        fs.unlink(*i);
    }
    fs.sync();
    fs.out.clear();
    assert!(fs.segs.classes().1 > 0, "no dirty segment left");
    fill(&mut fs, "g");
    assert!(fs.counters().ssr_segments > 0, "no SSR segment opened");
    fs.check_invariants().unwrap();
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]
    #[test]
    fn random_operations_keep_the_invariants(ops in proptest::collection::vec((0u8..5, 0u32..6, 0u64..3000), 1..400), z in any::<bool>()) {
        let mut fs = if z { zoned(24) } else { conv(48) };
        let mut files: Vec<Option<Ino>> = vec![None; 6];
        for (op, k, b) in ops {
            let slot = &mut files[k as usize];
            match (op, *slot) {
                (0, None) => *slot = fs.create(ROOT, "x", 0).ok(),
                (0 | 1, Some(i)) => { let _ = fs.write(i, b * 4096, 8192, false); }
                (2, Some(i)) => fs.fsync(i, b % 2 == 0),
                (3, Some(i)) => { fs.unlink(i); *slot = None; }
                (4, _) => fs.sync(),
                _ => {}
            }
            fs.out.clear();
            prop_assert!(fs.check_invariants().is_ok(), "{:?}", fs.check_invariants());
        }
    }
}
