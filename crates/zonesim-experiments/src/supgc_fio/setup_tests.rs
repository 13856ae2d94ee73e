//! The ext4 set-up of supgc-fio: ten direct jobs, each on its own file, sized within the file
//! system, and runs that lay their files out without ENOSPC.

use super::*;
use zonesim::host::fio::SizeSpec;
use zonesim::sim::fs::mount;

fn jobs(pct: u64) -> Vec<zonesim::host::fio::JobSpec> {
    match workload(1 << 30, 50, 100, Distribution::Uniform, pct) {
        WorkloadSpec::Jobs(j) => j,
        _ => panic!("supgc-fio's workload is fio jobs"),
    }
}

#[test]
fn ten_direct_jobs_each_on_its_own_file_within_the_share() {
    for share in [80, FILES_PCT] {
        let j = jobs(share);
        assert_eq!(j.len(), JOBS as usize);
        let mut names: Vec<&str> = j.iter().map(|x| x.name.as_str()).collect();
        names.dedup();
        assert_eq!(names.len(), JOBS as usize, "one job, one file name");
        let mut total = 0;
        for x in &j {
            assert_eq!(x.files.directory.as_deref(), Some("fio"));
            assert_eq!(x.files.direct, Some(true));
            assert_eq!(x.files.nrfiles, None, "one file per job");
            assert_eq!(x.rw, RwMode::RandRw);
            assert_eq!((x.bs, x.rwmixread), (4096, 50));
            let Some(SizeSpec::Bytes(b)) = x.size else {
                panic!("each file has a size in bytes")
            };
            assert_eq!(b % 4096, 0);
            total += b;
        }
        assert!(total <= (1 << 30) * share / 100);
        assert!(total > (1 << 30) * (share - 1) / 100);
    }
}

#[test]
fn the_device_has_ext4_and_the_host_cpu() {
    let cfg = device(&size(crate::Scale::Quick), "sup", &[]).unwrap();
    let fs = cfg.fs.expect("the device has a file system");
    assert_eq!(fs.kind, zonesim::config::fs::FsKind::Ext4);
    assert_eq!(cfg.host.cpu.cores, HOST_CORES);
}

/// Both shares lay the ten files out on the quick device (a file short of its size fails the
/// run) and the jobs then run on them; a share beyond what fits is refused.
#[test]
fn the_files_lay_out_at_both_shares() {
    let setting = |files_pct| Setting {
        size: Size {
            ios: 200,
            ..size(crate::Scale::Quick)
        },
        extra: Vec::new(),
        files_pct,
    };
    for pct in [80, FILES_PCT] {
        let p = run_with(1, &setting(pct), "single", 50, Distribution::Uniform).unwrap();
        assert!(p.m[0] > 0.0, "the jobs ran");
    }
    match run_with(1, &setting(95), "single", 50, Distribution::Uniform) {
        Err(e) => assert!(format!("{e:?}").contains("ENOSPC"), "{e:?}"),
        Ok(_) => panic!("files over 95 % of the quick device's ext4 do not lay out"),
    }
}

/// The quick device's layout for `placement` (seed 1) and the run options it was made with.
fn quick_layout(placement: &str) -> (Layout, RunOptions, u64) {
    let cfg = device(&size(crate::Scale::Quick), placement, &[]).unwrap();
    let dev = zonesim::device::Device::new(&cfg, 1).unwrap();
    let free = mount(&cfg.fs.clone().unwrap(), &dev, 0)
        .unwrap()
        .fs
        .free_bytes();
    let opts = RunOptions {
        seed: 1,
        precondition: Precondition::None,
        ..RunOptions::default()
    };
    let w = workload(free, 50, 1, Distribution::Uniform, FILES_PCT);
    (Layout::new(&cfg, &w, &opts).unwrap(), opts, free)
}

/// Runs from a copy of a layout are exact, for every policy and with GC running: the same
/// report as from a layout made afresh, and the layout unchanged by the runs from it.
#[test]
fn runs_from_a_copied_layout_are_exact() {
    let json = |r: &zonesim::stats::Report| {
        let mut v = zonesim::stats::report::without_wall_clock(serde_json::to_value(r).unwrap());
        if let Some(sim) = v.get_mut("sim").and_then(|s| s.as_object_mut()) {
            sim.retain(|k, _| !k.contains("cpu_s"));
        }
        v
    };
    for (_, placement) in POLICIES {
        let (layout, opts, free) = quick_layout(placement);
        // 75 % writes, 8,000 I/Os per job: 240 MiB written on the 512 MiB device, GC runs.
        let w = workload(free, 75, 8_000, Distribution::Uniform, FILES_PCT);
        let first = json(&layout.run(&w, &opts).unwrap());
        let moved = first["device"]["gc"]["pages_moved"].as_u64().unwrap();
        assert!(moved > 0, "{placement}: GC ran");
        assert_eq!(
            first,
            json(&layout.run(&w, &opts).unwrap()),
            "{placement}: again"
        );
        let fresh = quick_layout(placement).0;
        assert_eq!(
            first,
            json(&fresh.run(&w, &opts).unwrap()),
            "{placement}: fresh"
        );
    }
}

/// Whether a layout depends on the placement policy: the four policies' layouts of the quick
/// device compared page by page (where each logical page is, and in which stream's
/// superblock) and by when the layout ends. SUP lays out as single does (new writes are its
/// hot stream), GCaR places as single but its traversal per written page delays the end,
/// BF-Optimized's filters split the layout's pages over two streams: so one layout per policy
/// (each also carries its policy's own state).
#[test]
fn layouts_by_policy() {
    use zonesim::device::Namespace;
    let state = |placement: &str| {
        let l = quick_layout(placement).0;
        let Namespace::Conventional(f) = &l.device().namespaces[0] else {
            panic!("a conventional namespace")
        };
        let pages: Vec<_> = (0..f.logical_pages())
            .map(|p| {
                let lpa = zonesim::firmware::mapping::Lpa(p as u32);
                (f.lookup(lpa), f.superblock_of(lpa))
            })
            .collect();
        (pages, l.device().clock)
    };
    let single = state("single");
    let differ = |o: &(Vec<_>, _)| single.0.iter().zip(&o.0).filter(|(a, b)| a != b).count();
    let sup = state("sup");
    assert_eq!(
        (differ(&sup), sup.1),
        (0, single.1),
        "sup lays out as single"
    );
    let gcar = state("gcar");
    assert_eq!(differ(&gcar), 0, "gcar places as single");
    assert!(gcar.1 > single.1, "gcar's traversal delays the layout");
    let bloom = state("bloom");
    assert!(
        differ(&bloom) > single.0.len() / 2,
        "bloom splits the layout"
    );
}
