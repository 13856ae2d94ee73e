use super::*;
use proptest::prelude::*;

/// Read `page` into the pool as a miss does: a free frame, else evict from the tail (a dirty
/// tail is written first).
fn read(bp: &mut BufferPool, page: u64, now: u64) -> u32 {
    if let Some(f) = bp.get(page, now) {
        return f;
    }
    let f = match bp.take_free() {
        Some(f) => f,
        None => {
            let (v, clean) = bp.tail_victim(8);
            if !clean {
                bp.mark_clean(v);
            }
            bp.evict(v);
            bp.take_free().expect("a frame was freed")
        }
    };
    bp.insert(page, f, now);
    f
}

/// New pages enter at the midpoint: a page read once and never again is evicted before the
/// pages made young, and accesses within `old_blocks_time` leave a page old.
#[test]
fn midpoint_insertion_protects_hot_pages() {
    let mut bp = BufferPool::new(1000, 37, 1000);
    let ms = 1_000_000u64;
    for p in 0..1100 {
        read(&mut bp, p, ms);
    }
    assert_eq!(bp.free_len(), 0);
    assert!((bp.old_len() as i64 - 370).abs() <= 20, "{}", bp.old_len());
    // Pages 1090..1100 went in last, at the old head; touched again 2 s later they become
    // young.
    for p in 1090..1100 {
        read(&mut bp, p, 3000 * ms);
    }
    assert_eq!(bp.c.made_young, 10);
    // Touched 10 ms after their first access: stay old.
    read(&mut bp, 5000, 4000 * ms);
    read(&mut bp, 5000, 4010 * ms);
    assert_eq!(bp.c.made_young, 10);
    // A scan of 2,000 new pages evicts only from the old sublist: the young pages survive.
    for p in 10_000..12_000 {
        read(&mut bp, p, 5000 * ms);
    }
    for p in 1090..1100 {
        assert!(
            bp.get(p, 5001 * ms).is_some(),
            "hot page {p} evicted by a scan"
        );
    }
    bp.check().unwrap();
}

#[test]
fn flush_list_tracks_oldest_modification() {
    let mut bp = BufferPool::new(600, 37, 1000);
    let fs: Vec<u32> = (0..10).map(|p| read(&mut bp, p, 1)).collect();
    bp.mark_dirty(fs[3], 100);
    bp.mark_dirty(fs[1], 200);
    bp.mark_dirty(fs[3], 300); // already dirty: keeps 100
    bp.mark_dirty(fs[7], 400);
    assert_eq!(bp.oldest_lsn(), Some(100));
    assert_eq!(bp.dirty(), 3);
    let mut out = Vec::new();
    bp.oldest_dirty(10, 250, &mut out);
    assert_eq!(out, vec![fs[3], fs[1]]);
    assert_eq!(bp.dirty_upto(u64::MAX, 10), 3);
    bp.mark_clean(fs[3]);
    assert_eq!(bp.oldest_lsn(), Some(200));
    bp.check().unwrap();
}

proptest! {
    /// Under any mix of reads, modifications and writes the LRU, the old share, the hash and
    /// the flush list (ordered, its count the dirty count) stay consistent.
    #[test]
    fn invariants_hold(ops in proptest::collection::vec((0u8..4, 0u64..3000), 1..3000)) {
        let mut bp = BufferPool::new(700, 37, 1000);
        let (mut lsn, mut now) = (1u64, 1u64);
        for (op, x) in ops {
            now += 1_000_000 * (x % 7);
            match op {
                0 | 1 => { read(&mut bp, x, now); }
                2 => { let f = read(&mut bp, x, now); lsn += 1 + x % 5; bp.mark_dirty(f, lsn); }
                _ => {
                    let mut out = Vec::new();
                    bp.oldest_dirty(x % 50, u64::MAX, &mut out);
                    for f in out { bp.mark_clean(f); }
                    bp.refill_free(64, 32);
                }
            }
        }
        prop_assert_eq!(bp.check(), Ok(()));
    }
}
