//! The doublewrite buffer (MySQL 8.0 reference manual §17.6.4 "Doublewrite Buffer";
//! `storage/innobase/buf/buf0dblwr.cc` read, not copied): with `innodb_doublewrite` on, every
//! page a flush writes goes first to the doublewrite file (one sequential write of the batch),
//! which is fsynced, and only then to its place in its tablespace; the tablespaces written are
//! fsynced after. A page torn by a crash in the second write is restored from the first.
//! Before any page is written the redo log is made durable up to the newest change (the
//! write-ahead rule; taken as the current LSN).
//!
//! A batch larger than the doublewrite file (128 pages) goes out in file-sized chunks, each
//! through the whole sequence.

use super::tablespace::PAGE_BYTES;
use super::{Innodb, DBLWR_PAGES};
use crate::apps::files::{AppHost, FileIo};

impl<F: FileIo> Innodb<F> {
    /// Write the frames in `self.batch` (then empty): log first, doublewrite, in place, fsync.
    /// Returns when the last write is durable.
    pub(super) fn flush_batch<H: AppHost<Fs = F>>(&mut self, h: &mut H, now: u64) -> u64 {
        let mut t = now;
        if self.batch.is_empty() {
            return t;
        }
        if self.redo.flushed < self.redo.lsn {
            t = self.write_log(h, true, t);
            self.c.wal_syncs += 1;
        }
        let batch = std::mem::take(&mut self.batch);
        for chunk in batch.chunks(DBLWR_PAGES as usize) {
            t = self.write_chunk(h, chunk, t);
        }
        self.batch = batch;
        self.batch.clear();
        t
    }

    fn write_chunk<H: AppHost<Fs = F>>(&mut self, h: &mut H, chunk: &[u32], now: u64) -> u64 {
        let d = self.direct();
        let n = chunk.len() as u64;
        let mut t = now;
        if self.cfg.doublewrite {
            let mut left = n;
            h.fs().set_now(t);
            while left > 0 {
                let at = self.dblwr_at % DBLWR_PAGES;
                let k = left.min(DBLWR_PAGES - at);
                // Within the preallocated file: no error.
                let _ = h
                    .fs()
                    .write_at(self.dblwr, at * PAGE_BYTES, k * PAGE_BYTES, d);
                self.dblwr_at += k;
                left -= k;
            }
            h.fs().sync_file(self.dblwr, false);
            self.c.data_fsyncs += 1;
            self.c.doublewrite_pages += n;
            t = h.submit(t);
        }
        self.spaces.clear();
        h.fs().set_now(t);
        for &f in chunk {
            let id = self.pool.page(f);
            let (file, off) = self.locate(id);
            let _ = h.fs().write_at(file, off, PAGE_BYTES, d);
            self.pool.mark_clean(f);
            self.spaces.push(id >> 32);
        }
        self.c.pages_written += n;
        t = h.submit(t);
        self.spaces.sort_unstable();
        self.spaces.dedup();
        h.fs().set_now(t);
        for i in 0..self.spaces.len() {
            let (file, _) = self.locate(self.spaces[i] << 32);
            h.fs().sync_file(file, false);
            self.c.data_fsyncs += 1;
        }
        self.c.flush_batches += 1;
        h.submit(t)
    }
}
