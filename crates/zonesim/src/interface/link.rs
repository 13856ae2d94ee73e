use crate::engine::{AdvanceLog, Lazy, SimTime, Timeline};
use crate::nand::SLOT_BYTES;

/// The host link (UFS M-PHY lanes, PCIe): one timeline per direction, each moving bytes at
/// `link_mb_s`. Commands are small and not modelled; data transfers of one direction do not
/// overlap and are served in the earliest gap after their data is ready.
#[derive(Clone)]
pub struct Link {
    ps_per_byte: u64,
    to_device: Lazy,
    to_host: Lazy,
    /// The clock advances the two directions have still to catch up with (a read never
    /// moves data host -> device).
    clock: AdvanceLog,
    /// Bytes moved each way (host -> device, device -> host).
    bytes: [u64; 2],
}

impl Link {
    pub fn new(mib_s: f64) -> Link {
        let ps_per_byte = crate::nand::ps_per_byte(mib_s);
        // Every transfer moves at least one 4 KiB slot.
        let slot_ns = SLOT_BYTES * ps_per_byte / 1000;
        Link {
            ps_per_byte,
            to_device: Lazy::new(Timeline::with_min_gap(slot_ns)),
            to_host: Lazy::new(Timeline::with_min_gap(slot_ns)),
            clock: AdvanceLog::default(),
            bytes: [0; 2],
        }
    }

    #[inline]
    pub fn bytes_ns(&self, bytes: u64) -> u64 {
        bytes * self.ps_per_byte / 1000
    }

    /// Move one 4 KiB page host -> device, starting no earlier than `ready`.
    #[inline]
    pub fn to_device(&mut self, ready: SimTime, bytes: u64) -> SimTime {
        let d = self.bytes_ns(bytes);
        self.bytes[0] += bytes;
        self.to_device.catch_up(&self.clock).reserve(ready, d) + d
    }

    /// Move `bytes` device -> host, starting no earlier than `ready`.
    #[inline]
    pub fn to_host(&mut self, ready: SimTime, bytes: u64) -> SimTime {
        let d = self.bytes_ns(bytes);
        self.bytes[1] += bytes;
        self.to_host.catch_up(&self.clock).reserve(ready, d) + d
    }

    /// The simulation clock reached `now`.
    #[inline(always)]
    pub fn advance(&mut self, now: SimTime) {
        if self.clock.advance(now) {
            self.clock.settle([&mut self.to_device, &mut self.to_host]);
        }
    }

    /// Bytes moved host -> device and device -> host so far.
    pub fn bytes_moved(&self) -> (u64, u64) {
        (self.bytes[0], self.bytes[1])
    }

    /// Zero the byte counts (after preconditioning); reservations stay.
    pub fn reset_bytes(&mut self) {
        self.bytes = [0; 2];
    }

    pub fn slot_ns(&self) -> u64 {
        self.bytes_ns(SLOT_BYTES)
    }
}
