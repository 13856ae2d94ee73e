//! Stores that persist across runs (`emu::persist`): a `sparse:PATH` store closed cleanly and
//! resumed gives back its data and a device in exactly the state it was (every later completion
//! time equals an uninterrupted run's), on a conventional and a zoned namespace; a store holding
//! data is truncated only when asked; another device, seed or a damaged metadata file is a
//! one-line error.

use proptest::prelude::*;
use std::path::{Path, PathBuf};
use zonesim::emu::{Handle, HandleOptions, StoreOpen, StoreSpec, PAGE};

const SMALL: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/small-zoned.toml");

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("zonesim-persist-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    let _ = std::fs::remove_file(&p);
    let _ = std::fs::remove_file(zonesim::emu::persist::meta_path(&p));
    p
}

fn opts(ns: usize, path: &Path, open: StoreOpen) -> HandleOptions {
    HandleOptions {
        device: SMALL.into(),
        namespace: ns,
        store: StoreSpec::Sparse(path.to_path_buf()),
        open,
        verify: true,
        ..Default::default()
    }
}

fn open(ns: usize, path: &Path, open: StoreOpen) -> Handle {
    Handle::open(opts(ns, path, open)).expect("valid options")
}

fn err(o: HandleOptions) -> String {
    Handle::open(o).err().expect("an error").to_string()
}

/// One request of a test workload.
#[derive(Debug, Clone, Copy)]
enum Op {
    Write { page: u64, pages: u64, seed: u8 },
    Read { page: u64, pages: u64 },
    Trim { page: u64, pages: u64 },
    Flush,
}

/// Runs `ops` at queue depth 1; returns each request's (issued, done) and the data each read
/// returned. On a zoned namespace each write goes to the write pointer of zone `page % 4`
/// (a full zone is reset first), a read reads from its start and a trim resets it.
fn drive(h: &mut Handle, ops: &[Op]) -> (Vec<(u64, u64)>, Vec<Vec<u8>>) {
    let (mut times, mut data) = (Vec::new(), Vec::new());
    let zone = h.zone_config().map(|z| (z.zone_size, z.zone_capacity));
    let mut tickets = Vec::new();
    for &op in ops {
        match (op, zone) {
            (Op::Write { page, pages, seed }, Some((size, cap))) => {
                let z = h.report_zones((page % 4) * size * PAGE, 1)[0];
                if z.write_pointer.0 + pages > z.start.0 + cap {
                    tickets.push(h.zone_reset(z.start.0 * PAGE).unwrap());
                }
                let wp = h.report_zones(z.start.0 * PAGE, 1)[0].write_pointer.0;
                let buf = vec![seed; (pages * PAGE) as usize];
                tickets.push(h.write(wp * PAGE, &buf).unwrap());
            }
            (Op::Write { page, pages, seed }, None) => {
                let buf = vec![seed; (pages * PAGE) as usize];
                tickets.push(h.write(page * PAGE, &buf).unwrap());
            }
            (Op::Read { page, pages }, Some((size, _))) => {
                // Below the write pointer of zone `page % 4` only.
                let z = h.report_zones((page % 4) * size * PAGE, 1)[0];
                let n = pages.min(z.write_pointer.0 - z.start.0);
                let mut buf = vec![0u8; (n * PAGE) as usize];
                if n > 0 {
                    tickets.push(h.read(z.start.0 * PAGE, &mut buf).unwrap());
                }
                data.push(buf);
            }
            (Op::Read { page, pages }, None) => {
                let mut buf = vec![0u8; (pages * PAGE) as usize];
                tickets.push(h.read(page * PAGE, &mut buf).unwrap());
                data.push(buf);
            }
            (Op::Trim { page, .. }, Some((size, _))) => {
                tickets.push(h.zone_reset((page % 4) * size * PAGE).unwrap());
            }
            (Op::Trim { page, pages }, None) => {
                tickets.push(h.trim(page * PAGE, pages * PAGE).unwrap());
            }
            (Op::Flush, _) => tickets.push(h.flush().unwrap()),
        }
        for t in tickets.drain(..) {
            h.complete(&t);
            times.push((t.issued.ns(), t.done.ns()));
        }
    }
    (times, data)
}

/// The namespace's data (a zoned one's up to each write pointer), zone conditions and write
/// pointers.
fn state(h: &mut Handle) -> (Vec<u8>, Vec<(u64, String)>) {
    let zones = h.report_zones(0, 1 << 20);
    let ranges: Vec<(u64, u64)> = if zones.is_empty() {
        vec![(0, h.capacity())]
    } else {
        zones
            .iter()
            .map(|z| (z.start.0 * PAGE, (z.write_pointer.0 - z.start.0) * PAGE))
            .collect()
    };
    let mut all = Vec::new();
    for (at, len) in ranges.into_iter().filter(|r| r.1 > 0) {
        let mut buf = vec![0u8; len as usize];
        let t = h.read(at, &mut buf).unwrap();
        h.complete(&t);
        all.extend(buf);
    }
    let zones = zones
        .iter()
        .map(|z| (z.write_pointer.0, format!("{:?}", z.condition)))
        .collect();
    (all, zones)
}

/// Runs `a` then `b` on one handle, and `a`, close, resume, `b` on another: the same
/// completion times, read data and final state.
fn same_as_uninterrupted(ns: usize, a: &[Op], b: &[Op], name: &str) {
    let one = tmp(&format!("{name}-one.img"));
    let mut h = open(ns, &one, StoreOpen::New);
    let (ta, da) = drive(&mut h, a);
    let (tb, db) = drive(&mut h, b);
    let end = state(&mut h);

    let two = tmp(&format!("{name}-two.img"));
    let mut h = open(ns, &two, StoreOpen::New);
    let replayed = ta.len() as u64;
    assert_eq!(drive(&mut h, a), (ta, da));
    let clock = h.clock();
    h.finish().unwrap();
    drop(h);
    let mut h = open(ns, &two, StoreOpen::Resume);
    assert_eq!(h.clock(), clock);
    assert_eq!(drive(&mut h, b), (tb, db), "after resume");
    assert_eq!(state(&mut h), end);
    let r = h.finish().unwrap();
    let e = r.emulation.unwrap().store;
    assert_eq!(e.mismatches, 0);
    let p = e.persist.expect("a sparse store reports its log");
    assert!(p.resumed);
    assert_eq!(p.replayed_commands, replayed);
}

fn workload(seed: u8) -> Vec<Op> {
    let mut ops = Vec::new();
    for i in 0..24u64 {
        let page = (i * 37 + u64::from(seed)) % 1800;
        ops.push(match i % 6 {
            0..=2 => Op::Write {
                page,
                pages: 1 + i % 8,
                seed: seed.wrapping_add(i as u8),
            },
            3 => Op::Read { page, pages: 4 },
            4 => Op::Trim { page, pages: 2 },
            _ => Op::Flush,
        });
    }
    ops
}

#[test]
fn conventional_round_trip_resumes_exactly() {
    same_as_uninterrupted(0, &workload(1), &workload(2), "conv");
}

#[test]
fn zoned_round_trip_resumes_exactly() {
    let a: Vec<Op> = workload(3)
        .into_iter()
        .filter(|o| !matches!(o, Op::Trim { .. }))
        .collect();
    same_as_uninterrupted(1, &a, &workload(4), "zoned");
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (0..2000u64, 1..16u64, any::<u8>()).prop_map(|(page, pages, seed)| Op::Write { page, pages, seed }),
        2 => (0..2000u64, 1..16u64).prop_map(|(page, pages)| Op::Read { page, pages }),
        1 => (0..1900u64, 1..64u64).prop_map(|(page, pages)| Op::Trim { page, pages }),
        1 => Just(Op::Flush),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]
    /// Any conventional workload split anywhere: resuming at the split changes nothing.
    #[test]
    fn any_split_resumes_exactly(a in prop::collection::vec(op(), 0..60), b in prop::collection::vec(op(), 1..60)) {
        same_as_uninterrupted(0, &a, &b, "prop");
    }
}

#[test]
fn a_store_holding_data_is_truncated_only_when_asked() {
    let path = tmp("keep.img");
    let mut h = open(0, &path, StoreOpen::New);
    drive(
        &mut h,
        &[Op::Write {
            page: 3,
            pages: 2,
            seed: 9,
        }],
    );
    h.finish().unwrap();
    drop(h);
    let e = err(opts(0, &path, StoreOpen::New));
    assert!(
        e.contains("keep.img") && e.contains("--resume") && e.contains("--fresh"),
        "{e}"
    );
    let mut back = vec![0u8; 8192];
    use std::os::unix::fs::FileExt;
    std::fs::File::open(&path)
        .unwrap()
        .read_exact_at(&mut back, 3 * PAGE)
        .unwrap();
    assert!(
        back.iter().all(|&b| b == 9),
        "the refused open left the data"
    );
    let mut h = open(0, &path, StoreOpen::Fresh);
    let (_, d) = drive(&mut h, &[Op::Read { page: 3, pages: 2 }]);
    assert!(d[0].iter().all(|&b| b == 0), "--fresh starts over");
    // A store created and never written holds nothing: opening it again needs no flag.
    h.finish().unwrap();
    drop(h);
    open(0, &path, StoreOpen::New);
    let e = err(opts(0, &tmp("none.img"), StoreOpen::Resume));
    assert!(e.contains("no store there"), "{e}");
    let mut o = opts(0, &path, StoreOpen::Resume);
    o.store = StoreSpec::Memory;
    let e = err(o);
    assert!(e.contains("--resume") && e.contains("sparse:PATH"), "{e}");
}

#[test]
fn another_device_or_a_damaged_metadata_file_is_an_error() {
    let path = tmp("meta.img");
    let meta = zonesim::emu::persist::meta_path(&path);
    let mut h = open(0, &path, StoreOpen::New);
    drive(&mut h, &workload(5));
    h.finish().unwrap();
    drop(h);
    let good = std::fs::read(&meta).unwrap();
    let mut o = opts(0, &path, StoreOpen::Resume);
    o.seed = 2;
    let e = err(o);
    assert!(
        e.contains("seed 1") && e.contains("seed 2") && e.contains("--fresh"),
        "{e}"
    );
    let mut o = opts(0, &path, StoreOpen::Resume);
    o.sets = vec!["ftl.l2p_cache_bytes=131072".into()];
    let e = err(o);
    assert!(e.contains("config hash") && !e.contains('\n'), "{e}");
    for (what, bytes) in [
        ("magic", {
            let mut b = good.clone();
            b[0] ^= 1;
            b
        }),
        ("header", {
            let mut b = good.clone();
            b[40] ^= 1;
            b
        }),
        ("log", {
            let mut b = good.clone();
            let n = b.len();
            b[n - 30] ^= 1;
            b
        }),
        ("length", good[..good.len() - 5].to_vec()),
        ("short", good[..10].to_vec()),
    ] {
        std::fs::write(&meta, &bytes).unwrap();
        let e = err(opts(0, &path, StoreOpen::Resume));
        assert!(
            e.contains("meta.img.zsmeta") && e.contains("--fresh") && !e.contains('\n'),
            "{what}: {e}"
        );
    }
    std::fs::remove_file(&meta).unwrap();
    let e = err(opts(0, &path, StoreOpen::Resume));
    assert!(e.contains("missing"), "{e}");
    // A run that ends without closing the device leaves the file open: refused.
    std::fs::write(&meta, &good).unwrap();
    let mut h = open(0, &path, StoreOpen::Resume);
    drive(&mut h, &[Op::Flush]);
    drop(h);
    let e = err(opts(0, &path, StoreOpen::Resume));
    assert!(e.contains("not closed cleanly"), "{e}");
}
