//! Statistics: latency histograms per job and direction (HDR histograms), counters, and the
//! JSON report (schema in docs/report.md).

pub mod device;
pub mod firmware;
pub mod report;

pub use device::DeviceReport;
pub use report::{LatencyReport, OpReport, Report, TraceReport};

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
            IoKind::Write | IoKind::ZoneAppend => &mut self.write,
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

    pub fn requests(&self) -> u64 {
        self.read.ios + self.write.ios + self.trim.ios + self.flush.ios + self.zone_mgmt.ios
    }
}
