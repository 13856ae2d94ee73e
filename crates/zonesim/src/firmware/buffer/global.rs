use super::inflight::{EarliestDone, InflightSpace};
use crate::engine::SimTime;
use crate::firmware::mapping::{Lpa, TAG_MASK};
use serde::Serialize;
use std::collections::VecDeque;

/// Counters of a write buffer, the same for every kind (`device.buffer`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct BufferCounters {
    /// Flushes of a whole program unit because enough data accumulated.
    pub full_flushes: u64,
    /// Flushes of less than a program unit (padded), forced by a host flush or idleness (a
    /// zoned namespace: by another zone needing the buffer).
    pub premature_flushes: u64,
    /// Host flush / FUA commands.
    pub host_flushes: u64,
    /// Buffer flushes a host flush forced (zone buffers; the global buffer counts them as
    /// premature).
    pub host_forced_flushes: u64,
    /// Host writes to a page already in the buffer (absorbed, no extra flash write).
    pub write_hits: u64,
    /// Host reads served from the buffer.
    pub read_hits: u64,
    /// Time host writes waited for buffer space (ns, summed).
    pub stall_ns: u64,
}

/// The global write buffer: a FIFO of buffered pages plus the in-flight flushes holding space
/// until their program completes.
#[derive(Clone)]
pub struct GlobalBuffer {
    capacity: u32,
    buffered: u32,
    /// Buffered pages in arrival order as (lpa, tag, write stream chosen by the placement); an
    /// entry is live only while the map still says `Buffered(tag)` for its lpa (an overwrite
    /// keeps the entry; a trim kills it).
    order: VecDeque<(u32, u32, u8)>,
    /// When each entry of `order` arrived, kept only when units wait in the buffer
    /// (`buffer.issue_ahead_us`): issued at once, a unit's last page is the latest (12-byte
    /// entries keep the FIFO small on that path).
    arrivals: Option<VecDeque<SimTime>>,
    next_tag: u32,
    /// Flushes whose space is not yet released (earliest program completion first).
    inflight: InflightSpace<EarliestDone>,
    /// Admission time of the last page admitted: pages are admitted in FIFO order, across
    /// requests, so space freed by a program is never used before it is free.
    last_admit: SimTime,
    /// Latest arrival (over the link) of a buffered page: a unit is flushed no earlier.
    last_arrival: SimTime,
    pub counters: BufferCounters,
}

impl GlobalBuffer {
    /// A buffer of `capacity_slots` 4 KiB slots; `arrivals`: keep each page's arrival time.
    pub fn new(capacity_slots: u32, arrivals: bool) -> GlobalBuffer {
        GlobalBuffer {
            capacity: capacity_slots,
            buffered: 0,
            order: VecDeque::with_capacity(capacity_slots as usize * 2),
            arrivals: arrivals.then(|| VecDeque::with_capacity(capacity_slots as usize * 2)),
            next_tag: 0,
            inflight: InflightSpace::default(),
            last_admit: SimTime::ZERO,
            last_arrival: SimTime::ZERO,
            counters: BufferCounters::default(),
        }
    }

    pub fn buffered(&self) -> u32 {
        self.buffered
    }

    /// Admission of one page ready at `t`: the earliest time >= `t` at which one more slot fits,
    /// and no earlier than the page admitted before it (FIFO per page, across requests).
    #[inline]
    pub fn admit(&mut self, t: SimTime) -> SimTime {
        let t1 = t.max(self.last_admit);
        let t2 = self
            .inflight
            .wait_for_slot(self.buffered, self.capacity, t1);
        self.last_admit = t2;
        self.counters.stall_ns += t2 - t;
        t2
    }

    /// A buffered page finished crossing the link at `t`.
    #[inline]
    pub fn arrived(&mut self, t: SimTime) {
        self.last_arrival = self.last_arrival.max(t);
    }

    /// When every page buffered so far has arrived.
    #[inline]
    pub fn last_arrival(&self) -> SimTime {
        self.last_arrival
    }

    /// Add `lpa`, bound for write stream `stream` (space must have been admitted); returns its
    /// tag for the map.
    #[inline]
    pub fn push(&mut self, lpa: Lpa, stream: u8, arrived: SimTime) -> u32 {
        let tag = self.next_tag;
        self.next_tag = (self.next_tag + 1) & TAG_MASK;
        self.order.push_back((lpa.0, tag, stream));
        if let Some(a) = &mut self.arrivals {
            a.push_back(arrived);
        }
        self.buffered += 1;
        tag
    }

    /// A buffered page was trimmed: its entry is dead and its space is free.
    pub fn drop_one(&mut self) {
        self.buffered -= 1;
    }

    /// Pop the oldest entry as (lpa, tag, stream, arrival) (possibly dead: the caller checks it
    /// against the map). The arrival is ZERO when arrivals are not kept.
    #[inline]
    pub fn pop_entry(&mut self) -> Option<(Lpa, u32, u8, SimTime)> {
        let (l, t, s) = self.order.pop_front()?;
        let a = match &mut self.arrivals {
            Some(a) => a.pop_front().expect("an arrival per entry"),
            None => SimTime::ZERO,
        };
        Some((Lpa(l), t, s, a))
    }

    /// The page `k` entries behind the oldest (a prefetch hint; possibly dead).
    #[inline]
    pub fn lpa_at(&self, k: usize) -> Option<Lpa> {
        self.order.get(k).map(|e| Lpa(e.0))
    }

    /// Write stream of the oldest buffered entry (possibly dead).
    #[inline]
    pub fn front_stream(&self) -> Option<u8> {
        self.order.front().map(|e| e.2)
    }

    /// Slots the buffer holds, dirty and in flight.
    pub fn capacity(&self) -> u32 {
        self.capacity
    }

    /// `n` live pages left the buffer for a program completing at `done`.
    #[inline]
    pub fn flushed(&mut self, n: u32, done: SimTime) {
        self.buffered -= n;
        self.inflight.add(n, done);
    }

    /// When every flush issued so far has completed.
    pub fn drained_at(&self) -> SimTime {
        self.inflight.drained_at()
    }
}
