//! GC statistics (issue 4): pages moved per victim (HDR histogram), per-stream victim counts
//! and valid ratio at selection. The report (`device/report.rs`) summarises them.

use crate::firmware::alloc::MAX_STREAMS;
use hdrhistogram::Histogram;

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
}
