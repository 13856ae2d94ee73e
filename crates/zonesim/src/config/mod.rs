//! Device configuration: TOML files and presets, `--set KEY=VALUE` overrides, validation.
//!
//! A device is described by dotted keys (`nand.channels`, `ftl.gc.victim`, ...). Each key is
//! declared once, on a field of its section's struct (`section!`, `declare.rs`): type, default,
//! valid range, unit and doc together. From that declaration come the parsing (unknown keys
//! are errors naming the key, a key left out takes its default), the range check of every
//! number ([`DeviceConfig::check_keys`]), and the key tables of the docs (`zonesim config
//! keys`, [`table`]). Loading goes TOML text -> `toml::Table` -> `--set` overrides applied on
//! the table -> typed [`DeviceConfig`]. The rules that relate keys to each other are in
//! `validate.rs` ([`DeviceConfig::validate`]); those that need the device's namespace plan
//! (layout, GC reserve) are checked by `device::validate`. `zonesim::load_device` runs both
//! before anything simulates. This module imports nothing of the model above it (only
//! `error`). Units: times in microseconds (`*_us`), bandwidths in MiB/s (`*_mb_s`, 2^20 bytes
//! per second), sizes in bytes (`*_bytes`).

mod declare;
mod firmware;
pub mod fs;
pub mod fs_ext4;
mod ftl;
mod host;
pub mod keys;
mod nand;
mod power;
mod presets;
pub mod rule;
pub mod table;
mod validate;
mod zoned;

pub use firmware::{
    CacheConfig, FirmwareConfig, FirmwareCost, FirmwareModel, LockGranularity, LockHandoff,
};
pub use ftl::{
    stream_count, BloomConfig, CostConfig, FtlConfig, GcConfig, GcarConfig, L2pSearch, MappingKind,
    PlacementPolicy, PolicyCost, VictimPolicy, WearLeveling, HINT_STREAMS, MAX_STREAMS,
};
pub use host::{Arbitration, HostConfig, HostCpuConfig, QueuePriority, MAX_HOST_QUEUES};
pub use nand::{
    CellTiming, CellType, EccConfig, NandConfig, PageTimes, ProgramScheme, RberModel, Spread,
    TimingTable,
};
pub use power::{ClockGating, PowerConfig};
pub use presets::{preset_text, PRESETS};
pub use zoned::{
    BufferConfig, BufferKind, FlushUnit, NamespaceConfig, NamespaceKind, SchedConfig, SlcConfig,
    SlcGc, SlcGranularity, SlcPolicy, SlcWriteback, ZoneBufferMapping, ZoneSection,
};

use crate::error::{Error, Result};
use declare::section;
use rule::{float, free, int};
use std::path::Path;

section! {
    /// What a run records beside the totals (`[stats]`).
    #[derive(Debug, Clone)]
    pub struct StatsConfig [Default] {
        /// Sample a time series every this many simulated milliseconds (the report's
        /// `timeseries`, docs/report.md; `zonesim run --interval-ms MS` sets it). 0: off.
        pub interval_ms: f64 = 0.0, float(0.001, 1e6).or_zero().unit("ms");
    }
}

section! {
    /// A whole device.
    #[derive(Debug, Clone)]
    pub struct DeviceConfig {
        /// Name of the device (shown in reports).
        pub name: String, free();
        /// One line on what the device is and where its values come from (`zonesim presets`
        /// prints it).
        pub description: String, free();
        /// Name of a preset this file starts from: the file gives only the keys it changes
        /// (`examples/my-ufs.toml`). Only in files: `--set base=` is an error (use `--device
        /// PRESET`).
        #[serde(skip_serializing)]
        pub base: Option<String> = None, free();
        /// The flash array.
        pub nand: NandConfig, free();
        /// The host link and queues.
        pub host: HostConfig, free();
        /// The flash translation layer.
        pub ftl: FtlConfig, free();
        /// Write buffers.
        pub buffer: BufferConfig, free();
        /// Zones of zoned namespaces.
        pub zone: ZoneSection = ZoneSection::default(), free();
        /// The SLC region's use.
        pub slc: SlcConfig = SlcConfig::default(), free();
        /// Per-die command queues.
        pub sched: SchedConfig = SchedConfig::default(), free();
        /// Multi-core firmware model; off by default.
        pub firmware: FirmwareConfig = FirmwareConfig::default(), free();
        /// DRAM data cache in front of the FTL; none by default.
        pub cache: CacheConfig = CacheConfig::default(), free();
        /// What a run records.
        pub stats: StatsConfig = StatsConfig::default(), free();
        /// Power-loss protection, power states and energy (docs/power.md); left out of the
        /// resolved config while every key keeps its default.
        #[serde(skip_serializing_if = "PowerConfig::is_default")]
        pub power: PowerConfig = PowerConfig::default(), free();
        /// Namespaces in id order; none: one conventional namespace.
        pub namespaces: Vec<NamespaceConfig> = Vec::new(), free();
        /// The namespace a run targets when none is named (`zonesim run --namespace`, the fio
        /// engine's `zs_namespace`): the one the modelled paper measures, e.g. the zoned data
        /// namespace beside a small conventional metadata one. Must be a namespace of the
        /// device.
        pub main_namespace: u32 = 0, int(0, 254);
        /// The host file system run under the workload (docs/fs.md); absent: raw block I/O.
        #[serde(skip_serializing_if = "Option::is_none")]
        pub fs: Option<fs::FsConfig> = None, free();
    }
}

/// The resolved `cfg` as TOML (`zonesim config show`): every key, defaults filled in; it loads
/// back as a device file giving the same device.
pub fn to_toml(cfg: &DeviceConfig) -> Result<String> {
    let body =
        toml::to_string(cfg).map_err(|e| Error::Internal(format!("device config as TOML: {e}")))?;
    Ok(format!(
        "# The resolved device '{}' (zonesim config show): every key with its value.\n{body}",
        cfg.name
    ))
}

impl DeviceConfig {
    /// Zones `k` times smaller and `k` times more of them, from the same flash: erase blocks of
    /// `pages_per_block / k` pages, `k` times as many regular and SLC blocks per plane (the SLC
    /// pool keeps its size), zone size and capacity divided by `k`, every zoned namespace's
    /// zone count multiplied by `k`. The die geometry and the timing are unchanged. Used to give
    /// a host file system more, smaller sections on a scaled device (F2FS counts sections).
    /// Call [`DeviceConfig::validate`] after.
    pub fn split_zones(&mut self, k: u32) {
        let regular = self.nand.blocks_per_plane - self.nand.slc_blocks_per_plane;
        self.nand.pages_per_block /= k;
        self.nand.slc_blocks_per_plane *= k;
        self.nand.blocks_per_plane = self.nand.slc_blocks_per_plane + regular * k;
        self.zone.capacity_bytes /= k as u64;
        self.zone.size_bytes /= k as u64;
        for ns in &mut self.namespaces {
            if ns.kind == NamespaceKind::Zoned {
                ns.zones *= k;
            }
        }
    }

    /// Load a preset name or a TOML file, apply `KEY=VALUE` overrides, check the config rules
    /// ([`DeviceConfig::validate`]). The device-plan rules are not checked here: load through
    /// `zonesim::load_device` to check both.
    pub fn load(spec: &str, sets: &[String]) -> Result<DeviceConfig> {
        let (origin, mut table) = match preset_text(spec) {
            Some(text) => (format!("preset {spec}"), parse_toml(text, spec)?),
            None => {
                let path = Path::new(spec);
                let text = crate::error::read_text_file(path)?;
                let mut t = parse_toml(&text, spec)?;
                if let Some(base) = t.get("base").cloned() {
                    let name = base
                        .as_str()
                        .ok_or_else(|| Error::config("base", "must be a preset name string"))?;
                    let text = preset_text(name)
                        .ok_or_else(|| Error::config("base", format!("unknown preset '{name}'")))?;
                    let mut b = parse_toml(text, name)?;
                    merge(&mut b, t);
                    t = b;
                }
                (spec.to_string(), t)
            }
        };
        for s in sets {
            apply_set(&mut table, s)?;
        }
        let cfg = from_table(table, &origin, sets)?;
        cfg.validate()?;
        Ok(cfg)
    }

    /// The kind of each namespace (one conventional namespace when none is listed).
    pub fn namespace_kinds(&self) -> Vec<NamespaceKind> {
        if self.namespaces.is_empty() {
            return vec![NamespaceKind::Conventional];
        }
        self.namespaces.iter().map(|n| n.kind).collect()
    }

    /// The built-in default device (`zonesim run` with no arguments).
    pub fn default_device() -> DeviceConfig {
        DeviceConfig::load("ufs-conventional", &[]).expect("built-in preset is valid")
    }
}

fn parse_toml(text: &str, origin: &str) -> Result<toml::Table> {
    text.parse::<toml::Table>().map_err(|e| {
        let line = e
            .span()
            .map(|s| text[..s.start.min(text.len())].lines().count().max(1) as u64)
            .unwrap_or(0);
        Error::parse(origin, line, e.message().trim().replace('\n', "; "))
    })
}

/// Deep-merge `over` into `base` (tables merge key by key, other values replace).
fn merge(base: &mut toml::Table, over: toml::Table) {
    for (k, v) in over {
        match (base.get_mut(&k), v) {
            (Some(toml::Value::Table(b)), toml::Value::Table(o)) => merge(b, o),
            (_, v) => {
                base.insert(k, v);
            }
        }
    }
}

/// Apply one `a.b.c=value` override. The value is read as a TOML literal (number, bool,
/// quoted string) and otherwise taken as a bare string (`nand.cell=tlc`).
pub fn apply_set(table: &mut toml::Table, set: &str) -> Result<()> {
    let (key, raw) = set
        .split_once('=')
        .ok_or_else(|| Error::Usage(format!("--set {set}: expected KEY=VALUE")))?;
    let key = key.trim();
    let raw = raw.trim();
    if key.is_empty() || key.split('.').any(|p| p.is_empty()) {
        return Err(Error::Usage(format!("--set {set}: empty key part")));
    }
    if key == "base" {
        let device = if raw.is_empty() { "PRESET" } else { raw };
        return Err(Error::config(
            "base",
            format!("--set {set}: base is only read from device files; use --device {device} to start from that preset"),
        ));
    }
    let value = format!("v = {raw}")
        .parse::<toml::Table>()
        .ok()
        .and_then(|mut t| t.remove("v"))
        .unwrap_or_else(|| toml::Value::String(raw.to_string()));
    let parts: Vec<&str> = key.split('.').collect();
    let mut cur = table;
    for (i, p) in parts[..parts.len() - 1].iter().enumerate() {
        let entry = cur
            .entry(p.to_string())
            .or_insert_with(|| toml::Value::Table(toml::Table::new()));
        cur = match entry {
            toml::Value::Table(t) => t,
            _ => {
                return Err(Error::config(
                    parts[..=i].join("."),
                    "is a value, not a table; cannot set a key below it",
                ))
            }
        };
    }
    cur.insert(parts[parts.len() - 1].to_string(), value);
    Ok(())
}

/// The last `--set` among `sets` that wrote `path` or a table above it.
fn set_of<'a>(sets: &'a [String], path: &str) -> Option<&'a String> {
    sets.iter().rev().find(|s| {
        let key = s.split_once('=').map_or("", |x| x.0).trim();
        !key.is_empty()
            && (key == path || path.strip_prefix(key).is_some_and(|r| r.starts_with('.')))
    })
}

fn from_table(table: toml::Table, origin: &str, sets: &[String]) -> Result<DeviceConfig> {
    let value = toml::Value::Table(table);
    serde_path_to_error::deserialize::<_, DeviceConfig>(value).map_err(|e| {
        let path = e.path().to_string();
        // A bad value given with --set is blamed on the --set, not on the file or preset.
        let set_origin;
        let origin = match set_of(sets, &path) {
            Some(s) => {
                set_origin = format!("--set {s}");
                set_origin.as_str()
            }
            None => origin,
        };
        // toml's messages may span lines ("... in `nand`"): keep the first, one-line rule.
        let msg = e.inner().to_string();
        let msg = msg.lines().next().unwrap_or("").trim().to_string();
        if let Some(rest) = msg.strip_prefix("unknown field `") {
            let expected = rest.split_once(", ").map(|x| x.1).unwrap_or("");
            let name = path.rsplit('.').next().unwrap_or(&path);
            let known = expected.split('`').skip(1).step_by(2);
            let hint = match zonesim_core::error::suggest::nearest(name, known) {
                Some(k) => format!("did you mean `{k}`? "),
                None => String::new(),
            };
            return Error::config(path, format!("unknown key in {origin} ({hint}{expected})"));
        }
        if let Some(rest) = msg.strip_prefix("missing field `") {
            let name = rest.split('`').next().unwrap_or("");
            let key = if path == "." || path.is_empty() {
                name.to_string()
            } else {
                format!("{path}.{name}")
            };
            return Error::config(key, format!("required key missing in {origin}"));
        }
        Error::config(path, format!("{msg} (in {origin})"))
    })
}

#[cfg(test)]
mod tests;
