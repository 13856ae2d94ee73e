//! The fio job-file parser. The accepted subset is documented in the parent module.

use super::{
    default_job, ContinueOnError, Distribution, JobSpec, RwMode, SizeSpec, WriteHint, ZoneMode,
    MAX_AGE_NS, MAX_LOG_AVG_MSEC,
};
use zonesim_core::error::{Error, Result};

const NS_PER_US: u64 = 1_000;
const NS_PER_S: u64 = 1_000_000_000;

/// The deepest queue a job may keep (`iodepth`) and a trace replay may use (`--qd`): 65536,
/// the default Linux AIO limit (`fs.aio-max-nr`); fio itself sets no maximum.
pub const MAX_IODEPTH: u32 = 65536;

/// The most jobs a file may define, `numjobs` clones included: fio's `REAL_MAX_JOBS`.
const MAX_JOBS: u64 = 4096;

/// Parses a fio job file. `file` names it in error messages (`file:line: reason`).
///
/// Returns the jobs in file order, each with the `[global]` defaults in force at its header and
/// fio defaults for the rest. A file without any job section is an error.
pub fn parse_job_file(text: &str, file: &str) -> Result<Vec<JobSpec>> {
    let mut p = Parser {
        file,
        global: default_job(),
        global_sync: false,
        in_global: false,
        cur: None,
        global_time_based_line: 0,
        time_based_line: 0,
        jobs: Vec::new(),
    };
    // A UTF-8 byte-order mark is not part of the first line (as for TOML files).
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut last_line = 0;
    for (i, raw) in text.lines().enumerate() {
        let line = i as u64 + 1;
        last_line = line;
        let body = strip_comment(raw).trim();
        if body.is_empty() {
            continue;
        }
        if let Some(rest) = body.strip_prefix('[') {
            let Some(name) = rest.strip_suffix(']') else {
                return Err(Error::parse(
                    file,
                    line,
                    format!("malformed section header '{body}' (expected [name])"),
                ));
            };
            let name = name.trim();
            if name.is_empty() {
                return Err(Error::parse(file, line, "empty section name '[]'"));
            }
            p.finish_job()?;
            if name == "global" {
                p.cur = None;
                p.in_global = true;
            } else {
                let mut spec = p.global.clone();
                spec.name = name.to_string();
                spec.line = line;
                spec.file = file.to_string();
                p.cur = Some((spec, p.global_sync));
                p.time_based_line = p.global_time_based_line;
                p.in_global = false;
            }
            continue;
        }
        let (key, value) = match body.split_once('=') {
            Some((k, v)) => (k.trim(), Some(v.trim())),
            None => (body, None),
        };
        if key.is_empty() {
            return Err(Error::parse(
                file,
                line,
                format!("missing option name in '{body}'"),
            ));
        }
        p.option(line, key, value)?;
    }
    p.finish_job()?;
    if p.jobs.is_empty() {
        return Err(Error::parse(
            file,
            last_line,
            "no job section in job file (add a [name] section)",
        ));
    }
    Ok(p.jobs)
}

struct Parser<'a> {
    file: &'a str,
    global: JobSpec,
    global_sync: bool,
    /// Inside a `[global]` section.
    in_global: bool,
    /// The job being read and whether its ioengine is synchronous.
    cur: Option<(JobSpec, bool)>,
    /// Lines of the last `time_based` of `[global]` and of the current job (0: none).
    global_time_based_line: u64,
    time_based_line: u64,
    jobs: Vec<JobSpec>,
}

impl Parser<'_> {
    fn finish_job(&mut self) -> Result<()> {
        if let Some((mut spec, sync)) = self.cur.take() {
            if spec.time_based && spec.runtime_ns.is_none() {
                // fio would run such a job until it is interrupted; a simulation never ends.
                return Err(Error::parse(
                    self.file,
                    self.time_based_line,
                    format!(
                        "job '{}': time_based needs a runtime (a time_based job without runtime never ends)",
                        spec.name
                    ),
                ));
            }
            if spec.zone_append && spec.zonemode != ZoneMode::Zbd {
                return Err(Error::parse(
                    self.file,
                    spec.line_of(&["zone_append"]),
                    format!(
                        "job '{}': zone_append=1 turns zbd writes into appends; it needs zonemode=zbd",
                        spec.name
                    ),
                ));
            }
            if sync {
                spec.iodepth = 1;
            }
            let total: u64 = self.jobs.iter().map(|j| u64::from(j.numjobs)).sum::<u64>()
                + u64::from(spec.numjobs);
            if total > MAX_JOBS {
                return Err(Error::parse(
                    self.file,
                    spec.line,
                    format!(
                        "job '{}': more than {MAX_JOBS} jobs (numjobs clones included), fio's own maximum",
                        spec.name
                    ),
                ));
            }
            self.jobs.push(spec);
        }
        Ok(())
    }

    fn option(&mut self, line: u64, key: &str, value: Option<&str>) -> Result<()> {
        let file = self.file;
        let (spec, sync) = match &mut self.cur {
            Some((spec, sync)) => (spec, sync),
            None if self.in_global => (&mut self.global, &mut self.global_sync),
            None => {
                return Err(Error::parse(
                    file,
                    line,
                    format!("option '{key}' outside of a section (start with [global] or [name])"),
                ))
            }
        };
        apply(spec, sync, key, value).map_err(|reason| Error::parse(file, line, reason))?;
        // One entry per option name (its last line): a long file repeating options stays small.
        match spec.option_lines.iter_mut().find(|(k, _)| k == key) {
            Some(at) => at.1 = line,
            None => spec.option_lines.push((key.to_string(), line)),
        }
        if key == "time_based" {
            if self.cur.is_some() {
                self.time_based_line = line;
            } else {
                self.global_time_based_line = line;
            }
        }
        Ok(())
    }
}

/// Removes a `;` or `#` comment and everything after it.
fn strip_comment(line: &str) -> &str {
    match line.find([';', '#']) {
        Some(i) => &line[..i],
        None => line,
    }
}

/// Applies one option to `spec`; the error is the reason text.
fn apply(
    spec: &mut JobSpec,
    sync: &mut bool,
    key: &str,
    value: Option<&str>,
) -> std::result::Result<(), String> {
    let v = || value.ok_or_else(|| format!("option '{key}' needs a value ({key}=...)"));
    match key {
        "name" => {
            let v = v()?;
            if v.is_empty() {
                return Err("name must not be empty".into());
            }
            spec.name = v.to_string();
        }
        "rw" | "readwrite" => spec.rw = parse_rw(key, v()?)?,
        "bs" | "blocksize" => {
            let s = v()?;
            let rule = || format!("{key} must be a positive multiple of 512 bytes, got '{s}'");
            if s.contains(',') {
                return Err(format!(
                    "{key}: separate read/write block sizes ('{s}') are not supported; give one size"
                ));
            }
            let b = parse_size(s).ok_or_else(rule)?;
            if b == 0 || b % 512 != 0 {
                return Err(rule());
            }
            spec.bs = b;
        }
        "size" => {
            let s = parse_region(key, v()?)?;
            if region_is_zero(s) {
                return Err("size must be positive".into());
            }
            spec.size = Some(s);
        }
        "offset" => spec.offset = parse_region(key, v()?)?,
        "io_size" | "io_limit" => {
            let s = v()?;
            let r = parse_region(key, s)?;
            match r {
                SizeSpec::Percent(_) => {
                    return Err(format!(
                        "{key} must be a byte count (e.g. 8g) or a zone count (e.g. 16z), got '{s}'"
                    ))
                }
                _ if region_is_zero(r) => return Err(format!("{key} must be positive")),
                _ => spec.io_size = Some(r),
            }
        }
        "number_ios" => spec.number_ios = Some(parse_int(key, v()?, 1, u64::MAX)?),
        "loops" => spec.loops = parse_int(key, v()?, 1, u64::MAX)?,
        "iodepth" => spec.iodepth = parse_int(key, v()?, 1, MAX_IODEPTH as u64)? as u32,
        // Each clone is a simulated job with its own generator and statistics.
        "numjobs" => spec.numjobs = parse_int(key, v()?, 1, 1024)? as u32,
        "rwmixread" => spec.rwmixread = parse_int(key, v()?, 0, 100)? as u32,
        "rwmixwrite" => spec.rwmixread = 100 - parse_int(key, v()?, 0, 100)? as u32,
        "fsync" => spec.fsync = parse_int(key, v()?, 0, u64::MAX)?,
        "random_distribution" => spec.distribution = parse_distribution(v()?)?,
        "norandommap" => spec.norandommap = parse_bool(key, value)?,
        "runtime" => {
            let ns = parse_time(key, v()?, NS_PER_S)?;
            spec.runtime_ns = (ns > 0).then_some(ns);
        }
        "time_based" => spec.time_based = parse_bool(key, value)?,
        // fio's logs: a bare flag names the files after the job (resolved when it runs).
        "write_lat_log" => spec.logs.lat = Some(value.unwrap_or("").to_string()),
        "write_bw_log" => spec.logs.bw = Some(value.unwrap_or("").to_string()),
        "write_iops_log" => spec.logs.iops = Some(value.unwrap_or("").to_string()),
        "log_avg_msec" => spec.logs.avg_msec = parse_int(key, v()?, 0, MAX_LOG_AVG_MSEC)?,
        "per_job_logs" => spec.logs.per_job = parse_bool(key, value)?,
        "log_offset" => {
            if parse_bool(key, value)? {
                return Err(
                    "log_offset=1 is not supported: the logs have fio's default columns (time, value, direction, block size, priority)"
                        .into(),
                );
            }
        }
        "thinktime" => spec.thinktime_ns = parse_time(key, v()?, NS_PER_US)?,
        "age" => {
            spec.age_ns = parse_time(key, v()?, 86_400 * NS_PER_S)?;
            if spec.age_ns > MAX_AGE_NS {
                return Err(format!(
                    "age must be at most 36500 days (36500d), got '{}'",
                    v()?
                ));
            }
        }
        "stonewall" | "wait_for_previous" => spec.stonewall = parse_bool(key, value)?,
        "zonemode" => {
            spec.zonemode = match v()?.to_ascii_lowercase().as_str() {
                "none" => ZoneMode::None,
                "zbd" => ZoneMode::Zbd,
                other => {
                    return Err(format!(
                        "zonemode must be one of none, zbd, got '{other}' (strided and block \
                         emulation are not supported)"
                    ))
                }
            }
        }
        "max_open_zones" => spec.max_open_zones = parse_int(key, v()?, 0, u32::MAX as u64)? as u32,
        "zone_reset_threshold" => spec.zone_reset_threshold = parse_fraction(key, v()?)?,
        "zone_reset_frequency" => spec.zone_reset_frequency = parse_fraction(key, v()?)?,
        "zone_append" => spec.zone_append = parse_bool(key, value)?,
        "prio" => spec.prio.level = Some(parse_int(key, v()?, 0, 7)? as u8),
        "prioclass" => spec.prio.class = parse_int(key, v()?, 0, 3)? as u8,
        "ipu" => spec.ipu = parse_bool(key, value)?,
        "continue_on_error" => {
            spec.continue_on_error = match v()?.to_ascii_lowercase().as_str() {
                "none" | "0" => ContinueOnError::None,
                "read" => ContinueOnError::Read,
                "write" => ContinueOnError::Write,
                "io" => ContinueOnError::Io,
                "verify" => ContinueOnError::Verify,
                "all" | "1" => ContinueOnError::All,
                other => {
                    return Err(format!(
                        "continue_on_error must be one of none, read, write, io, verify, all, \
                         0, 1, got '{other}'"
                    ))
                }
            }
        }
        "namespace" => spec.namespace = Some(parse_int(key, v()?, 0, u32::MAX as u64)? as u32),
        "write_hint" => {
            spec.write_hint = match v()?.to_ascii_lowercase().as_str() {
                "none" => WriteHint::None,
                "short" => WriteHint::Short,
                "medium" => WriteHint::Medium,
                "long" => WriteHint::Long,
                "extreme" => WriteHint::Extreme,
                other => {
                    return Err(format!(
                    "write_hint must be one of none, short, medium, long, extreme, got '{other}'"
                ))
                }
            }
        }
        // Accepted and ignored: see the module doc for why each value is harmless.
        "ioengine" => {
            *sync = match v()?.to_ascii_lowercase().as_str() {
                "libaio" | "io_uring" | "posixaio" => false,
                "sync" | "psync" | "vsync" | "pvsync" | "pvsync2" => true,
                other => {
                    return Err(format!(
                        "ioengine '{other}' is not supported (accepted: libaio, io_uring, \
                         posixaio, sync, psync, vsync, pvsync, pvsync2)"
                    ))
                }
            }
        }
        "direct" => spec.files.direct = Some(parse_bool(key, value)?),
        "directory" => {
            let d = v()?;
            crate::fs::check_path_name(d).map_err(|e| format!("directory {e}"))?;
            spec.files.directory = Some(d.to_string())
        }
        "nrfiles" => spec.files.nrfiles = Some(parse_int(key, v()?, 1, 1 << 20)? as u32),
        "filesize" => {
            let s = v()?;
            let b = parse_size(s).filter(|&b| b > 0);
            spec.files.filesize =
                Some(b.ok_or_else(|| format!("filesize must be a positive size, got '{s}'"))?);
        }
        "create_on_open" => spec.files.create_on_open = parse_bool(key, value)?,
        "unlink" => spec.files.unlink = parse_bool(key, value)?,
        "fdatasync" => spec.files.fdatasync = parse_int(key, v()?, 0, u64::MAX)?,
        "end_fsync" => spec.files.end_fsync = parse_bool(key, value)?,
        "filename" => {
            let s = v()?;
            let b = s.as_bytes();
            if (0..b.len()).any(|i| b[i] == b':' && (i == 0 || b[i - 1] != b'\\')) {
                return Err(format!(
                    "filename: a list of files ('{s}') is not supported; the job targets one \
                     namespace"
                ));
            }
            spec.files.filename = Some(s.to_string());
        }
        "group_reporting" | "randrepeat" => {
            parse_bool(key, value)?;
        }
        _ => return Err(names::unknown_option(key)),
    }
    Ok(())
}

fn parse_rw(key: &str, s: &str) -> std::result::Result<RwMode, String> {
    Ok(match s.to_ascii_lowercase().as_str() {
        "read" => RwMode::Read,
        "write" => RwMode::Write,
        "randread" => RwMode::RandRead,
        "randwrite" => RwMode::RandWrite,
        "rw" | "readwrite" => RwMode::ReadWrite,
        "randrw" => RwMode::RandRw,
        "trim" => RwMode::Trim,
        "randtrim" => RwMode::RandTrim,
        _ if s.contains(':') => {
            return Err(format!(
                "{key}: the ':N' offset modifier ('{s}') is not supported"
            ))
        }
        _ => {
            return Err(format!(
                "{key} must be one of read, write, randread, randwrite, rw, readwrite, randrw, \
                 trim, randtrim, got '{s}'"
            ))
        }
    })
}

fn parse_distribution(s: &str) -> std::result::Result<Distribution, String> {
    let lower = s.to_ascii_lowercase();
    let (kind, arg) = match lower.split_once(':') {
        Some((k, a)) => (k, Some(a)),
        None => (lower.as_str(), None),
    };
    let num = |a: &str| -> std::result::Result<f64, String> {
        if a.contains(':') || a.contains(',') {
            return Err(format!(
                "random_distribution: a centre or several values ('{s}') are not supported"
            ));
        }
        match a.parse::<f64>() {
            Ok(x) if x.is_finite() => Ok(x),
            _ => Err(format!(
                "random_distribution: '{a}' is not a number in '{s}'"
            )),
        }
    };
    Ok(match kind {
        "random" if arg.is_none() => Distribution::Uniform,
        "zipf" => {
            let t = arg.map(num).transpose()?.unwrap_or(1.1);
            if t <= 0.0 || t == 1.0 {
                return Err(format!(
                    "random_distribution: zipf θ must be > 0 and different from 1, got {t}"
                ));
            }
            Distribution::Zipf(t)
        }
        "pareto" => {
            let h = arg.map(num).transpose()?.unwrap_or(0.2);
            if h <= 0.0 || h >= 1.0 {
                return Err(format!(
                    "random_distribution: pareto h must be > 0 and < 1, got {h}"
                ));
            }
            Distribution::Pareto(h)
        }
        "normal" => {
            let Some(a) = arg else {
                return Err("random_distribution: normal needs σ in percent (normal:σ)".into());
            };
            let sd = num(a)?;
            if sd <= 0.0 || sd > 100.0 {
                return Err(format!(
                    "random_distribution: normal σ must be > 0 and <= 100 (percent), got {sd}"
                ));
            }
            Distribution::Normal(sd)
        }
        _ => {
            return Err(format!(
                "random_distribution must be random, zipf[:θ], pareto[:h] or normal:σ, got '{s}'"
            ))
        }
    })
}

fn parse_bool(key: &str, value: Option<&str>) -> std::result::Result<bool, String> {
    match value {
        None => Ok(true),
        Some("1") => Ok(true),
        Some("0") => Ok(false),
        Some(v) => Err(format!("{key} must be 0 or 1 (or a bare flag), got '{v}'")),
    }
}

fn parse_int(key: &str, s: &str, min: u64, max: u64) -> std::result::Result<u64, String> {
    match s.parse::<u64>() {
        Ok(x) if x >= min && x <= max => Ok(x),
        _ if max == u64::MAX => Err(format!("{key} must be an integer >= {min}, got '{s}'")),
        _ => Err(format!(
            "{key} must be an integer in {min}..={max}, got '{s}'"
        )),
    }
}

fn parse_fraction(key: &str, s: &str) -> std::result::Result<f64, String> {
    match s.parse::<f64>() {
        Ok(x) if (0.0..=1.0).contains(&x) => Ok(x),
        _ => Err(format!("{key} must be a number in 0..=1, got '{s}'")),
    }
}

/// Splits `s` into its leading ASCII digits and the rest.
fn split_digits(s: &str) -> (&str, &str) {
    let end = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    s.split_at(end)
}

/// An integer with an optional binary suffix (`k`, `KiB`, `KB`, ... all powers of 1024).
pub fn parse_size(s: &str) -> Option<u64> {
    let (digits, suffix) = split_digits(s);
    if digits.is_empty() {
        return None;
    }
    let n: u64 = digits.parse().ok()?;
    let suffix = suffix.trim().to_ascii_lowercase();
    let unit = match suffix.as_str() {
        "" => 0,
        _ => {
            // The first character, which may be any (multi-byte) character.
            let mut chars = suffix.chars();
            let p = chars.next().map_or("", |c| &suffix[..c.len_utf8()]);
            let rest = chars.as_str();
            if !matches!(rest, "" | "b" | "ib") {
                return None;
            }
            match p {
                "k" => 1,
                "m" => 2,
                "g" => 3,
                "t" => 4,
                "p" => 5,
                _ => return None,
            }
        }
    };
    n.checked_mul(1u64 << (10 * unit))
}

/// A region size or offset: a size, `N%` or `Nz`.
fn parse_region(key: &str, s: &str) -> std::result::Result<SizeSpec, String> {
    let rule = || {
        format!(
            "{key} must be a byte count with optional k/m/g/t/p suffix, a percentage (N%) or a \
             zone count (Nz), got '{s}'"
        )
    };
    if let Some(p) = s.strip_suffix('%') {
        return match p.trim().parse::<f64>() {
            Ok(x) if (0.0..=100.0).contains(&x) => Ok(SizeSpec::Percent(x)),
            Ok(_) => Err(format!("{key}: percentage must be in 0..=100, got '{s}'")),
            Err(_) => Err(rule()),
        };
    }
    if let Some(z) = s.strip_suffix(['z', 'Z']) {
        return z
            .trim()
            .parse::<u64>()
            .map(SizeSpec::Zones)
            .map_err(|_| rule());
    }
    parse_size(s).map(SizeSpec::Bytes).ok_or_else(rule)
}

fn region_is_zero(s: SizeSpec) -> bool {
    match s {
        SizeSpec::Bytes(b) => b == 0,
        SizeSpec::Percent(p) => p == 0.0,
        SizeSpec::Zones(z) => z == 0,
    }
}

/// A time with an optional unit; a bare number is in `default_unit_ns`.
fn parse_time(key: &str, s: &str, default_unit_ns: u64) -> std::result::Result<u64, String> {
    let rule = || {
        format!("{key} must be an integer with optional unit ns, us, ms, s, m, h or d, got '{s}'")
    };
    let (digits, unit) = split_digits(s);
    if digits.is_empty() {
        return Err(rule());
    }
    let n: u64 = digits.parse().map_err(|_| rule())?;
    let mult = match unit.trim().to_ascii_lowercase().as_str() {
        "" => default_unit_ns,
        "ns" | "nsec" => 1,
        "us" | "usec" => NS_PER_US,
        "ms" | "msec" => 1_000_000,
        "s" | "sec" => NS_PER_S,
        "m" | "min" => 60 * NS_PER_S,
        "h" => 3_600 * NS_PER_S,
        "d" => 86_400 * NS_PER_S,
        _ => return Err(rule()),
    };
    n.checked_mul(mult)
        .ok_or_else(|| format!("{key}: '{s}' is too large"))
}

mod names;
#[cfg(test)]
mod tests;
