//! Bad blocks: factory-bad blocks drawn from the seed, grown bad blocks from wear-out, and the
//! remapping of a superblock's bad member onto a spare block of the same plane.
//!
//! Wear-out follows a Weibull life distribution, the usual form for wear-out failures (JEDEC
//! JEP122, "Failure mechanisms and models for semiconductor devices"): a block survives `n` P/E
//! cycles with probability `S(n) = exp(-(n / η)^k)`, `k` the shape (`nand.endurance_shape`).
//! The scale `η` follows from the rating the way NAND datasheets state endurance: the rated
//! P/E cycles `E` (`nand.endurance_pe`) are those up to which the device keeps its guaranteed
//! minimum of valid blocks (the ONFI parameter page gives a block endurance beside a maximum
//! number of bad blocks per LUN; vendor datasheets guarantee a minimum number of valid blocks
//! through the rated life, about 98 % of the blocks), so a share
//! `s` (`nand.failed_share_at_rating`, 2 %) has failed at `E`: `1 - S(E) = s`, which gives
//! `η = E / (-ln(1 - s))^(1/k)` ([`weibull_scale`]; 3.67 E with the defaults). The cycle that
//! fails is drawn one cycle at a time from the hazard
//! `h(n) = 1 - S(n) / S(n - 1) = 1 - exp(((n - 1)^k - n^k) / η^k)`, with a uniform number
//! hashed from (seed, block, cycle), so the same run draws the same failures whatever else it
//! does. A failing cycle fails the erase (half the draws below `h`) or the first program after
//! it (the other half), as Schroeder et al. (FAST 2016, "Flash reliability in production")
//! count both failed erases and failed writes in the field.
//!
//! A pre-worn device (`nand.initial_pe` = N) starts every block at N erases; a block whose
//! wear-out fell within those cycles (chance `1 - S(N)`, its own draw) is bad at format (the
//! firmware found it before the run) and skipped like a factory-bad one.
//!
//! Spares: a superblock is one block per plane of every die (a *lane*). At format superblocks
//! are assembled from good blocks only, the `n`-th superblock taking the `n`-th good block of
//! each lane, so bad blocks are skipped rather than retiring whole superblocks, and the good
//! blocks left over in richer lanes are the spares (donors). When a member goes bad later its
//! lane takes a donor of the same lane, as real FTLs remap a plane's block from its spare
//! area; when no donor is left in that lane the superblock itself is retired and its healthy
//! members become donors. So superblocks in service = rows - (bad blocks of the worst lane),
//! as with per-plane spare areas.

use crate::engine::mix64;

/// The Weibull scale `η` of block wear-out for a rating of `endurance` cycles at which a share
/// `share` of blocks has failed, with shape `shape` (module doc). 0 without a rating.
pub fn weibull_scale(endurance: u32, share: f64, shape: f64) -> f64 {
    if endurance == 0 {
        return 0.0;
    }
    endurance as f64 / (-(-share).ln_1p()).powf(1.0 / shape)
}

/// The share of blocks worn out within `n` cycles: `1 - S(n)` (0 with `scale = 0`).
pub fn failed_within(n: u32, scale: f64, shape: f64) -> f64 {
    if scale <= 0.0 {
        return 0.0;
    }
    -(-(n as f64 / scale).powf(shape)).exp_m1()
}

/// The chance that a block which survived `n - 1` cycles fails at cycle `n` (Weibull hazard,
/// module doc). 0 with `scale = 0` (no wear-out).
pub fn hazard(n: u32, scale: f64, shape: f64) -> f64 {
    if scale <= 0.0 || n == 0 {
        return 0.0;
    }
    let now = (n as f64 / scale).powf(shape);
    let before = ((n - 1) as f64 / scale).powf(shape);
    1.0 - (before - now).exp()
}

/// A uniform number in [0, 1) from (seed, block, cycle, purpose): the same draw whatever the
/// order of events.
pub fn draw(seed: u64, block: u64, cycle: u64, purpose: u64) -> f64 {
    let h =
        mix64(mix64(seed ^ purpose.wrapping_mul(0x9e37_79b9_7f4a_7c15)) ^ (block << 24) ^ cycle);
    (h >> 11) as f64 / (1u64 << 53) as f64
}

/// Draw purpose: factory-bad blocks.
const FACTORY: u64 = 1;
/// Draw purpose: wear-out at an erase.
const WEAR: u64 = 2;
/// Draw purpose: wear-out within the cycles of a pre-worn device.
const PREWEAR: u64 = 3;

/// A pre-worn device (`nand.initial_pe`): the cycles every block has been through before
/// format and the wear-out law they were drawn from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PreWear {
    pub cycles: u32,
    pub scale: f64,
    pub shape: f64,
}

/// How a wear-out draw came out for one block at one cycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fate {
    Fine,
    /// The erase fails.
    EraseFails,
    /// The first program after the erase fails.
    ProgramFails,
}

/// The blocks of one FTL's superblocks: which physical block serves each lane of each
/// superblock, erase counts per physical block, bad blocks and the donors per lane.
#[derive(Debug, Clone)]
pub struct BlockTable {
    lanes: u32,
    /// Physical row of lane `l` of superblock `sb` at `sb * lanes + l`.
    member: Vec<u32>,
    /// Erase count per physical block (`row * lanes + lane`).
    pub erases: Vec<u32>,
    bad: Vec<bool>,
    /// Healthy blocks of retired superblocks, per lane (rows).
    donors: Vec<Vec<u32>>,
    pub retired: Vec<bool>,
}

impl BlockTable {
    pub fn new(rows: u32, lanes: u32) -> BlockTable {
        let n = (rows * lanes) as usize;
        BlockTable {
            lanes,
            member: (0..rows)
                .flat_map(|r| std::iter::repeat_n(r, lanes as usize))
                .collect(),
            erases: vec![0; n],
            bad: vec![false; n],
            donors: vec![Vec::new(); lanes as usize],
            retired: vec![false; rows as usize],
        }
    }

    /// Physical block index of lane `lane` of superblock `sb`.
    #[inline]
    pub fn phys(&self, sb: u32, lane: u32) -> usize {
        (self.member[(sb * self.lanes + lane) as usize] * self.lanes + lane) as usize
    }

    pub fn lanes(&self) -> u32 {
        self.lanes
    }

    /// Mark the blocks bad at format and assemble the superblocks from the good ones, as
    /// firmware does at format. Bad: factory-bad blocks (each with chance `fraction`) and, on
    /// a pre-worn device, the blocks whose wear-out fell within its cycles (every block starts
    /// at `pre.cycles` erases). Superblock `sb` takes the `sb`-th good block of each lane, so
    /// `min over lanes of good blocks` superblocks are whole; the rest are retired from the
    /// start and the good blocks left over in richer lanes are the donors that replace
    /// grown-bad blocks. Returns the factory-bad blocks and those worn out before format.
    pub fn format(&mut self, seed: u64, fraction: f64, pre: PreWear) -> (u64, u64) {
        self.erases.fill(pre.cycles);
        let worn = failed_within(pre.cycles, pre.scale, pre.shape);
        if fraction <= 0.0 && worn <= 0.0 {
            return (0, 0);
        }
        let rows = self.retired.len() as u32;
        let mut good: Vec<Vec<u32>> = vec![Vec::new(); self.lanes as usize];
        let (mut factory, mut preworn) = (0, 0);
        for row in 0..rows {
            for lane in 0..self.lanes {
                let b = (row * self.lanes + lane) as usize;
                if draw(seed, b as u64, 0, FACTORY) < fraction {
                    factory += 1;
                    self.bad[b] = true;
                } else if draw(seed, b as u64, 0, PREWEAR) < worn {
                    preworn += 1;
                    self.bad[b] = true;
                } else {
                    good[lane as usize].push(row);
                }
            }
        }
        let whole = good.iter().map(Vec::len).min().unwrap_or(0) as u32;
        for (lane, rows_of_lane) in good.into_iter().enumerate() {
            for (sb, &row) in rows_of_lane.iter().take(whole as usize).enumerate() {
                self.member[sb * self.lanes as usize + lane] = row;
            }
            // Donors are popped from the end: the lowest rows are used first.
            self.donors[lane] = rows_of_lane[whole as usize..]
                .iter()
                .rev()
                .copied()
                .collect();
        }
        for sb in whole..rows {
            self.retired[sb as usize] = true;
        }
        (factory, preworn)
    }

    /// Superblocks in service.
    pub fn in_service(&self) -> u32 {
        self.retired.iter().filter(|&&r| !r).count() as u32
    }

    /// A member of lane `lane` can still be replaced without retiring its superblock, after
    /// `claimed` replacements of that lane already promised.
    pub fn has_donor(&self, lane: u32, claimed: u32) -> bool {
        self.donors[lane as usize].len() > claimed as usize
    }

    /// Superblock `sb` was erased: count the erase of each member and draw its wear-out.
    /// Calls `fate(lane, fate)` for each member whose draw is not fine.
    pub fn erased(
        &mut self,
        sb: u32,
        seed: u64,
        scale: f64,
        shape: f64,
        mut fate: impl FnMut(u32, Fate),
    ) {
        for lane in 0..self.lanes {
            let b = self.phys(sb, lane);
            self.erases[b] += 1;
            let n = self.erases[b];
            let h = hazard(n, scale, shape);
            if h <= 0.0 {
                continue;
            }
            let u = draw(seed, b as u64, n as u64, WEAR);
            if u < h / 2.0 {
                fate(lane, Fate::EraseFails);
            } else if u < h {
                fate(lane, Fate::ProgramFails);
            }
        }
    }

    /// Lane `lane` of superblock `sb` went bad: remap it onto a donor of its lane (true) or
    /// retire the superblock (false).
    pub fn fail(&mut self, sb: u32, lane: u32) -> bool {
        let b = self.phys(sb, lane);
        self.bad[b] = true;
        if let Some(row) = self.donors[lane as usize].pop() {
            self.member[(sb * self.lanes + lane) as usize] = row;
            return true;
        }
        self.retire(sb);
        false
    }

    fn retire(&mut self, sb: u32) {
        self.retired[sb as usize] = true;
        for lane in 0..self.lanes {
            let b = self.phys(sb, lane);
            if !self.bad[b] {
                self.donors[lane as usize].push((b / self.lanes as usize) as u32);
            }
        }
    }

    /// The most-erased member of `sb` (its wear as a whole).
    pub fn sb_erases(&self, sb: u32) -> u32 {
        (0..self.lanes)
            .map(|l| self.erases[self.phys(sb, l)])
            .max()
            .unwrap_or(0)
    }

    /// Bad blocks in all.
    pub fn bad_blocks(&self) -> u64 {
        self.bad.iter().filter(|&&b| b).count() as u64
    }

    /// Each physical block serves at most one lane of one superblock in service, never a bad
    /// one, and serves its own lane; donors are healthy and unused.
    pub fn check(&self) -> Result<(), String> {
        let mut used = vec![false; self.erases.len()];
        for sb in 0..self.retired.len() as u32 {
            if self.retired[sb as usize] {
                continue;
            }
            for lane in 0..self.lanes {
                let b = self.phys(sb, lane);
                if b % self.lanes as usize != lane as usize {
                    return Err(format!("superblock {sb} lane {lane} maps to another lane"));
                }
                if self.bad[b] {
                    return Err(format!("superblock {sb} in service uses bad block {b}"));
                }
                if std::mem::replace(&mut used[b], true) {
                    return Err(format!("block {b} serves two superblocks"));
                }
            }
        }
        for (lane, rows) in self.donors.iter().enumerate() {
            for &r in rows {
                let b = r as usize * self.lanes as usize + lane;
                if self.bad[b] || used[b] {
                    return Err(format!("donor block {b} is bad or in service"));
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const FRESH: PreWear = PreWear {
        cycles: 0,
        scale: 0.0,
        shape: 1.0,
    };

    impl BlockTable {
        /// [`BlockTable::format`] of a fresh device: factory-bad blocks only.
        fn factory(&mut self, seed: u64, fraction: f64) -> u64 {
            self.format(seed, fraction, FRESH).0
        }
    }

    #[test]
    fn hazard_integrates_to_the_weibull_survival() {
        // Surviving the first n cycles: prod (1 - h) = exp(-(n/η)^k).
        let (eta, k) = (3000.0, 3.0);
        let mut s = 1.0;
        for n in 1..=3000 {
            s *= 1.0 - hazard(n, eta, k);
        }
        assert!((s - (-1.0f64).exp()).abs() < 1e-9, "{s}");
        assert!((1.0 - s - failed_within(3000, eta, k)).abs() < 1e-9);
        assert_eq!(hazard(10, 0.0, k), 0.0);
        assert!(hazard(100, eta, k) < hazard(2000, eta, k));
    }

    #[test]
    fn the_rating_is_where_the_configured_share_has_failed() {
        for (e, share, k) in [(3000, 0.02, 3.0), (40, 0.02, 3.0), (10_000, 0.1, 1.5)] {
            let eta = weibull_scale(e, share, k);
            assert!(
                (failed_within(e, eta, k) - share).abs() < 1e-12,
                "{e} {share} {k}"
            );
            // The product of the per-cycle hazards agrees with the closed form.
            let survived: f64 = (1..=e).map(|n| 1.0 - hazard(n, eta, k)).product();
            assert!((1.0 - survived - share).abs() < 1e-9);
        }
        // Datasheet defaults: 2 % by the rating, about 0.25 % by half of it (shape 3).
        let eta = weibull_scale(3000, 0.02, 3.0);
        assert!((eta / 3000.0 - 3.672).abs() < 1e-3, "{eta}");
        assert!((failed_within(1500, eta, 3.0) - 0.00252).abs() < 1e-5);
        assert_eq!(weibull_scale(0, 0.02, 3.0), 0.0);
    }

    #[test]
    fn a_preworn_device_formats_without_the_blocks_it_wore_out() {
        let (rows, lanes, e) = (2000, 8, 3000);
        let eta = weibull_scale(e, 0.02, 3.0);
        let pre = |cycles| PreWear {
            cycles,
            scale: eta,
            shape: 3.0,
        };
        let mut t = BlockTable::new(rows, lanes);
        let (factory, worn) = t.format(5, 0.01, pre(e));
        // 16,000 blocks: 1 % factory-bad, then 2 % of the rest worn out by the rating.
        assert!((110..210).contains(&factory), "{factory}");
        assert!((250..390).contains(&worn), "{worn}");
        assert_eq!(t.bad_blocks(), factory + worn);
        assert!(t.erases.iter().all(|&n| n == e));
        t.check().unwrap();
        // The factory draws are those of a fresh device; a fresh device wears nothing out.
        let mut u = BlockTable::new(rows, lanes);
        assert_eq!(u.format(5, 0.01, pre(0)), (factory, 0));
        let mut v = BlockTable::new(rows, lanes);
        assert_eq!(v.format(5, 0.0, FRESH), (0, 0));
        assert_eq!(v.in_service(), rows);
    }

    #[test]
    fn factory_draws_hit_the_fraction_and_are_deterministic() {
        let mut t = BlockTable::new(1000, 8);
        let bad = t.factory(7, 0.02);
        assert!((120..200).contains(&bad), "{bad}");
        let mut u = BlockTable::new(1000, 8);
        assert_eq!(u.factory(7, 0.02), bad);
        assert_eq!(t.retired, u.retired);
        t.check().unwrap();
        // Assembled from good blocks: in service = rows - the worst lane's bad blocks.
        let worst = (0..8)
            .map(|l| (0..1000).filter(|&r| t.bad[r * 8 + l]).count())
            .max()
            .unwrap();
        assert_eq!(t.in_service() as usize, 1000 - worst);
    }

    proptest! {
        /// Format assembles superblocks from good blocks: as many whole ones as the poorest
        /// lane has good blocks, the rest retired, every other good block a donor of its lane;
        /// factory-bad and pre-worn blocks alike (every block starts at the pre-wear cycles).
        #[test]
        fn format_assembles_superblocks_from_good_blocks(
            rows in 1u32..60,
            lanes in 1u32..9,
            fraction in 0.0f64..0.3,
            cycles in 0u32..6000,
            seed in 0u64..1000,
        ) {
            let mut t = BlockTable::new(rows, lanes);
            let pre = PreWear { cycles, scale: weibull_scale(3000, 0.02, 3.0), shape: 3.0 };
            let (factory, worn) = t.format(seed, fraction, pre);
            t.check().map_err(TestCaseError::fail)?;
            prop_assert_eq!(factory + worn, t.bad_blocks());
            prop_assert!(t.erases.iter().all(|&n| n == cycles));
            let good = |l: u32| (0..rows).filter(|&r| !t.bad[(r * lanes + l) as usize]).count();
            let whole = (0..lanes).map(good).min().unwrap() as u32;
            prop_assert_eq!(t.in_service(), whole);
            for sb in 0..rows {
                prop_assert_eq!(t.retired[sb as usize], sb >= t.in_service());
            }
            for l in 0..lanes {
                prop_assert_eq!(t.donors[l as usize].len(), good(l) - whole as usize);
            }
        }

        /// Any sequence of failures keeps the table consistent: no bad or shared block in
        /// service, donors healthy and unused, and a retired superblock stays retired.
        #[test]
        fn failures_keep_the_table_consistent(
            rows in 2u32..40,
            lanes in 1u32..6,
            fails in proptest::collection::vec((0u32..40, 0u32..6), 0..80),
            fraction in 0.0f64..0.1,
        ) {
            let mut t = BlockTable::new(rows, lanes);
            t.factory(3, fraction);
            t.check().map_err(TestCaseError::fail)?;
            for (sb, lane) in fails {
                let (sb, lane) = (sb % rows, lane % lanes);
                if t.retired[sb as usize] {
                    continue;
                }
                let kept = t.fail(sb, lane);
                prop_assert_eq!(kept, !t.retired[sb as usize]);
                t.check().map_err(TestCaseError::fail)?;
            }
            let in_service = t.retired.iter().filter(|&&r| !r).count() as u64;
            prop_assert!(in_service * lanes as u64 + t.bad_blocks() <= (rows * lanes) as u64);
        }
    }
}
