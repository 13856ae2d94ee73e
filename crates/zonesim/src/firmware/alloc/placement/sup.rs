//! `sup`: SUP-GC (§3). Algorithm 1 (data allocation): every host write is hot and goes
//! to the hot stream. Algorithm 2 (GC migration): every valid page of a victim is cold and goes
//! to the cold stream, whichever stream wrote the victim. Cold superblocks are ordinary GC
//! candidates. No per-page state: only the stream tag of each superblock (§4: "metadata only").

use super::Place;
use crate::firmware::mapping::Lpa;

/// Stream of host writes.
pub const HOT: usize = 0;
/// Stream of GC survivors.
pub const COLD: usize = 1;

#[derive(Clone)]
pub struct Sup;

impl Place for Sup {
    fn streams(&self) -> usize {
        2
    }
    #[inline]
    fn host(&mut self, _lpa: Lpa, _hint: u8) -> usize {
        HOT
    }
    #[inline]
    fn gc(&mut self, _lpa: Lpa, _from: usize) -> usize {
        COLD
    }
}
