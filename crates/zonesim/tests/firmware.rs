//! The multi-queue host and the multi-core firmware model (issue 15): the data cache after a
//! precondition, NVM sets, and properties of the cores model.

mod common;
use common::*;
use zonesim::sim::Precondition;

/// A small conventional device with a data cache of `cache` bytes.
fn cached(cache: u64, extra: &[&str]) -> zonesim::config::DeviceConfig {
    let c = format!("cache.bytes={cache}");
    let mut sets = vec![
        "nand.channels=2",
        "nand.chips_per_channel=1",
        "nand.blocks_per_plane=64",
        "nand.pages_per_block=64",
        "ftl.l2p_cache_bytes=4194304",
        c.as_str(),
    ];
    sets.extend_from_slice(extra);
    device("nvme-ssd", &sets)
}

/// The precondition's writes do not stay in the data cache: the measured phase starts with
/// it written back and empty, so reading the pages the precondition wrote last misses.
#[test]
fn precondition_leaves_the_data_cache_cold() {
    // A cache larger than the device: a polluted cache would hold every page.
    let cfg = cached(1 << 30, &[]);
    // 4 MiB the sequential fill wrote, read once each: every read misses.
    let wl = jobs("[r]\nrw=read\nbs=4k\noffset=95%\nsize=4m\n");
    let r = run(&cfg, &wl, Precondition::Seq, 1);
    let fw = r.firmware.expect("a data cache reports a firmware section");
    let c = &fw.cache["ns0"];
    assert_eq!(c.counters.read_hits, 0, "{:?}", c.counters);
    assert_eq!(c.counters.read_misses, 1024);
    assert_eq!(c.counters.writebacks, 0, "nothing dirty in the measured phase");
    // The precondition's dirty pages were written back: the flash holds every page it wrote.
    assert!(r.precondition.host_pages_written > 0);
}
