//! What a namespace reports about itself ([`super::Ftl::report`]): its entry of
//! `device.namespaces` (docs/report.md, docs/zoned.md), tagged by its kind, and the details
//! of mechanisms the device summarises over several namespaces (the superblock GC's victim
//! statistics and placement, `device.gc`). Each kind builds its own entry, as a component
//! of MQSim reports itself; the device collects them in namespace order. The structs are
//! typed, derive `Serialize` and make no JSON (`stats` serializes the report).

use super::alloc::placement::Placement;
use super::conventional::ConventionalNsReport;
use super::cost::Cpu;
use super::gc::GcStats;
use super::zoned::ZonedNsReport;
use serde::Serialize;

/// What one namespace reports: its entry and the details the device summarises.
pub struct NsReport<'a> {
    /// Its entry of `device.namespaces`.
    pub entry: NamespaceReport,
    /// Its superblock GC, if it collects superblocks.
    pub gc: Option<GcDetail<'a>>,
}

/// The superblock GC of one namespace, beyond its counters: summarised in `device.gc`
/// (docs/placement.md).
pub struct GcDetail<'a> {
    /// Pages moved per victim, victims per stream.
    pub stats: &'a GcStats,
    /// Write streams of its placement.
    pub streams: usize,
    /// Its placement policy (`device.gc.placement`).
    pub placement: &'a Placement,
    /// The controller cores its firmware cost runs on (firmware/cost.rs).
    pub cpu: &'a Cpu,
}

/// `device.namespaces[i]`, tagged by `kind`. Built once per report for a few namespaces, so
/// the variants are not boxed.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum NamespaceReport {
    Conventional(ConventionalNsReport),
    Zoned(ZonedNsReport),
}

impl NamespaceReport {
    pub fn id(&self) -> usize {
        match self {
            NamespaceReport::Conventional(n) => n.id,
            NamespaceReport::Zoned(n) => n.id,
        }
    }

    /// The `kind` key: `conventional` or `zoned`.
    pub fn kind(&self) -> &'static str {
        match self {
            NamespaceReport::Conventional(_) => "conventional",
            NamespaceReport::Zoned(_) => "zoned",
        }
    }

    pub fn capacity_bytes(&self) -> u64 {
        match self {
            NamespaceReport::Conventional(n) => n.capacity_bytes,
            NamespaceReport::Zoned(n) => n.capacity_bytes,
        }
    }

    /// Its conventional part, if it is conventional (readers ask this instead of matching
    /// every kind, so a new kind leaves them as they are).
    pub fn conventional(&self) -> Option<&ConventionalNsReport> {
        match self {
            NamespaceReport::Conventional(n) => Some(n),
            _ => None,
        }
    }

    /// Its zoned part, if it is zoned.
    pub fn zoned(&self) -> Option<&ZonedNsReport> {
        match self {
            NamespaceReport::Zoned(n) => Some(n),
            _ => None,
        }
    }
}
