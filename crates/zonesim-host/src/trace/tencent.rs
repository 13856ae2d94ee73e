//! Tencent Cloud Block Storage traces (SNIA IOTTA, OSCA ATC '20), CSV without quoting.
//!
//! ```text
//! Timestamp,Offset,Size,IOType,VolumeID
//! 1538323200,18403456,8,1,1283
//! ```
//!
//! | column | meaning |
//! |---|---|
//! | `Timestamp` | Unix time in whole seconds (so arrival times have 1 s resolution) |
//! | `Offset` | start, in 512-byte sectors |
//! | `Size` | length, in 512-byte sectors |
//! | `IOType` | `0` = read, `1` = write (as the dataset's README states) |
//! | `VolumeID` | cloud volume id; the record's `stream` (filter with `--filter N`) |
//!
//! Exactly 5 fields. A first data line that is the column-name header is ignored.

use super::{field_u32, field_u64, PResult, Parsed};
use crate::IoKind;

/// Parses one (trimmed, non-empty) Tencent line; `first` is true for the first data line.
#[inline]
pub(crate) fn parse_line(line: &[u8], first: bool) -> PResult<Parsed> {
    let Some(f) = super::csv_exact::<5>(
        line,
        first,
        b"timestamp",
        "timestamp_s,offset_sectors,size_sectors,iotype,volume_id",
    )?
    else {
        return Ok(Parsed::Ignore);
    };
    let time = field_u64(f[0], "timestamp_s")?;
    let offset = super::mul(field_u64(f[1], "offset_sectors")?, 512, "offset_sectors")?;
    let len = super::mul(field_u64(f[2], "size_sectors")?, 512, "size_sectors")?;
    let kind = match f[3] {
        b"0" => IoKind::Read,
        b"1" => IoKind::Write,
        _ => {
            return Err(format!(
                "iotype: expected 0 (read) or 1 (write), found `{}`",
                super::show(f[3])
            ))
        }
    };
    let stream = field_u32(f[4], "volume_id")?;
    Ok(Parsed::Record {
        time,
        kind,
        offset,
        len,
        stream,
    })
}
