//! What a sudden power-off loses, and what the FTL knows to decide it (docs/power.md).
//!
//! Consumer flash has no power-loss protection (ConZone+ §2): data acknowledged from the write
//! buffer but not yet programmed is lost when power fails, and so is a program in flight.
//! On MLC/TLC/QLC a word line holds several pages whose cells are shared; an interrupted
//! program disturbs the cells of the word line programmed just before it on the same block
//! (paired pages: the lower pages of a two-step or foggy-fine sequence are not final until
//! the next word line's program has ended). The model programs a word line's pages in one
//! shot (a program unit, `CellType::program_unit_pages`), so the pairing is between program
//! units: a unit whose next unit on the same die and superblock was mid-program at the cut is
//! corrupted too, unless a completed host flush covered its data (the firmware keeps a copy
//! of flushed data until its word line is final, as the flush contract requires).
//!
//! [`PowerTrack`] is what an FTL records while a run may be cut (only then: a namespace
//! without it pays one `Option` test per program and per write): when each program unit's
//! last program ends, which slots hold GC copies (their old copy survives an interrupted
//! move: the victim is erased only after its survivors are programmed), when the write that
//! put each logical page's data in the device was acknowledged, and which host flushes had
//! completed. [`PowerLoss`] is the answer of a cut.
//!
//! Several cuts in one run: a write in flight at a cut was never acknowledged, but the part of
//! its data that survived the cut is on flash like any other data written then. It has no
//! second copy until a later host flush covers it, so a later cut that tears or disturbs its
//! unit loses it (not counted as an acknowledged loss). The track records it as data written
//! at the cut by a write never acknowledged; only data written before tracking began counts
//! as durable without a flush.

use crate::engine::SimTime;

/// Why an acknowledged page was lost.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LossReason {
    /// Still in the write buffer (or a partial program unit in controller RAM).
    Buffer = 0,
    /// In a program that had not ended.
    Program = 1,
    /// On the word line before one whose program was interrupted (MLC/TLC/QLC).
    PairedPage = 2,
}

impl LossReason {
    pub const ALL: [LossReason; 3] = [
        LossReason::Buffer,
        LossReason::Program,
        LossReason::PairedPage,
    ];

    pub fn name(self) -> &'static str {
        match self {
            LossReason::Buffer => "buffer",
            LossReason::Program => "program",
            LossReason::PairedPage => "paired_page",
        }
    }
}

/// What one namespace lost at a power cut.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PowerLoss {
    /// Logical pages whose data did not survive, acknowledged or not (sorted).
    pub lost_lpas: Vec<u32>,
    /// Of them, pages whose write had been acknowledged to the host.
    pub lost_acknowledged_pages: u64,
    /// Write commands acknowledged to the host with at least one page lost.
    pub lost_acknowledged_writes: u64,
    /// Acknowledged pages lost, by [`LossReason`].
    pub by_reason: [u64; 3],
    /// Acknowledged pages lost although a completed host flush covered them (a broken flush
    /// contract; the model keeps it at 0 and the tests check it).
    pub lost_after_flush: u64,
    /// Pages the stored energy flushed from the buffer at the cut (power-loss protection).
    pub plp_flushed_pages: u64,
}

impl PowerLoss {
    /// Adds what a later cut lost (a device that went on after a cut).
    pub fn add(&mut self, o: &PowerLoss) {
        self.lost_lpas.extend_from_slice(&o.lost_lpas);
        self.lost_acknowledged_pages += o.lost_acknowledged_pages;
        self.lost_acknowledged_writes += o.lost_acknowledged_writes;
        for (a, b) in self.by_reason.iter_mut().zip(o.by_reason) {
            *a += b;
        }
        self.lost_after_flush += o.lost_after_flush;
        self.plp_flushed_pages += o.plp_flushed_pages;
    }
}

/// What a namespace's recovery did ([`crate::firmware::Ftl::recover`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Recovery {
    /// When the recovery ended: the namespace serves commands again.
    pub end: SimTime,
    /// Flash pages the recovery read (map checkpoint, OOB scan).
    pub reads: u64,
    /// Flash pages programmed again after it, as background work: the units a cut tore or disturbed
    /// whose data survived elsewhere (an SLC copy, a copy kept for a flush).
    pub reprogrammed_pages: u64,
    /// When the last of them was programmed (`end` when there were none).
    pub reprogrammed: SimTime,
}

impl Recovery {
    /// A recovery that ended at `end` after `reads` page reads and programs nothing again.
    pub fn reads_only(end: SimTime, reads: u64) -> Recovery {
        Recovery {
            end,
            reads,
            reprogrammed_pages: 0,
            reprogrammed: end,
        }
    }
}

/// A host flush: issued at, ended at.
#[derive(Debug, Clone, Copy)]
struct Flush {
    issued: SimTime,
    done: SimTime,
}

/// What an FTL records for a possible power cut (see the module doc).
#[derive(Debug, Clone)]
pub struct PowerTrack {
    /// End of the latest program of each program unit (global index: slot / unit slots).
    unit_done: Vec<SimTime>,
    /// One bit per slot: its data is a GC copy.
    gc_slot: Vec<u64>,
    /// Per logical page: acknowledgement of the write of its data (`SimTime::MAX`: written
    /// before tracking began, durable by then; a write in flight at an earlier cut: that cut)
    /// and that write's number (0: never acknowledged).
    ack: Vec<SimTime>,
    seq: Vec<u32>,
    writes: u32,
    /// Host flushes whose end may still be after the cut.
    flushes: Vec<Flush>,
    /// Latest issue time of a host flush known to have ended (writes acknowledged before it
    /// are covered).
    covered: SimTime,
    /// Time from a command reaching the device to reaching the FTL: a cut (device time) comes
    /// after every command's arrival at the FTL less this.
    lag: u64,
}

impl PowerTrack {
    /// A track over `units` program units of `unit_slots` slots and `logical` pages.
    pub fn new(units: usize, unit_slots: u32, logical: u64) -> PowerTrack {
        let slots = units * unit_slots as usize;
        PowerTrack {
            unit_done: vec![SimTime::ZERO; units],
            gc_slot: vec![0; slots.div_ceil(64)],
            ack: vec![SimTime::MAX; logical as usize],
            seq: vec![0; logical as usize],
            writes: 0,
            flushes: Vec::new(),
            covered: SimTime::ZERO,
            lag: 0,
        }
    }

    /// The track of an FTL that sees commands `lag` ns after the device does.
    pub fn lagging(mut self, lag: u64) -> PowerTrack {
        self.lag = lag;
        self
    }

    /// Unit `unit` was programmed, ending at `done`.
    #[inline]
    pub fn programmed(&mut self, unit: u32, done: SimTime) {
        self.unit_done[unit as usize] = done;
    }

    /// When unit `unit`'s latest program ends.
    #[inline]
    pub fn unit_done(&self, unit: u32) -> SimTime {
        self.unit_done[unit as usize]
    }

    /// Slot `slot` now holds host data (`gc` false) or a GC copy.
    #[inline]
    pub fn placed(&mut self, slot: u32, gc: bool) {
        let (w, b) = ((slot / 64) as usize, slot % 64);
        if gc {
            self.gc_slot[w] |= 1 << b;
        } else {
            self.gc_slot[w] &= !(1 << b);
        }
    }

    #[inline]
    pub fn is_gc_copy(&self, slot: u32) -> bool {
        self.gc_slot[(slot / 64) as usize] >> (slot % 64) & 1 == 1
    }

    /// A write of `n` pages from `lpa` was acknowledged at `done`.
    #[inline]
    pub fn acked(&mut self, lpa: u32, n: u32, done: SimTime) {
        // Write numbers start at 1: 0 marks data no write acknowledged.
        self.writes = self.writes.wrapping_add(1).max(1);
        for l in lpa..lpa + n {
            self.ack[l as usize] = done;
            self.seq[l as usize] = self.writes;
        }
    }

    /// A host flush issued at `issued` (flush commands arrive in time order) ends at `done`.
    /// An earlier flush is known to have ended by any later cut once it ended by the time the
    /// device saw this one (`issued` less the lag): a cut may come before `issued`.
    pub fn flushed(&mut self, issued: SimTime, done: SimTime) {
        let mut covered = self.covered;
        let lag = self.lag;
        self.flushes.retain(|f| {
            let over = f.done + lag <= issued;
            if over {
                covered = covered.max(f.issued);
            }
            !over
        });
        self.covered = covered;
        self.flushes.push(Flush { issued, done });
    }

    /// Writes acknowledged at or before this time were covered by a host flush that ended by
    /// `cut`.
    pub fn covered_at(&self, cut: SimTime) -> SimTime {
        self.flushes
            .iter()
            .filter(|f| f.done <= cut)
            .fold(self.covered, |c, f| c.max(f.issued))
    }

    /// The acknowledgement of logical page `lpa`'s data and its write's number.
    #[inline]
    pub fn ack_of(&self, lpa: u32) -> (SimTime, u32) {
        (self.ack[lpa as usize], self.seq[lpa as usize])
    }

    /// Whether logical page `lpa`'s data has a copy besides its program unit, given the latest
    /// issue time `covered` of a host flush that completed ([`Self::covered_at`]): it was
    /// written before tracking began, or a completed flush covered it. Data of a write in
    /// flight at an earlier cut is covered only by a flush issued after that cut.
    #[inline]
    pub fn durable(&self, lpa: u32, covered: SimTime) -> bool {
        let ack = self.ack[lpa as usize];
        ack == SimTime::MAX || ack <= covered
    }

    /// Power failed at `cut` and came back (the cut's loss already applied): the track goes
    /// on for the next cut. Programs that had not ended were aborted (they count as ended at
    /// `cut`, so no later cut finds them in flight), a flush that had not ended never
    /// completed (it covers nothing), and a write in flight was never acknowledged to the host:
    /// its surviving pages are not counted as acknowledged by a later cut, and they are as
    /// durable as data written at the cut (a later cut loses them with their unit unless a
    /// flush issued after this cut completed).
    pub fn power_cycle(&mut self, cut: SimTime) {
        for d in &mut self.unit_done {
            *d = (*d).min(cut);
        }
        self.covered = self.covered_at(cut);
        self.flushes.clear();
        for (a, s) in self.ack.iter_mut().zip(&mut self.seq) {
            if *a > cut && *a != SimTime::MAX {
                *a = cut;
                *s = 0;
            }
        }
    }

    /// The loss of a cut at `cut`: `lost` lists (lpa, reason), in lpa order.
    pub fn tally(&self, cut: SimTime, lost: &[(u32, LossReason)]) -> PowerLoss {
        let covered = self.covered_at(cut);
        let mut out = PowerLoss {
            lost_lpas: lost.iter().map(|&(l, _)| l).collect(),
            ..PowerLoss::default()
        };
        let mut writes: Vec<u32> = Vec::new();
        for &(l, why) in lost {
            let (ack, seq) = self.ack_of(l);
            if ack > cut || seq == 0 {
                continue; // never acknowledged (or written before tracking: not lost)
            }
            out.lost_acknowledged_pages += 1;
            out.by_reason[why as usize] += 1;
            if ack <= covered {
                out.lost_after_flush += 1;
            }
            writes.push(seq);
        }
        writes.sort_unstable();
        writes.dedup();
        out.lost_acknowledged_writes = writes.len() as u64;
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flushes_cover_what_was_acknowledged_before_them() {
        let mut t = PowerTrack::new(4, 4, 16);
        t.acked(0, 2, SimTime(10));
        t.flushed(SimTime(20), SimTime(100));
        t.acked(2, 2, SimTime(30));
        // A cut comes after every command the FTL saw: at or after 20 here.
        assert_eq!(t.covered_at(SimTime(50)), SimTime::ZERO);
        assert_eq!(t.covered_at(SimTime(100)), SimTime(20));
        let lost = [
            (0, LossReason::Buffer),
            (2, LossReason::Program),
            (3, LossReason::Program),
        ];
        let l = t.tally(SimTime(150), &lost);
        assert_eq!(l.lost_acknowledged_pages, 3);
        assert_eq!(l.lost_acknowledged_writes, 2);
        assert_eq!(l.lost_after_flush, 1); // page 0: acknowledged before the flush that ended
        assert_eq!(l.by_reason, [1, 2, 0]);
        // A later flush prunes the ended one into what is covered.
        t.flushed(SimTime(200), SimTime(300));
        assert_eq!(t.covered_at(SimTime(250)), SimTime(20));
        assert_eq!(t.covered_at(SimTime(300)), SimTime(200));
    }

    #[test]
    fn a_power_cycle_aborts_what_was_in_flight() {
        let mut t = PowerTrack::new(2, 4, 4);
        t.programmed(0, SimTime(50));
        t.programmed(1, SimTime(300));
        t.flushed(SimTime(10), SimTime(80));
        t.flushed(SimTime(90), SimTime(250));
        t.acked(0, 1, SimTime(60));
        t.acked(1, 1, SimTime(200));
        t.power_cycle(SimTime(100));
        // Unit 1's program was aborted: no later cut finds it in flight.
        assert_eq!(
            (t.unit_done(0), t.unit_done(1)),
            (SimTime(50), SimTime(100))
        );
        // The flush that had not ended covers nothing, even at a cut after its old end.
        assert_eq!(t.covered_at(SimTime(400)), SimTime(10));
        // The write in flight was never acknowledged: a later cut does not count it.
        assert_eq!(t.ack_of(0).0, SimTime(60));
        let l = t.tally(SimTime(400), &[(1, LossReason::Buffer)]);
        assert_eq!(l.lost_acknowledged_pages, 0);
        // What survived of it has no second copy: only a flush issued after the cut covers it.
        assert!(!t.durable(1, t.covered_at(SimTime(400))));
        t.flushed(SimTime(500), SimTime(600));
        assert!(!t.durable(1, t.covered_at(SimTime(550))));
        assert!(t.durable(1, t.covered_at(SimTime(600))));
        // Data written before tracking began is durable without a flush.
        assert!(t.durable(3, SimTime::ZERO));
    }

    #[test]
    fn a_flush_seen_after_the_cut_does_not_prune_one_in_flight() {
        // Commands reach the FTL 15 ns after the device: a cut at 100 (device time) may come
        // after the FTL saw a flush arrive at 110.
        let mut t = PowerTrack::new(1, 1, 4).lagging(15);
        t.acked(0, 1, SimTime(10));
        t.flushed(SimTime(20), SimTime(105));
        t.flushed(SimTime(110), SimTime(300));
        assert_eq!(t.covered_at(SimTime(100)), SimTime::ZERO);
        assert_eq!(t.covered_at(SimTime(105)), SimTime(20));
        // Once the device saw a flush after the first one's end, it is folded in.
        t.flushed(SimTime(120), SimTime(400));
        assert_eq!(t.covered_at(SimTime(110)), SimTime(20));
    }

    #[test]
    fn gc_bits_and_unacknowledged_pages() {
        let mut t = PowerTrack::new(2, 64, 8);
        t.placed(70, true);
        assert!(t.is_gc_copy(70) && !t.is_gc_copy(69));
        t.placed(70, false);
        assert!(!t.is_gc_copy(70));
        t.acked(5, 1, SimTime(500));
        let l = t.tally(
            SimTime(400),
            &[(5, LossReason::Buffer), (6, LossReason::Buffer)],
        );
        assert_eq!((l.lost_acknowledged_pages, l.lost_lpas.len()), (0, 2));
    }
}
