//! The app-launch workload: an Android app's files written on an aged F2FS (their extents as
//! after real use), then a cold launch that reads the pages the launch touches, in launch
//! order, with host CPU time between the reads. Used by `zms-app-launch` (ZMS talk,
//! "Random Read Performance": "Application launch time: 5.8 ~ 11.6% reduction"; its setup:
//! Android 11 on Linux 5.4, an SM8350 phone, apps in five categories).
//!
//! An experiment-side driver over [`FsRig`] (not a scenario step): the launch is a closed
//! loop of one thread at queue depth 1 whose time is the sum of its CPU bursts and its
//! blocking reads, which is how `FsRig` runs file operations; the aging it follows
//! ([`crate::fs_aging`]) is the FsRig one `zufs-app-read` uses.
//!
//! - **Files** ([`App`], [`apps`]): per app a base APK, a split APK, native libraries, ART's
//!   dexopt outputs (`.odex`, `.vdex`, `.art`), databases and, for the game, an asset pack.
//!   The sizes are assumptions (no source gives per-file sizes of the talk's 37 apps), stated
//!   beside each profile; `--quick` divides them by 4.
//! - **Install** ([`install`]): after the aging, the APKs and libraries of every app are
//!   written as a store install does (sequential 512 KiB buffered writes, fsync per file) while
//!   another app writes too (the concurrent writer of [`crate::fs_aging::install_one`]: a
//!   256 KiB file of another app, of the same extension and so in the same F2FS log, after
//!   each 4 MiB the flusher writes back); then ART's
//!   background dexopt writes the oat files the same way; then the apps are used: rounds of
//!   4 KiB SQLite page updates (fsync'd) to every app's databases, between which other apps
//!   create and delete cache files.
//! - **Launch plan** ([`plan`]): what a cold launch reads, deterministic per seed: the APK's
//!   zip central directory (its last 64 KiB) and the app image (`.art`, read whole, as ART
//!   maps it at start), the database headers, then page faults over the code and resources
//!   (`.odex`, `.vdex`, `.so`, the APKs, the asset pack) and database pages, interleaved in a
//!   random order weighted by what is left of each file: each a 4 KiB (70 %), 16 KiB (20 %)
//!   or 32 KiB (10 %) read at a page-aligned offset not read before (the page cache holds
//!   what was read; the sizes are an assumption: fault-around and read-around of mmapped
//!   files). Each file has a touched share (`Access`).
//! - **Launch** ([`launch`]): per read the launching thread's CPU (the host CPU model,
//!   `zonesim::host::cpu`: a fault or system call entry plus the block layer per device
//!   request before the device, the completion path per request after it), the app's own
//!   work (`app_ns` per read, set by the caller), and the device reads of the file system
//!   (F2FS merges contiguous blocks into one request). The launch time is the end of the last
//!   read's completion minus the start; its blocking I/O is the time the thread waited on
//!   the device.

use super::fs_aging::{install_one, Install};
use super::fs_common::{FsRig, Xs};
use zonesim::engine::SimTime;
use zonesim::error::Result;
use zonesim::host::cpu::{Burst, HostCpu, Step};
use zonesim::host::fs::{Ino, ROOT};

/// A page of the page cache, bytes.
const PAGE: u64 = 4096;

/// How a cold launch reads a file.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Access {
    /// Its last `bytes` first (a zip's central directory), then page faults over `share`.
    Zip { tail: u64, share: f64 },
    /// Read whole from the start (the app image ART maps at start).
    Whole,
    /// Its first `head` bytes (a database header), then page faults over `share`.
    Head { head: u64, share: f64 },
    /// Page faults over `share` of it.
    Faults { share: f64 },
}

/// One file of an app.
#[derive(Debug, Clone)]
pub struct AppFile {
    pub name: &'static str,
    pub bytes: u64,
    pub access: Access,
    /// Written by ART's dexopt after the install (odex, vdex, art).
    pub dexopt: bool,
    /// A database the app updates while used.
    pub db: bool,
}

/// An app: its category (the talk's) and its files.
#[derive(Debug, Clone)]
pub struct App {
    pub category: &'static str,
    pub files: Vec<AppFile>,
}

impl App {
    pub fn bytes(&self) -> u64 {
        self.files.iter().map(|f| f.bytes).sum()
    }
}

const MIB: u64 = 1 << 20;

fn file(name: &'static str, mib: u64, access: Access) -> AppFile {
    AppFile {
        name,
        bytes: mib * MIB,
        access,
        dexopt: matches!(name, "base.odex" | "base.vdex" | "base.art"),
        db: name.ends_with(".db"),
    }
}

/// The talk's five categories ("Evaluation Setup": basic, image, video, education, game), one
/// app each, sizes in MiB divided by `div` (at least one page each). Assumptions, not
/// measured apps: a base APK of tens of MiB (a game's over 100), one config split, native
/// libraries, dexopt outputs about the size of the APK's dex code, two small databases; the
/// game's code is native (small oat files) with a 200 MiB asset pack. Touched at launch: 10 %
/// of the APKs, 20 % of the libraries (30 % of a game engine's), 20 % of the `.odex`, 15 % of
/// the `.vdex`, the whole `.art`, 10 % of the databases, 3 % of the asset pack.
pub fn apps(div: u64) -> Vec<App> {
    let apk = Access::Zip {
        tail: 64 << 10,
        share: 0.10,
    };
    let split = Access::Zip {
        tail: 16 << 10,
        share: 0.10,
    };
    let db = Access::Head {
        head: 16 << 10,
        share: 0.10,
    };
    let f = |share| Access::Faults { share };
    let app = |category, sizes: [u64; 8], lib_share| App {
        category,
        files: vec![
            file("base.apk", sizes[0], apk),
            file("split_config.apk", sizes[1], split),
            file("libmain.so", sizes[2], f(lib_share)),
            file("base.odex", sizes[3], f(0.20)),
            file("base.vdex", sizes[4], f(0.15)),
            file("base.art", sizes[5], Access::Whole),
            file("main.db", sizes[6], db),
            file("cache.db", sizes[7], db),
        ],
    };
    let mut v = vec![
        app("basic", [24, 4, 8, 12, 16, 4, 2, 2], 0.20),
        app("image", [60, 8, 30, 20, 24, 6, 4, 4], 0.20),
        app("video", [80, 10, 40, 24, 30, 8, 8, 4], 0.20),
        app("education", [40, 6, 16, 16, 20, 5, 4, 2], 0.20),
        app("game", [150, 10, 80, 8, 10, 2, 1, 1], 0.30),
    ];
    v[4].files.push(file("assets.obb", 200, f(0.03)));
    for a in &mut v {
        for x in &mut a.files {
            x.bytes = (x.bytes / div).max(PAGE);
        }
    }
    v
}

/// An app on the file system: its files' inodes, in the order of [`App::files`].
#[derive(Debug, Clone)]
pub struct Installed {
    pub inos: Vec<Ino>,
}

/// Another app's file written after each writeback chunk of an app's file, during installs.
const OTHER_BYTES: u64 = 256 << 10;

/// The concurrent writer of an install of file `name`: another app's file of the same kind
/// (its extension, so F2FS puts it in the same log: APKs and libraries cold, databases hot),
/// as a store installs or ART compiles several apps at once.
fn other_writer(name: &'static str) -> Install {
    Install {
        ext: name.rfind('.').map_or("", |i| &name[i..]),
        other_bytes: Some(OTHER_BYTES),
    }
}

/// Install `apps` on the aged `rig` (module doc): APKs and libraries, then dexopt outputs,
/// then `rounds` of use. `exp` names the experiment in errors.
pub fn install(
    rig: &mut FsRig,
    exp: &str,
    apps: &[App],
    rounds: u64,
    seed: u64,
) -> Result<Vec<Installed>> {
    let mut out: Vec<Installed> = apps
        .iter()
        .map(|a| Installed {
            inos: vec![ROOT; a.files.len()],
        })
        .collect();
    for dexopt in [false, true] {
        for (i, a) in apps.iter().enumerate() {
            for (j, f) in a
                .files
                .iter()
                .enumerate()
                .filter(|(_, f)| f.dexopt == dexopt)
            {
                let name = format!("{}-{}", a.category, f.name);
                let ino = rig.create(exp, &name)?;
                install_one(rig, exp, ino, f.bytes, other_writer(f.name), &name)?;
                out[i].inos[j] = ino;
            }
        }
    }
    let mut x = Xs::new(seed ^ 0x05ee_da99);
    let copy = rig.f2fs().p.page_copy_ns;
    for r in 0..rounds {
        for (i, a) in apps.iter().enumerate() {
            for (j, f) in a.files.iter().enumerate().filter(|(_, f)| f.db) {
                let ino = out[i].inos[j];
                let off = x.below(f.bytes / PAGE) * PAGE;
                rig.op(copy, |fs| fs.write(ino, off, PAGE, false))
                    .map_err(|_| zonesim::error::Error::Usage(format!("{exp}: ENOSPC")))?;
                rig.op(0, |fs| fs.fsync(ino, false));
            }
        }
        let c = rig.create(exp, &format!("use-cache-{r}"))?;
        rig.write_seq(exp, c, 64 << 10, 64 << 10)?;
        if r % 2 == 1 {
            rig.op(0, |fs| fs.unlink(c));
        }
    }
    rig.op(0, |fs| fs.sync());
    Ok(out)
}

/// One read of a launch: file index (into [`App::files`]), offset and length, bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Read {
    pub file: usize,
    pub off: u64,
    pub len: u64,
}

/// Pages of a file still to fault in at launch, and which were read.
struct Faults {
    file: usize,
    pages: u64,
    left: u64,
    read: Vec<bool>,
}

/// A page fault's read length in pages: 1 (70 %), 4 (20 %), 8 (10 %).
fn fault_pages(x: &mut Xs) -> u64 {
    match x.below(10) {
        0..=6 => 1,
        7 | 8 => 4,
        _ => 8,
    }
}

/// The reads of a cold launch of `app`, in launch order (module doc); deterministic per seed.
pub fn plan(app: &App, seed: u64) -> Vec<Read> {
    let mut x = Xs::new(seed ^ 0x0001_a0c4);
    let mut reads = Vec::new();
    let mut faults = Vec::new();
    let seq = |reads: &mut Vec<Read>, file, from: u64, to: u64| {
        let mut off = from;
        while off < to {
            let len = (128 << 10).min(to - off);
            reads.push(Read { file, off, len });
            off += len;
        }
    };
    for (i, f) in app.files.iter().enumerate() {
        let pages = f.bytes.div_ceil(PAGE);
        let mut fl = Faults {
            file: i,
            pages,
            left: 0,
            read: vec![false; pages as usize],
        };
        let (from, to, share) = match f.access {
            Access::Whole => (0, f.bytes, 0.0),
            Access::Zip { tail, share } => (f.bytes.saturating_sub(tail), f.bytes, share),
            Access::Head { head, share } => (0, head.min(f.bytes), share),
            Access::Faults { share } => (0, 0, share),
        };
        seq(&mut reads, i, from, to);
        for p in from / PAGE..to.div_ceil(PAGE) {
            fl.read[p as usize] = true;
        }
        let unread = fl.read.iter().filter(|r| !**r).count() as u64;
        fl.left = ((pages as f64 * share).round() as u64).min(unread);
        if from == to && fl.left == 0 {
            fl.left = 1; // every file is touched
        }
        faults.push(fl);
    }
    loop {
        let total: u64 = faults.iter().map(|f| f.left).sum();
        if total == 0 {
            break;
        }
        let mut pick = x.below(total);
        let f = faults
            .iter_mut()
            .find(|f| {
                if pick < f.left {
                    true
                } else {
                    pick -= f.left;
                    false
                }
            })
            .expect("a file with pages left");
        let want = fault_pages(&mut x).min(f.left);
        // A page not read yet: probe from a random page onwards.
        let mut p = x.below(f.pages);
        while f.read[p as usize] {
            p = (p + 1) % f.pages;
        }
        let mut n = 0;
        while n < want && p + n < f.pages && !f.read[(p + n) as usize] {
            f.read[(p + n) as usize] = true;
            n += 1;
        }
        f.left -= n;
        reads.push(Read {
            file: f.file,
            off: p * PAGE,
            len: n * PAGE,
        });
    }
    reads
}

/// The launching thread's CPU: the host CPU model with the talk's SM8350 (8 cores, 4 of
/// them little) and the kernel's per-request costs of `[host.cpu]` (docs/host-cpu.md).
pub struct LaunchCpu {
    cpu: HostCpu,
}

impl LaunchCpu {
    /// From the `[host.cpu]` defaults for the steps a launch read takes, on the talk's phone.
    pub fn sm8350() -> LaunchCpu {
        let cfg = zonesim::config::HostCpuConfig {
            cores: 8,
            little_cores: 4,
            ..Default::default()
        };
        let model = zonesim::sim::cpu_model(&cfg).expect("8 cores: the model is on");
        LaunchCpu {
            cpu: HostCpu::new(model, 1),
        }
    }

    /// Run `b` on the launching thread at `at`; returns its end.
    fn run(&mut self, at: SimTime, b: &Burst) -> SimTime {
        SimTime(self.cpu.run(0, at.ns(), b))
    }
}

/// A launch measured.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Launch {
    pub reads: u64,
    /// Device read requests and bytes of the file system.
    pub requests: u64,
    pub bytes: u64,
    /// Time from the first read's start to the last read's completion, ns.
    pub time_ns: u64,
    /// Of it: waiting on the device, the kernel's CPU, the app's work.
    pub io_ns: u64,
    pub kernel_ns: u64,
    pub app_ns: u64,
    /// The device's map-page lookups during the launch (hits, misses).
    pub map_hits: u64,
    pub map_misses: u64,
}

impl Launch {
    /// Share of the launch spent waiting on reads.
    #[cfg(test)]
    pub fn io_share(&self) -> f64 {
        self.io_ns as f64 / self.time_ns.max(1) as f64
    }

    /// The launch with the app's work `app_ns` per read instead of this one's (the reads'
    /// device time does not depend on the gaps between them: nothing runs in them, the test
    /// `launch_time_composes` checks it).
    pub fn with_app_ns(&self, app_ns: u64) -> Launch {
        let app = app_ns * self.reads;
        Launch {
            time_ns: self.time_ns - self.app_ns + app,
            app_ns: app,
            ..*self
        }
    }
}

/// Cold-launch `app` (installed as `inst`) on `rig` along `reads`, the app working `app_ns`
/// before each read. The rig's counters restart at the launch.
pub fn launch(
    rig: &mut FsRig,
    inst: &Installed,
    reads: &[Read],
    cpu: &mut LaunchCpu,
    app_ns: u64,
) -> Launch {
    rig.mark();
    let start = rig.now;
    let mut l = Launch::default();
    for r in reads {
        let ino = inst.inos[r.file];
        rig.advance_to(SimTime(rig.now.ns() + app_ns));
        let t = rig.now;
        let (mut n, mut entered) = (0, t);
        rig.op_after(
            |fs| fs.read(ino, r.off, r.len),
            |cmds, at| {
                n = cmds;
                entered = cpu.run(at, &Burst::of(Step::Syscall).with(Step::BlockSubmit, n));
                entered
            },
        );
        l.kernel_ns += entered.since(t);
        l.io_ns += rig.now.since(entered);
        let done = cpu.run(rig.now, &Burst::new().with(Step::Completion, n));
        l.kernel_ns += done.since(rig.now);
        rig.now = done;
        l.reads += 1;
        l.requests += n;
        l.bytes += r.len;
    }
    l.app_ns = app_ns * l.reads;
    l.time_ns = rig.now.since(start);
    let m = rig.device().l2p;
    (l.map_hits, l.map_misses) = (m.hits, m.misses);
    l
}

/// Other apps' reads before a launch: `n` reads of 4 KiB at uniform places of `files` (the
/// aging's files), so the device's map cache holds what they used.
pub fn others_read(rig: &mut FsRig, files: &[(Ino, u64)], n: u64, seed: u64) {
    let mut x = Xs::new(seed ^ 0x07e5);
    for _ in 0..n {
        let (ino, bytes) = files[x.below(files.len() as u64) as usize];
        let off = x.below(bytes / PAGE) * PAGE;
        rig.op(0, |fs| fs.read(ino, off, PAGE));
    }
}

#[cfg(test)]
mod tests;
