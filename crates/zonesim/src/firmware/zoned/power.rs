//! A power cut on the zoned FTL and its recovery (docs/power.md; Zoned UFS §2, §4.1).
//!
//! The cut: without power-loss protection, each zone loses what its write buffer held —
//! offsets `[slc_end, written)`, acknowledged when they entered the buffer — and the SLC tail
//! `[lo, slc_end)` from the first SLC program of the zone that had not ended (its pages are
//! dropped from the SLC pool, as a reset drops them); what reached regular flash survives (a
//! regular program in flight is taken as ended: the model does not undo a zone's regular
//! allocation, see docs/power.md). The zone's
//! write pointer goes back to what survived — the ZMT's length field, which ZUFS keeps "to
//! provide accurate recovery information in the event of a sudden power-off while data is
//! still resident in the write buffer" (§4.1) — and, as the standard says of a power cycle,
//! open zones become CLOSED (EMPTY when nothing of them survived, their span released). With
//! power-loss protection the buffers are flushed on stored energy (to SLC, as a host flush
//! does) and nothing is lost; open zones still become CLOSED.
//!
//! The recovery: the zone map is read back (the ZMT, 8 B per zone, and the ZML replayed; the
//! hybrid map's zone entries take as many pages), then, without power-loss protection, each
//! open zone's SLC-held pages and its last regular program unit are scanned (spare area) to
//! find where its data ends.

use super::{ZState, ZonedFtl};
use crate::config::CellType;
use crate::engine::SimTime;
use crate::firmware::buffer::NO_ZONE;
use crate::firmware::power::{LossReason, PowerLoss, PowerTrack};
use crate::firmware::Lent;
use crate::interface::zone::ZoneId;
use crate::nand::{NandArray, OpClass, SLOT_BYTES};

/// SLC programs of a zone remembered for a cut (older ones have ended long before).
const SLC_HISTORY: usize = 64;

/// What the zoned FTL records for a cut: the common track and, per zone, the SLC programs of
/// its tail (first zone offset, end), the latest [`SLC_HISTORY`].
#[derive(Clone)]
pub(super) struct ZonedPower {
    pub track: PowerTrack,
    slc: Vec<Vec<(u32, SimTime)>>,
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
    pub(super) fn start_power_track(&mut self) -> bool {
        if self.ipu.is_some() {
            return false;
        }
        let lbas = self.zones.namespace_lbas();
        self.power = Some(Box::new(ZonedPower {
            track: PowerTrack::new(0, 1, lbas),
            slc: vec![Vec::new(); self.zst.len()],
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
            let st = self.zst[z as usize];
            // What survives: up to the first SLC program in flight (never below the part
            // leaving SLC for regular flash), nothing of the buffer.
            let keep = power
                .slc_lost_from(z, cut)
                .map_or(st.slc_end, |lo| lo.clamp(st.reg_alloc, st.slc_end));
            if !plp && st.written > keep {
                for o in keep..st.slc_end {
                    let l = self.lpa(z, o);
                    self.slc.invalidate(l);
                    lost.push((l.0, LossReason::Program));
                }
                lost.extend(
                    (st.slc_end..st.written).map(|o| (self.lpa(z, o).0, LossReason::Buffer)),
                );
                if st.buf != NO_ZONE {
                    self.bufs.discard(st.buf);
                    self.unbind(z);
                }
                self.zst[z as usize].written = keep;
                self.zst[z as usize].slc_end = keep;
                if keep == 0 {
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
        self.power = Some(power);
        out
    }

    /// Power is back at `on`: read the zone map and scan the open zones on `nand`. Returns when
    /// recovery ends and the flash pages it read.
    pub(super) fn recover_power(
        &self,
        nand: &mut NandArray,
        on: SimTime,
        plp: bool,
    ) -> (SimTime, u64) {
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
}
