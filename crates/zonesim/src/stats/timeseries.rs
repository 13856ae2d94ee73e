//! The time series of a run (`stats.interval_ms`, `zonesim run --interval-ms`): one row per
//! simulated interval of the measured phase, in the report's `timeseries` and as CSV
//! (`--timeseries FILE.csv`). Schema: docs/report.md ("timeseries").
//!
//! A row holds what happened in its interval on the host side (IOPS, MiB/s, latency mean and
//! p99 per direction, from the requests *completed* in it) and the state of the model at its
//! end, sampled from [`SeriesSection`]s: the device's (cumulative WAF, free superblocks, GC
//! pages moved in the interval, SLC and buffer occupancy) and any other component's.
//!
//! Extension point: a component that wants its own columns in the same rows (a host file
//! system's segments, say) implements [`SeriesSection`] — a fixed list of named columns and a
//! `sample` that appends their current values — and is passed to [`Sampler::new`] and
//! [`Sampler::advance`] beside the device (see `sim::Engine::sections`). Columns are named
//! `section.column` by convention (`fs.free_segments`); the standard ones keep their bare names.
//!
//! Cost: when off, the engine compares each event's time with [`SimTime::MAX`]; when on, each
//! completion adds to a counter and a small (2-significant-digit) histogram, and each interval
//! costs one row and one histogram reset per direction (the 3-digit histograms of the totals
//! would be ten times dearer to reset).

use crate::engine::SimTime;
use crate::host::IoKind;
use hdrhistogram::Histogram;
use serde::Serialize;

/// Sampled state of one component: named columns, values appended in the same order.
pub trait SeriesSection {
    /// Column names, fixed for the run (`fs.free_segments`, ...).
    fn series_columns(&self) -> Vec<&'static str>;
    /// Append the current value of each column, in [`SeriesSection::series_columns`] order.
    fn sample_series(&self, out: &mut Vec<f64>);
}

/// `timeseries` of the report: column names and one row of values per interval. Row `i`
/// covers simulated time `(t_ms - interval, t_ms]` of the measured phase (the last row may be
/// shorter: it ends with the run).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct TimeSeries {
    pub interval_ms: f64,
    pub columns: Vec<String>,
    pub rows: Vec<Vec<f64>>,
    /// Each job's own rows (runs of 2 to [`MAX_JOB_SERIES`] jobs), the same intervals.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub jobs: Vec<JobSeries>,
}

/// One job's part of the time series: its requests completed per interval, in the columns
/// `t_ms` and the host columns of each direction (`read_iops` ... `write_lat_p99_us`).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct JobSeries {
    pub name: String,
    pub columns: Vec<String>,
    pub rows: Vec<Vec<f64>>,
}

/// The most jobs (clones counted) whose own series a run samples: beyond it only the totals
/// (each job's histograms cost tens of KiB).
pub const MAX_JOB_SERIES: usize = 64;

/// The host columns of both directions after `t_ms`, in row order.
fn host_columns() -> Vec<String> {
    let mut columns = vec!["t_ms".to_string()];
    for dir in ["read", "write"] {
        columns.extend(HOST_COLUMNS.iter().map(|c| format!("{dir}_{c}")));
    }
    columns
}

impl TimeSeries {
    /// The series as CSV: a header line of column names, then one line per row.
    pub fn to_csv(&self) -> String {
        let mut s = self.columns.join(",");
        s.push('\n');
        for r in &self.rows {
            let line: Vec<String> = r.iter().map(|v| v.to_string()).collect();
            s.push_str(&line.join(","));
            s.push('\n');
        }
        s
    }
}

/// Host columns of each direction, per interval.
const HOST_COLUMNS: [&str; 4] = ["iops", "mib_s", "lat_mean_us", "lat_p99_us"];

/// Completions of one direction within the current interval.
struct Window {
    ios: u64,
    bytes: u64,
    lat_sum_ns: u128,
    hist: Histogram<u64>,
}

impl Window {
    fn new() -> Window {
        Window {
            ios: 0,
            bytes: 0,
            lat_sum_ns: 0,
            // 2 significant digits (1 % resolution), 1 ns .. 1000 s: tens of KiB, cheap to reset.
            hist: Histogram::new_with_bounds(1, 1_000_000_000_000, 2).expect("valid bounds"),
        }
    }

    #[inline]
    fn record(&mut self, latency_ns: u64, bytes: u64) {
        self.ios += 1;
        self.bytes += bytes;
        self.lat_sum_ns += latency_ns as u128;
        self.hist.saturating_record(latency_ns.max(1));
    }

    /// IOPS, MiB/s, mean and p99 latency (us) over `secs`; then empty for the next interval.
    fn drain(&mut self, secs: f64, out: &mut Vec<f64>) {
        let secs = secs.max(1e-12);
        let (mean, p99) = if self.ios == 0 {
            (0.0, 0.0)
        } else {
            (
                self.lat_sum_ns as f64 / self.ios as f64 / 1000.0,
                self.hist.value_at_quantile(0.99) as f64 / 1000.0,
            )
        };
        out.extend([
            self.ios as f64 / secs,
            self.bytes as f64 / 1048576.0 / secs,
            mean,
            p99,
        ]);
        if self.ios > 0 {
            self.ios = 0;
            self.bytes = 0;
            self.lat_sum_ns = 0;
            self.hist.reset();
        }
    }
}

/// The most values (rows x columns) a time series holds: 128 MiB in the run, a few hundred MB
/// of JSON report. Sampling is work too: each row samples every section (the file system's
/// counts its segments), so the bound is on the values and the run ends when it is reached:
/// an interval that small for the run's simulated time is refused (`sim`), not grown without
/// bound and not carried to the end of a run whose series is already lost.
pub const MAX_VALUES: usize = 1 << 24;

/// The completions of one direction pair (all requests, or one job's) in the interval.
struct Windows {
    read: Window,
    write: Window,
}

impl Windows {
    fn new() -> Windows {
        Windows {
            read: Window::new(),
            write: Window::new(),
        }
    }

    #[inline]
    fn record(&mut self, kind: IoKind, latency_ns: u64, bytes: u64) {
        let w = match kind {
            IoKind::Read => &mut self.read,
            IoKind::Write | IoKind::ZoneAppend | IoKind::InPlace => &mut self.write,
            _ => return,
        };
        w.record(latency_ns, bytes);
    }

    fn drain(&mut self, secs: f64, out: &mut Vec<f64>) {
        self.read.drain(secs, out);
        self.write.drain(secs, out);
    }
}

/// Records completions per interval and closes intervals as simulated time passes.
pub struct Sampler {
    interval_ns: u64,
    start: SimTime,
    /// End of the current interval.
    next: SimTime,
    all: Windows,
    /// Each job's windows (empty: no per-job series), indexed by the job's source number.
    jobs: Vec<Windows>,
    series: TimeSeries,
    /// The most rows of this series' width ([`MAX_VALUES`] / columns).
    max_rows: usize,
}

impl Sampler {
    /// A sampler of intervals of `interval_ns` from `start`, with the host columns and those of
    /// `sections` (in order).
    /// `jobs`: the names of the jobs to sample one by one as well (empty: none).
    pub fn new(
        interval_ns: u64,
        start: SimTime,
        sections: &[&dyn SeriesSection],
        jobs: &[String],
    ) -> Sampler {
        let mut columns = host_columns();
        for s in sections {
            columns.extend(s.series_columns().iter().map(|c| c.to_string()));
        }
        let job_series: Vec<JobSeries> = jobs
            .iter()
            .map(|name| JobSeries {
                name: name.clone(),
                columns: host_columns(),
                rows: Vec::new(),
            })
            .collect();
        // Every row holds the totals' columns and each job's.
        let width = columns.len() + job_series.iter().map(|j| j.columns.len()).sum::<usize>();
        let max_rows = MAX_VALUES / width;
        Sampler {
            max_rows,
            interval_ns: interval_ns.max(1),
            start,
            next: start + interval_ns.max(1),
            all: Windows::new(),
            jobs: jobs.iter().map(|_| Windows::new()).collect(),
            series: TimeSeries {
                interval_ms: interval_ns as f64 / 1e6,
                columns,
                rows: Vec::new(),
                jobs: job_series,
            },
        }
    }

    /// End of the current interval: the engine calls [`Sampler::advance`] before it handles an
    /// event at or after it.
    #[inline]
    pub fn next_boundary(&self) -> SimTime {
        self.next
    }

    /// A request of job `job` (its source number) of `kind` issued at `issued` completed at
    /// `done`. Reads count as reads, writes and appends as writes; other kinds are not in the
    /// series.
    #[inline]
    pub fn record(&mut self, job: usize, kind: IoKind, issued: SimTime, done: SimTime, bytes: u64) {
        let lat = done - issued;
        self.all.record(kind, lat, bytes);
        if let Some(w) = self.jobs.get_mut(job) {
            w.record(kind, lat, bytes);
        }
    }

    /// Close every interval that ends at or before `now`, sampling `sections` for each.
    pub fn advance(&mut self, now: SimTime, sections: &[&dyn SeriesSection]) {
        while self.next <= now {
            if self.full() {
                // No more rows: the run's end refuses the interval (`sim`), nothing samples.
                self.next = SimTime::MAX;
                return;
            }
            let end = self.next;
            self.close(end, self.interval_ns, sections);
            self.next = end + self.interval_ns;
        }
    }

    /// Whether the series holds its most rows ([`MAX_VALUES`] values; it samples no more).
    pub fn full(&self) -> bool {
        self.series.rows.len() >= self.max_rows
    }

    /// The most rows this series holds ([`MAX_VALUES`] / the values of one row, jobs included).
    pub fn max_rows(&self) -> usize {
        self.max_rows
    }

    /// Rows x columns: the size of the series so far.
    pub fn shape(&self) -> (usize, usize) {
        (self.series.rows.len(), self.series.columns.len())
    }

    /// The interval, ns.
    pub fn interval_ns(&self) -> u64 {
        self.interval_ns
    }

    /// The series, with a last (shorter) row up to `end` if the run ended inside an interval.
    pub fn finish(mut self, end: SimTime, sections: &[&dyn SeriesSection]) -> TimeSeries {
        self.advance(end, sections);
        if self.full() {
            return self.series;
        }
        let begun = self.next.ns() - self.interval_ns;
        if end.ns() > begun {
            self.close(end, end.ns() - begun, sections);
        }
        self.series
    }

    fn close(&mut self, end: SimTime, len_ns: u64, sections: &[&dyn SeriesSection]) {
        let mut row = Vec::with_capacity(self.series.columns.len());
        let t_ms = end.since(self.start) as f64 / 1e6;
        row.push(t_ms);
        let secs = len_ns as f64 / 1e9;
        self.all.drain(secs, &mut row);
        for (w, js) in self.jobs.iter_mut().zip(&mut self.series.jobs) {
            let mut r = Vec::with_capacity(js.columns.len());
            r.push(t_ms);
            w.drain(secs, &mut r);
            js.rows.push(r);
        }
        for s in sections {
            s.sample_series(&mut row);
        }
        debug_assert_eq!(row.len(), self.series.columns.len(), "a section's columns");
        self.series.rows.push(row);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Fixed;
    impl SeriesSection for Fixed {
        fn series_columns(&self) -> Vec<&'static str> {
            vec!["x.a", "x.b"]
        }
        fn sample_series(&self, out: &mut Vec<f64>) {
            out.extend([1.0, 2.0]);
        }
    }

    #[test]
    fn rows_per_interval_with_rates_and_extra_columns() {
        let ms = 1_000_000;
        let jobs = ["a".to_string(), "b".to_string()];
        let mut s = Sampler::new(10 * ms, SimTime(5 * ms), &[&Fixed], &jobs);
        assert_eq!(s.series.columns.len(), 1 + 8 + 2);
        // 100 reads of 4 KiB, 100 us each, completing in the first 10 ms.
        for i in 0..100 {
            let done = SimTime(5 * ms + i * 50_000 + 100_000);
            s.record(
                i as usize % 2,
                IoKind::Read,
                SimTime(done.ns() - 100_000),
                done,
                4096,
            );
        }
        s.record(0, IoKind::Flush, SimTime(5 * ms), SimTime(6 * ms), 0);
        // Nothing in the second interval; the run ends 3 ms into the third.
        s.advance(SimTime(25 * ms), &[&Fixed]);
        let ts = s.finish(SimTime(28 * ms), &[&Fixed]);
        assert_eq!(ts.rows.len(), 3);
        let r0 = &ts.rows[0];
        assert_eq!(r0[0], 10.0);
        assert!((r0[1] - 10_000.0).abs() < 1e-6, "read iops {}", r0[1]);
        assert!((r0[3] - 100.0).abs() < 1e-6, "read mean us {}", r0[3]);
        assert!((r0[4] - 100.0).abs() <= 1.0, "read p99 us {}", r0[4]);
        assert_eq!(r0[5], 0.0, "no writes");
        assert_eq!(&r0[9..], &[1.0, 2.0]);
        assert_eq!(ts.rows[1][1], 0.0, "empty interval");
        assert_eq!(ts.rows[2][0], 23.0, "last row ends with the run");
        let csv = ts.to_csv();
        assert!(csv.starts_with("t_ms,read_iops,read_mib_s,"), "{csv}");
        assert_eq!(csv.lines().count(), 4);
        // Each job's rows: half the reads each, the same intervals.
        assert_eq!(ts.jobs.len(), 2);
        for j in &ts.jobs {
            assert_eq!(j.columns, ts.columns[..9]);
            assert_eq!(j.rows.len(), 3);
            assert!(
                (j.rows[0][1] - 5_000.0).abs() < 1e-6,
                "{}: {}",
                j.name,
                j.rows[0][1]
            );
            assert_eq!(j.rows[2][0], 23.0);
        }
    }
}
