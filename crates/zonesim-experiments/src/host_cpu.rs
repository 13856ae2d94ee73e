//! The host CPU on the file-system rig (`fs_common::FsRig`): the experiments that drive F2FS
//! one call at a time charge each call's host steps on the cores of `[host.cpu]`
//! (docs/host-cpu.md; the pure model is `host::cpu`), the steps the run charges for an fio
//! file job (`sim/host_cpu.rs`, "The steps of a request"): the application's own work (a
//! burst the caller gives: SQLite's transaction and pages with its `write` calls, a game's
//! verification), then per fsync/fdatasync its system call and F2FS's fsync path, the
//! page-cache copy per 4 KiB of buffered data, F2FS's node blocks and checkpoints, and the block
//! layer per device request — one burst on the application's thread before its device
//! requests leave — and, after the last of them completes, the completion path per request.
//! With the model on, `fs.page_copy_ns` is not added: the copy is on the cores.
//!
//! The rig's background GC thread submits its requests without CPU time here (the run charges
//! the block layer for it, `CpuRun::background`); its work takes no core from the
//! application, which is one thread on many cores in every experiment that uses this.

use super::fs_common::FsRig;
use std::cell::Cell;
use zonesim::config::HostCpuConfig;
use zonesim::engine::SimTime;
use zonesim::host::cpu::{Burst, HostCpu, Step};
use zonesim::host::fs::F2fs;

/// The application's thread on the host CPU: the cores and where its time went.
pub struct RigCpu {
    cpu: HostCpu,
    /// Time the calls spent on the host (on a core or waiting for one), ns, since `mark`.
    pub host_ns: u64,
    /// Calls run since `mark`.
    pub calls: u64,
    /// Of the calls' time, waiting for their device requests (from the end of the submission
    /// burst to the last completion), ns, since `mark`.
    pub io_ns: u64,
}

/// What F2FS's counters say a call did, for its host steps.
#[derive(Clone, Copy)]
struct FsWork {
    node_blocks: u64,
    checkpoints: u64,
    syncs: u64,
    /// Buffered bytes copied between the application and the page cache.
    copied: u64,
}

impl FsWork {
    fn of(fs: &F2fs) -> FsWork {
        let c = &fs.c;
        FsWork {
            node_blocks: c.node_bytes / 4096,
            checkpoints: c.checkpoints.total,
            syncs: c.fsyncs + c.fdatasyncs,
            copied: c.user_bytes_requested + c.user_bytes_read,
        }
    }

    /// Add the file system's steps between `self` (before the call) and `after` to `b`.
    fn add_since(self, after: FsWork, b: &mut Burst) {
        let syncs = after.syncs - self.syncs;
        b.add(Step::Syscall, syncs)
            .add(Step::F2fsFsync, syncs)
            .add(Step::PageCopy, (after.copied - self.copied).div_ceil(4096))
            .add(Step::F2fsNode, after.node_blocks - self.node_blocks)
            .add(Step::F2fsCheckpoint, after.checkpoints - self.checkpoints);
    }
}

impl RigCpu {
    /// The cores and step costs of `cfg`; None when the model is off (`cores = 0`).
    pub fn new(cfg: &HostCpuConfig) -> Option<RigCpu> {
        Some(RigCpu {
            cpu: HostCpu::new(zonesim::sim::cpu_model(cfg)?, 1),
            host_ns: 0,
            calls: 0,
            io_ns: 0,
        })
    }

    /// Restart the counts (with `FsRig::mark`).
    pub fn mark(&mut self) {
        self.host_ns = 0;
        self.calls = 0;
        self.io_ns = 0;
    }

    /// Run burst `b` of host thread `thread` (0 is the thread of [`RigCpu::op`]; another is
    /// one of the application's workers) ready at `at`; returns when it ends. The rig's clock
    /// does not move.
    pub fn run(&mut self, thread: usize, at: SimTime, b: &Burst) -> SimTime {
        SimTime(self.cpu.run(thread, at.ns(), b))
    }

    /// Mean host time per call since `mark`, µs.
    pub fn host_us_per_call(&self) -> f64 {
        self.host_ns as f64 / self.calls.max(1) as f64 / 1000.0
    }

    /// Run file-system call(s) `f` on `rig` now as one burst of the application's thread:
    /// `app(&result)` is the application's own work (its `write` calls included), the file
    /// system's steps are read from its counters, then the device requests run and their
    /// completion path follows. The rig's clock ends when the call returns.
    pub fn op<T>(
        &mut self,
        rig: &mut FsRig,
        f: impl FnOnce(&mut F2fs) -> T,
        app: impl FnOnce(&T) -> Burst,
    ) -> T {
        let before = FsWork::of(rig.f2fs());
        let burst = Cell::new(Burst::new());
        let mut out = None;
        let (start, mut entered, mut cmds) = (rig.now, rig.now, 0);
        let cpu = &mut self.cpu;
        rig.op_after(
            |fs| {
                let r = f(fs);
                let mut b = app(&r);
                before.add_since(FsWork::of(fs), &mut b);
                burst.set(b);
                out = Some(r);
            },
            |n, at| {
                cmds = n;
                let b = burst.get().with(Step::BlockSubmit, n);
                entered = SimTime(cpu.run(0, at.ns(), &b));
                entered
            },
        );
        let mut host = entered.since(start);
        self.io_ns += rig.now.since(entered);
        if cmds > 0 {
            let done =
                SimTime(cpu.run(0, rig.now.ns(), &Burst::new().with(Step::Completion, cmds)));
            host += done.since(rig.now);
            rig.now = done;
        }
        cpu.advance(start.ns());
        self.host_ns += host;
        self.calls += 1;
        out.expect("op_after runs the call")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conzone_common::{fs_device, ZONED_NS};
    use zonesim::config::fs::FsConfig;

    fn rig() -> FsRig {
        let (cfg, _) = fs_device(false, true).unwrap();
        let fs = FsConfig {
            meta_namespace: Some(0),
            main_namespace: Some(ZONED_NS),
            ..FsConfig::default()
        };
        FsRig::new(&cfg, &fs, 1).unwrap()
    }

    /// One core, costs on the system call and the page copy only.
    fn cpu() -> RigCpu {
        let cfg = HostCpuConfig {
            cores: 1,
            syscall_ns: 1_000,
            page_copy_ns: 500,
            block_submit_ns: 0,
            completion_ns: 0,
            f2fs_write_ns: 0,
            f2fs_fsync_ns: 0,
            f2fs_node_ns: 0,
            f2fs_checkpoint_ns: 0,
            ..HostCpuConfig::default()
        };
        RigCpu::new(&cfg).unwrap()
    }

    /// Fsync'd 4 KiB writes in a closed loop on the block form with its SLC cache written back
    /// when idle: with no host time the device never idles and nothing is written back; on the
    /// cores each call leaves the device idle for its host steps and the write-back runs there.
    #[test]
    fn host_time_lets_the_write_back_run_in_the_gaps() {
        use crate::conzone_common::with_slc_cache;
        use crate::fs_common::{writeback_pages, WRITEBACK_CHECKED};
        use zonesim::config::SlcPolicy;
        let written_back = |on: bool| {
            let (mut cfg, _) = fs_device(true, true).unwrap();
            with_slc_cache(&mut cfg, SlcPolicy::Bypass).unwrap();
            WRITEBACK_CHECKED.apply(&mut cfg).unwrap();
            let fs = FsConfig {
                meta_namespace: Some(0),
                main_namespace: Some(ZONED_NS),
                ..FsConfig::default()
            };
            let mut r = FsRig::new(&cfg, &fs, 1).unwrap();
            let f = r.create("t", "f").unwrap();
            let mut c = on.then(|| {
                RigCpu::new(&HostCpuConfig {
                    cores: 2,
                    ..HostCpuConfig::default()
                })
                .unwrap()
            });
            for i in 0..2_000u64 {
                let call = |fs: &mut F2fs| {
                    fs.write(f, (i % 64) * 4096, 4096, false).unwrap();
                    fs.fsync(f, true);
                };
                match c.as_mut() {
                    None => r.op(0, call),
                    Some(c) => c.op(&mut r, call, |_| Burst::of(Step::Syscall)),
                }
            }
            writeback_pages(&r.dev, ZONED_NS)
        };
        assert_eq!(written_back(false), 0);
        assert!(written_back(true) > 0);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(16))]
        /// Any sequence of buffered or direct writes, reads and fdatasyncs on one thread, with
        /// any step costs: each call's time is its host time plus its wait for the device, the
        /// clock never goes back, and a call costs at least its own steps.
        #[test]
        fn calls_split_into_host_and_device_time(
            calls in proptest::collection::vec((0u8..4, 1u64..64, 0u64..256), 1..60),
            syscall in 0u64..5_000,
            copy in 0u64..3_000,
            submit in 0u64..5_000,
            completion in 0u64..8_000,
        ) {
            let mut r = rig();
            let f = r.create("t", "f").unwrap();
            let cfg = HostCpuConfig {
                cores: 2,
                syscall_ns: syscall,
                page_copy_ns: copy,
                block_submit_ns: submit,
                completion_ns: completion,
                ..HostCpuConfig::default()
            };
            let mut c = RigCpu::new(&cfg).unwrap();
            for (kind, blocks, at) in calls {
                let (t0, h0, io0) = (r.now, c.host_ns, c.io_ns);
                let (off, len) = (at * 4096, blocks * 4096);
                c.op(
                    &mut r,
                    |fs| match kind {
                        0 => drop(fs.write(f, off, len, false)),
                        1 => drop(fs.write(f, off, len, true)),
                        2 => fs.read(f, off, len),
                        _ => fs.fsync(f, true),
                    },
                    |_| Burst::of(Step::Syscall),
                );
                let (host, io) = (c.host_ns - h0, c.io_ns - io0);
                proptest::prop_assert!(r.now >= t0);
                proptest::prop_assert_eq!(r.now.since(t0), host + io);
                proptest::prop_assert!(host >= syscall);
            }
            proptest::prop_assert!(c.cpu.check().is_ok());
        }
    }

    #[test]
    fn off_is_none() {
        assert!(RigCpu::new(&HostCpuConfig::default()).is_none());
    }

    /// A buffered 8 KiB write and its fdatasync: the application's write call (given), the
    /// fdatasync's system call and two page copies (from F2FS's counters) on the core before the
    /// device requests; the call's time is that host time plus the wait for the device.
    #[test]
    fn a_call_costs_its_host_steps_then_its_device_time() {
        let mut r = rig();
        let f = r.create("t", "f").unwrap();
        let mut c = cpu();
        let t0 = r.now;
        c.op(
            &mut r,
            |fs| {
                fs.write(f, 0, 8192, false).unwrap();
                fs.fsync(f, true);
            },
            |_| Burst::of(Step::Syscall),
        );
        assert_eq!(c.host_ns, 2 * 1_000 + 2 * 500);
        assert!(c.io_ns > 0, "the fdatasync reaches the device");
        assert_eq!(r.now.since(t0), c.host_ns + c.io_ns);
        assert_eq!(c.calls, 1);
        // A call that reaches no device: only its host work.
        let t1 = r.now;
        c.mark();
        c.op(
            &mut r,
            |fs| fs.write(f, 8192, 4096, false).unwrap(),
            |_| Burst::of(Step::Syscall),
        );
        assert_eq!((c.host_ns, c.io_ns), (1_500, 0));
        assert_eq!(r.now.since(t1), 1_500);
    }
}
