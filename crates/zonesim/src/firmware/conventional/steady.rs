//! `--precondition steady-fast` for the page-mapped FTL: the GC steady state of uniform random
//! overwrites built from the superblock-level model of [`crate::firmware::steady`], in time
//! linear in the device's pages and with nothing per page besides the map itself.
//!
//! - Allocator: the model's [`Superblocks`](crate::firmware::alloc::Superblocks) become the
//!   FTL's (states, valid counts, free pool in erase order, close order); close times are
//!   dated on the simulated clock by the model's [`Pace`]. Each stream's open superblock is
//!   the model's, its frontier at the model's fill (a partial die unit pending in controller
//!   RAM, as a frontier between programs is).
//! - Map: the k-th valid slot, in physical order, holds logical page `perm(k)` of a keyed
//!   bijection ([`Perm`]); the valid slots of a superblock are a uniform subset of its written
//!   slots (selection sampling). Every logical page is mapped once (`PageMap::map`: map and
//!   reverse map together).
//! - L2P SRAM: warm as random writes leave it — the two-level map's L1 segments, then a random
//!   set of map pages (L2 tables), dirty, up to the budget; every map page it cannot hold is
//!   marked written to flash (in a real steady state each was evicted at least once).
//! - No GC in progress (a victim the model had half collected is a full superblock holding
//!   its remaining valid slots: chosen again next), write buffer empty, counters untouched
//!   (the run resets them), dies and channels idle, erase counts not replayed.

use super::PageFtl;
use crate::config::DeviceConfig;
use crate::engine::{rng_for, SimTime};
use crate::error::{Error, Result};
use crate::firmware::alloc::{SbState, Stream, NO_SB};
use crate::firmware::mapping::{Lpa, Ppa};
use crate::firmware::steady::sample::{subset, Perm};
use crate::firmware::steady::{self, Pace, SteadySpec, Synthesized};
use crate::firmware::Lent;

impl PageFtl {
    /// Synthesise the state `steady` would leave, from `seed`, with the history ending on the
    /// clock at [`Synthesized::end`] (it starts at `start`). Bad input (a configuration whose
    /// state is not synthesised, a namespace already written): [`Error::Usage`] with the reason.
    pub fn synthesize_steady(
        &mut self,
        lent: &mut Lent,
        cfg: &DeviceConfig,
        seed: u64,
        start: SimTime,
    ) -> Result<Synthesized> {
        let route = self.steady_supported()?;
        let spec = SteadySpec {
            superblocks: self.geo.superblocks,
            slots_per_sb: self.slots_per_sb,
            unit: self.unit,
            logical: self.logical_pages(),
            streams: self.streams.len(),
            route,
            victim: self.victim,
            params: self.victim_params,
            threshold: self.threshold,
            incremental: self.incremental,
            seed,
        };
        let mut draw = steady::draw(&spec)?;
        let pace = Pace::estimate(cfg, &self.geo, &draw);
        let host_pages = draw.seq_pages + draw.random_pages;
        for info in draw.sbs.info.iter_mut() {
            info.closed_at = pace.at(start, draw.seq_pages, info.closed_at.0);
        }
        self.place_pages(&draw, seed)?;
        let logical = self.logical_pages();
        self.placement.warm(
            draw.seq_pages + draw.random_pages,
            draw.seq_pages,
            logical,
            seed,
        );
        let waf = draw.history_waf();
        let seq_pages = draw.seq_pages;
        self.sbs = draw.sbs;
        for (s, &(sb, fill)) in draw.open.iter().enumerate() {
            self.streams[s] = if sb == NO_SB {
                Stream::default()
            } else {
                Stream {
                    sb,
                    next: fill,
                    unit_start: fill / self.unit * self.unit,
                    pending_ready: SimTime::ZERO,
                }
            };
        }
        self.warm_map_cache(lent, cfg, seed);
        Ok(Synthesized {
            waf,
            host_pages,
            end: pace.at(start, seq_pages, host_pages),
        })
    }

    /// The GC routes of its placement if its state can be synthesised; else why not.
    fn steady_supported(&self) -> Result<Vec<usize>> {
        let no = |why: &str| Err(Error::Usage(why.to_string()));
        if self.slc.is_some() {
            return no("the SLC write cache (slc.conventional_buffer) is not synthesised; use --precondition steady");
        }
        if self.wear.is_some() {
            return no("bad blocks, reclaim and wear levelling (nand.endurance_pe, nand.factory_bad_fraction, ftl.read_reclaim, ftl.wear_leveling) are not synthesised; use --precondition steady");
        }
        if self.sbs.free_count() != self.geo.superblocks || self.buffer.buffered() > 0 {
            return no(
                "the namespace has been written already; it builds the state of a fresh one",
            );
        }
        if self.placement.records_gc() {
            return no("ftl.gc.bloom.record_gc: the GC relocations the bloom filters would hold are not synthesised; use --precondition steady");
        }
        Ok(steady::route(self.placement.policy(), self.streams.len()))
    }

    /// Map every logical page into the valid slots the model left (module docs). The map is
    /// written at random (one cache miss per page), so each entry is loaded `AHEAD` pages
    /// before it is written.
    fn place_pages(&mut self, draw: &steady::Draw, seed: u64) -> Result<()> {
        const AHEAD: usize = 64;
        let logical = self.logical_pages();
        let perm = Perm::new(logical, seed ^ 0x4c50_4153);
        let mut rng = rng_for(seed, 0x534c_4f54);
        let s = self.slots_per_sb;
        let mut marks = vec![0u64; (s as usize).div_ceil(64)];
        let mut offsets = Vec::with_capacity(s as usize);
        let mut ring = [(Lpa(0), Ppa(0)); AHEAD];
        let mut k = 0u64;
        for (sb, info) in draw.sbs.info.iter().enumerate() {
            if info.valid == 0 {
                continue;
            }
            let span = match info.state {
                SbState::Full => s,
                SbState::Open(st) => draw.open[st as usize].1,
                SbState::Free | SbState::Retired => 0,
            };
            if info.valid > span || k + info.valid as u64 > logical {
                return Err(Error::internal(format!(
                    "steady-fast: superblock {sb} ({:?}): {} valid slots of {span} written",
                    info.state, info.valid
                )));
            }
            let base = sb as u32 * s;
            subset(&mut rng, span, info.valid, &mut marks, &mut offsets);
            for &o in &offsets {
                let l = Lpa(perm.apply(k) as u32);
                self.map.prefetch(l);
                let slot = &mut ring[k as usize % AHEAD];
                if k >= AHEAD as u64 {
                    self.map.map(slot.0, slot.1);
                }
                *slot = (l, Ppa(base + o));
                k += 1;
            }
        }
        if k != logical {
            return Err(Error::internal(format!(
                "steady-fast: {k} valid slots for {logical} logical pages"
            )));
        }
        for i in k.saturating_sub(AHEAD as u64)..k {
            let (l, p) = ring[i as usize % AHEAD];
            self.map.map(l, p);
        }
        Ok(())
    }

    /// Fill the L2P SRAM's free room as random writes leave it (module docs).
    fn warm_map_cache(&mut self, lent: &mut Lent, cfg: &DeviceConfig, seed: u64) {
        let unit = Self::map_unit_bytes(cfg);
        let sram = &mut *lent.sram;
        let mut room = sram.capacity_bytes().saturating_sub(sram.used_bytes()) / unit;
        let tables = self
            .logical_pages()
            .div_ceil(self.entries_per_map_page as u64) as u32;
        if let Some(tl) = &self.two_level {
            let mut last = None;
            for t in 0..tables {
                let seg = tl.l1_of_table(t);
                if last != Some(seg) && room > 0 && !sram.contains_page(seg) {
                    sram.access(seg, false);
                    room -= 1;
                }
                last = Some(seg);
            }
        }
        let order = Perm::new(tables as u64, seed ^ 0x4d41_5050);
        let cached = room.min(tables as u64);
        for i in 0..tables as u64 {
            let mp = self.map_base + order.apply(i) as u32;
            if i < cached {
                sram.access(mp, true);
            } else {
                sram.set_page_on_flash(mp);
            }
        }
    }
}
