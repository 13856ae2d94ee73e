//! zonesim: a deterministic, user-space simulator of flash storage.
//!
//! See ARCHITECTURE.md at the repository root for the map of modules.

pub mod config;
pub mod device;
pub mod engine;
pub mod error;
pub mod experiments;
pub mod firmware;
pub mod host;
pub mod interface;
pub mod nand;
pub mod sim;
pub mod stats;

pub use error::{Error, Result};
