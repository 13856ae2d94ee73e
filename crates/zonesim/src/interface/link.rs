use crate::engine::SimTime;
use crate::nand::SLOT_BYTES;

/// The host link (UFS M-PHY lanes, PCIe): one timeline per direction, each moving bytes at
/// `link_mb_s`. Commands are small and not modelled; data transfers are serialised per
/// direction.
pub struct Link {
    ps_per_byte: u64,
    to_device_free: SimTime,
    to_host_free: SimTime,
}

impl Link {
    pub fn new(mib_s: f64) -> Link {
        Link {
            ps_per_byte: crate::nand::ps_per_byte(mib_s),
            to_device_free: SimTime::ZERO,
            to_host_free: SimTime::ZERO,
        }
    }

    #[inline]
    pub fn bytes_ns(&self, bytes: u64) -> u64 {
        bytes * self.ps_per_byte / 1000
    }

    /// Move one 4 KiB page host -> device, starting no earlier than `ready`.
    #[inline]
    pub fn to_device(&mut self, ready: SimTime, bytes: u64) -> SimTime {
        let end = ready.max(self.to_device_free) + self.bytes_ns(bytes);
        self.to_device_free = end;
        end
    }

    /// Move `bytes` device -> host, starting no earlier than `ready`.
    #[inline]
    pub fn to_host(&mut self, ready: SimTime, bytes: u64) -> SimTime {
        let end = ready.max(self.to_host_free) + self.bytes_ns(bytes);
        self.to_host_free = end;
        end
    }

    pub fn slot_ns(&self) -> u64 {
        self.bytes_ns(SLOT_BYTES)
    }
}
