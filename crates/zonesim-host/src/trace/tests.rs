//! Tests of the trace readers, detection, stats and convert, on the real traces of
//! `tests/fixtures/traces/` (repository root) and the hand-made samples of `tests/data/traces/`.

use std::io::{BufReader, Cursor};
use std::path::{Path, PathBuf};

use proptest::prelude::*;

use super::*;

const TPCC: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/fixtures/traces/tpcc-small.trace"
);
const WSRCH: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/fixtures/traces/wsrch-small.trace"
);
const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/traces/");

fn data(name: &str) -> PathBuf {
    Path::new(DATA).join(name)
}

fn opts(format: Option<TraceFormat>) -> TraceOptions {
    TraceOptions {
        format,
        ..TraceOptions::default()
    }
}

fn read_all(path: &Path, o: &TraceOptions) -> (Vec<TraceRecord>, TraceReader) {
    let mut r = TraceReader::open(path, o).unwrap_or_else(|e| panic!("{e}"));
    let mut v = Vec::new();
    while let Some(rec) = r.next_record().unwrap_or_else(|e| panic!("{e}")) {
        v.push(rec);
    }
    (v, r)
}

fn read_str(text: &str, o: &TraceOptions) -> Result<Vec<TraceRecord>> {
    let mut r = TraceReader::from_reader("mem", Box::new(Cursor::new(text.to_string())), o)?;
    let mut v = Vec::new();
    while let Some(rec) = r.next_record()? {
        v.push(rec);
    }
    Ok(v)
}

/// The error message of reading the whole file.
fn error_of(path: &Path, o: &TraceOptions) -> String {
    let run = || -> Result<()> {
        let mut r = TraceReader::open(path, o)?;
        while r.next_record()?.is_some() {}
        Ok(())
    };
    match run() {
        Ok(()) => panic!("{} read without error", path.display()),
        Err(e) => e.to_string(),
    }
}

fn rec(time_ns: u64, kind: IoKind, offset: u64, len: u64, stream: u32) -> TraceRecord {
    TraceRecord {
        time_ns,
        io: HostIo::new(kind, offset, len),
        stream,
    }
}

fn count(v: &[TraceRecord], k: IoKind) -> usize {
    v.iter().filter(|r| r.io.kind == k).count()
}

// ---- real traces -----------------------------------------------------------------------------

#[test]
fn tpcc_counts_and_first_record() {
    let (v, r) = read_all(Path::new(TPCC), &TraceOptions::default());
    assert_eq!(r.format(), TraceFormat::Disksim);
    assert_eq!(v.len(), 6_999);
    assert_eq!(count(&v, IoKind::Read), 4_381);
    assert_eq!(count(&v, IoKind::Write), 2_618);
    assert_eq!((r.skipped(), r.lines(), r.records()), (0, 6_999, 6_999));
    // `938513000 4 264719034 16 0`, then `938828000 3 197570570 16 0`.
    assert_eq!(v[0], rec(0, IoKind::Write, 264_719_034 * 512, 16 * 512, 4));
    assert_eq!(
        v[1],
        rec(315_000, IoKind::Write, 197_570_570 * 512, 8192, 3)
    );
    assert!(v.windows(2).all(|w| w[0].time_ns <= w[1].time_ns));
}

#[test]
fn wsrch_counts() {
    // The README says 24,782 requests; the file holds 24,783 request lines, the last one
    // without a final newline (which `wc -l` does not count). All of them are read.
    let (v, r) = read_all(Path::new(WSRCH), &TraceOptions::default());
    assert_eq!(r.format(), TraceFormat::Disksim);
    assert_eq!(v.len(), 24_783);
    assert_eq!(count(&v, IoKind::Write), 4);
    assert_eq!(count(&v, IoKind::Read), 24_779);
    assert_eq!(r.skipped(), 0);
    let last = v.last().unwrap();
    assert_eq!(last.io.len, 64 * 512);
}

#[test]
fn tpcc_filter_by_device() {
    let o = TraceOptions {
        filter: Some(4),
        ..TraceOptions::default()
    };
    let (v, r) = read_all(Path::new(TPCC), &o);
    assert!(!v.is_empty());
    assert!(v.iter().all(|r| r.stream == 4));
    assert_eq!(v.len() as u64 + r.skipped(), 6_999);
    assert_eq!(v[0].time_ns, 0);
}

// ---- detection -------------------------------------------------------------------------------

#[test]
fn detects_every_sample() {
    for (file, f) in [
        ("sample.disksim", TraceFormat::Disksim),
        ("sample.blkparse", TraceFormat::Blkparse),
        ("sample.msr.csv", TraceFormat::Msr),
        ("sample-header.msr.csv", TraceFormat::Msr),
        ("sample.iolog2", TraceFormat::Iolog),
        ("sample.iolog3", TraceFormat::Iolog),
        ("sample.alibaba.csv", TraceFormat::Alibaba),
        ("sample.tencent.csv", TraceFormat::Tencent),
    ] {
        let r = TraceReader::open(&data(file), &TraceOptions::default()).unwrap();
        assert_eq!(r.format(), f, "{file}");
    }
}

#[test]
fn detect_headers() {
    use detect::detect_line;
    assert_eq!(
        detect_line(b"device_id,opcode,offset,length,timestamp"),
        Some(TraceFormat::Alibaba)
    );
    assert_eq!(
        detect_line(b"Timestamp,Offset,Size,IOType,VolumeID"),
        Some(TraceFormat::Tencent)
    );
    assert_eq!(
        detect_line(b"Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime"),
        Some(TraceFormat::Msr)
    );
    assert_eq!(detect_line(b"1 2 3 4 5"), None);
    assert_eq!(detect_line(b"1,2,3,4"), None);
}

#[test]
fn undetectable_trace_is_a_located_error() {
    let p = data("unknown.txt");
    let e = error_of(&p, &TraceOptions::default());
    assert_eq!(
        e,
        format!(
            "{}:1: cannot detect trace format; use --trace-format",
            p.display()
        )
    );
    let e = read_str("\n# only a comment\n", &TraceOptions::default()).unwrap_err();
    assert_eq!(
        e.to_string(),
        "mem:2: cannot detect trace format; use --trace-format"
    );
    // Forcing the format reads an empty trace as empty.
    assert!(read_str("", &opts(Some(TraceFormat::Msr)))
        .unwrap()
        .is_empty());
}

#[test]
fn unreadable_file_is_an_io_error() {
    let p = data("no-such-file.trace");
    let e = TraceReader::open(&p, &TraceOptions::default()).unwrap_err();
    assert!(matches!(e, Error::Io { .. }));
    assert!(e.to_string().starts_with(&p.display().to_string()));
}

#[test]
fn forced_wrong_format_is_a_parse_error() {
    let e = error_of(Path::new(TPCC), &opts(Some(TraceFormat::Msr)));
    assert!(e.ends_with(":1: expected 7 comma-separated fields `Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime`, found 1"), "{e}");
}

// ---- DiskSim ---------------------------------------------------------------------------------

#[test]
fn disksim_sample() {
    let (v, r) = read_all(&data("sample.disksim"), &TraceOptions::default());
    assert_eq!(
        v,
        vec![
            rec(0, IoKind::Write, 0, 4096, 0),
            rec(1000, IoKind::Write, 4096, 4096, 0),
            rec(2500, IoKind::Read, 51200, 8192, 1),
            rec(2500, IoKind::Write, 8192, 4096, 0),
            rec(9000, IoKind::Read, 59392, 4096, 1),
        ]
    );
    // The comment and the blank line are lines, not skipped records.
    assert_eq!((r.lines(), r.skipped()), (7, 0));
}

#[test]
fn disksim_malformed_lines() {
    let cases = [
        (
            "malformed-fields.disksim",
            "2: expected 5 fields `arrival_time_ns device start_sector size_in_sectors type`, found 4",
        ),
        (
            "malformed-type.disksim",
            "3: type: must be 1 (read) or 0 (write), found 2",
        ),
        (
            "malformed-sector.disksim",
            "2: start_sector: invalid unsigned integer `8x`",
        ),
    ];
    for (file, msg) in cases {
        let p = data(file);
        let e = error_of(&p, &opts(Some(TraceFormat::Disksim)));
        assert_eq!(e, format!("{}:{msg}", p.display()));
    }
    let e = read_str("1 2 3 4 0 6\n", &opts(Some(TraceFormat::Disksim))).unwrap_err();
    assert_eq!(
        e.to_string(),
        "mem:1: expected 5 fields `arrival_time_ns device start_sector size_in_sectors type`, found 6"
    );
    let e = read_str(
        "99999999999999999999 0 0 8 0\n",
        &opts(Some(TraceFormat::Disksim)),
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "mem:1: arrival_time_ns: invalid unsigned integer `99999999999999999999`"
    );
    let e = read_str("0 0 36028797018963968 8 0\n", &TraceOptions::default()).unwrap_err();
    assert_eq!(
        e.to_string(),
        "mem:1: start_sector: 36028797018963968 overflows 64 bits in bytes"
    );
}

#[test]
fn disksim_crlf_tabs_and_missing_final_newline() {
    let v = read_str("5\t1  8 8 1\r\n7 1 16 8 0", &TraceOptions::default()).unwrap();
    assert_eq!(
        v,
        vec![
            rec(0, IoKind::Read, 4096, 4096, 1),
            rec(2, IoKind::Write, 8192, 4096, 1)
        ]
    );
}

#[test]
fn zero_length_requests_are_skipped() {
    let mut r = TraceReader::from_reader(
        "mem",
        Box::new(Cursor::new("1 0 0 0 1\n2 0 8 8 1\n")),
        &TraceOptions::default(),
    )
    .unwrap();
    let first = r.next_record().unwrap().unwrap();
    assert_eq!(first, rec(0, IoKind::Read, 4096, 4096, 0));
    assert!(r.next_record().unwrap().is_none());
    assert!(r.next_record().unwrap().is_none());
    assert_eq!((r.skipped(), r.records(), r.lines()), (1, 1, 2));
}

#[test]
fn times_before_the_first_record_clamp_to_zero() {
    let v = read_str(
        "100 0 0 8 1\n50 0 8 8 1\n150 0 8 8 1\n",
        &TraceOptions::default(),
    )
    .unwrap();
    let t: Vec<u64> = v.iter().map(|r| r.time_ns).collect();
    assert_eq!(t, vec![0, 0, 50]);
}

// ---- blkparse --------------------------------------------------------------------------------

const SDA: u32 = 8 << 20;

#[test]
fn blkparse_d_events() {
    let (v, r) = read_all(&data("sample.blkparse"), &TraceOptions::default());
    assert_eq!(
        v,
        vec![
            rec(0, IoKind::Write, 2048 * 512, 4096, SDA),
            rec(990_500, IoKind::Read, 4096 * 512, 8192, SDA),
            rec(1_990_100, IoKind::Flush, 0, 0, SDA),
            rec(2_990_400, IoKind::Write, 8192 * 512, 4096, SDA),
            rec(3_990_000, IoKind::Trim, 65536 * 512, 2048 * 512, SDA | 16),
            rec(5_990_000, IoKind::Read, 4112 * 512, 4096, SDA),
        ]
    );
    // 10 Q/G/I/C events, the `N` passthrough, the zero-length write and the `m` message.
    assert_eq!(r.skipped(), 13);
    assert_eq!(r.flush_flagged_writes(), 1);
    // Reading stopped at the summary (`CPU0 (8,0):` is line 20).
    assert_eq!(r.lines(), 20);
}

#[test]
fn blkparse_q_and_c_events() {
    let o = TraceOptions {
        blkparse_event: BlkEvent::Q,
        ..TraceOptions::default()
    };
    let (v, r) = read_all(&data("sample.blkparse"), &o);
    let kinds: Vec<IoKind> = v.iter().map(|r| r.io.kind).collect();
    assert_eq!(
        kinds,
        vec![IoKind::Write, IoKind::Read, IoKind::Flush, IoKind::Write]
    );
    assert_eq!(v[1].time_ns, 1_000_000);
    assert_eq!(r.skipped(), 15);
    let o = TraceOptions {
        blkparse_event: BlkEvent::C,
        ..TraceOptions::default()
    };
    let (v, _) = read_all(&data("sample.blkparse"), &o);
    assert_eq!(v.len(), 4);
    assert_eq!(v[0], rec(0, IoKind::Write, 2048 * 512, 4096, SDA));
    assert_eq!(v[2].io.kind, IoKind::Flush);
}

#[test]
fn blkparse_filter_by_device() {
    let o = TraceOptions {
        filter: Some(u64::from(SDA | 16)),
        ..TraceOptions::default()
    };
    let (v, r) = read_all(&data("sample.blkparse"), &o);
    assert_eq!(
        v,
        vec![rec(0, IoKind::Trim, 65536 * 512, 2048 * 512, SDA | 16)]
    );
    assert_eq!(r.skipped(), 13 + 5);
}

#[test]
fn blkparse_malformed_lines() {
    let p = data("malformed-nsectors.blkparse");
    assert_eq!(
        error_of(&p, &TraceOptions::default()),
        format!("{}:2: nsectors: invalid unsigned integer `x`", p.display())
    );
    let p = data("malformed-time.blkparse");
    assert_eq!(
        error_of(&p, &TraceOptions::default()),
        format!(
            "{}:2: time: invalid `sec.nsec` timestamp `0.0000a1000`",
            p.display()
        )
    );
    let e = read_str(
        "8,0 1 1 0.5 1 D W 8 + 8 [a]\ngarbage line here\n",
        &TraceOptions::default(),
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "mem:2: expected a blkparse event `maj,min cpu seq sec.nsec pid action RWBS ...`, found `garbage line here`"
    );
}

#[test]
fn blkparse_time_fractions() {
    let v = read_str(
        "8,0 1 1 1.5 1 D W 8 + 8 [a]\n8,0 1 2 2.000000001 1 D W 8 + 8 [a]\n8,0 1 3 3 1 D R 8 + 8 [a]\n",
        &opts(Some(TraceFormat::Blkparse)),
    )
    .unwrap();
    let t: Vec<u64> = v.iter().map(|r| r.time_ns).collect();
    assert_eq!(t, vec![0, 500_000_001, 1_500_000_000]);
}

// ---- MSR -------------------------------------------------------------------------------------

#[test]
fn msr_sample() {
    let (v, r) = read_all(&data("sample.msr.csv"), &TraceOptions::default());
    assert_eq!(
        v,
        vec![
            rec(0, IoKind::Read, 3_154_132_992, 4096, 1),
            rec(1_379_139_100, IoKind::Write, 2_457_600, 65536, 0),
            rec(1_385_144_100, IoKind::Write, 4_026_531_840, 512, 1),
            rec(1_693_837_100, IoKind::Read, 3_154_137_088, 8192, 1),
        ]
    );
    assert_eq!(r.skipped(), 1); // the zero-size read
}

#[test]
fn msr_filter_and_header() {
    let o = TraceOptions {
        filter: Some(1),
        ..TraceOptions::default()
    };
    let (v, r) = read_all(&data("sample.msr.csv"), &o);
    assert_eq!(v.len(), 3);
    assert!(v.iter().all(|r| r.stream == 1));
    assert_eq!(r.skipped(), 2);
    let (v, r) = read_all(&data("sample-header.msr.csv"), &TraceOptions::default());
    assert_eq!(v.len(), 2);
    assert_eq!((r.skipped(), r.lines()), (0, 3));
}

#[test]
fn msr_malformed_lines() {
    let p = data("malformed-type.msr.csv");
    assert_eq!(
        error_of(&p, &TraceOptions::default()),
        format!(
            "{}:2: Type: expected `Read` or `Write`, found `Erase`",
            p.display()
        )
    );
    let p = data("malformed-fields.msr.csv");
    assert_eq!(
        error_of(&p, &TraceOptions::default()),
        format!(
            "{}:2: expected 7 comma-separated fields `Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime`, found 5",
            p.display()
        )
    );
}

// ---- iolog -----------------------------------------------------------------------------------

#[test]
fn iolog_v2_sample() {
    let (v, r) = read_all(&data("sample.iolog2"), &TraceOptions::default());
    assert_eq!(
        v,
        vec![
            rec(0, IoKind::Write, 0, 4096, 0),
            rec(0, IoKind::Write, 4096, 4096, 0),
            rec(500_000, IoKind::Read, 0, 8192, 0),
            rec(500_000, IoKind::Flush, 0, 0, 0),
            rec(1_500_000, IoKind::Trim, 1_048_576, 131_072, 0),
            rec(1_500_000, IoKind::Flush, 0, 0, 0),
        ]
    );
    // add, open, 2 waits, close.
    assert_eq!((r.skipped(), r.lines()), (5, 12));
}

#[test]
fn iolog_v3_sample() {
    let (v, r) = read_all(&data("sample.iolog3"), &TraceOptions::default());
    assert_eq!(
        v,
        vec![
            rec(0, IoKind::Write, 0, 4096, 0),
            rec(5_000, IoKind::Write, 4096, 4096, 0),
            rec(500_000, IoKind::Read, 4096, 4096, 0),
            rec(600_000, IoKind::Write, 65536, 16384, 1),
            rec(890_000, IoKind::Flush, 0, 0, 0),
            rec(990_000, IoKind::Trim, 0, 8192, 0),
        ]
    );
    // add, open, add, wait (ignored in v3), the zero-length write, close.
    assert_eq!((r.skipped(), r.lines()), (6, 13));
    let o = TraceOptions {
        filter: Some(1),
        ..TraceOptions::default()
    };
    let (v, _) = read_all(&data("sample.iolog3"), &o);
    assert_eq!(v, vec![rec(0, IoKind::Write, 65536, 16384, 1)]);
}

#[test]
fn iolog_malformed_lines() {
    let p = data("malformed-action.iolog3");
    assert_eq!(
        error_of(&p, &TraceOptions::default()),
        format!(
            "{}:4: unknown iolog action `frobnicate` (expected read, write, trim, sync, datasync, wait, add, open, close)",
            p.display()
        )
    );
    let p = data("malformed-args.iolog2");
    assert_eq!(
        error_of(&p, &TraceOptions::default()),
        format!("{}:3: action `read` needs `offset length`", p.display())
    );
    let p = data("noheader.iolog");
    assert_eq!(
        error_of(&p, &opts(Some(TraceFormat::Iolog))),
        format!(
            "{}:1: expected the header `fio version 2 iolog` or `fio version 3 iolog` (iolog version 1 is not supported), found `/dev/sdb write 0 4096`",
            p.display()
        )
    );
}

// ---- Alibaba and Tencent ---------------------------------------------------------------------

#[test]
fn alibaba_sample_and_filter() {
    let (v, _) = read_all(&data("sample.alibaba.csv"), &TraceOptions::default());
    assert_eq!(
        v,
        vec![
            rec(0, IoKind::Read, 126_703_644_672, 4096, 3),
            rec(100_000, IoKind::Write, 126_703_648_768, 4096, 3),
            rec(249_000, IoKind::Write, 0, 16384, 7),
            rec(1_000_000, IoKind::Read, 126_703_652_864, 8192, 3),
            rec(2_000_000, IoKind::Read, 65536, 4096, 7),
        ]
    );
    let o = TraceOptions {
        filter: Some(7),
        ..TraceOptions::default()
    };
    let (v, r) = read_all(&data("sample.alibaba.csv"), &o);
    assert_eq!(
        v,
        vec![
            rec(0, IoKind::Write, 0, 16384, 7),
            rec(1_751_000, IoKind::Read, 65536, 4096, 7),
        ]
    );
    assert_eq!(r.skipped(), 3);
    let p = data("malformed-opcode.alibaba.csv");
    assert_eq!(
        error_of(&p, &TraceOptions::default()),
        format!("{}:2: opcode: expected `R` or `W`, found `X`", p.display())
    );
}

#[test]
fn tencent_sample_and_filter() {
    let (v, r) = read_all(&data("sample.tencent.csv"), &TraceOptions::default());
    assert_eq!(
        v,
        vec![
            rec(0, IoKind::Write, 18_403_456 * 512, 4096, 1283),
            rec(0, IoKind::Write, 18_403_464 * 512, 4096, 1283),
            rec(1_000_000_000, IoKind::Read, 1024 * 512, 8192, 77),
            rec(3_000_000_000, IoKind::Read, 18_403_472 * 512, 16384, 1283),
            rec(5_000_000_000, IoKind::Write, 2048 * 512, 4096, 77),
        ]
    );
    assert_eq!(r.skipped(), 1);
    let o = TraceOptions {
        filter: Some(77),
        ..TraceOptions::default()
    };
    let (v, r) = read_all(&data("sample.tencent.csv"), &o);
    assert_eq!(v.len(), 2);
    assert_eq!(v[1].time_ns, 4_000_000_000);
    assert_eq!(r.skipped(), 4);
    let p = data("malformed-iotype.tencent.csv");
    assert_eq!(
        error_of(&p, &TraceOptions::default()),
        format!(
            "{}:2: iotype: expected 0 (read) or 1 (write), found `2`",
            p.display()
        )
    );
}

// ---- names -----------------------------------------------------------------------------------

#[test]
fn format_names_round_trip() {
    for f in TraceFormat::ALL {
        assert_eq!(f.to_string().parse::<TraceFormat>().unwrap(), f);
        assert_eq!(
            serde_json::to_string(&f).unwrap(),
            format!("\"{}\"", f.name())
        );
    }
    assert_eq!("MSR".parse::<TraceFormat>().unwrap(), TraceFormat::Msr);
    assert_eq!(
        "spc".parse::<TraceFormat>().unwrap_err().to_string(),
        "unknown trace format `spc`; expected one of disksim, blkparse, msr, iolog, alibaba, tencent"
    );
    assert_eq!("q".parse::<BlkEvent>().unwrap(), BlkEvent::Q);
    assert!("X".parse::<BlkEvent>().is_err());
    assert_eq!(BlkEvent::default(), BlkEvent::D);
    assert_eq!(
        "iolog".parse::<ConvertFormat>().unwrap(),
        ConvertFormat::Iolog
    );
    assert!("msr".parse::<ConvertFormat>().is_err());
}

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

// ---- hostile input: every malformed line is a located error, never a panic -------------------

/// The first error of reading `text` as `format`.
fn first_error(text: &str, format: Option<TraceFormat>) -> String {
    match read_str(text, &opts(format)) {
        Ok(v) => panic!("read without error: {v:?}"),
        Err(e) => e.to_string(),
    }
}

/// Audit P1: offset + length overflowing u64 is a located error in every format.
#[test]
fn offset_plus_length_overflow_is_a_located_error() {
    let cases: [(TraceFormat, &str); 7] = [
        (TraceFormat::Disksim, "0 0 0 8 0\n1000 0 36028797018963967 16 0\n"),
        (
            TraceFormat::Msr,
            "128166372003061629,hm,1,Write,0,4096,1\n128166372003071629,hm,1,Write,18446744073709547520,8192,1\n",
        ),
        (
            TraceFormat::Blkparse,
            "  8,0 0 1 0.000000000 1 D W 0 + 8 [fio]\n  8,0 0 2 0.000100000 1 D W 36028797018963967 + 16 [fio]\n",
        ),
        (
            TraceFormat::Iolog,
            "fio version 2 iolog\n/dev/sdb write 0 4096\n/dev/sdb write 18446744073709547520 8192\n",
        ),
        (
            TraceFormat::Iolog,
            "fio version 3 iolog\n0 /dev/sdb write 0 4096\n1 /dev/sdb write 18446744073709547520 8192\n",
        ),
        (
            TraceFormat::Alibaba,
            "0,W,0,4096,1\n0,W,18446744073709547520,8192,2\n",
        ),
        (
            TraceFormat::Tencent,
            "1538323200,0,8,1,1283\n1538323201,36028797018963967,16,1,1283\n",
        ),
    ];
    for (f, text) in cases {
        for format in [Some(f), None] {
            let e = first_error(text, format);
            let line = if f == TraceFormat::Iolog { 3 } else { 2 };
            assert!(
                e.starts_with(&format!("mem:{line}: ")) && e.contains("overflows 64 bits"),
                "{f}: {e}"
            );
        }
    }
}

/// Audit C1: a file without line breaks is a "line too long" error, not unbounded memory.
#[test]
fn endless_line_is_a_located_error_with_bounded_memory() {
    use std::io::Read;
    for format in [None, Some(TraceFormat::Disksim), Some(TraceFormat::Msr)] {
        // An endless stream of NUL bytes, like /dev/zero.
        let zero = Box::new(BufReader::new(std::io::repeat(0)));
        let e = match TraceReader::from_reader("zero", zero, &opts(format)) {
            Err(e) => e.to_string(),
            Ok(mut r) => loop {
                match r.next_record() {
                    Ok(Some(_)) => {}
                    Ok(None) => panic!("endless input ended"),
                    Err(e) => break e.to_string(),
                }
            },
        };
        assert_eq!(
            e,
            format!("zero:1: line longer than {MAX_LINE_BYTES} bytes (not a text trace, or no line breaks)")
        );
    }
    // The limit applies to any line, here the third.
    let mut text = b"0 0 0 8 0\n\n".to_vec();
    text.extend(std::iter::repeat_n(b'1', MAX_LINE_BYTES + 1));
    let mut r = TraceReader::from_reader(
        "long",
        Box::new(Cursor::new(text.clone())),
        &TraceOptions::default(),
    )
    .unwrap();
    assert!(r.next_record().unwrap().is_some());
    let e = r.next_record().unwrap_err().to_string();
    assert!(e.starts_with("long:3: line longer than"), "{e}");
    // A line of exactly the limit is read (and then judged by the format).
    let mut text = vec![b' '; MAX_LINE_BYTES - 11];
    text.extend(b"0 0 0 8 0\n");
    let mut buf = Vec::new();
    Cursor::new(&text).read_to_end(&mut buf).unwrap();
    assert_eq!(
        read_str(std::str::from_utf8(&buf).unwrap(), &opts(None))
            .unwrap()
            .len(),
        1
    );
}

/// Audit C1: blank and comment lines before the first data line are counted, not buffered.
#[test]
fn detection_keeps_line_numbers_without_buffering() {
    let text = format!("{}0 0 0 8 0\n1 0 x 8 0\n", "#\n\n".repeat(1000));
    let e = first_error(&text, None);
    assert!(e.starts_with("mem:2002: start_sector"), "{e}");
    let mut r = TraceReader::from_reader(
        "m",
        Box::new(Cursor::new(format!("{}0 0 0 8 0\n", "\n".repeat(5000)))),
        &TraceOptions::default(),
    )
    .unwrap();
    assert!(r.pending.is_some());
    assert!(r.next_record().unwrap().is_some());
    assert_eq!(r.lines(), 5001);
}

/// Audit S4: an undocumented RWBS letter is a malformed line, not a skipped one.
#[test]
fn blkparse_unknown_rwbs_letter_is_rejected() {
    let text = "  8,0 0 1 0.000000000 1 D W 0 + 8 [fio]\n  8,0 0 2 0.000100000 1 D Z 8 + 8 [fio]\n";
    let e = first_error(text, Some(TraceFormat::Blkparse));
    assert!(
        e.starts_with("mem:2: RWBS: unexpected character `Z` in `Z`"),
        "{e}"
    );
    // Every documented letter is accepted.
    let ok = "  8,0 0 1 0.0 1 D RSMA 0 + 8 [x]\n  8,0 0 2 0.0 1 D FWFS 0 + 8 [x]\n  8,0 0 3 0.0 1 D N [x]\n  8,0 0 4 0.0 1 D DE 0 + 8 [x]\n";
    assert_eq!(
        read_str(ok, &opts(Some(TraceFormat::Blkparse)))
            .unwrap()
            .len(),
        3
    );
}

/// Many distinct iolog file names are a hash lookup, and an absurd name is rejected.
#[test]
fn iolog_file_names_are_bounded() {
    let long = "f".repeat(5000);
    let e = first_error(
        &format!("fio version 2 iolog\n{long} write 0 4096\n"),
        Some(TraceFormat::Iolog),
    );
    assert!(
        e.starts_with("mem:2: file name longer than 4096 bytes"),
        "{e}"
    );
    let mut text = String::from("fio version 2 iolog\n");
    for i in 0..20_000 {
        text += &format!("/dev/f{i} write 0 4096\n");
    }
    let v = read_str(&text, &opts(None)).unwrap();
    assert_eq!(v.len(), 20_000);
    assert_eq!(v[19_999].stream, 19_999);
}

// ---- properties ------------------------------------------------------------------------------

/// Everything a reader makes of `bytes` read through a buffer of `cap` bytes: each record or
/// the first error, then the lines, skipped lines, records and flush-flagged writes counted.
fn read_through(bytes: &[u8], cap: usize, o: &TraceOptions) -> (Vec<String>, [u64; 4]) {
    let input = BufReader::with_capacity(cap, Cursor::new(bytes.to_vec()));
    let mut r = match TraceReader::from_reader("p", Box::new(input), o) {
        Ok(r) => r,
        Err(e) => return (vec![e.to_string()], [0; 4]),
    };
    let mut out = Vec::new();
    loop {
        match r.next_record() {
            Ok(Some(rec)) => out.push(format!("{rec:?}")),
            Ok(None) => break,
            Err(e) => {
                out.push(e.to_string());
                break;
            }
        }
    }
    let counts = [
        r.lines(),
        r.skipped(),
        r.records(),
        r.flush_flagged_writes(),
    ];
    (out, counts)
}

/// Lines of every format, blank, comment, CRLF-terminated and malformed ones.
fn some_line() -> impl Strategy<Value = String> {
    prop_oneof![
        (0u64..1_000_000, 0u32..4, 0u64..1 << 30, 0u64..64, 0u8..3)
            .prop_map(|(t, d, s, n, ty)| format!("{t} {d} {s} {n} {ty}")),
        Just(String::new()),
        Just("# comment".to_string()),
        Just("  \t ".to_string()),
        "[ -~]{0,40}",
        (0u64..1000, 0u64..1 << 20).prop_map(|(t, s)| format!("{t}\t1\t{s}\t8\t1\r")),
        Just("128166372003061629,hm,1,Read,383496192,32768,1331".to_string()),
        Just("8,0 1 1 0.000000000 697 D W 223490 + 8 [kworker]".to_string()),
    ]
}

proptest! {
    /// Parsing lines in place in the read buffer gives exactly what reading each line into a
    /// buffer of its own gives (a 1-byte read buffer holds no whole line: every line takes the
    /// copying path): the same records, first error and counts.
    #[test]
    fn in_place_parsing_matches_line_copies(
        lines in proptest::collection::vec(some_line(), 0..40),
        cap in 2usize..64,
        final_newline in any::<bool>(),
        f in proptest::option::of(0usize..6),
        filter in proptest::option::of(0u64..4),
    ) {
        let mut text = lines.join("\n");
        if final_newline {
            text.push('\n');
        }
        let o = TraceOptions { filter, ..opts(f.map(|i| TraceFormat::ALL[i])) };
        let reference = read_through(text.as_bytes(), 1, &o);
        prop_assert_eq!(&read_through(text.as_bytes(), cap, &o), &reference);
        prop_assert_eq!(&read_through(text.as_bytes(), 1 << 16, &o), &reference);
    }

    #[test]
    fn parse_u64_matches_std(s in "0{0,25}[0-9]{1,22}") {
        prop_assert_eq!(parse_u64(s.as_bytes()), s.parse::<u64>().ok());
    }

    #[test]
    fn disksim_write_read_round_trip(
        recs in proptest::collection::vec(
            (0u64..1_000_000, 0u32..8, 0u64..(1 << 40), 1u64..4096, any::<bool>()), 1..50)
    ) {
        let mut text = String::new();
        let mut t = 0;
        for (gap, dev, sector, n, read) in &recs {
            t += gap;
            text += &format!("{t} {dev} {sector} {n} {}\n", u8::from(*read));
        }
        let v = read_str(&text, &TraceOptions::default()).unwrap();
        prop_assert_eq!(v.len(), recs.len());
        let t0 = recs[0].0;
        let mut t = 0;
        for (r, (gap, dev, sector, n, read)) in v.iter().zip(&recs) {
            t += gap;
            prop_assert_eq!(r.time_ns, t - t0);
            prop_assert_eq!(r.stream, *dev);
            prop_assert_eq!(r.io.offset, sector * 512);
            prop_assert_eq!(r.io.len, n * 512);
            prop_assert_eq!(r.io.kind, if *read { IoKind::Read } else { IoKind::Write });
        }
    }

    /// Arbitrary input never panics: every line is a record, skipped, or a located error.
    #[test]
    fn arbitrary_input_never_panics(
        bytes in proptest::collection::vec(any::<u8>(), 0..400),
        f in proptest::option::of(0usize..6),
    ) {
        let o = opts(f.map(|i| TraceFormat::ALL[i]));
        if let Ok(mut r) = TraceReader::from_reader("p", Box::new(Cursor::new(bytes)), &o) {
            loop {
                match r.next_record() {
                    Ok(Some(_)) => {}
                    Ok(None) => break,
                    Err(e) => {
                        prop_assert!(e.to_string().starts_with("p:"));
                        break;
                    }
                }
            }
        }
    }

    /// Any line of printable ASCII in each format never panics either.
    #[test]
    fn arbitrary_lines_never_panic(line in "[ -~]{0,80}", i in 0usize..6) {
        let _ = read_str(&format!("fio version 3 iolog\n{line}\n"), &opts(Some(TraceFormat::ALL[i])));
        let _ = read_str(&format!("{line}\n"), &opts(Some(TraceFormat::ALL[i])));
    }
}
