//! `zonesim bench --against OTHER`: this build's bench cases against another build's, in one
//! run. Each round runs every selected case once with each binary, each in its own child
//! process (`bench --row --markdown --only NAME`), and the binaries take turns going first, so
//! a slow spell of a shared machine falls on both. Per case it prints the medians of requests
//! per CPU second of the measured phase, their ratio, and the ratio of the fastest rounds: the
//! runs are deterministic, so other work on the machine only adds time, and the fastest round
//! is the steadiest estimate of a build's own cost (the medians are the conservative one).

use super::bench::{run_child, BenchArgs};
use anyhow::Result;
use std::path::Path;

/// One case's figures from one child run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sample {
    pub cpu_rate: f64,
    pub peak_mib: f64,
}

/// The figures of a row printed by `bench --row --markdown`:
/// `| case | requests | wall s | requests/s | requests/CPU s | peak MiB | what |`.
pub fn parse_row(line: &str, case: &str) -> Option<Sample> {
    let cells: Vec<&str> = line.split('|').map(str::trim).collect();
    // A leading empty cell (before the first `|`), then the seven columns.
    if cells.len() < 8 || cells[1] != case {
        return None;
    }
    Some(Sample {
        cpu_rate: cells[5].parse().ok()?,
        peak_mib: cells[6].parse().ok()?,
    })
}

/// Median of `v` (not empty); the mean of the middle two for an even count.
fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let n = s.len();
    if n % 2 == 1 {
        s[n / 2]
    } else {
        (s[n / 2 - 1] + s[n / 2]) / 2.0
    }
}

/// One case's comparison over the rounds.
#[derive(Debug, Clone, PartialEq)]
pub struct Compared {
    pub this: f64,
    pub other: f64,
    /// Ratio of the medians, this / other (above 1: this build is faster).
    pub ratio_median: f64,
    /// Ratio of the fastest rounds (the highest rates), this / other.
    pub ratio_fastest: f64,
    pub peak_this: f64,
    pub peak_other: f64,
}

pub fn compare(this: &[Sample], other: &[Sample]) -> Compared {
    let rate = |s: &[Sample]| s.iter().map(|x| x.cpu_rate).collect::<Vec<_>>();
    let peak = |s: &[Sample]| median(&s.iter().map(|x| x.peak_mib).collect::<Vec<_>>());
    let (a, b) = (rate(this), rate(other));
    let best = |v: &[f64]| v.iter().copied().fold(0.0, f64::max);
    let (ma, mb) = (median(&a), median(&b));
    Compared {
        this: ma,
        other: mb,
        ratio_median: ma / mb,
        ratio_fastest: best(&a) / best(&b),
        peak_this: peak(this),
        peak_other: peak(other),
    }
}

/// Run case `name` once with `exe` in a child process (`bench::run_child`); its figures.
fn sample(exe: &Path, a: &BenchArgs, name: &str) -> Result<Sample> {
    let text = run_child(exe, a, name, true).map_err(|e| match e.downcast::<std::io::Error>() {
        // The binary did not start: the path given is not a runnable build.
        Ok(io) => zonesim::Error::Usage(format!("--against {}: {io}", exe.display())).into(),
        Err(e) => anyhow::anyhow!("{}: {e}", exe.display()),
    })?;
    text.lines()
        .find_map(|l| parse_row(l, name))
        .ok_or_else(|| {
            anyhow::anyhow!(
                "{}: bench case {name} printed no row this build can read",
                exe.display()
            )
        })
}

/// Compare the cases `names` of this binary with `other`'s (`--against`) over `--rounds`
/// rounds; prints the table.
pub fn run(a: &BenchArgs, names: &[&str], other: &Path) -> Result<()> {
    let rounds = a.rounds;
    let this = std::env::current_exe()?;
    if !other.is_file() {
        return Err(zonesim::Error::Usage(format!(
            "--against {}: no such file (give the path of another zonesim build)",
            other.display()
        ))
        .into());
    }
    let mut got: Vec<(Vec<Sample>, Vec<Sample>)> = vec![(Vec::new(), Vec::new()); names.len()];
    for r in 0..rounds {
        for (i, name) in names.iter().enumerate() {
            // The binaries take turns going first.
            if r % 2 == 0 {
                got[i].0.push(sample(&this, a, name)?);
                got[i].1.push(sample(other, a, name)?);
            } else {
                got[i].1.push(sample(other, a, name)?);
                got[i].0.push(sample(&this, a, name)?);
            }
        }
    }
    print_table(a.markdown, names, &got, rounds);
    println!(
        "this: {}; other: {}; {rounds} round{}, the binaries taking turns to go first; requests per CPU s of the measured phase (medians, and the ratio of each build's fastest round)",
        this.display(),
        other.display(),
        if rounds == 1 { "" } else { "s" }
    );
    Ok(())
}

fn print_table(markdown: bool, names: &[&str], got: &[(Vec<Sample>, Vec<Sample>)], rounds: u32) {
    if markdown {
        println!("| case | rounds | requests/CPU s, this | requests/CPU s, other | this / other, medians | this / other, fastest rounds | peak MiB this / other |");
        println!("|---|---:|---:|---:|---:|---:|---:|");
    } else {
        println!(
            "{:<28} {:>6} {:>14} {:>14} {:>10} {:>10} {:>16}",
            "case", "rounds", "req/CPU s this", "other", "medians", "fastest", "peak MiB"
        );
    }
    for (name, (this, other)) in names.iter().zip(got) {
        let c = compare(this, other);
        if markdown {
            println!(
                "| {name} | {rounds} | {:.0} | {:.0} | {:.3} | {:.3} | {:.1} / {:.1} |",
                c.this, c.other, c.ratio_median, c.ratio_fastest, c.peak_this, c.peak_other
            );
        } else {
            println!(
                "{name:<28} {rounds:>6} {:>14.0} {:>14.0} {:>10.3} {:>10.3} {:>8.1} / {:.1}",
                c.this, c.other, c.ratio_median, c.ratio_fastest, c.peak_this, c.peak_other
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_markdown_row_gives_its_rate_and_peak() {
        let row = "| randread-4k | 2000000 | 1.234 | 1620000 | 1700000 | 41.5 | 4 KiB uniform random reads (incl. precondition: 3.1 s) |";
        assert_eq!(
            parse_row(row, "randread-4k"),
            Some(Sample {
                cpu_rate: 1_700_000.0,
                peak_mib: 41.5
            })
        );
        // Another case's row, a header, a plain-text row: none.
        assert_eq!(parse_row(row, "randread-4k-mapmiss"), None);
        assert_eq!(
            parse_row(
                "| case | requests | wall s | requests/s | requests/CPU s | peak MiB | what |",
                "case"
            ),
            None
        );
        assert_eq!(
            parse_row(
                "randread-4k 2000000 1.2 1620000 1700000 41.5 what",
                "randread-4k"
            ),
            None
        );
    }

    #[test]
    fn medians_and_fastest_rounds_are_compared_separately() {
        let s = |r: &[f64]| {
            r.iter()
                .map(|&cpu_rate| Sample {
                    cpu_rate,
                    peak_mib: 10.0,
                })
                .collect::<Vec<_>>()
        };
        // This build: rounds of 100, 60 (a slow spell), 90; the other: 80, 80, 50.
        let c = compare(&s(&[100.0, 60.0, 90.0]), &s(&[80.0, 80.0, 50.0]));
        assert_eq!((c.this, c.other), (90.0, 80.0));
        assert!((c.ratio_median - 1.125).abs() < 1e-12);
        assert!((c.ratio_fastest - 1.25).abs() < 1e-12);
        assert_eq!((c.peak_this, c.peak_other), (10.0, 10.0));
        // An even count takes the mean of the middle two.
        assert_eq!(median(&[1.0, 4.0, 2.0, 3.0]), 2.5);
    }
}
