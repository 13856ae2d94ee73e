//! The ext4 set-up of supgc-fio: ten direct jobs, each on its own file, sized within the file
//! system, and runs that lay their files out without ENOSPC.

use super::*;
use zonesim::host::fio::SizeSpec;

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
    let cfg = device(64, "sup", &[]).unwrap();
    let fs = cfg.fs.expect("the device has a file system");
    assert_eq!(fs.kind, zonesim::config::fs::FsKind::Ext4);
    assert_eq!(cfg.host.cpu.cores, HOST_CORES);
}

/// Both shares lay the ten files out on the quick device (a file short of its size fails the
/// run) and the jobs then run on them; a share beyond what fits is refused.
#[test]
fn the_files_lay_out_at_both_shares() {
    let setting = |files_pct| Setting {
        size: (64, 200),
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
