//! The keys of zoned devices and of several namespaces (docs/zoned.md, docs/zufs.md): write
//! buffers (`[buffer]`), zones (`[zone]`), the SLC region's use (`[slc]`), per-die queues
//! (`[sched]`) and the namespaces themselves (`[[namespaces]]`).

use super::declare::{choice, section};
use super::rule::{float, free, int};

choice! {
    /// Zone-to-buffer mapping of zone write buffers.
    #[derive(Default)]
    pub enum ZoneBufferMapping {
        #[default]
        Assoc = "assoc",
        Modulo = "modulo",
    }
}

choice! {
    /// Zone write buffer manager of zoned namespaces (`buffer.kind`).
    #[derive(Default)]
    pub enum BufferKind {
        /// Fixed zone buffers (ConZone §3.2).
        #[default]
        Static = "static",
        /// Zone-aware slot buffers (ZUFS §4.2, SGBM).
        Zabm = "zabm",
    }
}

choice! {
    /// When a ZABM zone flushes (`buffer.flush_unit`).
    #[derive(Default)]
    pub enum FlushUnit {
        /// As soon as one die's program unit is buffered.
        #[default]
        Die = "die",
        /// Only whole superpages (every die's unit), programmed in parallel.
        Superpage = "superpage",
    }
}

section! {
    /// Write buffers (`[buffer]`).
    #[derive(Debug, Clone)]
    pub struct BufferConfig {
        /// Global write buffer (SRAM/DRAM) of each conventional namespace: at least one die
        /// program unit (program unit x planes x page) and at most the flash capacity.
        pub bytes: u64, int(4096, 1 << 43).unit("bytes");
        /// How far ahead of the current time the global buffer issues full program units to
        /// flash. 0 (the default): a unit is issued the moment it is full; its program and the
        /// GC copies it pays for go to the end of the work booked on their dies, however far
        /// ahead that is, so the buffer holds only data in flight. Above 0: a full unit stays
        /// dirty in the buffer (serving reads, absorbing overwrites) until the die its program
        /// goes to has less than this much work booked, as a controller's bounded die queue;
        /// the buffer is also issued when it is full, by a host flush and when the host goes
        /// idle. Below about five program times dies idle between units. Not with
        /// `slc.conventional_buffer`. 1 to 10,000,000 us, or 0.
        #[serde(skip_serializing_if = "super::declare::is_zero_f64")]
        pub issue_ahead_us: f64 = 0.0, float(1.0, 1e7).or_zero().unit("us");
        /// Zone write buffers shared by the zones of each zoned namespace (ConZone §3.2). At
        /// most 4096: a buffer serves an open zone, and zoned devices keep far fewer open
        /// (ConZone 2, NVMe ZNS drives tens to hundreds).
        pub count: u32 = 2, int(1, 4096).unit("buffers");
        /// Bytes of each zone write buffer (ConZone+ §6.1); with a zoned namespace at least
        /// one regular program unit. At most 1 GiB, beyond any controller's buffer memory.
        pub bytes_each: u64 = 384 * 1024, int(0, 1 << 30).multiple_of(4096).unit("bytes");
        /// Zone-to-buffer mapping: `assoc` (any zone any buffer; all taken: flush the fullest;
        /// ConZone's default) or `modulo` (zone id mod count).
        pub zone_mapping: ZoneBufferMapping = ZoneBufferMapping::Assoc, free();
        /// Zone write buffers of zoned namespaces: `static` (`count` x `bytes_each`) or `zabm`
        /// (ZUFS §4.2: `sram_bytes` split into 4 KiB slots shared by the open zones).
        pub kind: BufferKind = BufferKind::Static, free();
        /// `zabm`: buffer SRAM of each zoned namespace, a multiple of 4096 holding at least
        /// one regular program unit (chosen: the SRAM of two 768 KiB superpage buffers). At
        /// most 1 GiB, beyond any UFS or SSD controller's SRAM.
        pub sram_bytes: u64 = 1536 * 1024, int(0, 1 << 30).unit("bytes");
        /// `zabm`: a zone flushes as soon as one die's program unit is buffered (`die`) or only
        /// whole superpages (`superpage`, programmed in parallel across dies).
        pub flush_unit: FlushUnit = FlushUnit::Die, free();
        /// `zabm`: slots every open zone keeps in reserve; busy zones borrow the rest. Times
        /// `zone.max_open` at most the slots of `sram_bytes` (so at most 262144, the slots of
        /// 1 GiB).
        pub min_slots_per_zone: u32 = 16, int(0, 1 << 18).unit("slots");
    }
}

section! {
    /// Zone geometry and limits of zoned namespaces (`[zone]`).
    #[derive(Debug, Clone)]
    pub struct ZoneSection [Default] {
        /// Distance between zone starts, a multiple of 4096 of at least the capacity. 0: the
        /// zone capacity rounded up to a power of two. At most 8 TiB, the largest array.
        pub size_bytes: u64 = 0, int(0, 1 << 43).unit("bytes");
        /// Writable bytes per zone (need not be a power of two), a multiple of 4096: at most
        /// one allocation unit or a multiple of it. 0: one superblock of regular flash (one
        /// block with `sub_block`). At most 8 TiB, the largest array.
        pub capacity_bytes: u64 = 0, int(0, 1 << 43).unit("bytes");
        /// Maximum open zones (0: unlimited); at most `max_active` (F2FS opens six; ZUFS
        /// requires at least 6). At most 2^32 - 1, NVMe ZNS's 32-bit limit fields.
        pub max_open: u32 = 6, int(0, u32::MAX as u64).unit("zones");
        /// Maximum active zones (0: unlimited). At most 2^32 - 1, as `max_open`.
        pub max_active: u32 = 0, int(0, u32::MAX as u64).unit("zones");
        /// Map zones onto single flash blocks instead of whole superblocks (ConZone+ §4.3).
        pub sub_block: bool = false, free();
        /// Budget of valid in-place-updated data held in SLC (ZMS budget-based in-place
        /// update, ZMS "Challenge #2"). 0: off (JEDEC ZUFS forbids in-place updates; an
        /// in-place update command is then a plain write). Needs a zoned namespace, not with
        /// `slc.granularity = zone`.
        pub ipu_budget_bytes: u64 = 0, int(0, 1 << 40).multiple_of(4096).unit("bytes");
    }
}

choice! {
    /// What goes through the SLC secondary buffer of zoned namespaces.
    #[derive(Default)]
    pub enum SlcPolicy {
        /// Only premature (less than a program unit) flushes go to SLC (ConZone default for
        /// TLC).
        #[default]
        Bypass = "bypass",
        /// Every flush lands in SLC and is migrated to regular flash by SLC GC (QLC).
        All = "all",
    }
}

choice! {
    /// Where SLC garbage collection puts valid data.
    #[derive(Default)]
    pub enum SlcGc {
        /// Rewrite it inside SLC.
        #[default]
        InPlace = "in_place",
        /// Move whole program units of it to the zone's regular flash (the rest stays in SLC).
        Migrate = "migrate",
    }
}

choice! {
    /// When a conventional namespace's SLC cache writes back to regular flash
    /// (`slc.writeback`).
    #[derive(Default)]
    pub enum SlcWriteback {
        /// Only when SLC needs room.
        #[default]
        Full = "full",
        /// When the host has been idle `slc.writeback_idle_us`, until SLC is empty or a
        /// request arrives.
        Idle = "idle",
        /// Whenever more than `slc.writeback_threshold` of SLC is in use, in the background.
        Threshold = "threshold",
    }
}

choice! {
    /// How the SLC secondary buffer is managed (`slc.granularity`).
    #[derive(Default)]
    pub enum SlcGranularity {
        #[default]
        Page = "page",
        Zone = "zone",
    }
}

section! {
    /// The SLC region's use (`[slc]`): the secondary buffer of zoned namespaces and the write
    /// cache of conventional ones (docs/zoned.md).
    #[derive(Debug, Clone)]
    pub struct SlcConfig [Default] {
        /// Zoned namespaces: what goes through SLC: `bypass` only premature flushes, `all`
        /// every flush (needs `gc = migrate`).
        pub policy: SlcPolicy = SlcPolicy::Bypass, free();
        /// Where SLC GC puts valid data: rewritten inside SLC (`in_place`) or moved to regular
        /// flash in whole program units (`migrate`).
        pub gc: SlcGc = SlcGc::InPlace, free();
        /// SLC GC runs when fewer free SLC superblocks than this remain (one open SLC
        /// superblock for host data, one for GC). At most 2^20, the most blocks a plane has.
        pub gc_threshold_free_superblocks: u32 = 2, int(2, 1 << 20).unit("superblocks");
        /// `page`: SLC allocated at page level, zones share the frontiers (ConZone `pageslc`);
        /// `zone`: each zone writes SLC superblocks of its own and SLC GC migrates whole zones
        /// (ConZone+ `ZONED_SLC`, ConZone+ §6.5 Fig. 12).
        pub granularity: SlcGranularity = SlcGranularity::Page, free();
        /// Conventional namespaces in regular flash get an SLC write cache too: an equal share
        /// of the SLC blocks left after `slc_only` namespaces, with the zoned namespaces'
        /// buffers. Their partial units at a flush go to SLC instead of being padded (`policy
        /// = bypass`), or every write does (`all`); SLC GC migrates to regular flash. Needs
        /// `gc = migrate` and a share of at least `gc_threshold_free_superblocks + 3` blocks;
        /// not with `ftl.mapping = two_level` nor an NVM set.
        pub conventional_buffer: bool = false, free();
        /// When the conventional SLC cache writes back to regular flash (the UFS WriteBooster
        /// buffer flush, JEDEC UFS 3.1 §13.4.14): `full` only when SLC GC needs room; `idle`
        /// also after `writeback_idle_us` without a host request (flush during Hibern8), a
        /// flash page at a time until SLC is empty or a request arrives; `threshold` also,
        /// in the background, whenever more than `writeback_threshold` of its superblocks are
        /// in use. `idle` and `threshold` need `conventional_buffer`.
        pub writeback: SlcWriteback = SlcWriteback::Full, free();
        /// `writeback = idle`: host idle time before the write-back starts (default: Linux
        /// ufshcd's auto-Hibern8 idle timer; Qualcomm hosts set 5 ms).
        pub writeback_idle_us: f64 = 150_000.0, float(0.001, 1e9).unit("µs");
        /// `writeback = threshold`: fraction of the SLC superblocks in use above which
        /// write-back runs (default: Linux ufshcd's `wb_flush_threshold`, a flush once less
        /// than 40 % of the buffer is available; MediaTek hosts use 0.2).
        pub writeback_threshold: f64 = 0.6, float(0.0, 1.0);
    }
}

section! {
    /// Per-die command queues (`[sched]`, ConZone+ §4.2).
    #[derive(Debug, Clone)]
    pub struct SchedConfig [Default] {
        /// Host reads and writes overtake (suspend) queued background work: SLC-to-regular
        /// migration, SLC GC and conventional GC, pushed back by the host operation's
        /// duration. False: FIFO.
        pub preempt_migration: bool = false, free();
    }
}

choice! {
    /// Kind of a namespace.
    pub enum NamespaceKind {
        Conventional = "conventional",
        Zoned = "zoned",
    }
}

section! {
    /// One namespace (`[[namespaces]]`, ConZone+ §4 Algorithm 1), in id order; each gets its
    /// own FTL over its share of one NAND array. Without any, the device has one conventional
    /// namespace over all its regular flash. At most 255.
    #[derive(Debug, Clone)]
    pub struct NamespaceConfig {
        /// Conventional (page-mapped) or zoned.
        pub kind: NamespaceKind, free();
        /// Conventional: logical bytes (0: everything left after the other namespaces, with
        /// `ftl.overprovisioning`). Zoned: ignored when `zones` is set. At most 8 TiB, the
        /// largest array.
        pub capacity_bytes: u64 = 0, int(0, 1 << 43).unit("bytes");
        /// Zoned: number of zones (0: as many as the remaining regular flash holds). At most
        /// 2^31, the 4 KiB slots of the largest array.
        pub zones: u32 = 0, int(0, 1 << 31).unit("zones");
        /// Conventional: live wholly in SLC blocks (ConZone+ §4: the metadata namespace).
        pub slc_only: bool = false, free();
        /// Conventional: the NVM set, the channels (each below `nand.channels`) its
        /// superblocks span (MCMQ §III-C, MCMQ's per-namespace channel list). Empty:
        /// every channel.
        #[serde(skip_serializing_if = "Vec::is_empty")]
        pub channels: Vec<u32> = Vec::new(), int(0, 1023);
    }
}
