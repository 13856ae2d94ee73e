//! Emulation: the simulated device driven by real software — fio through an external ioengine
//! (`crates/zonesim-fio`), file systems through the FUSE disk (`zonesim mount`). ConZone+
//! (seeds: ConZone+ §5, "emulation") and NVMeVirt run real software on an emulated device
//! through a kernel module; here the device stays in user space.
//!
//! - [`handle`]: [`Handle`], one namespace taking commands one at a time with a clock;
//! - [`store`]: the data (`--store none|memory|sparse:PATH`) and `--verify`;
//! - [`persist`]: a `sparse:PATH` store's device state across runs (`--resume`, `--fresh`);
//! - [`power`]: power cuts through the emulation (`Handle::power_off`, the front ends' options);
//! - [`pace`]: `--pace virtual|realtime` and the pacing error;
//! - [`record`]: `--record FILE`, the requests as a replayable trace.
//!
//! The one room of the library that moves data and writes files besides the report: the
//! timing model below it never sees a byte.

pub mod handle;
pub mod pace;
pub mod persist;
pub mod power;
pub mod record;
pub mod store;

pub use handle::{Handle, HandleOptions, IoError, Ticket};
pub use pace::{Pace, Pacer};
pub use persist::StoreOpen;
pub use power::RandomCuts;
pub use record::RecordFormat;
pub use store::{StoreSpec, PAGE};
