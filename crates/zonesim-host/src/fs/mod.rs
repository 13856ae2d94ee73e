//! An F2FS-like host file system (Zoned UFS §3.4, §4.4, §5.5–5.6, Table 1–2; ConZone+
//! (ConZone+) §6.4–6.5; the kernel behaviour it follows: docs/fs.md "Kernel behaviour the model
//! follows"). It turns file operations (create, write, read, fsync, unlink, sync) into
//! device-neutral commands ([`out::FsCmd`]) on a metadata area and a main area, which `sim` turns
//! into device commands. It knows no device: the run tells it the namespace sizes and zone geometry
//! ([`layout::FsDevice`]).
//!
//! Rooms: `layout` (blocks, segments, sections, metadata areas, mkfs reserve), `seg` (SIT in
//! memory), `seglist` (the dirty segment lists SSR scans), `node` (node addressing), `write` (page cache, writeback, IPU/OPU, logs), `ssr` (slack space recycling),
//! `cp` (checkpoints), `gc` (foreground and background GC, zoned phases), `ipu` (files marked
//! for the device's budget-based in-place update, ZMS; the fallback when refused), `stats` (counters,
//! report sample), `check` (invariants). docs/fs.md documents the model and its keys.

pub mod check;
mod cp;
mod gc;
pub mod ipu;
#[cfg(test)]
mod kernel_tests;
pub mod layout;
pub mod node;
pub mod params;
pub mod seg;
pub mod seglist;
mod ssr;
pub mod stats;
#[cfg(test)]
mod tests;
mod write;

pub use crate::fs_common::{check_path_name, dirty, out, FsError, Ino, MAX_PATH_BYTES, ROOT};
pub use gc::GcPhase;
pub use layout::{FsDevice, Geometry, BLOCK_BYTES};
pub use out::{Area, FsCmd, Out};
pub use params::{FgVictim, FsMode, FsParams, Kernel};
pub use stats::{FsCounters, FsSample};

use dirty::DirtySet;
use layout::{BLKS_PER_SEG, NR_LOGS};
use seg::SegTable;
use zonesim_core::error::Result;

/// No block / no node.
pub const NULL: u32 = u32::MAX;
/// A block reserved for a dirty page, not yet placed (`NEW_ADDR`).
pub const NEW: u32 = u32::MAX - 1;
/// Owner of a free main block.
const NO_OWNER: u64 = u64::MAX;
/// Owner bit of node blocks (the rest is the nid); data blocks are `ino << 32 | file block`.
const NODE_OWNER: u64 = 1 << 63;

/// The six logs (`__get_segment_type_6`).
pub const HOT_DATA: u8 = 0;
pub const WARM_DATA: u8 = 1;
pub const COLD_DATA: u8 = 2;
pub const HOT_NODE: u8 = 3;
pub const WARM_NODE: u8 = 4;
pub const COLD_NODE: u8 = 5;

/// One file or directory.
#[derive(Debug, Clone, Default)]
pub(crate) struct Inode {
    pub alive: bool,
    pub dir: bool,
    pub parent: u32,
    /// Dentry slot in the parent.
    pub slot: u32,
    /// Data log of its blocks (temperature).
    pub data_log: u8,
    pub size: u64,
    /// Block address per file block ([`NULL`] hole, [`NEW`] reserved).
    pub addrs: Vec<u32>,
    /// Node id per node index ([`NULL`] none yet).
    pub nids: Vec<u32>,
    /// Dirty pages (file block indices).
    pub dirty: DirtySet,
    pub in_dirty_list: bool,
    /// Directory: next unused dentry slot and freed ones.
    pub next_slot: u32,
    pub free_slots: Vec<u32>,
    /// Marked for the device's budget-based in-place update ([`F2fs::mark_ipu`]).
    pub ipu: bool,
}

/// Who writes a node: fsync / checkpoint, or GC moving it (`copy`: by a device-side copy).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum NodeWriter {
    Host,
    Gc { copy: bool },
}

/// A log's current segment.
#[derive(Debug, Clone, Copy)]
struct Cur {
    seg: u32,
    blk: u32,
    ssr: bool,
}

/// The file system.
#[derive(Clone)]
pub struct F2fs {
    pub p: FsParams,
    pub geo: Geometry,
    segs: SegTable,
    cur: [Cur; NR_LOGS],
    /// Owner per main block.
    owner: Vec<u64>,
    inodes: Vec<Inode>,
    free_inos: Vec<u32>,
    /// NAT: nid → main block; its owner (ino, node index); dirty flag.
    nat: Vec<u32>,
    nid_owner: Vec<(u32, u32)>,
    node_dirty: Vec<bool>,
    dirty_node_list: Vec<u32>,
    dirty_nodes: u64,
    free_nids: Vec<u32>,
    next_nid: u32,
    nat_dirty: DirtySet,
    sit_dirty: DirtySet,
    /// Blocks invalidated since the last checkpoint.
    held: DirtySet,
    dirty_files: Vec<u32>,
    dirty_pages: u64,
    dirty_dent_pages: u64,
    /// Data and node blocks held (`valid_block_count`), reserved ones included.
    valid_blocks: u64,
    /// Segments closed since the last checkpoint (their SSA blocks are written at it).
    ssa_pending: u64,
    cp_version: u64,
    last_cp_ns: u64,
    pub now: u64,
    pub out: Out,
    pub c: FsCounters,
    gc: gc::GcState,
    /// Where the last bounded SSR victim scan stopped (`last_victim`, `ssr`).
    ssr_last_victim: u32,
    ipu_hook: ipu::IpuHook,
    scratch: Vec<u32>,
    scratch_dirs: Vec<u32>,
}

impl F2fs {
    /// Free sections now (the space the GC phases and foreground GC are triggered by).
    pub fn free_sections(&self) -> u32 {
        self.segs.free_secs
    }

    /// mkfs + mount on `dev`.
    pub fn new(p: FsParams, dev: &FsDevice) -> Result<F2fs> {
        let geo = Geometry::mkfs(dev, &p)?;
        let segs = SegTable::new(&geo);
        let nblocks = geo.main_blocks() as usize;
        let mut fs = F2fs {
            out: Out::new(p.max_bio_bytes),
            gc: gc::GcState::new(&p),
            ssr_last_victim: 0,
            ipu_hook: ipu::IpuHook::default(),
            p,
            segs,
            cur: [Cur {
                seg: NULL,
                blk: 0,
                ssr: false,
            }; NR_LOGS],
            owner: vec![NO_OWNER; nblocks],
            inodes: Vec::new(),
            free_inos: Vec::new(),
            nat: Vec::new(),
            nid_owner: Vec::new(),
            node_dirty: Vec::new(),
            dirty_node_list: Vec::new(),
            dirty_nodes: 0,
            free_nids: Vec::new(),
            next_nid: 0,
            nat_dirty: DirtySet::default(),
            sit_dirty: DirtySet::default(),
            held: DirtySet::default(),
            dirty_files: Vec::new(),
            dirty_pages: 0,
            dirty_dent_pages: 0,
            valid_blocks: 0,
            ssa_pending: 0,
            cp_version: 0,
            last_cp_ns: 0,
            now: 0,
            c: FsCounters::default(),
            geo,
            scratch: Vec::new(),
            scratch_dirs: Vec::new(),
        };
        // The root directory, written by mkfs (not counted: the counters start at mount).
        let root = fs.new_inode(true, 0, HOT_DATA);
        debug_assert_eq!(root, ROOT.0);
        fs.checkpoint(stats::CpReason::Mount);
        // mkfs's writes stay in `out` for the device; the counters start at mount.
        fs.c = FsCounters::default();
        Ok(fs)
    }

    pub fn mode(&self) -> FsMode {
        self.p.mode
    }

    fn new_inode(&mut self, dir: bool, parent: u32, data_log: u8) -> u32 {
        let ino = self.free_inos.pop().unwrap_or_else(|| {
            self.inodes.push(Inode::default());
            self.inodes.len() as u32 - 1
        });
        self.inodes[ino as usize] = Inode {
            alive: true,
            dir,
            parent,
            data_log,
            ..Inode::default()
        };
        self.node_for(ino, 0);
        self.dirty_node(ino, 0);
        ino
    }

    /// Make a directory in `parent`.
    pub fn mkdir(&mut self, parent: Ino) -> std::result::Result<Ino, FsError> {
        self.create_entry(parent, true, HOT_DATA)
    }

    /// Create a regular file named `name` in `parent`, its data temperature from the extension
    /// lists and `hint` (fio `write_hint` code: 1 short → hot, 4 extreme → cold).
    pub fn create(
        &mut self,
        parent: Ino,
        name: &str,
        hint: u8,
    ) -> std::result::Result<Ino, FsError> {
        let ext = name.rsplit_once('.').map_or("", |x| x.1);
        let log = if self.p.hot_extensions.iter().any(|e| e == ext) || hint == 1 {
            HOT_DATA
        } else if self.p.cold_extensions.iter().any(|e| e == ext) || hint == 4 {
            COLD_DATA
        } else {
            WARM_DATA
        };
        self.create_entry(parent, false, log)
    }

    fn create_entry(
        &mut self,
        parent: Ino,
        dir: bool,
        log: u8,
    ) -> std::result::Result<Ino, FsError> {
        if self.valid_blocks + 2 > self.geo.user_blocks {
            self.c.enospc += 1;
            return Err(FsError::NoSpace);
        }
        self.c.creates += 1;
        let ino = self.new_inode(dir, parent.0, log);
        let pd = &mut self.inodes[parent.0 as usize];
        let slot = pd.free_slots.pop().unwrap_or_else(|| {
            pd.next_slot += 1;
            pd.next_slot - 1
        });
        self.inodes[ino as usize].slot = slot;
        self.touch_dentry(parent.0, slot);
        if dir {
            // "." and ".." in the new directory's first dentry block.
            self.touch_dentry(ino, 0);
            self.inodes[ino as usize].next_slot = 2;
        }
        self.balance_fs();
        Ok(Ino(ino))
    }

    /// The dentry block holding `slot` of directory `dir` is dirty (214 slots per block).
    fn touch_dentry(&mut self, dir: u32, slot: u32) {
        let fb = slot / 214;
        let d = &mut self.inodes[dir as usize];
        if d.addrs.len() <= fb as usize {
            d.addrs.resize(fb as usize + 1, NULL);
            d.size = d.addrs.len() as u64 * BLOCK_BYTES;
        }
        self.dirty_page(dir, fb);
        self.dirty_node(dir, 0);
    }

    /// Remove file `ino`: its dentry slot, blocks and nodes are freed.
    pub fn unlink(&mut self, ino: Ino) {
        let i = ino.0 as usize;
        if !self.inodes[i].alive || ino == ROOT {
            return;
        }
        self.c.unlinks += 1;
        let (parent, slot) = (self.inodes[i].parent, self.inodes[i].slot);
        self.touch_dentry(parent, slot);
        self.inodes[parent as usize].free_slots.push(slot);
        let dirty_n = self.inodes[i].dirty.len() as u64;
        self.dirty_pages -= dirty_n;
        if self.inodes[i].dir {
            self.dirty_dent_pages -= dirty_n;
        }
        let addrs = std::mem::take(&mut self.inodes[i].addrs);
        for &a in &addrs {
            if a == NEW {
                self.valid_blocks -= 1;
            } else if a != NULL {
                self.invalidate(a);
                self.valid_blocks -= 1;
            }
        }
        let nids = std::mem::take(&mut self.inodes[i].nids);
        for &nid in &nids {
            if nid == NULL {
                continue;
            }
            if self.node_dirty[nid as usize] {
                self.node_dirty[nid as usize] = false;
                self.dirty_nodes -= 1;
            }
            let a = self.nat[nid as usize];
            if a != NULL {
                self.invalidate(a);
            }
            self.valid_blocks -= 1;
            self.nat[nid as usize] = NULL;
            self.nat_dirty.insert(nid);
            self.free_nids.push(nid);
        }
        self.inodes[i] = Inode::default();
        self.free_inos.push(ino.0);
        self.balance_fs();
    }

    /// Size of a file in bytes.
    pub fn size(&self, ino: Ino) -> u64 {
        self.inodes[ino.0 as usize].size
    }

    /// Node id of node `idx` of `ino`, allocated (and its parent dirtied) if new.
    fn node_for(&mut self, ino: u32, idx: u32) -> u32 {
        let f = &mut self.inodes[ino as usize];
        if f.nids.len() <= idx as usize {
            f.nids.resize(idx as usize + 1, NULL);
        }
        let nid = f.nids[idx as usize];
        if nid != NULL {
            return nid;
        }
        let nid = self.free_nids.pop().unwrap_or_else(|| {
            self.next_nid += 1;
            self.next_nid - 1
        });
        if nid as usize >= self.nat.len() {
            self.nat.resize(nid as usize + 1, NULL);
            self.nid_owner.resize(nid as usize + 1, (NULL, 0));
            self.node_dirty.resize(nid as usize + 1, false);
        }
        self.inodes[ino as usize].nids[idx as usize] = nid;
        self.nid_owner[nid as usize] = (ino, idx);
        self.nat_dirty.insert(nid);
        self.valid_blocks += 1;
        if idx != 0 {
            let parent = node::parent_of(idx);
            self.node_for(ino, parent);
            self.dirty_node(ino, parent);
        }
        nid
    }

    /// Node `idx` of `ino` must be written (at fsync or checkpoint).
    #[inline]
    fn dirty_node(&mut self, ino: u32, idx: u32) {
        let nid = self.node_for(ino, idx);
        if !self.node_dirty[nid as usize] {
            self.node_dirty[nid as usize] = true;
            self.dirty_nodes += 1;
            self.dirty_node_list.push(nid);
        }
    }

    /// The log of node `idx` of `ino`.
    fn node_log(&self, ino: u32, idx: u32) -> u8 {
        match node::kind_of(idx) {
            node::NodeKind::Indirect => COLD_NODE,
            _ if self.inodes[ino as usize].dir => HOT_NODE,
            _ => WARM_NODE,
        }
    }

    /// Invalidate main block `b` (held until the next checkpoint).
    #[inline]
    fn invalidate(&mut self, b: u32) {
        debug_assert_ne!(
            self.owner[b as usize], NO_OWNER,
            "block {b} invalidated twice"
        );
        self.owner[b as usize] = NO_OWNER;
        let seg = b / BLKS_PER_SEG;
        self.segs.invalidate(seg);
        self.sit_dirty.insert(seg);
        self.held.insert(b);
    }

    /// Record `owner` in freshly allocated block `b` written with modification time `mtime`
    /// (0 = now).
    #[inline]
    fn own(&mut self, b: u32, owner: u64, mtime: u64) {
        debug_assert_eq!(self.owner[b as usize], NO_OWNER, "block {b} written twice");
        self.owner[b as usize] = owner;
        let seg = b / BLKS_PER_SEG;
        self.segs.add_valid(seg, self.now, mtime);
        self.sit_dirty.insert(seg);
    }

    /// One 4 KiB command of `kind` on main-area block `b`.
    #[inline]
    fn main_io(&mut self, kind: crate::IoKind, b: u32) {
        self.out
            .push(Area::Main, kind, self.geo.main_offset(b), BLOCK_BYTES);
    }

    /// Write node `nid` out of place to its log.
    fn write_node(&mut self, nid: u32, by: NodeWriter) -> bool {
        let gc = by != NodeWriter::Host;
        let (ino, idx) = self.nid_owner[nid as usize];
        let log = self.node_log(ino, idx);
        let old = self.nat[nid as usize];
        let mtime = if gc && old != NULL {
            self.segs.segs[(old / BLKS_PER_SEG) as usize].mtime
        } else {
            0
        };
        let Some(b) = self.alloc(log) else {
            return false;
        };
        if old != NULL {
            self.invalidate(old);
        }
        self.own(b, NODE_OWNER | nid as u64, mtime);
        self.nat[nid as usize] = b;
        self.nat_dirty.insert(nid);
        match by {
            NodeWriter::Host => self.main_io(crate::IoKind::Write, b),
            NodeWriter::Gc { copy } => self.emit_moved(old, b, copy),
        }
        if gc {
            self.c.gc_node_bytes += BLOCK_BYTES;
        } else {
            self.c.node_bytes += BLOCK_BYTES;
        }
        true
    }

    /// Counters and state for the report.
    pub fn counters(&self) -> &FsCounters {
        &self.c
    }

    /// Live inodes.
    pub fn files(&self) -> impl Iterator<Item = (Ino, bool, &[u32])> + '_ {
        self.inodes
            .iter()
            .enumerate()
            .filter(|(_, f)| f.alive)
            .map(|(i, f)| (Ino(i as u32), f.dir, f.addrs.as_slice()))
    }

    /// Dirty pages in the page cache.
    pub fn dirty_pages(&self) -> u64 {
        self.dirty_pages
    }
}
