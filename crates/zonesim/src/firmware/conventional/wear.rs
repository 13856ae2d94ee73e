//! The conventional FTL's side of flash that ages (firmware/wear, docs/wear.md): superblocks
//! retired at format leave the pool, an erased victim goes back to the pool or is retired,
//! queued relocations (failed programs, read reclaim, retention refresh, static wear
//! levelling) run as GC victims through the GC copy path, and background reclaim runs when the
//! host is idle.

use super::PageFtl;
use crate::engine::SimTime;
use crate::firmware::alloc::{SbState, NO_SB};
use crate::firmware::wear::Wear;
use crate::firmware::Lent;
use crate::interface::{Completion, Op};

impl PageFtl {
    /// Put the wear state in force at format: retire the superblocks it retired, order the
    /// pool by wear with wear levelling.
    pub(super) fn wear_format(&mut self, wear: Option<Box<Wear>>) {
        let Some(w) = wear else {
            return;
        };
        for sb in w.retired_at_format() {
            self.sbs.retire(sb);
        }
        if w.levels_allocation() {
            self.sbs
                .level_by((0..self.geo.superblocks).map(|s| w.key(s)).collect());
        }
        self.wear = Some(w);
    }

    /// A host command meets the wear state: a write is refused once the spares ran out
    /// (read-only); any other command runs a queued relocation now, whole, if one is due
    /// and no victim is under collection (a read-mostly host would otherwise wait for writes
    /// or idle time to pay for it); the command then queues behind its flash work.
    #[inline(never)]
    pub(super) fn wear_gate(
        &mut self,
        lent: &mut Lent,
        now: SimTime,
        op: Op,
        pages: u32,
    ) -> Option<Completion> {
        let w = self.wear.as_mut()?;
        if matches!(
            op,
            Op::Write { .. } | Op::InPlace { .. } | Op::Copy { .. } | Op::Append
        ) {
            return (!w.host_write(now, pages)).then(|| Completion::refused(now));
        }
        if w.pending() && self.start_queued(false) {
            self.gc_step(lent, now, u32::MAX);
        }
        None
    }

    /// The victim `sb` was erased: back to the pool, or retired; then static levelling.
    pub(super) fn release_erased(&mut self, sb: u32) {
        let Some(w) = self.wear.as_mut() else {
            self.sbs.release(sb);
            return;
        };
        if w.erased(sb) {
            self.sbs.release(sb);
            self.sbs.set_key(sb, w.key(sb));
        } else {
            self.sbs.retire(sb);
        }
        let info = &self.sbs.info;
        w.level(|s| info[s as usize].state == SbState::Full && info[s as usize].valid > 0);
    }

    /// A unit of `stream` was programmed into `sb`: if the program failed, close the
    /// superblock (the relocation queued in the wear state moves its data, this unit's
    /// included, and retires the failed block). With the pool down to GC's reserve
    /// ([`PageFtl::gc_reserve`]) the frontier carries on to its end
    /// instead (closing it would take the superblock the next victim copies into; its
    /// relocation is queued all the same).
    #[inline(never)]
    pub(super) fn check_program(&mut self, stream: usize, sb: u32, now: SimTime) {
        let Some(w) = self.wear.as_mut() else {
            return;
        };
        if w.program_failed(sb)
            && self.streams[stream].sb == sb
            && self.sbs.free_count() > self.gc_reserve()
        {
            self.sbs.close(sb, now);
            self.streams[stream].sb = NO_SB;
        }
    }

    /// A host read of slot `off` of superblock `sb` (read-disturb count), out of line.
    #[inline(never)]
    pub(super) fn wear_read(&mut self, sb: u32, off: u32) {
        if let Some(w) = self.wear.as_mut() {
            w.host_read(sb, off);
        }
    }

    /// The next queued relocation that can start now, if any.
    fn queued_victim(&mut self) -> Option<u32> {
        let w = self.wear.as_mut()?;
        let info = &self.sbs.info;
        w.next_victim(|s| match info[s as usize].state {
            SbState::Full => Some(true),
            SbState::Open(_) => None,
            SbState::Free | SbState::Retired => Some(false),
        })
    }

    /// Start a queued relocation if no victim is under collection and the pool holds more
    /// than GC's reserve ([`PageFtl::gc_reserve`]: GC's own victims come first below that);
    /// true if one started.
    pub(super) fn start_queued(&mut self, foreground: bool) -> bool {
        if self.gc.is_some() || self.sbs.free_count() <= self.gc_reserve() {
            return false;
        }
        match self.queued_victim() {
            Some(v) => {
                self.begin_victim(v, foreground);
                true
            }
            None => false,
        }
    }

    /// Queue the superblocks due for reclaim at `now` (read disturb, retention).
    pub(super) fn scan_reclaim(&mut self, now: SimTime) {
        let Some(w) = self.wear.as_mut() else {
            return;
        };
        let info = &self.sbs.info;
        w.scan(now, |s| {
            let i = &info[s as usize];
            (i.state == SbState::Full && i.valid > 0).then_some(i.closed_at)
        });
    }

    /// The device sat for `ns` without power or work: retention time passes; due refreshes
    /// are queued (idle time or the next writes run them).
    pub(super) fn age_wear(&mut self, now: SimTime, ns: u64) {
        if let Some(w) = self.wear.as_mut() {
            w.age(ns);
        }
        self.scan_reclaim(now);
    }

    /// Relocations are queued (background reclaim is due).
    pub(super) fn reclaim_due(&self) -> bool {
        self.wear.as_ref().is_some_and(|w| w.pending())
    }

    /// Host idle time before background reclaim runs (`ftl.gc.idle_us`), while any is due.
    pub(super) fn reclaim_idle_ns(&self) -> Option<u64> {
        self.wear
            .as_ref()
            .filter(|w| w.pending())
            .map(|w| w.idle_ns())
    }

    /// The wear state agrees with the allocator.
    pub(super) fn check_wear(&self) -> Result<(), String> {
        let Some(w) = &self.wear else {
            return Ok(());
        };
        w.check(|s| self.sbs.info[s as usize].state == SbState::Retired)
    }
}
