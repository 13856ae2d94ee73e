//! sysbench's OLTP workloads on the InnoDB model (`oltp_write_only`, `oltp_read_write`; the
//! statement mix of sysbench 1.0's `src/lua/oltp_common.lua`, read, not copied): `prepare`
//! creates `tables` tables `sbtest1..N` of `table_size` rows (rows inserted in primary-key
//! order, the secondary index `k` built afterwards, so each tablespace is written front to
//! back), then `threads` client threads each run transactions back to back (closed loop) for
//! `time_s` seconds.
//!
//! A transaction (`BEGIN` ... `COMMIT`), with sysbench's default counts:
//! - `oltp_read_write`: 10 point selects (`SELECT c WHERE id=?`), one each of the simple,
//!   sum, order and distinct ranges (`WHERE id BETWEEN ? AND ?+range_size-1`, range_size 100),
//!   then the writes below;
//! - `oltp_write_only` and the writes of `oltp_read_write`: one index update
//!   (`SET k=k+1 WHERE id=?`), one non-index update (`SET c=? WHERE id=?`), one delete
//!   (`WHERE id=?`) followed by an insert of the same id with a new random `k`.
//!
//! Each statement picks its table uniformly and its id by `rand_type`: `special` (sysbench's
//! default: 75 % of draws fall on 1 % of the ids, `--rand-spec-res=75`, `--rand-spec-pct=1`;
//! here the first 1 %) or `uniform`. A statement walks the clustered index (and the secondary
//! index where `k` changes) from the root to the leaf through the buffer pool, a miss being a
//! 16 KiB read; a row change writes an undo record on the thread's undo page and appends redo
//! (`innodb`); the commit follows `innodb_flush_log_at_trx_commit`. A row's `k` is a hash of
//! its table and id (the model keeps no row values).
//!
//! CPU time: with the host CPU model on (`[host.cpu]`, docs/host-cpu.md) each statement costs
//! `innodb_statement_ns` on a core before it runs and `innodb_page_ns` per buffer-pool page
//! it touched after, and each commit `innodb_commit_ns` before its log write; the client
//! threads contend for the cores. Without it statements take no CPU time: a transaction lasts
//! as long as its reads, its flushes and its commit wait for the device.
//!
//! Latency is per transaction, from `BEGIN` to the end of `COMMIT`; `tps` is the transactions
//! completed within `time_s` over `time_s`, as sysbench reports them.

use super::files::AppHost;
use super::innodb::cleaner::PASS_NS;
use super::innodb::{FlushMethod, Innodb, InnodbConfig, InnodbCounters, Walk};
use crate::cpu::{Burst, Step};
use crate::fs::FsError;
use hdrhistogram::Histogram;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use zonesim_core::engine::{below, mix64};
use zonesim_core::engine::{rng_for, Rng};

/// sysbench's `--test` (the Lua script).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Test {
    WriteOnly,
    ReadWrite,
}

impl Test {
    pub fn name(self) -> &'static str {
        match self {
            Test::WriteOnly => "oltp_write_only",
            Test::ReadWrite => "oltp_read_write",
        }
    }
}

/// `--rand-type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RandType {
    Special,
    Uniform,
}

/// One `sysbench` step: sysbench's options and the InnoDB settings a step may change.
#[derive(Debug, Clone, PartialEq)]
pub struct SysbenchSpec {
    pub test: Test,
    pub tables: u32,
    pub table_size: u64,
    pub threads: u32,
    pub time_s: u64,
    pub rand_type: RandType,
    pub buffer_pool_mb: u64,
    pub trx_commit: u8,
    pub doublewrite: bool,
    pub flush_method: FlushMethod,
}

impl SysbenchSpec {
    /// sysbench's defaults (1 table of 10,000 rows, 1 thread, 10 s) and MySQL 8.0's.
    pub fn new(test: Test) -> SysbenchSpec {
        SysbenchSpec {
            test,
            tables: 1,
            table_size: 10_000,
            threads: 1,
            time_s: 10,
            rand_type: RandType::Special,
            buffer_pool_mb: 128,
            trx_commit: 1,
            doublewrite: true,
            flush_method: FlushMethod::Fsync,
        }
    }

    /// The engine's settings for this step.
    pub fn innodb(&self) -> InnodbConfig {
        InnodbConfig {
            buffer_pool_bytes: self.buffer_pool_mb << 20,
            flush_log_at_trx_commit: self.trx_commit,
            doublewrite: self.doublewrite,
            flush_method: self.flush_method,
            ..InnodbConfig::default()
        }
    }

    /// Statements per transaction (without BEGIN and COMMIT).
    pub fn statements(&self) -> &'static [Stmt] {
        match self.test {
            Test::WriteOnly => &WRITES,
            Test::ReadWrite => &READ_WRITE,
        }
    }
}

/// The ranges of a step's keys (docs/innodb.md).
pub const MAX_TABLES: u64 = 10_000;
pub const MAX_TABLE_SIZE: u64 = 1 << 31;
pub const MAX_THREADS: u64 = 4096;
pub const MAX_TIME_S: u64 = 86_400;
/// The buffer pool: MySQL's minimum 5 MiB up to 1 TiB.
pub const BUFFER_POOL_MB: (u64, u64) = (5, 1 << 20);

/// A statement of a transaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stmt {
    PointSelect,
    /// The four range selects touch the same pages (their sorting and grouping is CPU).
    Range,
    IndexUpdate,
    NonIndexUpdate,
    Delete,
    Insert,
}

const WRITES: [Stmt; 4] = [
    Stmt::IndexUpdate,
    Stmt::NonIndexUpdate,
    Stmt::Delete,
    Stmt::Insert,
];
const READ_WRITE: [Stmt; 18] = [
    Stmt::PointSelect,
    Stmt::PointSelect,
    Stmt::PointSelect,
    Stmt::PointSelect,
    Stmt::PointSelect,
    Stmt::PointSelect,
    Stmt::PointSelect,
    Stmt::PointSelect,
    Stmt::PointSelect,
    Stmt::PointSelect,
    Stmt::Range,
    Stmt::Range,
    Stmt::Range,
    Stmt::Range,
    Stmt::IndexUpdate,
    Stmt::NonIndexUpdate,
    Stmt::Delete,
    Stmt::Insert,
];
/// sysbench's `range_size`.
const RANGE_SIZE: u64 = 100;

/// Log bytes of the row changes (estimates of the mini-transactions' record sizes: the
/// changed bytes plus record and page addressing; docs/innodb.md): (clustered or
/// secondary change, undo record).
const NON_INDEX_UPDATE: (u64, u64) = (180, 150);
const INDEX_UPDATE: (u64, u64) = (40, 40);
const SECONDARY_CHANGE: u64 = 35;
const DELETE: (u64, u64) = (30, 40);
const INSERT: (u64, u64) = (230, 30);
/// The commit's change of the undo segment and rollback segment headers.
const COMMIT: u64 = 60;

/// The most transactions per simulated second: a step whose transactions need no device time
/// (the tables in the buffer pool and `trx_commit` 0 or 2) ends there.
pub const MAX_TPS: u64 = 1_000_000;

/// What a step measured.
#[derive(Debug, Clone)]
pub struct SysbenchOutcome {
    pub transactions: u64,
    pub queries: u64,
    pub tps: f64,
    /// Per-transaction latency, us.
    pub latency_us: Histogram<u64>,
    pub innodb: InnodbCounters,
    pub hit_rate: f64,
    pub pool_pages: u64,
    pub dirty_pages: u64,
    pub log_capacity: u64,
    /// Bytes of the tablespaces, and simulated time of the prepare phase and the run.
    pub data_bytes: u64,
    pub prepare_ns: u64,
    pub run_ns: u64,
    /// When the step ended (ns).
    pub end: u64,
    /// The first broken invariant of the engine (checked runs only).
    pub invariant: Option<String>,
}

#[derive(Clone)]
struct Thread {
    rng: Rng,
    /// Next statement of the transaction (its length: the commit).
    next: usize,
    start: u64,
}

/// A row's `k` (uniform over the ids, fixed per row).
fn k_of(table: u32, id: u64, size: u64) -> u64 {
    1 + mix64(((table as u64) << 40) ^ id) % size
}

/// Run step `s` from `now` on the host `h`; `check` verifies the engine's invariants after
/// every transaction.
pub fn run<H: AppHost>(
    h: &mut H,
    s: &SysbenchSpec,
    now: u64,
    seed: u64,
    check: bool,
) -> Result<SysbenchOutcome, FsError> {
    run_with(h, s, s.innodb(), now, seed, check)
}

/// [`run`] with the engine's settings given (tests: a small log).
pub fn run_with<H: AppHost>(
    h: &mut H,
    s: &SysbenchSpec,
    cfg: InnodbConfig,
    now: u64,
    seed: u64,
    check: bool,
) -> Result<SysbenchOutcome, FsError> {
    let mut db = Innodb::create(h.fs(), cfg, s.tables, s.table_size)?;
    let t0 = db.prepare(h, now)?;
    h.prepared(t0);
    let end = t0 + s.time_s * 1_000_000_000;
    let stmts = s.statements();
    let mut threads: Vec<Thread> = (0..s.threads)
        .map(|i| Thread {
            rng: rng_for(seed, 0x5b_0000 + i as u64),
            next: 0,
            start: t0,
        })
        .collect();
    let n = s.threads;
    let (cleaner, log_timer, group) = (n, n + 1, n + 2);
    let mut q: BinaryHeap<Reverse<(u64, u64, u32)>> = BinaryHeap::new();
    let mut seq = 0u64;
    let mut push = |q: &mut BinaryHeap<_>, t: u64, a: u32| {
        seq += 1;
        q.push(Reverse((t, seq, a)));
    };
    for i in 0..n {
        push(&mut q, t0, i);
    }
    push(&mut q, t0 + PASS_NS, cleaner);
    if s.trx_commit != 1 {
        push(&mut q, t0 + PASS_NS, log_timer);
    }
    let mut lat = Histogram::<u64>::new_with_bounds(1, 3_600_000_000, 3).expect("valid bounds");
    let mut parked: Vec<u32> = Vec::with_capacity(n as usize);
    let (mut txns, mut running) = (0u64, n);
    let cap = MAX_TPS.saturating_mul(s.time_s);
    let mut last = t0;
    let mut invariant = None;
    while let Some(Reverse((t, _, a))) = q.pop() {
        last = last.max(t);
        if a >= n {
            if running == 0 {
                continue;
            }
            if a == cleaner {
                let e = db.cleaner_pass(h, t);
                push(&mut q, (t + PASS_NS).max(e), cleaner);
            } else if a == log_timer {
                db.write_log(h, true, t);
                push(&mut q, t + PASS_NS, log_timer);
            } else if a == group {
                let e = db.write_log(h, true, t);
                db.c.commit_groups += 1;
                db.redo.busy_until = e;
                db.redo.group_waiting = false;
                for &th in &parked {
                    let st = threads[th as usize].start;
                    finish(&mut lat, &mut txns, e, st, end);
                    threads[th as usize].next = 0;
                    threads[th as usize].start = e;
                    push(&mut q, e, th);
                }
                parked.clear();
            }
            continue;
        }
        if t >= end || txns >= cap {
            running -= 1;
            continue;
        }
        let th = &mut threads[a as usize];
        if th.next < stmts.len() {
            let st = stmts[th.next];
            th.next += 1;
            let table = 1 + below(&mut th.rng, s.tables as u64) as u32;
            let id = pick(&mut th.rng, s.rand_type, s.table_size);
            let k = if st == Stmt::Insert {
                1 + below(&mut th.rng, s.table_size)
            } else {
                k_of(table, id, s.table_size)
            };
            let pages = db.pool.c.hits + db.pool.c.misses;
            let t = h.cpu(a, t, &Burst::of(Step::InnodbStatement));
            let e = statement(h, &mut db, st, a, Row { table, id, k }, t);
            let pages = db.pool.c.hits + db.pool.c.misses - pages;
            let e = h.cpu(a, e, Burst::new().add(Step::InnodbPage, pages));
            push(&mut q, e, a);
            continue;
        }
        // COMMIT: the undo segment's state, then the log by trx_commit.
        let t = h.cpu(a, t, &Burst::of(Step::InnodbCommit));
        let t = db.undo(h, a, COMMIT, t);
        db.note_age();
        let done = match s.trx_commit {
            1 if t >= db.redo.busy_until => {
                let e = db.write_log(h, true, t);
                db.c.commit_groups += 1;
                db.redo.busy_until = e;
                Some(e)
            }
            1 => {
                parked.push(a);
                if !db.redo.group_waiting {
                    db.redo.group_waiting = true;
                    push(&mut q, db.redo.busy_until, group);
                }
                None
            }
            2 => Some(db.write_log(h, false, t)),
            _ => Some(t),
        };
        if let Some(e) = done {
            let th = &mut threads[a as usize];
            finish(&mut lat, &mut txns, e, th.start, end);
            th.next = 0;
            th.start = e;
            push(&mut q, e, a);
        }
        if check && invariant.is_none() {
            invariant = db.check().err();
        }
    }
    if check && invariant.is_none() {
        invariant = db.check().err();
    }
    let pool = &db.pool;
    let hits = pool.c.hits as f64;
    let per_txn = stmts.len() as u64 + 2;
    Ok(SysbenchOutcome {
        transactions: txns,
        queries: txns * per_txn,
        tps: txns as f64 / s.time_s as f64,
        latency_us: lat,
        innodb: db.c,
        hit_rate: hits / (hits + pool.c.misses as f64).max(1.0),
        pool_pages: pool.capacity(),
        dirty_pages: pool.dirty(),
        log_capacity: db.redo.capacity,
        data_bytes: db.tables.iter().map(|t| t.bytes()).sum(),
        prepare_ns: t0 - now,
        run_ns: end - t0,
        end: last.max(end),
        invariant,
    })
}

/// A transaction that began at `start` ended at `e`: counted if within the run.
fn finish(lat: &mut Histogram<u64>, txns: &mut u64, e: u64, start: u64, end: u64) {
    if e <= end {
        *txns += 1;
        lat.saturating_record(((e - start) / 1000).max(1));
    }
}

/// An id in 1..=size by `rand`.
fn pick(rng: &mut Rng, rand: RandType, size: u64) -> u64 {
    match rand {
        RandType::Uniform => 1 + below(rng, size),
        RandType::Special => {
            let hot = (size / 100).max(1);
            if below(rng, 100) < 75 {
                1 + below(rng, hot)
            } else {
                1 + below(rng, size)
            }
        }
    }
}

/// Statement `st` of thread `th` on `row` from `t`; returns when it ended.
fn statement<H: AppHost>(
    h: &mut H,
    db: &mut Innodb<H::Fs>,
    st: Stmt,
    th: u32,
    row: Row,
    mut t: u64,
) -> u64 {
    let Row { table, id, k } = row;
    let pos = id - 1;
    let at = |tree: u8, pos: u64, extra: u64, redo: u64| Walk {
        table,
        tree,
        pos,
        extra,
        redo,
    };
    match st {
        Stmt::PointSelect => db.walk(h, at(0, pos, 0, 0), t),
        Stmt::Range => {
            let tb = &db.tables[table as usize - 1];
            let c = &tb.clustered;
            let extra = c.leaf((pos + RANGE_SIZE - 1).min(tb.rows - 1)) - c.leaf(pos);
            db.walk(h, at(0, pos, extra, 0), t)
        }
        Stmt::NonIndexUpdate | Stmt::IndexUpdate | Stmt::Delete | Stmt::Insert => {
            t = db.free_check(h, t);
            let (redo, undo) = match st {
                Stmt::NonIndexUpdate => NON_INDEX_UPDATE,
                Stmt::IndexUpdate => INDEX_UPDATE,
                Stmt::Delete => DELETE,
                _ => INSERT,
            };
            t = db.undo(h, th, undo, t);
            t = db.walk(h, at(0, pos, 0, redo), t);
            match st {
                Stmt::IndexUpdate => {
                    // The old (k, id) delete-marked, the new (k + 1, id) inserted.
                    t = db.walk(h, at(1, k - 1, 0, SECONDARY_CHANGE), t);
                    t = db.walk(h, at(1, k, 0, SECONDARY_CHANGE), t);
                }
                Stmt::Delete | Stmt::Insert => {
                    t = db.walk(h, at(1, k - 1, 0, SECONDARY_CHANGE), t);
                }
                _ => {}
            }
            db.note_age();
            t
        }
    }
}

/// The row a statement works on: its table (1-based), id and secondary key.
#[derive(Debug, Clone, Copy)]
struct Row {
    table: u32,
    id: u64,
    k: u64,
}
