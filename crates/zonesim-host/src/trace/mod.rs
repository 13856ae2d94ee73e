//! Block-trace readers: DiskSim ASCII, blkparse text, MSR Cambridge CSV, fio iolog v2/v3,
//! Alibaba block traces and Tencent CBS traces; format auto-detection; `trace stats` and
//! `trace convert`.
//!
//! # Reading
//! [`TraceReader`] streams a trace one line at a time, parsing each line in place in the read
//! buffer (a line crossing the buffer's end is copied into a single reused line buffer):
//! memory is constant whatever the trace length, no allocation, copy or UTF-8 validation
//! happens per line, and integers are parsed by hand from bytes. Each format's exact column layout is in its
//! module documentation ([`disksim`], [`blkparse`], [`msr`], [`iolog`], [`alibaba`],
//! [`tencent`]).
//!
//! Rules common to every format:
//! - Blank lines and lines starting with `#` are ignored (they count in [`TraceReader::lines`]
//!   but are not "skipped" records). A CSV header line (column names) as the first data line of
//!   an MSR, Alibaba or Tencent trace is ignored likewise.
//! - A malformed line is an error `file:line: reason`; nothing is silently defaulted. So is a
//!   line longer than 1 MiB (a file without line breaks, such as `/dev/zero`, ends there instead
//!   of filling memory) and a record whose offset + length overflows 64 bits.
//! - Lines that are well formed but produce no request are *skipped* and counted
//!   ([`TraceReader::skipped`]): other blkparse actions, iolog file actions (`add`, `open`,
//!   `close`) and `wait`s, records removed by the filter, and zero-length reads, writes and
//!   trims (a zero-length data request carries no work; it is skipped rather than rejected).
//! - Times are normalised to nanoseconds from the first record produced: the first record has
//!   `time_ns == 0` and later ones their offset from it. Records are never reordered; a record
//!   stamped earlier than the first one gets time 0.
//! - Sizes and offsets are bytes (sector-based formats are multiplied by 512).
//! - Flushes (blkparse `F`, iolog `sync`/`datasync`) are [`IoKind::Flush`] with `len == 0`;
//!   discards (blkparse `D`, iolog `trim`) are [`IoKind::Trim`].
//! - [`TraceOptions::filter`] keeps only the records whose `stream` equals the given number:
//!   the MSR disk number, the Alibaba device id, the Tencent volume id, the DiskSim device, the
//!   blkparse device (`major << 20 | minor`) or the iolog file index (order of first appearance,
//!   from 0).

pub mod alibaba;
pub mod blkparse;
pub mod convert;
pub mod detect;
pub mod disksim;
pub mod iolog;
pub mod msr;
pub mod stats;
pub mod tencent;

use std::fmt;
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::{HostIo, IoKind};
use zonesim_core::error::{Error, Result};

pub use convert::{convert, ConvertFormat};
pub use disksim::write_synthetic_disksim;
pub use stats::{render_table, trace_stats, TraceStats};

/// A supported trace format. Parsed from (and displayed as) its CLI name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TraceFormat {
    Disksim,
    Blkparse,
    Msr,
    Iolog,
    Alibaba,
    Tencent,
}

impl TraceFormat {
    /// All formats, in CLI order.
    pub const ALL: [TraceFormat; 6] = [
        TraceFormat::Disksim,
        TraceFormat::Blkparse,
        TraceFormat::Msr,
        TraceFormat::Iolog,
        TraceFormat::Alibaba,
        TraceFormat::Tencent,
    ];

    /// The CLI name (`disksim`, `blkparse`, `msr`, `iolog`, `alibaba`, `tencent`).
    pub fn name(self) -> &'static str {
        match self {
            TraceFormat::Disksim => "disksim",
            TraceFormat::Blkparse => "blkparse",
            TraceFormat::Msr => "msr",
            TraceFormat::Iolog => "iolog",
            TraceFormat::Alibaba => "alibaba",
            TraceFormat::Tencent => "tencent",
        }
    }

    /// Nanoseconds per unit of the format's raw timestamp.
    fn ns_per_tick(self) -> u64 {
        match self {
            TraceFormat::Disksim | TraceFormat::Blkparse => 1,
            TraceFormat::Msr => 100,
            TraceFormat::Iolog | TraceFormat::Alibaba => 1_000,
            TraceFormat::Tencent => 1_000_000_000,
        }
    }
}

impl fmt::Display for TraceFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for TraceFormat {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        TraceFormat::ALL
            .into_iter()
            .find(|f| f.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| {
                Error::Usage(format!(
                    "unknown trace format `{s}`; expected one of disksim, blkparse, msr, iolog, \
                     alibaba, tencent"
                ))
            })
    }
}

/// Which blkparse event (action) is taken as the request: queued, issued to the driver, or
/// completed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub enum BlkEvent {
    /// `Q`: the request is queued (as the application submitted it, before merging).
    Q,
    /// `D`: the request is issued to the driver (after merging and scheduling). The default.
    #[default]
    D,
    /// `C`: the request completed.
    C,
}

impl BlkEvent {
    fn letter(self) -> u8 {
        match self {
            BlkEvent::Q => b'Q',
            BlkEvent::D => b'D',
            BlkEvent::C => b'C',
        }
    }
}

impl fmt::Display for BlkEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            BlkEvent::Q => "Q",
            BlkEvent::D => "D",
            BlkEvent::C => "C",
        })
    }
}

impl FromStr for BlkEvent {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "Q" | "q" => Ok(BlkEvent::Q),
            "D" | "d" => Ok(BlkEvent::D),
            "C" | "c" => Ok(BlkEvent::C),
            _ => Err(Error::Usage(format!(
                "unknown blkparse event `{s}`; expected Q, D or C"
            ))),
        }
    }
}

/// How to read a trace.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TraceOptions {
    /// The format; `None` detects it from the first data line.
    pub format: Option<TraceFormat>,
    /// The blkparse action taken as the request (default `D`).
    pub blkparse_event: BlkEvent,
    /// Keep only records of this stream (MSR disk number, Alibaba device id, Tencent volume,
    /// DiskSim device, blkparse device, iolog file index); `None` keeps all.
    pub filter: Option<u64>,
}

/// One request of a trace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TraceRecord {
    /// Arrival time in ns from the first record of the trace.
    pub time_ns: u64,
    /// The request, offset and length in bytes.
    pub io: HostIo,
    /// The source stream: device, volume, disk or file, as the format has it.
    pub stream: u32,
}

/// What a format parser makes of one data line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Parsed {
    /// A request; `time` in the format's raw ticks (see `TraceFormat::ns_per_tick`).
    Record {
        time: u64,
        kind: IoKind,
        offset: u64,
        len: u64,
        stream: u32,
    },
    /// A well-formed line that is not a request (other action, file action, wait...).
    Skip,
    /// A metadata line (header): neither a record nor skipped.
    Ignore,
    /// A blank or comment line (`#`).
    Blank,
    /// The records are over (blkparse summary section).
    End,
}

/// Per-format parser state that survives between lines.
#[derive(Debug, Default)]
pub(crate) struct ParseState {
    pub(crate) iolog: iolog::IologState,
    /// A first data line may be a CSV header.
    pub(crate) seen_data: bool,
}

/// A streaming trace reader (constant memory).
pub struct TraceReader {
    name: String,
    input: Box<dyn BufRead>,
    buf: Vec<u8>,
    /// The first data line, read ahead by format detection and served before `input`.
    pending: Option<Vec<u8>>,
    parser: LineParser,
    line: u64,
    skipped: u64,
    records: u64,
    t0: Option<u64>,
    done: bool,
    /// Bytes of input consumed, and the input's size when known (a regular file): the
    /// fraction of the trace read, for progress.
    consumed: u64,
    size: Option<u64>,
}

impl fmt::Debug for TraceReader {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TraceReader")
            .field("name", &self.name)
            .field("format", &self.parser.format)
            .field("line", &self.line)
            .finish_non_exhaustive()
    }
}

/// Read buffer size for trace files.
const READ_BUF: usize = 256 * 1024;

/// The longest line a trace may have, in bytes (1 MiB): far beyond any real record, and it
/// bounds the reader's memory.
pub const MAX_LINE_BYTES: usize = 1 << 20;

impl TraceReader {
    /// Opens a trace file, detecting its format from the first data line unless
    /// `opts.format` is set.
    pub fn open(path: &Path, opts: &TraceOptions) -> Result<TraceReader> {
        let file = File::open(path).map_err(|e| Error::io(path, e))?;
        let name = path.display().to_string();
        let size = file
            .metadata()
            .ok()
            .filter(|m| m.is_file())
            .map(|m| m.len());
        let mut r = TraceReader::from_reader(
            &name,
            Box::new(BufReader::with_capacity(READ_BUF, file)),
            opts,
        )?;
        r.size = size;
        Ok(r)
    }

    /// A reader over any buffered input; `name` is used in error messages.
    pub fn from_reader(name: &str, input: Box<dyn BufRead>, opts: &TraceOptions) -> Result<Self> {
        let mut r = TraceReader {
            name: name.to_string(),
            input,
            buf: Vec::with_capacity(256),
            pending: None,
            parser: LineParser {
                format: opts.format.unwrap_or(TraceFormat::Disksim),
                opts: opts.clone(),
                state: ParseState::default(),
                flush_flagged: 0,
            },
            line: 0,
            skipped: 0,
            records: 0,
            t0: None,
            done: false,
            consumed: 0,
            size: None,
        };
        if opts.format.is_none() {
            r.parser.format = r.detect_format()?;
        }
        Ok(r)
    }

    /// Reads ahead to the first data line and detects the format from it. That line is kept
    /// and served again to the parser; the blank and comment lines before it are only counted.
    fn detect_format(&mut self) -> Result<TraceFormat> {
        loop {
            let mut line = Vec::new();
            if !self.read_line(&mut line)? {
                return Err(Error::parse(
                    &self.name,
                    self.line,
                    "cannot detect trace format; use --trace-format",
                ));
            }
            let t = trim(&line);
            if t.is_empty() || t[0] == b'#' {
                self.line += 1;
                continue;
            }
            let Some(found) = detect::detect_line(t) else {
                return Err(Error::parse(
                    &self.name,
                    self.line + 1,
                    "cannot detect trace format; use --trace-format",
                ));
            };
            self.pending = Some(line);
            return Ok(found);
        }
    }

    /// Reads the next line (with its line break) into `buf`, which must be empty; false at end
    /// of input. A line longer than [`MAX_LINE_BYTES`] is an error at its line number: memory
    /// stays bounded whatever the input (a file without line breaks, `/dev/zero`).
    fn read_line(&mut self, buf: &mut Vec<u8>) -> Result<bool> {
        use std::io::Read;
        let limit = MAX_LINE_BYTES as u64 + 1;
        let n = (&mut self.input)
            .take(limit)
            .read_until(b'\n', buf)
            .map_err(|e| Error::io(&self.name, e))?;
        self.consumed += n as u64;
        if n > MAX_LINE_BYTES {
            return Err(Error::parse(
                &self.name,
                self.line + 1,
                format!(
                    "line longer than {MAX_LINE_BYTES} bytes (not a text trace, or no line breaks)"
                ),
            ));
        }
        Ok(n > 0)
    }

    /// The format being read (detected or forced).
    pub fn format(&self) -> TraceFormat {
        self.parser.format
    }

    /// The name used in error messages (the path for [`TraceReader::open`]).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Lines that were well formed but produced no record (see the module documentation).
    pub fn skipped(&self) -> u64 {
        self.skipped
    }

    /// Lines read so far, of every kind.
    pub fn lines(&self) -> u64 {
        self.line
    }

    /// Records produced so far.
    pub fn records(&self) -> u64 {
        self.records
    }

    /// The fraction of the input read so far (by bytes, 0..=1), when its size is known (a
    /// file opened by [`TraceReader::open`]).
    pub fn fraction_read(&self) -> Option<f64> {
        let size = self.size.filter(|&s| s > 0)?;
        Some((self.consumed as f64 / size as f64).min(1.0))
    }

    /// blkparse writes that carried a flush flag (`F`: pre-flush or FUA). They are produced as
    /// plain writes; this counts them.
    pub fn flush_flagged_writes(&self) -> u64 {
        self.parser.flush_flagged
    }

    /// Fills `self.buf` with the next line; false at end of input.
    #[inline]
    fn next_line(&mut self) -> Result<bool> {
        self.buf.clear();
        if let Some(line) = self.pending.take() {
            self.buf = line;
            self.line += 1;
            return Ok(true);
        }
        let mut buf = std::mem::take(&mut self.buf);
        let got = self.read_line(&mut buf);
        self.buf = buf;
        if !got? {
            return Ok(false);
        }
        self.line += 1;
        Ok(true)
    }

    /// Parses the next line: in place in the input's buffer when the whole line is there (no
    /// copy), else through `self.buf`. `None` at end of input.
    #[inline]
    fn parse_next(&mut self) -> Result<Option<PResult<Parsed>>> {
        if self.pending.is_none() {
            let avail = self
                .input
                .fill_buf()
                .map_err(|e| Error::io(&self.name, e))?;
            if let Some(i) = avail.iter().position(|&b| b == b'\n') {
                self.line += 1;
                let parsed = self.parser.parse(trim(&avail[..i]));
                self.input.consume(i + 1);
                self.consumed += i as u64 + 1;
                return Ok(Some(parsed));
            }
        }
        if !self.next_line()? {
            return Ok(None);
        }
        Ok(Some(self.parser.parse(trim(&self.buf))))
    }

    /// The next record, `None` at the end of the trace.
    pub fn next_record(&mut self) -> Result<Option<TraceRecord>> {
        if self.done {
            return Ok(None);
        }
        loop {
            let Some(parsed) = self.parse_next()? else {
                self.done = true;
                return Ok(None);
            };
            match parsed {
                Ok(Parsed::Record {
                    time,
                    kind,
                    offset,
                    len,
                    stream,
                }) => {
                    if offset.checked_add(len).is_none() {
                        return Err(Error::parse(
                            &self.name,
                            self.line,
                            format!("offset {offset} + length {len} bytes overflows 64 bits"),
                        ));
                    }
                    if len == 0 && matches!(kind, IoKind::Read | IoKind::Write | IoKind::Trim) {
                        self.skipped += 1;
                        continue;
                    }
                    if let Some(f) = self.parser.opts.filter {
                        if u64::from(stream) != f {
                            self.skipped += 1;
                            continue;
                        }
                    }
                    let t0 = *self.t0.get_or_insert(time);
                    let time_ns = time
                        .saturating_sub(t0)
                        .saturating_mul(self.parser.format.ns_per_tick());
                    self.records += 1;
                    return Ok(Some(TraceRecord {
                        time_ns,
                        io: HostIo::new(kind, offset, len),
                        stream,
                    }));
                }
                Ok(Parsed::Skip) => self.skipped += 1,
                Ok(Parsed::Ignore) | Ok(Parsed::Blank) => {}
                Ok(Parsed::End) => {
                    self.done = true;
                    return Ok(None);
                }
                Err(reason) => return Err(Error::parse(&self.name, self.line, reason)),
            }
        }
    }
}

/// The format's parser and the state it keeps between lines.
struct LineParser {
    format: TraceFormat,
    opts: TraceOptions,
    state: ParseState,
    flush_flagged: u64,
}

impl LineParser {
    /// What a (trimmed) line is: blank and comment lines are [`Parsed::Blank`].
    #[inline]
    fn parse(&mut self, line: &[u8]) -> PResult<Parsed> {
        if line.is_empty() || line[0] == b'#' {
            return Ok(Parsed::Blank);
        }
        let first = !self.state.seen_data;
        self.state.seen_data = true;
        match self.format {
            TraceFormat::Disksim => disksim::parse_line(line),
            TraceFormat::Blkparse => {
                blkparse::parse_line(line, self.opts.blkparse_event, &mut self.flush_flagged)
            }
            TraceFormat::Msr => msr::parse_line(line, first),
            TraceFormat::Iolog => iolog::parse_line(line, &mut self.state.iolog),
            TraceFormat::Alibaba => alibaba::parse_line(line, first),
            TraceFormat::Tencent => tencent::parse_line(line, first),
        }
    }
}

impl Iterator for TraceReader {
    type Item = Result<TraceRecord>;
    fn next(&mut self) -> Option<Self::Item> {
        self.next_record().transpose()
    }
}

// ---------------------------------------------------------------------------------------------
// Byte-level parsing helpers shared by the format modules. Errors are `String` reasons, built
// only on the error path.

pub(crate) type PResult<T> = std::result::Result<T, String>;

/// The line without leading and trailing ASCII whitespace (including `\r\n`).
#[inline]
pub(crate) fn trim(mut s: &[u8]) -> &[u8] {
    while let [first, rest @ ..] = s {
        if first.is_ascii_whitespace() {
            s = rest;
        } else {
            break;
        }
    }
    while let [rest @ .., last] = s {
        if last.is_ascii_whitespace() {
            s = rest;
        } else {
            break;
        }
    }
    s
}

/// Parses an unsigned decimal integer (digits only, no sign, leading zeros allowed); `None` if
/// empty, not all digits or overflowing. Up to 19 digits cannot overflow and take the fast
/// path.
#[inline]
pub(crate) fn parse_u64(s: &[u8]) -> Option<u64> {
    if s.is_empty() {
        return None;
    }
    let mut v: u64 = 0;
    if s.len() < 20 {
        for &b in s {
            let d = b.wrapping_sub(b'0');
            if d > 9 {
                return None;
            }
            v = v * 10 + u64::from(d);
        }
        Some(v)
    } else {
        for &b in s {
            let d = b.wrapping_sub(b'0');
            if d > 9 {
                return None;
            }
            v = v.checked_mul(10)?.checked_add(u64::from(d))?;
        }
        Some(v)
    }
}

/// Parses a decimal field or explains why not.
#[inline]
pub(crate) fn field_u64(s: &[u8], what: &str) -> PResult<u64> {
    parse_u64(s).ok_or_else(|| format!("{what}: invalid unsigned integer `{}`", show(s)))
}

/// Parses a decimal field that must fit a stream number.
#[inline]
pub(crate) fn field_u32(s: &[u8], what: &str) -> PResult<u32> {
    let v = field_u64(s, what)?;
    u32::try_from(v).map_err(|_| format!("{what}: {v} does not fit in 32 bits"))
}

/// `a * b` or an overflow reason.
#[inline]
pub(crate) fn mul(a: u64, b: u64, what: &str) -> PResult<u64> {
    a.checked_mul(b)
        .ok_or_else(|| format!("{what}: {a} overflows 64 bits in bytes"))
}

/// A field for an error message (lossy UTF-8, shortened).
pub(crate) fn show(s: &[u8]) -> String {
    let s = String::from_utf8_lossy(s);
    if s.chars().count() > 40 {
        let short: String = s.chars().take(40).collect();
        format!("{short}...")
    } else {
        s.into_owned()
    }
}

/// Splits on ASCII spaces and tabs, skipping runs.
#[inline]
pub(crate) fn words(s: &[u8]) -> impl Iterator<Item = &[u8]> {
    s.split(|b| *b == b' ' || *b == b'\t')
        .filter(|w| !w.is_empty())
}

/// Splits a CSV line on commas; fields are trimmed of surrounding spaces.
#[inline]
pub(crate) fn csv_fields(s: &[u8]) -> impl Iterator<Item = &[u8]> {
    s.split(|b| *b == b',').map(trim)
}

/// Splits a CSV line into exactly `N` fields named by `layout` (e.g.
/// "`device_id,opcode,offset,length,timestamp_us`"). `Ok(None)`: the line is the column-name
/// header (first data line whose first field is `header`).
#[inline]
pub(crate) fn csv_exact<'a, const N: usize>(
    line: &'a [u8],
    first: bool,
    header: &[u8],
    layout: &str,
) -> PResult<Option<[&'a [u8]; N]>> {
    let mut f: [&[u8]; N] = [&[]; N];
    let n = take_fields(csv_fields(line), &mut f);
    if first && f[0].eq_ignore_ascii_case(header) {
        return Ok(None);
    }
    if n != N {
        return Err(format!(
            "expected {N} comma-separated fields `{layout}`, found {n}"
        ));
    }
    Ok(Some(f))
}

/// Collects up to `N` fields; returns how many fields the line had in total.
#[inline]
pub(crate) fn take_fields<'a, const N: usize>(
    it: impl Iterator<Item = &'a [u8]>,
    out: &mut [&'a [u8]; N],
) -> usize {
    let mut n = 0;
    for f in it {
        if n < N {
            out[n] = f;
        }
        n += 1;
    }
    n
}

#[cfg(test)]
mod tests;
