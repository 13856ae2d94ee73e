//! Power in a run (docs/power.md): the power cut (`--power-off-at-request N`,
//! `--power-off-at-us T`), the device's power states while the host idles, and the energy
//! model. Off (no power option, every `power.*` key at its default) the run pays two integer
//! compares per event and reports nothing of it.
//!
//! Power states follow the UFS host driver's idle timers (Qualcomm's UFS power-management
//! states, cited by Zoned UFS §3.3 as [40]): after `power.clock_gate_after_us` without a
//! request in the device its clocks are gated; after `power.hibern8_after_us` the link enters
//! hibern8. A request arriving in either state waits for the ungate (`power.ungate_us`) or the
//! hibern8 exit (`power.hibern8_exit_us`) before it reaches the device.
//!
//! Energy (J) = Σ_state P_state · t_state + VCC · ICC · (page reads · tR + programmed pages /
//! (u · planes) · tPROG + erased blocks / planes · tBERS) + e_byte · bytes moved, with u the
//! pages of a word line (a die's multi-plane program or erase draws ICC once, for its time).

use super::clock_gating::ClockGating;
use crate::config::PowerConfig;
use crate::device::{Device, PowerCycle};
use crate::engine::SimTime;
use crate::nand::SLOT_BYTES;
use crate::stats::power::{EnergyParts, LossReasons, NamespaceLoss, PowerReport, PowerStates};

/// When a run cuts power.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PowerOff {
    /// Once the N-th request of the measured run is issued (requests issued before it and
    /// not completed are in flight at the cut).
    AtRequest(u64),
    /// At this simulated time, µs after the measured run started.
    AtUs(f64),
}

/// The power model of one measured run: the cut it waits for and the states it counts.
pub(super) struct PowerRun {
    cfg: PowerConfig,
    start: SimTime,
    /// When the last request left the device (None: requests are in it).
    idle_since: Option<SimTime>,
    gate_ns: u64,
    h8_ns: u64,
    states: PowerStates,
    /// Nanoseconds spent idle, gated, in hibern8 and waking (summed, exact).
    idle_ns: u64,
    gated_ns: u64,
    hibern8_ns: u64,
    /// Times the clocks were gated (idle gaps of at least the gating delay).
    gatings: u64,
}

impl PowerRun {
    pub fn new(cfg: &PowerConfig, start: SimTime) -> PowerRun {
        PowerRun {
            cfg: cfg.clone(),
            start,
            idle_since: Some(start),
            gate_ns: SimTime::from_us(cfg.clock_gate_after_us).ns(),
            h8_ns: SimTime::from_us(cfg.hibern8_after_us).ns(),
            states: PowerStates::default(),
            idle_ns: 0,
            gated_ns: 0,
            hibern8_ns: 0,
            gatings: 0,
        }
    }

    /// A request enters the device at `now` with none in it: count the idle gap by state and
    /// return when the device is awake for it (`now` if it never slept).
    pub fn wake(&mut self, now: SimTime) -> SimTime {
        let Some(since) = self.idle_since.take() else {
            return now;
        };
        self.count_gap(now.since(since));
        let gap = now.since(since);
        let us = if gap >= self.h8_ns {
            self.states.hibern8_exits += 1;
            self.cfg.hibern8_exit_us
        } else if gap >= self.gate_ns {
            self.states.ungates += 1;
            self.cfg.ungate_us
        } else {
            0.0
        };
        now + SimTime::from_us(us).ns()
    }

    /// An idle gap of `gap` ns ended: its time by state, and a clock gating if it lasted the
    /// gating delay.
    fn count_gap(&mut self, gap: u64) {
        self.idle_ns += gap.min(self.gate_ns);
        self.gated_ns += gap.clamp(self.gate_ns, self.h8_ns) - self.gate_ns;
        self.hibern8_ns += gap.saturating_sub(self.h8_ns);
        self.gatings += u64::from(gap >= self.gate_ns);
    }

    /// The last request left the device at `now`.
    pub fn sleep(&mut self, now: SimTime) {
        self.idle_since = Some(now);
    }

    /// The section at the end of the run (`end`: the last event, or the end of recovery);
    /// `cycle`: the power cut, if there was one; `gating`: clock gating on the dispatch path,
    /// when on (its events are reported then).
    pub fn report(
        mut self,
        dev: &Device,
        end: SimTime,
        cycle: Option<&PowerCycle>,
        host_bytes: u64,
        gating: Option<&ClockGating>,
    ) -> PowerReport {
        if let Some(since) = self.idle_since.take().filter(|_| cycle.is_none()) {
            self.count_gap(end.since(since));
        }
        let total = end.since(self.start);
        let asleep = self.idle_ns + self.gated_ns + self.hibern8_ns;
        let c = &self.cfg;
        let mut s = self.states;
        s.active_us = total.saturating_sub(asleep) as f64 / 1e3;
        s.idle_us = self.idle_ns as f64 / 1e3;
        s.clock_gated_us = self.gated_ns as f64 / 1e3;
        s.hibern8_us = self.hibern8_ns as f64 / 1e3;
        if let Some(g) = gating {
            s.gatings = Some(self.gatings);
            let (requeued, waited) = if g.requeues() {
                (g.held, 0)
            } else {
                (0, g.held)
            };
            (s.requeues, s.ungate_waits) = (Some(requeued), Some(waited));
        }
        let states_j = (s.active_us * c.active_w
            + s.idle_us * c.idle_w
            + s.clock_gated_us * c.clock_gated_w
            + s.hibern8_us * c.hibern8_w)
            / 1e6;
        let f = &dev.nand.counters;
        let t = dev.cfg.nand.timing.of(dev.cfg.nand.cell);
        // One operation of a die draws ICC for its array time: a multi-plane program of a word
        // line on every plane (u x planes pages), a multi-plane erase (one block per plane).
        let planes = dev.cfg.nand.planes_per_die as f64;
        let per_program = dev.cfg.nand.cell.program_unit_pages() as f64 * planes;
        let recovery_reads = cycle.map_or(0, |c| c.recovery_reads);
        let vi = c.nand_vcc_v * c.nand_active_ma / 1e3; // W while a die operates
        let read_j = vi * (f.page_reads + recovery_reads) as f64 * t.read_us / 1e6;
        let program_j = vi * f.page_programs as f64 / per_program * t.program_us / 1e6;
        let erase_j = vi * f.block_erases as f64 / planes * t.erase_us / 1e6;
        let moved = host_bytes + (f.programmed_slots + f.page_reads) * SLOT_BYTES;
        let transfer_j = c.transfer_pj_per_byte * moved as f64 / 1e12;
        let energy = EnergyParts {
            states_j,
            read_j,
            program_j,
            erase_j,
            transfer_j,
        };
        let energy_j = states_j + read_j + program_j + erase_j + transfer_j;
        let mut r = PowerReport {
            plp: c.plp,
            energy_j,
            energy,
            average_w: energy_j / (total as f64 / 1e9).max(1e-12),
            states: s,
            ..PowerReport::default()
        };
        if let Some(cy) = cycle {
            r.cut_at_us = Some(cy.cut.since(self.start) as f64 / 1e3);
            r.recovery_us = Some(cy.recovered.since(cy.cut) as f64 / 1e3);
            r.recovery_reads = Some(cy.recovery_reads);
            r.reprogrammed_pages = Some(cy.reprogrammed_pages);
            r.reprogram_us = Some(cy.reprogram_ns as f64 / 1e3);
            r.namespaces = cy
                .losses
                .iter()
                .enumerate()
                .map(|(i, l)| NamespaceLoss {
                    namespace: i,
                    lost_acknowledged_writes: l.lost_acknowledged_writes,
                    lost_acknowledged_bytes: l.lost_acknowledged_pages * SLOT_BYTES,
                    lost_pages: l.lost_lpas.len() as u64,
                    lost_after_flush: l.lost_after_flush,
                    lost_by_reason: LossReasons {
                        buffer: l.by_reason[0],
                        program: l.by_reason[1],
                        paired_page: l.by_reason[2],
                    },
                    plp_flushed_pages: l.plp_flushed_pages,
                })
                .collect();
            r.lost_acknowledged_writes = Some(
                r.namespaces
                    .iter()
                    .map(|n| n.lost_acknowledged_writes)
                    .sum(),
            );
            r.lost_acknowledged_bytes =
                Some(r.namespaces.iter().map(|n| n.lost_acknowledged_bytes).sum());
        }
        r
    }
}

/// The cuts of a run that went on after each recovery, folded into one cycle for the report:
/// the last cut's time, the losses, recovery reads and re-programming (pages and time) summed,
/// the recovery ending the sum of the recovery times after the last cut (so `recovery_us` is
/// the total).
pub fn fold_cycles(cycles: &[PowerCycle]) -> Option<PowerCycle> {
    let last = cycles.last()?;
    let mut out = PowerCycle {
        cut: last.cut,
        losses: Vec::new(),
        recovered: last.cut,
        ..PowerCycle::default()
    };
    for c in cycles {
        out.recovered += c.recovered.since(c.cut);
        out.recovery_reads += c.recovery_reads;
        out.reprogrammed_pages += c.reprogrammed_pages;
        out.reprogram_ns += c.reprogram_ns;
        for (i, l) in c.losses.iter().enumerate() {
            match out.losses.get_mut(i) {
                Some(a) => a.add(l),
                None => out.losses.push(l.clone()),
            }
        }
    }
    Some(out)
}

/// The `power` section of a run that went on after its cuts (the emulation handle, a
/// scenario): no power states between requests (the device counts as active from `start` to
/// `end`), the energy of everything the device did, and the cuts folded by [`fold_cycles`].
pub fn report_cuts(
    dev: &Device,
    start: SimTime,
    end: SimTime,
    cycles: &[PowerCycle],
    host_bytes: u64,
) -> PowerReport {
    let folded = fold_cycles(cycles);
    let mut p = PowerRun::new(&dev.cfg.power, start);
    p.idle_since = None;
    let mut r = p.report(dev, end, folded.as_ref(), host_bytes, None);
    r.cuts = Some(cycles.len() as u64);
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn idle_gaps_split_by_the_timers_and_wake_costs() {
        let cfg = PowerConfig {
            clock_gate_after_us: 10.0,
            hibern8_after_us: 100.0,
            ungate_us: 1.0,
            hibern8_exit_us: 50.0,
            ..PowerConfig::default()
        };
        let mut p = PowerRun::new(&cfg, SimTime::ZERO);
        assert_eq!(p.wake(SimTime::ZERO), SimTime::ZERO); // first request at the start: awake
        p.sleep(SimTime::from_us(5.0));
        assert_eq!(p.wake(SimTime::from_us(10.0)), SimTime::from_us(10.0)); // 5 µs: idle only
        p.sleep(SimTime::from_us(20.0));
        assert_eq!(p.wake(SimTime::from_us(50.0)), SimTime::from_us(51.0)); // gated: ungate
        p.sleep(SimTime::from_us(60.0));
        assert_eq!(p.wake(SimTime::from_us(260.0)), SimTime::from_us(310.0)); // hibern8 exit
        assert_eq!(p.idle_ns, 5_000 + 10_000 + 10_000);
        assert_eq!(p.gated_ns, 20_000 + 90_000);
        assert_eq!(p.hibern8_ns, 100_000);
        assert_eq!((p.states.ungates, p.states.hibern8_exits), (1, 1));
    }
}
