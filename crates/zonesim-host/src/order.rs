//! Host dispatch of zoned writes at queue depth > 1 (Zoned UFS §3.3, §4.3): the block
//! layer's zone write locking and the UFS driver's requeueing.
//!
//! - **Zone write lock** (`host.zone_write_lock`, mq-deadline's zone write locking): at most one
//!   write per zone is in flight; later writes to the zone wait in the host, in issue order,
//!   and the next is dispatched when the previous completes. Zone appends need no lock (the
//!   device picks their LBA). A zone reset or finish queues for the lock like a write (the
//!   run hands it here too), as the kernel's zone write plugging orders them: the writes
//!   issued before it reach the device first, at the write pointer they were issued for, and
//!   the writes after it wait until it completes.
//! - **Requeueing** (`host.requeue_probability`, `host.requeue_delay_us`): a dispatched zoned
//!   write is requeued with this probability — "when the clock is gated, incoming requests are
//!   requeued until the clock is restored, potentially altering their dispatch order" (§3.3) —
//!   and reaches the device the delay later. Writes dispatched meanwhile overtake it; without
//!   the lock they arrive ahead of the write pointer and the device answers them with
//!   unaligned-write errors (counted by the device, never fixed here).
//!
//! The host knows no device: the run hands it the zone of each write (its byte offset over
//! the zone size the host learned from the namespace, as a host reads the zone report).

use serde::Serialize;
use std::collections::VecDeque;
use zonesim_core::engine::{rng_for, Rng};

/// The ordering knobs (from the device config's `[host]` section).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OrderConfig {
    pub zone_write_lock: bool,
    pub requeue_probability: f64,
    pub requeue_delay_ns: u64,
}

/// Counters of the dispatcher (`host.ordering` in the report).
#[derive(Debug, Clone, Default, Serialize)]
pub struct OrderCounters {
    /// Zoned writes and appends dispatched.
    pub dispatched: u64,
    /// Of those, requeued (delayed by `requeue_delay_us`).
    pub requeued: u64,
    /// Writes (and zone resets or finishes) that waited in the host for their zone's lock.
    pub lock_waits: u64,
}

/// Zone write locks and requeueing over requests of type `T`.
pub struct ZoneWriteOrder<T> {
    cfg: OrderConfig,
    zone_of: ZoneOf,
    rng: Rng,
    locked: Vec<bool>,
    waiting: Vec<VecDeque<T>>,
    pub counters: OrderCounters,
}

impl<T> ZoneWriteOrder<T> {
    /// A dispatcher for a namespace of `zones` zones of `zone_bytes` bytes each.
    pub fn new(cfg: OrderConfig, zones: u32, zone_bytes: u64, seed: u64) -> ZoneWriteOrder<T> {
        ZoneWriteOrder {
            cfg,
            zone_of: ZoneOf::new(zone_bytes),
            rng: rng_for(seed, 0x6f72_6472),
            locked: vec![false; zones as usize],
            waiting: (0..zones).map(|_| VecDeque::new()).collect(),
            counters: OrderCounters::default(),
        }
    }

    /// The zone holding byte `offset` of the namespace.
    #[inline]
    pub fn zone_of(&self, offset: u64) -> u32 {
        self.zone_of.zone(offset)
    }

    /// Whether writes take the zone lock.
    pub fn locks(&self) -> bool {
        self.cfg.zone_write_lock
    }

    /// A write `item` to zone `z`: returned if it may be dispatched now (taking the zone's
    /// lock), else held until the zone's write in flight completes.
    pub fn write(&mut self, z: u32, item: T) -> Option<T> {
        if !self.cfg.zone_write_lock {
            return Some(item);
        }
        let zi = z as usize;
        if self.locked[zi] {
            self.counters.lock_waits += 1;
            self.waiting[zi].push_back(item);
            return None;
        }
        self.locked[zi] = true;
        Some(item)
    }

    /// The write in flight to zone `z` completed: the next one waiting for the zone, which
    /// now holds the lock.
    pub fn completed(&mut self, z: u32) -> Option<T> {
        if !self.cfg.zone_write_lock {
            return None;
        }
        let zi = z as usize;
        let next = self.waiting[zi].pop_front();
        self.locked[zi] = next.is_some();
        next
    }

    /// The extra time before a request being dispatched reaches the device: the requeue
    /// delay if it is requeued, else 0 (no random draw when requeueing is off).
    pub fn dispatch_delay(&mut self) -> u64 {
        self.counters.dispatched += 1;
        let p = self.cfg.requeue_probability;
        if p > 0.0 && crate::fio::dist::unit_f64(&mut self.rng) < p {
            self.counters.requeued += 1;
            return self.cfg.requeue_delay_ns;
        }
        0
    }

    /// Writes waiting for locks.
    pub fn waiting(&self) -> usize {
        self.waiting.iter().map(VecDeque::len).sum()
    }
}

/// The zone of a byte offset: a shift for a power-of-two zone size (as hosts require of zoned
/// block devices), else a division.
#[derive(Debug, Clone, Copy)]
enum ZoneOf {
    Shift(u32),
    Divide(u64),
}

impl ZoneOf {
    fn new(zone_bytes: u64) -> ZoneOf {
        assert!(zone_bytes > 0, "zone size of 0 bytes");
        if zone_bytes.is_power_of_two() {
            ZoneOf::Shift(zone_bytes.trailing_zeros())
        } else {
            ZoneOf::Divide(zone_bytes)
        }
    }

    #[inline]
    fn zone(self, offset: u64) -> u32 {
        match self {
            ZoneOf::Shift(s) => (offset >> s) as u32,
            ZoneOf::Divide(d) => (offset / d) as u32,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The zone of an offset is its quotient by the zone size, for any zone size.
        #[test]
        fn zone_of_is_the_quotient(bytes in 1u64..1 << 40, pow in 0u32..40, off in any::<u64>()) {
            for zone_bytes in [bytes, 1 << pow, bytes * 4096] {
                let z = ZoneOf::new(zone_bytes);
                prop_assert_eq!(z.zone(off), (off / zone_bytes) as u32);
            }
        }
    }

    fn order(lock: bool, p: f64) -> ZoneWriteOrder<u32> {
        let cfg = OrderConfig {
            zone_write_lock: lock,
            requeue_probability: p,
            requeue_delay_ns: 1000,
        };
        ZoneWriteOrder::new(cfg, 2, 1 << 20, 7)
    }

    #[test]
    fn one_write_per_zone_in_flight_in_issue_order() {
        let mut o = order(true, 0.0);
        assert_eq!(o.write(0, 1), Some(1));
        assert_eq!(o.write(0, 2), None);
        assert_eq!(o.write(1, 3), Some(3));
        assert_eq!(o.write(0, 4), None);
        assert_eq!(o.completed(0), Some(2));
        assert_eq!(o.completed(0), Some(4));
        assert_eq!(o.completed(0), None);
        // The zone is free again.
        assert_eq!(o.write(0, 5), Some(5));
        assert_eq!(o.counters.lock_waits, 2);
        assert_eq!(o.dispatch_delay(), 0);
    }

    #[test]
    fn without_the_lock_everything_goes_and_some_are_requeued() {
        let mut o = order(false, 0.5);
        assert_eq!(o.write(0, 1), Some(1));
        assert_eq!(o.write(0, 2), Some(2));
        assert_eq!(o.completed(0), None);
        let delayed = (0..1000).filter(|_| o.dispatch_delay() > 0).count();
        assert!((400..600).contains(&delayed), "{delayed}");
        assert_eq!(o.counters.requeued, delayed as u64);
    }
}
