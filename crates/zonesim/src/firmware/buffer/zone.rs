//! Scarce zone write buffers (ConZone §3.2 "Conflicting Zone-Write Buffer Mapping").
//!
//! `count` buffers of `slots` 4 KiB slots each, shared by all zones of a namespace. Zone writes
//! are sequential, so a buffer's content is just a run of its owner zone's offsets; the FTL
//! keeps where the run starts. Buffer space is held until the program of the flushed data
//! completes (as in the global buffer), so a full buffer stalls host writes until flash catches
//! up. Binding: `modulo` gives zone `z` buffer `z mod count`; `assoc` gives any free buffer and,
//! when all are taken, the fullest one (which is flushed first). A buffer held by another zone
//! with data in it must be flushed before it is rebound: a *conflict*.

use super::inflight::{InflightSpace, IssueOrder};
use crate::config::ZoneBufferMapping;
use crate::engine::SimTime;

pub const NO_ZONE: u32 = u32::MAX;

#[derive(Debug, Clone)]
struct Buf {
    /// Zone bound to it, or [`NO_ZONE`].
    owner: u32,
    /// Slots of the owner's data waiting in it.
    count: u32,
    /// When the last of the data in it has arrived over the link: a flush cannot program data
    /// before it is in the buffer.
    ready: SimTime,
    /// Flushed data still holding space, released in issue order.
    inflight: InflightSpace<IssueOrder>,
}

#[derive(Clone)]
pub struct ZoneBuffers {
    bufs: Vec<Buf>,
    slots: u32,
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
                    inflight: InflightSpace::default(),
                })
                .collect(),
            slots,
            mapping,
        }
    }

    /// Number of buffers.
    pub fn len(&self) -> usize {
        self.bufs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.bufs.is_empty()
    }

    /// Zone bound to buffer `b`, or [`NO_ZONE`].
    #[inline]
    pub fn owner(&self, b: u32) -> u32 {
        self.bufs[b as usize].owner
    }

    /// Slots of data waiting in buffer `b`.
    #[inline]
    pub fn count(&self, b: u32) -> u32 {
        self.bufs[b as usize].count
    }

    /// Whether buffer `b` holds a whole buffer of data.
    #[inline]
    pub fn is_full(&self, b: u32) -> bool {
        self.bufs[b as usize].count == self.slots
    }

    /// When the data in buffer `b` has all arrived.
    #[inline]
    pub fn ready(&self, b: u32) -> SimTime {
        self.bufs[b as usize].ready
    }

    /// `k` slots of data arrive in buffer `b`, the last at `arrived`.
    #[inline]
    pub fn receive(&mut self, b: u32, k: u32, arrived: SimTime) {
        let x = &mut self.bufs[b as usize];
        x.count += k;
        x.ready = x.ready.max(arrived);
    }

    /// Bind buffer `b` to zone `z` (or unbind it with [`NO_ZONE`]).
    #[inline]
    pub fn set_owner(&mut self, b: u32, z: u32) {
        self.bufs[b as usize].owner = z;
    }

    /// Drop the data waiting in buffer `b` (its zone was reset).
    pub fn discard(&mut self, b: u32) {
        self.bufs[b as usize].count = 0;
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
        let t2 = x.inflight.wait_for_slot(x.count, cap, t);
        // Release what has completed by then, so the caller sees all the space it can use.
        x.inflight.release_done(t2);
        (t2, cap - x.count - x.inflight.slots())
    }

    /// `n` slots of buffer `b` left for a program completing at `done`.
    #[inline]
    pub fn flushed(&mut self, b: u32, n: u32, done: SimTime) {
        if n == 0 {
            return;
        }
        let x = &mut self.bufs[b as usize];
        x.count -= n;
        x.inflight.add(n, done);
    }

    /// When every flush of every buffer issued so far has completed.
    pub fn drained_at(&self) -> SimTime {
        self.bufs
            .iter()
            .map(|b| b.inflight.drained_at())
            .max()
            .unwrap_or(SimTime::ZERO)
    }
}
