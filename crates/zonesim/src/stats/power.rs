//! The report's `power` section (docs/power.md, docs/report.md): what a power cut lost and
//! how long recovery took, the time in each power state, the energy and the average power.
//! Present only in runs with a power option (a cut, or a `power.*` key set); the numbers
//! come from `sim/power.rs`.

use serde::Serialize;

/// Acknowledged pages lost, by reason.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct LossReasons {
    /// Still in the write buffer (or a partial program unit in controller RAM).
    pub buffer: u64,
    /// In a program that had not ended.
    pub program: u64,
    /// On the word line before an interrupted program (MLC/TLC/QLC).
    pub paired_page: u64,
}

/// What one namespace lost at the cut.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct NamespaceLoss {
    pub namespace: usize,
    /// Write commands acknowledged to the host with at least one page lost.
    pub lost_acknowledged_writes: u64,
    /// Bytes of acknowledged data lost (4 KiB per page).
    pub lost_acknowledged_bytes: u64,
    /// Logical pages lost, acknowledged or not (writes in flight at the cut included).
    pub lost_pages: u64,
    /// Acknowledged pages lost although a completed flush covered them (0: the flush contract
    /// held).
    pub lost_after_flush: u64,
    pub lost_by_reason: LossReasons,
    /// Pages flushed from the buffer on stored energy (power-loss protection).
    pub plp_flushed_pages: u64,
}

/// Time in each power state, µs.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct PowerStates {
    /// Requests in the device (and the wake-up before them, and recovery).
    pub active_us: f64,
    /// No request, clocks running.
    pub idle_us: f64,
    /// Clocks gated.
    pub clock_gated_us: f64,
    /// Link in hibern8.
    pub hibern8_us: f64,
    /// Requests that found the clocks gated (and paid `power.ungate_us`).
    pub ungates: u64,
    /// Requests that found the link in hibern8 (and paid `power.hibern8_exit_us`).
    pub hibern8_exits: u64,
    /// Times the clocks were gated: idle gaps of at least `power.clock_gate_after_us`, the
    /// last one too if the run ends gated (`power.clock_gating` on only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gatings: Option<u64>,
    /// Requests dispatched while the clocks were gated or ungating and requeued by the block
    /// layer (`power.clock_gating` on only; 0 with `wait`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub requeues: Option<u64>,
    /// Requests dispatched while the clocks were gated or ungating that waited for them
    /// (`power.clock_gating` on only; 0 with `requeue`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ungate_waits: Option<u64>,
}

/// Energy by component, J.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct EnergyParts {
    /// Controller, SRAM and link by state (power per state x time in it).
    pub states_j: f64,
    /// Array reads, programs and erases (VCC x ICC x the operation's time).
    pub read_j: f64,
    pub program_j: f64,
    pub erase_j: f64,
    /// Bytes moved over the host link and the flash channels.
    pub transfer_j: f64,
}

/// The `power` section.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct PowerReport {
    /// Power-loss protection (`power.plp`).
    pub plp: bool,
    /// When power was cut, µs after the measured run started (absent: no cut; the last cut of a
    /// run that went on after its cuts).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cut_at_us: Option<f64>,
    /// Power cuts of a run that went on after recovery (the emulation, a scenario's
    /// `power_off` steps): the losses, recovery time and reads below are their sums. Absent in
    /// a run that ends at its one cut.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cuts: Option<u64>,
    /// Write commands acknowledged to the host and lost, over every namespace.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lost_acknowledged_writes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lost_acknowledged_bytes: Option<u64>,
    /// Per namespace, with the reasons.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub namespaces: Vec<NamespaceLoss>,
    /// Time from power-on to the end of recovery (map checkpoint read, OOB scan).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recovery_us: Option<f64>,
    /// Flash pages the recovery read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recovery_reads: Option<u64>,
    /// Flash pages programmed again after the recovery, as background work (the units a cut
    /// tore or disturbed whose data survived in another copy); not part of `recovery_us`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reprogrammed_pages: Option<u64>,
    /// Time from the end of recovery until the last of those pages was programmed (0: none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reprogram_us: Option<f64>,
    /// Energy of the run, J, and its parts.
    pub energy_j: f64,
    pub energy: EnergyParts,
    /// `energy_j` over the simulated time of the run.
    pub average_w: f64,
    pub states: PowerStates,
}
