//! NVMe submission-queue arbitration (NVMe base spec §3.4.4 "Command Arbitration"; MCMQ
//! §II: one queue pair per host flow). Round robin takes one command from each non-empty queue in
//! turn. Weighted round robin serves the urgent class first (round robin among its queues), then
//! the high, medium and low classes in turn, each for as many commands as its weight (round robin
//! inside a class). The arbiter only chooses; the queues themselves (entries, depth) are the run's.

/// A queue's class: `Urgent` is strict priority; `Weighted(0..3)` are high, medium, low.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueueClass {
    Urgent,
    Weighted(u8),
}

/// Chooses which non-empty submission queue the controller fetches from next.
#[derive(Debug, Clone)]
pub struct Arbiter {
    class: Vec<QueueClass>,
    weights: [u32; 3],
    /// Weighted round robin; false = plain round robin (classes ignored).
    weighted: bool,
    /// Next queue to look at first, per class (index 3 = urgent, or all queues under RR).
    next: [usize; 4],
    /// Class being served under WRR and commands it may still take.
    cur: usize,
    credit: u32,
}

impl Arbiter {
    /// Round robin over `queues` queues.
    pub fn round_robin(queues: usize) -> Arbiter {
        Arbiter {
            class: vec![QueueClass::Weighted(1); queues],
            weights: [1; 3],
            weighted: false,
            next: [0; 4],
            cur: 0,
            credit: 0,
        }
    }

    /// Weighted round robin with a class per queue and the high/medium/low weights.
    pub fn weighted(class: Vec<QueueClass>, weights: [u32; 3]) -> Arbiter {
        Arbiter {
            weighted: true,
            weights,
            credit: weights[0],
            ..Arbiter::round_robin(0)
        }
        .with_classes(class)
    }

    fn with_classes(mut self, class: Vec<QueueClass>) -> Arbiter {
        self.class = class;
        self
    }

    pub fn queues(&self) -> usize {
        self.class.len()
    }

    /// Round robin from `slot`'s pointer over the queues matching `want` that are non-empty.
    fn scan(
        &mut self,
        slot: usize,
        want: impl Fn(QueueClass) -> bool,
        ready: &impl Fn(usize) -> bool,
    ) -> Option<usize> {
        let n = self.class.len();
        let start = self.next[slot];
        for k in 0..n {
            let q = (start + k) % n;
            if want(self.class[q]) && ready(q) {
                self.next[slot] = (q + 1) % n;
                return Some(q);
            }
        }
        None
    }

    /// The queue to fetch from, among those for which `ready(q)` holds; None if none.
    pub fn pick(&mut self, ready: impl Fn(usize) -> bool) -> Option<usize> {
        if !self.weighted {
            return self.scan(3, |_| true, &ready);
        }
        if let Some(q) = self.scan(3, |c| c == QueueClass::Urgent, &ready) {
            return Some(q);
        }
        // At most one full turn over the three classes (plus the one being served).
        for _ in 0..4 {
            if self.credit > 0 {
                let c = self.cur as u8;
                if let Some(q) = self.scan(self.cur, |k| k == QueueClass::Weighted(c), &ready) {
                    self.credit -= 1;
                    return Some(q);
                }
            }
            self.cur = (self.cur + 1) % 3;
            self.credit = self.weights[self.cur];
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn take(a: &mut Arbiter, n: usize) -> Vec<usize> {
        (0..n).map(|_| a.pick(|_| true).unwrap()).collect()
    }

    #[test]
    fn round_robin_cycles_over_ready_queues() {
        let mut a = Arbiter::round_robin(3);
        assert_eq!(take(&mut a, 6), vec![0, 1, 2, 0, 1, 2]);
        assert_eq!(a.pick(|q| q == 1), Some(1));
        assert_eq!(a.pick(|q| q != 1), Some(2));
        assert_eq!(a.pick(|_| false), None);
    }

    #[test]
    fn weighted_round_robin_follows_weights_and_urgent_first() {
        use QueueClass::*;
        let mut a = Arbiter::weighted(vec![Weighted(0), Weighted(2)], [3, 2, 1]);
        assert_eq!(take(&mut a, 8), vec![0, 0, 0, 1, 0, 0, 0, 1]);
        let mut a = Arbiter::weighted(vec![Weighted(0), Urgent], [3, 2, 1]);
        assert_eq!(take(&mut a, 3), vec![1, 1, 1]);
        assert_eq!(a.pick(|q| q == 0), Some(0));
        // An empty class is skipped.
        let mut a = Arbiter::weighted(vec![Weighted(2)], [3, 2, 1]);
        assert_eq!(take(&mut a, 3), vec![0, 0, 0]);
    }
}
