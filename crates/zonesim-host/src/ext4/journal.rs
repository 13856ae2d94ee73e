//! The jbd2 journal in ordered mode (fs/jbd2/transaction.c, commit.c, checkpoint.c; fs/ext4
//! ext4_jbd2.c, fsync.c):
//! - metadata changes join the running transaction (`jbd2_journal_dirty_metadata`); data is
//!   written before the commit that covers its metadata (`data=ordered`: the file system's data
//!   commands precede the commit's, with a barrier between);
//! - a commit (`jbd2_journal_commit_transaction`) writes, in the circular log after the journal
//!   superblock, descriptor blocks (254 tags each: `csum_v3` + `64bit`, the e2fsprogs ≥ 1.43
//!   default), a copy of every metadata block, a revoke block when blocks were freed, then the
//!   commit block with `REQ_PREFLUSH | REQ_FUA` (a cache flush, the block, a flush);
//! - it commits when the transaction is `commit` old (`j_commit_interval`, its timer starts with
//!   the transaction), on fsync of a file changed in it (`ext4_sync_file` →
//!   `jbd2_complete_transaction`; a file whose changes are committed gets a cache flush only), when
//!   it reaches a quarter of the journal (`j_max_transaction_buffers`), and at sync;
//! - committed metadata is written home by the flusher once `dirty_expire` old (the block
//!   device's dirty buffers), and all of it when the log has no room for a commit
//!   (`jbd2_log_do_checkpoint`) and at sync; the log tail then advances past transactions whose
//!   blocks are all home, with a journal-superblock write (`jbd2_update_log_tail`).
//!
//! Each metadata block has a version: in memory (`ver`), as of its last commit (`cver`) and at
//! home (`home`). Replaying the log's transactions onto the home versions must give `cver` for
//! every block (the journal-replay invariant, `check`).
//!
//! Linux 4.15 (SUP-GC's host) and today's kernel agree on all of this; fast commits (5.10+,
//! off by default) are not modelled.

use super::layout::MetaId;
use crate::fs_common::dirty::DirtySet;
use std::collections::VecDeque;

/// Tags per descriptor block: (4096 - 12-byte header - 4-byte tail) / 16-byte tag, less the
/// first tag's 16-byte UUID.
pub const TAGS_PER_DESC: u64 = 254;

/// Why a transaction committed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CommitReason {
    Timer,
    Fsync,
    Full,
    Sync,
}

/// One committed transaction still in the log.
#[derive(Debug, Clone)]
struct Txn {
    blocks: u64,
    records: Vec<(MetaId, u32)>,
}

/// The journal's state and the versions of every metadata block.
#[derive(Debug, Clone)]
pub struct Journal {
    /// Log blocks (the journal's blocks after its superblock).
    pub log_blocks: u64,
    /// Next log block written (0-based within the log).
    head: u64,
    /// Log blocks held by transactions not yet checkpointed.
    used: u64,
    txns: VecDeque<Txn>,
    pub running: DirtySet,
    /// When the running transaction started (its first change).
    pub running_since: Option<u64>,
    /// Freed metadata blocks in the running transaction (a revoke block at commit).
    pub revokes: u64,
    /// Running transaction id; the last committed is `tid - 1`.
    pub tid: u64,
    pub ver: Vec<u32>,
    pub cver: Vec<u32>,
    pub home: Vec<u32>,
    /// Committed blocks not yet home, and since when.
    pub cp_list: DirtySet,
    pub cp_since: Vec<u64>,
    /// Metadata ids no longer in use (freed extent-tree or directory blocks): not replayed.
    pub dead: DirtySet,
    scratch: Vec<u32>,
    /// Record vectors of transactions that left the log, reused by later commits.
    spare: Vec<Vec<(MetaId, u32)>>,
}

/// What one commit wrote to the log.
#[derive(Debug, Clone, Copy, Default)]
pub struct CommitBlocks {
    pub descriptor: u64,
    pub metadata: u64,
    pub revoke: u64,
    pub commit: u64,
}

impl CommitBlocks {
    pub fn total(&self) -> u64 {
        self.descriptor + self.metadata + self.revoke + self.commit
    }
}

impl Journal {
    pub fn new(journal_blocks: u64, meta_ids: usize) -> Journal {
        Journal {
            log_blocks: journal_blocks - 1,
            head: 0,
            used: 0,
            txns: VecDeque::new(),
            running: DirtySet::default(),
            running_since: None,
            revokes: 0,
            tid: 1,
            ver: vec![0; meta_ids],
            cver: vec![0; meta_ids],
            home: vec![0; meta_ids],
            cp_list: DirtySet::default(),
            cp_since: vec![0; meta_ids],
            dead: DirtySet::default(),
            scratch: Vec::new(),
            spare: Vec::new(),
        }
    }

    /// Room for ids up to `n` (dynamic ids handed out).
    pub fn grow(&mut self, n: usize) {
        if self.ver.len() < n {
            for v in [&mut self.ver, &mut self.cver, &mut self.home] {
                v.resize(n, 0);
            }
            self.cp_since.resize(n, 0);
        }
    }

    /// Metadata block `id` changed in the running transaction.
    #[inline]
    pub fn dirty(&mut self, id: MetaId, now: u64) {
        self.ver[id as usize] = self.ver[id as usize].wrapping_add(1);
        self.running.insert(id);
        self.running_since.get_or_insert(now);
    }

    /// Log blocks a commit of the running transaction needs.
    pub fn commit_size(&self) -> CommitBlocks {
        let n = self.running.len() as u64;
        CommitBlocks {
            descriptor: n.div_ceil(TAGS_PER_DESC).max(1),
            metadata: n,
            revoke: (self.revokes > 0) as u64,
            commit: 1,
        }
    }

    pub fn free_log(&self) -> u64 {
        self.log_blocks.saturating_sub(self.used)
    }

    /// The transaction is a quarter of the log (`j_max_transaction_buffers`).
    pub fn full(&self) -> bool {
        self.commit_size().total() >= self.log_blocks / 4
    }

    /// Commit the running transaction: returns the log positions written as (first log block,
    /// blocks) pieces of the circular log (two when it wraps), the commit block last.
    pub fn commit(&mut self, now: u64) -> (CommitBlocks, [(u64, u64); 2]) {
        let size = self.commit_size();
        let n = size.total();
        debug_assert!(n <= self.free_log());
        let first = (self.head, n.min(self.log_blocks - self.head));
        let second = (0, n - first.1);
        self.head = (self.head + n) % self.log_blocks;
        self.used += n;
        let mut ids = std::mem::take(&mut self.scratch);
        self.running.drain_into(&mut ids);
        let mut records = self.spare.pop().unwrap_or_default();
        for &id in &ids {
            let i = id as usize;
            self.cver[i] = self.ver[i];
            records.push((id, self.ver[i]));
            if self.cp_list.insert(id) {
                self.cp_since[i] = now;
            }
        }
        self.scratch = ids;
        self.txns.push_back(Txn { blocks: n, records });
        self.running_since = None;
        self.revokes = 0;
        self.tid += 1;
        (size, [first, second])
    }

    /// Take the committed blocks to write home: all of them (`all`), else those committed at
    /// or before `expired`. They are marked home.
    pub fn take_home(&mut self, all: bool, expired: u64, out: &mut Vec<MetaId>) {
        out.clear();
        let mut ids = std::mem::take(&mut self.scratch);
        self.cp_list.drain_into(&mut ids);
        for &id in &ids {
            let i = id as usize;
            if all || self.cp_since[i] <= expired {
                self.home[i] = self.cver[i];
                if !self.dead.contains(id) {
                    out.push(id);
                }
            } else {
                self.cp_list.insert(id);
            }
        }
        self.scratch = ids;
    }

    /// Drop the oldest transactions whose blocks are all home; true if the tail moved.
    pub fn advance_tail(&mut self) -> bool {
        let mut moved = false;
        while let Some(t) = self.txns.front() {
            let home = t
                .records
                .iter()
                .all(|&(id, v)| self.home[id as usize] == v || self.newer_home(id, v));
            if !home {
                break;
            }
            self.used -= t.blocks;
            if let Some(mut t) = self.txns.pop_front() {
                t.records.clear();
                self.spare.push(t.records);
            }
            moved = true;
        }
        moved
    }

    /// The home copy of `id` is at least version `v` (versions only grow, modulo wrap).
    fn newer_home(&self, id: MetaId, v: u32) -> bool {
        self.home[id as usize].wrapping_sub(v) < u32::MAX / 2
    }

    /// Transactions in the log.
    pub fn in_log(&self) -> usize {
        self.txns.len()
    }

    /// Redo the log's transactions onto the home versions; the first metadata id whose result
    /// differs from its committed version, if any.
    pub fn replay_mismatch(&self) -> Option<(MetaId, u32, u32)> {
        let mut v = self.home.clone();
        for t in &self.txns {
            for &(id, ver) in &t.records {
                v[id as usize] = ver;
            }
        }
        (0..v.len() as u32)
            .find(|&id| !self.dead.contains(id) && v[id as usize] != self.cver[id as usize])
            .map(|id| (id, v[id as usize], self.cver[id as usize]))
    }
}
