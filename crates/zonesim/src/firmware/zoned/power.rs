//! A power cut on the zoned FTL and its recovery (docs/power.md; Zoned UFS §2, §4.1; what a
//! cut loses and why: [`crate::firmware::power`]).
//!
//! The cut, without power-loss protection. Each zone's data lies, in order, on regular flash,
//! in the SLC secondary buffer and in its write buffer. The zone loses:
//! - what its write buffer held — offsets `[slc_end, written)`, acknowledged when they
//!   entered the buffer — and its SLC tail from the first SLC program of the zone that had not
//!   ended (those pages are dropped from the SLC pool, as a reset drops them);
//! - the regular program units whose program had not ended, and, on MLC/TLC/QLC, the unit
//!   programmed before each on the same die, plane and block (paired pages: its word line's
//!   cells are not final until the next one's program has ended), as the conventional FTL
//!   loses them. The data of such a unit survives where the firmware still has another copy:
//!   a unit being migrated from SLC keeps its SLC copy until the migration completes (ConZone+
//!   §4.2), and data a completed host flush covered is kept until its word line is final (the
//!   flush contract, as on the conventional side). Data combined from the write buffer, or
//!   from SLC after its SLC copy was dropped (ConZone Fig. 4 ③), without such a flush is lost.
//!
//! A zone's data must stay a prefix (everything below the write pointer readable), so what
//! survives ends at the first lost page and everything after it is lost too. The zone's write
//! pointer goes back there — the ZMT's length field, which ZUFS keeps "to provide accurate
//! recovery information in the event of a sudden power-off while data is still resident in
//! the write buffer" (§4.1) — and its regular allocation with it: the torn unit and the units
//! after it are discarded (queued migrations of them dropped, their data left in SLC), the
//! part of the torn unit that survived goes back to the SLC pool, and the map's entries of
//! the zone are dropped (the ZMT entry is logged with the new length). As the standard says
//! of a power cycle, open zones become CLOSED (EMPTY when nothing of them survived, their span
//! released); a FULL zone stays FULL, what it lost reading as unwritten (EMPTY if nothing
//! survived). With power-loss
//! protection the buffers are flushed on stored energy (to SLC, as a host flush does) and the
//! programs in flight end: nothing is lost; open zones still become CLOSED.
//!
//! The recovery: the zone map is read back (the ZMT, 8 B per zone, and the ZML replayed; the
//! hybrid map's zone entries take as many pages), then, without power-loss protection, each
//! open zone's SLC-held pages and its last regular program unit are scanned (spare area) to
//! find where its data ends. Then the units a cut tore or disturbed whose data survived are
//! programmed again (background work after the recovery): a migration's from its SLC copy.

use super::{ZState, ZonedFtl};
use crate::config::CellType;
use crate::engine::SimTime;
use crate::firmware::alloc::HOST_FRONT;
use crate::firmware::buffer::NO_ZONE;
use crate::firmware::mapping::Lpa;
use crate::firmware::power::{LossReason, PowerLoss, PowerTrack, Recovery};
use crate::firmware::Lent;
use crate::interface::zone::ZoneId;
use crate::nand::{NandArray, OpClass, SLOT_BYTES};

/// SLC programs of a zone remembered for a cut (older ones have ended long before).
const SLC_HISTORY: usize = 64;
/// Regular program units of a zone remembered for a cut: those in flight and, for pairing,
/// the unit before each on its die (a zone's units stripe over the dies).
const REGULAR_HISTORY: usize = 64;

/// A regular program unit of a zone: offsets `[lo, hi)`, its program ending at `done`.
#[derive(Debug, Clone, Copy)]
struct RegularProgram {
    lo: u32,
    hi: u32,
    done: SimTime,
}

/// A regular unit a cut hit: torn (`Program`) or on the word line before a torn one
/// (`PairedPage`).
#[derive(Debug, Clone, Copy)]
struct Hit {
    lo: u32,
    hi: u32,
    why: LossReason,
}

/// What the zoned FTL records for a cut: the common track and, per zone, the SLC programs of
/// its tail (first zone offset, end), the latest [`SLC_HISTORY`], and its regular programs,
/// the latest [`REGULAR_HISTORY`].
#[derive(Clone)]
pub(super) struct ZonedPower {
    pub track: PowerTrack,
    slc: Vec<Vec<(u32, SimTime)>>,
    regular: Vec<Vec<RegularProgram>>,
    /// Units a cut hit whose data survived, programmed again at power-on: (zone, lo, hi).
    redo: Vec<(u32, u32, u32)>,
}

impl ZonedPower {
    /// Zone `z` programmed its offsets from `lo` to SLC, ending at `done`; offsets below
    /// `reg_alloc` have left the SLC tail (combined into regular units or migrating).
    #[inline]
    pub fn slc_written(&mut self, z: u32, lo: u32, reg_alloc: u32, done: SimTime) {
        let v = &mut self.slc[z as usize];
        v.retain(|&(o, _)| o >= reg_alloc);
        if v.len() == SLC_HISTORY {
            v.remove(0);
        }
        v.push((lo, done));
    }

    /// Zone `z` programmed its offsets `[lo, hi)` to regular flash, ending at `done`.
    #[inline]
    pub fn regular_programmed(&mut self, z: u32, lo: u32, hi: u32, done: SimTime) {
        let v = &mut self.regular[z as usize];
        // A zone programs its units in offset order: a unit at or below one remembered starts
        // a new life of the zone (after a reset).
        while v.last().is_some_and(|r| r.hi > lo) {
            v.pop();
        }
        if v.len() == REGULAR_HISTORY {
            v.remove(0);
        }
        v.push(RegularProgram { lo, hi, done });
    }

    /// The first offset of zone `z` whose SLC program had not ended at `cut`.
    fn slc_lost_from(&self, z: u32, cut: SimTime) -> Option<u32> {
        self.slc[z as usize]
            .iter()
            .filter(|&&(_, d)| d > cut)
            .map(|&(o, _)| o)
            .min()
    }
}

/// Bytes of a page's spare area an OOB scan transfers.
const OOB_BYTES: u64 = 64;
/// Bytes of one ZMT entry (ZUFS §4.1: start address and length, 4 B each).
const ZMT_ENTRY_BYTES: u64 = 8;

impl ZonedFtl {
    /// Start recording what a power cut would lose (not with in-place updates, whose SLC
    /// copies are not tracked).
    pub(super) fn start_power_track(&mut self, lag: u64) -> bool {
        if self.ipu.is_some() {
            return false;
        }
        let lbas = self.zones.namespace_lbas();
        self.power = Some(Box::new(ZonedPower {
            track: PowerTrack::new(0, 1, lbas).lagging(lag),
            slc: vec![Vec::new(); self.zst.len()],
            regular: vec![Vec::new(); self.zst.len()],
            redo: Vec::new(),
        }));
        true
    }

    /// Power fails at `cut` (see the module doc): apply the loss and report it.
    pub(super) fn cut_power(&mut self, lent: &mut Lent, cut: SimTime, plp: bool) -> PowerLoss {
        let Some(mut power) = self.power.take() else {
            return PowerLoss::default();
        };
        let mut out = PowerLoss::default();
        let mut lost = Vec::new();
        if plp {
            out.plp_flushed_pages = self
                .zst
                .iter()
                .map(|s| (s.written - s.slc_end) as u64)
                .sum();
            let host_flushes = self.counters.host_flushes;
            self.flush(lent, cut);
            self.counters.host_flushes = host_flushes;
        }
        for z in 0..self.zst.len() as u32 {
            if !plp {
                self.cut_zone(lent, &mut power, z, cut, &mut lost);
            }
            let len = self.zst[z as usize].written as u64;
            self.zones.power_on(ZoneId(z), len);
        }
        if !plp {
            out = power.track.tally(cut, &lost);
        }
        // The device goes on after its recovery and may be cut again: the SLC programs it
        // remembers have ended or were aborted, so none is in flight at a later cut.
        power.track.power_cycle(cut);
        for v in &mut power.slc {
            v.clear();
        }
        // Its regular programs in flight were aborted (those programmed again at power-on
        // get their new end then).
        for r in power.regular.iter_mut().flatten() {
            r.done = r.done.min(cut);
        }
        self.power = Some(power);
        self.wear_power_cut(cut);
        out
    }

    /// Zone `z` at a cut at `cut` without power-loss protection (see the module doc): find
    /// where what survived ends, list what is lost after it in `lost`, roll the zone back.
    fn cut_zone(
        &mut self,
        lent: &mut Lent,
        power: &mut ZonedPower,
        z: u32,
        cut: SimTime,
        lost: &mut Vec<(u32, LossReason)>,
    ) {
        let st = self.zst[z as usize];
        // The SLC tail up to the first SLC program in flight (never below the part leaving
        // SLC for regular flash), nothing of the buffer.
        let keep = power
            .slc_lost_from(z, cut)
            .map_or(st.slc_end, |lo| lo.clamp(st.reg_alloc, st.slc_end));
        let mut end = (st.written > keep).then_some((keep, LossReason::Program));
        // The regular units hit: the first page of one not kept elsewhere ends what survived;
        // those before it are programmed again at power-on.
        let covered = power.track.covered_at(cut);
        let hits = self.regular_hits(power, z, cut);
        let mut torn = None;
        for h in &hits {
            if !self.mig.queued(z, h.lo) {
                let first = (h.lo..h.hi).find(|&o| !power.track.durable(self.lpa(z, o).0, covered));
                if let Some(o) = first {
                    end = Some((o, h.why));
                    torn = Some(h.lo);
                    break;
                }
            }
            power.redo.push((z, h.lo, h.hi));
        }
        let Some((from, why)) = end else { return };
        for o in from..st.written {
            let r = if o >= st.slc_end {
                LossReason::Buffer
            } else if let Some(h) = hits.iter().find(|h| (h.lo..h.hi).contains(&o)) {
                h.why
            } else if o >= keep {
                LossReason::Program
            } else {
                why // after the first lost page
            };
            lost.push((self.lpa(z, o).0, r));
        }
        let reg = torn.unwrap_or(st.reg_alloc);
        if torn.is_some() {
            self.zst[z as usize].jobs -= self.mig.abort_from(z, reg);
            if self.zmap.is_none() {
                self.map.forget_zone(lent, z, st.written);
            }
        }
        for o in from..st.slc_end {
            let l = self.lpa(z, o);
            self.slc.invalidate(l);
        }
        if st.buf != NO_ZONE {
            self.bufs.discard(st.buf);
            self.unbind(z);
        }
        let zs = &mut self.zst[z as usize];
        zs.reg_alloc = reg;
        zs.reg_wp = zs.reg_wp.min(reg);
        zs.written = from;
        zs.slc_end = from;
        if torn.is_some() && from > reg {
            // The part of the torn unit that survived: its kept copy goes back to SLC.
            let f = self
                .slc
                .front_for(lent.nand, z, HOST_FRONT, OpClass::Background);
            let base = z * self.size;
            let lpas = (reg..from).map(|o| Lpa(base + o));
            self.slc.write(lent.nand, f, lpas, cut, OpClass::Background);
        }
        if from == 0 {
            if self.zmap.is_none() {
                self.map.forget_zone(lent, z, st.written);
            }
            if self.wear.is_some() {
                self.wear_release(lent, z, cut);
            } else {
                self.space.release(lent.nand, z, cut);
            }
            self.zst[z as usize] = ZState::default();
        }
        self.log_zone(lent, cut, z);
    }

    /// The regular units of zone `z` a cut at `cut` hits, in offset order: those whose
    /// program had not ended, and on MLC/TLC/QLC the unit programmed before each on the same
    /// die, plane and block.
    fn regular_hits(&self, power: &ZonedPower, z: u32, cut: SimTime) -> Vec<Hit> {
        let reg_alloc = self.zst[z as usize].reg_alloc;
        let hist = &power.regular[z as usize];
        let paired = self.space.cell() != CellType::Slc;
        let at = |lo: u32| {
            let p = self.space.locate(z, lo);
            (p.die, p.plane, p.block)
        };
        let mut hits: Vec<Hit> = self
            .mig
            .in_flight(z, cut)
            .map(|(lo, hi)| Hit {
                lo,
                hi,
                why: LossReason::Program,
            })
            .collect();
        for (i, r) in hist.iter().enumerate() {
            if r.done <= cut || r.hi > reg_alloc {
                continue;
            }
            hits.push(Hit {
                lo: r.lo,
                hi: r.hi,
                why: LossReason::Program,
            });
            if !paired {
                continue;
            }
            let me = at(r.lo);
            let prev = hist[..i].iter().rev().find(|q| {
                let a = at(q.lo);
                (a.0, a.1) == (me.0, me.1)
            });
            if let Some(q) = prev {
                if at(q.lo).2 == me.2 && q.done <= cut && q.done < r.done {
                    hits.push(Hit {
                        lo: q.lo,
                        hi: q.hi,
                        why: LossReason::PairedPage,
                    });
                }
            }
        }
        hits.sort_by_key(|h| (h.lo, h.why as u8));
        hits.dedup_by_key(|h| h.lo);
        hits
    }

    /// Power is back at `on`: read the zone map and scan the open zones on `nand`, then program
    /// again what a cut hit and did not lose. Returns when recovery ends, the flash pages it
    /// read, and the pages programmed again after it and when the last of them ended.
    pub(super) fn recover_power(
        &mut self,
        nand: &mut NandArray,
        on: SimTime,
        plp: bool,
    ) -> Recovery {
        let (end, reads) = self.recovery_reads(nand, on, plp);
        let (pages, last) = self.reprogram(nand, end);
        self.wear_power_on(end);
        Recovery {
            end,
            reads,
            reprogrammed_pages: pages,
            reprogrammed: last.max(end),
        }
    }

    /// The recovery's reads on `nand` from `on` (see the module doc): when they end and how
    /// many flash pages they read.
    fn recovery_reads(&self, nand: &mut NandArray, on: SimTime, plp: bool) -> (SimTime, u64) {
        let geo = self.space.geometry();
        let page = geo.slots_per_page as u64 * SLOT_BYTES;
        let zmt_pages = (self.zst.len() as u64 * ZMT_ENTRY_BYTES).div_ceil(page);
        let mut end = on;
        let mut reads = 0u64;
        let mut read = |nand: &mut NandArray, k: u64, cell: CellType, bytes: u64| {
            let die = geo.phys_die((k % geo.dies as u64) as u32);
            end = end.max(nand.read_page(on, die, 0, bytes, cell, OpClass::HostRead));
        };
        for k in 0..zmt_pages {
            read(nand, k, CellType::Slc, page);
            reads += 1;
        }
        if plp {
            return (end, reads);
        }
        let unit_pages = geo.program_unit_pages as u64 * geo.planes as u64;
        for (z, st) in self.zst.iter().enumerate() {
            if st.written == 0 || st.full {
                continue;
            }
            let slc_pages = (st.slc_end - st.reg_wp) as u64;
            let last_unit = if st.reg_wp > 0 { unit_pages } else { 0 };
            for k in 0..slc_pages {
                read(nand, z as u64 + k, CellType::Slc, OOB_BYTES);
            }
            for k in 0..last_unit {
                read(nand, z as u64 + k, geo.cell, OOB_BYTES);
            }
            reads += slc_pages + last_unit;
        }
        (end, reads)
    }

    /// Program again, from `t` on `nand`, the units a cut hit whose data survived (a queued
    /// migration's from its SLC copy, which it then completes from; otherwise from the copy
    /// the firmware kept): background work after the recovery. Returns the flash pages
    /// programmed and when the last program ended (`t` with none).
    fn reprogram(&mut self, nand: &mut NandArray, t: SimTime) -> (u64, SimTime) {
        let Some(mut power) = self.power.take() else {
            return (0, t);
        };
        let (mut pages, mut last) = (0u64, t);
        for (z, lo, hi) in std::mem::take(&mut power.redo) {
            if hi > self.zst[z as usize].reg_alloc {
                continue; // rolled back by the cut
            }
            let queued = self.mig.queued(z, lo);
            let ready = if queued {
                self.read_slc(nand, t, z, lo, hi, OpClass::Background)
            } else {
                t
            };
            let done = self.program_regular(nand, ready, z, lo, OpClass::Background);
            pages += u64::from(self.space.prog_pages());
            last = last.max(done);
            if queued {
                self.mig.reprogrammed(z, lo, done);
            }
            if let Some(r) = power.regular[z as usize].iter_mut().find(|r| r.lo == lo) {
                r.done = done;
            }
        }
        self.power = Some(power);
        (pages, last)
    }
}

impl ZonedFtl {
    /// LBAs of zone `z` that hold data (below its write pointer; of a FULL zone, what a cut
    /// left of it), for the tests of a cut.
    pub fn written_lbas(&self, z: u32) -> u64 {
        self.zst[z as usize].written as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The regular programs a zone remembers stay in offset order without overlap, at most
        /// [`REGULAR_HISTORY`] of them, the latest always among them; a program at or below a
        /// remembered unit (a new life of the zone) forgets the units from there on.
        #[test]
        fn the_regular_history_is_the_latest_units_in_order(
            steps in proptest::collection::vec((0u32..4, 1u32..40), 1..300),
        ) {
            let mut p = ZonedPower {
                track: PowerTrack::new(0, 1, 1),
                slc: vec![Vec::new()],
                regular: vec![Vec::new()],
                redo: Vec::new(),
            };
            let mut next = 0u32;
            for (i, &(restart, len)) in steps.iter().enumerate() {
                // Mostly the next unit; sometimes the zone starts over (a reset).
                let lo = if restart == 0 { next / 2 } else { next };
                let done = SimTime(i as u64);
                p.regular_programmed(0, lo, lo + len, done);
                next = lo + len;
                let v = &p.regular[0];
                prop_assert!(v.len() <= REGULAR_HISTORY);
                let last = *v.last().unwrap();
                prop_assert_eq!((last.lo, last.hi, last.done), (lo, lo + len, done));
                for w in v.windows(2) {
                    prop_assert!(w[0].hi <= w[1].lo, "{:?}", v);
                }
            }
        }
    }
}
