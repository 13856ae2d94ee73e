//! Keys of the multi-core firmware model and the data cache (docs/firmware.md; MCMQ §II-III):
//! `[firmware]`, `[firmware.cost]` and `[cache]`. Every default keeps the model off, so a
//! config without these keys simulates as before. The basis of the `firmware.cost.*`
//! defaults (SimpleSSD's instruction counts, MCMQ's code) is in docs/firmware.md.

use super::declare::{choice, section};
use super::rule::{float, free, int, Spec};
use super::{CellType, DeviceConfig};
use crate::error::{Error, Result};

/// A cost in core cycles: at most 1e9.
const CYCLES: Spec = float(0.0, 1e9).unit("cycles");

choice! {
    /// Which firmware model runs (`firmware.model`).
    #[derive(Default)]
    pub enum FirmwareModel {
        /// No CPU, lock or mailbox model: the firmware decides instantly (MQSim's view).
        #[default]
        Off = "off",
        /// HIL, TSU/FIL, completion and FTL worker cores with locks and mailboxes (MCMQ's).
        Cores = "cores",
    }
}

choice! {
    /// Scope of the data-cache and mapping locks (`firmware.lock_granularity`).
    #[derive(Default)]
    pub enum LockGranularity {
        /// One data-cache lock and one mapping lock per namespace (MCMQ).
        #[default]
        Namespace = "namespace",
        /// `firmware.lock_buckets` locks of each kind per namespace, chosen by logical page.
        Bucket = "bucket",
    }
}

choice! {
    /// Who gets a contended lock next (`firmware.lock_handoff`).
    #[derive(Default)]
    pub enum LockHandoff {
        /// Test-and-test-and-set spin lock (MCMQ's `spinlock.h`): every waiter spins on the
        /// line, so a contended hand-off grows with the waiters; which spinner wins is a seeded
        /// draw.
        #[default]
        Ttas = "ttas",
        /// A queue lock (MCS-like): the next waiter in arrival order, one line transfer.
        Fifo = "fifo",
    }
}

section! {
    /// Firmware operation costs in core cycles (`[firmware.cost]`).
    #[derive(Debug, Clone)]
    pub struct FirmwareCost [Default] {
        /// HIL: fetch and parse one command (SimpleSSD NVMe+HIL about 2.6k instructions,
        /// MCMQ's HIL lighter).
        pub hil_cmd: f64 = 1500.0, CYCLES;
        /// HIL: receive one doorbell message. MCMQ's host writes every SQ tail and CQ head
        /// doorbell as a vsock message that hart 0 takes as an RX interrupt: one per command
        /// with its fetch, one per completion (an assumption: virtio RX path).
        pub hil_doorbell: f64 = 1000.0, CYCLES;
        /// HIL: segment one page transaction off a command (slab allocation, list insert).
        pub hil_txn: f64 = 100.0, CYCLES;
        /// Completion core: post one CQE and raise the interrupt (SimpleSSD COMPLETION 794).
        pub completion: f64 = 800.0, CYCLES;
        /// Enqueue or dequeue one mailbox message (list op, held under the mailbox lock).
        pub mailbox: f64 = 100.0, CYCLES;
        /// One data-cache operation under the data-cache lock (SimpleSSD ICL READ 971 /
        /// WRITE 948).
        pub cache_op: f64 = 950.0, CYCLES;
        /// Mapping lookup of a read under the mapping lock (SimpleSSD READ_INTERNAL 395).
        pub map_read: f64 = 400.0, CYCLES;
        /// Mapping update and page allocation of a write (SimpleSSD WRITE_INTERNAL 1,108).
        pub map_write: f64 = 1100.0, CYCLES;
        /// One operation under a plane-allocator lock (allocate, invalidate).
        pub plane_op: f64 = 100.0, CYCLES;
        /// TSU: queue one transaction on its chip (chosen).
        pub tsu_enqueue: f64 = 200.0, CYCLES;
        /// TSU: dispatch one transaction, plus `tsu_per_queued` per transaction still queued
        /// (chosen).
        pub tsu_dispatch: f64 = 200.0, CYCLES;
        /// TSU: the dispatch scan per transaction still queued.
        pub tsu_per_queued: f64 = 20.0, CYCLES;
        /// TSU: retire one finished flash transaction (chosen).
        pub tsu_complete: f64 = 200.0, CYCLES;
        /// Worker: finish one transaction (`*_transaction_complete`).
        pub txn_complete: f64 = 200.0, CYCLES;
        /// Uncontended acquire + release (an AMO and two fences).
        pub lock_acquire: f64 = 40.0, CYCLES;
        /// Moving the lock's cache line to the next holder (an assumption; set from the SoC).
        pub cacheline_xfer: f64 = 100.0, CYCLES;
        /// Sending an inter-processor interrupt (an assumption).
        pub ipi_send: f64 = 300.0, CYCLES;
    }
}

section! {
    /// The multi-core firmware model (`[firmware]`, docs/firmware.md).
    #[derive(Debug, Clone)]
    pub struct FirmwareConfig [Default] {
        /// `off`, or `cores`: HIL, TSU/FIL, completion and FTL worker cores with locks and
        /// mailboxes.
        pub model: FirmwareModel = FirmwareModel::Off, free();
        /// Core clock: ns = cycles x 1000 / core_mhz (MCMQ's QEMU-TCG harts do about 200-400
        /// MHz of work; its experiments use 250, a calibration).
        pub core_mhz: f64 = 1000.0, float(1.0, 100_000.0).unit("MHz");
        /// FTL worker cores (MCMQ has at most 5); queue q goes to worker q mod workers.
        pub workers: u32 = 5, int(1, 4096).unit("cores");
        /// `namespace`: one data-cache and one mapping lock per namespace (MCMQ); `bucket`:
        /// `lock_buckets` of each, chosen by logical page.
        pub lock_granularity: LockGranularity = LockGranularity::Namespace, free();
        /// Locks of each kind per namespace with `lock_granularity = bucket`.
        pub lock_buckets: u32 = 64, int(1, 65536).unit("locks");
        /// `ttas` (MCMQ's `spinlock.h`, amoswap test-and-test-and-set) or `fifo` (queue lock).
        pub lock_handoff: LockHandoff = LockHandoff::Ttas, free();
        /// Growth of a contended hand-off per extra waiter (x `cost.cacheline_xfer`), TTAS
        /// only: the spinners' re-reads of the line delay the winner.
        pub handoff_growth: f64 = 0.5, float(0.0, 100.0);
        /// Latency from sending an IPI to the target core's handler running (an assumption).
        pub ipi_delivery_ns: f64 = 500.0, float(0.0, 1e9).unit("ns");
        /// Operation costs.
        pub cost: FirmwareCost = FirmwareCost::default(), free();
    }
}

section! {
    /// The DRAM data cache in front of the FTL (`[cache]`, MCMQ's and MQSim's data cache):
    /// LRU, write-back, per conventional namespace.
    #[derive(Debug, Clone)]
    pub struct CacheConfig [Default] {
        /// Bytes of the data cache, split equally over the conventional namespaces (MCMQ's
        /// rule). 0: no data cache. At most 64 GiB, as `ftl.l2p_cache_bytes` (beyond the DRAM
        /// of any SSD controller); a share larger than its namespace caches all of it (the
        /// report's `cache_pages` is then the namespace's pages).
        pub bytes: u64 = 0, int(4096, 1 << 36).or_zero().unit("bytes");
    }
}

impl DeviceConfig {
    /// The rules of the queue and per-page timing keys that relate a key to another.
    pub(super) fn validate_firmware(&self) -> Result<()> {
        let h = &self.host;
        if h.queue_priority.len() > h.queues.max(1) as usize {
            return Err(Error::config(
                "host.queue_priority",
                format!(
                    "lists {} classes but host.queues is {}",
                    h.queue_priority.len(),
                    h.queues
                ),
            ));
        }
        for cell in [CellType::Slc, CellType::Mlc, CellType::Tlc, CellType::Qlc] {
            let t = self.nand.timing.of(cell);
            let bits = cell.bits_per_cell() as usize;
            for (key, p) in [
                ("read_us_by_page", t.read_us_by_page),
                ("program_us_by_page", t.program_us_by_page),
            ] {
                let n = p.as_slice().len();
                if n != 0 && n != bits {
                    return Err(Error::config(
                        format!("nand.timing.{}.{key}", cell.name()),
                        format!(
                            "needs one time per page type ({bits} for {}), got {n}",
                            cell.name()
                        ),
                    ));
                }
            }
        }
        Ok(())
    }
}
