//! `single`: one write stream for everything — host pages and GC survivors mix in the same
//! superblocks (the Cosmos+ OpenSSD baseline of SUP-GC §4: greedy GC, no separation).

use super::Place;
use crate::firmware::mapping::Lpa;

#[derive(Clone)]
pub struct Single;

impl Place for Single {
    fn streams(&self) -> usize {
        1
    }
    #[inline]
    fn host(&mut self, _lpa: Lpa, _hint: u8) -> usize {
        0
    }
    #[inline]
    fn gc(&mut self, _lpa: Lpa, _from: usize) -> usize {
        0
    }
}
