//! The page-mapped FTL of a conventional namespace (the CUFS / SSD baseline; docs/config.md).
//!
//! Data path: host writes enter the global write buffer ([`GlobalBuffer`]); each
//! full die program unit is flushed through the host write stream to the next die in
//! write-pointer order; the map entry of a page points at the buffer until the flush assigns
//! its flash slot. Reads look the page up: never written (no flash access), buffered (served
//! from SRAM) or on flash (map page from the L2P cache, or one extra flash read of the map page
//! on a miss, then the data read). Garbage collection runs in the foreground before a host
//! flush would leave fewer than `threshold_free_superblocks` free superblocks, and optionally
//! in the background when the host is idle; it reads valid slots, rewrites them through the GC
//! stream and erases the victim, all on the same die timelines as host I/O.
//!
//! Map pages (translation pages) live in a reserved SLC-mode area striped over the dies
//! (map page `k` on die `k mod dies`), outside the user superblocks: a miss reads one map page
//! there (SLC read); evicting a dirty map page programs one SLC page there. Both count in the
//! flash counters and in WAF.
//!
//! Placement (docs/placement.md; SUP-GC): the FTL writes through one stream per class of its
//! [`Placement`] policy (`ftl.gc.placement`): host pages are classified when they enter the
//! write buffer (their stream rides along with the buffer entry), GC survivors when they are
//! moved, by the stream of the superblock they leave. Each stream's partial die unit waits in
//! controller RAM until it fills (a host flush pads every stream). The controller CPU
//! ([`Cpu`]) charges each policy's processing cost (firmware/cost.rs).

use crate::config::MappingKind;
use crate::config::{CellType, DeviceConfig, VictimPolicy};
use crate::engine::{rng_for, Rng, SimTime};
use crate::firmware::alloc::placement::Placement;
use crate::firmware::alloc::{Stream, Superblocks, NO_SB};
use crate::firmware::buffer::GlobalBuffer;
use crate::firmware::cost::{Costs, Cpu};
use crate::firmware::gc::{GcStats, VictimParams};
use crate::firmware::mapping::{Entry, Lpa, MapPageSet, PageMap, Ppa, TwoLevelMap};
use crate::firmware::power::{PowerLoss, PowerTrack, Recovery};
use crate::firmware::steady::Synthesized;
use crate::firmware::wear::Wear;
use crate::firmware::{Ftl, IdleTimer, IdleWork, Lent, NsCounters, NsReport, NsSample};
use crate::interface::{Command, Completion, Op};
use crate::nand::{Geometry, NandArray, OpClass, Preemption, SLOT_BYTES};
use gc::GcJob;
use pending::{PendingReads, Resumed};
use serde::Serialize;

mod gc;
mod issue;
mod map;
mod pending;
mod power;
mod report;
mod slc;
mod steady;
mod wear;
mod writeback;

pub use report::{ConventionalNsReport, ConventionalSlcReport};
pub use slc::SlcCache;
pub use writeback::{Writeback, WritebackCounters};

/// FTL-level counters (flash-level ones are in [`crate::nand::FlashCounters`]).
#[derive(Debug, Clone, Default, Serialize)]
pub struct FtlCounters {
    /// 4 KiB pages written by the host.
    pub host_write_pages: u64,
    pub host_read_pages: u64,
    pub host_trim_pages: u64,
    /// Reads of never-written (or trimmed) pages, answered without flash access.
    pub unwritten_reads: u64,
    pub gc_pages_moved: u64,
    pub gc_victims: u64,
    pub gc_foreground_victims: u64,
    pub gc_background_victims: u64,
    /// Flash reads of map pages (L2P misses) and programs of map pages (write-backs).
    pub map_reads: u64,
    pub map_programs: u64,
    /// Slots programmed as padding of partial units.
    pub padding_slots: u64,
    /// Device-side copy commands (`Op::Copy`) and the pages they copied (absent when none).
    #[serde(skip_serializing_if = "crate::firmware::is_zero")]
    pub copy_commands: u64,
    #[serde(skip_serializing_if = "crate::firmware::is_zero")]
    pub copy_pages: u64,
}

/// The die-level preemption the config asks for: with `ftl.gc.preemptible` host reads
/// suspend queued GC work (program/erase suspend, `ftl.gc.suspend_us` lost per suspension).
pub fn gc_preemption(cfg: &DeviceConfig) -> Preemption {
    Preemption {
        reads: cfg.ftl.gc.preemptible,
        writes: false,
        suspend_ns: SimTime::from_us(cfg.ftl.gc.suspend_us).ns(),
    }
}

#[derive(Clone)]
pub struct PageFtl {
    geo: Geometry,
    cell: CellType,
    slots_per_sb: u32,
    unit: u32,
    map: PageMap,
    /// First map page id of this namespace in the shared L2P cache.
    map_base: u32,
    entries_per_map_page: u32,
    /// Bytes a map-unit miss reads (a map page; a 4 KiB L2 table or L1 segment with
    /// `ftl.mapping = two_level`).
    map_read_bytes: u64,
    /// The CUFS two-level map (`ftl.mapping = two_level`): L1 segments before the L2 tables.
    two_level: Option<TwoLevelMap>,
    sbs: Superblocks,
    streams: Vec<Stream>,
    placement: Placement,
    buffer: GlobalBuffer,
    cpu: Cpu,
    costs: Costs,
    victim: VictimPolicy,
    victim_params: VictimParams,
    threshold: u32,
    /// Spread foreground GC over host writes (`ftl.gc.incremental`).
    incremental: bool,
    /// Full units wait in the buffer until their die has less than this much work booked
    /// (ns; `buffer.issue_ahead_us`, `issue.rs`); 0: issued when full.
    issue_ahead: u64,
    bg_threshold: u32,
    /// Host idle time before background GC runs (`ftl.gc.background`, `ftl.gc.idle_us`), ns.
    bg_idle_ns: Option<u64>,
    /// It lives in SLC blocks (`namespaces[i].slc_only`).
    slc_only: bool,
    rng: Rng,
    /// Victim being collected incrementally.
    gc: Option<GcJob>,
    /// Map pages touched by the GC of the current victim (batched updates), as offsets from
    /// `map_base`.
    gc_map_pages: MapPageSet,
    pub counters: FtlCounters,
    pub gc_stats: GcStats,
    /// Data reads waiting for their map pages (when the caller resumes parked commands).
    pending: PendingReads,
    /// The SLC write cache (`slc.conventional_buffer`, `slc.rs`).
    slc: Option<Box<SlcCache>>,
    /// Bad blocks, reclaim and wear levelling (firmware/wear; `wear.rs`); None when off.
    wear: Option<Box<Wear>>,
    /// What a power cut would lose (`power.rs`; only in runs that may be cut).
    power: Option<Box<PowerTrack>>,
    /// When the latest host flush completes: a later flush completes no earlier, since the
    /// data an earlier one padded out may still be programming when the buffer is empty.
    flushed: SimTime,
}

impl PageFtl {
    /// An FTL over the superblocks of `geo` (the whole array, or a region view such as the SLC
    /// blocks, `slc_only`) exporting `logical` pages; its map pages are `map_base..` in the
    /// shared cache; `slc`: the SLC region view of its SLC write cache, if it has one.
    pub fn new(
        cfg: &DeviceConfig,
        geo: Geometry,
        logical: u64,
        map_base: u32,
        seed: u64,
        slc: Option<Geometry>,
        slc_only: bool,
    ) -> PageFtl {
        let slots_per_sb = geo.slots_per_superblock();
        let unit = geo.die_unit_slots();
        let buf_slots = (cfg.buffer.bytes / SLOT_BYTES) as u32;
        let streams = crate::config::stream_count(&cfg.ftl.gc) as u32;
        let wear = Wear::new(cfg, &geo, seed, logical, streams);
        // With wear on, the capacity is what the good blocks give (firmware/wear).
        let logical = wear.as_ref().map_or(logical, |w| w.logical());
        let placement = Placement::with_buffer(&cfg.ftl.gc, logical, buf_slots as u64, seed);
        let entries_per_map_page = if cfg.ftl.mapping == MappingKind::TwoLevel {
            TwoLevelMap::entries_per_table(cfg)
        } else {
            cfg.nand.page_bytes / cfg.ftl.map_entry_bytes
        };
        let mut ftl = PageFtl {
            cell: geo.cell,
            slots_per_sb,
            unit,
            map: PageMap::new(logical, geo.total_slots()),
            map_base,
            entries_per_map_page,
            map_read_bytes: Self::map_unit_bytes(cfg),
            two_level: (cfg.ftl.mapping == MappingKind::TwoLevel)
                .then(|| TwoLevelMap::new(cfg, logical, map_base)),
            sbs: Superblocks::new(geo.superblocks),
            streams: vec![Stream::default(); placement.streams()],
            buffer: GlobalBuffer::new(buf_slots, cfg.buffer.issue_ahead_us > 0.0),
            cpu: Cpu::new(cfg.ftl.cost.cores),
            costs: Costs::new(&cfg.ftl.cost, cfg.ftl.gc.placement),
            placement,
            victim: cfg.ftl.gc.victim,
            victim_params: VictimParams {
                d: cfg.ftl.gc.d,
                window: cfg.ftl.gc.window,
                slots_per_sb,
                allow_full: false,
            },
            threshold: cfg.ftl.gc.threshold_free_superblocks,
            incremental: cfg.ftl.gc.incremental,
            issue_ahead: SimTime::from_us(cfg.buffer.issue_ahead_us).ns(),
            bg_threshold: if cfg.ftl.gc.background {
                cfg.ftl.gc.background_threshold_free_superblocks
            } else {
                0
            },
            bg_idle_ns: cfg
                .ftl
                .gc
                .background
                .then(|| SimTime::from_us(cfg.ftl.gc.idle_us).ns()),
            slc_only,
            rng: rng_for(seed, 0x6763),
            gc: None,
            gc_map_pages: MapPageSet::new(logical.div_ceil(entries_per_map_page as u64) as u32),
            counters: FtlCounters::default(),
            gc_stats: GcStats::default(),
            pending: PendingReads::default(),
            slc: slc.map(|g| Box::new(SlcCache::new(g, logical, &cfg.slc))),
            power: None,
            flushed: SimTime::ZERO,
            geo,
            wear: None,
        };
        ftl.wear_format(wear);
        ftl
    }

    pub fn placement(&self) -> &Placement {
        &self.placement
    }

    pub fn cpu(&self) -> &Cpu {
        &self.cpu
    }

    /// Number of write streams.
    pub fn streams(&self) -> usize {
        self.placement.streams()
    }

    /// The superblock view this FTL manages (its region of the array).
    pub fn geometry(&self) -> &Geometry {
        &self.geo
    }

    /// What the map says about `lpa` (never written / buffered / on flash).
    pub fn lookup(&self, lpa: Lpa) -> Entry {
        self.map.get(lpa)
    }

    /// Superblock holding `lpa` on flash and the stream that wrote it (for tests and tools).
    pub fn superblock_of(&self, lpa: Lpa) -> Option<(u32, u8)> {
        match self.map.get(lpa) {
            Entry::Flash(p) => {
                let sb = p.0 / self.slots_per_sb;
                Some((sb, self.sbs.info[sb as usize].stream))
            }
            _ => None,
        }
    }

    pub fn logical_pages(&self) -> u64 {
        self.map.logical_pages()
    }

    pub fn buffer(&self) -> &GlobalBuffer {
        &self.buffer
    }

    pub fn free_superblocks(&self) -> u32 {
        self.sbs.free_count()
    }

    #[inline]
    fn split(&self, ppa: Ppa) -> (u32, u32) {
        (ppa.0 / self.slots_per_sb, ppa.0 % self.slots_per_sb)
    }

    #[inline]
    fn is_pending(&self, sb: u32, off: u32) -> bool {
        self.streams.iter().any(|s| s.is_pending(sb, off))
    }

    /// Drop the flash copy of a page being overwritten or trimmed.
    #[inline]
    pub(super) fn invalidate(&mut self, ppa: Ppa) {
        let (sb, _) = self.split(ppa);
        self.invalidate_in(sb, ppa);
    }

    /// [`PageFtl::invalidate`] of a slot the caller knows to lie in superblock `sb`.
    #[inline]
    pub(super) fn invalidate_in(&mut self, sb: u32, ppa: Ppa) {
        self.map.invalidate(ppa);
        self.sbs.info[sb as usize].valid -= 1;
    }

    // ----- host commands -------------------------------------------------------------------

    /// Read `n` pages from `lpa`. Completes when the data has reached the host; with
    /// `lent.defer`, the data reads of pages whose map page missed wait for it parked
    /// (`pending.rs`) and the completion asks to be resumed when the first map page arrives.
    fn read(&mut self, lent: &mut Lent, now: SimTime, lpa: Lpa, n: u32) -> Completion {
        self.counters.host_read_pages += n as u64;
        if self.issues_lazily() {
            self.issue_due(lent, now);
        }
        let ready = self.read_flash(lent, now, lpa, n, lent.defer);
        let bytes = n as u64 * SLOT_BYTES;
        if self.pending.any() {
            let (token, at) = self.pending.park(ready, bytes);
            return Completion::resume_at(at, token);
        }
        Completion::at(lent.link.to_host(ready, bytes))
    }

    /// Read `n` pages from `lpa` into the controller. Returns when the data is read, or (with
    /// `defer`) when the reads that did not wait for a map page are; the others are parked.
    fn read_flash(
        &mut self,
        lent: &mut Lent,
        now: SimTime,
        lpa: Lpa,
        n: u32,
        defer: bool,
    ) -> SimTime {
        let now = self.cpu.run(now, self.costs.host_cmd_ns);
        let mut ready = now;
        let mut i = 0;
        self.pending.begin();
        while i < n {
            let l = Lpa(lpa.0 + i);
            i += 1;
            let ppa = match self.map.get(l) {
                Entry::Unmapped => {
                    if let Some(p) = self.slc_lookup(l) {
                        // Held in the SLC cache: never parked (booked after its map read).
                        let map_ready = self.map_access(lent, now, l, false);
                        ready = ready.max(self.read_slc(lent, map_ready, p));
                    } else {
                        self.counters.unwritten_reads += 1;
                    }
                    continue;
                }
                Entry::Buffered(_) => {
                    self.buffer.counters.read_hits += 1;
                    continue;
                }
                Entry::Flash(p) => p,
            };
            let (sb, off) = self.split(ppa);
            // `gcar`: GC-moved data kept in the buffer serves the read (SUP-GC §5.1).
            if self.is_pending(sb, off) || self.placement.read_hit(l) {
                self.buffer.counters.read_hits += 1;
                continue;
            }
            let map_ready = self.map_access(lent, now, l, false);
            // Following pages of this request stored next in the same flash page share the
            // array read.
            let mut slots = 1;
            while i < n
                && (off + slots) % self.geo.slots_per_page != 0
                && self.map.get(Lpa(lpa.0 + i)) == Entry::Flash(Ppa(ppa.0 + slots))
            {
                slots += 1;
                i += 1;
            }
            let page = self.geo.page_of(sb, off);
            if self.wear.is_some() {
                self.wear_read(sb, off);
            }
            if defer && map_ready > now {
                self.pending.defer(map_ready, page, slots);
                continue;
            }
            let t = lent.nand.read_page_at(
                map_ready,
                page,
                slots as u64 * SLOT_BYTES,
                self.cell,
                OpClass::HostRead,
            );
            ready = ready.max(t);
        }
        ready
    }

    /// Continue parked read `token` at `now`: book the data reads whose map pages are in
    /// SRAM; complete when none is left.
    fn resume_read(&mut self, lent: &mut Lent, now: SimTime, token: u32) -> Completion {
        let cell = self.cell;
        let nand = &mut *lent.nand;
        let r = self.pending.resume(token, now, |page, slots| {
            let bytes = slots as u64 * SLOT_BYTES;
            nand.read_page_at(now, page, bytes, cell, OpClass::HostRead)
        });
        match r {
            Resumed::Later(at) => Completion::resume_at(at, token),
            Resumed::Done { ready, bytes } => Completion::at(lent.link.to_host(ready, bytes)),
        }
    }

    /// Device-side copy of `n` pages from `src` to `dst`: read inside the device (never
    /// parked), written as a write whose data never crosses the host link.
    fn copy(&mut self, lent: &mut Lent, now: SimTime, src: Lpa, dst: Lpa, n: u32) -> SimTime {
        self.counters.copy_commands += 1;
        self.counters.copy_pages += n as u64;
        let ready = self.read_flash(lent, now, src, n, false);
        self.write_hinted(lent, now, dst, n, 0, Some(ready))
    }

    /// Write `n` pages from `lpa` into the write buffer with the host's lifetime hint (0 none,
    /// 1 short .. 4 extreme, used by the `hint` placement). Returns when the last page is in
    /// the buffer (write-back caching: the host sees completion before the program). The
    /// controller CPU first classifies the pages (policy cost). The data crosses the host link,
    /// or (`internal`: a copy) is in the controller at that time.
    fn write_hinted(
        &mut self,
        lent: &mut Lent,
        now: SimTime,
        lpa: Lpa,
        n: u32,
        hint: u8,
        internal: Option<SimTime>,
    ) -> SimTime {
        let per_page = self.costs.write_page_cost(&self.placement);
        let now = self
            .cpu
            .run(now, self.costs.host_cmd_ns + n as u64 * per_page);
        // Pages enter the buffer in order: page k is admitted no earlier than page k-1.
        let mut admitted = now;
        let mut done = now;
        self.counters.host_write_pages += n as u64;
        for k in 0..n {
            let l = Lpa(lpa.0 + k);
            let stream = self.placement.host(l, hint);
            match self.map.get(l) {
                Entry::Buffered(_) => {
                    // Overwrite in SRAM: absorbed.
                    self.buffer.counters.write_hits += 1;
                    done = done.max(arrive(lent, admitted, internal));
                    continue;
                }
                Entry::Flash(p) => self.invalidate(p),
                Entry::Unmapped => {
                    self.slc_invalidate(l);
                }
            }
            if self.issues_lazily() {
                self.issue_for_room(lent, now);
            }
            admitted = self.buffer.admit(admitted);
            let arrived = arrive(lent, admitted, internal);
            self.buffer.arrived(arrived);
            done = done.max(arrived);
            let tag = self.buffer.push(l, stream as u8, arrived);
            self.map.set_buffered(l, tag);
            if !self.issues_lazily() && self.buffer.buffered() >= self.unit {
                self.issue_unit(lent, arrived);
            }
        }
        if self.issues_lazily() {
            self.issue_due(lent, now);
        }
        if let Some(p) = &mut self.power {
            p.acked(lpa.0, n, done);
        }
        done
    }

    /// Trim `n` pages from `lpa`.
    fn trim(&mut self, lent: &mut Lent, now: SimTime, lpa: Lpa, n: u32) -> SimTime {
        let now = self.cpu.run(now, self.costs.host_cmd_ns);
        self.counters.host_trim_pages += n as u64;
        let mut t = now;
        for k in 0..n {
            let l = Lpa(lpa.0 + k);
            match self.map.get(l) {
                Entry::Unmapped => {
                    if !self.slc_invalidate(l) {
                        continue;
                    }
                }
                Entry::Buffered(_) => self.buffer.drop_one(),
                Entry::Flash(p) => self.invalidate(p),
            }
            self.map.unmap(l);
            t = t.max(self.map_access(lent, now, l, true));
        }
        t
    }

    /// Host flush: drain the write buffer (a partial unit is padded: a premature flush).
    /// Returns when everything written before it is on flash.
    fn flush(&mut self, lent: &mut Lent, now: SimTime) -> SimTime {
        let done = self.flush_buffered(lent, now).max(self.flushed);
        self.flushed = done;
        done
    }

    /// A host flush's own work: the buffer and every stream's partial unit to flash (or the
    /// SLC cache). Returns when that and the buffer's earlier programs complete.
    fn flush_buffered(&mut self, lent: &mut Lent, now: SimTime) -> SimTime {
        let now = self.cpu.run(now, self.costs.host_cmd_ns);
        self.buffer.counters.host_flushes += 1;
        let mut done = self.issue_all(lent, now);
        if self.slc.is_some() {
            // The SLC cache takes what does not fill a unit (the buffer's rest, the streams'
            // partial units) instead of padding.
            if self.buffer.buffered() > 0 {
                self.buffer.counters.premature_flushes += 1;
            }
            done = done.max(self.flush_partial_slc(lent, now));
            return done.max(self.buffer.drained_at());
        }
        if self.buffer.buffered() > 0 {
            done = done.max(self.flush_unit(lent, now));
            self.buffer.counters.premature_flushes += 1;
        }
        for stream in 0..self.streams.len() {
            let s = self.streams[stream];
            if s.sb != NO_SB && s.next > s.unit_start {
                done = done.max(self.pad(lent, stream, now));
            }
        }
        done.max(self.buffer.drained_at())
    }

    /// Move up to one unit of buffered pages to flash, each through the stream it was
    /// classified into. Returns when the programs issued complete.
    fn flush_unit(&mut self, lent: &mut Lent, now: SimTime) -> SimTime {
        if self.slc_all() {
            return self.flush_unit_slc(lent, now);
        }
        // A unit is programmed only when every page of it has arrived: issued when full, its
        // last page is the buffer's last; issued later (`issue.rs`), each page's own arrival.
        let now = if self.issues_lazily() {
            now
        } else {
            now.max(self.buffer.last_arrival())
        };
        self.ensure_free(lent, now);
        let mut moved = 0;
        let mut done = now;
        while moved < self.unit {
            let Some((l, tag, stream, arrived)) = self.buffer.pop_entry() else {
                break;
            };
            if self.issues_lazily() {
                // A page buffered long ago: start loading the map entry of the page a unit
                // behind this one, checked when its unit is issued.
                if let Some(ahead) = self.buffer.lpa_at(self.unit as usize) {
                    self.map.prefetch(ahead);
                }
            }
            let stream = stream as usize;
            if self.map.get(l) != Entry::Buffered(tag) {
                continue; // trimmed while buffered
            }
            if let Some(t) = self.place(lent, stream, l, now.max(arrived), now) {
                done = done.max(t);
            }
            moved += 1;
            // Incremental GC pays its copies page by page between the host pages, so a stream
            // shared by host and GC data (`single`) mixes them within units and both spread
            // over every die (whole GC units between host units alternated dies before the timing fixes, docs/validation.md).
            // The buffer space of host pages in a unit that a GC copy completes is held until
            // that program completes too.
            if self.incremental {
                done = done.max(self.gc_pay(lent, now));
            }
        }
        self.buffer.flushed(moved, done);
        done
    }

    // ----- allocation ----------------------------------------------------------------------

    /// Place a host page: assign its slot and update its map entry through the L2P cache
    /// (DFTL: the map page is loaded on a miss; the update does not delay the data program).
    fn place(
        &mut self,
        lent: &mut Lent,
        stream: usize,
        lpa: Lpa,
        ready: SimTime,
        now: SimTime,
    ) -> Option<SimTime> {
        self.map_access(lent, now, lpa, true);
        self.place_raw(lent, stream, lpa, ready, now, OpClass::HostWrite)
    }

    /// Assign the next slot of `stream` to `lpa` (data ready at `ready`); program the unit when
    /// it is complete. Returns the program's completion if one was issued.
    pub(super) fn place_raw(
        &mut self,
        lent: &mut Lent,
        stream: usize,
        lpa: Lpa,
        ready: SimTime,
        now: SimTime,
        class: OpClass,
    ) -> Option<SimTime> {
        let ppa =
            self.streams[stream].assign(&mut self.sbs, stream as u8, self.slots_per_sb, ready);
        self.map.map(lpa, ppa);
        if let Some(p) = &mut self.power {
            p.placed(ppa.0, class == OpClass::Background);
        }
        if let Some(tl) = &mut self.two_level {
            tl.on_mapped(lpa, ppa, &self.map);
        }
        if self.streams[stream].next - self.streams[stream].unit_start == self.unit {
            Some(self.program_pending(lent, stream, now, class))
        } else {
            None
        }
    }

    /// Program the stream's pending unit (which must be full up to `unit`).
    fn program_pending(
        &mut self,
        lent: &mut Lent,
        stream: usize,
        now: SimTime,
        class: OpClass,
    ) -> SimTime {
        let s = &mut self.streams[stream];
        let sb = s.sb;
        let die = self.geo.die_of_offset(s.unit_start);
        let pages = self.geo.program_unit_pages * self.geo.planes;
        let done = lent
            .nand
            .program(s.pending_ready, die, self.unit, pages, self.cell, class);
        if let Some(p) = &mut self.power {
            p.programmed((s.sb * self.slots_per_sb + s.unit_start) / self.unit, done);
        }
        // A padded unit programs the whole unit: the frontier moves past the padding.
        s.next = s.unit_start + self.unit;
        s.programmed(&mut self.sbs, self.slots_per_sb, now);
        if self.wear.is_some() {
            self.check_program(stream, sb, now);
        }
        done
    }

    /// Pad and program a stream's partial unit.
    fn pad(&mut self, lent: &mut Lent, stream: usize, now: SimTime) -> SimTime {
        let s = self.streams[stream];
        self.counters.padding_slots += (s.unit_start + self.unit - s.next) as u64;
        self.program_pending(lent, stream, now, OpClass::HostWrite)
    }
}

/// When a page admitted at `admitted` is in the buffer: over the host link, or (`internal`)
/// when the device has read it.
#[inline]
fn arrive(lent: &mut Lent, admitted: SimTime, internal: Option<SimTime>) -> SimTime {
    match internal {
        None => lent.link.to_device(admitted, SLOT_BYTES),
        Some(r) => admitted.max(r),
    }
}

impl Ftl for PageFtl {
    #[inline]
    fn submit(&mut self, lent: &mut Lent, now: SimTime, cmd: Command) -> Completion {
        if let Some(c) = &mut self.slc {
            c.wb.host_request();
        }
        let (lpa, n) = (Lpa(cmd.lba.0 as u32), cmd.pages);
        if self.wear.is_some() {
            if let Some(refused) = self.wear_gate(lent, now, cmd.op, n) {
                return refused;
            }
        }
        Completion::at(match cmd.op {
            Op::Read => return self.read(lent, now, lpa, n),
            Op::Write { hint } | Op::InPlace { hint } => {
                self.write_hinted(lent, now, lpa, n, hint, None)
            }
            Op::Copy { dst } => self.copy(lent, now, lpa, Lpa(dst.0 as u32), n),
            // A conventional namespace takes an append as a write at the given LBA.
            Op::Append => self.write_hinted(lent, now, lpa, n, 0, None),
            Op::Trim => self.trim(lent, now, lpa, n),
            Op::Flush => {
                let done = self.flush(lent, now);
                if let Some(p) = &mut self.power {
                    p.flushed(now, done);
                }
                done
            }
            // Zone management on a conventional namespace is not supported: a no-op.
            Op::Zone(_) => now,
        })
    }

    fn resume(&mut self, lent: &mut Lent, now: SimTime, token: u32) -> Completion {
        self.resume_read(lent, now, token)
    }

    fn track_power(&mut self, lag: u64) -> bool {
        self.start_power_track(lag)
    }

    fn power_cut(&mut self, lent: &mut Lent, cut: SimTime, plp: bool) -> PowerLoss {
        self.cut_power(lent, cut, plp)
    }

    fn recover(&mut self, nand: &mut NandArray, on: SimTime, plp: bool) -> Recovery {
        self.recover_power(nand, on, plp)
    }

    #[inline]
    fn prefetch(&self, lpa: Lpa) {
        self.map.prefetch(lpa);
    }

    /// Background GC every `ftl.gc.idle_us` of host idle time; SLC write-back after
    /// `slc.writeback_idle_us`, a step as soon as the dies are free (`writeback.rs`).
    fn idle_timer(&self, work: IdleWork) -> Option<IdleTimer> {
        match work {
            // Background reclaim (firmware/wear) runs on the same timer while any is queued.
            IdleWork::Gc => self
                .bg_idle_ns
                .or_else(|| self.reclaim_idle_ns())
                .map(|ns| IdleTimer {
                    after_ns: ns,
                    again_ns: ns,
                }),
            IdleWork::SlcWriteback => self.writeback_idle_ns().map(|ns| IdleTimer {
                after_ns: ns,
                again_ns: 1,
            }),
            // Dirty units left when the host stops are issued once the dies' queues would
            // have taken them.
            IdleWork::BufferIssue => self.issues_lazily().then_some(IdleTimer {
                after_ns: self.issue_ahead,
                again_ns: self.issue_ahead,
            }),
        }
    }

    fn idle(&mut self, lent: &mut Lent, now: SimTime, work: IdleWork) -> bool {
        match work {
            IdleWork::Gc => self.background_gc(lent, now),
            IdleWork::SlcWriteback => self.idle_writeback(lent, now),
            IdleWork::BufferIssue => {
                self.issue_all(lent, now);
                false
            }
        }
    }

    fn age(&mut self, now: SimTime, ns: u64) {
        self.age_wear(now, ns);
    }

    fn capacity_bytes(&self) -> u64 {
        self.logical_pages() * SLOT_BYTES
    }

    fn counters(&self) -> NsCounters {
        self.ns_counters()
    }

    fn report(&self, id: usize) -> NsReport<'_> {
        self.ns_report(id)
    }

    fn sample(&self) -> NsSample {
        self.ns_sample()
    }

    fn steady_fast(
        &mut self,
        lent: &mut Lent,
        cfg: &DeviceConfig,
        seed: u64,
        start: SimTime,
    ) -> crate::error::Result<Synthesized> {
        self.synthesize_steady(lent, cfg, seed, start)
    }

    fn reset_counters(&mut self) {
        self.counters = FtlCounters::default();
        self.buffer.counters = Default::default();
        self.gc_stats = GcStats::default();
        self.cpu.reset_counters();
        self.placement.reset_counters();
        if let Some(c) = &mut self.slc {
            c.counters = Default::default();
            c.wb.counters = Default::default();
        }
        if let Some(w) = &mut self.wear {
            w.reset_counters();
        }
        if let Some(tl) = &mut self.two_level {
            let c = &mut tl.counters;
            *c = crate::firmware::mapping::TwoLevelCounters {
                compressed_regions: c.compressed_regions,
                ..Default::default()
            };
        }
    }

    /// Map and reverse map agree; valid counts match the reverse map; superblock states match
    /// the free pool.
    fn check_invariants(&self) -> Result<(), String> {
        self.map.check()?;
        self.sbs.check()?;
        if let Some(tl) = &self.two_level {
            tl.check(&self.map)?;
        }
        self.check_slc()?;
        self.check_wear()?;
        self.sbs.check_valid(&self.map, self.slots_per_sb)
    }
}
