//! Persistence of an emulated device across runs: a `sparse:PATH` store keeps its data, and
//! `PATH.zsmeta` beside it keeps what the device needs to come back exactly where it was
//! (`zonesim mount --resume`, the fio engine's `zs_resume=1`).
//!
//! **What is saved: the command log, not the FTL's structures.** The model is deterministic: a
//! device built from the same config and seed, preconditioned the same way, that takes the same
//! commands at the same simulated times ends in the same state — map and reverse map, valid and
//! erase counts, L2P cache, buffers, zone conditions and write pointers, die and channel
//! timelines. So the file holds the commands the device took (every one: reads move the L2P
//! cache and the timelines too), 24 bytes each, and resuming rebuilds the device and replays
//! them at their recorded times (the FUSE disk's and fio's own submissions go through the same
//! `Device::submit`). This follows the write-ahead logging of database recovery (ARIES: a state
//! is the replay of its log from a known start) with the known start being a fresh device. The
//! alternative, serialising every structure of every FTL kind, would need a format per
//! structure kept in step with the model; the log needs none, at the cost of replay time and a
//! file that grows with the commands (docs/emulation.md, "Persistence", has both measured).
//!
//! Layout (little-endian): a header — magic, format version, state (open while a run has the
//! device, closed once it saved cleanly), the device config's hash, the store's size, the
//! commands logged, the simulated clock at close, the log's XXH3 hash, the length of the
//! identity line that follows — its own XXH3 hash, the identity line (device name, config hash,
//! namespace, seed, preconditioning), then the entries: simulated arrival (ns), byte offset, and
//! length with the command kind in its top byte. A power cut the emulation applied
//! (`emu::power`) is an entry of its own (kind [`CUT_CODE`], no offset or length): replaying
//! it cuts and recovers the rebuilt device at the same time, and a store whose device tracked
//! power cuts says so in its identity line, so the replay tracks them from the first command as
//! the original run did. A file whose magic, version, hashes or length
//! do not hold is corrupt; one made for another device, namespace, seed or preconditioning, or
//! left open by a run that did not end cleanly, is refused: each a one-line error, never a
//! silently fresh device.

use crate::engine::SimTime;
use crate::error::{Error, Result};
use crate::host::{HostIo, IoKind};
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use xxhash_rust::xxh3::{xxh3_64, Xxh3};

/// Suffix of the metadata file beside a `sparse:PATH` store.
pub const META_SUFFIX: &str = ".zsmeta";
const MAGIC: [u8; 8] = *b"ZSMETA\0\0";
/// Format version; a file of another version is refused.
pub const VERSION: u32 = 1;
/// Bytes of the fixed header (the identity line follows it).
const HEADER: usize = 72;
/// Bytes of one logged command.
pub const ENTRY: usize = 24;
const OPEN: u32 = 0;
const CLOSED: u32 = 1;
/// The length field of an entry holds 48 bits; the command kind and hint the top 16.
const LEN_BITS: u32 = 48;
/// The kind byte of a power-cut entry (no command kind uses it).
pub const CUT_CODE: u8 = 0xFF;
/// The end of the identity line of a device that tracks power cuts.
const POWER_SUFFIX: &str = ", power cuts tracked";

/// One entry of the log: a command, or a power cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Logged {
    Io(HostIo),
    PowerCut,
}

/// How the front end asked to open a `sparse:PATH` store (`--resume`, `--fresh`, neither).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum StoreOpen {
    /// Create the store; an existing store with data is an error naming the two flags.
    #[default]
    New,
    /// Continue the existing store where its last run left it.
    Resume,
    /// Start over: an existing store and its metadata are discarded.
    Fresh,
}

/// The metadata file of a store.
pub fn meta_path(store: &Path) -> PathBuf {
    let mut s = store.as_os_str().to_owned();
    s.push(META_SUFFIX);
    PathBuf::from(s)
}

/// What identifies a device's state besides its commands: the device config (by hash) and the
/// options that shape the state before the first command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    pub config_hash: u64,
    pub capacity: u64,
    /// One line naming the device, namespace, seed and preconditioning (for the error).
    pub line: String,
}

impl Identity {
    pub fn new(
        cfg: &crate::config::DeviceConfig,
        capacity: u64,
        namespace: usize,
        seed: u64,
        precondition: crate::sim::Precondition,
        power: bool,
    ) -> Identity {
        // Every key of the config, resolved, in declaration order (no maps in the config).
        let config_hash = xxh3_64(format!("{cfg:?}").as_bytes());
        Identity {
            config_hash,
            capacity,
            line: format!(
                "device `{}` (config hash {config_hash:016x}), namespace {namespace}, seed {seed}, precondition {}{}",
                cfg.name,
                precondition.name(),
                if power { POWER_SUFFIX } else { "" }
            ),
        }
    }
}

fn kind_code(k: IoKind) -> u8 {
    match k {
        IoKind::Read => 0,
        IoKind::Write => 1,
        IoKind::Trim => 2,
        IoKind::Flush => 3,
        IoKind::ZoneReset => 4,
        IoKind::ZoneFinish => 5,
        IoKind::ZoneOpen => 6,
        IoKind::ZoneClose => 7,
        IoKind::ZoneAppend => 8,
        IoKind::InPlace => 9,
    }
}

const KINDS: [IoKind; 10] = [
    IoKind::Read,
    IoKind::Write,
    IoKind::Trim,
    IoKind::Flush,
    IoKind::ZoneReset,
    IoKind::ZoneFinish,
    IoKind::ZoneOpen,
    IoKind::ZoneClose,
    IoKind::ZoneAppend,
    IoKind::InPlace,
];

/// One command as logged.
fn encode(at: SimTime, io: &HostIo) -> [u8; ENTRY] {
    let mut e = [0u8; ENTRY];
    e[..8].copy_from_slice(&at.ns().to_le_bytes());
    e[8..16].copy_from_slice(&io.offset.to_le_bytes());
    let tag = u64::from(kind_code(io.kind)) << 56 | u64::from(io.hint) << LEN_BITS;
    e[16..].copy_from_slice(&(tag | io.len).to_le_bytes());
    e
}

fn decode(e: &[u8; ENTRY]) -> Option<(SimTime, Logged)> {
    let word = |i: usize| u64::from_le_bytes(e[i..i + 8].try_into().expect("8 bytes"));
    let tagged = word(16);
    if (tagged >> 56) as u8 == CUT_CODE {
        return Some((SimTime(word(0)), Logged::PowerCut));
    }
    let kind = *KINDS.get((tagged >> 56) as usize)?;
    let mut io = HostIo::new(kind, word(8), tagged & ((1 << LEN_BITS) - 1));
    io.hint = (tagged >> LEN_BITS) as u8;
    Some((SimTime(word(0)), Logged::Io(io)))
}

/// A power-cut entry at `at`.
fn encode_cut(at: SimTime) -> [u8; ENTRY] {
    let mut e = [0u8; ENTRY];
    e[..8].copy_from_slice(&at.ns().to_le_bytes());
    e[16..].copy_from_slice(&(u64::from(CUT_CODE) << 56).to_le_bytes());
    e
}

/// Whether the store at `store` was made by a device that tracks power cuts (its identity line
/// says so); `false` when its metadata is missing or unreadable (`resume` then says why).
pub fn tracks_power(store: &Path) -> bool {
    let Ok(mut f) = File::open(meta_path(store)) else {
        return false;
    };
    let mut hb = [0u8; HEADER];
    let Some(h) = f
        .read_exact(&mut hb)
        .ok()
        .and_then(|()| Header::parse(&hb).ok())
    else {
        return false;
    };
    let mut line = vec![0u8; h.line_len.min(4096) as usize];
    f.read_exact(&mut line).is_ok() && line.ends_with(POWER_SUFFIX.as_bytes())
}

/// The fixed header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Header {
    state: u32,
    config_hash: u64,
    capacity: u64,
    commands: u64,
    clock: u64,
    log_hash: u64,
    line_len: u64,
}

impl Header {
    fn bytes(&self) -> [u8; HEADER] {
        let mut b = [0u8; HEADER];
        b[..8].copy_from_slice(&MAGIC);
        b[8..12].copy_from_slice(&VERSION.to_le_bytes());
        b[12..16].copy_from_slice(&self.state.to_le_bytes());
        let words = [
            self.config_hash,
            self.capacity,
            self.commands,
            self.clock,
            self.log_hash,
            self.line_len,
        ];
        for (i, w) in words.iter().enumerate() {
            b[16 + 8 * i..24 + 8 * i].copy_from_slice(&w.to_le_bytes());
        }
        let h = xxh3_64(&b[..HEADER - 8]);
        b[HEADER - 8..].copy_from_slice(&h.to_le_bytes());
        b
    }

    fn parse(b: &[u8; HEADER]) -> std::result::Result<Header, String> {
        if b[..8] != MAGIC {
            return Err("not a zonesim store metadata file (bad magic)".into());
        }
        let u32_at = |i: usize| u32::from_le_bytes(b[i..i + 4].try_into().expect("4 bytes"));
        let word = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().expect("8 bytes"));
        if u32_at(8) != VERSION {
            return Err(format!(
                "format version {}, this zonesim reads version {VERSION}",
                u32_at(8)
            ));
        }
        if word(HEADER - 8) != xxh3_64(&b[..HEADER - 8]) {
            return Err("corrupt header (its hash does not match)".into());
        }
        Ok(Header {
            state: u32_at(12),
            config_hash: word(16),
            capacity: word(24),
            commands: word(32),
            clock: word(40),
            log_hash: word(48),
            line_len: word(56),
        })
    }
}

/// What a resumed store brought back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Resumed {
    pub commands: u64,
    /// The simulated clock when the store was last closed.
    pub clock: SimTime,
}

/// The open metadata of a store: the log being written.
pub struct Persist {
    path: PathBuf,
    log: BufWriter<File>,
    hasher: Xxh3,
    header: Header,
    /// Commands logged since the file was last marked open (0: it says closed).
    dirty: bool,
}

fn corrupt(path: &Path, what: impl std::fmt::Display) -> Error {
    Error::Usage(format!(
        "{}: {what}; --fresh starts the store over (its data is lost)",
        path.display()
    ))
}

impl Persist {
    /// A new metadata file for an empty store (replacing any there).
    pub fn create(store: &Path, id: &Identity) -> Result<Persist> {
        let path = meta_path(store);
        let mut file = File::create(&path).map_err(|e| Error::io(&path, e))?;
        let header = Header {
            state: CLOSED,
            config_hash: id.config_hash,
            capacity: id.capacity,
            commands: 0,
            clock: 0,
            log_hash: Xxh3::new().digest(),
            line_len: id.line.len() as u64,
        };
        file.write_all(&header.bytes())
            .and_then(|()| file.write_all(id.line.as_bytes()))
            .map_err(|e| Error::io(&path, e))?;
        Ok(Persist {
            log: BufWriter::with_capacity(64 << 10, file),
            path,
            hasher: Xxh3::new(),
            header,
            dirty: false,
        })
    }

    /// Opens the metadata of an existing store, checks it against `id` and hands every logged
    /// command to `replay` in order; the log then continues after them.
    pub fn resume(
        store: &Path,
        id: &Identity,
        mut replay: impl FnMut(SimTime, Logged),
    ) -> Result<(Persist, Resumed)> {
        let path = meta_path(store);
        let mut file = match std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(&path)
        {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(corrupt(
                    &path,
                    "missing: the store's device state was never saved beside it",
                ))
            }
            r => r.map_err(|e| Error::io(&path, e))?,
        };
        let len = file.metadata().map_err(|e| Error::io(&path, e))?.len();
        let mut hb = [0u8; HEADER];
        file.read_exact(&mut hb)
            .map_err(|_| corrupt(&path, "shorter than a metadata header"))?;
        let header = Header::parse(&hb).map_err(|e| corrupt(&path, e))?;
        let mut line = vec![0u8; header.line_len.min(4096) as usize];
        file.read_exact(&mut line)
            .map_err(|_| corrupt(&path, "truncated identity line"))?;
        let line = String::from_utf8_lossy(&line);
        if header.config_hash != id.config_hash || line != id.line {
            return Err(Error::Usage(format!(
                "{}: made for {line}; this run is {}: resume with the options it was made with, or --fresh to start over",
                path.display(),
                id.line
            )));
        }
        if header.capacity != id.capacity {
            return Err(corrupt(
                &path,
                format!(
                    "a store of {} bytes, the namespace has {}",
                    header.capacity, id.capacity
                ),
            ));
        }
        if header.state != CLOSED {
            return Err(corrupt(
                &path,
                "not closed cleanly (the run using it ended without closing the device), so the device's state is unknown",
            ));
        }
        let start = (HEADER as u64) + header.line_len;
        if len != start + header.commands * ENTRY as u64 {
            return Err(corrupt(
                &path,
                format!(
                    "{len} bytes, the header says {} commands ({} bytes)",
                    header.commands,
                    start + header.commands * ENTRY as u64
                ),
            ));
        }
        let mut hasher = Xxh3::new();
        let mut r = BufReader::with_capacity(64 << 10, &mut file);
        let mut e = [0u8; ENTRY];
        for i in 0..header.commands {
            r.read_exact(&mut e).map_err(|err| Error::io(&path, err))?;
            hasher.update(&e);
            let (at, io) =
                decode(&e).ok_or_else(|| corrupt(&path, format!("command {i}: unknown kind")))?;
            replay(at, io);
        }
        if hasher.digest() != header.log_hash {
            return Err(corrupt(&path, "corrupt log (its hash does not match)"));
        }
        drop(r);
        file.seek(SeekFrom::End(0))
            .map_err(|e| Error::io(&path, e))?;
        let resumed = Resumed {
            commands: header.commands,
            clock: SimTime(header.clock),
        };
        Ok((
            Persist {
                log: BufWriter::with_capacity(64 << 10, file),
                path,
                hasher,
                header,
                dirty: false,
            },
            resumed,
        ))
    }

    /// Logs one command the device takes at `at`.
    #[inline]
    pub fn log(&mut self, at: SimTime, io: &HostIo) -> std::io::Result<()> {
        self.append(&encode(at, io))
    }

    /// Logs a power cut at `at` (the store's data already holds what survived it).
    pub fn log_power_cut(&mut self, at: SimTime) -> std::io::Result<()> {
        self.append(&encode_cut(at))
    }

    #[inline]
    fn append(&mut self, e: &[u8; ENTRY]) -> std::io::Result<()> {
        if !self.dirty {
            self.mark_open()?;
        }
        self.hasher.update(e);
        self.header.commands += 1;
        self.log.write_all(e)
    }

    #[cold]
    fn mark_open(&mut self) -> std::io::Result<()> {
        self.dirty = true;
        self.header.state = OPEN;
        self.write_header()
    }

    fn write_header(&mut self) -> std::io::Result<()> {
        let f = self.log.get_ref();
        f.write_all_at(&self.header.bytes(), 0)?;
        f.sync_data()
    }

    /// Saves the state: the log flushed, the header closed with the clock and the log's hash.
    /// The device may take more commands afterwards (they mark the file open again).
    pub fn close(&mut self, clock: SimTime) -> Result<()> {
        self.header.state = CLOSED;
        self.header.clock = clock.ns();
        self.header.log_hash = self.hasher.digest();
        self.dirty = false;
        self.log
            .flush()
            .and_then(|()| self.log.get_ref().sync_data())
            .and_then(|()| self.write_header())
            .map_err(|e| Error::io(&self.path, e))
    }

    /// Bytes of the metadata file (header, identity line and log).
    pub fn log_bytes(&self) -> u64 {
        HEADER as u64 + self.header.line_len + self.header.commands * ENTRY as u64
    }

    /// Commands in the log.
    pub fn commands(&self) -> u64 {
        self.header.commands
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_round_trip_every_kind() {
        for (i, &k) in KINDS.iter().enumerate() {
            assert_eq!(kind_code(k) as usize, i);
            let mut io = HostIo::new(k, 123_456_789_012, (1 << LEN_BITS) - 1);
            io.hint = 3;
            assert_eq!(
                decode(&encode(SimTime(42), &io)),
                Some((SimTime(42), Logged::Io(io)))
            );
        }
        assert_eq!(
            decode(&encode_cut(SimTime(7))),
            Some((SimTime(7), Logged::PowerCut))
        );
        let mut bad = encode(SimTime(1), &HostIo::new(IoKind::Read, 0, 4096));
        bad[23] = 200;
        assert_eq!(decode(&bad), None);
    }

    #[test]
    fn header_round_trips_and_any_changed_byte_is_caught() {
        let h = Header {
            state: CLOSED,
            config_hash: 7,
            capacity: 1 << 30,
            commands: 3,
            clock: 99,
            log_hash: 5,
            line_len: 10,
        };
        let b = h.bytes();
        assert_eq!(Header::parse(&b), Ok(h));
        for i in 0..HEADER {
            let mut c = b;
            c[i] ^= 1;
            assert!(Header::parse(&c).is_err(), "byte {i}");
        }
    }
}
