//! A file's extents (fs/ext4/extents.c, fs/ext4/ext4_extents.h): sorted, non-overlapping
//! (logical block, length, physical block, unwritten) records; a new extent merges with a
//! neighbour that continues it logically and physically in the same state
//! (`ext4_ext_try_to_merge`), up to 32,768 blocks written / 32,767 unwritten
//! (`EXT_INIT_MAX_LEN`, `EXT_UNWRITTEN_MAX_LEN`). Writing into an unwritten extent splits it
//! (`ext4_ext_convert_to_initialized`); an extent of at most `extent_max_zeroout_kb`, a head
//! piece that short, or a tail piece that with the write is, is zeroed on the device and joins
//! the written part instead.
//!
//! The tree: the inode holds 4 extents (`ext4_ext_space_root`); beyond that, leaf blocks of
//! 340 ((4096 - 12) / 12, `ext4_ext_space_block`) under the inode's index, and index blocks of
//! 340 under a root of 4 when more than 4 leaves are needed. The model keeps the extents in
//! one sorted vector and counts the tree blocks the kernel's tree would need when full.

/// Most blocks of an initialized / unwritten extent.
const MAX_WRITTEN: u32 = 32_768;
const MAX_UNWRITTEN: u32 = 32_767;
/// Extents in the inode, and in a leaf or index block.
pub const IN_INODE: usize = 4;
pub const PER_BLOCK: usize = 340;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Extent {
    pub lblk: u32,
    pub len: u32,
    pub pblk: u64,
    pub unwritten: bool,
}

impl Extent {
    fn end(&self) -> u32 {
        self.lblk + self.len
    }

    fn joins(&self, next: &Extent) -> bool {
        let max = if self.unwritten {
            MAX_UNWRITTEN
        } else {
            MAX_WRITTEN
        };
        self.unwritten == next.unwritten
            && self.end() == next.lblk
            && self.pblk + self.len as u64 == next.pblk
            && self.len + next.len <= max
    }
}

/// Tree blocks (leaves + index blocks) for `n` extents.
pub fn tree_blocks(n: usize) -> usize {
    if n <= IN_INODE {
        return 0;
    }
    let leaves = n.div_ceil(PER_BLOCK);
    if leaves <= IN_INODE {
        leaves
    } else {
        leaves + leaves.div_ceil(PER_BLOCK)
    }
}

/// The extents of one file.
#[derive(Debug, Clone, Default)]
pub struct Extents {
    pub v: Vec<Extent>,
}

impl Extents {
    /// Index of the extent holding `lblk`, or where one would be inserted (Err).
    fn search(&self, lblk: u32) -> Result<usize, usize> {
        let i = self.v.partition_point(|e| e.lblk <= lblk);
        if i > 0 && self.v[i - 1].end() > lblk {
            Ok(i - 1)
        } else {
            Err(i)
        }
    }

    /// (physical block, unwritten) of `lblk`, if mapped.
    #[inline]
    pub fn map(&self, lblk: u32) -> Option<(u64, bool)> {
        self.search(lblk).ok().map(|i| {
            let e = &self.v[i];
            (e.pblk + (lblk - e.lblk) as u64, e.unwritten)
        })
    }

    /// Mapped blocks from `lblk` on in one extent (0 if a hole).
    pub fn run(&self, lblk: u32) -> u32 {
        self.search(lblk).map_or(0, |i| self.v[i].end() - lblk)
    }

    /// The allocation goal for `lblk` from its nearest extent (`ext4_ext_find_goal`).
    pub fn goal(&self, lblk: u32) -> Option<u64> {
        let i = self.v.partition_point(|e| e.lblk <= lblk);
        let e = if i > 0 {
            self.v[i - 1]
        } else {
            *self.v.first()?
        };
        Some(if lblk >= e.lblk {
            e.pblk + (lblk - e.lblk) as u64
        } else {
            e.pblk.saturating_sub((e.lblk - lblk) as u64)
        })
    }

    /// Whether a new extent at `lblk` would continue the one before it physically at `pblk`.
    pub fn continues(&self, lblk: u32, pblk: u64) -> bool {
        let i = self.v.partition_point(|e| e.lblk <= lblk);
        i > 0
            && self.v[i - 1].end() == lblk
            && self.v[i - 1].pblk + self.v[i - 1].len as u64 == pblk
    }

    /// Insert a new extent over a hole, merged with its neighbours where they join.
    pub fn insert(&mut self, e: Extent) {
        let i = match self.search(e.lblk) {
            Ok(i) => {
                debug_assert!(false, "a new extent over a mapped block");
                i + 1
            }
            Err(i) => i,
        };
        debug_assert!(
            i == self.v.len() || self.v[i].lblk >= e.end(),
            "extent overlaps"
        );
        self.v.insert(i, e);
        self.merge_around(i);
    }

    /// Merge extent `i` with its neighbours where they join; returns its new index.
    fn merge_around(&mut self, mut i: usize) -> usize {
        if i + 1 < self.v.len() && self.v[i].joins(&self.v[i + 1]) {
            self.v[i].len += self.v[i + 1].len;
            self.v.remove(i + 1);
        }
        if i > 0 && self.v[i - 1].joins(&self.v[i]) {
            self.v[i - 1].len += self.v[i].len;
            self.v.remove(i);
            i -= 1;
        }
        i
    }

    /// Blocks `[lblk, lblk + n)`, all inside one unwritten extent, now hold data: the extent
    /// splits into up to three; an unwritten remainder of at most `zeroout` blocks is zeroed
    /// instead (written to the device by the caller). Returns the blocks zeroed as
    /// (physical block, count) pairs (at most two).
    pub fn convert(&mut self, lblk: u32, n: u32, zeroout: u32) -> [(u64, u32); 2] {
        let mut zeroed = [(0, 0); 2];
        let Ok(i) = self.search(lblk) else {
            return zeroed;
        };
        let e = self.v[i];
        debug_assert!(e.unwritten && lblk + n <= e.end());
        let (mut a, mut b) = (lblk - e.lblk, e.end() - (lblk + n));
        let (mut start, mut len) = (lblk, n);
        // `ext4_ext_convert_to_initialized`: an extent of at most `zeroout` blocks is zeroed
        // whole; else the head when it is that short, and the tail when it and the write are.
        let whole = e.len <= zeroout;
        if a > 0 && (whole || a <= zeroout) {
            zeroed[0] = (e.pblk, a);
            start = e.lblk;
            len += a;
            a = 0;
        }
        if b > 0 && (whole || n + b <= zeroout) {
            zeroed[1] = (e.pblk + (lblk + n - e.lblk) as u64, b);
            len += b;
            b = 0;
        }
        let mid = Extent {
            lblk: start,
            len,
            pblk: e.pblk + (start - e.lblk) as u64,
            unwritten: false,
        };
        let mut parts = [None; 3];
        if a > 0 {
            parts[0] = Some(Extent { len: a, ..e });
        }
        parts[1] = Some(mid);
        if b > 0 {
            parts[2] = Some(Extent {
                lblk: mid.lblk + mid.len,
                len: b,
                pblk: mid.pblk + mid.len as u64,
                unwritten: true,
            });
        }
        self.v.remove(i);
        let mut at = i;
        let mut mid_at = i;
        for (k, p) in parts.into_iter().enumerate() {
            if let Some(p) = p {
                self.v.insert(at, p);
                if k == 1 {
                    mid_at = at;
                }
                at += 1;
            }
        }
        self.merge_around(mid_at);
        zeroed
    }

    pub fn len(&self) -> usize {
        self.v.len()
    }

    pub fn is_empty(&self) -> bool {
        self.v.is_empty()
    }
}
