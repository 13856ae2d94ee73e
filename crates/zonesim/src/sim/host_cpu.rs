//! The host CPU in the run (`[host.cpu]`, docs/host-cpu.md): binds the pure model
//! (`host::cpu`) to the engine. Each source is one host thread (an fio job clone: fio's
//! `numjobs`); a block request's submission path (system call, block layer and driver) runs on
//! a core before the request reaches the host path's stages and the device, and its completion
//! path (interrupt, request end) after the device completes it, before the source sees it. A
//! file job's call runs its system call, F2FS work and page copies before its device requests
//! are submitted, and their completion path after the last completes. So a closed loop leaves
//! the device idle between requests, and the device's idle work (SLC write-back, background
//! GC) runs in those gaps: with the model on, the engine's idle timer follows the requests at
//! the device, not the host's.
//!
//! Off (`host.cpu.cores = 0`, the default) the engine holds no `CpuRun` and each place that
//! would call it is one `Option` test.

use crate::config::HostCpuConfig;
use crate::engine::SimTime;
use crate::host::cpu::{Burst, CpuConfig, HostCpu, Step, STEPS};
use crate::host::{HostIo, IoKind};
use crate::stats::report::{HostCpuReport, LatencyBreakdown};

/// Host and device time of one source's requests.
#[derive(Debug, Clone, Copy, Default)]
struct Split {
    host_ns: u64,
    /// Sum over requests of (device completion − arrival at the host path's stages): the
    /// arrival is subtracted when it happens and the completion added when it does, so the
    /// sum is exact once every request has completed (wrapping arithmetic in between).
    device_ns: u64,
    requests: u64,
}

/// The host CPU of a run and what it measured.
pub(super) struct CpuRun {
    pub cpu: HostCpu,
    splits: Vec<Split>,
    /// Requests at the device (arrived at the host path's stages, not yet completed by it).
    pub at_device: u64,
    /// Requests that have arrived there, ever: the idle work's token.
    pub arrived: u64,
    /// The file system's device requests are booked when its call runs (ahead of the clock):
    /// the span of the last call's requests, and the end of all earlier ones.
    fs_last: (SimTime, SimTime),
    fs_before: SimTime,
    /// A file job ran on ext4 (its step classes are reported).
    ext4: bool,
    /// The InnoDB model ran on the cores (its step classes are reported).
    innodb: bool,
}

/// What the file system did in one call: counters read before and after it.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct FsWork {
    ext4: bool,
    node_blocks: u64,
    checkpoints: u64,
}

impl FsWork {
    /// From the file system's (ext4, metadata blocks, checkpoints or commits) so far: F2FS's
    /// node blocks and checkpoints, or ext4's journalled blocks and commits.
    pub fn of((ext4, node_blocks, checkpoints): (bool, u64, u64)) -> FsWork {
        FsWork {
            ext4,
            node_blocks,
            checkpoints,
        }
    }
}

/// The pure model's configuration of `[host.cpu]` `cfg` (the cost of each step class); None
/// when it is off. The run's `CpuRun` and the experiments that drive a file system or an
/// application themselves build their cores from it.
pub fn cpu_model(cfg: &HostCpuConfig) -> Option<CpuConfig> {
    if cfg.is_off() {
        return None;
    }
    let mut cost_ns = [0u64; STEPS];
    for (step, ns) in [
        (Step::Syscall, cfg.syscall_ns),
        (Step::PageCopy, cfg.page_copy_ns),
        (Step::BlockSubmit, cfg.block_submit_ns),
        (Step::Completion, cfg.completion_ns),
        (Step::F2fsWrite, cfg.f2fs_write_ns),
        (Step::F2fsFsync, cfg.f2fs_fsync_ns),
        (Step::F2fsNode, cfg.f2fs_node_ns),
        (Step::F2fsCheckpoint, cfg.f2fs_checkpoint_ns),
        (Step::Ext4Write, cfg.ext4_write_ns),
        (Step::Ext4Fsync, cfg.ext4_fsync_ns),
        (Step::Ext4Commit, cfg.ext4_commit_ns),
        (Step::Ext4JournalBlock, cfg.ext4_journal_block_ns),
        (Step::SqliteTxn, cfg.sqlite_txn_ns),
        (Step::SqlitePage, cfg.sqlite_page_ns),
        (Step::AppVerify, cfg.verify_mib_ns),
        (Step::InnodbStatement, cfg.innodb_statement_ns),
        (Step::InnodbPage, cfg.innodb_page_ns),
        (Step::InnodbCommit, cfg.innodb_commit_ns),
    ] {
        cost_ns[step as usize] = ns;
    }
    Some(CpuConfig {
        cores: cfg.cores,
        little: cfg.little_cores,
        little_speed: cfg.little_speed,
        cost_ns,
    })
}

impl CpuRun {
    /// The model of `cfg` for `sources` threads; None when it is off.
    pub fn new(cfg: &HostCpuConfig, sources: usize) -> Option<CpuRun> {
        let model = cpu_model(cfg)?;
        Some(CpuRun {
            cpu: HostCpu::new(model, sources),
            splits: vec![Split::default(); sources],
            at_device: 0,
            arrived: 0,
            fs_last: (SimTime::ZERO, SimTime::ZERO),
            ext4: false,
            innodb: false,
            fs_before: SimTime::ZERO,
        })
    }

    /// An application thread's burst `b` (InnoDB's statements, pages and commits), ready at
    /// `at`: returns when it ends. Applications keep their own latency; no breakdown here.
    pub fn app(&mut self, thread: u32, at: SimTime, b: &Burst) -> SimTime {
        self.innodb = true;
        SimTime(self.cpu.run(thread as usize, at.ns(), b))
    }

    /// A block request of `src` issued at `now`: its submission path (system call, block
    /// layer and driver) on a core; returns when it reaches the host path's stages.
    pub fn submit(&mut self, src: u32, now: SimTime) -> SimTime {
        self.cpu.advance(now.ns());
        let b = Burst::of(Step::Syscall).with(Step::BlockSubmit, 1);
        let at = SimTime(self.cpu.run(src as usize, now.ns(), &b));
        self.splits[src as usize].host_ns += at.since(now);
        at
    }

    /// The request of `src` arrives at the host path's stages now (on its way to the device).
    pub fn arrive(&mut self, src: u32, now: SimTime) {
        let s = &mut self.splits[src as usize];
        s.device_ns = s.device_ns.wrapping_sub(now.ns());
        self.at_device += 1;
        self.arrived += 1;
    }

    /// The device completed a request of `src` now: its completion path on a core; returns
    /// when the source sees it.
    pub fn complete(&mut self, src: u32, now: SimTime) -> SimTime {
        self.at_device -= 1;
        let s = &mut self.splits[src as usize];
        s.device_ns = s.device_ns.wrapping_add(now.ns());
        let b = Burst::of(Step::Completion);
        let at = SimTime(self.cpu.run(src as usize, now.ns(), &b));
        let s = &mut self.splits[src as usize];
        s.host_ns += at.since(now);
        s.requests += 1;
        at
    }

    /// A file job's call `io` of `src` at `now` that did `work` in the file system and queued
    /// `cmds` device requests: the submission path before them (system call, F2FS work, page
    /// copies of buffered data, block layer); returns when they are submitted.
    pub fn fs_submit(
        &mut self,
        src: u32,
        now: SimTime,
        io: &HostIo,
        buffered: bool,
        work: (FsWork, FsWork),
        cmds: u64,
    ) -> SimTime {
        self.cpu.advance(now.ns());
        let (before, after) = work;
        let mut b = Burst::of(Step::Syscall);
        self.ext4 |= after.ext4;
        let (write, fsync, node, cp) = if after.ext4 {
            (
                Step::Ext4Write,
                Step::Ext4Fsync,
                Step::Ext4JournalBlock,
                Step::Ext4Commit,
            )
        } else {
            (
                Step::F2fsWrite,
                Step::F2fsFsync,
                Step::F2fsNode,
                Step::F2fsCheckpoint,
            )
        };
        match io.kind {
            IoKind::Write => {
                b.add(write, 1);
            }
            IoKind::Flush => {
                b.add(fsync, 1);
            }
            _ => {}
        }
        if buffered && matches!(io.kind, IoKind::Write | IoKind::Read) {
            b.add(Step::PageCopy, io.len.div_ceil(4096));
        }
        b.add(node, after.node_blocks - before.node_blocks);
        b.add(cp, after.checkpoints - before.checkpoints);
        b.add(Step::BlockSubmit, cmds);
        let at = SimTime(self.cpu.run(src as usize, now.ns(), &b));
        self.splits[src as usize].host_ns += at.since(now);
        at
    }

    /// The device requests of a file job's call were submitted at `at` and the last completed
    /// at `end` (`cmds` of them): their completion path; returns when the call returns.
    pub fn fs_complete(&mut self, src: u32, at: SimTime, end: SimTime, cmds: u64) -> SimTime {
        let s = &mut self.splits[src as usize];
        s.requests += 1;
        if cmds == 0 {
            return at;
        }
        s.device_ns = s.device_ns.wrapping_add(end.since(at));
        self.fs_before = self.fs_before.max(self.fs_last.1);
        self.fs_last = (at, end);
        // A new idle chain starts after these requests; the one of the previous call ends.
        self.arrived += 1;
        let b = *Burst::new().add(Step::Completion, cmds);
        let done = SimTime(self.cpu.run(src as usize, end.ns(), &b));
        self.splits[src as usize].host_ns += done.since(end);
        done
    }

    /// A background thread `thread` of the host (F2FS's GC thread) submits `cmds` device
    /// requests at `now`: the block layer's submission of each on a core; returns when they
    /// are submitted. Its time counts in `host_cpu` but in no job's breakdown.
    pub fn background(&mut self, thread: u32, now: SimTime, cmds: u64) -> SimTime {
        let b = *Burst::new().add(Step::BlockSubmit, cmds);
        SimTime(self.cpu.run(thread as usize, now.ns(), &b))
    }

    /// The background thread's `cmds` device requests completed at `end`: their completion
    /// path on a core.
    pub fn background_done(&mut self, thread: u32, end: SimTime, cmds: u64) {
        let b = *Burst::new().add(Step::Completion, cmds);
        self.cpu.run(thread as usize, end.ns(), &b);
    }

    /// The device is idle at `now` for the idle work scheduled with `token`: no block request
    /// arrived since, none is at the device, and `now` lies in no span of the file system's
    /// booked requests (a call's requests, booked ahead, may start after `now`).
    pub fn idle(&self, token: u64, now: SimTime) -> bool {
        let (start, end) = self.fs_last;
        token == self.arrived
            && self.at_device == 0
            && now >= self.fs_before
            && (now < start || now >= end)
    }

    /// Source `src`'s latency breakdown: mean host and device time per request (µs).
    pub fn breakdown(&self, src: usize) -> LatencyBreakdown {
        let s = self.splits[src];
        let n = s.requests.max(1) as f64;
        LatencyBreakdown {
            host_us: s.host_ns as f64 / n / 1000.0,
            device_us: s.device_ns as f64 / n / 1000.0,
        }
    }

    /// The report's `host_cpu` over the measured window of `window_ns`.
    pub fn report(&self, window_ns: u64) -> HostCpuReport {
        debug_assert!(self.cpu.check().is_ok(), "{:?}", self.cpu.check());
        let w = window_ns.max(1) as f64;
        let busy = self.cpu.busy_ns().iter().map(|&b| b as f64 / w).collect();
        // ext4's and InnoDB's classes only when they ran: the report of any other run is
        // unchanged.
        let time_ns = Step::ALL
            .iter()
            .filter(|s| (self.ext4 || !s.is_ext4()) && (self.innodb || !s.is_innodb()))
            .map(|&s| (s.name(), self.cpu.time_ns()[s as usize]))
            .collect();
        HostCpuReport {
            cores: self.cpu.busy_ns().len() as u32,
            busy,
            time_ns,
            window_ns,
        }
    }
}
