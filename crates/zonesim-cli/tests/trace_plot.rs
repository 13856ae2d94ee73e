//! `zonesim trace plot`: PNG and SVG images of a trace, in any format the readers take.

mod common;

use common::{dir, ok, repo, s, zonesim};

#[test]
fn trace_plot_writes_png_and_svg_for_any_trace_format() {
    let d = dir("trace-plot");
    let trace = repo().join("tests/fixtures/traces/tpcc-small.trace");
    let png = d.join("t.png");
    let out = zonesim(&["trace", "plot", s(&trace), "--out", s(&png)]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let bytes = std::fs::read(&png).unwrap();
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
    assert!(bytes.len() > 5000, "{} bytes", bytes.len());
    let again = d.join("again.png");
    ok(&["trace", "plot", s(&trace), "--out", s(&again)]);
    assert_eq!(bytes, std::fs::read(&again).unwrap(), "deterministic");
    // The same trace in another format (fio iolog), as SVG.
    let iolog = d.join("t.iolog");
    ok(&[
        "trace",
        "convert",
        s(&trace),
        "--to",
        "iolog",
        "-o",
        s(&iolog),
    ]);
    let svg = d.join("t.svg");
    ok(&["trace", "plot", s(&iolog), "--out", s(&svg)]);
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.starts_with("<svg") && text.contains("t.iolog"));
    assert!(
        text.contains("read (4381)") && text.contains("write (2618)"),
        "legend counts"
    );
    let out = zonesim(&["trace", "plot", s(&trace), "--out", s(&d.join("t.gif"))]);
    assert_eq!(out.status.code(), Some(2));
}
