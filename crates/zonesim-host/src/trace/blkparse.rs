//! blkparse text output (the default format of `blkparse -i trace`).
//!
//! One event a line, fields separated by spaces:
//!
//! ```text
//! maj,min  cpu  seq  sec.nsec     pid   action  RWBS  sector  +  nsectors  [proc]
//!   8,0     3     1  0.000000000  4162  Q       WS    1234    +  8         [fio]
//!   8,0     0     5  0.000102000     0  D       FWS   [kworker/0:1]
//! ```
//!
//! | field | meaning |
//! |---|---|
//! | `maj,min` | device; the record's `stream` is `major << 20 \| minor` (Linux `dev_t`) |
//! | `cpu`, `seq`, `pid` | ignored |
//! | `sec.nsec` | seconds, `.`, up to 9 fraction digits (nanoseconds) |
//! | `action` | one of blktrace's actions (`Q`, `G`, `I`, `D`, `C`, `M`, `P`, `U`, ...) |
//! | `RWBS` | request flags, see below |
//! | `sector + nsectors` | 512-byte sectors; absent for requests without data (flushes) |
//!
//! Only events of the chosen action ([`super::BlkEvent`], default `D`: issued to the driver)
//! become records; every other event is skipped and counted. RWBS letters:
//! - `D` (discard) or `E` (secure erase) → [`IoKind::Trim`];
//! - `R` → read; `W` → write;
//! - `F` (a leading `F` is a pre-flush, an `F` after `W` is FUA): a request with `F` and no data
//!   is a [`IoKind::Flush`] (`len` 0). A write with data and an `F` is produced as a plain write
//!   and counted in [`super::TraceReader::flush_flagged_writes`] (no separate flush is emitted);
//! - `S` (sync), `M` (meta), `A` (read-ahead) are ignored; `N` (no data, e.g. zone commands,
//!   passthrough) is skipped;
//! - any other character is a malformed line.
//!
//! A read, write or trim event without `sector + nsectors` or with 0 sectors is skipped. The
//! summary blkparse prints at the end (`CPU0 (8,0):`, `Total (8,0):`, `Throughput`, `Events`)
//! ends the records: nothing after its first line is read.

use super::{field_u64, show, PResult, Parsed};
use crate::IoKind;

/// Parses `maj,min` into a `dev_t`-like stream number; `None` if not of that shape.
#[inline]
fn parse_dev(s: &[u8]) -> Option<u32> {
    let comma = s.iter().position(|b| *b == b',')?;
    let maj = super::parse_u64(&s[..comma])?;
    let min = super::parse_u64(&s[comma + 1..])?;
    if maj >= 1 << 12 || min >= 1 << 20 {
        return None;
    }
    Some(((maj as u32) << 20) | min as u32)
}

/// Parses `sec.nsec` into nanoseconds.
#[inline]
fn parse_time(s: &[u8]) -> PResult<u64> {
    let bad = || format!("time: invalid `sec.nsec` timestamp `{}`", show(s));
    let (sec, frac) = match s.iter().position(|b| *b == b'.') {
        Some(p) => (&s[..p], &s[p + 1..]),
        None => (s, &b""[..]),
    };
    let sec = super::parse_u64(sec).ok_or_else(bad)?;
    if frac.len() > 9 {
        return Err(bad());
    }
    let mut ns = if frac.is_empty() {
        0
    } else {
        super::parse_u64(frac).ok_or_else(bad)?
    };
    for _ in frac.len()..9 {
        ns *= 10;
    }
    sec.checked_mul(1_000_000_000)
        .and_then(|v| v.checked_add(ns))
        .ok_or_else(bad)
}

/// True for the first line of blkparse's closing summary.
fn is_summary(line: &[u8]) -> bool {
    [&b"CPU"[..], b"Total", b"Throughput", b"Events", b"Skips"]
        .iter()
        .any(|p| line.starts_with(p))
}

/// Parses one (trimmed, non-empty) blkparse line.
#[inline]
pub(crate) fn parse_line(
    line: &[u8],
    event: super::BlkEvent,
    flush_flagged: &mut u64,
) -> PResult<Parsed> {
    let mut f: [&[u8]; 11] = [&[]; 11];
    let n = super::take_fields(super::words(line), &mut f);
    let Some(stream) = parse_dev(f[0]) else {
        if is_summary(line) {
            return Ok(Parsed::End);
        }
        return Err(format!(
            "expected a blkparse event `maj,min cpu seq sec.nsec pid action RWBS ...`, found `{}`",
            show(line)
        ));
    };
    if n < 6 {
        return Err(format!(
            "expected at least 6 fields `maj,min cpu seq sec.nsec pid action`, found {n}"
        ));
    }
    if f[5] != [event.letter()] {
        return Ok(Parsed::Skip);
    }
    if n < 7 {
        return Err("missing RWBS field after the action".to_string());
    }
    let time = parse_time(f[3])?;
    let rwbs = f[6];
    if let Some(b) = rwbs.iter().find(|b| !b"DERWFSMAN".contains(b)) {
        return Err(format!(
            "RWBS: unexpected character `{}` in `{}` (expected letters of D E R W F S M A N)",
            show(&[*b]),
            show(rwbs)
        ));
    }
    // Data: `sector + nsectors`.
    let (offset, len) = if n >= 10 && f[8] == b"+" {
        let sector = field_u64(f[7], "sector")?;
        let nsec = field_u64(f[9], "nsectors")?;
        (
            super::mul(sector, 512, "sector")?,
            super::mul(nsec, 512, "nsectors")?,
        )
    } else if n >= 9 && f[8] == b"+" {
        return Err("missing nsectors after `+`".to_string());
    } else {
        (0, 0)
    };
    let has = |c: u8| rwbs.contains(&c);
    let kind = if has(b'D') || has(b'E') {
        IoKind::Trim
    } else if has(b'R') {
        IoKind::Read
    } else if has(b'W') {
        if len == 0 && has(b'F') {
            IoKind::Flush
        } else {
            if len > 0 && has(b'F') {
                *flush_flagged += 1;
            }
            IoKind::Write
        }
    } else if has(b'F') {
        IoKind::Flush
    } else {
        return Ok(Parsed::Skip);
    };
    let (offset, len) = if kind == IoKind::Flush {
        (0, 0)
    } else {
        (offset, len)
    };
    Ok(Parsed::Record {
        time,
        kind,
        offset,
        len,
        stream,
    })
}
