//! The file system's side of the device's budget-based in-place update (ZMS
//! "Challenge #2: Latency of Tiny Synchronous File Update", slide "Budget-based In-Place
//! Update": "Allow in-place update for select files as per the application request; device
//! writes the in-place updated data into SLC blocks; cap total valid data size").
//!
//! A file marked for in-place update ([`F2fs::mark_ipu`]: fio `ipu=1` on files, the SQLite
//! model's `ipu`) on a main area whose device has an IPU budget (`FsParams::device_ipu`, set by
//! `sim` from `zone.ipu_budget_bytes > 0`) has every overwrite of a block it already owns
//! written back in place: an in-place update command at the block's own address, no new block,
//! no node or NAT update (an fsync that only updated in place writes no node, as F2FS's IPU
//! path). The device answers `rejected` when the update would take its valid IPU data beyond
//! the budget; `sim` reports the refused commands ([`F2fs::ipu_rejected`]) and, when the batch
//! has completed, [`F2fs::ipu_fallback`] writes those pages out of place as an ordinary
//! writeback would (new block, old one invalidated, node dirty), followed, when the update
//! was an fsync's, by the files' dirty nodes and a cache flush: the fsync completes when the
//! fallback is durable. Report: `fs.ipu.{files, requests, bytes, rejected, rejected_bytes,
//! fallback_bytes}` (present once a file has been marked).

use super::layout::BLOCK_BYTES;
use super::write::Wb;
use super::{F2fs, Ino, NEW, NULL};
use crate::IoKind;
use serde::Serialize;

/// Counters of the in-place updates the file system asked of the device.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct IpuHookCounters {
    /// Files marked for in-place update.
    pub files: u64,
    /// 4 KiB blocks sent as in-place updates (adjacent ones merge into one command) and their
    /// bytes.
    pub requests: u64,
    pub bytes: u64,
    /// Blocks the device refused (budget exhausted) and their bytes.
    pub rejected: u64,
    pub rejected_bytes: u64,
    /// Bytes of refused pages then written out of place.
    pub fallback_bytes: u64,
}

/// A page updated in place in the batch being submitted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Sent {
    blk: u32,
    ino: u32,
    fb: u32,
    /// Written back by an fsync (the fallback must be durable before it returns).
    sync: bool,
}

/// The in-place updates of the batch in flight and the refused ones.
#[derive(Debug, Clone, Default)]
pub(super) struct IpuHook {
    sent: Vec<Sent>,
    sorted: bool,
    refused: Vec<(u32, u32, bool)>,
    inos: Vec<u32>,
    /// A file has been marked (the report shows `fs.ipu`).
    used: bool,
}

impl F2fs {
    /// Mark `ino` for in-place update. Returns false (nothing marked) when the main area's
    /// device offers no in-place update budget.
    pub fn mark_ipu(&mut self, ino: Ino) -> bool {
        if !self.p.device_ipu {
            return false;
        }
        self.ipu_hook.used = true;
        let f = &mut self.inodes[ino.0 as usize];
        if !f.ipu {
            f.ipu = true;
            self.c.ipu.files += 1;
        }
        true
    }

    /// The in-place update counters, once a file has been marked.
    pub fn ipu_counters(&self) -> Option<IpuHookCounters> {
        self.ipu_hook.used.then_some(self.c.ipu)
    }

    /// Write page `fb` of `ino`, held in block `old`, in place if the file is marked; true if
    /// an in-place update command was emitted.
    #[inline]
    pub(super) fn device_ipu(&mut self, ino: u32, fb: u32, old: u32, wb: Wb) -> bool {
        if !self.inodes[ino as usize].ipu {
            return false;
        }
        self.main_io(IoKind::InPlace, old);
        self.ipu_hook.sent.push(Sent {
            blk: old,
            ino,
            fb,
            sync: matches!(wb, Wb::Sync { .. }),
        });
        self.ipu_hook.sorted = false;
        self.c.ipu.requests += 1;
        self.c.ipu.bytes += BLOCK_BYTES;
        self.c.data_bytes += BLOCK_BYTES;
        true
    }

    /// The device refused the in-place update of `len` bytes at main-area offset `offset`.
    pub fn ipu_rejected(&mut self, offset: u64, len: u64) {
        let h = &mut self.ipu_hook;
        if !h.sorted {
            h.sent.sort_unstable();
            h.sorted = true;
        }
        let b0 = ((offset - self.geo.main_base_bytes) / BLOCK_BYTES) as u32;
        let b1 = b0 + len.div_ceil(BLOCK_BYTES) as u32;
        let i = h.sent.partition_point(|s| s.blk < b0);
        for s in h.sent[i..].iter().take_while(|s| s.blk < b1) {
            h.refused.push((s.ino, s.fb, s.sync));
        }
        self.c.ipu.rejected += len.div_ceil(BLOCK_BYTES);
        self.c.ipu.rejected_bytes += len;
        self.c.data_bytes = self.c.data_bytes.saturating_sub(len);
    }

    /// After a batch completed: write the refused pages out of place (then, for an fsync's,
    /// the files' nodes and a flush). True if commands were emitted for a further batch.
    pub fn ipu_fallback(&mut self) -> bool {
        self.ipu_hook.sent.clear();
        if self.ipu_hook.refused.is_empty() {
            return false;
        }
        let mut refused = std::mem::take(&mut self.ipu_hook.refused);
        refused.sort_unstable();
        refused.dedup_by_key(|r| (r.0, r.1));
        let mut inos = std::mem::take(&mut self.ipu_hook.inos);
        inos.clear();
        for &(ino, fb, sync) in &refused {
            let f = &self.inodes[ino as usize];
            let old = f.addrs.get(fb as usize).copied().unwrap_or(NULL);
            if !f.alive || old == NULL || old == NEW || f.dirty.contains(fb) {
                // Gone, or dirty again: the next writeback writes it.
                continue;
            }
            let log = f.data_log;
            if self.write_out_of_place(ino, fb, old, log, false) {
                self.c.ipu.fallback_bytes += BLOCK_BYTES;
            }
            if sync && inos.last() != Some(&ino) {
                inos.push(ino);
            }
        }
        if !inos.is_empty() {
            self.out.barrier();
            for &ino in &inos {
                self.write_dirty_nodes(ino);
            }
            self.out.flush();
        }
        refused.clear();
        self.ipu_hook.refused = refused;
        self.ipu_hook.inos = inos;
        !self.out.cmds.is_empty()
    }
}
