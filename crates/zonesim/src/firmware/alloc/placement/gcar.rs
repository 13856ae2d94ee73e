//! `gcar`: GCaR-Optimized, the cache-aware GC baseline of SUP-GC (§2 related work, §5.1
//! "Cache-related GC scheme implemented in Cosmos+ FPGA OpenSSD", §5.3.1 Fig. 13).
//!
//! Placement is `single`'s (one stream, SUP-GC §5.1 builds GCaR on the Cosmos+ baseline). What
//! differs is the data buffer: "we adjusted the data buffer area of Cosmos+ FPGA OpenSSD to
//! temporarily store cache entries related to GC during cache replacement". Here the pages a
//! GC step moves are kept in a share of the data buffer (`ftl.gc.gcar.cache_fraction` of
//! `buffer.bytes`, FIFO among themselves), so a host read of such a page is served from the
//! buffer instead of queueing on a die that GC is busy with; a host overwrite drops the kept
//! copy. The price is the "search and traverse" of the cache on every replacement, charged on
//! the controller CPU per host page written and per GC page kept (`ftl.cost.gcar_write_ns`,
//! `ftl.cost.gcar_gc_page_ns`, firmware/cost.rs).

use super::Place;
use crate::firmware::mapping::Lpa;

#[derive(Clone)]
pub struct Gcar {
    /// Kept LPAs in insertion order (a ring of `cap`).
    ring: Vec<u32>,
    /// Pages the ring holds (its own field: a cloned `Vec` does not keep its capacity).
    cap: usize,
    head: usize,
    /// Membership bitmap over the logical pages.
    held: Vec<u64>,
    /// GC pages kept in the buffer.
    pub kept: u64,
    /// Host page reads served from kept GC data.
    pub read_hits: u64,
}

impl Gcar {
    /// A GC cache of `capacity` pages (at least 1) over `logical_pages`.
    pub fn new(capacity: usize, logical_pages: u64) -> Gcar {
        Gcar {
            ring: Vec::with_capacity(capacity.max(1)),
            cap: capacity.max(1),
            head: 0,
            held: vec![0; logical_pages.div_ceil(64) as usize],
            kept: 0,
            read_hits: 0,
        }
    }

    /// Pages the GC share of the buffer holds.
    pub fn capacity(&self) -> usize {
        self.cap
    }

    #[inline]
    fn bit(lpa: Lpa) -> (usize, u64) {
        ((lpa.0 / 64) as usize, 1u64 << (lpa.0 % 64))
    }

    #[inline]
    pub fn holds(&self, lpa: Lpa) -> bool {
        let (w, b) = Self::bit(lpa);
        self.held.get(w).is_some_and(|x| x & b != 0)
    }

    /// Keep a GC-moved page, replacing the oldest kept one when full.
    fn keep(&mut self, lpa: Lpa) {
        if self.holds(lpa) {
            return;
        }
        self.kept += 1;
        if self.ring.len() < self.cap {
            self.ring.push(lpa.0);
        } else {
            let old = std::mem::replace(&mut self.ring[self.head], lpa.0);
            self.head = (self.head + 1) % self.ring.len();
            let (w, b) = Self::bit(Lpa(old));
            self.held[w] &= !b;
        }
        let (w, b) = Self::bit(lpa);
        self.held[w] |= b;
    }

    fn drop_page(&mut self, lpa: Lpa) {
        let (w, b) = Self::bit(lpa);
        if let Some(x) = self.held.get_mut(w) {
            *x &= !b;
        }
    }

    /// A host read of `lpa`: true (and counted) if it is served from the kept GC data.
    #[inline]
    pub fn read_hit(&mut self, lpa: Lpa) -> bool {
        let hit = self.holds(lpa);
        self.read_hits += hit as u64;
        hit
    }

    pub fn reset_counters(&mut self) {
        self.kept = 0;
        self.read_hits = 0;
    }
}

impl Place for Gcar {
    fn streams(&self) -> usize {
        1
    }
    #[inline]
    fn host(&mut self, lpa: Lpa, _hint: u8) -> usize {
        // The host's new data supersedes the kept GC copy.
        self.drop_page(lpa);
        0
    }
    #[inline]
    fn gc(&mut self, lpa: Lpa, _from: usize) -> usize {
        self.keep(lpa);
        0
    }
}
