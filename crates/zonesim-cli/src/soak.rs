//! `zonesim soak SEED COUNT`: random valid worlds, checked (in the manner of TigerBeetle's VOPR
//! or FoundationDB's simulation tests). Each seed draws a whole world: a preset, keys of the
//! device config drawn within their declared ranges (the declarations of `config keys`, not a
//! list kept here), a namespace layout, the features that change the path of a request (SLC,
//! the cores model, the data cache, the host file system), an fio workload and a run seed. The
//! world runs twice with the invariant checks on; it must end in a report in which every
//! request completed once, with no null or NaN value, identical both times (wall-clock fields
//! aside), or in a bad-input error (a draw the rules refuse: the next draw of the seed is
//! tried). A panic, an invariant failure or a difference is a failure: the seed, what it drew
//! and a `zonesim run` command that reproduces it (device file and job file written beside it,
//! overrides not needed for the failure removed) are printed.

use anyhow::{bail, Result};
use std::fmt::Write as _;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};
use zonesim::config::keys::{keys, Key, Type};
use zonesim::config::rule::{Rule, Step};
use zonesim::config::{NamespaceKind, PRESETS};
use zonesim::sim::{Precondition, RunOptions};
use zonesim::{RunSpec, WorkloadSpec};

#[derive(clap::Args)]
pub struct SoakArgs {
    /// First seed; draw i uses seed SEED + i.
    #[arg(default_value_t = 1)]
    pub seed: u64,
    /// Number of draws, 1..=100000000.
    #[arg(default_value_t = 100, value_parser = clap::value_parser!(u64).range(1..=100_000_000))]
    pub count: u64,
    /// Where the device and job files of failing draws are written.
    #[arg(long, default_value = "soak-failures")]
    pub out: PathBuf,
    /// Print every draw's world and outcome.
    #[arg(long)]
    pub verbose: bool,
}

/// Worlds larger than this many 4 KiB slots (16 GiB of flash) are redrawn: the soak checks
/// many small worlds rather than a few big ones.
const MAX_SLOTS: u64 = 1 << 22;

/// Draws of one seed before it falls back to its preset with no override.
const ATTEMPTS: u32 = 40;

/// A run of a draw is stopped (a failure: a runaway) past this wall time or resident memory,
/// and the soak ends (printing the draw) past twice that if the run does not stop.
const DRAW_WALL: Duration = Duration::from_secs(60);
const DRAW_RSS: u64 = 2 << 30;

/// The stop flag of the run in progress and the draw it belongs to (start, what to print).
static STOP: AtomicBool = AtomicBool::new(false);
static SEED: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
static CURRENT: Mutex<Option<(Instant, String)>> = Mutex::new(None);

/// Resident memory of this process, bytes (0 where /proc is unavailable).
fn rss_bytes() -> u64 {
    std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|s| s.split_whitespace().nth(1)?.parse::<u64>().ok())
        .map_or(0, |pages| pages * 4096)
}

/// Watches the run in progress: stops it when it runs away, ends the soak when it does not
/// stop.
fn watchdog() {
    std::thread::spawn(|| loop {
        std::thread::sleep(Duration::from_millis(100));
        let cur = CURRENT.lock().map(|c| c.clone()).unwrap_or(None);
        let Some((t, what)) = cur else { continue };
        let (age, rss) = (t.elapsed(), rss_bytes());
        if age > DRAW_WALL || rss > DRAW_RSS {
            STOP.store(true, Ordering::Relaxed);
        }
        if age > 2 * DRAW_WALL || rss > 2 * DRAW_RSS {
            println!(
                "FAIL seed {}: a run did not stop ({:.0} s, {} MiB resident); the soak ends here\n  world: {what}\n  again: zonesim soak {} 1",
                SEED.load(Ordering::Relaxed),
                age.as_secs_f64(),
                rss >> 20,
                SEED.load(Ordering::Relaxed)
            );
            std::process::exit(3);
        }
    });
}

/// splitmix64: the soak's own generator, so a seed draws the same world in every build.
struct Draw(u64);

impl Draw {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in `lo..=hi`.
    fn range(&mut self, lo: u64, hi: u64) -> u64 {
        if hi <= lo {
            return lo;
        }
        match (hi - lo).checked_add(1) {
            Some(n) => lo + self.next() % n,
            None => self.next(),
        }
    }
    fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    fn pick<'a, T>(&mut self, v: &'a [T]) -> &'a T {
        &v[self.range(0, v.len() as u64 - 1) as usize]
    }
    /// Log-uniform in `lo..=hi` (both > 0): small and large values alike.
    fn log_range(&mut self, lo: u64, hi: u64) -> u64 {
        let (l, h) = ((lo.max(1) as f64).ln(), (hi as f64).ln());
        let v = (l + self.unit() * (h - l)).exp();
        (v as u64).clamp(lo, hi)
    }
}

/// One drawn world.
#[derive(Clone)]
struct World {
    preset: &'static str,
    /// Key overrides as TOML literals, in the order drawn.
    sets: Vec<(String, String)>,
    /// `[[namespaces]]` tables replacing the preset's, as TOML text (empty: the preset's).
    namespaces: String,
    namespace: usize,
    fs: bool,
    precondition: Precondition,
    job: String,
    seed: u64,
}

impl World {
    fn device_toml(&self) -> String {
        let mut t = format!("base = \"{}\"\n", self.preset);
        for (k, v) in &self.sets {
            let _ = writeln!(t, "{k} = {v}");
        }
        if self.fs {
            t.push_str("fs.kind = \"f2fs\"\n");
        }
        t.push_str(&self.namespaces);
        t
    }
    fn describe(&self) -> String {
        let sets: Vec<String> = self.sets.iter().map(|(k, v)| format!("{k}={v}")).collect();
        format!(
            "{} [{}]{}{} ns {} precondition {:?} seed {}",
            self.preset,
            sets.join(" "),
            if self.namespaces.is_empty() {
                ""
            } else {
                " +namespaces"
            },
            if self.fs { " fs=f2fs" } else { "" },
            self.namespace,
            self.precondition,
            self.seed
        )
    }
}

/// A value for `k` within its declared rule, as a TOML literal; `None` for keys the soak does
/// not draw (lists, strings).
fn value(d: &mut Draw, k: &Key) -> Option<String> {
    match &k.ty {
        Type::Bool => Some(d.chance(0.5).to_string()),
        Type::Choice(names) => Some(format!("\"{}\"", d.pick(names))),
        Type::Int => {
            let Rule::Int {
                min,
                max,
                step,
                zero,
            } = k.spec.rule
            else {
                return None;
            };
            if zero && d.chance(0.15) {
                return Some("0".into());
            }
            // TOML integers are i64.
            let max = max.min(i64::MAX as u64);
            let v = match d.range(0, 9) {
                0 => min,
                1 => max,
                _ => d.log_range(min.max(1), max),
            };
            let v = match step {
                Step::Any => v,
                Step::Multiple(m) => {
                    let r = v / m * m;
                    if r < min {
                        r.saturating_add(m)
                    } else {
                        r
                    }
                }
                Step::PowerOfTwo => {
                    let p = if v == 0 {
                        1
                    } else {
                        1u64 << (63 - v.leading_zeros())
                    };
                    if p < min {
                        min.next_power_of_two()
                    } else {
                        p
                    }
                }
            };
            Some(v.max(min).min(max).to_string())
        }
        Type::Float => {
            let Rule::Float {
                min,
                max,
                open_min,
                open_max,
                zero,
            } = k.spec.rule
            else {
                return None;
            };
            if zero && d.chance(0.15) {
                return Some("0.0".into());
            }
            let (lo, hi) = (min.max(-1e12), max.min(1e12));
            let v = if lo > 0.0 && hi / lo > 1e3 && d.chance(0.7) {
                (lo.ln() + d.unit() * (hi.ln() - lo.ln())).exp()
            } else {
                lo + d.unit() * (hi - lo)
            };
            let mut v = v.clamp(lo, hi);
            if (open_min && v <= min) || (open_max && v >= max) {
                v = (lo + hi) / 2.0;
            }
            Some(format!("{v:?}"))
        }
        _ => None,
    }
}

/// The keys the soak draws: every declared leaf outside the namespace array, except the file
/// system's kind (the world decides it) and the report-only `stats` keys that only select
/// output.
fn drawable() -> Vec<Key> {
    keys()
        .into_iter()
        .filter(|k| {
            !k.key.contains('[')
                && k.key != "fs.kind"
                && k.key != "description"
                && !matches!(k.ty, Type::Table | Type::Str | Type::List(_))
        })
        .collect()
}

fn namespace_layout(d: &mut Draw, zoned_preset: bool) -> (String, usize) {
    if zoned_preset {
        let meta = d.log_range(32, 512) << 20;
        let zones = if d.chance(0.5) { 0 } else { d.range(1, 24) };
        let slc = d.chance(0.7);
        let ns = format!(
            "\n[[namespaces]]\nkind = \"conventional\"\ncapacity_bytes = {meta}\nslc_only = {slc}\n\n[[namespaces]]\nkind = \"zoned\"\nzones = {zones}\n"
        );
        (ns, d.range(0, 1) as usize)
    } else {
        let first = d.log_range(64, 4096) << 20;
        let ns = format!(
            "\n[[namespaces]]\nkind = \"conventional\"\ncapacity_bytes = {first}\n\n[[namespaces]]\nkind = \"conventional\"\n"
        );
        (ns, d.range(0, 1) as usize)
    }
}

/// An fio job file for the run's namespace.
fn job(d: &mut Draw, zoned: bool, fs: bool) -> String {
    let mut t = String::new();
    let jobs = d.range(1, 3);
    for i in 0..jobs {
        let bs = 4096u64 << d.range(0, 5);
        let ios = d.log_range(50, 3000);
        let _ = write!(
            t,
            "[j{i}]\nbs={bs}\niodepth={}\nnumber_ios={ios}\n",
            *d.pick(&[1u64, 1, 2, 4, 8, 16, 32])
        );
        if i > 0 && d.chance(0.3) {
            t.push_str("stonewall\n");
        }
        if d.chance(0.2) {
            t.push_str("numjobs=2\n");
        }
        if fs {
            let rw = d.pick(&["write", "randwrite", "read", "randread", "randrw"]);
            let _ = write!(
                t,
                "rw={rw}\ndirectory=/d{i}\nnrfiles={}\nfilesize={}k\n",
                d.range(1, 8),
                4 * d.log_range(bs / 4096, 512)
            );
            if rw.contains("write") && d.chance(0.5) {
                let _ = writeln!(t, "fsync={}", d.range(1, 64));
            }
        } else if zoned {
            let rw = d.pick(&[
                "write",
                "randwrite",
                "write",
                "randwrite",
                "read",
                "randread",
            ]);
            let _ = write!(t, "rw={rw}\nzonemode=zbd\n");
            if rw.contains("write") {
                let _ = writeln!(t, "max_open_zones={}", d.range(1, 8));
                if d.chance(0.4) {
                    t.push_str("zone_reset_threshold=0.6\nzone_reset_frequency=0.05\n");
                }
                if d.chance(0.15) {
                    t.push_str("zone_append=1\n");
                }
            }
        } else {
            let rw = d.pick(&[
                "write",
                "randwrite",
                "read",
                "randread",
                "randrw",
                "rw",
                "randtrim",
            ]);
            let _ = write!(t, "rw={rw}\nsize={}%\n", d.range(1, 100));
            if rw.starts_with("rand") && d.chance(0.5) {
                t.push_str("norandommap\n");
            }
            if d.chance(0.2) {
                t.push_str("random_distribution=zipf:1.2\n");
            }
            if rw.contains("write") && d.chance(0.2) {
                let _ = writeln!(t, "fsync={}", d.range(1, 64));
            }
            if d.chance(0.15) {
                let _ = writeln!(t, "prioclass={}", d.range(1, 3));
            }
        }
    }
    t
}

/// The world of `seed`: redrawn until the config rules accept it (a draw they refuse is
/// simply not a world), after `ATTEMPTS` the preset alone.
fn draw(
    d: &mut Draw,
    fallback: bool,
    drawable: &[Key],
    dir: &Path,
) -> Result<(World, zonesim::config::DeviceConfig)> {
    for attempt in 0..=ATTEMPTS {
        let attempt = if fallback { ATTEMPTS } else { attempt };
        let preset = d.pick(PRESETS).0;
        let base = zonesim::config::DeviceConfig::load(preset, &[])?;
        let zoned_preset = base.namespace_kinds().contains(&NamespaceKind::Zoned);
        let mut w = World {
            preset,
            sets: Vec::new(),
            namespaces: String::new(),
            namespace: 0,
            fs: false,
            precondition: Precondition::None,
            job: String::new(),
            seed: d.next() % 1_000_000,
        };
        if attempt < ATTEMPTS {
            // Small worlds first: fewer blocks make GC, SLC GC and full zones likely.
            if d.chance(0.7) {
                let blocks = d.log_range(8, 256);
                w.sets
                    .push(("nand.blocks_per_plane".into(), blocks.to_string()));
            }
            for _ in 0..d.range(1, 5) {
                let k = d.pick(drawable);
                if let Some(v) = value(d, k) {
                    w.sets.retain(|(x, _)| *x != k.key);
                    w.sets.push((k.key.clone(), v));
                }
            }
            if d.chance(0.15) {
                w.sets.retain(|(x, _)| !x.starts_with("firmware.model"));
                w.sets.push(("firmware.model".into(), "\"cores\"".into()));
            }
            if d.chance(0.15) {
                let bytes = 4096 * d.log_range(1, 1 << 16);
                w.sets.retain(|(x, _)| x != "cache.bytes");
                w.sets.push(("cache.bytes".into(), bytes.to_string()));
            }
            if d.chance(0.3) {
                let (ns, at) = namespace_layout(d, zoned_preset);
                w.namespaces = ns;
                w.namespace = at;
            } else if zoned_preset {
                w.namespace = d.range(0, 1) as usize;
            }
            w.fs = d.chance(0.12);
            if w.fs {
                w.namespace = 0;
            }
            if d.chance(0.2) {
                w.precondition = Precondition::Seq;
            }
        }
        let Ok(cfg) = load(&w, dir) else { continue };
        // Any `fs.*` key turns the host file system on: the jobs then work on files.
        w.fs = cfg.fs.is_some();
        if w.fs {
            w.namespace = 0;
        }
        let g = zonesim::nand::Geometry::new(&cfg.nand);
        if g.total_slots() > MAX_SLOTS && attempt < ATTEMPTS {
            continue;
        }
        let zoned = cfg
            .namespace_kinds()
            .get(w.namespace)
            .is_some_and(|k| *k == NamespaceKind::Zoned);
        w.job = job(d, zoned, w.fs);
        return Ok((w, cfg));
    }
    bail!("the preset alone was refused")
}

/// Loads the world's device as `zonesim run --device FILE` would.
fn load(w: &World, dir: &Path) -> zonesim::Result<zonesim::config::DeviceConfig> {
    let path = dir.join("draw.toml");
    std::fs::write(&path, w.device_toml()).map_err(|e| zonesim::Error::io(&path, e))?;
    zonesim::load_device(path.to_str().expect("utf-8 temp path"), &[])
}

/// What a run of a world came to.
enum Outcome {
    /// A report, as JSON without wall-clock fields, and its request count.
    Ran(serde_json::Value, u64),
    /// Bad input: the rules refused the world (not a failure).
    Refused(String),
    Failed(String),
}

fn run_once(w: &World, cfg: &zonesim::config::DeviceConfig) -> Outcome {
    let spec = RunSpec::new(
        cfg.clone(),
        WorkloadSpec::FioText {
            text: w.job.clone(),
            name: "soak.fio".into(),
        },
    )
    .options(RunOptions {
        seed: w.seed,
        precondition: w.precondition,
        namespace: w.namespace,
        check_invariants: true,
        power_off: None,
    });
    STOP.store(false, Ordering::Relaxed);
    if let Ok(mut c) = CURRENT.lock() {
        *c = Some((Instant::now(), w.describe()));
    }
    let res = catch_unwind(AssertUnwindSafe(|| {
        zonesim::run(
            &spec,
            &mut zonesim::Control {
                progress: None,
                stop: Some(&STOP),
                finish: None,
            },
        )
    }));
    if let Ok(mut c) = CURRENT.lock() {
        *c = None;
    }
    match res {
        Err(p) => {
            let msg = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            Outcome::Failed(format!("panic: {msg}"))
        }
        Ok(Err(_)) if STOP.load(Ordering::Relaxed) => Outcome::Failed(format!(
            "runaway: stopped past {} s or {} MiB resident",
            DRAW_WALL.as_secs(),
            DRAW_RSS >> 20
        )),
        Ok(Err(e)) if e.exit_code() == 2 => Outcome::Refused(e.to_string()),
        Ok(Err(e)) => Outcome::Failed(e.to_string()),
        Ok(Ok(r)) => {
            if r.sim.requests_issued != r.sim.requests_completed {
                return Outcome::Failed(format!(
                    "{} requests issued, {} completed",
                    r.sim.requests_issued, r.sim.requests_completed
                ));
            }
            let j = r.deterministic_json();
            if let Some(p) = null_at(&j, "") {
                return Outcome::Failed(format!("null or NaN in the report at {p}"));
            }
            Outcome::Ran(j, r.sim.requests_completed)
        }
    }
}

/// Report paths whose null is a documented "not known", not a NaN.
const NULL_BY_DESIGN: [&str; 2] = [".device.wear.lifetime_tbw", ".device.wear.lifetime_days"];

/// The path of the first null (NaN serialises as null) in `v`. The report's `provenance`
/// echoes the inputs (an optional config key left unset is null there), so it is skipped:
/// only simulated values must be numbers. The wear section's lifetime projections are null by
/// design when a run gives nothing to project from (no erase yet: docs/report.md).
fn null_at(v: &serde_json::Value, at: &str) -> Option<String> {
    match v {
        serde_json::Value::Null if NULL_BY_DESIGN.contains(&at) => None,
        serde_json::Value::Null => Some(at.to_string()),
        serde_json::Value::Array(a) => a
            .iter()
            .enumerate()
            .find_map(|(i, x)| null_at(x, &format!("{at}[{i}]"))),
        serde_json::Value::Object(m) => m
            .iter()
            .filter(|(k, _)| !(at.is_empty() && k.as_str() == "provenance"))
            .find_map(|(k, x)| null_at(x, &format!("{at}.{k}"))),
        _ => None,
    }
}

/// Runs the world twice: `Ok(Some(requests))`, `Ok(None)` (refused), or the failure.
fn check(
    w: &World,
    cfg: &zonesim::config::DeviceConfig,
) -> std::result::Result<Option<u64>, String> {
    match run_once(w, cfg) {
        Outcome::Failed(e) => Err(e),
        Outcome::Refused(e) => {
            if std::env::var_os("ZONESIM_SOAK_DEBUG").is_some() {
                eprintln!("refused: {e}");
            }
            Ok(None)
        }
        Outcome::Ran(a, n) => match run_once(w, cfg) {
            Outcome::Ran(b, _) if a == b => Ok(Some(n)),
            Outcome::Ran(b, _) => Err(format!(
                "same seed, different report: {}",
                first_diff(&a, &b, "")
            )),
            Outcome::Failed(e) => Err(format!("second run: {e}")),
            Outcome::Refused(e) => Err(format!("second run refused what the first ran: {e}")),
        },
    }
}

fn first_diff(a: &serde_json::Value, b: &serde_json::Value, at: &str) -> String {
    match (a, b) {
        (serde_json::Value::Object(x), serde_json::Value::Object(y)) => {
            for (k, v) in x {
                match y.get(k) {
                    Some(w) if w == v => {}
                    Some(w) => return first_diff(v, w, &format!("{at}.{k}")),
                    None => return format!("{at}.{k} missing"),
                }
            }
            format!("{at}: keys differ")
        }
        _ => format!("{at}: {a} vs {b}"),
    }
}

/// Drops the overrides the failure does not need (one at a time, kept when the failure goes
/// away), then the namespace layout and the preconditioning.
fn minimise(mut w: World, dir: &Path) -> World {
    let fails = |w: &World| load(w, dir).is_ok_and(|cfg| check(w, &cfg).is_err());
    let mut i = 0;
    while i < w.sets.len() {
        let mut t = w.clone();
        t.sets.remove(i);
        if fails(&t) {
            w = t;
        } else {
            i += 1;
        }
    }
    if !w.namespaces.is_empty() {
        let mut t = w.clone();
        t.namespaces.clear();
        if fails(&t) {
            w = t;
        }
    }
    if w.precondition != Precondition::None {
        let mut t = w.clone();
        t.precondition = Precondition::None;
        if fails(&t) {
            w = t;
        }
    }
    w
}

fn reproducer(w: &World, seed: u64, out: &Path) -> Result<String> {
    std::fs::create_dir_all(out)?;
    let dev = out.join(format!("{seed}.toml"));
    let fio = out.join(format!("{seed}.fio"));
    std::fs::write(&dev, w.device_toml())?;
    std::fs::write(&fio, &w.job)?;
    let pre = match w.precondition {
        Precondition::None => "none",
        Precondition::Seq => "seq",
        _ => "steady",
    };
    Ok(format!(
        "zonesim run --device {} --workload {} --namespace {} --seed {} --precondition {pre} --check-invariants --json-stdout",
        dev.display(),
        fio.display(),
        w.namespace,
        w.seed
    ))
}

pub fn run(a: SoakArgs) -> Result<()> {
    // A panic is a finding reported with its draw: one line with its place, no backtrace.
    std::panic::set_hook(Box::new(|p| {
        if let Some(l) = p.location() {
            eprintln!("soak: panic at {}:{}", l.file(), l.line());
        }
    }));
    watchdog();
    let keys = drawable();
    let tmp = std::env::temp_dir().join(format!("zonesim-soak-{}", std::process::id()));
    std::fs::create_dir_all(&tmp)?;
    let started = Instant::now();
    let (mut ran, mut refused, mut requests, mut failed) = (0u64, 0u64, 0u64, Vec::new());
    let last = a.seed.saturating_add(a.count - 1);
    for seed in a.seed..=last {
        // A world the rules refuse only at run time (a job the namespace cannot take) is not a
        // world either: the seed draws again, at last its preset with no override.
        SEED.store(seed, Ordering::Relaxed);
        let mut d = Draw(seed);
        let (mut w, mut cfg) = draw(&mut d, false, &keys, &tmp)?;
        let mut res = check(&w, &cfg);
        for again in 1..=ATTEMPTS {
            if !matches!(res, Ok(None)) {
                break;
            }
            (w, cfg) = draw(&mut d, again == ATTEMPTS, &keys, &tmp)?;
            res = check(&w, &cfg);
        }
        if a.verbose {
            eprintln!("seed {seed}: {} -> {res:?}", w.describe());
        }
        match res {
            Ok(Some(n)) => {
                ran += 1;
                requests += n;
            }
            Ok(None) => refused += 1,
            Err(e) => {
                // A runaway takes a minute a run: not minimised.
                let m = if e.starts_with("runaway") {
                    w
                } else {
                    minimise(w, &tmp)
                };
                let cmd = reproducer(&m, seed, &a.out)?;
                println!("FAIL seed {seed}: {e}\n  world: {}\n  reproduce: {cmd}\n  again: zonesim soak {seed} 1", m.describe());
                failed.push(seed);
            }
        }
        let done = seed - a.seed + 1;
        if done.is_multiple_of(500) && done < a.count {
            eprintln!(
                "soak: {done}/{} draws, {} failed, {:.0} s",
                a.count,
                failed.len(),
                started.elapsed().as_secs_f64()
            );
        }
    }
    let _ = std::fs::remove_dir_all(&tmp);
    println!(
        "soak seeds {}..={last}: {} draws, {ran} ran twice ({requests} requests each), {refused} refused as bad input, {} failed, {:.1} s",
        a.seed,
        a.count,
        failed.len(),
        started.elapsed().as_secs_f64()
    );
    if !failed.is_empty() {
        bail!(
            "{} of {} draws failed: seeds {:?}",
            failed.len(),
            a.count,
            failed
        );
    }
    Ok(())
}
