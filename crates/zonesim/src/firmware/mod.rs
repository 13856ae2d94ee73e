//! Firmware: everything between the host interface and the NAND array, as rooms named after
//! their mechanism and shared by every kind of namespace (design.md §1; MQSim's FTL units):
//!
//! - [`buffer`]: write buffers — the global buffer of a conventional namespace, the scarce zone
//!   buffers of a zoned one — over one in-flight space accounting ([`buffer::InflightSpace`]).
//! - [`mapping`]: the page map and reverse map, the hybrid zone/chunk/page map of zoned
//!   namespaces ([`mapping::HybridMap`]), and the L2P SRAM all namespaces share.
//! - [`alloc`]: superblocks and the free pool, write frontiers ([`alloc::Stream`]), data
//!   placement, zone spans ([`alloc::ZoneSpace`]) and the pSLC pool ([`alloc::SlcPool`]).
//! - [`gc`]: victim policies (with a busy filter) and GC statistics; the collectors are the
//!   conventional FTL's superblock GC and the zoned FTL's SLC GC and migration.
//! - [`cores`]: multi-core firmware (HIL, TSU, completion, FTL workers), locks, mailboxes.
//! - [`cache`]: the DRAM data cache in front of the FTL.
//! - [`cost`]: controller-CPU processing cost of the placement policies.
//! - [`conventional`]: the page-mapped FTL of a conventional namespace.
//! - [`zoned`]: the FTL of a zoned namespace (ConZone): zone rules, buffer binding, flushing,
//!   SLC migration.
//!
//! Both FTLs implement one contract, [`Ftl`]: the device hands them a [`Command`] and the
//! shared resources ([`Lent`]) and gets a [`Completion`] back. Firmware speaks device commands,
//! never host types; it keeps typed counters and builds no JSON. Ordering of flash operations
//! per die (FIFO, with program/erase suspend for host operations) is the NAND array's
//! ([`crate::nand`]).

pub mod alloc;
pub mod buffer;
pub mod cache;
pub mod conventional;
pub mod cores;
pub mod cost;
pub mod gc;
pub mod mapping;
pub mod zoned;

use crate::engine::SimTime;
use crate::interface::{Command, Completion, Link};
use crate::nand::NandArray;
use mapping::{L2pSram, Lpa};

/// The device resources every namespace shares, lent to one namespace's FTL for one command.
pub struct Lent<'a> {
    pub nand: &'a mut NandArray,
    pub link: &'a mut Link,
    /// The L2P SRAM (map pages and zone/chunk/page entries of every namespace).
    pub sram: &'a mut L2pSram,
    /// The caller resumes parked commands (`Completion::resume`): a read may wait for its
    /// map page inside the FTL instead of booking its data read ahead.
    pub defer: bool,
}

/// Host-visible I/O counters every namespace kind keeps (4 KiB pages).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct IoCounters {
    pub host_read_pages: u64,
    pub host_write_pages: u64,
    /// Reads of never-written (or trimmed, or reset) pages, answered without flash access.
    pub unwritten_reads: u64,
    /// Reads served from a write buffer.
    pub buffer_read_hits: u64,
}

/// Kinds of work a namespace does while the host is idle. Each kind has its own timer
/// ([`IdleTimer`]): the run arms it when the host goes idle, and one event runs that kind's
/// step on every namespace ([`Ftl::idle`]), until none wants another or a request arrives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IdleWork {
    /// Background garbage collection (`ftl.gc.background`).
    Gc,
    /// SLC write-back to regular flash (`slc.writeback = idle`; UFS WriteBooster's flush
    /// during Hibern8).
    SlcWriteback,
}

impl IdleWork {
    /// Every kind, in the order the run arms their timers.
    pub const ALL: [IdleWork; 2] = [IdleWork::Gc, IdleWork::SlcWriteback];
}

/// When a kind of idle work steps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IdleTimer {
    /// Host idle time before the first step, ns.
    pub after_ns: u64,
    /// Time from one step to the next, ns (the next also waits until the dies are free).
    pub again_ns: u64,
}

/// The namespace contract: what the device asks of the FTL of any namespace kind.
pub trait Ftl {
    /// Execute `cmd` arriving at `now` (already range-checked against
    /// [`Ftl::capacity_bytes`]). State changes at arrival; the completion is computed on the
    /// analytic timelines.
    fn submit(&mut self, lent: &mut Lent, now: SimTime, cmd: Command) -> Completion;
    /// Continue command `token`, parked by [`Ftl::submit`] (only when `lent.defer`), at the
    /// time its completion named. A kind that never parks commands keeps the default, which
    /// answers at once.
    fn resume(&mut self, _lent: &mut Lent, now: SimTime, _token: u32) -> Completion {
        Completion::at(now)
    }
    /// A host-memory hint: a command for logical page `lpa` is likely to arrive soon, so start
    /// loading what its lookup will read. Changes nothing in the model (the default does
    /// nothing).
    #[inline]
    fn prefetch(&self, _lpa: Lpa) {}
    /// When it wants idle work `work` to step, if it does such work (the default: none).
    fn idle_timer(&self, _work: IdleWork) -> Option<IdleTimer> {
        None
    }
    /// One step of idle work `work` at `now` (the host is idle); whether it wants another.
    fn idle(&mut self, _lent: &mut Lent, _now: SimTime, _work: IdleWork) -> bool {
        false
    }
    /// Bytes the namespace exports.
    fn capacity_bytes(&self) -> u64;
    /// The host-visible I/O counters.
    fn io_counters(&self) -> IoCounters;
    /// Zero the counters (after preconditioning); state stays.
    fn reset_counters(&mut self);
    /// The namespace's invariants (map vs reverse map, valid counts, pools, zone state).
    fn check_invariants(&self) -> Result<(), String>;
}

/// Serde helper: leave a zero counter out of the report (counters of optional mechanisms).
pub(crate) fn is_zero(v: &u64) -> bool {
    *v == 0
}
