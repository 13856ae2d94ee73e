//! Tablespaces and B+tree sizing: one file per table (`innodb_file_per_table`, on by default
//! in MySQL 8.0) holding the clustered index (the rows, by primary key) and the secondary
//! index, each a B+tree of 16 KiB pages sized from the row and key sizes.
//!
//! Sizes follow the COMPACT/DYNAMIC record format of the MySQL 8.0 reference manual (§17.10,
//! "InnoDB Row Formats") and the page layout of `storage/innobase/include/page0page.h` (read,
//! not copied): a page has 38 bytes of file header, 56 of index page header, 26 of the
//! infimum/supremum records and 8 of file trailer; each record a 5-byte header; one 2-byte page
//! directory slot per 4-8 records (taken as one per 6); the clustered record carries the
//! 6-byte transaction id and 7-byte roll pointer. A sorted build (sysbench's `prepare` inserts
//! in primary-key order and creates the secondary index afterwards) fills each page to
//! `innodb_fill_factor` = 100, which leaves 1/16 of the page free (manual §17.6.2.3 "Sorted
//! Index Builds"), leaf and non-leaf alike.
//!
//! The schema is sysbench's `sbtest` table: `id INT` primary key, `k INT` (secondary index
//! `k_N`), `c CHAR(120)`, `pad CHAR(60)`, utf8mb4 (so both CHARs are variable-length columns
//! with a 1-byte length each at their 120 and 60 ASCII bytes).

/// Bytes of an InnoDB page (`innodb_page_size`, default 16 KiB).
pub const PAGE_BYTES: u64 = 16384;
/// Bytes of a page usable for records: 16,384 − 38 − 56 − 26 − 8.
pub const PAGE_USABLE: u64 = PAGE_BYTES - 38 - 56 - 26 - 8;
/// Record header of the compact format.
const REC_HEADER: u64 = 5;
/// Page directory bytes per record, in thirds (2 bytes per 6 records = 1/3 byte).
const DIR_THIRDS: u64 = 1;
/// A clustered row of `sbtest`: header + 2 length bytes + id 4 + trx id 6 + roll ptr 7 + k 4
/// + c 120 + pad 60.
pub const SBTEST_ROW: u64 = REC_HEADER + 2 + 4 + 6 + 7 + 4 + 120 + 60;
/// A clustered node pointer: header + id 4 + child page number 4.
const CLUST_PTR: u64 = REC_HEADER + 4 + 4;
/// A secondary leaf record: header + k 4 + id 4.
const SEC_REC: u64 = REC_HEADER + 4 + 4;
/// A secondary node pointer: header + k 4 + id 4 + child 4.
const SEC_PTR: u64 = REC_HEADER + 4 + 4 + 4;
/// Pages at the start of a tablespace before the indexes' pages: FSP header, insert buffer
/// bitmap, inode page, SDI page.
pub const HEADER_PAGES: u64 = 4;

/// Records of `rec` bytes a page holds after a sorted build (15/16 of the usable bytes).
pub fn records_per_page(rec: u64) -> u64 {
    let room = PAGE_USABLE * 15 / 16;
    (room * 3 / (rec * 3 + DIR_THIRDS)).max(2)
}

/// One B+tree: pages per level (leaves first, the root last) and where each level starts in
/// the tablespace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tree {
    /// Entries per leaf and per non-leaf page.
    pub per_leaf: u64,
    pub fanout: u64,
    /// Pages of each level, leaves first; the last level is the root alone.
    pub levels: Vec<u64>,
    /// First page number of each level.
    pub base: Vec<u64>,
}

impl Tree {
    /// The tree of `entries` entries of `leaf_rec` bytes with node pointers of `ptr_rec`,
    /// its pages from page `first` on (leaves, then each level above).
    pub fn build(entries: u64, leaf_rec: u64, ptr_rec: u64, first: u64) -> Tree {
        let per_leaf = records_per_page(leaf_rec);
        let fanout = records_per_page(ptr_rec);
        let mut levels = vec![entries.div_ceil(per_leaf).max(1)];
        while *levels.last().expect("a level") > 1 {
            let n = *levels.last().expect("a level");
            levels.push(n.div_ceil(fanout));
        }
        let mut base = Vec::with_capacity(levels.len());
        let mut at = first;
        for &n in &levels {
            base.push(at);
            at += n;
        }
        Tree {
            per_leaf,
            fanout,
            levels,
            base,
        }
    }

    /// Pages of the tree.
    pub fn pages(&self) -> u64 {
        self.levels.iter().sum()
    }

    /// Levels (1: the root is the leaf).
    pub fn height(&self) -> usize {
        self.levels.len()
    }

    /// The page number at `level` (0 = leaf) on the path to entry `pos` (0-based, in key
    /// order).
    pub fn page_at(&self, pos: u64, level: usize) -> u64 {
        let mut idx = pos / self.per_leaf;
        for _ in 0..level {
            idx /= self.fanout;
        }
        self.base[level] + idx.min(self.levels[level] - 1)
    }

    /// The leaf holding entry `pos`.
    pub fn leaf(&self, pos: u64) -> u64 {
        self.page_at(pos, 0)
    }
}

/// A `sbtest` table: its clustered and secondary trees in one tablespace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Table {
    pub rows: u64,
    pub clustered: Tree,
    pub secondary: Tree,
}

impl Table {
    /// The table of `rows` rows, laid out as a sorted build leaves it: the header pages, the
    /// clustered index, then the secondary index.
    pub fn sbtest(rows: u64) -> Table {
        let clustered = Tree::build(rows, SBTEST_ROW, CLUST_PTR, HEADER_PAGES);
        let secondary = Tree::build(rows, SEC_REC, SEC_PTR, HEADER_PAGES + clustered.pages());
        Table {
            rows,
            clustered,
            secondary,
        }
    }

    /// Pages of the tablespace file.
    pub fn pages(&self) -> u64 {
        HEADER_PAGES + self.clustered.pages() + self.secondary.pages()
    }

    /// Bytes of the tablespace file.
    pub fn bytes(&self) -> u64 {
        self.pages() * PAGE_BYTES
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Fanouts from the record sizes: 73 rows of 208 bytes per leaf, 1,143 node pointers of
    /// 13 bytes; 9 M rows give a 3-level clustered index of 123,288 leaves.
    #[test]
    fn sbtest_sizes() {
        assert_eq!(SBTEST_ROW, 208);
        let t = Table::sbtest(9_000_000);
        assert_eq!(t.clustered.per_leaf, 73);
        assert_eq!(t.clustered.fanout, 1143);
        assert_eq!(t.clustered.levels, vec![123_288, 108, 1]);
        assert_eq!(t.clustered.height(), 3);
        assert_eq!(t.secondary.per_leaf, 1143);
        assert_eq!(t.secondary.levels.len(), 3);
        // About 2 GB per table, as MySQL's sbtest tables of 9 M rows.
        let gib = t.bytes() as f64 / (1u64 << 30) as f64;
        assert!((1.8..2.1).contains(&gib), "{gib}");
    }

    /// Paths run from the root to the leaf of the entry, every page inside its level.
    #[test]
    fn paths_stay_in_their_levels() {
        let t = Table::sbtest(100_000);
        let c = &t.clustered;
        for pos in [0, 1, 72, 73, 99_999, 200_000] {
            for l in 0..c.height() {
                let p = c.page_at(pos, l);
                assert!(p >= c.base[l] && p < c.base[l] + c.levels[l]);
            }
        }
        assert_eq!(c.page_at(5, c.height() - 1), c.base[c.height() - 1]);
        assert_eq!(c.leaf(73), c.base[0] + 1);
        assert_eq!(t.secondary.base[0], HEADER_PAGES + c.pages());
        assert_eq!(Table::sbtest(1).clustered.levels, vec![1]);
    }
}
