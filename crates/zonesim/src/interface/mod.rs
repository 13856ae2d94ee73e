//! Host interface: the link between host and device, and (for zoned namespaces) zone rules.

pub mod layout;
mod link;
pub mod zone;

pub use link::Link;
