//! Host interface: the link between host and device, and (for zoned namespaces) zone rules.

mod link;
pub mod zone;

pub use link::Link;
