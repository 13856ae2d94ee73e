//! `f2fs-lfs-waf`: the host F2FS model's cleaning cost against the analytic log-structured
//! cleaning curves. One large file, written sequentially, then uniform random 4 KiB
//! overwrites (direct, LFS mode, no background GC: foreground greedy — or FIFO — GC only).
//! After a warm-up of twice the file, the data-cleaning WAF `1 + gc_data / user data` is
//! measured and compared at the *measured* utilisation `u` = live data blocks / blocks of the
//! segments the data logs hold (the space data circulates through):
//! - FIFO: `WAF = 1/(1−x)` with `x = exp(−(1−x)/u)` (Desnoyers, "Analytic models of SSD write
//!   performance", TOS 2014; the victim's valid fraction under uniform traffic);
//! - greedy: the large-segment limit `WAF = (1+ρ)/(2ρ)`, `ρ = 1/u − 1` (same paper; also Bux &
//!   Iliadis 2010), an asymptote; 512-block segments stay somewhat above it.
//!
//! The file system runs without a device here: its WAF does not depend on device timing (the
//! same model runs under `zonesim run --fs f2fs`, where every GC move is a device read + write).

use super::{row_info, row_rel, ExpOptions, Outcome};
use zonesim::error::Result;
use zonesim::host::fs::{F2fs, FgVictim, FsDevice, FsMode, FsParams, Kernel, ROOT};

struct Case {
    name: &'static str,
    victim: FgVictim,
    /// File size as a fraction of the user capacity.
    fill: f64,
}

/// Measured (utilisation, data-cleaning WAF, total FS WAF).
fn simulate(c: &Case, o: &ExpOptions) -> Result<(f64, f64, f64)> {
    let mib: u64 = if o.quick() { 512 } else { 4096 };
    let dev = FsDevice {
        main_ns_bytes: mib << 20,
        zone: None,
        meta_ns_bytes: None,
    };
    let mut p = FsParams::kernel_default(false, Kernel::V6_18, 1);
    p.mode = FsMode::Lfs;
    p.ipu_policy = 0;
    p.background_gc = false;
    p.fg_victim = c.victim;
    let mut fs = F2fs::new(p, &dev)?;
    fs.out.clear();
    let blocks = (fs.geo.user_blocks as f64 * c.fill) as u64;
    let f = fs
        .create(ROOT, "big", 0)
        .map_err(|_| zonesim::error::Error::Usage("f2fs-lfs-waf: no space for the file".into()))?;
    // A refused write would leave the measured WAF without it: the run stops instead.
    let write = |fs: &mut F2fs, b: u64| {
        let r = fs.write(f, b * 4096, 4096, true);
        fs.out.clear();
        r.map_err(|e| {
            zonesim::error::Error::Usage(format!(
                "f2fs-lfs-waf ({}): the write of block {b} failed: {e:?}",
                c.name
            ))
        })
    };
    for b in 0..blocks {
        write(&mut fs, b)?;
    }
    let mut x = o.seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut step = |fs: &mut F2fs| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        write(fs, x % blocks)
    };
    for _ in 0..2 * blocks {
        step(&mut fs)?;
    }
    let c0 = fs.counters().clone();
    let (mut u_sum, mut n) = (0.0, 0);
    let window = 3 * blocks;
    for k in 0..window {
        step(&mut fs)?;
        if k % (window / 16) == 0 {
            u_sum += blocks as f64 / (fs.data_segments_in_use() as f64 * 512.0);
            n += 1;
        }
    }
    let c1 = fs.counters();
    let user = (c1.data_bytes - c0.data_bytes) as f64;
    let gc = (c1.gc_data_bytes - c0.gc_data_bytes) as f64;
    let total = (c1.fs_bytes_written() - c0.fs_bytes_written()) as f64;
    Ok((u_sum / n as f64, 1.0 + gc / user, total / user))
}

/// FIFO cleaning: `x = exp(−(1−x)/u)`, WAF = 1/(1−x).
pub fn fifo_waf(u: f64) -> f64 {
    let mut x: f64 = 0.5;
    for _ in 0..200 {
        x = (-(1.0 - x) / u).exp();
    }
    1.0 / (1.0 - x)
}

/// Greedy cleaning, large-segment limit: (1+ρ)/(2ρ), ρ = 1/u − 1.
pub fn greedy_waf(u: f64) -> f64 {
    let rho = 1.0 / u - 1.0;
    (1.0 + rho) / (2.0 * rho)
}

pub fn run_exp(o: &ExpOptions) -> Result<Outcome> {
    let cases = [
        Case {
            name: "greedy, file 75% of user space",
            victim: FgVictim::Greedy,
            fill: 0.75,
        },
        Case {
            name: "greedy, file 90% of user space",
            victim: FgVictim::Greedy,
            fill: 0.90,
        },
        Case {
            name: "FIFO, file 90% of user space",
            victim: FgVictim::Fifo,
            fill: 0.90,
        },
    ];
    let mut rows = Vec::new();
    for c in &cases {
        let (u, waf, total) = simulate(c, o)?;
        rows.push(row_info(c.name, "utilisation u (measured)", u));
        let (reference, tol, src) = match c.victim {
            FgVictim::Greedy => (greedy_waf(u), 0.15, "Desnoyers TOS 2014 (and Bux & Iliadis 2010): greedy under uniform traffic tends to (1+ρ)/(2ρ), ρ = 1/u − 1, for large segments; evaluated at our measured u"),
            FgVictim::Fifo => (fifo_waf(u), 0.10, "Desnoyers TOS 2014: FIFO under uniform traffic, WAF = 1/(1−x), x = exp(−(1−x)/u); evaluated at our measured u"),
        };
        rows.push(row_rel(c.name, "data cleaning WAF", waf, reference, tol).src(src));
        rows.push(row_info(c.name, "FS WAF (data+node+meta+GC)", total));
    }
    Ok(Outcome {
        name: "f2fs-lfs-waf".into(),
        title: "F2FS model, uniform random overwrites of one file, FG GC: cleaning WAF vs the analytic LFS curves".into(),
        source: "Desnoyers, Analytic models of SSD write performance (ACM TOS 2014), greedy and FIFO under uniform traffic".into(),
        rows,
        notes: vec![
            format!("main area {} MiB, LFS mode, ipu_policy 0, background GC off; direct 4 KiB overwrites; warm-up 2x the file, measured over the next 3x", if o.quick() { 512 } else { 4096 }),
            "u = live file blocks / blocks of the non-free data-log segments (averaged over 16 samples): the space data circulates through; free sections kept by the FG GC threshold and node segments are outside it".into(),
            "GC-moved data goes to COLD_DATA, user data to WARM_DATA (two logs); the analytic curves assume one log — under uniform traffic the separation changes little".into(),
        ],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file larger than the user space: the fill is refused, and the run says so instead of
    /// measuring a WAF without the refused writes.
    #[test]
    fn a_refused_write_stops_the_run() {
        let c = Case {
            name: "overfull",
            victim: FgVictim::Greedy,
            fill: 1.5,
        };
        let o = ExpOptions {
            seed: 1,
            scale: crate::Scale::Quick,
        };
        let e = simulate(&c, &o)
            .expect_err("the fill cannot fit")
            .to_string();
        assert!(e.contains("overfull") && e.contains("NoSpace"), "{e}");
    }
}
