//! One compared quantity of an experiment ([`Row`]): ours beside the paper's, what kind of
//! claim it checks ([`Kind`]), and its [`Status`] — the scoreboard's vocabulary. A row that
//! checks a result of the seed papers names it by its registry id (`registry/*.toml`).
//!
//! Which rows can fail: a prediction (the paper gives a number: a two-sided band around it)
//! and a direction claim (the paper gives only a sign, or a number we check only by sign).
//! Calibrations, set points, structural zeros, sensitivity tables and context rows cannot,
//! and are not counted as predictions. A known gap is declared on its own row with its cause
//! and the measured evidence; it never hides a row that would pass — a declared gap whose row
//! passes is a *stale gap* and fails the run until the row is re-classified.

use super::Scale;
use serde::Serialize;

/// What a row claims.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// The paper gives a number; ours must lie in the band around it.
    Prediction,
    /// Only the direction (sign) is checked.
    Direction,
    /// A parameter was fitted to this reference: printed, cannot fail.
    Calibration,
    /// The setup was chosen to hit this reference: printed, cannot fail.
    SetPoint,
    /// A value the model gives by construction (a zero that cannot be anything else).
    Structural,
    /// One point of a sensitivity table over a free parameter: shows where the paper's value
    /// falls, is not a prediction.
    Sensitivity,
    /// Context, no reference.
    Info,
}

/// Why a row disagrees with the paper (a known gap's cause class).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Cause {
    /// A mechanism the model does not have (named in the reason).
    MissingMechanism,
    /// The paper does not state a parameter the result depends on.
    UnstatedParameter,
    /// A defect or a simplification of the model (or a scale artifact).
    ModelDefect,
    /// The paper's own numbers do not agree with each other.
    PaperInconsistent,
}

/// A row's status, and a result's on the scoreboard.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// A prediction within its band.
    Pass,
    /// A direction claim that holds.
    Direction,
    /// A declared disagreement, with cause and evidence.
    KnownGap,
    /// A checked row outside its band, not a declared gap (fails the run).
    Fail,
    Calibration,
    SetPoint,
    Structural,
    Sensitivity,
    Info,
    /// A registry result no row checks (scoreboard only).
    Uncovered,
}

impl Status {
    pub const ALL: [Status; 10] = [
        Status::Pass,
        Status::Direction,
        Status::KnownGap,
        Status::Fail,
        Status::Calibration,
        Status::SetPoint,
        Status::Structural,
        Status::Sensitivity,
        Status::Info,
        Status::Uncovered,
    ];

    /// The JSON name (`known_gap`, `set_point`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Status::Pass => "pass",
            Status::Direction => "direction",
            Status::KnownGap => "known_gap",
            Status::Fail => "fail",
            Status::Calibration => "calibration",
            Status::SetPoint => "set_point",
            Status::Structural => "structural",
            Status::Sensitivity => "sensitivity",
            Status::Info => "info",
            Status::Uncovered => "uncovered",
        }
    }
}

impl Cause {
    pub const ALL: [Cause; 4] = [
        Cause::MissingMechanism,
        Cause::UnstatedParameter,
        Cause::ModelDefect,
        Cause::PaperInconsistent,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Cause::MissingMechanism => "missing_mechanism",
            Cause::UnstatedParameter => "unstated_parameter",
            Cause::ModelDefect => "model_defect",
            Cause::PaperInconsistent => "paper_inconsistent",
        }
    }

    pub fn parse(s: &str) -> Option<Cause> {
        Cause::ALL.into_iter().find(|c| c.name() == s)
    }
}

/// One compared quantity.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    /// The registry id of the seed result this row checks (`zufs.fig9c.min-write`), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The case, e.g. "page mapping, 16 MiB range".
    pub case: String,
    /// The quantity, e.g. "KIOPS" or "change vs baseline %".
    pub metric: String,
    pub ours: f64,
    /// The published value, if the reference gives a number for this row (never a
    /// placeholder: a claim without a number is a direction row with `reference: null`).
    pub reference: Option<f64>,
    /// The acceptance band, in words (e.g. "within 25%", "same direction").
    pub tolerance: String,
    /// Whether `ours` is within the tolerance (None when there is no reference).
    pub within: Option<bool>,
    /// Where the reference comes from: paper, section/figure, the sentence quoted, and the
    /// derivation of a derived value.
    pub source: String,
    pub kind: Kind,
    pub status: Status,
    /// `pass`, `direction`, `FAIL`, `known gap`, `stale gap`, `calibration`, ... (human).
    pub verdict: &'static str,
    /// Why a declared known gap disagrees, with the measured evidence.
    pub known_gap: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cause: Option<Cause>,
    /// Why this row's verdict may differ between the quick form and the paper's scale, as
    /// measured (absent: it must not differ).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scale_dependent: Option<String>,
}

impl Row {
    pub(crate) fn new(
        case: &str,
        metric: &str,
        ours: f64,
        reference: Option<f64>,
        tolerance: String,
        within: Option<bool>,
        kind: Kind,
    ) -> Row {
        let mut r = Row {
            id: None,
            case: case.into(),
            metric: metric.into(),
            ours,
            reference,
            tolerance,
            within,
            source: String::new(),
            kind,
            status: Status::Info,
            verdict: "info",
            known_gap: None,
            cause: None,
            scale_dependent: None,
        };
        r.settle();
        r
    }

    fn settle(&mut self) {
        let gap = self.known_gap.is_some();
        let stale = gap && self.cause.is_some();
        (self.status, self.verdict) = match (self.kind, self.within) {
            (Kind::Calibration, _) => (Status::Calibration, "calibration"),
            (Kind::SetPoint, _) => (Status::SetPoint, "set point"),
            (Kind::Structural, _) => (Status::Structural, "structural"),
            (Kind::Sensitivity, _) => (Status::Sensitivity, "sensitivity"),
            (Kind::Info, _) | (_, None) => (Status::Info, "info"),
            (Kind::Prediction, Some(true)) if stale => (Status::Pass, "stale gap"),
            (Kind::Direction, Some(true)) if stale => (Status::Direction, "stale gap"),
            (Kind::Prediction, Some(true)) => (Status::Pass, "pass"),
            (Kind::Direction, Some(true)) => (Status::Direction, "pass"),
            (_, Some(false)) if gap => (Status::KnownGap, "known gap"),
            (_, Some(false)) => (Status::Fail, "FAIL"),
        };
    }

    /// The registry id of the seed result this row checks.
    pub fn id(mut self, id: &str) -> Row {
        self.id = Some(id.into());
        self
    }

    /// The reference's source (paper, section/figure, the quoted sentence, a derivation).
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

    /// The model gives this value by construction (`why`): not a prediction.
    pub fn structural(mut self, why: &str) -> Row {
        self.kind = Kind::Structural;
        self.tolerance = format!("{} (structural: {why})", self.tolerance);
        self.settle();
        self
    }

    /// One point of a sensitivity table over a parameter the paper does not give.
    pub fn sensitivity(mut self) -> Row {
        self.kind = Kind::Sensitivity;
        self.settle();
        self
    }

    /// A declared disagreement: its cause class and the measured evidence. It stays visible
    /// and does not fail the run; if the row passes, it is a stale gap and fails the run.
    pub fn gap(mut self, cause: Cause, why: &str) -> Row {
        self.cause = Some(cause);
        self.known_gap = Some(why.into());
        self.settle();
        self
    }

    /// A known gap at some scales only: declared as [`Row::gap`] when the run's scale `now` is
    /// one of `at`, else the row is checked as it is (its verdict depends on the scale, so it
    /// also says why: [`Row::scale_dependent`]).
    pub fn gap_at(self, now: Scale, at: &[Scale], cause: Cause, why: &str) -> Row {
        if at.contains(&now) {
            self.gap(cause, why)
        } else {
            self
        }
    }

    /// This row's verdict may differ at the paper's scale, for the measured reason `why`.
    pub fn scale_dependent(mut self, why: &str) -> Row {
        self.scale_dependent = Some(why.into());
        self
    }

    /// A checked row outside its tolerance that is not a declared gap, or a declared gap
    /// whose row passes (it must be re-classified): either fails the run.
    pub fn fails(&self) -> bool {
        self.status == Status::Fail || self.stale_gap()
    }

    /// A declared known gap whose row passes.
    pub fn stale_gap(&self) -> bool {
        self.known_gap.is_some() && self.within == Some(true)
    }

    /// The row's key within its experiment: its registry id, else case and metric.
    pub fn key(&self) -> String {
        match &self.id {
            Some(id) => id.clone(),
            None => format!("{} / {}", self.case, self.metric),
        }
    }
}

/// Relative change of `x` against `base`, in percent; NaN on a zero base (the change is
/// undefined; a row shows it as such, never as 0 %).
pub fn pct_change(x: f64, base: f64) -> f64 {
    if base == 0.0 {
        if x == 0.0 {
            0.0
        } else {
            f64::NAN
        }
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

/// A row that must lie in `[lo, hi]` (a claim stated as a range, or "no degradation" read
/// as a band around 1).
pub fn row_range(case: &str, metric: &str, ours: f64, reference: f64, lo: f64, hi: f64) -> Row {
    Row::new(
        case,
        metric,
        ours,
        Some(reference),
        format!("in [{lo}, {hi}]"),
        Some((lo..=hi).contains(&ours)),
        Kind::Prediction,
    )
}

/// A row in a two-sided band of `frac` of the paper's effect: the distance of `reference` from
/// `none`, the value of no effect (0 for a change in % or an absolute level, 1 for a ratio or a
/// WAF, 100 for a miss rate near 100 %: its hit rate). For a paper that gives single numbers
/// without spread, one rule for all its numbers instead of a band chosen per row.
pub fn row_effect(
    case: &str,
    metric: &str,
    ours: f64,
    reference: f64,
    none: f64,
    frac: f64,
) -> Row {
    let half = frac * (reference - none).abs();
    let r3 = |x: f64| (x * 1000.0).round() / 1000.0;
    let mut r = row_range(
        case,
        metric,
        ours,
        reference,
        r3(reference - half),
        r3(reference + half),
    );
    r.tolerance = format!(
        "{} (+-{:.0} % of the paper's effect)",
        r.tolerance,
        frac * 100.0
    );
    r
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
