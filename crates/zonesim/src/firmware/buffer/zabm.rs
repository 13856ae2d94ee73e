//! Zone-aware buffer management (ZABM) with its scatter-gather buffer manager (SGBM) (ZUFS
//! §4.2, Fig. 6): `buffer.kind = zabm`.
//!
//! The buffer SRAM (`buffer.sram_bytes`) is split into 4 KiB slots shared by the open zones of
//! a namespace. A zone gets a slot table when it first writes (a linear list: zone writes are
//! sequential, so the table is just a count here) and gives it back when its data has left
//! (zone FULL, finished, reset, or flushed by the host or for lack of slots). A zone takes free
//! slots as its data arrives, but never the reserve of the other open zones: each open zone
//! keeps `buffer.min_slots_per_zone` slots (less what it already holds) for itself, busy zones
//! borrow the rest. The FTL flushes a zone as soon as one die's program unit is buffered
//! (`buffer.flush_unit = die`), or only whole superpages (`superpage`), programmed in parallel
//! across dies. Slots are released when their program completes ([`InflightSpace`], earliest
//! completion first: any released slot serves any zone). When no slot is free for a zone and
//! none is in flight, the zone holding the most buffered data is flushed prematurely (to the
//! SLC secondary buffer), as a static buffer conflict is.
//!
//! Report (`device.namespaces[i].zabm`): slots in use (max, mean over admissions), flushes by
//! unit, stalls waiting for slots.

use super::inflight::{EarliestDone, InflightSpace};
use crate::config::FlushUnit;
use crate::engine::SimTime;
use serde::Serialize;

/// What a zone's request for slots gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Admit {
    /// At this time, this many slots are free for the zone.
    Ready(SimTime, u32),
    /// No slot can free up without flushing this zone's buffered data first.
    Evict(u32),
}

/// Counters of the slot buffer of one zoned namespace.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ZabmCounters {
    pub slots: u32,
    pub slots_in_use_max: u32,
    pub slots_in_use_mean: f64,
    /// Flushes of less than a superpage (die units) and of whole superpages (parallel).
    pub die_unit_flushes: u64,
    pub superpage_flushes: u64,
    /// Admissions that waited for a slot to be released, and the time they waited.
    pub slot_stalls: u64,
    pub slot_stall_ns: u64,
    /// Zones flushed prematurely because no slot was left for another zone.
    pub slot_evictions: u64,
    pub slot_tables_opened: u64,
    #[serde(skip)]
    in_use_sum: u64,
    #[serde(skip)]
    samples: u64,
}

#[derive(Clone)]
pub struct Zabm {
    slots: u32,
    min: u32,
    /// Slots of data waiting in each zone's table.
    held: Vec<u32>,
    /// When the last data of each zone arrived.
    ready: Vec<SimTime>,
    open: Vec<bool>,
    held_total: u32,
    /// Sum over open zones of the reserve they are still owed: max(0, min - held).
    owed: u32,
    inflight: InflightSpace<EarliestDone>,
    /// Slots a zone must buffer before it flushes (one die unit or one superpage).
    flush_slots: u32,
    die_unit: u32,
    pub counters: ZabmCounters,
}

impl Zabm {
    /// `slots` slots shared by `zones` zones, `min` reserved per open zone; a die program unit
    /// is `die_unit` slots and a superpage `superpage` slots.
    pub fn new(
        slots: u32,
        min: u32,
        zones: u32,
        unit: FlushUnit,
        die_unit: u32,
        superpage: u32,
    ) -> Zabm {
        Zabm {
            slots,
            min,
            held: vec![0; zones as usize],
            ready: vec![SimTime::ZERO; zones as usize],
            open: vec![false; zones as usize],
            held_total: 0,
            owed: 0,
            inflight: InflightSpace::default(),
            flush_slots: match unit {
                FlushUnit::Die => die_unit,
                FlushUnit::Superpage => superpage,
            },
            die_unit,
            counters: ZabmCounters {
                slots,
                ..Default::default()
            },
        }
    }

    #[inline]
    fn short(&self, z: u32) -> u32 {
        if self.open[z as usize] {
            self.min.saturating_sub(self.held[z as usize])
        } else {
            0
        }
    }

    /// Number of zones (slot tables).
    pub fn zones(&self) -> usize {
        self.held.len()
    }

    /// Zero the counters (after preconditioning).
    pub fn reset_counters(&mut self) {
        self.counters = ZabmCounters {
            slots: self.slots,
            ..Default::default()
        };
    }

    /// Whether zone `z` holds a slot table.
    #[inline]
    pub fn is_open(&self, z: u32) -> bool {
        self.open[z as usize]
    }

    /// Give zone `z` a slot table (its reserve starts to count).
    pub fn open(&mut self, z: u32) {
        if !self.open[z as usize] {
            self.open[z as usize] = true;
            self.owed += self.short(z);
            self.counters.slot_tables_opened += 1;
        }
    }

    /// Take zone `z`'s slot table back (it holds no data).
    pub fn close(&mut self, z: u32) {
        debug_assert_eq!(self.held[z as usize], 0);
        if self.open[z as usize] {
            self.owed -= self.short(z);
            self.open[z as usize] = false;
        }
    }

    /// Slots of data waiting in zone `z`'s table.
    #[inline]
    pub fn count(&self, z: u32) -> u32 {
        self.held[z as usize]
    }

    /// When the data in zone `z`'s table has all arrived.
    #[inline]
    pub fn ready(&self, z: u32) -> SimTime {
        self.ready[z as usize]
    }

    /// Slots zone `z` may take now, releasing nothing.
    #[inline]
    fn blocked(&self, z: u32) -> u32 {
        // The other open zones' reserve, and everything held.
        self.held_total + self.owed - self.short(z)
    }

    /// Earliest time >= `t` at which zone `z` may take a slot, and how many it may take then.
    #[inline]
    pub fn admit(&mut self, z: u32, t: SimTime) -> Admit {
        let blocked = self.blocked(z);
        if blocked >= self.slots {
            // Only flushing buffered data (of the fullest other zone) or closing an idle zone's
            // table (its reserve) can free a slot.
            let victim = (0..self.held.len() as u32)
                .filter(|&o| o != z && self.open[o as usize])
                .max_by_key(|&o| (self.held[o as usize], std::cmp::Reverse(o)))
                .unwrap_or(z);
            self.counters.slot_evictions += 1;
            return Admit::Evict(victim);
        }
        let t2 = self.inflight.wait_for_slot(blocked, self.slots, t);
        self.inflight.release_done(t2);
        if t2 > t {
            self.counters.slot_stalls += 1;
            self.counters.slot_stall_ns += t2 - t;
        }
        Admit::Ready(t2, self.slots - blocked - self.inflight.slots())
    }

    /// Slots zone `z` should receive at most before it checks for a flush, with `pending`
    /// slots not yet programmed: up to the next flush boundary.
    #[inline]
    pub fn chunk(&self, pending: u32) -> u32 {
        self.flush_slots - pending % self.flush_slots
    }

    /// Whether a zone with `pending` slots not yet programmed is due to flush.
    #[inline]
    pub fn flush_due(&self, pending: u32) -> bool {
        pending >= self.flush_slots
    }

    /// `k` slots of zone `z`'s data arrive, the last at `arrived`.
    #[inline]
    pub fn receive(&mut self, z: u32, k: u32, arrived: SimTime) {
        let before = self.short(z);
        self.held[z as usize] += k;
        self.owed -= before - self.short(z);
        self.held_total += k;
        self.ready[z as usize] = self.ready[z as usize].max(arrived);
        let in_use = self.held_total + self.inflight.slots();
        let c = &mut self.counters;
        c.slots_in_use_max = c.slots_in_use_max.max(in_use);
        c.in_use_sum += in_use as u64;
        c.samples += 1;
        c.slots_in_use_mean = c.in_use_sum as f64 / c.samples as f64;
    }

    /// `n` slots of zone `z` left for programs completing at `done`; `units` die units were
    /// programmed.
    #[inline]
    pub fn flushed(&mut self, z: u32, n: u32, done: SimTime) {
        if n == 0 {
            return;
        }
        let before = self.short(z);
        self.held[z as usize] -= n;
        self.owed += self.short(z) - before;
        self.held_total -= n;
        self.inflight.add(n, done);
        if n > self.die_unit {
            self.counters.superpage_flushes += 1;
        } else {
            self.counters.die_unit_flushes += 1;
        }
    }

    /// Drop zone `z`'s buffered data (reset).
    pub fn discard(&mut self, z: u32) {
        let n = self.held[z as usize];
        let before = self.short(z);
        self.held[z as usize] = 0;
        self.owed += self.short(z) - before;
        self.held_total -= n;
    }

    /// When every flush issued so far has completed.
    pub fn drained_at(&self) -> SimTime {
        self.inflight.drained_at()
    }

    /// Slots held plus in flight within the SRAM; the reserve bookkeeping agrees with the
    /// tables; no closed zone holds data.
    pub fn check(&self) -> Result<(), String> {
        let held: u32 = self.held.iter().sum();
        let owed: u32 = (0..self.held.len() as u32).map(|z| self.short(z)).sum();
        if held != self.held_total || owed != self.owed {
            return Err(format!(
                "ZABM: {held} held / {owed} owed but {} / {} counted",
                self.held_total, self.owed
            ));
        }
        if held + self.inflight.slots() > self.slots {
            return Err(format!(
                "ZABM: {held} held + {} in flight > {} slots",
                self.inflight.slots(),
                self.slots
            ));
        }
        if let Some(z) = (0..self.held.len()).find(|&z| !self.open[z] && self.held[z] > 0) {
            return Err(format!("ZABM: zone {z} holds slots without a slot table"));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn ready(a: Admit) -> (SimTime, u32) {
        match a {
            Admit::Ready(t, n) => (t, n),
            Admit::Evict(z) => panic!("evict {z}"),
        }
    }

    #[test]
    fn reserve_of_open_zones_is_kept_and_busy_zones_borrow() {
        // 10 slots, 2 reserved per open zone, die unit 3, superpage 6.
        let mut b = Zabm::new(10, 2, 3, FlushUnit::Die, 3, 6);
        b.open(0);
        b.open(1);
        // Zone 0 may take all but zone 1's reserve.
        assert_eq!(ready(b.admit(0, SimTime(0))), (SimTime(0), 8));
        b.receive(0, 8, SimTime(5));
        assert_eq!(ready(b.admit(1, SimTime(0))).1, 2);
        b.receive(1, 2, SimTime(5));
        // Nothing in flight: zone 2 must evict the fullest zone.
        b.open(2);
        assert_eq!(b.admit(2, SimTime(0)), Admit::Evict(0));
        b.flushed(0, 8, SimTime(100));
        // A zone flushed for lack of slots gives its table back (as the FTL does).
        b.close(0);
        // The slots come back when the program completes.
        assert_eq!(ready(b.admit(2, SimTime(10))), (SimTime(100), 8));
        b.check().unwrap();
        assert_eq!(b.counters.superpage_flushes, 1);
    }

    proptest! {
        /// Every slot taken is released exactly once: after any sequence of receives and
        /// flushes, held + in flight never exceeds the SRAM and the books balance.
        #[test]
        fn slots_are_released_once(ops in proptest::collection::vec((0u32..4, 1u32..6, any::<bool>()), 1..200)) {
            let mut b = Zabm::new(24, 2, 4, FlushUnit::Die, 3, 12);
            let mut t = SimTime(0);
            let mut taken = 0u64;
            let mut released = 0u64;
            for (z, k, flush) in ops {
                b.open(z);
                t += 7;
                if flush {
                    let n = b.count(z);
                    b.flushed(z, n, t + 50);
                    released += n as u64;
                    if n > 0 { b.close(z); }
                    continue;
                }
                match b.admit(z, t) {
                    Admit::Ready(t2, free) => {
                        prop_assert!(t2 >= t);
                        let k = k.min(free);
                        b.receive(z, k, t2);
                        taken += k as u64;
                    }
                    Admit::Evict(o) => {
                        let n = b.count(o);
                        b.flushed(o, n, t + 50);
                        released += n as u64;
                    }
                }
                b.check().map_err(TestCaseError::fail)?;
            }
            let held: u32 = (0..4).map(|z| b.count(z)).sum();
            prop_assert_eq!(taken, released + held as u64);
        }
    }
}
