use super::geometry::{Geometry, SLOT_BYTES};
use crate::config::{CellType, DeviceConfig};
use crate::engine::SimTime;
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
    ch_free: Vec<SimTime>,
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
            ch_free: vec![SimTime::ZERO; geo.channels as usize],
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

    /// Reserve `die` from `start` (>= its busy-until) to `end`.
    #[inline]
    fn hold_die(&mut self, die: u32, start: SimTime, end: SimTime) {
        let d = &mut self.die_free[die as usize];
        debug_assert!(start >= *d, "overlapping operations on die {die}");
        *d = end;
        self.counters.die_busy_ns += end - start;
    }

    /// Array read of one page on `die`, then `bytes` out over the die's channel.
    /// Returns when the data has crossed the channel.
    #[inline]
    pub fn read(&mut self, ready: SimTime, die: u32, bytes: u64, cell: CellType) -> SimTime {
        let start = ready.max(self.die_free[die as usize]);
        let sensed = start + self.lat[cell_idx(cell)].read;
        let ch = self.geo.channel_of(die) as usize;
        let xs = sensed.max(self.ch_free[ch]);
        let xe = xs + self.xfer_ns(bytes);
        self.ch_free[ch] = xe;
        self.hold_die(die, start, xe);
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
    ) -> SimTime {
        let ch = self.geo.channel_of(die) as usize;
        let xs = ready.max(self.ch_free[ch]).max(self.die_free[die as usize]);
        let xe = xs + self.xfer_ns(slots as u64 * SLOT_BYTES);
        self.ch_free[ch] = xe;
        let done = xe + self.lat[cell_idx(cell)].program;
        self.hold_die(die, xs, done);
        self.counters.page_programs += pages as u64;
        self.counters.programmed_slots += slots as u64;
        done
    }

    /// Erase block `block` in every plane of `die` (a multi-plane erase).
    pub fn erase(&mut self, ready: SimTime, die: u32, block: u32, cell: CellType) -> SimTime {
        let start = ready.max(self.die_free[die as usize]);
        let done = start + self.lat[cell_idx(cell)].erase;
        self.hold_die(die, start, done);
        for plane in 0..self.geo.planes {
            let i = self.geo.block_index(die, plane, block);
            self.erase_count[i] += 1;
        }
        self.counters.block_erases += self.geo.planes as u64;
        done
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
