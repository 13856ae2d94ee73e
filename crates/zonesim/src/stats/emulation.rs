//! `emulation`: the report section of a device driven by real software (`emu`: the fio
//! ioengine, the FUSE disk) — data store and verify, pacing, trace capture, rejected requests.
//! Absent from simulation runs, whose reports are unchanged.

use serde::Serialize;

#[derive(Debug, Clone, Serialize)]
pub struct EmulationReport {
    pub store: StoreReport,
    pub pacing: PacingReport,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub record: Option<RecordReport>,
    /// Requests the device answered with an error, by reason.
    pub rejected: RejectedReport,
}

/// `emulation.store`: the data kept (`--store`) and the checks of `--verify`.
#[derive(Debug, Clone, Serialize)]
pub struct StoreReport {
    /// `none`, `memory` or `sparse`.
    pub kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    pub verify: bool,
    pub bytes_written: u64,
    pub bytes_read: u64,
    pub bytes_trimmed: u64,
    /// Pages held in memory at the end (`memory`).
    pub resident_pages: u64,
    /// Pages read and checked against their last write (`verify`).
    pub pages_verified: u64,
    /// Pages read whose data differs from their last write (must be 0).
    pub mismatches: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_mismatch_offset: Option<u64>,
    /// The device state saved beside a `sparse:PATH` store (absent for other stores).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub persist: Option<PersistReport>,
}

/// `emulation.store.persist`: the command log of a `sparse:PATH` store (`emu::persist`).
#[derive(Debug, Clone, Serialize)]
pub struct PersistReport {
    /// The metadata file (`PATH.zsmeta`).
    pub metadata: String,
    /// Whether this run resumed the store (`--resume`, `zs_resume=1`).
    pub resumed: bool,
    /// Commands of earlier runs replayed to bring the device back.
    pub replayed_commands: u64,
    /// Wall seconds the replay took.
    pub replay_wall_s: f64,
    /// Commands in the log now (earlier runs' and this one's).
    pub logged_commands: u64,
    /// Bytes of the metadata file.
    pub log_bytes: u64,
}

/// `emulation.pacing` (`--pace`).
#[derive(Debug, Clone, Serialize)]
pub struct PacingReport {
    /// `virtual` or `realtime`.
    pub mode: &'static str,
    /// Completions delivered against the wall clock (0 with `virtual`).
    pub paced: u64,
    /// How late completions were delivered past their simulated completion, µs.
    pub error_us: PacingError,
}

#[derive(Debug, Clone, Serialize, Default)]
pub struct PacingError {
    pub p50: f64,
    pub p99: f64,
    pub max: f64,
}

/// `emulation.record` (`--record FILE`).
#[derive(Debug, Clone, Serialize)]
pub struct RecordReport {
    pub file: String,
    /// `iolog` or `blkparse`.
    pub format: &'static str,
    /// Requests written to the trace.
    pub requests: u64,
    /// Requests the format cannot carry (zone management), not written.
    pub skipped: u64,
}

/// `emulation.rejected`: requests answered with an error.
#[derive(Debug, Clone, Serialize, Default)]
pub struct RejectedReport {
    /// Reaching past the namespace.
    pub out_of_range: u64,
    /// Refused by a zone rule (also in `device.zones.errors`).
    pub zone_rule: u64,
    /// Data store failures and verify mismatches.
    pub data: u64,
}
