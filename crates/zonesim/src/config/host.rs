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
        /// after it: the abstract stand-in for `power.clock_gating = "requeue"`, which
        /// requeues what idle gaps leave to be requeued (not both: refused).
        pub requeue_probability: f64 = 0.0, float(0.0, 0.99);
        /// How long a requeued write waits before it is dispatched again (clock ungating;
        /// chosen); with `power.clock_gating = "requeue"`, from the end of the ungate (the
        /// block layer's rerun of its queue).
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
        /// The host CPU model (docs/host-cpu.md); off (`host.cpu.cores = 0`) by default, and
        /// then absent from `zonesim config show` and the report's resolved device.
        #[serde(skip_serializing_if = "HostCpuConfig::is_off")]
        pub cpu: HostCpuConfig = HostCpuConfig::default(), free();
    }
}

/// A host CPU step cost: at most 1 s per unit.
const STEP_NS: Spec = int(0, 1_000_000_000).unit("ns");

section! {
    /// `[host.cpu]`: the host cores every host thread runs on and the CPU time of each step of
    /// a request's host path (docs/host-cpu.md gives the sources). Costs are for one unit on a
    /// big core; a little core takes them divided by `little_speed`.
    #[derive(Debug, Clone, PartialEq)]
    pub struct HostCpuConfig [Default] {
        /// Host cores (an fio job clone, the application are each one thread on them). 0: the
        /// model is off and the host takes no CPU time (the default). SM8350, the ZMS talk's
        /// phone SoC: 8.
        pub cores: u32 = 0, int(0, 1024).unit("cores");
        /// How many of the cores are little (the last ones), each `little_speed` times as fast
        /// as a big one. At most `host.cpu.cores`. SM8350: 4 Cortex-A55 of its 8.
        pub little_cores: u32 = 0, int(0, 1024).unit("cores");
        /// Speed of a little core relative to a big one (estimate: a Cortex-A55 runs kernel
        /// code at about 0.3-0.5 of a Cortex-A78/X1 at their clocks).
        pub little_speed: f64 = 0.4, float(0.01, 1.0);
        /// System call entry and exit, once per call (read, write, fsync, io_submit). Estimate:
        /// FlexSC (Soares & Stumm, OSDI 2010, §2) measures a null call in about 0.1 µs direct
        /// cost plus several times that in lost cache/TLB state; with the Spectre/Meltdown
        /// mitigations of later kernels about 0.5 µs.
        pub syscall_ns: u64 = 500, STEP_NS;
        /// Copying one 4 KiB page between user memory and the page cache (buffered write,
        /// cached read). 1 µs: 4 GB/s, the copy bandwidth of one phone big core on cold
        /// data (the same value as `fs.page_copy_ns`'s default, which this replaces when on).
        pub page_copy_ns: u64 = 1_000, STEP_NS;
        /// Block layer and driver per device request: bio, request allocation, tag, doorbell.
        /// Yang et al. (When Poll is Better than Interrupt, FAST 2012, §3) measure the Linux
        /// submission path at a few µs per 4 KiB request; 2 µs.
        pub block_submit_ns: u64 = 2_000, STEP_NS;
        /// Completion interrupt and completion path per device request (IRQ, request end,
        /// waking the waiting thread). Yang et al. (FAST 2012, §3): interrupt-driven
        /// completion costs several µs more than polling (interrupt, context switch, cache
        /// pollution); 4 µs.
        pub completion_ns: u64 = 4_000, STEP_NS;
        /// F2FS write path per write call, without the page copy (page lookup, dirty
        /// accounting, block reservation; calibration, not measured: 1.5 µs).
        pub f2fs_write_ns: u64 = 1_500, STEP_NS;
        /// F2FS fsync / fdatasync per call, besides its node blocks and the device requests
        /// (writeback of the file's pages, the wait; calibration: 10 µs).
        pub f2fs_fsync_ns: u64 = 10_000, STEP_NS;
        /// F2FS per node block updated and written (calibration: 1 µs).
        pub f2fs_node_ns: u64 = 1_000, STEP_NS;
        /// F2FS per checkpoint (calibration: 50 µs: flush of the NAT/SIT journals and the
        /// checkpoint pack).
        pub f2fs_checkpoint_ns: u64 = 50_000, STEP_NS;
        /// ext4 write path per write call, without the page copy (page lookup, delalloc
        /// reservation, the inode joining the running transaction; calibration, not measured:
        /// 1.5 µs, as F2FS's).
        pub ext4_write_ns: u64 = 1_500, STEP_NS;
        /// ext4 fsync / fdatasync per call, besides its journal commit and the device
        /// requests (writeback of the file's pages, the wait for the commit; calibration:
        /// 10 µs, as F2FS's).
        pub ext4_fsync_ns: u64 = 10_000, STEP_NS;
        /// ext4 per jbd2 commit, besides its blocks (closing the transaction, waiting for its
        /// handles, descriptor and commit block; calibration: 20 µs).
        pub ext4_commit_ns: u64 = 20_000, STEP_NS;
        /// ext4 per metadata block copied into the journal at a commit (a 4 KiB copy and its
        /// tag; calibration: 1 µs, as `page_copy_ns`).
        pub ext4_journal_block_ns: u64 = 1_000, STEP_NS;
        /// SQLite per transaction without its pages (calibration: 50 µs, the host time per
        /// transaction that brings ConZone+ §6.3's SQLite ratio near the paper's).
        pub sqlite_txn_ns: u64 = 50_000, STEP_NS;
        /// SQLite per database or journal page handled (calibration: 2 µs).
        pub sqlite_page_ns: u64 = 2_000, STEP_NS;
        /// Application verification of data read, per MiB (a game checking its assets;
        /// estimate: 1 ms per MiB, a SHA-256 of about 1 GB/s with the Armv8 crypto
        /// extensions).
        pub verify_mib_ns: u64 = 1_000_000, STEP_NS;
        /// InnoDB (the MySQL server thread) per SQL statement, without its pages: parse,
        /// optimisation, execution, row locking (calibration, not measured: 20 µs, the order
        /// of a point select's server time on a server core; a study sweeps it).
        pub innodb_statement_ns: u64 = 20_000, STEP_NS;
        /// InnoDB per buffer-pool page access: page-hash lookup, page latch, binary search
        /// in the 16 KiB page (calibration: 1 µs).
        pub innodb_page_ns: u64 = 1_000, STEP_NS;
        /// InnoDB per commit besides its log write: undo state, the hand-off to the log
        /// writer, locks released (calibration: 10 µs).
        pub innodb_commit_ns: u64 = 10_000, STEP_NS;
    }
}

impl HostCpuConfig {
    /// The model is off (`cores = 0`).
    pub fn is_off(&self) -> bool {
        self.cores == 0
    }
}
