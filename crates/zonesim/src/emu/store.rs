//! The data store of an emulated namespace (`--store none|memory|sparse:PATH`): what the host
//! wrote, so that reads return it (zeros where nothing was written), trims and zone resets drop
//! it, and `--verify` can check every read against the last write of each 4 KiB page.
//!
//! Data is a host concern: the timing model (workload -> interface -> firmware -> NAND) never sees
//! it, and with `none` no byte is stored or copied. `memory` keeps the written pages in a hash map
//! (sparse: untouched pages cost nothing); `sparse:PATH` keeps them in a sparse file of the
//! namespace's size (trims punch holes), which outlives the run: the device state beside it
//! (`emu::persist`) lets the next run `--resume` it, and a store holding data is truncated only
//! with `--fresh`.

use super::persist::StoreOpen;
use crate::error::{Error, Result};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::path::{Path, PathBuf};

/// Bytes of one stored page (the model's logical page).
pub const PAGE: u64 = crate::nand::SLOT_BYTES;
const PAGE_USIZE: usize = PAGE as usize;

/// `--store` / `zs_store`: where written data is kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoreSpec {
    /// Timing only: reads return zeros, writes are dropped.
    None,
    Memory,
    Sparse(PathBuf),
}

impl StoreSpec {
    /// Parses `none`, `memory` or `sparse:PATH`; `key` names the option in the error.
    pub fn parse(key: &str, s: &str) -> Result<StoreSpec> {
        match s {
            "none" => Ok(StoreSpec::None),
            "memory" => Ok(StoreSpec::Memory),
            _ => match s.strip_prefix("sparse:") {
                Some(p) if !p.is_empty() => Ok(StoreSpec::Sparse(PathBuf::from(p))),
                _ => Err(Error::config(
                    key,
                    format!("`{s}`: expected none, memory or sparse:PATH"),
                )),
            },
        }
    }

    pub fn name(&self) -> &'static str {
        match self {
            StoreSpec::None => "none",
            StoreSpec::Memory => "memory",
            StoreSpec::Sparse(_) => "sparse",
        }
    }
}

/// Hasher for page numbers (integers, never strings): one multiply.
#[derive(Default)]
struct PageHasher(u64);

impl Hasher for PageHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = (v ^ (v >> 29)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

/// A map keyed by page number.
type PageMap<V> = HashMap<u64, V, BuildHasherDefault<PageHasher>>;

/// Pages allocated per chunk of the memory store (2 MiB: one allocation, mapped lazily by the
/// kernel, instead of a heap allocation per page).
const CHUNK_PAGES: usize = 512;

/// The memory store: page number -> slot, slots in 2 MiB chunks, trimmed slots reused.
#[derive(Default)]
struct MemPages {
    slot_of: PageMap<u32>,
    chunks: Vec<Chunk>,
    /// Slots handed out so far (the next fresh one).
    fresh: u32,
    free: Vec<u32>,
}

impl MemPages {
    fn page(&self, slot: u32) -> &[u8; PAGE_USIZE] {
        let s = slot as usize;
        &self.chunks[s / CHUNK_PAGES].pages()[s % CHUNK_PAGES]
    }

    fn page_mut(&mut self, slot: u32) -> &mut [u8; PAGE_USIZE] {
        let s = slot as usize;
        &mut self.chunks[s / CHUNK_PAGES].pages_mut()[s % CHUNK_PAGES]
    }

    fn get(&self, page: u64) -> Option<&[u8; PAGE_USIZE]> {
        self.slot_of.get(&page).map(|&s| self.page(s))
    }

    /// The page's data, a zeroed page if it had none.
    fn get_or_zero(&mut self, page: u64) -> &mut [u8; PAGE_USIZE] {
        let slot = match self.slot_of.get(&page) {
            Some(&s) => s,
            None => {
                let s = self.alloc();
                self.slot_of.insert(page, s);
                s
            }
        };
        self.page_mut(slot)
    }

    fn alloc(&mut self) -> u32 {
        if let Some(s) = self.free.pop() {
            self.page_mut(s).fill(0);
            return s;
        }
        if self.fresh as usize == self.chunks.len() * CHUNK_PAGES {
            self.chunks.push(Chunk::zeroed());
        }
        self.fresh += 1;
        self.fresh - 1
    }

    fn remove(&mut self, page: u64) {
        if let Some(s) = self.slot_of.remove(&page) {
            self.free.push(s);
        }
    }
}

/// One chunk of zeroed pages, 2 MiB-aligned and advised for transparent huge pages: one page
/// fault per chunk instead of one per 4 KiB page where the kernel allows it.
struct Chunk(std::ptr::NonNull<[u8; PAGE_USIZE]>);

const CHUNK_BYTES: usize = CHUNK_PAGES * PAGE_USIZE;

fn chunk_layout() -> std::alloc::Layout {
    std::alloc::Layout::from_size_align(CHUNK_BYTES, CHUNK_BYTES).expect("valid layout")
}

// SAFETY: the chunk owns its memory; nothing else points into it.
unsafe impl Send for Chunk {}
unsafe impl Sync for Chunk {}

impl Chunk {
    fn zeroed() -> Chunk {
        let layout = chunk_layout();
        // SAFETY: the layout has a non-zero size; madvise only advises on memory we own.
        unsafe {
            let p = std::alloc::alloc_zeroed(layout);
            let Some(p) = std::ptr::NonNull::new(p) else {
                std::alloc::handle_alloc_error(layout);
            };
            libc::madvise(p.as_ptr().cast(), CHUNK_BYTES, libc::MADV_HUGEPAGE);
            Chunk(p.cast())
        }
    }

    fn pages(&self) -> &[[u8; PAGE_USIZE]] {
        // SAFETY: CHUNK_PAGES zero-initialised pages owned by self.
        unsafe { std::slice::from_raw_parts(self.0.as_ptr(), CHUNK_PAGES) }
    }

    fn pages_mut(&mut self) -> &mut [[u8; PAGE_USIZE]] {
        // SAFETY: as in `pages`, borrowed mutably through self.
        unsafe { std::slice::from_raw_parts_mut(self.0.as_ptr(), CHUNK_PAGES) }
    }
}

impl Drop for Chunk {
    fn drop(&mut self) {
        // SAFETY: allocated in `zeroed` with this layout.
        unsafe { std::alloc::dealloc(self.0.as_ptr().cast(), chunk_layout()) }
    }
}

/// Page-granular storage behind [`Store`].
enum Backing {
    None,
    Memory(MemPages),
    Sparse { file: std::fs::File, path: PathBuf },
}

/// The data of one namespace. Byte ranges need not be page-aligned.
pub struct Store {
    backing: Backing,
    capacity: u64,
}

/// One page-or-less piece of a byte range: page number, offset in the page, length.
fn pieces(offset: u64, len: u64) -> impl Iterator<Item = (u64, usize, usize)> {
    let end = offset + len;
    let mut at = offset;
    std::iter::from_fn(move || {
        if at >= end {
            return None;
        }
        let in_page = at % PAGE;
        let n = (PAGE - in_page).min(end - at);
        let piece = (at / PAGE, in_page as usize, n as usize);
        at += n;
        Some(piece)
    })
}

impl Store {
    /// Opens the store of a namespace of `capacity` bytes. `sparse:PATH` is created at that
    /// size ([`StoreOpen::New`]: an existing store with data is an error naming `--resume` and
    /// `--fresh`), kept as it is ([`StoreOpen::Resume`]) or truncated ([`StoreOpen::Fresh`]);
    /// `none` and `memory` keep nothing across runs, so they take neither flag.
    pub fn open(spec: &StoreSpec, capacity: u64, mode: StoreOpen) -> Result<Store> {
        let backing = match spec {
            StoreSpec::None | StoreSpec::Memory if mode != StoreOpen::New => {
                return Err(Error::Usage(format!(
                    "--resume and --fresh apply to a sparse:PATH store; `{}` keeps nothing across runs",
                    spec.name()
                )))
            }
            StoreSpec::None => Backing::None,
            StoreSpec::Memory => Backing::Memory(MemPages::default()),
            StoreSpec::Sparse(path) => Backing::Sparse {
                file: open_sparse(path, capacity, mode)?,
                path: path.clone(),
            },
        };
        Ok(Store { backing, capacity })
    }

    /// Makes what was written durable (`sparse:PATH`; nothing to do otherwise).
    pub fn sync(&self) -> Result<()> {
        match &self.backing {
            Backing::Sparse { file, path } => file.sync_data().map_err(|e| Error::io(path, e)),
            _ => Ok(()),
        }
    }

    /// Whether data is kept at all (`none` keeps nothing).
    pub fn keeps_data(&self) -> bool {
        !matches!(self.backing, Backing::None)
    }

    /// Pages held in memory (`memory` only; 0 otherwise).
    pub fn resident_pages(&self) -> u64 {
        match &self.backing {
            Backing::Memory(m) => m.slot_of.len() as u64,
            _ => 0,
        }
    }

    /// Stores `data` at byte `offset`.
    pub fn write(&mut self, offset: u64, data: &[u8]) -> Result<()> {
        match &mut self.backing {
            Backing::None => Ok(()),
            Backing::Memory(m) => {
                let mut src = 0;
                for (page, at, n) in pieces(offset, data.len() as u64) {
                    m.get_or_zero(page)[at..at + n].copy_from_slice(&data[src..src + n]);
                    src += n;
                }
                Ok(())
            }
            Backing::Sparse { file, path } => {
                use std::os::unix::fs::FileExt;
                file.write_all_at(data, offset)
                    .map_err(|e| Error::io(&*path, e))
            }
        }
    }

    /// Fills `buf` with the data at byte `offset` (zeros where nothing is stored).
    pub fn read(&self, offset: u64, buf: &mut [u8]) -> Result<()> {
        match &self.backing {
            Backing::None => {
                buf.fill(0);
                Ok(())
            }
            Backing::Memory(m) => {
                let mut dst = 0;
                for (page, at, n) in pieces(offset, buf.len() as u64) {
                    let out = &mut buf[dst..dst + n];
                    match m.get(page) {
                        Some(p) => out.copy_from_slice(&p[at..at + n]),
                        None => out.fill(0),
                    }
                    dst += n;
                }
                Ok(())
            }
            Backing::Sparse { file, path } => {
                use std::os::unix::fs::FileExt;
                file.read_exact_at(buf, offset)
                    .map_err(|e| Error::io(path, e))
            }
        }
    }

    /// Drops the data of `[offset, offset + len)`: whole pages are freed (a hole in a sparse
    /// file), partial ones zeroed. Reads of the range return zeros afterwards.
    pub fn trim(&mut self, offset: u64, len: u64) -> Result<()> {
        let len = len.min(self.capacity.saturating_sub(offset));
        match &mut self.backing {
            Backing::None => Ok(()),
            Backing::Memory(m) => {
                for (page, at, n) in pieces(offset, len) {
                    if n == PAGE_USIZE {
                        m.remove(page);
                    } else if let Some(&s) = m.slot_of.get(&page) {
                        m.page_mut(s)[at..at + n].fill(0);
                    }
                }
                Ok(())
            }
            Backing::Sparse { file, path } => {
                punch_hole(file, offset, len).map_err(|e| Error::io(&*path, e))
            }
        }
    }
}

/// The file of a `sparse:PATH` store, opened as `mode` says (see [`Store::open`]).
fn open_sparse(path: &Path, capacity: u64, mode: StoreOpen) -> Result<std::fs::File> {
    // A missing file (or one we may not stat: opening it reports why) holds nothing.
    let held = std::fs::metadata(path).map_or(0, |m| m.len());
    match mode {
        StoreOpen::New if held > 0 && holds_data(path) => {
            return Err(Error::Usage(format!(
                "{}: holds the data of an earlier run; --resume continues it, --fresh starts over (its data is lost)",
                path.display()
            )))
        }
        StoreOpen::Resume if held == 0 => {
            return Err(Error::Usage(format!(
                "{}: --resume: no store there to resume",
                path.display()
            )))
        }
        StoreOpen::Resume if held != capacity => {
            return Err(Error::Usage(format!(
                "{}: --resume: a store of {held} bytes, the namespace has {capacity}",
                path.display()
            )))
        }
        _ => {}
    }
    let resume = mode == StoreOpen::Resume;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(!resume)
        .truncate(!resume)
        .open(path)
        .map_err(|e| Error::io(path, e))?;
    if !resume {
        file.set_len(capacity).map_err(|e| Error::io(path, e))?;
    }
    Ok(file)
}

/// Whether the file at `path` has any data (a store created and never written has none: it
/// is all hole). A file that cannot be read counts as holding data (opening it then says why).
fn holds_data(path: &Path) -> bool {
    use std::os::unix::io::AsRawFd;
    let Ok(file) = std::fs::File::open(path) else {
        return true;
    };
    // SAFETY: lseek on an open descriptor owned by `file`.
    let at = unsafe { libc::lseek(file.as_raw_fd(), 0, libc::SEEK_DATA) };
    at >= 0 || std::io::Error::last_os_error().raw_os_error() != Some(libc::ENXIO)
}

/// The byte ranges of `file` that hold data (between holes), from `SEEK_DATA` / `SEEK_HOLE`.
fn data_ranges(file: &std::fs::File, size: u64) -> std::io::Result<Vec<(u64, u64)>> {
    use std::os::unix::io::AsRawFd;
    let mut out = Vec::new();
    let mut at = 0u64;
    while at < size {
        // SAFETY: lseek on an open descriptor owned by `file`.
        let data = unsafe { libc::lseek(file.as_raw_fd(), at as libc::off_t, libc::SEEK_DATA) };
        if data < 0 {
            let e = std::io::Error::last_os_error();
            // ENXIO: no data at or after `at`.
            return if e.raw_os_error() == Some(libc::ENXIO) {
                Ok(out)
            } else {
                Err(e)
            };
        }
        // SAFETY: as above.
        let hole = unsafe { libc::lseek(file.as_raw_fd(), data, libc::SEEK_HOLE) };
        if hole < 0 {
            return Err(std::io::Error::last_os_error());
        }
        let (data, hole) = (data as u64, (hole as u64).min(size));
        if hole > data {
            out.push((data, hole));
        }
        at = hole.max(data + 1);
    }
    Ok(out)
}

/// Deallocates `[offset, offset + len)` of `file`, keeping its size (reads return zeros).
fn punch_hole(file: &std::fs::File, offset: u64, len: u64) -> std::io::Result<()> {
    use std::os::unix::io::AsRawFd;
    if len == 0 {
        return Ok(());
    }
    // SAFETY: fallocate on an open descriptor owned by `file`; no memory is passed.
    let r = unsafe {
        libc::fallocate(
            file.as_raw_fd(),
            libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE,
            offset as libc::off_t,
            len as libc::off_t,
        )
    };
    if r == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// `--verify`: the digest of the last data written to each page, checked on every read.
/// A page never written (or trimmed since) must read as zeros.
#[derive(Default)]
pub struct Verifier {
    digests: PageMap<u64>,
    /// Pages checked by reads.
    pub pages_verified: u64,
    /// Pages whose data read differs from the last write.
    pub mismatches: u64,
    /// The first mismatching page (byte offset), for the report.
    pub first_mismatch: Option<u64>,
}

fn digest(page: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64(page)
}

impl Verifier {
    /// Records the pages `[offset, offset + len)` as they now are in `store` (partial pages
    /// are read back whole).
    pub fn wrote(&mut self, store: &Store, offset: u64, data: &[u8]) -> Result<()> {
        let mut page_buf = [0u8; PAGE_USIZE];
        let mut src = 0;
        for (page, at, n) in pieces(offset, data.len() as u64) {
            let d = if n == PAGE_USIZE {
                digest(&data[src..src + n])
            } else {
                store.read(page * PAGE, &mut page_buf)?;
                digest(&page_buf)
            };
            debug_assert!(at + n <= PAGE_USIZE);
            self.digests.insert(page, d);
            src += n;
        }
        Ok(())
    }

    /// Takes the data a resumed store holds as its pages' last writes (the digests of an
    /// earlier run are not kept): reads then check the store against what it held at resume
    /// and this run's writes.
    pub fn seed(&mut self, store: &Store) -> Result<()> {
        let Backing::Sparse { file, path } = &store.backing else {
            return Ok(());
        };
        let zero = digest(&[0u8; PAGE_USIZE]);
        let mut page_buf = [0u8; PAGE_USIZE];
        let ranges = data_ranges(file, store.capacity).map_err(|e| Error::io(path, e))?;
        for (start, end) in ranges {
            for page in start / PAGE..end.div_ceil(PAGE) {
                store.read(page * PAGE, &mut page_buf)?;
                let d = digest(&page_buf);
                if d != zero {
                    self.digests.insert(page, d);
                }
            }
        }
        Ok(())
    }

    /// Forgets the pages wholly inside `[offset, offset + len)`; partial ones are re-read.
    pub fn trimmed(&mut self, store: &Store, offset: u64, len: u64) -> Result<()> {
        let mut page_buf = [0u8; PAGE_USIZE];
        for (page, _, n) in pieces(offset, len) {
            if n == PAGE_USIZE {
                self.digests.remove(&page);
            } else if let Some(d) = self.digests.get_mut(&page) {
                store.read(page * PAGE, &mut page_buf)?;
                *d = digest(&page_buf);
            }
        }
        Ok(())
    }

    /// Checks the pages `[offset, offset + buf.len())` just read into `buf` against their last
    /// write (partial pages are read whole from `store`). Returns the mismatching pages.
    pub fn check(&mut self, store: &Store, offset: u64, buf: &[u8]) -> Result<u64> {
        let zero = digest(&[0u8; PAGE_USIZE]);
        let mut page_buf = [0u8; PAGE_USIZE];
        let mut src = 0;
        let mut bad = 0;
        for (page, _, n) in pieces(offset, buf.len() as u64) {
            let got = if n == PAGE_USIZE {
                digest(&buf[src..src + n])
            } else {
                store.read(page * PAGE, &mut page_buf)?;
                digest(&page_buf)
            };
            let want = self.digests.get(&page).copied().unwrap_or(zero);
            self.pages_verified += 1;
            if got != want {
                bad += 1;
                self.first_mismatch.get_or_insert(page * PAGE);
            }
            src += n;
        }
        self.mismatches += bad;
        Ok(bad)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pattern(len: usize, seed: u8) -> Vec<u8> {
        (0..len)
            .map(|i| (i as u8).wrapping_mul(31) ^ seed)
            .collect()
    }

    fn stores() -> Vec<Store> {
        let dir = std::env::temp_dir().join(format!("zonesim-store-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        vec![
            Store::open(&StoreSpec::Memory, 1 << 20, StoreOpen::New).unwrap(),
            Store::open(
                &StoreSpec::Sparse(dir.join("s.img")),
                1 << 20,
                StoreOpen::New,
            )
            .unwrap(),
        ]
    }

    #[test]
    fn spec_parses_and_rejects() {
        assert_eq!(
            StoreSpec::parse("--store", "none").unwrap(),
            StoreSpec::None
        );
        assert_eq!(
            StoreSpec::parse("--store", "sparse:/x").unwrap(),
            StoreSpec::Sparse("/x".into())
        );
        let e = StoreSpec::parse("--store", "disk").unwrap_err().to_string();
        assert!(e.contains("--store") && e.contains("sparse:PATH"), "{e}");
        assert!(StoreSpec::parse("--store", "sparse:").is_err());
    }

    #[test]
    fn reads_return_last_write_and_zeros_after_trim() {
        for mut s in stores() {
            let a = pattern(10_000, 1);
            s.write(1000, &a).unwrap();
            let mut back = vec![0u8; 10_000];
            s.read(1000, &mut back).unwrap();
            assert_eq!(back, a);
            let b = pattern(4096, 7);
            s.write(4096, &b).unwrap();
            let mut page = vec![0u8; 4096];
            s.read(4096, &mut page).unwrap();
            assert_eq!(page, b);
            s.trim(0, 8192).unwrap();
            let mut all = vec![1u8; 12_000];
            s.read(0, &mut all).unwrap();
            assert!(all[..8192].iter().all(|&x| x == 0));
            assert_eq!(&all[8192..11_000], &a[7192..]);
        }
    }

    #[test]
    fn none_keeps_nothing() {
        let mut s = Store::open(&StoreSpec::None, 1 << 20, StoreOpen::New).unwrap();
        s.write(0, &pattern(4096, 3)).unwrap();
        let mut b = vec![9u8; 4096];
        s.read(0, &mut b).unwrap();
        assert!(b.iter().all(|&x| x == 0) && !s.keeps_data());
    }

    #[test]
    fn verifier_catches_a_changed_page_and_accepts_trimmed_zeros() {
        let mut s = Store::open(&StoreSpec::Memory, 1 << 20, StoreOpen::New).unwrap();
        let mut v = Verifier::default();
        let a = pattern(8192, 5);
        s.write(0, &a).unwrap();
        v.wrote(&s, 0, &a).unwrap();
        let mut b = vec![0u8; 8192];
        s.read(0, &mut b).unwrap();
        assert_eq!(v.check(&s, 0, &b).unwrap(), 0);
        // A store that lost a write: the page reads as the old data.
        let c = pattern(4096, 9);
        v.wrote(&s, 4096, &c).unwrap();
        s.read(0, &mut b).unwrap();
        assert_eq!(v.check(&s, 0, &b).unwrap(), 1);
        assert_eq!(v.first_mismatch, Some(4096));
        s.trim(0, 8192).unwrap();
        v.trimmed(&s, 0, 8192).unwrap();
        s.read(0, &mut b).unwrap();
        assert_eq!(v.check(&s, 0, &b).unwrap(), 0);
        // Partial-page write: the digest is of the whole page as stored.
        s.write(100, &[1, 2, 3]).unwrap();
        v.wrote(&s, 100, &[1, 2, 3]).unwrap();
        let mut small = [0u8; 3];
        s.read(100, &mut small).unwrap();
        assert_eq!(v.check(&s, 100, &small).unwrap(), 0);
        assert_eq!(v.mismatches, 1);
    }
}
