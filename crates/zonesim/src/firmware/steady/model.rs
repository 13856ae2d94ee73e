//! The superblock-level Monte Carlo of a page-mapped FTL under uniform random overwrites
//! (module docs of [`super`]): counts only, on the FTL's own [`Superblocks`], victims chosen by
//! the FTL's own [`select_victim`].

use super::sample::binomial;
use super::{Draw, SteadySpec, Window};
use crate::engine::{rng_for, Rng, SimTime};
use crate::error::{Error, Result};
use crate::firmware::alloc::{Superblocks, NO_SB};
use crate::firmware::gc::select_victim;
use rand::RngCore;

/// The victim under (incremental) collection: as the FTL's `GcJob`, moves owed per host page
/// are `quota / unit`, accumulated in `credit`.
#[derive(Debug, Clone, Copy)]
struct Victim {
    sb: u32,
    quota: u64,
    credit: u64,
    /// Stream its survivors go to.
    to: usize,
}

pub(super) struct Model<'a> {
    spec: &'a SteadySpec,
    sbs: Superblocks,
    /// Open superblock ([`NO_SB`] when closed) and slots written in it, per stream.
    open: Vec<(u32, u32)>,
    victim: Option<Victim>,
    rng: Rng,
    /// Host pages written so far: the model's clock (one tick per host page).
    host: u64,
    moved: u64,
    victims: u64,
    valid_ratio_sum: f64,
    /// Invalidations drawn but not yet spread over the superblocks (`settle`).
    owed: u64,
    /// Scratch of `settle`, per superblock: cumulative valid counts, draws; its guide table.
    cum: Vec<u64>,
    hits: Vec<u32>,
    guide: Vec<u32>,
}

impl<'a> Model<'a> {
    pub(super) fn new(spec: &'a SteadySpec) -> Model<'a> {
        Model {
            spec,
            sbs: Superblocks::new(spec.superblocks),
            open: vec![(NO_SB, 0); spec.streams],
            victim: None,
            rng: rng_for(spec.seed, 0x5354_4541),
            host: 0,
            moved: 0,
            victims: 0,
            valid_ratio_sum: 0.0,
            owed: 0,
            cum: vec![0; spec.superblocks as usize],
            hits: vec![0; spec.superblocks as usize],
            guide: Vec::with_capacity(2 * spec.superblocks as usize + 1),
        }
    }

    /// The history `steady` simulates: a sequential fill of every logical page, then
    /// `random_pages` uniform random overwrites; the statistics of the last `window` of them.
    pub(super) fn run(mut self, random_pages: u64, window: u64) -> Result<Draw> {
        let mut left = self.spec.logical;
        while left > 0 {
            self.open_if_closed(0)?;
            self.ensure_free()?;
            let (sb, fill) = self.open[0];
            if sb == NO_SB {
                continue;
            }
            let n = left.min((self.spec.slots_per_sb - fill) as u64);
            self.host += n;
            left -= n;
            self.append(0, n)?;
        }
        let seq = self.host;
        let unit = self.spec.unit as u64;
        let mut left = random_pages;
        let mut mark = None;
        while left > 0 {
            if left <= window && mark.is_none() {
                mark = Some(self.window());
            }
            // The FTL looks at its pool before each die unit of host pages it flushes.
            if self.host.is_multiple_of(unit) {
                self.ensure_free()?;
            }
            let hb = self.batch(left);
            self.step(hb)?;
            left -= hb;
        }
        self.settle();
        let end = self.window();
        let start = mark.unwrap_or(Window::default());
        Ok(Draw {
            seq_pages: seq,
            random_pages,
            moved: self.moved,
            window: Window {
                host: end.host - start.host,
                moved: end.moved - start.moved,
                victims: end.victims - start.victims,
                valid_ratio_sum: end.valid_ratio_sum - start.valid_ratio_sum,
            },
            // A victim half collected stays a full superblock with its remaining valid
            // slots (the FTL will choose it again; no collection is in progress).
            open: self.open,
            sbs: self.sbs,
        })
    }

    fn window(&self) -> Window {
        Window {
            host: self.host,
            moved: self.moved,
            victims: self.victims,
            valid_ratio_sum: self.valid_ratio_sum,
        }
    }

    /// Host pages of the next step: through the die unit in which the next event happens —
    /// a frontier fills (and the next write opens a superblock, which the pool check at the
    /// following unit sees) or the victim's moves are all paid (the rest of that unit is
    /// written without GC; the next victim is chosen at the following unit, as the FTL does)
    /// — and at most `left`.
    fn batch(&self, left: u64) -> u64 {
        let s = self.spec.slots_per_sb as u64;
        let unit = self.spec.unit as u64;
        // Slots left in a stream's superblock; a closed stream opens at its first slot.
        let space = |st: usize| match self.open[st] {
            (NO_SB, _) => 1,
            (_, fill) => s - fill as u64,
        };
        let space0 = space(0);
        let mut event = space0;
        if let Some(v) = self.victim {
            if v.quota > 0 {
                let moves = |x: u64| (v.credit + x * v.quota) / unit;
                let r = self.sbs.info[v.sb as usize].valid as u64;
                // The victim's moves are all paid after x_v host pages.
                let x_v = (r * unit).saturating_sub(v.credit).div_ceil(v.quota).max(1);
                event = event.min(x_v);
                if v.to == 0 {
                    // Host pages and moves share the frontier: it fills after x + moves(x).
                    let mut x = (space0 * unit)
                        .saturating_sub(v.credit)
                        .checked_div(unit + v.quota)
                        .unwrap_or(0)
                        .max(1);
                    while x + moves(x) < space0 {
                        x += 1;
                    }
                    event = event.min(x);
                } else {
                    let need = space(v.to);
                    let x_g = (need * unit)
                        .saturating_sub(v.credit)
                        .div_ceil(v.quota)
                        .max(1);
                    event = event.min(x_g);
                }
            }
        }
        let to_boundary = unit - self.host % unit;
        let hb = if event <= to_boundary {
            to_boundary
        } else {
            to_boundary + (event - to_boundary).div_ceil(unit) * unit
        };
        hb.min(left)
    }

    /// Write `hb` host pages: each overwrites a uniformly random logical page, invalidating
    /// one valid slot anywhere. The victim's share is drawn at once (its valid count paces the
    /// collection); the rest is owed to the other superblocks until a victim is next chosen
    /// (`settle`): one pass over the superblocks per victim instead of one per step. Then the
    /// victim is paid its moves and the pages and moved survivors are appended to their
    /// streams.
    fn step(&mut self, hb: u64) -> Result<()> {
        self.host += hb;
        let unit = self.spec.unit as u64;
        let Some(mut v) = self.victim else {
            self.owed += hb;
            return self.append(0, hb);
        };
        let due = (v.credit + hb * v.quota) / unit;
        v.credit = v.credit + hb * v.quota - due * unit;
        self.victim = Some(v);
        let valid = self.sbs.info[v.sb as usize].valid as u64;
        // Its slots at the middle of the step (moves take them out as it goes).
        let exposed = valid - due.min(valid) / 2;
        let hit = binomial(&mut self.rng, hb, exposed as f64 / self.spec.logical as f64).min(valid);
        self.owed += hb - hit;
        let info = &mut self.sbs.info[v.sb as usize];
        info.valid -= hit as u32;
        let m = due.min(info.valid as u64);
        info.valid -= m as u32;
        self.moved += m;
        self.append(0, hb)?;
        self.append(v.to, m)?;
        // The FTL's collector looks at the victim whenever a move is due; empty, it is
        // erased and returned to the pool.
        if due > 0 && self.sbs.info[v.sb as usize].valid == 0 {
            self.sbs.release(v.sb);
            self.victim = None;
        }
        Ok(())
    }

    /// Spread the invalidations owed over the valid slots of every superblock but the victim
    /// (uniform random overwrites hit a valid slot uniformly): one categorical draw per
    /// invalidation over the superblocks weighted by their valid slots (a multinomial draw, so
    /// exactly as many are taken as are owed), through a guide table on the cumulative counts
    /// (O(1) per draw, O(superblocks) per call).
    fn settle(&mut self) {
        let k = std::mem::take(&mut self.owed);
        if k == 0 {
            return;
        }
        let skip = self.victim.map_or(NO_SB, |v| v.sb) as usize;
        let n = self.sbs.info.len();
        let mut w = 0u64;
        for (i, info) in self.sbs.info.iter().enumerate() {
            if i != skip {
                w += info.valid as u64;
            }
            self.cum[i] = w;
        }
        if w == 0 {
            return;
        }
        // Buckets of 2^shift positions, at most 2n of them; each names the first superblock
        // whose range reaches into it.
        let shift = 64 - (w / n as u64).max(1).leading_zeros();
        // Positions are 0..w: the last bucket holds position w - 1.
        let buckets = ((w - 1) >> shift) as usize + 1;
        self.guide.clear();
        let mut i = 0;
        for b in 0..buckets {
            let first = (b as u64) << shift;
            while self.cum[i] <= first {
                i += 1;
            }
            self.guide.push(i as u32);
        }
        // Two 32-bit draws per 64-bit word (w counts slots: below 2^31).
        let draw = |pos: u64, hits: &mut [u32]| {
            let mut i = self.guide[(pos >> shift) as usize] as usize;
            // A bucket spans about two superblocks: the first two steps without a branch
            // (which way they go is random), then the rare rest.
            i += (self.cum[i] <= pos) as usize;
            i += (self.cum[i] <= pos) as usize;
            while self.cum[i] <= pos {
                i += 1;
            }
            hits[i] += 1;
        };
        for pair in 0..k.div_ceil(2) {
            let r = self.rng.next_u64();
            draw(((r & 0xffff_ffff) * w) >> 32, &mut self.hits);
            if 2 * pair + 1 < k {
                draw(((r >> 32) * w) >> 32, &mut self.hits);
            }
        }
        let mut excess = 0;
        for (info, h) in self.sbs.info.iter_mut().zip(self.hits.iter_mut()) {
            let hits = std::mem::take(h);
            let d = hits.min(info.valid);
            info.valid -= d;
            excess += hits - d;
        }
        // Only when more draws fell on a superblock than it holds (vanishingly rare): taken
        // from the others in order.
        for (i, info) in self.sbs.info.iter_mut().enumerate() {
            if i != skip {
                let d = excess.min(info.valid);
                info.valid -= d;
                excess -= d;
            }
        }
    }

    /// Open a superblock for `stream` if it has none (the FTL opens one at its first slot).
    fn open_if_closed(&mut self, stream: usize) -> Result<()> {
        if self.open[stream].0 == NO_SB {
            let sb = self.sbs.take_free(stream as u8).ok_or_else(|| {
                Error::internal(
                    "steady-fast: no free superblock (the GC reserve ran out in the model)",
                )
            })?;
            self.open[stream] = (sb, 0);
        }
        Ok(())
    }

    /// Append `n` valid slots to `stream`'s frontier, closing each superblock it fills and
    /// opening the next.
    fn append(&mut self, stream: usize, mut n: u64) -> Result<()> {
        let s = self.spec.slots_per_sb;
        while n > 0 {
            self.open_if_closed(stream)?;
            let (sb, fill) = self.open[stream];
            let k = n.min((s - fill) as u64) as u32;
            self.sbs.info[sb as usize].valid += k;
            n -= k as u64;
            if fill + k == s {
                self.sbs.close(sb, SimTime(self.host));
                self.open[stream] = (NO_SB, 0);
            } else {
                self.open[stream].1 = fill + k;
            }
        }
        Ok(())
    }

    /// The FTL's `ensure_free` before a host unit: choose a victim once the pool is down to
    /// `threshold + streams - 1`; collect it whole unless GC is incremental; collect to the end
    /// while the pool is at the reserve the streams need.
    fn ensure_free(&mut self) -> Result<()> {
        let streams = self.spec.streams as u32;
        let start = self.spec.threshold + streams - 1;
        if self.victim.is_none() && self.sbs.free_count() <= start {
            self.start_victim();
        }
        if self.victim.is_some() && !self.spec.incremental {
            self.collect_all()?;
        }
        let mut budget = self.spec.superblocks;
        while self.sbs.free_count() <= streams && budget > 0 {
            budget -= 1;
            if self.victim.is_none() && !self.start_victim() {
                break;
            }
            self.collect_all()?;
        }
        Ok(())
    }

    fn start_victim(&mut self) -> bool {
        self.settle();
        let spec = self.spec;
        let now = SimTime(self.host);
        let info = &self.sbs.info;
        let Some(v) = select_victim(spec.victim, info, now, spec.params, &mut self.rng, |_| {
            false
        }) else {
            return false;
        };
        let i = self.sbs.info[v as usize];
        let valid = i.valid as u64;
        let s = spec.slots_per_sb as u64;
        self.victims += 1;
        self.valid_ratio_sum += valid as f64 / s as f64;
        self.victim = Some(Victim {
            sb: v,
            quota: (spec.unit as u64 * valid)
                .div_ceil((s - valid).max(1))
                .min(u32::MAX as u64),
            credit: 0,
            to: spec.route[i.stream as usize],
        });
        true
    }

    /// Move every valid slot of the victim at once and release it.
    fn collect_all(&mut self) -> Result<()> {
        let Some(v) = self.victim.take() else {
            return Ok(());
        };
        let m = std::mem::take(&mut self.sbs.info[v.sb as usize].valid) as u64;
        self.moved += m;
        self.append(v.to, m)?;
        self.sbs.release(v.sb);
        Ok(())
    }
}
