//! fio-style workloads: the job-file parser ([`parse_job_file`]) and the per-job I/O generator
//! ([`JobGen`]).
//!
//! # Job-file syntax
//!
//! fio's ini syntax: `[name]` starts a job, `[global]` a section of defaults for every job that
//! follows it (several `[global]` sections may appear; each one keeps changing the defaults for
//! the jobs after it). Inside a section, `key=value` (whitespace around `=` is allowed) or a bare
//! flag (`stonewall`). Lines starting with `;` or `#` are comments; text after a `;` or `#`
//! elsewhere on a line is a comment too. Option names are case-sensitive (as in fio); enumerated
//! values (`rw=RandWrite`) are not. Any option not listed below is an error naming the option and
//! its line; so is a value that breaks the option's rule.
//!
//! ## Value forms
//!
//! - *size*: an integer with an optional suffix `k`, `m`, `g`, `t`, `p`, optionally followed by
//!   `b` or `ib` (case-insensitive). All suffixes are powers of 1024: `4k` = `4KiB` = `4KB` = 4096.
//! - *region size*: a *size*, or `N%` of the target capacity (`N` may have a fraction), or `Nz`
//!   = N zones of the target.
//! - *time*: an integer with optional unit `ns`, `us`/`usec`, `ms`/`msec`, `s`/`sec`, `m`/`min`,
//!   `h`, `d`. A bare number is in seconds (`runtime`) or microseconds (`thinktime`), as in fio, or days
//!   (`age`).
//! - *bool*: a bare flag means 1; otherwise `0` or `1`.
//!
//! ## Supported options (the exact subset)
//!
//! | option | value | default | meaning |
//! |---|---|---|---|
//! | `name` | string | section name | job name |
//! | `rw`, `readwrite` | `read` `write` `randread` `randwrite` `rw` `readwrite` `randrw` `trim` `randtrim` | `read` | I/O pattern |
//! | `bs`, `blocksize` | size, positive multiple of 512 | `4k` | request size |
//! | `size` | region size | rest of the target after `offset` | region the job works on |
//! | `offset` | region size | `0` | start of the region |
//! | `io_size`, `io_limit` | size or `Nz` | `size` × `loops` | bytes to transfer |
//! | `number_ios` | integer ≥ 1 | none | stop after this many I/Os (never extends the job) |
//! | `loops` | integer ≥ 1 | `1` | passes over the region |
//! | `iodepth` | integer in 1..=65536 (the Linux AIO default limit) | `1` | outstanding I/Os (the caller enforces it) |
//! | `numjobs` | 1..=1024 | `1` | clones of the job, same region, own random stream; at most 4096 jobs in all, clones included (fio's limit) |
//! | `rwmixread` | 0..=100 | `50` | percentage of reads in `rw`/`randrw` |
//! | `rwmixwrite` | 0..=100 | `50` | sets `rwmixread` = 100 − value (last one wins) |
//! | `fsync` | integer ≥ 0 | `0` | a `Flush` after every N writes (0: never) |
//! | `random_distribution` | `random`, `zipf[:θ]`, `pareto[:h]`, `normal:σ` | `random` | access skew of random jobs; θ > 0, θ ≠ 1 (default 1.1); 0 < h < 1 (default 0.2); 0 < σ ≤ 100 (% of region) |
//! | `norandommap` | bool | `0` | uniform random I/O draws independently instead of covering every block once per pass |
//! | `runtime` | time | none (0 = none) | limit in simulated time (the caller enforces it) |
//! | `time_based` | bool | `0` | run until `runtime` even when the byte budget is spent; needs `runtime` |
//! | `thinktime` | time (bare = µs) | `0` | idle time between I/Os (the caller applies it) |
//! | `age` | time (bare = days), at most 36500 days | `0` | zonesim extension (not fio): before the job starts, the device sits unpowered this long — retention time passes for the flash's error model and the firmware's retention refresh without simulating the time (as a scenario's `age` step; docs/wear.md) |
//! | `stonewall`, `wait_for_previous` | bool | `0` | wait for earlier jobs to finish first |
//! | `zonemode` | `none`, `zbd` | `none` | zoned-device mode |
//! | `max_open_zones` | integer ≥ 0 | `0` (no limit) | zones this job writes concurrently (zbd) |
//! | `zone_reset_threshold` | 0..=1 | `0` | see "Zoned mode" |
//! | `zone_reset_frequency` | 0..=1 | `0` | see "Zoned mode" |
//! | `write_hint` | `none` `short` `medium` `long` `extreme` | `none` | lifetime hint, kept for placement |
//! | `zone_append` | bool | `0` | zbd writes are sent as zone appends (fio's option; needs `zonemode=zbd`); appends bypass the host's zone write lock |
//! | `prio` | int 0-7 | unset (BE level 4) | I/O priority level, 0 highest (fio's option); orders the job's requests in the host scheduler when `host.queue_depth` tags are in use |
//! | `prioclass` | int 0-3 | `0` | I/O priority class: 0 none (= best-effort), 1 realtime, 2 best-effort, 3 idle (fio's option, Linux `IOPRIO_CLASS_*`) |
//! | `ipu` | bool | `0` | zonesim extension (not fio): writes are in-place updates, taken below a zone's write pointer within the device's `zone.ipu_budget_bytes` (ZMS, docs/zoned.md); rejected ones are counted by the device; on files under `--fs` it marks the job's files and the file system sends their overwrites in place, falling back out of place when refused (docs/fs.md) |
//! | `continue_on_error` | `none`, `read`, `write`, `io`, `verify`, `all`, `0`, `1` | `none` | fio's option: with `write`, `io`, `all` or `1` a write the zoned namespace rejects (off the write pointer, too many open zones, ...) is counted under `device.zones.errors` and the job goes on; otherwise it ends the run with an error naming the job and the zone rule |
//! | `write_lat_log` | string, or bare | unset | fio's latency logs `NAME_lat.N.log`, `NAME_clat.N.log`, `NAME_slat.N.log` (N: the job's number from 1, clones counted; a bare flag names them after the job); value: latency in ns (`lat` = `clat`: the latency from issue to completion, host queueing included; `slat` is 0: no submission cost is modelled) |
//! | `write_bw_log` | string, or bare | unset | fio's bandwidth log `NAME_bw.N.log`, KiB/s |
//! | `write_iops_log` | string, or bare | unset | fio's IOPS log `NAME_iops.N.log` |
//! | `log_avg_msec` | integer 0..=86400000 (ms) | `0` | 0: one log row per I/O; N: one row per direction per N simulated ms, the window's mean latency, bandwidth or IOPS |
//! | `per_job_logs` | bool | `1` | 0: log names without the job number (`NAME_lat.log`); two jobs that would then write one file are refused |
//! | `log_offset` | `0` | `0` | fio's option; `1` (an offset column) is not supported |
//! | `namespace` | integer ≥ 0 | the run's `--namespace` | zonesim extension (not fio): the namespace (logical unit) the job targets, so jobs on several namespaces of one device run concurrently |
//!
//! Accepted and ignored because their value cannot change what this model does:
//! `ioengine` (one of `libaio`, `io_uring`, `posixaio`, `sync`, `psync`, `vsync`, `pvsync`,
//! `pvsync2`; a synchronous engine — all but the first three — forces `iodepth=1` as in fio),
//! `direct=1` (`direct=0`, buffered I/O, needs the host file system: `--fs f2fs`),
//! `filename` (any single name; the target is the simulated namespace; a list `a:b` is rejected),
//!
//! File options, which need the host file system (`zonesim run --fs f2fs`, docs/fs.md):
//! `filename`, `directory`, `nrfiles`, `filesize`, `create_on_open`, `unlink`, `fdatasync`,
//! `end_fsync`, `direct`; without a file system, each but `filename` and `direct=1` is an error.
//! `group_reporting`, `randrepeat` (determinism comes from the run seed).
//!
//! # Generation (see [`JobGen`])
//!
//! A job works on a region `[offset, offset + size)` of its target. Conventional mode: the region
//! length is rounded down to a multiple of `bs`; every I/O is `bs` long and its offset is
//! `region start + k × bs`. The byte budget is `io_size` if given, else region length × `loops`;
//! `number_ios` stops the job earlier if reached first; `time_based` removes the byte budget. A job
//! without `runtime` may ask for at most 2^32 requests (`io_size` or `size` × `loops` over `bs`,
//! capped by `number_ios`); more is an error naming the job.
//! Flushes (`fsync`) and zone resets are not counted in the budget.
//!
//! - Sequential jobs walk the region from its start and wrap; reads, writes and trims of `rw`
//!   each have their own position (as fio's per-direction `last_pos`).
//! - Uniform random jobs, like fio's default random map, visit every block exactly once per pass
//!   (a fresh pseudo-random permutation each pass, per direction); with `norandommap` each draw
//!   is independent.
//! - zipf and pareto draw a rank with fio's formulas (see [`dist`]), then map the rank through a
//!   fixed pseudo-random bijection of the region so the hot blocks are spread out (fio hashes
//!   instead, which can merge ranks). The bijection depends only on the seed, so all clones of a
//!   job share the same hot set.
//! - normal: centred in the region, σ given in percent of the region, clamped to the region, not
//!   scrambled.
//!
//! ## Zoned mode (`zonemode=zbd`)
//!
//! The region is shrunk to whole zones (start rounded up, end rounded down, like fio). Its data
//! capacity is zones × zone capacity, which replaces the region length in the default budget.
//! The generator tracks a write pointer per zone (settable with
//! [`JobGen::set_zone_write_pointers`]).
//!
//! - Writes always go to a zone's write pointer and never cross its capacity (a write is shortened
//!   at the capacity). Random writes pick the zone with the distribution (over zones); sequential
//!   writes walk the zones in order. A full zone that must be written is reset first
//!   (`ZoneReset`, then the write at the zone start).
//! - `max_open_zones=N > 0`: the job keeps a set of at most N zones it writes. A picked zone
//!   outside the set joins it if there is room; otherwise the write goes to a member of the set
//!   (chosen by the picked zone number modulo the set size). A zone leaves the set when it becomes
//!   full. Zones left partly written by [`JobGen::set_zone_write_pointers`] seed the set.
//! - `zone_reset_frequency=f > 0` and `zone_reset_threshold=t` (fio's rule): before each write,
//!   if the valid bytes in the region's zones are ≥ t × region capacity, a counter (started at
//!   ⌊1/f⌋) is decremented; when it reaches 0 it restarts and the zone about to be written is
//!   reset first (if it holds data), so the write lands at its start.
//! - Reads only address data below a zone's write pointer: random reads pick the zone with the
//!   distribution (moving forward to the next zone holding data if it is empty) and a `bs`-aligned
//!   block below its write pointer (shortened at the pointer); sequential reads walk the written
//!   data zone by zone. When no zone of the region holds data, a job that also writes issues a
//!   write instead, and a read-only job ends ([`JobGen::next`] returns `None`), as fio does.
//! - `trim`/`randtrim` are rejected in zoned mode.

pub mod dist;
mod gen;
mod parse;

pub use gen::{JobGen, Target, ZoneGeom};

pub use parse::{parse_job_file, parse_size, MAX_IODEPTH};

/// I/O pattern (`rw=`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RwMode {
    Read,
    Write,
    RandRead,
    RandWrite,
    /// `rw` / `readwrite`: sequential mix of reads and writes.
    ReadWrite,
    RandRw,
    Trim,
    RandTrim,
}

impl RwMode {
    /// Random offsets (as opposed to sequential).
    pub fn is_random(self) -> bool {
        matches!(
            self,
            RwMode::RandRead | RwMode::RandWrite | RwMode::RandRw | RwMode::RandTrim
        )
    }
    /// The job issues reads.
    pub fn has_reads(self) -> bool {
        matches!(
            self,
            RwMode::Read | RwMode::RandRead | RwMode::ReadWrite | RwMode::RandRw
        )
    }
    /// The job issues writes.
    pub fn has_writes(self) -> bool {
        matches!(
            self,
            RwMode::Write | RwMode::RandWrite | RwMode::ReadWrite | RwMode::RandRw
        )
    }
    /// The job issues trims.
    pub fn is_trim(self) -> bool {
        matches!(self, RwMode::Trim | RwMode::RandTrim)
    }
}

/// `random_distribution=`: access skew of random jobs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Distribution {
    Uniform,
    /// Zipf with exponent θ (> 0, ≠ 1).
    Zipf(f64),
    /// Pareto with parameter h (0 < h < 1).
    Pareto(f64),
    /// Normal, σ in percent of the region (0 < σ ≤ 100).
    Normal(f64),
}

/// A region size or offset before it is resolved against a target.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SizeSpec {
    Bytes(u64),
    /// Percent of the target capacity.
    Percent(f64),
    /// Whole zones of the target.
    Zones(u64),
}

/// `zonemode=`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ZoneMode {
    None,
    Zbd,
}

/// fio's `continue_on_error=`: which errors a job counts and goes on after instead of ending
/// the run (fio's default, `none`, ends the job at its first error, as here a write a zoned
/// namespace rejects ends the run).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ContinueOnError {
    #[default]
    None,
    Read,
    Write,
    Io,
    Verify,
    All,
}

impl ContinueOnError {
    /// Whether a rejected write is counted and the job goes on.
    pub fn writes(self) -> bool {
        matches!(
            self,
            ContinueOnError::Write | ContinueOnError::Io | ContinueOnError::All
        )
    }
}

/// `write_hint=`: the host's data-lifetime hint.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum WriteHint {
    None,
    Short,
    Medium,
    Long,
    Extreme,
}

impl WriteHint {
    /// The code carried on a host request ([`crate::HostIo::hint`]): 0 none .. 4 extreme.
    pub fn code(self) -> u8 {
        match self {
            WriteHint::None => 0,
            WriteHint::Short => 1,
            WriteHint::Medium => 2,
            WriteHint::Long => 3,
            WriteHint::Extreme => 4,
        }
    }
}

/// One job of a job file, with fio defaults filled in for options not given.
#[derive(Debug, Clone, PartialEq)]
pub struct JobSpec {
    pub name: String,
    /// Line of the job's `[name]` header in its file (0 for [`default_job`]).
    pub line: u64,
    /// The job file's name as the parser was given it (its errors' `file` part; empty for
    /// [`default_job`]).
    pub file: String,
    /// The line of each option as last given (`[global]`'s included), by the name written:
    /// errors found after parsing point at the option, see [`JobSpec::line_of`].
    pub option_lines: Vec<(String, u64)>,
    pub rw: RwMode,
    /// Request size in bytes (positive multiple of 512).
    pub bs: u64,
    /// Region length; `None` = the rest of the target after `offset`.
    pub size: Option<SizeSpec>,
    pub offset: SizeSpec,
    /// Byte budget (`Bytes` or `Zones`); `None` = region length × `loops`.
    pub io_size: Option<SizeSpec>,
    pub number_ios: Option<u64>,
    pub loops: u64,
    pub iodepth: u32,
    pub numjobs: u32,
    /// Percentage of reads in mixed jobs.
    pub rwmixread: u32,
    /// A flush after every `fsync` writes; 0 = never.
    pub fsync: u64,
    pub distribution: Distribution,
    pub norandommap: bool,
    /// Simulated-time limit in ns; `None` = no limit.
    pub runtime_ns: Option<u64>,
    pub time_based: bool,
    /// Idle time between I/Os in ns.
    pub thinktime_ns: u64,
    /// Unpowered time before the job starts in ns (`age`), at most [`MAX_AGE_NS`].
    pub age_ns: u64,
    pub stonewall: bool,
    pub zonemode: ZoneMode,
    /// 0 = no limit of the job's own.
    pub max_open_zones: u32,
    pub zone_reset_threshold: f64,
    pub zone_reset_frequency: f64,
    pub write_hint: WriteHint,
    /// fio `zone_append=1`: the job's zbd writes are zone appends (the device picks the LBA).
    pub zone_append: bool,
    /// fio `prioclass` (0 none, 1 realtime, 2 best-effort, 3 idle) and `prio` (0-7, 0
    /// highest): the job's place in the host scheduler when the device's tags are all in use
    /// (`host.queue_depth`, host/sched.rs).
    pub prio: crate::sched::IoPrio,
    /// zonesim extension `ipu=1`: the job's writes are in-place updates (`IoKind::InPlace`):
    /// below a zone's write pointer the device may take them within its IPU budget (ZMS).
    pub ipu: bool,
    /// zonesim extension: the namespace this job targets (`namespace=N`); `None` = the run's
    /// `--namespace`.
    pub namespace: Option<u32>,
    /// fio `continue_on_error`: `write`, `io` or `all` count the writes a zoned namespace
    /// rejects instead of ending the run.
    pub continue_on_error: ContinueOnError,
    /// Options that only a file system gives meaning to (`zonesim run --fs`, docs/fs.md).
    pub files: FileOpts,
    /// fio's latency, bandwidth and IOPS logs (`write_lat_log`, ...).
    pub logs: LogOpts,
}

/// The longest `log_avg_msec` window: one day.
pub const MAX_LOG_AVG_MSEC: u64 = 86_400_000;

/// The longest `age` a job may ask for: 36500 days (a century, as a scenario's `age` step).
pub const MAX_AGE_NS: u64 = 36_500 * 86_400 * 1_000_000_000;

/// fio's log options: which logs a job writes, how they are named and averaged.
#[derive(Debug, Clone, PartialEq)]
pub struct LogOpts {
    /// `write_lat_log=NAME`: `NAME_lat`, `NAME_clat` and `NAME_slat` logs; an empty name (the
    /// bare flag) is the job's name.
    pub lat: Option<String>,
    /// `write_bw_log=NAME`: `NAME_bw` (KiB/s).
    pub bw: Option<String>,
    /// `write_iops_log=NAME`: `NAME_iops`.
    pub iops: Option<String>,
    /// `log_avg_msec`, 0..=[`MAX_LOG_AVG_MSEC`] ms: 0 logs every I/O; N one row per direction
    /// per N ms window, averaged over it.
    pub avg_msec: u64,
    /// `per_job_logs` (default 1): file names carry the job's number, `NAME_lat.1.log`;
    /// with 0, `NAME_lat.log`.
    pub per_job: bool,
}

impl Default for LogOpts {
    fn default() -> Self {
        LogOpts {
            lat: None,
            bw: None,
            iops: None,
            avg_msec: 0,
            per_job: true,
        }
    }
}

impl LogOpts {
    /// Whether the job writes any log.
    pub fn any(&self) -> bool {
        self.lat.is_some() || self.bw.is_some() || self.iops.is_some()
    }
}

impl JobSpec {
    /// The line of the first of `names` (an option and its aliases) the job file gave, else
    /// the job's header line.
    pub fn line_of(&self, names: &[&str]) -> u64 {
        names
            .iter()
            .find_map(|n| self.option_lines.iter().find(|(k, _)| k == n).map(|x| x.1))
            .unwrap_or(self.line)
    }
}

/// fio's file options, used when the job runs on the host file system.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FileOpts {
    pub filename: Option<String>,
    pub directory: Option<String>,
    /// Files of the job (`nrfiles`, default 1).
    pub nrfiles: Option<u32>,
    pub filesize: Option<u64>,
    pub create_on_open: bool,
    pub unlink: bool,
    /// An fdatasync after every N writes.
    pub fdatasync: u64,
    pub end_fsync: bool,
    /// `direct=`; `None` = not given (buffered on a file system, as fio's default).
    pub direct: Option<bool>,
}

impl FileOpts {
    /// The first option given that needs a file system (for the error without one).
    pub fn fs_only_option(&self) -> Option<&'static str> {
        if self.direct == Some(false) {
            Some("direct=0")
        } else if self.directory.is_some() {
            Some("directory")
        } else if self.nrfiles.is_some() {
            Some("nrfiles")
        } else if self.filesize.is_some() {
            Some("filesize")
        } else if self.create_on_open {
            Some("create_on_open")
        } else if self.unlink {
            Some("unlink")
        } else if self.fdatasync > 0 {
            Some("fdatasync")
        } else if self.end_fsync {
            Some("end_fsync")
        } else {
            None
        }
    }
}

/// A job with fio's defaults: `rw=read bs=4k iodepth=1 numjobs=1 rwmixread=50 loops=1`, whole
/// target, uniform distribution, no fsync, no runtime, zonemode none.
pub fn default_job() -> JobSpec {
    JobSpec {
        name: String::new(),
        line: 0,
        file: String::new(),
        option_lines: Vec::new(),
        rw: RwMode::Read,
        bs: 4096,
        size: None,
        offset: SizeSpec::Bytes(0),
        io_size: None,
        number_ios: None,
        loops: 1,
        iodepth: 1,
        numjobs: 1,
        rwmixread: 50,
        fsync: 0,
        distribution: Distribution::Uniform,
        norandommap: false,
        runtime_ns: None,
        time_based: false,
        thinktime_ns: 0,
        age_ns: 0,
        stonewall: false,
        zonemode: ZoneMode::None,
        max_open_zones: 0,
        zone_reset_threshold: 0.0,
        zone_reset_frequency: 0.0,
        write_hint: WriteHint::None,
        zone_append: false,
        prio: crate::sched::IoPrio::default(),
        ipu: false,
        namespace: None,
        continue_on_error: ContinueOnError::None,
        files: FileOpts::default(),
        logs: LogOpts::default(),
    }
}
