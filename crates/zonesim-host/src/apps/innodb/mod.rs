//! InnoDB, MySQL 8.0's storage engine, as the device sees it: which 16 KiB pages a statement
//! reads through the buffer pool, which it dirties, what the redo log, the doublewrite buffer
//! and the page cleaner write, and when they fsync. Rooms: `tablespace` (files and B+tree
//! sizing), `buffer_pool` (LRU with young/old sublists, flush list), `redo` (log, group commit,
//! checkpoint age), `doublewrite` (how a batch of pages is written), `cleaner` (page cleaner:
//! LRU and adaptive flushing). The workload that drives it is `apps::sysbench`.
//!
//! Defaults are MySQL 8.0's (reference manual §17.14 "InnoDB Startup Options and System
//! Variables"): `innodb_page_size` 16 KiB, `innodb_buffer_pool_size` 128 MiB,
//! `innodb_old_blocks_pct` 37, `innodb_old_blocks_time` 1000 ms, `innodb_redo_log_capacity`
//! 100 MiB, `innodb_flush_log_at_trx_commit` 1, `innodb_doublewrite` ON,
//! `innodb_flush_method` fsync, `innodb_io_capacity` 200, `innodb_io_capacity_max` 2000,
//! `innodb_max_dirty_pages_pct` 90, `innodb_max_dirty_pages_pct_lwm` 10,
//! `innodb_adaptive_flushing_lwm` 10, `innodb_lru_scan_depth` 1024, `innodb_flush_neighbors` 0.
//!
//! Left out (docs/innodb.md): the binary log, the change buffer, read-ahead, row locks between
//! threads, purge (undo pages are reused per thread), page splits during the run (sysbench's
//! delete + insert of the same id keeps the trees' shapes), and several page cleaner threads
//! (one, as with a pool under 1 GiB, where MySQL has one pool instance).

pub mod buffer_pool;
pub mod cleaner;
pub mod doublewrite;
pub mod redo;
pub mod tablespace;

use super::files::{AppHost, FileIo};
use crate::fs::FsError;
use buffer_pool::BufferPool;
use redo::Redo;
use tablespace::{Table, PAGE_BYTES};

/// `innodb_flush_method`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FlushMethod {
    /// Data and log files through the page cache, fsync after writes.
    Fsync,
    /// Data files (and the doublewrite files) opened `O_DIRECT`, fsync after writes; the log
    /// through the page cache.
    ODirect,
}

/// The engine's settings (MySQL 8.0 defaults).
#[derive(Debug, Clone, PartialEq)]
pub struct InnodbConfig {
    pub buffer_pool_bytes: u64,
    pub old_blocks_pct: u32,
    pub old_blocks_time_ms: u64,
    pub redo_log_capacity: u64,
    /// `innodb_flush_log_at_trx_commit`: 0, 1 or 2.
    pub flush_log_at_trx_commit: u8,
    pub doublewrite: bool,
    pub flush_method: FlushMethod,
    pub io_capacity: u64,
    pub io_capacity_max: u64,
    pub max_dirty_pages_pct: u64,
    pub max_dirty_pages_pct_lwm: u64,
    pub adaptive_flushing_lwm: u64,
    pub lru_scan_depth: u64,
}

impl Default for InnodbConfig {
    fn default() -> InnodbConfig {
        InnodbConfig {
            buffer_pool_bytes: 128 << 20,
            old_blocks_pct: 37,
            old_blocks_time_ms: 1000,
            redo_log_capacity: 100 << 20,
            flush_log_at_trx_commit: 1,
            doublewrite: true,
            flush_method: FlushMethod::Fsync,
            io_capacity: 200,
            io_capacity_max: 2000,
            max_dirty_pages_pct: 90,
            max_dirty_pages_pct_lwm: 10,
            adaptive_flushing_lwm: 10,
            lru_scan_depth: 1024,
        }
    }
}

/// What the engine did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct InnodbCounters {
    /// Data pages read from and written to the tablespaces (in place).
    pub pages_read: u64,
    pub pages_written: u64,
    /// Pages written to the doublewrite file first.
    pub doublewrite_pages: u64,
    pub log_bytes_written: u64,
    /// fsyncs of the redo log: per commit group, per once-a-second flush, per checkpoint.
    pub log_fsyncs: u64,
    /// Of which commit groups (`innodb_flush_log_at_trx_commit` = 1).
    pub commit_groups: u64,
    /// fsyncs of data and doublewrite files.
    pub data_fsyncs: u64,
    /// Of which made before writing pages (the write-ahead rule).
    pub wal_syncs: u64,
    pub checkpoints: u64,
    pub checkpoint_age_max: u64,
    /// Pages flushed by the page cleaner from the LRU tail and from the flush list, by user
    /// threads needing a free page (single-page flushes) and by user threads past the
    /// synchronous checkpoint age.
    pub lru_flushed: u64,
    pub list_flushed: u64,
    pub single_page_flushes: u64,
    pub sync_flushed: u64,
    pub flush_batches: u64,
}

/// Space id of the undo tablespace (the tables are 1..).
const UNDO_SPACE: u64 = 0xffff_fff0;

/// A page id: space and page number.
pub fn page_id(space: u64, page: u64) -> u64 {
    (space << 32) | page
}

/// InnoDB over a file system: the tables' tablespaces, the undo tablespace, the redo log and
/// the doublewrite file.
pub struct Innodb<F: FileIo> {
    pub cfg: InnodbConfig,
    pub tables: Vec<Table>,
    files: Vec<F::File>,
    undo: F::File,
    dblwr: F::File,
    pub redo: Redo<F::File>,
    pub pool: BufferPool,
    pub c: InnodbCounters,
    /// The page cleaner's running averages.
    pub cl: cleaner::Cleaner,
    /// Where the next doublewrite batch goes in the doublewrite file (pages).
    dblwr_at: u64,
    /// Scratch lists of frames (no allocation per batch once grown).
    batch: Vec<u32>,
    spaces: Vec<u64>,
}

/// Pages of the doublewrite file (two 64-page areas, as the doublewrite buffer of the system
/// tablespace had; manual §17.6.4).
pub const DBLWR_PAGES: u64 = 128;
/// Undo pages per thread (a cached undo segment's page reused by each transaction).
pub const UNDO_PAGES_PER_THREAD: u64 = 1;
/// Initial undo tablespace size (manual §17.6.3.4: 16 MiB).
const UNDO_BYTES: u64 = 16 << 20;

impl<F: FileIo> Innodb<F> {
    /// Create the files of `tables` tables of `rows` rows (empty: [`Innodb::prepare`] writes
    /// them).
    pub fn create(fs: &mut F, cfg: InnodbConfig, tables: u32, rows: u64) -> Result<Self, FsError> {
        let mut files = Vec::with_capacity(tables as usize);
        let mut ts = Vec::with_capacity(tables as usize);
        for i in 1..=tables {
            files.push(fs.create_file(&format!("sbtest{i}.ibd"))?);
            ts.push(Table::sbtest(rows));
        }
        let undo = fs.create_file("undo_001")?;
        let dblwr = fs.create_file("#ib_16384_0.dblwr")?;
        let redo = Redo::new(fs.create_file("#ib_redo0")?, cfg.redo_log_capacity);
        let frames = (cfg.buffer_pool_bytes / PAGE_BYTES).max(64) as u32;
        Ok(Innodb {
            pool: BufferPool::new(frames, cfg.old_blocks_pct, cfg.old_blocks_time_ms),
            cfg,
            tables: ts,
            files,
            undo,
            dblwr,
            redo,
            c: InnodbCounters::default(),
            cl: cleaner::Cleaner::default(),
            dblwr_at: 0,
            batch: Vec::new(),
            spaces: Vec::new(),
        })
    }

    fn direct(&self) -> bool {
        self.cfg.flush_method == FlushMethod::ODirect
    }

    /// The file and byte offset of a page id.
    fn locate(&self, id: u64) -> (F::File, u64) {
        let (space, page) = (id >> 32, id & 0xffff_ffff);
        let f = if space == UNDO_SPACE {
            self.undo
        } else {
            self.files[space as usize - 1]
        };
        (f, page * PAGE_BYTES)
    }

    /// `prepare`: initialise the log, undo and doublewrite files, then load each table as a
    /// sorted build leaves it (its file written front to back in 1 MiB extents) and fsync it.
    /// Each write is submitted before the next; returns when the last completes.
    pub fn prepare<H: AppHost<Fs = F>>(&mut self, h: &mut H, mut now: u64) -> Result<u64, FsError> {
        let d = self.direct();
        let init = [
            (self.redo.file, self.redo.file_bytes(), false),
            (self.undo, UNDO_BYTES, d),
            (self.dblwr, DBLWR_PAGES * PAGE_BYTES, d),
        ];
        let tables: Vec<(F::File, u64, bool)> = self
            .files
            .iter()
            .zip(&self.tables)
            .map(|(&f, t)| (f, t.bytes(), d))
            .collect();
        for (f, bytes, direct) in init.into_iter().chain(tables) {
            let mut off = 0;
            while off < bytes {
                let len = (1u64 << 20).min(bytes - off);
                h.fs().set_now(now);
                h.fs().write_at(f, off, len, direct)?;
                now = h.submit(now);
                off += len;
            }
            h.fs().set_now(now);
            h.fs().sync_file(f, false);
            now = h.submit(now);
        }
        Ok(now)
    }

    /// The frame of page `id`, read if it is not in the pool (a free frame first: from the
    /// free list, else the LRU tail, writing it first if every page near the tail is dirty).
    /// Returns the frame and when it is ready.
    pub fn fix<H: AppHost<Fs = F>>(&mut self, h: &mut H, id: u64, now: u64) -> (u32, u64) {
        if let Some(f) = self.pool.get(id, now) {
            return (f, now);
        }
        let mut t = now;
        let f = match self.pool.take_free() {
            Some(f) => f,
            None => {
                let (v, clean) = self.pool.tail_victim(self.cfg.lru_scan_depth.min(100));
                if !clean {
                    self.batch.clear();
                    self.batch.push(v);
                    self.c.single_page_flushes += 1;
                    t = self.flush_batch(h, t);
                }
                self.pool.evict(v);
                self.pool.take_free().expect("a frame was just freed")
            }
        };
        let (file, off) = self.locate(id);
        h.fs().set_now(t);
        h.fs().read_at(file, off, PAGE_BYTES);
        t = h.submit(t);
        self.pool.insert(id, f, now);
        self.c.pages_read += 1;
        (f, t)
    }

    /// Walk `w` from the root to its leaf and on to the right; returns when the pages were
    /// there.
    pub fn walk<H: AppHost<Fs = F>>(&mut self, h: &mut H, w: Walk, now: u64) -> u64 {
        let Walk {
            table,
            tree,
            pos,
            extra,
            redo,
        } = w;
        let t = &self.tables[table as usize - 1];
        let tr = if tree == 0 {
            &t.clustered
        } else {
            &t.secondary
        };
        let height = tr.height();
        let (leaf, last_leaf) = (tr.leaf(pos), tr.base[0] + tr.levels[0] - 1);
        let mut path = [0u64; 8];
        for (i, l) in (0..height).rev().enumerate() {
            path[i] = tr.page_at(pos, l);
        }
        let space = table as u64;
        let mut t = now;
        for &p in path.iter().take(height) {
            t = self.fix(h, page_id(space, p), t).1;
        }
        let mut f = NIL_FRAME;
        for p in leaf..=(leaf + extra).min(last_leaf) {
            let (fr, done) = self.fix(h, page_id(space, p), t);
            t = done;
            f = fr;
        }
        if redo > 0 && f != NIL_FRAME {
            let lsn = self.redo.append(redo);
            self.pool.mark_dirty(f, lsn);
        }
        t
    }

    /// The undo page of `thread` modified by `bytes` of undo records (with their redo).
    pub fn undo<H: AppHost<Fs = F>>(
        &mut self,
        h: &mut H,
        thread: u32,
        bytes: u64,
        now: u64,
    ) -> u64 {
        let page = 3 + thread as u64 * UNDO_PAGES_PER_THREAD;
        let (f, t) = self.fix(h, page_id(UNDO_SPACE, page), now);
        let lsn = self.redo.append(bytes);
        self.pool.mark_dirty(f, lsn);
        t
    }

    /// Record the checkpoint age now (after a modification).
    pub fn note_age(&mut self) {
        self.c.checkpoint_age_max = self.c.checkpoint_age_max.max(self.redo.age());
    }

    /// Write the log from what was written to the current LSN (buffered); `sync` fsyncs it.
    pub fn write_log<H: AppHost<Fs = F>>(&mut self, h: &mut H, sync: bool, now: u64) -> u64 {
        let f = self.redo.file;
        h.fs().set_now(now);
        for (off, len) in self.redo.pending_ranges() {
            if len > 0 {
                // Within the preallocated file: no error.
                let _ = h.fs().write_at(f, off, len, false);
                self.c.log_bytes_written += len;
            }
        }
        self.redo.mark_written();
        if sync {
            h.fs().sync_file(f, false);
            self.redo.flushed = self.redo.lsn;
            self.c.log_fsyncs += 1;
        }
        h.submit(now)
    }

    /// Advance the checkpoint to the oldest modification of any dirty page (the LSN when none
    /// is dirty): the log is made durable up to it, the checkpoint block written and fsynced.
    pub fn checkpoint<H: AppHost<Fs = F>>(&mut self, h: &mut H, now: u64) -> u64 {
        let target = self.pool.oldest_lsn().unwrap_or(self.redo.lsn);
        if target <= self.redo.checkpoint {
            return now;
        }
        let mut t = now;
        if self.redo.flushed < target {
            t = self.write_log(h, true, t);
        }
        let (off, len) = redo::CHECKPOINT_WRITE;
        h.fs().set_now(t);
        let _ = h.fs().write_at(self.redo.file, off, len, false);
        h.fs().sync_file(self.redo.file, false);
        self.c.log_bytes_written += len;
        self.c.log_fsyncs += 1;
        self.c.checkpoints += 1;
        self.redo.checkpoint = target;
        h.submit(t)
    }

    /// The engine's invariants (debug builds and tests): the buffer pool's, and the
    /// checkpoint age within the log capacity.
    pub fn check(&self) -> Result<(), String> {
        self.pool.check()?;
        if self.redo.age() > self.redo.capacity {
            return Err(format!(
                "innodb: checkpoint age {} over the log capacity {}",
                self.redo.age(),
                self.redo.capacity
            ));
        }
        if let Some(o) = self.pool.oldest_lsn() {
            if o < self.redo.checkpoint {
                return Err("innodb: a dirty page older than the checkpoint".into());
            }
        }
        Ok(())
    }
}

/// A walk down an index: index `tree` (0 clustered, 1 secondary) of `table` (1-based) from the
/// root to the leaf of entry `pos`, then `extra` more leaves to the right (a range); with
/// `redo` > 0 the leaf is modified by a mini-transaction of that many log bytes.
#[derive(Debug, Clone, Copy)]
pub struct Walk {
    pub table: u32,
    pub tree: u8,
    pub pos: u64,
    pub extra: u64,
    pub redo: u64,
}

/// No frame.
const NIL_FRAME: u32 = buffer_pool::NIL;

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
