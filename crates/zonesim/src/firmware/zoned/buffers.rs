//! Scarce zone write buffers (ConZone §3.2 "Conflicting Zone-Write Buffer Mapping").
//!
//! `count` buffers of `slots` 4 KiB slots each, shared by all zones of a namespace. Zone writes
//! are sequential, so a buffer's content is just a run of its owner zone's offsets; the FTL
//! keeps where the run starts. Buffer space is held until the program of the flushed data
//! completes (as in the global buffer), so a full buffer stalls host writes until flash catches
//! up. Binding: `modulo` gives zone `z` buffer `z mod count`; `assoc` gives any free buffer and,
//! when all are taken, the fullest one (which is flushed first). A buffer held by another zone
//! with data in it must be flushed before it is rebound: a *conflict*.

use crate::config::ZoneBufferMapping;
use crate::engine::SimTime;
use std::collections::VecDeque;

pub const NO_ZONE: u32 = u32::MAX;

#[derive(Debug, Clone)]
pub struct Buf {
    /// Zone bound to it, or [`NO_ZONE`].
    pub owner: u32,
    /// Slots of the owner's data waiting in it.
    pub count: u32,
    /// When the last of the data in it has arrived over the link: a flush cannot program data
    /// before it is in the buffer.
    pub ready: SimTime,
    inflight_slots: u32,
    /// (program done, slots) of flushed data still holding space.
    inflight: VecDeque<(SimTime, u32)>,
    last_done: SimTime,
}

pub struct ZoneBuffers {
    pub bufs: Vec<Buf>,
    pub slots: u32,
    mapping: ZoneBufferMapping,
}

/// The binding decision for a zone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bind {
    /// The zone already holds buffer `b`, or took a free one.
    Ready(u32),
    /// Buffer `b` must first be flushed for its owner `zone` (a conflict).
    Evict { b: u32, zone: u32 },
}

impl ZoneBuffers {
    pub fn new(count: u32, slots: u32, mapping: ZoneBufferMapping) -> ZoneBuffers {
        ZoneBuffers {
            bufs: (0..count)
                .map(|_| Buf {
                    owner: NO_ZONE,
                    count: 0,
                    ready: SimTime::ZERO,
                    inflight_slots: 0,
                    inflight: VecDeque::with_capacity(64),
                    last_done: SimTime::ZERO,
                })
                .collect(),
            slots,
            mapping,
        }
    }

    /// Which buffer zone `z` (holding `held`, [`NO_ZONE`] if none) writes into.
    #[inline]
    pub fn bind(&self, z: u32, held: u32) -> Bind {
        if held != NO_ZONE {
            return Bind::Ready(held);
        }
        let n = self.bufs.len() as u32;
        let b = match self.mapping {
            ZoneBufferMapping::Modulo => z % n,
            ZoneBufferMapping::Assoc => {
                match (0..n).find(|&b| self.bufs[b as usize].owner == NO_ZONE) {
                    Some(b) => b,
                    None => (0..n)
                        .max_by_key(|&b| (self.bufs[b as usize].count, std::cmp::Reverse(b)))
                        .expect("at least one buffer"),
                }
            }
        };
        match self.bufs[b as usize].owner {
            NO_ZONE => Bind::Ready(b),
            o => Bind::Evict { b, zone: o },
        }
    }

    /// Earliest time >= `t` at which buffer `b` has a free slot. Returns it and the free slots
    /// then.
    #[inline]
    pub fn admit(&mut self, b: u32, t: SimTime) -> (SimTime, u32) {
        let cap = self.slots;
        let x = &mut self.bufs[b as usize];
        let mut t2 = t;
        while x.count + x.inflight_slots >= cap {
            let (done, n) = x
                .inflight
                .pop_front()
                .expect("full buffer with nothing in flight");
            x.inflight_slots -= n;
            t2 = t2.max(done);
        }
        // Release what has completed by then, so the caller sees all the space it can use.
        while let Some(&(done, n)) = x.inflight.front() {
            if done > t2 {
                break;
            }
            x.inflight.pop_front();
            x.inflight_slots -= n;
        }
        (t2, cap - x.count - x.inflight_slots)
    }

    /// `n` slots of buffer `b` left for a program completing at `done`.
    #[inline]
    pub fn flushed(&mut self, b: u32, n: u32, done: SimTime) {
        if n == 0 {
            return;
        }
        let x = &mut self.bufs[b as usize];
        x.count -= n;
        x.inflight_slots += n;
        x.inflight.push_back((done, n));
        x.last_done = x.last_done.max(done);
    }

    /// When every flush of every buffer issued so far has completed.
    pub fn drained_at(&self) -> SimTime {
        self.bufs
            .iter()
            .map(|b| b.last_done)
            .max()
            .unwrap_or(SimTime::ZERO)
    }
}
