//! Independent simulations spread over the machine's cores (`zonesim experiment run --jobs N`).
//!
//! A simulation is single-threaded and deterministic; what runs in parallel is whole runs that
//! share nothing (each owns its device, file system, workload and seed): the experiments of
//! `experiment run all`, and the independent runs inside one experiment. So results equal a
//! sequential loop's; only the wall time drops with the cores.
//!
//! One budget of threads serves every level: `jobs` simulations at a time in the whole process
//! (default: every core). The thread that calls [`par_map`] works through the items itself and
//! adds helper threads only while the budget has room, so nested calls (an experiment's own
//! runs inside `run all`) never oversubscribe the cores and never wait on each other: with no
//! room, the caller simply runs its items in order. A helper ends when no item is left and
//! gives its place back, so a long experiment's inner runs pick up the cores the others freed.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// Simulations at a time in this process (0: every core).
static JOBS: AtomicUsize = AtomicUsize::new(0);
/// Helper threads alive now, over every `par_map` of the process.
static HELPERS: AtomicUsize = AtomicUsize::new(0);

/// Run at most `n` simulations at a time (0: one per core; 1: everything in order on the
/// calling thread).
pub fn set_jobs(n: usize) {
    JOBS.store(n, Ordering::Relaxed);
}

/// Simulations at a time: `set_jobs`, or the number of cores.
pub fn jobs() -> usize {
    match JOBS.load(Ordering::Relaxed) {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    }
}

/// Take one helper place if the budget has room (the calling threads count as one).
fn claim_helper() -> bool {
    let cap = jobs().saturating_sub(1);
    HELPERS
        .fetch_update(Ordering::AcqRel, Ordering::Acquire, |h| {
            (h < cap).then_some(h + 1)
        })
        .is_ok()
}

/// Gives a helper's place back when the helper ends (also when it unwinds).
struct Place;

impl Drop for Place {
    fn drop(&mut self) {
        HELPERS.fetch_sub(1, Ordering::AcqRel);
    }
}

/// `f` over `items` within the thread budget; results in item order.
pub fn par_map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let mut out = Vec::with_capacity(items.len());
    par_each(items, f, |_, r| out.push(r));
    out
}

/// `f` over `items` within the thread budget, handing each result to `emit` in item order as
/// soon as it and every earlier one are done (a caller can print while later items still run).
/// A panic in `f` is re-raised here.
pub fn par_each<T: Sync, R: Send>(
    items: &[T],
    f: impl Fn(&T) -> R + Sync,
    emit: impl FnMut(usize, R) + Send,
) {
    let next = AtomicUsize::new(0);
    // Results not yet emitted, the next index to emit, and the sink.
    let done = Mutex::new((
        (0..items.len()).map(|_| None).collect::<Vec<Option<R>>>(),
        0usize,
        emit,
    ));
    let work = |i: usize, r: R| {
        let mut g = done.lock().unwrap_or_else(|e| e.into_inner());
        let (slots, emitted, emit) = &mut *g;
        slots[i] = Some(r);
        while let Some(r) = slots.get_mut(*emitted).and_then(Option::take) {
            emit(*emitted, r);
            *emitted += 1;
        }
    };
    // A helper takes items until none is left, then gives its place back.
    let helper = || {
        let _place = Place;
        while let Some((i, item)) = take(&next, items) {
            work(i, f(item));
        }
    };
    std::thread::scope(|sc| {
        while let Some((i, item)) = take(&next, items) {
            // More items than this one left: bring in a helper if the budget has room.
            if i + 1 < items.len() && claim_helper() {
                sc.spawn(helper);
            }
            work(i, f(item));
        }
    });
}

/// The next item not yet taken, with its index.
fn take<'a, T>(next: &AtomicUsize, items: &'a [T]) -> Option<(usize, &'a T)> {
    let i = next.fetch_add(1, Ordering::Relaxed);
    items.get(i).map(|item| (i, item))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Results keep item order whatever order the threads finish in; `emit` sees them in
    /// order; nested calls finish (no deadlock).
    #[test]
    fn order_nesting_and_places() {
        let items: Vec<u64> = (0..37).collect();
        let out = par_map(&items, |&x| {
            std::thread::sleep(std::time::Duration::from_micros((37 - x) * 50));
            x * x
        });
        assert_eq!(out, items.iter().map(|x| x * x).collect::<Vec<_>>());
        let mut seen = Vec::new();
        par_each(
            &items,
            |&x| par_map(&[x, x + 1], |&y| y * 2).iter().sum::<u64>(),
            |i, r| seen.push((i, r)),
        );
        let want: Vec<(usize, u64)> = (0..37).map(|x| (x as usize, 4 * x + 2)).collect();
        assert_eq!(seen, want);
    }

    /// Experiments run through the pool with every core give the same outcomes, byte for byte,
    /// as a serial run (`--jobs 1`), one of them with its own inner parallel runs.
    #[test]
    fn parallel_equals_serial() {
        let list: Vec<crate::Experiment> = crate::all()
            .into_iter()
            .filter(|e| ["zms-randwrite", "conzone-seq", "conzone-l2p-search"].contains(&e.name))
            .collect();
        assert_eq!(list.len(), 3);
        let opts = crate::ExpOptions {
            seed: 1,
            scale: crate::Scale::Quick,
        };
        let go = || {
            par_map(&list, |e| {
                crate::render_markdown(&(e.run)(&opts).expect("runs"))
            })
        };
        set_jobs(1);
        let serial = go();
        set_jobs(0);
        let parallel = go();
        assert_eq!(serial, parallel);
    }
}
