use super::errors::{ErrorCounters, ReadErrors};
use super::geometry::{FlashPage, Geometry, SLOT_BYTES};
use super::variability::{pass_us, Variability};
use crate::config::{CellType, DeviceConfig, ProgramScheme};
use crate::engine::{AdvanceLog, Lazy, SimTime, Slot, Timeline};
use serde::Serialize;

/// Flash operation counters, in flash pages (page_bytes each) and blocks.
#[derive(Debug, Clone, Default, Serialize)]
pub struct FlashCounters {
    pub page_reads: u64,
    pub page_programs: u64,
    pub block_erases: u64,
    /// 4 KiB slots transferred by programs (includes padding of partial units).
    pub programmed_slots: u64,
    /// Die busy time summed over dies (ns), for utilisation.
    pub die_busy_ns: u64,
    /// Background operations suspended by host operations.
    pub suspensions: u64,
    /// Die busy time of background operations (GC copies, erases, GC map updates), ns.
    pub background_busy_ns: u64,
}

/// Who issued a flash operation; decides whether it may overtake queued work on its die.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpClass {
    /// Serving a host read (data or map page).
    HostRead,
    /// Serving host writes (buffer flushes, map write-backs).
    HostWrite,
    /// Background work: GC copies and erases, SLC-to-regular migration.
    Background,
}

/// Which host operations may overtake (suspend) background work already queued on a die.
/// Models program/erase suspend: the host operation runs at once, and the background work on
/// that die finishes later by the host operation's duration plus `suspend_ns`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Preemption {
    pub reads: bool,
    pub writes: bool,
    pub suspend_ns: u64,
}

/// Latencies in ns of one cell type.
#[derive(Debug, Clone, Copy)]
pub(super) struct Lat {
    read: u64,
    program: u64,
    erase: u64,
    /// Array read by page type (`page_types` of them; 0 = `read` for every page).
    read_by_page: [u64; 4],
    page_types: u32,
    /// Program passes of a word line (bits per cell) and their times (`multi_pass`).
    pub(super) passes: u32,
    pub(super) pass: [u64; 4],
}

/// The array's resources (dies, channels) with their reservations, timing and counters.
///
/// Dies, like channels, are [`Timeline`]s: an operation takes the earliest gap of its die (and
/// its channel) at or after its data is ready, so work booked ahead for a later start (a data
/// read after its map read, a GC program after its read) leaves no hole other work cannot use.
#[derive(Clone)]
pub struct NandArray {
    pub geo: Geometry,
    pub(super) lat: [Lat; 4],
    /// Picoseconds to move one byte over a channel.
    ch_ps_per_byte: u64,
    /// Per-die reservations (gap-filling, like the channels): every operation on the die.
    dies: Vec<Timeline>,
    /// Per-die reservations of host operations only (kept when some host class preempts).
    die_host: Vec<Timeline>,
    preemption: Preemption,
    /// Simulation clock as of the last [`NandArray::advance`]: die reservations ending before
    /// it are dropped lazily when the die is next used.
    now: SimTime,
    /// Per-channel reservations, each dropping its past when next used.
    channels: Vec<Lazy>,
    /// The clock advances the channels have still to catch up with.
    channel_clock: AdvanceLog,
    erase_count: Vec<u32>,
    pub counters: FlashCounters,
    /// Reads by page type with `read_us_by_page` (LSB, CSB, MSB, TSB).
    pub page_type_reads: [u64; 4],
    /// `nand.variability` (None: every operation takes its mean time).
    pub(super) var: Option<Box<Variability>>,
    /// `nand.program_scheme = multi_pass`.
    pub(super) multi_pass: bool,
    /// Completion of each pass of the last multi-pass program.
    pub(super) pass_ends: [SimTime; 4],
    /// `nand.errors` (None: every read decodes at once).
    errors: Option<Box<ReadErrors>>,
}

/// Picoseconds per byte at `mib_s` MiB/s.
pub fn ps_per_byte(mib_s: f64) -> u64 {
    (1e12 / (mib_s * 1048576.0)).round().max(1.0) as u64
}

fn cell_idx(c: CellType) -> usize {
    c.bits_per_cell() as usize - 1
}

impl NandArray {
    /// The array of `cfg`; its random mechanisms (variability, bit errors) seeded with 1.
    pub fn new(cfg: &DeviceConfig) -> NandArray {
        NandArray::with_seed(cfg, 1)
    }

    /// The array of `cfg`, the draws of its random mechanisms keyed by the run's `seed`.
    pub fn with_seed(cfg: &DeviceConfig, seed: u64) -> NandArray {
        let geo = Geometry::new(&cfg.nand);
        let lat = [CellType::Slc, CellType::Mlc, CellType::Tlc, CellType::Qlc].map(|c| {
            let t = cfg.nand.timing.of(c);
            let ns = |us: f64| SimTime::from_us(us).ns();
            let by_page = t.read_us_by_page.as_slice();
            let mut read_by_page = [0; 4];
            for (k, &us) in by_page.iter().enumerate() {
                read_by_page[k] = ns(us);
            }
            let prog = t.program_us_by_page.as_slice();
            Lat {
                // Without a page address, a read takes the mean of the page types.
                read: if by_page.is_empty() {
                    ns(t.read_us)
                } else {
                    ns(by_page.iter().sum::<f64>() / by_page.len() as f64)
                },
                // A program unit programs every page type of its word lines in order.
                program: if prog.is_empty() {
                    ns(t.program_us)
                } else {
                    ns(prog.iter().sum())
                },
                erase: ns(t.erase_us),
                read_by_page,
                page_types: by_page.len() as u32,
                passes: c.bits_per_cell(),
                pass: std::array::from_fn(|k| ns(pass_us(&t, c.bits_per_cell() as usize, k))),
            }
        });
        // No die operation is shorter than the fastest array read.
        let min_op = lat
            .iter()
            .map(|l| {
                l.read_by_page[..l.page_types as usize]
                    .iter()
                    .fold(l.read, |a, &b| a.min(b))
            })
            .min()
            .unwrap_or(0);
        let ch_ps_per_byte = ps_per_byte(cfg.nand.channel_mb_s);
        NandArray {
            lat,
            ch_ps_per_byte,
            dies: vec![Timeline::with_min_gap(min_op); geo.dies as usize],
            die_host: vec![Timeline::with_min_gap(min_op); geo.dies as usize],
            now: SimTime::ZERO,
            preemption: Preemption::default(),
            // No channel transfer is shorter than one 4 KiB slot.
            channels: vec![
                Lazy::new(Timeline::with_min_gap(SLOT_BYTES * ch_ps_per_byte / 1000));
                geo.channels as usize
            ],
            channel_clock: AdvanceLog::default(),
            erase_count: vec![cfg.nand.initial_pe; geo.total_blocks()],
            counters: FlashCounters::default(),
            page_type_reads: [0; 4],
            var: (cfg.nand.variability).then(|| Box::new(Variability::new(cfg, seed, geo.dies))),
            multi_pass: cfg.nand.program_scheme == ProgramScheme::MultiPass,
            pass_ends: [SimTime::ZERO; 4],
            errors: (cfg.nand.errors)
                .then(|| Box::new(ReadErrors::new(cfg, seed, geo.dies, geo.total_blocks()))),
            geo,
        }
    }

    /// Channel transfer time of `bytes`.
    #[inline]
    pub fn xfer_ns(&self, bytes: u64) -> u64 {
        bytes * self.ch_ps_per_byte / 1000
    }

    pub fn set_preemption(&mut self, p: Preemption) {
        self.preemption = p;
    }

    #[inline]
    fn preempts(&self, class: OpClass) -> bool {
        match class {
            OpClass::HostRead => self.preemption.reads,
            OpClass::HostWrite => self.preemption.writes,
            OpClass::Background => false,
        }
    }

    /// The timeline an operation of `class` on die `d` must find its gap in: all operations,
    /// or only the host's when it may suspend background work.
    #[inline]
    fn die_tl(&self, d: usize, class: OpClass) -> &Timeline {
        if self.preempts(class) {
            &self.die_host[d]
        } else {
            &self.dies[d]
        }
    }

    /// Drop the past of die `d`'s reservations.
    #[inline(always)]
    fn prune(&mut self, d: usize) {
        let now = self.now;
        self.dies[d].advance(now);
        if self.preemption.reads || self.preemption.writes {
            self.die_host[d].advance(now);
        }
    }

    /// Reserve `die` from `slot.start` to `end` (`slot` found by the caller on
    /// `die_tl(die, class)`). Operations never overlap: a host operation that may preempt and
    /// starts while background work occupies the die suspends it, pushing that work back by
    /// the overlap plus `suspend_ns`.
    #[inline(always)]
    fn hold_die(&mut self, die: u32, slot: Slot, end: SimTime, class: OpClass) {
        let d = die as usize;
        let dur = end - slot.start;
        if self.preemption.reads || self.preemption.writes {
            self.hold_die_preempting(d, slot, end, class);
        } else {
            self.dies[d].take(slot, dur);
        }
        if class == OpClass::Background {
            self.counters.background_busy_ns += dur;
        }
        self.counters.die_busy_ns += dur;
    }

    /// [`NandArray::hold_die`] when some host class may preempt: host operations are also
    /// kept on a second timeline per die.
    #[inline(never)]
    fn hold_die_preempting(&mut self, d: usize, slot: Slot, end: SimTime, class: OpClass) {
        let start = slot.start;
        let dur = end - start;
        if self.preempts(class) {
            self.die_host[d].take(slot, dur);
            let overlap = self.dies[d].occupy(start, end);
            if overlap > 0 {
                // The suspended background work finishes later: its remaining time moves to
                // the end of the die's queue.
                let last = self.dies[d].last_end();
                self.dies[d].reserve(last, overlap + self.preemption.suspend_ns);
                self.counters.suspensions += 1;
            }
        } else {
            self.dies[d].take(slot, dur);
            if class != OpClass::Background {
                self.die_host[d].reserve(start, dur);
            }
        }
    }

    /// Array read of one page on `die`, then `bytes` out over the die's channel.
    /// Returns when the data has crossed the channel. The die is held from the sense to the
    /// end of the transfer (the data waits in the page register for the channel). The read
    /// takes the die's earliest gap long enough for it; when the channel's first gap after the
    /// sense comes too late for that die gap, the die is searched again, from the same start,
    /// for a gap long enough for the whole wait. That is not always the earliest slot of both:
    /// it passes die gaps that the channel could have served sooner (docs/validation.md,
    /// "Where a read waits for its channel", measures by how much).
    #[inline]
    pub fn read(
        &mut self,
        ready: SimTime,
        die: u32,
        bytes: u64,
        cell: CellType,
        class: OpClass,
    ) -> SimTime {
        let ci = cell_idx(cell);
        let lat = self.sense_time(die, self.lat[ci].read, ci, None);
        self.read_sensed(ready, die, bytes, lat, class)
    }

    /// [`NandArray::read`] of flash page `p`, checked by the error model when `nand.errors`
    /// is on (retry steps and soft decoding booked after it).
    #[inline]
    pub fn read_block(
        &mut self,
        ready: SimTime,
        p: FlashPage,
        bytes: u64,
        cell: CellType,
        class: OpClass,
    ) -> SimTime {
        let ci = cell_idx(cell);
        let mean = self.lat[ci].read;
        let lat = self.sense_time(p.die, mean, ci, None);
        let done = self.read_sensed(ready, p.die, bytes, lat, class);
        if self.errors.is_none() {
            return done;
        }
        self.decode(ready, done, p, bytes, (mean, ci, None), class)
    }

    /// [`NandArray::read_page`] of flash page `p`, checked by the error model like
    /// [`NandArray::read_block`].
    #[inline]
    pub fn read_page_at(
        &mut self,
        ready: SimTime,
        p: FlashPage,
        bytes: u64,
        cell: CellType,
        class: OpClass,
    ) -> SimTime {
        let done = self.read_page(ready, p.die, p.page, bytes, cell, class);
        if self.errors.is_none() {
            return done;
        }
        let ci = cell_idx(cell);
        let l = &self.lat[ci];
        let sense = if l.page_types == 0 {
            (l.read, ci, None)
        } else {
            let t = (p.page % l.page_types) as usize;
            (l.read_by_page[t], ci, Some(t))
        };
        self.decode(ready, done, p, bytes, sense, class)
    }

    /// The array read time of a sense of mean `mean` (page type `t` of cell `ci`).
    #[inline(always)]
    fn sense_time(&mut self, die: u32, mean: u64, ci: usize, t: Option<usize>) -> u64 {
        match &mut self.var {
            None => mean,
            Some(v) => v.read(die, mean, ci, t),
        }
    }

    /// The error model's verdict on a read of `p` sensed at `ready` and transferred by
    /// `done`: book its retry steps (each a re-sense plus the transfer) and its soft decode
    /// (extra senses, then the decode time); flag a failed host read.
    #[inline(never)]
    fn decode(
        &mut self,
        ready: SimTime,
        mut done: SimTime,
        p: FlashPage,
        bytes: u64,
        (mean, ci, t): (u64, usize, Option<usize>),
        class: OpClass,
    ) -> SimTime {
        let i = self.geo.block_index(p.die, p.plane, p.block);
        let pe = self.erase_count[i];
        let e = self.errors.as_mut().expect("nand.errors on");
        let out = e.read(p.die, i, pe, ready, bytes);
        let senses = out.retries + if out.soft { e.soft_senses() } else { 0 };
        let soft_ns = if out.soft { e.soft_decode_ns() } else { 0 };
        if out.uncorrectable && class == OpClass::HostRead {
            e.host_failure();
        }
        for _ in 0..senses {
            let lat = self.sense_time(p.die, mean, ci, t);
            done = self.read_sensed(done, p.die, bytes, lat, class);
        }
        done + soft_ns
    }

    /// [`NandArray::read`] of page `page` of its block, whose array read time depends on its
    /// page type (`nand.timing.<cell>.read_us_by_page`; type = page index mod bits per cell).
    #[inline]
    pub fn read_page(
        &mut self,
        ready: SimTime,
        die: u32,
        page: u32,
        bytes: u64,
        cell: CellType,
        class: OpClass,
    ) -> SimTime {
        let l = &self.lat[cell_idx(cell)];
        if l.page_types == 0 {
            let lat = self.sense_time(die, l.read, cell_idx(cell), None);
            return self.read_sensed(ready, die, bytes, lat, class);
        }
        let t = (page % l.page_types) as usize;
        let lat = l.read_by_page[t];
        self.page_type_reads[t] += 1;
        let lat = self.sense_time(die, lat, cell_idx(cell), Some(t));
        self.read_sensed(ready, die, bytes, lat, class)
    }

    #[inline]
    fn read_sensed(
        &mut self,
        ready: SimTime,
        die: u32,
        bytes: u64,
        lat: u64,
        class: OpClass,
    ) -> SimTime {
        let d = die as usize;
        self.prune(d);
        let ch = self.geo.channel_of(die) as usize;
        let dur = self.xfer_ns(bytes);
        let mut slot = self.die_tl(d, class).find(ready, lat + dur);
        let xs = if slot.at_end() {
            // After all booked work on the die (the common case): any channel wait fits.
            self.channel(ch).reserve(slot.start + lat, dur)
        } else {
            let xslot = loop {
                let xslot = self.channel(ch).find(slot.start + lat, dur);
                if xslot.start == slot.start + lat {
                    break xslot; // the gap found for the die covers the transfer
                }
                // A gap from the same start for the whole wait (see `read`: not always the
                // earliest slot of both).
                let s2 = self
                    .die_tl(d, class)
                    .find(slot.start, xslot.start + dur - slot.start);
                if s2.start == slot.start {
                    slot = s2;
                    break xslot;
                }
                slot = s2;
            };
            self.channel(ch).take(xslot, dur);
            xslot.start
        };
        let xe = xs + dur;
        self.hold_die(die, slot, xe, class);
        self.counters.page_reads += 1;
        xe
    }

    /// One multi-plane program of `slots` 4 KiB slots on `die` (`pages` flash pages): data in
    /// over the channel, then the program. Returns when the program completes.
    #[inline]
    pub fn program(
        &mut self,
        ready: SimTime,
        die: u32,
        slots: u32,
        pages: u32,
        cell: CellType,
        class: OpClass,
    ) -> SimTime {
        let ci = cell_idx(cell);
        let done = if self.multi_pass && self.lat[ci].passes > 1 {
            self.program_passes(ready, die, slots, ci, class)
        } else {
            let mut prog = self.lat[ci].program;
            if let Some(v) = &mut self.var {
                prog = v.program(die, prog, ci);
            }
            self.book_program(ready, die, slots, prog, class)
        };
        self.counters.page_programs += pages as u64;
        self.counters.programmed_slots += slots as u64;
        done
    }

    /// Book `slots` in over the channel, then `prog` ns of programming, on `die`.
    #[inline]
    pub(super) fn book_program(
        &mut self,
        ready: SimTime,
        die: u32,
        slots: u32,
        prog: u64,
        class: OpClass,
    ) -> SimTime {
        let d = die as usize;
        self.prune(d);
        let ch = self.geo.channel_of(die) as usize;
        let dur = self.xfer_ns(slots as u64 * SLOT_BYTES);
        // The die is held from the data transfer in to the end of the program.
        let mut slot = self.die_tl(d, class).find(ready, dur + prog);
        let xs = if slot.at_end() {
            // After all booked work on the die (the common case): any channel wait fits.
            let xs = self.channel(ch).reserve(slot.start, dur);
            if xs != slot.start {
                slot = self.die_tl(d, class).find(xs, dur + prog);
            }
            xs
        } else {
            let xslot = loop {
                let xslot = self.channel(ch).find(slot.start, dur);
                if xslot.start == slot.start {
                    break xslot; // the gap found for the die covers transfer and program
                }
                let s2 = self.die_tl(d, class).find(xslot.start, dur + prog);
                if s2.start == xslot.start {
                    slot = s2;
                    break xslot;
                }
                slot = s2;
            };
            self.channel(ch).take(xslot, dur);
            xslot.start
        };
        let done = xs + dur + prog;
        self.hold_die(die, slot, done, class);
        done
    }

    /// Erase block `block` in every plane of `die` (a multi-plane erase).
    pub fn erase(
        &mut self,
        ready: SimTime,
        die: u32,
        block: u32,
        cell: CellType,
        class: OpClass,
    ) -> SimTime {
        self.erase_planes(ready, die, 0..self.geo.planes, block, cell, class)
    }

    /// Erase superblock row `block` (the same block of every plane of every die), one erase per
    /// die in die order; returns when the last completes.
    pub fn erase_superblock(
        &mut self,
        ready: SimTime,
        block: u32,
        cell: CellType,
        class: OpClass,
    ) -> SimTime {
        let mut done = ready;
        for die in 0..self.geo.dies {
            done = done.max(self.erase(ready, die, block, cell, class));
        }
        done
    }

    /// Erase block `block` of every plane of `dies` (a superblock of an NVM set).
    pub fn erase_superblock_on(
        &mut self,
        dies: &[u32],
        ready: SimTime,
        block: u32,
        cell: CellType,
        class: OpClass,
    ) -> SimTime {
        let mut done = ready;
        for &die in dies {
            done = done.max(self.erase(ready, die, block, cell, class));
        }
        done
    }

    /// Erase block `block` of one plane of `die` (sub-block zones, ConZone+ §4.3).
    pub fn erase_plane(
        &mut self,
        ready: SimTime,
        die: u32,
        plane: u32,
        block: u32,
        cell: CellType,
        class: OpClass,
    ) -> SimTime {
        self.erase_planes(ready, die, plane..plane + 1, block, cell, class)
    }

    fn erase_planes(
        &mut self,
        ready: SimTime,
        die: u32,
        planes: std::ops::Range<u32>,
        block: u32,
        cell: CellType,
        class: OpClass,
    ) -> SimTime {
        let d = die as usize;
        self.prune(d);
        let mut lat = self.lat[cell_idx(cell)].erase;
        if let Some(v) = &mut self.var {
            lat = v.erase(die, lat);
        }
        let slot = self.die_tl(d, class).find(ready, lat);
        let done = slot.start + lat;
        self.hold_die(die, slot, done, class);
        for plane in planes {
            let i = self.geo.block_index(die, plane, block);
            self.erase_count[i] += 1;
            self.counters.block_erases += 1;
            if let Some(e) = &mut self.errors {
                e.erased(i, done);
            }
        }
        done
    }

    /// The simulation clock reached `now`: finished die and channel reservations are dropped
    /// when the die or channel is next used ([`NandArray::prune`], [`NandArray::channel`]).
    #[inline(always)]
    pub fn advance(&mut self, now: SimTime) {
        self.now = now;
        if self.channel_clock.advance(now) {
            self.channel_clock.settle(&mut self.channels);
        }
    }

    /// Channel `ch`'s reservations, caught up with the clock.
    #[inline(always)]
    fn channel(&mut self, ch: usize) -> &mut Timeline {
        self.channels[ch].catch_up(&self.channel_clock)
    }

    /// Power came back: the die and channel reservations become those of `on` (the array as
    /// powered on, holding the recovery's reads); what was booked past the cut was aborted.
    /// Erase counts, counters and per-block error state stay: they are the flash's.
    pub fn power_on(&mut self, on: NandArray) {
        self.dies = on.dies;
        self.die_host = on.die_host;
        self.channels = on.channels;
        for c in &mut self.channels {
            // What `on`'s advances dropped, then pruned from this array's next advance on.
            c.catch_up(&on.channel_clock);
            c.joined(&self.channel_clock);
        }
    }

    /// End of the last operation booked on `die`.
    pub fn die_free_at(&self, die: u32) -> SimTime {
        self.dies[die as usize].last_end()
    }

    /// Latest busy-until over all dies.
    pub fn all_idle_at(&self) -> SimTime {
        self.dies
            .iter()
            .map(|t| t.last_end())
            .max()
            .unwrap_or(SimTime::ZERO)
    }

    /// Die reservations are sorted and disjoint (for tests).
    pub fn check_dies(&self) -> bool {
        self.dies.iter().chain(&self.die_host).all(|t| t.check())
    }

    pub fn erase_counts(&self) -> &[u32] {
        &self.erase_count
    }

    /// The error model's raw bit error rate of block `block` of `plane` of `die` now (None
    /// with `nand.errors` off): what a firmware could estimate to reclaim a block in time.
    pub fn rber_estimate(&self, die: u32, plane: u32, block: u32) -> Option<f64> {
        let e = self.errors.as_ref()?;
        let i = self.geo.block_index(die, plane, block);
        Some(e.rber(i, self.erase_count[i], self.now))
    }

    /// Whether a host read failed uncorrectably since the last call (its command completes
    /// with a media error); counts the command. False with `nand.errors` off.
    #[inline]
    pub fn take_media_error(&mut self) -> bool {
        match &mut self.errors {
            None => false,
            Some(e) => e.take_host_failure(),
        }
    }

    /// Zero the counters of `nand.errors` (the blocks keep their state: reads, erase time).
    pub fn reset_error_counters(&mut self) {
        if let Some(e) = &mut self.errors {
            e.reset_counters();
        }
    }

    /// The device sat unpowered for `ns`: retention time passes for the error model.
    pub fn age(&mut self, ns: u64) {
        if let Some(e) = &mut self.errors {
            e.age(ns);
        }
    }

    /// The counters of `nand.errors`, when on.
    pub fn error_counters(&self) -> Option<&ErrorCounters> {
        self.errors.as_deref().map(|e| &e.counters)
    }

    /// When each pass of the last multi-pass program completed (its page types in order).
    pub fn last_pass_ends(&self) -> &[SimTime] {
        &self.pass_ends
    }
}
