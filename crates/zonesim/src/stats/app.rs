//! The `app` section of the report: an application model's results, present only when a
//! scenario ran one (`sysbench` steps on the InnoDB model; docs/innodb.md).

use crate::host::apps::sysbench::{SysbenchOutcome, SysbenchSpec};
use serde::Serialize;

/// `app`: the last `sysbench` step of the run.
#[derive(Debug, Clone, Serialize)]
pub struct AppReport {
    pub sysbench: SysbenchReport,
    pub innodb: InnodbReport,
    /// The host CPU the step ran on (`[host.cpu]` on): the run's `host_cpu` section.
    #[serde(skip)]
    pub host_cpu: Option<super::report::HostCpuReport>,
}

/// `app.sysbench`: what sysbench prints.
#[derive(Debug, Clone, Serialize)]
pub struct SysbenchReport {
    pub test: &'static str,
    pub tables: u32,
    pub table_size: u64,
    pub threads: u32,
    pub time_s: u64,
    pub transactions: u64,
    pub queries: u64,
    pub tps: f64,
    pub qps: f64,
    pub latency_us: TxnLatency,
    /// Simulated time of the prepare phase (tables loaded and synced), s.
    pub prepare_s: f64,
}

/// Per-transaction latency, us.
#[derive(Debug, Clone, Serialize)]
pub struct TxnLatency {
    pub mean: f64,
    pub p95: f64,
    pub p99: f64,
    pub max: f64,
}

/// `app.innodb`: the engine's counters over the run (after prepare).
#[derive(Debug, Clone, Serialize)]
pub struct InnodbReport {
    pub pages_read: u64,
    pub pages_written: u64,
    pub doublewrite_pages: u64,
    pub log_bytes_written: u64,
    pub log_fsyncs: u64,
    pub commit_groups: u64,
    pub data_fsyncs: u64,
    pub checkpoints: u64,
    pub checkpoint_age_max: u64,
    pub log_capacity: u64,
    pub buffer_pool_hit_rate: f64,
    pub buffer_pool_pages: u64,
    pub dirty_pages: u64,
    pub lru_flushed: u64,
    pub list_flushed: u64,
    pub single_page_flushes: u64,
    pub sync_flushed: u64,
    pub data_bytes: u64,
}

impl AppReport {
    pub fn sysbench(s: &SysbenchSpec, o: &SysbenchOutcome) -> AppReport {
        let h = &o.latency_us;
        let pct = |q: f64| {
            if h.is_empty() {
                0.0
            } else {
                h.value_at_quantile(q) as f64
            }
        };
        let c = &o.innodb;
        AppReport {
            host_cpu: None,
            sysbench: SysbenchReport {
                test: s.test.name(),
                tables: s.tables,
                table_size: s.table_size,
                threads: s.threads,
                time_s: s.time_s,
                transactions: o.transactions,
                queries: o.queries,
                tps: o.tps,
                qps: o.queries as f64 / s.time_s as f64,
                latency_us: TxnLatency {
                    mean: if h.is_empty() { 0.0 } else { h.mean() },
                    p95: pct(0.95),
                    p99: pct(0.99),
                    max: h.max() as f64,
                },
                prepare_s: o.prepare_ns as f64 / 1e9,
            },
            innodb: InnodbReport {
                pages_read: c.pages_read,
                pages_written: c.pages_written,
                doublewrite_pages: c.doublewrite_pages,
                log_bytes_written: c.log_bytes_written,
                log_fsyncs: c.log_fsyncs,
                commit_groups: c.commit_groups,
                data_fsyncs: c.data_fsyncs,
                checkpoints: c.checkpoints,
                checkpoint_age_max: c.checkpoint_age_max,
                log_capacity: o.log_capacity,
                buffer_pool_hit_rate: o.hit_rate,
                buffer_pool_pages: o.pool_pages,
                dirty_pages: o.dirty_pages,
                lru_flushed: c.lru_flushed,
                list_flushed: c.list_flushed,
                single_page_flushes: c.single_page_flushes,
                sync_flushed: c.sync_flushed,
                data_bytes: o.data_bytes,
            },
        }
    }
}
