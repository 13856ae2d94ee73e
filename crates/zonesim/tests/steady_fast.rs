//! `--precondition steady-fast` against `--precondition steady`: after either, the next 1x
//! capacity of uniform random 4 KiB writes gives the same WAF and write IOPS within 2 %, on
//! three small geometries and two victim policies (docs/validation.md has the table on larger
//! devices, from `scripts/steady-fast-agreement`). Small devices keep it within CI's budget;
//! the seeds are fixed, so the check is deterministic.

use crate::common;
use common::*;
use zonesim::sim::Precondition;

/// Both reports (steady, steady-fast) after the check.
fn agree(
    name: &str,
    cfg: &zonesim::config::DeviceConfig,
) -> (zonesim::stats::Report, zonesim::stats::Report) {
    let cap = zonesim::device::Device::new(cfg, 1)
        .unwrap()
        .capacity_bytes(0);
    let wl = jobs(&format!(
        "[w]\nrw=randwrite\nbs=4k\niodepth=32\nnorandommap=1\nio_size={cap}\n"
    ));
    let s = run(cfg, &wl, Precondition::Steady, 7);
    let f = run(cfg, &wl, Precondition::SteadyFast, 7);
    assert_eq!(f.precondition.mode, "steady-fast");
    assert_waf_and_iops_agree(name, &s, &f);
    (s, f)
}

#[test]
fn steady_fast_agrees_with_steady() {
    for victim in ["greedy", "cost_benefit"] {
        agree(
            &format!("many-blocks op 0.1 {victim}"),
            &many_blocks(0.1, victim, 1024),
        );
        agree(
            &format!("many-blocks op 0.25 {victim}"),
            &many_blocks(0.25, victim, 512),
        );
        let v = format!("ftl.gc.victim={victim}");
        let multi = device(
            "ufs-conventional",
            &[
                "nand.blocks_per_plane=96",
                "nand.pages_per_block=96",
                "ftl.overprovisioning=0.12",
                &v,
            ],
        );
        agree(
            &format!("ufs-conventional 4 dies, 1 MiB L2P {victim}"),
            &multi,
        );
    }
}

/// `bloom` placement: the synthesised state is one stream's (the classifier's split of uniform
/// random writes says nothing of when a page dies) with the filters warmed from the last
/// windows of the history. The next capacity of writes agrees with the simulated steady state
/// in WAF and IOPS within 2 %, and its share of writes classified hot within 2 points (the
/// filters hold what the simulated history left in them).
#[test]
fn steady_fast_agrees_with_steady_under_bloom() {
    let hot_share = |r: &zonesim::stats::Report| {
        let v = serde_json::to_value(&r.device).unwrap();
        let b = &v["gc"]["placement"]["bloom"];
        let (h, c) = (
            b["hot_writes"].as_f64().unwrap(),
            b["cold_writes"].as_f64().unwrap(),
        );
        h / (h + c)
    };
    let set = ["ftl.gc.placement=bloom"];
    let cases = [
        (
            "many-blocks op 0.1 bloom",
            many_blocks_with(0.1, "greedy", 1024, &set),
        ),
        (
            "ufs-conventional 4 dies bloom",
            device(
                "ufs-conventional",
                &[
                    "nand.blocks_per_plane=96",
                    "nand.pages_per_block=96",
                    "ftl.overprovisioning=0.12",
                    set[0],
                ],
            ),
        ),
    ];
    for (name, cfg) in cases {
        let (s, f) = agree(name, &cfg);
        let (hs, hf) = (hot_share(&s), hot_share(&f));
        eprintln!("{name}: hot share {hs:.4} vs {hf:.4}");
        assert!((hs - hf).abs() <= 0.02, "{name}: hot share {hs} vs {hf}");
    }
}

/// Kinds and configurations whose state is not synthesised say so in one line (bad input).
#[test]
fn steady_fast_refuses_what_it_does_not_synthesise() {
    let wl = jobs("[w]\nrw=randwrite\nbs=4k\nnumber_ios=10\n");
    let cases = [
        (small_zoned(&[]), 1, "only a conventional"),
        (
            device(
                "ufs-conventional",
                &["ftl.gc.placement=bloom", "ftl.gc.bloom.record_gc=true"],
            ),
            0,
            "record_gc",
        ),
    ];
    for (cfg, ns, why) in cases {
        let opts = zonesim::sim::RunOptions {
            seed: 1,
            precondition: Precondition::SteadyFast,
            namespace: ns,
            check_invariants: true,
            power_off: None,
        };
        let e = zonesim::RunSpec::new(cfg, wl.clone())
            .options(opts)
            .run()
            .expect_err("refused");
        assert_eq!(e.exit_code(), 2);
        let msg = e.to_string();
        assert!(msg.contains(why) && !msg.contains('\n'), "{msg}");
    }
}
