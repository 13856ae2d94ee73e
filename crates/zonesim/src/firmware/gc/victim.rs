use crate::config::VictimPolicy;
use crate::engine::{Rng, SimTime};
use crate::firmware::alloc::{SbInfo, SbState};
use rand::Rng as _;

/// Parameters of the policies that have them, and which full superblocks are candidates.
#[derive(Debug, Clone, Copy)]
pub struct VictimParams {
    pub d: u32,
    pub window: u32,
    pub slots_per_sb: u32,
    /// Entirely valid superblocks are candidates too (a collector that migrates data out of
    /// its region, such as SLC GC with `slc.gc = migrate`, gains space from them).
    pub allow_full: bool,
}

/// Choose a victim among the full superblocks not `busy`, or None if there is none worth
/// collecting (every full superblock entirely valid, unless `allow_full`). Linear scans:
/// superblock counts are in the hundreds to low thousands and a victim is chosen once per
/// superblock's worth of writes.
pub fn select_victim(
    policy: VictimPolicy,
    sbs: &[SbInfo],
    now: SimTime,
    p: VictimParams,
    rng: &mut Rng,
    busy: impl Fn(u32) -> bool,
) -> Option<u32> {
    let full = |s: u32| {
        let i = &sbs[s as usize];
        i.state == SbState::Full && (p.allow_full || i.valid < p.slots_per_sb) && !busy(s)
    };
    let pick_min_valid =
        |it: &mut dyn Iterator<Item = u32>| it.min_by_key(|&s| (sbs[s as usize].valid, s));
    let candidates = || (0..sbs.len() as u32).filter(|&s| full(s));
    match policy {
        VictimPolicy::Greedy => pick_min_valid(&mut candidates()),
        VictimPolicy::Fifo => candidates().min_by_key(|&s| sbs[s as usize].close_seq),
        VictimPolicy::CostBenefit => {
            let score = |s: u32| {
                let i = &sbs[s as usize];
                let u = i.valid as f64 / p.slots_per_sb as f64;
                let age = now.since(i.closed_at) as f64 + 1.0;
                if u == 0.0 {
                    f64::INFINITY
                } else {
                    age * (1.0 - u) / (2.0 * u)
                }
            };
            candidates().max_by(|&a, &b| score(a).total_cmp(&score(b)).then(b.cmp(&a)))
        }
        VictimPolicy::Random | VictimPolicy::DChoice => {
            let all: Vec<u32> = candidates().collect();
            if all.is_empty() {
                return None;
            }
            let d = if policy == VictimPolicy::Random {
                1
            } else {
                p.d
            };
            (0..d)
                .map(|_| all[rng.gen_range(0..all.len())])
                .min_by_key(|&s| (sbs[s as usize].valid, s))
        }
        VictimPolicy::WindowedGreedy => {
            let mut all: Vec<u32> = candidates().collect();
            all.sort_unstable_by_key(|&s| sbs[s as usize].close_seq);
            all.truncate(p.window as usize);
            pick_min_valid(&mut all.into_iter())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::rng_for;

    fn sb(valid: u32, seq: u64, closed: u64) -> SbInfo {
        SbInfo {
            state: SbState::Full,
            valid,
            closed_at: SimTime(closed),
            close_seq: seq,
            stream: 0,
        }
    }

    #[test]
    fn policies_pick_as_documented() {
        let sbs = vec![
            sb(50, 1, 0),
            sb(10, 3, 900),
            sb(30, 2, 100),
            sb(100, 4, 950),
        ];
        let p = VictimParams {
            d: 4,
            window: 2,
            slots_per_sb: 100,
            allow_full: false,
        };
        let mut r = rng_for(1, 1);
        let now = SimTime(1000);
        let pick = |pol, r: &mut Rng| select_victim(pol, &sbs, now, p, r, |_| false);
        assert_eq!(pick(VictimPolicy::Greedy, &mut r), Some(1));
        assert_eq!(pick(VictimPolicy::Fifo, &mut r), Some(0));
        // window = the two oldest (0: 50 valid, 2: 30 valid)
        assert_eq!(pick(VictimPolicy::WindowedGreedy, &mut r), Some(2));
        // cost-benefit: sb0 age 1000 u .5 -> 500; sb1 age 100 u .1 -> 450; sb2 age 900 u .3 -> 1050
        assert_eq!(pick(VictimPolicy::CostBenefit, &mut r), Some(2));
        // a fully valid superblock is never chosen
        for _ in 0..50 {
            assert_ne!(pick(VictimPolicy::Random, &mut r), Some(3));
            assert_ne!(pick(VictimPolicy::DChoice, &mut r), Some(3));
        }
    }

    #[test]
    fn busy_superblocks_are_skipped_and_full_ones_allowed_on_request() {
        let sbs = vec![sb(10, 1, 0), sb(100, 2, 0), sb(40, 3, 0)];
        let mut p = VictimParams {
            d: 1,
            window: 1,
            slots_per_sb: 100,
            allow_full: false,
        };
        let mut r = rng_for(1, 1);
        let now = SimTime(0);
        let greedy = |p, busy: &dyn Fn(u32) -> bool, r: &mut Rng| {
            select_victim(VictimPolicy::Greedy, &sbs, now, p, r, busy)
        };
        assert_eq!(greedy(p, &|s| s == 0, &mut r), Some(2));
        assert_eq!(greedy(p, &|s| s != 1, &mut r), None);
        p.allow_full = true;
        assert_eq!(greedy(p, &|s| s != 1, &mut r), Some(1));
    }
}
