//! fio's per-job logs (`write_lat_log`, `write_bw_log`, `write_iops_log`, `log_avg_msec`,
//! `per_job_logs`), written as fio 3.33 writes them so fio's log tools read them: one text line
//! per entry, `time, value, direction, block size, priority`, where time is ms since the job
//! started (simulated), direction 0 read, 1 write, 2 trim, and the value a latency in ns, a
//! bandwidth in KiB/s or an IOPS count. Without `log_avg_msec` each I/O is one entry (an IOPS
//! entry is 1, a bandwidth entry the I/O's bytes over its latency, as fio does); with it each
//! direction with I/O in a window of N simulated ms gets one entry at the window's end (the
//! mean latency, the window's KiB/s or IOPS; block size 0), the last window ending with the job.
//!
//! Files are named as fio names them, relative to the working directory: `NAME_lat.N.log`,
//! `NAME_clat.N.log`, `NAME_slat.N.log`, `NAME_bw.N.log`, `NAME_iops.N.log`, N the job's number
//! from 1 (clones counted), or without `.N` with `per_job_logs=0`. Latency is measured from
//! issue to completion (host queueing included): `lat` and `clat` carry it, `slat` is 0 (no
//! submission cost is modelled). Entries are streamed through a buffered writer: memory stays
//! bounded whatever the run's length; a job without logs pays one `Option` test per completion.

use crate::engine::SimTime;
use crate::error::{Error, Result};
use crate::host::fio::LogOpts;
use crate::host::IoKind;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::PathBuf;

/// One log file being written.
struct LogFile {
    path: PathBuf,
    out: BufWriter<File>,
}

impl LogFile {
    fn create(path: PathBuf) -> Result<LogFile> {
        let f = File::create(&path).map_err(|e| Error::io(&path, e))?;
        Ok(LogFile {
            path,
            out: BufWriter::with_capacity(64 * 1024, f),
        })
    }
}

/// What the window of one direction holds so far.
#[derive(Clone, Copy, Default)]
struct Window {
    ios: u64,
    bytes: u64,
    lat_ns: u128,
}

/// The logs of one job.
pub(super) struct JobLogs {
    /// The job's start: entry times are ms since it.
    start: SimTime,
    /// `log_avg_msec` in ns (0: every I/O).
    avg_ns: u64,
    /// fio's priority column: 1 for the realtime class, else 0.
    prio: u8,
    /// lat, clat, slat.
    lat: Option<[LogFile; 3]>,
    bw: Option<LogFile>,
    iops: Option<LogFile>,
    /// Averaged logs: the current window's end (ns since `start`) and its content per direction.
    window_end: u64,
    win: [Window; 3],
    /// The first write error; reported when the run ends.
    error: Option<Error>,
}

/// The file name fio gives the `kind` log of job number `num` (from 1) named `name`.
pub fn log_name(name: &str, kind: &str, num: usize, per_job: bool) -> String {
    if per_job {
        format!("{name}_{kind}.{num}.log")
    } else {
        format!("{name}_{kind}.log")
    }
}

impl JobLogs {
    /// The logs `o` asks of job `job` (number `num` from 1), or None; the files are created
    /// now (an unwritable path is an error naming the option).
    pub fn open(o: &LogOpts, job: &str, num: usize, realtime: bool) -> Result<Option<JobLogs>> {
        if !o.any() {
            return Ok(None);
        }
        let file = |opt: &str, name: &str, kind: &str| {
            let base = if name.is_empty() { job } else { name };
            LogFile::create(PathBuf::from(log_name(base, kind, num, o.per_job)))
                .map_err(|e| Error::Usage(format!("job '{job}': {opt}: {e}")))
        };
        let lat = match &o.lat {
            Some(n) => Some([
                file("write_lat_log", n, "lat")?,
                file("write_lat_log", n, "clat")?,
                file("write_lat_log", n, "slat")?,
            ]),
            None => None,
        };
        let bw =
            o.bw.as_deref()
                .map(|n| file("write_bw_log", n, "bw"))
                .transpose()?;
        let iops = o
            .iops
            .as_deref()
            .map(|n| file("write_iops_log", n, "iops"))
            .transpose()?;
        let avg_ns = o.avg_msec * 1_000_000;
        Ok(Some(JobLogs {
            start: SimTime::ZERO,
            avg_ns,
            prio: realtime as u8,
            lat,
            bw,
            iops,
            window_end: avg_ns,
            win: [Window::default(); 3],
            error: None,
        }))
    }

    /// The files being written.
    pub fn paths(&self) -> impl Iterator<Item = &std::path::Path> {
        let files = self.lat.iter().flatten().chain(&self.bw).chain(&self.iops);
        files.map(|f| f.path.as_path())
    }

    /// The job starts at `now`.
    pub fn start(&mut self, now: SimTime) {
        self.start = now;
        self.window_end = self.avg_ns;
    }

    /// A request of the job completes at `now`.
    pub fn record(&mut self, kind: IoKind, issued: SimTime, now: SimTime, bytes: u64) {
        let dir = match kind {
            IoKind::Read => 0,
            IoKind::Write | IoKind::ZoneAppend | IoKind::InPlace => 1,
            IoKind::Trim => 2,
            _ => return, // flushes and zone commands are not logged (fio logs data directions)
        };
        let lat = now.since(issued);
        let t = now.since(self.start);
        let r = if self.avg_ns == 0 {
            self.entry(t / 1_000_000, lat, dir, bytes)
        } else {
            while t >= self.window_end {
                let end = self.window_end;
                if let Err(e) = self.flush_window(end, self.avg_ns) {
                    self.error.get_or_insert(e);
                }
                self.window_end += self.avg_ns;
            }
            let w = &mut self.win[dir as usize];
            w.ios += 1;
            w.bytes += bytes;
            w.lat_ns += lat as u128;
            Ok(())
        };
        if let Err(e) = r {
            self.error.get_or_insert(e);
        }
    }

    /// The entries of one I/O.
    fn entry(&mut self, ms: u64, lat: u64, dir: u8, bytes: u64) -> Result<()> {
        let prio = self.prio;
        let line = |f: &mut LogFile, v: u64| {
            writeln!(f.out, "{ms}, {v}, {dir}, {bytes}, {prio}").map_err(|e| Error::io(&f.path, e))
        };
        if let Some([l, c, s]) = &mut self.lat {
            line(l, lat)?;
            line(c, lat)?;
            line(s, 0)?;
        }
        if let Some(f) = &mut self.bw {
            line(f, (bytes as u128 * 1_000_000 / lat.max(1) as u128) as u64)?;
        }
        if let Some(f) = &mut self.iops {
            line(f, 1)?;
        }
        Ok(())
    }

    /// The entries of the window ending at `end` (ns since the start), `len_ns` long.
    fn flush_window(&mut self, end: u64, len_ns: u64) -> Result<()> {
        let ms = end / 1_000_000;
        let len_ns = len_ns.max(1) as u128;
        let prio = self.prio;
        for dir in 0..3u8 {
            let w = std::mem::take(&mut self.win[dir as usize]);
            if w.ios == 0 {
                continue; // fio writes no entry for a direction without I/O in the window
            }
            let line = |f: &mut LogFile, v: u128| {
                writeln!(f.out, "{ms}, {v}, {dir}, 0, {prio}").map_err(|e| Error::io(&f.path, e))
            };
            if let Some([l, c, s]) = &mut self.lat {
                // fio rounds the window's mean to the nearest ns.
                let mean = (w.lat_ns + w.ios as u128 / 2) / w.ios as u128;
                line(l, mean)?;
                line(c, mean)?;
                line(s, 0)?;
            }
            if let Some(f) = &mut self.bw {
                line(f, w.bytes as u128 * 1_000_000_000 / len_ns / 1024)?;
            }
            if let Some(f) = &mut self.iops {
                line(f, w.ios as u128 * 1_000_000_000 / len_ns)?;
            }
        }
        Ok(())
    }

    /// The job's last request completed at `end` (or the run ended): the last window's
    /// entries, the files flushed; the first write error, if any.
    pub fn finish(&mut self, end: SimTime) -> Result<()> {
        if self.avg_ns > 0 {
            let t = end.since(self.start);
            let begin = self.window_end - self.avg_ns;
            if let Err(e) = self.flush_window(t, t.saturating_sub(begin)) {
                self.error.get_or_insert(e);
            }
        }
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        let files = self
            .lat
            .iter_mut()
            .flatten()
            .chain(&mut self.bw)
            .chain(&mut self.iops);
        for f in files {
            f.out.flush().map_err(|e| Error::io(&f.path, e))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_fio_s() {
        assert_eq!(log_name("rw", "clat", 3, true), "rw_clat.3.log");
        assert_eq!(log_name("rw", "bw", 1, false), "rw_bw.log");
    }
}
