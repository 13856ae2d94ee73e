//! Zone errors: why the device rejected a request ([`ZoneErrorKind`]) and the log of rejected
//! requests the report counts ([`ZoneErrorLog`]).

use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};

use super::{Lba, ZoneId, ZoneOp, ZoneSet};

/// Why the device rejected a request. These are device answers, counted in the report under
/// `device.zones.errors.<as_str()>`, never program errors.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ZoneErrorKind {
    /// A write that does not start at the zone's write pointer.
    UnalignedWrite,
    /// A write or append to a FULL zone.
    WriteFull,
    /// A write past the zone capacity (or into the gap between capacity and size), or an LBA /
    /// zone id outside the namespace.
    Boundary,
    /// The zone would have to be opened, the open limit is reached and no zone can be closed
    /// implicitly.
    TooManyOpen,
    /// The zone would have to become active and the active limit is reached.
    TooManyActive,
    /// A read of LBAs at or beyond the write pointer of a zone.
    ReadBeyondWp,
    /// A zone management operation not allowed in the zone's condition, or any access to an
    /// OFFLINE zone or a write to a READ_ONLY zone.
    InvalidTransition,
}

impl ZoneErrorKind {
    /// All kinds, in report order; `ALL[k.index()] == k`.
    pub const ALL: [ZoneErrorKind; 7] = [
        ZoneErrorKind::UnalignedWrite,
        ZoneErrorKind::WriteFull,
        ZoneErrorKind::Boundary,
        ZoneErrorKind::TooManyOpen,
        ZoneErrorKind::TooManyActive,
        ZoneErrorKind::ReadBeyondWp,
        ZoneErrorKind::InvalidTransition,
    ];

    /// The report key (`"unaligned_write"`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            ZoneErrorKind::UnalignedWrite => "unaligned_write",
            ZoneErrorKind::WriteFull => "write_full",
            ZoneErrorKind::Boundary => "boundary",
            ZoneErrorKind::TooManyOpen => "too_many_open",
            ZoneErrorKind::TooManyActive => "too_many_active",
            ZoneErrorKind::ReadBeyondWp => "read_beyond_wp",
            ZoneErrorKind::InvalidTransition => "invalid_transition",
        }
    }

    /// The zone rule this kind of error breaks, in a few words.
    pub fn rule(self) -> &'static str {
        match self {
            ZoneErrorKind::UnalignedWrite => "a zone takes writes only at its write pointer",
            ZoneErrorKind::WriteFull => "a full zone takes no writes until it is reset",
            ZoneErrorKind::Boundary => {
                "a write must stay inside one zone's capacity and inside the namespace"
            }
            ZoneErrorKind::TooManyOpen => "no more zones may be open at once",
            ZoneErrorKind::TooManyActive => "no more zones may be active at once",
            ZoneErrorKind::ReadBeyondWp => "reads must stay below the zone's write pointer",
            ZoneErrorKind::InvalidTransition => {
                "the zone's condition does not allow this operation"
            }
        }
    }

    /// Position in [`ZoneErrorKind::ALL`] and in [`ZoneErrorLog::counts`].
    pub fn index(self) -> usize {
        self as usize
    }
}

impl std::fmt::Display for ZoneErrorKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

// ----- error log -----

/// How many rejected requests [`ZoneErrorLog`] keeps in detail.
pub const FIRST_ERRORS_KEPT: usize = 16;

/// One rejected request, as listed under `first_errors` in the report.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct ZoneErrorRecord {
    /// Error kind (`"unaligned_write"`, ...).
    pub kind: ZoneErrorKind,
    /// Request kind (`"write"`, `"append"`, `"read"`, `"open"`, `"close"`, `"finish"`,
    /// `"reset"`).
    pub op: &'static str,
    /// First LBA of the request (for zone operations and appends, the zone start).
    pub lba: Lba,
    /// LBAs (0 for zone management operations).
    pub len: u64,
    /// The zone addressed, if inside the namespace.
    pub zone: Option<ZoneId>,
    /// Simulated time of the request, ns.
    pub time_ns: u64,
}

/// Counts of rejected requests by kind, plus the first [`FIRST_ERRORS_KEPT`] in detail.
///
/// `Serialize` writes only the counts, as an object with all seven kinds as keys (always present,
/// in [`ZoneErrorKind::ALL`] order) — the report's `device.zones.errors`. The detailed list is
/// [`ZoneErrorLog::first_errors`], serialized separately by the report (`first_errors`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ZoneErrorLog {
    /// Indexed by [`ZoneErrorKind::index`].
    pub counts: [u64; 7],
    /// The first [`FIRST_ERRORS_KEPT`] records, in order.
    pub first: Vec<ZoneErrorRecord>,
}

impl ZoneErrorLog {
    pub fn new() -> ZoneErrorLog {
        ZoneErrorLog {
            counts: [0; 7],
            first: Vec::with_capacity(FIRST_ERRORS_KEPT),
        }
    }

    /// Count a rejected request (no allocation once `first` is full or pre-sized).
    pub fn record(
        &mut self,
        kind: ZoneErrorKind,
        op: &'static str,
        lba: Lba,
        len: u64,
        zone: Option<ZoneId>,
        time_ns: u64,
    ) {
        self.counts[kind.index()] += 1;
        if self.first.len() < FIRST_ERRORS_KEPT {
            self.first.push(ZoneErrorRecord {
                kind,
                op,
                lba,
                len,
                zone,
                time_ns,
            });
        }
    }

    /// Count a rejected [`ZoneOp`] against `set`, describing it from the op.
    pub fn record_op(&mut self, kind: ZoneErrorKind, op: &ZoneOp, set: &ZoneSet, time_ns: u64) {
        let in_ns = |z: ZoneId| (z.0 < set.zone_count()).then_some(z);
        let (lba, len, zone) = match *op {
            ZoneOp::Write { lba, len } | ZoneOp::Read { lba, len } => {
                (lba, len, in_ns(set.zone_of(lba)))
            }
            ZoneOp::Append { zone, len } => (set.zone_start(zone), len, in_ns(zone)),
            ZoneOp::Open(z) | ZoneOp::Close(z) | ZoneOp::Finish(z) | ZoneOp::Reset(z) => {
                (set.zone_start(z), 0, in_ns(z))
            }
        };
        self.record(kind, op.name(), lba, len, zone, time_ns);
    }

    pub fn count(&self, kind: ZoneErrorKind) -> u64 {
        self.counts[kind.index()]
    }

    pub fn total(&self) -> u64 {
        self.counts.iter().sum()
    }

    pub fn first_errors(&self) -> &[ZoneErrorRecord] {
        &self.first
    }

    /// Add another log's counts; its records follow ours up to the limit.
    pub fn merge(&mut self, other: &ZoneErrorLog) {
        for (a, b) in self.counts.iter_mut().zip(other.counts.iter()) {
            *a += b;
        }
        for r in &other.first {
            if self.first.len() >= FIRST_ERRORS_KEPT {
                break;
            }
            self.first.push(*r);
        }
    }
}

impl Serialize for ZoneErrorLog {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut m = serializer.serialize_map(Some(ZoneErrorKind::ALL.len()))?;
        for k in ZoneErrorKind::ALL {
            m.serialize_entry(k.as_str(), &self.counts[k.index()])?;
        }
        m.end()
    }
}
