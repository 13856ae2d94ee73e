//! `zonesim layout`: namespace sizing for F2FS on a metadata (conventional) + data (zoned)
//! device, the rule of ConZone+ §4.1. Only the arguments and the table are here: the sizing is
//! the library's (`host::fs::layout::namespaces`, over mkfs.f2fs's layout in
//! `host::fs::layout::format`), beside the simulated file system's own mkfs.

use anyhow::Result;
use zonesim::host::fs::layout::namespaces::{size_namespaces, NamespaceLayout, PhysicalSizing};
use zonesim::host::fs::layout::{BLOCK_BYTES, SEG_BYTES};

/// A byte count with an optional binary suffix (`64m`, `4GiB`), as in fio job files.
fn bytes(s: &str) -> Result<u64, String> {
    zonesim::host::fio::parse_size(s)
        .ok_or_else(|| format!("'{s}': expected bytes, optionally with k/m/g/t (powers of 1024)"))
}

/// A byte count of at most `max` bytes (keeps the layout arithmetic within 64 bits).
fn bytes_at_most(s: &str, max: u64, what: &str) -> Result<u64, String> {
    let v = bytes(s)?;
    if v > max {
        return Err(format!("'{s}': at most {what}"));
    }
    Ok(v)
}

/// Data capacity: at most 1 EiB.
fn data_bytes(s: &str) -> Result<u64, String> {
    bytes_at_most(s, 1 << 60, "1 EiB (2^60 bytes)")
}

/// Zone and superblock sizes, SLC capacity: at most 1 TiB.
fn unit_bytes(s: &str) -> Result<u64, String> {
    bytes_at_most(s, 1 << 40, "1 TiB (2^40 bytes)")
}

#[derive(clap::Args)]
pub struct LayoutArgs {
    /// Capacity of the zoned data namespace, bytes, e.g. 4g (a multiple of the zone size).
    #[arg(long, value_parser = data_bytes)]
    pub data_bytes: u64,
    /// Zone size, bytes (a multiple of the 2 MiB F2FS segment).
    #[arg(long, value_parser = unit_bytes)]
    pub zone_bytes: u64,
    /// Superblock size of the metadata namespace's blocks (SLC mode if it lives in SLC);
    /// its physical size is rounded up to it. 0 = no rounding.
    #[arg(long, default_value = "0", value_parser = unit_bytes)]
    pub meta_superblock_bytes: u64,
    /// Over-provisioning of the metadata namespace, percent (0..=1000).
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=1000))]
    pub meta_op_percent: u32,
    /// SLC secondary-buffer capacity serving the zoned namespace, bytes.
    #[arg(long, default_value = "0", value_parser = data_bytes)]
    pub data_slc_bytes: u64,
    /// Print JSON instead of the table.
    #[arg(long)]
    pub json: bool,
}

pub fn run(a: LayoutArgs) -> Result<()> {
    let l = size_namespaces(
        a.data_bytes,
        a.zone_bytes,
        &PhysicalSizing {
            meta_superblock_bytes: a.meta_superblock_bytes,
            meta_op_percent: a.meta_op_percent,
            data_slc_bytes: a.data_slc_bytes,
        },
    )?;
    if a.json {
        println!("{}", serde_json::to_string_pretty(&l)?);
    } else {
        print!("{}", render(&l));
    }
    Ok(())
}

fn human(bytes: u64) -> String {
    const UNITS: [(&str, u64); 4] = [
        ("TiB", 1 << 40),
        ("GiB", 1 << 30),
        ("MiB", 1 << 20),
        ("KiB", 1 << 10),
    ];
    for (u, n) in UNITS {
        if bytes >= n && bytes.is_multiple_of(n) {
            return format!("{} {u}", bytes / n);
        }
    }
    for (u, n) in UNITS {
        if bytes >= n {
            return format!("{:.2} {u}", bytes as f64 / n as f64);
        }
    }
    format!("{bytes} B")
}

/// A readable table of a [`NamespaceLayout`], for `zonesim layout`.
pub fn render(l: &NamespaceLayout) -> String {
    use std::fmt::Write;
    let f = &l.f2fs;
    let seg = |n: u64| human(n * SEG_BYTES);
    let mut s = String::new();
    let row = |s: &mut String, k: &str, v: String| {
        let _ = writeln!(s, "  {k:<34} {v}");
    };
    row(
        &mut s,
        "zone size",
        format!("{} ({} bytes)", human(l.zone_size_bytes), l.zone_size_bytes),
    );
    s.push_str("namespaces (ConZone+ §4.1)\n");
    row(
        &mut s,
        "ns 0 conventional, logical",
        format!(
            "{} ({} zones, {} bytes)",
            human(l.conventional_logical_bytes),
            l.conventional_zones,
            l.conventional_logical_bytes
        ),
    );
    row(
        &mut s,
        "ns 0 conventional, physical",
        format!(
            "{} (+{}% OP, superblock {})",
            human(l.conventional_physical_bytes),
            l.physical.meta_op_percent,
            if l.physical.meta_superblock_bytes == 0 {
                "-".to_string()
            } else {
                human(l.physical.meta_superblock_bytes)
            }
        ),
    );
    row(
        &mut s,
        "ns 1 zoned, logical",
        format!(
            "{} ({} zones, {} bytes)",
            human(l.zoned_logical_bytes),
            l.zoned_zones,
            l.zoned_logical_bytes
        ),
    );
    row(
        &mut s,
        "ns 1 zoned, physical",
        format!(
            "{} (+{} SLC)",
            human(l.zoned_physical_bytes),
            human(l.physical.data_slc_bytes)
        ),
    );
    row(
        &mut s,
        "device total, physical",
        human(l.total_physical_bytes),
    );
    row(
        &mut s,
        "metadata sizes tried",
        format!("{} (from 2 zones)", l.tries),
    );
    s.push_str("F2FS layout (mkfs.f2fs, 4 KiB blocks, 2 MiB segments)\n");
    row(&mut s, "segments per zone", f.segs_per_zone.to_string());
    row(
        &mut s,
        "reserved (superblocks)",
        format!(
            "blocks 0..{} ({})",
            f.segment0_blkaddr,
            human(f.segment0_blkaddr * BLOCK_BYTES)
        ),
    );
    row(
        &mut s,
        "segment count",
        format!("{} ({})", f.segment_count, seg(f.segment_count)),
    );
    row(
        &mut s,
        "checkpoint (CP)",
        format!(
            "{} segments at block {}, cp_payload {}",
            f.segment_count_ckpt, f.segment0_blkaddr, f.cp_payload
        ),
    );
    row(
        &mut s,
        "SIT",
        format!(
            "{} segments at block {}",
            f.segment_count_sit, f.sit_blkaddr
        ),
    );
    row(
        &mut s,
        "NAT",
        format!(
            "{} segments at block {}",
            f.segment_count_nat, f.nat_blkaddr
        ),
    );
    row(
        &mut s,
        "SSA (zone padded)",
        format!(
            "{} segments at block {}",
            f.segment_count_ssa, f.ssa_blkaddr
        ),
    );
    row(&mut s, "metadata zones", f.meta_zones.to_string());
    row(
        &mut s,
        "main area",
        format!(
            "block {} ({}), {} zones",
            f.main_blkaddr,
            human(f.main_blkaddr * BLOCK_BYTES),
            f.main_zones
        ),
    );
    row(
        &mut s,
        "zoned namespace starts",
        format!(
            "block {} (aligned: {})",
            f.zoned_start_blkaddr,
            f.main_blkaddr == f.zoned_start_blkaddr
        ),
    );
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIB: u64 = 1 << 20;
    const GIB: u64 = 1 << 30;

    #[test]
    fn render_and_json() {
        let l = size_namespaces(4 * GIB, 64 * MIB, &PhysicalSizing::default()).unwrap();
        let t = render(&l);
        assert!(t.contains("128 MiB (2 zones"), "{t}");
        assert!(t.contains("4 GiB (64 zones"), "{t}");
        assert!(t.contains("aligned: true"), "{t}");
        let v = serde_json::to_value(l).unwrap();
        assert_eq!(v["conventional_logical_bytes"], 128 * MIB);
        assert_eq!(v["f2fs"]["segment_count_nat"], 10);
    }

    #[test]
    fn human_sizes() {
        assert_eq!(human(4224 * MIB), "4224 MiB");
        assert_eq!(human(4 * GIB), "4 GiB");
        assert_eq!(human(3 * MIB / 2), "1536 KiB");
        assert_eq!(human(MIB + 1), "1.00 MiB");
        assert_eq!(human(0), "0 B");
    }
}
