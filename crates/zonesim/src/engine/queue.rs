use super::SimTime;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// A min-queue of events ordered by `(time, insertion sequence)`.
pub struct EventQueue<E> {
    heap: BinaryHeap<Reverse<(SimTime, u64, Slot<E>)>>,
    seq: u64,
    popped: u64,
}

/// Wrapper so the payload does not take part in the ordering (the `(time, seq)` key is unique).
struct Slot<E>(E);

impl<E> PartialEq for Slot<E> {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}
impl<E> Eq for Slot<E> {}
impl<E> PartialOrd for Slot<E> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl<E> Ord for Slot<E> {
    fn cmp(&self, _: &Self) -> std::cmp::Ordering {
        std::cmp::Ordering::Equal
    }
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E> EventQueue<E> {
    pub fn new() -> Self {
        EventQueue {
            heap: BinaryHeap::with_capacity(1024),
            seq: 0,
            popped: 0,
        }
    }

    pub fn push(&mut self, at: SimTime, event: E) {
        self.seq += 1;
        self.heap.push(Reverse((at, self.seq, Slot(event))));
    }

    pub fn pop(&mut self) -> Option<(SimTime, E)> {
        let Reverse((t, _, Slot(e))) = self.heap.pop()?;
        self.popped += 1;
        Some((t, e))
    }

    pub fn peek_time(&self) -> Option<SimTime> {
        self.heap.peek().map(|Reverse((t, _, _))| *t)
    }

    pub fn len(&self) -> usize {
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    /// Events processed so far.
    pub fn events(&self) -> u64 {
        self.popped
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_times_pop_in_insertion_order() {
        let mut q = EventQueue::new();
        q.push(SimTime(5), 'a');
        q.push(SimTime(3), 'b');
        q.push(SimTime(5), 'c');
        q.push(SimTime(3), 'd');
        let order: Vec<char> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, vec!['b', 'd', 'a', 'c']);
        assert_eq!(q.events(), 4);
    }
}
