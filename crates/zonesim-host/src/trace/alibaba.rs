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
use crate::IoKind;

/// Parses one (trimmed, non-empty) Alibaba line; `first` is true for the first data line.
#[inline]
pub(crate) fn parse_line(line: &[u8], first: bool) -> PResult<Parsed> {
    let Some(f) = super::csv_exact::<5>(
        line,
        first,
        b"device_id",
        "device_id,opcode,offset,length,timestamp_us",
    )?
    else {
        return Ok(Parsed::Ignore);
    };
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
