use super::*;
use zonesim::host::fs::{Area, FsCmd};
use zonesim::host::HostIo;

fn read(len: u64) -> FsCmd {
    FsCmd {
        area: Area::Main,
        io: HostIo::new(IoKind::Read, 0, len),
        barrier: false,
        copy_from: None,
    }
}

/// Bins are inclusive of their upper bound (4 and 8 KiB are "4~8 KB"), writes are ignored.
#[test]
fn read_sizes_bin_by_kib() {
    let mut r = ReqSizes::default();
    let mut w = read(4096);
    w.io.kind = IoKind::Write;
    let cmds: Vec<FsCmd> = [4, 8, 12, 64, 68, 256, 512, 516, 1024]
        .iter()
        .map(|&k| read(k << 10))
        .chain([w])
        .collect();
    r.record(&cmds);
    assert_eq!(r.bins, [2, 2, 2, 1, 2]);
    assert_eq!(r.requests, 9);
    assert!((r.pct(0) - 200.0 / 9.0).abs() < 1e-9);
}

/// The file system splits a 1 MiB read of a file at each discontinuity and merges each
/// contiguous run up to `fs.max_bio_bytes`.
#[test]
fn a_file_in_one_extent_reads_in_max_bio_requests() {
    let cfg = zonesim::load_device("cufs-2026", &[]).unwrap();
    let fs = FsConfig {
        max_bio_bytes: Some(MAX_BIO),
        ..FsConfig::default()
    };
    let mut rig = FsRig::new(&cfg, &fs, 1).unwrap();
    let s = install_and_read(&mut rig, "t", 2, 4 << 20, ALONE, None).unwrap();
    assert_eq!(s.extents, 2);
    assert_eq!((s.reads.requests, s.reads.bins[4]), (8, 8));
    assert!(s.read_s > 0.0);
}

/// A concurrent writer gets the log between the 4 MiB writeback chunks: a 4.5 MB file on
/// a fresh device is two extents, and the writer's files are not counted in the set.
#[test]
fn a_concurrent_writer_splits_files_at_writeback_chunks() {
    let cfg = zonesim::load_device("cufs-2026", &[]).unwrap();
    let mut rig = FsRig::new(&cfg, &FsConfig::default(), 1).unwrap();
    let how = Install {
        ext: ".jpg",
        other_bytes: Some(OTHER_BYTES),
    };
    let s = install_and_read(&mut rig, "p", 3, PHOTO_FILE, how, None).unwrap();
    assert_eq!((s.files, s.extents), (3, 6));
    let alone = install_and_read(&mut rig, "q", 3, PHOTO_FILE, ALONE, None).unwrap();
    assert_eq!(alone.extents, 3);
}
