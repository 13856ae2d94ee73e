//! `age_k`: k streams by GC survival count, a generalisation of SUP-GC (`sup` is `age_k` with
//! k = 2). Host data goes to stream 0; a page that survives the collection of a superblock of
//! stream i goes to stream min(i + 1, k - 1). The survival count is not stored per page: the
//! stream tag of the superblock holding the page is the count (bounded by k - 1).

use super::Place;
use crate::firmware::mapping::Lpa;

#[derive(Clone)]
pub struct AgeK {
    k: usize,
}

impl AgeK {
    pub fn new(k: usize) -> AgeK {
        assert!(k >= 2, "age_k needs at least 2 streams");
        AgeK { k }
    }
}

impl Place for AgeK {
    fn streams(&self) -> usize {
        self.k
    }
    #[inline]
    fn host(&mut self, _lpa: Lpa, _hint: u8) -> usize {
        0
    }
    #[inline]
    fn gc(&mut self, _lpa: Lpa, from: usize) -> usize {
        (from + 1).min(self.k - 1)
    }
}
