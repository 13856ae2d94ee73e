//! `zonesim trace stats`: a one-pass characterisation of a trace.
//!
//! Definitions (all over the records the reader produces, i.e. after filtering):
//! - counts and bytes per kind; flushes have no bytes.
//! - request sizes: reads, writes and trims in power-of-two buckets `[2^k, 2^(k+1))` bytes;
//!   only non-empty buckets are listed.
//! - footprint: distinct 4 KiB pages touched by reads and writes (trims are left out: a single
//!   whole-device discard would otherwise make the footprint the device size). Kept in a sparse
//!   bitmap of 16 MiB chunks, so memory grows with the footprint, not with the trace length.
//!   At most 4 TiB of footprint, 2^22 distinct regions and 2^20 streams are counted; a trace
//!   beyond that is an error at the line that crossed the limit (memory stays bounded).
//! - sequentiality: the fraction of reads, writes and trims that start exactly where the
//!   previous request *of the same kind* ended (the first of each kind counts as not
//!   sequential).
//! - inter-arrival times: gaps between consecutive records in trace order (a time going
//!   backwards counts as a 0 gap). min, mean and max are exact; p50 and p99 are nearest-rank
//!   values from an HDR histogram (hdrhistogram crate, 3 significant digits: within 0.1 %),
//!   never above the max.
//! - top regions: reads, writes and trims counted by the 1 MiB region holding their start
//!   offset; the `top` regions with the most requests, ties by lower offset. One counter per
//!   touched region, so memory grows with footprint / 1 MiB.
//! - top streams: records per stream (device / volume / disk), the `top` most frequent.

use std::collections::HashMap;
use std::fmt::Write as _;

use serde::Serialize;

use super::{TraceFormat, TraceReader};
use crate::IoKind;
use zonesim_core::error::{Error, Result};

/// Page size of the footprint.
pub const FOOTPRINT_PAGE: u64 = 4096;
/// Region size of the top-offset counts.
pub const REGION_BYTES: u64 = 1 << 20;

/// Count and bytes of one request kind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct KindStats {
    pub count: u64,
    pub bytes: u64,
}

/// One request-size bucket: sizes in `[from_bytes, to_bytes)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct SizeBucket {
    pub from_bytes: u64,
    pub to_bytes: u64,
    pub count: u64,
}

/// A distribution of times in ns.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct TimeDist {
    /// Number of samples (records - 1 for inter-arrival times).
    pub count: u64,
    pub min_ns: u64,
    pub mean_ns: f64,
    pub p50_ns: u64,
    pub p99_ns: u64,
    pub max_ns: u64,
}

/// Requests counted in one 1 MiB region.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct RegionCount {
    /// Byte offset of the region start.
    pub offset: u64,
    pub count: u64,
}

/// Records of one stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct StreamCount {
    pub stream: u32,
    pub count: u64,
}

/// The characterisation of a trace (see the module documentation for the definitions).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TraceStats {
    pub format: TraceFormat,
    /// Lines read, of every kind.
    pub lines: u64,
    /// Records produced.
    pub records: u64,
    /// Lines skipped (other actions, filtered out, zero length, file actions).
    pub skipped: u64,
    pub reads: KindStats,
    pub writes: KindStats,
    pub trims: KindStats,
    pub flushes: u64,
    /// blkparse writes that carried a pre-flush/FUA flag (0 for other formats).
    pub flush_flagged_writes: u64,
    /// Time of the last record (the first is at 0), ns.
    pub duration_ns: u64,
    pub size_histogram: Vec<SizeBucket>,
    /// Distinct 4 KiB pages touched by reads and writes.
    pub footprint_pages: u64,
    pub footprint_bytes: u64,
    /// Fraction of reads/writes/trims starting where the previous one of the same kind ended.
    pub sequential_fraction: f64,
    pub interarrival: TimeDist,
    pub region_bytes: u64,
    pub top_regions: Vec<RegionCount>,
    pub distinct_streams: u64,
    pub top_streams: Vec<StreamCount>,
}

/// A set of page numbers: a sparse bitmap of 4096-page chunks.
#[derive(Default)]
pub(crate) struct PageSet {
    chunks: HashMap<u64, Box<[u64; 64]>>,
    pub(crate) count: u64,
}

impl PageSet {
    /// Inserts pages `first..=last`; false (and nothing more inserted) once the set would
    /// hold more than [`MAX_FOOTPRINT_CHUNKS`] chunks.
    pub(crate) fn insert_range(&mut self, first: u64, last: u64) -> bool {
        let mut p = first;
        loop {
            let chunk = p >> 12;
            let end = last.min(p | 4095);
            if self.chunks.len() >= MAX_FOOTPRINT_CHUNKS && !self.chunks.contains_key(&chunk) {
                return false;
            }
            let words = self
                .chunks
                .entry(chunk)
                .or_insert_with(|| Box::new([0; 64]));
            if p & 4095 == 0 && end - p == 4095 {
                // A whole chunk at once.
                let set: u32 = words.iter().map(|w| w.count_ones()).sum();
                self.count += 4096 - u64::from(set);
                words.fill(u64::MAX);
                if end == last {
                    return true;
                }
                p = end + 1;
                continue;
            }
            for q in p..=end {
                let i = (q & 4095) as usize;
                let bit = 1u64 << (i & 63);
                let w = &mut words[i >> 6];
                if *w & bit == 0 {
                    *w |= bit;
                    self.count += 1;
                }
            }
            if end == last {
                return true;
            }
            p = end + 1;
        }
    }
}

/// Most 16 MiB footprint chunks `trace stats` tracks (2^18: 4 TiB of footprint, 128 MiB of
/// bitmaps); a trace touching more is an error rather than unbounded memory.
pub(crate) const MAX_FOOTPRINT_CHUNKS: usize = 1 << 18;

/// Most distinct 1 MiB regions (4 TiB) and streams counted; more is an error, as above.
const MAX_REGIONS: usize = 1 << 22;
const MAX_STREAMS: usize = 1 << 20;

/// Reads the whole trace and characterises it; `top` is the number of regions and streams
/// listed.
pub fn trace_stats(reader: &mut TraceReader, top: usize) -> Result<TraceStats> {
    let mut reads = KindStats::default();
    let mut writes = KindStats::default();
    let mut trims = KindStats::default();
    let mut flushes = 0u64;
    let mut sizes = [0u64; 64];
    let mut pages = PageSet::default();
    let mut regions: HashMap<u64, u64> = HashMap::new();
    let mut streams: HashMap<u32, u64> = HashMap::new();
    let mut last_end: [Option<u64>; 3] = [None; 3];
    let mut sequential = 0u64;
    // Inter-arrival gaps: an HDR histogram, 3 significant digits, 1 ns .. 2^62 ns (146 years).
    let mut gaps =
        hdrhistogram::Histogram::<u64>::new_with_bounds(1, 1 << 62, 3).expect("valid bounds");
    let (mut gap_min, mut gap_max, mut gap_sum) = (u64::MAX, 0u64, 0u128);
    let mut prev_time: Option<u64> = None;
    let mut max_time = 0u64;

    let too_big = |reader: &TraceReader, what: String| {
        Error::parse(
            reader.name(),
            reader.lines(),
            format!("{what}; trace stats counts at most that much (use --filter, or a part of the trace)"),
        )
    };
    while let Some(rec) = reader.next_record()? {
        let io = rec.io;
        if streams.len() >= MAX_STREAMS && !streams.contains_key(&rec.stream) {
            return Err(too_big(
                reader,
                format!("more than {MAX_STREAMS} distinct streams"),
            ));
        }
        *streams.entry(rec.stream).or_insert(0) += 1;
        if let Some(prev) = prev_time {
            let gap = rec.time_ns.saturating_sub(prev);
            gaps.saturating_record(gap);
            gap_min = gap_min.min(gap);
            gap_max = gap_max.max(gap);
            gap_sum += u128::from(gap);
        }
        prev_time = Some(rec.time_ns);
        max_time = max_time.max(rec.time_ns);
        let slot = match io.kind {
            IoKind::Read => 0,
            IoKind::Write | IoKind::InPlace => 1,
            IoKind::Trim => 2,
            IoKind::Flush => {
                flushes += 1;
                continue;
            }
            // Trace readers produce no zone commands.
            IoKind::ZoneReset
            | IoKind::ZoneFinish
            | IoKind::ZoneOpen
            | IoKind::ZoneClose
            | IoKind::ZoneAppend => continue,
        };
        let k = match slot {
            0 => &mut reads,
            1 => &mut writes,
            _ => &mut trims,
        };
        k.count += 1;
        k.bytes = k.bytes.saturating_add(io.len);
        sizes[63 - io.len.leading_zeros() as usize] += 1;
        if last_end[slot] == Some(io.offset) {
            sequential += 1;
        }
        last_end[slot] = Some(io.offset.saturating_add(io.len));
        let region = io.offset / REGION_BYTES;
        if regions.len() >= MAX_REGIONS && !regions.contains_key(&region) {
            return Err(too_big(
                reader,
                format!("requests start in more than {MAX_REGIONS} distinct 1 MiB regions"),
            ));
        }
        *regions.entry(region).or_insert(0) += 1;
        if slot < 2 {
            let first = io.offset / FOOTPRINT_PAGE;
            let last = (io.offset.saturating_add(io.len) - 1) / FOOTPRINT_PAGE;
            if !pages.insert_range(first, last) {
                return Err(too_big(
                    reader,
                    "reads and writes touch more than 4 TiB of distinct 4 KiB pages".to_string(),
                ));
            }
        }
    }

    let data = reads.count + writes.count + trims.count;
    let size_histogram = sizes
        .iter()
        .enumerate()
        .filter(|(_, c)| **c > 0)
        .map(|(k, c)| SizeBucket {
            from_bytes: 1 << k,
            to_bytes: if k == 63 { u64::MAX } else { 1 << (k + 1) },
            count: *c,
        })
        .collect();
    let interarrival = if gaps.is_empty() {
        TimeDist::default()
    } else {
        let n = gaps.len();
        TimeDist {
            count: n,
            min_ns: gap_min,
            mean_ns: gap_sum as f64 / n as f64,
            p50_ns: gaps.value_at_quantile(0.5).min(gap_max),
            p99_ns: gaps.value_at_quantile(0.99).min(gap_max),
            max_ns: gap_max,
        }
    };
    let mut top_regions: Vec<RegionCount> = regions
        .into_iter()
        .map(|(r, count)| RegionCount {
            offset: r * REGION_BYTES,
            count,
        })
        .collect();
    top_regions.sort_unstable_by(|a, b| b.count.cmp(&a.count).then(a.offset.cmp(&b.offset)));
    top_regions.truncate(top);
    let distinct_streams = streams.len() as u64;
    let mut top_streams: Vec<StreamCount> = streams
        .into_iter()
        .map(|(stream, count)| StreamCount { stream, count })
        .collect();
    top_streams.sort_unstable_by(|a, b| b.count.cmp(&a.count).then(a.stream.cmp(&b.stream)));
    top_streams.truncate(top);

    Ok(TraceStats {
        format: reader.format(),
        lines: reader.lines(),
        records: reader.records(),
        skipped: reader.skipped(),
        reads,
        writes,
        trims,
        flushes,
        flush_flagged_writes: reader.flush_flagged_writes(),
        duration_ns: max_time,
        size_histogram,
        footprint_pages: pages.count,
        footprint_bytes: pages.count * FOOTPRINT_PAGE,
        sequential_fraction: if data == 0 {
            0.0
        } else {
            sequential as f64 / data as f64
        },
        interarrival,
        region_bytes: REGION_BYTES,
        top_regions,
        distinct_streams,
        top_streams,
    })
}

/// Bytes in binary units (`4 KiB`, `1.5 GiB`).
fn bytes(b: u64) -> String {
    const UNITS: [&str; 7] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    let mut v = b as f64;
    let mut u = 0;
    while v >= 1024.0 && u < UNITS.len() - 1 {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{b} B")
    } else if v.fract() == 0.0 {
        format!("{v:.0} {}", UNITS[u])
    } else {
        format!("{v:.2} {}", UNITS[u])
    }
}

/// A time in ns in a readable unit.
fn time(ns: f64) -> String {
    if ns >= 1e9 {
        format!("{:.3} s", ns / 1e9)
    } else if ns >= 1e6 {
        format!("{:.3} ms", ns / 1e6)
    } else if ns >= 1e3 {
        format!("{:.3} us", ns / 1e3)
    } else {
        format!("{ns:.0} ns")
    }
}

fn pct(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        100.0 * part as f64 / whole as f64
    }
}

/// The statistics as a readable text table.
pub fn render_table(s: &TraceStats) -> String {
    let mut o = String::new();
    let w = &mut o;
    let _ = writeln!(w, "format            {}", s.format);
    let _ = writeln!(
        w,
        "lines             {}  (records {}, skipped {})",
        s.lines, s.records, s.skipped
    );
    let _ = writeln!(w, "duration          {}", time(s.duration_ns as f64));
    let _ = writeln!(w);
    let _ = writeln!(w, "kind        requests       %        bytes");
    for (name, k) in [("read", s.reads), ("write", s.writes), ("trim", s.trims)] {
        let _ = writeln!(
            w,
            "{name:<8} {:>11} {:>7.2} {:>12}",
            k.count,
            pct(k.count, s.records),
            bytes(k.bytes)
        );
    }
    let _ = writeln!(
        w,
        "{:<8} {:>11} {:>7.2} {:>12}",
        "flush",
        s.flushes,
        pct(s.flushes, s.records),
        "-"
    );
    if s.flush_flagged_writes > 0 {
        let _ = writeln!(
            w,
            "(writes with a pre-flush/FUA flag: {})",
            s.flush_flagged_writes
        );
    }
    let _ = writeln!(w);
    let data = s.reads.count + s.writes.count + s.trims.count;
    let _ = writeln!(w, "request size                 requests       %");
    for b in &s.size_histogram {
        let range = format!("[{}, {})", bytes(b.from_bytes), bytes(b.to_bytes));
        let _ = writeln!(
            w,
            "  {range:<26} {:>9} {:>7.2}",
            b.count,
            pct(b.count, data)
        );
    }
    let _ = writeln!(w);
    let _ = writeln!(
        w,
        "footprint         {} pages of 4 KiB ({})",
        s.footprint_pages,
        bytes(s.footprint_bytes)
    );
    let _ = writeln!(
        w,
        "sequential        {:.2} % of reads/writes/trims",
        100.0 * s.sequential_fraction
    );
    let ia = &s.interarrival;
    let _ = writeln!(
        w,
        "inter-arrival     min {}  mean {}  p50 {}  p99 {}  max {}",
        time(ia.min_ns as f64),
        time(ia.mean_ns),
        time(ia.p50_ns as f64),
        time(ia.p99_ns as f64),
        time(ia.max_ns as f64)
    );
    let _ = writeln!(w);
    let _ = writeln!(w, "top regions ({}) by requests:", bytes(s.region_bytes));
    for r in &s.top_regions {
        let _ = writeln!(
            w,
            "  offset {:>20}  ({:>12})  {:>9}",
            r.offset,
            bytes(r.offset),
            r.count
        );
    }
    let _ = writeln!(w);
    let _ = writeln!(
        w,
        "streams           {} distinct; top by records:",
        s.distinct_streams
    );
    for t in &s.top_streams {
        let _ = writeln!(w, "  stream {:>10}  {:>9}", t.stream, t.count);
    }
    o
}
