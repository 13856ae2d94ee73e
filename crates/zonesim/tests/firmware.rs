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
    assert_eq!(
        c.counters.writebacks, 0,
        "nothing dirty in the measured phase"
    );
    // The precondition's dirty pages were written back: the flash holds every page it wrote.
    assert!(r.precondition.host_pages_written > 0);
}

/// Two namespaces of the small device: `a` and `b` are their `channels` lists (TOML).
fn two_namespaces(a: &str, b: &str, extra: &[&str]) -> zonesim::config::DeviceConfig {
    let dir = std::env::temp_dir().join(format!("zonesim-nvmset-{}-{a}-{b}", std::process::id()));
    let text = format!(
        "base = \"nvme-ssd\"\n[nand]\nchannels = 2\nchips_per_channel = 1\nblocks_per_plane = 64\npages_per_block = 64\n\
         [[namespaces]]\nkind = \"conventional\"\ncapacity_bytes = 67108864\nchannels = {a}\n\
         [[namespaces]]\nkind = \"conventional\"\ncapacity_bytes = 67108864\nchannels = {b}\n"
    );
    std::fs::write(&dir, text).unwrap();
    let cfg = device(dir.to_str().unwrap(), extra);
    std::fs::remove_file(&dir).ok();
    cfg
}

/// A namespace pinned to one of two channels (an NVM set) reads at the speed of that
/// channel's dies: about half the throughput of the same namespace striped over both.
#[test]
fn nvm_set_pins_a_namespace_to_its_channels() {
    let wl = jobs("[r]\nrw=randread\nbs=4k\niodepth=32\nnumber_ios=4000\n");
    let iops =
        |cfg: &zonesim::config::DeviceConfig| run(cfg, &wl, Precondition::Seq, 1).host.read.iops;
    let pinned = iops(&two_namespaces("[0]", "[1]", &[]));
    let striped = iops(&two_namespaces("[]", "[]", &[]));
    let ratio = pinned / striped;
    assert!(
        (0.4..0.65).contains(&ratio),
        "pinned {pinned} striped {striped}"
    );
}

/// Bad NVM sets are config errors naming the key.
#[test]
fn nvm_set_rules() {
    let err = |a: &str, b: &str| {
        let dir = std::env::temp_dir().join(format!("zonesim-nvmset-bad-{}", std::process::id()));
        let text = format!(
            "base = \"nvme-ssd\"\n[nand]\nchannels = 2\n[[namespaces]]\nkind = \"conventional\"\ncapacity_bytes = 67108864\nchannels = {a}\n\
             [[namespaces]]\nkind = \"{b}\"\nchannels = [1]\n"
        );
        std::fs::write(&dir, text).unwrap();
        let e = zonesim::load_device(dir.to_str().unwrap(), &[])
            .err()
            .map(|e| e.to_string());
        std::fs::remove_file(&dir).ok();
        e.expect("an error")
    };
    assert!(err("[2]", "conventional").contains("namespaces[0].channels"));
    assert!(err("[0, 0]", "conventional").contains("listed twice"));
    assert!(err("[0]", "zoned").contains("namespaces[1].channels"));
}
