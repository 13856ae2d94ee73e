//! Small deterministic SVG charts for the HTML pages (`zonesim report --html`, `zonesim
//! compare --html`): line / step charts with linear or log axes and bar charts. Drawn here
//! rather than with a plotting library so the pages are self-contained (no script, no network)
//! and byte-identical for the same report. Counts get integer ticks.

use std::fmt::Write;

const W: f64 = 640.0;
const H: f64 = 300.0;
const LEFT: f64 = 70.0;
const RIGHT: f64 = 20.0;
const TOP: f64 = 40.0;
const BOTTOM: f64 = 50.0;
/// Series colours, in order (colour-blind-safe Okabe-Ito palette).
const COLORS: [&str; 8] = [
    "#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442", "#000000",
];

/// One line of a chart.
pub struct Series {
    pub name: String,
    pub points: Vec<(f64, f64)>,
    /// Draw as a staircase (a CDF): horizontal to the next x, then vertical.
    pub step: bool,
}

/// An x-y chart.
pub struct Chart {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub series: Vec<Series>,
    /// Log-10 x axis (latencies); points with x <= 0 are dropped.
    pub x_log: bool,
    /// The y values are counts: integer ticks only.
    pub y_integer: bool,
    /// Fixed y range (a CDF: 0..1); otherwise 0 (or the minimum) up to the maximum.
    pub y_range: Option<(f64, f64)>,
}

/// Escapes text for HTML / SVG content and attributes.
pub fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            c => o.push(c),
        }
    }
    o
}

/// A number as a tick label: integers without a fraction, others with at most 3 significant
/// decimals, large values with k / M suffixes.
pub fn tick_label(v: f64) -> String {
    let a = v.abs();
    if a >= 1e9 {
        format!("{}G", trim(v / 1e9))
    } else if a >= 1e6 {
        format!("{}M", trim(v / 1e6))
    } else if a >= 1e4 {
        format!("{}k", trim(v / 1e3))
    } else {
        trim(v)
    }
}

fn trim(v: f64) -> String {
    let s = format!("{v:.3}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" {
        "0".to_string()
    } else {
        s.to_string()
    }
}

/// About five "nice" ticks (1, 2, 5 x 10^k steps) covering `[lo, hi]`; with `integer` the
/// step is at least 1, so counts never get fractional ticks.
pub fn nice_ticks(lo: f64, hi: f64, integer: bool) -> Vec<f64> {
    let span = (hi - lo).max(f64::MIN_POSITIVE);
    let raw = span / 5.0;
    let mag = 10f64.powf(raw.log10().floor());
    let mut step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * mag)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * mag);
    if integer {
        step = step.max(1.0).round();
    }
    let first = (lo / step).ceil() * step;
    let mut ticks = Vec::new();
    let mut i = 0;
    loop {
        let t = first + i as f64 * step;
        if t > hi + step * 1e-9 || i > 50 {
            break;
        }
        ticks.push(if t.abs() < step * 1e-9 { 0.0 } else { t });
        i += 1;
    }
    ticks
}

fn num(v: f64) -> String {
    format!("{v:.1}")
}

/// The chart as an inline `<svg>` element.
pub fn line_chart(c: &Chart) -> String {
    let tx = |x: f64| if c.x_log { x.log10() } else { x };
    let pts: Vec<Vec<(f64, f64)>> = c
        .series
        .iter()
        .map(|s| {
            s.points
                .iter()
                .filter(|(x, y)| x.is_finite() && y.is_finite() && (!c.x_log || *x > 0.0))
                .map(|&(x, y)| (tx(x), y))
                .collect()
        })
        .collect();
    let all: Vec<(f64, f64)> = pts.iter().flatten().copied().collect();
    let mut svg = open(&c.title);
    if all.is_empty() {
        let _ = write!(
            svg,
            r#"<text x="{}" y="{}" text-anchor="middle" class="empty">no data</text></svg>"#,
            W / 2.0,
            H / 2.0
        );
        return svg;
    }
    let (mut x0, mut x1) = minmax(all.iter().map(|p| p.0));
    if c.x_log {
        x0 = x0.floor();
        x1 = x1.ceil().max(x0 + 1.0);
    } else if x1 <= x0 {
        x1 = x0 + 1.0;
    }
    let (y0, y1) = match c.y_range {
        Some(r) => r,
        None => {
            let (lo, hi) = minmax(all.iter().map(|p| p.1));
            let lo = lo.min(0.0);
            let hi = if hi <= lo { lo + 1.0 } else { hi * 1.05 };
            (lo, hi)
        }
    };
    let sx = |x: f64| LEFT + (x - x0) / (x1 - x0) * (W - LEFT - RIGHT);
    let sy = |y: f64| H - BOTTOM - (y - y0) / (y1 - y0) * (H - TOP - BOTTOM);
    // Axes, grid and ticks.
    let yt = nice_ticks(y0, y1, c.y_integer);
    for t in &yt {
        let y = sy(*t);
        let _ = write!(
            svg,
            r#"<line class="grid" x1="{}" y1="{}" x2="{}" y2="{}"/><text x="{}" y="{}" text-anchor="end" class="tick">{}</text>"#,
            num(LEFT),
            num(y),
            num(W - RIGHT),
            num(y),
            num(LEFT - 6.0),
            num(y + 4.0),
            esc(&tick_label(*t))
        );
    }
    let xt: Vec<(f64, String)> = if c.x_log {
        (x0 as i64..=x1 as i64)
            .map(|e| (e as f64, tick_label(10f64.powi(e as i32))))
            .collect()
    } else {
        nice_ticks(x0, x1, false)
            .into_iter()
            .map(|t| (t, tick_label(t)))
            .collect()
    };
    for (t, label) in &xt {
        let x = sx(*t);
        let _ = write!(
            svg,
            r#"<line class="grid" x1="{}" y1="{}" x2="{}" y2="{}"/><text x="{}" y="{}" text-anchor="middle" class="tick">{}</text>"#,
            num(x),
            num(TOP),
            num(x),
            num(H - BOTTOM),
            num(x),
            num(H - BOTTOM + 16.0),
            esc(label)
        );
    }
    let _ = write!(
        svg,
        r#"<rect class="frame" x="{}" y="{}" width="{}" height="{}"/>"#,
        num(LEFT),
        num(TOP),
        num(W - LEFT - RIGHT),
        num(H - TOP - BOTTOM)
    );
    labels(&mut svg, &c.x_label, &c.y_label);
    // Series and legend.
    for (i, (s, p)) in c.series.iter().zip(&pts).enumerate() {
        let color = COLORS[i % COLORS.len()];
        let mut d = String::new();
        for (k, &(x, y)) in p.iter().enumerate() {
            if k == 0 {
                let _ = write!(d, "M{},{}", num(sx(x)), num(sy(y)));
            } else {
                if s.step {
                    let _ = write!(d, " H{}", num(sx(x)));
                }
                let _ = write!(d, " L{},{}", num(sx(x)), num(sy(y)));
            }
        }
        if p.len() == 1 {
            let (x, y) = p[0];
            let _ = write!(
                svg,
                r#"<circle cx="{}" cy="{}" r="3" fill="{color}"/>"#,
                num(sx(x)),
                num(sy(y))
            );
        }
        let _ = write!(
            svg,
            r#"<path d="{d}" fill="none" stroke="{color}" stroke-width="1.5"/>"#
        );
        let ly = TOP + 14.0 + 14.0 * i as f64;
        let _ = write!(
            svg,
            r#"<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="{color}" stroke-width="2"/><text x="{}" y="{}" class="legend">{}</text>"#,
            num(LEFT + 8.0),
            num(ly - 4.0),
            num(LEFT + 24.0),
            num(ly - 4.0),
            num(LEFT + 28.0),
            num(ly),
            esc(&s.name)
        );
    }
    svg.push_str("</svg>");
    svg
}

/// A bar chart of counts (integer ticks).
pub fn bar_chart(title: &str, y_label: &str, bars: &[(String, f64)]) -> String {
    let mut svg = open(title);
    if bars.is_empty() {
        let _ = write!(
            svg,
            r#"<text x="{}" y="{}" text-anchor="middle" class="empty">no data</text></svg>"#,
            W / 2.0,
            H / 2.0
        );
        return svg;
    }
    let max = bars.iter().map(|b| b.1).fold(0.0, f64::max);
    let y1 = if max <= 0.0 { 1.0 } else { max * 1.05 };
    let sy = |y: f64| H - BOTTOM - y / y1 * (H - TOP - BOTTOM);
    for t in nice_ticks(0.0, y1, true) {
        let y = sy(t);
        let _ = write!(
            svg,
            r#"<line class="grid" x1="{}" y1="{}" x2="{}" y2="{}"/><text x="{}" y="{}" text-anchor="end" class="tick">{}</text>"#,
            num(LEFT),
            num(y),
            num(W - RIGHT),
            num(y),
            num(LEFT - 6.0),
            num(y + 4.0),
            esc(&tick_label(t))
        );
    }
    let slot = (W - LEFT - RIGHT) / bars.len() as f64;
    for (i, (name, v)) in bars.iter().enumerate() {
        let x = LEFT + slot * i as f64 + slot * 0.15;
        let y = sy(*v);
        let _ = write!(
            svg,
            r#"<rect x="{}" y="{}" width="{}" height="{}" fill="{}"><title>{}: {}</title></rect><text x="{}" y="{}" text-anchor="middle" class="tick">{}</text><text x="{}" y="{}" text-anchor="middle" class="tick">{}</text>"#,
            num(x),
            num(y),
            num(slot * 0.7),
            num(H - BOTTOM - y),
            COLORS[i % COLORS.len()],
            esc(name),
            esc(&trim(*v)),
            num(x + slot * 0.35),
            num(H - BOTTOM + 16.0),
            esc(name),
            num(x + slot * 0.35),
            num(y - 4.0),
            esc(&trim(*v))
        );
    }
    let _ = write!(
        svg,
        r#"<rect class="frame" x="{}" y="{}" width="{}" height="{}"/>"#,
        num(LEFT),
        num(TOP),
        num(W - LEFT - RIGHT),
        num(H - TOP - BOTTOM)
    );
    labels(&mut svg, "", y_label);
    svg.push_str("</svg>");
    svg
}

fn open(title: &str) -> String {
    format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" class="chart" width="{W}" height="{H}" viewBox="0 0 {W} {H}" role="img"><title>{t}</title><text x="{}" y="20" text-anchor="middle" class="title">{t}</text>"#,
        W / 2.0,
        t = esc(title)
    )
}

fn labels(svg: &mut String, x_label: &str, y_label: &str) {
    let _ = write!(
        svg,
        r#"<text x="{}" y="{}" text-anchor="middle" class="axis">{}</text><text transform="translate(16,{}) rotate(-90)" text-anchor="middle" class="axis">{}</text>"#,
        num((LEFT + W - RIGHT) / 2.0),
        num(H - 12.0),
        esc(x_label),
        num((TOP + H - BOTTOM) / 2.0),
        esc(y_label)
    );
}

fn minmax(it: impl Iterator<Item = f64>) -> (f64, f64) {
    it.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
        (a.min(v), b.max(v))
    })
}

/// The CSS the pages share.
pub const STYLE: &str = "body{font-family:sans-serif;margin:24px;color:#222;max-width:1400px}\
h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.6em;border-bottom:1px solid #ccc}\
table{border-collapse:collapse;font-size:0.85em;margin:8px 0}\
td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}\
td:first-child,th:first-child,td.l{text-align:left}\
.chart{margin:6px;border:1px solid #eee;background:#fff}\
.grid{stroke:#e4e4e4}.frame{fill:none;stroke:#888}\
.tick{font-size:10px;fill:#444}.axis{font-size:11px;fill:#222}.legend{font-size:11px}\
.title{font-size:13px;font-weight:bold}.empty{font-size:14px;fill:#999}.note{color:#666}";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_ticks_for_counts() {
        let t = nice_ticks(0.0, 3.15, true);
        assert_eq!(t, vec![0.0, 1.0, 2.0, 3.0]);
        assert!(t.iter().all(|v| v.fract() == 0.0));
        let t = nice_ticks(0.0, 1.0, false);
        assert_eq!(t.len(), 6);
    }

    #[test]
    fn labels_and_escaping() {
        assert_eq!(tick_label(25000.0), "25k");
        assert_eq!(tick_label(0.5), "0.5");
        assert_eq!(tick_label(3.0), "3");
        assert_eq!(esc("a<b&\"c\""), "a&lt;b&amp;&quot;c&quot;");
    }

    #[test]
    fn charts_are_deterministic_and_handle_no_data() {
        let c = Chart {
            title: "t".into(),
            x_label: "x".into(),
            y_label: "y".into(),
            series: vec![Series {
                name: "s".into(),
                points: vec![(1.0, 0.5), (10.0, 1.0)],
                step: true,
            }],
            x_log: true,
            y_integer: false,
            y_range: Some((0.0, 1.0)),
        };
        assert_eq!(line_chart(&c), line_chart(&c));
        assert!(line_chart(&c).contains("<path"));
        let empty = Chart {
            series: vec![],
            ..c
        };
        assert!(line_chart(&empty).contains("no data"));
        assert!(bar_chart("b", "n", &[]).contains("no data"));
    }
}
