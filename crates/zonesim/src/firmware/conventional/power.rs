//! A power cut on the page-mapped FTL and its recovery (docs/power.md; what is lost and why:
//! [`crate::firmware::power`]).
//!
//! The cut: without power-loss protection, every logical page whose current data is in the
//! write buffer or in a stream's partial unit (controller RAM), in a program unit whose
//! program had not ended, or (MLC/TLC/QLC) on the unit before an interrupted one on the same
//! die and superblock and not covered by a completed flush, is lost; GC copies are not (their
//! old copy is still on the victim). Lost pages become unmapped: reads of them return
//! unwritten data (a device that finds an older copy while scanning would return that; the
//! model does not keep superseded copies). With power-loss protection the buffer is flushed
//! and the programs in flight end on stored energy: nothing is lost.
//!
//! The recovery (power back on, nothing in flight): the map is read from its last checkpoint
//! on flash (every map page of the namespace, SLC reads striped over the dies as the map
//! pages are), then the spare area (OOB) of every programmed page of the open superblocks is
//! scanned to replay the writes made since (the model assumes a checkpoint when a superblock
//! closes, so only open ones are scanned). With power-loss protection the map was saved on
//! stored energy: only the map is read.

use super::PageFtl;
use crate::config::CellType;
use crate::engine::SimTime;
use crate::firmware::alloc::NO_SB;
use crate::firmware::mapping::{Entry, Lpa};
use crate::firmware::power::{LossReason, PowerLoss, PowerTrack, Recovery};
use crate::firmware::Lent;
use crate::nand::{NandArray, OpClass};

/// Bytes of a page's spare area an OOB scan transfers (the logical address and sequence
/// number kept beside the data).
const OOB_BYTES: u64 = 64;

impl PageFtl {
    /// Start recording what a power cut would lose.
    pub(super) fn start_power_track(&mut self, lag: u64) -> bool {
        if self.slc.is_some() {
            return false; // the SLC write cache's programs are not tracked
        }
        let units = self.geo.superblocks as usize * (self.slots_per_sb / self.unit) as usize;
        self.power = Some(Box::new(
            PowerTrack::new(units, self.unit, self.logical_pages()).lagging(lag),
        ));
        true
    }

    /// Power fails at `cut` (see the module doc): apply the loss and report it.
    pub(super) fn cut_power(&mut self, lent: &mut Lent, cut: SimTime, plp: bool) -> PowerLoss {
        let Some(mut track) = self.power.take() else {
            return PowerLoss::default();
        };
        let loss = if plp {
            let pending: u32 = self.streams.iter().map(|s| s.next - s.unit_start).sum();
            let pages = self.buffer.buffered() as u64 + pending as u64;
            let host_flushes = self.buffer.counters.host_flushes;
            self.flush(lent, cut);
            self.buffer.counters.host_flushes = host_flushes;
            PowerLoss {
                plp_flushed_pages: pages,
                ..PowerLoss::default()
            }
        } else {
            let lost = self.lost_pages(&track, cut);
            for &(l, _) in &lost {
                match self.map.get(Lpa(l)) {
                    Entry::Buffered(_) => self.buffer.drop_one(),
                    Entry::Flash(p) => self.invalidate(p),
                    Entry::Unmapped => continue,
                }
                self.map.unmap(Lpa(l));
            }
            track.tally(cut, &lost)
        };
        // The device goes on after its recovery and may be cut again; nothing a flush issued
        // before the cut is still programming then.
        track.power_cycle(cut);
        self.power = Some(track);
        self.flushed = SimTime::ZERO;
        loss
    }

    /// Every logical page a cut at `cut` loses, with the reason, in page order.
    fn lost_pages(&self, track: &PowerTrack, cut: SimTime) -> Vec<(u32, LossReason)> {
        let paired = self.cell != CellType::Slc;
        let covered = track.covered_at(cut);
        let dies = self.geo.dies;
        let units_per_sb = self.slots_per_sb / self.unit;
        let mut lost = Vec::new();
        for l in 0..self.logical_pages() as u32 {
            let p = match self.map.get(Lpa(l)) {
                Entry::Unmapped => continue,
                Entry::Buffered(_) => {
                    lost.push((l, LossReason::Buffer));
                    continue;
                }
                Entry::Flash(p) => p,
            };
            if track.is_gc_copy(p.0) {
                continue;
            }
            let (sb, off) = self.split(p);
            if self.is_pending(sb, off) {
                lost.push((l, LossReason::Buffer));
                continue;
            }
            let unit = p.0 / self.unit;
            let done = track.unit_done(unit);
            if done > cut {
                lost.push((l, LossReason::Program));
                continue;
            }
            if !paired || off / self.unit + dies >= units_per_sb {
                continue;
            }
            // The next word line of this block (same die, same superblock): mid-program at the
            // cut, and programmed after this one (not a stale record of an erased block).
            let next = track.unit_done(unit + dies);
            if next > cut && next > done && !track.durable(l, covered) {
                lost.push((l, LossReason::PairedPage));
            }
        }
        lost
    }

    /// Power is back at `on`, nothing in flight: read the map checkpoint and scan the open
    /// superblocks on `nand`. Returns when recovery ends and the flash pages it read (the
    /// conventional FTL programs nothing again after it).
    pub(super) fn recover_power(&self, nand: &mut NandArray, on: SimTime, plp: bool) -> Recovery {
        let mut end = on;
        let mut reads = 0u64;
        let map_pages = self
            .logical_pages()
            .div_ceil(self.entries_per_map_page as u64);
        let dies = self.geo.dies as u64;
        for k in 0..map_pages {
            let die = self.geo.phys_die((k % dies) as u32);
            let t = nand.read_page(
                on,
                die,
                0,
                self.map_read_bytes,
                CellType::Slc,
                OpClass::HostRead,
            );
            end = end.max(t);
            reads += 1;
        }
        if plp {
            return Recovery::reads_only(end, reads);
        }
        for s in &self.streams {
            if s.sb == NO_SB {
                continue;
            }
            let mut off = 0;
            while off < s.unit_start {
                let page = self.geo.page_of(s.sb, off);
                let t = nand.read_page(
                    on,
                    page.die,
                    page.page,
                    OOB_BYTES,
                    self.cell,
                    OpClass::HostRead,
                );
                end = end.max(t);
                reads += 1;
                off += self.geo.slots_per_page;
            }
        }
        Recovery::reads_only(end, reads)
    }

    /// The mapped logical pages (on flash or in the buffer), for the tests of a cut.
    pub fn mapped_pages(&self) -> Vec<u32> {
        (0..self.logical_pages() as u32)
            .filter(|&l| self.map.get(Lpa(l)) != Entry::Unmapped)
            .collect()
    }
}
