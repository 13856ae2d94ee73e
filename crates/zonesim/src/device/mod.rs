//! A whole simulated device: the NAND array, the host link and the L2P cache shared by its
//! namespaces, and the namespaces with their FTLs. [`Device::submit`] takes one device
//! [`Command`] at its arrival time and returns its [`Completion`]; all device state changes at
//! arrival (the analytic timelines place each flash operation in the future).

mod firmware;
mod plan;
mod power;
mod report;

pub use firmware::{FirmwareState, Submitted};
pub use power::PowerCycle;

pub use plan::{
    effective_spare_warning, gc_reserve_superblocks, plan, validate, zone_geometry, NsPlan, Rows,
};

use crate::config::{CellType, DeviceConfig};
use crate::engine::SimTime;
use crate::error::{Error, Result};
use crate::firmware::conventional::PageFtl;
use crate::firmware::mapping::{L2pSram, Lpa};
use crate::firmware::power::{PowerLoss, Recovery};
use crate::firmware::steady::Synthesized;
use crate::firmware::zoned::ZonedFtl;
use crate::firmware::{Ftl, IdleTimer, IdleWork, Lent, NsCounters, NsReport, NsSample, ZonedView};
use crate::interface::zone::ZoneId;
use crate::interface::{Command, Completion, Link, Op};
use crate::nand::{Geometry, NandArray, SLOT_BYTES};

// ----- the namespaces: one enum over the FTL kinds, dispatched in one place -------------------
//
// Every kind implements the namespace contract [`Ftl`]; the enum keeps the hot path statically
// dispatched (no `dyn`), and `dispatch!` is the one place that names the kinds (as tokio's
// `match_flavor!` does for its runtime flavors). Adding a kind is one variant here and one
// `Ftl` impl in `firmware/`.

/// One namespace (logical unit) of the device. Few per device and never moved on the hot path,
/// so the variants are not boxed.
#[allow(clippy::large_enum_variant)]
#[derive(Clone)]
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
        let mut c = dispatch!(self, f => f.submit(lent, now, cmd));
        c.media_error = lent.nand.take_media_error();
        c
    }

    #[inline]
    pub fn resume(&mut self, lent: &mut Lent, now: SimTime, token: u32) -> Completion {
        let mut c = dispatch!(self, f => f.resume(lent, now, token));
        c.media_error = lent.nand.take_media_error();
        c
    }

    pub fn idle_timer(&self, work: IdleWork) -> Option<IdleTimer> {
        dispatch!(self, f => f.idle_timer(work))
    }

    pub fn idle(&mut self, lent: &mut Lent, now: SimTime, work: IdleWork) -> bool {
        dispatch!(self, f => f.idle(lent, now, work))
    }

    pub fn age(&mut self, now: SimTime, ns: u64) {
        dispatch!(self, f => f.age(now, ns))
    }

    #[inline]
    pub fn prefetch(&self, lpa: Lpa) {
        dispatch!(self, f => f.prefetch(lpa))
    }

    #[inline]
    pub fn capacity_bytes(&self) -> u64 {
        dispatch!(self, f => f.capacity_bytes())
    }

    pub fn zones(&self) -> Option<ZonedView<'_>> {
        dispatch!(self, f => f.zones())
    }

    pub fn counters(&self) -> NsCounters {
        dispatch!(self, f => f.counters())
    }

    pub fn report(&self, id: usize) -> NsReport<'_> {
        dispatch!(self, f => f.report(id))
    }

    pub fn sample(&self) -> NsSample {
        dispatch!(self, f => f.sample())
    }

    pub fn reset_counters(&mut self) {
        dispatch!(self, f => f.reset_counters())
    }

    pub fn steady_fast(
        &mut self,
        lent: &mut Lent,
        cfg: &DeviceConfig,
        seed: u64,
        start: SimTime,
    ) -> Result<Synthesized> {
        dispatch!(self, f => f.steady_fast(lent, cfg, seed, start))
    }

    pub fn check_invariants(&self) -> std::result::Result<(), String> {
        dispatch!(self, f => f.check_invariants())
    }

    pub fn track_power(&mut self, lag: u64) -> bool {
        dispatch!(self, f => f.track_power(lag))
    }

    pub fn power_cut(&mut self, lent: &mut Lent, cut: SimTime, plp: bool) -> PowerLoss {
        dispatch!(self, f => f.power_cut(lent, cut, plp))
    }

    pub fn recover(&mut self, nand: &mut NandArray, on: SimTime, plp: bool) -> Recovery {
        dispatch!(self, f => f.recover(nand, on, plp))
    }

    /// The FTL of a conventional namespace (for tests and tools that look inside one; the
    /// model asks every kind through the contract).
    pub fn as_conventional(&self) -> Option<&PageFtl> {
        match self {
            Self::Conventional(f) => Some(f),
            _ => None,
        }
    }

    /// The FTL of a zoned namespace (for tests and tools, as [`Namespace::as_conventional`]).
    pub fn as_zoned(&self) -> Option<&ZonedFtl> {
        match self {
            Self::Zoned(z) => Some(z),
            _ => None,
        }
    }
}

impl From<PageFtl> for Namespace {
    fn from(f: PageFtl) -> Namespace {
        Self::Conventional(f)
    }
}

impl From<ZonedFtl> for Namespace {
    fn from(z: ZonedFtl) -> Namespace {
        Self::Zoned(z)
    }
}

#[derive(Clone)]
pub struct Device {
    pub cfg: DeviceConfig,
    pub nand: NandArray,
    pub link: Link,
    /// The L2P SRAM shared by all namespaces: map pages of conventional namespaces (DFTL) and
    /// zone / chunk / page entries of zoned ones, one budget, one LRU order.
    pub sram: L2pSram,
    pub namespaces: Vec<Namespace>,
    /// Requests addressing beyond their namespace's capacity (rejected).
    pub out_of_range: u64,
    /// Where each namespace lives on the array.
    regions: Vec<NsRegions>,
    overhead_ns: u64,
    /// When the last run on this device ended (the next run starts no earlier).
    pub clock: SimTime,
    /// Multi-core firmware and data cache (device/firmware.rs); inert when both are off.
    pub fw: FirmwareState,
}

/// The blocks of one namespace, as views of the array: the regions of `device.wear.regions`
/// (`ns{i}`, `ns{i}_slc`).
#[derive(Clone)]
struct NsRegions {
    /// Its blocks (a zoned namespace's: the zones' regular rows); on the dies of its NVM set.
    blocks: Geometry,
    /// Its SLC rows, where it has any (a zoned namespace's SLC buffer, a conventional one's
    /// SLC write cache).
    slc: Option<Geometry>,
}

impl Device {
    /// Build the device. The config must obey its own rules ([`DeviceConfig::load`] checks
    /// them); the rules of the namespace plan are checked here ([`validate`]).
    pub fn new(cfg: &DeviceConfig, seed: u64) -> Result<Device> {
        let mut nand = NandArray::with_seed(cfg, seed);
        // GC preemption (ftl.gc.preemptible) and migration preemption
        // (sched.preempt_migration) both let host operations suspend background work.
        let mut preemption = crate::firmware::conventional::gc_preemption(cfg);
        if cfg.sched.preempt_migration {
            preemption.reads = true;
            preemption.writes = true;
        }
        nand.set_preemption(preemption);
        let plans = plan(cfg)?;
        let geo = nand.geo.clone();
        let mut namespaces = Vec::new();
        let mut regions = Vec::new();
        let mut map_base = 0u32;
        for (i, p) in plans.iter().enumerate() {
            match *p {
                NsPlan::Conventional {
                    rows,
                    slc,
                    slc_rows,
                    logical_pages,
                    ref channels,
                } => {
                    let cache = (slc_rows.count > 0)
                        .then(|| geo.region(slc_rows.first, slc_rows.count, CellType::Slc));
                    let cell = if slc { CellType::Slc } else { geo.cell };
                    let mut view = geo.region(rows.first, rows.count, cell);
                    if !channels.is_empty() {
                        view = view.on_channels(channels);
                    }
                    regions.push(NsRegions {
                        blocks: view.clone(),
                        slc: cache.clone(),
                    });
                    let f = PageFtl::new(
                        cfg,
                        view,
                        logical_pages,
                        map_base,
                        seed.wrapping_add(i as u64),
                        cache,
                        slc,
                    );
                    map_base += PageFtl::map_pages_for(cfg, logical_pages);
                    namespaces.push(Namespace::from(f));
                }
                NsPlan::Zoned {
                    zone,
                    rows,
                    slc_rows,
                    units_per_zone,
                    sub_block,
                } => {
                    let reg_geo = geo.region(rows.first, rows.count, geo.cell);
                    let slc_geo = geo.region(slc_rows.first, slc_rows.count, CellType::Slc);
                    regions.push(NsRegions {
                        blocks: reg_geo.clone(),
                        slc: (slc_rows.count > 0).then(|| slc_geo.clone()),
                    });
                    namespaces.push(Namespace::from(ZonedFtl::new(
                        cfg,
                        i as u8,
                        &geo,
                        zone,
                        reg_geo,
                        slc_geo,
                        units_per_zone,
                        sub_block,
                        seed.wrapping_add(i as u64),
                    )));
                }
            }
        }
        let mut dev = Device {
            link: Link::new(cfg.host.link_mb_s),
            sram: L2pSram::new(
                cfg.ftl.l2p_cache_bytes,
                PageFtl::map_unit_bytes(cfg),
                cfg.ftl.map_entry_bytes as u64,
                map_base.max(1),
                // Zone, chunk and page entries of the zoned namespaces: at most one per slot of
                // the array plus the coarse ones.
                if namespaces.iter().any(|n| n.zones().is_some()) {
                    geo.total_slots() + geo.total_slots() / 512 + 1024
                } else {
                    0
                },
            ),
            namespaces,
            regions,
            overhead_ns: SimTime::from_us(cfg.host.overhead_us).ns(),
            clock: SimTime::ZERO,
            cfg: cfg.clone(),
            out_of_range: 0,
            nand,
            fw: FirmwareState::default(),
        };
        dev.fw = FirmwareState::new(&dev, seed);
        Ok(dev)
    }

    /// Capacity of namespace `ns` in bytes.
    pub fn capacity_bytes(&self, ns: usize) -> u64 {
        self.namespaces[ns].capacity_bytes()
    }

    /// The zones of namespace `ns`, if it is zoned.
    pub fn zones(&self, ns: usize) -> Option<ZonedView<'_>> {
        self.namespaces.get(ns).and_then(Namespace::zones)
    }

    pub fn check_namespace(&self, ns: usize) -> Result<()> {
        if ns >= self.namespaces.len() {
            return Err(Error::Usage(format!(
                "namespace {ns} (`--namespace`, a sweep file's or Python's `namespace`): the device has {} namespace(s), 0..={}",
                self.namespaces.len(),
                self.namespaces.len().saturating_sub(1)
            )));
        }
        Ok(())
    }

    /// The shared resources, lent to the namespaces, and the namespaces.
    #[inline]
    fn lend(&mut self, defer: bool) -> (Lent<'_>, &mut [Namespace]) {
        let lent = Lent {
            nand: &mut self.nand,
            link: &mut self.link,
            sram: &mut self.sram,
            defer,
        };
        (lent, &mut self.namespaces)
    }

    /// Execute one command on namespace `ns` arriving at `now`; returns its completion.
    /// A command reaching past the namespace's capacity is rejected at once and counted.
    pub fn submit(&mut self, now: SimTime, ns: usize, cmd: Command) -> Completion {
        self.submit_with(now, ns, cmd, false)
    }

    /// [`Device::submit`] for a caller that resumes parked commands: a read that misses the
    /// L2P cache may come back with `resume` set, to be continued with [`Device::resume`] at
    /// its `done` (when its map page is in SRAM).
    #[inline]
    pub fn submit_deferring(&mut self, now: SimTime, ns: usize, cmd: Command) -> Completion {
        self.submit_with(now, ns, cmd, true)
    }

    /// Continue command `token` of namespace `ns`, parked by [`Device::submit_deferring`], at
    /// the `done` its completion named; answers with its next completion.
    pub fn resume(&mut self, now: SimTime, ns: usize, token: u32) -> Completion {
        self.nand.advance(now);
        self.link.advance(now);
        let (mut lent, namespaces) = self.lend(true);
        namespaces[ns].resume(&mut lent, now, token)
    }

    #[inline]
    fn submit_with(&mut self, now: SimTime, ns: usize, cmd: Command, defer: bool) -> Completion {
        self.nand.advance(now);
        self.link.advance(now);
        let now = now + self.overhead_ns;
        let n = cmd.pages as u64;
        let lbas = self.capacity_bytes(ns) / SLOT_BYTES;
        let dst_out = matches!(cmd.op, Op::Copy { dst } if n > 0 && dst.0 + n > lbas);
        if n > 0 && cmd.lba.0 + n > lbas || dst_out {
            // Like a device answering "LBA out of range": rejected at once, counted.
            self.out_of_range += 1;
            return Completion::refused(now);
        }
        let (mut lent, namespaces) = self.lend(defer);
        namespaces[ns].submit(&mut lent, now, cmd)
    }

    /// Zone append of `len` bytes to zone `zone` of namespace `ns`: the completion carries the
    /// LBA the device wrote, or None if it rejected the command (counted as a zone error) or
    /// the namespace is not zoned.
    pub fn zone_append(&mut self, now: SimTime, ns: usize, zone: ZoneId, len: u64) -> Completion {
        let Some(z) = self.zones(ns) else {
            return Completion::at(now);
        };
        let start = z.zones.zone_start(zone).0 * SLOT_BYTES;
        self.submit(now, ns, Command::widen(Op::Append, start, len))
    }

    /// A host-memory hint: namespace `ns` will likely see a command at byte `offset` soon
    /// ([`Ftl::prefetch`]; the model is unchanged).
    #[inline]
    pub fn prefetch(&self, ns: usize, offset: u64) {
        if let Some(n) = self.namespaces.get(ns) {
            n.prefetch(Lpa((offset / SLOT_BYTES).min(u32::MAX as u64) as u32));
        }
    }

    /// When idle work `work` steps on this device: the earliest first step any namespace
    /// asks for (they share the config, so their timers agree); None if none does such work.
    pub fn idle_timer(&self, work: IdleWork) -> Option<IdleTimer> {
        let asked = self.namespaces.iter().filter_map(|n| n.idle_timer(work));
        asked
            .min_by_key(|t| t.after_ns)
            .or_else(|| self.background_gc_timer(work))
    }

    /// `ftl.gc.background` arms the background-GC timer also on a device none of whose
    /// namespaces collects superblocks (all zoned): its steps find nothing to do, but they are
    /// events of the run (`sim.events`) and the run ends at the last one, as it always has.
    fn background_gc_timer(&self, work: IdleWork) -> Option<IdleTimer> {
        let g = &self.cfg.ftl.gc;
        (work == IdleWork::Gc && g.background).then(|| {
            let ns = SimTime::from_us(g.idle_us).ns();
            IdleTimer {
                after_ns: ns,
                again_ns: ns,
            }
        })
    }

    /// One step of idle work `work` at `now` on every namespace (the host is idle), the
    /// shared resources lent to each in turn. If any wants another step, when it is due: its
    /// timer's `again_ns` after this one, once every die is free.
    pub fn idle(&mut self, now: SimTime, work: IdleWork) -> Option<SimTime> {
        let (mut lent, namespaces) = self.lend(false);
        let mut more = false;
        for ns in namespaces.iter_mut() {
            more |= ns.idle(&mut lent, now, work);
        }
        let again = self.idle_timer(work).map_or(0, |t| t.again_ns);
        more.then(|| (now + again).max(self.nand.all_idle_at()))
    }

    pub fn check_invariants(&self) -> std::result::Result<(), String> {
        for (i, ns) in self.namespaces.iter().enumerate() {
            ns.check_invariants()
                .map_err(|e| format!("namespace {i}: {e}"))?;
        }
        if !self.nand.check_dies() {
            return Err("die reservations overlap".into());
        }
        self.check_firmware()?;
        self.sram.check()
    }
}

impl Device {
    /// Power cycle of the controller's SRAM as the zoned namespaces see it: every zone / chunk /
    /// page entry is dropped (pinned ones too). Map pages of conventional namespaces stay (a
    /// real power cycle writes dirty ones back first). Flash state stays.
    pub fn drop_l2p_cache(&mut self) {
        self.sram.entries.clear();
    }

    /// `--precondition steady-fast` on namespace `ns` ([`Ftl::steady_fast`]): the GC steady
    /// state of uniform random overwrites, synthesised from `seed`; its history starts at the
    /// device's clock.
    pub fn steady_fast(&mut self, ns: usize, seed: u64) -> Result<Synthesized> {
        let mut lent = Lent {
            nand: &mut self.nand,
            link: &mut self.link,
            sram: &mut self.sram,
            defer: false,
        };
        self.namespaces[ns].steady_fast(&mut lent, &self.cfg, seed, self.clock)
    }

    /// Zero every counter (after preconditioning). Device state — data, map, wear — stays.
    pub fn reset_counters(&mut self) {
        self.out_of_range = 0;
        self.link.reset_bytes();
        self.nand.counters = Default::default();
        self.nand.reset_error_counters();
        self.sram.pages.counters = Default::default();
        self.sram.entries.counters = Default::default();
        for ns in &mut self.namespaces {
            ns.reset_counters();
        }
        self.reset_firmware_counters();
    }

    /// The device sat unpowered for `ns` at `now` (an `age` step): retention time passes on
    /// every namespace without events (firmware/wear) and for the flash's error model.
    pub fn age(&mut self, now: SimTime, ns: u64) {
        self.nand.age(ns);
        for n in &mut self.namespaces {
            n.age(now, ns);
        }
    }
}
