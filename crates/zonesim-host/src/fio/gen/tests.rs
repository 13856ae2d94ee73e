use super::super::{default_job, dist::zeta};
use super::*;
use proptest::prelude::*;

const MIB: u64 = 1 << 20;

fn job(rw: RwMode) -> JobSpec {
    let mut j = default_job();
    j.name = "t".into();
    j.rw = rw;
    j
}

fn conv(cap: u64) -> Target {
    Target {
        capacity_bytes: cap,
        zone: None,
    }
}

fn zoned(nzones: u64, size: u64, cap: u64) -> Target {
    Target {
        capacity_bytes: nzones * size,
        zone: Some(ZoneGeom {
            size_bytes: size,
            capacity_bytes: cap,
        }),
    }
}

fn drain(g: &mut JobGen, max: usize) -> Vec<HostIo> {
    let mut v = Vec::new();
    while let Some(io) = g.next() {
        v.push(io);
        assert!(v.len() <= max, "generator did not stop");
    }
    v
}

/// Audit H3, H4: a practically endless byte budget is an error naming the job, unless
/// number_ios or a runtime ends the job.
#[test]
fn endless_budgets_are_bounded() {
    let mut j = job(RwMode::RandWrite);
    j.name = "job".into();
    j.size = Some(SizeSpec::Bytes(4 * MIB));
    j.loops = u64::MAX;
    let e = JobGen::new(&j, &conv(128 * MIB), 1, 0)
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("job 'job': io_size or size x loops asks for 4503599627370495 requests of 4096 bytes, more than the 4294967296"),
        "{e}"
    );
    j.loops = 1;
    j.io_size = Some(SizeSpec::Bytes(1 << 50));
    assert!(JobGen::new(&j, &conv(128 * MIB), 1, 0).is_err());
    // At the bound, or ended by number_ios or a runtime: accepted.
    j.io_size = Some(SizeSpec::Bytes(MAX_JOB_IOS * 4096));
    JobGen::new(&j, &conv(128 * MIB), 1, 0).unwrap();
    j.io_size = Some(SizeSpec::Bytes(1 << 50));
    j.number_ios = Some(1000);
    JobGen::new(&j, &conv(128 * MIB), 1, 0).unwrap();
    j.number_ios = None;
    j.runtime_ns = Some(1_000_000_000);
    JobGen::new(&j, &conv(128 * MIB), 1, 0).unwrap();
}

#[test]
fn sequential_wraps_and_budget_counts() {
    let mut j = job(RwMode::Write);
    j.offset = SizeSpec::Bytes(MIB);
    j.size = Some(SizeSpec::Bytes(64 * 1024));
    j.loops = 3;
    let mut g = JobGen::new(&j, &conv(16 * MIB), 1, 0).unwrap();
    assert_eq!(g.region(), (MIB, 65536));
    let ios = drain(&mut g, 100);
    assert_eq!(ios.len(), 48);
    for (i, io) in ios.iter().enumerate() {
        assert_eq!(
            *io,
            HostIo::new(IoKind::Write, MIB + (i as u64 % 16) * 4096, 4096)
        );
    }
    assert_eq!(g.next(), None);

    // io_size overrides size × loops; number_ios stops earlier but never extends.
    j.io_size = Some(SizeSpec::Bytes(40 * 4096));
    let mut g = JobGen::new(&j, &conv(16 * MIB), 1, 0).unwrap();
    assert_eq!(drain(&mut g, 100).len(), 40);
    j.number_ios = Some(7);
    let mut g = JobGen::new(&j, &conv(16 * MIB), 1, 0).unwrap();
    assert_eq!(drain(&mut g, 100).len(), 7);
    j.number_ios = Some(1000);
    let mut g = JobGen::new(&j, &conv(16 * MIB), 1, 0).unwrap();
    assert_eq!(drain(&mut g, 2000).len(), 40);

    // time_based never ends on its own.
    j.time_based = true;
    j.number_ios = None;
    let mut g = JobGen::new(&j, &conv(16 * MIB), 1, 0).unwrap();
    assert!((0..10_000).all(|_| g.next().is_some()));
}

#[test]
fn mixed_sequential_keeps_a_position_per_direction() {
    let mut j = job(RwMode::ReadWrite);
    j.size = Some(SizeSpec::Bytes(1 << 30));
    let mut g = JobGen::new(&j, &conv(1 << 30), 5, 0).unwrap();
    let (mut r, mut w) = (0, 0);
    for _ in 0..1000 {
        let io = g.next().unwrap();
        let pos = match io.kind {
            IoKind::Read => &mut r,
            IoKind::Write => &mut w,
            k => panic!("{k:?}"),
        };
        assert_eq!(io.offset, *pos);
        *pos += 4096;
    }
    assert!(r > 0 && w > 0);
}

#[test]
fn rwmixread_ratio() {
    for pct in [0u32, 30, 50, 90, 100] {
        let mut j = job(RwMode::RandRw);
        j.rwmixread = pct;
        let mut g = JobGen::new(&j, &conv(1 << 30), 9, 0).unwrap();
        let n = 100_000;
        let reads = (0..n)
            .filter(|_| g.next().unwrap().kind == IoKind::Read)
            .count();
        let frac = reads as f64 / n as f64;
        assert!((frac - pct as f64 / 100.0).abs() < 0.01, "{pct}: {frac}");
    }
}

#[test]
fn rwmixwrite_via_parser() {
    let jobs = super::super::parse_job_file("[j]\nrw=randrw\nrwmixwrite=80\n", "t").unwrap();
    let mut g = JobGen::new(&jobs[0], &conv(1 << 30), 9, 0).unwrap();
    let writes = (0..100_000)
        .filter(|_| g.next().unwrap().kind == IoKind::Write)
        .count();
    assert!((writes as f64 / 100_000.0 - 0.8).abs() < 0.01);
}

#[test]
fn fsync_cadence() {
    let mut j = job(RwMode::RandRw);
    j.fsync = 4;
    j.number_ios = Some(1000);
    let mut g = JobGen::new(&j, &conv(1 << 30), 3, 0).unwrap();
    let ios = drain(&mut g, 5000);
    let mut writes = 0;
    let mut flushes = 0;
    for (i, io) in ios.iter().enumerate() {
        match io.kind {
            IoKind::Write => writes += 1,
            IoKind::Flush => {
                flushes += 1;
                assert_eq!((io.offset, io.len), (0, 0));
                assert_eq!(writes % 4, 0, "flush after write {writes}");
                assert_eq!(ios[i - 1].kind, IoKind::Write);
            }
            _ => {}
        }
    }
    // Flushes do not count against number_ios.
    assert_eq!(ios.len() - flushes, 1000);
    assert_eq!(flushes, writes / 4);
}

#[test]
fn trims() {
    let mut j = job(RwMode::RandTrim);
    j.size = Some(SizeSpec::Bytes(MIB));
    let mut g = JobGen::new(&j, &conv(MIB), 3, 0).unwrap();
    let ios = drain(&mut g, 1000);
    assert_eq!(ios.len(), 256);
    assert!(ios
        .iter()
        .all(|io| io.kind == IoKind::Trim && io.len == 4096));
    let mut j = job(RwMode::Trim);
    j.bs = 65536;
    let mut g = JobGen::new(&j, &conv(MIB), 3, 0).unwrap();
    assert_eq!(g.next(), Some(HostIo::new(IoKind::Trim, 0, 65536)));
    assert_eq!(g.next(), Some(HostIo::new(IoKind::Trim, 65536, 65536)));
}

#[test]
fn upcoming_names_the_next_offset_of_each_direction() {
    // Pure random read: exactly the next request's offset, across pass boundaries.
    let mut j = job(RwMode::RandRead);
    j.size = Some(SizeSpec::Bytes(100 * 4096));
    j.offset = SizeSpec::Bytes(8192);
    j.loops = 3;
    let mut g = JobGen::new(&j, &conv(1 << 30), 5, 0).unwrap();
    for _ in 0..300 {
        let mut next = Vec::new();
        g.upcoming(|o| next.push(o));
        assert_eq!(next, [g.next().unwrap().offset]);
    }
    // Mixed: the next request is one of the two directions' next offsets.
    j.rw = RwMode::RandRw;
    let mut g = JobGen::new(&j, &conv(1 << 30), 5, 0).unwrap();
    for _ in 0..300 {
        let mut next = Vec::new();
        g.upcoming(|o| next.push(o));
        assert_eq!(next.len(), 2);
        let io = g.next().unwrap();
        let dir = if io.kind == IoKind::Read { 0 } else { 1 };
        assert_eq!(next[dir], io.offset);
    }
    // Without the random map, uniform: the next draw, computed ahead on a copy of the
    // generator (mixed directions draw the direction first).
    j.norandommap = true;
    for rw in [RwMode::RandRw, RwMode::RandRead] {
        j.rw = rw;
        let mut g = JobGen::new(&j, &conv(1 << 30), 5, 0).unwrap();
        for _ in 0..300 {
            let mut next = Vec::new();
            g.upcoming(|o| next.push(o));
            assert_eq!(next, [g.next().unwrap().offset]);
        }
    }
    // Nothing is known ahead of a skewed draw.
    j.distribution = Distribution::Zipf(1.2);
    let g = JobGen::new(&j, &conv(1 << 30), 5, 0).unwrap();
    g.upcoming(|_| panic!("no look-ahead of a zipf draw"));
}

#[test]
fn random_map_covers_each_block_once_per_pass() {
    let mut j = job(RwMode::RandWrite);
    j.size = Some(SizeSpec::Bytes(1000 * 4096));
    j.loops = 2;
    let mut g = JobGen::new(&j, &conv(1 << 30), 3, 0).unwrap();
    let ios = drain(&mut g, 3000);
    assert_eq!(ios.len(), 2000);
    for pass in ios.chunks(1000) {
        let mut seen = vec![false; 1000];
        for io in pass {
            let b = (io.offset / 4096) as usize;
            assert!(!seen[b]);
            seen[b] = true;
        }
    }
    assert_ne!(ios[..1000], ios[1000..], "each pass has its own order");
    // norandommap draws independently: a pass repeats some blocks.
    j.norandommap = true;
    let mut g = JobGen::new(&j, &conv(1 << 30), 3, 0).unwrap();
    let mut seen = vec![false; 1000];
    let distinct = drain(&mut g, 3000)[..1000]
        .iter()
        .filter(|io| !std::mem::replace(&mut seen[(io.offset / 4096) as usize], true))
        .count();
    assert!(distinct < 700, "{distinct}");
}

#[test]
fn zipf_top_blocks_get_the_expected_share() {
    let n = 10_000u64;
    let mut j = job(RwMode::RandRead);
    j.size = Some(SizeSpec::Bytes(n * 4096));
    j.distribution = Distribution::Zipf(1.2);
    j.time_based = true;
    let mut g = JobGen::new(&j, &conv(1 << 30), 11, 0).unwrap();
    let mut hits = vec![0u32; n as usize];
    let draws = 300_000;
    for _ in 0..draws {
        hits[(g.next().unwrap().offset / 4096) as usize] += 1;
    }
    // Hot blocks are spread: the 10 hottest are not all at the start of the region.
    let mut idx: Vec<usize> = (0..n as usize).collect();
    idx.sort_by_key(|&i| std::cmp::Reverse(hits[i]));
    assert!(idx[..10].iter().any(|&i| i > 1000));
    hits.sort_unstable_by(|a, b| b.cmp(a));
    let top: u64 = hits[..1000].iter().map(|&h| h as u64).sum();
    let share = top as f64 / draws as f64;
    let want = zeta(1000, 1.2) / zeta(n, 1.2);
    assert!((share - want).abs() < 0.03, "share {share} want {want}");
    assert!(share > 0.5, "uniform would give 0.1");
}

#[test]
fn determinism_and_clone_streams() {
    let mut j = job(RwMode::RandRw);
    j.distribution = Distribution::Pareto(0.3);
    let t = conv(1 << 30);
    let take = |seed, clone| {
        let mut g = JobGen::new(&j, &t, seed, clone).unwrap();
        (0..1000).map(|_| g.next().unwrap()).collect::<Vec<_>>()
    };
    assert_eq!(take(1, 0), take(1, 0));
    assert_ne!(take(1, 0), take(1, 1));
    assert_ne!(take(1, 0), take(2, 0));
    // Uniform with the random map, and zoned, too.
    let mut j = job(RwMode::RandWrite);
    j.zonemode = ZoneMode::Zbd;
    j.max_open_zones = 3;
    let t = zoned(16, MIB, MIB / 2);
    let take = |clone| {
        let mut g = JobGen::new(&j, &t, 4, clone).unwrap();
        (0..1000).map(|_| g.next().unwrap()).collect::<Vec<_>>()
    };
    assert_eq!(take(0), take(0));
    assert_ne!(take(0), take(1));
}

#[test]
fn region_resolution_and_errors() {
    let t = zoned(64, MIB, MIB);
    let mut j = job(RwMode::Read);
    j.offset = SizeSpec::Percent(50.0);
    j.size = Some(SizeSpec::Percent(25.0));
    let g = JobGen::new(&j, &t, 0, 0).unwrap();
    assert_eq!(g.region(), (32 * MIB, 16 * MIB));
    j.offset = SizeSpec::Zones(4);
    j.size = Some(SizeSpec::Zones(2));
    assert_eq!(
        JobGen::new(&j, &t, 0, 0).unwrap().region(),
        (4 * MIB, 2 * MIB)
    );
    j.size = None;
    assert_eq!(
        JobGen::new(&j, &t, 0, 0).unwrap().region(),
        (4 * MIB, 60 * MIB)
    );

    let err = |j: &JobSpec, t: &Target| JobGen::new(j, t, 0, 0).unwrap_err().to_string();
    let mut j = job(RwMode::Read);
    j.size = Some(SizeSpec::Bytes(100 * MIB));
    assert_eq!(
        err(&j, &t),
        "job 't': offset 0 + size 104857600 exceeds the namespace capacity of 67108864 bytes"
    );
    j.size = Some(SizeSpec::Bytes(1000));
    assert!(err(&j, &t).contains("holds no 4096-byte block"));
    j.size = None;
    j.offset = SizeSpec::Bytes(64 * MIB);
    assert!(err(&j, &t).contains("at or beyond the namespace capacity"));
    j.offset = SizeSpec::Zones(2);
    assert!(err(&j, &conv(MIB << 6)).contains("offset=2z needs a zoned namespace"));
    j.offset = SizeSpec::Bytes(0);
    j.zonemode = ZoneMode::Zbd;
    assert!(err(&j, &conv(MIB)).contains("zonemode=zbd needs a zoned namespace"));
    j.offset = SizeSpec::Bytes(MIB / 2);
    j.size = Some(SizeSpec::Bytes(MIB));
    assert!(err(&j, &t).contains("holds no whole zone"));
    j.offset = SizeSpec::Bytes(0);
    j.bs = 2 * MIB;
    j.size = None;
    assert!(err(&j, &t).contains("exceeds the zone capacity"));
    j.bs = 4096;
    j.rw = RwMode::Trim;
    assert!(err(&j, &t).contains("not supported with zonemode=zbd"));
    // zbd rounds the region inward to whole zones, like fio.
    j.rw = RwMode::Write;
    j.offset = SizeSpec::Bytes(MIB / 2);
    j.size = Some(SizeSpec::Bytes(4 * MIB));
    assert_eq!(JobGen::new(&j, &t, 0, 0).unwrap().region(), (MIB, 3 * MIB));
}

/// Checks zoned-mode invariants against an independent model of the write pointers.
fn check_zoned(j: &JobSpec, t: &Target, n: usize, preset: &[u64]) -> Vec<HostIo> {
    let g0 = JobGen::new(j, t, 77, 0).unwrap();
    let mut g = g0.clone();
    g.set_zone_write_pointers(preset);
    let geom = t.zone.unwrap();
    let (start, len) = g.region();
    let nz = (len / geom.size_bytes) as usize;
    let mut wp: Vec<u64> = (0..nz)
        .map(|i| preset.get(i).copied().unwrap_or(0).min(geom.capacity_bytes))
        .collect();
    let mut ios = Vec::new();
    for _ in 0..n {
        let Some(io) = g.next() else { break };
        ios.push(io);
        let z = ((io.offset - start) / geom.size_bytes) as usize;
        let zoff = (io.offset - start) % geom.size_bytes;
        match io.kind {
            IoKind::Write => {
                assert_eq!(zoff, wp[z], "write not at the write pointer");
                assert!(io.len > 0);
                assert!(
                    zoff + io.len <= geom.capacity_bytes,
                    "write crosses capacity"
                );
                wp[z] += io.len;
            }
            IoKind::Read => {
                assert!(io.len > 0 && zoff + io.len <= wp[z], "read beyond wp");
            }
            IoKind::ZoneReset => {
                assert_eq!((zoff, io.len), (0, 0));
                wp[z] = 0;
            }
            IoKind::Flush => {}
            k => panic!("unexpected {k:?}"),
        }
        // Open zones of this job: written by it, not full.
        if j.max_open_zones > 0 {
            let open = g.zbd.as_ref().unwrap().open.len();
            assert!(open <= j.max_open_zones as usize);
        }
    }
    assert_eq!(g.zone_write_pointers().unwrap(), &wp[..]);
    ios
}

#[test]
fn zbd_random_writes_respect_wp_capacity_and_open_limit() {
    // Zone capacity not a multiple of bs: the last write of a zone is shortened.
    let t = zoned(32, MIB, MIB - 4096 * 3 - 512);
    for dist in [Distribution::Uniform, Distribution::Zipf(1.1)] {
        let mut j = job(RwMode::RandWrite);
        j.zonemode = ZoneMode::Zbd;
        j.max_open_zones = 4;
        j.bs = 16384;
        j.distribution = dist;
        j.loops = 4;
        let ios = check_zoned(&j, &t, 1_000_000, &[]);
        assert!(ios.iter().any(|io| io.kind == IoKind::ZoneReset));
        assert!(ios
            .iter()
            .any(|io| io.kind == IoKind::Write && io.len < 16384));
        // Concurrently open zones by the job (written, neither full nor reset) stay <= 4.
        let mut wp = [0u64; 32];
        let cap = t.zone.unwrap().capacity_bytes;
        for io in &ios {
            let z = (io.offset / MIB) as usize;
            match io.kind {
                IoKind::Write => wp[z] += io.len,
                IoKind::ZoneReset => wp[z] = 0,
                _ => {}
            }
            assert!(wp.iter().filter(|&&w| w > 0 && w < cap).count() <= 4);
        }
    }
}

#[test]
fn zbd_reset_precedes_rewrite_of_full_zone() {
    let t = zoned(4, MIB, MIB);
    let mut j = job(RwMode::Write);
    j.zonemode = ZoneMode::Zbd;
    j.bs = 256 * 1024;
    j.loops = 2;
    let ios = check_zoned(&j, &t, 1000, &[]);
    // First pass: 16 writes; second pass: each zone reset then rewritten in order.
    assert_eq!(ios.len(), 16 + 16 + 4);
    for (i, io) in ios[..16].iter().enumerate() {
        assert_eq!(*io, HostIo::new(IoKind::Write, i as u64 * 262_144, 262_144));
    }
    assert_eq!(ios[16], HostIo::new(IoKind::ZoneReset, 0, 0));
    assert_eq!(ios[17], HostIo::new(IoKind::Write, 0, 262_144));
    assert_eq!(ios[21], HostIo::new(IoKind::ZoneReset, MIB, 0));
    // Preconditioned: zone 0 full, zone 1 half written: seq continues at the wps.
    j.loops = 1;
    let ios = check_zoned(&j, &t, 1000, &[MIB, MIB / 2]);
    assert_eq!(ios[0], HostIo::new(IoKind::ZoneReset, 0, 0));
    assert_eq!(ios[1], HostIo::new(IoKind::Write, 0, 262_144));
}

#[test]
fn zbd_seq_walks_zones_with_short_capacity() {
    let t = zoned(8, MIB, 600 * 1024);
    let mut j = job(RwMode::Write);
    j.zonemode = ZoneMode::Zbd;
    j.bs = 128 * 1024;
    j.offset = SizeSpec::Zones(2);
    j.size = Some(SizeSpec::Zones(3));
    let ios = check_zoned(&j, &t, 1000, &[]);
    // 3 zones × 600 KiB: 4 full writes + one 88 KiB write per zone; budget = data bytes.
    assert_eq!(ios.len(), 15);
    assert_eq!(
        ios[4],
        HostIo::new(IoKind::Write, 2 * MIB + 512 * 1024, 88 * 1024)
    );
    assert_eq!(ios[5].offset, 3 * MIB);
    // io_size in zones counts zone capacity in zoned mode.
    j.io_size = Some(SizeSpec::Zones(1));
    assert_eq!(check_zoned(&j, &t, 1000, &[]).len(), 5);
}

#[test]
fn zbd_reads_stay_below_wp() {
    let t = zoned(16, MIB, MIB);
    let mut wps = vec![0u64; 16];
    wps[3] = 5000; // not bs-aligned: the last read of the zone is shortened
    wps[9] = MIB;
    wps[12] = 8192;
    for rw in [RwMode::RandRead, RwMode::Read] {
        let mut j = job(rw);
        j.zonemode = ZoneMode::Zbd;
        j.time_based = true;
        j.number_ios = Some(20_000);
        let ios = check_zoned(&j, &t, 100_000, &wps);
        assert_eq!(ios.len(), 20_000);
        let zones: std::collections::BTreeSet<u64> = ios.iter().map(|io| io.offset / MIB).collect();
        assert_eq!(zones.into_iter().collect::<Vec<_>>(), vec![3, 9, 12]);
        assert!(ios
            .iter()
            .any(|io| io.offset == 3 * MIB + 4096 && io.len == 904));
    }
    // A read-only job over an empty region ends; a mixed one writes instead.
    let mut j = job(RwMode::RandRead);
    j.zonemode = ZoneMode::Zbd;
    let mut g = JobGen::new(&j, &t, 1, 0).unwrap();
    assert_eq!(g.next(), None);
    j.rw = RwMode::RandRw;
    j.rwmixread = 90;
    j.max_open_zones = 2;
    let ios = check_zoned(&j, &t, 5000, &[]);
    assert_eq!(ios[0].kind, IoKind::Write);
    assert!(ios.iter().filter(|io| io.kind == IoKind::Read).count() > 3000);
}

#[test]
fn zbd_open_set_seeded_by_preconditioning() {
    let t = zoned(16, MIB, MIB);
    let mut j = job(RwMode::RandWrite);
    j.zonemode = ZoneMode::Zbd;
    j.max_open_zones = 2;
    j.number_ios = Some(10);
    let mut wps = vec![MIB; 16];
    wps[5] = 4096;
    wps[7] = 8192;
    let ios = check_zoned(&j, &t, 100, &wps);
    assert!(ios
        .iter()
        .all(|io| io.offset / MIB == 5 || io.offset / MIB == 7));
}

#[test]
fn zbd_reset_threshold_and_frequency() {
    let t = zoned(16, MIB, MIB);
    let mut j = job(RwMode::RandWrite);
    j.zonemode = ZoneMode::Zbd;
    j.bs = 64 * 1024;
    j.zone_reset_threshold = 0.5;
    j.zone_reset_frequency = 0.25;
    j.time_based = true;
    j.number_ios = Some(4000);
    let ios = check_zoned(&j, &t, 100_000, &[]);
    let mut valid = 0u64;
    let mut max_valid = 0;
    let mut wp = [0u64; 16];
    let mut writes_above = 0;
    let mut early_resets = 0;
    // Valid bytes when the current write's step began (before its reset, if any).
    let mut step_valid = None;
    for io in ios {
        let z = (io.offset / MIB) as usize;
        match io.kind {
            IoKind::ZoneReset => {
                // Full zones are reset whenever picked; others only above the threshold.
                if wp[z] < MIB {
                    assert!(valid >= 8 * MIB, "reset below the threshold");
                    early_resets += 1;
                }
                step_valid = Some(valid);
                valid -= wp[z];
                wp[z] = 0;
            }
            IoKind::Write => {
                if step_valid.take().unwrap_or(valid) >= 8 * MIB {
                    writes_above += 1;
                }
                wp[z] += io.len;
                valid += io.len;
                max_valid = max_valid.max(valid);
            }
            _ => unreachable!(),
        }
    }
    // About one reset per 4 writes above the threshold (fewer when the picked zone is empty
    // or full, the latter being reset anyway), which keeps the valid data near it.
    assert!(writes_above > 400, "{writes_above}");
    let want = writes_above / 4;
    assert!(
        early_resets <= want && early_resets * 10 >= want * 8,
        "{early_resets} {want}"
    );
    assert!(max_valid < 12 * MIB, "{max_valid}");
    // Without a frequency, nothing but full zones is reset.
    j.zone_reset_frequency = 0.0;
    j.number_ios = Some(1000);
    let mut wp = [0u64; 16];
    for io in check_zoned(&j, &t, 2000, &[]) {
        let z = (io.offset / MIB) as usize;
        match io.kind {
            IoKind::ZoneReset => {
                assert_eq!(wp[z], MIB);
                wp[z] = 0;
            }
            _ => wp[z] += io.len,
        }
    }
}

#[test]
fn next_is_cheap_enough_to_not_allocate() {
    // Smoke test of the steady state of every mode (no timing in unit tests).
    let t = zoned(64, MIB, MIB);
    for rw in [RwMode::RandRw, RwMode::ReadWrite] {
        for zm in [ZoneMode::None, ZoneMode::Zbd] {
            let mut j = job(rw);
            j.zonemode = zm;
            j.fsync = 3;
            j.max_open_zones = 5;
            j.time_based = true;
            let mut g = JobGen::new(&j, &t, 1, 0).unwrap();
            for _ in 0..50_000 {
                g.next().unwrap();
            }
        }
    }
}

fn arb_dist() -> impl Strategy<Value = Distribution> {
    prop_oneof![
        Just(Distribution::Uniform),
        (0.2f64..3.0)
            .prop_filter("θ≠1", |t| (t - 1.0).abs() > 1e-6)
            .prop_map(Distribution::Zipf),
        (0.01f64..0.99).prop_map(Distribution::Pareto),
        (0.1f64..100.0).prop_map(Distribution::Normal),
    ]
}

fn arb_rw() -> impl Strategy<Value = RwMode> {
    prop_oneof![
        Just(RwMode::Read),
        Just(RwMode::Write),
        Just(RwMode::RandRead),
        Just(RwMode::RandWrite),
        Just(RwMode::ReadWrite),
        Just(RwMode::RandRw),
        Just(RwMode::Trim),
        Just(RwMode::RandTrim),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn conventional_ios_in_region_and_aligned(
        sectors in 1u64..64,
        off_sectors in 0u64..20_000,
        size_sectors in 1u64..40_000,
        rw in arb_rw(),
        dist in arb_dist(),
        norandommap: bool,
        seed: u64,
        clone in 0u32..4,
    ) {
        let cap = 512 * 60_000;
        let mut j = job(rw);
        j.bs = sectors * 512;
        j.offset = SizeSpec::Bytes(off_sectors * 512);
        j.size = Some(SizeSpec::Bytes(size_sectors * 512));
        j.distribution = dist;
        j.norandommap = norandommap;
        j.loops = 2;
        match JobGen::new(&j, &conv(cap), seed, clone) {
            Err(_) => prop_assert!(size_sectors < sectors),
            Ok(mut g) => {
                let (start, len) = g.region();
                prop_assert_eq!(start, off_sectors * 512);
                let mut n = 0u64;
                while let Some(io) = g.next() {
                    prop_assert!(io.len == j.bs);
                    prop_assert!(io.offset >= start && io.offset + io.len <= start + len);
                    prop_assert_eq!((io.offset - start) % j.bs, 0);
                    n += 1;
                    prop_assert!(n <= 200_000);
                }
                prop_assert_eq!(n, 2 * len / j.bs);
            }
        }
    }

    #[test]
    fn zoned_invariants_hold(
        nzones in 1u64..12,
        cap_sectors in 1u64..256,
        bs_sectors in 1u64..32,
        max_open in 0u32..5,
        rw in prop_oneof![
            Just(RwMode::Write), Just(RwMode::RandWrite), Just(RwMode::RandRw),
            Just(RwMode::ReadWrite), Just(RwMode::Read), Just(RwMode::RandRead),
        ],
        dist in arb_dist(),
        frequency in prop_oneof![Just(0.0), 0.01f64..1.0],
        preset in proptest::collection::vec(0u64..300 * 512, 0..12),
    ) {
        let t = zoned(nzones, 256 * 512, cap_sectors * 512);
        let mut j = job(rw);
        j.zonemode = ZoneMode::Zbd;
        j.bs = bs_sectors * 512;
        j.max_open_zones = max_open;
        j.distribution = dist;
        j.zone_reset_frequency = frequency;
        j.zone_reset_threshold = 0.3;
        j.loops = 3;
        if bs_sectors > cap_sectors {
            prop_assert!(JobGen::new(&j, &t, 1, 0).is_err());
        } else {
            check_zoned(&j, &t, 20_000, &preset);
        }
    }
}

/// Zones the device reports READ_ONLY or OFFLINE are not used (fio's zone report makes both
/// offline, "don't use!"): no write, reset or read goes to them, sequential or random, and
/// the write pointers the device reports for them are ignored.
#[test]
fn zbd_unusable_zones_are_skipped() {
    let t = zoned(6, MIB, MIB);
    let off = [false, true, false, false, true, true];
    let zone = |io: &HostIo| (io.offset / MIB) as usize;
    for rw in [
        RwMode::Write,
        RwMode::RandWrite,
        RwMode::RandRw,
        RwMode::Read,
    ] {
        let mut j = job(rw);
        j.zonemode = ZoneMode::Zbd;
        j.max_open_zones = 2;
        j.bs = 64 * 1024;
        j.loops = 3;
        let mut g = JobGen::new(&j, &t, 5, 0).unwrap();
        g.set_unusable_zones(&off);
        // The device says zone 1 (READ_ONLY) holds data: the job still reads nothing there.
        g.set_zone_write_pointers(&[MIB / 2, MIB, 0, 0, 0, 0]);
        let ios = drain(&mut g, 100_000);
        assert!(!ios.is_empty(), "{rw:?}");
        for io in &ios {
            assert!(!off[zone(io)], "{rw:?}: {io:?} in an unusable zone");
        }
        if rw.has_writes() {
            for z in [0, 2, 3] {
                assert!(ios
                    .iter()
                    .any(|io| io.kind == IoKind::Write && zone(io) == z));
            }
        }
    }
}
