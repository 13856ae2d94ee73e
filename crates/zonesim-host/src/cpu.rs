//! The host CPU (`[host.cpu]`, docs/host-cpu.md): the cores every host thread runs on and the
//! CPU time each step of a request's host path takes on them.
//!
//! A host thread (an fio job clone, the application's thread) asks for CPU time for one burst
//! of steps — a system call's entry, the file system's work for the call, the page-cache copy,
//! the block layer's submission of the device requests — at a time; the burst runs on one
//! core, on the core where it *finishes* first (lowest index on a tie), in the earliest gap of
//! that core at or after the moment the thread asks and its previous burst ended. A core runs
//! one burst at a time; a burst, once started, runs to its end (host steps last microseconds,
//! far less than a scheduler tick). So threads contend for cores in the order they ask (FIFO),
//! and a thread's own bursts never overlap.
//!
//! Why the earliest-finishing core and not a fixed thread→core affinity: Linux balances
//! runnable threads over idle cores within a few milliseconds (and Android's energy-aware
//! scheduler moves busy threads to big cores), so a fixed pinning would leave a core idle while
//! another has a queue. With more threads than cores both give the same contention (N threads
//! on one core take N× the time).
//!
//! Big/little: cores `0..cores - little` run at speed 1, the `little` last ones at
//! `little_speed`; a burst's cost is divided by its core's speed. The CPU time of each step
//! class (`time_ns`) and the busy time of each core add up to the same total (checked in debug
//! builds by [`HostCpu::check`]).
//!
//! The model is pure: bookings are [`Timeline`]s of the cores, so a burst asked for a later
//! time (a completion path after a device completion computed ahead) leaves the gap before it
//! to earlier work.

use zonesim_core::engine::{SimTime, Timeline};

/// A step class of the host path: what a burst of CPU time is spent on. File systems and
/// applications name their own classes (ext4's will sit beside F2FS's).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Step {
    /// System call entry and exit (one per call).
    Syscall,
    /// Copy of one 4 KiB page between user memory and the page cache.
    PageCopy,
    /// Block layer and driver: building and submitting one device request.
    BlockSubmit,
    /// Completion interrupt and the completion path of one device request.
    Completion,
    /// F2FS: the write path of one write call (page lookup, dirty accounting, block
    /// reservation), without the copy.
    F2fsWrite,
    /// F2FS: one fsync / fdatasync call (writeback of the file's pages, node chain).
    F2fsFsync,
    /// F2FS: one node block updated and written.
    F2fsNode,
    /// F2FS: one checkpoint.
    F2fsCheckpoint,
    /// ext4: the write path of one write call (page lookup, delalloc reservation, inode
    /// dirtying in the running transaction), without the copy.
    Ext4Write,
    /// ext4: one fsync / fdatasync call, besides its journal commit and device requests.
    Ext4Fsync,
    /// ext4: one jbd2 commit (locking and closing the transaction, descriptor, commit block).
    Ext4Commit,
    /// ext4: one metadata block copied into the journal at a commit.
    Ext4JournalBlock,
    /// SQLite: one transaction (parse, B-tree, journal logic), without its pages.
    SqliteTxn,
    /// SQLite: one database or journal page handled.
    SqlitePage,
    /// An application verifying data it read (a game's asset check), per MiB.
    AppVerify,
    /// InnoDB (the MySQL server): one SQL statement's parse, optimisation and execution,
    /// without the index pages it touches.
    InnodbStatement,
    /// InnoDB: one buffer-pool page access (page hash lookup, latch, search in the page).
    InnodbPage,
    /// InnoDB: one transaction commit (undo state, redo hand-off, locks released), besides
    /// its log write.
    InnodbCommit,
}

/// Number of step classes.
pub const STEPS: usize = 18;

impl Step {
    /// Every class, in report order.
    pub const ALL: [Step; STEPS] = [
        Step::Syscall,
        Step::PageCopy,
        Step::BlockSubmit,
        Step::Completion,
        Step::F2fsWrite,
        Step::F2fsFsync,
        Step::F2fsNode,
        Step::F2fsCheckpoint,
        Step::Ext4Write,
        Step::Ext4Fsync,
        Step::Ext4Commit,
        Step::Ext4JournalBlock,
        Step::SqliteTxn,
        Step::SqlitePage,
        Step::AppVerify,
        Step::InnodbStatement,
        Step::InnodbPage,
        Step::InnodbCommit,
    ];

    /// One of ext4's classes (reported only when ext4 ran).
    pub fn is_ext4(self) -> bool {
        matches!(
            self,
            Step::Ext4Write | Step::Ext4Fsync | Step::Ext4Commit | Step::Ext4JournalBlock
        )
    }

    /// One of InnoDB's classes (reported only when the InnoDB model ran on the cores).
    pub fn is_innodb(self) -> bool {
        matches!(
            self,
            Step::InnodbStatement | Step::InnodbPage | Step::InnodbCommit
        )
    }

    /// The class's name in the report (`host_cpu.time_ns`).
    pub fn name(self) -> &'static str {
        match self {
            Step::Syscall => "syscall",
            Step::PageCopy => "page_copy",
            Step::BlockSubmit => "block_submit",
            Step::Completion => "completion",
            Step::F2fsWrite => "f2fs_write",
            Step::F2fsFsync => "f2fs_fsync",
            Step::F2fsNode => "f2fs_node",
            Step::F2fsCheckpoint => "f2fs_checkpoint",
            Step::Ext4Write => "ext4_write",
            Step::Ext4Fsync => "ext4_fsync",
            Step::Ext4Commit => "ext4_commit",
            Step::Ext4JournalBlock => "ext4_journal_block",
            Step::SqliteTxn => "sqlite_txn",
            Step::SqlitePage => "sqlite_page",
            Step::AppVerify => "app_verify",
            Step::InnodbStatement => "innodb_statement",
            Step::InnodbPage => "innodb_page",
            Step::InnodbCommit => "innodb_commit",
        }
    }
}

/// The cores and the cost of one unit of each step class on a speed-1 core (ns).
#[derive(Debug, Clone, PartialEq)]
pub struct CpuConfig {
    pub cores: u32,
    /// How many of the cores are little (the last ones).
    pub little: u32,
    /// Speed of a little core relative to a big one, (0, 1].
    pub little_speed: f64,
    /// Cost of one unit of each step class, by `Step as usize`.
    pub cost_ns: [u64; STEPS],
}

/// A burst of host steps one thread asks to run: units of each class, costed together.
#[derive(Debug, Clone, Copy, Default)]
pub struct Burst {
    units: [u64; STEPS],
}

impl Burst {
    /// An empty burst.
    pub const fn new() -> Burst {
        Burst { units: [0; STEPS] }
    }

    /// Add `n` units of `step`.
    #[inline]
    pub fn add(&mut self, step: Step, n: u64) -> &mut Burst {
        self.units[step as usize] += n;
        self
    }

    /// `step` once, chained: `Burst::of(Step::Syscall).with(Step::BlockSubmit, 1)`.
    #[inline]
    pub fn of(step: Step) -> Burst {
        let mut b = Burst::new();
        b.add(step, 1);
        b
    }

    #[inline]
    pub fn with(mut self, step: Step, n: u64) -> Burst {
        self.add(step, n);
        self
    }
}

/// The host CPU: per-core bookings, each thread's last burst end and the time per class.
#[derive(Debug, Clone)]
pub struct HostCpu {
    cfg: CpuConfig,
    cores: Vec<Timeline>,
    /// 1 / speed of each core.
    slowness: Vec<f64>,
    busy_ns: Vec<u64>,
    /// When each thread's last burst ends (a thread runs one burst at a time).
    thread_free: Vec<u64>,
    time_ns: [u64; STEPS],
}

impl HostCpu {
    /// `cfg.cores` cores (at least 1) for `threads` host threads (more are added on demand).
    pub fn new(cfg: CpuConfig, threads: usize) -> HostCpu {
        let n = cfg.cores.max(1) as usize;
        let big = n - (cfg.little as usize).min(n);
        let slowness = (0..n)
            .map(|c| if c < big { 1.0 } else { 1.0 / cfg.little_speed })
            .collect();
        HostCpu {
            cfg,
            cores: (0..n).map(|_| Timeline::new()).collect(),
            slowness,
            busy_ns: vec![0; n],
            thread_free: vec![0; threads],
            time_ns: [0; STEPS],
        }
    }

    /// The configuration.
    pub fn config(&self) -> &CpuConfig {
        &self.cfg
    }

    /// The cost of `b` on a speed-1 core (ns).
    pub fn cost(&self, b: &Burst) -> u64 {
        b.units
            .iter()
            .zip(self.cfg.cost_ns)
            .map(|(&u, c)| u * c)
            .sum()
    }

    /// Run burst `b` of `thread`, ready at `at` (ns): returns when it ends. A burst of no
    /// cost ends at once (no core is taken).
    pub fn run(&mut self, thread: usize, at: u64, b: &Burst) -> u64 {
        if self.cost(b) == 0 {
            return at;
        }
        if thread >= self.thread_free.len() {
            self.thread_free.resize(thread + 1, 0);
        }
        let ready = SimTime(at.max(self.thread_free[thread]));
        // Each class's time on the chosen core, rounded per class so the totals agree.
        let costs = |slow: f64| -> [u64; STEPS] {
            let mut t = [0u64; STEPS];
            for (k, tk) in t.iter_mut().enumerate() {
                let ns = b.units[k] * self.cfg.cost_ns[k];
                *tk = if slow == 1.0 {
                    ns
                } else {
                    (ns as f64 * slow).round() as u64
                };
            }
            t
        };
        // The core where the burst ends first (the first such core). The cores are ordered
        // big before little, so the duration never falls from one core to the next: a core
        // free at `ready` is one no later core can beat, and the search stops there; the
        // duration is costed again only where the speed changes.
        let mut best: Option<(u64, usize, u64)> = None; // (end, core, duration)
        let mut slow = (f64::NAN, 0u64); // (slowness, duration at it)
        for c in 0..self.cores.len() {
            if slow.0 != self.slowness[c] {
                slow = (self.slowness[c], costs(self.slowness[c]).iter().sum());
            }
            let dur = slow.1;
            let start = self.cores[c].earliest(ready, dur).ns();
            if best.is_none_or(|(e, _, _)| start + dur < e) {
                best = Some((start + dur, c, dur));
            }
            if start == ready.ns() {
                break;
            }
        }
        let (end, c, dur) = best.expect("at least one core");
        let per = costs(self.slowness[c]);
        for (k, t) in per.iter().enumerate() {
            self.time_ns[k] += t;
        }
        self.cores[c].reserve(SimTime(end - dur), dur);
        self.busy_ns[c] += dur;
        self.thread_free[thread] = end;
        end
    }

    /// Forget bookings that ended at or before `now` (keeps the core lists short).
    pub fn advance(&mut self, now: u64) {
        for t in &mut self.cores {
            t.advance(SimTime(now));
        }
    }

    /// Busy time of each core (ns).
    pub fn busy_ns(&self) -> &[u64] {
        &self.busy_ns
    }

    /// CPU time spent in each step class (ns), by `Step as usize`.
    pub fn time_ns(&self) -> &[u64; STEPS] {
        &self.time_ns
    }

    /// The invariants: the cores' bookings are disjoint, and the time per class adds up to
    /// the cores' busy time.
    pub fn check(&self) -> Result<(), String> {
        if !self.cores.iter().all(Timeline::check) {
            return Err("host CPU: a core runs two bursts at once".into());
        }
        let classes: u64 = self.time_ns.iter().sum();
        let busy: u64 = self.busy_ns.iter().sum();
        if classes != busy {
            return Err(format!(
                "host CPU: time per step class sums to {classes} ns, the cores were busy {busy} ns"
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cpu(cores: u32, threads: usize) -> HostCpu {
        let mut cost_ns = [0; STEPS];
        cost_ns[Step::Syscall as usize] = 1_000;
        cost_ns[Step::PageCopy as usize] = 500;
        let cfg = CpuConfig {
            cores,
            little: 0,
            little_speed: 1.0,
            cost_ns,
        };
        HostCpu::new(cfg, threads)
    }

    /// N threads asking at once on one core take N× one burst; on N cores, 1×.
    #[test]
    fn threads_contend_for_cores() {
        let b = Burst::of(Step::Syscall).with(Step::PageCopy, 2);
        for n in [1usize, 2, 4, 8] {
            let mut one = cpu(1, n);
            let end = (0..n).map(|t| one.run(t, 0, &b)).max().unwrap();
            assert_eq!(end, 2_000 * n as u64);
            let mut many = cpu(n as u32, n);
            let end = (0..n).map(|t| many.run(t, 0, &b)).max().unwrap();
            assert_eq!(end, 2_000);
            one.check().unwrap();
            many.check().unwrap();
        }
    }

    /// A thread's bursts follow each other; a burst asked for later leaves the gap before it.
    #[test]
    fn thread_bursts_serialise_and_gaps_are_used() {
        let mut c = cpu(1, 2);
        let b = Burst::of(Step::Syscall);
        assert_eq!(c.run(0, 10_000, &b), 11_000);
        assert_eq!(c.run(0, 0, &b), 12_000); // after its own previous burst
        assert_eq!(c.run(1, 0, &b), 1_000); // another thread fills the gap before
        assert_eq!(c.busy_ns(), &[3_000]);
        assert_eq!(c.time_ns()[Step::Syscall as usize], 3_000);
        c.check().unwrap();
    }

    /// A little core is slower: a burst goes to a big core while one is free.
    #[test]
    fn little_cores_are_slower() {
        let mut cost_ns = [0; STEPS];
        cost_ns[Step::Syscall as usize] = 1_000;
        let cfg = CpuConfig {
            cores: 2,
            little: 1,
            little_speed: 0.5,
            cost_ns,
        };
        let mut c = HostCpu::new(cfg, 3);
        let b = Burst::of(Step::Syscall);
        assert_eq!(c.run(0, 0, &b), 1_000); // big
        assert_eq!(c.run(1, 0, &b), 2_000); // little (2 000) ties with big after (2 000): big
        assert_eq!(c.run(2, 0, &b), 2_000); // little
        assert_eq!(c.busy_ns(), &[2_000, 2_000]);
        c.check().unwrap();
    }

    #[test]
    fn empty_burst_is_free() {
        let mut c = cpu(1, 1);
        assert_eq!(c.run(0, 5, &Burst::new()), 5);
        assert_eq!(c.busy_ns(), &[0]);
    }
}
