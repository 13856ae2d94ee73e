//! The synthesis's draws and model on their own; its agreement with the simulated steady state
//! is `tests/steady_fast.rs`.

use super::sample::{binomial, subset, Perm};
use super::{draw, route, SteadySpec};
use crate::config::{PlacementPolicy, VictimPolicy};
use crate::engine::rng_for;
use crate::firmware::alloc::SbState;
use crate::firmware::gc::VictimParams;

#[test]
fn perm_is_a_bijection() {
    for n in [1u64, 2, 3, 7, 64, 1000, 4097, 65_536, 100_003] {
        let p = Perm::new(n, n * 31 + 7);
        let mut seen = vec![false; n as usize];
        for x in 0..n {
            let y = p.apply(x);
            assert!(y < n, "n {n}: {x} -> {y}");
            assert!(!seen[y as usize], "n {n}: {y} twice");
            seen[y as usize] = true;
        }
    }
}

#[test]
fn subset_is_sorted_distinct_and_sized() {
    let mut rng = rng_for(3, 0);
    let mut marks = vec![0u64; 4];
    let mut out = Vec::new();
    for (span, want) in [
        (200u32, 0u32),
        (200, 1),
        (200, 100),
        (200, 199),
        (200, 200),
        (65, 64),
    ] {
        subset(&mut rng, span, want, &mut marks, &mut out);
        assert_eq!(out.len(), want as usize);
        assert!(out.windows(2).all(|w| w[0] < w[1]));
        assert!(out.iter().all(|&o| o < span));
    }
}

#[test]
fn binomial_mean_and_variance() {
    let mut rng = rng_for(5, 0);
    for (n, p) in [(100u64, 0.05f64), (1000, 0.02), (100_000, 0.3), (50, 0.9)] {
        let k = 20_000;
        let xs: Vec<f64> = (0..k).map(|_| binomial(&mut rng, n, p) as f64).collect();
        let mean = xs.iter().sum::<f64>() / k as f64;
        let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / k as f64;
        let (m, v) = (n as f64 * p, n as f64 * p * (1.0 - p));
        assert!(
            (mean - m).abs() < 4.0 * (v / k as f64).sqrt() + 1e-9,
            "n {n} p {p}: mean {mean} vs {m}"
        );
        assert!((var / v - 1.0).abs() < 0.1, "n {n} p {p}: var {var} vs {v}");
    }
}

fn spec(victim: VictimPolicy, superblocks: u32, op: f64) -> SteadySpec {
    let slots_per_sb = 256;
    let physical = superblocks as u64 * slots_per_sb as u64;
    SteadySpec {
        superblocks,
        slots_per_sb,
        unit: 4,
        logical: (physical as f64 / (1.0 + op)) as u64,
        streams: 1,
        route: route(PlacementPolicy::Single, 1),
        victim,
        params: VictimParams {
            d: 8,
            window: 16,
            slots_per_sb,
            allow_full: false,
        },
        threshold: 2,
        incremental: true,
        seed: 11,
    }
}

/// The model keeps its books: valid counts add up to the logical pages, the free pool sits at
/// the GC threshold, and greedy amplifies less than FIFO (whose WAF is the analytic
/// 1 / (1 - X), X = exp(-(1 + op)(1 - X)), within a few %).
#[test]
fn model_state_is_consistent_and_greedy_beats_fifo() {
    let op = 0.25;
    let mut wafs = Vec::new();
    for v in [VictimPolicy::Greedy, VictimPolicy::Fifo] {
        let s = spec(v, 512, op);
        let d = draw(&s).unwrap();
        let valid: u64 = d.sbs.info.iter().map(|i| i.valid as u64).sum();
        assert_eq!(valid, s.logical, "{v:?}: valid slots vs logical pages");
        for i in &d.sbs.info {
            if i.state == SbState::Free {
                assert_eq!(i.valid, 0);
            }
        }
        let free = d.sbs.free_count();
        assert!(
            (1..=s.threshold + 1).contains(&free),
            "{v:?}: {free} free superblocks"
        );
        wafs.push(d.window.waf());
    }
    let mut x: f64 = 0.5;
    for _ in 0..200 {
        x = (-(1.0 + op) * (1.0 - x)).exp();
    }
    let fifo_theory = 1.0 / (1.0 - x);
    assert!(wafs[0] < wafs[1], "greedy {} vs fifo {}", wafs[0], wafs[1]);
    assert!(
        (wafs[1] / fifo_theory - 1.0).abs() < 0.05,
        "fifo {} vs theory {fifo_theory}",
        wafs[1]
    );
}
