//! A config mixing the ZUFS / ZMS keys with the ConZone+ features (`conzone-paper`: hybrid-mapped
//! zoned FTL, SLC secondary buffer, sub-block zones, zone-granular SLC, a conventional SLC
//! namespace beside the zoned one) is either valid and simulated, or rejected with one error naming
//! both conflicting keys. The table is docs/zoned.md's "Mixing features".

use crate::common;

use zonesim::sim::{Precondition, RunOptions};

/// What a combination must do.
enum Expect {
    /// Valid: a write + read workload runs on namespace 0 (conventional) and 1 (zoned) with
    /// invariants checked after every command.
    Runs,
    /// Rejected: the one-line error names every key listed.
    Rejected(&'static [&'static str]),
}
use Expect::{Rejected, Runs};

const TABLE: &[(&[&str], Expect)] = &[
    // ZABM slot buffers on ConZone's zoned FTL.
    (&["buffer.kind=zabm"], Runs),
    (&["buffer.kind=zabm", "buffer.flush_unit=superpage"], Runs),
    (&["buffer.kind=zabm", "buffer.zone_mapping=modulo"], Runs),
    (&["buffer.kind=zabm", "slc.granularity=zone"], Runs),
    (&["buffer.kind=zabm", "ftl.mapping=page"], Runs),
    (
        &["buffer.kind=zabm", "zone.sub_block=true"],
        Rejected(&["buffer.kind", "zone.sub_block"]),
    ),
    (
        &["buffer.kind=zabm", "buffer.min_slots_per_zone=1000"],
        Rejected(&[
            "buffer.min_slots_per_zone",
            "zone.max_open",
            "buffer.sram_bytes",
        ]),
    ),
    (
        &["buffer.kind=zabm", "buffer.sram_bytes=4096"],
        Rejected(&["buffer.sram_bytes", "program unit"]),
    ),
    // ZABM keys are inert with static buffers (so a zabm preset can switch back).
    (
        &[
            "buffer.flush_unit=superpage",
            "buffer.sram_bytes=1048576",
            "buffer.min_slots_per_zone=4",
        ],
        Runs,
    ),
    // The zone map (ZMT + ZML) instead of the hybrid map.
    (&["ftl.mapping=zone"], Runs),
    (&["ftl.mapping=zone", "ftl.zml_entries=16"], Runs),
    (&["ftl.mapping=zone", "zone.sub_block=true"], Runs),
    (&["ftl.mapping=zone", "slc.granularity=zone"], Runs),
    (
        &[
            "ftl.mapping=zone",
            "buffer.kind=zabm",
            "buffer.flush_unit=die",
        ],
        Runs,
    ),
    (
        &["ftl.mapping=zone", "ftl.l2p_search=bitmap"],
        Rejected(&["ftl.l2p_search", "ftl.mapping"]),
    ),
    (&["ftl.zml_entries=0"], Rejected(&["ftl.zml_entries"])),
    // The CUFS two-level map needs a device without zoned namespaces.
    (
        &["ftl.mapping=two_level"],
        Rejected(&["ftl.mapping", "namespaces[1].kind"]),
    ),
    (
        &["ftl.compressed_l1=true"],
        Rejected(&["ftl.compressed_l1", "ftl.mapping"]),
    ),
    (&["ftl.compressed_region_bytes=1048576"], Runs),
    (
        &["ftl.compressed_region_bytes=1000"],
        Rejected(&["ftl.compressed_region_bytes"]),
    ),
    // Budget-based in-place update (ZMS).
    (&["zone.ipu_budget_bytes=1048576"], Runs),
    (&["zone.ipu_budget_bytes=1048576", "ftl.mapping=zone"], Runs),
    (&["zone.ipu_budget_bytes=1048576", "buffer.kind=zabm"], Runs),
    (
        &["zone.ipu_budget_bytes=1048576", "zone.sub_block=true"],
        Runs,
    ),
    (
        &["zone.ipu_budget_bytes=1048576", "slc.granularity=zone"],
        Rejected(&["zone.ipu_budget_bytes", "slc.granularity"]),
    ),
    (
        &["zone.ipu_budget_bytes=1000"],
        Rejected(&["zone.ipu_budget_bytes"]),
    ),
    // Host write ordering.
    (
        &["host.zone_write_lock=false", "host.requeue_probability=0.1"],
        Runs,
    ),
    (
        &["host.requeue_probability=0.1", "zone.sub_block=true"],
        Runs,
    ),
    (
        &[
            "host.requeue_probability=0.1",
            "buffer.kind=zabm",
            "ftl.mapping=zone",
        ],
        Runs,
    ),
    (
        &["host.requeue_probability=1.5"],
        Rejected(&["host.requeue_probability"]),
    ),
    (
        &["host.requeue_delay_us=-1"],
        Rejected(&["host.requeue_delay_us"]),
    ),
];

/// Writes then random reads on the conventional namespace 0 and the zoned namespace 1.
const CONV: &str = "[w]\nrw=randwrite\nbs=4k\niodepth=4\nsize=4m\nnumber_ios=1500\n[r]\nstonewall\nrw=randread\nbs=4k\nsize=4m\nnumber_ios=500\n";
// continue_on_error: with requeueing and no zone write lock, writes overtake each other and the
// device rejects them; this test asks that every mix runs, so they are counted.
const ZONED: &str = "[w]\nzonemode=zbd\nrw=write\nbs=64k\niodepth=8\nsize=2z\ncontinue_on_error=write\n[r]\nstonewall\nzonemode=zbd\nrw=randread\nbs=4k\nsize=2z\nnumber_ios=500\n";

fn runs(sets: &[&str]) {
    let cfg = common::small_zoned(sets);
    for (ns, text) in [(0, CONV), (1, ZONED)] {
        let opts = RunOptions {
            seed: 5,
            precondition: Precondition::None,
            namespace: ns,
            check_invariants: true,
            power_off: None,
        };
        let r = zonesim::RunSpec::new(cfg.clone(), common::jobs(text))
            .options(opts.clone())
            .run()
            .unwrap_or_else(|e| panic!("{sets:?} ns {ns}: {e}"));
        assert_eq!(r.sim.requests_issued, r.sim.requests_completed, "{sets:?}");
        assert!(
            r.host.read.ios > 0 && r.host.write.ios > 0,
            "{sets:?} ns {ns}"
        );
    }
}

#[test]
fn every_combination_runs_or_names_its_keys() {
    for (sets, expect) in TABLE {
        let owned: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        // The validation of the full preset, then a run on the small device built from it.
        let loaded = zonesim::load_device("conzone-paper", &owned);
        match expect {
            Runs => {
                loaded.unwrap_or_else(|e| panic!("{sets:?} should be valid: {e}"));
                runs(sets);
            }
            Rejected(keys) => {
                let msg = loaded
                    .map(|_| ())
                    .expect_err("should be rejected")
                    .to_string();
                assert!(!msg.contains('\n'), "one line: {msg}");
                for k in *keys {
                    assert!(msg.contains(k), "{sets:?}: '{msg}' does not name {k}");
                }
            }
        }
    }
}
