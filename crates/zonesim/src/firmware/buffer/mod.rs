//! Write buffer managers (design.md §1 "Write buffer managers").
//!
//! - [`GlobalBuffer`]: the conventional device's one global buffer: host writes land in it,
//!   full die program units are flushed striped across dies, a host flush (fsync/FUA) drains
//!   it (a partial unit is a premature flush, padded to the program unit).
//! - [`ZoneBuffers`]: the zoned device's scarce zone buffers (ConZone §3.2), bound to zones
//!   `assoc` or `modulo`.
//!
//! Both hold buffer space until the program of the flushed data completes
//! ([`InflightSpace`]), so a full buffer stalls host writes until flash catches up.

mod global;
mod inflight;
mod zone;

pub use global::{BufferCounters, GlobalBuffer};
pub use inflight::{EarliestDone, InflightSpace, IssueOrder, ReleaseOrder};
pub use zone::{Bind, ZoneBuffers, NO_ZONE};
