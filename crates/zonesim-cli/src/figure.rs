//! A figure of stacked panels (`zonesim trace plot`), drawn as SVG or as a PNG image. Both are
//! rendered here, without a plotting library: the PNG from a small RGB raster with the 8x8
//! bitmap font of the `font8x8` crate (public domain glyphs, MIT crate) and zlib compression by
//! `miniz_oxide`; the same figure always gives the same bytes.

use crate::svg::{esc, nice_ticks, tick_label};
use std::fmt::Write;

pub type Rgb = [u8; 3];

/// What a panel draws, in data coordinates.
pub enum Mark {
    /// A small square (scatter plots).
    Dot { x: f64, y: f64, color: Rgb },
    /// A polyline.
    Line { points: Vec<(f64, f64)>, color: Rgb },
    /// A bar from y = 0 to `y` over `[x0, x1]`.
    Bar {
        x0: f64,
        x1: f64,
        y: f64,
        color: Rgb,
    },
}

/// One panel: axes, ticks and marks.
pub struct Panel {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub x: (f64, f64),
    pub y: (f64, f64),
    /// Tick positions with their labels.
    pub x_ticks: Vec<(f64, String)>,
    pub y_ticks: Vec<(f64, String)>,
    pub marks: Vec<Mark>,
    pub legend: Vec<(String, Rgb)>,
}

/// Ticks over a range with labels (integers only with `integer`).
pub fn ticks(lo: f64, hi: f64, integer: bool) -> Vec<(f64, String)> {
    nice_ticks(lo, hi, integer)
        .into_iter()
        .map(|t| (t, tick_label(t)))
        .collect()
}

pub const WIDTH: usize = 1000;
const PANEL_H: usize = 300;
const LEFT: usize = 80;
const RIGHT: usize = 20;
const TOP: usize = 50;
const BOTTOM: usize = 45;

/// A figure: a title and panels stacked vertically.
pub struct Figure {
    pub title: String,
    pub panels: Vec<Panel>,
}

struct Frame {
    x0: f64,
    y0: f64,
    w: f64,
    h: f64,
}

impl Frame {
    fn of(p: &Panel, i: usize) -> (Frame, impl Fn(f64) -> f64 + '_, impl Fn(f64) -> f64 + '_) {
        let top = (TOP + i * PANEL_H + 30) as f64;
        let f = Frame {
            x0: LEFT as f64,
            y0: top,
            w: (WIDTH - LEFT - RIGHT) as f64,
            h: (PANEL_H - 30 - BOTTOM) as f64,
        };
        let (x0, w, y0, h) = (f.x0, f.w, f.y0, f.h);
        let sx = move |x: f64| x0 + (x - p.x.0) / (p.x.1 - p.x.0).max(f64::MIN_POSITIVE) * w;
        let sy = move |y: f64| y0 + h - (y - p.y.0) / (p.y.1 - p.y.0).max(f64::MIN_POSITIVE) * h;
        (f, sx, sy)
    }
}

fn height(fig: &Figure) -> usize {
    TOP + fig.panels.len() * PANEL_H
}

fn hex(c: Rgb) -> String {
    format!("#{:02x}{:02x}{:02x}", c[0], c[1], c[2])
}

/// The figure as an SVG document.
pub fn svg(fig: &Figure) -> String {
    let h = height(fig);
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{WIDTH}\" height=\"{h}\" viewBox=\"0 0 {WIDTH} {h}\" font-family=\"sans-serif\"><rect width=\"100%\" height=\"100%\" fill=\"#fff\"/><text x=\"{}\" y=\"28\" text-anchor=\"middle\" font-size=\"16\" font-weight=\"bold\">{}</text>",
        WIDTH / 2,
        esc(&fig.title)
    );
    for (i, p) in fig.panels.iter().enumerate() {
        let (f, sx, sy) = Frame::of(p, i);
        let _ = write!(
            s,
            "<text x=\"{}\" y=\"{:.1}\" text-anchor=\"middle\" font-size=\"13\" font-weight=\"bold\">{}</text>",
            WIDTH / 2,
            f.y0 - 10.0,
            esc(&p.title)
        );
        for (t, l) in &p.y_ticks {
            let y = sy(*t);
            let _ = write!(s, "<line x1=\"{:.1}\" y1=\"{y:.1}\" x2=\"{:.1}\" y2=\"{y:.1}\" stroke=\"#e4e4e4\"/><text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\" font-size=\"10\">{}</text>", f.x0, f.x0 + f.w, f.x0 - 5.0, y + 4.0, esc(l));
        }
        for (t, l) in &p.x_ticks {
            let x = sx(*t);
            let _ = write!(s, "<line x1=\"{x:.1}\" y1=\"{:.1}\" x2=\"{x:.1}\" y2=\"{:.1}\" stroke=\"#e4e4e4\"/><text x=\"{x:.1}\" y=\"{:.1}\" text-anchor=\"middle\" font-size=\"10\">{}</text>", f.y0, f.y0 + f.h, f.y0 + f.h + 14.0, esc(l));
        }
        for m in &p.marks {
            match m {
                Mark::Dot { x, y, color } => {
                    let _ = write!(
                        s,
                        "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"2\" height=\"2\" fill=\"{}\"/>",
                        sx(*x) - 1.0,
                        sy(*y) - 1.0,
                        hex(*color)
                    );
                }
                Mark::Line { points, color } => {
                    let d: Vec<String> = points
                        .iter()
                        .map(|(x, y)| format!("{:.1},{:.1}", sx(*x), sy(*y)))
                        .collect();
                    let _ = write!(
                        s,
                        "<polyline points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"1.5\"/>",
                        d.join(" "),
                        hex(*color)
                    );
                }
                Mark::Bar { x0, x1, y, color } => {
                    let (a, b) = (sx(*x0), sx(*x1));
                    let _ = write!(
                        s,
                        "<rect x=\"{a:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"{}\"/>",
                        sy(*y),
                        b - a,
                        sy(p.y.0) - sy(*y),
                        hex(*color)
                    );
                }
            }
        }
        let _ = write!(s, "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"none\" stroke=\"#888\"/>", f.x0, f.y0, f.w, f.h);
        let _ = write!(s, "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" font-size=\"11\">{}</text><text transform=\"translate(14,{:.1}) rotate(-90)\" text-anchor=\"middle\" font-size=\"11\">{}</text>", f.x0 + f.w / 2.0, f.y0 + f.h + 32.0, esc(&p.x_label), f.y0 + f.h / 2.0, esc(&p.y_label));
        if !p.legend.is_empty() {
            let _ = write!(s, "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"124\" height=\"{:.1}\" fill=\"#fff\" opacity=\"0.85\"/>", f.x0 + f.w - 126.0, f.y0 + 2.0, 6.0 + 14.0 * p.legend.len() as f64);
        }
        for (k, (name, c)) in p.legend.iter().enumerate() {
            let x = f.x0 + f.w - 120.0;
            let y = f.y0 + 14.0 + 14.0 * k as f64;
            let _ = write!(s, "<rect x=\"{x:.1}\" y=\"{:.1}\" width=\"10\" height=\"10\" fill=\"{}\"/><text x=\"{:.1}\" y=\"{y:.1}\" font-size=\"11\">{}</text>", y - 9.0, hex(*c), x + 14.0, esc(name));
        }
    }
    s + "</svg>\n"
}

/// An RGB raster.
struct Canvas {
    w: usize,
    h: usize,
    px: Vec<u8>,
}

impl Canvas {
    fn set(&mut self, x: i64, y: i64, c: Rgb) {
        if x >= 0 && y >= 0 && (x as usize) < self.w && (y as usize) < self.h {
            let i = (y as usize * self.w + x as usize) * 3;
            self.px[i..i + 3].copy_from_slice(&c);
        }
    }
    fn rect(&mut self, x0: f64, y0: f64, x1: f64, y1: f64, c: Rgb) {
        let (xa, xb) = (x0.min(x1).round() as i64, x0.max(x1).round() as i64);
        let (ya, yb) = (y0.min(y1).round() as i64, y0.max(y1).round() as i64);
        for y in ya..=yb {
            for x in xa..=xb {
                self.set(x, y, c);
            }
        }
    }
    fn line(&mut self, (x0, y0): (f64, f64), (x1, y1): (f64, f64), c: Rgb) {
        let n = ((x1 - x0).abs().max((y1 - y0).abs()).ceil() as usize).max(1);
        for k in 0..=n {
            let t = k as f64 / n as f64;
            let (x, y) = (x0 + (x1 - x0) * t, y0 + (y1 - y0) * t);
            self.set(x.round() as i64, y.round() as i64, c);
            self.set(x.round() as i64, y.round() as i64 + 1, c);
        }
    }
    /// 8x8 bitmap text; `anchor` 0 left, 1 centre, 2 right; `vertical` rotates it 90° left.
    fn text(&mut self, x: f64, y: f64, s: &str, anchor: u8, vertical: bool, c: Rgb) {
        let len = s.chars().count() as f64 * 8.0;
        let start = x - len * anchor as f64 / 2.0;
        for (k, ch) in s.chars().enumerate() {
            let glyph = font8x8::legacy::BASIC_LEGACY
                .get(ch as usize)
                .copied()
                .unwrap_or(font8x8::legacy::BASIC_LEGACY[b'?' as usize]);
            for (row, bits) in glyph.iter().enumerate() {
                for col in 0..8 {
                    if bits >> col & 1 == 1 {
                        let (dx, dy) = (k as f64 * 8.0 + col as f64, row as f64 - 7.0);
                        if vertical {
                            // Rotated: text runs upwards from (x, y + len / 2).
                            self.set(
                                (x + dy).round() as i64,
                                (y + len * anchor as f64 / 2.0 - dx).round() as i64,
                                c,
                            );
                        } else {
                            self.set((start + dx).round() as i64, (y + dy).round() as i64, c);
                        }
                    }
                }
            }
        }
    }
}

const BLACK: Rgb = [0, 0, 0];
const GRID: Rgb = [228, 228, 228];
const FRAME: Rgb = [136, 136, 136];

/// The figure as a PNG image (8-bit RGB).
pub fn png(fig: &Figure) -> Vec<u8> {
    let mut c = Canvas {
        w: WIDTH,
        h: height(fig),
        px: vec![255; WIDTH * height(fig) * 3],
    };
    c.text((WIDTH / 2) as f64, 30.0, &fig.title, 1, false, BLACK);
    for (i, p) in fig.panels.iter().enumerate() {
        let (f, sx, sy) = Frame::of(p, i);
        c.text((WIDTH / 2) as f64, f.y0 - 8.0, &p.title, 1, false, BLACK);
        for (t, l) in &p.y_ticks {
            let y = sy(*t);
            c.line((f.x0, y), (f.x0 + f.w, y), GRID);
            c.text(f.x0 - 5.0, y + 4.0, l, 2, false, BLACK);
        }
        for (t, l) in &p.x_ticks {
            let x = sx(*t);
            c.line((x, f.y0), (x, f.y0 + f.h), GRID);
            c.text(x, f.y0 + f.h + 16.0, l, 1, false, BLACK);
        }
        for m in &p.marks {
            match m {
                Mark::Dot { x, y, color } => {
                    let (x, y) = (sx(*x), sy(*y));
                    c.rect(x - 1.0, y - 1.0, x, y, *color);
                }
                Mark::Line { points, color } => {
                    for w in points.windows(2) {
                        c.line((sx(w[0].0), sy(w[0].1)), (sx(w[1].0), sy(w[1].1)), *color);
                    }
                }
                Mark::Bar { x0, x1, y, color } => {
                    c.rect(sx(*x0), sy(*y), sx(*x1) - 1.0, sy(p.y.0), *color);
                }
            }
        }
        let (l, t, r, b) = (f.x0, f.y0, f.x0 + f.w, f.y0 + f.h);
        c.line((l, t), (r, t), FRAME);
        c.line((l, b), (r, b), FRAME);
        c.line((l, t), (l, b), FRAME);
        c.line((r, t), (r, b), FRAME);
        c.text(l + f.w / 2.0, b + 34.0, &p.x_label, 1, false, BLACK);
        c.text(18.0, t + f.h / 2.0, &p.y_label, 1, true, BLACK);
        if !p.legend.is_empty() {
            let bottom = t + 20.0 + 14.0 * p.legend.len() as f64;
            c.rect(r - 136.0, t + 4.0, r - 4.0, bottom, [255, 255, 255]);
        }
        for (k, (name, col)) in p.legend.iter().enumerate() {
            let x = r - 130.0;
            let y = t + 16.0 + 14.0 * k as f64;
            c.rect(x, y - 9.0, x + 9.0, y, *col);
            c.text(x + 14.0, y, name, 0, false, BLACK);
        }
    }
    encode_png(c.w, c.h, &c.px)
}

/// PNG of 8-bit RGB pixels: signature, IHDR, one zlib IDAT (filter 0 on every row), IEND.
fn encode_png(w: usize, h: usize, px: &[u8]) -> Vec<u8> {
    let mut raw = Vec::with_capacity(h * (w * 3 + 1));
    for row in px.chunks(w * 3) {
        raw.push(0);
        raw.extend_from_slice(row);
    }
    let mut out = vec![0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a];
    let mut ihdr = Vec::new();
    ihdr.extend_from_slice(&(w as u32).to_be_bytes());
    ihdr.extend_from_slice(&(h as u32).to_be_bytes());
    ihdr.extend_from_slice(&[8, 2, 0, 0, 0]);
    chunk(&mut out, b"IHDR", &ihdr);
    chunk(
        &mut out,
        b"IDAT",
        &miniz_oxide::deflate::compress_to_vec_zlib(&raw, 6),
    );
    chunk(&mut out, b"IEND", &[]);
    out
}

fn chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    out.extend_from_slice(&(data.len() as u32).to_be_bytes());
    out.extend_from_slice(kind);
    out.extend_from_slice(data);
    let mut crc = crc32(kind, 0xffff_ffff);
    crc = crc32(data, crc);
    out.extend_from_slice(&(crc ^ 0xffff_ffff).to_be_bytes());
}

/// CRC-32 (ISO 3309, as PNG uses), bitwise.
fn crc32(data: &[u8], mut crc: u32) -> u32 {
    for &b in data {
        crc ^= b as u32;
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                0xedb8_8320 ^ (crc >> 1)
            } else {
                crc >> 1
            };
        }
    }
    crc
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fig() -> Figure {
        Figure {
            title: "t".into(),
            panels: vec![Panel {
                title: "p".into(),
                x_label: "x".into(),
                y_label: "y".into(),
                x: (0.0, 10.0),
                y: (0.0, 5.0),
                x_ticks: ticks(0.0, 10.0, false),
                y_ticks: ticks(0.0, 5.0, true),
                marks: vec![
                    Mark::Dot {
                        x: 1.0,
                        y: 1.0,
                        color: [255, 0, 0],
                    },
                    Mark::Bar {
                        x0: 2.0,
                        x1: 3.0,
                        y: 4.0,
                        color: [0, 0, 255],
                    },
                ],
                legend: vec![("r".into(), [255, 0, 0])],
            }],
        }
    }

    #[test]
    fn png_is_well_formed_and_deterministic() {
        let a = png(&fig());
        assert_eq!(&a[..8], &[0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a]);
        assert_eq!(&a[12..16], b"IHDR");
        assert_eq!(a, png(&fig()));
        // The CRC of the IEND chunk is fixed.
        assert_eq!(&a[a.len() - 4..], &[0xae, 0x42, 0x60, 0x82]);
        let raw = miniz_oxide::inflate::decompress_to_vec_zlib(&a[41..a.len() - 12 - 4])
            .expect("IDAT inflates");
        assert_eq!(raw.len(), height(&fig()) * (WIDTH * 3 + 1));
        assert!(raw.iter().any(|&b| b != 255 && b != 0), "something drawn");
    }

    #[test]
    fn svg_has_every_mark() {
        let s = svg(&fig());
        assert!(s.starts_with("<svg") && s.contains("fill=\"#ff0000\"") && s.contains("#0000ff"));
    }
}
