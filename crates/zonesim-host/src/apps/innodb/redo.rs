//! The redo log (MySQL 8.0 reference manual §17.6.5 "Redo Log" and §17.14
//! `innodb_flush_log_at_trx_commit`; `storage/innobase/log/` read, not copied): every
//! mini-transaction appends its records at the log sequence number (LSN); the log is a circular
//! file of `innodb_redo_log_capacity` bytes (100 MiB by default since 8.0.30) after a 2 KiB
//! header, written in 512-byte blocks (the last, partial block is written again by the next
//! write).
//!
//! Commit (`innodb_flush_log_at_trx_commit`): 1 writes and fsyncs the log up to the commit at
//! every commit, with group commit: a commit that arrives while an fsync is in flight waits
//! for it to end, and the first such commit then writes and fsyncs the log for all that waited
//! (one fsync per group); 2 writes the log at commit and fsyncs it once per second; 0 writes and
//! fsyncs once per second.
//!
//! The checkpoint is the LSN up to which every change is in the data files (the oldest
//! modification of any dirty page); the checkpoint age (LSN − checkpoint) never exceeds the
//! capacity: page flushing becomes asynchronous-urgent at 7/8 of it and a modifying thread
//! flushes itself at 15/16 (`log_free_check`).

/// The log file's header before the circular log.
pub const HEADER_BYTES: u64 = 2048;
/// Log block.
pub const BLOCK: u64 = 512;

/// The redo log's state.
#[derive(Debug, Clone)]
pub struct Redo<F> {
    pub file: F,
    pub capacity: u64,
    /// Next LSN to assign (starts at one block so LSN 0 means "clean").
    pub lsn: u64,
    /// Written to the file, and made durable.
    pub written: u64,
    pub flushed: u64,
    pub checkpoint: u64,
    /// When the fsync in flight ends (ns).
    pub busy_until: u64,
    /// A group is waiting for the fsync in flight to end.
    pub group_waiting: bool,
}

impl<F: Copy> Redo<F> {
    pub fn new(file: F, capacity: u64) -> Redo<F> {
        Redo {
            file,
            capacity,
            lsn: BLOCK,
            written: BLOCK,
            flushed: BLOCK,
            checkpoint: BLOCK,
            busy_until: 0,
            group_waiting: false,
        }
    }

    /// Bytes of the log file.
    pub fn file_bytes(&self) -> u64 {
        HEADER_BYTES + self.capacity
    }

    /// Append `bytes` of records; returns the LSN where they start.
    pub fn append(&mut self, bytes: u64) -> u64 {
        let at = self.lsn;
        self.lsn += bytes;
        at
    }

    /// Checkpoint age now.
    pub fn age(&self) -> u64 {
        self.lsn - self.checkpoint
    }

    /// Flushing becomes urgent past this age (`max_modified_age_async`).
    pub fn async_limit(&self) -> u64 {
        self.capacity - self.capacity / 8
    }

    /// A modifying thread flushes itself past this age (`max_modified_age_sync`).
    pub fn sync_limit(&self) -> u64 {
        self.capacity - self.capacity / 16
    }

    /// The file ranges (offset, length) that write the log from `written` to `lsn`, in whole
    /// blocks, wrapping at the capacity; at most two.
    pub fn pending_ranges(&self) -> [(u64, u64); 2] {
        let start = self.written / BLOCK * BLOCK;
        let end = self.lsn.div_ceil(BLOCK) * BLOCK;
        if end <= start {
            return [(0, 0), (0, 0)];
        }
        let len = (end - start).min(self.capacity);
        let off = start % self.capacity;
        let first = len.min(self.capacity - off);
        [(HEADER_BYTES + off, first), (HEADER_BYTES, len - first)]
    }

    /// The log is written up to the current LSN.
    pub fn mark_written(&mut self) {
        self.written = self.lsn;
    }
}

/// Log bytes a checkpoint writes (one block of the header), and where.
pub const CHECKPOINT_WRITE: (u64, u64) = (BLOCK, BLOCK);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_round_to_blocks_and_wrap() {
        let mut r = Redo::new(0u32, 1 << 20);
        r.append(1000);
        // [512, 1512) -> blocks [512, 1536)
        assert_eq!(r.pending_ranges(), [(2048 + 512, 1024), (2048, 0)]);
        r.mark_written();
        r.lsn = (1 << 20) + 700;
        r.written = (1 << 20) - 100;
        let [a, b] = r.pending_ranges();
        assert_eq!(a, (2048 + (1 << 20) - 512, 512));
        assert_eq!(b, (2048, 1024));
        assert_eq!(r.sync_limit(), (1 << 20) * 15 / 16);
        assert_eq!(r.async_limit(), (1 << 20) * 7 / 8);
    }
}
