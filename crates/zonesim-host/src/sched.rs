//! Host I/O priority dispatch (fio `prio` / `prioclass`; Zoned UFS §4.3: "I/O priorities
//! — set either via the `ionice` command or the `blk-ioprio` cgroup policy — can cause the
//! scheduler to submit zoned writes in the wrong order").
//!
//! The device takes at most `host.device_tags` commands (UFS: 32 task tags); requests issued
//! while every tag is in use wait in the host's scheduler, one FIFO per priority as
//! mq-deadline keeps them, and the next free tag goes to the front of the best non-empty FIFO:
//! class RT before BE before idle (Linux `IOPRIO_CLASS_*`; class none is BE), then level 0
//! before 7. A request dispatched while an earlier-issued one of worse priority waits has
//! overtaken it (counted). Zoned writes enter the scheduler only once they hold their zone's
//! write lock (host/order.rs), so with the lock at most one write per zone waits here and
//! priorities cannot reorder writes to one zone; without it they can.
//!
//! `host.device_tags = 0` (the default) means no tag limit: nothing waits and priorities have
//! no effect, as before.

use serde::Serialize;
use std::collections::VecDeque;

/// fio's `prioclass` (Linux ioprio classes).
pub const CLASS_NONE: u8 = 0;
pub const CLASS_RT: u8 = 1;
pub const CLASS_BE: u8 = 2;
pub const CLASS_IDLE: u8 = 3;
/// Linux's default best-effort level (`IOPRIO_NORM`).
pub const LEVEL_NORM: u8 = 4;
/// Priority levels per class (`IOPRIO_NR_LEVELS`).
pub const LEVELS: u8 = 8;

/// A job's I/O priority: fio `prioclass` (0-3) and `prio` (0-7, 0 highest).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct IoPrio {
    pub class: u8,
    pub level: Option<u8>,
}

impl IoPrio {
    /// Scheduling rank, lower first: RT levels 0..8, BE (and none) 8..16, idle 16.
    pub fn rank(self) -> usize {
        let level = self.level.unwrap_or(LEVEL_NORM) as usize;
        match self.class {
            CLASS_RT => level,
            CLASS_IDLE => 2 * LEVELS as usize,
            _ => LEVELS as usize + level,
        }
    }

    /// The class in words, as `ionice` prints it.
    pub fn class_name(self) -> &'static str {
        match self.class {
            CLASS_RT => "realtime",
            CLASS_BE => "best-effort",
            CLASS_IDLE => "idle",
            _ => "none",
        }
    }
}

/// Number of ranks.
const RANKS: usize = 2 * LEVELS as usize + 1;

/// Counters of the scheduler (`sim.dispatch` in the report).
#[derive(Debug, Clone, Default, Serialize)]
pub struct DispatchCounters {
    /// `host.device_tags`: device tags.
    pub device_tags: u32,
    /// Requests that waited for a tag.
    pub queued: u64,
    /// Requests dispatched while an earlier-issued request of worse priority waited.
    pub overtakes: u64,
    /// Most requests waiting at once.
    pub max_waiting: u64,
}

/// Tags and per-priority FIFOs over requests of type `T`.
pub struct PrioDispatch<T> {
    in_flight: u32,
    seq: u64,
    fifos: Vec<VecDeque<(u64, T)>>,
    waiting: u64,
    pub counters: DispatchCounters,
}

impl<T> PrioDispatch<T> {
    /// A scheduler in front of a device of `depth` tags (> 0).
    pub fn new(depth: u32) -> PrioDispatch<T> {
        PrioDispatch {
            in_flight: 0,
            seq: 0,
            fifos: (0..RANKS).map(|_| VecDeque::new()).collect(),
            waiting: 0,
            counters: DispatchCounters {
                device_tags: depth,
                ..DispatchCounters::default()
            },
        }
    }

    /// A request of priority `p`: returned (holding a tag) if a tag is free, else queued.
    pub fn admit(&mut self, p: IoPrio, item: T) -> Option<T> {
        self.seq += 1;
        if self.in_flight < self.counters.device_tags {
            self.in_flight += 1;
            return Some(item);
        }
        self.fifos[p.rank()].push_back((self.seq, item));
        self.waiting += 1;
        self.counters.queued += 1;
        self.counters.max_waiting = self.counters.max_waiting.max(self.waiting);
        None
    }

    /// A request holding a tag completed: the next request to dispatch (taking the tag), if
    /// any waits.
    pub fn release(&mut self) -> Option<T> {
        let Some(best) = self.fifos.iter().position(|f| !f.is_empty()) else {
            self.in_flight -= 1;
            return None;
        };
        let (seq, item) = self.fifos[best].pop_front().expect("non-empty");
        let earlier = self.fifos[best + 1..]
            .iter()
            .any(|f| f.front().is_some_and(|&(s, _)| s < seq));
        if earlier {
            self.counters.overtakes += 1;
        }
        self.waiting -= 1;
        Some(item)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RT0: IoPrio = IoPrio {
        class: CLASS_RT,
        level: Some(0),
    };
    const BE: IoPrio = IoPrio {
        class: CLASS_NONE,
        level: None,
    };
    const IDLE: IoPrio = IoPrio {
        class: CLASS_IDLE,
        level: Some(0),
    };

    #[test]
    fn ranks_follow_linux_classes() {
        assert!(RT0.rank() < BE.rank() && BE.rank() < IDLE.rank());
        let be = |l| IoPrio {
            class: CLASS_BE,
            level: Some(l),
        };
        assert_eq!(be(LEVEL_NORM).rank(), BE.rank(), "none = BE at level 4");
        assert!(be(0).rank() < be(7).rank());
        assert_eq!(
            IDLE.rank(),
            IoPrio {
                level: Some(7),
                ..IDLE
            }
            .rank(),
            "idle has no levels"
        );
    }

    #[test]
    fn tags_then_best_priority_first_fifo_within() {
        let mut d = PrioDispatch::new(1);
        assert_eq!(d.admit(BE, 1), Some(1));
        assert_eq!(d.admit(IDLE, 2), None);
        assert_eq!(d.admit(BE, 3), None);
        assert_eq!(d.admit(RT0, 4), None);
        assert_eq!(d.admit(BE, 5), None);
        assert_eq!(d.release(), Some(4), "RT first, overtaking 2 and 3");
        assert_eq!(
            d.release(),
            Some(3),
            "then BE in issue order, overtaking idle 2"
        );
        assert_eq!(d.release(), Some(5));
        assert_eq!(d.release(), Some(2));
        assert_eq!(d.release(), None);
        assert_eq!(d.counters.queued, 4);
        assert_eq!(d.counters.overtakes, 3);
        assert_eq!(d.counters.max_waiting, 4);
        // The tag is free again.
        assert_eq!(d.admit(IDLE, 6), Some(6));
    }
}
