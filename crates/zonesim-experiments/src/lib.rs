//! Reproductions of published experiments (docs/experiments.md; the papers and their "seed 00N"
//! codes: docs/papers.md). Each experiment builds its devices and workloads, *simulates* them, and
//! prints our number beside the reference's, with the tolerance and why. Reference values are
//! printed, never used in the computation.

mod conzone_buffer_conflict;
mod conzone_common;
mod conzone_fs_waf;
mod conzone_hybrid_read;
mod conzone_l2p_search;
mod conzone_migration;
mod conzone_seq;
mod conzone_sqlite;
mod f2fs_lfs_waf;
mod fs_common;
mod mcmq_common;
mod mcmq_isolation;
mod mcmq_latency_table;
mod mcmq_scaling;
mod mcmq_vs_mqsim;
mod pool;
mod steady;
mod supgc_fio;
mod supgc_throughput;
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

pub use pool::{jobs, par_each, par_map, set_jobs};
use serde::Serialize;
use std::fmt::Write;
use zonesim::error::{Error, Result};

/// What a row is, for the verdict: only predictions (and direction claims) are checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// Simulated and compared with the reference: can fail.
    Prediction,
    /// Only the direction (sign) of a change is claimed by the reference: can fail.
    Direction,
    /// A parameter was fitted to this reference: printed, cannot fail, not a prediction.
    Calibration,
    /// The setup was chosen to hit this reference: printed, not a prediction.
    SetPoint,
    /// Context, no reference.
    Info,
}

/// One compared quantity.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    /// The case, e.g. "page mapping, 16 MiB range".
    pub case: String,
    /// The quantity, e.g. "KIOPS" or "change vs baseline %".
    pub metric: String,
    pub ours: f64,
    /// The published value, if the reference gives a number for this row (never a
    /// placeholder: a claim without a number is a `direction` row with `reference: null`).
    pub reference: Option<f64>,
    /// The acceptance band, in words (e.g. "within 25%", "same direction").
    pub tolerance: String,
    /// Whether `ours` is within the tolerance (None when there is no reference).
    pub within: Option<bool>,
    /// Where the reference comes from: seed file, section/figure, the sentence quoted, and the
    /// derivation of a derived value.
    pub source: String,
    pub kind: Kind,
    /// `pass`, `FAIL`, `known gap`, `calibration`, `set point` or `info`.
    pub verdict: &'static str,
    /// Why a failing row is a known disagreement (listed in docs/experiments.md).
    pub known_gap: Option<String>,
}

impl Row {
    fn new(
        case: &str,
        metric: &str,
        ours: f64,
        reference: Option<f64>,
        tolerance: String,
        within: Option<bool>,
        kind: Kind,
    ) -> Row {
        let mut r = Row {
            case: case.into(),
            metric: metric.into(),
            ours,
            reference,
            tolerance,
            within,
            source: String::new(),
            kind,
            verdict: "info",
            known_gap: None,
        };
        r.settle();
        r
    }

    fn settle(&mut self) {
        self.verdict = match (self.kind, self.within) {
            (Kind::Calibration, _) => "calibration",
            (Kind::SetPoint, _) => "set point",
            (Kind::Info, _) | (_, None) => "info",
            (_, Some(true)) => "pass",
            (_, Some(false)) if self.known_gap.is_some() => "known gap",
            (_, Some(false)) => "FAIL",
        };
    }

    /// The reference's source (seed, section/figure, the quoted sentence, a derivation).
    pub fn src(mut self, source: &str) -> Row {
        self.source = source.into();
        self
    }

    /// A parameter was fitted to this row's reference.
    pub fn calibration(mut self, why: &str) -> Row {
        self.kind = Kind::Calibration;
        self.tolerance = format!("{} (calibrated: {why})", self.tolerance);
        self.settle();
        self
    }

    /// The setup was chosen to hit this row's reference.
    pub fn set_point(mut self, why: &str) -> Row {
        self.kind = Kind::SetPoint;
        self.tolerance = format!("{} (set point: {why})", self.tolerance);
        self.settle();
        self
    }

    /// A known gap with `why` if the row fails; unchanged if it passes.
    pub fn gap_if_fails(self, why: &str) -> Row {
        if self.fails() {
            self.known_gap(why)
        } else {
            self
        }
    }

    /// A known disagreement, with its reason: stays visible, does not fail the run.
    pub fn known_gap(mut self, why: &str) -> Row {
        self.known_gap = Some(why.into());
        self.settle();
        self
    }

    /// A checked row outside its tolerance that is not a marked known gap.
    pub fn fails(&self) -> bool {
        self.verdict == "FAIL"
    }
}

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

/// Options common to all experiments.
#[derive(Debug, Clone, Copy)]
pub struct ExpOptions {
    pub seed: u64,
    /// Smaller runs (for tests and CI); same structure.
    pub quick: bool,
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
            name: "supgc-fio",
            title: "SUP-GC / Bloom / single-stream GC placement under fio randrw (seed 003 §5.3.2)",
            run: supgc_fio::run,
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
            title: "ZUFS §3.3: QD 32 sequential zoned writes with requeueing, with / without zone write locking, and zone append",
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

/// Relative change of `x` against `base`, in percent.
pub fn pct_change(x: f64, base: f64) -> f64 {
    if base == 0.0 {
        0.0
    } else {
        (x / base - 1.0) * 100.0
    }
}

/// A row whose tolerance is an absolute band around the reference.
pub fn row_abs(case: &str, metric: &str, ours: f64, reference: f64, band: f64) -> Row {
    Row::new(
        case,
        metric,
        ours,
        Some(reference),
        format!("within ±{band}"),
        Some((ours - reference).abs() <= band),
        Kind::Prediction,
    )
}

/// A row that must reach at least `min` (a claim like "no degradation": the reference is
/// printed, anything at or above `min` passes).
pub fn row_min(case: &str, metric: &str, ours: f64, reference: f64, min: f64) -> Row {
    Row::new(
        case,
        metric,
        ours,
        Some(reference),
        format!("at least {min}"),
        Some(ours >= min),
        Kind::Prediction,
    )
}

/// A row whose tolerance is a relative band around the reference.
pub fn row_rel(case: &str, metric: &str, ours: f64, reference: f64, frac: f64) -> Row {
    Row::new(
        case,
        metric,
        ours,
        Some(reference),
        format!("within {:.0}%", frac * 100.0),
        Some((ours - reference).abs() <= frac * reference.abs()),
        Kind::Prediction,
    )
}

/// A row that only has to agree in sign with a reference the paper gives as a number.
pub fn row_sign(case: &str, metric: &str, ours: f64, reference: f64) -> Row {
    Row::new(
        case,
        metric,
        ours,
        Some(reference),
        "same direction".into(),
        Some(ours.signum() == reference.signum()),
        Kind::Direction,
    )
}

/// A claim with no number ("tail latency is also higher"): only the direction is checked and
/// no reference number is printed.
pub fn row_dir(case: &str, metric: &str, ours: f64, higher: bool) -> Row {
    row_dir_by(case, metric, ours, higher, 0.0)
}

/// [`row_dir`] that also needs the change to exceed `band` in size: for a measured change
/// whose noise (another random sequence, another placement) is about that large, so that a
/// change of a few hundredths does not pass as the claimed direction.
pub fn row_dir_by(case: &str, metric: &str, ours: f64, higher: bool, band: f64) -> Row {
    let (word, ok) = if higher {
        ("higher", ours > band)
    } else {
        ("lower", ours < -band)
    };
    let by = if band > 0.0 {
        format!(", by more than {band}")
    } else {
        String::new()
    };
    Row::new(
        case,
        metric,
        ours,
        None,
        format!("direction: {word}{by} (no number given)"),
        Some(ok),
        Kind::Direction,
    )
}

/// A row with no reference value (context).
pub fn row_info(case: &str, metric: &str, ours: f64) -> Row {
    Row::new(case, metric, ours, None, "-".into(), None, Kind::Info)
}

impl Outcome {
    /// Rows that fail the run (checked, outside tolerance, not a marked known gap).
    pub fn failures(&self) -> usize {
        self.rows.iter().filter(|r| r.fails()).count()
    }

    /// One line: the experiment's verdict and its row counts.
    pub fn verdict_line(&self) -> String {
        let n = |v: &str| self.rows.iter().filter(|r| r.verdict == v).count();
        let checked = self
            .rows
            .iter()
            .filter(|r| matches!(r.kind, Kind::Prediction | Kind::Direction) && r.within.is_some())
            .count();
        format!(
            "{:<26} {}  ({checked} checked: {} pass, {} FAIL, {} known gap; {} calibration, {} set point)",
            self.name,
            if self.failures() == 0 { "PASS" } else { "FAIL" },
            n("pass"), n("FAIL"), n("known gap"), n("calibration"), n("set point"),
        )
    }
}

/// The outcome as a markdown table (docs are pasted from this, with the command and commit).
pub fn render_markdown(o: &Outcome) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "**{}**: {}  ", o.name, o.title);
    let _ = writeln!(s, "reference: {}", o.source);
    let _ = writeln!(s);
    let _ = writeln!(
        s,
        "| case | metric | zonesim | paper | source | tolerance | verdict |"
    );
    let _ = writeln!(s, "|---|---|---:|---:|---|---|---|");
    for r in &o.rows {
        let reference = r
            .reference
            .map(|v| format!("{v:.2}"))
            .unwrap_or_else(|| "-".into());
        let verdict = match &r.known_gap {
            Some(g) if r.verdict == "known gap" => format!("known gap: {g}"),
            _ => r.verdict.to_string(),
        };
        let cell = |t: &str| t.replace('|', "\\|");
        let _ = writeln!(
            s,
            "| {} | {} | {:.2} | {} | {} | {} | {} |",
            cell(&r.case),
            cell(&r.metric),
            r.ours,
            reference,
            cell(&r.source),
            cell(&r.tolerance),
            cell(&verdict)
        );
    }
    let _ = writeln!(s);
    let _ = writeln!(s, "verdict: {}", o.verdict_line());
    if !o.notes.is_empty() {
        let _ = writeln!(s);
        for n in &o.notes {
            let _ = writeln!(s, "- {n}");
        }
    }
    s
}

/// The table printed by `zonesim experiment run`.
pub fn render(o: &Outcome) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "{}: {}", o.name, o.title);
    let _ = writeln!(s, "reference: {}", o.source);
    let _ = writeln!(s);
    let _ = writeln!(
        s,
        "{:<40} {:<26} {:>12} {:>12}  {:<18} verdict",
        "case", "metric", "zonesim", "reference", "tolerance"
    );
    for r in &o.rows {
        let reference = r
            .reference
            .map(|v| format!("{v:.2}"))
            .unwrap_or_else(|| "-".into());
        let ok = r.verdict;
        let _ = writeln!(
            s,
            "{:<40} {:<26} {:>12.2} {:>12}  {:<18} {}",
            r.case, r.metric, r.ours, reference, r.tolerance, ok
        );
    }
    for r in &o.rows {
        if let Some(g) = &r.known_gap {
            let _ = writeln!(s, "known gap: {} / {}: {g}", r.case, r.metric);
        }
    }
    let _ = writeln!(s, "verdict: {}", o.verdict_line());
    if !o.notes.is_empty() {
        let _ = writeln!(s);
        for n in &o.notes {
            let _ = writeln!(s, "note: {n}");
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fast experiments run in quick mode, produce rows and have no failing row (the
    /// supgc ones are run by scripts/check-experiments on the release binary).
    #[test]
    fn experiments_run_quick() {
        for e in all().into_iter().filter(|e| e.name != "supgc-fio") {
            let o = (e.run)(&ExpOptions {
                seed: 1,
                quick: true,
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
        let fail = row_abs("a", "m", 10.0, 20.0, 1.0);
        assert!(fail.fails());
        let gap = row_abs("a", "m", 10.0, 20.0, 1.0).known_gap("why");
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
        assert!(o.verdict_line().contains("PASS"));
    }
}
