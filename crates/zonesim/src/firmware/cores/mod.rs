//! Multi-core firmware (MCMQ §III, Fig. 2-3; its thread model as its
//! code runs it: docs/firmware.md "What MCMQ's code does"):
//! a HIL core, a TSU/FIL core, a completion core and `firmware.workers` FTL worker cores, each
//! running a non-preemptive event loop; mailboxes with inter-processor interrupts between them;
//! spin locks over the shared firmware structures ([`lock`]).
//!
//! Analytic, like the rest of the model: handlers are booked on gap-filling timelines, one per
//! core and one per lock, the way flash operations are booked on dies (ARCHITECTURE.md "How a
//! request flows"). A handler (one event of a core's loop) is one contiguous reservation of its
//! core, from when its message is there and the core is free, covering its work and its lock
//! spins; so a core never runs two handlers at once, and a spinning core is busy. The front
//! half (HIL, worker, TSU dispatch) is booked when the controller fetches the command; the back
//! half (retirement, worker completion, completion core) when its flash work is done: one more
//! event per request, so that every core's handlers are booked in time order. Booking the back
//! half at fetch time would place it ahead of front halves of commands fetched later but
//! handled earlier, leaving holes no handler fits and serving cores out of order.
//!
//! The request path (Fig. 2-3):
//! 1. HIL core: take the SQ doorbell message, fetch and parse the command, segment it into page transactions, post them to
//!    the worker's mailbox (mailbox lock) and send an IPI.
//! 2. Worker `qid mod workers`, after the IPI: per transaction a data-cache operation under the
//!    data-cache lock (if there is a data cache), address translation under the mapping lock
//!    (a write also allocates and invalidates under plane-allocator locks), then post the
//!    transactions to the TSU mailbox (its lock) and kick it with an IPI.
//! 3. TSU core (polling): queue each transaction on its chip and dispatch it; the FTL books
//!    the flash work from the dispatch on (its timelines: dies, channels, link).
//! 4. When the flash work is done the TSU retires the transactions and posts them back to the
//!    worker (mailbox + IPI); the worker finishes them and queues the completion to the
//!    completion core (its lock + IPI), which posts the CQE and raises the interrupt; the
//!    host's CQ head doorbell is one more message for the HIL core.
//!
//! Reads that hit the data cache in full skip 3-4's flash part: the worker completes them. Costs
//! are cycles (`firmware.cost.*`) at `firmware.core_mhz`.

pub mod lock;

use crate::config::{DeviceConfig, FirmwareConfig, LockGranularity, LockHandoff};
use crate::engine::{rng_for, Rng, SimTime, Timeline};
use hdrhistogram::Histogram;
use lock::{Grant, HandoffCost, Lock, LockStats};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// What a core does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Hil,
    Tsu,
    Completion,
    Worker,
}

impl Role {
    pub fn name(self) -> &'static str {
        match self {
            Role::Hil => "hil",
            Role::Tsu => "tsu",
            Role::Completion => "completion",
            Role::Worker => "worker",
        }
    }
}

const HIL: usize = 0;
const TSU: usize = 1;
const COMPLETION: usize = 2;
const FIRST_WORKER: usize = 3;

/// One core: its handlers on a timeline, and where its time went.
#[derive(Debug, Clone)]
pub struct Core {
    pub role: Role,
    tl: Timeline,
    /// Handler time (ns), spin included.
    pub busy_ns: u64,
    /// Of which spinning on locks (ns).
    pub spin_ns: u64,
    pub handlers: u64,
}

impl Core {
    fn new(role: Role) -> Core {
        Core {
            role,
            tl: Timeline::new(),
            busy_ns: 0,
            spin_ns: 0,
            handlers: 0,
        }
    }

    /// Handlers never overlap.
    pub fn check(&self) -> bool {
        self.tl.check()
    }
}

/// Costs in ns (cycles converted at the core clock).
#[derive(Debug, Clone, Copy)]
struct Ns {
    hil_cmd: u64,
    hil_doorbell: u64,
    hil_txn: u64,
    completion: u64,
    mailbox: u64,
    cache_op: u64,
    map_read: u64,
    map_write: u64,
    plane_op: u64,
    tsu_enqueue: u64,
    tsu_dispatch: u64,
    tsu_per_queued: u64,
    tsu_complete: u64,
    txn_complete: u64,
    ipi_send: u64,
    ipi_delivery: u64,
}

impl Ns {
    fn new(f: &FirmwareConfig) -> Ns {
        let ns = |cycles: f64| (cycles * 1000.0 / f.core_mhz).round() as u64;
        let c = &f.cost;
        Ns {
            hil_cmd: ns(c.hil_cmd),
            hil_doorbell: ns(c.hil_doorbell),
            hil_txn: ns(c.hil_txn),
            completion: ns(c.completion),
            mailbox: ns(c.mailbox),
            cache_op: ns(c.cache_op),
            map_read: ns(c.map_read),
            map_write: ns(c.map_write),
            plane_op: ns(c.plane_op),
            tsu_enqueue: ns(c.tsu_enqueue),
            tsu_dispatch: ns(c.tsu_dispatch),
            tsu_per_queued: ns(c.tsu_per_queued),
            tsu_complete: ns(c.tsu_complete),
            txn_complete: ns(c.txn_complete),
            ipi_send: ns(c.ipi_send),
            ipi_delivery: f.ipi_delivery_ns.round() as u64,
        }
    }
}

/// One step of a handler.
#[derive(Debug, Clone, Copy)]
enum Step {
    Work(u64),
    /// Hold lock `.0` for `.1` ns.
    Locked(u32, u64),
}

/// A booked handler.
#[derive(Debug, Clone, Copy)]
struct Ran {
    start: SimTime,
    end: SimTime,
    spin: u64,
}

/// A command as the firmware sees it.
#[derive(Debug, Clone, Copy)]
pub struct Txns {
    pub ns: usize,
    pub qid: u32,
    /// First logical page (bucket locks).
    pub lpa: u64,
    pub write: bool,
    /// Page transactions the command is segmented into.
    pub count: u32,
    /// Of which go to flash (the rest hit the data cache or need no flash).
    pub to_flash: u32,
    /// A data cache is in front of the FTL (each transaction takes its lock).
    pub cached: bool,
}

/// The front half of a command's path: when its transactions reach the flash.
#[derive(Debug, Clone, Copy)]
pub struct Front {
    pub arrived: SimTime,
    worker: usize,
    hil_end: SimTime,
    worker_start: SimTime,
    worker_end: SimTime,
    spin: u64,
    /// Dispatched by the TSU: the FTL books the flash work from here.
    pub flash_ready: SimTime,
    txns: Txns,
}

/// Latency components of requests (ns histograms), partitioning each request's device time.
#[derive(Debug, Clone)]
pub struct Breakdown {
    /// Host submission to the end of the HIL handler (submission queue, HIL wait and work).
    pub hil: Histogram<u64>,
    /// IPI delivery and wait for the worker core.
    pub mailbox: Histogram<u64>,
    /// Spinning on locks in the worker handler.
    pub lock_wait: Histogram<u64>,
    /// Worker handler work.
    pub cpu: Histogram<u64>,
    /// TSU mailbox, TSU core wait and dispatch.
    pub flash_queue: Histogram<u64>,
    /// The FTL's flash work: die queueing, array, channel and host-link transfer.
    pub flash: Histogram<u64>,
    /// Retirement, worker completion, completion core (with their IPIs, waits and locks).
    pub completion: Histogram<u64>,
}

fn hist() -> Histogram<u64> {
    Histogram::new_with_bounds(1, 1_000_000_000_000, 2).expect("valid bounds")
}

impl Default for Breakdown {
    fn default() -> Self {
        Breakdown {
            hil: hist(),
            mailbox: hist(),
            lock_wait: hist(),
            cpu: hist(),
            flash_queue: hist(),
            flash: hist(),
            completion: hist(),
        }
    }
}

impl Breakdown {
    /// (name, histogram) of every component, in path order.
    pub fn parts(&self) -> [(&'static str, &Histogram<u64>); 7] {
        [
            ("hil", &self.hil),
            ("mailbox", &self.mailbox),
            ("lock_wait", &self.lock_wait),
            ("cpu", &self.cpu),
            ("flash_queue", &self.flash_queue),
            ("flash", &self.flash),
            ("completion", &self.completion),
        ]
    }
}

/// The firmware cores, their locks and mailboxes.
#[derive(Clone)]
pub struct Cores {
    pub cores: Vec<Core>,
    pub locks: Vec<Lock>,
    /// Report name of each lock (locks of one name are reported together).
    pub lock_names: Vec<String>,
    ns: Ns,
    handoff: HandoffCost,
    buckets: u32,
    /// First data-cache lock and first mapping lock of each namespace.
    cache_lock: Vec<u32>,
    map_lock: Vec<u32>,
    plane_lock: u32,
    /// Plane-allocator locks (offsets from `plane_lock`) of each namespace's NVM set.
    ns_planes: Vec<Vec<u32>>,
    mailbox_lock: u32,
    tx_lock: u32,
    /// Per namespace, the index in `ns_planes` of the plane the next write allocates on (the
    /// allocator stripes pages over the planes of the namespace's NVM set).
    next_plane: Vec<u32>,
    /// Host flash transactions dispatched and not yet retired.
    in_flash: u64,
    /// Background (write-back) transactions dispatched: their done times.
    in_flash_bg: BinaryHeap<Reverse<SimTime>>,
    /// Front halves of commands whose flash work is under way, by token; free tokens.
    fronts: Vec<Front>,
    free_fronts: Vec<u32>,
    /// CQ doorbell messages on their way to the HIL core (arrival times).
    doorbells: BinaryHeap<Reverse<SimTime>>,
    rng: Rng,
    steps: Vec<Step>,
    grants: Vec<Grant>,
    pub breakdown: Breakdown,
    pub requests: u64,
    now: SimTime,
}

impl Cores {
    /// The cores of `cfg.firmware` over `planes` planes and one namespace per entry of
    /// `ns_planes`, the planes (0..planes) its NVM set spans.
    pub fn new(cfg: &DeviceConfig, ns_planes: Vec<Vec<u32>>, planes: u32, seed: u64) -> Cores {
        let namespaces = ns_planes.len();
        let f = &cfg.firmware;
        let workers = f.workers as usize;
        let mut cores = vec![
            Core::new(Role::Hil),
            Core::new(Role::Tsu),
            Core::new(Role::Completion),
        ];
        cores.extend((0..workers).map(|_| Core::new(Role::Worker)));
        let buckets = match f.lock_granularity {
            LockGranularity::Namespace => 1,
            LockGranularity::Bucket => f.lock_buckets,
        };
        let mut lock_names = Vec::new();
        let mut cache_lock = Vec::new();
        let mut map_lock = Vec::new();
        for n in 0..namespaces {
            cache_lock.push(lock_names.len() as u32);
            lock_names.extend((0..buckets).map(|_| format!("data_cache.ns{n}")));
            map_lock.push(lock_names.len() as u32);
            lock_names.extend((0..buckets).map(|_| format!("mapping.ns{n}")));
        }
        let plane_lock = lock_names.len() as u32;
        lock_names.extend((0..planes).map(|_| "plane_alloc".to_string()));
        let mailbox_lock = lock_names.len() as u32;
        lock_names.extend(cores.iter().enumerate().map(|(i, c)| match c.role {
            Role::Worker => format!("mailbox.worker{}", i - FIRST_WORKER),
            r => format!("mailbox.{}", r.name()),
        }));
        let tx_lock = lock_names.len() as u32;
        lock_names.push("completion_tx".to_string());
        let ns = Ns::new(f);
        let ttas = f.lock_handoff == LockHandoff::Ttas;
        Cores {
            locks: vec![Lock::default(); lock_names.len()],
            lock_names,
            handoff: HandoffCost {
                acquire_ns: (f.cost.lock_acquire * 1000.0 / f.core_mhz).round() as u64,
                xfer_ns: (f.cost.cacheline_xfer * 1000.0 / f.core_mhz).round() as u64,
                growth: if ttas { f.handoff_growth } else { 0.0 },
                random: ttas,
            },
            cores,
            ns,
            buckets,
            cache_lock,
            map_lock,
            plane_lock,
            next_plane: vec![0; ns_planes.len()],
            ns_planes,
            mailbox_lock,
            tx_lock,
            in_flash: 0,
            in_flash_bg: BinaryHeap::new(),
            fronts: Vec::new(),
            free_fronts: Vec::new(),
            doorbells: BinaryHeap::new(),
            rng: rng_for(seed, 0x636f_7265),
            steps: Vec::with_capacity(64),
            grants: Vec::with_capacity(64),
            breakdown: Breakdown::default(),
            requests: 0,
            now: SimTime::ZERO,
        }
    }

    pub fn workers(&self) -> usize {
        self.cores.len() - FIRST_WORKER
    }

    /// When the HIL core can take the next command at or after `now` (the controller
    /// fetches one at a time).
    pub fn fetch_free_at(&self, now: SimTime) -> SimTime {
        let n = &self.ns;
        let fetch = n.hil_doorbell + n.hil_cmd + n.hil_txn + n.mailbox + n.ipi_send;
        self.cores[HIL].tl.earliest(now, fetch.max(1))
    }

    /// The clock moved to `now`: bookings that ended before it are forgotten lazily, when
    /// their core or lock is next booked.
    pub fn advance(&mut self, now: SimTime) {
        self.now = now;
    }

    /// The plane (lock offset) the next write of namespace `ns` allocates on.
    fn alloc_plane(&mut self, ns: usize) -> u32 {
        let set = &self.ns_planes[ns];
        let k = &mut self.next_plane[ns];
        let p = set[*k as usize];
        *k = (*k + 1) % set.len() as u32;
        p
    }

    fn bucket(&self, first: u32, lpa: u64) -> u32 {
        first + (lpa % self.buckets as u64) as u32
    }

    /// Plan the handler in `self.steps` on `core` from `ready`; nothing booked. The handler
    /// takes the earliest gap of its core that fits it; its length depends on when it starts
    /// (lock waits), so the search moves on until start and length agree.
    fn plan(&mut self, core: usize, ready: SimTime) -> (SimTime, SimTime, u64) {
        let mut start = self.cores[core].tl.earliest(ready, 1);
        for attempt in 0..64 {
            if attempt == 63 {
                // Start after all of the core's work (always free).
                start = start.max(self.cores[core].tl.last_end());
            }
            self.grants.clear();
            let (mut t, mut spin) = (start, 0);
            for s in &self.steps {
                match *s {
                    Step::Work(ns) => t += ns,
                    Step::Locked(l, hold) => {
                        let g =
                            self.locks[l as usize].plan(l, t, hold, &self.handoff, &mut self.rng);
                        spin += g.spin_ns();
                        t = g.end;
                        self.grants.push(g);
                    }
                }
            }
            let fit = self.cores[core].tl.earliest(start, (t - start).max(1));
            if fit == start || attempt == 63 {
                return (start, t, spin);
            }
            start = fit;
        }
        unreachable!("the last attempt returns")
    }

    /// Run the handler in `self.steps` on `core` when its message is there at `ready`.
    fn run(&mut self, core: usize, ready: SimTime) -> Ran {
        let (start, end, spin) = self.plan(core, ready);
        for g in &self.grants {
            let l = &mut self.locks[g.lock as usize];
            l.advance(self.now);
            l.commit(g);
        }
        let c = &mut self.cores[core];
        c.tl.advance(self.now);
        let got = c.tl.reserve(start, (end - start).max(1));
        debug_assert_eq!(got, start, "a planned handler is still free");
        c.busy_ns += end - start;
        c.spin_ns += spin;
        c.handlers += 1;
        self.steps.clear();
        Ran { start, end, spin }
    }

    /// Book the CQ doorbell messages that reached the HIL core by `t`.
    fn take_doorbells(&mut self, t: SimTime) {
        while let Some(&Reverse(at)) = self.doorbells.peek() {
            if at > t {
                break;
            }
            self.doorbells.pop();
            self.steps.push(Step::Work(self.ns.hil_doorbell));
            self.run(HIL, at);
        }
    }

    /// Transactions queued at the TSU at `t` (dispatched, flash work not retired).
    fn queued_at(&mut self, t: SimTime) -> u64 {
        while self.in_flash_bg.peek().is_some_and(|r| r.0 <= t) {
            self.in_flash_bg.pop();
        }
        self.in_flash + self.in_flash_bg.len() as u64
    }

    /// HIL, worker and TSU for a command fetched at `now`.
    /// `issued`: when the host submitted it (its wait in the submission queue counts as HIL).
    pub fn front(&mut self, issued: SimTime, now: SimTime, x: Txns) -> Front {
        self.take_doorbells(now);
        let n = &self.ns;
        let worker = FIRST_WORKER + x.qid as usize % self.workers();
        let (hil_cmd, hil_txn, mailbox, ipi) = (n.hil_cmd, n.hil_txn, n.mailbox, n.ipi_send);
        self.steps.push(Step::Work(
            n.hil_doorbell + hil_cmd + x.count as u64 * hil_txn,
        ));
        self.steps
            .push(Step::Locked(self.mailbox_lock + worker as u32, mailbox));
        self.steps.push(Step::Work(ipi));
        let hil = self.run(HIL, now);
        // The worker: drain the mailbox, per transaction cache, translation, allocation.
        let n = self.ns;
        self.steps
            .push(Step::Locked(self.mailbox_lock + worker as u32, n.mailbox));
        for k in 0..x.count as u64 {
            let lpa = x.lpa + k;
            if x.cached {
                let l = self.bucket(self.cache_lock[x.ns], lpa);
                self.steps.push(Step::Locked(l, n.cache_op));
            }
            let l = self.bucket(self.map_lock[x.ns], lpa);
            if x.write {
                self.steps.push(Step::Locked(l, n.map_write));
                if k < x.to_flash as u64 {
                    let p = self.plane_lock + self.alloc_plane(x.ns);
                    self.steps.push(Step::Locked(p, n.plane_op));
                    self.steps.push(Step::Locked(p, n.plane_op));
                }
            } else {
                self.steps.push(Step::Locked(l, n.map_read));
            }
        }
        if x.to_flash > 0 {
            let tsu_box = self.mailbox_lock + TSU as u32;
            for _ in 0..x.to_flash {
                self.steps.push(Step::Locked(tsu_box, n.mailbox));
            }
            self.steps.push(Step::Work(n.ipi_send));
        }
        let w = self.run(worker, hil.end + n.ipi_delivery);
        // The TSU polls its mailbox: queue and dispatch each transaction.
        let flash_ready = if x.to_flash > 0 {
            let queued = self.queued_at(w.end);
            let per = n.tsu_enqueue + n.tsu_dispatch + queued * n.tsu_per_queued;
            self.steps.push(Step::Work(x.to_flash as u64 * per));
            self.in_flash += x.to_flash as u64;
            self.run(TSU, w.end).end
        } else {
            w.end
        };
        Front {
            arrived: issued.min(now),
            worker,
            hil_end: hil.end,
            worker_start: w.start,
            worker_end: w.end,
            spin: w.spin,
            flash_ready,
            txns: x,
        }
    }

    /// Background flash transactions (data-cache write-backs) the TSU queues and dispatches
    /// at `ready`; returns when they are dispatched.
    pub fn background(&mut self, ready: SimTime, txns: u32) -> SimTime {
        let queued = self.queued_at(ready);
        let n = self.ns;
        let per = n.tsu_enqueue + n.tsu_dispatch + queued * n.tsu_per_queued;
        self.steps.push(Step::Work(txns as u64 * per));
        self.run(TSU, ready).end
    }

    /// A background transaction's flash work ends at `done` (the TSU retires it).
    pub fn background_done(&mut self, done: SimTime, txns: u32) {
        for _ in 0..txns {
            self.in_flash_bg.push(Reverse(done));
        }
    }

    /// Keep a front half until its flash work is done; returns its token for [`Cores::back`].
    pub fn park(&mut self, f: Front) -> u32 {
        match self.free_fronts.pop() {
            Some(t) => {
                self.fronts[t as usize] = f;
                t
            }
            None => {
                self.fronts.push(f);
                self.fronts.len() as u32 - 1
            }
        }
    }

    /// The back half of the command parked as `token`, run when its flash work is done (the
    /// caller's clock is `flash_done`, so the back halves are booked in time order); returns
    /// when the host sees the completion.
    pub fn back(&mut self, token: u32, flash_done: SimTime) -> SimTime {
        self.free_fronts.push(token);
        let f = self.fronts[token as usize];
        let n = self.ns;
        let x = f.txns;
        let mut ready = flash_done;
        if x.to_flash > 0 {
            self.in_flash -= x.to_flash as u64;
            self.steps
                .push(Step::Work(x.to_flash as u64 * n.tsu_complete));
            self.steps
                .push(Step::Locked(self.mailbox_lock + f.worker as u32, n.mailbox));
            self.steps.push(Step::Work(n.ipi_send));
            ready = self.run(TSU, flash_done).end + n.ipi_delivery;
            self.steps
                .push(Step::Locked(self.mailbox_lock + f.worker as u32, n.mailbox));
        }
        self.steps
            .push(Step::Work(x.count as u64 * n.txn_complete + n.ipi_send));
        self.steps.push(Step::Locked(self.tx_lock, n.mailbox));
        let w = self.run(f.worker, ready);
        self.steps.push(Step::Locked(self.tx_lock, n.mailbox));
        self.steps.push(Step::Work(n.completion));
        let done = self.run(COMPLETION, w.end + n.ipi_delivery).end;
        // The host's CQ head doorbell message, after it saw the completion: the HIL core
        // takes it in arrival order with the fetches (booked when a later fetch comes, so that
        // a fetch is not pushed behind doorbells that arrive after it).
        if n.hil_doorbell > 0 {
            self.doorbells.push(Reverse(done));
        }
        self.record(&f, flash_done, done);
        done
    }

    fn record(&mut self, f: &Front, flash_done: SimTime, done: SimTime) {
        let b = &mut self.breakdown;
        let rec = |h: &mut Histogram<u64>, ns: u64| h.saturating_record(ns);
        let worker = f.worker_end - f.worker_start;
        rec(&mut b.hil, f.hil_end - f.arrived);
        rec(&mut b.mailbox, f.worker_start - f.hil_end);
        rec(&mut b.lock_wait, f.spin);
        rec(&mut b.cpu, worker - f.spin);
        rec(&mut b.flash_queue, f.flash_ready - f.worker_end);
        rec(&mut b.flash, flash_done.since(f.flash_ready));
        rec(&mut b.completion, done.since(flash_done.max(f.flash_ready)));
        self.requests += 1;
    }

    /// Every lock's holders are disjoint and every core runs one handler at a time.
    pub fn check(&self) -> Result<(), String> {
        if let Some(i) = self.locks.iter().position(|l| !l.check()) {
            return Err(format!("lock {} held twice", self.lock_names[i]));
        }
        if let Some(i) = self.cores.iter().position(|c| !c.check()) {
            return Err(format!("core {i} runs two handlers at once"));
        }
        Ok(())
    }

    /// Locks merged by report name, in first-appearance order.
    pub fn lock_stats(&self) -> Vec<(&str, LockStats)> {
        let mut out: Vec<(&str, LockStats)> = Vec::new();
        for (l, name) in self.locks.iter().zip(&self.lock_names) {
            match out.iter_mut().find(|(n, _)| *n == name.as_str()) {
                Some((_, s)) => s.merge(&l.stats),
                None => out.push((name, l.stats.clone())),
            }
        }
        out
    }

    pub fn reset_counters(&mut self) {
        for c in &mut self.cores {
            c.busy_ns = 0;
            c.spin_ns = 0;
            c.handlers = 0;
        }
        for l in &mut self.locks {
            l.reset_counters();
        }
        self.breakdown = Breakdown::default();
        self.requests = 0;
    }
}
