//! Reproductions of published experiments (docs/experiments.md; the papers and their "seed 00N"
//! codes: docs/papers.md). Each experiment builds its devices and workloads, *simulates* them, and
//! prints our number beside the reference's, with the tolerance and why. Reference values are
//! printed, never used in the computation.

mod app_launch;
mod conzone_buffer_conflict;
mod conzone_common;
mod conzone_fs_waf;
mod conzone_hybrid_read;
mod conzone_l2p_search;
mod conzone_migration;
mod conzone_seq;
mod conzone_sqlite;
mod f2fs_lfs_waf;
mod fs_aging;
mod fs_common;
mod host_cpu;
mod mcmq_common;
mod mcmq_isolation;
mod mcmq_latency_table;
mod mcmq_scaling;
mod mcmq_vs_mqsim;
mod nand_aged_read;
mod nand_aged_read_zoned;
mod nand_errors;
mod pool;
mod steady;
mod supgc_fio;
mod supgc_free;
mod supgc_mysql;
mod supgc_throughput;
mod zms_app_launch;
mod zms_common;
mod zms_multizone;
mod zms_randread;
mod zms_randwrite;
mod zms_sync_update;
mod zufs_app_read;
mod zufs_block_size;
mod zufs_common;
mod zufs_fragmentation;
mod zufs_ordering;
mod zufs_wide_read;
mod zufs_zabm;

pub mod registry;
mod render;
mod row;
mod scale;
pub mod scoreboard;

pub use render::{render, render_markdown};
pub use row::{
    pct_change, row_abs, row_dir, row_dir_by, row_effect, row_info, row_range, row_rel, row_sign,
    Cause, Kind, Row, Status,
};
pub use scale::{ExpOptions, Scale};

pub use pool::{jobs, par_each, par_map, set_jobs};
use serde::Serialize;
use zonesim::error::{Error, Result};

/// The result of one experiment run.
#[derive(Debug, Clone, Serialize)]
pub struct Outcome {
    pub name: String,
    pub title: String,
    /// Where the reference numbers come from (seed file and section).
    pub source: String,
    pub rows: Vec<Row>,
    /// Why our magnitudes may differ, which parameters the reference hides, etc.
    pub notes: Vec<String>,
}

/// A runnable reproduction.
pub struct Experiment {
    pub name: &'static str,
    pub title: &'static str,
    pub run: fn(&ExpOptions) -> Result<Outcome>,
}

/// All experiments, in listing order.
pub fn all() -> Vec<Experiment> {
    vec![
        Experiment {
            name: "conzone-hybrid-read",
            title: "ConZone §6.3: 4 KiB random reads, page vs hybrid mapping over 1 MiB / 16 MiB / 1 GiB",
            run: conzone_hybrid_read::run_exp,
        },
        Experiment {
            name: "conzone-buffer-conflict",
            title: "ConZone §6.3: write-buffer conflicts, two writers, modulo mapping",
            run: conzone_buffer_conflict::run_exp,
        },
        Experiment {
            name: "conzone-l2p-search",
            title: "ConZone §6.6: MULTIPLE vs BITMAP L2P search at ~27% misses",
            run: conzone_l2p_search::run_exp,
        },
        Experiment {
            name: "conzone-fs-waf",
            title: "ConZone+ §6.4: F2FS on zoned vs block storage, FS WAF and bandwidth (Fig. 11)",
            run: conzone_fs_waf::run_exp,
        },
        Experiment {
            name: "conzone-sqlite",
            title: "ConZone+ §6.3: SQLite WAL insert / update on F2FS, zoned vs block: TPS, device WAF, premature flushes, TLC GC (Fig. 10)",
            run: conzone_sqlite::run_exp,
        },
        Experiment {
            name: "conzone-migration",
            title: "ConZone+ §6.5: three write-hint streams on QLC with SLC for all writes, page- vs zone-granular SLC vs block (Fig. 12)",
            run: conzone_migration::run_exp,
        },
        Experiment {
            name: "conzone-seq",
            title: "ConZone+ §6.2: 512 KiB sequential I/O, 1 and 4 threads, zoned vs block",
            run: conzone_seq::run_exp,
        },
        Experiment {
            name: "f2fs-lfs-waf",
            title: "F2FS model: FS cleaning WAF vs the analytic LFS greedy / FIFO curves (uniform random overwrites)",
            run: f2fs_lfs_waf::run_exp,
        },
        Experiment {
            name: "mcmq-isolation",
            title: "MCMQ Fig. 7: shared namespace vs shared storage vs no sharing (NVM sets)",
            run: mcmq_isolation::run_exp,
        },
        Experiment {
            name: "mcmq-latency-table",
            title: "MCMQ Table I: per-page-type flash latencies, simulated vs real and MCMQ",
            run: mcmq_latency_table::run_exp,
        },
        Experiment {
            name: "mcmq-scaling",
            title: "MCMQ Fig. 5: per-flow throughput and latency vs FTL workers, one shared namespace",
            run: mcmq_scaling::run_exp,
        },
        Experiment {
            name: "mcmq-vs-mqsim",
            title: "MCMQ Fig. 6: 1, 2, 4 flows, firmware model off (MQSim) vs cores (MCMQ)",
            run: mcmq_vs_mqsim::run_exp,
        },
        Experiment {
            name: "nand-aged-read",
            title: "Random reads on an aged device: 0 / 1,000 / 3,000 P/E cycles, read retry and reclaim on",
            run: nand_aged_read::run_exp,
        },
        Experiment {
            name: "nand-errors",
            title: "Bit errors, ECC and read retry: RBER vs P/E cycles and the retry-count distribution",
            run: nand_errors::run_exp,
        },
        Experiment {
            name: "supgc-fio",
            title: "SUP-GC / Bloom / single-stream GC placement under fio randrw (SUP-GC §5.3.2)",
            run: supgc_fio::run,
        },
        Experiment {
            name: "supgc-mysql-write",
            title: "SUP-GC §5.3.3 Fig. 19: sysbench oltp_write_only on MySQL/InnoDB, SUP-GC vs Cosmos+ / BF / GCaR",
            run: supgc_mysql::run_write,
        },
        Experiment {
            name: "supgc-mysql-rw",
            title: "SUP-GC §5.3.3 Fig. 20: sysbench oltp_read_write on MySQL/InnoDB, SUP-GC vs Cosmos+ / BF / GCaR",
            run: supgc_mysql::run_rw,
        },
        Experiment {
            name: "supgc-throughput",
            title: "SUP-GC §5.3.1 Fig. 13: throughput without GC, SUP / BF / GCaR vs Cosmos+",
            run: supgc_throughput::run_exp,
        },
        Experiment {
            name: "zufs-wide-read",
            title: "ZUFS §5.3 Fig. 7b: 4 KiB random reads over growing ranges, CUFS vs ZUFS",
            run: zufs_wide_read::run_exp,
        },
        Experiment {
            name: "zufs-block-size",
            title: "ZUFS §5.3 Fig. 7c: random reads over the widest range, 4 KiB .. 512 KiB blocks",
            run: zufs_block_size::run_exp,
        },
        Experiment {
            name: "zufs-zabm",
            title: "ZUFS §5.4 Fig. 8: single-zone writes, ZABM 192 KiB / 768 KiB vs ZMS-style 768 KiB static buffer",
            run: zufs_zabm::run_exp,
        },
        Experiment {
            name: "zufs-fragmentation",
            title: "ZUFS §5.5: F2FS aging on CUFS vs ZUFS, throughput, segments, fragmentation, GC phases (Fig. 9-10)",
            run: zufs_fragmentation::run_exp,
        },
        Experiment {
            name: "zufs-app-read",
            title: "ZUFS §5.6.1: two-stage F2FS aging, then reading large files on CUFS vs ZUFS: read request sizes, fragments, read time (Fig. 11, Table 2)",
            run: zufs_app_read::run_exp,
        },
        Experiment {
            name: "zms-app-launch",
            title: "ZMS: cold launch of an app per category on an aged F2FS, block baseline vs ZMS: launch time",
            run: zms_app_launch::run_exp,
        },
        Experiment {
            name: "zms-multizone",
            title: "ZMS Challenge #1: three writers to their own zones, without and with IOTailor",
            run: zms_multizone::run_exp,
        },
        Experiment {
            name: "zms-randread",
            title: "ZMS: 4 KiB random reads over an 8 GiB file, block baseline (page map + L2P cache) vs ZMS (zone map)",
            run: zms_randread::run_exp,
        },
        Experiment {
            name: "zms-randwrite",
            title: "ZMS: 4 KiB buffered random writes over a 1 GiB file on F2FS, block baseline vs ZMS: end-to-end WAF and throughput",
            run: zms_randwrite::run_exp,
        },
        Experiment {
            name: "zms-sync-update",
            title: "ZMS: 4 KiB write + fsync and SQLite (WAL, rollback) on the block baseline (F2FS IPU), ZMS (append logging) and ZMS with budget-based in-place update",
            run: zms_sync_update::run_exp,
        },
        Experiment {
            name: "zufs-ordering",
            title: "ZUFS §3.3: sequential zoned writes requeued by UFS clock gating, with / without zone write locking, zone append and synchronous ungating",
            run: zufs_ordering::run_exp,
        },
    ]
}

pub fn find(name: &str) -> Result<Experiment> {
    all().into_iter().find(|e| e.name == name).ok_or_else(|| {
        let names: Vec<&str> = all().iter().map(|e| e.name).collect();
        Error::Usage(format!(
            "unknown experiment '{name}'; known: {}",
            names.join(", ")
        ))
    })
}

/// The outcome of an experiment's current rows on the measurements of its record `rec` (read
/// from `file`), without simulating its runs again: for experiments whose record keeps every
/// measurement its rows use (supgc-fio, supgc-mysql-write, supgc-mysql-rw); any other is a
/// usage error.
pub fn rederive(rec: &scoreboard::Record, file: &str) -> Result<Outcome> {
    match rec.outcome.name.as_str() {
        "supgc-fio" => supgc_fio::rederive(rec, file),
        "supgc-mysql-write" | "supgc-mysql-rw" => supgc_mysql::rederive(rec, file),
        other => Err(Error::Usage(format!(
            "{file}: {other} cannot derive its rows from a record (only supgc-fio, supgc-mysql-write and supgc-mysql-rw can): run it again"
        ))),
    }
}

impl Outcome {
    /// Rows that fail the run (checked, outside tolerance, not a marked known gap).
    pub fn failures(&self) -> usize {
        self.rows.iter().filter(|r| r.fails()).count()
    }

    /// Rows with status `s`.
    pub fn count(&self, s: Status) -> usize {
        self.rows.iter().filter(|r| r.status == s).count()
    }

    /// One line: how many of the paper's checked claims are reproduced (within tolerance or,
    /// for a direction claim, in the claimed direction) out of all checked rows, the rest by
    /// status, the unchecked rows by kind, and the outcome: `FAIL` when a row fails the run,
    /// else `ok` (no unexpected failure, which is not "reproduced": known gaps are counted).
    pub fn verdict_line(&self) -> String {
        let c = |s| self.count(s);
        let stale = self.rows.iter().filter(|r| r.stale_gap()).count();
        let stale = if stale > 0 {
            format!(", {stale} stale gap")
        } else {
            String::new()
        };
        let checked =
            c(Status::Pass) + c(Status::Direction) + c(Status::KnownGap) + c(Status::Fail);
        format!(
            "{:<26} {} of {checked} checked reproduced ({} pass, {} direction), {} known gap, {} fail{stale}; unchecked: {} calibration, {} set point, {} structural, {} sensitivity, {} info -- {}",
            self.name,
            c(Status::Pass) + c(Status::Direction),
            c(Status::Pass),
            c(Status::Direction),
            c(Status::KnownGap),
            c(Status::Fail),
            c(Status::Calibration),
            c(Status::SetPoint),
            c(Status::Structural),
            c(Status::Sensitivity),
            c(Status::Info),
            if self.failures() > 0 {
                "FAIL"
            } else {
                "ok (no unexpected failure)"
            },
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fast experiments run in quick mode, produce rows and have no failing row (the
    /// supgc ones are run by scripts/check-experiments on the release binary).
    #[test]
    fn experiments_run_quick() {
        let release_only = ["supgc-fio", "supgc-mysql-write", "supgc-mysql-rw"];
        for e in all()
            .into_iter()
            .filter(|e| !release_only.contains(&e.name))
        {
            let o = (e.run)(&ExpOptions {
                seed: 1,
                scale: Scale::Quick,
            })
            .unwrap_or_else(|err| panic!("{}: {err}", e.name));
            assert!(!o.rows.is_empty(), "{}", e.name);
            assert!(render(&o).contains(e.name));
            assert!(render_markdown(&o).contains("| case | metric |"));
            let bad: Vec<&Row> = o.rows.iter().filter(|r| r.fails()).collect();
            assert!(bad.is_empty(), "{}: {bad:?}", e.name);
        }
    }

    #[test]
    fn verdicts_count_only_predictions() {
        let pass = row_abs("a", "m", 10.0, 10.5, 1.0);
        assert_eq!((pass.verdict, pass.kind), ("pass", Kind::Prediction));
        assert_eq!(pass.status, Status::Pass);
        let stale = row_abs("a", "m", 10.0, 10.5, 1.0).gap(Cause::ModelDefect, "why");
        assert!(
            stale.fails() && stale.stale_gap(),
            "a declared gap that passes fails"
        );
        let declared = row_abs("a", "m", 10.0, 20.0, 1.0).gap(Cause::UnstatedParameter, "why");
        assert_eq!(declared.status, Status::KnownGap);
        assert!(!declared.fails());
        let range = row_range("a", "ratio", 2.18, 1.0, 0.9, 1.1);
        assert!(range.fails(), "a two-sided band catches an overshoot");
        assert!(pct_change(4.0, 0.0).is_nan() && pct_change(0.0, 0.0) == 0.0);
        let fail = row_abs("a", "m", 10.0, 20.0, 1.0);
        assert!(fail.fails());
        let gap = row_abs("a", "m", 10.0, 20.0, 1.0).gap(Cause::MissingMechanism, "why");
        assert_eq!(gap.verdict, "known gap");
        assert!(!gap.fails());
        let cal = row_abs("a", "m", 10.0, 20.0, 1.0).calibration("fitted");
        assert_eq!(cal.verdict, "calibration");
        assert!(!cal.fails());
        let set = row_abs("a", "m", 10.0, 20.0, 1.0).set_point("chosen");
        assert_eq!(set.verdict, "set point");
        let dir = row_dir("a", "m", -3.0, true);
        assert!(dir.fails(), "lower where the paper says higher");
        assert_eq!(dir.reference, None, "no placeholder number");
        assert!(dir.tolerance.contains("direction"));
        assert!(
            row_dir_by("a", "m", -0.04, false, 1.0).fails(),
            "inside the band"
        );
        assert!(!row_dir_by("a", "m", -1.5, false, 1.0).fails());
        assert!(
            row_dir_by("a", "m", 1.5, false, 1.0).fails(),
            "beyond it the wrong way"
        );
        let o = Outcome {
            name: "x".into(),
            title: "t".into(),
            source: "s".into(),
            rows: vec![pass, gap, cal, set, row_info("a", "m", 1.0)],
            notes: vec![],
        };
        assert_eq!(o.failures(), 0);
        assert!(!o.verdict_line().contains("FAIL"));
        assert!(
            o.verdict_line()
                .contains("1 of 2 checked reproduced (1 pass, 0 direction), 1 known gap, 0 fail"),
            "{}",
            o.verdict_line()
        );
    }
}
