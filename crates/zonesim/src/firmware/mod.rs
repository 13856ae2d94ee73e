//! Firmware: the FTL and everything between the host interface and the NAND array.
//!
//! - [`buffer`]: write buffer managers (global buffer of the conventional device).
//! - [`mapping`]: page-level L2P map, reverse map, demand-loaded L2P cache (DFTL-like).
//! - [`alloc`]: superblocks, the free pool, write streams and their write pointers.
//! - [`gc`]: garbage-collection victim policies and GC / wear statistics.
//! - [`cost`]: controller-CPU processing cost of the placement policies.
//! - [`sched`]: per-die command ordering (FIFO over analytic die timelines).
//! - [`ftl`]: the page-mapped FTL of a conventional namespace, tying the above together.
//! - [`zoned`]: the FTL of a zoned namespace (ConZone): zone buffers, SLC secondary buffer,
//!   zone-level allocation, hybrid mapping.

pub mod alloc;
pub mod buffer;
pub mod cost;
pub mod ftl;
pub mod gc;
pub mod mapping;
pub mod sched;
pub mod zoned;
