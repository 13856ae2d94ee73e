//! Aging scenarios (docs/fs.md "Scenario format"): file-system procedures fio cannot express —
//! create N files, delete every k-th, overwrite randomly, write and read a test file — as TOML
//! steps, run once (`[[setup]]`) and then in a loop (`[repeat]`) until a stop condition, with a
//! record per iteration. `sim::scenario` runs them on the host file system.

use crate::fio::parse_size;
use serde::Deserialize;
use zonesim_core::error::{Error, Result};

/// One step.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// Create `files` files of `size` bytes in `dir` (written in `bs` requests, then fsync'd).
    Create {
        dir: String,
        files: u64,
        size: u64,
        bs: u64,
    },
    /// Delete every `k`-th live file created in `dir` (oldest first).
    DeleteEvery { dir: String, k: u64 },
    /// Write `file` sequentially to `size` bytes (created if new), then fsync.
    Write { file: String, size: u64, bs: u64 },
    /// Read `file` sequentially in `bs` requests.
    Read { file: String, bs: u64 },
    /// `bytes` of uniform random `bs` overwrites over the live files of `dir`, fsync every
    /// `fsync` writes (0: never).
    Overwrite {
        dir: String,
        bytes: u64,
        bs: u64,
        fsync: u64,
    },
    /// Remove `file`.
    Unlink { file: String },
    /// `sync`: dirty data and a checkpoint.
    Sync,
    /// Idle for `ms` simulated milliseconds (background GC may run).
    Idle { ms: u64 },
}

/// A whole scenario.
#[derive(Debug, Clone, PartialEq)]
pub struct Scenario {
    pub name: String,
    pub setup: Vec<Step>,
    pub steps: Vec<Step>,
    pub max_iterations: u64,
    /// Stop when the file system's free space (user capacity − valid blocks) falls below.
    pub stop_when_free_below: Option<u64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawScenario {
    #[serde(default)]
    name: String,
    #[serde(default)]
    setup: Vec<RawStep>,
    repeat: Option<RawRepeat>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRepeat {
    max_iterations: u64,
    stop_when_free_below: Option<String>,
    step: Vec<RawStep>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawStep {
    op: String,
    dir: Option<String>,
    file: Option<String>,
    files: Option<u64>,
    size: Option<String>,
    bytes: Option<String>,
    bs: Option<String>,
    k: Option<u64>,
    fsync: Option<u64>,
    ms: Option<u64>,
}

impl Scenario {
    /// Parse scenario TOML (`origin` names it in errors).
    pub fn parse(text: &str, origin: &str) -> Result<Scenario> {
        let raw: RawScenario = toml::from_str(text).map_err(|e| {
            let line = e
                .span()
                .map(|s| text[..s.start.min(text.len())].lines().count().max(1) as u64)
                .unwrap_or(0);
            Error::parse(origin, line, e.message().trim().replace('\n', "; "))
        })?;
        let conv = |steps: Vec<RawStep>, at: &str| -> Result<Vec<Step>> {
            steps
                .into_iter()
                .enumerate()
                .map(|(i, s)| {
                    step(s)
                        .map_err(|r| Error::parse(origin, 0, format!("{at} step {}: {r}", i + 1)))
                })
                .collect()
        };
        let setup = conv(raw.setup, "setup")?;
        let (steps, max_iterations, stop) = match raw.repeat {
            Some(r) => {
                let stop = match r.stop_when_free_below {
                    Some(s) => Some(parse_size(&s).ok_or_else(|| {
                        Error::parse(
                            origin,
                            0,
                            format!("repeat.stop_when_free_below: '{s}' is not a size"),
                        )
                    })?),
                    None => None,
                };
                if r.max_iterations == 0 {
                    return Err(Error::parse(
                        origin,
                        0,
                        "repeat.max_iterations must be at least 1",
                    ));
                }
                (conv(r.step, "repeat")?, r.max_iterations, stop)
            }
            None => (Vec::new(), 0, None),
        };
        if setup.is_empty() && steps.is_empty() {
            return Err(Error::parse(
                origin,
                0,
                "a scenario needs [[setup]] or [repeat] steps",
            ));
        }
        Ok(Scenario {
            name: raw.name,
            setup,
            steps,
            max_iterations,
            stop_when_free_below: stop,
        })
    }
}

fn step(s: RawStep) -> std::result::Result<Step, String> {
    let size = |v: &Option<String>, key: &str| -> std::result::Result<u64, String> {
        let v = v.as_deref().ok_or(format!("op '{}' needs {key}", s.op))?;
        parse_size(v)
            .filter(|&b| b > 0)
            .ok_or(format!("{key}: '{v}' is not a positive size"))
    };
    let bs = match &s.bs {
        Some(_) => {
            let b = size(&s.bs, "bs")?;
            if b % 4096 != 0 {
                return Err(format!("bs must be a multiple of 4 KiB (got {b})"));
            }
            b
        }
        None => 512 << 10,
    };
    let need =
        |v: &Option<String>, key: &str| v.clone().ok_or(format!("op '{}' needs {key}", s.op));
    Ok(match s.op.as_str() {
        "create" => Step::Create {
            dir: need(&s.dir, "dir")?,
            files: s.files.filter(|&n| n > 0).ok_or("op 'create' needs files >= 1")?,
            size: size(&s.size, "size")?,
            bs,
        },
        "delete_every" => Step::DeleteEvery {
            dir: need(&s.dir, "dir")?,
            k: s.k.filter(|&k| k > 0).ok_or("op 'delete_every' needs k >= 1")?,
        },
        "write" => Step::Write { file: need(&s.file, "file")?, size: size(&s.size, "size")?, bs },
        "read" => Step::Read { file: need(&s.file, "file")?, bs },
        "overwrite" => Step::Overwrite {
            dir: need(&s.dir, "dir")?,
            bytes: size(&s.bytes, "bytes")?,
            bs: if s.bs.is_some() { bs } else { 4096 },
            fsync: s.fsync.unwrap_or(0),
        },
        "unlink" => Step::Unlink { file: need(&s.file, "file")? },
        "sync" => Step::Sync,
        "idle" => Step::Idle { ms: s.ms.ok_or("op 'idle' needs ms")? },
        other => {
            return Err(format!(
                "unknown op '{other}' (create, delete_every, write, read, overwrite, unlink, sync, idle)"
            ))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_zufs_aging_loop() {
        let s = Scenario::parse(
            r#"
name = "aging"
[repeat]
max_iterations = 10
stop_when_free_below = "1g"
[[repeat.step]]
op = "create"
dir = "/age"
files = 100
size = "128k"
[[repeat.step]]
op = "delete_every"
dir = "/age"
k = 2
[[repeat.step]]
op = "write"
file = "/t/big"
size = "64m"
[[repeat.step]]
op = "read"
file = "/t/big"
"#,
            "s.toml",
        )
        .unwrap();
        assert_eq!(s.steps.len(), 4);
        assert_eq!(s.stop_when_free_below, Some(1 << 30));
        assert!(
            Scenario::parse("[repeat]\nmax_iterations=1\n[[repeat.step]]\nop='x'\n", "s")
                .unwrap_err()
                .to_string()
                .contains("unknown op")
        );
        assert!(Scenario::parse("bogus = 1\n", "s").is_err());
    }
}
