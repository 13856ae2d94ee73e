//! GC statistics (docs/placement.md "Statistics"): pages moved per victim (HDR histogram), per-stream victim counts
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

    /// `record`, not `saturating_record`: an auto-resizing histogram starts with a highest
    /// trackable value of 2, and `saturating_record` clamps to it instead of growing (every
    /// victim of more than 2,047 moved slots was reported as 2).
    #[inline]
    pub fn victim_done(&mut self, moved: u32) {
        self.moved_per_victim
            .record(u64::from(moved))
            .expect("an auto-resizing histogram grows to any u32 value");
    }

    /// Merge another FTL's statistics.
    pub fn merge(&mut self, o: &GcStats) {
        self.moved_per_victim
            .add(&o.moved_per_victim)
            .expect("an auto-resizing histogram takes any other's range");
        for s in 0..MAX_STREAMS {
            self.stream_victims[s] += o.stream_victims[s];
            self.stream_valid_ratio_sum[s] += o.stream_valid_ratio_sum[s];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn large_victims_are_recorded_as_they_are() {
        let mut s = GcStats::default();
        for moved in [0, 3, 2_048, 10_861, u32::MAX] {
            s.victim_done(moved);
        }
        let h = &s.moved_per_victim;
        assert_eq!(h.len(), 5);
        assert_eq!(h.min(), 0);
        assert_eq!(h.value_at_quantile(0.7), h.highest_equivalent(10_861));
        assert_eq!(h.max(), h.highest_equivalent(u64::from(u32::MAX)));
        let mut merged = GcStats::default();
        merged.merge(&s);
        assert_eq!(merged.moved_per_victim.max(), h.max());
    }
}
