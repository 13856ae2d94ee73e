//! The write buffer of a zoned namespace, by `buffer.kind`: `static` zone buffers
//! ([`ZoneBuffers`], ConZone §3.2) or ZABM slot tables ([`Zabm`], ZUFS §4.2). One enum,
//! matched per call (no dynamic dispatch). A buffer is named by an index: a static buffer's
//! number, or with ZABM the zone itself (its slot table).

use super::zabm::{Admit, Zabm, ZabmCounters};
use super::zone::{Bind, ZoneBuffers, NO_ZONE};
use crate::config::{BufferKind, DeviceConfig};
use crate::engine::SimTime;
use crate::nand::SLOT_BYTES;

#[derive(Clone)]
pub enum ZoneWriteBuffers {
    Static(ZoneBuffers),
    Zabm(Zabm),
}

impl ZoneWriteBuffers {
    /// The buffers `cfg` asks for, for `zones` zones whose die program unit is `die_unit`
    /// slots over `dies` dies.
    pub fn new(cfg: &DeviceConfig, zones: u32, die_unit: u32, dies: u32) -> ZoneWriteBuffers {
        let b = &cfg.buffer;
        match b.kind {
            BufferKind::Static => ZoneWriteBuffers::Static(ZoneBuffers::new(
                b.count,
                (b.bytes_each / SLOT_BYTES) as u32,
                b.zone_mapping,
            )),
            BufferKind::Zabm => ZoneWriteBuffers::Zabm(Zabm::new(
                (b.sram_bytes / SLOT_BYTES) as u32,
                b.min_slots_per_zone,
                zones,
                b.flush_unit,
                die_unit,
                die_unit * dies,
            )),
        }
    }

    /// Number of buffers (static) or slot tables (ZABM: one per zone).
    pub fn len(&self) -> usize {
        match self {
            Self::Static(s) => s.len(),
            Self::Zabm(z) => z.zones(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The ZABM counters, with `buffer.kind = zabm`.
    pub fn zabm(&self) -> Option<&ZabmCounters> {
        match self {
            Self::Static(_) => None,
            Self::Zabm(z) => Some(&z.counters),
        }
    }

    /// Zero the counters (after preconditioning).
    pub fn reset_counters(&mut self) {
        if let Self::Zabm(z) = self {
            z.reset_counters();
        }
    }

    #[inline]
    pub fn owner(&self, b: u32) -> u32 {
        match self {
            Self::Static(s) => s.owner(b),
            Self::Zabm(z) if z.is_open(b) => b,
            Self::Zabm(_) => NO_ZONE,
        }
    }

    #[inline]
    pub fn count(&self, b: u32) -> u32 {
        match self {
            Self::Static(s) => s.count(b),
            Self::Zabm(z) => z.count(b),
        }
    }

    #[inline]
    pub fn ready(&self, b: u32) -> SimTime {
        match self {
            Self::Static(s) => s.ready(b),
            Self::Zabm(z) => z.ready(b),
        }
    }

    #[inline]
    pub fn receive(&mut self, b: u32, k: u32, arrived: SimTime) {
        match self {
            Self::Static(s) => s.receive(b, k, arrived),
            Self::Zabm(z) => z.receive(b, k, arrived),
        }
    }

    /// Bind buffer `b` to zone `z`, or unbind it with [`NO_ZONE`] (ZABM: open / close the
    /// zone's slot table).
    #[inline]
    pub fn set_owner(&mut self, b: u32, z: u32) {
        match self {
            Self::Static(s) => s.set_owner(b, z),
            Self::Zabm(t) if z == NO_ZONE => t.close(b),
            Self::Zabm(t) => t.open(b),
        }
    }

    pub fn discard(&mut self, b: u32) {
        match self {
            Self::Static(s) => s.discard(b),
            Self::Zabm(z) => z.discard(b),
        }
    }

    /// Which buffer zone `z` (holding `held`) writes into (ZABM: its own table, no conflict).
    #[inline]
    pub fn bind(&self, z: u32, held: u32) -> Bind {
        match self {
            Self::Static(s) => s.bind(z, held),
            Self::Zabm(_) => Bind::Ready(z),
        }
    }

    /// When buffer `b` can take data at or after `t`, and how many slots.
    #[inline]
    pub fn admit(&mut self, b: u32, t: SimTime) -> Admit {
        match self {
            Self::Static(s) => {
                let (t2, free) = s.admit(b, t);
                Admit::Ready(t2, free)
            }
            Self::Zabm(z) => z.admit(b, t),
        }
    }

    /// Slots to receive at most before checking for a flush, with `pending` slots of the
    /// zone not yet programmed (static: no limit; ZABM: up to the next flush boundary).
    #[inline]
    pub fn chunk(&self, pending: u32) -> u32 {
        match self {
            Self::Static(_) => u32::MAX,
            Self::Zabm(z) => z.chunk(pending),
        }
    }

    /// Whether buffer `b`, with `pending` slots of its zone not yet programmed, is due to
    /// flush its whole units (static: the buffer is full; ZABM: a flush unit is buffered).
    #[inline]
    pub fn flush_due(&self, b: u32, pending: u32) -> bool {
        match self {
            Self::Static(s) => s.is_full(b),
            Self::Zabm(z) => z.flush_due(pending),
        }
    }

    #[inline]
    pub fn flushed(&mut self, b: u32, n: u32, done: SimTime) {
        match self {
            Self::Static(s) => s.flushed(b, n, done),
            Self::Zabm(z) => z.flushed(b, n, done),
        }
    }

    pub fn drained_at(&self) -> SimTime {
        match self {
            Self::Static(s) => s.drained_at(),
            Self::Zabm(z) => z.drained_at(),
        }
    }

    pub fn check(&self) -> Result<(), String> {
        match self {
            Self::Static(_) => Ok(()),
            Self::Zabm(z) => z.check(),
        }
    }
}
