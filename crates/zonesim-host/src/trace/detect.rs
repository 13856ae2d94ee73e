//! Trace format detection from the first data line (the first line that is neither blank nor a
//! `#` comment).
//!
//! | first data line | format |
//! |---|---|
//! | starts with `fio version 2 iolog` / `fio version 3 iolog` | iolog |
//! | `maj,min cpu seq sec.nsec pid action ...` (≥ 6 space-separated fields) | blkparse |
//! | 7 comma-separated fields, the 4th `Read`/`Write` (or the MSR column header) | msr |
//! | 5 comma-separated fields, the 2nd `R`/`W` (or a header starting `device_id`) | alibaba |
//! | 5 comma-separated integers, the 4th `0`/`1` (or a header starting `Timestamp,Offset`) | tencent |
//! | 5 space-separated integers, the last `0`/`1` | disksim |
//!
//! Anything else is "cannot detect trace format; use --trace-format".

use super::{csv_fields, iolog, parse_u64, take_fields, words, TraceFormat};

fn all_digits(s: &[u8]) -> bool {
    parse_u64(s).is_some()
}

fn is_dev(s: &[u8]) -> bool {
    match s.iter().position(|b| *b == b',') {
        Some(p) => all_digits(&s[..p]) && all_digits(&s[p + 1..]),
        None => false,
    }
}

fn is_time(s: &[u8]) -> bool {
    match s.iter().position(|b| *b == b'.') {
        Some(p) => all_digits(&s[..p]) && all_digits(&s[p + 1..]),
        None => all_digits(s),
    }
}

/// The format of a trace whose first data line (trimmed) is `line`, if recognised.
pub fn detect_line(line: &[u8]) -> Option<TraceFormat> {
    if iolog::header_version(line).is_some() {
        return Some(TraceFormat::Iolog);
    }
    let mut w: [&[u8]; 6] = [&[]; 6];
    let nw = take_fields(words(line), &mut w);
    if nw >= 6 && is_dev(w[0]) && all_digits(w[1]) && all_digits(w[2]) && is_time(w[3]) {
        return Some(TraceFormat::Blkparse);
    }
    if line.contains(&b',') {
        let mut c: [&[u8]; 7] = [&[]; 7];
        let nc = take_fields(csv_fields(line), &mut c);
        let lower = |s: &[u8]| s.to_ascii_lowercase();
        if nc == 7
            && ((all_digits(c[0])
                && (c[3].eq_ignore_ascii_case(b"read") || c[3].eq_ignore_ascii_case(b"write")))
                || (lower(c[0]) == b"timestamp" && lower(c[1]) == b"hostname"))
        {
            return Some(TraceFormat::Msr);
        }
        if nc == 5 {
            if (all_digits(c[0]) && matches!(c[1], b"R" | b"W" | b"r" | b"w"))
                || lower(c[0]) == b"device_id"
            {
                return Some(TraceFormat::Alibaba);
            }
            if (c.iter().take(5).all(|f| all_digits(f)) && matches!(c[3], b"0" | b"1"))
                || (lower(c[0]) == b"timestamp" && lower(c[1]) == b"offset")
            {
                return Some(TraceFormat::Tencent);
            }
        }
        return None;
    }
    let mut d: [&[u8]; 5] = [&[]; 5];
    if take_fields(words(line), &mut d) == 5
        && d.iter().all(|f| all_digits(f))
        && matches!(d[4], b"0" | b"1")
    {
        return Some(TraceFormat::Disksim);
    }
    None
}
