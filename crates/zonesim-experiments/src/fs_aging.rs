//! F2FS aging of a phone as Zoned UFS §5.6.1 describes it, shared by the reproductions that
//! install files on an aged file system and read them back (`zufs-app-read`, `zms-app-launch`).
//!
//! Two stages (§5.6.1): (1) fill with "1 GB" files until free space is half the capacity,
//! delete every second one; (2) per pass, create 16 "64 MB" files and overwrite each with
//! random 4 KiB buffered writes, "about 12 MB of updates per file", fsync'd per file; passes
//! repeat until free space falls below "40 GB". Every capacity-proportional size is multiplied
//! by k = the file system's user capacity / 512 GB (the paper's device). Then files are
//! installed into what is left ([`install_one`]): sequential buffered writes, fsync'd, alone or
//! with a concurrent writer whose files the flusher interleaves with them.

use super::fs_common::{FsRig, Xs};
use zonesim::error::{Error, Result};
use zonesim::host::fs::{Ino, BLOCK_BYTES};

/// The paper's device (512 GB ZUFS, §5.1): k = user capacity / this.
pub const PAPER_BYTES: f64 = 512e9;
/// Buffered writes of the sequential file writes.
pub const WRITE_IO: u64 = 512 << 10;
/// Stage 2: files per pass.
const STAGE2_FILES: u64 = 16;
/// Bound on the stage-2 passes (the paper's device needs about 340).
pub const MAX_PASSES: u64 = 5_000;

/// The knobs of stage 2 the paper leaves open.
#[derive(Clone, Copy)]
pub struct Aging {
    /// Stage 2 stops when free space falls below this (paper GB, scaled by k).
    pub floor_gb: f64,
    /// Idle after each stage-2 pass, ms.
    pub idle_ms: u64,
    /// Each random 4 KiB overwrite fsync'd on its own (F2FS's `ipu_policy` FSYNC bit then
    /// updates it in place) instead of one fsync per file.
    pub sync_updates: bool,
}

/// The paper's aging: "until the available free space falls below 40 GB", no idle stated.
pub const PAPER: Aging = Aging {
    floor_gb: 40.0,
    idle_ms: 0,
    sync_updates: false,
};

/// `bytes` of the paper scaled by `k`, in whole blocks (at least one).
pub fn scaled(k: f64, bytes: f64) -> u64 {
    ((bytes * k / BLOCK_BYTES as f64).round() as u64).max(1) * BLOCK_BYTES
}

/// k of `rig`: its file system's user capacity / the paper's 512 GB.
pub fn scale_k(rig: &FsRig) -> f64 {
    (rig.f2fs().geo.user_blocks * BLOCK_BYTES) as f64 / PAPER_BYTES
}

/// Stage 1: "1 GB" files until free space is half the capacity, then every second deleted;
/// `exp` names the experiment in errors. Returns the files kept.
pub fn stage1(rig: &mut FsRig, exp: &str, k: f64) -> Result<Vec<Ino>> {
    let size = scaled(k, 1e9);
    let user = rig.f2fs().geo.user_blocks * BLOCK_BYTES;
    let mut files = Vec::new();
    while rig.f2fs().free_bytes() > user / 2 {
        let f = rig.create(exp, &format!("s1-{}", files.len()))?;
        rig.write_seq(exp, f, size, WRITE_IO)?;
        rig.op(0, |fs| fs.fsync(f, false));
        files.push(f);
    }
    for &f in files.iter().skip(1).step_by(2) {
        rig.op(0, |fs| fs.unlink(f));
    }
    Ok(files.into_iter().step_by(2).collect())
}

/// Stage 2: passes of 16 "64 MB" files with "about 12 MB" of random 4 KiB overwrites each
/// (buffered, fsync per file) until free space is below "40 GB". Returns the passes and the
/// files written.
pub fn stage2(rig: &mut FsRig, exp: &str, k: f64, a: Aging, seed: u64) -> Result<(u64, Vec<Ino>)> {
    let size = scaled(k, 64e6);
    let updates = scaled(k, 12e6) / BLOCK_BYTES;
    let floor = scaled(k, a.floor_gb * 1e9);
    let blocks = size / BLOCK_BYTES;
    let copy = rig.f2fs().p.page_copy_ns;
    let mut x = Xs::new(seed);
    let mut pass = 0;
    let mut files = Vec::new();
    while rig.f2fs().free_bytes() >= floor {
        if pass == MAX_PASSES {
            return Err(Error::Usage(format!(
                "{exp}: free space still above the floor after {MAX_PASSES} passes"
            )));
        }
        for i in 0..STAGE2_FILES {
            let f = rig.create(exp, &format!("s2-{pass}-{i}"))?;
            rig.write_seq(exp, f, size, WRITE_IO)?;
            rig.op(0, |fs| fs.fsync(f, false));
            for _ in 0..updates {
                let off = x.below(blocks) * BLOCK_BYTES;
                rig.op(copy, |fs| fs.write(f, off, BLOCK_BYTES, false))
                    .map_err(|_| Error::Usage(format!("{exp}: ENOSPC in stage 2")))?;
                if a.sync_updates {
                    rig.op(0, |fs| fs.fsync(f, false));
                }
            }
            rig.op(0, |fs| fs.fsync(f, false));
            files.push(f);
        }
        if a.idle_ms > 0 {
            rig.idle(a.idle_ms);
        }
        pass += 1;
    }
    Ok((pass, files))
}

/// How a set is written.
#[derive(Clone, Copy)]
pub struct Install {
    /// File-name extension: ".jpg" puts the files in F2FS's cold data log (mkfs's media
    /// extension list), which GC's moved blocks share; "" the warm one.
    pub ext: &'static str,
    /// A concurrent writer (an assumption; the papers name none): after each `CHUNK` of the
    /// file is written back, another file of the same extension gets `bytes` (written and
    /// fsync'd) before the file's next chunk, as the flusher interleaves inodes.
    pub other_bytes: Option<u64>,
}

/// Sequential install, nothing else writing, no extension.
pub const ALONE: Install = Install {
    ext: "",
    other_bytes: None,
};
/// Writeback chunk of one inode per flusher turn (`MIN_WRITEBACK_PAGES`, 1,024 pages).
pub const CHUNK: u64 = 4 << 20;

/// Write file `f` of `size` as `how` says; the concurrent writer's files are named
/// `other-{tag}-{part}{ext}`; `exp` names the experiment in errors.
pub fn install_one(
    rig: &mut FsRig,
    exp: &str,
    f: Ino,
    size: u64,
    how: Install,
    tag: &str,
) -> Result<()> {
    let Some(other) = how.other_bytes else {
        rig.write_seq(exp, f, size, WRITE_IO)?;
        rig.op(0, |fs| fs.fsync(f, false));
        return Ok(());
    };
    let copy = rig.f2fs().p.page_copy_ns;
    let mut off = 0;
    let mut part = 0;
    while off < size {
        let len = CHUNK.min(size - off);
        let end = off + len;
        while off < end {
            let l = WRITE_IO.min(end - off);
            rig.op(copy * l.div_ceil(BLOCK_BYTES), |fs| {
                fs.write(f, off, l, false)
            })
            .map_err(|_| Error::Usage(format!("{exp}: no space for a sequential write")))?;
            off += l;
        }
        rig.op(0, |fs| fs.fsync(f, false));
        let g = rig.create(exp, &format!("other-{tag}-{part}{}", how.ext))?;
        rig.write_seq(exp, g, other, WRITE_IO)?;
        rig.op(0, |fs| fs.fsync(g, false));
        part += 1;
    }
    Ok(())
}
