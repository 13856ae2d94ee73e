//! `[nand]`: the flash array's geometry, cell type and timing.

use super::declare::{choice, section};
use super::keys::{Field, Type, Value};
use super::rule::{float, free, int, Num, Spec};
use crate::error::Result;
use serde::{Deserialize, Serialize};

choice! {
    /// Flash cell type; decides bits per cell, default timing and the program unit.
    pub enum CellType {
        Slc = "slc",
        Mlc = "mlc",
        Tlc = "tlc",
        Qlc = "qlc",
    }
}

impl CellType {
    pub fn bits_per_cell(self) -> u32 {
        match self {
            CellType::Slc => 1,
            CellType::Mlc => 2,
            CellType::Tlc => 3,
            CellType::Qlc => 4,
        }
    }
    /// Pages programmed at once per plane (one-shot program): 1 SLC, 2 MLC, 3 TLC, 4 QLC.
    pub fn program_unit_pages(self) -> u32 {
        self.bits_per_cell()
    }
}

/// Times (µs) by page type, one per bit of the cell, or none.
#[derive(Debug, Clone, Copy, PartialEq, Default, Deserialize, Serialize)]
#[serde(try_from = "Vec<f64>", into = "Vec<f64>")]
pub struct PageTimes {
    n: u8,
    us: [f64; 4],
}

impl PageTimes {
    /// No per-page times (every page takes the cell's one time).
    pub const NONE: PageTimes = PageTimes { n: 0, us: [0.0; 4] };
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }
    pub fn as_slice(&self) -> &[f64] {
        &self.us[..self.n as usize]
    }
}

impl TryFrom<Vec<f64>> for PageTimes {
    type Error = String;
    fn try_from(v: Vec<f64>) -> std::result::Result<PageTimes, String> {
        if v.len() > 4 {
            return Err(format!("at most 4 page types (got {})", v.len()));
        }
        let mut us = [0.0; 4];
        us[..v.len()].copy_from_slice(&v);
        Ok(PageTimes {
            n: v.len() as u8,
            us,
        })
    }
}

impl From<PageTimes> for Vec<f64> {
    fn from(p: PageTimes) -> Vec<f64> {
        p.as_slice().to_vec()
    }
}

impl Value for PageTimes {
    fn ty() -> Type {
        Type::List(Box::new(Type::Float))
    }
    fn show(&self) -> String {
        self.as_slice().to_vec().show()
    }
    /// Every time against the key's rule, named by the key (no index).
    fn check(&self, path: &str, field: &Field) -> Result<()> {
        for &v in self.as_slice() {
            field.spec.check(path, Num::Float(v))?;
        }
        Ok(())
    }
}

/// A NAND time: from 1 ns to 10 s (keeps simulated time exact and far from its 64-bit limit).
const NAND_US: Spec = float(0.001, 1e7).unit("µs");

section! {
    /// Latencies of one cell type (`[nand.timing.<cell>]`). Each key has its own default, so
    /// a table that gives only `read_us` keeps the cell's other times.
    #[derive(Debug, Clone, Copy, PartialEq)]
    pub struct CellTiming {
        /// Array read time (tR) of one page.
        pub read_us: f64, NAND_US;
        /// One (multi-plane) program of a whole program unit (tPROG).
        pub program_us: f64, NAND_US;
        /// Block erase time (tBERS).
        pub erase_us: f64, NAND_US;
        /// Array read time by page type (LSB, CSB, MSB, TSB: page index mod bits per cell),
        /// one per bit of the cell (MCMQ Table I); empty: `read_us` for every page.
        #[serde(skip_serializing_if = "PageTimes::is_empty")]
        pub read_us_by_page: PageTimes = PageTimes::NONE, NAND_US;
        /// Program time by page type, one per bit of the cell; a program unit (every page of
        /// a word line, in order) takes their sum. Empty: `program_us` per unit.
        #[serde(skip_serializing_if = "PageTimes::is_empty")]
        pub program_us_by_page: PageTimes = PageTimes::NONE, NAND_US;
    }
}

impl CellTiming {
    const fn new(read_us: f64, program_us: f64, erase_us: f64) -> CellTiming {
        CellTiming {
            read_us,
            program_us,
            erase_us,
            read_us_by_page: PageTimes::NONE,
            program_us_by_page: PageTimes::NONE,
        }
    }
}

section! {
    /// Timing per cell type (`[nand.timing]`). Defaults: ConZone Table 2 for SLC, TLC and QLC
    /// (read, program), erase 3.5 ms; MLC from MQSim's default configuration.
    #[derive(Debug, Clone, Copy, PartialEq)]
    pub struct TimingTable [Default] {
        /// SLC, and the pSLC blocks of any cell type.
        pub slc: CellTiming = CellTiming::new(20.0, 75.0, 3500.0), free();
        /// MLC.
        pub mlc: CellTiming = CellTiming::new(75.0, 750.0, 3800.0), free();
        /// TLC.
        pub tlc: CellTiming = CellTiming::new(32.0, 937.5, 3500.0), free();
        /// QLC.
        pub qlc: CellTiming = CellTiming::new(85.0, 6400.0, 3500.0), free();
    }
}

impl TimingTable {
    pub fn of(&self, cell: CellType) -> CellTiming {
        match cell {
            CellType::Slc => self.slc,
            CellType::Mlc => self.mlc,
            CellType::Tlc => self.tlc,
            CellType::Qlc => self.qlc,
        }
    }
}

section! {
    /// The flash array (`[nand]`): channels x chips x dies x planes x blocks x pages. The
    /// product's 4 KiB slots must stay below 2^31 (8 TiB of flash).
    #[derive(Debug, Clone)]
    pub struct NandConfig {
        /// Flash channels.
        pub channels: u32, int(1, 1024);
        /// Chips (ways) per channel.
        pub chips_per_channel: u32, int(1, 256);
        /// Dies per chip; dies are numbered channel-first.
        pub dies_per_chip: u32, int(1, 64);
        /// Planes per die; programs are multi-plane.
        pub planes_per_die: u32, int(1, 16);
        /// Blocks per plane = superblocks (the same block of every plane of every die).
        pub blocks_per_plane: u32, int(1, 1 << 20);
        /// Pages per block in the native cell mode; a multiple of the program unit (1 SLC,
        /// 2 MLC, 3 TLC, 4 QLC pages).
        pub pages_per_block: u32, int(1, 1 << 16).unit("pages");
        /// Flash page size.
        pub page_bytes: u32, int(4096, 1 << 20).multiple_of(4096).unit("bytes");
        /// Native cell type; the program unit is 1, 2, 3 or 4 pages per plane.
        pub cell: CellType, free();
        /// Timing of each cell type.
        pub timing: TimingTable = TimingTable::default(), free();
        /// Channel bandwidth.
        pub channel_mb_s: f64, float(0.01, 1e7).unit("MiB/s");
        /// The first N blocks of every plane run in SLC mode (pSLC: `bits(SLC)/bits(cell)` of
        /// the pages, SLC timing). They hold conventional namespaces marked `slc_only`, the SLC
        /// secondary buffer of zoned namespaces (ConZone §3.2, ConZone+ §4) and the SLC write
        /// cache of `slc.conventional_buffer`. Must leave regular blocks; each namespace with
        /// an SLC buffer needs at least `slc.gc_threshold_free_superblocks + 3` of them.
        pub slc_blocks_per_plane: u32 = 0, int(0, (1 << 20) - 1).unit("blocks");
        // Wear-out and bad blocks (firmware/wear, docs/wear.md): keep these last.
        /// Rated program/erase cycles of a block, the scale of its Weibull wear-out
        /// (`endurance_shape`): grown bad blocks appear as erase counts approach it. 0: blocks
        /// never wear out. Conventional namespaces only.
        #[serde(skip_serializing_if = "super::declare::is_zero_u32")]
        pub endurance_pe: u32 = 0, int(0, 1 << 24).unit("P/E cycles");
        /// Weibull shape of block wear-out (the scale is `endurance_pe`): the larger, the more
        /// the failures bunch near the rating. Inert while `endurance_pe = 0`.
        #[serde(skip_serializing_if = "is_default_shape")]
        pub endurance_shape: f64 = DEFAULT_ENDURANCE_SHAPE, float(1.0, 20.0);
        /// Share of blocks bad from the factory, drawn from the seed and never used: a
        /// superblock's bad member is replaced by a spare block of the same plane.
        /// Conventional namespaces only.
        #[serde(skip_serializing_if = "super::declare::is_zero_f64")]
        pub factory_bad_fraction: f64 = 0.0, float(0.0, 0.1);
    }
}

/// Default Weibull shape of block wear-out (`nand.endurance_shape`).
pub const DEFAULT_ENDURANCE_SHAPE: f64 = 3.0;

fn is_default_shape(v: &f64) -> bool {
    *v == DEFAULT_ENDURANCE_SHAPE
}
