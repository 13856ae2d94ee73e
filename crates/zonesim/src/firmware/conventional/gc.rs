//! Garbage collection of a conventional namespace (docs/placement.md):
//! foreground GC, incremental by default, before a host unit is flushed; background GC when the
//! host is idle; survivors rewritten through the placement's GC streams; map updates batched
//! per victim (DFTL's batch update). The victim is chosen by [`select_victim`].

use super::PageFtl;
use crate::config::CellType;
use crate::engine::SimTime;
use crate::firmware::gc::select_victim;
use crate::firmware::mapping::{Lpa, Ppa};
use crate::firmware::Lent;
use crate::nand::{OpClass, SLOT_BYTES};

/// How many flash pages ahead of the page being moved [`PageFtl::gc_step`] starts loading the
/// survivors' map entries (host memory latency; changes no result).
const PREFETCH_PAGES: u32 = 8;

/// A victim under (incremental) collection.
#[derive(Debug, Clone, Copy)]
pub(super) struct GcJob {
    sb: u32,
    /// Next offset to examine.
    cursor: u32,
    /// Page moves owed per host unit flushed.
    quota: u32,
    /// Moves owed x unit, accumulated per host page (paid in whole moves).
    credit: u64,
    /// Pages moved so far.
    moved: u32,
}

impl PageFtl {
    /// Foreground GC before a host unit is flushed. Once fewer than `threshold + streams`
    /// superblocks are free a victim is chosen and collected *incrementally*: each host unit
    /// pays `ceil(unit x v / (S - v))` page moves (v = the victim's valid slots when chosen,
    /// S = slots per superblock), paid page by page between the unit's host pages
    /// ([`Self::gc_pay`], so host and GC data share units and dies), so the victim is free by
    /// the time the host has filled the space it frees and host latency sees GC spread out
    /// rather than in one burst. If the pool falls to the reserve the GC streams need, GC runs
    /// to completion (blocking).
    pub(super) fn ensure_free(&mut self, lent: &mut Lent, now: SimTime) {
        // Every stream beyond the first keeps one more superblock in reserve (see below), so
        // the incremental start moves up with it: GC stays incremental above the reserve.
        let start = self.threshold + self.streams.len() as u32 - 1;
        if self.wear.is_some() {
            // A queued relocation (firmware/wear) is paid like a victim.
            self.start_queued(true);
        }
        if self.gc.is_none() && self.sbs.free_count() <= start {
            self.start_victim(now, true);
        }
        if self.gc.is_some() && !self.incremental {
            self.gc_step(lent, now, u32::MAX);
        }
        let reserve = self.gc_reserve();
        let mut budget = self.geo.superblocks;
        while self.sbs.free_count() <= reserve && budget > 0 {
            budget -= 1;
            if self.gc.is_none() && !self.start_victim(now, true) {
                break;
            }
            self.gc_step(lent, now, u32::MAX);
        }
    }

    /// Free superblocks foreground GC keeps: one per stream to copy into, and with wear on one
    /// more, since a victim whose erase fails is retired instead of freed and the next victim
    /// must still find a superblock to copy into. Queued relocations (firmware/wear) start
    /// only above it, and a failed program closes its frontier only above it.
    pub(super) fn gc_reserve(&self) -> u32 {
        self.streams.len() as u32 + self.wear.is_some() as u32
    }

    /// One host page was placed: pay its share (`quota / unit`) of the victim's moves.
    /// Returns the latest completion of the programs it issued (or `now`).
    pub(super) fn gc_pay(&mut self, lent: &mut Lent, now: SimTime) -> SimTime {
        let Some(g) = self.gc.as_mut() else {
            return now;
        };
        g.credit += g.quota as u64;
        let moves = g.credit / self.unit as u64;
        if moves == 0 {
            return now;
        }
        g.credit -= moves * self.unit as u64;
        self.gc_step(lent, now, moves.min(u32::MAX as u64) as u32)
    }

    /// Background GC step (the host is idle): collect one victim if fewer than the background
    /// threshold are free. Idle detection is two-sided: the host has nothing outstanding (the
    /// caller's idle timer) and this FTL's dies have finished their queued work — otherwise
    /// GC issued in one idle gap could pile up behind work still queued from the last (which,
    /// with preemptible GC, host reads keep pushing back). Returns whether it wants to be
    /// called again (it did work, or work is due once the dies are idle).
    pub fn background_gc(&mut self, lent: &mut Lent, now: SimTime) -> bool {
        self.scan_reclaim(now);
        let gc_due = self.sbs.free_count() < self.bg_threshold;
        let due = self.gc.is_some() || gc_due || self.reclaim_due();
        if !due {
            return false;
        }
        if (0..self.geo.dies).any(|d| lent.nand.die_free_at(self.geo.phys_die(d)) > now) {
            return true;
        }
        if self.gc.is_none()
            && !self.start_queued(false)
            && !(gc_due && self.start_victim(now, false))
        {
            return false;
        }
        self.gc_step(lent, now, u32::MAX);
        true
    }

    /// Choose a victim and make it the GC in progress; false if none is worth collecting.
    /// (Relocations the wear state queues start in `start_queued`, when space allows.)
    pub(super) fn start_victim(&mut self, now: SimTime, foreground: bool) -> bool {
        let Some(v) = select_victim(
            self.victim,
            &self.sbs.info,
            now,
            self.victim_params,
            &mut self.rng,
            |_| false,
        ) else {
            return false;
        };
        self.begin_victim(v, foreground);
        true
    }

    /// Make `v` the victim under collection.
    pub(super) fn begin_victim(&mut self, v: u32, foreground: bool) {
        self.counters.gc_victims += 1;
        if foreground {
            self.counters.gc_foreground_victims += 1;
        } else {
            self.counters.gc_background_victims += 1;
        }
        let info = self.sbs.info[v as usize];
        let valid = info.valid as u64;
        self.gc_stats.victim_chosen(
            info.stream as usize,
            valid as f64 / self.slots_per_sb as f64,
        );
        let free_gain = (self.slots_per_sb as u64 - valid).max(1);
        self.gc = Some(GcJob {
            sb: v,
            cursor: 0,
            credit: 0,
            quota: (self.unit as u64 * valid)
                .div_ceil(free_gain)
                .min(u32::MAX as u64) as u32,
            moved: 0,
        });
    }

    /// Move up to `max_moves` valid slots of the victim in progress (whole flash pages at a
    /// time); erase and release it when it is empty. Returns the latest completion of the
    /// programs it issued (or `now`).
    pub(super) fn gc_step(&mut self, lent: &mut Lent, now: SimTime, max_moves: u32) -> SimTime {
        let Some(mut g) = self.gc else {
            return now;
        };
        let mut programmed = now;
        let spp = self.geo.slots_per_page;
        let base = g.sb * self.slots_per_sb;
        let from = self.sbs.info[g.sb as usize].stream as usize;
        let mut moved = 0;
        while g.cursor < self.slots_per_sb
            && moved < max_moves
            && self.sbs.info[g.sb as usize].valid > 0
        {
            let off = g.cursor;
            g.cursor += spp;
            // Each survivor's map entry is rewritten when it moves: start the loads of the
            // survivors a few pages ahead, so they have arrived when their page moves, and
            // of the reverse map that names them further ahead still.
            self.prefetch_survivors(base, off + PREFETCH_PAGES * spp, spp);
            self.map
                .prefetch_owner(Ppa(base + off + 2 * PREFETCH_PAGES * spp));
            let valid = (off..off + spp)
                .filter(|&o| self.map.owner(Ppa(base + o)).is_some())
                .count() as u32;
            if valid == 0 {
                continue;
            }
            let page = self.geo.page_of(g.sb, off);
            let mut t = lent.nand.read_block(
                now,
                page,
                valid as u64 * SLOT_BYTES,
                self.cell,
                OpClass::Background,
            );
            let per_page = self.costs.gc_page_cost(&self.placement);
            if per_page > 0 {
                t = t.max(self.cpu.run(now, valid as u64 * per_page));
            }
            for o in off..off + spp {
                let ppa = Ppa(base + o);
                if let Some(lpa) = self.map.owner(ppa) {
                    self.invalidate_in(g.sb, ppa);
                    let stream = self.placement.gc(lpa, from);
                    if let Some(d) = self.place_gc(lent, stream, lpa, t, now) {
                        programmed = programmed.max(d);
                    }
                }
            }
            moved += valid;
        }
        self.counters.gc_pages_moved += moved as u64;
        if let Some(w) = &mut self.wear {
            w.moved(g.sb, moved as u64);
        }
        g.moved += moved;
        if self.sbs.info[g.sb as usize].valid > 0 {
            self.gc = Some(g);
            return programmed;
        }
        self.gc = None;
        self.gc_stats.victim_done(g.moved);
        self.flush_gc_map_updates(lent, now);
        let block = self.geo.first_block + g.sb;
        match &self.geo.die_map {
            None => lent
                .nand
                .erase_superblock(now, block, self.cell, OpClass::Background),
            Some(dies) => {
                lent.nand
                    .erase_superblock_on(dies, now, block, self.cell, OpClass::Background)
            }
        };
        self.release_erased(g.sb);
        programmed
    }

    /// Start loading the map entries of the survivors in victim slots `off..off + n`
    /// (`base`: the victim's first slot; nothing past its end). A host-memory hint only.
    #[inline]
    fn prefetch_survivors(&self, base: u32, off: u32, n: u32) {
        for o in off..(off + n).min(self.slots_per_sb) {
            if let Some(lpa) = self.map.owner(Ppa(base + o)) {
                self.map.prefetch(lpa);
            }
        }
    }

    /// Rewrite a GC survivor through `stream` (the placement's choice). Its map update is
    /// batched per map page (DFTL's batch update): recorded here, applied when the victim is
    /// done.
    pub(super) fn place_gc(
        &mut self,
        lent: &mut Lent,
        stream: usize,
        lpa: Lpa,
        ready: SimTime,
        now: SimTime,
    ) -> Option<SimTime> {
        let mp = self.map_page_of(lpa) - self.map_base;
        self.gc_map_pages.insert(mp);
        self.place_raw(lent, stream, lpa, ready, now, OpClass::Background)
    }

    /// Apply the batched map updates of a finished victim: a cached map page is just marked
    /// dirty; an uncached one is read, updated and written back once (not loaded into the
    /// cache, so GC does not evict the host's working set).
    pub(super) fn flush_gc_map_updates(&mut self, lent: &mut Lent, now: SimTime) {
        let mut pages = std::mem::take(&mut self.gc_map_pages);
        let base = self.map_base;
        pages.drain(|i| self.update_map_page(lent, now, base + i));
        self.gc_map_pages = pages;
    }

    /// One map page of a finished victim's batched update (see above).
    fn update_map_page(&mut self, lent: &mut Lent, now: SimTime, mp: u32) {
        if lent.sram.contains_page(mp) {
            lent.sram.access(mp, true);
            return;
        }
        let die = self.geo.phys_die(mp % self.geo.dies);
        let t = if lent.sram.page_on_flash(mp) {
            self.counters.map_reads += 1;
            lent.nand.read(
                now,
                die,
                self.geo.page_bytes as u64,
                CellType::Slc,
                OpClass::Background,
            )
        } else {
            now
        };
        lent.sram.set_page_on_flash(mp);
        lent.nand.program(
            t,
            die,
            self.geo.slots_per_page,
            1,
            CellType::Slc,
            OpClass::Background,
        );
        self.counters.map_programs += 1;
    }
}
