//! The emulation handle (`zonesim::emu`): data round trips with verify, trims and zone resets
//! dropping data, zone-rule rejections, the report's counts, determinism, realtime pacing and
//! traces recorded and read back by zonesim's own trace readers.

use zonesim::emu::{Handle, HandleOptions, IoError, Pace, RecordFormat, StoreSpec};
use zonesim::host::trace::{TraceFormat, TraceOptions, TraceReader};
use zonesim::host::IoKind;

const SMALL: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/small-zoned.toml");

fn tmp(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("zonesim-emu-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // A sparse store holding data is refused without --resume/--fresh: start from none (the
    // directory of an earlier process with the same id may remain).
    let p = dir.join(name);
    let _ = std::fs::remove_file(&p);
    p
}

fn open(namespace: usize, store: StoreSpec, verify: bool) -> Handle {
    Handle::open(HandleOptions {
        device: SMALL.into(),
        namespace,
        store,
        verify,
        ..Default::default()
    })
    .expect("valid options")
}

fn pattern(len: usize, seed: u64) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}

/// Writes, reads back, overwrites part, trims: every read returns the last write (zeros once
/// trimmed), verify finds nothing, and the report counts what was done.
#[test]
fn conventional_reads_return_the_last_write() {
    for store in [StoreSpec::Memory, StoreSpec::Sparse(tmp("conv.img"))] {
        let mut h = open(0, store, true);
        let a = pattern(64 << 10, 1);
        let t = h.write(0, &a).unwrap();
        assert!(t.done > t.issued);
        h.complete(&t);
        let b = pattern(8 << 10, 2);
        let t = h.write(16 << 10, &b).unwrap();
        h.complete(&t);
        let mut back = vec![0u8; 64 << 10];
        let t = h.read(0, &mut back).unwrap();
        h.complete(&t);
        let mut want = a.clone();
        want[16 << 10..24 << 10].copy_from_slice(&b);
        assert_eq!(back, want);
        let t = h.trim(0, 32 << 10).unwrap();
        h.complete(&t);
        let t = h.read(0, &mut back).unwrap();
        h.complete(&t);
        assert!(back[..32 << 10].iter().all(|&x| x == 0));
        assert_eq!(&back[32 << 10..], &want[32 << 10..]);
        let t = h.flush().unwrap();
        h.complete(&t);
        let r = h.finish().unwrap();
        let e = r.emulation.as_ref().unwrap();
        assert_eq!((r.host.write.ios, r.host.read.ios), (2, 2));
        assert_eq!((r.host.trim.ios, r.host.flush.ios), (1, 1));
        assert_eq!(e.store.mismatches, 0);
        assert_eq!(e.store.pages_verified, 32);
        assert_eq!(r.sim.requests_issued, r.sim.requests_completed);
        assert_eq!(r.device.host_pages_written, 18);
    }
}

/// A sparse store changed behind the device's back: verify reports the page and fails the read.
#[test]
fn verify_catches_data_changed_behind_the_device() {
    use std::os::unix::fs::FileExt;
    let path = tmp("tamper.img");
    let mut h = open(0, StoreSpec::Sparse(path.clone()), true);
    let t = h.write(8192, &pattern(8192, 3)).unwrap();
    h.complete(&t);
    let f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    f.write_all_at(&[0xff], 12288 + 7).unwrap();
    let mut buf = vec![0u8; 8192];
    assert_eq!(h.read(8192, &mut buf), Err(IoError::Data));
    let r = h.report();
    let e = r.emulation.unwrap();
    assert_eq!(e.store.mismatches, 1);
    assert_eq!(e.store.first_mismatch_offset, Some(12288));
    assert_eq!(e.rejected.data, 1);
}

/// Zoned: a write off the write pointer is rejected and counted; a reset drops the zone's data.
#[test]
fn zoned_rules_and_reset_drop_data() {
    let mut h = open(1, StoreSpec::Memory, true);
    let zc = h.zone_config().expect("namespace 1 is zoned");
    let zone = zc.zone_size * zonesim::emu::PAGE;
    let a = pattern(128 << 10, 4);
    let t = h.write(zone, &a).unwrap();
    h.complete(&t);
    assert_eq!(h.write(zone + (512 << 10), &a), Err(IoError::ZoneRule));
    let zones = h.report_zones(zone, 2);
    assert_eq!(
        zones[0].write_pointer.0 * zonesim::emu::PAGE,
        zone + (128 << 10)
    );
    let mut back = vec![0u8; 128 << 10];
    let t = h.read(zone, &mut back).unwrap();
    h.complete(&t);
    assert_eq!(back, a);
    let t = h.zone_reset(zone).unwrap();
    h.complete(&t);
    let b = pattern(4096, 5);
    let t = h.write(zone, &b).unwrap();
    h.complete(&t);
    let t = h.read(zone, &mut back[..4096]).unwrap();
    h.complete(&t);
    assert_eq!(&back[..4096], &b[..]);
    let r = h.finish().unwrap();
    let e = r.emulation.unwrap();
    assert_eq!(e.rejected.zone_rule, 1);
    assert_eq!(e.store.mismatches, 0);
    assert_eq!(r.host.zone_mgmt.ios, 1);
    assert_eq!(r.device.zones.resets, 1);
}

/// Same requests, same report (wall-clock fields aside).
#[test]
fn emulation_is_deterministic() {
    let run = || {
        let mut h = open(0, StoreSpec::None, false);
        let mut inflight = Vec::new();
        for i in 0..200u64 {
            let off = (i * 7919 % 2000) * 4096;
            let t = if i % 3 == 0 {
                h.write(off, &[0u8; 4096]).unwrap()
            } else {
                h.read(off, &mut [0u8; 4096]).unwrap()
            };
            inflight.push(t);
            if inflight.len() == 8 {
                inflight.sort_by_key(|t| t.done);
                h.complete(&inflight.remove(0));
            }
        }
        for t in &inflight {
            h.complete(t);
        }
        h.finish().unwrap().deterministic_json()
    };
    assert_eq!(run(), run());
}

/// Realtime pacing: completions are not delivered before their simulated time in wall time,
/// and the report counts them with their error.
#[test]
fn realtime_pacing_waits_for_simulated_time() {
    let mut h = Handle::open(HandleOptions {
        device: SMALL.into(),
        pace: Pace::Realtime,
        ..Default::default()
    })
    .unwrap();
    let start = std::time::Instant::now();
    let mut sim = 0;
    for i in 0..20u64 {
        let t = h.write(i * 65536, &[1u8; 65536]).unwrap();
        h.complete(&t);
        sim = t.done.ns();
    }
    assert!(start.elapsed().as_nanos() as u64 >= sim - sim / 10, "{sim}");
    let p = h.report().emulation.unwrap().pacing;
    assert_eq!((p.mode, p.paced), ("realtime", 20));
    assert!(p.error_us.max >= p.error_us.p99 && p.error_us.p99 >= p.error_us.p50);
}

/// `--record`: the trace zonesim's own readers read back is the requests issued.
#[test]
fn recorded_traces_read_back() {
    for (format, want) in [
        (RecordFormat::Iolog, TraceFormat::Iolog),
        (RecordFormat::Blkparse, TraceFormat::Blkparse),
    ] {
        let path = tmp(&format!("rec.{}", format.name()));
        let mut h = Handle::open(HandleOptions {
            device: SMALL.into(),
            record: Some((path.clone(), format)),
            ..Default::default()
        })
        .unwrap();
        let mut issued = Vec::new();
        for (i, kind) in [IoKind::Write, IoKind::Read, IoKind::Trim, IoKind::Flush]
            .iter()
            .enumerate()
        {
            let off = i as u64 * 8192;
            let t = match kind {
                IoKind::Write => h.write(off, &[7u8; 8192]),
                IoKind::Read => h.read(off, &mut [0u8; 8192]),
                IoKind::Trim => h.trim(off, 8192),
                _ => h.flush(),
            }
            .unwrap();
            h.complete(&t);
            issued.push((*kind, t.issued.ns()));
        }
        let rep = h.finish().unwrap().emulation.unwrap().record.unwrap();
        assert_eq!((rep.requests, rep.skipped), (4, 0));
        let mut r = TraceReader::open(&path, &TraceOptions::default()).unwrap();
        assert_eq!(r.format(), want);
        let mut got = Vec::new();
        while let Some(rec) = r.next_record().unwrap() {
            got.push(rec);
        }
        assert_eq!(got.len(), 4, "{format:?}");
        for (i, rec) in got.iter().enumerate() {
            assert_eq!(rec.io.kind, issued[i].0);
            if rec.io.kind != IoKind::Flush {
                assert_eq!((rec.io.offset, rec.io.len), (i as u64 * 8192, 8192));
            }
        }
    }
}

#[test]
fn bad_options_are_one_line_errors() {
    let e = Handle::open(HandleOptions {
        device: SMALL.into(),
        verify: true,
        ..Default::default()
    })
    .err()
    .unwrap()
    .to_string();
    assert!(e.contains("--verify") && e.contains("--store"), "{e}");
    let e = Handle::open(HandleOptions {
        device: SMALL.into(),
        namespace: 9,
        ..Default::default()
    })
    .err()
    .unwrap()
    .to_string();
    assert!(e.contains("namespace"), "{e}");
    assert!(StoreSpec::parse("zs_store", "ram").is_err());
}
