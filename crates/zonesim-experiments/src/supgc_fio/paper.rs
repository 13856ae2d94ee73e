//! What SUP-GC §5.3.2 quotes: the changes at 700 GB after Figs. 15-18, the GC onsets of Figs.
//! 15-17, and the band a quoted change is checked in.

/// SUP-GC's changes at 700 GB as the text after each figure quotes them, percent: (write
/// ratio, figure, [vs Cosmos+, vs BF-Optimized, vs GCaR-Optimized] x [IOPS, erases, GC page
/// moves, p99]).
pub(super) type Quad = [Option<f64>; 4];
pub(crate) const PAPER: [(u32, u32, [Quad; 3]); 4] = [
    (
        25,
        15,
        [
            [Some(15.7), Some(-5.7), Some(-15.2), Some(-70.2)],
            [Some(11.5), Some(-5.2), Some(-14.3), Some(-7.4)],
            [Some(17.5), Some(-5.6), Some(-15.2), Some(-68.9)],
        ],
    ),
    (
        50,
        16,
        [
            [Some(35.1), Some(-22.1), Some(-44.7), Some(-87.2)],
            [Some(10.1), Some(-2.0), Some(-5.6), Some(-68.3)],
            [Some(35.2), Some(-22.0), Some(-44.6), Some(-87.2)],
        ],
    ),
    (
        75,
        17,
        [
            [Some(73.5), Some(-35.0), Some(-65.9), Some(-87.2)],
            [Some(72.6), Some(-32.7), Some(-63.7), Some(-68.3)],
            [Some(75.6), Some(-35.3), Some(-66.1), Some(-87.2)],
        ],
    ),
    (
        99,
        18,
        [
            [Some(57.9), Some(-22.5), None, None],
            [Some(69.9), Some(-28.3), None, None],
            [Some(59.8), Some(-22.6), None, None],
        ],
    ),
];

/// GC onset of Figs. 15-17: (write ratio, figure, data volume in GB on the 1 TB Cosmos+).
pub(crate) const ONSET: [(u32, u32, f64); 3] = [(25, 15, 500.0), (50, 16, 300.0), (75, 17, 200.0)];

/// The band of a SUP-GC change the paper quotes: 30 % of its value, at least 3 points.
pub(crate) fn band(reference: f64) -> f64 {
    ((0.3 * reference.abs()).max(3.0) * 100.0).round() / 100.0
}
