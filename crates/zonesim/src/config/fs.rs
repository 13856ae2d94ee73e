//! `[fs]`: the host file system run under the workload (`zonesim run --fs f2fs`, docs/fs.md).
//! The section's presence turns it on; every key is optional, unset ones take the kernel's
//! default for the main area (zoned or conventional), resolved by `sim`.

use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum FsKind {
    #[default]
    F2fs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FsModeCfg {
    Adaptive,
    Lfs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, Default)]
pub enum FsKernel {
    #[serde(rename = "v6.12")]
    V6_12,
    #[default]
    #[serde(rename = "v6.18")]
    V6_18,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum FsFgVictim {
    #[default]
    Greedy,
    Fifo,
}

/// `[fs]` keys (sysfs / mount-option names where the kernel has one).
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, Default)]
#[serde(deny_unknown_fields, default)]
pub struct FsConfig {
    pub kind: FsKind,
    pub mode: Option<FsModeCfg>,
    pub kernel: FsKernel,
    pub overprovision: Option<f64>,
    pub reserved_segments: Option<u64>,
    pub ipu_policy: Option<u32>,
    pub min_fsync_blocks: Option<u32>,
    pub min_ipu_util: Option<u32>,
    pub background_gc: Option<bool>,
    pub gc_min_sleep_time: Option<u64>,
    pub gc_max_sleep_time: Option<u64>,
    pub gc_no_gc_sleep_time: Option<u64>,
    pub gc_idle_time: Option<u64>,
    pub gc_no_zoned_gc_percent: Option<u32>,
    pub gc_boost_zoned_gc_percent: Option<u32>,
    pub gc_valid_thresh_ratio: Option<u32>,
    pub gc_boost_gc_multiple: Option<u32>,
    pub gc_boost_gc_greedy: Option<u32>,
    pub migration_window_granularity: Option<u32>,
    pub max_victim_search: Option<u32>,
    pub fg_gc_victim: FsFgVictim,
    pub cp_interval: Option<u64>,
    pub dirty_bytes: Option<u64>,
    pub dirty_nodes_cp: Option<u64>,
    pub discard: Option<bool>,
    pub max_bio_bytes: Option<u64>,
    pub page_copy_ns: Option<u64>,
    pub hot_extensions: Option<Vec<String>>,
    pub cold_extensions: Option<Vec<String>>,
    pub gc_copy_offload: bool,
    /// Namespaces of the metadata and main areas; unset: a conventional + a zoned namespace
    /// split as ConZone+ / ZUFS do, else the run's namespace for both.
    pub meta_namespace: Option<usize>,
    pub main_namespace: Option<usize>,
}

impl FsConfig {
    /// The rules of the values that need no device.
    pub fn validate(&self) -> Result<()> {
        let pct = |k: &str, v: Option<u32>| match v {
            Some(x) if x > 100 => Err(Error::config(
                format!("fs.{k}"),
                format!("must be 0..=100 (got {x})"),
            )),
            _ => Ok(()),
        };
        pct("gc_no_zoned_gc_percent", self.gc_no_zoned_gc_percent)?;
        pct("gc_boost_zoned_gc_percent", self.gc_boost_zoned_gc_percent)?;
        pct("gc_valid_thresh_ratio", self.gc_valid_thresh_ratio)?;
        pct("min_ipu_util", self.min_ipu_util)?;
        if let Some(o) = self.overprovision {
            if !(o > 0.0 && o < 100.0) {
                return Err(Error::config(
                    "fs.overprovision",
                    format!("must be a percentage in (0, 100) (got {o})"),
                ));
            }
        }
        if self.ipu_policy.is_some_and(|p| p > 0xff) {
            return Err(Error::config(
                "fs.ipu_policy",
                "must be a bit set of 0x01..0x80 (at most 0xff)",
            ));
        }
        if self.gc_boost_gc_greedy.is_some_and(|g| g > 1) {
            return Err(Error::config("fs.gc_boost_gc_greedy", "must be 0 or 1"));
        }
        if self.gc_boost_gc_multiple == Some(0) || self.migration_window_granularity == Some(0) {
            return Err(Error::config(
                "fs.gc_boost_gc_multiple",
                "gc_boost_gc_multiple and migration_window_granularity must be at least 1",
            ));
        }
        if self
            .max_bio_bytes
            .is_some_and(|b| b < 4096 || b % 4096 != 0)
        {
            return Err(Error::config(
                "fs.max_bio_bytes",
                "must be a positive multiple of 4096",
            ));
        }
        if self.min_fsync_blocks == Some(0) || self.max_victim_search == Some(0) {
            return Err(Error::config(
                "fs.min_fsync_blocks",
                "min_fsync_blocks and max_victim_search must be at least 1",
            ));
        }
        Ok(())
    }
}
