//! Aging scenarios (docs/fs.md "Scenario format"): file-system procedures fio cannot express —
//! create N files, delete every k-th, overwrite randomly, write and read a test file — as TOML
//! steps, run once (`[[setup]]`) and then in a loop (`[repeat]`) until a stop condition, with a
//! record per iteration. `sim::scenario` runs them on the host file system. A step is an `op`
//! or an application run: `sysbench = { test = "oltp_write_only", tables = N, ... }` (sysbench's
//! OLTP on the InnoDB model, `apps::sysbench`). `[[step]]` is another name for `[[setup]]`.

use crate::apps::innodb::FlushMethod;
use crate::apps::sysbench::{self as sb, RandType, SysbenchSpec, Test};
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
    /// The device sits unpowered for `days`: retention time passes without simulated events
    /// or a moving clock (the device's data ages; docs/wear.md).
    Age { days: u64 },
    /// Power fails at once and comes back: the device loses what its model says (docs/power.md)
    /// and recovers, then the scenario goes on. The file system model is not rolled back.
    PowerOff,
    /// sysbench OLTP on the InnoDB model: prepare the tables, then run.
    Sysbench(SysbenchSpec),
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

/// The most iterations a `[repeat]` loop may run: each keeps its record in the report, so a
/// loop whose steps never fill the file system (reads, syncs, idles) still ends and its report
/// stays a few tens of MB.
pub const MAX_ITERATIONS: u64 = 100_000;

/// The longest `age` step: a hundred years.
pub const MAX_AGE_DAYS: u64 = 36_500;

/// The longest `idle` step: one day of simulated time (repeat the step for longer).
pub const MAX_IDLE_MS: u64 = 86_400_000;

/// The largest `size` or `bytes` of a step: 8 TiB, the largest array zonesim simulates.
pub const MAX_STEP_BYTES: u64 = 1 << 43;

/// The largest request size `bs` of a step: 1 GiB, as fio's `bs`.
pub const MAX_STEP_BS: u64 = 1 << 30;

/// The most files one `create` step makes: 2^32 (F2FS node ids are 32-bit).
pub const MAX_STEP_FILES: u64 = 1 << 32;

type Spanned<T> = toml::Spanned<T>;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawScenario {
    #[serde(default)]
    name: String,
    #[serde(default)]
    setup: Vec<Spanned<RawStep>>,
    #[serde(default)]
    step: Vec<Spanned<RawStep>>,
    repeat: Option<RawRepeat>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRepeat {
    max_iterations: Spanned<u64>,
    stop_when_free_below: Option<Spanned<String>>,
    step: Vec<Spanned<RawStep>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawStep {
    op: Option<Spanned<String>>,
    sysbench: Option<Spanned<RawSysbench>>,
    dir: Option<Spanned<String>>,
    file: Option<Spanned<String>>,
    files: Option<Spanned<u64>>,
    size: Option<Spanned<String>>,
    bytes: Option<Spanned<String>>,
    bs: Option<Spanned<String>>,
    k: Option<Spanned<u64>>,
    fsync: Option<Spanned<u64>>,
    ms: Option<Spanned<u64>>,
    days: Option<Spanned<u64>>,
}

/// A `sysbench = { ... }` step: sysbench's option names, and the InnoDB settings a step may
/// change.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSysbench {
    test: Spanned<String>,
    tables: Spanned<u64>,
    table_size: Spanned<u64>,
    threads: Spanned<u64>,
    time_s: Spanned<u64>,
    rand_type: Option<Spanned<String>>,
    buffer_pool_mb: Option<Spanned<u64>>,
    trx_commit: Option<Spanned<u64>>,
    doublewrite: Option<Spanned<bool>>,
    flush_method: Option<Spanned<String>>,
}

/// The 1-based line of byte `at` of `text`.
fn line_at(text: &str, at: usize) -> u64 {
    text.as_bytes()[..at.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count() as u64
        + 1
}

/// A step's error: where (byte offset) and why.
type StepError = (usize, String);

impl Scenario {
    /// Parse scenario TOML (`origin` names it in errors, with the line of the offending key).
    pub fn parse(text: &str, origin: &str) -> Result<Scenario> {
        let raw: RawScenario = toml::from_str(text).map_err(|e| {
            let line = e.span().map_or(0, |s| line_at(text, s.start));
            Error::parse(origin, line, e.message().trim().replace('\n', "; "))
        })?;
        let at = |pos: usize, msg: String| Error::parse(origin, line_at(text, pos), msg);
        let conv = |steps: Vec<Spanned<RawStep>>, what: &str| -> Result<Vec<Step>> {
            steps
                .into_iter()
                .enumerate()
                .map(|(i, s)| {
                    let pos = s.span().start;
                    step(s.into_inner())
                        .map_err(|(p, r)| at(p.max(pos), format!("{what} step {}: {r}", i + 1)))
                })
                .collect()
        };
        let mut setup = conv(raw.setup, "setup")?;
        setup.extend(conv(raw.step, "scenario")?);
        let (steps, max_iterations, stop) = match raw.repeat {
            Some(r) => {
                let stop = match r.stop_when_free_below {
                    Some(s) => Some(parse_size(s.get_ref()).ok_or_else(|| {
                        at(
                            s.span().start,
                            format!(
                                "repeat.stop_when_free_below: '{}' is not a size",
                                s.get_ref()
                            ),
                        )
                    })?),
                    None => None,
                };
                let n = *r.max_iterations.get_ref();
                if !(1..=MAX_ITERATIONS).contains(&n) {
                    return Err(at(
                        r.max_iterations.span().start,
                        format!("repeat.max_iterations must be in 1..={MAX_ITERATIONS} (got {n}): each iteration keeps a record"),
                    ));
                }
                (conv(r.step, "repeat")?, n, stop)
            }
            None => (Vec::new(), 0, None),
        };
        if setup.is_empty() && steps.is_empty() {
            return Err(Error::parse(
                origin,
                1,
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

/// A number of a step within `range`, or the error at its key.
fn bounded(
    v: &Spanned<u64>,
    key: &str,
    range: std::ops::RangeInclusive<u64>,
) -> std::result::Result<u64, StepError> {
    let n = *v.get_ref();
    if range.contains(&n) {
        return Ok(n);
    }
    Err((
        v.span().start,
        format!(
            "{key} must be in {}..={} (got {n})",
            range.start(),
            range.end()
        ),
    ))
}

/// One of the named values of a key, or the error at it.
fn one_of<T: Copy>(
    v: &Spanned<String>,
    key: &str,
    names: &[(&str, T)],
) -> std::result::Result<T, StepError> {
    names
        .iter()
        .find(|(n, _)| *n == v.get_ref())
        .map(|&(_, x)| x)
        .ok_or_else(|| {
            let all: Vec<&str> = names.iter().map(|(n, _)| *n).collect();
            (
                v.span().start,
                format!(
                    "{key} '{}': expected one of {}",
                    v.get_ref(),
                    all.join(", ")
                ),
            )
        })
}

fn sysbench(r: RawSysbench) -> std::result::Result<Step, StepError> {
    let test = one_of(
        &r.test,
        "sysbench.test",
        &[
            ("oltp_write_only", Test::WriteOnly),
            ("oltp_read_write", Test::ReadWrite),
        ],
    )?;
    let mut s = SysbenchSpec::new(test);
    s.tables = bounded(&r.tables, "sysbench.tables", 1..=sb::MAX_TABLES)? as u32;
    s.table_size = bounded(&r.table_size, "sysbench.table_size", 1..=sb::MAX_TABLE_SIZE)?;
    s.threads = bounded(&r.threads, "sysbench.threads", 1..=sb::MAX_THREADS)? as u32;
    s.time_s = bounded(&r.time_s, "sysbench.time_s", 1..=sb::MAX_TIME_S)?;
    if let Some(v) = &r.rand_type {
        let names = [
            ("special", RandType::Special),
            ("uniform", RandType::Uniform),
        ];
        s.rand_type = one_of(v, "sysbench.rand_type", &names)?;
    }
    if let Some(v) = &r.buffer_pool_mb {
        let (lo, hi) = sb::BUFFER_POOL_MB;
        s.buffer_pool_mb = bounded(v, "sysbench.buffer_pool_mb", lo..=hi)?;
    }
    if let Some(v) = &r.trx_commit {
        s.trx_commit = bounded(v, "sysbench.trx_commit", 0..=2)? as u8;
    }
    if let Some(v) = &r.doublewrite {
        s.doublewrite = *v.get_ref();
    }
    if let Some(v) = &r.flush_method {
        let names = [
            ("fsync", FlushMethod::Fsync),
            ("O_DIRECT", FlushMethod::ODirect),
        ];
        s.flush_method = one_of(v, "sysbench.flush_method", &names)?;
    }
    Ok(Step::Sysbench(s))
}

fn step(s: RawStep) -> std::result::Result<Step, StepError> {
    let op_s = match (s.op, s.sysbench) {
        (None, Some(sb)) => return sysbench(sb.into_inner()),
        (Some(op), None) => op,
        (Some(op), Some(_)) => {
            return Err((
                op.span().start,
                "a step is either an op or sysbench, not both".into(),
            ))
        }
        (None, None) => return Err((0, "a step needs op = \"...\" or sysbench = { ... }".into())),
    };
    let op = op_s.get_ref().as_str();
    let op_at = op_s.span().start;
    let missing = |key: &str| (op_at, format!("op '{op}' needs {key}"));
    let size =
        |v: &Option<Spanned<String>>, key: &str, max: u64| -> std::result::Result<u64, StepError> {
            let v = v.as_ref().ok_or_else(|| missing(key))?;
            let b = parse_size(v.get_ref()).filter(|&b| b > 0).ok_or((
                v.span().start,
                format!("{key}: '{}' is not a positive size", v.get_ref()),
            ))?;
            if b > max {
                return Err((
                    v.span().start,
                    format!("{key}: {b} bytes is more than {max} (the most a step may take)"),
                ));
            }
            Ok(b)
        };
    let bs = match &s.bs {
        Some(v) => {
            let b = size(&s.bs, "bs", MAX_STEP_BS)?;
            if b % 4096 != 0 {
                return Err((
                    v.span().start,
                    format!("bs must be a multiple of 4 KiB (got {b})"),
                ));
            }
            b
        }
        None => 512 << 10,
    };
    let need = |v: &Option<Spanned<String>>, key: &str| {
        let x = v.as_ref().ok_or_else(|| missing(key))?;
        crate::fs::check_path_name(x.get_ref())
            .map_err(|e| (x.span().start, format!("{key} {e}")))?;
        Ok(x.get_ref().clone())
    };
    Ok(match op {
        "create" => Step::Create {
            dir: need(&s.dir, "dir")?,
            files: bounded(
                s.files.as_ref().ok_or_else(|| missing("files >= 1"))?,
                "files",
                1..=MAX_STEP_FILES,
            )?,
            size: size(&s.size, "size", MAX_STEP_BYTES)?,
            bs,
        },
        "delete_every" => Step::DeleteEvery {
            dir: need(&s.dir, "dir")?,
            k: bounded(
                s.k.as_ref().ok_or_else(|| missing("k >= 1"))?,
                "k",
                1..=u64::MAX,
            )?,
        },
        "write" => Step::Write {
            file: need(&s.file, "file")?,
            size: size(&s.size, "size", MAX_STEP_BYTES)?,
            bs,
        },
        "read" => Step::Read { file: need(&s.file, "file")?, bs },
        "overwrite" => Step::Overwrite {
            dir: need(&s.dir, "dir")?,
            bytes: size(&s.bytes, "bytes", MAX_STEP_BYTES)?,
            bs: if s.bs.is_some() { bs } else { 4096 },
            fsync: s.fsync.map_or(0, |f| *f.get_ref()),
        },
        "unlink" => Step::Unlink { file: need(&s.file, "file")? },
        "sync" => Step::Sync,
        "power_off" => Step::PowerOff,
        "idle" => Step::Idle {
            ms: bounded(
                s.ms.as_ref().ok_or_else(|| missing("ms"))?,
                "ms",
                1..=MAX_IDLE_MS,
            )?,
        },
        "age" => Step::Age {
            days: bounded(
                s.days.as_ref().ok_or_else(|| missing("days"))?,
                "days",
                1..=MAX_AGE_DAYS,
            )?,
        },
        other => {
            return Err((
                op_at,
                format!(
                    "unknown op '{other}' (create, delete_every, write, read, overwrite, unlink, sync, idle, age, power_off)"
                ),
            ))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn power_off_is_a_step_without_keys() {
        let s = Scenario::parse("[[setup]]\nop = \"power_off\"\n", "p.toml").unwrap();
        assert_eq!(s.setup, vec![Step::PowerOff]);
        let e = Scenario::parse("[[setup]]\nop = \"poweroff\"\n", "p.toml").unwrap_err();
        assert!(e.to_string().contains("power_off)"), "{e}");
    }

    #[test]
    fn age_steps_take_days_in_range() {
        let s = Scenario::parse("[[setup]]\nop = \"age\"\ndays = 365\n", "a.toml").unwrap();
        assert_eq!(s.setup, vec![Step::Age { days: 365 }]);
        let e = Scenario::parse("[[setup]]\nop = \"age\"\ndays = 0\n", "a.toml").unwrap_err();
        assert!(
            e.to_string().contains("a.toml:3")
                && e.to_string().contains("days must be in 1..=36500"),
            "{e}"
        );
        let e = Scenario::parse("[[setup]]\nop = \"age\"\n", "a.toml").unwrap_err();
        assert!(e.to_string().contains("op 'age' needs days"), "{e}");
    }

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

    fn err(text: &str) -> String {
        Scenario::parse(text, "sc.toml").unwrap_err().to_string()
    }

    /// Empty, control-character and over-long names are refused on their own line.
    #[test]
    fn names_are_checked() {
        let e = err("[[setup]]\nop = \"create\"\ndir = \"\"\nfiles = 1\nsize = \"4k\"\n");
        assert_eq!(e, "sc.toml:3: setup step 1: dir must not be empty");
        let e = err("[[setup]]\nop = \"unlink\"\nfile = \"/a\\u0000b\"\n");
        assert_eq!(
            e,
            "sc.toml:3: setup step 1: file must not contain control characters"
        );
        let long = "/d".repeat(3000);
        let e = err(&format!("[[setup]]\nop = \"unlink\"\nfile = \"{long}\"\n"));
        assert!(
            e.starts_with("sc.toml:3: setup step 1: file is 6000 bytes"),
            "{e}"
        );
    }

    /// Step errors name the line of the key at fault (or of the step's `op`), never line 0.
    #[test]
    fn step_errors_carry_the_line_of_their_key() {
        let e = err("[[setup]]\nop = \"create\"\ndir = \"/d\"\nsize = \"4k\"\n");
        assert_eq!(e, "sc.toml:2: setup step 1: op 'create' needs files >= 1");
        let e = err("[[setup]]\nop = \"sync\"\n[[setup]]\nop = \"write\"\nfile = \"/f\"\nsize = \"4k\"\nbs = \"6k\"\n");
        assert_eq!(
            e,
            "sc.toml:7: setup step 2: bs must be a multiple of 4 KiB (got 6144)"
        );
        let e = err("[repeat]\nmax_iterations = 2\n[[repeat.step]]\nop = \"nope\"\n");
        assert!(
            e.starts_with("sc.toml:4: repeat step 1: unknown op 'nope'"),
            "{e}"
        );
        let e = err("[repeat]\nmax_iterations = 2\nstop_when_free_below = \"x\"\n[[repeat.step]]\nop = \"sync\"\n");
        assert!(
            e.starts_with("sc.toml:3: repeat.stop_when_free_below"),
            "{e}"
        );
    }

    /// Time, count and size values are bounded: an idle of 2^63 ms or a loop of 2^63
    /// iterations is refused before anything runs, at the line of its key.
    #[test]
    fn idle_iterations_and_sizes_are_bounded() {
        let e = err("[[setup]]\nop = \"idle\"\nms = 9223372036854775807\n");
        assert_eq!(
            e,
            "sc.toml:3: setup step 1: ms must be in 1..=86400000 (got 9223372036854775807)"
        );
        assert!(err("[[setup]]\nop = \"idle\"\nms = 0\n").contains("ms must be in 1..="));
        let e =
            err("[repeat]\nmax_iterations = 9223372036854775807\n[[repeat.step]]\nop = \"sync\"\n");
        assert!(
            e.starts_with("sc.toml:2: repeat.max_iterations must be in 1..=100000"),
            "{e}"
        );
        assert!(
            err("[repeat]\nmax_iterations = 0\n[[repeat.step]]\nop = \"sync\"\n")
                .contains("max_iterations must be in 1..=")
        );
        let e = err("[[setup]]\nop = \"write\"\nfile = \"/f\"\nsize = \"16t\"\n");
        assert!(
            e.starts_with("sc.toml:4: setup step 1: size: 17592186044416 bytes is more than"),
            "{e}"
        );
        let e = err("[[setup]]\nop = \"read\"\nfile = \"/f\"\nbs = \"2g\"\n");
        assert!(
            e.contains("bs: 2147483648 bytes is more than 1073741824"),
            "{e}"
        );
        let ok = Scenario::parse("[[setup]]\nop = \"idle\"\nms = 86400000\n", "s").unwrap();
        assert_eq!(ok.setup, vec![Step::Idle { ms: MAX_IDLE_MS }]);
    }

    /// A `sysbench` step: sysbench's option names, defaults for the optional keys, and each
    /// bad value refused at its own line.
    #[test]
    fn sysbench_steps() {
        let s = Scenario::parse(
            "[[step]]\nsysbench = { test = \"oltp_write_only\", tables = 2, table_size = 20000, threads = 4, time_s = 2 }\n",
            "sb.toml",
        )
        .unwrap();
        let Step::Sysbench(b) = &s.setup[0] else {
            panic!("{:?}", s.setup)
        };
        assert_eq!(
            (b.tables, b.table_size, b.threads, b.time_s),
            (2, 20000, 4, 2)
        );
        assert_eq!(
            (b.trx_commit, b.doublewrite, b.buffer_pool_mb),
            (1, true, 128)
        );
        assert_eq!(b.rand_type, RandType::Special);
        let bad = |kv: &str| {
            err(&format!(
                "[[step]]\nsysbench = {{ test = \"oltp_read_write\", tables = 1, table_size = 10, threads = 1, time_s = 1, {kv} }}\n"
            ))
        };
        assert_eq!(
            bad("trx_commit = 3"),
            "sc.toml:2: scenario step 1: sysbench.trx_commit must be in 0..=2 (got 3)"
        );
        assert!(bad("flush_method = \"direct\"")
            .starts_with("sc.toml:2: scenario step 1: sysbench.flush_method 'direct': expected one of fsync, O_DIRECT"));
        assert!(bad("buffer_pool_mb = 1").contains("sysbench.buffer_pool_mb must be in 5..="));
        assert!(bad("rand_type = \"pareto\"").contains("expected one of special, uniform"));
        assert!(
            bad("bogus = 1").starts_with("sc.toml:"),
            "{}",
            bad("bogus = 1")
        );
        let e = err("[[step]]\nsysbench = { test = \"oltp_x\", tables = 1, table_size = 1, threads = 1, time_s = 1 }\n");
        assert!(
            e.starts_with("sc.toml:2: scenario step 1: sysbench.test 'oltp_x'"),
            "{e}"
        );
        let e = err("[[step]]\nsysbench = { test = \"oltp_write_only\", tables = 0, table_size = 1, threads = 1, time_s = 1 }\n");
        assert_eq!(
            e,
            "sc.toml:2: scenario step 1: sysbench.tables must be in 1..=10000 (got 0)"
        );
        assert!(err("[[step]]\nms = 3\n").contains("needs op"));
    }
}
