//! Read reclaim and retention refresh: when a superblock's data must be rewritten before its
//! errors outgrow the ECC.
//!
//! Read disturb: every read of a page weakly programs the other word lines of its block, so
//! the error count of a block grows with the reads since its erase; firmware counts them per
//! block and relocates the block's data at a threshold (Cai et al., "Read disturb errors in
//! MLC NAND flash memory", DSN 2015; `ftl.read_reclaim_reads`). Retention: charge
//! leaks from programmed cells, so data older than a refresh period is rewritten (Cai et al.,
//! "Flash correct-and-refresh", ICCD 2012; `ftl.retention_refresh_days`). Data age is the time
//! since its superblock was closed plus the time the device spent aged (`age` steps), which
//! passes without events.
//!
//! [`Reclaim::needs_reclaim`] is the one trigger: an estimate of the raw bit error rate can
//! join it there.

use crate::engine::SimTime;

/// Nanoseconds in a day.
pub const DAY_NS: u64 = 86_400 * 1_000_000_000;

/// Read counters and the aged clock.
#[derive(Debug, Clone)]
pub struct Reclaim {
    /// Reads of each block (`sb * lanes + lane`) since its superblock's erase.
    reads: Vec<u32>,
    lanes: u32,
    /// Reads of one block that trigger reclaim (`ftl.read_reclaim_reads`).
    pub threshold: u32,
    /// Data age that triggers a refresh, ns.
    pub refresh_ns: u64,
    /// Time the device spent aged without events, ns.
    pub aged_ns: u64,
}

impl Reclaim {
    pub fn new(superblocks: u32, lanes: u32, threshold: u64, refresh_days: f64) -> Reclaim {
        Reclaim {
            reads: vec![0; (superblocks * lanes) as usize],
            lanes,
            threshold: threshold.min(u32::MAX as u64) as u32, // the key's range
            refresh_ns: (refresh_days * DAY_NS as f64) as u64,
            aged_ns: 0,
        }
    }

    /// One read of lane `lane` of superblock `sb`; true when it reaches the threshold (once).
    #[inline]
    pub fn read(&mut self, sb: u32, lane: u32) -> bool {
        let r = &mut self.reads[(sb * self.lanes + lane) as usize];
        *r = r.saturating_add(1);
        *r == self.threshold
    }

    /// The superblock was erased: its read counters start again.
    pub fn erased(&mut self, sb: u32) {
        let at = (sb * self.lanes) as usize;
        self.reads[at..at + self.lanes as usize].fill(0);
    }

    /// Most reads of a block of `sb` since its erase.
    pub fn max_reads(&self, sb: u32) -> u32 {
        let at = (sb * self.lanes) as usize;
        self.reads[at..at + self.lanes as usize]
            .iter()
            .copied()
            .max()
            .unwrap_or(0)
    }

    /// Age at `now` of data closed at `closed_at`, aged time included.
    pub fn age_ns(&self, closed_at: SimTime, now: SimTime) -> u64 {
        now.since(closed_at).saturating_add(self.aged_ns)
    }

    /// Must `sb`'s data be rewritten: too many reads of one of its blocks, or data older than
    /// the refresh period?
    pub fn needs_reclaim(&self, sb: u32, closed_at: SimTime, now: SimTime) -> bool {
        self.max_reads(sb) >= self.threshold || self.age_ns(closed_at, now) >= self.refresh_ns
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_trigger_once_and_reset_at_erase() {
        let mut r = Reclaim::new(4, 2, 3, 365.0);
        assert!(!r.read(1, 0));
        assert!(!r.read(1, 0));
        assert!(r.read(1, 0));
        assert!(!r.read(1, 0), "triggers once");
        assert!(r.needs_reclaim(1, SimTime::ZERO, SimTime::ZERO));
        assert!(!r.needs_reclaim(2, SimTime::ZERO, SimTime::ZERO));
        r.erased(1);
        assert_eq!(r.max_reads(1), 0);
    }

    #[test]
    fn aged_time_counts_toward_retention() {
        let mut r = Reclaim::new(1, 1, 10, 30.0);
        let closed = SimTime::from_us(5.0);
        assert!(!r.needs_reclaim(0, closed, SimTime::from_us(10.0)));
        r.aged_ns += 30 * DAY_NS;
        assert!(r.needs_reclaim(0, closed, SimTime::from_us(10.0)));
    }
}
