//! Host side: what issues I/O to the device — fio-style jobs, trace replay, host models.

pub mod io;

pub use io::{HostIo, IoKind};
