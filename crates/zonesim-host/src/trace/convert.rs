//! `zonesim trace convert`: rewrites any readable trace as DiskSim ASCII or fio iolog v3.
//!
//! - DiskSim: `time_ns device sector sectors type` (type 1 = read, 0 = write), times as the
//!   reader normalised them (first record at 0), device = the record's `stream`. Offsets and
//!   lengths not aligned to 512 bytes are widened to the sectors that cover them. DiskSim cannot
//!   express trims or flushes: they are dropped (not written) and not counted in the returned
//!   number, so `reader.records() - written` is the number dropped.
//! - iolog: `fio version 3 iolog`, then `0 zonesim.dev add` and `0 zonesim.dev open`, one
//!   `time_us zonesim.dev read|write|trim offset length` or `time_us zonesim.dev sync 0 0` line
//!   per record, and a final `time_us zonesim.dev close`. Times are truncated to whole
//!   microseconds (fio's unit); all streams go to the one file `zonesim.dev`.

use std::fmt;
use std::io::Write;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use super::TraceReader;
use crate::IoKind;
use zonesim_core::error::{Error, Result};

/// The file name used in converted iologs.
pub const IOLOG_FILE: &str = "zonesim.dev";

/// Output format of `trace convert`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ConvertFormat {
    Disksim,
    Iolog,
}

impl fmt::Display for ConvertFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ConvertFormat::Disksim => "disksim",
            ConvertFormat::Iolog => "iolog",
        })
    }
}

impl FromStr for ConvertFormat {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        if s.eq_ignore_ascii_case("disksim") {
            Ok(ConvertFormat::Disksim)
        } else if s.eq_ignore_ascii_case("iolog") {
            Ok(ConvertFormat::Iolog)
        } else {
            Err(Error::Usage(format!(
                "unknown conversion target `{s}`; expected disksim or iolog"
            )))
        }
    }
}

/// The path named in write errors; callers that know the real path may substitute it.
pub const OUTPUT_NAME: &str = "<output>";

fn werr(e: std::io::Error) -> Error {
    Error::io(OUTPUT_NAME, e)
}

/// Converts the rest of `reader` into `out`; returns the number of records written.
pub fn convert(reader: &mut TraceReader, out: &mut dyn Write, to: ConvertFormat) -> Result<u64> {
    let mut written = 0u64;
    match to {
        ConvertFormat::Disksim => {
            while let Some(r) = reader.next_record()? {
                let ty = match r.io.kind {
                    IoKind::Read => 1,
                    IoKind::Write => 0,
                    _ => continue,
                };
                let sector = r.io.offset / 512;
                let end = r.io.offset.saturating_add(r.io.len).div_ceil(512);
                writeln!(
                    out,
                    "{} {} {} {} {}",
                    r.time_ns,
                    r.stream,
                    sector,
                    end - sector,
                    ty
                )
                .map_err(werr)?;
                written += 1;
            }
        }
        ConvertFormat::Iolog => {
            writeln!(out, "fio version 3 iolog").map_err(werr)?;
            writeln!(out, "0 {IOLOG_FILE} add").map_err(werr)?;
            writeln!(out, "0 {IOLOG_FILE} open").map_err(werr)?;
            let mut last_us = 0;
            while let Some(r) = reader.next_record()? {
                let us = r.time_ns / 1000;
                last_us = last_us.max(us);
                let action = match r.io.kind {
                    IoKind::Read => "read",
                    IoKind::Write | IoKind::InPlace => "write",
                    IoKind::Trim => "trim",
                    IoKind::Flush => "sync",
                    IoKind::ZoneReset
                    | IoKind::ZoneFinish
                    | IoKind::ZoneOpen
                    | IoKind::ZoneClose
                    | IoKind::ZoneAppend => continue,
                };
                writeln!(
                    out,
                    "{us} {IOLOG_FILE} {action} {} {}",
                    r.io.offset, r.io.len
                )
                .map_err(werr)?;
                written += 1;
            }
            writeln!(out, "{last_us} {IOLOG_FILE} close").map_err(werr)?;
        }
    }
    out.flush().map_err(werr)?;
    Ok(written)
}
