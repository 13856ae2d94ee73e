//! The host file system in the run (docs/fs.md): resolves `[fs]` against the device (which
//! namespaces hold the metadata and main areas, zone geometry, kernel defaults), maps fio jobs
//! onto files, and turns the file system's staged commands into device commands: a command
//! marked `barrier` is submitted when every earlier one of its batch completed (GC's read
//! before its write, fsync's data before its node before its flush).

use super::command;
use crate::config::fs::{FsConfig, FsFgVictim, FsKernel, FsKind, FsModeCfg};
use crate::device::Device;
use crate::engine::SimTime;
use crate::error::{Error, Result};
use crate::host::ext4::{Ext4, Ext4Params};
use crate::host::fio::{JobSpec, ZoneMode};
use crate::host::fs::layout::SEG_BYTES;
use crate::host::fs::{Area, F2fs, FgVictim, FsDevice, FsMode, FsParams, Ino, Kernel, ROOT};
use crate::host::hostfs::{Files, HostFs};
use crate::host::{HostIo, IoKind};
use crate::interface::zone::Lba;
use crate::interface::{Command, Op};
use crate::nand::SLOT_BYTES;
use std::collections::HashMap;

/// The mounted file system of a run and where it lives on the device.
#[derive(Clone)]
pub struct FsHost {
    pub fs: HostFs,
    pub meta_ns: usize,
    pub main_ns: usize,
    names: HashMap<String, Ino>,
    /// User reads in flight (zoned BG GC pauses for them).
    pub reads_in_flight: u64,
}

/// Resolve `[fs]` on `dev` (run namespace `ns`) into parameters and mount.
pub fn mount(cfg: &FsConfig, dev: &Device, ns: usize) -> Result<FsHost> {
    // Where the areas live, and the rules about it: checked with the config too
    // (`DeviceConfig::validate`), before anything simulates.
    let areas = cfg.areas(&dev.cfg.namespace_kinds(), ns)?;
    cfg.kernel_knobs()?;
    let (meta_ns, main_ns) = (areas.meta, areas.main);
    if cfg.kind == FsKind::Ext4 {
        let fs = Ext4::new(ext4_params(cfg), dev.capacity_bytes(main_ns))?;
        return Ok(FsHost {
            fs: HostFs::Ext4(fs),
            meta_ns,
            main_ns,
            names: HashMap::new(),
            reads_in_flight: 0,
        });
    }
    let zone = dev.zones(main_ns).map(|z| {
        let zc = z.zone_config();
        (
            zc.zone_size * crate::nand::SLOT_BYTES,
            zc.zone_capacity * crate::nand::SLOT_BYTES,
        )
    });
    let fsdev = FsDevice {
        main_ns_bytes: dev.capacity_bytes(main_ns),
        zone,
        meta_ns_bytes: (meta_ns != main_ns).then(|| dev.capacity_bytes(meta_ns)),
    };
    // ZMS budget-based in-place update on the main area (files marked use it).
    let device_ipu = dev.zones(main_ns).is_some_and(|z| z.in_place_updates);
    let p = params(cfg, zone, device_ipu)?;
    let fs = F2fs::new(p, &fsdev)?;
    Ok(FsHost {
        fs: HostFs::F2fs(fs),
        meta_ns,
        main_ns,
        names: HashMap::new(),
        reads_in_flight: 0,
    })
}

/// ext4's defaults, then the `fs.ext4` keys and the page-cache keys of `[fs]`.
fn ext4_params(cfg: &FsConfig) -> Ext4Params {
    let e = &cfg.ext4;
    let d = Ext4Params::default();
    Ext4Params {
        journal_blocks: e.journal_blocks,
        commit_ms: e.commit.saturating_mul(1_000),
        delalloc: !e.nodelalloc,
        blocks_per_group: e.blocks_per_group,
        inode_size: e.inode_size,
        inode_ratio: e.inode_ratio,
        flex_bg: e.flex_bg,
        dirty_expire_ms: e.dirty_expire,
        dirty_writeback_ms: e.dirty_writeback,
        dirty_bytes: cfg.dirty_bytes.unwrap_or(d.dirty_bytes),
        max_bio_bytes: cfg.max_bio_bytes.unwrap_or(d.max_bio_bytes),
        page_copy_ns: cfg.page_copy_ns.unwrap_or(d.page_copy_ns),
        max_zeroout_blocks: (e.extent_max_zeroout_kb / 4) as u32,
    }
}

/// Kernel defaults for the main area, then the keys given.
fn params(cfg: &FsConfig, zone: Option<(u64, u64)>, device_ipu: bool) -> Result<FsParams> {
    let zoned = zone.is_some();
    let sps = zone.map_or(1, |(s, _)| (s / SEG_BYTES).max(1) as u32);
    let kernel = match cfg.kernel {
        FsKernel::V5_4 => Kernel::V5_4,
        FsKernel::V6_1 => Kernel::V6_1,
        FsKernel::V6_6 => Kernel::V6_6,
        FsKernel::V6_12 => Kernel::V6_12,
        FsKernel::V6_18 => Kernel::V6_18,
    };
    let mut p = FsParams::kernel_default(zoned, kernel, sps);
    p.gc_boost_gc_multiple = p.gc_boost_gc_multiple.min(sps);
    // Adaptive on a zoned main area and background GC off there are refused by
    // `FsConfig::areas`.
    match cfg.mode {
        Some(FsModeCfg::Adaptive) => p.mode = FsMode::Adaptive,
        Some(FsModeCfg::Lfs) => p.mode = FsMode::Lfs,
        None => {}
    }
    if p.mode == FsMode::Lfs && cfg.ipu_policy.is_none() {
        p.ipu_policy = 0;
    }
    // Both namespace kinds (page-mapped and zoned) take `Op::Copy`: no device rejects it.
    p.gc_copy_offload = cfg.gc_copy_offload;
    p.device_ipu = device_ipu;
    macro_rules! set {
        ($($k:ident => $f:ident),*) => { $( if let Some(v) = cfg.$k { p.$f = v; } )* };
    }
    set!(ipu_policy => ipu_policy, min_fsync_blocks => min_fsync_blocks, min_ipu_util => min_ipu_util,
         background_gc => background_gc, gc_min_sleep_time => gc_min_sleep_time_ms,
         gc_max_sleep_time => gc_max_sleep_time_ms, gc_no_gc_sleep_time => gc_no_gc_sleep_time_ms,
         gc_idle_time => gc_idle_time_ms, gc_no_zoned_gc_percent => gc_no_zoned_gc_percent,
         gc_boost_zoned_gc_percent => gc_boost_zoned_gc_percent,
         gc_valid_thresh_ratio => gc_valid_thresh_ratio, gc_boost_gc_multiple => gc_boost_gc_multiple,
         migration_window_granularity => migration_window_granularity,
         max_victim_search => max_victim_search, cp_interval => cp_interval_ms,
         dirty_bytes => dirty_bytes, dirty_nodes_cp => dirty_nodes_cp, discard => discard,
         max_bio_bytes => max_bio_bytes, page_copy_ns => page_copy_ns);
    if let Some(g) = cfg.gc_boost_gc_greedy {
        p.gc_boost_gc_greedy = g == 1;
    }
    for (key, v) in [
        ("fs.gc_boost_gc_multiple", p.gc_boost_gc_multiple),
        (
            "fs.migration_window_granularity",
            p.migration_window_granularity,
        ),
    ] {
        if v > sps {
            return Err(Error::config(
                key,
                format!("must be at most the segments per section ({sps}), got {v}"),
            ));
        }
    }
    p.overprovision = cfg.overprovision;
    p.reserved_segments = cfg.reserved_segments;
    p.fg_victim = match cfg.fg_gc_victim {
        FsFgVictim::Greedy => FgVictim::Greedy,
        FsFgVictim::Fifo => FgVictim::Fifo,
    };
    if let Some(h) = &cfg.hot_extensions {
        p.hot_extensions = h.clone();
    }
    if let Some(c) = &cfg.cold_extensions {
        p.cold_extensions = c.clone();
    }
    Ok(p)
}

impl FsHost {
    /// Submit the file system's pending commands from `now`; returns when the last completes.
    /// In-place updates the device refused are written out of place in a further batch
    /// (`host::fs::ipu`).
    pub fn submit(&mut self, dev: &mut Device, now: SimTime) -> SimTime {
        let mut end = self.submit_batch(dev, now);
        while self.fs.ipu_fallback() {
            end = self.submit_batch(dev, end);
        }
        end
    }

    fn submit_batch(&mut self, dev: &mut Device, now: SimTime) -> SimTime {
        let (mut start, mut end) = (now, now);
        for i in 0..self.fs.out().cmds.len() {
            let c = self.fs.out().cmds[i];
            if c.barrier {
                start = end;
            }
            let ns = match c.area {
                Area::Meta => self.meta_ns,
                Area::Main => self.main_ns,
            };
            if c.io.kind == IoKind::Flush && self.meta_ns != self.main_ns {
                let d = dev.submit(start, self.meta_ns, command(&c.io)).done;
                end = end.max(d);
            }
            let cmd = match c.copy_from {
                Some(src) => Command::widen(
                    Op::Copy {
                        dst: Lba(c.io.offset / SLOT_BYTES),
                    },
                    src,
                    c.io.len,
                ),
                None => command(&c.io),
            };
            let done = dev.submit(start, ns, cmd);
            if done.rejected && c.io.kind == IoKind::InPlace {
                self.fs.ipu_rejected(c.io.offset, c.io.len);
            }
            end = end.max(done.done);
        }
        self.fs.out().clear();
        end
    }

    /// The inode of `path`, created (with its directories) if new.
    pub fn open(
        &mut self,
        path: &str,
        hint: u8,
    ) -> std::result::Result<Ino, crate::host::fs::FsError> {
        if let Some(&i) = self.names.get(path) {
            return Ok(i);
        }
        let (dir, name) = match path.rsplit_once('/') {
            Some((d, n)) => (d, n),
            None => ("", path),
        };
        let parent = if dir.is_empty() {
            ROOT
        } else if let Some(&d) = self.names.get(dir) {
            d
        } else {
            let mut cur = ROOT;
            let mut acc = String::new();
            for part in dir.split('/').filter(|p| !p.is_empty()) {
                acc.push('/');
                acc.push_str(part);
                cur = match self.names.get(&acc) {
                    Some(&d) => d,
                    None => {
                        let d = self.fs.mkdir(cur)?;
                        self.names.insert(acc.clone(), d);
                        d
                    }
                };
            }
            self.names.insert(dir.to_string(), cur);
            cur
        };
        let ino = self.fs.create(parent, name, hint)?;
        self.names.insert(path.to_string(), ino);
        Ok(ino)
    }

    /// Forget `path` (unlinked).
    pub fn remove(&mut self, path: &str) -> Option<Ino> {
        self.names.remove(path)
    }
}

/// The most files the fio jobs of a run may use together (fio's own `nrfiles` limit).
pub const MAX_FILES: u64 = 1 << 20;

/// A fio job on files: its files and the map from the generator's offsets (over
/// `nrfiles × filesize`, files interleaved block by block as fio's round-robin file service)
/// to (file, offset).
pub struct FileJob {
    pub names: Vec<String>,
    pub inos: Vec<Option<Ino>>,
    pub filesize: u64,
    pub bs: u64,
    pub datasync: bool,
    pub end_fsync: bool,
    pub unlink: bool,
    pub direct: bool,
    pub create_on_open: bool,
    pub reads: bool,
    pub hint: u8,
    /// zonesim's `ipu=1`: the files are marked for the device's budget-based in-place update
    /// (`host::fs::ipu`); the job file and the option's line, for the error when the device
    /// has no budget.
    pub ipu_at: Option<(String, u64)>,
    pub last_file: usize,
    pub tail_done: bool,
}

impl FileJob {
    /// The job's files; the generator's spec (size over all files, fsync by fdatasync).
    pub fn new(spec: &JobSpec, clone: u32, jobnum: usize) -> Result<(FileJob, JobSpec)> {
        let f = &spec.files;
        // At the line of the option that breaks the rule (the job's header if none was given).
        let err = |options: &[&str], rule: String| {
            Error::parse(
                &spec.file,
                spec.line_of(options),
                format!("job '{}': {rule}", spec.name),
            )
        };
        if spec.zonemode == ZoneMode::Zbd {
            return Err(err(
                &["zonemode"],
                "zonemode=zbd addresses a zoned device, not files: drop it with --fs".into(),
            ));
        }
        if spec.rw.is_trim() {
            return Err(err(
                &["rw", "readwrite"],
                "trim jobs are not supported on files".into(),
            ));
        }
        let nrfiles = f.nrfiles.unwrap_or(1) as u64;
        let size = match spec.size {
            Some(crate::host::fio::SizeSpec::Bytes(b)) => Some(b),
            Some(_) => {
                return Err(err(
                    &["size"],
                    "size in % or zones has no meaning on files; give bytes".into(),
                ))
            }
            None => None,
        };
        let filesize = match (f.filesize, size) {
            (Some(fs), _) => fs,
            (None, Some(s)) => s / nrfiles,
            (None, None) => return Err(err(&[], "a job on files needs size= or filesize=".into())),
        } / spec.bs
            * spec.bs;
        if filesize == 0 {
            return Err(err(
                &["filesize", "size", "bs", "blocksize"],
                format!("files smaller than bs={} bytes", spec.bs),
            ));
        }
        let dir = f.directory.clone().unwrap_or_default();
        let dir = dir.trim_end_matches('/');
        let names = match &f.filename {
            Some(n) if nrfiles == 1 => vec![join(dir, n)],
            _ => (0..nrfiles)
                .map(|k| join(dir, &format!("{}.{}.{k}", spec.name, jobnum as u32 + clone)))
                .collect(),
        };
        let mut g = spec.clone();
        g.size = Some(crate::host::fio::SizeSpec::Bytes(filesize * nrfiles));
        g.offset = crate::host::fio::SizeSpec::Bytes(0);
        if g.fsync == 0 {
            g.fsync = f.fdatasync;
        }
        // The file system decides what goes in place: the generator writes plain writes.
        g.ipu = false;
        Ok((
            FileJob {
                inos: vec![None; names.len()],
                names,
                filesize,
                bs: spec.bs,
                datasync: spec.fsync == 0 && f.fdatasync > 0,
                end_fsync: f.end_fsync,
                unlink: f.unlink,
                direct: f.direct.unwrap_or(false),
                create_on_open: f.create_on_open,
                reads: spec.rw.has_reads(),
                hint: spec.write_hint.code(),
                ipu_at: spec
                    .ipu
                    .then(|| (spec.file.clone(), spec.line_of(&["ipu"]))),
                last_file: 0,
                tail_done: false,
            },
            g,
        ))
    }

    /// (file, offset in it) of generator offset `off`.
    #[inline]
    pub fn map(&self, off: u64) -> (usize, u64) {
        let n = self.names.len() as u64;
        let k = off / self.bs;
        ((k % n) as usize, (k / n) * self.bs + off % self.bs)
    }

    /// The inode of file `f`, opened (created) on first use.
    pub fn ino(
        &mut self,
        host: &mut FsHost,
        f: usize,
    ) -> std::result::Result<Ino, crate::host::fs::FsError> {
        if let Some(i) = self.inos[f] {
            return Ok(i);
        }
        let i = host.open(&self.names[f], self.hint)?;
        if self.ipu_at.is_some() {
            // Checked before the run: the device has a budget (`check_ipu`).
            host.fs.mark_ipu(i);
        }
        self.inos[f] = Some(i);
        Ok(i)
    }

    /// `ipu=1` needs a main area whose device offers an in-place update budget.
    pub fn check_ipu(&self, job: &str, host: &FsHost) -> Result<()> {
        match &self.ipu_at {
            Some((file, line)) if !host.fs.device_ipu() => Err(Error::parse(
                file,
                *line,
                format!("job '{job}': ipu=1 on files needs a zoned main area with an in-place update budget (zone.ipu_budget_bytes > 0)"),
            )),
            _ => Ok(()),
        }
    }

    /// At the job's start: create its files (unless `create_on_open`) and lay out those it
    /// reads that are short (fio writes them first), with an fsync; a write job's files are
    /// preallocated (fio's default `fallocate=native`; the F2FS model has none).
    pub fn setup(&mut self, host: &mut FsHost) {
        if self.create_on_open && !self.reads {
            return;
        }
        for f in 0..self.names.len() {
            let Ok(ino) = self.ino(host, f) else { return };
            if !self.reads && host.fs.preallocate(ino, self.filesize).is_err() {
                return;
            }
            if self.reads && host.fs.size(ino) < self.filesize {
                let from = host.fs.size(ino);
                if host
                    .fs
                    .write(ino, from, self.filesize - from, false)
                    .is_err()
                {
                    return;
                }
                host.fs.fsync(ino, false);
            }
        }
    }

    /// At the job's end: `end_fsync` and `unlink`.
    pub fn tail(&mut self, host: &mut FsHost) {
        self.tail_done = true;
        for f in 0..self.names.len() {
            let Some(ino) = self.inos[f] else { continue };
            if self.end_fsync {
                host.fs.fsync(ino, false);
            }
            if self.unlink {
                host.fs.unlink(ino);
                host.remove(&self.names[f]);
                self.inos[f] = None;
            }
        }
    }

    pub fn has_tail(&self) -> bool {
        !self.tail_done && (self.end_fsync || self.unlink)
    }

    /// Run one request of the generator on the file system; the page-copy time of buffered
    /// data, or `Err` on ENOSPC.
    pub fn run(
        &mut self,
        host: &mut FsHost,
        io: &HostIo,
    ) -> std::result::Result<u64, crate::host::fs::FsError> {
        match io.kind {
            IoKind::Write | IoKind::Read => {
                let (f, off) = self.map(io.offset);
                let ino = self.ino(host, f)?;
                self.last_file = f;
                if io.kind == IoKind::Write {
                    host.fs.write(ino, off, io.len, self.direct)?;
                } else {
                    host.fs.read(ino, off, io.len);
                }
                Ok(if self.direct {
                    0
                } else {
                    io.len.div_ceil(4096) * host.fs.page_copy_ns()
                })
            }
            IoKind::Flush => {
                if let Some(ino) = self.inos[self.last_file] {
                    host.fs.fsync(ino, self.datasync);
                }
                Ok(0)
            }
            _ => Ok(0),
        }
    }
}

fn join(dir: &str, name: &str) -> String {
    if dir.is_empty() {
        name.to_string()
    } else {
        format!("{dir}/{name}")
    }
}

/// The file system's columns of the time series (`stats.interval_ms`): segment classes,
/// fragmentation, GC phase (0 off, 1 No-GC, 2 Normal, 3 Boosted) and cumulative bytes written
/// by kind, from [`F2fs::sample`]; ext4: journal commits and blocks written by kind.
impl crate::stats::SeriesSection for FsHost {
    fn series_columns(&self) -> Vec<&'static str> {
        if self.fs.as_ext4().is_some() {
            return vec![
                "fs.journal_commits",
                "fs.data_blocks",
                "fs.journal_blocks",
                "fs.metadata_home_blocks",
                "fs.dirty_pages",
            ];
        }
        vec![
            "fs.free_segments",
            "fs.dirty_segments",
            "fs.valid_segments",
            "fs.prefree_segments",
            "fs.free_sections",
            "fs.fragmentation",
            "fs.gc_phase",
            "fs.user_bytes",
            "fs.bytes_written",
            "fs.gc_bytes_written",
            "fs.node_bytes",
            "fs.meta_bytes",
        ]
    }

    fn sample_series(&self, out: &mut Vec<f64>) {
        use crate::host::fs::GcPhase;
        let f = match &self.fs {
            HostFs::F2fs(f) => f,
            HostFs::Ext4(e) => {
                let c = e.counters();
                out.extend([
                    c.commits.total() as f64,
                    c.data_blocks as f64,
                    c.journal_blocks() as f64,
                    c.meta_home.total() as f64,
                    e.dirty_pages() as f64,
                ]);
                return;
            }
        };
        let s = f.sample();
        let phase = match s.gc_phase {
            GcPhase::Off => 0.0,
            GcPhase::NoGc => 1.0,
            GcPhase::Normal => 2.0,
            GcPhase::Boosted => 3.0,
        };
        out.extend([
            s.free_segments as f64,
            s.dirty_segments as f64,
            s.valid_segments as f64,
            s.prefree_segments as f64,
            s.free_sections as f64,
            s.fragmentation,
            phase,
            s.user_bytes as f64,
            s.fs_bytes_written as f64,
            s.gc_bytes_written as f64,
            s.node_bytes as f64,
            s.meta_bytes as f64,
        ]);
    }
}
