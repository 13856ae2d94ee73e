//! `zonesim layout`: namespace sizing for F2FS on a metadata (conventional) + data (zoned)
//! device, the rule of ConZone+ §4.1 ([`crate::f2fs_layout`]).

use crate::f2fs_layout::{metadata_layout, render, PhysicalSizing};
use anyhow::Result;

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
    let l = metadata_layout(
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
