//! NAND array: geometry, addressing, cell timing and the occupancy of dies and channels.
//!
//! Models the flash array of ConZone+ §3.2 (write pointer striping, Table 2 timing):
//! channels x chips x dies x planes x blocks x pages; a superblock is the same block index in
//! every plane of every die. Occupancy is analytic (as in NVMeVirt): each die and each channel
//! has a busy-until time, an operation starts at the later of its ready time and the resource's
//! busy-until, and reserves the resource to its end. Operations are therefore served FIFO per
//! die in the order the firmware issues them, and never overlap on a die (checked in debug
//! builds); with preemption enabled a host operation may suspend background work on its die
//! (program/erase suspend), which then finishes later. A read holds its die for tR and the transfer out of the page register, while the
//! transfer occupies only its channel, so other dies on the channel keep working.

//!
//! Flash that ages, each mechanism in its room and off by default: per-operation latency
//! variability (`variability.rs`), the program scheme (`program.rs`), raw bit errors with
//! ECC and read retry (`errors.rs`); `draw.rs` gives them seeded per-die draws.

mod array;
mod draw;
mod errors;
mod geometry;
mod program;
mod variability;

pub use array::ps_per_byte;
pub use array::{FlashCounters, NandArray, OpClass, Preemption};
pub use errors::{rber_of, ErrorCounters, ReadOutcome};
pub use geometry::{FlashPage, Geometry, SLOT_BYTES};

#[cfg(test)]
mod tests;
