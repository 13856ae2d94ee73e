//! Discrete-event engine: virtual time, a deterministic event queue and the seeded RNG.
//!
//! Time is an integer number of nanoseconds ([`SimTime`]); nothing reads the wall clock.
//! Events with equal time are popped in insertion order (a sequence number breaks ties), so a
//! run is bit-identical for the same inputs and seed. The queue is a binary heap keyed by
//! `(time, seq)`: the queue stays small (one pending completion per outstanding request), so a
//! heap beats a calendar queue here and needs no tuning.

mod advance;
mod hostmem;
mod perm;
mod queue;
mod time;
mod timeline;

pub use advance::{AdvanceLog, Lazy};
pub use hostmem::{huge_vec, prefetch};
pub use perm::{below, mix64, unit_f64, Perm, BATCH};
pub use queue::EventQueue;
pub use time::SimTime;
pub use timeline::{Slot, Timeline};

use rand::SeedableRng;

/// The PRNG every random choice in the model uses. Xoshiro256++: fast, small and
/// reproducible across platforms.
pub type Rng = rand_xoshiro::Xoshiro256PlusPlus;

/// A PRNG for one consumer, derived from the run seed and a stream number so that adding a
/// consumer does not perturb the others.
pub fn rng_for(seed: u64, stream: u64) -> Rng {
    Rng::seed_from_u64(seed ^ stream.wrapping_mul(0x9E37_79B9_7F4A_7C15))
}
