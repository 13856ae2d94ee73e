//! The multi-queue host and the multi-core firmware model (docs/firmware.md): the data cache after
//! a precondition, NVM sets, and properties of the cores model.

use crate::common;
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

/// An NVM set is physical isolation: a namespace pinned to channel 0 writes, reads and
/// collects garbage only on channel 0's dies; channel 1's dies are never booked.
#[test]
fn nvm_set_never_touches_other_channels() {
    use zonesim::device::Device;
    use zonesim::engine::SimTime;
    use zonesim::interface::{Command, Op};
    let cfg = two_namespaces("[0]", "[1]", &[]);
    let mut dev = Device::new(&cfg, 1).unwrap();
    let pages = dev.capacity_bytes(0) / 4096;
    let mut t = SimTime::ZERO;
    // Three passes over the namespace: fills it and forces garbage collection.
    let mut x = 7u64;
    for _ in 0..3 * pages {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let lba = x % pages;
        let cmd = Command::widen(Op::Write { hint: 0 }, lba * 4096, 4096);
        t = dev.submit(t, 0, cmd).done;
    }
    for lba in (0..pages).step_by(97) {
        t = dev
            .submit(t, 0, Command::widen(Op::Read, lba * 4096, 4096))
            .done;
    }
    dev.submit(t, 0, Command::widen(Op::Flush, 0, 0));
    let geo = &dev.nand.geo;
    let mut used = [0u32; 2];
    for die in 0..geo.dies {
        if dev.nand.die_free_at(die) > SimTime::ZERO {
            used[geo.channel_of(die) as usize] += 1;
        }
    }
    assert_eq!(used[1], 0, "a die of channel 1 was booked");
    assert!(used[0] > 0);
    assert!(dev.nand.counters.block_erases > 0, "GC ran");
    dev.check_invariants().unwrap();
}

/// `firmware.model = "off"` set explicitly reports exactly what the default does.
#[test]
fn model_off_is_the_default() {
    let wl = jobs("[w]\nrw=randrw\nbs=8k\niodepth=4\nnumjobs=3\nnumber_ios=3000\n");
    let a = run(&cached(0, &[]), &wl, Precondition::Seq, 3);
    let b = run(
        &cached(0, &["firmware.model=off"]),
        &wl,
        Precondition::Seq,
        3,
    );
    assert!(b.firmware.is_none());
    assert_eq!(a.deterministic_json(), b.deterministic_json());
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(12))]
    /// Under any mix of workers, lock design, hand-off, queues and cache: every request
    /// completes once (issued = completed, and the cores counted each once), no lock is held
    /// by two cores and no core runs two handlers at once (`Device::check_invariants`,
    /// run by `common::run`), and the same seed gives the same report.
    #[test]
    fn cores_model_properties(
        workers in 1u32..7,
        bucket in proptest::bool::ANY,
        fifo in proptest::bool::ANY,
        queues in 0u32..5,
        cache in proptest::sample::select(vec![0u64, 1 << 20, 16 << 20]),
        jobs_n in 1u32..5,
        rw in proptest::sample::select(vec!["randread", "randwrite", "randrw"]),
        seed in 0u64..1000,
    ) {
        let sets = [
            "firmware.model=cores".to_string(),
            format!("firmware.workers={workers}"),
            format!("firmware.lock_granularity={}", if bucket { "bucket" } else { "namespace" }),
            format!("firmware.lock_handoff={}", if fifo { "fifo" } else { "ttas" }),
            format!("host.queues={queues}"),
            "firmware.core_mhz=200".to_string(),
        ];
        let sets: Vec<&str> = sets.iter().map(String::as_str).collect();
        let cfg = cached(cache, &sets);
        let wl = jobs(&format!(
            "[j]\nrw={rw}\nbs=8k\niodepth=4\nnumjobs={jobs_n}\nnumber_ios=400\n"
        ));
        let r = run(&cfg, &wl, Precondition::Seq, seed);
        let fw = r.firmware.as_ref().expect("cores report a firmware section");
        proptest::prop_assert_eq!(fw.requests, r.sim.requests_completed);
        proptest::prop_assert_eq!(r.sim.requests_completed, 400 * jobs_n as u64);
        let again = run(&cfg, &wl, Precondition::Seq, seed);
        proptest::prop_assert_eq!(r.deterministic_json(), again.deterministic_json());
    }
}
