//! The report's `provenance`: what produced it — zonesim's version and git commit, the command
//! line, the resolved device configuration, the workload (job text, or trace path and content
//! hash), the seed, the preconditioning and the wall-clock start. `started_at` is the one
//! field that differs between two runs of the same inputs; [`super::report::without_wall_clock`]
//! drops it with the wall-clock fields of `sim`.

use crate::config::DeviceConfig;
use serde::Serialize;
use std::sync::OnceLock;
use std::time::{SystemTime, UNIX_EPOCH};

/// The git commit of the program that links the library, set once at its start by
/// [`set_commit`]; "unknown" until then.
static COMMIT: OnceLock<&'static str> = OnceLock::new();

/// Records the git commit of the running program (the CLI, the fio engine and the Python module
/// call it with the `ZONESIM_GIT_COMMIT` of their build script). The library does not read git
/// itself so that a commit does not rebuild it. The first call wins.
pub fn set_commit(commit: &'static str) {
    let _ = COMMIT.set(commit);
}

/// The commit [`set_commit`] recorded, or "unknown".
pub fn commit() -> &'static str {
    COMMIT.get().copied().unwrap_or("unknown")
}

/// Where a report came from (docs/report.md, "Provenance").
#[derive(Debug, Clone, Serialize)]
pub struct Provenance {
    /// zonesim's version (the crate version).
    pub version: &'static str,
    /// The git commit of the build, "unknown" outside a git checkout.
    pub commit: &'static str,
    /// The command line of the process that ran it (argv; for Python, the interpreter's).
    pub command: Vec<String>,
    /// The resolved device configuration: every key, as `zonesim config show` prints it.
    pub device: serde_json::Value,
    /// The workload.
    pub workload: WorkloadProvenance,
    pub seed: u64,
    /// `none`, `seq` or `steady`.
    pub precondition: String,
    /// The namespace the workload targeted.
    pub namespace: usize,
    /// When the run started, RFC 3339 in UTC (wall clock: not part of determinism checks).
    pub started_at: String,
}

/// The workload of a run, enough to run it again.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum WorkloadProvenance {
    /// An fio job file: its name (path, or what stands for an in-memory text) and its text.
    Fio { name: String, text: String },
    /// A block trace: its path, size and the XXH3-64 hash of its bytes (`xxhsum -H3`).
    Trace {
        path: String,
        bytes: u64,
        xxh3_64: String,
    },
    /// An aging scenario file (docs/fs.md): its name and text.
    Scenario { name: String, text: String },
    /// fio jobs built in code (no text): their names.
    Jobs { names: Vec<String> },
    /// The run's own workload (a file system app, an emulated device driven by software).
    Other { name: String },
}

impl WorkloadProvenance {
    /// A trace file: its size and content hash (or an `error` in place of the hash when it
    /// cannot be read; the run itself reports that).
    pub fn trace(path: &std::path::Path) -> WorkloadProvenance {
        // A pipe or a device has no content to hash (and /dev/zero no end): not read.
        let regular = std::fs::metadata(path).is_ok_and(|m| m.is_file());
        let read = if regular {
            std::fs::read(path)
        } else {
            Err(std::io::Error::other("not a regular file"))
        };
        let (bytes, xxh3_64) = match read {
            Ok(b) => (
                b.len() as u64,
                format!("{:016x}", xxhash_rust::xxh3::xxh3_64(&b)),
            ),
            Err(e) => (0, format!("error: {e}")),
        };
        WorkloadProvenance::Trace {
            path: path.display().to_string(),
            bytes,
            xxh3_64,
        }
    }
}

impl Provenance {
    /// The provenance of a run starting now, with this process's command line.
    pub fn new(
        device: &DeviceConfig,
        workload: WorkloadProvenance,
        seed: u64,
        precondition: String,
        namespace: usize,
    ) -> Provenance {
        Provenance {
            version: env!("CARGO_PKG_VERSION"),
            commit: commit(),
            command: std::env::args().collect(),
            device: serde_json::to_value(device).unwrap_or_default(),
            workload,
            seed,
            precondition,
            namespace,
            started_at: rfc3339(SystemTime::now()),
        }
    }
}

/// `t` as RFC 3339 in UTC with millisecond precision (`2026-11-27T18:05:09.123Z`).
pub fn rfc3339(t: SystemTime) -> String {
    let d = t.duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = d.as_secs();
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let (y, m, day) = civil_from_days(days as i64);
    format!(
        "{y:04}-{m:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        rem / 60 % 60,
        rem % 60,
        d.subsec_millis()
    )
}

/// Days since 1970-01-01 to (year, month, day) in the proleptic Gregorian calendar (Howard
/// Hinnant's `civil_from_days`).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn rfc3339_of_known_instants() {
        assert_eq!(rfc3339(UNIX_EPOCH), "1970-01-01T00:00:00.000Z");
        let t = UNIX_EPOCH + Duration::from_millis(951_782_400_123); // leap day 2000
        assert_eq!(rfc3339(t), "2000-02-29T00:00:00.123Z");
        let t = UNIX_EPOCH + Duration::from_secs(1_795_795_509);
        assert_eq!(rfc3339(t), "2026-11-27T16:05:09.000Z");
    }
}
