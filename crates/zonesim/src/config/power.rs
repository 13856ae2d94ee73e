//! `[power]`: power-loss protection, the device's power states and its energy model
//! (docs/power.md). None of these keys changes a run unless a power option is used: a power
//! cut (`zonesim run --power-off-at-request N` / `--power-off-at-us T`) or any `power.*` key
//! set, which also adds the report's `power` section.
//!
//! Sources of the defaults (docs/power.md has the equations):
//! - idle timers: Qualcomm's UFS power-management page, cited by Zoned UFS §3.3 as [40]:
//!   clocks gated after 50 ms idle at the maximum clock (10 ms scaled down), auto-hibern8
//!   after 150 ms idle;
//! - NAND currents: ONFI-class NAND datasheets (Micron MT29F MLC/TLC parts) list the array
//!   read, program and erase currents ICC1-ICC3 at 25 mA typical on a 3.3 V VCC;
//! - clock gating on the dispatch path (`clock_gating`): Linux's UFS host driver
//!   (drivers/ufs/core/ufshcd.c: `ufshcd_hold`, `ufshcd_init_clk_gating`, whose default
//!   gating delay is 150 ms) and Zoned UFS §3.3/§4.3 (requeueing while the clocks are gated,
//!   and synchronous ungating, its reference [8]);
//! - the controller's power per state and the transfer energy are assumed set points,
//!   chosen so that a saturating write run stays inside the ~1 W envelope of UFS devices
//!   (Zoned UFS §2.1, Fig. 1); docs/power.md says so beside them.

use super::declare::{choice, section};
use super::rule::{float, free};

choice! {
    /// What a request dispatched to the device meets while the clocks are gated or coming back
    /// (`power.clock_gating`, sim/clock_gating.rs).
    #[derive(Default)]
    pub enum ClockGating {
        /// No clock gating on the dispatch path: the power states are counted between requests
        /// and the first request after an idle gap waits for the wake-up (docs/power.md).
        #[default]
        Off = "off",
        /// The UFS driver rejects a request dispatched while the clocks are gated or ungating
        /// and the block layer requeues it: it is dispatched again `host.requeue_delay_us`
        /// after the clocks are back, overtaken by what is dispatched meanwhile (Linux's
        /// `ufshcd_hold` before synchronous ungating; Zoned UFS §3.3).
        Requeue = "requeue",
        /// Synchronous ungating: a request dispatched while the clocks are gated or ungating
        /// waits for them, and all such requests reach the device in dispatch order (Zoned UFS
        /// §4.3, its reference [8]).
        Wait = "wait",
    }
}

impl ClockGating {
    /// The mechanism is off (the default).
    pub fn is_off(&self) -> bool {
        *self == ClockGating::Off
    }
}

section! {
    /// `[power]`: power loss, power states and energy.
    #[derive(Debug, Clone, PartialEq)]
    pub struct PowerConfig [Default] {
        /// Power-loss protection: on a power cut the device flushes its write buffer and
        /// finishes the programs in flight on stored energy, so nothing acknowledged is lost.
        /// Off on consumer (phone) storage (ConZone+ §2).
        pub plp: bool = false, free();
        /// Host-idle time after which the device's clocks are gated (the `clock_gated`
        /// state).
        pub clock_gate_after_us: f64 = 50_000.0, float(1.0, 1e9).unit("µs");
        /// Time to ungate the clocks when a request arrives in the `clock_gated` state.
        pub ungate_us: f64 = 20.0, float(0.0, 1e6).unit("µs");
        /// Clock gating on the dispatch path: `off`, `requeue` (a request dispatched while the
        /// clocks are gated or ungating is requeued by the block layer and may be overtaken:
        /// Zoned UFS §3.3's ordering violations) or `wait` (synchronous ungating, Zoned UFS
        /// §4.3). Not with `host.requeue_probability` > 0, its abstract stand-in.
        #[serde(skip_serializing_if = "ClockGating::is_off")]
        pub clock_gating: ClockGating = ClockGating::Off, free();
        /// Host-idle time after which the link enters hibern8 (auto-hibern8); not below
        /// `clock_gate_after_us`.
        pub hibern8_after_us: f64 = 150_000.0, float(1.0, 1e9).unit("µs");
        /// Time to leave hibern8 when a request arrives in the `hibern8` state.
        pub hibern8_exit_us: f64 = 600.0, float(0.0, 1e6).unit("µs");
        /// Power of the controller, SRAM and link while requests are in the device
        /// (`active`), flash operations excluded.
        pub active_w: f64 = 0.35, float(0.0, 100.0).unit("W");
        /// Power while no request is in the device and the clocks run (`idle`).
        pub idle_w: f64 = 0.08, float(0.0, 100.0).unit("W");
        /// Power with the clocks gated (`clock_gated`).
        pub clock_gated_w: f64 = 0.02, float(0.0, 100.0).unit("W");
        /// Power with the link in hibern8 (`hibern8`).
        pub hibern8_w: f64 = 0.002, float(0.0, 100.0).unit("W");
        /// NAND supply voltage (VCC) of the array operations.
        pub nand_vcc_v: f64 = 3.3, float(0.5, 12.0).unit("V");
        /// Current of a die during an array read, program or erase (ICC1-ICC3).
        pub nand_active_ma: f64 = 25.0, float(0.0, 1000.0).unit("mA");
        /// Energy to move one byte between host, controller and flash (host link and flash
        /// channel).
        pub transfer_pj_per_byte: f64 = 80.0, float(0.0, 1e6).unit("pJ");
    }
}

impl PowerConfig {
    /// Every key at its default: the run has no power option from the config.
    pub fn is_default(&self) -> bool {
        *self == PowerConfig::default()
    }
}
