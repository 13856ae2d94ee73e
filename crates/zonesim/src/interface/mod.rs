//! Host interface: the link between host and device, the device command set, and (for zoned
//! namespaces) zone rules.

mod command;
mod link;
pub mod zone;

pub use command::{Command, Completion, Op, ZoneAction};
pub use link::Link;
