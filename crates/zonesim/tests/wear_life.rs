//! Flash that ages (firmware/wear, docs/wear.md): a worn device retires blocks, reclaims,
//! levels wear and goes read-only with every request completed and the invariants checked
//! throughout; an `age` step queues retention refreshes that idle time carries out; with every
//! mechanism off the report has none of the new fields; a zoned namespace remaps whole zones and
//! takes zones READ_ONLY / OFFLINE; sub-block zones refuse the keys.

use crate::common::{device, jobs, run};
use zonesim::sim::{Precondition, RunOptions, WorkloadSpec};

/// Every wear mechanism on, with a 12-cycle rating: the keys of [`worn`] and [`worn_zoned`].
const WEAR_ON: [&str; 6] = [
    "nand.endurance_pe=12",
    "nand.factory_bad_fraction=0.03",
    "ftl.read_reclaim=true",
    "ftl.read_reclaim_reads=40",
    "ftl.wear_leveling=static",
    "ftl.wear_leveling_spread=1",
];

/// A 96 MiB MLC device (48 superblocks of 2 MiB) with every wear mechanism on and `sets`.
fn worn(sets: &[&str]) -> zonesim::config::DeviceConfig {
    let mut all = vec![
        "nand.cell=mlc",
        "nand.blocks_per_plane=48",
        "nand.pages_per_block=16",
        "ftl.overprovisioning=0.2",
    ];
    all.extend_from_slice(&WEAR_ON);
    all.extend_from_slice(sets);
    device("ufs-conventional", &all)
}

fn wear(r: &zonesim::stats::Report) -> serde_json::Value {
    serde_json::to_value(&r.device.wear).unwrap()
}

#[test]
fn a_worn_device_retires_reclaims_levels_and_goes_read_only() {
    // Blocks reach 40 reads between erases only late in this device's short life: a lower
    // threshold makes reclaims run while it is still writable.
    let cfg = worn(&["ftl.read_reclaim_reads=20"]);
    let wl = jobs("[w]\nrw=randrw\nrwmixread=30\nbs=4k\niodepth=16\nnorandommap=1\nio_size=900m\n");
    let r = run(&cfg, &wl, Precondition::None, 1);
    assert_eq!(r.sim.requests_issued, r.sim.requests_completed);
    let w = wear(&r);
    let n = |k: &str| w[k].as_u64().unwrap_or_else(|| panic!("{k} in {w}"));
    assert!(n("factory_bad_blocks") > 0, "{w}");
    assert!(n("retired_blocks") > 0, "{w}");
    assert!(n("reclaim_moves") > 0 && n("read_reclaims") > 0, "{w}");
    assert!(n("wear_leveling_moves") > 0, "{w}");
    assert_eq!(
        n("retired_blocks"),
        n("erase_failures") + n("program_failures"),
        "{w}"
    );
    assert!(w["lifetime_tbw"].as_f64().unwrap() > 0.0, "{w}");
    if n("read_only_namespaces") > 0 {
        assert!(w["spare_superblocks"].as_i64().unwrap() < 0, "{w}");
        assert!(n("refused_writes") > 0, "{w}");
    }
    let again = run(&cfg, &wl, Precondition::None, 1);
    assert_eq!(r.deterministic_json(), again.deterministic_json());
}

/// A pre-worn device starts every block at its cycles: the array's erase counts (and so the
/// bit errors), the wear's; with a rating, the blocks worn out by then are bad from format and
/// counted apart; near the rating the reads of the same data need retries, fresh they do not.
#[test]
fn a_preworn_device_starts_at_its_cycles() {
    let run_at = |pe: u32| {
        let initial = format!("nand.initial_pe={pe}");
        let cfg = device(
            "ufs-conventional",
            &[
                "nand.blocks_per_plane=64",
                "nand.endurance_pe=3000",
                "nand.errors=true",
                &initial,
            ],
        );
        let wl = jobs("[r]\nrw=randread\nbs=4k\niodepth=4\nnorandommap=1\nnumber_ios=3000\n");
        run(&cfg, &wl, Precondition::Seq, 1)
    };
    let (fresh, worn) = (run_at(0), run_at(3000));
    let (wf, ww) = (wear(&fresh), wear(&worn));
    let n = |w: &serde_json::Value, k: &str| w[k].as_u64().unwrap_or_else(|| panic!("{k} in {w}"));
    assert_eq!(n(&wf, "preworn_bad_blocks"), 0, "{wf}");
    assert_eq!(n(&wf, "erase_min"), 0, "{wf}");
    // 512 blocks, 2 % worn out by the rating.
    assert!((3..=25).contains(&n(&ww, "preworn_bad_blocks")), "{ww}");
    assert_eq!(n(&ww, "retired_blocks"), 0, "{ww}");
    assert!(
        n(&ww, "erase_min") >= 3000 && n(&ww, "erase_p50") >= 3000,
        "{ww}"
    );
    let retries = |r: &zonesim::stats::Report| r.device.flash.errors.as_ref().unwrap().read_retries;
    assert_eq!(retries(&fresh), 0);
    assert!(retries(&worn) > 1000, "{}", retries(&worn));
    assert!(worn.host.read.latency_us.mean > fresh.host.read.latency_us.mean);
}

#[test]
fn every_mechanism_off_adds_no_field() {
    let cfg = device("ufs-conventional", &["nand.blocks_per_plane=64"]);
    let r = run(
        &cfg,
        &jobs("[w]\nrw=randwrite\nbs=4k\nnumber_ios=2000\n"),
        Precondition::None,
        1,
    );
    let w = wear(&r);
    for k in [
        "retired_blocks",
        "reclaim_moves",
        "lifetime_tbw",
        "erase_p50",
    ] {
        assert!(w.get(k).is_none(), "{k} in {w}");
    }
}

#[test]
fn an_age_step_queues_refreshes_that_idle_time_runs() {
    let sc = zonesim::host::scenario::Scenario::parse(
        "[[setup]]\nop = \"write\"\nfile = \"/d\"\nsize = \"16m\"\n\
         [[setup]]\nop = \"age\"\ndays = 400\n\
         [[setup]]\nop = \"idle\"\nms = 3000\n",
        "age.toml",
    )
    .unwrap();
    let cfg = device(
        "ufs-conventional",
        &[
            "nand.blocks_per_plane=64",
            "nand.pages_per_block=48",
            "ftl.read_reclaim=true",
            "fs.kind=f2fs",
        ],
    );
    let opts = RunOptions {
        seed: 1,
        precondition: Precondition::None,
        namespace: 0,
        check_invariants: true,
        ..RunOptions::default()
    };
    let r = zonesim::RunSpec::new(cfg, WorkloadSpec::Scenario(sc))
        .options(opts)
        .run()
        .unwrap();
    let w = wear(&r);
    assert_eq!(w["aged_days"].as_f64(), Some(400.0), "{w}");
    assert!(w["retention_refreshes"].as_u64().unwrap() > 0, "{w}");
    assert!(w["reclaim_moves"].as_u64().unwrap() > 0, "{w}");
}

#[test]
fn sub_block_zones_refuse_the_wear_keys() {
    for key in ["nand.endurance_pe=100", "ftl.wear_leveling=dynamic"] {
        let sets = [key.into(), "zone.sub_block=true".into()];
        let e = zonesim::config::DeviceConfig::load("conzone-paper", &sets)
            .err()
            .unwrap_or_else(|| panic!("{key} accepted"));
        assert!(e.to_string().contains("zone.sub_block"), "{e}");
    }
}

/// The small zoned test device with the zone map (ZUFS) and every wear mechanism on: the
/// worked example of docs/wear.md. Its zones' blocks see only a few erases in these runs, so
/// the rating is 2 cycles (2 % worn out by then; a Weibull scale of 7.3 cycles).
fn worn_zoned(sets: &[&str]) -> zonesim::config::DeviceConfig {
    let mut all = vec!["ftl.mapping=zone"];
    all.extend_from_slice(&WEAR_ON);
    all.push("nand.endurance_pe=2");
    all.extend_from_slice(sets);
    crate::common::small_zoned(&all)
}

/// `wl` on namespace 1 of `cfg` after `pre`, seed 1, invariants checked.
fn zoned_run(
    cfg: zonesim::config::DeviceConfig,
    wl: WorkloadSpec,
    pre: Precondition,
) -> zonesim::stats::Report {
    let opts = RunOptions {
        seed: 1,
        precondition: pre,
        namespace: 1,
        check_invariants: true,
        ..RunOptions::default()
    };
    zonesim::RunSpec::new(cfg, wl).options(opts).run().unwrap()
}

#[test]
fn a_worn_zoned_namespace_remaps_zones_and_takes_them_offline() {
    let cfg = worn_zoned(&[]);
    // Writes to the zone OFFLINE from format are refused and counted.
    let wl = jobs(
        "[w]\nrw=randrw\nrwmixread=60\nbs=16k\nzonemode=zbd\niodepth=4\nio_size=600m\n\
         continue_on_error=write\n",
    );
    let r = zoned_run(cfg.clone(), wl.clone(), Precondition::None);
    assert_eq!(r.sim.requests_issued, r.sim.requests_completed);
    let w = wear(&r);
    let n = |k: &str| w[k].as_u64().unwrap_or_else(|| panic!("{k} in {w}"));
    assert!(n("factory_bad_blocks") > 0, "{w}");
    assert!(n("reclaim_moves") > 0, "{w}");
    assert!(n("wear_leveling_moves") > 0, "{w}");
    assert!(n("program_failures") > 0, "{w}");
    // Every move of a zoned namespace is a whole zone's, at most a zone's pages each.
    let dev = zonesim::device::Device::new(&cfg, 1).unwrap();
    let zone_pages = dev.zones(1).unwrap().zone_config().zone_capacity;
    let moved = n("reclaim_moves") + n("wear_leveling_moves") + n("retire_moves");
    assert!(
        n("zone_remaps") > 0 && n("zone_remaps") * zone_pages >= moved,
        "{w}"
    );
    let ns = serde_json::to_value(&r.device.namespaces[1]).unwrap();
    let conds = &ns["zone_conditions"];
    assert!(conds["OFFLINE"].as_u64().unwrap_or(0) > 0, "{conds}");
    assert!(conds["READ_ONLY"].as_u64().unwrap_or(0) > 0, "{conds}");
    assert!(w["spare_superblocks"].as_i64().unwrap() >= 0, "{w}");
    let again = zoned_run(cfg, wl, Precondition::None);
    assert_eq!(r.deterministic_json(), again.deterministic_json());
}

/// `--precondition seq` on a zoned namespace with a zone OFFLINE from format (factory-bad
/// blocks the spares cannot cover) fills every other zone and skips that one, as fio skips
/// READ_ONLY and OFFLINE zones; before, the fill wrote into it and stopped with
/// `invalid_transition`.
#[test]
fn precondition_seq_skips_a_zone_offline_from_format() {
    let cfg = worn_zoned(&[]);
    let wl = jobs("[r]\nrw=randread\nbs=4k\nzonemode=zbd\nnumber_ios=2000\n");
    let r = zoned_run(cfg, wl, Precondition::Seq);
    let ns = serde_json::to_value(&r.device.namespaces[1]).unwrap();
    let conds = &ns["zone_conditions"];
    assert!(conds["OFFLINE"].as_u64().unwrap_or(0) > 0, "{conds}");
    assert_eq!(conds["EMPTY"].as_u64().unwrap_or(0), 0, "{conds}");
    assert!(conds["FULL"].as_u64().unwrap_or(0) > 0, "{conds}");
    assert_eq!(r.host.read.ios, 2000);
}

/// A host read that meets a whole-zone remap waits for the copy step in progress on its die,
/// not for the whole zone's copy (ZUFS §4.1 serves reads during the migration). The small
/// zoned device has 4 dies, 96 KiB program units of 6 TLC pages and 6 MiB zones: a copy is 16
/// steps of one superpage. Four zones are written, then 20,000 reads on the first 64 KiB of
/// zone 0 pass the read-disturb threshold again and again, so the zone moves whole many
/// times. The slowest read waits for at most one step and one erase (the victim's blocks,
/// erased after the copy, share the dies); before the copy was booked in steps it waited
/// for the whole copy, 19 ms.
#[test]
fn a_read_during_a_zone_remap_waits_for_one_step_not_the_copy() {
    let cfg = crate::common::small_zoned(&[
        "ftl.mapping=zone",
        "ftl.read_reclaim=true",
        "ftl.read_reclaim_reads=300",
    ]);
    let t = &cfg.nand.timing.tlc;
    let (step_us, erase_us) = (6.0 * t.read_us + t.program_us, t.erase_us);
    let wl = jobs(
        "[w]\nrw=write\nbs=128k\nzonemode=zbd\nsize=32m\n\
         [r]\nstonewall\nrw=randread\nbs=4k\nnorandommap=1\nsize=64k\nio_size=80000k\n",
    );
    let r = zoned_run(cfg, wl, Precondition::None);
    let w = wear(&r);
    let n = |k: &str| w[k].as_u64().unwrap_or_else(|| panic!("{k} in {w}"));
    assert!(n("zone_remaps") >= 10, "{w}");
    assert_eq!(r.host.read.ios, 20_000);
    let lat = serde_json::to_value(&r.host.read.latency_us).unwrap();
    let (min, max) = (lat["min"].as_f64().unwrap(), lat["max"].as_f64().unwrap());
    assert!(
        max <= min + erase_us + step_us,
        "max {max} us: more than a read ({min} us), an erase ({erase_us} us) and a step ({step_us} us)"
    );
}
