//! The kernel profiles (`Kernel`, docs/fs.md "What differs between kernels"): each policy that
//! changed between 5.4 and 6.18 behaves as its release had it, and the ones that did not are
//! the same under every profile.

use super::gc::GcPhase;
use super::*;
use proptest::prelude::*;

const MS: u64 = 1_000_000;
/// Blocks of a section of the zoned area below (48 MiB usable).
const SEC: u64 = 12 * 1024;

/// A zoned main area of `zones` 64 MiB zones (48 MiB usable) under `k`.
fn zoned(k: Kernel, zones: u64) -> F2fs {
    let dev = FsDevice {
        main_ns_bytes: zones * (64 << 20),
        zone: Some((64 << 20, 48 << 20)),
        meta_ns_bytes: Some(128 << 20),
    };
    F2fs::new(FsParams::kernel_default(true, k, 32), &dev).unwrap()
}

fn conv(k: Kernel) -> F2fs {
    let dev = FsDevice {
        main_ns_bytes: 256 << 20,
        zone: None,
        meta_ns_bytes: None,
    };
    F2fs::new(FsParams::kernel_default(false, k, 1), &dev).unwrap()
}

/// Fill a file of `blocks` blocks, then overwrite every other block of it, and sync: dirty
/// sections half valid, the rest of the area free.
fn half_invalid(fs: &mut F2fs, blocks: u64) {
    let f = fs.create(ROOT, "a", 0).unwrap();
    fs.write(f, 0, blocks * 4096, false).unwrap();
    fs.sync();
    for b in (0..blocks).step_by(2) {
        fs.write(f, b * 4096, 4096, false).unwrap();
    }
    fs.sync();
    fs.out.clear();
}

fn bg_moved(fs: &F2fs) -> u64 {
    let c = fs.counters();
    c.gc[1].blocks_moved + c.gc[2].blocks_moved
}

#[test]
fn zoned_background_gc_policy_starts_with_6_12() {
    for k in Kernel::ALL {
        let p = FsParams::kernel_default(true, k, 32);
        let new = k >= Kernel::V6_12;
        assert_eq!(k.zoned_bg_gc(), new, "{k:?}");
        let sleeps = (
            p.gc_min_sleep_time_ms,
            p.gc_max_sleep_time_ms,
            p.gc_no_gc_sleep_time_ms,
        );
        if new {
            assert_eq!(sleeps, (10, 20, 60_000), "{k:?}");
            assert_eq!(
                (p.gc_no_zoned_gc_percent, p.gc_boost_zoned_gc_percent),
                (60, 25)
            );
            assert_eq!(p.migration_window_granularity, 3);
        } else {
            assert_eq!(sleeps, (30_000, 60_000, 300_000), "{k:?}");
            assert_eq!(
                (p.gc_no_zoned_gc_percent, p.gc_boost_zoned_gc_percent),
                (0, 0)
            );
            assert_eq!(p.migration_window_granularity, 32);
        }
        // A conventional main area is the same under every profile.
        assert_eq!(
            FsParams::kernel_default(false, k, 1),
            FsParams {
                kernel: k,
                gc_valid_thresh_ratio: k.valid_thresh_ratio(),
                ..FsParams::kernel_default(false, Kernel::V6_18, 1)
            }
        );
    }
    assert_eq!(Kernel::V6_12.valid_thresh_ratio(), 95);
    assert_eq!(Kernel::V6_18.valid_thresh_ratio(), 80);
}

/// Mostly free sections: 6.12's zoned thread sits in No-GC and moves nothing; before 6.12 the
/// conventional thread, when idle, cleans a whole section by cost-benefit.
#[test]
fn zoned_no_gc_phase_only_from_6_12() {
    for k in Kernel::ALL {
        let mut fs = zoned(k, 24);
        half_invalid(&mut fs, 2 * SEC);
        let sleep = fs.bg_tick(60_000 * MS, true).unwrap();
        if k.zoned_bg_gc() {
            assert_eq!(fs.gc_phase(), GcPhase::NoGc, "{k:?}");
            assert_eq!(sleep, 60_000 * MS);
            assert_eq!(bg_moved(&fs), 0, "{k:?}");
        } else {
            assert_eq!(fs.gc_phase(), GcPhase::Normal, "{k:?}");
            assert!(bg_moved(&fs) > 0, "{k:?}: idle thread cleans");
            // Whole sections: every valid block of the victim moved, none left half done.
            assert_eq!(fs.counters().gc[1].victims, 1);
            assert!(sleep >= 30_000 * MS, "{k:?}: {sleep}");
        }
        fs.out.clear();
        fs.check_invariants().unwrap();
    }
}

/// Free sections under the boost threshold (raised to 90 % here, No-GC off, so that the small
/// area gets there before foreground GC): 6.12 on boosts (shorter sleep, windows counted as
/// boosted); before 6.12 nothing boosts, and a thread that is not idle does not collect at all.
#[test]
fn zoned_bg_gc_boosts_only_from_6_12() {
    for k in Kernel::ALL {
        let mut fs = zoned(k, 24);
        fs.p.gc_no_zoned_gc_percent = 100;
        fs.p.gc_boost_zoned_gc_percent = 90;
        half_invalid(&mut fs, 2 * SEC);
        let free = fs.sample().free_segments;
        let busy = fs.bg_tick(60_000 * MS, false).unwrap();
        let c = fs.counters().clone();
        if k.zoned_bg_gc() {
            assert_eq!(fs.gc_phase(), GcPhase::Boosted, "{k:?} free segs {free}");
            assert!(busy <= 20 * MS);
            // Not idle: paused, nothing moved.
            assert_eq!(bg_moved(&fs), 0);
            fs.bg_tick(60_000 * MS + busy, true);
            assert!(fs.counters().gc[2].blocks_moved > 0, "{k:?}");
        } else {
            assert_eq!(fs.gc_phase(), GcPhase::Normal, "{k:?}");
            assert!(busy >= 30_000 * MS, "{k:?}: {busy}");
            assert_eq!(c.gc[2].victims, 0);
            assert_eq!(bg_moved(&fs), 0, "{k:?}: not idle, no GC");
        }
        fs.out.clear();
        fs.check_invariants().unwrap();
    }
}

/// `gc_valid_thresh_ratio` on Normal rounds: 6.18 skips a section above the ratio, 6.12 takes
/// it (only boosted rounds are `one_time` there).
#[test]
fn valid_ratio_filter_on_normal_rounds_from_6_18() {
    assert!(!Kernel::V6_12.one_time_every_zoned_round());
    assert!(Kernel::V6_18.one_time_every_zoned_round());
    for k in [Kernel::V6_12, Kernel::V6_18] {
        // Enough sections that the filter is not dropped for want of free ones.
        let mut fs = zoned(k, 96);
        fs.p.gc_no_zoned_gc_percent = 100;
        fs.p.gc_boost_zoned_gc_percent = 0;
        fs.p.gc_valid_thresh_ratio = 50;
        // One section nearly all valid (1 block in 16 overwritten).
        let f = fs.create(ROOT, "a", 0).unwrap();
        fs.write(f, 0, SEC * 4096, false).unwrap();
        fs.sync();
        for b in (0..SEC).step_by(16) {
            fs.write(f, b * 4096, 4096, false).unwrap();
        }
        fs.sync();
        fs.out.clear();
        fs.bg_tick(10 * MS, true);
        assert_eq!(fs.gc_phase(), GcPhase::Normal);
        let moved = fs.counters().gc[1].blocks_moved;
        assert_eq!(moved > 0, k == Kernel::V6_12, "{k:?}: moved {moved}");
        fs.out.clear();
    }
}

/// Foreground GC's need counts dirty data in LFS mode only for the 6.12 / 6.18 profiles.
#[test]
fn lfs_dirty_data_counts_toward_foreground_gc_from_6_12() {
    for k in Kernel::ALL {
        let mut fs = zoned(k, 24);
        let base = fs.needed_secs();
        let f = fs.create(ROOT, "a", 0).unwrap();
        // 3 sections of dirty data, not written back (under the page-cache limit).
        fs.p.dirty_bytes = 1 << 30;
        fs.write(f, 0, 3 * SEC * 4096, false).unwrap();
        let bps = fs.geo.blocks_per_sec() as u64;
        let node_dent = fs.dirty_nodes.div_ceil(bps) + 2 * fs.dirty_dent_pages.div_ceil(bps);
        let extra = if k.counts_dirty_data_in_lfs() { 3 } else { 0 };
        assert_eq!(fs.needed_secs(), base + node_dent + extra, "{k:?}");
        fs.out.clear();
    }
}

/// 5.4 checkpoints for `CP_TIME` (and prefree pressure) only when the device is idle; from 6.1
/// the timer checkpoints from a foreground caller too.
#[test]
fn timer_checkpoint_waits_for_idle_only_in_5_4() {
    for k in Kernel::ALL {
        let mut fs = conv(k);
        let f = fs.create(ROOT, "a", 0).unwrap();
        fs.now = 61_000 * MS;
        fs.write(f, 0, 4096, false).unwrap();
        let fg = fs.counters().checkpoints.timer;
        assert_eq!(fg > 0, !k.bg_cp_waits_for_idle(), "{k:?}");
        fs.now = 200_000 * MS;
        fs.bg_tick(200_000 * MS, true);
        assert!(
            fs.counters().checkpoints.timer > fg,
            "{k:?}: idle thread checkpoints"
        );
        fs.out.clear();
    }
}

/// What did not change between the releases: the IPU defaults and SSR (adaptive mode only, so
/// never on a zoned main area, where every profile mounts LFS).
#[test]
fn ipu_and_ssr_defaults_are_the_same_in_every_release() {
    for k in Kernel::ALL {
        for zoned in [false, true] {
            let p = FsParams::kernel_default(zoned, k, if zoned { 32 } else { 1 });
            let lfs = p.mode == FsMode::Lfs;
            assert_eq!(lfs, zoned, "{k:?}");
            assert_eq!(p.ipu_policy, if zoned { 0 } else { params::IPU_FSYNC });
            assert_eq!((p.min_ipu_util, p.min_fsync_blocks), (70, 8));
            assert_eq!((p.max_victim_search, p.cp_interval_ms), (4096, 60_000));
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(10))]
    /// Every profile keeps the file system's invariants under random operations with the
    /// background thread waking between them, idle or not.
    #[test]
    fn every_kernel_keeps_the_invariants(
        k in 0usize..5,
        ops in proptest::collection::vec((0u8..6, 0u32..4, 0u64..3000), 1..300),
    ) {
        let k = Kernel::ALL[k];
        let mut fs = zoned(k, 24);
        let mut files: Vec<Option<Ino>> = vec![None; 4];
        let mut now = 0u64;
        for (op, n, b) in ops {
            now += 5 * MS;
            fs.now = now;
            let slot = &mut files[n as usize];
            match (op, *slot) {
                (0, None) => *slot = fs.create(ROOT, "x", 0).ok(),
                (0 | 1, Some(i)) => { let _ = fs.write(i, b * 4096, 16384, false); }
                (2, Some(i)) => fs.fsync(i, b % 2 == 0),
                (3, Some(i)) => { fs.unlink(i); *slot = None; }
                (4, _) => { fs.bg_tick(now, b % 2 == 0); }
                (5, _) => fs.sync(),
                _ => {}
            }
            fs.out.clear();
            prop_assert!(fs.check_invariants().is_ok(), "{:?} {:?}", k, fs.check_invariants());
        }
    }
}
