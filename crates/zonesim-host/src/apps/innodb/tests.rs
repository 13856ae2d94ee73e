//! The InnoDB write pattern against its rules, on a file system that records every call.

use super::*;
use crate::apps::sysbench::{run_with, RandType, SysbenchOutcome, SysbenchSpec, Test};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Write(u64, u64),
    Read,
    Fsync,
}

/// A file system that records each call and completes each submission after 20 us per
/// command and 100 us more if it holds an fsync.
#[derive(Default)]
struct Recorder {
    names: Vec<String>,
    log: Vec<(u32, Op)>,
    queued: u64,
    syncs: u64,
}

impl FileIo for Recorder {
    type File = u32;
    fn create_file(&mut self, name: &str) -> Result<u32, FsError> {
        self.names.push(name.into());
        Ok(self.names.len() as u32 - 1)
    }
    fn write_at(&mut self, f: u32, off: u64, len: u64, _direct: bool) -> Result<(), FsError> {
        self.log.push((f, Op::Write(off, len)));
        self.queued += 1;
        Ok(())
    }
    fn read_at(&mut self, f: u32, _off: u64, _len: u64) {
        self.log.push((f, Op::Read));
        self.queued += 1;
    }
    fn sync_file(&mut self, f: u32, _datasync: bool) {
        self.log.push((f, Op::Fsync));
        self.syncs += 1;
    }
    fn set_now(&mut self, _ns: u64) {}
}

impl AppHost for Recorder {
    type Fs = Recorder;
    fn fs(&mut self) -> &mut Recorder {
        self
    }
    fn submit(&mut self, at: u64) -> u64 {
        let t = at + self.queued * 20_000 + self.syncs.min(1) * 100_000;
        self.queued = 0;
        self.syncs = 0;
        t
    }
}

fn spec(test: Test, threads: u32) -> SysbenchSpec {
    SysbenchSpec {
        tables: 4,
        table_size: 30_000,
        threads,
        time_s: 3,
        ..SysbenchSpec::new(test)
    }
}

fn small_pool() -> InnodbConfig {
    InnodbConfig {
        buffer_pool_bytes: 4 << 20,
        ..InnodbConfig::default()
    }
}

fn run(s: &SysbenchSpec, cfg: InnodbConfig) -> (Recorder, SysbenchOutcome) {
    let mut r = Recorder::default();
    let o = run_with(&mut r, s, cfg, 0, 7, true).unwrap();
    assert_eq!(o.invariant, None);
    (r, o)
}

fn file(r: &Recorder, name: &str) -> u32 {
    r.names.iter().position(|n| n == name).unwrap() as u32
}

/// trx_commit = 1: every commit waits for an fsync of the log; one thread commits alone (a
/// group per transaction), eight threads share fsyncs (fewer groups than transactions); every
/// fsync of the log file is a commit group, a checkpoint or the log made durable before pages
/// were written.
#[test]
fn one_log_fsync_per_commit_group() {
    for threads in [1, 8] {
        let (r, o) = run(&spec(Test::WriteOnly, threads), small_pool());
        let c = o.innodb;
        assert!(o.transactions > 100, "{}", o.transactions);
        if threads == 1 {
            assert!(c.commit_groups.abs_diff(o.transactions) <= 1, "{c:?}");
        } else {
            assert!(c.commit_groups < o.transactions, "{c:?} {}", o.transactions);
        }
        let redo = file(&r, "#ib_redo0");
        let fsyncs = r
            .log
            .iter()
            .filter(|&&(f, op)| f == redo && op == Op::Fsync)
            .count() as u64;
        // The prepare phase fsyncs the log file once.
        assert_eq!(fsyncs - 1, c.log_fsyncs);
        assert_eq!(c.log_fsyncs, c.commit_groups + c.checkpoints + c.wal_syncs);
    }
}

/// Doublewrite on: each page written in place was first written to the doublewrite file and
/// that write made durable; so the doublewrite pages equal the pages written. Off: none.
#[test]
fn every_flushed_page_is_written_twice() {
    let (r, o) = run(&spec(Test::ReadWrite, 4), small_pool());
    let c = o.innodb;
    assert!(c.pages_written > 0, "{c:?}");
    assert_eq!(c.doublewrite_pages, c.pages_written);
    let dblwr = file(&r, "#ib_16384_0.dblwr");
    let spaces: Vec<u32> = (1..=4)
        .map(|i| file(&r, &format!("sbtest{i}.ibd")))
        .collect();
    let undo = file(&r, "undo_001");
    let start = r.log.iter().position(|&(_, op)| op == Op::Read).unwrap();
    let (mut staged, mut durable, mut in_place) = (0u64, 0u64, 0u64);
    for &(f, op) in &r.log[start..] {
        match op {
            Op::Write(_, len) if f == dblwr => staged += len / tablespace::PAGE_BYTES,
            Op::Fsync if f == dblwr => durable += std::mem::take(&mut staged),
            Op::Write(_, len) if spaces.contains(&f) || f == undo => {
                assert_eq!(len, tablespace::PAGE_BYTES);
                assert!(
                    durable > 0,
                    "a page written in place before its doublewrite copy"
                );
                durable -= 1;
                in_place += 1;
            }
            _ => {}
        }
    }
    assert_eq!((staged, durable), (0, 0));
    assert_eq!(in_place, c.pages_written);
    let off = InnodbConfig {
        doublewrite: false,
        ..small_pool()
    };
    let (_, o) = run(&spec(Test::ReadWrite, 4), off);
    assert_eq!(o.innodb.doublewrite_pages, 0);
    assert!(o.innodb.pages_written > 0);
}

/// A log of 2 MiB against a write-heavy run (uniform ids, commits without fsync): the checkpoint age reaches the synchronous
/// limit, threads flush, and the age never passes the capacity.
#[test]
fn checkpoint_age_stays_within_the_log() {
    let cfg = InnodbConfig {
        redo_log_capacity: 2 << 20,
        buffer_pool_bytes: 4 << 20,
        ..InnodbConfig::default()
    };
    let s = SysbenchSpec {
        trx_commit: 2,
        rand_type: RandType::Uniform,
        time_s: 1,
        ..spec(Test::WriteOnly, 8)
    };
    let (_, o) = run(&s, cfg);
    let c = o.innodb;
    assert!(c.checkpoint_age_max <= 2 << 20, "{c:?}");
    assert!(c.checkpoint_age_max > (2 << 20) * 7 / 8, "{c:?}");
    assert!(c.sync_flushed > 0 || c.list_flushed > 0, "{c:?}");
    assert_eq!(c.commit_groups, 0);
}

/// Same seed, same run; another seed, another run.
#[test]
fn deterministic_from_the_seed() {
    let s = spec(Test::ReadWrite, 3);
    let a = run(&s, small_pool()).1;
    let b = run(&s, small_pool()).1;
    assert_eq!((a.transactions, a.innodb), (b.transactions, b.innodb));
    let mut r = Recorder::default();
    let c = run_with(&mut r, &s, small_pool(), 0, 8, false).unwrap();
    assert_ne!(a.innodb, c.innodb);
}
