//! The simulator against theory: GC write amplification under uniform random overwrites
//! (analytic FIFO model) and sequential bandwidth bounds from die, channel and link speeds.

use crate::common;
use common::*;
use zonesim::sim::Precondition;

/// Valid fraction of the FIFO victim under uniform random writes: X = exp(-(1+op)(1-X)).
fn fifo_valid_fraction(op: f64) -> f64 {
    let mut x: f64 = 0.5;
    for _ in 0..200 {
        x = (-(1.0 + op) * (1.0 - x)).exp();
    }
    x
}

/// Steady-state WAF of uniform random 4 KiB overwrites on a many-block device.
fn measured_waf(op: f64, victim: &str) -> f64 {
    let cfg = many_blocks(op, victim, 1024);
    let cap = zonesim::device::Device::new(&cfg, 1)
        .unwrap()
        .capacity_bytes(0);
    let wl = jobs(&format!(
        "[w]\nrw=randwrite\nbs=4k\niodepth=16\nnorandommap=1\nio_size={}\n",
        2 * cap
    ));
    let r = run(&cfg, &wl, Precondition::Steady, 3);
    assert!(r.device.gc.victims > 100);
    assert_eq!(r.device.l2p.map_programs, 0);
    r.device.waf
}

#[test]
fn fifo_waf_matches_the_analytic_model() {
    for op in [0.1, 0.25] {
        let x = fifo_valid_fraction(op);
        let theory = 1.0 / (1.0 - x);
        let ours = measured_waf(op, "fifo");
        let err = (ours / theory - 1.0).abs();
        eprintln!(
            "op {op}: FIFO WAF theory {theory:.3}, zonesim {ours:.3} ({:.1}%)",
            err * 100.0
        );
        assert!(err < 0.05, "op {op}: WAF {ours:.3} vs theory {theory:.3}");
    }
}

#[test]
fn greedy_is_at_or_below_fifo() {
    for op in [0.1, 0.25] {
        let fifo = measured_waf(op, "fifo");
        let greedy = measured_waf(op, "greedy");
        eprintln!("op {op}: greedy {greedy:.3} fifo {fifo:.3}");
        assert!(
            greedy <= fifo * 1.005,
            "op {op}: greedy {greedy} > fifo {fifo}"
        );
    }
}

/// The bound of sequential writes: each die programs one unit per (transfer + tPROG), the
/// channels and the link cap the rest.
#[test]
fn sequential_write_bandwidth_matches_the_die_bound() {
    let cfg = device("ufs-conventional", &[]);
    let mib = 1048576.0;
    let unit = 3.0 * 2.0 * 16384.0; // TLC 3 pages x 2 planes x 16 KiB
    let xfer_s = unit / (cfg.nand.channel_mb_s * mib);
    let per_die = unit / (xfer_s + cfg.nand.timing.tlc.program_us * 1e-6) / mib;
    let dies = 4.0;
    let bound = (per_die * dies)
        .min(cfg.nand.channel_mb_s * 2.0)
        .min(cfg.host.link_mb_s);
    let wl = jobs("[w]\nrw=write\nbs=512k\niodepth=8\nsize=2g\n");
    let r = run(&cfg, &wl, Precondition::None, 1);
    let bw = r.host.write.bandwidth_mib_s;
    eprintln!("seq write: bound {bound:.1} MiB/s, zonesim {bw:.1}");
    assert!((bw / bound - 1.0).abs() < 0.05, "{bw} vs {bound}");
}

/// Sequential reads: each die senses a page and moves it out (tR + transfer) per page.
#[test]
fn sequential_read_bandwidth_matches_the_die_bound() {
    let cfg = device("ufs-conventional", &["nand.blocks_per_plane=96"]);
    let mib = 1048576.0;
    let page = 16384.0;
    let per_die =
        page / (cfg.nand.timing.tlc.read_us * 1e-6 + page / (cfg.nand.channel_mb_s * mib)) / mib;
    let bound = (per_die * 4.0)
        .min(cfg.nand.channel_mb_s * 2.0)
        .min(cfg.host.link_mb_s);
    let wl = jobs("[r]\nrw=read\nbs=512k\niodepth=8\nsize=2g\n");
    let r = run(&cfg, &wl, Precondition::Seq, 1);
    let bw = r.host.read.bandwidth_mib_s;
    eprintln!("seq read: bound {bound:.1} MiB/s, zonesim {bw:.1}");
    assert!((bw / bound - 1.0).abs() < 0.05, "{bw} vs {bound}");
}

/// Link-bound case: a very fast array behind a slow link runs at the link's speed.
#[test]
fn sequential_read_is_link_bound_behind_a_slow_link() {
    let cfg = device(
        "ufs-conventional",
        &["nand.blocks_per_plane=96", "host.link_mb_s=500"],
    );
    let wl = jobs("[r]\nrw=read\nbs=512k\niodepth=8\nsize=1g\n");
    let r = run(&cfg, &wl, Precondition::Seq, 1);
    let bw = r.host.read.bandwidth_mib_s;
    assert!((bw / 500.0 - 1.0).abs() < 0.05, "{bw} vs 500");
}
