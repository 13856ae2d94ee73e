//! `[host]`: the host link, the host's submission queues and how zoned writes are dispatched.

use super::declare::{choice, section};
use super::rule::{float, free, int, Spec};

/// Largest `host.queues` (NVMe: 64 Ki I/O queue pairs).
pub const MAX_HOST_QUEUES: u32 = 65536;

/// A host-side delay: at most 10 s, as the NAND timings.
const HOST_US: Spec = float(0.0, 1e7).unit("µs");

choice! {
    /// Host queue arbitration (`host.arbitration`, NVMe §4.13).
    #[derive(Default)]
    pub enum Arbitration {
        /// Round robin over the submission queues.
        #[default]
        Rr = "rr",
        /// Weighted round robin with priority classes: urgent queues first, then high, medium
        /// and low in the ratio of `host.wrr_weights`.
        Wrr = "wrr",
    }
}

choice! {
    /// Priority class of a submission queue under weighted round robin.
    #[derive(Default)]
    pub enum QueuePriority {
        Urgent = "urgent",
        High = "high",
        #[default]
        Medium = "medium",
        Low = "low",
    }
}

section! {
    /// The host (`[host]`).
    #[derive(Debug, Clone)]
    pub struct HostConfig {
        /// Host link bandwidth per direction (UFS M-PHY gears, PCIe lanes).
        pub link_mb_s: f64, float(0.01, 1e7).unit("MiB/s");
        /// Fixed host-stack time per request (kernel, driver, emulator) added before the
        /// device sees it. Latency counts device time only without it.
        pub overhead_us: f64 = 0.0, HOST_US;
        /// Submission/completion queue pairs (NVMe up to 64 Ki, UFS 32); fio jobs and their
        /// `numjobs` clones take queues in turn (job k on queue k mod queues). 0: one queue
        /// per job, unbounded, no per-queue report.
        pub queues: u32 = 0, int(0, MAX_HOST_QUEUES as u64).unit("queues");
        /// Entries of each submission queue: a job waits while its queue holds this many
        /// commands. 0: unbounded. At most 65536, the largest queue NVMe defines (MQES is a
        /// 16-bit, 0-based count).
        pub queue_depth: u32 = 0, int(0, 65536).unit("commands");
        /// Which queue the controller fetches from next when several hold commands and the
        /// HIL core is busy (NVMe §4.13).
        pub arbitration: Arbitration = Arbitration::Rr, free();
        /// Priority class of queue 0, 1, ... under `wrr`; queues not listed are `medium`. At
        /// most `host.queues` entries.
        pub queue_priority: Vec<QueuePriority> = Vec::new(), free();
        /// Weights of the high, medium and low classes under `wrr` (chosen).
        pub wrr_weights: [u32; 3] = [4, 2, 1], int(1, 256);
        /// Zoned writes: at most one write in flight per zone, later ones wait in the host in
        /// issue order (mq-deadline's zone write locking, ZUFS §4.3); a zone reset or finish
        /// waits in the same order (zone write plugging), so no write overtakes it or is
        /// overtaken by it. Zone appends take no lock.
        pub zone_write_lock: bool = true, free();
        /// Probability that a dispatched zoned write is requeued (UFS clock gating, ZUFS
        /// §3.3) and reaches the device `requeue_delay_us` later, overtaken by the writes
        /// after it.
        pub requeue_probability: f64 = 0.0, float(0.0, 0.99);
        /// How long a requeued write waits before it is dispatched again (clock ungating;
        /// chosen).
        pub requeue_delay_us: f64 = 50.0, HOST_US;
        /// Commands the device takes at once (UFS task tags: 32); requests beyond wait in the
        /// host scheduler, one FIFO per priority, dispatched by fio `prioclass` / `prio`
        /// (realtime > best-effort and none > idle, then level 0 before 7). 0: no limit
        /// (nothing waits, priorities have no effect).
        pub device_tags: u32 = 0, int(0, 1 << 16).unit("tags");
        /// IOTailor (ZMS "Challenge #1"): zoned writes are split and grouped per
        /// zone into superpage-aligned requests before they reach the device. Needs a zoned
        /// namespace and the run's `--namespace` zoned; not with a host file system (`fs`) nor
        /// the emulation handle (`zonesim mount`, the fio engine).
        pub iotailor: bool = false, free();
        /// IOTailor: the longest a partial (less than a superpage) group is held before it
        /// is issued as it is (chosen: about one TLC program, the cost of the SLC detour it
        /// avoids; a bounded hold keeps closed-loop sources moving).
        pub iotailor_hold_us: f64 = 1000.0, HOST_US;
    }
}
