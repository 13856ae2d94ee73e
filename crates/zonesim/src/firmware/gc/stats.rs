//! GC and wear statistics (issue 4): pages moved per victim (HDR histogram), per-stream victim
//! counts and valid ratio at selection, and erase-count summaries.

use crate::firmware::alloc::MAX_STREAMS;
use hdrhistogram::Histogram;
use serde_json::{json, Value};

/// Statistics of one FTL's garbage collection since the last counter reset.
#[derive(Clone)]
pub struct GcStats {
    /// Pages moved out of each finished victim.
    pub moved_per_victim: Histogram<u64>,
    /// Victims chosen per stream that wrote them.
    pub stream_victims: [u64; MAX_STREAMS],
    /// Sum over those victims of valid slots / slots per superblock at selection.
    pub stream_valid_ratio_sum: [f64; MAX_STREAMS],
}

impl Default for GcStats {
    fn default() -> Self {
        GcStats {
            moved_per_victim: Histogram::new(3).expect("valid sigfig"),
            stream_victims: [0; MAX_STREAMS],
            stream_valid_ratio_sum: [0.0; MAX_STREAMS],
        }
    }
}

impl GcStats {
    #[inline]
    pub fn victim_chosen(&mut self, stream: usize, valid_ratio: f64) {
        self.stream_victims[stream] += 1;
        self.stream_valid_ratio_sum[stream] += valid_ratio;
    }

    #[inline]
    pub fn victim_done(&mut self, moved: u64) {
        self.moved_per_victim.saturating_record(moved);
    }

    /// Merge another FTL's statistics.
    pub fn merge(&mut self, o: &GcStats) {
        let _ = self.moved_per_victim.add(&o.moved_per_victim);
        for s in 0..MAX_STREAMS {
            self.stream_victims[s] += o.stream_victims[s];
            self.stream_valid_ratio_sum[s] += o.stream_valid_ratio_sum[s];
        }
    }

    /// `{min, mean, p50, max}` of pages moved per victim.
    pub fn moved_json(&self) -> Value {
        let h = &self.moved_per_victim;
        if h.is_empty() {
            return json!({"min": 0, "mean": 0.0, "p50": 0, "max": 0, "victims": 0});
        }
        json!({
            "min": h.min(),
            "mean": h.mean(),
            "p50": h.value_at_quantile(0.5),
            "max": h.max(),
            "victims": h.len(),
        })
    }

    /// One entry per stream `0..streams`: `{stream, victims, valid_ratio_at_victim_mean}`.
    pub fn per_stream_json(&self, streams: usize) -> Value {
        (0..streams.min(MAX_STREAMS))
            .map(|s| {
                let v = self.stream_victims[s];
                json!({
                    "stream": s,
                    "victims": v,
                    "valid_ratio_at_victim_mean": if v == 0 {
                        0.0
                    } else {
                        self.stream_valid_ratio_sum[s] / v as f64
                    },
                })
            })
            .collect()
    }
}

/// Erase-count summary `{erase_min, erase_max, erase_mean, erase_stddev, blocks}` of a set of
/// blocks.
pub fn wear_json(counts: impl Iterator<Item = u32> + Clone) -> Value {
    let n = counts.clone().count().max(1) as f64;
    let mean = counts.clone().map(|c| c as f64).sum::<f64>() / n;
    let var = counts
        .clone()
        .map(|c| (c as f64 - mean).powi(2))
        .sum::<f64>()
        / n;
    json!({
        "erase_min": counts.clone().min().unwrap_or(0),
        "erase_max": counts.clone().max().unwrap_or(0),
        "erase_mean": mean,
        "erase_stddev": var.sqrt(),
        "blocks": counts.count(),
    })
}
