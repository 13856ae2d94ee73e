//! Program schemes (`nand.program_scheme`). `one_shot` (the default) programs every page of
//! a word line in one operation: the data of all its pages in over the channel, then one
//! tPROG, the sum of the page-type times (`nand.timing.<cell>.program_us_by_page`, else
//! `program_us`). `multi_pass` programs the word line page type by page type, LSB first:
//! each pass moves its page's data in and programs it for that page type's time (MLC: MCMQ
//! §IV-B Table I's LSB and MSB program times, 381.2 and 1578.5 µs; a cell without
//! per-page times splits `program_us` evenly), a separate die operation with its own
//! variability draw. The write buffer holds the word line's data until the last pass ends:
//! the program completes then, and only then does the firmware free the space. Passes of one
//! word line run back to back (the interleaved order of two-step programming, where the LSB
//! pass of the next word line comes before the MSB pass of this one, is not modelled).

use super::array::{NandArray, OpClass};
use crate::engine::SimTime;

impl NandArray {
    /// A multi-pass program of `slots` slots on `die` of cell `ci`: one pass per page type,
    /// each ready when the previous ends. Returns when the last pass completes.
    pub(super) fn program_passes(
        &mut self,
        ready: SimTime,
        die: u32,
        slots: u32,
        ci: usize,
        class: OpClass,
    ) -> SimTime {
        let passes = self.lat[ci].passes;
        let mut done = ready;
        for t in 0..passes {
            // The pass's share of the slots (the first passes take a remainder).
            let share = slots / passes + u32::from(t < slots % passes);
            let mut prog = self.lat[ci].pass[t as usize];
            if let Some(v) = &mut self.var {
                prog = v.pass(die, prog, ci, t as usize);
            }
            done = self.book_program(done, die, share, prog, class);
            self.pass_ends[t as usize] = done;
        }
        done
    }
}
