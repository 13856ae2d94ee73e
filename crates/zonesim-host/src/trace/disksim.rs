//! DiskSim ASCII traces, as distributed with MQSim (two ship in `tests/fixtures/traces/`, MIT, see `LICENSE-MQSim` there).
//!
//! One request a line, exactly five fields separated by spaces or tabs:
//!
//! ```text
//! arrival_time_ns  device  start_sector  size_in_sectors  type
//! 938513000        4       264719034     16               0
//! ```
//!
//! | column | meaning |
//! |---|---|
//! | `arrival_time_ns` | arrival time, integer nanoseconds |
//! | `device` | source device / stream number (the record's `stream`) |
//! | `start_sector` | first 512-byte sector |
//! | `size_in_sectors` | length in 512-byte sectors |
//! | `type` | `1` = read, `0` = write (MQSim's convention) |
//!
//! DiskSim cannot express trims or flushes. Any other field count, a non-integer field or a
//! type other than 0/1 is a malformed line.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use super::{show, PResult, Parsed};
use crate::IoKind;
use zonesim_core::error::{Error, Result};

/// Parses the next unsigned integer field starting at `*pos` (skipping spaces and tabs).
/// `Ok(None)` if the line has no more fields.
#[inline(always)]
fn next_u64(line: &[u8], pos: &mut usize) -> std::result::Result<Option<u64>, ()> {
    let mut i = *pos;
    while i < line.len() && (line[i] == b' ' || line[i] == b'\t') {
        i += 1;
    }
    if i == line.len() {
        *pos = i;
        return Ok(None);
    }
    let start = i;
    while i < line.len() && line[i].is_ascii_digit() {
        i += 1;
    }
    if i < line.len() && line[i] != b' ' && line[i] != b'\t' {
        return Err(());
    }
    // No digits, or too many for 64 bits: an error.
    let v = super::parse_u64(&line[start..i]).ok_or(())?;
    *pos = i;
    Ok(Some(v))
}

const NAMES: [&str; 5] = [
    "arrival_time_ns",
    "device",
    "start_sector",
    "size_in_sectors",
    "type",
];

/// Parses one (trimmed, non-empty) DiskSim line.
#[inline]
pub(crate) fn parse_line(line: &[u8]) -> PResult<Parsed> {
    let mut pos = 0;
    let mut v = [0u64; 5];
    for (k, slot) in v.iter_mut().enumerate() {
        match next_u64(line, &mut pos) {
            Ok(Some(x)) => *slot = x,
            Ok(None) => return Err(field_count(line)),
            Err(()) => return Err(bad_field(line, k)),
        }
    }
    if pos != line.len() {
        return Err(field_count(line));
    }
    let kind = match v[4] {
        1 => IoKind::Read,
        0 => IoKind::Write,
        t => return Err(format!("type: must be 1 (read) or 0 (write), found {t}")),
    };
    let stream =
        u32::try_from(v[1]).map_err(|_| format!("device: {} does not fit in 32 bits", v[1]))?;
    let offset = super::mul(v[2], 512, "start_sector")?;
    let len = super::mul(v[3], 512, "size_in_sectors")?;
    Ok(Parsed::Record {
        time: v[0],
        kind,
        offset,
        len,
        stream,
    })
}

#[cold]
fn field_count(line: &[u8]) -> String {
    let n = super::words(line).count();
    format!(
        "expected 5 fields `arrival_time_ns device start_sector size_in_sectors type`, found {n}"
    )
}

#[cold]
fn bad_field(line: &[u8], k: usize) -> String {
    let f = super::words(line).nth(k).unwrap_or_default();
    format!("{}: invalid unsigned integer `{}`", NAMES[k], show(f))
}

/// Writes a deterministic synthetic DiskSim trace of `lines` requests (for benchmarks): a
/// 64-bit LCG seeded with `seed` draws inter-arrival gaps of 0..10 µs, devices 0..3, 4 KiB
/// aligned sectors below 128 GiB, sizes of 1..32 × 4 KiB and a 70/30 read/write mix.
pub fn write_synthetic_disksim(path: &Path, lines: u64, seed: u64) -> Result<()> {
    let file = File::create(path).map_err(|e| Error::io(path, e))?;
    let mut w = BufWriter::with_capacity(1 << 20, file);
    let mut state = seed ^ 0x9E37_79B9_7F4A_7C15;
    let mut next = move || {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        state >> 33
    };
    let mut t: u64 = 0;
    for _ in 0..lines {
        t += next() % 10_000;
        let dev = next() % 4;
        let sector = (next() % (1 << 25)) * 8;
        // Sizes like the MQSim traces (tpcc 8.3 KiB, wsrch 15 KiB mean): 60% 4 KiB, 25%
        // 8 KiB, 10% 16-32 KiB, 5% 64-128 KiB; mean about 11.6 KiB.
        let sectors = match next() % 20 {
            0..=11 => 8,
            12..=16 => 16,
            17 | 18 => 32 * (1 + next() % 2),
            _ => 128 * (1 + next() % 2),
        };
        let ty = u64::from(next() % 10 < 7);
        writeln!(w, "{t} {dev} {sector} {sectors} {ty}").map_err(|e| Error::io(path, e))?;
    }
    w.flush().map_err(|e| Error::io(path, e))
}

#[cfg(test)]
mod tests {
    use super::next_u64;
    use proptest::prelude::*;

    /// The field scanner as it was: digit by digit with overflow checks.
    fn reference(line: &[u8], pos: &mut usize) -> std::result::Result<Option<u64>, ()> {
        let mut i = *pos;
        while i < line.len() && (line[i] == b' ' || line[i] == b'\t') {
            i += 1;
        }
        if i == line.len() {
            *pos = i;
            return Ok(None);
        }
        let start = i;
        let mut v: u64 = 0;
        while i < line.len() && line[i].is_ascii_digit() {
            let d = u64::from(line[i] - b'0');
            v = v.checked_mul(10).and_then(|v| v.checked_add(d)).ok_or(())?;
            i += 1;
        }
        if i == start || (i < line.len() && line[i] != b' ' && line[i] != b'\t') {
            return Err(());
        }
        *pos = i;
        Ok(Some(v))
    }

    proptest! {
        /// Fields of digits (up to 25, overflowing past 20), spaces, tabs and junk scan as
        /// they did, field after field.
        #[test]
        fn fields_scan_as_before(line in "([ \t]{0,2}(0{0,3}[0-9]{0,22}|[0-9a-x+-]{0,3})){0,6}") {
            let (mut a, mut b) = (0, 0);
            loop {
                let (x, y) = (next_u64(line.as_bytes(), &mut a), reference(line.as_bytes(), &mut b));
                prop_assert_eq!(x, y);
                prop_assert_eq!(a, b);
                if !matches!(x, Ok(Some(_))) {
                    break;
                }
            }
        }
    }
}
