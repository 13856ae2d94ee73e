//! Host side: what issues I/O to the device — fio-style jobs, trace replay, host models.

pub mod apps;
pub mod cpu;
pub mod ext4;
pub mod fio;
pub mod fs;
pub mod fs_common;
pub mod hostfs;
pub mod io;
pub mod iotailor;
pub mod order;
pub mod queues;
pub mod scenario;
pub mod sched;
pub mod trace;

pub use io::{HostIo, IoKind};
