//! fio iolog (`read_iolog=` / `write_iolog=`), versions 2 and 3, as fio's `iolog.c` reads them.
//!
//! The first data line is the header `fio version 2 iolog` or `fio version 3 iolog` (version 1
//! is not supported, as in fio). Fields are separated by spaces; offsets and lengths are bytes.
//!
//! ```text
//! fio version 2 iolog            fio version 3 iolog
//! /dev/sdb add                   0 /dev/sdb add
//! /dev/sdb open                  2 /dev/sdb open
//! /dev/sdb write 0 4096          10 /dev/sdb write 0 4096
//! /dev/sdb wait 500 0            510 /dev/sdb read 4096 4096
//! /dev/sdb read 4096 4096        900 /dev/sdb sync 0 0
//! /dev/sdb sync 0 0              950 /dev/sdb close
//! /dev/sdb close
//! ```
//!
//! - v2: `filename action [offset length]`. Lines carry no time: the clock starts at 0 and only
//!   `wait` advances it, by `offset` microseconds (relative to the previous wait, as the fio
//!   HOWTO describes it); every request is stamped with the current clock.
//! - v3: `timestamp filename action [offset length]`; `timestamp` is in **microseconds** from
//!   the start of the run. (fio writes it with `utime_since_now` and replays the differences as
//!   microsecond delays, so although it is sometimes described as milliseconds, microseconds is
//!   what fio produces and consumes.) fio ignores `wait` in v3; so do we (skipped).
//! - Actions: `read`, `write`, `trim` (→ [`IoKind::Trim`]) need `offset length`; `sync`,
//!   `datasync`, `sync_file_range` → [`IoKind::Flush`] (`len` 0, `offset length` optional);
//!   file actions `add`, `open`, `close`, `unlink` (no `offset length`) and `wait` are skipped
//!   and counted. Any other action is a malformed line.
//! - The record's `stream` is the index of its file name in order of first appearance (0 for
//!   a single-file log).

use super::{field_u64, show, PResult, Parsed};
use crate::IoKind;

/// iolog parser state.
#[derive(Debug, Default)]
pub(crate) struct IologState {
    /// 2 or 3 once the header is seen.
    version: u8,
    /// v2 clock in µs (advanced by `wait`).
    clock_us: u64,
    /// File names and their index in order of first appearance.
    files: std::collections::HashMap<Vec<u8>, u32>,
}

/// The longest file name accepted (Linux `PATH_MAX`); with the 65536-name limit it bounds the
/// parser's memory.
const MAX_NAME_BYTES: usize = 4096;

impl IologState {
    fn file_index(&mut self, name: &[u8]) -> PResult<u32> {
        if let Some(&i) = self.files.get(name) {
            return Ok(i);
        }
        if self.files.len() >= 1 << 16 {
            return Err("more than 65536 distinct file names".to_string());
        }
        if name.len() > MAX_NAME_BYTES {
            return Err(format!(
                "file name longer than {MAX_NAME_BYTES} bytes: `{}`",
                show(name)
            ));
        }
        let i = self.files.len() as u32;
        self.files.insert(name.to_vec(), i);
        Ok(i)
    }
}

/// Recognises the header; `Some(version)`.
pub(crate) fn header_version(line: &[u8]) -> Option<u8> {
    if line.starts_with(b"fio version 2 iolog") {
        Some(2)
    } else if line.starts_with(b"fio version 3 iolog") {
        Some(3)
    } else {
        None
    }
}

/// Parses one (trimmed, non-empty) iolog line.
#[inline]
pub(crate) fn parse_line(line: &[u8], st: &mut IologState) -> PResult<Parsed> {
    if st.version == 0 {
        return match header_version(line) {
            Some(v) => {
                st.version = v;
                Ok(Parsed::Ignore)
            }
            None => Err(format!(
                "expected the header `fio version 2 iolog` or `fio version 3 iolog` \
                 (iolog version 1 is not supported), found `{}`",
                show(line)
            )),
        };
    }
    let mut f: [&[u8]; 5] = [&[]; 5];
    let n = super::take_fields(super::words(line), &mut f);
    let (time, rest, m): (u64, &[&[u8]], usize) = if st.version == 3 {
        if n < 3 {
            return Err(format!(
                "expected `timestamp filename action [offset length]`, found {n} fields"
            ));
        }
        st.clock_us = field_u64(f[0], "timestamp")?;
        (st.clock_us, &f[1..], n - 1)
    } else {
        if n < 2 {
            return Err(format!(
                "expected `filename action [offset length]`, found {n} fields"
            ));
        }
        (st.clock_us, &f[..], n)
    };
    let (file, action) = (rest[0], rest[1]);
    // m: fields from `filename` on (2, 3 or 4 are meaningful).
    if m > 4 {
        return Err(format!(
            "too many fields: expected at most `filename action offset length`, found {m} \
             from the file name on"
        ));
    }
    let args = || -> PResult<(u64, u64)> {
        if m != 4 {
            return Err(format!("action `{}` needs `offset length`", show(action)));
        }
        Ok((field_u64(rest[2], "offset")?, field_u64(rest[3], "length")?))
    };
    let kind = match action {
        b"read" => IoKind::Read,
        b"write" => IoKind::Write,
        b"trim" => IoKind::Trim,
        b"sync" | b"datasync" | b"sync_file_range" => {
            if m == 3 {
                return Err(format!("action `{}`: offset without length", show(action)));
            }
            if m == 4 {
                args()?;
            }
            let stream = st.file_index(file)?;
            return Ok(Parsed::Record {
                time,
                kind: IoKind::Flush,
                offset: 0,
                len: 0,
                stream,
            });
        }
        b"add" | b"open" | b"close" | b"unlink" => {
            if m != 2 {
                return Err(format!(
                    "file action `{}` takes no offset or length",
                    show(action)
                ));
            }
            st.file_index(file)?;
            return Ok(Parsed::Skip);
        }
        b"wait" => {
            if m < 3 {
                return Err("action `wait` needs a delay in microseconds".to_string());
            }
            let us = field_u64(rest[2], "wait")?;
            if m == 4 {
                field_u64(rest[3], "length")?;
            }
            if st.version == 2 {
                st.clock_us = st.clock_us.saturating_add(us);
            }
            return Ok(Parsed::Skip);
        }
        other => {
            return Err(format!(
                "unknown iolog action `{}` (expected read, write, trim, sync, datasync, wait, \
                 add, open, close)",
                show(other)
            ))
        }
    };
    let (offset, len) = args()?;
    let stream = st.file_index(file)?;
    Ok(Parsed::Record {
        time,
        kind,
        offset,
        len,
        stream,
    })
}
