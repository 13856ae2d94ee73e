use super::geometry::{Geometry, SLOT_BYTES};
use crate::config::{CellType, DeviceConfig};
use crate::engine::{SimTime, Timeline};
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
struct Lat {
    read: u64,
    program: u64,
    erase: u64,
}

/// The array's resources (dies, channels) with their busy-until times, timing and counters.
pub struct NandArray {
    pub geo: Geometry,
    lat: [Lat; 4],
    /// Picoseconds to move one byte over a channel.
    ch_ps_per_byte: u64,
    die_free: Vec<SimTime>,
    /// Busy-until of host operations only (for preemption).
    die_host_free: Vec<SimTime>,
    preemption: Preemption,
    channels: Vec<Timeline>,
    erase_count: Vec<u32>,
    pub counters: FlashCounters,
}

/// Picoseconds per byte at `mib_s` MiB/s.
pub fn ps_per_byte(mib_s: f64) -> u64 {
    (1e12 / (mib_s * 1048576.0)).round().max(1.0) as u64
}

fn cell_idx(c: CellType) -> usize {
    c.bits_per_cell() as usize - 1
}

impl NandArray {
    pub fn new(cfg: &DeviceConfig) -> NandArray {
        let geo = Geometry::new(&cfg.nand);
        let lat = [CellType::Slc, CellType::Mlc, CellType::Tlc, CellType::Qlc].map(|c| {
            let t = cfg.nand.timing.of(c);
            Lat {
                read: SimTime::from_us(t.read_us).ns(),
                program: SimTime::from_us(t.program_us).ns(),
                erase: SimTime::from_us(t.erase_us).ns(),
            }
        });
        NandArray {
            lat,
            ch_ps_per_byte: ps_per_byte(cfg.nand.channel_mb_s),
            die_free: vec![SimTime::ZERO; geo.dies as usize],
            die_host_free: vec![SimTime::ZERO; geo.dies as usize],
            preemption: Preemption::default(),
            channels: vec![Timeline::new(); geo.channels as usize],
            erase_count: vec![0; geo.total_blocks()],
            counters: FlashCounters::default(),
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

    /// Earliest start of an operation of `class` on `die` ready at `ready`.
    #[inline]
    fn die_start(&self, ready: SimTime, die: u32, class: OpClass) -> SimTime {
        let d = die as usize;
        if self.preempts(class) {
            ready.max(self.die_host_free[d])
        } else {
            ready.max(self.die_free[d])
        }
    }

    /// Reserve `die` from `start` to `end`. Operations never overlap: a host operation that
    /// starts while background work occupies the die suspends it, pushing it back.
    #[inline]
    fn hold_die(&mut self, die: u32, start: SimTime, end: SimTime, class: OpClass) {
        let d = die as usize;
        debug_assert!(
            start >= self.die_host_free[d],
            "overlapping host operations on die {die}"
        );
        if start < self.die_free[d] {
            debug_assert!(self.preempts(class), "overlapping operations on die {die}");
            self.die_free[d] += (end - start) + self.preemption.suspend_ns;
            self.counters.suspensions += 1;
        } else {
            self.die_free[d] = end;
        }
        if class != OpClass::Background {
            self.die_host_free[d] = self.die_host_free[d].max(end);
        } else {
            self.counters.background_busy_ns += end - start;
        }
        self.counters.die_busy_ns += end - start;
    }

    /// Array read of one page on `die`, then `bytes` out over the die's channel.
    /// Returns when the data has crossed the channel.
    #[inline]
    pub fn read(
        &mut self,
        ready: SimTime,
        die: u32,
        bytes: u64,
        cell: CellType,
        class: OpClass,
    ) -> SimTime {
        let start = self.die_start(ready, die, class);
        let sensed = start + self.lat[cell_idx(cell)].read;
        let ch = self.geo.channel_of(die) as usize;
        let dur = self.xfer_ns(bytes);
        let xe = self.channels[ch].reserve(sensed, dur) + dur;
        self.hold_die(die, start, xe, class);
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
        let ch = self.geo.channel_of(die) as usize;
        let dur = self.xfer_ns(slots as u64 * SLOT_BYTES);
        let ds = self.die_start(ready, die, class);
        let xs = self.channels[ch].reserve(ds, dur);
        let xe = xs + dur;
        let done = xe + self.lat[cell_idx(cell)].program;
        self.hold_die(die, xs, done, class);
        self.counters.page_programs += pages as u64;
        self.counters.programmed_slots += slots as u64;
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
        let start = self.die_start(ready, die, class);
        let done = start + self.lat[cell_idx(cell)].erase;
        self.hold_die(die, start, done, class);
        for plane in planes {
            let i = self.geo.block_index(die, plane, block);
            self.erase_count[i] += 1;
            self.counters.block_erases += 1;
        }
        done
    }

    /// The simulation clock reached `now`: drop finished channel reservations.
    #[inline]
    pub fn advance(&mut self, now: SimTime) {
        for c in &mut self.channels {
            c.advance(now);
        }
    }

    pub fn die_free_at(&self, die: u32) -> SimTime {
        self.die_free[die as usize]
    }

    /// Latest busy-until over all dies.
    pub fn all_idle_at(&self) -> SimTime {
        self.die_free.iter().copied().max().unwrap_or(SimTime::ZERO)
    }

    pub fn erase_counts(&self) -> &[u32] {
        &self.erase_count
    }
}
