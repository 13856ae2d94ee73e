//! Tests of trace conversion, statistics and synthetic traces.

use super::*;

// ---- convert ---------------------------------------------------------------------------------

fn convert_to(path: &Path, to: ConvertFormat) -> (Vec<u8>, u64, TraceReader) {
    let mut r = TraceReader::open(path, &TraceOptions::default()).unwrap();
    let mut out = Vec::new();
    let n = convert(&mut r, &mut out, to).unwrap();
    (out, n, r)
}

fn read_bytes(bytes: Vec<u8>) -> (Vec<TraceRecord>, TraceFormat) {
    let mut r = TraceReader::from_reader(
        "converted",
        Box::new(Cursor::new(bytes)),
        &TraceOptions::default(),
    )
    .unwrap();
    let mut v = Vec::new();
    while let Some(rec) = r.next_record().unwrap() {
        v.push(rec);
    }
    (v, r.format())
}

#[test]
fn convert_disksim_round_trip_is_identical() {
    let (orig, _) = read_all(Path::new(TPCC), &TraceOptions::default());
    let (out, n, _) = convert_to(Path::new(TPCC), ConvertFormat::Disksim);
    assert_eq!(n, 6_999);
    let (back, f) = read_bytes(out.clone());
    assert_eq!(f, TraceFormat::Disksim);
    assert_eq!(back, orig);
    // Converting the conversion gives the same bytes.
    let mut r = TraceReader::from_reader(
        "c",
        Box::new(Cursor::new(out.clone())),
        &TraceOptions::default(),
    )
    .unwrap();
    let mut again = Vec::new();
    convert(&mut r, &mut again, ConvertFormat::Disksim).unwrap();
    assert_eq!(again, out);
    assert!(String::from_utf8(out)
        .unwrap()
        .starts_with("0 4 264719034 16 0\n315000 3 197570570 16 0\n"));
}

#[test]
fn convert_iolog_round_trip() {
    // iolog → iolog: the same records (all streams go to one file).
    let (orig, _) = read_all(&data("sample.iolog3"), &TraceOptions::default());
    let (out, n, _) = convert_to(&data("sample.iolog3"), ConvertFormat::Iolog);
    assert_eq!(n, orig.len() as u64);
    let text = String::from_utf8(out.clone()).unwrap();
    assert!(text.starts_with(
        "fio version 3 iolog\n0 zonesim.dev add\n0 zonesim.dev open\n0 zonesim.dev write 0 4096\n"
    ));
    assert!(text.ends_with("990 zonesim.dev close\n"));
    let (back, f) = read_bytes(out);
    assert_eq!(f, TraceFormat::Iolog);
    let single: Vec<TraceRecord> = orig
        .iter()
        .map(|r| TraceRecord { stream: 0, ..*r })
        .collect();
    assert_eq!(back, single);
    // DiskSim → iolog: tpcc times are whole microseconds, so nothing is lost but the device.
    let (orig, _) = read_all(Path::new(TPCC), &TraceOptions::default());
    let (out, _, _) = convert_to(Path::new(TPCC), ConvertFormat::Iolog);
    let (back, _) = read_bytes(out);
    let single: Vec<TraceRecord> = orig
        .iter()
        .map(|r| TraceRecord { stream: 0, ..*r })
        .collect();
    assert_eq!(back, single);
}

#[test]
fn convert_to_disksim_drops_trims_and_flushes() {
    let (out, n, r) = convert_to(&data("sample.blkparse"), ConvertFormat::Disksim);
    assert_eq!((n, r.records()), (4, 6));
    assert_eq!(
        String::from_utf8(out).unwrap(),
        "0 8388608 2048 8 0\n990500 8388608 4096 16 1\n2990400 8388608 8192 8 0\n5990000 8388608 4112 8 1\n"
    );
    // Unaligned byte ranges widen to the covering sectors.
    let mut r = TraceReader::from_reader(
        "m",
        Box::new(Cursor::new("fio version 2 iolog\nf read 100 1000\n")),
        &TraceOptions::default(),
    )
    .unwrap();
    let mut out = Vec::new();
    convert(&mut r, &mut out, ConvertFormat::Disksim).unwrap();
    assert_eq!(String::from_utf8(out).unwrap(), "0 0 0 3 1\n");
}

// ---- stats -----------------------------------------------------------------------------------

#[test]
fn stats_hand_computed() {
    let mut r = TraceReader::open(&data("sample.disksim"), &TraceOptions::default()).unwrap();
    let s = trace_stats(&mut r, 10).unwrap();
    assert_eq!(s.format, TraceFormat::Disksim);
    assert_eq!((s.lines, s.records, s.skipped), (7, 5, 0));
    assert_eq!(
        s.reads,
        stats::KindStats {
            count: 2,
            bytes: 12288
        }
    );
    assert_eq!(
        s.writes,
        stats::KindStats {
            count: 3,
            bytes: 12288
        }
    );
    assert_eq!((s.trims.count, s.flushes), (0, 0));
    assert_eq!(
        s.size_histogram,
        vec![
            stats::SizeBucket {
                from_bytes: 4096,
                to_bytes: 8192,
                count: 4
            },
            stats::SizeBucket {
                from_bytes: 8192,
                to_bytes: 16384,
                count: 1
            },
        ]
    );
    // Writes: pages 0, 1, 2; reads: bytes 51200..59392 (pages 12-14) and 59392..63488 (14-15).
    assert_eq!((s.footprint_pages, s.footprint_bytes), (7, 7 * 4096));
    // Writes 2 and 3 follow write 1 and 2; read 2 follows read 1.
    assert!((s.sequential_fraction - 0.6).abs() < 1e-12);
    // Gaps 1000, 1500, 0, 6500.
    assert_eq!(
        s.interarrival,
        stats::TimeDist {
            count: 4,
            min_ns: 0,
            mean_ns: 2250.0,
            p50_ns: 1000,
            p99_ns: 6500,
            max_ns: 6500
        }
    );
    assert_eq!(s.duration_ns, 9000);
    assert_eq!(
        s.top_regions,
        vec![stats::RegionCount {
            offset: 0,
            count: 5
        }]
    );
    assert_eq!(s.distinct_streams, 2);
    assert_eq!(
        s.top_streams,
        vec![
            stats::StreamCount {
                stream: 0,
                count: 3
            },
            stats::StreamCount {
                stream: 1,
                count: 2
            }
        ]
    );
    let table = render_table(&s);
    assert!(
        table.contains("footprint         7 pages of 4 KiB (28 KiB)"),
        "{table}"
    );
    assert!(table.contains("sequential        60.00 %"), "{table}");
    let json = serde_json::to_value(&s).unwrap();
    assert_eq!(json["format"], "disksim");
    assert_eq!(json["reads"]["count"], 2);
}

#[test]
fn stats_kinds_regions_and_top_limit() {
    let mut r = TraceReader::open(&data("sample.blkparse"), &TraceOptions::default()).unwrap();
    let s = trace_stats(&mut r, 2).unwrap();
    assert_eq!(
        (s.reads.count, s.writes.count, s.trims.count, s.flushes),
        (2, 2, 1, 1)
    );
    assert_eq!(s.trims.bytes, 1 << 20);
    assert_eq!(s.flush_flagged_writes, 1);
    assert_eq!(s.skipped, 13);
    // Starts: writes at 1 MiB and 4 MiB, reads at 2 MiB and 2 MiB + 8 KiB, trim at 32 MiB.
    assert_eq!(
        s.top_regions,
        vec![
            stats::RegionCount {
                offset: 2 << 20,
                count: 2
            },
            stats::RegionCount {
                offset: 1 << 20,
                count: 1
            },
        ]
    );
    // Footprint counts reads and writes only: 1 + 2 + 1 + 1 pages (trim excluded).
    assert_eq!(s.footprint_pages, 5);
    // Read 2 starts where read 1 ended (sector 4096 + 16 = 4112).
    assert!((s.sequential_fraction - 0.2).abs() < 1e-12);
    assert_eq!(s.top_streams.len(), 2);
}

#[test]
fn stats_tpcc() {
    let mut r = TraceReader::open(Path::new(TPCC), &TraceOptions::default()).unwrap();
    let s = trace_stats(&mut r, 5).unwrap();
    assert_eq!(
        (s.records, s.reads.count, s.writes.count),
        (6_999, 4_381, 2_618)
    );
    assert_eq!(s.interarrival.count, 6_998);
    assert_eq!(s.top_regions.len(), 5);
    assert!(s.footprint_pages > 0 && s.footprint_pages <= 6_999 * 64);
    let total: u64 = s.size_histogram.iter().map(|b| b.count).sum();
    assert_eq!(total, 6_999);
    assert!(s.interarrival.min_ns <= s.interarrival.p50_ns);
    assert!(s.interarrival.p50_ns <= s.interarrival.p99_ns);
    assert!(s.interarrival.p99_ns <= s.interarrival.max_ns);
}

#[test]
fn interarrival_quantiles_on_a_hand_made_trace() {
    // Gaps 1000, 1500, 0, 6500 ns: nearest-rank p50 is 1000, p99 and max 6500.
    let text = "0 0 0 8 1\n1000 0 8 8 1\n2500 0 16 8 1\n2500 0 24 8 1\n9000 0 32 8 1\n";
    let mut r = TraceReader::from_reader(
        "gaps.trace",
        Box::new(std::io::Cursor::new(text.as_bytes().to_vec())),
        &TraceOptions::default(),
    )
    .unwrap();
    let s = trace_stats(&mut r, 3).unwrap();
    let d = s.interarrival;
    assert_eq!((d.count, d.min_ns, d.max_ns), (4, 0, 6500));
    assert_eq!(d.p50_ns, 1000);
    assert!((6500..=6510).contains(&d.p99_ns), "{}", d.p99_ns);
    assert!((d.mean_ns - 2250.0).abs() < 1e-9);
}

#[test]
fn page_set_spans_chunks() {
    let mut p = stats::PageSet::default();
    p.insert_range(4090, 4100);
    p.insert_range(4095, 4096);
    p.insert_range(u64::MAX / 4096, u64::MAX / 4096);
    assert_eq!(p.count, 12);
}

/// Whole chunks are filled at once and counted exactly.
#[test]
fn page_set_whole_chunks() {
    let mut p = stats::PageSet::default();
    assert!(p.insert_range(10, 20));
    assert!(p.insert_range(0, 3 * 4096 - 1));
    assert!(p.insert_range(4096, 4096 + 100));
    assert_eq!(p.count, 3 * 4096);
}

/// A read of 2^62 bytes (fuzz finding: `trace stats` looped over every page and allocated
/// without bound) is a located error once 4 TiB of footprint is reached, and quick.
#[test]
fn stats_footprint_is_bounded() {
    let text = "0 0 0 8 1\n1 0 8 9007199254740992 1\n";
    let mut r = TraceReader::from_reader(
        "huge",
        Box::new(Cursor::new(text.to_string())),
        &TraceOptions::default(),
    )
    .unwrap();
    let e = trace_stats(&mut r, 3).unwrap_err().to_string();
    assert!(
        e.starts_with("huge:2: reads and writes touch more than 4 TiB"),
        "{e}"
    );
    // Trims are not in the footprint: a whole-space discard is fine.
    let text = "fio version 2 iolog\n/dev/x trim 0 18446744073709547520\n";
    let mut r = TraceReader::from_reader(
        "trim",
        Box::new(Cursor::new(text.to_string())),
        &TraceOptions::default(),
    )
    .unwrap();
    assert_eq!(trace_stats(&mut r, 3).unwrap().trims.count, 1);
}

// ---- synthetic -------------------------------------------------------------------------------

#[test]
fn synthetic_disksim_is_deterministic() {
    let dir = std::env::temp_dir();
    let a = dir.join(format!("zonesim-synth-a-{}.trace", std::process::id()));
    let b = dir.join(format!("zonesim-synth-b-{}.trace", std::process::id()));
    write_synthetic_disksim(&a, 1000, 7).unwrap();
    write_synthetic_disksim(&b, 1000, 7).unwrap();
    let (ta, tb) = (std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    assert_eq!(ta, tb);
    let (v, r) = read_all(&a, &TraceOptions::default());
    assert_eq!((v.len(), r.skipped()), (1000, 0));
    assert!(v.windows(2).all(|w| w[0].time_ns <= w[1].time_ns));
    let _ = std::fs::remove_file(&a);
    let _ = std::fs::remove_file(&b);
}
