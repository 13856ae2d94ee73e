//! In-flight buffer space: slots whose data has left a write buffer for flash but whose
//! program has not completed yet. Their space is held until then, so a full buffer stalls host
//! writes until flash catches up. One accounting for
//! every buffer kind; the order in which waiting releases space is a parameter
//! ([`ReleaseOrder`]): the global buffer frees the earliest-completing program first, a zone
//! buffer frees its flushes in the order it issued them.

use crate::engine::SimTime;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

/// A queue of (program done, slots) that decides which in-flight flush frees space next.
pub trait ReleaseOrder: Default {
    fn push(&mut self, done: SimTime, slots: u32);
    fn pop(&mut self) -> Option<(SimTime, u32)>;
    fn peek(&self) -> Option<(SimTime, u32)>;
}

/// Earliest program completion first.
pub type EarliestDone = BinaryHeap<Reverse<(SimTime, u32)>>;
/// Flushes in the order they were issued.
pub type IssueOrder = VecDeque<(SimTime, u32)>;

impl ReleaseOrder for EarliestDone {
    #[inline]
    fn push(&mut self, done: SimTime, slots: u32) {
        BinaryHeap::push(self, Reverse((done, slots)));
    }
    #[inline]
    fn pop(&mut self) -> Option<(SimTime, u32)> {
        BinaryHeap::pop(self).map(|Reverse(x)| x)
    }
    #[inline]
    fn peek(&self) -> Option<(SimTime, u32)> {
        BinaryHeap::peek(self).map(|Reverse(x)| *x)
    }
}

impl ReleaseOrder for IssueOrder {
    #[inline]
    fn push(&mut self, done: SimTime, slots: u32) {
        self.push_back((done, slots));
    }
    #[inline]
    fn pop(&mut self) -> Option<(SimTime, u32)> {
        self.pop_front()
    }
    #[inline]
    fn peek(&self) -> Option<(SimTime, u32)> {
        self.front().copied()
    }
}

/// The in-flight part of one buffer's space.
#[derive(Debug, Clone, Default)]
pub struct InflightSpace<Q> {
    queue: Q,
    slots: u32,
    last_done: SimTime,
}

impl<Q: ReleaseOrder> InflightSpace<Q> {
    /// Slots held by flushes not yet programmed (as far as released so far).
    #[inline]
    pub fn slots(&self) -> u32 {
        self.slots
    }

    /// Earliest time >= `t` at which `held` buffered slots plus the in-flight ones leave a
    /// slot free in a buffer of `capacity` slots, releasing flushes in the queue's order.
    #[inline]
    pub fn wait_for_slot(&mut self, held: u32, capacity: u32, t: SimTime) -> SimTime {
        let mut t2 = t;
        while held + self.slots >= capacity {
            let (done, n) = self
                .queue
                .pop()
                .expect("buffer full with nothing in flight");
            self.slots -= n;
            t2 = t2.max(done);
        }
        t2
    }

    /// Release the flushes at the head of the queue that have completed by `t`.
    #[inline]
    pub fn release_done(&mut self, t: SimTime) {
        while let Some((done, n)) = self.queue.peek() {
            if done > t {
                break;
            }
            self.queue.pop();
            self.slots -= n;
        }
    }

    /// `n` slots left the buffer for a program completing at `done`.
    #[inline]
    pub fn add(&mut self, n: u32, done: SimTime) {
        self.slots += n;
        self.queue.push(done, n);
        self.last_done = self.last_done.max(done);
    }

    /// When every flush issued so far has completed.
    #[inline]
    pub fn drained_at(&self) -> SimTime {
        self.last_done
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waits_for_the_earliest_or_the_oldest_flush() {
        let mut e = InflightSpace::<EarliestDone>::default();
        let mut f = InflightSpace::<IssueOrder>::default();
        for (done, n) in [(SimTime(50), 2), (SimTime(20), 2)] {
            e.add(n, done);
            f.add(n, done);
        }
        // 4 slots in flight in a 4-slot buffer: one flush must complete.
        assert_eq!(e.wait_for_slot(0, 4, SimTime(0)), SimTime(20));
        assert_eq!(f.wait_for_slot(0, 4, SimTime(0)), SimTime(50));
        assert_eq!((e.slots(), f.slots()), (2, 2));
        f.release_done(SimTime(20));
        assert_eq!(f.slots(), 0);
        assert_eq!(e.drained_at(), SimTime(50));
    }
}
