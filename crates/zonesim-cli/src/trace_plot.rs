//! `zonesim trace plot TRACE --out FILE.png|FILE.svg`: a trace's addresses over time, its
//! request sizes and its read/write mix over time, read with the host crate's trace readers
//! (every format `zonesim run --trace` reads). Two streaming passes over the file (ranges,
//! then binning), so memory stays constant whatever the trace's length.

use crate::figure::{self, ticks, Figure, Mark, Panel, Rgb};
use crate::trace_cmd::ReadArgs;
use std::path::Path;
use zonesim::host::IoKind;
use zonesim::Error;

const READ: Rgb = [0, 114, 178];
const WRITE: Rgb = [213, 94, 0];
const TRIM: Rgb = [0, 158, 115];
/// Scatter cells: one dot per occupied cell and kind.
const CELLS_X: usize = 900;
const CELLS_Y: usize = 200;
/// Time bins of the mix panel.
const BINS: usize = 100;
/// Request size classes: up to 4 KiB, 8 KiB, ... 1 MiB, more.
const SIZE_CLASSES: usize = 10;

fn kind_index(k: IoKind) -> Option<usize> {
    match k {
        IoKind::Read => Some(0),
        IoKind::Write => Some(1),
        IoKind::Trim => Some(2),
        _ => None,
    }
}

fn size_class(len: u64) -> usize {
    let mut c = 0;
    let mut limit = 4096;
    while len > limit && c + 1 < SIZE_CLASSES {
        limit *= 2;
        c += 1;
    }
    c
}

fn class_label(c: usize) -> String {
    if c + 1 == SIZE_CLASSES {
        format!(">{}", class_label(c - 1))
    } else if (4 << c) >= 1024 {
        format!("{}M", (4 << c) / 1024)
    } else {
        format!("{}K", 4 << c)
    }
}

pub fn plot(read: &ReadArgs, out: &Path) -> anyhow::Result<()> {
    let ext = out
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    let svg = match ext.as_deref() {
        Some("png") => false,
        Some("svg") => true,
        _ => {
            return Err(
                Error::Usage(format!("{}: --out must end in .png or .svg", out.display())).into(),
            )
        }
    };
    // Pass 1: ranges, counts, sizes.
    let mut reader = read.open()?;
    let (mut t_max, mut lba_max) = (0u64, 0u64);
    let mut counts = [0u64; 3];
    let mut sizes = [[0u64; SIZE_CLASSES]; 3];
    while let Some(r) = reader.next_record()? {
        if let Some(k) = kind_index(r.io.kind) {
            t_max = t_max.max(r.time_ns);
            lba_max = lba_max.max(r.io.offset + r.io.len);
            counts[k] += 1;
            sizes[k][size_class(r.io.len)] += 1;
        }
    }
    let format = reader.format();
    let name = read
        .file
        .file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    // Pass 2: binning.
    let mut cells = vec![[false; 3]; CELLS_X * CELLS_Y];
    let mut mix = vec![[0u64; 3]; BINS];
    let t_span = t_max.max(1) as f64;
    let l_span = lba_max.max(1) as f64;
    let mut reader = read.open()?;
    while let Some(r) = reader.next_record()? {
        if let Some(k) = kind_index(r.io.kind) {
            let fx = r.time_ns as f64 / t_span;
            let cx = ((fx * CELLS_X as f64) as usize).min(CELLS_X - 1);
            let cy = ((r.io.offset as f64 / l_span * CELLS_Y as f64) as usize).min(CELLS_Y - 1);
            cells[cy * CELLS_X + cx][k] = true;
            mix[((fx * BINS as f64) as usize).min(BINS - 1)][k] += 1;
        }
    }
    let secs = t_max as f64 / 1e9;
    let gib = lba_max as f64 / (1u64 << 30) as f64;
    let colors = [READ, WRITE, TRIM];
    let names = ["read", "write", "trim"];
    let legend: Vec<(String, Rgb)> = (0..3)
        .filter(|&k| counts[k] > 0)
        .map(|k| (format!("{} ({})", names[k], counts[k]), colors[k]))
        .collect();
    let mut dots = Vec::new();
    for cy in 0..CELLS_Y {
        for cx in 0..CELLS_X {
            for k in 0..3 {
                if cells[cy * CELLS_X + cx][k] {
                    dots.push(Mark::Dot {
                        x: (cx as f64 + 0.5) / CELLS_X as f64 * secs,
                        y: (cy as f64 + 0.5) / CELLS_Y as f64 * gib,
                        color: colors[k],
                    });
                }
            }
        }
    }
    let lba = Panel {
        title: "offset over time".into(),
        x_label: "trace time (s)".into(),
        y_label: "offset (GiB)".into(),
        x: (0.0, secs.max(1e-9)),
        y: (0.0, gib.max(1e-9)),
        x_ticks: ticks(0.0, secs.max(1e-9), false),
        y_ticks: ticks(0.0, gib.max(1e-9), false),
        marks: dots,
        legend: legend.clone(),
    };
    let max_size = sizes.iter().flatten().copied().max().unwrap_or(0).max(1) as f64 * 1.05;
    let mut bars = Vec::new();
    for (k, row) in sizes.iter().enumerate() {
        for (c, &n) in row.iter().enumerate() {
            bars.push(Mark::Bar {
                x0: c as f64 + 0.1 + k as f64 * 0.27,
                x1: c as f64 + 0.1 + (k + 1) as f64 * 0.27,
                y: n as f64,
                color: colors[k],
            });
        }
    }
    let size = Panel {
        title: "request sizes".into(),
        x_label: "request size (up to)".into(),
        y_label: "requests".into(),
        x: (0.0, SIZE_CLASSES as f64),
        y: (0.0, max_size),
        x_ticks: (0..SIZE_CLASSES)
            .map(|c| (c as f64 + 0.5, class_label(c)))
            .collect(),
        y_ticks: ticks(0.0, max_size, true),
        marks: bars,
        legend: legend.clone(),
    };
    let bin_s = secs / BINS as f64;
    let max_bin = mix.iter().flatten().copied().max().unwrap_or(0).max(1) as f64 * 1.05;
    let lines = (0..3)
        .filter(|&k| counts[k] > 0)
        .map(|k| Mark::Line {
            points: mix
                .iter()
                .enumerate()
                .map(|(b, m)| ((b as f64 + 0.5) * bin_s, m[k] as f64))
                .collect(),
            color: colors[k],
        })
        .collect();
    let mix_panel = Panel {
        title: format!("read/write mix: requests per {:.3} s", bin_s),
        x_label: "trace time (s)".into(),
        y_label: "requests".into(),
        x: (0.0, secs.max(1e-9)),
        y: (0.0, max_bin),
        x_ticks: ticks(0.0, secs.max(1e-9), false),
        y_ticks: ticks(0.0, max_bin, true),
        marks: lines,
        legend,
    };
    let fig = Figure {
        title: format!(
            "trace {name} ({format}, {} requests)",
            counts.iter().sum::<u64>()
        ),
        panels: vec![lba, size, mix_panel],
    };
    let bytes = if svg {
        figure::svg(&fig).into_bytes()
    } else {
        figure::png(&fig)
    };
    std::fs::write(out, bytes).map_err(|e| Error::io(out, e))?;
    eprintln!("zonesim: wrote {}", out.display());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn size_classes() {
        assert_eq!(size_class(512), 0);
        assert_eq!(size_class(4096), 0);
        assert_eq!(size_class(4097), 1);
        assert_eq!(size_class(1 << 20), 8);
        assert_eq!(size_class(1 << 30), SIZE_CLASSES - 1);
        assert_eq!(class_label(0), "4K");
        assert_eq!(class_label(8), "1M");
        assert_eq!(class_label(SIZE_CLASSES - 1), ">1M");
    }
}
