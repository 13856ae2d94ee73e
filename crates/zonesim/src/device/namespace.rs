//! The namespaces of a device: one enum over the FTL kinds, dispatched in one place.
//!
//! Every kind implements the namespace contract [`Ftl`]; the enum keeps the hot path statically
//! dispatched (no `dyn`), and [`dispatch!`] is the one place that names the kinds (as tokio's
//! `match_flavor!` does for its runtime flavors). Adding a kind is one variant here and one
//! `Ftl` impl in `firmware/`.

use crate::engine::SimTime;
use crate::firmware::conventional::PageFtl;
use crate::firmware::zoned::ZonedFtl;
use crate::firmware::{Ftl, IoCounters, Lent};
use crate::interface::{Command, Completion};

/// One namespace (logical unit) of the device. Few per device and never moved on the hot path,
/// so the variants are not boxed.
#[allow(clippy::large_enum_variant)]
pub enum Namespace {
    /// Block interface, page-mapped.
    Conventional(PageFtl),
    /// Zoned interface (ConZone).
    Zoned(ZonedFtl),
}

/// Run `$body` with `$f` bound to the namespace's FTL, whatever its kind.
macro_rules! dispatch {
    ($ns:expr, $f:ident => $body:expr) => {
        match $ns {
            Namespace::Conventional($f) => $body,
            Namespace::Zoned($f) => $body,
        }
    };
}

impl Namespace {
    #[inline]
    pub fn submit(&mut self, lent: &mut Lent, now: SimTime, cmd: Command) -> Completion {
        dispatch!(self, f => f.submit(lent, now, cmd))
    }

    pub fn background(&mut self, lent: &mut Lent, now: SimTime) -> bool {
        dispatch!(self, f => f.background(lent, now))
    }

    #[inline]
    pub fn capacity_bytes(&self) -> u64 {
        dispatch!(self, f => f.capacity_bytes())
    }

    pub fn io_counters(&self) -> IoCounters {
        dispatch!(self, f => f.io_counters())
    }

    pub fn reset_counters(&mut self) {
        dispatch!(self, f => f.reset_counters())
    }

    pub fn check_invariants(&self) -> Result<(), String> {
        dispatch!(self, f => f.check_invariants())
    }

    /// The FTL of a conventional namespace.
    pub fn as_conventional(&self) -> Option<&PageFtl> {
        match self {
            Namespace::Conventional(f) => Some(f),
            _ => None,
        }
    }

    /// The FTL of a zoned namespace.
    pub fn as_zoned(&self) -> Option<&ZonedFtl> {
        match self {
            Namespace::Zoned(z) => Some(z),
            _ => None,
        }
    }
}

impl From<PageFtl> for Namespace {
    fn from(f: PageFtl) -> Namespace {
        Namespace::Conventional(f)
    }
}

impl From<ZonedFtl> for Namespace {
    fn from(z: ZonedFtl) -> Namespace {
        Namespace::Zoned(z)
    }
}
