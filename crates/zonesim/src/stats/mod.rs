//! Statistics: latency histograms per job and direction (HDR histograms), counters, and the
//! JSON report (schema in docs/report.md).

pub mod app;
pub mod device;
pub mod emulation;
pub mod firmware;
pub mod fs;
pub mod fs_ext4;
pub mod power;
pub mod provenance;
pub mod report;
pub mod timeseries;

pub use device::DeviceReport;
pub use provenance::{Provenance, WorkloadProvenance};
pub use report::{LatencyReport, OpReport, Report, TraceReport};
pub use timeseries::{Sampler, SeriesSection, TimeSeries};

use crate::engine::SimTime;
use crate::host::IoKind;
use hdrhistogram::Histogram;

/// Latency and volume of one kind of request. The histogram (1 ns .. 1000 s at 3 significant
/// digits, a few hundred KiB) is created at the first request of the kind, so unused kinds and
/// many-job runs cost nothing.
#[derive(Clone, Default)]
pub struct OpStats {
    pub hist: Option<Box<Histogram<u64>>>,
    pub ios: u64,
    pub bytes: u64,
}

fn new_hist() -> Box<Histogram<u64>> {
    Box::new(Histogram::new_with_bounds(1, 1_000_000_000_000, 3).expect("valid bounds"))
}

impl OpStats {
    #[inline]
    pub fn record(&mut self, latency_ns: u64, bytes: u64) {
        self.ios += 1;
        self.bytes += bytes;
        self.hist
            .get_or_insert_with(new_hist)
            .saturating_record(latency_ns.max(1));
    }

    /// The latency distribution as (latency in us, fraction of requests at or below it),
    /// from the full histogram (a few hundred points); empty without requests.
    pub fn cdf(&self) -> Vec<(f64, f64)> {
        let Some(h) = &self.hist else {
            return Vec::new();
        };
        h.iter_quantiles(8)
            .map(|v| {
                (
                    v.value_iterated_to() as f64 / 1000.0,
                    v.quantile_iterated_to(),
                )
            })
            .collect()
    }

    /// The distribution with its statistics and buckets (empty without requests).
    pub fn hist(&self) -> report::LatencyHist {
        let Some(h) = &self.hist else {
            return report::LatencyHist::default();
        };
        report::LatencyHist {
            n: h.len(),
            min_ns: h.min(),
            max_ns: h.max(),
            mean_ns: h.mean(),
            stddev_ns: h.stdev(),
            bins: h
                .iter_recorded()
                .map(|v| {
                    (
                        h.highest_equivalent(v.value_iterated_to()),
                        v.count_at_value(),
                    )
                })
                .collect(),
        }
    }

    pub fn merge(&mut self, other: &OpStats) {
        self.ios += other.ios;
        self.bytes += other.bytes;
        if let Some(h) = &other.hist {
            self.hist
                .get_or_insert_with(new_hist)
                .add(h.as_ref())
                .expect("same bounds");
        }
    }
}

/// One direction's latency distribution: its report name, (us, fraction) points, the exact
/// histogram.
pub type DirectionCdf = (&'static str, Vec<(f64, f64)>, report::LatencyHist);

/// Per-job (or total) statistics by request kind.
#[derive(Clone, Default)]
pub struct IoStats {
    pub read: OpStats,
    pub write: OpStats,
    pub trim: OpStats,
    pub flush: OpStats,
    /// Zone management commands (reset, finish).
    pub zone_mgmt: OpStats,
    pub first_issue: Option<SimTime>,
    pub last_completion: SimTime,
}

impl IoStats {
    #[inline]
    pub fn record(&mut self, kind: IoKind, issued: SimTime, done: SimTime, bytes: u64) {
        let lat = done - issued;
        let s = match kind {
            IoKind::Read => &mut self.read,
            IoKind::Write | IoKind::ZoneAppend | IoKind::InPlace => &mut self.write,
            IoKind::Trim => &mut self.trim,
            IoKind::Flush => &mut self.flush,
            IoKind::ZoneReset | IoKind::ZoneFinish | IoKind::ZoneOpen | IoKind::ZoneClose => {
                &mut self.zone_mgmt
            }
        };
        s.record(lat, bytes);
        self.last_completion = self.last_completion.max(done);
    }

    #[inline]
    pub fn issued(&mut self, t: SimTime) {
        if self.first_issue.is_none() {
            self.first_issue = Some(t);
        }
    }

    pub fn merge(&mut self, o: &IoStats) {
        self.read.merge(&o.read);
        self.write.merge(&o.write);
        self.trim.merge(&o.trim);
        self.flush.merge(&o.flush);
        self.zone_mgmt.merge(&o.zone_mgmt);
        self.first_issue = match (self.first_issue, o.first_issue) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        self.last_completion = self.last_completion.max(o.last_completion);
    }

    /// The latency distribution of each direction that saw requests, by report name.
    pub fn cdfs(&self) -> Vec<DirectionCdf> {
        [
            ("read", &self.read),
            ("write", &self.write),
            ("trim", &self.trim),
            ("flush", &self.flush),
            ("zone_mgmt", &self.zone_mgmt),
        ]
        .into_iter()
        .filter(|(_, s)| s.ios > 0)
        .map(|(name, s)| (name, s.cdf(), s.hist()))
        .collect()
    }

    pub fn requests(&self) -> u64 {
        self.read.ios + self.write.ios + self.trim.ios + self.flush.ios + self.zone_mgmt.ios
    }
}

/// `a / b`, 0 when `b` is 0: the report's rates and shares of counters.
pub(crate) fn ratio(a: u64, b: u64) -> f64 {
    if b == 0 {
        0.0
    } else {
        a as f64 / b as f64
    }
}
