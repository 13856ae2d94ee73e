//! What one supgc-fio run gives: IOPS, erases, GC page moves and p99, and from the time series
//! where GC starts and how IOPS changes over the run (SUP-GC §5.3.2, Figs. 14-18).

use zonesim::stats::Report;

/// The info rows of a run's measurements, in the order of [`Point::m`].
pub(crate) const POINT_METRICS: [&str; 4] =
    ["IOPS", "block erases", "GC page moves", "p99 latency us"];
/// The 1 % run's rows that keep its data volume and its IOPS late against early.
pub(crate) const WRITES_SHARE: &str = "host writes, % of raw capacity";
pub(crate) const LATE_VS_EARLY: &str = "IOPS last / first quarter of the run";

/// What one run gives.
pub(crate) struct Point {
    /// IOPS, block erases, GC page moves, p99 latency (us): in [`METRICS`] order.
    pub(crate) m: [f64; 4],
    /// Host data volume (reads + writes) when the first GC page moved, MiB (None: never).
    pub(crate) onset_mib: Option<f64>,
    /// Mean IOPS over the last and the first quarter of the randrw phase.
    pub(crate) late_vs_early: f64,
    /// Host data volume of the whole run (reads + writes), MiB.
    pub(crate) volume_mib: f64,
    /// Raw flash capacity, MiB.
    pub(crate) raw_mib: f64,
}

impl Point {
    /// The data volume (reads + writes) at the first GC page move, per TB of raw capacity
    /// (GB; NaN if GC never ran).
    pub(crate) fn onset_gb_per_tb(&self) -> f64 {
        self.onset_mib
            .map_or(f64::NAN, |v| v / self.raw_mib * 1000.0)
    }
}

pub(super) fn point(r: &Report, raw_mib: f64) -> Point {
    let h = &r.host;
    let d = &r.device;
    let (onset_mib, late_vs_early, volume_mib) =
        r.timeseries
            .as_ref()
            .map_or((None, f64::NAN, f64::NAN), |ts| {
                let col = |n: &str| ts.columns.iter().position(|c| c == n);
                let (Some(t), Some(ri), Some(wi), Some(rm), Some(wm), Some(gc)) = (
                    col("t_ms"),
                    col("read_iops"),
                    col("write_iops"),
                    col("read_mib_s"),
                    col("write_mib_s"),
                    col("gc_pages_moved"),
                ) else {
                    return (None, f64::NAN, f64::NAN);
                };
                let mut vol = 0.0;
                let mut prev_t = 0.0;
                let mut onset = None;
                let mut iops = Vec::new();
                for row in &ts.rows {
                    let secs = (row[t] - prev_t) / 1000.0;
                    prev_t = row[t];
                    vol += (row[rm] + row[wm]) * secs;
                    if onset.is_none() && row[gc] > 0.0 {
                        onset = Some(vol);
                    }
                    let io = row[ri] + row[wi];
                    if io > 0.0 || !iops.is_empty() {
                        iops.push(io);
                    }
                }
                let q = (iops.len() / 4).max(1);
                let mean = |s: &[f64]| s.iter().sum::<f64>() / s.len().max(1) as f64;
                let ratio =
                    mean(&iops[iops.len().saturating_sub(q)..]) / mean(&iops[..q.min(iops.len())]);
                (onset, ratio, vol)
            });
    Point {
        m: [
            h.read.iops + h.write.iops,
            d.flash.block_erases as f64,
            d.gc.pages_moved as f64,
            // The worse direction's p99 (the report keeps directions apart).
            h.read.latency_us.p99.max(h.write.latency_us.p99),
        ],
        onset_mib,
        late_vs_early,
        volume_mib,
        raw_mib,
    }
}
