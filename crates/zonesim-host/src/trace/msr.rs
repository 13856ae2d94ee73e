//! MSR Cambridge block traces (SNIA IOTTA), CSV without quoting.
//!
//! ```text
//! Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime
//! 128166372003061629,hm,1,Read,3154132992,4096,4044
//! ```
//!
//! | column | meaning |
//! |---|---|
//! | `Timestamp` | Windows FILETIME: 100 ns ticks since 1601-01-01 |
//! | `Hostname` | ignored |
//! | `DiskNumber` | the record's `stream` (filter with `--filter N`) |
//! | `Type` | `Read` or `Write` (ASCII case-insensitive) |
//! | `Offset`, `Size` | bytes |
//! | `ResponseTime` | measured latency in 100 ns ticks; ignored (the simulator measures its own) |
//!
//! Exactly 7 fields. A first data line that is the column-name header is ignored.

use super::{field_u32, field_u64, show, PResult, Parsed};
use crate::IoKind;

/// Parses one (trimmed, non-empty) MSR line; `first` is true for the first data line.
#[inline]
pub(crate) fn parse_line(line: &[u8], first: bool) -> PResult<Parsed> {
    let Some(f) = super::csv_exact::<7>(
        line,
        first,
        b"timestamp",
        "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime",
    )?
    else {
        return Ok(Parsed::Ignore);
    };
    let time = field_u64(f[0], "Timestamp")?;
    let stream = field_u32(f[2], "DiskNumber")?;
    let kind = if f[3].eq_ignore_ascii_case(b"read") {
        IoKind::Read
    } else if f[3].eq_ignore_ascii_case(b"write") {
        IoKind::Write
    } else {
        return Err(format!(
            "Type: expected `Read` or `Write`, found `{}`",
            show(f[3])
        ));
    };
    let offset = field_u64(f[4], "Offset")?;
    let len = field_u64(f[5], "Size")?;
    field_u64(f[6], "ResponseTime")?;
    Ok(Parsed::Record {
        time,
        kind,
        offset,
        len,
        stream,
    })
}
