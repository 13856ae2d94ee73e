//! Keys of the multi-queue host and the multi-core firmware model (issue 15, seed 004 §II-III):
//! `host.queues`, `host.queue_depth`, `host.arbitration`, `firmware.*` and `cache.*`. Every
//! default keeps the model off, so a config without these keys simulates as before.
//! Defaults of `firmware.cost.*` and their basis: docs/firmware.md (from the MCMQ notes,
//! SimpleSSD's instruction counts).

use super::validate::{count, in_range};
use super::DeviceConfig;
use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};

/// Which firmware model runs (`firmware.model`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FirmwareModel {
    /// No CPU, lock or mailbox model: the firmware decides instantly (MQSim's view; default).
    #[default]
    Off,
    /// HIL, TSU/FIL, completion and FTL worker cores with locks and mailboxes (MCMQ's).
    Cores,
}

/// Scope of the data-cache and mapping locks (`firmware.lock_granularity`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LockGranularity {
    /// One data-cache lock and one mapping lock per namespace (MCMQ).
    #[default]
    Namespace,
    /// `firmware.lock_buckets` locks of each kind per namespace, chosen by logical page.
    Bucket,
}

/// Who gets a contended lock next (`firmware.lock_handoff`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LockHandoff {
    /// Test-and-test-and-set spin lock (MCMQ's `spinlock.h`): every waiter spins on the line,
    /// so a contended hand-off grows with the waiters; which spinner wins is a seeded draw.
    #[default]
    Ttas,
    /// A queue lock (MCS-like): the next waiter in arrival order, one line transfer.
    Fifo,
}

/// Firmware operation costs in core cycles (`firmware.cost.*`). Defaults: docs/firmware.md.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct FirmwareCost {
    /// HIL: fetch and parse one command (SimpleSSD NVMe+HIL about 2.6k instructions, MCMQ's
    /// HIL lighter).
    pub hil_cmd: f64,
    /// HIL: receive one doorbell message. MCMQ's host writes every SQ tail and CQ head
    /// doorbell as a vsock message (`use_dbbuf=false`) that hart 0 takes as an RX interrupt:
    /// one per command with its fetch, one per completion (an assumption: virtio RX path).
    pub hil_doorbell: f64,
    /// HIL: segment one page transaction off a command (slab allocation, list insert).
    pub hil_txn: f64,
    /// Completion core: post one CQE and raise the interrupt (SimpleSSD COMPLETION 794).
    pub completion: f64,
    /// Enqueue or dequeue one mailbox message (list op, held under the mailbox lock).
    pub mailbox: f64,
    /// One data-cache operation under the data-cache lock (SimpleSSD ICL READ 971 / WRITE 948).
    pub cache_op: f64,
    /// Mapping lookup of a read under the mapping lock (SimpleSSD READ_INTERNAL 395).
    pub map_read: f64,
    /// Mapping update and page allocation of a write (SimpleSSD WRITE_INTERNAL 1,108).
    pub map_write: f64,
    /// One operation under a plane-allocator lock (allocate, invalidate).
    pub plane_op: f64,
    /// TSU: queue one transaction on its chip.
    pub tsu_enqueue: f64,
    /// TSU: dispatch one transaction, plus `tsu_per_queued` per transaction still queued.
    pub tsu_dispatch: f64,
    pub tsu_per_queued: f64,
    /// TSU: retire one finished flash transaction.
    pub tsu_complete: f64,
    /// Worker: finish one transaction (`*_transaction_complete`).
    pub txn_complete: f64,
    /// Uncontended acquire + release (an AMO and two fences).
    pub lock_acquire: f64,
    /// Moving the lock's cache line to the next holder (an assumption; set from the SoC).
    pub cacheline_xfer: f64,
    /// Sending an inter-processor interrupt.
    pub ipi_send: f64,
}

impl Default for FirmwareCost {
    fn default() -> Self {
        FirmwareCost {
            hil_cmd: 1500.0,
            hil_doorbell: 1000.0,
            hil_txn: 100.0,
            completion: 800.0,
            mailbox: 100.0,
            cache_op: 950.0,
            map_read: 400.0,
            map_write: 1100.0,
            plane_op: 100.0,
            tsu_enqueue: 200.0,
            tsu_dispatch: 200.0,
            tsu_per_queued: 20.0,
            tsu_complete: 200.0,
            txn_complete: 200.0,
            lock_acquire: 40.0,
            cacheline_xfer: 100.0,
            ipi_send: 300.0,
        }
    }
}

impl FirmwareCost {
    /// Every key with its value (validation).
    pub fn keys(&self) -> [(&'static str, f64); 17] {
        [
            ("hil_cmd", self.hil_cmd),
            ("hil_doorbell", self.hil_doorbell),
            ("hil_txn", self.hil_txn),
            ("completion", self.completion),
            ("mailbox", self.mailbox),
            ("cache_op", self.cache_op),
            ("map_read", self.map_read),
            ("map_write", self.map_write),
            ("plane_op", self.plane_op),
            ("tsu_enqueue", self.tsu_enqueue),
            ("tsu_dispatch", self.tsu_dispatch),
            ("tsu_per_queued", self.tsu_per_queued),
            ("tsu_complete", self.tsu_complete),
            ("txn_complete", self.txn_complete),
            ("lock_acquire", self.lock_acquire),
            ("cacheline_xfer", self.cacheline_xfer),
            ("ipi_send", self.ipi_send),
        ]
    }
}

/// The firmware model (`[firmware]`).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct FirmwareConfig {
    pub model: FirmwareModel,
    /// Core clock in MHz: ns = cycles x 1000 / core_mhz. Default 1000 (MCMQ's QEMU-TCG harts
    /// run at about 200-400).
    pub core_mhz: f64,
    /// FTL worker cores (any number; MCMQ has at most 5). Queue q goes to worker q mod workers.
    pub workers: u32,
    pub lock_granularity: LockGranularity,
    /// Locks of each kind per namespace with `lock_granularity = "bucket"`.
    pub lock_buckets: u32,
    pub lock_handoff: LockHandoff,
    /// Growth of a contended hand-off per extra waiter (x cacheline_xfer), TTAS only: the
    /// spinners' re-reads of the line delay the winner (0.5 in the MCMQ notes).
    pub handoff_growth: f64,
    /// Latency from sending an IPI to the target core's handler running, ns (an assumption).
    pub ipi_delivery_ns: f64,
    pub cost: FirmwareCost,
}

impl Default for FirmwareConfig {
    fn default() -> Self {
        FirmwareConfig {
            model: FirmwareModel::Off,
            core_mhz: 1000.0,
            workers: 5,
            lock_granularity: LockGranularity::Namespace,
            lock_buckets: 64,
            lock_handoff: LockHandoff::Ttas,
            handoff_growth: 0.5,
            ipi_delivery_ns: 500.0,
            cost: FirmwareCost::default(),
        }
    }
}

/// The DRAM data cache in front of the FTL (`[cache]`, MCMQ's and MQSim's data cache).
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct CacheConfig {
    /// Bytes of the data cache, split equally over the conventional namespaces (MCMQ's rule).
    /// 0 (default): no data cache.
    pub bytes: u64,
}

/// Host queue arbitration (`host.arbitration`, NVMe §4.13).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Arbitration {
    /// Round robin over the submission queues.
    #[default]
    Rr,
    /// Weighted round robin with priority classes: urgent queues first, then high, medium and
    /// low in the ratio of `host.wrr_weights`.
    Wrr,
}

/// Priority class of a submission queue under weighted round robin.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum QueuePriority {
    Urgent,
    High,
    #[default]
    Medium,
    Low,
}

/// Largest `host.queues` (NVMe: 64 Ki I/O queue pairs).
pub const MAX_HOST_QUEUES: u32 = 65536;

impl DeviceConfig {
    /// The rules of the queue, firmware and cache keys.
    pub(super) fn validate_firmware(&self) -> Result<()> {
        let h = &self.host;
        if h.queues > MAX_HOST_QUEUES {
            return Err(Error::config(
                "host.queues",
                format!("must be in 0..={MAX_HOST_QUEUES} (got {})", h.queues),
            ));
        }
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
        for (i, &w) in h.wrr_weights.iter().enumerate() {
            if w == 0 || w > 256 {
                return Err(Error::config(
                    format!("host.wrr_weights[{i}]"),
                    format!("must be in 1..=256 (got {w})"),
                ));
            }
        }
        for (cell, t) in [
            (super::CellType::Slc, self.nand.timing.slc),
            (super::CellType::Mlc, self.nand.timing.mlc),
            (super::CellType::Tlc, self.nand.timing.tlc),
            (super::CellType::Qlc, self.nand.timing.qlc),
        ] {
            for (key, p) in [
                ("read_us_by_page", t.read_us_by_page),
                ("program_us_by_page", t.program_us_by_page),
            ] {
                let key = format!("nand.timing.{}.{key}", cell.name());
                let bits = cell.bits_per_cell() as usize;
                if !p.is_empty() && p.as_slice().len() != bits {
                    return Err(Error::config(
                        key,
                        format!(
                            "needs one time per page type ({bits} for {}), got {}",
                            cell.name(),
                            p.as_slice().len()
                        ),
                    ));
                }
                for &v in p.as_slice() {
                    in_range(&key, v, 0.001, 1e7)?;
                }
            }
        }
        let f = &self.firmware;
        in_range("firmware.core_mhz", f.core_mhz, 1.0, 100_000.0)?;
        count("firmware.workers", f.workers, 4096)?;
        count("firmware.lock_buckets", f.lock_buckets, 65536)?;
        in_range("firmware.handoff_growth", f.handoff_growth, 0.0, 100.0)?;
        in_range("firmware.ipi_delivery_ns", f.ipi_delivery_ns, 0.0, 1e9)?;
        for (k, v) in f.cost.keys() {
            in_range(&format!("firmware.cost.{k}"), v, 0.0, 1e9)?;
        }
        if self.cache.bytes > 0 && self.cache.bytes < 4096 {
            return Err(Error::config(
                "cache.bytes",
                format!(
                    "must be 0 or at least one 4 KiB page (got {})",
                    self.cache.bytes
                ),
            ));
        }
        Ok(())
    }
}

/// Default of `host.wrr_weights` (high, medium, low).
pub(super) fn wrr_weights() -> [u32; 3] {
    [4, 2, 1]
}
