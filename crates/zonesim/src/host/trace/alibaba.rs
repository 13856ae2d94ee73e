//! Alibaba Cloud block traces (the 2020 EBS release), CSV without quoting.
//!
//! ```text
//! device_id,opcode,offset,length,timestamp
//! 0,R,126703644672,4096,1577808000000001
//! ```
//!
//! | column | meaning |
//! |---|---|
//! | `device_id` | virtual disk id; the record's `stream` (filter with `--filter N`) |
//! | `opcode` | `R` (read) or `W` (write) |
//! | `offset`, `length` | bytes |
//! | `timestamp` | microseconds (Unix epoch) |
//!
//! Exactly 5 fields. A first data line that is the column-name header is ignored.

use super::{field_u32, field_u64, show, PResult, Parsed};
use crate::host::IoKind;

/// Parses one (trimmed, non-empty) Alibaba line; `first` is true for the first data line.
#[inline]
pub(crate) fn parse_line(line: &[u8], first: bool) -> PResult<Parsed> {
    let mut f: [&[u8]; 5] = [&[]; 5];
    let n = super::take_fields(super::csv_fields(line), &mut f);
    if first && f[0].eq_ignore_ascii_case(b"device_id") {
        return Ok(Parsed::Ignore);
    }
    if n != 5 {
        return Err(format!(
            "expected 5 comma-separated fields `device_id,opcode,offset,length,timestamp_us`, \
             found {n}"
        ));
    }
    let stream = field_u32(f[0], "device_id")?;
    let kind = match f[1] {
        b"R" | b"r" => IoKind::Read,
        b"W" | b"w" => IoKind::Write,
        o => return Err(format!("opcode: expected `R` or `W`, found `{}`", show(o))),
    };
    let offset = field_u64(f[2], "offset")?;
    let len = field_u64(f[3], "length")?;
    let time = field_u64(f[4], "timestamp_us")?;
    Ok(Parsed::Record {
        time,
        kind,
        offset,
        len,
        stream,
    })
}
