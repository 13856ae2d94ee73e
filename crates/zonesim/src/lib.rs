//! zonesim: a deterministic, user-space simulator of flash storage.
//!
//! See ARCHITECTURE.md at the repository root for the map of modules.

pub mod config;
pub mod device;
pub mod emu;
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

/// Load a device config (a preset name or a TOML file, then `KEY=VALUE` overrides) and check
/// every rule before anything simulates: the config's own ([`config::DeviceConfig::load`]) and
/// those of the namespace plan ([`device::validate`]). Errors are config errors (exit code 2).
pub fn load_device(spec: &str, sets: &[String]) -> Result<config::DeviceConfig> {
    let cfg = config::DeviceConfig::load(spec, sets)?;
    device::validate(&cfg)?;
    Ok(cfg)
}
