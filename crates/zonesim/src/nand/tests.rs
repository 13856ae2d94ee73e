//! Tests of the aging mechanisms of the array: variability, multi-pass programs, bit errors.

use super::errors::ReadErrors;
use super::{FlashPage, NandArray, OpClass};
use crate::config::DeviceConfig;
use crate::engine::SimTime;
use proptest::prelude::*;

fn mcmq(sets: &[&str]) -> DeviceConfig {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    crate::load_device("mcmq-2022", &sets).expect("config")
}

/// Mean and standard deviation of `xs`.
fn mean_sd(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    let m = xs.iter().sum::<f64>() / n;
    (
        m,
        (xs.iter().map(|x| (x - m).powi(2)).sum::<f64>() / n).sqrt(),
    )
}

/// `n` reads of page `page` of die 0 on an idle die, each minus the transfer, in µs.
fn read_times(a: &mut NandArray, page: u32, n: usize) -> Vec<f64> {
    let cell = a.geo.cell;
    let bytes = a.geo.page_bytes as u64;
    let xfer = a.xfer_ns(bytes);
    let mut t = SimTime::from_us(10.0);
    (0..n)
        .map(|_| {
            a.advance(t);
            let done = a.read_page(t, 0, page, bytes, cell, OpClass::HostRead);
            let us = (done.since(t) - xfer) as f64 / 1000.0;
            t = done + 1_000_000;
            us
        })
        .collect()
}

#[test]
fn variability_draws_table_one_spreads_and_keeps_the_means() {
    let mut a = NandArray::with_seed(&mcmq(&["nand.variability=true"]), 3);
    for (page, mean, sd) in [(0, 56.2, 1.6), (1, 71.5, 8.4)] {
        let (m, s) = mean_sd(&read_times(&mut a, page, 20_000));
        assert!((m - mean).abs() < 0.01 * mean, "page {page}: mean {m}");
        assert!((s - sd).abs() < 0.05 * sd, "page {page}: sd {s}");
    }
}

#[test]
fn variability_is_deterministic_per_seed_and_off_by_default() {
    let on = mcmq(&["nand.variability=true"]);
    let a = read_times(&mut NandArray::with_seed(&on, 5), 1, 50);
    let b = read_times(&mut NandArray::with_seed(&on, 5), 1, 50);
    let c = read_times(&mut NandArray::with_seed(&on, 6), 1, 50);
    assert_eq!(a, b);
    assert_ne!(a, c);
    let off = read_times(&mut NandArray::with_seed(&mcmq(&[]), 5), 1, 50);
    assert!(off.iter().all(|&x| (x - 71.5).abs() < 1e-3));
}

#[test]
fn multi_pass_programs_lsb_then_msb_with_their_own_times() {
    for (scheme, lsb) in [("one_shot", None), ("multi_pass", Some(381.2))] {
        let cfg = mcmq(&[&format!("nand.program_scheme={scheme}")]);
        let mut a = NandArray::new(&cfg);
        let planes = cfg.nand.planes_per_die;
        let slots = 2 * planes * cfg.nand.page_bytes / 4096;
        let xfer = a.xfer_ns(slots as u64 * 4096) as f64 / 1000.0;
        let t0 = SimTime::from_us(10.0);
        let done = a.program(t0, 0, slots, 2 * planes, cfg.nand.cell, OpClass::HostWrite);
        // Either scheme: both transfers and both program times, back to back.
        let total = done.since(t0) as f64 / 1000.0;
        assert!(
            (total - (xfer + 381.2 + 1578.5)).abs() < 1e-3,
            "{scheme}: {total}"
        );
        if let Some(lsb) = lsb {
            let first = a.last_pass_ends()[0].since(t0) as f64 / 1000.0;
            assert!((first - (xfer / 2.0 + lsb)).abs() < 1e-3, "{first}");
        }
    }
}

/// A worn array: every erase counts as `scale` P/E cycles after `days` on a shelf.
fn worn(scale: f64, days: f64, ecc: &[&str]) -> DeviceConfig {
    let mut sets = vec![
        "nand.errors=true".to_string(),
        format!("nand.rber.pe_scale={scale}"),
        format!("nand.rber.retention_days={days}"),
    ];
    sets.extend(ecc.iter().map(|s| s.to_string()));
    crate::load_device("mcmq-2022", &sets).expect("config")
}

#[test]
fn a_fresh_block_reads_without_retries_and_a_rotten_one_fails_to_the_host() {
    let p = FlashPage {
        die: 0,
        plane: 0,
        block: 3,
        page: 0,
    };
    let cfg = worn(1e6, 0.0, &["nand.ecc.max_retries=2"]);
    let mut a = NandArray::new(&cfg);
    let cell = cfg.nand.cell;
    let t = SimTime::from_us(10.0);
    let plain = a.read_block(t, p, 8192, cell, OpClass::HostRead);
    assert!(!a.take_media_error());
    assert_eq!(a.error_counters().unwrap().read_retries, 0);
    assert_eq!(a.rber_estimate(0, 0, 3), Some(cfg.nand.rber.epsilon));
    // One erase at 10^6 cycles each: wear alone is past any decode.
    let e = a.erase(plain, 0, 3, cell, OpClass::Background);
    let done = a.read_block(e, p, 8192, cell, OpClass::HostRead);
    let c = a.error_counters().unwrap();
    assert_eq!(
        (c.read_retries, c.soft_decodes, c.uncorrectable_reads),
        (2, 1, 1)
    );
    assert!(a.take_media_error());
    assert!(!a.take_media_error(), "taken once");
    // Two retry senses, four soft senses, the decode: 7 senses and transfers and 20 us.
    assert!(done.since(e) > 7 * plain.since(t));
    // A GC read that fails is counted but no host command fails.
    a.read_block(done, p, 8192, cell, OpClass::Background);
    assert!(!a.take_media_error());
    assert_eq!(a.error_counters().unwrap().uncorrectable_reads, 2);
    // After preconditioning the counters restart; the block keeps its wear.
    a.reset_error_counters();
    let c = a.error_counters().unwrap();
    assert_eq!((c.checked_reads, c.retry_histogram.len()), (0, 4));
    assert!(a.rber_estimate(0, 0, 3).unwrap() > 0.5);
}

#[test]
fn errors_off_costs_nothing_and_estimates_nothing() {
    let cfg = mcmq(&[]);
    let mut a = NandArray::new(&cfg);
    let p = FlashPage {
        die: 1,
        plane: 0,
        block: 0,
        page: 1,
    };
    let t = SimTime::from_us(1.0);
    let x = a.read_page_at(t, p, 8192, cfg.nand.cell, OpClass::HostRead);
    let mut b = NandArray::new(&cfg);
    assert_eq!(
        x,
        b.read_page(t, 1, 1, 8192, cfg.nand.cell, OpClass::HostRead)
    );
    assert!(a.rber_estimate(1, 0, 0).is_none() && a.error_counters().is_none());
    assert!(!a.take_media_error());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    /// Whatever the wear, retention and reads: retry steps never pass the limit, only a
    /// read that went to soft decoding can be uncorrectable, one that passes hard decoding
    /// takes no soft decode, and the same seed gives the same outcomes.
    #[test]
    fn retries_are_bounded_and_uncorrectable_only_past_soft_decoding(
        scale in 1.0f64..1e5,
        days in 0.0f64..400.0,
        pe in 0u32..20,
        reads in 1usize..300,
        seed in any::<u64>(),
        retries in 0u32..10,
    ) {
        let max = format!("nand.ecc.max_retries={retries}");
        let cfg = worn(scale, days, &[&max]);
        let blocks = 8;
        let mut e = ReadErrors::new(&cfg, seed, 2, blocks);
        let mut f = ReadErrors::new(&cfg, seed, 2, blocks);
        for k in 0..reads {
            let now = SimTime::from_us(k as f64);
            let (die, i) = ((k % 2) as u32, k % blocks);
            let o = e.read(die, i, pe, now, 8192);
            prop_assert_eq!(o, f.read(die, i, pe, now, 8192));
            prop_assert!(o.retries <= retries);
            prop_assert!(!o.uncorrectable || o.soft);
            prop_assert!(!o.soft || o.retries == retries);
        }
        let c = &e.counters;
        prop_assert_eq!(c.retry_histogram.iter().sum::<u64>(), reads as u64);
        prop_assert!(c.uncorrectable_reads <= c.soft_decodes);
        prop_assert!(c.read_retries <= reads as u64 * retries as u64);
    }
}
