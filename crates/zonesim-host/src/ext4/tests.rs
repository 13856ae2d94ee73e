use super::*;
use crate::IoKind;
use proptest::prelude::*;

fn mount(mb: u64) -> Ext4 {
    Ext4::new(Ext4Params::default(), mb << 20).unwrap()
}

fn writes(fs: &Ext4) -> Vec<(u64, u64)> {
    fs.out
        .cmds
        .iter()
        .filter(|c| c.io.kind == IoKind::Write)
        .map(|c| (c.io.offset / BLOCK_BYTES, c.io.len / BLOCK_BYTES))
        .collect()
}

#[test]
fn mkfs_follows_mke2fs_defaults() {
    let fs = mount(1024);
    assert_eq!(fs.l.groups, 8);
    assert_eq!(fs.l.ipg, 8192);
    assert_eq!(fs.l.itb, 512);
    // 262,144 blocks: ext2fs_default_journal_size's 32 MiB.
    assert_eq!(fs.l.journal_blocks, 8192);
    assert!(layout::has_super(25) && layout::has_super(49) && !layout::has_super(10));
    fs.check_invariants().unwrap();
}

#[test]
fn a_journal_larger_than_a_group_spans_groups() {
    // A 256 MiB journal (65,536 blocks, two groups' worth) on 8 GiB: it runs on past the
    // group boundary.
    let p = Ext4Params {
        journal_blocks: Some(65_536),
        ..Ext4Params::default()
    };
    let fs = Ext4::new(p, 8 << 30).unwrap();
    assert_eq!(fs.l.journal_blocks, 65_536);
    fs.check_invariants().unwrap();
}

#[test]
fn delayed_allocation_allocates_at_writeback_contiguously() {
    let mut fs = mount(1024);
    let f = fs.create(ROOT, "a", 0).unwrap();
    fs.write(f, 0, 1 << 20, false).unwrap();
    // Buffered: no data written, no blocks allocated yet.
    assert_eq!(fs.c.allocated_blocks, 0);
    assert_eq!(fs.dirty_pages(), 256);
    fs.out.clear();
    fs.fsync(f, false);
    assert_eq!(fs.c.allocated_blocks, 256);
    assert_eq!(fs.inodes[f.0 as usize].ext.len(), 1, "one extent");
    // Data first, then the journal: descriptor, metadata, commit block between flushes.
    let w = writes(&fs);
    let b = fs.inodes[f.0 as usize].ext.v[0].pblk;
    assert_eq!(w[0], (b, 128), "data in bio-sized commands first: {w:?}");
    assert_eq!(fs.c.commits.fsync, 1);
    assert!(
        fs.c.journal_metadata_blocks >= 3,
        "inode table, bitmap, descriptor"
    );
    let flushes = fs
        .out
        .cmds
        .iter()
        .filter(|c| c.io.kind == IoKind::Flush)
        .count();
    assert_eq!(flushes, 2, "PREFLUSH and FUA of the commit block");
    fs.check_invariants().unwrap();
    // A second fdatasync with nothing new: a cache flush only.
    fs.out.clear();
    fs.fsync(f, true);
    assert_eq!(fs.c.fsync_flush_only, 1);
    assert_eq!(writes(&fs).len(), 0);
}

#[test]
fn appends_continue_the_extent_and_overwrites_stay_in_place() {
    let mut fs = mount(512);
    let f = fs.create(ROOT, "log", 0).unwrap();
    let g = fs.create(ROOT, "other", 0).unwrap();
    for k in 0..64u64 {
        fs.write(f, k * 4096, 4096, false).unwrap();
        fs.fsync(f, true);
        fs.write(g, k * 4096, 4096, false).unwrap();
        fs.fsync(g, true);
    }
    // Below 16 blocks the two files' blocks interleave (no inode preallocation yet); from
    // then on a preallocation keeps each file's next blocks next to its last.
    let v = &fs.inodes[f.0 as usize].ext.v;
    assert!(v.len() <= 17, "{} extents: {v:?}", v.len());
    assert!(v.last().unwrap().len >= 48, "{v:?}");
    let before = fs.inodes[f.0 as usize].ext.v.clone();
    fs.write(f, 10 * 4096, 4096, false).unwrap();
    fs.fsync(f, false);
    assert_eq!(fs.inodes[f.0 as usize].ext.v, before);
    assert_eq!(fs.c.overwrite_blocks, 1);
    fs.check_invariants().unwrap();
}

#[test]
fn random_writes_into_fallocated_files_split_unwritten_extents() {
    let mut fs = mount(1024);
    let f = fs.create(ROOT, "pre", 0).unwrap();
    fs.fallocate(f, 64 << 20).unwrap();
    assert_eq!(fs.inodes[f.0 as usize].ext.len(), 1);
    let mut x = 12345u64;
    for _ in 0..2000 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        fs.write(f, (x % 16384) * 4096, 4096, false).unwrap();
    }
    fs.sync();
    let n = fs.inodes[f.0 as usize].ext.len();
    assert!(n > 4, "{n} extents");
    assert_eq!(fs.inodes[f.0 as usize].tree.len(), extent::tree_blocks(n));
    assert!(fs.c.zeroout_blocks > 0, "short unwritten pieces zeroed");
    fs.check_invariants().unwrap();
}

#[test]
fn commit_timer_and_journal_wrap() {
    let mut fs = Ext4::new(
        Ext4Params {
            journal_blocks: Some(1024),
            ..Ext4Params::default()
        },
        256 << 20,
    )
    .unwrap();
    let mut files = Vec::new();
    for k in 0..400 {
        fs.now = k * 100_000_000;
        files.push(fs.create(ROOT, &format!("f{k}"), 0).unwrap());
        fs.write(files[k as usize], 0, 4096, false).unwrap();
        fs.out.clear();
    }
    assert!(fs.c.commits.timer >= 7, "{:?}", fs.c.commits);
    assert!(
        fs.c.meta_home.total() > 0,
        "the flusher wrote committed metadata home"
    );
    for (k, &f) in files.iter().enumerate() {
        fs.now = 40_000_000_000 + k as u64 * 1_000_000;
        fs.fsync(f, false);
        fs.unlink(f);
        fs.out.clear();
        fs.check_invariants().unwrap();
    }
    fs.sync();
    fs.check_invariants().unwrap();
    assert_eq!(fs.j.in_log(), 0);
}

#[test]
fn blocks_freed_are_reused_only_after_the_commit() {
    let mut fs = mount(64);
    let f = fs.create(ROOT, "a", 0).unwrap();
    fs.write(f, 0, 8 << 20, false).unwrap();
    fs.fsync(f, false);
    let b = fs.inodes[f.0 as usize].ext.v[0].pblk;
    fs.unlink(f);
    let g = fs.create(ROOT, "b", 0).unwrap();
    fs.write(g, 0, 4096, false).unwrap();
    fs.writeback_file(g.0, stats::Flush::Fsync);
    assert_ne!(fs.inodes[g.0 as usize].ext.v[0].pblk, b);
    fs.check_invariants().unwrap();
}

#[test]
fn filling_the_file_system_returns_no_space() {
    let mut fs = mount(32);
    let f = fs.create(ROOT, "big", 0).unwrap();
    let mut r = Ok(());
    for k in 0..20_000u64 {
        r = fs.write(f, k * 4096, 4096, false);
        if r.is_err() {
            break;
        }
    }
    assert_eq!(r, Err(FsError::NoSpace));
    fs.sync();
    fs.check_invariants().unwrap();
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]
    #[test]
    fn random_operations_keep_the_invariants(
        ops in proptest::collection::vec((0u8..7, 0u32..6, 0u64..3000), 1..300),
        nodelalloc in any::<bool>(),
    ) {
        let p = Ext4Params { delalloc: !nodelalloc, journal_blocks: Some(1024), ..Ext4Params::default() };
        let mut fs = Ext4::new(p, 48 << 20).unwrap();
        let dir = fs.mkdir(ROOT).unwrap();
        let mut files: Vec<Option<Ino>> = vec![None; 6];
        for (op, k, b) in ops {
            fs.now += b * 10_000_000;
            let slot = &mut files[k as usize];
            match (op, *slot) {
                (0, None) => *slot = fs.create(dir, "x", 0).ok(),
                (0 | 1, Some(i)) => { let _ = fs.write(i, b * 4096, 8192 * (1 + b % 3), false); }
                (2, Some(i)) => fs.fsync(i, b % 2 == 0),
                (3, Some(i)) => { fs.unlink(i); *slot = None; }
                (4, _) => fs.sync(),
                (5, Some(i)) => { let _ = fs.fallocate(i, (b % 64 + 1) << 16); }
                (6, Some(i)) => fs.read(i, b * 4096, 16384),
                _ => { fs.bg_tick(fs.now); }
            }
            fs.out.clear();
            prop_assert!(fs.check_invariants().is_ok(), "{:?}", fs.check_invariants());
        }
    }
}

/// What a file system has done and will do: its commands, counters, journal, page cache and
/// every file's state (the dirty set by its pages, not its representation).
fn state(fs: &Ext4) -> String {
    let files: Vec<String> = fs
        .inodes
        .iter()
        .map(|f| {
            let mut dirty = f.dirty.items().to_vec();
            dirty.sort_unstable();
            format!(
                "{} {:?} {:?} {} {} {} {} {} {:?} {:?} {:?}",
                f.size,
                dirty,
                f.ext,
                f.in_dirty_list,
                f.dirty_since,
                f.reserved,
                f.sync_tid,
                f.datasync_tid,
                f.tree,
                f.pa,
                f.alive
            )
        })
        .collect();
    format!(
        "{:?}\n{:?}\n{:?}\n{} {} {:?} {} {}\n{}",
        fs.out.cmds,
        fs.c,
        fs.j,
        fs.dirty_pages,
        fs.reserved,
        fs.dirty_files,
        fs.now,
        fs.last_flusher,
        files.join("\n")
    )
}

/// Files of 1 MiB written and synced, as fio lays its files out.
fn laid_out(delalloc: bool) -> (Ext4, Vec<Ino>) {
    let p = Ext4Params {
        delalloc,
        journal_blocks: Some(1024),
        ..Ext4Params::default()
    };
    let mut fs = Ext4::new(p, 48 << 20).unwrap();
    let dir = fs.mkdir(ROOT).unwrap();
    let files: Vec<Ino> = (0..3).map(|_| fs.create(dir, "x", 0).unwrap()).collect();
    for &f in &files {
        fs.write(f, 0, 1 << 20, false).unwrap();
    }
    fs.sync();
    (fs, files)
}

#[test]
fn a_direct_overwrite_of_written_blocks_skips_the_page_cache() {
    let (mut fs, files) = laid_out(true);
    assert!(fs.write_direct_overwrite(files[0].0, 8192, 4096));
    assert_eq!(fs.c.flushes.direct, 1);
    // Beyond the end of the file, or over pages in the page cache: the general path.
    assert!(!fs.write_direct_overwrite(files[0].0, 1 << 20, 4096));
    fs.write(files[1], 0, 4096, false).unwrap();
    assert!(!fs.write_direct_overwrite(files[1].0, 0, 8192));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]
    /// Direct writes through the shortcut of `direct.rs` leave the file system as the general
    /// path does, command for command, among buffered writes, fsyncs, fallocate (unwritten
    /// extents) and writes that grow a file.
    #[test]
    fn direct_overwrites_equal_the_general_path(
        ops in proptest::collection::vec((0u8..6, 0usize..3, 0u64..3000), 1..150),
        nodelalloc in any::<bool>(),
    ) {
        let (mut a, files) = laid_out(!nodelalloc);
        let mut b = a.clone();
        for (op, k, x) in ops {
            let f = files[k];
            let (off, len) = ((x % 300) * 4096, 4096 * (1 + x % 4));
            for fs in [&mut a, &mut b] {
                fs.now += x * 1_000_000;
            }
            match op {
                0..=2 => {
                    let (ra, rb) = (a.write(f, off, len, true), b.write_cached(f.0, off, len, true));
                    prop_assert_eq!(ra.is_ok(), rb.is_ok());
                }
                3 => {
                    for fs in [&mut a, &mut b] {
                        let _ = fs.write(f, off, len, false);
                    }
                }
                4 => {
                    for fs in [&mut a, &mut b] {
                        fs.fsync(f, x % 2 == 0);
                    }
                }
                _ => {
                    for fs in [&mut a, &mut b] {
                        let _ = fs.fallocate(f, (x % 8 + 1) << 20);
                    }
                }
            }
            prop_assert_eq!(state(&a), state(&b));
        }
    }
}
