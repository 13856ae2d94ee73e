//! The scale an experiment runs at ([`Scale`]) and the options every experiment takes.
//!
//! - `paper`: the paper's own device (capacity, geometry, zone size), fill and duration — the
//!   form of record: the scoreboard's verdicts come from it (stored under `results/paper/`).
//! - `full`: the experiment's default, between the two where the paper's scale is too large
//!   to run often (equal to `paper` where it is not).
//! - `quick`: a smoke test of the same structure for CI and the snapshots. A row whose quick
//!   verdict differs from its paper-scale verdict fails the check unless it is marked
//!   scale-dependent with the measured reason.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// How large an experiment runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Scale {
    Quick,
    Full,
    Paper,
}

impl Scale {
    pub const ALL: [Scale; 3] = [Scale::Quick, Scale::Full, Scale::Paper];

    pub fn name(self) -> &'static str {
        match self {
            Scale::Quick => "quick",
            Scale::Full => "full",
            Scale::Paper => "paper",
        }
    }
}

impl fmt::Display for Scale {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Scale {
    type Err = String;
    fn from_str(s: &str) -> Result<Scale, String> {
        Scale::ALL
            .into_iter()
            .find(|x| x.name() == s)
            .ok_or_else(|| format!("'{s}': expected one of quick, full, paper"))
    }
}

/// Options common to all experiments.
#[derive(Debug, Clone, Copy)]
pub struct ExpOptions {
    pub seed: u64,
    pub scale: Scale,
}

impl ExpOptions {
    /// The smoke-test form (smaller runs, same structure).
    pub fn quick(&self) -> bool {
        self.scale == Scale::Quick
    }

    /// The paper's own scale.
    pub fn paper(&self) -> bool {
        self.scale == Scale::Paper
    }
}
