//! Write buffer managers. The conventional device has one global buffer (design.md §1
//! "Write buffer managers"): host writes land in it, full die program units are flushed
//! striped across dies, a host flush (fsync/FUA) drains it (a partial unit is a premature
//! flush, padded to the program unit). Buffer space is released when the program of the data
//! completes, so a full buffer stalls host writes until flash catches up.

mod global;

pub use global::{BufferCounters, GlobalBuffer};
