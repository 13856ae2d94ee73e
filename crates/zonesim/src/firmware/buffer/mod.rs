//! Write buffer managers (ConZone+ §3.2, Zoned UFS §4.2).
//!
//! - [`GlobalBuffer`]: the conventional device's one global buffer: host writes land in it,
//!   full die program units are flushed striped across dies, a host flush (fsync/FUA) drains
//!   it (a partial unit is a premature flush, padded to the program unit).
//! - [`ZoneBuffers`]: the zoned device's scarce zone buffers (ConZone §3.2), bound to zones
//!   `assoc` or `modulo`; or ZABM slot tables ([`Zabm`], ZUFS §4.2): 4 KiB slots of one SRAM
//!   shared by the open zones, flushed per die unit or superpage. [`ZoneWriteBuffers`] is the
//!   enum over the two (`buffer.kind`).
//!
//! Both hold buffer space until the program of the flushed data completes
//! ([`InflightSpace`]), so a full buffer stalls host writes until flash catches up.

mod global;
mod inflight;
mod zabm;
mod zone;
mod zoned;

pub use global::{BufferCounters, GlobalBuffer};
pub use inflight::{EarliestDone, InflightSpace, IssueOrder, ReleaseOrder};
pub use zabm::{Admit, Zabm, ZabmCounters};
pub use zone::{Bind, ZoneBuffers, NO_ZONE};
pub use zoned::ZoneWriteBuffers;
