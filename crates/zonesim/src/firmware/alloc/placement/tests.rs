//! Each policy on small hand-made sequences: the stream every host page and GC survivor gets.

use super::*;
use crate::config::BloomConfig;

fn gc_cfg(p: &str, extra: &[&str]) -> GcConfig {
    let mut sets = vec![format!("ftl.gc.placement={p}")];
    sets.extend(extra.iter().map(|s| s.to_string()));
    crate::load_device("ufs-conventional", &sets)
        .expect("valid")
        .ftl
        .gc
}

#[test]
fn single_sends_everything_to_stream_0() {
    let mut p = Placement::new(&gc_cfg("single", &[]), 1000, 1);
    assert_eq!(p.streams(), 1);
    for l in 0..10 {
        assert_eq!(p.host(Lpa(l), (l % 5) as u8), 0);
        assert_eq!(p.gc(Lpa(l), 0), 0);
    }
}

#[test]
fn sup_host_hot_survivors_cold() {
    let mut p = Placement::new(&gc_cfg("sup", &[]), 1000, 1);
    assert_eq!(p.streams(), 2);
    assert_eq!(p.host(Lpa(3), 4), 0);
    // Survivors go cold whichever stream wrote their victim (Algorithm 2).
    assert_eq!(p.gc(Lpa(3), 0), 1);
    assert_eq!(p.gc(Lpa(3), 1), 1);
}

#[test]
fn age_k_counts_survivals_up_to_k_minus_1() {
    let mut p = Placement::new(&gc_cfg("age_k", &["ftl.gc.streams=3"]), 1000, 1);
    assert_eq!(p.streams(), 3);
    assert_eq!(p.host(Lpa(1), 0), 0);
    let once = p.gc(Lpa(1), 0);
    let twice = p.gc(Lpa(1), once);
    let thrice = p.gc(Lpa(1), twice);
    assert_eq!((once, twice, thrice), (1, 2, 2));
}

#[test]
fn hint_follows_the_host_and_gc_keeps_the_class() {
    let mut p = Placement::new(&gc_cfg("hint", &[]), 1000, 1);
    assert_eq!(p.streams(), HINT_STREAMS);
    let got: Vec<usize> = (0..7u8).map(|h| p.host(Lpa(0), h)).collect();
    assert_eq!(got, vec![0, 1, 2, 3, 4, 4, 4]);
    assert_eq!(p.gc(Lpa(0), 3), 3);
}

#[test]
fn bloom_hot_when_rewritten_cold_once_forgotten() {
    let cfg = BloomConfig {
        filters: 4,
        window_pages: 8,
        fp_rate: 0.001,
        hot_threshold: 2,
        record_gc: false,
    };
    let mut b = MultiBloom::new(&cfg, 1 << 20, 7);
    // First write: cold. Second write soon after: hot.
    assert_eq!(b.host(Lpa(42), 0), 1);
    assert_eq!(b.host(Lpa(42), 0), 0);
    assert_eq!(b.gc(Lpa(42), 1), 0, "a survivor is tested like a write");
    assert_eq!(b.gc(Lpa(9999), 0), 1);
    // 4 windows of other pages decay every filter: 42 is forgotten.
    for l in 1000..1000 + 4 * 8 {
        b.host(Lpa(l), 0);
    }
    assert_eq!(b.gc(Lpa(42), 0), 1);
    assert_eq!(b.host(Lpa(42), 0), 1);
    assert_eq!(b.filters(), 4);
    assert!(b.sram_bytes() > 0);
    assert!(b.hash_ops > 0);
    assert!(b.decays >= 4);
}

#[test]
fn placement_report_names_policy_and_bloom_resources() {
    let p = Placement::new(&gc_cfg("bloom", &[]), 1 << 16, 1);
    assert_eq!(p.policy().name(), "bloom");
    assert_eq!(p.streams(), 2);
    let Placement::Bloom(b) = &p else {
        panic!("bloom placement")
    };
    assert_eq!(b.window_pages(), (1u64 << 16) / 8);
}

/// Loading the default device with `sets` fails with a message naming `key`.
fn rejects(sets: &[&str], key: &str) {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let e = crate::load_device("ufs-conventional", &sets)
        .unwrap_err()
        .to_string();
    assert!(e.contains(key), "{e}");
}

#[test]
fn stream_counts_validate_spare_superblocks() {
    assert_eq!(stream_count(&gc_cfg("age_k", &["ftl.gc.streams=6"])), 6);
    rejects(&["ftl.gc.streams=9"], "ftl.gc.streams");
    rejects(
        &["ftl.gc.placement=hint", "ftl.overprovisioning=0.01"],
        "5 open streams of placement hint",
    );
    rejects(&["ftl.gc.placement=lru"], "ftl.gc.placement");
    rejects(&["ftl.cost.bloom_write_ns=-1"], "ftl.cost.bloom_write_ns");
    rejects(&["ftl.cost.bogus=1"], "ftl.cost.bogus");
    rejects(
        &["ftl.gc.bloom.hot_threshold=9"],
        "ftl.gc.bloom.hot_threshold",
    );
    rejects(&["ftl.gc.suspend_us=-3"], "ftl.gc.suspend_us");
}

#[test]
fn gcar_keeps_gc_pages_in_its_buffer_share() {
    let cfg = crate::load_device(
        "ufs-conventional",
        &[
            "ftl.gc.placement=gcar".into(),
            "ftl.gc.gcar.cache_fraction=0.5".into(),
        ],
    )
    .unwrap();
    // A buffer of 8 pages: the GC share holds 4.
    let mut p = Placement::with_buffer(&cfg.ftl.gc, 1000, 8, 1);
    assert_eq!(p.streams(), 1);
    assert_eq!(p.policy().name(), "gcar");
    assert!(!p.read_hit(Lpa(3)), "nothing kept yet");
    for l in 0..4 {
        assert_eq!(p.gc(Lpa(l), 0), 0, "one stream");
    }
    assert!(p.read_hit(Lpa(3)));
    // A fifth GC page replaces the oldest kept one.
    p.gc(Lpa(10), 0);
    assert!(!p.read_hit(Lpa(0)));
    assert!(p.read_hit(Lpa(10)));
    // A host overwrite supersedes the kept copy.
    assert_eq!(p.host(Lpa(10), 0), 0);
    assert!(!p.read_hit(Lpa(10)));
    let Placement::Gcar(g) = &p else {
        panic!("gcar placement")
    };
    assert_eq!(g.capacity(), 4);
    assert_eq!(g.kept, 5);
    assert_eq!(g.read_hits, 2);
}

#[test]
fn gcar_costs_traversal_on_the_controller_cpu() {
    use crate::firmware::cost::Costs;
    let cfg = crate::load_device("ufs-conventional", &["ftl.gc.placement=gcar".into()]).unwrap();
    let c = Costs::new(&cfg.ftl.cost, cfg.ftl.gc.placement);
    assert!(c.write_ns > 0 && c.gc_page_ns > 0, "{c:?}");
    let s = crate::load_device("ufs-conventional", &[]).unwrap();
    let c = Costs::new(&s.ftl.cost, s.ftl.gc.placement);
    assert_eq!((c.write_ns, c.gc_page_ns), (0, 0), "single costs nothing");
}

#[test]
fn bloom_probe_cost_rises_monotonically_with_fill() {
    let k = 7;
    let mut last = bloom::probe_hashes(0.0, k);
    assert_eq!(
        last, 1.0,
        "an empty filter: the first hash meets a clear bit"
    );
    for i in 1..=100 {
        let h = bloom::probe_hashes(i as f64 / 100.0, k);
        assert!(h >= last, "fill {i}%: {h} < {last}");
        last = h;
    }
    assert_eq!(last, k as f64, "a full filter: every hash is evaluated");
}

#[test]
fn bloom_gc_recording_saturates_the_filters_and_raises_the_cost() {
    // A window of 1000 host writes; GC relocations recorded (record_gc) fill the filters
    // beyond what they are sized for: fill, false-positive rate and the expected hashes per
    // classification rise with every relocation, and the window does not advance.
    let cfg = gc_cfg(
        "bloom",
        &[
            "ftl.gc.bloom.window_pages=1000",
            "ftl.gc.bloom.record_gc=true",
        ],
    );
    let mut p = Placement::new(&cfg, 100_000, 1);
    for l in 0..500 {
        p.host(Lpa(l), 0);
    }
    let Placement::Bloom(b) = &p else {
        unreachable!()
    };
    let (fill0, fp0) = b.saturation();
    let mut cost = b.expected_hashes(false);
    let decays = b.decays;
    for round in 0..8u32 {
        for l in 0..1000 {
            p.gc(Lpa(10_000 + round * 1000 + l), 0);
        }
        let Placement::Bloom(b) = &p else {
            unreachable!()
        };
        let c = b.expected_hashes(false);
        assert!(c > cost, "round {round}: {c} <= {cost}");
        cost = c;
    }
    let Placement::Bloom(b) = &p else {
        unreachable!()
    };
    let (fill, fp) = b.saturation();
    assert!(
        fill > fill0 && fp > 10.0 * fp0,
        "fill {fill0} -> {fill}, fp {fp0} -> {fp}"
    );
    assert_eq!(b.decays, decays, "GC relocations do not advance the window");
    assert_eq!(b.gc_inserts, 8000);
    // Without record_gc, GC only probes: nothing fills.
    let mut q = Placement::new(
        &gc_cfg("bloom", &["ftl.gc.bloom.window_pages=1000"]),
        100_000,
        1,
    );
    for l in 0..2000 {
        q.gc(Lpa(l), 0);
    }
    let Placement::Bloom(b) = &q else {
        unreachable!()
    };
    assert_eq!((b.gc_inserts, b.saturation().0), (0, 0.0));
}
