//! On-disk layout: blocks, segments, sections (= zones on a zoned main area, non-power-of-two
//! allowed, the tail past the zone capacity unusable), the metadata areas (CP, SIT, NAT, SSA)
//! updated in place, and mkfs.f2fs's reserve / overprovision formula (docs/fs.md "Layout, logs
//! and nodes" and "Garbage collection and the mkfs reserve"; Zoned UFS §3.4, ConZone+
//! (ConZone+) §4.1).
//!
//! The one place F2FS layouts are computed:
//! - [`format`](mod@format): mkfs.f2fs's own layout of a volume (reserved first zone, CP, SIT,
//!   NAT with its checkpoint-bitmap cap, SSA padded to a zone, main area), for one device or a
//!   conventional device followed by a zoned one.
//! - [`namespaces`]: ConZone+ §4.1's sizing of a metadata namespace for a zoned data namespace
//!   from [`format`](mod@format), which `zonesim layout` prints.
//! - [`Geometry::mkfs`] here: the simulated file system's layout. Its main area is mkfs.f2fs's
//!   when the metadata namespace is sized by [`namespaces`], but it places its metadata areas
//!   with a smaller model ([`meta_layout`]: areas sized on the main area's segments, not
//!   rounded to segments or zones, the NAT not capped, no reserved zone in a separate metadata
//!   namespace). The simulation's results depend on that placement, so it is kept; docs/fs.md
//!   "Layout, logs and nodes" gives the differences.

pub mod format;
pub mod namespaces;

use super::params::FsParams;
use zonesim_core::error::{Error, Result};

/// Bytes of a block.
pub const BLOCK_BYTES: u64 = 4096;
/// Blocks of a segment (2 MiB).
pub const BLKS_PER_SEG: u32 = 512;
/// Bytes of a segment.
pub const SEG_BYTES: u64 = BLOCK_BYTES * BLKS_PER_SEG as u64;
/// NAT entries per NAT block (9 B each).
pub const NAT_PER_BLOCK: u64 = 455;
/// SIT entries per SIT block (74 B each).
pub const SIT_PER_BLOCK: u64 = 55;
/// NAT / SIT entries the checkpoint's summary journal holds before blocks must be written.
pub const NAT_JOURNAL: u64 = 38;
pub const SIT_JOURNAL: u64 = 6;
/// Blocks of a checkpoint pack: header, compacted summaries with the journals, footer.
pub const CP_PACK_BLOCKS: u64 = 3;
/// Active logs.
pub const NR_LOGS: usize = 6;

/// Where the device puts the file system: told by the run, which knows the device.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FsDevice {
    /// Bytes of the main area's namespace.
    pub main_ns_bytes: u64,
    /// Zone size and capacity of a zoned main namespace.
    pub zone: Option<(u64, u64)>,
    /// Bytes of a separate conventional namespace for the metadata; `None` = the metadata
    /// areas lead the main namespace.
    pub meta_ns_bytes: Option<u64>,
}

/// The metadata areas, in blocks from the start of the metadata region.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MetaLayout {
    /// First byte of the region in its namespace.
    pub base_bytes: u64,
    pub cp: u64,
    pub sit: u64,
    /// Blocks of one SIT copy (two copies).
    pub sit_blocks: u64,
    pub nat: u64,
    /// Blocks of one NAT copy (two copies).
    pub nat_blocks: u64,
    pub ssa: u64,
    /// Blocks of the whole region.
    pub blocks: u64,
}

/// The resolved geometry of one file system.
#[derive(Debug, Clone, PartialEq)]
pub struct Geometry {
    pub zoned: bool,
    pub segs_per_sec: u32,
    /// Segments of a section below the zone capacity.
    pub usable_segs_per_sec: u32,
    pub sections: u32,
    /// First byte of the main area in its namespace.
    pub main_base_bytes: u64,
    pub meta: MetaLayout,
    /// Node ids (NAT entries).
    pub max_nids: u32,
    pub overprovision_pct: f64,
    pub reserved_segments: u64,
    /// Overprovision segments (including the reserve): never counted as user space.
    pub ovp_segments: u64,
    /// Blocks files and nodes may hold (`user_block_count`).
    pub user_blocks: u64,
}

impl Geometry {
    pub fn blocks_per_sec(&self) -> u32 {
        self.segs_per_sec * BLKS_PER_SEG
    }
    pub fn main_segs(&self) -> u32 {
        self.sections * self.segs_per_sec
    }
    pub fn usable_segs(&self) -> u64 {
        self.sections as u64 * self.usable_segs_per_sec as u64
    }
    pub fn main_blocks(&self) -> u32 {
        self.main_segs() * BLKS_PER_SEG
    }
    pub fn reserved_sections(&self) -> u32 {
        (self.reserved_segments / self.segs_per_sec as u64) as u32
    }
    /// Segment `seg` is below its zone's capacity.
    #[inline]
    pub fn seg_usable(&self, seg: u32) -> bool {
        seg % self.segs_per_sec < self.usable_segs_per_sec
    }
    /// Byte offset of main block `b` in the main namespace.
    #[inline]
    pub fn main_offset(&self, b: u32) -> u64 {
        self.main_base_bytes + b as u64 * BLOCK_BYTES
    }
    /// Byte offset of metadata block `b` in the metadata namespace.
    #[inline]
    pub fn meta_offset(&self, b: u64) -> u64 {
        self.meta.base_bytes + b * BLOCK_BYTES
    }

    /// Lay a file system out on `dev` with `p`'s reserve settings (mkfs).
    pub fn mkfs(dev: &FsDevice, p: &FsParams) -> Result<Geometry> {
        let (segs_per_sec, usable) = match dev.zone {
            Some((size, cap)) => {
                if size % SEG_BYTES != 0 || cap < SEG_BYTES {
                    return Err(Error::config(
                        "fs",
                        format!("a zoned main area needs zones of whole 2 MiB segments and a capacity of at least one (zone {size} B, capacity {cap} B)"),
                    ));
                }
                ((size / SEG_BYTES) as u32, (cap / SEG_BYTES) as u32)
            }
            None => (1, 1),
        };
        let stride = segs_per_sec as u64 * SEG_BYTES;
        // First pass: metadata sized for the whole namespace, then main fitted after it.
        let rough_main_segs = dev.main_ns_bytes / SEG_BYTES;
        let meta = meta_layout(rough_main_segs, 0);
        let (main_base, sections) = match dev.meta_ns_bytes {
            Some(cap) => {
                if meta.blocks * BLOCK_BYTES > cap {
                    return Err(Error::config(
                        "fs",
                        format!("the metadata areas need {} MiB, the conventional namespace holds {} MiB", (meta.blocks * BLOCK_BYTES) >> 20, cap >> 20),
                    ));
                }
                (0, dev.main_ns_bytes / stride)
            }
            None => {
                // One segment for the two superblocks, then CP/SIT/NAT/SSA, main segment-aligned.
                let meta_segs = 1 + meta.blocks.div_ceil(BLKS_PER_SEG as u64);
                let base = meta_segs * SEG_BYTES;
                (base, dev.main_ns_bytes.saturating_sub(base) / stride)
            }
        };
        if sections < 8 {
            return Err(Error::config(
                "fs",
                format!("the main area holds {sections} sections; F2FS needs at least 8"),
            ));
        }
        let sections = sections as u32;
        let meta_base = if dev.meta_ns_bytes.is_some() {
            0
        } else {
            SEG_BYTES
        };
        let meta = meta_layout(sections as u64 * segs_per_sec as u64, meta_base);
        let usable_segs = sections as u64 * usable as u64;
        let main_segs = sections as u64 * segs_per_sec as u64;
        let (ovp_pct, reserved, ovp_segs) =
            reserve(p, usable_segs, main_segs, segs_per_sec, usable);
        if ovp_segs + 2 * segs_per_sec as u64 >= usable_segs {
            return Err(Error::config(
                "fs.reserved_segments",
                format!(
                    "{ovp_segs} reserved/overprovision segments leave no user space in {usable_segs} usable segments ({sections} sections of {usable} usable segments); {}",
                    if p.reserved_segments.is_some() || p.overprovision.is_some() {
                        "lower fs.reserved_segments / fs.overprovision".to_string()
                    } else {
                        format!(
                            "mkfs.f2fs's formula needs many more, smaller sections; set fs.reserved_segments explicitly (e.g. {} = 2 sections)",
                            2 * usable
                        )
                    }
                ),
            ));
        }
        let user_blocks = (usable_segs - ovp_segs) * BLKS_PER_SEG as u64;
        Ok(Geometry {
            zoned: dev.zone.is_some(),
            segs_per_sec,
            usable_segs_per_sec: usable,
            sections,
            main_base_bytes: main_base,
            meta,
            max_nids: (main_segs * BLKS_PER_SEG as u64).min(u32::MAX as u64 - 2) as u32,
            overprovision_pct: ovp_pct,
            reserved_segments: reserved,
            ovp_segments: ovp_segs,
            user_blocks,
        })
    }
}

/// The simulated file system's metadata areas for a main area of `main_segs` segments, starting
/// at byte `base_bytes` of their namespace: two checkpoint segments, two SIT copies of a block
/// per 55 main segments, two NAT copies of a block per 455 main blocks (one node id per main
/// block), an SSA block per main segment, packed without rounding (mkfs.f2fs's areas are
/// [`format::f2fs_layout`]).
pub fn meta_layout(main_segs: u64, base_bytes: u64) -> MetaLayout {
    let cp = 0;
    let sit = 2 * BLKS_PER_SEG as u64;
    let sit_blocks = main_segs.div_ceil(SIT_PER_BLOCK);
    let nat = sit + 2 * sit_blocks;
    let nat_blocks = (main_segs * BLKS_PER_SEG as u64).div_ceil(NAT_PER_BLOCK);
    let ssa = nat + 2 * nat_blocks;
    MetaLayout {
        base_bytes,
        cp,
        sit,
        sit_blocks,
        nat,
        nat_blocks,
        ssa,
        blocks: ssa + main_segs,
    }
}

/// mkfs.f2fs's own choice (no `-o`, no explicit reserve) for a main area of `usable_segs`
/// one-segment sections: (overprovision %, reserved segments). Lets a scaled reproduction
/// state the reserve of the paper's full-size device.
pub fn mkfs_reserve(usable_segs: u64) -> (f64, u64) {
    let p = FsParams::kernel_default(false, super::Kernel::V6_12, 1);
    let (ovp, reserved, _) = reserve(&p, usable_segs, usable_segs, 1, 1);
    (ovp, reserved)
}

/// mkfs.f2fs: reserved segments `roundup_sec((100/ovp + 1 + 6) · usable_segs_per_sec)`,
/// overprovision segments `(usable − reserved) · ovp / 100`, ovp searched over 0.01–10 %
/// (10–95 % below 256 main segments) to maximise `usable − max(reserved, ovp) − 2·segs_per_sec`.
/// Returns (ovp %, reserved segments, overprovision segments = max(reserved, ovp)).
fn reserve(
    p: &FsParams,
    usable_segs: u64,
    main_segs: u64,
    segs_per_sec: u32,
    usable_per_sec: u32,
) -> (f64, u64, u64) {
    let sps = segs_per_sec as f64;
    let reserved_for = |ovp: f64| {
        let r = (100.0 / ovp + 1.0 + 6.0) * usable_per_sec as f64;
        ((r / sps).ceil() * sps) as u64
    };
    let ovp_for = |ovp: f64, reserved: u64| (usable_segs as f64 - reserved as f64) * ovp / 100.0;
    let ovp = match p.overprovision {
        Some(o) => o,
        None => {
            let (mut c, end, step) = if main_segs < 256 {
                (10.0, 95.0, 5.0)
            } else {
                (0.01, 10.0, 0.01)
            };
            let (mut best, mut best_space) = (c, f64::MIN);
            while c <= end + 1e-9 {
                let r = reserved_for(c);
                let o = ovp_for(c, r);
                if o >= 0.0 {
                    let space = usable_segs as f64 - (r as f64).max(o) - 2.0 * sps;
                    if space > best_space {
                        best_space = space;
                        best = c;
                    }
                }
                c += step;
            }
            best
        }
    };
    let reserved = p.reserved_segments.unwrap_or_else(|| reserved_for(ovp));
    let o = ovp_for(ovp, reserved).max(0.0).ceil() as u64;
    let ovp_segs = if p.reserved_segments.is_some() && p.overprovision.is_none() {
        reserved
    } else {
        reserved.max(o)
    };
    (ovp, reserved, ovp_segs)
}

#[cfg(test)]
mod tests;
