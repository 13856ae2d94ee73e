//! zonesim: a deterministic, user-space simulator of flash storage.
//!
//! See ARCHITECTURE.md at the repository root for the map of modules.

pub mod config;
pub mod device;
pub mod emu;
pub mod firmware;
pub mod interface;
pub mod nand;
pub mod sim;
pub mod stats;

/// The ground floor (`zonesim-core`): simulated time, event queue, timelines, RNG, errors.
pub use zonesim_core::{engine, error};
/// The host side (`zonesim-host`): fio, traces, the host file system, apps, scenarios, zone
/// write ordering, IOTailor, priority dispatch. It knows no device.
pub use zonesim_host as host;

pub use error::{Error, Result};
/// The one run path (`sim/spec.rs`): every front end that runs a workload — `zonesim run`
/// (jobs, traces, scenarios), `bench`, `sweep`, the experiments, Python — builds a [`RunSpec`]
/// and calls [`run`] (`sim::execute`). Real software driving a device one command at a time
/// (the fio ioengine, the FUSE disk) uses the lower-level [`emu::Handle`]; a multi-phase
/// experiment continues a device with [`sim::run_device`]. All three build the report in one
/// place ([`sim::assemble`]).
pub use sim::{execute as run, Control, RunSpec, Tick, WorkloadSpec};

/// Load a device config (a preset name or a TOML file, then `KEY=VALUE` overrides) and check
/// every rule before anything simulates: the config's own ([`config::DeviceConfig::load`]) and
/// those of the namespace plan ([`device::validate`]). Errors are config errors (exit code 2);
/// a name that is neither a preset nor a file lists the presets.
pub fn load_device(spec: &str, sets: &[String]) -> Result<config::DeviceConfig> {
    let cfg = config::DeviceConfig::load(spec, sets).map_err(|e| match e {
        Error::Io { source, .. }
            if source.kind() == std::io::ErrorKind::NotFound && !spec.contains(['/', '.']) =>
        {
            let names: Vec<&str> = config::PRESETS.iter().map(|p| p.0).collect();
            let hint = match zonesim_core::error::suggest::nearest(spec, names.iter().copied()) {
                Some(n) => format!("did you mean {n}? "),
                None => String::new(),
            };
            Error::Usage(format!(
                "--device {spec}: no such preset or file ({hint}presets: {})",
                names.join(", ")
            ))
        }
        e => e,
    })?;
    device::validate(&cfg)?;
    Ok(cfg)
}
