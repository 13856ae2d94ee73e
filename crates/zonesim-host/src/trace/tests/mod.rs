//! Tests of the trace readers and detection, on the real traces of
//! `tests/fixtures/traces/` (repository root) and the hand-made samples of `tests/data/traces/`;
//! convert, stats and synthetic traces in [`output`], hostile input and properties in [`hostile`].

use std::io::{BufReader, Cursor};
use std::path::{Path, PathBuf};

use proptest::prelude::*;

use super::*;

mod hostile;
mod output;

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
