//! Latency variability (`nand.variability`): each array read, program (or program pass) and
//! erase takes its configured mean time times `1 + cv·z`, z a standard normal draw of its die
//! (`draw.rs`: counter-based, seeded by the run's seed), truncated at 5 % of the mean. The
//! coefficients of variation come by operation and page type from `[nand.spread]`, by
//! default the spreads MCMQ (DATE'22) §IV-B Table I measured on a real 2-bit MLC chip (its
//! "Real" row: reads 56.2 ± 1.6 / 71.5 ± 8.4 µs LSB / MSB, programs 381.2 ± 157.3 /
//! 1578.5 ± 68.5 µs, erase 1.20 ± 0.008 ms). The spread does not grow with P/E cycles: Table
//! I gives one wear state only. Off, the array holds no `Variability` and books the means.

use super::draw::DieDraws;
use crate::config::{CellType, DeviceConfig};

/// Salt of the variability draw streams (distinct from the error model's).
const SALT: u64 = 0x7661_7269_6162_6c65;

/// Coefficients of variation of one cell type.
#[derive(Debug, Clone, Copy, Default)]
struct CellCv {
    /// Array read by page type.
    read: [f64; 4],
    /// A read without a page address (the mean over the page types).
    read_any: f64,
    /// A program pass by page type.
    pass: [f64; 4],
    /// A one-shot program of a whole word line (its passes' times summed).
    unit: f64,
}

/// The draws and spreads of `nand.variability`.
#[derive(Clone)]
pub(super) struct Variability {
    draws: DieDraws,
    cells: [CellCv; 4],
    erase: f64,
}

/// Entry `t` of a by-page-type list, the last entry past its end, 0 if empty.
fn by_type(list: &[f64], t: usize) -> f64 {
    list.get(t.min(list.len().saturating_sub(1)))
        .copied()
        .unwrap_or(0.0)
}

impl Variability {
    pub fn new(cfg: &DeviceConfig, seed: u64, dies: u32) -> Variability {
        let s = &cfg.nand.spread;
        let cells = [CellType::Slc, CellType::Mlc, CellType::Tlc, CellType::Qlc].map(|c| {
            let bits = c.bits_per_cell() as usize;
            let t = cfg.nand.timing.of(c);
            let mut cv = CellCv::default();
            for k in 0..bits {
                cv.read[k] = by_type(s.read_cv_by_page.as_slice(), k);
                cv.pass[k] = by_type(s.program_cv_by_page.as_slice(), k);
            }
            let pages = t.read_us_by_page.as_slice().len().max(1);
            cv.read_any = cv.read[..pages].iter().sum::<f64>() / pages as f64;
            // The passes of a one-shot program are independent: the sum's variance is the sum
            // of theirs.
            let times: Vec<f64> = (0..bits).map(|k| pass_us(&t, bits, k)).collect();
            let var: f64 = (0..bits).map(|k| (cv.pass[k] * times[k]).powi(2)).sum();
            cv.unit = var.sqrt() / times.iter().sum::<f64>();
            cv
        });
        Variability {
            draws: DieDraws::new(seed, SALT, dies),
            cells,
            erase: s.erase_cv,
        }
    }

    /// `mean` ns times a draw of die `die` with coefficient of variation `cv`.
    #[inline]
    fn draw(&mut self, die: u32, mean: u64, cv: f64) -> u64 {
        let f = (1.0 + cv * self.draws.normal(die)).max(0.05);
        (mean as f64 * f).round() as u64
    }

    /// An array read of page type `t` (None: unknown page type).
    #[inline]
    pub fn read(&mut self, die: u32, mean: u64, cell: usize, t: Option<usize>) -> u64 {
        let c = &self.cells[cell];
        let cv = t.map_or(c.read_any, |t| c.read[t]);
        self.draw(die, mean, cv)
    }

    /// A one-shot program of a word line.
    #[inline]
    pub fn program(&mut self, die: u32, mean: u64, cell: usize) -> u64 {
        let cv = self.cells[cell].unit;
        self.draw(die, mean, cv)
    }

    /// Pass `t` (page type) of a multi-pass program.
    #[inline]
    pub fn pass(&mut self, die: u32, mean: u64, cell: usize, t: usize) -> u64 {
        let cv = self.cells[cell].pass[t];
        self.draw(die, mean, cv)
    }

    #[inline]
    pub fn erase(&mut self, die: u32, mean: u64) -> u64 {
        let cv = self.erase;
        self.draw(die, mean, cv)
    }
}

/// The time (µs) of program pass `k` of a cell with `bits` page types: its
/// `program_us_by_page` entry, else an equal share of `program_us`.
pub(super) fn pass_us(t: &crate::config::CellTiming, bits: usize, k: usize) -> f64 {
    let by_page = t.program_us_by_page.as_slice();
    if by_page.is_empty() {
        t.program_us / bits as f64
    } else {
        by_page[k.min(by_page.len() - 1)]
    }
}
