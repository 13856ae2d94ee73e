//! SQLite on a host file system model (F2FS or ext4, through `hostfs::Files`), Mobibench-like (ConZone+ §6.3 "SQLite with WAL, Mobibench
//! insert / update"; the SQLite results of ZMS; the write pattern per transaction in
//! docs/fs.md "SQLite's write pattern"). One row per transaction, 4 KiB database pages, a B-tree on
//! rowid that grows by appending (SQLite's `balance_quick`: the full rightmost leaf stays, a new
//! leaf takes the row; a full interior page splits the same way; a full root moves into a new
//! child, `balance_deeper`). Page 1 is dirtied whenever the database grows (its header holds the
//! size in pages, `allocateBtreePage`), and by every rollback-journal transaction (the file change
//! counter).
//!
//! Journal modes (`journal`):
//! - `wal`: each dirty page is a frame of 24 + 4,096 = 4,120 bytes appended to `NAME-wal` after
//!   its 32-byte header; `synchronous = full` fdatasyncs the WAL at every commit, `normal` only
//!   at checkpoint. When the WAL holds `wal_autocheckpoint` frames the commit runs a checkpoint:
//!   fdatasync the WAL, copy the newest version of each page into the database file, fdatasync
//!   it; the next transaction rewrites the WAL from offset 0 (new header, same file size).
//! - `rollback` (`journal_mode=DELETE`): create `NAME-journal`, write a sector-sized (4 KiB)
//!   header and, for every page the transaction changes that existed before it, a record of
//!   4 + 4,096 + 4 bytes with the original content; `full`: fdatasync, rewrite the header's
//!   record count, fdatasync (`syncJournal`); `normal`: header, one fdatasync. Then the pages
//!   are written into the database file, fdatasync, and the journal is unlinked.
//!
//! With `ipu` the database and the WAL are marked for the device's budget-based in-place update
//! (ZMS; `host::fs::ipu`): their overwrites go to the device in place.
//!
//! SQLite's own page cache holds the database (no reads reach the file system); the `-shm` file is
//! memory-mapped and never written back (docs/fs.md "SQLite's write pattern"). Syncs are
//! `fdatasync`, as SQLite on Linux/Android builds with `HAVE_FDATASYNC`.

use crate::cpu::{Burst, Step};
use crate::fs::{FsError, Ino};
use crate::hostfs::Files;

/// Bytes of a database page.
pub const PAGE_BYTES: u64 = 4096;
/// WAL file header.
pub const WAL_HEADER_BYTES: u64 = 32;
/// WAL frame: 24-byte frame header + page.
pub const WAL_FRAME_BYTES: u64 = 24 + PAGE_BYTES;
/// Rollback journal header (one sector, `SQLITE_DEFAULT_SECTOR_SIZE`).
pub const JOURNAL_HEADER_BYTES: u64 = 4096;
/// Rollback journal record: page number + original page + checksum.
pub const JOURNAL_RECORD_BYTES: u64 = 4 + PAGE_BYTES + 4;
/// The table's root page (page 1 is the schema).
const ROOT_PGNO: u32 = 2;
/// Bytes of a page header (leaf 8, interior 12) and of a cell pointer.
const LEAF_HDR: u64 = 8;
const INTERIOR_HDR: u64 = 12;
const CELL_PTR: u64 = 2;
/// Interior cell: 4-byte child page number + rowid varint (≤ 4 bytes up to 2^28 rows).
const INTERIOR_CELL: u64 = 8;

/// `PRAGMA journal_mode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Journal {
    Wal,
    Rollback,
}

/// `PRAGMA synchronous`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Synchronous {
    Full,
    Normal,
}

/// One transaction's statement.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TxnKind {
    /// Insert one row at the end (autoincrement rowid).
    Insert,
    /// Update one existing row in place (same size).
    Update,
}

/// The SQLite model's parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct SqliteConfig {
    pub journal: Journal,
    pub synchronous: Synchronous,
    /// WAL frames that trigger a checkpoint at commit (SQLite's default 1000; 0 = never).
    pub wal_autocheckpoint: u32,
    /// Bytes of one row's cell on its leaf (record + header varints).
    pub row_bytes: u32,
    /// Database file name (its extension decides the F2FS log: `db` is hot).
    pub name: String,
    /// Mark the database and its WAL for the device's budget-based in-place update (ZMS,
    /// `host::fs::ipu`): their overwrites (WAL rewritten from its start, checkpoint copies)
    /// go in place. Needs a device with a budget ([`FsError::NoIpuBudget`] otherwise).
    pub ipu: bool,
}

impl Default for SqliteConfig {
    fn default() -> SqliteConfig {
        SqliteConfig {
            journal: Journal::Wal,
            synchronous: Synchronous::Full,
            wal_autocheckpoint: 1000,
            row_bytes: 128,
            name: "test.db".into(),
            ipu: false,
        }
    }
}

/// What one transaction did, in SQLite's terms (the file system counts the blocks).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TxnStats {
    /// Distinct database pages the transaction changed.
    pub pages: u32,
    /// Pages newly allocated (the database grew).
    pub new_pages: u32,
    /// B-tree page splits.
    pub splits: u32,
    /// Bytes written to the WAL or the rollback journal.
    pub log_bytes: u64,
    /// Bytes written to the database file.
    pub db_bytes: u64,
    pub syncs: u32,
    /// `write` calls made (the WAL header, the frames, each checkpointed page, the journal).
    pub writes: u32,
    /// This commit ran a WAL checkpoint.
    pub checkpoint: bool,
    /// This transaction rewrote the WAL from its start.
    pub wal_restart: bool,
}

impl TxnStats {
    /// The transaction's own work on the host CPU (`[host.cpu]`, docs/host-cpu.md): SQLite's
    /// per-transaction step, one page step per page it changed and per page a WAL checkpoint
    /// copied into the database, and per `write` call its system call and `write_path` (the
    /// file system's write path, F2FS's or ext4's step). The fdatasyncs, page-cache copies,
    /// node or journal blocks and device requests are the file system's: the caller charges
    /// them from the file system's counters.
    pub fn host_burst(&self, write_path: Step) -> Burst {
        let copied = if self.checkpoint {
            self.db_bytes / PAGE_BYTES
        } else {
            0
        };
        let writes = u64::from(self.writes);
        Burst::of(Step::SqliteTxn)
            .with(Step::SqlitePage, u64::from(self.pages) + copied)
            .with(Step::Syscall, writes)
            .with(write_path, writes)
    }
}

/// Counters over the run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SqliteCounters {
    pub transactions: u64,
    pub inserts: u64,
    pub updates: u64,
    pub splits: u64,
    pub wal_frames: u64,
    pub checkpoints: u64,
    pub checkpoint_pages: u64,
    pub log_bytes: u64,
    pub db_bytes: u64,
    pub syncs: u64,
}

/// One level of the B-tree: its pages left to right and the entries of the rightmost one.
#[derive(Debug, Clone)]
struct Level {
    pages: Vec<u32>,
    right_fill: u64,
}

/// A SQLite database with one table on the file system.
pub struct Sqlite {
    pub cfg: SqliteConfig,
    dir: Ino,
    db: Ino,
    /// The WAL file (WAL mode).
    wal: Option<Ino>,
    /// Database size in pages.
    db_pages: u32,
    /// Leaves first; the last level is the root alone.
    levels: Vec<Level>,
    rows: u64,
    leaf_cap: u64,
    interior_cap: u64,
    /// Frames in the WAL since its last restart; pages they hold (dirty for the checkpoint).
    wal_frames: u64,
    wal_pages: Vec<u32>,
    wal_restart: bool,
    /// Pages changed by the transaction in progress.
    txn_pages: Vec<u32>,
    pub c: SqliteCounters,
}

impl Sqlite {
    /// Create the database (page 1 and the table's root page 2, synced) in directory `dir`.
    pub fn create<F: Files>(fs: &mut F, dir: Ino, cfg: SqliteConfig) -> Result<Sqlite, FsError> {
        let db = fs.create(dir, &cfg.name, 0)?;
        fs.write(db, 0, 2 * PAGE_BYTES, false)?;
        fs.fsync(db, true);
        let wal = match cfg.journal {
            Journal::Wal => Some(fs.create(dir, &format!("{}-wal", cfg.name), 0)?),
            Journal::Rollback => None,
        };
        if cfg.ipu {
            for f in std::iter::once(db).chain(wal) {
                if !fs.mark_ipu(f) {
                    return Err(FsError::NoIpuBudget);
                }
            }
        }
        let row = cfg.row_bytes.max(8) as u64 + CELL_PTR;
        Ok(Sqlite {
            leaf_cap: ((PAGE_BYTES - LEAF_HDR) / row).max(2),
            interior_cap: (PAGE_BYTES - INTERIOR_HDR) / (INTERIOR_CELL + CELL_PTR) + 1,
            cfg,
            dir,
            db,
            wal,
            db_pages: 2,
            levels: vec![Level {
                pages: vec![ROOT_PGNO],
                right_fill: 0,
            }],
            rows: 0,
            wal_frames: 0,
            wal_pages: Vec::new(),
            wal_restart: false,
            txn_pages: Vec::new(),
            c: SqliteCounters::default(),
        })
    }

    /// Rows in the table.
    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// Database size in pages.
    pub fn db_pages(&self) -> u32 {
        self.db_pages
    }

    /// Height of the B-tree (1 = the root is a leaf).
    pub fn height(&self) -> usize {
        self.levels.len()
    }

    /// Frames in the WAL since its last restart.
    pub fn wal_frames(&self) -> u64 {
        self.wal_frames
    }

    /// Run one transaction; `pick` chooses the row an update changes (in `0..rows`). The file
    /// system's commands are left in `fs.out` for the caller to submit.
    pub fn transaction<F: Files>(
        &mut self,
        fs: &mut F,
        kind: TxnKind,
        pick: u64,
    ) -> Result<TxnStats, FsError> {
        self.txn_pages.clear();
        let mut st = TxnStats::default();
        let before = self.db_pages;
        match kind {
            TxnKind::Update if self.rows > 0 => {
                let leaf = ((pick % self.rows) / self.leaf_cap) as usize;
                let pg = self.levels[0].pages[leaf];
                self.touch(pg);
                self.c.updates += 1;
            }
            _ => {
                st.splits = self.add_entry(0);
                self.rows += 1;
                self.c.inserts += 1;
            }
        }
        st.new_pages = self.db_pages - before;
        if st.new_pages > 0 || self.cfg.journal == Journal::Rollback {
            self.touch(1);
        }
        st.pages = self.txn_pages.len() as u32;
        match self.cfg.journal {
            Journal::Wal => self.commit_wal(fs, &mut st)?,
            Journal::Rollback => self.commit_rollback(fs, before, &mut st)?,
        }
        self.c.transactions += 1;
        self.c.splits += st.splits as u64;
        self.c.log_bytes += st.log_bytes;
        self.c.db_bytes += st.db_bytes;
        self.c.syncs += st.syncs as u64;
        Ok(st)
    }

    fn touch(&mut self, pg: u32) {
        if !self.txn_pages.contains(&pg) {
            self.txn_pages.push(pg);
        }
    }

    fn alloc_page(&mut self) -> u32 {
        self.db_pages += 1;
        self.db_pages
    }

    /// Add one entry to the rightmost page of `level` (a row on a leaf, a child pointer on an
    /// interior page), splitting full pages upwards; returns the splits.
    fn add_entry(&mut self, level: usize) -> u32 {
        let cap = if level == 0 {
            self.leaf_cap
        } else {
            self.interior_cap
        };
        let l = &mut self.levels[level];
        if l.right_fill < cap {
            l.right_fill += 1;
            let pg = *l.pages.last().expect("a level has a page");
            self.touch(pg);
            return 0;
        }
        if level + 1 == self.levels.len() {
            // balance_deeper: the root's content moves to a new child, the root goes up.
            let child = self.alloc_page();
            self.levels[level].pages[0] = child;
            self.levels.push(Level {
                pages: vec![ROOT_PGNO],
                right_fill: 1,
            });
            self.touch(ROOT_PGNO);
            self.touch(child);
        }
        // balance_quick: a new rightmost page with the one entry, a pointer in the parent.
        let new = self.alloc_page();
        let l = &mut self.levels[level];
        l.pages.push(new);
        l.right_fill = 1;
        self.touch(new);
        1 + self.add_entry(level + 1)
    }

    /// WAL commit: frames appended (after a header when the WAL restarts), fdatasync with
    /// `synchronous = full`, checkpoint at `wal_autocheckpoint` frames.
    fn commit_wal<F: Files>(&mut self, fs: &mut F, st: &mut TxnStats) -> Result<(), FsError> {
        let wal = self.wal.expect("WAL mode has a WAL file");
        if self.wal_frames == 0 {
            fs.write(wal, 0, WAL_HEADER_BYTES, false)?;
            st.writes += 1;
            st.log_bytes += WAL_HEADER_BYTES;
            st.wal_restart = self.wal_restart;
        }
        let n = self.txn_pages.len() as u64;
        let off = WAL_HEADER_BYTES + self.wal_frames * WAL_FRAME_BYTES;
        fs.write(wal, off, n * WAL_FRAME_BYTES, false)?;
        st.writes += 1;
        st.log_bytes += n * WAL_FRAME_BYTES;
        self.wal_frames += n;
        self.c.wal_frames += n;
        for i in 0..self.txn_pages.len() {
            let pg = self.txn_pages[i];
            if !self.wal_pages.contains(&pg) {
                self.wal_pages.push(pg);
            }
        }
        if self.cfg.synchronous == Synchronous::Full {
            fs.fsync(wal, true);
            st.syncs += 1;
        }
        let ckpt = self.cfg.wal_autocheckpoint;
        if ckpt > 0 && self.wal_frames >= ckpt as u64 {
            self.checkpoint(fs, st)?;
        }
        Ok(())
    }

    /// WAL checkpoint: sync the WAL (unless every commit did), copy the pages it holds into
    /// the database file, sync it; the next transaction restarts the WAL.
    fn checkpoint<F: Files>(&mut self, fs: &mut F, st: &mut TxnStats) -> Result<(), FsError> {
        let wal = self.wal.expect("WAL mode has a WAL file");
        if self.cfg.synchronous != Synchronous::Full {
            fs.fsync(wal, true);
            st.syncs += 1;
        }
        self.wal_pages.sort_unstable();
        for i in 0..self.wal_pages.len() {
            let pg = self.wal_pages[i];
            fs.write(self.db, (pg as u64 - 1) * PAGE_BYTES, PAGE_BYTES, false)?;
        }
        let k = self.wal_pages.len() as u64;
        st.writes += k as u32;
        st.db_bytes += k * PAGE_BYTES;
        fs.fsync(self.db, true);
        st.syncs += 1;
        st.checkpoint = true;
        self.c.checkpoints += 1;
        self.c.checkpoint_pages += k;
        self.wal_pages.clear();
        self.wal_frames = 0;
        self.wal_restart = true;
        Ok(())
    }

    /// Rollback-journal commit (`journal_mode=DELETE`).
    fn commit_rollback<F: Files>(
        &mut self,
        fs: &mut F,
        before: u32,
        st: &mut TxnStats,
    ) -> Result<(), FsError> {
        let j = fs.create(self.dir, &format!("{}-journal", self.cfg.name), 0)?;
        let old = self.txn_pages.iter().filter(|&&p| p <= before).count() as u64;
        let jbytes = JOURNAL_HEADER_BYTES + old * JOURNAL_RECORD_BYTES;
        fs.write(j, 0, jbytes, false)?;
        st.writes += 2 + self.txn_pages.len() as u32;
        if self.cfg.synchronous == Synchronous::Full {
            fs.fsync(j, true);
            st.syncs += 1;
        }
        // The header again, now with the record count.
        fs.write(j, 0, 28, false)?;
        fs.fsync(j, true);
        st.syncs += 1;
        st.log_bytes += jbytes + 28;
        self.txn_pages.sort_unstable();
        for i in 0..self.txn_pages.len() {
            let pg = self.txn_pages[i];
            fs.write(self.db, (pg as u64 - 1) * PAGE_BYTES, PAGE_BYTES, false)?;
        }
        st.db_bytes += self.txn_pages.len() as u64 * PAGE_BYTES;
        fs.fsync(self.db, true);
        st.syncs += 1;
        fs.unlink(j);
        Ok(())
    }
}

#[cfg(test)]
#[path = "sqlite_tests.rs"]
mod tests;
