//! Firmware processing cost on the controller CPU (docs/placement.md "Firmware cost"; SUP-GC,
//! SUP-GC §5.3.1: classification work costs throughput on a real controller).
//!
//! One [`Cpu`] per FTL is an analytic timeline (a single busy-until, like a die): a host
//! command takes `ftl.cost.host_cmd_ns` plus, for a write, the policy's `write_ns` per page
//! before the FTL acts on it, so its completion moves by the wait and the work; the pages a GC
//! step moves take the policy's `gc_page_ns` each before they can be programmed. Work is
//! charged at the firmware's decision time, so a saturated CPU delays later commands and the
//! overhead shows in IOPS and latency, not only in counters. All costs 0 (the default for
//! every policy except `bloom`) leaves the timeline untouched.

use crate::config::{CostConfig, PlacementPolicy};
use crate::engine::SimTime;

/// Costs of the configured policy in integer ns.
#[derive(Debug, Clone, Copy, Default)]
pub struct Costs {
    pub host_cmd_ns: u64,
    pub write_ns: u64,
    pub gc_page_ns: u64,
}

impl Costs {
    pub fn new(cfg: &CostConfig, policy: PlacementPolicy) -> Costs {
        let p = cfg.of(policy);
        let ns = |v: f64| v.round() as u64;
        Costs {
            host_cmd_ns: ns(cfg.host_cmd_ns),
            write_ns: ns(p.write_ns),
            gc_page_ns: ns(p.gc_page_ns),
        }
    }
}

/// The controller CPU's timeline.
#[derive(Debug, Clone, Default)]
pub struct Cpu {
    free: SimTime,
    /// Total busy time (ns).
    pub busy_ns: u64,
    /// Time work waited for the CPU (ns).
    pub wait_ns: u64,
}

impl Cpu {
    /// Run `ns` of work ready at `ready`; returns when it is done. Work of 0 ns still waits
    /// for the CPU to be free (a command is dispatched by the firmware); with every cost 0 the
    /// CPU is never busy and this returns `ready`.
    #[inline]
    pub fn run(&mut self, ready: SimTime, ns: u64) -> SimTime {
        if ns == 0 && ready >= self.free {
            return ready;
        }
        let start = ready.max(self.free);
        self.wait_ns += start - ready;
        self.free = start + ns;
        self.busy_ns += ns;
        self.free
    }

    pub fn reset_counters(&mut self) {
        self.busy_ns = 0;
        self.wait_ns = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_serialises_work() {
        let mut c = Cpu::default();
        assert_eq!(c.run(SimTime(100), 0), SimTime(100));
        assert_eq!(c.run(SimTime(100), 50), SimTime(150));
        assert_eq!(c.run(SimTime(120), 50), SimTime(200));
        assert_eq!(
            c.run(SimTime(190), 0),
            SimTime(200),
            "zero work waits for dispatch"
        );
        assert_eq!(c.run(SimTime(500), 10), SimTime(510));
        assert_eq!(c.busy_ns, 110);
        assert_eq!(c.wait_ns, 40);
    }
}
