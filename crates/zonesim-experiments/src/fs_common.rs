//! Helpers of the file-system-level reproductions (ConZone+ §6.3–6.5, Zoned UFS
//! (ZUFS) §5.5–5.6, ZMS): a device with the F2FS model mounted on it (`sim::fs`,
//! as `zonesim run --fs f2fs`), driven one file operation at a time in a closed loop at queue
//! depth 1: an operation's device commands (staged: data, node, flush) are submitted when the
//! previous operation completed, and the clock moves to their completion plus the host's
//! page-copy time. The file system's background GC thread wakes on the simulated clock between
//! operations and its device work competes with the next operation's.

use super::{row_info, Row};
use zonesim::config::fs::FsConfig;
use zonesim::config::{DeviceConfig, NamespaceConfig, NamespaceKind};
use zonesim::device::Device;
use zonesim::engine::SimTime;
use zonesim::error::{Error, Result};
use zonesim::firmware::IdleWork;
use zonesim::host::fs::{F2fs, Ino, ROOT};
use zonesim::sim::fs::{mount, FsHost};
use zonesim::stats::device::DeviceReport;

/// A device with a mounted file system and its clock.
pub struct FsRig {
    pub dev: Device,
    pub host: FsHost,
    pub now: SimTime,
    /// When the measured phase started (see [`FsRig::mark`]).
    pub t0: SimTime,
    next_bg: Option<SimTime>,
    last_end: SimTime,
    /// When the device last completed a command (its idle time starts there).
    dev_end: SimTime,
    /// Host idle time before the device's SLC write-back runs (`slc.writeback = idle`).
    wb_idle: Option<u64>,
    /// Where the write-back left off (it never runs twice over the same time).
    wb_next: SimTime,
}

impl FsRig {
    /// mkfs + mount `fs` on a fresh `cfg`; mkfs's writes reach the device, then the device
    /// counters start.
    pub fn new(cfg: &DeviceConfig, fs: &FsConfig, seed: u64) -> Result<FsRig> {
        let mut dev = Device::new(cfg, seed)?;
        if fs.kind != zonesim::config::fs::FsKind::F2fs {
            return Err(Error::Usage(
                "the file-system reproductions drive the F2FS model: fs.kind must be f2fs".into(),
            ));
        }
        let mut host = mount(fs, &dev, fs.main_namespace.unwrap_or(0))?;
        let now = host.submit(&mut dev, SimTime(0));
        dev.reset_counters();
        let next_bg = host.fs.first_bg_wake(now.ns()).map(SimTime);
        Ok(FsRig {
            host,
            now,
            t0: now,
            next_bg,
            last_end: now,
            dev_end: now,
            wb_next: now,
            wb_idle: dev.idle_timer(IdleWork::SlcWriteback).map(|t| t.after_ns),
            dev,
        })
    }

    /// Run file operation `f` now (after the background GC wakes due before it); its device
    /// commands are submitted and the clock moves to their completion plus `host_ns`.
    /// The mounted F2FS (`new` mounts nothing else).
    pub fn f2fs(&self) -> &F2fs {
        self.host.fs.as_f2fs().expect("FsRig::new mounts F2FS only")
    }

    pub fn f2fs_mut(&mut self) -> &mut F2fs {
        self.host
            .fs
            .as_f2fs_mut()
            .expect("FsRig::new mounts F2FS only")
    }

    pub fn op<T>(&mut self, host_ns: u64, f: impl FnOnce(&mut F2fs) -> T) -> T {
        self.bg_until(self.now);
        self.writeback_until(self.now);
        self.host.fs.set_now(self.now.ns());
        let r = f(self.f2fs_mut());
        let end = self.host.submit(&mut self.dev, self.now);
        self.dev_end = self.dev_end.max(end);
        self.now = SimTime(end.ns().max(self.now.ns()) + host_ns);
        self.last_end = self.now;
        r
    }

    /// Wake the background GC thread at each of its wake times up to `t`: on a zoned main area
    /// it is idle when no user read is in flight (always, between operations); on a
    /// conventional one after `gc_idle_time` without a request.
    fn bg_until(&mut self, t: SimTime) {
        while let Some(w) = self.next_bg.filter(|&w| w <= t) {
            let fs = &mut self.host.fs;
            let idle =
                fs.zoned_bg_gc() || w.since(self.last_end) >= fs.gc_idle_time_ms() * 1_000_000;
            let sleep = fs.bg_tick(w.ns(), idle);
            let end = self.host.submit(&mut self.dev, w);
            if end > w {
                self.last_end = self.last_end.max(end);
                self.dev_end = self.dev_end.max(end);
            }
            self.next_bg = sleep.map(|s| SimTime(w.ns() + s.max(1)));
            if end > self.now {
                self.now = end;
            }
        }
    }

    /// The device's idle SLC write-back (`slc.writeback = idle`) from its idle time after the
    /// last command up to `t`: a step at a time, the next once the dies are free (as
    /// `sim`'s engine runs it); the command at `t` then waits only for the steps in flight.
    fn writeback_until(&mut self, t: SimTime) {
        let Some(idle) = self.wb_idle else {
            return;
        };
        let mut w = (self.dev_end + idle).max(self.wb_next);
        while w < t {
            match self.dev.idle(w, IdleWork::SlcWriteback) {
                Some(next) => w = next,
                None => {
                    w = t;
                    break;
                }
            }
        }
        self.wb_next = self.wb_next.max(w);
    }

    /// Create `name` in the root directory; `exp` names the experiment in the error.
    pub fn create(&mut self, exp: &str, name: &str) -> Result<Ino> {
        self.op(0, |fs| fs.create(ROOT, name, 0))
            .map_err(|_| Error::Usage(format!("{exp}: cannot create {name}")))
    }

    /// Write `bytes` to `f` sequentially from offset 0 in buffered writes of `io` bytes, each
    /// paying the page-cache copy; ENOSPC is an error naming `exp`.
    pub fn write_seq(&mut self, exp: &str, f: Ino, bytes: u64, io: u64) -> Result<()> {
        let copy = self.f2fs().p.page_copy_ns;
        let mut off = 0;
        while off < bytes {
            let len = io.min(bytes - off);
            self.op(copy * len.div_ceil(4096), |fs| fs.write(f, off, len, false))
                .map_err(|_| Error::Usage(format!("{exp}: no space for a sequential write")))?;
            off += len;
        }
        Ok(())
    }

    /// Idle for `ms` simulated milliseconds: the background GC thread wakes as it would.
    pub fn idle(&mut self, ms: u64) {
        self.advance_to(SimTime(self.now.ns() + ms * 1_000_000));
    }

    /// Move the clock to `t` (if later): the background GC thread and the device's write-back
    /// run as they would meanwhile.
    pub fn advance_to(&mut self, t: SimTime) {
        self.now = self.now.max(t);
        self.bg_until(self.now);
        self.writeback_until(self.now);
    }

    /// Run file operation `f` now, its device commands submitted only after host CPU work that
    /// depends on them: `cpu(n, t)` gets how many commands `f` queued and the time, and returns
    /// when they leave (the background GC thread wakes meanwhile without them). The clock
    /// moves to their completion.
    pub fn op_after<T>(
        &mut self,
        f: impl FnOnce(&mut F2fs) -> T,
        cpu: impl FnOnce(u64, SimTime) -> SimTime,
    ) -> T {
        self.advance_to(self.now);
        self.host.fs.set_now(self.now.ns());
        let r = f(self.f2fs_mut());
        let held = std::mem::take(&mut self.f2fs_mut().out.cmds);
        let at = cpu(held.len() as u64, self.now);
        self.advance_to(at);
        let out = &mut self.f2fs_mut().out.cmds;
        debug_assert!(out.is_empty(), "the background work was submitted");
        *out = held;
        self.op(0, |_| ());
        r
    }

    /// Start the measured phase: device and file-system counters from here.
    pub fn mark(&mut self) {
        self.dev.reset_counters();
        self.f2fs_mut().c = Default::default();
        self.t0 = self.now;
    }

    /// Simulated seconds since [`FsRig::mark`].
    pub fn elapsed_s(&self) -> f64 {
        self.now.since(self.t0) as f64 / 1e9
    }

    pub fn device(&self) -> DeviceReport {
        self.dev.report()
    }

    /// Flash programs / user data bytes written by the file system since the mark.
    pub fn end_to_end_waf(&self) -> f64 {
        let user = self.f2fs().c.data_bytes as f64;
        let prog = self.device().flash.programmed_slots as f64 * 4096.0;
        if user > 0.0 {
            prog / user
        } else {
            0.0
        }
    }

    /// File-system WAF since the mark: everything it wrote / user data.
    pub fn fs_waf(&self) -> f64 {
        let c = &self.f2fs().c;
        if c.data_bytes == 0 {
            0.0
        } else {
            c.fs_bytes_written() as f64 / c.data_bytes as f64
        }
    }
}

/// `cfg` with namespace `ns` turned into a conventional (page-mapped) namespace of the same
/// flash: the "block" configuration of ConZone+ / the baseline of ZMS, its write buffer the
/// zoned namespace's buffers put together.
pub fn as_block(cfg: &DeviceConfig, ns: usize) -> Result<DeviceConfig> {
    let mut b = cfg.clone();
    b.name = format!("{}-block", cfg.name);
    b.namespaces[ns] = NamespaceConfig {
        kind: NamespaceKind::Conventional,
        capacity_bytes: 0,
        zones: 0,
        slc_only: false,
        channels: Vec::new(),
    };
    b.buffer.bytes = b.buffer.bytes.max(2 * cfg.buffer.bytes_each);
    b.validate()?;
    Ok(b)
}

/// A small xorshift for the workloads' random choices (deterministic per seed).
pub struct Xs(u64);

impl Xs {
    pub fn new(seed: u64) -> Xs {
        Xs(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    #[inline]
    pub fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n.max(1)
    }
}

/// The block baselines' SLC write-back policy (`slc.writeback`): unstated by the papers, so
/// the checked rows use [`WRITEBACK_CHECKED`] (a stated rule, not fitted) and
/// [`WRITEBACK_SWEEP`] is shown as sensitivity rows.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Writeback {
    /// Migrate only when SLC fills (`full`).
    Full,
    /// After this many µs without a host request (`idle`, `slc.writeback_idle_us`).
    Idle(f64),
    /// Whenever more than this fraction of SLC is in use (`threshold`).
    Threshold(f64),
}

/// The checked rows' write-back, by a stated rule (not fitted): Linux ufshcd enables the
/// WriteBooster with explicit flush (`fWriteBoosterBufferFlushEn = 1`, `ufshcd_configure_wb`,
/// unless a host quirk forbids it) and flush during Hibern8; with explicit flush enabled the
/// device flushes the buffer whenever it is idle (JEDEC UFS 3.1 §13.4.14), the sooner of the
/// two — `idle` at the shortest idle time, 1 µs (the device's own idle detection is unstated).
pub const WRITEBACK_CHECKED: Writeback = Writeback::Idle(1.0);

/// WRITEBACK_CHECKED's rule, for the notes the experiments print.
pub const WRITEBACK_RULE: &str = "slc.writeback = idle after 1 us: Linux ufshcd enables WriteBooster explicit flush by default (fWriteBoosterBufferFlushEn = 1, ufshcd_configure_wb), with which the device flushes its buffer whenever it is idle (JEDEC UFS 3.1 WriteBooster), here as soon as no host request is outstanding; a stated rule, not fitted";

/// The sensitivity sweep: off (`full`), idle after 1 µs (the checked rule) / 50 µs / 5 ms
/// (Qualcomm's auto-Hibern8 timer) / 150 ms (Linux's default auto-Hibern8 timer: flush
/// during Hibern8 only), threshold 0.2 (MediaTek's `wb_flush_threshold`: a flush once less
/// than 80 % is available) and 0.6 (Linux's default: 40 %).
pub const WRITEBACK_SWEEP: [Writeback; 7] = [
    Writeback::Full,
    Writeback::Idle(1.0),
    Writeback::Idle(50.0),
    Writeback::Idle(5_000.0),
    Writeback::Idle(150_000.0),
    Writeback::Threshold(0.2),
    Writeback::Threshold(0.6),
];

impl Writeback {
    /// Set it on `cfg` (whose conventional namespace has the SLC cache).
    pub fn apply(self, cfg: &mut DeviceConfig) -> Result<()> {
        use zonesim::config::SlcWriteback;
        match self {
            Writeback::Full => cfg.slc.writeback = SlcWriteback::Full,
            Writeback::Idle(us) => {
                cfg.slc.writeback = SlcWriteback::Idle;
                cfg.slc.writeback_idle_us = us;
            }
            Writeback::Threshold(f) => {
                cfg.slc.writeback = SlcWriteback::Threshold;
                cfg.slc.writeback_threshold = f;
            }
        }
        cfg.validate()
    }

    /// A row label: `write-back full`, `write-back idle 5000 us`, `write-back threshold 0.6`.
    pub fn label(self) -> String {
        match self {
            Writeback::Full => "write-back full (migrate when SLC fills)".into(),
            Writeback::Idle(us) => format!("write-back idle {us} us"),
            Writeback::Threshold(f) => format!("write-back threshold {f}"),
        }
    }
}

/// Pages the write-back of namespace `ns`'s SLC cache moved (0 without one).
pub fn writeback_pages(dev: &Device, ns: usize) -> u64 {
    let c = dev.namespaces[ns].counters();
    c.writeback.map_or(0, |w| w.writeback_pages)
}

/// The context rows of a file-system run's three write amplifications, in this order: the
/// file system's (FS WAF), the device's and the end-to-end one.
pub fn waf_rows(rows: &mut Vec<Row>, case: &str, fs: f64, device: f64, end_to_end: f64) {
    rows.push(row_info(case, "FS WAF", fs));
    rows.push(row_info(case, "device WAF", device));
    rows.push(row_info(case, "end-to-end WAF", end_to_end));
}
