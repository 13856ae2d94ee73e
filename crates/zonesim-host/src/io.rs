//! The host request as the workload generators and trace readers produce it.

use serde::Serialize;

/// Kind of a host command.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, PartialOrd, Ord)]
#[serde(rename_all = "snake_case")]
pub enum IoKind {
    Read,
    Write,
    /// Discard / deallocate / unmap.
    Trim,
    /// Cache flush (fsync / FUA barrier): drains the device write buffer.
    Flush,
    /// Zone reset of the zone containing `offset` (zoned namespaces only).
    ZoneReset,
    /// Zone finish of the zone containing `offset` (zoned namespaces only).
    ZoneFinish,
    /// Explicit open of the zone containing `offset` (zoned namespaces only).
    ZoneOpen,
    /// Close of the zone containing `offset` (zoned namespaces only).
    ZoneClose,
    /// Zone append of `len` bytes to the zone containing `offset`; the device picks the LBA
    /// (its write pointer). Recorded as a write.
    ZoneAppend,
    /// In-place update of `len` bytes at `offset` (ZMS budget-based IPU, fio `ipu=1`): below
    /// a zone's write pointer the device may take it within its budget. Recorded as a write.
    InPlace,
}

/// One host request in bytes, relative to the start of its namespace.
/// `len` is 0 for `Flush`, `ZoneReset` and `ZoneFinish`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HostIo {
    pub kind: IoKind,
    pub offset: u64,
    pub len: u64,
    /// Write lifetime hint: 0 none, 1 short, 2 medium, 3 long, 4 extreme (fio `write_hint`).
    pub hint: u8,
}

impl HostIo {
    pub fn new(kind: IoKind, offset: u64, len: u64) -> Self {
        HostIo {
            kind,
            offset,
            len,
            hint: 0,
        }
    }
}
