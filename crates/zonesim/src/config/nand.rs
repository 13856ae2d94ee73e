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
    /// The values of `v` (at most 4).
    pub const fn of(v: &[f64]) -> PageTimes {
        let mut us = [0.0; 4];
        let mut i = 0;
        while i < v.len() {
            us[i] = v[i];
            i += 1;
        }
        PageTimes {
            n: v.len() as u8,
            us,
        }
    }
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
        /// Rated program/erase cycles of a block, as a datasheet states endurance: the cycle
        /// count up to which the device keeps its guaranteed minimum of valid blocks, i.e. by
        /// which only `failed_share_at_rating` of the blocks have worn out. Sets the scale of
        /// the Weibull wear-out (`endurance_shape`) and where the RBER's wear part reaches the
        /// hard-decision limit (`nand.errors`). 0: blocks never wear out. Zoned namespaces:
        /// not with `zone.sub_block`.
        #[serde(skip_serializing_if = "super::declare::is_zero_u32")]
        pub endurance_pe: u32 = 0, int(0, 1 << 24).unit("P/E cycles");
        /// Weibull shape of block wear-out: the larger, the more the failures bunch near the
        /// scale (the scale follows from `endurance_pe`, `failed_share_at_rating` and this).
        /// Inert while `endurance_pe = 0`.
        #[serde(skip_serializing_if = "is_default_shape")]
        pub endurance_shape: f64 = DEFAULT_ENDURANCE_SHAPE, float(1.0, 20.0);
        /// Share of blocks worn out (grown bad) by the time they reach `endurance_pe` cycles:
        /// the datasheet convention of a rated endurance with a minimum of valid blocks kept
        /// (about 98 %). Inert while `endurance_pe = 0`.
        #[serde(skip_serializing_if = "is_default_failed_share")]
        pub failed_share_at_rating: f64 = DEFAULT_FAILED_SHARE, float(0.0, 0.5).open_min();
        /// Share of blocks bad from the factory, drawn from the seed and never used: a
        /// superblock's bad member is replaced by a spare block of the same plane (zoned
        /// namespaces: zones without blocks are OFFLINE; not with `zone.sub_block`).
        #[serde(skip_serializing_if = "super::declare::is_zero_f64")]
        pub factory_bad_fraction: f64 = 0.0, float(0.0, 0.1);
        /// P/E cycles every block has been through before format (a pre-worn device): erase
        /// counts start here, so the RBER of `nand.errors`, the wear-out draws and wear
        /// levelling see the age; with a rating, the blocks whose wear-out fell within these
        /// cycles are bad from format (`device.wear.preworn_bad_blocks`). 0: a fresh device.
        #[serde(skip_serializing_if = "super::declare::is_zero_u32")]
        pub initial_pe: u32 = 0, int(0, 1 << 24).unit("P/E cycles");
        // Flash that ages, NAND side (docs/nand.md): latency variability, program scheme,
        // bit errors with ECC and read retry. Off or neutral by default; each is absent from
        // the resolved device in the report while it keeps its default.
        /// Per-operation latency variability (`nand/variability.rs`): each array read,
        /// program pass and erase takes its configured time times a draw of mean 1 and the
        /// coefficient of variation of `nand.spread`, seeded by the run's seed.
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        pub variability: bool = false, free();
        /// Coefficients of variation of `nand.variability` (default: MCMQ Table I, Real row).
        #[serde(skip_serializing_if = "Spread::is_default")]
        pub spread: Spread = Spread::default(), free();
        /// How a word line is programmed (`nand/program.rs`): `one_shot` programs all its
        /// pages in one operation taking the sum of the page-type times; `multi_pass`
        /// programs LSB, then CSB / MSB / TSB, each pass its own transfer and time.
        #[serde(skip_serializing_if = "ProgramScheme::is_one_shot")]
        pub program_scheme: ProgramScheme = ProgramScheme::OneShot, free();
        /// Raw bit errors, ECC and read retry on data reads (`nand/errors.rs`): the RBER of
        /// `nand.rber` per read, hard decoding, retry steps, soft decoding of `nand.ecc`; an
        /// uncorrectable host read completes with a media error.
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        pub errors: bool = false, free();
        /// The raw bit error rate model of `nand.errors`.
        #[serde(skip_serializing_if = "RberModel::is_default")]
        pub rber: RberModel = RberModel::default(), free();
        /// The ECC and read-retry parameters of `nand.errors`.
        #[serde(skip_serializing_if = "EccConfig::is_default")]
        pub ecc: EccConfig = EccConfig::default(), free();
    }
}

choice! {
    /// How a word line's pages are programmed (`nand.program_scheme`).
    #[derive(Default)]
    pub enum ProgramScheme {
        /// LSB first, then each further page type, each a program of its own. (Declared
        /// first: the key is absent from a resolved device at its default, and the key tests
        /// set the first value.)
        MultiPass = "multi_pass",
        /// One program of every page of the word line (the sum of the page-type times).
        #[default]
        OneShot = "one_shot",
    }
}

impl ProgramScheme {
    pub fn is_one_shot(&self) -> bool {
        *self == ProgramScheme::OneShot
    }
}

/// A coefficient of variation: a spread from none to twice the mean.
const CV: Spec = float(0.0, 2.0);

section! {
    /// `[nand.spread]`: coefficients of variation (standard deviation / mean) of the
    /// latencies under `nand.variability`. Lists run by page type (LSB, CSB, MSB, TSB; a cell
    /// with more page types than entries uses the last entry). Defaults: MCMQ Table I, Real
    /// row (a 2-bit MLC chip on a board): reads 1.6 / 56.2 and 8.4 / 71.5, programs
    /// 157.3 / 381.2 and 68.5 / 1578.5, erase 0.008 / 1.20.
    #[derive(Debug, Clone, Copy, PartialEq)]
    pub struct Spread [Default] {
        /// Array read (tR) by page type; a read without a page address takes their mean.
        pub read_cv_by_page: PageTimes = PageTimes::of(&[0.0285, 0.1175]), CV;
        /// Program pass by page type; a one-shot program's spread is that of the sum of its
        /// passes' times.
        pub program_cv_by_page: PageTimes = PageTimes::of(&[0.4126, 0.0434]), CV;
        /// Block erase (tBERS).
        pub erase_cv: f64 = 0.0067, CV;
    }
}

impl Spread {
    pub fn is_default(&self) -> bool {
        *self == Spread::default()
    }
}

section! {
    /// `[nand.rber]`: raw bit error rate of a page in a block with `c` P/E cycles, `t` days
    /// since the block was erased and `r` reads since then:
    /// RBER = epsilon + alpha c^k + beta c^m t^n + gamma c^p r^q (wear, retention, read
    /// disturb). The form is Liu et al., FAST'12 (retention relaxation), with SimpleSSD's
    /// read-disturb term; the defaults are the 2y-nm MLC fit SimpleSSD 2.0 uses.
    #[derive(Debug, Clone, Copy, PartialEq)]
    pub struct RberModel [Default] {
        /// RBER of a fresh block.
        pub epsilon: f64 = 8.34e-5, float(0.0, 0.5);
        /// Wear coefficient.
        pub alpha: f64 = 3.30e-11, float(0.0, 1.0);
        /// Wear exponent.
        pub k: f64 = 1.71, float(0.0, 5.0);
        /// Retention coefficient (t in days).
        pub beta: f64 = 5.56e-19, float(0.0, 1.0);
        /// Retention exponent of the P/E cycles.
        pub m: f64 = 2.49, float(0.0, 5.0);
        /// Retention exponent of the time.
        pub n: f64 = 3.33, float(0.0, 5.0);
        /// Read-disturb coefficient.
        pub gamma: f64 = 6.26e-13, float(0.0, 1.0);
        /// Read-disturb exponent of the P/E cycles.
        pub p: f64 = 1.76, float(0.0, 5.0);
        /// Read-disturb exponent of the reads since erase.
        pub q: f64 = 0.47, float(0.0, 5.0);
        /// Multiplies a block's erase count before the model: a device rated for fewer P/E
        /// cycles than the model's chip (about 3,000) ages as fast relative to its rating
        /// with (model rating / device rating).
        pub pe_scale: f64 = 1.0, float(0.001, 1e6);
        /// Days of retention added to every block (a device that sat on a shelf).
        pub retention_days: f64 = 0.0, float(0.0, 36500.0).unit("days");
    }
}

impl RberModel {
    pub fn is_default(&self) -> bool {
        *self == RberModel::default()
    }
}

section! {
    /// `[nand.ecc]`: ECC per codeword and read retry under `nand.errors`. Defaults: a
    /// 1 KiB codeword with a 40-bit hard-decision limit (BCH-class strength of 2y-nm MLC
    /// controllers), LDPC soft decoding to 2.5x that with extra sensing (Zhao et al., FAST'13
    /// "LDPC-in-SSD"), up to 8 retry steps (Cai et al., Proc. IEEE 2017, §V read-retry).
    #[derive(Debug, Clone, Copy, PartialEq)]
    pub struct EccConfig [Default] {
        /// Data bytes per codeword.
        pub codeword_bytes: u32 = 1024, int(512, 16384).multiple_of(512).unit("bytes");
        /// Bit errors per codeword hard decoding corrects.
        pub hard_bits: u32 = 40, int(1, 4096).unit("bits");
        /// Bit errors per codeword soft (LDPC) decoding corrects; at least `hard_bits`.
        pub soft_bits: u32 = 100, int(1, 8192).unit("bits");
        /// Read-retry steps before soft decoding (each a re-sense with shifted read
        /// references plus the transfer, booked like a read).
        pub max_retries: u32 = 8, int(0, 64).unit("steps");
        /// What each retry step leaves of the retention and read-disturb part of the RBER
        /// (shifted references recover the shifted cells; wear errors stay).
        pub retry_factor: f64 = 0.5, float(0.0, 1.0);
        /// Extra senses of a soft decode (soft information at more read references).
        pub soft_senses: u32 = 4, int(0, 16).unit("senses");
        /// LDPC soft decode time per read.
        pub soft_decode_us: f64 = 20.0, float(0.0, 1e5).unit("µs");
    }
}

impl EccConfig {
    pub fn is_default(&self) -> bool {
        *self == EccConfig::default()
    }
}

/// Default Weibull shape of block wear-out (`nand.endurance_shape`).
pub const DEFAULT_ENDURANCE_SHAPE: f64 = 3.0;

fn is_default_shape(v: &f64) -> bool {
    *v == DEFAULT_ENDURANCE_SHAPE
}

/// Default share of blocks worn out at the rating (`nand.failed_share_at_rating`).
pub const DEFAULT_FAILED_SHARE: f64 = 0.02;

fn is_default_failed_share(v: &f64) -> bool {
    *v == DEFAULT_FAILED_SHARE
}
