//! The fio job-file parser. The accepted subset is documented in the parent module.

use super::{default_job, Distribution, JobSpec, RwMode, SizeSpec, WriteHint, ZoneMode};
use crate::error::{Error, Result};

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
                    spec.line,
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
        "thinktime" => spec.thinktime_ns = parse_time(key, v()?, NS_PER_US)?,
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
        "ipu" => spec.ipu = parse_bool(key, value)?,
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
        "directory" => spec.files.directory = Some(v()?.to_string()),
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
        _ => return Err(format!("unknown fio option '{key}'")),
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

#[cfg(test)]
mod tests {
    use super::*;

    fn one(text: &str) -> JobSpec {
        let mut jobs = parse_job_file(text, "t.fio").unwrap();
        assert_eq!(jobs.len(), 1);
        jobs.pop().unwrap()
    }

    fn err(text: &str) -> String {
        parse_job_file(text, "t.fio").unwrap_err().to_string()
    }

    #[test]
    fn defaults_and_name() {
        let j = one("[job1]\n");
        let mut d = default_job();
        d.name = "job1".into();
        d.line = 1;
        assert_eq!(j, d);
        assert_eq!(one("[a]\nname=b").name, "b");
    }

    #[test]
    fn rw_modes() {
        for (s, m) in [
            ("read", RwMode::Read),
            ("write", RwMode::Write),
            ("randread", RwMode::RandRead),
            ("randwrite", RwMode::RandWrite),
            ("rw", RwMode::ReadWrite),
            ("readwrite", RwMode::ReadWrite),
            ("randrw", RwMode::RandRw),
            ("trim", RwMode::Trim),
            ("randtrim", RwMode::RandTrim),
            ("RandWrite", RwMode::RandWrite),
        ] {
            assert_eq!(one(&format!("[j]\nrw={s}")).rw, m);
            assert_eq!(one(&format!("[j]\nreadwrite = {s}")).rw, m);
        }
        assert!(err("[j]\nrw=randwrite:8").contains("modifier"));
        assert_eq!(
            err("[j]\nrw=sideways"),
            "t.fio:2: rw must be one of read, write, randread, randwrite, rw, readwrite, randrw, \
             trim, randtrim, got 'sideways'"
        );
    }

    #[test]
    fn sizes_and_suffixes() {
        for (s, b) in [
            ("4096", 4096),
            ("4k", 4096),
            ("4K", 4096),
            ("4KiB", 4096),
            ("4kb", 4096),
            ("1m", 1 << 20),
            ("128KiB", 128 << 10),
            ("1g", 1 << 30),
        ] {
            assert_eq!(one(&format!("[j]\nbs={s}")).bs, b, "{s}");
        }
        assert_eq!(one("[j]\nblocksize=8k").bs, 8192);
        assert_eq!(one("[j]\nsize=2g").size, Some(SizeSpec::Bytes(2 << 30)));
        assert_eq!(one("[j]\nsize=50%").size, Some(SizeSpec::Percent(50.0)));
        assert_eq!(one("[j]\nsize=12.5%").size, Some(SizeSpec::Percent(12.5)));
        assert_eq!(one("[j]\nsize=4z").size, Some(SizeSpec::Zones(4)));
        assert_eq!(one("[j]\noffset=1m").offset, SizeSpec::Bytes(1 << 20));
        assert_eq!(one("[j]\noffset=25%").offset, SizeSpec::Percent(25.0));
        assert_eq!(one("[j]\noffset=3z").offset, SizeSpec::Zones(3));
        assert_eq!(
            one("[j]\nio_size=8g").io_size,
            Some(SizeSpec::Bytes(8 << 30))
        );
        assert_eq!(one("[j]\nio_limit=16z").io_size, Some(SizeSpec::Zones(16)));
    }

    #[test]
    fn bad_sizes() {
        let rule = "bs must be a positive multiple of 512 bytes";
        assert!(err("[j]\nbs=1000").contains(rule));
        assert!(err("[j]\nbs=0").contains(rule));
        assert!(err("[j]\nbs=4q").contains(rule));
        assert!(err("[j]\nbs=").contains(rule));
        assert!(err("[j]\nbs=4k,8k").contains("separate read/write"));
        assert!(err("[j]\nbs=99999999999999999p").contains(rule));
        assert!(err("[j]\nsize=0").contains("size must be positive"));
        assert!(err("[j]\nsize=150%").contains("percentage must be in 0..=100"));
        assert!(err("[j]\nsize=lots").contains("size must be a byte count"));
        assert!(err("[j]\nio_size=10%").contains("io_size must be a byte count"));
        assert!(err("[j]\nbs").contains("option 'bs' needs a value"));
    }

    #[test]
    fn integer_options() {
        let j = one(
            "[j]\nnumber_ios=1000\nloops=3\niodepth=32\nnumjobs=4\nrwmixread=70\nfsync=8\n\
             max_open_zones=14",
        );
        assert_eq!(j.number_ios, Some(1000));
        assert_eq!(j.loops, 3);
        assert_eq!(j.iodepth, 32);
        assert_eq!(j.numjobs, 4);
        assert_eq!(j.rwmixread, 70);
        assert_eq!(j.fsync, 8);
        assert_eq!(j.max_open_zones, 14);
        assert_eq!(one("[j]\nrwmixwrite=30").rwmixread, 70);
        assert_eq!(one("[j]\nrwmixwrite=30\nrwmixread=10").rwmixread, 10);
        assert!(err("[j]\niodepth=0").contains("iodepth must be an integer in 1..="));
        assert!(err("[j]\nrwmixread=101").contains("rwmixread must be an integer in 0..=100"));
        assert!(err("[j]\nloops=-1").contains("loops must be an integer >= 1"));
        assert!(err("[j]\nnumjobs=two").contains("numjobs"));
    }

    #[test]
    fn distributions() {
        let d = |s: &str| one(&format!("[j]\nrandom_distribution={s}")).distribution;
        assert_eq!(d("random"), Distribution::Uniform);
        assert_eq!(d("zipf:1.2"), Distribution::Zipf(1.2));
        assert_eq!(d("zipf:0.8"), Distribution::Zipf(0.8));
        assert_eq!(d("zipf"), Distribution::Zipf(1.1));
        assert_eq!(d("pareto:0.9"), Distribution::Pareto(0.9));
        assert_eq!(d("pareto"), Distribution::Pareto(0.2));
        assert_eq!(d("normal:5"), Distribution::Normal(5.0));
        assert!(err("[j]\nrandom_distribution=zipf:1").contains("different from 1"));
        assert!(err("[j]\nrandom_distribution=zipf:-2").contains("zipf θ must be > 0"));
        assert!(err("[j]\nrandom_distribution=pareto:1.5").contains("pareto h"));
        assert!(err("[j]\nrandom_distribution=normal").contains("normal needs σ"));
        assert!(err("[j]\nrandom_distribution=normal:0").contains("normal σ"));
        assert!(err("[j]\nrandom_distribution=zipf:1.2:0.5").contains("centre"));
        assert!(err("[j]\nrandom_distribution=zoned:50/5").contains("must be random"));
        assert!(err("[j]\nrandom_distribution=zipf:x").contains("not a number"));
    }

    #[test]
    fn times() {
        let j = one("[j]\nruntime=10\nthinktime=50");
        assert_eq!(j.runtime_ns, Some(10 * NS_PER_S));
        assert_eq!(j.thinktime_ns, 50 * NS_PER_US);
        assert_eq!(one("[j]\nruntime=250ms").runtime_ns, Some(250_000_000));
        assert_eq!(one("[j]\nruntime=2m").runtime_ns, Some(120 * NS_PER_S));
        assert_eq!(one("[j]\nruntime=30us").runtime_ns, Some(30_000));
        assert_eq!(one("[j]\nruntime=3s").runtime_ns, Some(3 * NS_PER_S));
        assert_eq!(one("[j]\nruntime=0").runtime_ns, None);
        assert_eq!(one("[j]\nthinktime=2ms").thinktime_ns, 2_000_000);
        assert_eq!(one("[j]\nthinktime=1s").thinktime_ns, NS_PER_S);
        assert!(err("[j]\nruntime=5 fortnights").contains("runtime must be an integer"));
        assert!(err("[j]\nthinktime=ms").contains("thinktime"));
    }

    #[test]
    fn flags() {
        let j = one("[j]\nstonewall\ntime_based\nruntime=1\nnorandommap");
        assert!(j.stonewall && j.time_based && j.norandommap);
        let j = one("[j]\nstonewall=0\ntime_based=1\nruntime=1\nwait_for_previous=0");
        assert!(!j.stonewall && j.time_based);
        assert!(err("[j]\ntime_based=yes").contains("time_based must be 0 or 1"));
    }

    #[test]
    fn namespace_extension() {
        assert_eq!(one("[j]\nnamespace=1").namespace, Some(1));
        assert_eq!(one("[j]").namespace, None);
        assert!(err("[j]\nnamespace=-1").contains("namespace"));
    }

    #[test]
    fn zone_options() {
        let j = one(
            "[j]\nzonemode=zbd\nmax_open_zones=6\nzone_reset_threshold=0.7\n\
             zone_reset_frequency=0.01\nwrite_hint=long",
        );
        assert_eq!(j.zonemode, ZoneMode::Zbd);
        assert_eq!(j.max_open_zones, 6);
        assert_eq!(j.zone_reset_threshold, 0.7);
        assert_eq!(j.zone_reset_frequency, 0.01);
        assert_eq!(j.write_hint, WriteHint::Long);
        for (s, h) in [
            ("none", WriteHint::None),
            ("short", WriteHint::Short),
            ("medium", WriteHint::Medium),
            ("extreme", WriteHint::Extreme),
        ] {
            assert_eq!(one(&format!("[j]\nwrite_hint={s}")).write_hint, h);
        }
        assert_eq!(one("[j]\nzonemode=none").zonemode, ZoneMode::None);
        assert!(err("[j]\nzonemode=strided").contains("zonemode must be one of none, zbd"));
        assert!(err("[j]\nzone_reset_threshold=1.5").contains("0..=1"));
        assert!(err("[j]\nwrite_hint=forever").contains("write_hint must be one of"));
    }

    #[test]
    fn ignored_options() {
        let j = one(
            "[j]\nioengine=libaio\ndirect=1\nfilename=/dev/nvme0n1\ngroup_reporting\n\
             randrepeat=0\niodepth=16",
        );
        assert_eq!(j.iodepth, 16);
        assert_eq!(
            one("[j]\nfilename=/dev/disk/by-path/pci-0000\\:00").iodepth,
            1
        );
        // A synchronous engine forces queue depth 1, wherever it is set.
        assert_eq!(one("[j]\niodepth=16\nioengine=psync").iodepth, 1);
        let jobs = parse_job_file("[global]\nioengine=sync\n[a]\niodepth=8\n", "t").unwrap();
        assert_eq!(jobs[0].iodepth, 1);
        assert_eq!(one("[j]\ndirect=0").files.direct, Some(false));
        assert_eq!(
            one("[j]\ndirect=0").files.fs_only_option(),
            Some("direct=0")
        );
        assert!(err("[j]\nioengine=null").contains("ioengine 'null' is not supported"));
        assert!(err("[j]\nfilename=a:b").contains("list of files"));
    }

    #[test]
    fn global_inheritance() {
        let text = "\
; a comment
# another
[global]
bs = 16k
rw=randwrite
iodepth=4

[a]
size=1g

[b]
bs=8k  ; inline comment
[global]
iodepth=8
[c]
";
        let jobs = parse_job_file(text, "t.fio").unwrap();
        assert_eq!(jobs.len(), 3);
        let (a, b, c) = (&jobs[0], &jobs[1], &jobs[2]);
        assert_eq!((a.name.as_str(), a.line), ("a", 8));
        assert_eq!((a.bs, a.rw, a.iodepth), (16384, RwMode::RandWrite, 4));
        assert_eq!(a.size, Some(SizeSpec::Bytes(1 << 30)));
        assert_eq!(
            (b.bs, b.rw, b.iodepth, b.size),
            (8192, RwMode::RandWrite, 4, None)
        );
        assert_eq!((c.name.as_str(), c.bs, c.iodepth), ("c", 16384, 8));
    }

    #[test]
    fn structural_errors() {
        assert_eq!(
            err("[global]\nbs=4k\n\n[j]\nrw=read\nfoo=bar\n"),
            "t.fio:6: unknown fio option 'foo'"
        );
        assert_eq!(
            err("[j]\n  frobnicate\n"),
            "t.fio:2: unknown fio option 'frobnicate'"
        );
        assert!(err("bs=4k\n[j]\n").starts_with("t.fio:1: option 'bs' outside of a section"));
        assert!(err("[global]\nbs=4k\n").contains("no job section"));
        assert!(err("").contains("no job section"));
        assert!(err("[j\n").starts_with("t.fio:1: malformed section header"));
        assert!(err("[ ]\n").contains("empty section name"));
        assert!(err("[j]\n=4k\n").contains("missing option name"));
    }

    /// Audit H1: time_based without runtime would never end: an error at the time_based line.
    #[test]
    fn time_based_needs_runtime() {
        assert_eq!(
            err("[job]\nrw=randread\nsize=4m\ntime_based\n"),
            "t.fio:4: job 'job': time_based needs a runtime (a time_based job without runtime never ends)"
        );
        // Inherited from [global]: the global line is named.
        assert!(err("[global]\ntime_based\n[a]\nrw=read\n").starts_with("t.fio:2: job 'a':"));
        // runtime=0 is no runtime, as in fio.
        assert!(err("[j]\ntime_based\nruntime=0\n").starts_with("t.fio:2:"));
        // With a runtime (here, from [global]) or switched off, fine.
        one("[global]\nruntime=1s\n[j]\ntime_based\n");
        one("[global]\ntime_based\n[j]\ntime_based=0\n");
    }

    /// Audit C2: iodepth is bounded (65536, the Linux AIO default limit).
    #[test]
    fn iodepth_is_bounded() {
        assert_eq!(one("[j]\niodepth=65536").iodepth, 65536);
        assert_eq!(
            err("[j]\nrw=randread\nsize=4m\niodepth=4294967295\ntime_based\nruntime=1s\n"),
            "t.fio:4: iodepth must be an integer in 1..=65536, got '4294967295'"
        );
    }

    /// A non-ASCII character after the digits of a size is a located error (fuzz finding).
    #[test]
    fn non_ascii_size_suffix_is_an_error() {
        assert!(err("[j]\nbs=1\u{fffd}28k").starts_with("t.fio:2: bs must be"));
        assert!(err("[j]\nsize=4é").starts_with("t.fio:2: size must be"));
        assert_eq!(parse_size("4é"), None);
    }

    /// At most 4096 jobs, clones included, as fio (memory stays bounded).
    #[test]
    fn job_count_is_bounded() {
        let four = "[a]\nnumjobs=1024\n".repeat(4);
        assert_eq!(parse_job_file(&four, "t.fio").unwrap().len(), 4);
        let e = err(&format!("{four}[b]\n"));
        assert_eq!(
            e,
            "t.fio:9: job 'b': more than 4096 jobs (numjobs clones included), fio's own maximum"
        );
    }

    /// A UTF-8 byte-order mark is not an option name.
    #[test]
    fn byte_order_mark_is_ignored() {
        assert_eq!(one("\u{feff}[w]\nrw=randwrite\n").name, "w");
    }
}
