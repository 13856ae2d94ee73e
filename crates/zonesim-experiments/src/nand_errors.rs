//! `nand-errors`: the bit-error model of `nand.errors` (docs/nand.md) against its sources, by
//! simulating a flash array of the `mcmq-2022` device (2-bit MLC, 8 KiB pages): blocks are
//! erased by the array to their P/E count, read by it, and aged in simulated time, and what
//! the array books and counts is reported.
//!
//! The RBER curve: one block per P/E count (0 to 10,000), erased that often, read once; its
//! RBER as the array estimates it (`NandArray::rber_estimate`) beside the published model's
//! value at the same wear (Liu et al., FAST'12, Eq. 1 with SimpleSSD 2.0's 2y-nm MLC fit: the
//! source of the defaults), and the direction Cai et al. (Proc. IEEE 2017, §III-A) measured:
//! the raw bit error rate rises with P/E cycles. The retry-count distribution: 3,000 P/E
//! cycles (the rating of 2y-nm MLC) and growing retention, each read of a page decoded by the
//! ECC of `[nand.ecc]`: the share of reads that needed a retry, the mean steps, soft decodes
//! and uncorrectable reads, and the read latency they cost (Cai et al. §V-B: read-retry
//! re-reads with shifted references as retention shifts the threshold voltages; more steps
//! the longer the data sat).

use super::{row_dir, row_info, row_rel, ExpOptions, Outcome, Row};
use zonesim::config::DeviceConfig;
use zonesim::engine::SimTime;
use zonesim::error::Result;
use zonesim::nand::{rber_of, FlashPage, NandArray, OpClass};

const SRC_MODEL: &str = "Liu et al., FAST'12, Eq. 1 (RBER = ε + α·c^k + β·c^m·t^n) with SimpleSSD 2.0's read-disturb term and 2y-nm MLC parameters (ε 8.34e-5, α 3.30e-11, k 1.71, β 5.56e-19, m 2.49, n 3.33, γ 6.26e-13, p 1.76, q 0.47)";
const SRC_CAI: &str = "Cai et al., \"Error Characterization, Mitigation, and Recovery in Flash-Memory-Based Solid-State Drives\", Proc. IEEE 105(9), 2017, §III-A (P/E cycling errors) and §V-B (read-retry)";

/// The array of `mcmq-2022` with `nand.errors` on and `sets`.
fn device(sets: &[String]) -> Result<DeviceConfig> {
    let mut all = vec![
        "nand.blocks_per_plane=256".to_string(),
        "nand.errors=true".into(),
    ];
    all.extend_from_slice(sets);
    zonesim::load_device("mcmq-2022", &all)
}

fn page(block: u32, page: u32) -> FlashPage {
    FlashPage {
        die: 0,
        plane: 0,
        block,
        page,
    }
}

/// RBER of a block erased `pe` times and read once, as the array estimates it.
fn rber_at(pe: u32) -> Result<f64> {
    let cfg = device(&[])?;
    let mut a = NandArray::with_seed(&cfg, 1);
    let mut t = SimTime::from_us(1.0);
    for _ in 0..pe {
        t = a.erase(t, 0, 0, cfg.nand.cell, OpClass::Background);
    }
    a.read_block(t, page(0, 0), 8192, cfg.nand.cell, OpClass::HostRead);
    Ok(a.rber_estimate(0, 0, 0).unwrap_or(f64::NAN))
}

/// What reads met at 3,000 P/E cycles after `days` of retention.
struct Retries {
    with_retry: f64,
    mean: f64,
    soft: f64,
    uncorrectable: f64,
    latency_us: f64,
}

/// `reads` page reads spread over 64 blocks of 3,000 P/E cycles (one erase counted as 3,000)
/// after `days` on the shelf, each on an idle die.
fn retries_at(days: f64, reads: u32, seed: u64) -> Result<Retries> {
    let cfg = device(&[
        "nand.rber.pe_scale=3000".into(),
        format!("nand.rber.retention_days={days}"),
    ])?;
    let cell = cfg.nand.cell;
    let mut a = NandArray::with_seed(&cfg, seed);
    let mut t = SimTime::from_us(1.0);
    for b in 0..64 {
        t = a.erase(t, 0, b, cell, OpClass::Background);
    }
    let mut busy = 0u64;
    for k in 0..reads {
        let start = t;
        a.advance(t);
        t = a.read_block(
            start,
            page(k % 64, k / 64 % 128),
            8192,
            cell,
            OpClass::HostRead,
        );
        busy += t.since(start);
        t += 1_000_000;
    }
    let c = a.error_counters().expect("nand.errors on");
    let n = c.checked_reads as f64;
    Ok(Retries {
        with_retry: (c.checked_reads - c.retry_histogram[0]) as f64 / n,
        mean: c.read_retries as f64 / n,
        soft: c.soft_decodes as f64 / n,
        uncorrectable: c.uncorrectable_reads as f64 / n,
        latency_us: busy as f64 / n / 1000.0,
    })
}

pub fn run_exp(o: &ExpOptions) -> Result<Outcome> {
    let model = device(&[])?.nand.rber;
    let mut rows: Vec<Row> = Vec::new();
    let pes = [0u32, 1000, 3000, 5000, 10000];
    let mut curve = Vec::new();
    for &pe in &pes {
        let ours = rber_at(pe)?;
        curve.push(ours);
        let theirs = rber_of(&model, pe as f64, 0.0, 1.0);
        rows.push(
            row_rel(
                &format!("{pe} P/E cycles, fresh data"),
                "RBER x 1e4",
                ours * 1e4,
                theirs * 1e4,
                0.001,
            )
                .src(SRC_MODEL)
                .structural("the block's state (erase count, reads) is the array's; its RBER is the model's equation at that state"),
        );
    }
    rows.push(
        row_dir(
            "RBER at 10,000 vs 0 P/E cycles",
            "ratio - 1",
            curve[4] / curve[0] - 1.0,
            true,
        )
        .src(SRC_CAI),
    );
    let reads = if o.quick() { 4000 } else { 40000 };
    let mut means = Vec::new();
    let mut lat = Vec::new();
    for days in [0.0, 90.0, 150.0, 180.0, 240.0, 365.0] {
        let r = retries_at(days, reads, o.seed)?;
        let case = format!("3,000 P/E, {days} days retention");
        rows.push(row_info(&case, "reads with a retry step %", 100.0 * r.with_retry).src(SRC_CAI));
        rows.push(row_info(&case, "retry steps per read", r.mean).src(SRC_CAI));
        rows.push(row_info(&case, "soft decodes %", 100.0 * r.soft).src(SRC_CAI));
        rows.push(row_info(&case, "uncorrectable reads %", 100.0 * r.uncorrectable).src(SRC_CAI));
        rows.push(row_info(
            &case,
            "read latency us (sense + transfer + retries)",
            r.latency_us,
        ));
        means.push(r.mean);
        lat.push(r.latency_us);
    }
    rows.push(
        row_dir(
            "retry steps per read, 365 vs 90 days at 3,000 P/E",
            "difference",
            means[5] - means[1],
            true,
        )
        .src(SRC_CAI),
    );
    rows.push(
        row_dir(
            "read latency, 365 days vs fresh at 3,000 P/E",
            "difference us",
            lat[5] - lat[0],
            true,
        )
        .src(SRC_CAI),
    );
    Ok(Outcome {
        name: "nand-errors".into(),
        title: "Bit errors, ECC and read retry: RBER vs P/E cycles and the retry-count distribution".into(),
        source: "Liu et al. FAST'12 / SimpleSSD 2.0 (model and fit); Cai et al. Proc. IEEE 2017 (directions)".into(),
        rows,
        notes: vec![
            "RBER rows: one block of the mcmq-2022 array (MLC) erased by the array 0 to 10,000 times and read once; the array's estimate beside the model's equation at the same erase count and reads (no retention).".into(),
            format!("Retry rows: {reads} reads of 8 KiB pages (8 codewords of 1 KiB) over 64 blocks aged to 3,000 P/E cycles, with nand.rber.retention_days as shelf time; ECC defaults: 40 bits per codeword hard, up to 8 retry steps each leaving half the retention and disturb errors, LDPC soft decode to 100 bits with 4 extra senses and 20 us. Seeded draws (seed {}).", o.seed),
            "Cai et al. give no numbers at these points for this chip: the rows against them are directions (errors rise with wear; retries rise with retention and cost read latency).".into(),
        ],
    })
}
