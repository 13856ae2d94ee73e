//! Data placement: which write stream a host page or a GC survivor goes to (docs/placement.md;
//! SUP-GC).
//!
//! Every policy is a small type implementing [`Place`]; the FTL holds one [`Placement`], an
//! enum chosen once from `ftl.gc.placement`, and calls it through a `match` (no per-page dynamic
//! dispatch). Stream numbers are indices into the FTL's streams; stream 0 is always where
//! host data goes by default.
//!
//! | policy | streams | host page | GC survivor from a superblock of stream `s` |
//! |---|---|---|---|
//! | `single` ([`Single`]) | 1 | 0 | 0 (the Cosmos+ baseline, SUP-GC §4) |
//! | `sup` ([`Sup`]) | 2 | 0 hot | 1 cold (SUP-GC §3.2 Alg. 1, §3.3 Alg. 2) |
//! | `bloom` ([`MultiBloom`]) | 2 | 0 if hot else 1 | same test, without recording an access (SUP-GC §2.2, §4 "BF-Optimized") |
//! | `age_k` ([`AgeK`]) | k | 0 | min(s + 1, k - 1): survived n times -> stream n |
//! | `hint` ([`Hint`]) | 5 | the host's `write_hint` (0 none .. 4 extreme) | s (the host's class is kept) |
//! | `gcar` ([`Gcar`]) | 1 | 0 | 0, and the page is kept in the buffer's GC share (SUP-GC §5.1 GCaR-Optimized) |

mod age_k;
mod bloom;
mod gcar;
mod hint;
mod single;
mod sup;

pub use age_k::AgeK;
pub use bloom::MultiBloom;
pub use gcar::Gcar;
pub use hint::{Hint, HINT_STREAMS};
pub use single::Single;
pub use sup::Sup;

use crate::config::{GcConfig, PlacementPolicy};
use crate::firmware::mapping::Lpa;

/// The interface every placement policy implements.
pub trait Place {
    /// Number of write streams the policy uses (the FTL opens one superblock per stream).
    fn streams(&self) -> usize;
    /// Stream of a host page written to `lpa` with lifetime hint `hint` (0 = none).
    fn host(&mut self, lpa: Lpa, hint: u8) -> usize;
    /// Stream of a GC survivor `lpa` moved out of a superblock written by stream `from`.
    fn gc(&mut self, lpa: Lpa, from: usize) -> usize;
}

/// Streams a configuration needs (defined in `config`, which validates with it).
pub use crate::config::stream_count;

/// The placement policy of one FTL.
#[derive(Clone)]
pub enum Placement {
    Single(Single),
    Sup(Sup),
    Bloom(Box<MultiBloom>),
    AgeK(AgeK),
    Hint(Hint),
    Gcar(Box<Gcar>),
}

impl Placement {
    /// The policy of `gc` for an FTL exporting `logical_pages` (the Bloom window scales with it).
    pub fn new(gc: &GcConfig, logical_pages: u64, seed: u64) -> Placement {
        Placement::with_buffer(gc, logical_pages, 0, seed)
    }

    /// As [`Placement::new`] for an FTL whose data buffer holds `buffer_pages` 4 KiB pages
    /// (the `gcar` GC share is a fraction of it).
    pub fn with_buffer(
        gc: &GcConfig,
        logical_pages: u64,
        buffer_pages: u64,
        seed: u64,
    ) -> Placement {
        match gc.placement {
            PlacementPolicy::Gcar => {
                let cap = (buffer_pages as f64 * gc.gcar.cache_fraction) as usize;
                Placement::Gcar(Box::new(Gcar::new(cap, logical_pages)))
            }
            PlacementPolicy::Single => Placement::Single(Single),
            PlacementPolicy::Sup => Placement::Sup(Sup),
            PlacementPolicy::Bloom => {
                Placement::Bloom(Box::new(MultiBloom::new(&gc.bloom, logical_pages, seed)))
            }
            PlacementPolicy::AgeK => Placement::AgeK(AgeK::new(gc.streams as usize)),
            PlacementPolicy::Hint => Placement::Hint(Hint),
        }
    }

    pub fn policy(&self) -> PlacementPolicy {
        match self {
            Placement::Single(_) => PlacementPolicy::Single,
            Placement::Sup(_) => PlacementPolicy::Sup,
            Placement::Bloom(_) => PlacementPolicy::Bloom,
            Placement::AgeK(_) => PlacementPolicy::AgeK,
            Placement::Hint(_) => PlacementPolicy::Hint,
            Placement::Gcar(_) => PlacementPolicy::Gcar,
        }
    }

    pub fn streams(&self) -> usize {
        match self {
            Placement::Single(p) => p.streams(),
            Placement::Sup(p) => p.streams(),
            Placement::Bloom(p) => p.streams(),
            Placement::AgeK(p) => p.streams(),
            Placement::Hint(p) => p.streams(),
            Placement::Gcar(p) => p.streams(),
        }
    }

    #[inline]
    pub fn host(&mut self, lpa: Lpa, hint: u8) -> usize {
        match self {
            Placement::Single(p) => p.host(lpa, hint),
            Placement::Sup(p) => p.host(lpa, hint),
            Placement::Bloom(p) => p.host(lpa, hint),
            Placement::AgeK(p) => p.host(lpa, hint),
            Placement::Hint(p) => p.host(lpa, hint),
            Placement::Gcar(p) => p.host(lpa, hint),
        }
    }

    #[inline]
    pub fn gc(&mut self, lpa: Lpa, from: usize) -> usize {
        match self {
            Placement::Single(p) => p.gc(lpa, from),
            Placement::Sup(p) => p.gc(lpa, from),
            Placement::Bloom(p) => p.gc(lpa, from),
            Placement::AgeK(p) => p.gc(lpa, from),
            Placement::Hint(p) => p.gc(lpa, from),
            Placement::Gcar(p) => p.gc(lpa, from),
        }
    }

    /// Zero the classifier's counters (after preconditioning); its state stays.
    pub fn reset_counters(&mut self) {
        match self {
            Placement::Bloom(b) => b.reset_counters(),
            Placement::Gcar(g) => g.reset_counters(),
            _ => {}
        }
    }

    /// `bloom`: its filters as the history of a GC steady state leaves them
    /// ([`MultiBloom::warm`]); nothing for the policies without history.
    pub fn warm(&mut self, host: u64, seq: u64, logical: u64, seed: u64) {
        if let Placement::Bloom(b) = self {
            b.warm(host, seq, logical, seed);
        }
    }

    /// `bloom` recording GC relocations in its filters (`ftl.gc.bloom.record_gc`).
    pub fn records_gc(&self) -> bool {
        matches!(self, Placement::Bloom(b) if b.records_gc())
    }

    /// `bloom`: expected hash evaluations of classifying a host page (`gc`: a GC survivor) at
    /// the filters' current fill; None for the other policies (firmware/cost.rs).
    #[inline]
    pub fn bloom_hashes(&self, gc: bool) -> Option<f64> {
        match self {
            Placement::Bloom(b) => Some(b.expected_hashes(gc)),
            _ => None,
        }
    }

    /// A host read of `lpa` served from data the placement keeps in the buffer (`gcar`).
    #[inline]
    pub fn read_hit(&mut self, lpa: Lpa) -> bool {
        match self {
            Placement::Gcar(g) => g.read_hit(lpa),
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests;
