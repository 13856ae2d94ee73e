//! `firmware`: the multi-core firmware model's section of the report (docs/firmware.md): per core
//! busy/spin/idle shares, per lock acquisitions and waits, the latency breakdown of requests, and
//! the data cache's hit rates. Absent with `firmware.model = "off"` and no data cache.

use crate::firmware::cache::CacheCounters;
use crate::firmware::cores::lock::LockStats;
use hdrhistogram::Histogram;
use serde::Serialize;
use std::collections::BTreeMap;

#[derive(Debug, Clone, Serialize, Default)]
pub struct FirmwareReport {
    pub model: &'static str,
    pub core_mhz: f64,
    pub workers: u32,
    /// Requests that went through the cores.
    pub requests: u64,
    /// `firmware.cores.<n>`: core n (0 HIL, 1 TSU, 2 completion, 3.. workers).
    pub cores: BTreeMap<String, CoreReport>,
    /// `firmware.locks.<name>`: locks of one name (buckets, planes) together.
    pub locks: BTreeMap<String, LockReport>,
    /// Mean and percentiles of each part of a request's device time (µs).
    pub latency_breakdown_us: BTreeMap<String, LatencyPart>,
    /// `firmware.cache.ns<i>`: the data cache of namespace i.
    pub cache: BTreeMap<String, CacheReport>,
}

#[derive(Debug, Clone, Serialize)]
pub struct CoreReport {
    pub role: &'static str,
    pub handlers: u64,
    /// Shares of the measured window: busy = work + spin; idle = 1 - busy.
    pub busy_share: f64,
    pub work_share: f64,
    pub spin_share: f64,
    pub idle_share: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct LockReport {
    pub acquisitions: u64,
    /// Share of acquisitions that found the lock held.
    pub contended_share: f64,
    /// Asking to holding, µs.
    pub wait_mean_us: f64,
    pub wait_p99_us: f64,
    pub wait_max_us: f64,
    /// Mean hold, µs.
    pub hold_mean_us: f64,
    pub max_waiters: u32,
}

impl LockReport {
    pub fn from_stats(s: &LockStats) -> LockReport {
        let n = s.acquisitions.max(1) as f64;
        let us = |v: u64| v as f64 / 1000.0;
        LockReport {
            acquisitions: s.acquisitions,
            contended_share: s.contended as f64 / n,
            wait_mean_us: s.wait_mean_ns() / 1000.0,
            wait_p99_us: us(s.wait_quantile_ns(0.99)),
            wait_max_us: us(s.wait_quantile_ns(1.0)),
            hold_mean_us: s.hold_ns as f64 / n / 1000.0,
            max_waiters: s.max_waiters,
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct LatencyPart {
    pub mean: f64,
    pub p50: f64,
    pub p99: f64,
    pub max: f64,
}

impl LatencyPart {
    pub fn from_hist(h: &Histogram<u64>) -> LatencyPart {
        if h.is_empty() {
            return LatencyPart {
                mean: 0.0,
                p50: 0.0,
                p99: 0.0,
                max: 0.0,
            };
        }
        let us = |v: u64| v as f64 / 1000.0;
        LatencyPart {
            mean: h.mean() / 1000.0,
            p50: us(h.value_at_quantile(0.5)),
            p99: us(h.value_at_quantile(0.99)),
            max: us(h.max()),
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct CacheReport {
    pub pages: u32,
    pub hit_rate: f64,
    #[serde(flatten)]
    pub counters: CacheCounters,
}
