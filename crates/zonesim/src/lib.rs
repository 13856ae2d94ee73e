//! zonesim: a deterministic, user-space simulator of flash storage.
//!
//! See ARCHITECTURE.md at the repository root for the map of modules.

pub mod error;
pub mod host;

pub use error::{Error, Result};
