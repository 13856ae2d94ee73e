//! zonesim's ground floor, shared by the host models (`zonesim-host`) and the device model
//! (`zonesim`): simulated time ([`engine::SimTime`]), the deterministic event queue, the
//! gap-filling timelines of shared resources, the seeded RNG, and the error type of bad input
//! and of simulator bugs ([`Error`]). It knows nothing of hosts or devices.

pub mod engine;
pub mod error;

pub use error::{Error, Result};
