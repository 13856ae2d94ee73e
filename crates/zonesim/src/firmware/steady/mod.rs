//! The GC steady state of uniform random overwrites, synthesised instead of simulated
//! (`--precondition steady-fast`).
//!
//! Theory. Under uniform random 4 KiB overwrites of a device whose `L` logical pages are all
//! mapped, every host write invalidates one valid slot chosen uniformly among the `L`: each
//! valid slot dies with hazard `1/L` per host write, whatever superblock it sits in, so a
//! superblock's valid count is a pure-death process that decays like `exp(-t/L)` from the
//! moment it was written, until the victim policy collects it (Desnoyers, "Analytic models of
//! SSD write performance", ACM TOS 10(2), 2014, §3-4: the uniform model, FIFO and greedy
//! cleaning; Van Houdt, "A mean field model for a class of garbage collection algorithms in
//! flash-based solid state drives", SIGMETRICS 2013, and "Performance of garbage collection
//! algorithms for flash-based solid state drives with hot/cold data", Performance Evaluation
//! 70(10), 2013: random, d-choices and windowed greedy as mean-field limits). Which
//! superblocks get collected, and so the steady-state distribution of valid counts, is the
//! policy's: greedy collects the emptiest, FIFO the oldest, cost-benefit trades age against
//! emptiness (Rosenblum & Ousterhout, SOSP 1991), random / d_choice / windowed_greedy sit in
//! between.
//!
//! Rather than a closed form per policy (which would miss the firmware's details: the free
//! pool kept at `threshold_free_superblocks`, incremental collection paid per host unit, the
//! streams of the placement policy), [`draw`] runs a Monte Carlo of the FTL at superblock
//! level (`model.rs`): counts only — no timing, no dies, no per-page map — on the FTL's own
//! [`Superblocks`] (free pool, states, close order), with victims chosen by the FTL's own
//! [`select_victim`] on the same [`SbInfo`]s, and the history `--precondition steady`
//! simulates: a sequential fill, then two capacities of random overwrites. Between events (a
//! frontier fills, a victim is paid off) the invalidations of a batch of host pages are drawn
//! at once, multinomially over the superblocks' valid counts (`sample.rs`), the victim is
//! paid its moves as the FTL's quota pays them, and pages and survivors are appended to their
//! streams. Each step costs O(superblocks), there are O(superblocks / (1 - u)) of them per
//! device capacity written, so the model runs in far less than the device's page count for any
//! real geometry (a 1 TiB device: 4,096 superblocks, about 10^8 superblock steps).
//!
//! What it yields ([`Draw`]) is the FTL's allocator state: every superblock's state, valid
//! count, close order and close time (in host pages, turned into simulated time by [`Pace`]),
//! the free pool in the order the model erased them, and each stream's open superblock and
//! fill. The conventional FTL places its logical pages into valid slots from it
//! (`firmware/conventional/steady.rs`).
//!
//! [`Superblocks`]: crate::firmware::alloc::Superblocks
//! [`SbInfo`]: crate::firmware::alloc::SbInfo
//! [`select_victim`]: crate::firmware::gc::select_victim

mod model;
pub mod sample;
#[cfg(test)]
mod tests;

use crate::config::{DeviceConfig, PlacementPolicy, VictimPolicy};
use crate::engine::SimTime;
use crate::error::Result;
use crate::firmware::alloc::Superblocks;
use crate::firmware::gc::VictimParams;
use crate::nand::{ps_per_byte, Geometry, SLOT_BYTES};

/// What the model needs of one conventional FTL.
#[derive(Debug, Clone)]
pub struct SteadySpec {
    pub superblocks: u32,
    pub slots_per_sb: u32,
    /// Slots of one die program unit (GC quotas are paid per unit of host pages).
    pub unit: u32,
    pub logical: u64,
    /// Write streams; host pages go to stream 0.
    pub streams: usize,
    /// Stream a GC survivor goes to, by the stream of the superblock it leaves.
    pub route: Vec<usize>,
    pub victim: VictimPolicy,
    pub params: VictimParams,
    pub threshold: u32,
    pub incremental: bool,
    pub seed: u64,
}

/// The GC routes of the placement policies: the stream a survivor goes to, by the stream it
/// leaves; host pages go to stream 0. `bloom` is modelled as one stream: it splits uniform
/// random writes into "hot" and "cold" by their recent history, which says nothing of when a
/// page is written next, so both kinds die at the same rate and the valid counts the victim
/// policy sees are those of one stream to within the mix of two frontiers (agreement measured
/// in docs/validation.md); its filters are warmed from the history after the draw.
pub fn route(policy: PlacementPolicy, streams: usize) -> Vec<usize> {
    match policy {
        PlacementPolicy::Single | PlacementPolicy::Gcar | PlacementPolicy::Bloom => {
            vec![0; streams]
        }
        PlacementPolicy::Sup => vec![1; streams],
        PlacementPolicy::AgeK => (0..streams).map(|s| (s + 1).min(streams - 1)).collect(),
        PlacementPolicy::Hint => (0..streams).collect(),
    }
}

/// Counters over a stretch of the model's history.
#[derive(Debug, Clone, Copy, Default)]
pub struct Window {
    pub host: u64,
    pub moved: u64,
    pub victims: u64,
    /// Sum over the victims of valid / slots per superblock at selection.
    pub valid_ratio_sum: f64,
}

impl Window {
    /// Slots programmed per host page (GC moves only; no map pages, no padding).
    pub fn waf(&self) -> f64 {
        if self.host == 0 {
            1.0
        } else {
            (self.host + self.moved) as f64 / self.host as f64
        }
    }
}

/// The allocator state the model ends in.
pub struct Draw {
    /// States, valid counts, close order; close times in host pages of the history.
    pub sbs: Superblocks,
    /// Open superblock (`NO_SB` if none) and its fill, per stream.
    pub open: Vec<(u32, u32)>,
    pub seq_pages: u64,
    pub random_pages: u64,
    /// Survivors moved over the whole history.
    pub moved: u64,
    /// The last capacity of random overwrites.
    pub window: Window,
}

impl Draw {
    /// Slots programmed per host page over the whole history (sequential fill included), the
    /// figure `steady` reports for its preconditioning pass (without map pages).
    pub fn history_waf(&self) -> f64 {
        let host = self.seq_pages + self.random_pages;
        (host + self.moved) as f64 / host.max(1) as f64
    }
}

/// Run the model through `steady`'s history: a sequential fill of every logical page, then
/// `2 x` capacity of uniform random overwrites.
pub fn draw(spec: &SteadySpec) -> Result<Draw> {
    let random = 2 * spec.logical;
    model::Model::new(spec).run(random, spec.logical)
}

/// Simulated time per host page of the history, estimated from the flash timing (the model
/// has no clock): the busiest of the dies (programs of every slot, GC reads, erases), the
/// channels (every slot moved in and out) and the host link, at the WAF and victim valid
/// fraction of the model's last capacity. It dates the superblocks' closing (cost_benefit
/// compares ages) and the clock the measured run starts at.
#[derive(Debug, Clone, Copy)]
pub struct Pace {
    pub seq_ns: f64,
    pub random_ns: f64,
}

impl Pace {
    pub fn estimate(cfg: &DeviceConfig, geo: &Geometry, d: &Draw) -> Pace {
        let t = cfg.nand.timing.of(geo.cell);
        let us = |x: f64| x * 1000.0;
        let read = if t.read_us_by_page.as_slice().is_empty() {
            us(t.read_us)
        } else {
            let p = t.read_us_by_page.as_slice();
            us(p.iter().sum::<f64>() / p.len() as f64)
        };
        let prog = if t.program_us_by_page.as_slice().is_empty() {
            us(t.program_us)
        } else {
            us(t.program_us_by_page.as_slice().iter().sum())
        };
        let ch_ps = ps_per_byte(cfg.nand.channel_mb_s) as f64;
        let xfer = |slots: f64| slots * SLOT_BYTES as f64 * ch_ps / 1000.0;
        let link = SLOT_BYTES as f64 * ps_per_byte(cfg.host.link_mb_s) as f64 / 1000.0;
        let unit = geo.die_unit_slots() as f64;
        let dies = geo.dies as f64;
        let channels = geo.channels as f64;
        let prog_slot = (prog + xfer(unit)) / unit;
        let per_page = |waf: f64, u: f64, victims_per_page: f64| {
            let spp = geo.slots_per_page as f64;
            // Flash pages read per moved slot: a page is read once for its valid slots.
            let pages_per_move = if u > 0.0 {
                (1.0 - (1.0 - u).powf(spp)) / (u * spp)
            } else {
                1.0
            };
            let die = waf * prog_slot
                + (waf - 1.0) * (pages_per_move * read + xfer(1.0))
                + victims_per_page * dies * us(t.erase_us);
            let channel = (2.0 * waf - 1.0) * xfer(1.0);
            (die / dies).max(channel / channels).max(link)
        };
        let w = &d.window;
        let u = if w.victims > 0 {
            w.valid_ratio_sum / w.victims as f64
        } else {
            0.0
        };
        Pace {
            seq_ns: per_page(1.0, 0.0, 0.0),
            random_ns: per_page(w.waf(), u, w.victims as f64 / w.host.max(1) as f64),
        }
    }

    /// The simulated time of host page `h` of the history, which starts at `start` (its first
    /// `seq` pages are the sequential fill).
    pub fn at(&self, start: SimTime, seq: u64, h: u64) -> SimTime {
        let ns = h.min(seq) as f64 * self.seq_ns + h.saturating_sub(seq) as f64 * self.random_ns;
        start + ns.round() as u64
    }
}

/// What the synthesis reports (`precondition.*` of the report, docs/report.md).
#[derive(Debug, Clone, Copy)]
pub struct Synthesized {
    /// [`Draw::history_waf`].
    pub waf: f64,
    /// Host pages of the history the state stands for (the fill plus two capacities).
    pub host_pages: u64,
    /// The history's end on the simulated clock: when the measured run starts.
    pub end: SimTime,
}
