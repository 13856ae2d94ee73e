//! Garbage collection: victim selection policies (docs/placement.md).
//!
//! The collection itself (read valid slots, rewrite them through a stream, erase) lives with
//! the FTL that owns the map ([`crate::firmware::ftl`]); this module decides *which* superblock.
//!
//! - greedy: fewest valid slots.
//! - cost_benefit: maximise age x (1 - u) / (2u) (Rosenblum & Ousterhout, as F2FS), u = valid
//!   fraction, age = time since the superblock was closed.
//! - fifo: oldest closed.
//! - random: uniform over full superblocks.
//! - d_choice: the fewest valid among `d` sampled uniformly.
//! - windowed_greedy: the fewest valid among the `window` oldest closed.
//!
//! [`GcStats`] keeps the GC statistics of `device.gc.*` (pages moved per victim, per-stream
//! valid ratio at victim selection); `device/report.rs` summarises them for the report.

mod stats;
mod victim;

pub use stats::GcStats;
pub use victim::{select_victim, VictimParams};
