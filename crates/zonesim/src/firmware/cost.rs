//! Firmware processing cost on the controller CPU (docs/placement.md "Firmware cost"; SUP-GC
//! §5.3.1: classification work costs throughput on a real controller; §5.1: the Cosmos+
//! controller is a Zynq-7000 with two ARM Cortex-A9 cores).
//!
//! One [`Cpu`] per FTL: `ftl.cost.cores` analytic timelines (each a single busy-until, like a
//! die). A job is work that one core runs without a break: a host command's
//! `ftl.cost.host_cmd_ns` plus, for a write, the policy's cost of classifying its pages, or the
//! classification of the survivors of one GC read. It takes the core that is free first (the
//! lowest-numbered among equals), from when it is ready, so commands contend with each other
//! and with GC's classification for the cores; its completion moves by the wait and the work.
//! Work is charged at the firmware's decision time, so saturated cores delay later commands
//! and the overhead shows in IOPS and latency, not only in counters. All costs 0 (the default
//! for every policy except `bloom`) leaves the timelines untouched; one core (the default) is
//! the single timeline this room had before it had cores.
//!
//! The `bloom` classifier can be charged per hash evaluation (`ftl.cost.bloom_hash_ns`) at
//! the filters' current fill, which the classifier estimates (placement/bloom.rs): fuller
//! filters evaluate more hashes per probe, so the cost follows their saturation.

use crate::config::{CostConfig, PlacementPolicy};
use crate::engine::SimTime;
use crate::firmware::alloc::placement::Placement;

/// Costs of the configured policy in integer ns.
#[derive(Debug, Clone, Copy, Default)]
pub struct Costs {
    pub host_cmd_ns: u64,
    pub write_ns: u64,
    pub gc_page_ns: u64,
    /// `bloom` only: ns per hash evaluation (0: the fixed `write_ns` / `gc_page_ns` apply).
    pub bloom_hash_ns: u64,
}

impl Costs {
    pub fn new(cfg: &CostConfig, policy: PlacementPolicy) -> Costs {
        let p = cfg.of(policy);
        let ns = |v: f64| v.round() as u64;
        let bloom_hash_ns = if policy == PlacementPolicy::Bloom {
            ns(cfg.bloom_hash_ns)
        } else {
            0
        };
        Costs {
            host_cmd_ns: ns(cfg.host_cmd_ns),
            write_ns: ns(p.write_ns),
            gc_page_ns: ns(p.gc_page_ns),
            bloom_hash_ns,
        }
    }

    /// Controller time to classify one host page written (`placement` at its current state).
    #[inline]
    pub fn write_page_cost(&self, placement: &Placement) -> u64 {
        if self.bloom_hash_ns == 0 {
            return self.write_ns;
        }
        hashed(
            self.bloom_hash_ns,
            placement.bloom_hashes(false),
            self.write_ns,
        )
    }

    /// Controller time to classify one page moved by GC.
    #[inline]
    pub fn gc_page_cost(&self, placement: &Placement) -> u64 {
        if self.bloom_hash_ns == 0 {
            return self.gc_page_ns;
        }
        hashed(
            self.bloom_hash_ns,
            placement.bloom_hashes(true),
            self.gc_page_ns,
        )
    }
}

/// `hashes` evaluations of `hash_ns` each (`fixed` when the placement evaluates none).
#[inline]
fn hashed(hash_ns: u64, hashes: Option<f64>, fixed: u64) -> u64 {
    hashes.map_or(fixed, |h| (h * hash_ns as f64).round() as u64)
}

/// Most controller cores (`ftl.cost.cores`).
pub const MAX_CORES: usize = 64;

/// The controller cores' timelines.
#[derive(Debug, Clone)]
pub struct Cpu {
    /// When each core is next free; `cores` of them are in use.
    free: [SimTime; MAX_CORES],
    cores: usize,
    /// Busy time per core (ns).
    core_busy_ns: [u64; MAX_CORES],
    /// Total busy time (ns).
    pub busy_ns: u64,
    /// Time work waited for a core (ns).
    pub wait_ns: u64,
}

impl Default for Cpu {
    fn default() -> Cpu {
        Cpu::new(1)
    }
}

impl Cpu {
    /// `cores` controller cores (1 to [`MAX_CORES`]; clamped), all free at time 0.
    pub fn new(cores: u32) -> Cpu {
        Cpu {
            free: [SimTime::ZERO; MAX_CORES],
            cores: (cores as usize).clamp(1, MAX_CORES),
            core_busy_ns: [0; MAX_CORES],
            busy_ns: 0,
            wait_ns: 0,
        }
    }

    /// The core that is free first (lowest index among equals).
    #[inline]
    fn first_free(&self) -> usize {
        let mut best = 0;
        for c in 1..self.cores {
            if self.free[c] < self.free[best] {
                best = c;
            }
        }
        best
    }

    /// Run a job of `ns` ready at `ready` on the core free first; returns when it is done.
    /// A job of 0 ns still waits for a core to be free (a command is dispatched by the
    /// firmware); with every cost 0 the cores are never busy and this returns `ready`.
    #[inline]
    pub fn run(&mut self, ready: SimTime, ns: u64) -> SimTime {
        self.run_job(ready, ns).1
    }

    /// [`Cpu::run`], also naming the core the job ran on.
    #[inline]
    pub fn run_job(&mut self, ready: SimTime, ns: u64) -> (usize, SimTime) {
        let c = self.first_free();
        if ns == 0 && ready >= self.free[c] {
            return (c, ready);
        }
        let start = ready.max(self.free[c]);
        self.wait_ns += start - ready;
        self.free[c] = start + ns;
        self.busy_ns += ns;
        self.core_busy_ns[c] += ns;
        (c, self.free[c])
    }

    /// Number of cores.
    pub fn cores(&self) -> usize {
        self.cores
    }

    /// Busy time of each core (ns), one entry per core.
    pub fn core_busy_ns(&self) -> &[u64] {
        &self.core_busy_ns[..self.cores]
    }

    pub fn reset_counters(&mut self) {
        self.busy_ns = 0;
        self.wait_ns = 0;
        self.core_busy_ns = [0; MAX_CORES];
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

    #[test]
    fn one_core_is_the_single_timeline() {
        // The same jobs on Cpu::new(1) and on the default: same ends, same counters.
        let jobs = [(100, 50), (120, 50), (190, 0), (500, 10), (505, 7)];
        let (mut a, mut b) = (Cpu::new(1), Cpu::default());
        for (r, ns) in jobs {
            assert_eq!(a.run(SimTime(r), ns), b.run(SimTime(r), ns));
        }
        assert_eq!((a.busy_ns, a.wait_ns), (b.busy_ns, b.wait_ns));
        assert_eq!(a.core_busy_ns(), &[a.busy_ns]);
    }

    #[test]
    fn jobs_land_on_the_configured_cores() {
        // Two jobs ready at once run side by side on two cores; a third waits for the first
        // core to free.
        let mut c = Cpu::new(2);
        assert_eq!(c.run_job(SimTime(0), 100), (0, SimTime(100)));
        assert_eq!(c.run_job(SimTime(0), 100), (1, SimTime(100)));
        assert_eq!(c.run_job(SimTime(0), 30), (0, SimTime(130)));
        assert_eq!(c.core_busy_ns(), &[130, 100]);
        assert_eq!(c.wait_ns, 100);
        // Four cores: four jobs at once wait for nothing; the fifth waits.
        let mut c = Cpu::new(4);
        for k in 0..4 {
            assert_eq!(c.run_job(SimTime(0), 10), (k, SimTime(10)));
        }
        assert_eq!(c.run(SimTime(0), 10), SimTime(20));
        assert_eq!(c.cores(), 4);
    }

    #[test]
    fn bloom_hash_cost_replaces_the_fixed_one_only_when_set() {
        let cfg = |sets: &[&str]| {
            let v: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
            crate::load_device("ufs-conventional", &v).expect("valid")
        };
        let off = cfg(&["ftl.gc.placement=bloom"]);
        let c = Costs::new(&off.ftl.cost, off.ftl.gc.placement);
        let p = Placement::new(&off.ftl.gc, 1 << 16, 1);
        assert_eq!(c.write_page_cost(&p), c.write_ns);
        assert_eq!(c.gc_page_cost(&p), c.gc_page_ns);
        let on = cfg(&["ftl.gc.placement=bloom", "ftl.cost.bloom_hash_ns=20"]);
        let c = Costs::new(&on.ftl.cost, on.ftl.gc.placement);
        let p = Placement::new(&on.ftl.gc, 1 << 16, 1);
        // Empty filters: each of the V = 4 probes stops at its first hash, then k to set.
        let k = match &p {
            Placement::Bloom(b) => b.hash_functions(),
            _ => unreachable!(),
        };
        assert_eq!(c.write_page_cost(&p), 20 * (4 + k));
        assert_eq!(c.gc_page_cost(&p), 20 * 4);
        // Not bloom: the hash cost does not apply.
        let s = cfg(&["ftl.cost.bloom_hash_ns=20"]);
        assert_eq!(Costs::new(&s.ftl.cost, s.ftl.gc.placement).bloom_hash_ns, 0);
    }

    use proptest::prelude::*;

    proptest! {
        /// Whatever the jobs, no core runs two at once, no job starts before it is ready, and
        /// the busy time per core adds up to the total.
        #[test]
        fn core_timelines_never_overlap(
            cores in 1u32..6,
            jobs in proptest::collection::vec((0u64..5_000, 0u64..400), 1..200),
        ) {
            let mut c = Cpu::new(cores);
            let mut booked: Vec<Vec<(u64, u64)>> = vec![Vec::new(); cores as usize];
            let mut ready = 0;
            for (gap, ns) in jobs {
                // Ready times mostly rise, as the firmware's decision times do, with some
                // work (GC) ready earlier than the last command.
                ready = (ready + gap).saturating_sub(if gap % 3 == 0 { 2_000 } else { 0 });
                let (core, end) = c.run_job(SimTime(ready), ns);
                prop_assert!(core < cores as usize);
                prop_assert!(end.0 >= ready + ns);
                if ns > 0 {
                    booked[core].push((end.0 - ns, end.0));
                }
            }
            for (k, b) in booked.iter().enumerate() {
                for w in b.windows(2) {
                    prop_assert!(w[0].1 <= w[1].0, "core {k}: {:?} overlaps {:?}", w[0], w[1]);
                }
                let busy: u64 = b.iter().map(|(s, e)| e - s).sum();
                prop_assert_eq!(busy, c.core_busy_ns()[k]);
            }
            prop_assert_eq!(c.core_busy_ns().iter().sum::<u64>(), c.busy_ns);
        }
    }
}
