//! The page cleaner (MySQL 8.0 reference manual §17.8.3.5 "Configuring Buffer Pool Flushing"
//! and §17.8.3.6 "Fine-tuning InnoDB Buffer Pool Flushing"; the rules of
//! `storage/innobase/buf/buf0flu.cc`, `page_cleaner_flush_pages_recommendation`, read, not
//! copied). Once a second it
//! 1. flushes the dirty pages among the `innodb_lru_scan_depth` pages at the LRU tail and frees
//!    clean ones, when fewer than that many frames are free;
//! 2. flushes the oldest pages of the flush list, as many as adaptive flushing recommends:
//!    the mean of (a) `innodb_io_capacity` × the larger of the dirty-page share
//!    (dirty % × 100 / (`innodb_max_dirty_pages_pct` + 1), from `innodb_max_dirty_pages_pct_lwm`
//!    on) and the log share (from `innodb_adaptive_flushing_lwm` % of the log capacity on:
//!    (`io_capacity_max` / `io_capacity`) × f√f / 7.5 with f the checkpoint age in % of the
//!    asynchronous limit), (b) the pages flushed per second on average, and (c) the dirty pages
//!    older than the oldest LSN + 3 seconds of log; at most `innodb_io_capacity_max`;
//! 3. advances the checkpoint.
//!
//! Averages are over the last pass and the previous average (MySQL averages over
//! `innodb_flushing_avg_loops` = 30 passes). A thread about to modify a page when the
//! checkpoint age is past the synchronous limit flushes the oldest pages itself until it is
//! back under the asynchronous limit (`log_free_check`).

use super::Innodb;
use crate::apps::files::{AppHost, FileIo};

/// The page cleaner's running averages.
#[derive(Debug, Clone, Copy, Default)]
pub struct Cleaner {
    pub avg_page_rate: u64,
    pub avg_lsn_rate: u64,
    pub last_lsn: u64,
}

/// The pass interval (ns): once a second.
pub const PASS_NS: u64 = 1_000_000_000;
/// Seconds of log ahead of the oldest LSN whose pages the flush aims at
/// (`buf_flush_lsn_scan_factor`).
const LSN_SCAN_FACTOR: u64 = 3;

impl<F: FileIo> Innodb<F> {
    /// The flush list pages adaptive flushing recommends now.
    pub fn flush_recommendation(&self) -> u64 {
        let c = &self.cfg;
        let pages = (self.pool.lru_len() + self.pool.free_len()).max(1);
        let dirty_pct = self.pool.dirty() * 100 / pages;
        let pct_dirty = if c.max_dirty_pages_pct_lwm == 0 {
            if dirty_pct >= c.max_dirty_pages_pct {
                100.0
            } else {
                0.0
            }
        } else if dirty_pct >= c.max_dirty_pages_pct_lwm {
            (dirty_pct * 100) as f64 / (c.max_dirty_pages_pct + 1) as f64
        } else {
            0.0
        };
        let age = self.redo.age();
        let lwm = c.adaptive_flushing_lwm * self.redo.capacity / 100;
        let pct_lsn = if age < lwm {
            0.0
        } else {
            let f = age as f64 * 100.0 / self.redo.async_limit() as f64;
            c.io_capacity_max as f64 / c.io_capacity as f64 * f * f.sqrt() / 7.5
        };
        let pct = pct_dirty.max(pct_lsn);
        let target = self
            .pool
            .oldest_lsn()
            .map_or(0, |o| o + self.cl.avg_lsn_rate * LSN_SCAN_FACTOR);
        let for_lsn = self.pool.dirty_upto(target, c.io_capacity_max);
        let n = (c.io_capacity as f64 * pct / 100.0) as u64 + self.cl.avg_page_rate + for_lsn;
        (n / 3).min(c.io_capacity_max)
    }

    /// One page cleaner pass at `now`; returns when its writes are durable.
    pub fn cleaner_pass<H: AppHost<Fs = F>>(&mut self, h: &mut H, now: u64) -> u64 {
        let mut t = now;
        let depth = self.cfg.lru_scan_depth;
        let mut flushed = 0;
        if self.pool.free_len() < depth {
            self.batch.clear();
            self.pool.tail_dirty(depth, &mut self.batch);
            let n = self.batch.len() as u64;
            self.c.lru_flushed += n;
            flushed += n;
            t = self.flush_batch(h, t);
            self.pool.refill_free(depth, depth);
        }
        let n = self.flush_recommendation();
        self.batch.clear();
        self.pool.oldest_dirty(n, u64::MAX, &mut self.batch);
        let n = self.batch.len() as u64;
        self.c.list_flushed += n;
        flushed += n;
        t = self.flush_batch(h, t);
        self.cl.avg_page_rate = (self.cl.avg_page_rate + flushed) / 2;
        let lsn = self.redo.lsn;
        self.cl.avg_lsn_rate = (self.cl.avg_lsn_rate + (lsn - self.cl.last_lsn)) / 2;
        self.cl.last_lsn = lsn;
        self.checkpoint(h, t)
    }

    /// Before a modification: past the synchronous checkpoint age, flush the oldest pages
    /// until the age is back under the asynchronous limit, and checkpoint.
    pub fn free_check<H: AppHost<Fs = F>>(&mut self, h: &mut H, now: u64) -> u64 {
        if self.redo.age() <= self.redo.sync_limit() {
            return now;
        }
        let upto = self.redo.lsn - self.redo.async_limit();
        let mut t = now;
        loop {
            self.batch.clear();
            self.pool
                .oldest_dirty(self.cfg.io_capacity_max, upto, &mut self.batch);
            if self.batch.is_empty() {
                break;
            }
            self.c.sync_flushed += self.batch.len() as u64;
            t = self.flush_batch(h, t);
        }
        self.checkpoint(h, t)
    }
}
