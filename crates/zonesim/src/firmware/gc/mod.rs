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
/// `streams` write streams can run on: `2 x streams + 1`. The conventional FTL's foreground GC
/// collects, blocking, while no more than `streams` superblocks are free, and each stream
/// holds one open superblock; full superblocks then hold at least
/// `(spare - free - open) x slots per superblock` invalid slots (the logical space fills at
/// most the superblocks it needs), a whole superblock's worth with this many spares, so GC
/// always finds a victim that frees space, and the free pool it keeps covers a superblock
/// opened per stream while the victim's survivors move. The foreground threshold is not part
/// of it: it moves where incremental GC starts, and below it GC blocks. The wear state
/// counts its spares against the same number: when retirements leave fewer the namespace
/// goes read-only (firmware/wear). The conventional FTL's property test
/// (`tests/tiny_spare.rs`) runs the tightest accepted spare of small geometries to completion;
/// with `streams + 2` (one margin superblock whatever the streams) it ran out of free
/// superblocks with two streams.
pub fn min_spare_superblocks(streams: u32) -> u64 {
    2 * streams as u64 + 1
}
