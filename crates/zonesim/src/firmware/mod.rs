//! Firmware: everything between the host interface and the NAND array, as rooms named after
//! their mechanism and shared by every kind of namespace (the data flow of ARCHITECTURE.md;
//! MQSim's FTL units):
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
//! - [`steady`]: the GC steady state of uniform random overwrites, synthesised
//!   (`--precondition steady-fast`).
//! - [`wear`]: bad blocks and spares, read reclaim and retention refresh, wear levelling,
//!   for the FTLs that allocate superblocks.
//! - [`zoned`]: the FTL of a zoned namespace (ConZone): zone rules, buffer binding, flushing,
//!   SLC migration.
//! - [`power`]: what a sudden power-off loses (the write buffer, programs in flight, paired
//!   pages) and what an FTL records to decide it.
//! - [`counters`] and [`report`]: what a namespace of any kind counts and reports, in one
//!   vocabulary the device adds up without knowing the kinds.
//!
//! Both FTLs implement one contract, [`Ftl`]: the device hands them a [`Command`] and the
//! shared resources ([`Lent`]) and gets a [`Completion`] back; it asks them for idle-time
//! work ([`IdleWork`]), their zones if they have any ([`ZonedView`]), their counters
//! ([`NsCounters`]), report entry and time-series sample. Firmware speaks device commands,
//! never host types; it keeps typed counters and builds no JSON. Ordering of flash operations
//! per die (FIFO, with program/erase suspend for host operations) is the NAND array's
//! ([`crate::nand`]).

pub mod alloc;
pub mod buffer;
pub mod cache;
pub mod conventional;
pub mod cores;
pub mod cost;
pub mod counters;
pub mod gc;
pub mod mapping;
pub mod power;
pub mod report;
pub mod steady;
pub mod wear;
pub mod zoned;

use crate::config::DeviceConfig;
use crate::engine::SimTime;
use crate::interface::zone::{ZoneCondition, ZoneConfig, ZoneErrorLog, ZoneId, ZoneSet};
use crate::interface::{Command, Completion, Link};
use crate::nand::{NandArray, SLOT_BYTES};
pub use counters::{NsCounters, NsSample};
use mapping::{L2pSram, Lpa};
pub use report::{NamespaceReport, NsReport};

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
    /// Issue the full units a conventional namespace's buffer holds dirty
    /// (`buffer.issue_ahead_us`).
    BufferIssue,
}

impl IdleWork {
    /// Every kind, in the order the run arms their timers.
    pub const ALL: [IdleWork; 3] = [IdleWork::Gc, IdleWork::SlcWriteback, IdleWork::BufferIssue];
}

/// When a kind of idle work steps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IdleTimer {
    /// Host idle time before the first step, ns.
    pub after_ns: u64,
    /// Time from one step to the next, ns (the next also waits until the dies are free).
    pub again_ns: u64,
}

/// What the host side may know of a zoned namespace ([`Ftl::zones`]): its zones, the
/// commands its zone rules rejected, and the alignment and in-place updates it offers.
#[derive(Clone, Copy)]
pub struct ZonedView<'a> {
    /// Zone conditions, write pointers and limits.
    pub zones: &'a ZoneSet,
    /// Commands the zone rules rejected.
    pub errors: &'a ZoneErrorLog,
    /// Bytes of one superpage of the zones' regular flash (one program on every die).
    pub superpage_bytes: u64,
    /// It takes in-place updates (`zone.ipu_budget_bytes > 0`, ZMS).
    pub in_place_updates: bool,
}

impl<'a> ZonedView<'a> {
    pub fn zone_config(&self) -> &'a ZoneConfig {
        self.zones.config()
    }

    /// Written bytes of every zone (for workload generators after preconditioning).
    pub fn write_pointers(&self) -> Vec<u64> {
        (0..self.zones.zone_count())
            .map(|z| {
                let id = ZoneId(z);
                (self.zones.write_pointer(id).0 - self.zones.zone_start(id).0) * SLOT_BYTES
            })
            .collect()
    }

    /// Zones a host workload does not use: READ_ONLY or OFFLINE (fio treats both as offline).
    pub fn unusable_zones(&self) -> Vec<bool> {
        (0..self.zones.zone_count())
            .map(|z| {
                matches!(
                    self.zones.condition(ZoneId(z)),
                    ZoneCondition::ReadOnly | ZoneCondition::Offline
                )
            })
            .collect()
    }
}

/// The namespace contract: what the device asks of the FTL of any namespace kind. The command
/// path (`submit`, `resume`, `prefetch`) is hot and statically dispatched; the rest is asked
/// when the host idles, at a report or a sample.
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
    /// Start recording what a power cut would lose ([`power::PowerTrack`]); whether the kind
    /// models a power cut (the default: it does not, and a cut is refused up front). `lag`:
    /// the time from a command reaching the device to reaching the FTL (the host overhead), so
    /// a cut at the device's time may come before the FTL saw a command arrive.
    fn track_power(&mut self, _lag: u64) -> bool {
        false
    }
    /// Power fails at `cut`: apply what is lost (with `plp` the buffer is flushed on stored
    /// energy first) and say what it was. Only after [`Ftl::track_power`] returned true.
    fn power_cut(&mut self, _lent: &mut Lent, _cut: SimTime, _plp: bool) -> power::PowerLoss {
        power::PowerLoss::default()
    }
    /// Power is back at `on`: rebuild the state as the device would, booking its flash reads
    /// on `nand` (the array as powered on: nothing in flight). Returns when recovery ends, the
    /// flash pages it read and what it programmed again after it.
    fn recover(&mut self, _nand: &mut NandArray, on: SimTime, _plp: bool) -> power::Recovery {
        power::Recovery::reads_only(on, 0)
    }
    /// Bytes the namespace exports.
    /// The device sat idle and unpowered for `ns` at `now`: retention time passes without
    /// events (firmware/wear; nothing for FTLs without it).
    fn age(&mut self, _now: SimTime, _ns: u64) {}

    fn capacity_bytes(&self) -> u64;
    /// Its zones, if it is zoned (the default: it is not).
    fn zones(&self) -> Option<ZonedView<'_>> {
        None
    }
    /// Its counters since the last reset.
    fn counters(&self) -> NsCounters;
    /// Its entry of the report (namespace `id`) and the details the device summarises.
    fn report(&self, id: usize) -> NsReport<'_>;
    /// Its state for the time series.
    fn sample(&self) -> NsSample;
    /// Synthesise the GC steady state of uniform random overwrites on a fresh namespace
    /// (`--precondition steady-fast`, [`steady`]), from `seed`, its history starting at `start`.
    /// The default: the kind has none ([`crate::error::Error::Usage`] saying so).
    fn steady_fast(
        &mut self,
        _lent: &mut Lent,
        _cfg: &DeviceConfig,
        _seed: u64,
        _start: SimTime,
    ) -> crate::error::Result<steady::Synthesized> {
        Err(crate::error::Error::Usage(
            "only a conventional (page-mapped) namespace has a synthesised steady state; use --precondition steady".into(),
        ))
    }
    /// Zero the counters (after preconditioning); state stays.
    fn reset_counters(&mut self);
    /// The namespace's invariants (map vs reverse map, valid counts, pools, zone state).
    fn check_invariants(&self) -> Result<(), String>;
}

/// Serde helper: leave a zero counter out of the report (counters of optional mechanisms).
pub(crate) fn is_zero(v: &u64) -> bool {
    *v == 0
}
