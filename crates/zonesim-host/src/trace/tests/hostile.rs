//! Hostile input (every malformed line a located error, never a panic) and property tests of
//! the readers.

use super::*;

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
