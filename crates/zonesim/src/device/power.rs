//! A power cycle of the whole device (docs/power.md): power fails at a time, every namespace
//! loses what its FTL says (`firmware::power`), power comes back at once and each namespace
//! rebuilds its state (`Ftl::recover`) with its flash reads booked on the array as powered
//! on (nothing in flight: the operations booked past the cut were aborted); what a cut hit
//! and did not lose is then programmed again as background work, counted beside the recovery. The invariants
//! are checked after recovery by the caller.

use super::Device;
use crate::engine::SimTime;
use crate::error::{Error, Result};
use crate::firmware::power::PowerLoss;
use crate::nand::NandArray;

/// What a power cycle did.
#[derive(Debug, Clone, Default)]
pub struct PowerCycle {
    /// When power failed.
    pub cut: SimTime,
    /// What each namespace lost, in namespace order.
    pub losses: Vec<PowerLoss>,
    /// When the last namespace finished its recovery (power came back at `cut`).
    pub recovered: SimTime,
    /// Flash pages read by the recovery (map checkpoint and OOB scan).
    pub recovery_reads: u64,
    /// Flash pages programmed again after the recovery (units a cut hit whose data survived).
    pub reprogrammed_pages: u64,
    /// Nanoseconds from `recovered` until the last of them was programmed (0 with none).
    pub reprogram_ns: u64,
}

impl Device {
    /// Start recording what a power cut would lose, on every namespace. Refused (bad input)
    /// where the model does not know what a cut loses.
    pub fn track_power(&mut self) -> Result<()> {
        let refuse = |key: &str, why: &str| {
            Err(Error::config(
                key,
                format!("a power cut (--power-off-at-request / --power-off-at-us) is not modelled {why}"),
            ))
        };
        if self.cfg.cache.bytes > 0 {
            return refuse(
                "cache.bytes",
                "with the DRAM data cache; set cache.bytes = 0",
            );
        }
        if self.fw.cores.is_some() {
            return refuse(
                "firmware.model",
                "with the cores model; set firmware.model = \"off\"",
            );
        }
        let lag = self.overhead_ns;
        for (i, ns) in self.namespaces.iter_mut().enumerate() {
            if !ns.track_power(lag) {
                let key = if ns.zones().is_some() {
                    "zone.ipu_budget_bytes"
                } else {
                    "slc.conventional_buffer"
                };
                return refuse(
                    key,
                    &format!("on namespace {i} with {key} set (its SLC copies are not tracked)"),
                );
            }
        }
        Ok(())
    }

    /// Power fails at `cut` (with `plp`: the buffers are flushed on stored energy) and comes
    /// back at once; every namespace recovers.
    pub fn power_cycle(&mut self, cut: SimTime, plp: bool) -> PowerCycle {
        self.nand.advance(cut);
        self.link.advance(cut);
        let mut losses = Vec::with_capacity(self.namespaces.len());
        let (mut lent, namespaces) = self.lend(false);
        for ns in namespaces.iter_mut() {
            losses.push(ns.power_cut(&mut lent, cut, plp));
        }
        // Power on: an array with nothing in flight, the same geometry and timing.
        let mut array = NandArray::new(&self.cfg);
        let (mut recovered, mut reprogrammed) = (cut, cut);
        let (mut reads, mut reprogrammed_pages) = (0, 0);
        for ns in &mut self.namespaces {
            let r = ns.recover(&mut array, cut, plp);
            recovered = recovered.max(r.end);
            reads += r.reads;
            reprogrammed = reprogrammed.max(r.reprogrammed);
            reprogrammed_pages += r.reprogrammed_pages;
        }
        // The device goes on from here (the emulation continues after a cut).
        self.nand.power_on(array);
        PowerCycle {
            cut,
            losses,
            recovered,
            recovery_reads: reads,
            reprogrammed_pages,
            reprogram_ns: reprogrammed.since(recovered),
        }
    }
}
