//! The block allocator, after ext4's multi-block allocator (fs/ext4/mballoc.c,
//! `ext4_mb_new_blocks` → `ext4_mb_find_by_goal` → `ext4_mb_regular_allocator`; the goal from
//! fs/ext4/extents.c `ext4_ext_find_goal` and fs/ext4/balloc.c `ext4_inode_to_goal_block`):
//! - the goal first: the block after the file's neighbouring extent (a file's next block near
//!   its last), else the first block of its inode's flex group's second group (regular files;
//!   directories the first group). A free run at the goal is taken when it holds the whole
//!   request, or a part of it when the request continues an extent (`EXT4_MB_HINT_MERGE`).
//! - else a scan of the groups from the goal's (from the last stream group for files of at
//!   least `mb_stream_req` = 16 blocks, `EXT4_MB_STREAM_ALLOC`): first the first group with a
//!   free run holding the whole request (criteria 1-2), then the first free run anywhere
//!   (criterion 3, a partial allocation the caller continues).
//!
//! Left out: the buddy cache's power-of-two search (criterion 0, which prefers aligned runs),
//! request normalisation with inode and locality-group preallocation (`ext4_mb_normalize_request`,
//! `ext4_mb_use_preallocated`): the model allocates exactly what writeback maps.
//! Blocks freed are reusable only after the transaction that freed them commits
//! (`ext4_free_blocks` → `ext4_mb_free_metadata`, released in `ext4_process_freed_data`).

/// Files of at least this many blocks allocate as streams (`s_mb_stream_request`).
pub const STREAM_REQ: u64 = 16;

/// The in-memory block bitmap of every group and their free counts.
#[derive(Debug, Clone)]
pub struct Balloc {
    bits: Vec<u64>,
    free: Vec<u32>,
    bpg: u64,
    blocks: u64,
    pub free_total: u64,
    /// Where the last stream allocation ended (`s_mb_last_group`, `s_mb_last_start`).
    last_stream: u64,
}

impl Balloc {
    pub fn new(blocks: u64, bpg: u64) -> Balloc {
        let groups = blocks.div_ceil(bpg);
        Balloc {
            bits: vec![0; blocks.div_ceil(64) as usize],
            free: (0..groups)
                .map(|g| (blocks - g * bpg).min(bpg) as u32)
                .collect(),
            bpg,
            blocks,
            free_total: blocks,
            last_stream: 0,
        }
    }

    #[inline]
    pub fn used(&self, b: u64) -> bool {
        self.bits[(b >> 6) as usize] & (1 << (b & 63)) != 0
    }

    pub fn group_free(&self, g: u32) -> u32 {
        self.free[g as usize]
    }

    /// Mark `[b, b + n)` used (every block free before).
    pub fn take(&mut self, b: u64, n: u64) {
        for x in b..b + n {
            debug_assert!(!self.used(x), "block {x} allocated twice");
            self.bits[(x >> 6) as usize] |= 1 << (x & 63);
            self.free[(x / self.bpg) as usize] -= 1;
        }
        self.free_total -= n;
    }

    /// Mark `[b, b + n)` free (every block used before).
    pub fn release(&mut self, b: u64, n: u64) {
        for x in b..b + n {
            debug_assert!(self.used(x), "block {x} freed twice");
            self.bits[(x >> 6) as usize] &= !(1 << (x & 63));
            self.free[(x / self.bpg) as usize] += 1;
        }
        self.free_total += n;
    }

    /// The first free block in `[from, to)`.
    fn next_free(&self, mut from: u64, to: u64) -> Option<u64> {
        while from < to {
            let w = self.bits[(from >> 6) as usize] | ((1u64 << (from & 63)) - 1);
            if w != u64::MAX {
                let b = (from & !63) + (!w).trailing_zeros() as u64;
                return (b < to).then_some(b);
            }
            from = (from & !63) + 64;
        }
        None
    }

    /// Length of the free run at `b`, at most `max`.
    fn run_at(&self, b: u64, max: u64) -> u64 {
        let end = (b + max).min(self.blocks);
        let mut x = b;
        while x < end {
            let w = self.bits[(x >> 6) as usize] >> (x & 63);
            if w & 1 != 0 {
                break;
            }
            let zeros = if w == 0 {
                64 - (x & 63)
            } else {
                w.trailing_zeros() as u64
            };
            x += zeros;
        }
        x.min(end) - b
    }

    /// The first free run of group `g` holding `want` blocks (`whole`), or the first free run
    /// at all; from `from` within the group.
    fn search_group(&self, g: u64, from: u64, want: u64, whole: bool) -> Option<(u64, u64)> {
        let end = ((g + 1) * self.bpg).min(self.blocks);
        let mut b = from.max(g * self.bpg);
        while let Some(f) = self.next_free(b, end) {
            let n = self.run_at(f, want.min(end - f));
            if !whole || n >= want {
                return Some((f, n));
            }
            b = f + n.max(1);
        }
        None
    }

    /// Allocate up to `want` blocks near `goal`; `merge`: the request continues an extent
    /// (a part at the goal will do); `stream`: a large file. Returns (first block, blocks).
    pub fn alloc(&mut self, goal: u64, want: u64, merge: bool, stream: bool) -> Option<(u64, u64)> {
        if self.free_total == 0 || want == 0 {
            return None;
        }
        let goal = goal.min(self.blocks - 1);
        if !self.used(goal) {
            let n = self.run_at(goal, want);
            if n >= want || merge {
                self.take(goal, n);
                return Some((goal, n));
            }
        }
        let groups = self.free.len() as u64;
        let (start_g, start_b) = if stream {
            (self.last_stream / self.bpg, self.last_stream)
        } else {
            (goal / self.bpg, goal)
        };
        for whole in [true, false] {
            for k in 0..groups {
                let g = (start_g + k) % groups;
                if (self.free[g as usize] as u64) < if whole { want } else { 1 } {
                    continue;
                }
                let from = if k == 0 { start_b } else { g * self.bpg };
                let hit = self.search_group(g, from, want, whole).or_else(|| {
                    (k == 0)
                        .then(|| self.search_group(g, 0, want, whole))
                        .flatten()
                });
                if let Some((b, n)) = hit {
                    self.take(b, n);
                    if stream {
                        self.last_stream = b + n;
                    }
                    return Some((b, n));
                }
            }
        }
        None
    }

    /// Take the first run of `n` free blocks at or after `goal`, across group boundaries (mkfs
    /// placing the journal, which may span groups); then from the start.
    pub fn take_run(&mut self, goal: u64, n: u64) -> Option<u64> {
        for (from, to) in [
            (goal.min(self.blocks), self.blocks),
            (0, goal.min(self.blocks)),
        ] {
            let mut b = from;
            while let Some(f) = self.next_free(b, to) {
                let len = self.run_at(f, n);
                if len >= n {
                    self.take(f, n);
                    return Some(f);
                }
                b = f + len.max(1);
            }
        }
        None
    }

    /// The allocator's bitmap as words (the check compares it).
    pub fn words(&self) -> &[u64] {
        &self.bits
    }
}
