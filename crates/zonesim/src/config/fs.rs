//! `[fs]`: the host file system run under the workload (`zonesim run --fs f2fs`, docs/fs.md).
//! The section's presence turns it on; every key is optional, unset ones take the kernel's
//! default for the main area (zoned or conventional), resolved by `sim`. Where the metadata
//! and main areas live is resolved here ([`FsConfig::areas`]), so the rules about it are
//! checked with the rest of the config, before anything simulates.

use super::declare::{choice, section};
use super::rule::{float, free, int, Spec};
use super::NamespaceKind;
use crate::error::{Error, Result};

/// The kernel keeps these sysfs values in an `unsigned int`: at most 2^32 - 1 (49.7 days in
/// ms). In ns they stay far from the 64-bit limit of simulated time.
const U32: u64 = u32::MAX as u64;

/// A sysfs time, in ms (0 allowed).
const MS: Spec = int(0, U32).unit("ms");

/// A sleep of the background GC thread, in ms: at least 1 (a thread that sleeps 0 ms wakes
/// at every simulated nanosecond).
const SLEEP_MS: Spec = int(1, U32).unit("ms");

/// A percentage.
const PERCENT: Spec = int(0, 100).unit("%");

choice! {
    /// The file system model.
    #[derive(Default)]
    pub enum FsKind {
        #[default]
        F2fs = "f2fs",
        Ext4 = "ext4",
    }
}

choice! {
    /// F2FS `mode=` mount option.
    pub enum FsModeCfg {
        Adaptive = "adaptive",
        Lfs = "lfs",
    }
}

/// Kernel release whose F2FS policies the model follows (docs/fs.md "What differs between
/// kernels"). Written as the release (`"5.4"`, `"6.12"`; a bare number such as `6.12` in TOML
/// or `--set` is taken as the same); the older spellings `"v6.12"` / `"v6.18"` (any release with
/// a leading `v`) are accepted too. Not a `choice!`: it takes these aliases and numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub enum FsKernel {
    V5_4,
    V6_1,
    V6_6,
    V6_12,
    #[default]
    V6_18,
}

impl FsKernel {
    /// Every release the key takes, oldest first (the choices `zonesim config keys` lists).
    pub const VALUES: &'static [&'static str] = &["5.4", "6.1", "6.6", "6.12", "6.18"];
    const ALL: [FsKernel; 5] = [
        FsKernel::V5_4,
        FsKernel::V6_1,
        FsKernel::V6_6,
        FsKernel::V6_12,
        FsKernel::V6_18,
    ];

    /// The release as config files write it.
    pub fn name(self) -> &'static str {
        Self::VALUES[self as usize]
    }

    /// The release with a leading `v`, as the config is written back (`zonesim config show`, a
    /// report's provenance) and as the report's `fs.kernel` names it: the spelling these had
    /// before the older releases came, so reports of 6.12 and 6.18 runs keep their bytes.
    pub fn tag(self) -> &'static str {
        ["v5.4", "v6.1", "v6.6", "v6.12", "v6.18"][self as usize]
    }

    /// The release named `s` (`"6.12"` or `"v6.12"`).
    pub fn parse(s: &str) -> Option<FsKernel> {
        let s = s.strip_prefix('v').unwrap_or(s);
        Self::VALUES
            .iter()
            .position(|&v| v == s)
            .map(|i| Self::ALL[i])
    }
}

impl serde::Serialize for FsKernel {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(self.tag())
    }
}

impl<'de> serde::Deserialize<'de> for FsKernel {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct Visit;
        impl serde::de::Visitor<'_> for Visit {
            type Value = FsKernel;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                write!(f, "one of {}", FsKernel::VALUES.join(", "))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> std::result::Result<FsKernel, E> {
                FsKernel::parse(v).ok_or_else(|| {
                    E::custom(format!(
                        "unknown kernel `{v}`, expected one of {}",
                        FsKernel::VALUES.join(", ")
                    ))
                })
            }
            /// `kernel = 6.12` unquoted (TOML reads a number; so does `--set fs.kernel=6.12`).
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> std::result::Result<FsKernel, E> {
                self.visit_str(&v.to_string())
            }
        }
        d.deserialize_any(Visit)
    }
}

impl super::keys::Value for FsKernel {
    fn ty() -> super::keys::Type {
        super::keys::Type::Choice(Self::VALUES)
    }
    fn show(&self) -> String {
        self.name().to_string()
    }
}

choice! {
    /// Foreground GC victim selection.
    #[derive(Default)]
    pub enum FsFgVictim {
        #[default]
        Greedy = "greedy",
        Fifo = "fifo",
    }
}

section! {
    /// `[fs]` keys (sysfs / mount-option names where the kernel has one). Unset keys take
    /// the kernel's default for the main area, zoned or conventional (host/fs/params.rs).
    #[derive(Debug, Clone, PartialEq)]
    pub struct FsConfig [Default] {
        /// The file system model: `f2fs`, or `ext4` (docs/ext4.md; on a conventional
        /// namespace, metadata and journal on the main one).
        pub kind: FsKind = FsKind::F2fs, free();
        /// The ext4 model's keys (`fs.kind = "ext4"`).
        pub ext4: super::fs_ext4::Ext4Config = super::fs_ext4::Ext4Config::default(), free();
        /// `adaptive` or `lfs` (the kernel default: lfs on a zoned main area, where adaptive
        /// is rejected; adaptive on a conventional one).
        pub mode: Option<FsModeCfg> = None, free();
        /// Kernel release whose F2FS policies apply: "5.4", "6.1", "6.6", "6.12" or "6.18"
        /// (background GC on a zoned main area, checkpoint and foreground GC triggers; docs/fs.md
        /// "What differs between kernels"). "v6.12" / "v6.18" are accepted as before.
        pub kernel: FsKernel = FsKernel::V6_18, free();
        /// mkfs.f2fs `-o`: overprovision ratio (unset: mkfs's search for the best one). In
        /// [0.01, 95], the range mkfs.f2fs itself searches (0.01-10 % on large devices,
        /// 10-95 % on small ones); below it the reserve formula `100 / ovp` explodes.
        pub overprovision: Option<f64> = None, float(0.01, 95.0).unit("%");
        /// Reserved segments (unset: mkfs.f2fs's formula, which needs many small sections;
        /// ZUFS sets 6,336 by hand). At most 2^32 - 1: F2FS counts segments in 32 bits.
        pub reserved_segments: Option<u64> = None, int(0, U32).unit("segments");
        /// `ipu_policy` bit set (0x01..0x80).
        pub ipu_policy: Option<u32> = None, int(0, 0xff);
        /// Fsync writes in place (IPU) below this many dirty blocks (`min_fsync_blocks`).
        pub min_fsync_blocks: Option<u32> = None, int(1, U32).unit("blocks");
        /// `min_ipu_util`: IPU when utilisation is above this.
        pub min_ipu_util: Option<u32> = None, PERCENT;
        /// Background GC thread (`background_gc=on`); off is rejected on a zoned main area,
        /// as the kernel does.
        pub background_gc: Option<bool> = None, free();
        /// Background GC sleep after a round that found work.
        pub gc_min_sleep_time: Option<u64> = None, SLEEP_MS;
        /// Background GC sleep ceiling.
        pub gc_max_sleep_time: Option<u64> = None, SLEEP_MS;
        /// Background GC sleep when it found nothing to do.
        pub gc_no_gc_sleep_time: Option<u64> = None, SLEEP_MS;
        /// Conventional background GC runs after no request for this long (0: whenever it
        /// wakes).
        pub gc_idle_time: Option<u64> = None, MS;
        /// Zoned: no background GC while free sections are above this share.
        pub gc_no_zoned_gc_percent: Option<u32> = None, PERCENT;
        /// Zoned: boosted background GC below this share of free sections.
        pub gc_boost_zoned_gc_percent: Option<u32> = None, PERCENT;
        /// Zoned: sections with more valid blocks than this share are not victims.
        pub gc_valid_thresh_ratio: Option<u32> = None, PERCENT;
        /// Zoned: boosted GC moves this many times more segments per round; at most the
        /// segments per section.
        pub gc_boost_gc_multiple: Option<u32> = None, int(1, U32);
        /// Zoned: boosted GC picks victims greedily (1) or by cost-benefit (0).
        pub gc_boost_gc_greedy: Option<u32> = None, int(0, 1);
        /// Segments moved per background GC round (3 zoned, else the segments per section);
        /// at most the segments per section.
        pub migration_window_granularity: Option<u32> = None, int(1, U32).unit("segments");
        /// Dirty segments scanned per victim or SSR search (`max_victim_search`).
        pub max_victim_search: Option<u32> = None, int(1, U32).unit("segments");
        /// Foreground GC victim selection.
        pub fg_gc_victim: FsFgVictim = FsFgVictim::Greedy, free();
        /// Checkpoint interval (`CP_TIME`; 0: at every background balance).
        pub cp_interval: Option<u64> = None, MS;
        /// Page-cache dirty limit: all dirty data is written back when it is exceeded (the
        /// writer waits). At most 8 TiB: no more data can be dirty than the largest array
        /// holds.
        pub dirty_bytes: Option<u64> = None, int(0, 1 << 43).unit("bytes");
        /// Checkpoint when this many node pages are dirty (stand-in for
        /// `excess_dirty_nodes`). At most 2^32: node ids are 32-bit.
        pub dirty_nodes_cp: Option<u64> = None, int(0, 1 << 32).unit("pages");
        /// Discard (trim) freed segments at checkpoint on a conventional main area.
        pub discard: Option<bool> = None, free();
        /// Largest device command the file system issues (bio size). At most 1 GiB, beyond
        /// any block layer's `max_sectors_kb`.
        pub max_bio_bytes: Option<u64> = None, int(4096, 1 << 30).multiple_of(4096).unit("bytes");
        /// Host time to copy one 4 KiB page into the page cache (buffered write or cached
        /// read). At most 10 ms (400 KB/s, slower than any CPU copies memory).
        pub page_copy_ns: Option<u64> = None, int(0, 10_000_000).unit("ns");
        /// File-name extensions placed in HOT_DATA (mkfs `-e`-style list; kernel: `db`).
        pub hot_extensions: Option<Vec<String>> = None, free();
        /// File-name extensions placed in COLD_DATA (kernel: media types).
        pub cold_extensions: Option<Vec<String>> = None, free();
        /// GC moves valid blocks with the device's copy command instead of a read and a write
        /// (ZMS copy offload, ZMS; docs/fs.md).
        pub gc_copy_offload: bool = false, free();
        /// Namespace of the metadata area (CP/SIT/NAT/SSA, updated in place: conventional).
        /// Unset: the device's first conventional namespace when the main area is zoned,
        /// else the main namespace.
        pub meta_namespace: Option<usize> = None, int(0, 254);
        /// Namespace of the main area. Unset: the first zoned namespace of a device with both
        /// kinds (as ConZone+ and ZUFS split them), else the run's namespace.
        pub main_namespace: Option<usize> = None, int(0, 254);
    }
}

/// Where the file system lives: namespaces of the metadata and main areas.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FsAreas {
    pub meta: usize,
    pub main: usize,
    pub main_zoned: bool,
}

impl FsConfig {
    /// The zoned background GC knobs (kernel 6.12's zoned GC series), each with whether it is
    /// set: refused under an older kernel and under ext4.
    fn zoned_gc_knobs(&self) -> [(&'static str, bool); 6] {
        [
            (
                "fs.gc_no_zoned_gc_percent",
                self.gc_no_zoned_gc_percent.is_some(),
            ),
            (
                "fs.gc_boost_zoned_gc_percent",
                self.gc_boost_zoned_gc_percent.is_some(),
            ),
            (
                "fs.gc_valid_thresh_ratio",
                self.gc_valid_thresh_ratio.is_some(),
            ),
            (
                "fs.gc_boost_gc_multiple",
                self.gc_boost_gc_multiple.is_some(),
            ),
            ("fs.gc_boost_gc_greedy", self.gc_boost_gc_greedy.is_some()),
            (
                "fs.migration_window_granularity",
                self.migration_window_granularity.is_some(),
            ),
        ]
    }

    /// The zoned background GC knobs came with kernel 6.12 (`gc.h`, `sysfs.c`): under an
    /// older `kernel` setting one is an error naming it, since it would change nothing.
    pub fn kernel_knobs(&self) -> Result<()> {
        if self.kernel >= FsKernel::V6_12 {
            return Ok(());
        }
        match self.zoned_gc_knobs().iter().find(|k| k.1) {
            Some((key, _)) => Err(Error::config(
                *key,
                format!(
                    "kernel {} has no such knob (zoned background GC knobs exist from 6.12 on)",
                    self.kernel.name()
                ),
            )),
            None => Ok(()),
        }
    }

    /// The namespaces of the two areas on a device whose namespaces have `kinds`, for a run
    /// on namespace `run_ns`, and the rules that depend on them (a namespace that exists,
    /// metadata on a conventional one, what a zoned main area forbids).
    pub fn areas(&self, kinds: &[NamespaceKind], run_ns: usize) -> Result<FsAreas> {
        use NamespaceKind::{Conventional, Zoned};
        if self.kind == FsKind::Ext4 {
            return self.ext4_area(kinds, run_ns);
        }
        let first = |k: NamespaceKind| kinds.iter().position(|&x| x == k);
        let main = self
            .main_namespace
            .unwrap_or(match (first(Conventional), first(Zoned)) {
                (Some(_), Some(z)) => z,
                _ => run_ns,
            });
        let meta = self
            .meta_namespace
            .unwrap_or(if kinds.get(main) == Some(&Zoned) {
                first(Conventional).unwrap_or(main)
            } else {
                main
            });
        for (k, n) in [("fs.main_namespace", main), ("fs.meta_namespace", meta)] {
            if n >= kinds.len() {
                return Err(Error::config(
                    k,
                    format!("namespace {n}, but the device has {}", kinds.len()),
                ));
            }
        }
        if kinds[meta] == Zoned {
            return Err(Error::config(
                "fs.meta_namespace",
                "F2FS updates its metadata in place: it needs a conventional namespace (ConZone+ §4, ZUFS §3.4)",
            ));
        }
        let main_zoned = kinds[main] == Zoned;
        if main_zoned && self.mode == Some(FsModeCfg::Adaptive) {
            return Err(Error::config(
                "fs.mode",
                "adaptive is rejected on a zoned main area (the kernel forces lfs: zones forbid overwrites)",
            ));
        }
        if main_zoned && self.background_gc == Some(false) {
            return Err(Error::config(
                "fs.background_gc",
                "off is rejected on a zoned main area (as the kernel does)",
            ));
        }
        Ok(FsAreas {
            meta,
            main,
            main_zoned,
        })
    }

    /// ext4 lives on one namespace (metadata, journal and data), which must take overwrites;
    /// F2FS's own keys mean nothing to it and are refused rather than ignored.
    fn ext4_area(&self, kinds: &[NamespaceKind], run_ns: usize) -> Result<FsAreas> {
        let f2fs_only = [
            ("fs.mode", self.mode.is_some()),
            ("fs.overprovision", self.overprovision.is_some()),
            ("fs.reserved_segments", self.reserved_segments.is_some()),
            ("fs.ipu_policy", self.ipu_policy.is_some()),
            ("fs.min_fsync_blocks", self.min_fsync_blocks.is_some()),
            ("fs.min_ipu_util", self.min_ipu_util.is_some()),
            ("fs.background_gc", self.background_gc.is_some()),
            ("fs.gc_min_sleep_time", self.gc_min_sleep_time.is_some()),
            ("fs.gc_max_sleep_time", self.gc_max_sleep_time.is_some()),
            ("fs.gc_no_gc_sleep_time", self.gc_no_gc_sleep_time.is_some()),
            ("fs.gc_idle_time", self.gc_idle_time.is_some()),
        ];
        let f2fs_only_tail = [
            ("fs.max_victim_search", self.max_victim_search.is_some()),
            ("fs.fg_gc_victim", self.fg_gc_victim != FsFgVictim::Greedy),
            ("fs.cp_interval", self.cp_interval.is_some()),
            ("fs.dirty_nodes_cp", self.dirty_nodes_cp.is_some()),
            ("fs.discard", self.discard.is_some()),
            ("fs.hot_extensions", self.hot_extensions.is_some()),
            ("fs.cold_extensions", self.cold_extensions.is_some()),
            ("fs.gc_copy_offload", self.gc_copy_offload),
        ];
        let knobs = self.zoned_gc_knobs();
        let mut f2fs_keys = f2fs_only.iter().chain(&knobs).chain(&f2fs_only_tail);
        if let Some((key, _)) = f2fs_keys.find(|k| k.1) {
            return Err(Error::config(
                *key,
                "is an F2FS key; fs.kind = \"ext4\" takes the fs.ext4 keys and the page-cache keys (docs/ext4.md)",
            ));
        }
        let main = self.main_namespace.unwrap_or(run_ns);
        if main >= kinds.len() {
            return Err(Error::config(
                "fs.main_namespace",
                format!("namespace {main}, but the device has {}", kinds.len()),
            ));
        }
        if self.meta_namespace.is_some_and(|m| m != main) {
            return Err(Error::config(
                "fs.meta_namespace",
                "ext4 keeps its metadata and journal on its one namespace: leave it unset or equal to fs.main_namespace",
            ));
        }
        if kinds[main] == NamespaceKind::Zoned {
            return Err(Error::config(
                "fs.kind",
                format!("ext4 overwrites blocks in place: it needs a conventional namespace, and namespace {main} is zoned"),
            ));
        }
        Ok(FsAreas {
            meta: main,
            main,
            main_zoned: false,
        })
    }
}
