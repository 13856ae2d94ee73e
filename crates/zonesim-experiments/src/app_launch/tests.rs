use super::*;
use proptest::prelude::*;
use zonesim::config::fs::FsConfig;

/// The reads of a plan: every file touched, no page read twice, inside the file.
fn check_plan(app: &App, reads: &[Read]) {
    let mut seen: Vec<Vec<bool>> = app
        .files
        .iter()
        .map(|f| vec![false; f.bytes.div_ceil(PAGE) as usize])
        .collect();
    for r in reads {
        let f = &app.files[r.file];
        assert!(r.len > 0 && r.off % PAGE == 0 && r.off + r.len <= f.bytes.div_ceil(PAGE) * PAGE);
        for p in r.off / PAGE..(r.off + r.len).div_ceil(PAGE) {
            assert!(!seen[r.file][p as usize], "{} page {p} read twice", f.name);
            seen[r.file][p as usize] = true;
        }
    }
    for (f, s) in app.files.iter().zip(&seen) {
        assert!(s.iter().any(|&x| x), "{} not touched", f.name);
        if f.access == Access::Whole {
            assert!(s.iter().all(|&x| x), "{} not read whole", f.name);
        }
    }
}

#[test]
fn plans_touch_every_file_once_per_page_and_repeat() {
    for div in [1, 4] {
        for app in apps(div) {
            let a = plan(&app, 7);
            check_plan(&app, &a);
            assert_eq!(a, plan(&app, 7), "deterministic");
            assert_ne!(a, plan(&app, 8), "the seed moves the faults");
            let small = a.iter().filter(|r| r.len <= 16 << 10).count();
            assert!(small * 2 > a.len(), "{}: mostly small reads", app.category);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]
    /// Any file sizes and shares: the plan reads each touched page once and every file.
    #[test]
    fn any_plan_is_valid(sizes in prop::collection::vec(1u64..400, 1..6), share in 0.0f64..1.0, seed in any::<u64>()) {
        let files = sizes.iter().enumerate().map(|(i, &p)| AppFile {
            name: ["a", "b", "c", "d", "e", "f"][i],
            bytes: p * PAGE - (i as u64 % 2) * 100,
            access: match i % 4 {
                0 => Access::Zip { tail: 64 << 10, share },
                1 => Access::Whole,
                2 => Access::Head { head: 16 << 10, share },
                _ => Access::Faults { share },
            },
            dexopt: false,
            db: false,
        }).collect();
        let app = App { category: "t", files };
        check_plan(&app, &plan(&app, seed));
    }
}

/// A small app on a fresh device.
fn small_rig() -> (FsRig, App, Installed) {
    let cfg = zonesim::load_device("cufs-2026", &[]).unwrap();
    let mut rig = FsRig::new(&cfg, &FsConfig::default(), 1).unwrap();
    let app = apps(16).swap_remove(0);
    let inst = install(&mut rig, "t", std::slice::from_ref(&app), 3, 1)
        .unwrap()
        .swap_remove(0);
    (rig, app, inst)
}

/// The launch reads what the plan says, all of it from the device (a cold launch), and its
/// time is CPU plus blocking I/O.
#[test]
fn launch_reads_the_plan_from_the_device() {
    let (mut rig, app, inst) = small_rig();
    let reads = plan(&app, 3);
    let l = launch(&mut rig, &inst, &reads, &mut LaunchCpu::sm8350(), 0);
    assert_eq!(l.reads, reads.len() as u64);
    assert_eq!(l.bytes, reads.iter().map(|r| r.len).sum::<u64>());
    assert!(l.requests >= l.reads && l.requests <= l.bytes / PAGE);
    assert_eq!(l.time_ns, l.io_ns + l.kernel_ns);
    assert_eq!(rig.f2fs().c.user_bytes_read, l.bytes);
}

/// The device time of the reads does not depend on the app's work between them, so a launch
/// measured without work composes with any (`Launch::with_app_ns`).
#[test]
fn launch_time_composes() {
    let (mut a, app, ia) = small_rig();
    let (mut b, _, ib) = small_rig();
    let reads = plan(&app, 5);
    let l0 = launch(&mut a, &ia, &reads, &mut LaunchCpu::sm8350(), 0);
    let l1 = launch(&mut b, &ib, &reads, &mut LaunchCpu::sm8350(), 250_000);
    assert_eq!(l0.with_app_ns(250_000), l1);
}

/// Installing with the concurrent writer splits a file at each writeback chunk (another
/// app's file lands between), and a database updated in use keeps its one inode.
#[test]
fn install_interleaves_other_writes() {
    let cfg = zonesim::load_device("cufs-2026", &[]).unwrap();
    let mut rig = FsRig::new(&cfg, &FsConfig::default(), 1).unwrap();
    let app = App {
        category: "t",
        files: vec![
            file("base.apk", 9, Access::Faults { share: 0.1 }),
            file("main.db", 1, Access::Faults { share: 0.1 }),
        ],
    };
    let inst = install(&mut rig, "t", std::slice::from_ref(&app), 2, 1)
        .unwrap()
        .swap_remove(0);
    assert_eq!(
        rig.f2fs().file_extents(inst.inos[0]),
        3,
        "9 MiB in 4 MiB chunks"
    );
    assert!(rig.f2fs().file_extents(inst.inos[1]) >= 1);
    assert_ne!(inst.inos[0], inst.inos[1]);
}
