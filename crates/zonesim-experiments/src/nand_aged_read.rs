//! `nand-aged-read`: 4 KiB random reads on a conventional UFS device (`ufs-conventional`,
//! TLC) that is fresh, a third through its rated life and at its rating: every block starts at
//! 0, 1,000 or 3,000 P/E cycles (`nand.initial_pe`) on a device rated for 3,000
//! (`nand.endurance_pe`), with bit errors, ECC and read retry (`nand.errors`, docs/nand.md) and
//! read reclaim (`ftl.read_reclaim`, docs/wear.md) on.
//!
//! What it shows is the seed results on an aged device rather than a published number: ZUFS
//! §4.1 relocates data on read reclaim (its cost is in the reads that meet it), and MCMQ
//! Table I's read latencies are those of a chip whose reads decode at once; as a block nears
//! its rating its raw bit errors approach what hard decoding corrects (Cai et al., Proc. IEEE
//! 2017, §II-C, §V-B), so reads take retry steps, each a re-sense plus a transfer, and the read
//! latency grows. Rows: read latency mean and p99, retry steps per read, the share of reads
//! that went to soft decoding, reclaim moves; the two directions (retries and mean latency
//! rise from 0 to 3,000 P/E cycles) are the registry's rows.
//!
//! The "zoned" rows (`nand_aged_read_zoned`) repeat the reads on the zoned LU of Zoned UFS,
//! where read reclaim moves a whole zone (ZUFS §4.1).

use super::conzone_common::run;
use super::{row_dir, row_info, ExpOptions, Outcome, Row, Scale};
use zonesim::config::DeviceConfig;
use zonesim::error::Result;
use zonesim::sim::Precondition;
use zonesim::stats::Report;

const SRC_ZUFS: &str =
    "ZUFS §4.1 (read reclaim and wear levelling relocate data; reads meet the relocation)";
const SRC_MCMQ: &str = "MCMQ §IV-B, Table I (read latencies of a chip whose reads decode at once)";
const SRC_CAI: &str = "Cai et al., Proc. IEEE 105(9), 2017, §II-C (a block's life ends where its raw bit errors exceed the ECC) and §V-B (read-retry)";

/// The device's rating and the pre-wear points, P/E cycles (with their labels); the zoned rows
/// use the same.
pub(super) const RATING: u32 = 3000;
pub(super) const AGES: [(u32, &str); 3] = [(0, "0"), (1000, "1,000"), (3000, "3,000")];

/// The keys of an aged device: rated for [`RATING`] cycles, every block at `pe` cycles, bit
/// errors with read retry and read reclaim on.
pub(super) fn aged_sets(pe: u32) -> Vec<String> {
    vec![
        format!("nand.endurance_pe={RATING}"),
        format!("nand.initial_pe={pe}"),
        "nand.errors=true".into(),
        "ftl.read_reclaim=true".into(),
    ]
}

/// `ufs-conventional` rated for [`RATING`] cycles, every block at `pe` cycles, errors and
/// reclaim on; `quick`: 64 blocks per plane (3 GiB) instead of the preset's 368 (16 GiB).
fn device(pe: u32, quick: bool) -> Result<DeviceConfig> {
    let mut sets = aged_sets(pe);
    if quick {
        sets.push("nand.blocks_per_plane=64".into());
    }
    zonesim::load_device("ufs-conventional", &sets)
}

/// What the reads of one age met (the zoned rows' points too).
pub(super) struct Point {
    pub(super) label: &'static str,
    pub(super) report: Report,
}

impl Point {
    pub(super) fn lat(&self) -> (f64, f64) {
        let l = &self.report.host.read.latency_us;
        (l.mean, l.p99)
    }
    /// Retry steps per checked read, share of checked reads soft-decoded (%).
    pub(super) fn retries(&self) -> (f64, f64) {
        let e = self.report.device.flash.errors.as_ref();
        e.map_or((0.0, 0.0), |e| {
            let soft = e.soft_decodes as f64 * 100.0 / e.checked_reads.max(1) as f64;
            (e.retries_per_read, soft)
        })
    }
    pub(super) fn wear(&self, f: impl Fn(&zonesim::stats::device::WearLife) -> u64) -> u64 {
        self.report.device.wear.life.as_ref().map_or(0, f)
    }
}

/// `ios` 4 KiB random reads at queue depth 1 over the whole namespace, after a sequential fill.
fn point((pe, label): (u32, &'static str), ios: u64, o: &ExpOptions) -> Result<Point> {
    let job = format!("[r]\nrw=randread\nbs=4k\niodepth=1\nnorandommap=1\nnumber_ios={ios}\n");
    let report = run(&device(pe, o.quick())?, &job, Precondition::Seq, 0, o.seed)?;
    Ok(Point { label, report })
}

/// The hot range: the first [`HOT_MIB`] MiB of the namespace, read [`HOT_READS`] times.
const HOT_MIB: u64 = 1;
/// 4 GiB of 4 KiB reads: the range's pages sit in one block per plane of the first superblock
/// (8 planes), so each block meets about 131,000 reads, past read reclaim's default threshold
/// of 100,000 (the same at every scale: the threshold is per block, not per capacity).
const HOT_READS: u64 = 1 << 20;

/// [`HOT_READS`] 4 KiB random reads at queue depth 1 on the first [`HOT_MIB`] MiB, after a
/// sequential fill: read disturb drives read reclaim, and one read waits for the relocation.
fn hot_point((pe, label): (u32, &'static str), o: &ExpOptions) -> Result<Point> {
    let job = format!(
        "[r]\nrw=randread\nbs=4k\niodepth=1\nnorandommap=1\nsize={HOT_MIB}m\nio_size={}k\n",
        HOT_READS * 4
    );
    let report = run(&device(pe, o.quick())?, &job, Precondition::Seq, 0, o.seed)?;
    Ok(Point { label, report })
}

pub fn run_exp(o: &ExpOptions) -> Result<Outcome> {
    let ios: u64 = match o.scale {
        Scale::Quick => 5_000,
        Scale::Full => 50_000,
        Scale::Paper => 200_000,
    };
    let points = AGES
        .iter()
        .map(|&age| point(age, ios, o))
        .collect::<Result<Vec<_>>>()?;
    let mut rows: Vec<Row> = Vec::new();
    for p in &points {
        let case = format!("{} P/E cycles", p.label);
        let (mean, p99) = p.lat();
        let (retries, soft) = p.retries();
        rows.push(row_info(&case, "read latency mean us", mean).src(SRC_MCMQ));
        rows.push(row_info(&case, "read latency p99 us", p99).src(SRC_MCMQ));
        rows.push(row_info(&case, "retry steps per read", retries).src(SRC_CAI));
        rows.push(row_info(&case, "soft-decoded reads %", soft).src(SRC_CAI));
        rows.push(row_info(
            &case,
            "blocks worn out before format",
            p.wear(|w| w.preworn_bad_blocks) as f64,
        ));
        rows.push(
            row_info(
                &case,
                "pages moved by read reclaim",
                p.wear(|w| w.reclaim_moves) as f64,
            )
            .src(SRC_ZUFS),
        );
    }
    for age in [AGES[0], AGES[AGES.len() - 1]] {
        let p = hot_point(age, o)?;
        let case = format!("{} P/E cycles, reads on {HOT_MIB} MiB", p.label);
        let l = &p.report.host.read.latency_us;
        rows.push(row_info(&case, "read latency mean us", l.mean).src(SRC_ZUFS));
        rows.push(row_info(&case, "read latency p99 us", l.p99).src(SRC_ZUFS));
        rows.push(row_info(&case, "read latency max us", l.max).src(SRC_ZUFS));
        rows.push(row_info(&case, "retry steps per read", p.retries().0).src(SRC_CAI));
        rows.push(
            row_info(&case, "read reclaims", p.wear(|w| w.read_reclaims) as f64).src(SRC_ZUFS),
        );
        rows.push(
            row_info(
                &case,
                "pages moved by read reclaim",
                p.wear(|w| w.reclaim_moves) as f64,
            )
            .src(SRC_ZUFS),
        );
    }
    let (fresh, worn) = (&points[0], &points[AGES.len() - 1]);
    rows.push(
        row_dir(
            "3,000 vs 0 P/E cycles",
            "retry steps per read, difference",
            worn.retries().0 - fresh.retries().0,
            true,
        )
        .id("zufs.s4-1.aged-read-retries")
        .src(&format!("{SRC_ZUFS}; {SRC_CAI}")),
    );
    rows.push(
        row_dir(
            "3,000 vs 0 P/E cycles",
            "read latency mean, difference us",
            worn.lat().0 - fresh.lat().0,
            true,
        )
        .id("mcmq.table1.aged-read-latency")
        .src(&format!("{SRC_MCMQ}; {SRC_CAI}")),
    );
    let (zoned_rows, zoned_note) = super::nand_aged_read_zoned::rows(ios, o)?;
    rows.extend(zoned_rows);
    let dev = if o.quick() {
        "ufs-conventional with 64 blocks per plane (3 GiB of TLC)"
    } else {
        "ufs-conventional (16 GiB of TLC)"
    };
    Ok(Outcome {
        name: "nand-aged-read".into(),
        title: "Random reads on an aged device: 0 / 1,000 / 3,000 P/E cycles, read retry and reclaim on".into(),
        source: "ZUFS §4.1 (read reclaim), MCMQ Table I (read latencies); Cai et al. Proc. IEEE 2017 (bit errors with wear)".into(),
        rows,
        notes: vec![
            format!("Device: {dev}, rated for 3,000 P/E cycles (2 % of blocks worn out at the rating), nand.errors and ftl.read_reclaim on with their defaults; every block starts at the row's P/E cycles (nand.initial_pe), so the blocks whose wear-out fell within them are bad from format. Filled sequentially (precondition seq), then {ios} reads of 4 KiB at uniform offsets over the whole namespace at queue depth 1 (seed {})." , o.seed),
            "The rating puts a block's wear errors at the ECC's hard-decision limit (docs/nand.md): at 1,000 cycles reads decode at once, at 3,000 most need the retry steps and a soft decode. Retries per read count every checked flash read (host reads and any reclaim copies). Neither seed paper gives a number on an aged device: the checked rows are directions.".into(),
            "Read reclaim is on but the reads spread over the whole namespace leave every block far below its threshold (ftl.read_reclaim_reads, 100,000 reads since the block's erase), so they reclaim nothing: their latency difference is the retries' and soft decodes'.".into(),
            format!("The \"reads on {HOT_MIB} MiB\" rows read only the first {HOT_MIB} MiB, {HOT_READS} times (one block per plane of the first superblock, about 131,000 reads each): read disturb passes the threshold and the firmware relocates the superblock; the read that meets the relocation waits for it (the max latency), the others are the retries' and soft decodes' as above. On the conventional device the superblock moves; a zoned namespace moves the whole zone (docs/wear.md), the \"zoned\" rows below."),
            zoned_note,
        ],
    })
}
