//! Trace capture of an emulated device (`--record FILE`, `zs_record`): every request the host
//! issued, at its simulated arrival time, as a fio iolog (version 3) or as blkparse text, the
//! formats `host::trace` reads back (`zonesim run --trace FILE`), so a real application's I/O
//! becomes a replayable trace.

use crate::engine::SimTime;
use crate::error::{Error, Result};
use crate::host::IoKind;
use crate::stats::emulation::RecordReport;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The recorded trace format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecordFormat {
    /// fio iolog version 3: `µs file action offset length`.
    Iolog,
    /// blkparse text, `D` (issue) events in 512-byte sectors.
    Blkparse,
}

impl RecordFormat {
    pub fn name(self) -> &'static str {
        match self {
            RecordFormat::Iolog => "iolog",
            RecordFormat::Blkparse => "blkparse",
        }
    }

    pub fn parse(key: &str, s: &str) -> Result<RecordFormat> {
        match s {
            "iolog" => Ok(RecordFormat::Iolog),
            "blkparse" => Ok(RecordFormat::Blkparse),
            _ => Err(Error::config(
                key,
                format!("`{s}`: expected iolog or blkparse"),
            )),
        }
    }
}

/// Writes the trace as requests arrive.
pub struct Recorder {
    out: std::io::BufWriter<std::fs::File>,
    path: PathBuf,
    format: RecordFormat,
    /// The file name in iolog lines.
    name: &'static str,
    requests: u64,
    skipped: u64,
}

impl Recorder {
    /// Creates `path` and writes the format's header.
    pub fn create(path: &Path, format: RecordFormat) -> Result<Recorder> {
        let file = std::fs::File::create(path).map_err(|e| Error::io(path, e))?;
        let mut r = Recorder {
            out: std::io::BufWriter::new(file),
            path: path.to_path_buf(),
            format,
            name: "zonesim",
            requests: 0,
            skipped: 0,
        };
        if format == RecordFormat::Iolog {
            let n = r.name;
            r.line(format_args!("fio version 3 iolog\n0 {n} add\n0 {n} open\n"))?;
        }
        Ok(r)
    }

    fn line(&mut self, args: std::fmt::Arguments) -> Result<()> {
        self.out
            .write_fmt(args)
            .map_err(|e| Error::io(&self.path, e))
    }

    /// Records one request arriving at `at`.
    pub fn record(&mut self, at: SimTime, kind: IoKind, offset: u64, len: u64) -> Result<()> {
        let Some((action, rwbs)) = (match kind {
            IoKind::Read => Some(("read", "R")),
            IoKind::Write | IoKind::ZoneAppend | IoKind::InPlace => Some(("write", "W")),
            IoKind::Trim => Some(("trim", "D")),
            IoKind::Flush => Some(("sync", "F")),
            _ => None,
        }) else {
            self.skipped += 1;
            return Ok(());
        };
        self.requests += 1;
        let n = self.name;
        match self.format {
            RecordFormat::Iolog => {
                let us = at.ns() / 1000;
                self.line(format_args!("{us} {n} {action} {offset} {len}\n"))
            }
            RecordFormat::Blkparse => {
                let (s, ns) = (at.ns() / 1_000_000_000, at.ns() % 1_000_000_000);
                let seq = self.requests;
                let head = format!("259,0    0 {seq:>8} {s:>5}.{ns:09}     0  D {rwbs:>3}");
                if kind == IoKind::Flush {
                    self.line(format_args!("{head} [zonesim]\n"))
                } else {
                    let (sector, count) = (offset / 512, len.div_ceil(512));
                    self.line(format_args!("{head} {sector} + {count} [zonesim]\n"))
                }
            }
        }
    }

    /// Writes the closing line (iolog) and flushes; `end` is the last simulated time.
    pub fn finish(&mut self, end: SimTime) -> Result<()> {
        if self.format == RecordFormat::Iolog {
            let (us, n) = (end.ns() / 1000, self.name);
            self.line(format_args!("{us} {n} close\n"))?;
        }
        self.out.flush().map_err(|e| Error::io(&self.path, e))
    }

    pub fn report(&self) -> RecordReport {
        RecordReport {
            file: self.path.display().to_string(),
            format: self.format.name(),
            requests: self.requests,
            skipped: self.skipped,
        }
    }
}
