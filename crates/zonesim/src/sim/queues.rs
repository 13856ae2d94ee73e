//! Host submission/completion queue pairs (`host.queues`, `host.queue_depth`,
//! `host.arbitration`; MCMQ §II: NVMe queues, one per host flow). Source k (a fio job or
//! one of its `numjobs` clones, in order) submits to queue k mod `host.queues`; without
//! `host.queues` every source has a queue of its own. A queue holds at most `queue_depth`
//! commands (submitted, not completed); a source that finds its queue full waits for a slot.
//! When the controller's fetch is a resource (the HIL core of `firmware.model = "cores"`),
//! commands wait in their submission queue and the arbiter (`host::queues`) picks the queue
//! the next fetch serves; with no fetch cost a command is fetched when submitted and
//! arbitration never has a choice to make.

use super::host_path::Held;
use crate::config::{Arbitration, DeviceConfig, QueuePriority};
use crate::host::queues::{Arbiter, QueueClass};
use crate::stats::IoStats;
use std::collections::VecDeque;

pub(super) struct HostQueues {
    limit: u32,
    /// Commands of each queue submitted and not completed.
    occupancy: Vec<u32>,
    /// Sources waiting for a slot of each queue (one entry per request they would issue).
    pub blocked: Vec<VecDeque<u32>>,
    /// Commands not yet fetched, per queue.
    pending: Vec<VecDeque<Held>>,
    waiting: usize,
    arbiter: Arbiter,
    pub fetch_scheduled: bool,
    /// Statistics per queue (only with `host.queues` set: the report's `host.queues`).
    pub stats: Vec<IoStats>,
}

impl HostQueues {
    /// The queues for `sources` sources; assigns each its queue.
    pub fn new(cfg: &DeviceConfig, queue_of: &mut [u32]) -> HostQueues {
        let h = &cfg.host;
        let n = if h.queues > 0 {
            h.queues as usize
        } else {
            queue_of.len().max(1)
        };
        for (k, q) in queue_of.iter_mut().enumerate() {
            *q = (k % n) as u32;
        }
        let arbiter = match h.arbitration {
            Arbitration::Rr => Arbiter::round_robin(n),
            Arbitration::Wrr => Arbiter::weighted(
                (0..n)
                    .map(
                        |q| match h.queue_priority.get(q).copied().unwrap_or_default() {
                            QueuePriority::Urgent => QueueClass::Urgent,
                            QueuePriority::High => QueueClass::Weighted(0),
                            QueuePriority::Medium => QueueClass::Weighted(1),
                            QueuePriority::Low => QueueClass::Weighted(2),
                        },
                    )
                    .collect(),
                h.wrr_weights,
            ),
        };
        HostQueues {
            limit: h.queue_depth,
            occupancy: vec![0; n],
            blocked: vec![VecDeque::new(); n],
            pending: (0..n).map(|_| VecDeque::new()).collect(),
            waiting: 0,
            arbiter,
            fetch_scheduled: false,
            stats: if h.queues > 0 {
                vec![IoStats::default(); n]
            } else {
                Vec::new()
            },
        }
    }

    /// Queue `q` has room for one more command.
    #[inline]
    pub fn has_room(&self, q: u32) -> bool {
        self.limit == 0 || self.occupancy[q as usize] < self.limit
    }

    #[inline]
    pub fn submitted(&mut self, q: u32) {
        self.occupancy[q as usize] += 1;
    }

    /// A command of queue `q` completed; the source waiting for its slot, if any.
    #[inline]
    pub fn completed(&mut self, q: u32) -> Option<u32> {
        self.occupancy[q as usize] -= 1;
        self.blocked[q as usize].pop_front()
    }

    /// Commands wait for the fetch.
    pub fn any_waiting(&self) -> bool {
        self.waiting > 0
    }

    pub fn wait(&mut self, q: u32, w: Held) {
        self.pending[q as usize].push_back(w);
        self.waiting += 1;
    }

    /// The command the arbiter fetches next, with its queue.
    pub fn fetch(&mut self) -> Option<(u32, Held)> {
        let pending = &self.pending;
        let q = self.arbiter.pick(|q| !pending[q].is_empty())?;
        self.waiting -= 1;
        self.pending[q].pop_front().map(|w| (q as u32, w))
    }
}
