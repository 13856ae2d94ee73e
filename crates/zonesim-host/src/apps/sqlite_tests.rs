//! The write pattern per transaction against docs/fs.md "SQLite's write pattern".

use super::*;
use crate::fs::{F2fs, FsCounters, FsDevice, FsParams, Kernel, ROOT};

fn conv() -> F2fs {
    let dev = FsDevice {
        main_ns_bytes: 512 << 20,
        zone: None,
        meta_ns_bytes: None,
    };
    F2fs::new(FsParams::kernel_default(false, Kernel::V6_18, 1), &dev).unwrap()
}

fn zoned() -> F2fs {
    let dev = FsDevice {
        main_ns_bytes: 85 * (64 << 20),
        zone: Some((64 << 20, 48 << 20)),
        meta_ns_bytes: Some(128 << 20),
    };
    F2fs::new(FsParams::kernel_default(true, Kernel::V6_18, 32), &dev).unwrap()
}

/// Main-area blocks of one transaction: (IPU data, OPU data, node writes).
#[derive(Debug, PartialEq, Eq, Clone, Copy)]
struct Blocks {
    ipu: u64,
    opu: u64,
    node: u64,
    flushes: usize,
}

fn txn(fs: &mut F2fs, db: &mut Sqlite, kind: TxnKind, pick: u64) -> (TxnStats, Blocks) {
    fs.out.clear();
    let c0: FsCounters = fs.c.clone();
    let st = db.transaction(fs, kind, pick).unwrap();
    let c1 = &fs.c;
    let flushes = fs
        .out
        .cmds
        .iter()
        .filter(|c| c.io.kind == crate::IoKind::Flush)
        .count();
    fs.out.clear();
    let b = Blocks {
        ipu: c1.ipu_blocks - c0.ipu_blocks,
        opu: c1.opu_blocks - c0.opu_blocks,
        node: (c1.node_bytes - c0.node_bytes) / 4096,
        flushes,
    };
    (st, b)
}

fn wal(sync: Synchronous, ckpt: u32) -> SqliteConfig {
    SqliteConfig {
        journal: Journal::Wal,
        synchronous: sync,
        wal_autocheckpoint: ckpt,
        ..SqliteConfig::default()
    }
}

#[test]
fn btree_grows_by_splits() {
    let mut fs = conv();
    let mut db = Sqlite::create(&mut fs, ROOT, wal(Synchronous::Normal, 0)).unwrap();
    let cap = db.leaf_cap;
    assert_eq!(cap, (4096 - 8) / 130);
    let mut splits = 0;
    for _ in 0..cap {
        splits += txn(&mut fs, &mut db, TxnKind::Insert, 0).0.splits;
    }
    assert_eq!((splits, db.height(), db.db_pages()), (0, 1, 2));
    // The root leaf is full: balance_deeper + balance_quick.
    let (st, _) = txn(&mut fs, &mut db, TxnKind::Insert, 0);
    assert_eq!((st.splits, st.new_pages, db.height()), (1, 2, 2));
    // Root (2), its copy, the new leaf and page 1 (size grew).
    assert_eq!(st.pages, 4);
    for _ in 0..cap * 3 {
        txn(&mut fs, &mut db, TxnKind::Insert, 0);
    }
    assert_eq!(db.levels[0].pages.len() as u64, db.rows().div_ceil(cap));
    // An update changes one leaf only.
    let (st, _) = txn(&mut fs, &mut db, TxnKind::Update, 5);
    assert_eq!((st.pages, st.new_pages, st.splits), (1, 0, 0));
}

#[test]
fn wal_frames_are_4120_bytes_after_a_32_byte_header() {
    let mut fs = conv();
    let mut db = Sqlite::create(&mut fs, ROOT, wal(Synchronous::Full, 0)).unwrap();
    let (st, _) = txn(&mut fs, &mut db, TxnKind::Insert, 0);
    assert_eq!(st.log_bytes, 32 + 4120);
    let (st, _) = txn(&mut fs, &mut db, TxnKind::Insert, 0);
    assert_eq!(st.log_bytes, 4120);
    assert_eq!(fs.size(db.wal.unwrap()), 32 + 2 * 4120);
}

/// Notes §5, adaptive (CUFS): WAL growing = tail block IPU + new block + inode node + flush;
/// WAL rewritten from 0 after a checkpoint = 2 IPU + flush, no node.
#[test]
fn wal_on_adaptive_matches_notes() {
    let mut fs = conv();
    let mut db = Sqlite::create(&mut fs, ROOT, wal(Synchronous::Full, 100)).unwrap();
    // Updates only: one frame per transaction.
    for _ in 0..40 {
        txn(&mut fs, &mut db, TxnKind::Insert, 0);
    }
    let mut growing = Vec::new();
    while db.wal_frames() != 0 {
        let (st, b) = txn(&mut fs, &mut db, TxnKind::Update, 3);
        if !st.checkpoint {
            growing.push(b);
        }
    }
    // Skip frames straddling 3 blocks (about 1 in 256).
    let two = Blocks {
        ipu: 1,
        opu: 1,
        node: 1,
        flushes: 1,
    };
    let n = growing.iter().filter(|&&b| b == two).count();
    assert!(n + 1 >= growing.len(), "{growing:?}");
    let mut rewritten = Vec::new();
    for _ in 0..50 {
        let (st, b) = txn(&mut fs, &mut db, TxnKind::Update, 3);
        assert!(!st.checkpoint);
        rewritten.push(b);
    }
    let two_ipu = Blocks {
        ipu: 2,
        opu: 0,
        node: 0,
        flushes: 1,
    };
    let n = rewritten.iter().filter(|&&b| b == two_ipu).count();
    assert!(n + 1 >= rewritten.len(), "{rewritten:?}");
}

/// Notes §5, LFS (zoned): 2 OPU + node + flush whether the WAL grows or is rewritten.
#[test]
fn wal_on_lfs_matches_notes() {
    let mut fs = zoned();
    let mut db = Sqlite::create(&mut fs, ROOT, wal(Synchronous::Full, 100)).unwrap();
    txn(&mut fs, &mut db, TxnKind::Insert, 0);
    let mut seen = Vec::new();
    for _ in 0..150 {
        let (st, b) = txn(&mut fs, &mut db, TxnKind::Update, 0);
        if !st.checkpoint {
            seen.push(b);
        }
    }
    let want = Blocks {
        ipu: 0,
        opu: 2,
        node: 1,
        flushes: 1,
    };
    let n = seen.iter().filter(|&&b| b == want).count();
    assert!(n + 2 >= seen.len(), "{seen:?}");
}

#[test]
fn checkpoint_copies_distinct_pages_and_normal_syncs_only_there() {
    let mut fs = conv();
    let mut db = Sqlite::create(&mut fs, ROOT, wal(Synchronous::Normal, 10)).unwrap();
    txn(&mut fs, &mut db, TxnKind::Insert, 0);
    let mut syncs = 0;
    let mut ck = None;
    for _ in 0..9 {
        let (st, b) = txn(&mut fs, &mut db, TxnKind::Update, 0);
        syncs += b.flushes;
        if st.checkpoint {
            ck = Some(st);
        }
    }
    let st = ck.expect("a checkpoint at 10 frames");
    // One distinct page: the root leaf (the first insert did not grow the database, so page 1
    // stayed clean in WAL mode).
    assert_eq!(st.db_bytes, 4096);
    assert_eq!(st.syncs, 2, "WAL then database");
    assert_eq!(syncs, 2, "no sync at the other commits");
    assert_eq!(db.c.checkpoints, 1);
}

#[test]
fn rollback_journals_old_pages_then_writes_in_place_and_deletes() {
    let mut fs = conv();
    let cfg = SqliteConfig {
        journal: Journal::Rollback,
        ..SqliteConfig::default()
    };
    let mut db = Sqlite::create(&mut fs, ROOT, cfg).unwrap();
    txn(&mut fs, &mut db, TxnKind::Insert, 0);
    let unlinks = fs.c.unlinks;
    let (st, b) = txn(&mut fs, &mut db, TxnKind::Update, 0);
    // Leaf and page 1 (change counter), both journaled.
    assert_eq!(st.pages, 2);
    assert_eq!(st.log_bytes, 4096 + 2 * 4104 + 28);
    assert_eq!(st.db_bytes, 2 * 4096);
    assert_eq!((st.syncs, b.flushes), (3, 3), "journal x2 (full), database");
    assert_eq!(fs.c.unlinks, unlinks + 1, "journal deleted");
    // The journal header rewritten with its record count, then the two database pages:
    // overwrites in place under fdatasync (adaptive).
    assert_eq!(b.ipu, 3);
}

/// `ipu` marks the database and the WAL; it needs a device with an in-place update budget.
#[test]
fn ipu_needs_a_budget_and_rewrites_the_wal_in_place() {
    let cfg = SqliteConfig {
        ipu: true,
        ..wal(Synchronous::Full, 4)
    };
    let mut fs = zoned();
    assert_eq!(
        Sqlite::create(&mut fs, ROOT, cfg.clone()).err(),
        Some(FsError::NoIpuBudget)
    );
    let mut p = FsParams::kernel_default(true, Kernel::V6_18, 32);
    p.device_ipu = true;
    let dev = FsDevice {
        main_ns_bytes: 85 * (64 << 20),
        zone: Some((64 << 20, 48 << 20)),
        meta_ns_bytes: Some(128 << 20),
    };
    let mut fs = F2fs::new(p, &dev).unwrap();
    let mut db = Sqlite::create(&mut fs, ROOT, cfg).unwrap();
    // Fill the WAL to its checkpoint (4 frames), then the next transaction rewrites it.
    while !txn(&mut fs, &mut db, TxnKind::Insert, 0).0.checkpoint {}
    let r0 = fs.c.ipu;
    fs.out.clear();
    let st = db.transaction(&mut fs, TxnKind::Update, 0).unwrap();
    assert!(st.wal_restart);
    let inplace = fs
        .out
        .cmds
        .iter()
        .filter(|c| c.io.kind == crate::IoKind::InPlace)
        .count();
    let node = fs
        .out
        .cmds
        .iter()
        .filter(|c| c.io.kind == crate::IoKind::Write)
        .count();
    // The WAL's first two blocks (header + frame) updated in place, one command; no node.
    assert_eq!(fs.c.ipu.requests - r0.requests, 2);
    assert_eq!(inplace, 1);
    assert_eq!(
        node, 0,
        "an fsync after in-place updates only writes no node"
    );
}

#[test]
fn sqlite_runs_on_ext4_with_one_journal_commit_per_fdatasync() {
    use crate::ext4::{Ext4, Ext4Params};
    let mut fs = Ext4::new(Ext4Params::default(), 512 << 20).unwrap();
    for journal in [Journal::Wal, Journal::Rollback] {
        let cfg = SqliteConfig {
            journal,
            name: format!("{journal:?}.db"),
            ..SqliteConfig::default()
        };
        let mut db = Sqlite::create(&mut fs, ROOT, cfg).unwrap();
        let c0 = fs.c.commits.fsync;
        let mut syncs = 0;
        for k in 0..200 {
            fs.now += 1_000_000;
            let st = db.transaction(&mut fs, TxnKind::Insert, k).unwrap();
            syncs += st.syncs as u64;
            fs.out.clear();
        }
        assert!(db.rows() == 200);
        // Appends allocate (an fdatasync commits the transaction); WAL overwrites after a
        // restart may need a cache flush only.
        let commits = fs.c.commits.fsync - c0;
        assert!(
            commits > 0 && commits <= syncs,
            "{commits} commits, {syncs} syncs"
        );
        fs.check_invariants().unwrap();
    }
    fs.sync();
    fs.check_invariants().unwrap();
}

/// A WAL transaction's `write` calls: the header and the frames when the WAL starts, the
/// frames alone after; a checkpoint adds one per page copied. Its host burst costs SQLite's
/// step, a page step per page changed and per page checkpointed, and per write call the system
/// call and the write path.
#[test]
fn wal_write_calls_and_host_burst() {
    use crate::cpu::{CpuConfig, HostCpu, STEPS};
    let mut fs = conv();
    let mut db = Sqlite::create(&mut fs, ROOT, wal(Synchronous::Full, 3)).unwrap();
    let (first, _) = txn(&mut fs, &mut db, TxnKind::Insert, 0);
    let (second, _) = txn(&mut fs, &mut db, TxnKind::Insert, 0);
    assert_eq!((first.writes, second.writes), (2, 1));
    let (third, _) = txn(&mut fs, &mut db, TxnKind::Insert, 0);
    assert!(third.checkpoint);
    let copied = (third.db_bytes / PAGE_BYTES) as u32;
    assert!(copied > 0);
    assert_eq!(third.writes, 1 + copied);
    let mut cost_ns = [0; STEPS];
    cost_ns[Step::SqliteTxn as usize] = 1_000_000;
    cost_ns[Step::SqlitePage as usize] = 1_000;
    cost_ns[Step::Syscall as usize] = 10;
    cost_ns[Step::F2fsWrite as usize] = 1;
    let cpu = HostCpu::new(
        CpuConfig {
            cores: 1,
            little: 0,
            little_speed: 1.0,
            cost_ns,
        },
        1,
    );
    let want = |s: &TxnStats, copied: u32| {
        1_000_000 + 1_000 * u64::from(s.pages + copied) + 11 * u64::from(s.writes)
    };
    assert_eq!(
        cpu.cost(&first.host_burst(Step::F2fsWrite)),
        want(&first, 0)
    );
    assert_eq!(
        cpu.cost(&third.host_burst(Step::F2fsWrite)),
        want(&third, copied)
    );
    // Another file system's write path is charged instead of F2FS's.
    assert_eq!(
        cpu.cost(&first.host_burst(Step::Ext4Write)),
        want(&first, 0) - u64::from(first.writes)
    );
}
