//! SLC write-back of a conventional namespace's SLC write cache (`slc.writeback`): the UFS
//! WriteBooster buffer flush (JEDEC UFS 3.1, JESD220E §13.4.14 "WriteBooster": the device
//! flushes the WriteBooster buffer to normal storage when the host sets
//! `fWriteBoosterBufferFlushEn` or, with `fWriteBoosterBufferFlushDuringHibern8`, while the link
//! is in Hibern8 — entered after the host's auto-Hibern8 idle timer, 150 ms by default in
//! Linux ufshcd; hosts ask for a flush when the buffer's available space falls below
//! `wb_flush_threshold`, 40 % by default). Seed 000 (ConZone+) §2.1 / §6.3: the block device's
//! SLC data reaches TLC; the policy that moves it is the device's, unstated in the paper.
//!
//! - `full` (default): data leaves SLC only when SLC GC needs room (`slc.rs`).
//! - `idle`: after `slc.writeback_idle_us` without a host request, SLC victims are migrated
//!   one regular program unit at a time — each step the SLC reads that fill one unit and its
//!   program, the next step once the dies are free — until SLC holds less than a unit or a
//!   host request arrives (the request then waits at most for the step's operations in
//!   flight). A TLC word line is programmed whole, so less than a unit stays in SLC. The open
//!   host frontier is closed when it is the last to hold valid data.
//! - `threshold`: after each write to SLC, victims are migrated (background operations,
//!   booked in the dies' gaps; the host write does not wait) until at most
//!   `slc.writeback_threshold` of the SLC superblocks are in use.
//!
//! Migration is SLC GC's (`migrate_slc_page`: the placement's GC stream, regular-flash GC paid
//! as host flushes pay it); what it moves is counted apart (`device.namespaces[i].slc.writeback_*`).

use super::slc::SlcRoomOf;
use super::PageFtl;
use crate::config::{SlcConfig, SlcWriteback};
use crate::engine::SimTime;
use crate::firmware::alloc::make_room;
use crate::firmware::Lent;
use serde::Serialize;

/// What the write-back did (`device.namespaces[i].slc.writeback_*`; absent with `full`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct WritebackCounters {
    /// Pages migrated from SLC to regular flash by the write-back.
    pub writeback_pages: u64,
    /// SLC superblocks it emptied (migrated and erased).
    pub writeback_victims: u64,
    /// Write-back runs: idle periods in which it migrated, or threshold crossings.
    pub writeback_runs: u64,
    /// Idle write-back: device time its steps used (from each step's start to the end of its
    /// flash work), ns.
    pub writeback_idle_ns: u64,
}

/// The write-back policy of one SLC cache and its progress.
#[derive(Clone)]
pub struct Writeback {
    pub mode: SlcWriteback,
    /// `idle`: host idle time before a run, ns.
    pub idle_ns: u64,
    /// `threshold`: free superblocks to keep above (use at most the threshold).
    free_target: u32,
    /// `idle`: the victim being written back and its next offset.
    victim: Option<(u32, u32)>,
    /// `idle`: a run is under way (no host request since it started).
    running: bool,
    pub counters: WritebackCounters,
}

impl Writeback {
    /// The policy of `cfg` for a pool of `superblocks` whose SLC GC keeps more than `gc_free`.
    pub fn new(cfg: &SlcConfig, superblocks: u32, gc_free: u32) -> Writeback {
        let used = (cfg.writeback_threshold * superblocks as f64).floor() as u32;
        Writeback {
            mode: cfg.writeback,
            idle_ns: (cfg.writeback_idle_us * 1e3).round() as u64,
            free_target: superblocks.saturating_sub(used + 1).max(gc_free),
            victim: None,
            running: false,
            counters: WritebackCounters::default(),
        }
    }

    /// SLC GC collected `v`: if the idle write-back was part-way through it, it is done.
    pub fn forget_victim(&mut self, v: u32) {
        if self.victim.is_some_and(|(x, _)| x == v) {
            self.victim = None;
        }
    }

    /// A host request arrived: an idle run ends.
    #[inline]
    pub fn host_request(&mut self) {
        self.running = false;
    }
}

impl PageFtl {
    /// The host idle time after which the SLC write-back starts (`slc.writeback = idle`).
    pub fn writeback_idle_ns(&self) -> Option<u64> {
        let c = self.slc.as_ref()?;
        (c.wb.mode == SlcWriteback::Idle).then_some(c.wb.idle_ns)
    }

    /// `slc.writeback = threshold`: after a write to SLC at `t`, migrate victims until use is
    /// at most the threshold (background work; nothing waits for it).
    pub(super) fn threshold_writeback(&mut self, lent: &mut Lent, t: SimTime) {
        let c = self.slc.as_mut().expect("SLC cache");
        if c.wb.mode != SlcWriteback::Threshold {
            return;
        }
        let target = c.wb.free_target;
        if c.pool.free_count(t) > target {
            return;
        }
        let before = c.wb.counters.writeback_victims;
        make_room(&mut SlcRoomOf::writeback(self, target), lent, t);
        let c = self.slc.as_mut().expect("SLC cache");
        if c.wb.counters.writeback_victims > before {
            c.wb.counters.writeback_runs += 1;
        }
    }

    /// One step of the idle write-back at `now` (the host has been idle the configured time
    /// and the dies are free): migrate SLC pages until they complete one regular-flash program
    /// unit (a TLC word line is programmed whole: the write-back starts only when SLC holds a
    /// unit's worth), erasing the victims it empties. Returns whether there is more to do.
    pub fn idle_writeback(&mut self, lent: &mut Lent, now: SimTime) -> bool {
        let unit = self.unit as u64;
        loop {
            let Some(mut c) = self.slc.take() else {
                return false;
            };
            let step = self.writeback_step(lent, &mut c, now, unit);
            self.slc = Some(c);
            if let Some(v) = step.emptied {
                self.end_slc_victim(lent, v, now);
            }
            if step.stop {
                return false;
            }
            if step.programmed {
                return true;
            }
        }
    }

    /// Migrate pages of the victim in progress (choosing one first) until a regular unit is
    /// programmed or the victim is empty; `stop` when SLC holds less than a unit (`unit`).
    fn writeback_step(
        &mut self,
        lent: &mut Lent,
        c: &mut super::SlcCache,
        now: SimTime,
        unit: u64,
    ) -> Step {
        let mut step = Step::default();
        if c.wb.mode != SlcWriteback::Idle {
            step.stop = true;
            return step;
        }
        if c.wb.victim.is_none() {
            if c.pool.valid_total() < unit {
                step.stop = true;
                return step;
            }
            let v = match c.pool.pick_victim(true) {
                Some(v) => v,
                None => {
                    // Only the open host frontier holds data: close it to write it back.
                    c.pool.close_host_front(lent.nand);
                    match c.pool.pick_victim(true) {
                        Some(v) => v,
                        None => {
                            step.stop = true;
                            return step;
                        }
                    }
                }
            };
            if !c.wb.running {
                c.wb.running = true;
                c.wb.counters.writeback_runs += 1;
            }
            c.wb.victim = Some((v, 0));
        }
        let (v, mut o) = c.wb.victim.expect("victim");
        let (sb_slots, spp) = (c.pool.slots_per_sb(), c.pool.slots_per_page());
        let mut done = now;
        while o < sb_slots && !step.programmed {
            let m = self.migrate_slc_page(lent, c, v, o, now);
            o += spp;
            c.wb.counters.writeback_pages += m.pages;
            done = done.max(m.done);
            step.programmed = m.programmed;
        }
        c.wb.counters.writeback_idle_ns += done.since(now);
        if o < sb_slots && c.pool.valid(v) > 0 {
            c.wb.victim = Some((v, o));
        } else {
            c.wb.victim = None;
            c.wb.counters.writeback_victims += 1;
            step.emptied = Some(v);
        }
        step
    }
}

/// What one write-back step did.
#[derive(Default)]
struct Step {
    /// It completed a regular-flash program unit.
    programmed: bool,
    /// The victim it emptied (to be erased).
    emptied: Option<u32>,
    /// Nothing (more) to write back now.
    stop: bool,
}
