//! The buffer pool: frames of 16 KiB pages, a hash from page id to frame, the LRU list with
//! its young and old sublists, the free list and the flush list (MySQL 8.0 reference manual
//! §17.5.1 "Buffer Pool"; the rules of `storage/innobase/buf/buf0lru.cc`, read, not copied).
//!
//! - A page read from disk enters the LRU at the midpoint: the head of the old sublist, which
//!   holds `innodb_old_blocks_pct` (37) % of the list (kept within 20 pages of it, InnoDB's
//!   `BUF_LRU_OLD_TOLERANCE`; no old sublist while the list is shorter than 512 pages,
//!   `BUF_LRU_OLD_MIN_LEN`).
//! - An old page accessed again `innodb_old_blocks_time` (1000 ms) or more after its first
//!   access moves to the head of the young sublist; accessed sooner it stays old (a scan does
//!   not flush the hot pages out).
//! - A young page moves to the head again only once a quarter of the young sublist's worth of
//!   pages has been evicted since it last moved (`buf_page_peek_if_too_old`'s freed-page
//!   clock), so hot pages are not relinked on every access.
//! - Eviction takes a clean page from the LRU tail; dirty pages are written first.
//! - The flush list holds the dirty pages by their oldest modification LSN (the oldest at the
//!   tail): the checkpoint can advance to the tail's LSN.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use zonesim_core::engine::mix64;

/// No frame.
pub const NIL: u32 = u32::MAX;
/// No old sublist below this many pages in the LRU.
const OLD_MIN_LEN: u64 = 512;
/// The old sublist is kept within this many pages of its share.
const OLD_TOLERANCE: u64 = 20;

/// Hashes a page id (space << 32 | page) with one multiply-xorshift round.
#[derive(Default)]
pub struct PageIdHasher(u64);

impl Hasher for PageIdHasher {
    fn finish(&self) -> u64 {
        mix64(self.0)
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8) | b as u64;
        }
    }
    fn write_u64(&mut self, x: u64) {
        self.0 = x;
    }
}

#[derive(Debug, Clone, Copy)]
struct Frame {
    page: u64,
    prev: u32,
    next: u32,
    /// Flush list links (toward the newest / the oldest modification).
    fnewer: u32,
    folder: u32,
    old: bool,
    /// First access since the page was read (ns); 0: not yet accessed.
    first_access: u64,
    /// Oldest modification LSN not yet written (0: clean).
    oldest_lsn: u64,
    /// The freed-page clock when the page last moved to the young head.
    clock: u64,
}

/// Buffer pool counters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PoolCounters {
    pub hits: u64,
    pub misses: u64,
    pub made_young: u64,
    pub not_made_young: u64,
    pub evicted: u64,
}

/// The buffer pool.
pub struct BufferPool {
    frames: Vec<Frame>,
    map: HashMap<u64, u32, BuildHasherDefault<PageIdHasher>>,
    free: Vec<u32>,
    head: u32,
    tail: u32,
    old_first: u32,
    len: u64,
    old_len: u64,
    /// Flush list: newest and oldest ends.
    fhead: u32,
    ftail: u32,
    dirty: u64,
    old_pct: u64,
    old_time_ns: u64,
    freed_clock: u64,
    pub c: PoolCounters,
}

impl BufferPool {
    /// A pool of `pages` frames, all free.
    pub fn new(pages: u32, old_pct: u32, old_time_ms: u64) -> BufferPool {
        let empty = Frame {
            page: 0,
            prev: NIL,
            next: NIL,
            fnewer: NIL,
            folder: NIL,
            old: false,
            first_access: 0,
            oldest_lsn: 0,
            clock: 0,
        };
        BufferPool {
            frames: vec![empty; pages as usize],
            map: HashMap::with_capacity_and_hasher(pages as usize, Default::default()),
            free: (0..pages).rev().collect(),
            head: NIL,
            tail: NIL,
            old_first: NIL,
            len: 0,
            old_len: 0,
            fhead: NIL,
            ftail: NIL,
            dirty: 0,
            old_pct: old_pct as u64,
            old_time_ns: old_time_ms * 1_000_000,
            freed_clock: 0,
            c: PoolCounters::default(),
        }
    }

    /// Frames in the pool.
    pub fn capacity(&self) -> u64 {
        self.frames.len() as u64
    }
    pub fn dirty(&self) -> u64 {
        self.dirty
    }
    pub fn free_len(&self) -> u64 {
        self.free.len() as u64
    }
    pub fn lru_len(&self) -> u64 {
        self.len
    }
    pub fn old_len(&self) -> u64 {
        self.old_len
    }
    /// The page a frame holds.
    pub fn page(&self, f: u32) -> u64 {
        self.frames[f as usize].page
    }
    pub fn is_dirty(&self, f: u32) -> bool {
        self.frames[f as usize].oldest_lsn != 0
    }

    /// Look `page` up at `now`: a hit applies the LRU's access rules.
    pub fn get(&mut self, page: u64, now: u64) -> Option<u32> {
        let Some(&f) = self.map.get(&page) else {
            self.c.misses += 1;
            return None;
        };
        self.c.hits += 1;
        let fr = &mut self.frames[f as usize];
        if fr.old {
            if fr.first_access == 0 {
                fr.first_access = now.max(1);
                self.c.not_made_young += 1;
            } else if now.saturating_sub(fr.first_access) >= self.old_time_ns {
                self.make_young(f);
            } else {
                self.c.not_made_young += 1;
            }
        } else if self.too_old(f) {
            self.make_young(f);
        }
        Some(f)
    }

    /// A young page has drifted a quarter of the young sublist toward the tail.
    fn too_old(&self, f: u32) -> bool {
        let young = self.capacity() * (100 - self.old_pct) / 100;
        self.freed_clock - self.frames[f as usize].clock > young / 4
    }

    /// A free frame, if any.
    pub fn take_free(&mut self) -> Option<u32> {
        self.free.pop()
    }

    /// The first clean frame within `depth` of the LRU tail, else the tail frame (dirty).
    pub fn tail_victim(&self, depth: u64) -> (u32, bool) {
        let mut f = self.tail;
        for _ in 0..depth {
            if f == NIL {
                break;
            }
            if self.frames[f as usize].oldest_lsn == 0 {
                return (f, true);
            }
            f = self.frames[f as usize].prev;
        }
        (self.tail, false)
    }

    /// The dirty frames among the `depth` frames at the LRU tail, oldest first, into `out`.
    pub fn tail_dirty(&self, depth: u64, out: &mut Vec<u32>) {
        let mut f = self.tail;
        for _ in 0..depth {
            if f == NIL {
                break;
            }
            if self.frames[f as usize].oldest_lsn != 0 {
                out.push(f);
            }
            f = self.frames[f as usize].prev;
        }
    }

    /// Evict clean frames from the LRU tail (within `depth`) until `want` frames are free.
    pub fn refill_free(&mut self, depth: u64, want: u64) {
        let mut f = self.tail;
        for _ in 0..depth {
            if f == NIL || self.free.len() as u64 >= want {
                break;
            }
            let prev = self.frames[f as usize].prev;
            if self.frames[f as usize].oldest_lsn == 0 {
                self.evict(f);
            }
            f = prev;
        }
    }

    /// Evict clean frame `f` to the free list.
    pub fn evict(&mut self, f: u32) {
        debug_assert_eq!(
            self.frames[f as usize].oldest_lsn, 0,
            "evicting a dirty page"
        );
        self.unlink(f);
        self.map.remove(&self.frames[f as usize].page);
        self.free.push(f);
        self.freed_clock += 1;
        self.c.evicted += 1;
        self.adjust();
    }

    /// Put `page`, just read for an access at `now`, into free frame `f` at the LRU midpoint.
    pub fn insert(&mut self, page: u64, f: u32, now: u64) {
        let clock = self.freed_clock;
        let fr = &mut self.frames[f as usize];
        fr.page = page;
        fr.first_access = now.max(1);
        fr.oldest_lsn = 0;
        fr.clock = clock;
        self.map.insert(page, f);
        if self.old_first == NIL {
            self.link_head(f);
        } else {
            let at = self.old_first;
            let prev = self.frames[at as usize].prev;
            let fr = &mut self.frames[f as usize];
            fr.prev = prev;
            fr.next = at;
            fr.old = true;
            self.frames[at as usize].prev = f;
            if prev == NIL {
                self.head = f;
            } else {
                self.frames[prev as usize].next = f;
            }
            self.old_first = f;
            self.old_len += 1;
            self.len += 1;
        }
        self.adjust();
    }

    fn make_young(&mut self, f: u32) {
        self.unlink(f);
        self.link_head(f);
        self.frames[f as usize].clock = self.freed_clock;
        self.c.made_young += 1;
        self.adjust();
    }

    fn link_head(&mut self, f: u32) {
        let h = self.head;
        let fr = &mut self.frames[f as usize];
        fr.prev = NIL;
        fr.next = h;
        fr.old = false;
        if h == NIL {
            self.tail = f;
        } else {
            self.frames[h as usize].prev = f;
        }
        self.head = f;
        self.len += 1;
    }

    fn unlink(&mut self, f: u32) {
        let Frame {
            prev, next, old, ..
        } = self.frames[f as usize];
        if f == self.old_first {
            self.old_first = next;
        }
        if old {
            self.old_len -= 1;
        }
        if prev == NIL {
            self.head = next;
        } else {
            self.frames[prev as usize].next = next;
        }
        if next == NIL {
            self.tail = prev;
        } else {
            self.frames[next as usize].prev = prev;
        }
        self.len -= 1;
    }

    /// Keep the old sublist at its share of the LRU.
    fn adjust(&mut self) {
        if self.len < OLD_MIN_LEN {
            return;
        }
        let target = self.len * self.old_pct / 100;
        while self.old_len + OLD_TOLERANCE < target {
            let p = if self.old_first == NIL {
                self.tail
            } else {
                self.frames[self.old_first as usize].prev
            };
            if p == NIL {
                break;
            }
            self.frames[p as usize].old = true;
            self.old_first = p;
            self.old_len += 1;
        }
        while self.old_len > target + OLD_TOLERANCE {
            let o = self.old_first;
            self.frames[o as usize].old = false;
            self.old_first = self.frames[o as usize].next;
            self.old_len -= 1;
        }
    }

    /// Frame `f` modified at `lsn`: dirty, on the flush list if it was clean.
    pub fn mark_dirty(&mut self, f: u32, lsn: u64) {
        debug_assert!(lsn > 0);
        if self.frames[f as usize].oldest_lsn != 0 {
            return;
        }
        let h = self.fhead;
        let fr = &mut self.frames[f as usize];
        fr.oldest_lsn = lsn;
        fr.folder = h;
        fr.fnewer = NIL;
        if h == NIL {
            self.ftail = f;
        } else {
            self.frames[h as usize].fnewer = f;
        }
        self.fhead = f;
        self.dirty += 1;
    }

    /// Frame `f` written: clean, off the flush list.
    pub fn mark_clean(&mut self, f: u32) {
        let Frame { fnewer, folder, .. } = self.frames[f as usize];
        if self.frames[f as usize].oldest_lsn == 0 {
            return;
        }
        if fnewer == NIL {
            self.fhead = folder;
        } else {
            self.frames[fnewer as usize].folder = folder;
        }
        if folder == NIL {
            self.ftail = fnewer;
        } else {
            self.frames[folder as usize].fnewer = fnewer;
        }
        self.frames[f as usize].oldest_lsn = 0;
        self.dirty -= 1;
    }

    /// The oldest modification LSN of any dirty page.
    pub fn oldest_lsn(&self) -> Option<u64> {
        (self.ftail != NIL).then(|| self.frames[self.ftail as usize].oldest_lsn)
    }

    /// Up to `n` dirty frames from the oldest, with oldest modification at most `upto`.
    pub fn oldest_dirty(&self, n: u64, upto: u64, out: &mut Vec<u32>) {
        let mut f = self.ftail;
        while f != NIL && (out.len() as u64) < n && self.frames[f as usize].oldest_lsn <= upto {
            out.push(f);
            f = self.frames[f as usize].fnewer;
        }
    }

    /// Dirty pages whose oldest modification is at most `upto` (at most `cap` counted).
    pub fn dirty_upto(&self, upto: u64, cap: u64) -> u64 {
        let mut n = 0;
        let mut f = self.ftail;
        while f != NIL && n < cap && self.frames[f as usize].oldest_lsn <= upto {
            n += 1;
            f = self.frames[f as usize].fnewer;
        }
        n
    }

    /// The pool's invariants: LRU links and the old share, the flush list ordered by oldest
    /// modification with the dirty count, every frame in the LRU or free, the hash agreeing.
    pub fn check(&self) -> Result<(), String> {
        let (mut n, mut old, mut f, mut prev) = (0u64, 0u64, self.head, NIL);
        let mut seen_old = false;
        while f != NIL {
            let fr = &self.frames[f as usize];
            if fr.prev != prev {
                return Err(format!("buffer pool: LRU link broken at frame {f}"));
            }
            if fr.old {
                old += 1;
                if !seen_old && f != self.old_first {
                    return Err("buffer pool: the old sublist does not start at its pointer".into());
                }
                seen_old = true;
            } else if seen_old {
                return Err("buffer pool: a young page inside the old sublist".into());
            }
            if self.map.get(&fr.page) != Some(&f) {
                return Err(format!("buffer pool: hash disagrees at frame {f}"));
            }
            n += 1;
            prev = f;
            f = fr.next;
        }
        if prev != self.tail || n != self.len || old != self.old_len {
            return Err(format!(
                "buffer pool: LRU counts {n}/{old} vs {}/{}",
                self.len, self.old_len
            ));
        }
        if n + self.free.len() as u64 != self.capacity() || self.map.len() as u64 != n {
            return Err("buffer pool: frames neither in the LRU nor free".into());
        }
        if self.len >= OLD_MIN_LEN + OLD_TOLERANCE {
            let target = self.len * self.old_pct / 100;
            if old.abs_diff(target) > OLD_TOLERANCE {
                return Err(format!(
                    "buffer pool: old sublist {old} pages, share {target}"
                ));
            }
        }
        let (mut d, mut f, mut last) = (0u64, self.ftail, 0u64);
        while f != NIL {
            let l = self.frames[f as usize].oldest_lsn;
            if l == 0 || l < last {
                return Err(format!(
                    "buffer pool: flush list out of LSN order at frame {f}"
                ));
            }
            last = l;
            d += 1;
            f = self.frames[f as usize].fnewer;
        }
        let marked = self.frames.iter().filter(|x| x.oldest_lsn != 0).count() as u64;
        if d != self.dirty || marked != self.dirty {
            return Err(format!(
                "buffer pool: dirty count {} but {d} on the flush list, {marked} marked",
                self.dirty
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
#[path = "buffer_pool_tests.rs"]
mod tests;
