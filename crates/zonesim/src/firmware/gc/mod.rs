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

/// The fewest spare superblocks (beyond the logical space) a page-mapped namespace with
/// `streams` write streams can run on: GC's blocking reserve of one free superblock per
/// stream (the conventional FTL's foreground GC collects, blocking, while no more are
/// free), one to copy a victim's survivors into, and one of margin. Full superblocks hold
/// at least `(spare - free - open) x slots per superblock` invalid slots (the logical space
/// fills at most the superblocks it needs), so with one stream and the pool down to its
/// reserve a whole superblock's worth is invalid and GC always finds a victim that frees
/// space; with more streams part of that margin sits in the GC streams' open superblocks
/// (the conventional FTL's property test runs tiny spares to completion).
/// The foreground threshold is not part of it: it only moves where incremental GC starts,
/// and below it GC blocks. The wear state uses the same count at run time: when retirements
/// leave fewer spares the namespace goes read-only (firmware/wear).
pub fn min_spare_superblocks(streams: u32) -> u64 {
    streams as u64 + 2
}
