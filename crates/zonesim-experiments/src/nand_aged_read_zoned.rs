//! The zoned half of `nand-aged-read`: the same aged reads on the zoned LU of Zoned UFS
//! (`zufs-2026`, namespace 1, zones of one 1,056 MiB superblock, ZMT + ZML, ZUFS §4.1), rated
//! for 3,000 P/E cycles, every block at 0, 1,000 or 3,000 cycles, bit errors with read retry
//! (`nand.errors`, docs/nand.md) and read reclaim (`ftl.read_reclaim`, docs/wear.md) on.
//!
//! The zones are written full first (sequential zone writes, fio `zonemode=zbd`), then read
//! with 4 KiB random reads over the written zones. The hot-range case reads only the first
//! MiB of zone 0: read disturb passes the reclaim threshold on the zone's blocks and the
//! firmware moves the whole zone the ZUFS way (§4.1: the ZML records the destination, reads
//! are served from the victim while the copy runs, the ZMT takes the destination when it
//! completes); the read that meets the move waits behind the copy on its die.

use super::conzone_common::run;
use super::nand_aged_read::{aged_sets, Point, AGES};
use super::zufs_common::{zufs, ZUFS_NS};
use super::{row_dir, row_info, ExpOptions, Row};
use zonesim::error::Result;
use zonesim::sim::Precondition;
use zonesim::stats::Report;

const SRC_ZUFS: &str = "ZUFS §4.1 (read reclaim migrates a victim zone whole: the ZML records the destination, reads are served from the victim, the ZMT is updated at the end)";
const SRC_CAI: &str =
    "Cai et al., Proc. IEEE 105(9), 2017, §II-C (wear raises raw bit errors), §V-B (read-retry)";

/// The hot range: the first MiB of zone 0.
const HOT_MIB: u64 = 1;
/// 8 GiB of 4 KiB reads: the MiB's 64 flash pages sit in one block of each of the zone's 16
/// planes (4 dies x 4 planes), so each block meets about 131,000 reads, past read reclaim's
/// default threshold of 100,000 reads since the block's erase (twice the conventional half's
/// reads, whose superblock spans 8 planes).
const HOT_READS: u64 = 1 << 21;

/// Zones written before the reads: 8 of the preset's 12 (the rest leave the pool the spans a
/// remap needs; at 3,000 cycles the blocks worn out before format take the highest zone
/// OFFLINE), 64 of the paper device's 462.
fn zones_written(o: &ExpOptions) -> u64 {
    if o.paper() {
        64
    } else {
        8
    }
}

/// What the zoned rows read off a [`Point`] besides its latency and retries.
trait Zoned {
    fn max_us(&self) -> f64;
    /// Pages moved by read reclaim (4 KiB).
    fn moved(&self) -> u64;
    /// Whole zones moved (`device.wear.zone_remaps`).
    fn remaps(&self) -> f64;
    /// Host commands completed with a media error (a refused read stops the run instead).
    fn failed_reads(&self) -> u64;
}

impl Zoned for Point {
    fn max_us(&self) -> f64 {
        self.report.host.read.latency_us.max
    }
    fn moved(&self) -> u64 {
        self.wear(|w| w.reclaim_moves)
    }
    fn remaps(&self) -> f64 {
        self.wear(|w| w.zone_remaps) as f64
    }
    fn failed_reads(&self) -> u64 {
        let e = self.report.device.flash.errors.as_ref();
        e.map_or(0, |e| e.media_errors)
    }
}

/// Fill the first [`zones_written`] zones with sequential zone writes, then the read job `read`.
fn zoned_run(pe: u32, read: &str, o: &ExpOptions) -> Result<Report> {
    let cfg = zufs(o, &aged_sets(pe))?;
    let z = zones_written(o);
    let job = format!(
        "[fill]\nrw=write\nbs=128k\nzonemode=zbd\nsize={z}z\niodepth=8\n\
         [r]\nstonewall\nrw=randread\nbs=4k\niodepth=1\nnorandommap=1\n{read}"
    );
    run(&cfg, &job, Precondition::None, ZUFS_NS, o.seed)
}

/// `ios` 4 KiB random reads over the written zones.
fn point((pe, label): (u32, &'static str), ios: u64, o: &ExpOptions) -> Result<Point> {
    let read = format!(
        "zonemode=zbd\nsize={}z\nnumber_ios={ios}\n",
        zones_written(o)
    );
    Ok(Point {
        label,
        report: zoned_run(pe, &read, o)?,
    })
}

/// [`HOT_READS`] 4 KiB random reads on the first [`HOT_MIB`] MiB of zone 0.
fn hot_point((pe, label): (u32, &'static str), o: &ExpOptions) -> Result<Point> {
    let read = format!("size={HOT_MIB}m\nio_size={}k\n", HOT_READS * 4);
    Ok(Point {
        label,
        report: zoned_run(pe, &read, o)?,
    })
}

/// The fresh and rated ages (for the hot-range case and the test).
fn ends() -> [(u32, &'static str); 2] {
    [AGES[0], AGES[AGES.len() - 1]]
}

/// The zoned rows: the uniform reads per age, the hot range fresh and at the rating, the two
/// directions. Returns the rows and the note describing them.
pub(super) fn rows(ios: u64, o: &ExpOptions) -> Result<(Vec<Row>, String)> {
    let points = AGES
        .iter()
        .map(|&age| point(age, ios, o))
        .collect::<Result<Vec<_>>>()?;
    let mut rows = Vec::new();
    for p in &points {
        let case = format!("zoned, {} P/E cycles", p.label);
        let (mean, p99) = p.lat();
        rows.push(row_info(&case, "read latency mean us", mean).src(SRC_ZUFS));
        rows.push(row_info(&case, "read latency p99 us", p99).src(SRC_ZUFS));
        rows.push(row_info(&case, "retry steps per read", p.retries().0).src(SRC_CAI));
        rows.push(row_info(&case, "zones moved whole", p.remaps()).src(SRC_ZUFS));
    }
    for age in ends() {
        let p = hot_point(age, o)?;
        let case = format!("zoned, {} P/E cycles, reads on {HOT_MIB} MiB", p.label);
        let (mean, p99) = p.lat();
        let max = p.max_us();
        rows.push(row_info(&case, "read latency mean us", mean).src(SRC_ZUFS));
        rows.push(row_info(&case, "read latency p99 us", p99).src(SRC_ZUFS));
        rows.push(row_info(&case, "read latency max us", max).src(SRC_ZUFS));
        rows.push(row_info(&case, "retry steps per read", p.retries().0).src(SRC_CAI));
        rows.push(
            row_info(&case, "read reclaims", p.wear(|w| w.read_reclaims) as f64).src(SRC_ZUFS),
        );
        rows.push(row_info(&case, "zones moved whole", p.remaps()).src(SRC_ZUFS));
        rows.push(row_info(&case, "pages moved by read reclaim", p.moved() as f64).src(SRC_ZUFS));
        rows.push(row_info(&case, "failed reads", p.failed_reads() as f64).src(SRC_ZUFS));
    }
    let (fresh, worn) = (&points[0], &points[AGES.len() - 1]);
    let case = "zoned, 3,000 vs 0 P/E cycles";
    let src = format!("{SRC_ZUFS}; {SRC_CAI}");
    rows.push(
        row_dir(
            case,
            "retry steps per read, difference",
            worn.retries().0 - fresh.retries().0,
            true,
        )
        .id("zufs.s4-1.zoned-aged-read-retries")
        .src(&src),
    );
    rows.push(
        row_dir(
            case,
            "read latency mean, difference us",
            worn.lat().0 - fresh.lat().0,
            true,
        )
        .id("zufs.s4-1.zoned-aged-read-latency")
        .src(&src),
    );
    let z = zones_written(o);
    let dev = if o.paper() {
        "the paper's 512 GB zufs-2026 (462 zones)"
    } else {
        "zufs-2026 (12 zones)"
    };
    let note = format!(
        "The \"zoned\" rows: the zoned LU of {dev}, zones of one 1,056 MiB superblock, same rating, ages, errors and reclaim; the first {z} zones written full (128 KiB sequential zone writes, zonemode=zbd), then {ios} reads of 4 KiB at uniform offsets over them at queue depth 1, or {HOT_READS} reads on the first {HOT_MIB} MiB of zone 0 (one block on each of 16 planes, about 131,000 reads each). There read disturb queues the zone and the firmware moves it whole (ZUFS §4.1): the ZML holds the destination, reads are served from the victim while every unit is copied, the ZMT takes the destination at the end. The copy runs in steps of one superpage (a program unit read from the victim and programmed on each die), so the read that meets it waits on its die for the step in progress or the victim's erase after the copy (the max latency), not for the whole zone's copy; a step's reads need the retries of an aged block too. \"Zones moved whole\" is the pages moved over a zone's 270,336 pages; \"failed reads\" counts host reads completed with a media error."
    );
    Ok((rows, note))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Scale;

    /// Read disturb on one MiB of a full zone moves that zone whole, once, and every read is
    /// served (from the victim during the copy, from the destination after).
    #[test]
    fn hot_range_moves_the_zone_and_serves_every_read() {
        let o = ExpOptions {
            seed: 1,
            scale: Scale::Quick,
        };
        let p = hot_point(ends()[0], &o).unwrap();
        assert_eq!(p.report.host.read.ios, HOT_READS);
        assert_eq!(p.failed_reads(), 0);
        assert!(p.remaps() >= 1.0, "zones moved {}", p.remaps());
        // Each remap moves a full zone's pages.
        let zone_pages = super::super::zufs_common::ZONE_BYTES / 4096;
        assert_eq!(p.moved(), p.remaps() as u64 * zone_pages);
        // The read that meets the copy waits for the step in progress on its die (a
        // superpage's reads and program) or the victim's erase: milliseconds, far more than a
        // read, far less than the whole 1,056 MiB zone's copy (seconds when it was booked at
        // once).
        let (mean, max) = (p.lat().0, p.max_us());
        assert!(max > 10.0 * mean, "max {max} us, mean {mean} us");
        assert!(max < 50_000.0, "a read waited {max} us: for the whole copy");
    }
}
