//! The zoned-namespace state machine: zone conditions, write pointers, open/active limits.
//!
//! Pure logic, no timing: the device model asks this module whether a request is legal and, if it
//! is, the state advances. A rejected request changes nothing and is answered with a
//! [`ZoneErrorKind`], which the device counts in a [`ZoneErrorLog`] (design §1 Interface,
//! issue 3 item 1).
//!
//! # Model
//!
//! The rules are those of the Linux zoned block device model (ZBC/ZAC, NVMe ZNS), as used by
//! Zoned UFS (seed 001 §2.3: "the starting LBA of each write must match the zone's write
//! pointer"; "at least six open zones" must be supported). Where ZBC and ZNS differ, we follow
//! NVMe ZNS as implemented by Linux `null_blk` (the kernel's reference zoned-device emulator,
//! `drivers/block/null_blk/zoned.c`); every such choice is listed in the table below.
//!
//! A namespace has `zones` zones of `zone_size` LBAs (4 KiB logical blocks); zone `i` starts at
//! LBA `i * zone_size`. Only the first `zone_capacity` LBAs of a zone are writable (the capacity
//! need not be a power of two, e.g. a TLC superblock); LBAs between capacity and size are never
//! writable or readable.
//!
//! Resources: a zone is *open* when IMPLICIT_OPEN or EXPLICIT_OPEN and *active* when open or
//! CLOSED. `max_open` bounds open zones and `max_active` bounds active zones (0 = unlimited).
//! When an EMPTY or CLOSED zone must become open and the open limit is reached, the
//! least-recently *implicitly opened* zone still IMPLICIT_OPEN is closed implicitly to make room
//! (its data stays, it becomes CLOSED and stays active); only if no zone is IMPLICIT_OPEN is the
//! request rejected with `too_many_open`. An EMPTY zone also needs an active resource; if
//! `max_active` zones are active the request fails with `too_many_active` (closing a zone
//! implicitly would not free an active resource).
//!
//! # Transition table
//!
//! Columns: current condition. `E`=EMPTY, `IO`=IMPLICIT_OPEN, `EO`=EXPLICIT_OPEN, `C`=CLOSED,
//! `F`=FULL, `RO`=READ_ONLY, `OFF`=OFFLINE. `res` = needs open (and, from EMPTY, active)
//! resources as above; `inv` = `invalid_transition`; `nop` = success, nothing changes.
//!
//! | op           | E          | IO        | EO        | C          | F          | RO  | OFF |
//! |--------------|------------|-----------|-----------|------------|------------|-----|-----|
//! | write/append | IO (res)   | IO        | EO        | IO (res)   | write_full | inv | inv |
//! | open         | EO (res)   | EO        | nop       | EO (res)   | inv        | inv | inv |
//! | close        | inv        | C         | C, or E¹  | nop        | inv        | inv | inv |
//! | finish       | F (res)²   | F         | F         | F (res)²   | nop        | inv | inv |
//! | reset        | nop        | E         | E         | E          | E          | inv | inv |
//! | read         | ≤ wp       | ≤ wp      | ≤ wp      | ≤ wp       | ≤ wp       | ≤ wp³ | inv |
//!
//! A write or append that reaches the zone capacity moves the zone to FULL (releasing its open and
//! active resources). Finish sets the write pointer to the capacity end. Reset sets it to the
//! zone start.
//!
//! Decisions, with their sources:
//! - open of FULL: ZNS aborts with "Zone Is Full" (ZBC would make it a no-op); we answer
//!   `invalid_transition`, as the brief asks.
//! - close of EMPTY and of FULL: ZNS "Invalid Zone State Transition", `null_blk` fails it too;
//!   close of CLOSED is a no-op success (ZNS and `null_blk`).
//! - ¹ close of an open zone whose write pointer is still at the zone start (only possible for
//!   EXPLICIT_OPEN) returns it to EMPTY, releasing its active resource (ZBC, `null_blk`).
//! - ² finish of EMPTY or CLOSED first needs the resources an open would (`null_blk`
//!   `null_finish_zone` checks them; ZNS describes finish from these states as passing through an
//!   open state), so it may implicitly close another zone or fail with `too_many_open` /
//!   `too_many_active`. Finish of FULL is a no-op success (ZNS, `null_blk`).
//! - reset of EMPTY is a no-op success; reset, finish, open, close of READ_ONLY or OFFLINE:
//!   ZNS "Zone Is Read Only" / "Zone Is Offline", mapped to `invalid_transition`.
//! - writes and appends to READ_ONLY / OFFLINE zones: ZNS "Zone Is Read Only" / "Zone Is
//!   Offline", mapped to `invalid_transition` (the seven report kinds are fixed).
//! - ³ reads of a READ_ONLY zone are allowed below the write pointer it had when it failed;
//!   reads of an OFFLINE zone fail with `invalid_transition`.
//! - reads may cross zone boundaries (Linux allows it); every zone touched must have been written
//!   up to the end of the part read, else `read_beyond_wp`. Reads in the gap between capacity and
//!   size are always beyond the write pointer.
//! - check order for a write: zone READ_ONLY/OFFLINE (`invalid_transition`), FULL
//!   (`write_full`), start LBA at or past the capacity end (`boundary`), start LBA not at the
//!   write pointer (`unaligned_write`), end past the capacity end (`boundary`: a write crossing
//!   capacity is rejected whole), then resources (`too_many_active` before `too_many_open`, as in
//!   `null_blk`). An append checks the same minus the alignment.
//! - LBAs or zone ids outside the namespace: `boundary` (ZNS "LBA Out of Range").
//! - a zero-length write or append that passes the address checks is a no-op success that opens
//!   nothing; a zero-length read always succeeds if inside the namespace.

use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};

/// A logical block address inside one namespace, in 4 KiB logical blocks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(transparent)]
pub struct Lba(pub u64);

/// A zone index inside one zoned namespace (zone `i` starts at LBA `i * zone_size`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(transparent)]
pub struct ZoneId(pub u32);

/// Zone condition (ZBC names; ZNS ZSE, ZSIO, ZSEO, ZSC, ZSF, ZSRO, ZSO).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ZoneCondition {
    Empty,
    ImplicitOpen,
    ExplicitOpen,
    Closed,
    Full,
    ReadOnly,
    Offline,
}

impl ZoneCondition {
    /// The name used in reports (`"IMPLICIT_OPEN"`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            ZoneCondition::Empty => "EMPTY",
            ZoneCondition::ImplicitOpen => "IMPLICIT_OPEN",
            ZoneCondition::ExplicitOpen => "EXPLICIT_OPEN",
            ZoneCondition::Closed => "CLOSED",
            ZoneCondition::Full => "FULL",
            ZoneCondition::ReadOnly => "READ_ONLY",
            ZoneCondition::Offline => "OFFLINE",
        }
    }

    /// Implicitly or explicitly open (holds an open resource).
    pub fn is_open(self) -> bool {
        matches!(
            self,
            ZoneCondition::ImplicitOpen | ZoneCondition::ExplicitOpen
        )
    }

    /// Open or closed (holds an active resource).
    pub fn is_active(self) -> bool {
        self.is_open() || self == ZoneCondition::Closed
    }
}

impl std::fmt::Display for ZoneCondition {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why the device rejected a request. These are device answers, counted in the report under
/// `device.zones.errors.<as_str()>`, never program errors.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ZoneErrorKind {
    /// A write that does not start at the zone's write pointer.
    UnalignedWrite,
    /// A write or append to a FULL zone.
    WriteFull,
    /// A write past the zone capacity (or into the gap between capacity and size), or an LBA /
    /// zone id outside the namespace.
    Boundary,
    /// The zone would have to be opened, the open limit is reached and no zone can be closed
    /// implicitly.
    TooManyOpen,
    /// The zone would have to become active and the active limit is reached.
    TooManyActive,
    /// A read of LBAs at or beyond the write pointer of a zone.
    ReadBeyondWp,
    /// A zone management operation not allowed in the zone's condition, or any access to an
    /// OFFLINE zone or a write to a READ_ONLY zone.
    InvalidTransition,
}

impl ZoneErrorKind {
    /// All kinds, in report order; `ALL[k.index()] == k`.
    pub const ALL: [ZoneErrorKind; 7] = [
        ZoneErrorKind::UnalignedWrite,
        ZoneErrorKind::WriteFull,
        ZoneErrorKind::Boundary,
        ZoneErrorKind::TooManyOpen,
        ZoneErrorKind::TooManyActive,
        ZoneErrorKind::ReadBeyondWp,
        ZoneErrorKind::InvalidTransition,
    ];

    /// The report key (`"unaligned_write"`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            ZoneErrorKind::UnalignedWrite => "unaligned_write",
            ZoneErrorKind::WriteFull => "write_full",
            ZoneErrorKind::Boundary => "boundary",
            ZoneErrorKind::TooManyOpen => "too_many_open",
            ZoneErrorKind::TooManyActive => "too_many_active",
            ZoneErrorKind::ReadBeyondWp => "read_beyond_wp",
            ZoneErrorKind::InvalidTransition => "invalid_transition",
        }
    }

    /// Position in [`ZoneErrorKind::ALL`] and in [`ZoneErrorLog::counts`].
    pub fn index(self) -> usize {
        self as usize
    }
}

impl std::fmt::Display for ZoneErrorKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Geometry and limits of one zoned namespace. Sizes in LBAs (4 KiB); limits 0 = unlimited.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct ZoneConfig {
    /// Distance between zone starts, in LBAs.
    pub zone_size: u64,
    /// Writable LBAs per zone (`1..=zone_size`), need not be a power of two.
    pub zone_capacity: u64,
    /// Number of zones.
    pub zones: u32,
    /// Maximum open (implicit + explicit) zones; 0 = unlimited.
    pub max_open: u32,
    /// Maximum active (open + closed) zones; 0 = unlimited.
    pub max_active: u32,
}

impl ZoneConfig {
    /// Check the geometry, naming the device key that is wrong (`zone.size_bytes`, ...).
    pub fn validate(&self) -> crate::error::Result<()> {
        use crate::error::Error;
        if self.zone_size == 0 {
            return Err(Error::config(
                "zone.size_bytes",
                "must be at least one 4 KiB logical block",
            ));
        }
        if self.zone_capacity == 0 || self.zone_capacity > self.zone_size {
            return Err(Error::config(
                "zone.capacity_bytes",
                format!(
                    "{} bytes: must be between 4096 and zone.size_bytes ({} bytes)",
                    self.zone_capacity.saturating_mul(4096),
                    self.zone_size.saturating_mul(4096)
                ),
            ));
        }
        if self.zones == 0 || self.zones == u32::MAX {
            return Err(Error::config(
                "zone.count",
                format!("{}: must be between 1 and {}", self.zones, u32::MAX - 1),
            ));
        }
        if self.zone_size.checked_mul(u64::from(self.zones)).is_none() {
            return Err(Error::config(
                "zone.size_bytes",
                "zone size times zone count overflows the LBA space",
            ));
        }
        if self.max_open != 0 && self.max_active != 0 && self.max_open > self.max_active {
            return Err(Error::config(
                "zone.max_open",
                format!(
                    "{}: must not exceed zone.max_active ({})",
                    self.max_open, self.max_active
                ),
            ));
        }
        Ok(())
    }

    /// LBAs in the namespace (`zones * zone_size`).
    pub fn namespace_lbas(&self) -> u64 {
        self.zone_size * u64::from(self.zones)
    }
}

/// Information on one zone, as a report-zones command returns it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct ZoneInfo {
    pub id: ZoneId,
    pub start: Lba,
    pub condition: ZoneCondition,
    pub write_pointer: Lba,
    /// Writable LBAs in the zone.
    pub capacity: u64,
}

/// What an accepted write or append did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct WriteOutcome {
    /// The zone written.
    pub zone: ZoneId,
    /// First LBA written (for an append, the LBA the device chose).
    pub lba: Lba,
    /// LBAs written.
    pub len: u64,
    /// The zone was EMPTY before this write (first data in the zone since its last reset).
    pub was_empty: bool,
    /// The write moved the zone from EMPTY or CLOSED to IMPLICIT_OPEN.
    pub opened: bool,
    /// The write reached the zone capacity; the zone is now FULL.
    pub became_full: bool,
    /// A zone that was closed implicitly to free an open resource for this write.
    pub implicitly_closed: Option<ZoneId>,
}

/// A request against a zoned namespace, for replay, logging and tests.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ZoneOp {
    Write { lba: Lba, len: u64 },
    Append { zone: ZoneId, len: u64 },
    Read { lba: Lba, len: u64 },
    Open(ZoneId),
    Close(ZoneId),
    Finish(ZoneId),
    Reset(ZoneId),
}

impl ZoneOp {
    /// Short name used in error records.
    pub fn name(&self) -> &'static str {
        match self {
            ZoneOp::Write { .. } => "write",
            ZoneOp::Append { .. } => "append",
            ZoneOp::Read { .. } => "read",
            ZoneOp::Open(_) => "open",
            ZoneOp::Close(_) => "close",
            ZoneOp::Finish(_) => "finish",
            ZoneOp::Reset(_) => "reset",
        }
    }
}

/// The result of [`ZoneSet::apply`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ZoneOpOutcome {
    Write(WriteOutcome),
    Append(Lba, WriteOutcome),
    Read,
    /// Open or close succeeded.
    Done,
    /// Finish succeeded; the write pointer before it.
    Finish(Lba),
    /// Reset succeeded; the write pointer before it.
    Reset(Lba),
}

const NIL: u32 = u32::MAX;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Slot {
    /// Absolute write pointer (LBA).
    wp: u64,
    cond: ZoneCondition,
    /// Intrusive list of IMPLICIT_OPEN zones, in the order they were implicitly opened.
    prev: u32,
    next: u32,
}

/// All zones of one zoned namespace, with open/active accounting.
///
/// Per-request cost is O(1): the zone is found by division, counters are kept incrementally and
/// the implicit-close victim is the head of an intrusive list of IMPLICIT_OPEN zones ordered by
/// the time they were implicitly opened (least recent first).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ZoneSet {
    cfg: ZoneConfig,
    slots: Vec<Slot>,
    nr_imp: u32,
    nr_exp: u32,
    nr_closed: u32,
    imp_head: u32,
    imp_tail: u32,
}

impl ZoneSet {
    /// All zones EMPTY. Panics if `cfg` is invalid (see [`ZoneConfig::validate`]; validate
    /// user input with it or [`ZoneSet::try_new`] first).
    pub fn new(cfg: ZoneConfig) -> ZoneSet {
        match ZoneSet::try_new(cfg) {
            Ok(s) => s,
            Err(e) => panic!("invalid zone configuration: {e}"),
        }
    }

    /// All zones EMPTY, or the configuration error.
    pub fn try_new(cfg: ZoneConfig) -> crate::error::Result<ZoneSet> {
        cfg.validate()?;
        let slots = (0..u64::from(cfg.zones))
            .map(|i| Slot {
                wp: i * cfg.zone_size,
                cond: ZoneCondition::Empty,
                prev: NIL,
                next: NIL,
            })
            .collect();
        Ok(ZoneSet {
            cfg,
            slots,
            nr_imp: 0,
            nr_exp: 0,
            nr_closed: 0,
            imp_head: NIL,
            imp_tail: NIL,
        })
    }

    pub fn config(&self) -> &ZoneConfig {
        &self.cfg
    }

    pub fn zone_count(&self) -> u32 {
        self.cfg.zones
    }

    /// LBAs in the namespace.
    pub fn namespace_lbas(&self) -> u64 {
        self.cfg.namespace_lbas()
    }

    /// The zone holding `lba` (by division). For an LBA outside the namespace the id returned is
    /// `>= zone_count()`; callers that may see such LBAs check [`ZoneSet::namespace_lbas`].
    #[inline]
    pub fn zone_of(&self, lba: Lba) -> ZoneId {
        ZoneId(u32::try_from(lba.0 / self.cfg.zone_size).unwrap_or(u32::MAX))
    }

    /// First LBA of zone `z`.
    #[inline]
    pub fn zone_start(&self, z: ZoneId) -> Lba {
        Lba(u64::from(z.0) * self.cfg.zone_size)
    }

    /// Report of zone `z`. Panics if `z` is outside the namespace.
    pub fn info(&self, z: ZoneId) -> ZoneInfo {
        let s = &self.slots[z.0 as usize];
        ZoneInfo {
            id: z,
            start: self.zone_start(z),
            condition: s.cond,
            write_pointer: Lba(s.wp),
            capacity: self.cfg.zone_capacity,
        }
    }

    /// Condition of zone `z`. Panics if `z` is outside the namespace.
    #[inline]
    pub fn condition(&self, z: ZoneId) -> ZoneCondition {
        self.slots[z.0 as usize].cond
    }

    /// Write pointer of zone `z`. Panics if `z` is outside the namespace.
    #[inline]
    pub fn write_pointer(&self, z: ZoneId) -> Lba {
        Lba(self.slots[z.0 as usize].wp)
    }

    /// Report zones: up to `max` zones starting at `from` (fewer at the end of the namespace).
    pub fn report(&self, from: ZoneId, max: usize) -> Vec<ZoneInfo> {
        let end = (from.0 as usize).saturating_add(max).min(self.slots.len());
        (from.0 as usize..end)
            .map(|i| self.info(ZoneId(i as u32)))
            .collect()
    }

    /// Zones IMPLICIT_OPEN or EXPLICIT_OPEN.
    #[inline]
    pub fn open_count(&self) -> u32 {
        self.nr_imp + self.nr_exp
    }

    /// Zones IMPLICIT_OPEN, EXPLICIT_OPEN or CLOSED.
    #[inline]
    pub fn active_count(&self) -> u32 {
        self.nr_imp + self.nr_exp + self.nr_closed
    }

    /// IMPLICIT_OPEN zones, least recently implicitly opened first (the next implicit-close
    /// victim first). Allocates; for reports and tests.
    pub fn implicit_open_order(&self) -> Vec<ZoneId> {
        let mut out = Vec::with_capacity(self.nr_imp as usize);
        let mut cur = self.imp_head;
        while cur != NIL && out.len() <= self.slots.len() {
            out.push(ZoneId(cur));
            cur = self.slots[cur as usize].next;
        }
        out
    }

    // ----- requests -----

    /// Check a write of `len` LBAs at `lba` and, if the device accepts it, apply it (the write
    /// pointer advances; the zone may be opened implicitly, another zone closed implicitly, and
    /// the zone may become FULL). On `Err` nothing changed.
    #[inline]
    pub fn check_and_apply_write(
        &mut self,
        lba: Lba,
        len: u64,
    ) -> Result<WriteOutcome, ZoneErrorKind> {
        if lba.0 >= self.namespace_lbas() {
            return Err(ZoneErrorKind::Boundary);
        }
        let z = (lba.0 / self.cfg.zone_size) as u32;
        self.write_at(z, lba.0, len, false)
    }

    /// Zone append: write `len` LBAs at the write pointer of `zone`; returns the LBA written.
    /// On `Err` nothing changed.
    #[inline]
    pub fn append(&mut self, zone: ZoneId, len: u64) -> Result<(Lba, WriteOutcome), ZoneErrorKind> {
        if zone.0 >= self.cfg.zones {
            return Err(ZoneErrorKind::Boundary);
        }
        let wp = self.slots[zone.0 as usize].wp;
        let out = self.write_at(zone.0, wp, len, true)?;
        Ok((Lba(wp), out))
    }

    /// Check a read of `len` LBAs at `lba`. Reads may span zones; each zone touched must be
    /// written past the part read.
    pub fn check_read(&self, lba: Lba, len: u64) -> Result<(), ZoneErrorKind> {
        let ns = self.namespace_lbas();
        let end = match lba.0.checked_add(len) {
            Some(e) if lba.0 <= ns && e <= ns => e,
            _ => return Err(ZoneErrorKind::Boundary),
        };
        let mut cur = lba.0;
        while cur < end {
            let z = cur / self.cfg.zone_size;
            let zone_end = (z + 1) * self.cfg.zone_size;
            let s = &self.slots[z as usize];
            if s.cond == ZoneCondition::Offline {
                return Err(ZoneErrorKind::InvalidTransition);
            }
            let part_end = end.min(zone_end);
            if part_end > s.wp {
                return Err(ZoneErrorKind::ReadBeyondWp);
            }
            cur = part_end;
        }
        Ok(())
    }

    /// Explicitly open zone `z`.
    pub fn open(&mut self, z: ZoneId) -> Result<(), ZoneErrorKind> {
        let i = self.check_id(z)?;
        match self.slots[i as usize].cond {
            ZoneCondition::ExplicitOpen => Ok(()),
            ZoneCondition::ImplicitOpen => {
                self.set_cond(i, ZoneCondition::ExplicitOpen);
                Ok(())
            }
            c @ (ZoneCondition::Empty | ZoneCondition::Closed) => {
                let victim = self.open_resources(c)?;
                self.close_victim(victim);
                self.set_cond(i, ZoneCondition::ExplicitOpen);
                Ok(())
            }
            ZoneCondition::Full | ZoneCondition::ReadOnly | ZoneCondition::Offline => {
                Err(ZoneErrorKind::InvalidTransition)
            }
        }
    }

    /// Close zone `z` (an open zone with nothing written returns to EMPTY).
    pub fn close(&mut self, z: ZoneId) -> Result<(), ZoneErrorKind> {
        let i = self.check_id(z)?;
        match self.slots[i as usize].cond {
            ZoneCondition::Closed => Ok(()),
            ZoneCondition::ImplicitOpen | ZoneCondition::ExplicitOpen => {
                let to = if self.slots[i as usize].wp == self.start_of(i) {
                    ZoneCondition::Empty
                } else {
                    ZoneCondition::Closed
                };
                self.set_cond(i, to);
                Ok(())
            }
            ZoneCondition::Empty
            | ZoneCondition::Full
            | ZoneCondition::ReadOnly
            | ZoneCondition::Offline => Err(ZoneErrorKind::InvalidTransition),
        }
    }

    /// Finish zone `z`: FULL, write pointer at the capacity end. Returns the write pointer before.
    pub fn finish(&mut self, z: ZoneId) -> Result<Lba, ZoneErrorKind> {
        let i = self.check_id(z)?;
        let before = self.slots[i as usize].wp;
        match self.slots[i as usize].cond {
            ZoneCondition::Full => return Ok(Lba(before)),
            ZoneCondition::ImplicitOpen | ZoneCondition::ExplicitOpen => {}
            c @ (ZoneCondition::Empty | ZoneCondition::Closed) => {
                let victim = self.open_resources(c)?;
                self.close_victim(victim);
            }
            ZoneCondition::ReadOnly | ZoneCondition::Offline => {
                return Err(ZoneErrorKind::InvalidTransition)
            }
        }
        self.slots[i as usize].wp = self.cap_end_of(i);
        self.set_cond(i, ZoneCondition::Full);
        Ok(Lba(before))
    }

    /// Reset zone `z`: EMPTY, write pointer at the zone start. Returns the write pointer before,
    /// so the device can invalidate `[start, previous wp)`.
    pub fn reset(&mut self, z: ZoneId) -> Result<Lba, ZoneErrorKind> {
        let i = self.check_id(z)?;
        let before = self.slots[i as usize].wp;
        match self.slots[i as usize].cond {
            ZoneCondition::ReadOnly | ZoneCondition::Offline => {
                Err(ZoneErrorKind::InvalidTransition)
            }
            _ => {
                self.slots[i as usize].wp = self.start_of(i);
                self.set_cond(i, ZoneCondition::Empty);
                Ok(Lba(before))
            }
        }
    }

    /// Apply any request.
    pub fn apply(&mut self, op: &ZoneOp) -> Result<ZoneOpOutcome, ZoneErrorKind> {
        match *op {
            ZoneOp::Write { lba, len } => self
                .check_and_apply_write(lba, len)
                .map(ZoneOpOutcome::Write),
            ZoneOp::Append { zone, len } => self
                .append(zone, len)
                .map(|(l, o)| ZoneOpOutcome::Append(l, o)),
            ZoneOp::Read { lba, len } => self.check_read(lba, len).map(|()| ZoneOpOutcome::Read),
            ZoneOp::Open(z) => self.open(z).map(|()| ZoneOpOutcome::Done),
            ZoneOp::Close(z) => self.close(z).map(|()| ZoneOpOutcome::Done),
            ZoneOp::Finish(z) => self.finish(z).map(ZoneOpOutcome::Finish),
            ZoneOp::Reset(z) => self.reset(z).map(ZoneOpOutcome::Reset),
        }
    }

    // ----- fault injection and test hooks -----

    /// Fault: the zone becomes READ_ONLY (releasing any resources it held); its data up to the
    /// current write pointer stays readable. Panics if `z` is outside the namespace.
    pub fn mark_read_only(&mut self, z: ZoneId) {
        self.set_cond(z.0, ZoneCondition::ReadOnly);
    }

    /// Fault: the zone becomes OFFLINE (releasing any resources it held); nothing in it can be
    /// read or written. Panics if `z` is outside the namespace.
    pub fn mark_offline(&mut self, z: ZoneId) {
        self.set_cond(z.0, ZoneCondition::Offline);
    }

    /// Test hook: force zone `z` into `cond`, bypassing the transition rules and the limits (the
    /// counters and the implicit-open order are kept consistent). EMPTY moves the write pointer
    /// to the zone start and FULL to the capacity end; other conditions keep it, so forcing
    /// IMPLICIT_OPEN or CLOSED on a zone with nothing written breaks [`Self::check_invariants`].
    pub fn set_condition_for_test(&mut self, z: ZoneId, cond: ZoneCondition) {
        match cond {
            ZoneCondition::Empty => self.slots[z.0 as usize].wp = self.start_of(z.0),
            ZoneCondition::Full => self.slots[z.0 as usize].wp = self.cap_end_of(z.0),
            _ => {}
        }
        self.set_cond(z.0, cond);
    }

    /// Check every internal invariant: counters match conditions, the implicit-open list holds
    /// exactly the IMPLICIT_OPEN zones, write pointers are in `[start, start + capacity]` and agree
    /// with the condition, and the open/active limits hold.
    pub fn check_invariants(&self) -> Result<(), String> {
        let (mut imp, mut exp, mut closed) = (0u32, 0u32, 0u32);
        for (i, s) in self.slots.iter().enumerate() {
            let start = self.start_of(i as u32);
            let end = self.cap_end_of(i as u32);
            if s.wp < start || s.wp > end {
                return Err(format!(
                    "zone {i}: write pointer {} outside [{start}, {end}]",
                    s.wp
                ));
            }
            let ok = match s.cond {
                ZoneCondition::Empty => s.wp == start,
                ZoneCondition::ImplicitOpen | ZoneCondition::Closed => s.wp > start && s.wp < end,
                ZoneCondition::ExplicitOpen => s.wp < end,
                ZoneCondition::Full => s.wp == end,
                ZoneCondition::ReadOnly | ZoneCondition::Offline => true,
            };
            if !ok {
                return Err(format!(
                    "zone {i}: condition {} with write pointer {} (start {start}, capacity end {end})",
                    s.cond, s.wp
                ));
            }
            match s.cond {
                ZoneCondition::ImplicitOpen => imp += 1,
                ZoneCondition::ExplicitOpen => exp += 1,
                ZoneCondition::Closed => closed += 1,
                _ => {
                    if s.prev != NIL || s.next != NIL {
                        return Err(format!("zone {i}: linked but not IMPLICIT_OPEN"));
                    }
                }
            }
        }
        if (imp, exp, closed) != (self.nr_imp, self.nr_exp, self.nr_closed) {
            return Err(format!(
                "counters imp/exp/closed {}/{}/{} but zones are {imp}/{exp}/{closed}",
                self.nr_imp, self.nr_exp, self.nr_closed
            ));
        }
        // Walk the implicit-open list.
        let mut n = 0u32;
        let mut prev = NIL;
        let mut cur = self.imp_head;
        while cur != NIL {
            let s = self
                .slots
                .get(cur as usize)
                .ok_or_else(|| format!("implicit-open list: bad link {cur}"))?;
            if s.cond != ZoneCondition::ImplicitOpen {
                return Err(format!("implicit-open list: zone {cur} is {}", s.cond));
            }
            if s.prev != prev {
                return Err(format!(
                    "implicit-open list: zone {cur} has a wrong back link"
                ));
            }
            n += 1;
            if n > imp {
                return Err("implicit-open list: longer than the IMPLICIT_OPEN count".into());
            }
            prev = cur;
            cur = s.next;
        }
        if n != imp || self.imp_tail != prev {
            return Err(format!(
                "implicit-open list: {n} entries (tail {}), {imp} zones IMPLICIT_OPEN",
                self.imp_tail
            ));
        }
        if self.cfg.max_open != 0 && self.open_count() > self.cfg.max_open {
            return Err(format!(
                "{} open zones, limit {}",
                self.open_count(),
                self.cfg.max_open
            ));
        }
        if self.cfg.max_active != 0 && self.active_count() > self.cfg.max_active {
            return Err(format!(
                "{} active zones, limit {}",
                self.active_count(),
                self.cfg.max_active
            ));
        }
        Ok(())
    }

    // ----- internals -----

    #[inline]
    fn start_of(&self, i: u32) -> u64 {
        u64::from(i) * self.cfg.zone_size
    }

    #[inline]
    fn cap_end_of(&self, i: u32) -> u64 {
        self.start_of(i) + self.cfg.zone_capacity
    }

    #[inline]
    fn check_id(&self, z: ZoneId) -> Result<u32, ZoneErrorKind> {
        if z.0 < self.cfg.zones {
            Ok(z.0)
        } else {
            Err(ZoneErrorKind::Boundary)
        }
    }

    /// The resources needed for a zone in condition `from` (EMPTY or CLOSED) to become open.
    /// `Ok(Some(v))`: zone `v` must be closed implicitly first. Changes nothing.
    #[inline]
    fn open_resources(&self, from: ZoneCondition) -> Result<Option<u32>, ZoneErrorKind> {
        debug_assert!(matches!(from, ZoneCondition::Empty | ZoneCondition::Closed));
        if from == ZoneCondition::Empty
            && self.cfg.max_active != 0
            && self.active_count() >= self.cfg.max_active
        {
            return Err(ZoneErrorKind::TooManyActive);
        }
        if self.cfg.max_open != 0 && self.open_count() >= self.cfg.max_open {
            if self.imp_head == NIL {
                return Err(ZoneErrorKind::TooManyOpen);
            }
            return Ok(Some(self.imp_head));
        }
        Ok(None)
    }

    #[inline]
    fn close_victim(&mut self, victim: Option<u32>) -> Option<ZoneId> {
        let v = victim?;
        self.set_cond(v, ZoneCondition::Closed);
        Some(ZoneId(v))
    }

    /// Write `len` LBAs at absolute `lba` in zone `z` (`lba` is the write pointer for appends).
    #[inline]
    fn write_at(
        &mut self,
        z: u32,
        lba: u64,
        len: u64,
        append: bool,
    ) -> Result<WriteOutcome, ZoneErrorKind> {
        let s = self.slots[z as usize];
        match s.cond {
            ZoneCondition::ReadOnly | ZoneCondition::Offline => {
                return Err(ZoneErrorKind::InvalidTransition)
            }
            ZoneCondition::Full => return Err(ZoneErrorKind::WriteFull),
            _ => {}
        }
        let end = self.cap_end_of(z);
        if lba >= end {
            return Err(ZoneErrorKind::Boundary);
        }
        if !append && lba != s.wp {
            return Err(ZoneErrorKind::UnalignedWrite);
        }
        if len > end - lba {
            return Err(ZoneErrorKind::Boundary);
        }
        let was_empty = s.cond == ZoneCondition::Empty;
        let mut out = WriteOutcome {
            zone: ZoneId(z),
            lba: Lba(lba),
            len,
            was_empty,
            opened: false,
            became_full: false,
            implicitly_closed: None,
        };
        if len == 0 {
            return Ok(out);
        }
        if matches!(s.cond, ZoneCondition::Empty | ZoneCondition::Closed) {
            let victim = self.open_resources(s.cond)?;
            out.implicitly_closed = self.close_victim(victim);
            self.set_cond(z, ZoneCondition::ImplicitOpen);
            out.opened = true;
        }
        let wp = lba + len;
        self.slots[z as usize].wp = wp;
        if wp == end {
            self.set_cond(z, ZoneCondition::Full);
            out.became_full = true;
        }
        Ok(out)
    }

    /// Move zone `i` to `to`, keeping counters and the implicit-open list consistent.
    fn set_cond(&mut self, i: u32, to: ZoneCondition) {
        let from = self.slots[i as usize].cond;
        if from == to {
            return;
        }
        match from {
            ZoneCondition::ImplicitOpen => {
                self.nr_imp -= 1;
                self.unlink(i);
            }
            ZoneCondition::ExplicitOpen => self.nr_exp -= 1,
            ZoneCondition::Closed => self.nr_closed -= 1,
            _ => {}
        }
        match to {
            ZoneCondition::ImplicitOpen => {
                self.nr_imp += 1;
                self.push_tail(i);
            }
            ZoneCondition::ExplicitOpen => self.nr_exp += 1,
            ZoneCondition::Closed => self.nr_closed += 1,
            _ => {}
        }
        self.slots[i as usize].cond = to;
    }

    fn unlink(&mut self, i: u32) {
        let Slot { prev, next, .. } = self.slots[i as usize];
        if prev == NIL {
            self.imp_head = next;
        } else {
            self.slots[prev as usize].next = next;
        }
        if next == NIL {
            self.imp_tail = prev;
        } else {
            self.slots[next as usize].prev = prev;
        }
        self.slots[i as usize].prev = NIL;
        self.slots[i as usize].next = NIL;
    }

    fn push_tail(&mut self, i: u32) {
        self.slots[i as usize].prev = self.imp_tail;
        self.slots[i as usize].next = NIL;
        if self.imp_tail == NIL {
            self.imp_head = i;
        } else {
            self.slots[self.imp_tail as usize].next = i;
        }
        self.imp_tail = i;
    }
}

// ----- error log -----

/// How many rejected requests [`ZoneErrorLog`] keeps in detail.
pub const FIRST_ERRORS_KEPT: usize = 16;

/// One rejected request, as listed under `first_errors` in the report.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct ZoneErrorRecord {
    /// Error kind (`"unaligned_write"`, ...).
    pub kind: ZoneErrorKind,
    /// Request kind (`"write"`, `"append"`, `"read"`, `"open"`, `"close"`, `"finish"`,
    /// `"reset"`).
    pub op: &'static str,
    /// First LBA of the request (for zone operations and appends, the zone start).
    pub lba: Lba,
    /// LBAs (0 for zone management operations).
    pub len: u64,
    /// The zone addressed, if inside the namespace.
    pub zone: Option<ZoneId>,
    /// Simulated time of the request, ns.
    pub time_ns: u64,
}

/// Counts of rejected requests by kind, plus the first [`FIRST_ERRORS_KEPT`] in detail.
///
/// `Serialize` writes only the counts, as an object with all seven kinds as keys (always present,
/// in [`ZoneErrorKind::ALL`] order) — the report's `device.zones.errors`. The detailed list is
/// [`ZoneErrorLog::first_errors`], serialized separately by the report (`first_errors`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ZoneErrorLog {
    /// Indexed by [`ZoneErrorKind::index`].
    pub counts: [u64; 7],
    /// The first [`FIRST_ERRORS_KEPT`] records, in order.
    pub first: Vec<ZoneErrorRecord>,
}

impl ZoneErrorLog {
    pub fn new() -> ZoneErrorLog {
        ZoneErrorLog {
            counts: [0; 7],
            first: Vec::with_capacity(FIRST_ERRORS_KEPT),
        }
    }

    /// Count a rejected request (no allocation once `first` is full or pre-sized).
    pub fn record(
        &mut self,
        kind: ZoneErrorKind,
        op: &'static str,
        lba: Lba,
        len: u64,
        zone: Option<ZoneId>,
        time_ns: u64,
    ) {
        self.counts[kind.index()] += 1;
        if self.first.len() < FIRST_ERRORS_KEPT {
            self.first.push(ZoneErrorRecord {
                kind,
                op,
                lba,
                len,
                zone,
                time_ns,
            });
        }
    }

    /// Count a rejected [`ZoneOp`] against `set`, describing it from the op.
    pub fn record_op(&mut self, kind: ZoneErrorKind, op: &ZoneOp, set: &ZoneSet, time_ns: u64) {
        let in_ns = |z: ZoneId| (z.0 < set.zone_count()).then_some(z);
        let (lba, len, zone) = match *op {
            ZoneOp::Write { lba, len } | ZoneOp::Read { lba, len } => {
                (lba, len, in_ns(set.zone_of(lba)))
            }
            ZoneOp::Append { zone, len } => (set.zone_start(zone), len, in_ns(zone)),
            ZoneOp::Open(z) | ZoneOp::Close(z) | ZoneOp::Finish(z) | ZoneOp::Reset(z) => {
                (set.zone_start(z), 0, in_ns(z))
            }
        };
        self.record(kind, op.name(), lba, len, zone, time_ns);
    }

    pub fn count(&self, kind: ZoneErrorKind) -> u64 {
        self.counts[kind.index()]
    }

    pub fn total(&self) -> u64 {
        self.counts.iter().sum()
    }

    pub fn first_errors(&self) -> &[ZoneErrorRecord] {
        &self.first
    }

    /// Add another log's counts; its records follow ours up to the limit.
    pub fn merge(&mut self, other: &ZoneErrorLog) {
        for (a, b) in self.counts.iter_mut().zip(other.counts.iter()) {
            *a += b;
        }
        for r in &other.first {
            if self.first.len() >= FIRST_ERRORS_KEPT {
                break;
            }
            self.first.push(*r);
        }
    }
}

impl Serialize for ZoneErrorLog {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut m = serializer.serialize_map(Some(ZoneErrorKind::ALL.len()))?;
        for k in ZoneErrorKind::ALL {
            m.serialize_entry(k.as_str(), &self.counts[k.index()])?;
        }
        m.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ZoneCondition::*;
    use ZoneErrorKind::*;

    /// 8 zones of 16 LBAs, capacity 12, open limit 2, active limit 3.
    fn cfg() -> ZoneConfig {
        ZoneConfig {
            zone_size: 16,
            zone_capacity: 12,
            zones: 8,
            max_open: 2,
            max_active: 3,
        }
    }

    fn set() -> ZoneSet {
        ZoneSet::new(cfg())
    }

    fn unlimited() -> ZoneSet {
        ZoneSet::new(ZoneConfig {
            max_open: 0,
            max_active: 0,
            ..cfg()
        })
    }

    fn z(i: u32) -> ZoneId {
        ZoneId(i)
    }

    fn at(zone: u32, off: u64) -> Lba {
        Lba(u64::from(zone) * 16 + off)
    }

    fn cond(s: &ZoneSet, i: u32) -> ZoneCondition {
        s.info(z(i)).condition
    }

    fn ok(s: &ZoneSet) {
        s.check_invariants().unwrap();
    }

    /// Run `f`, which must fail with `kind`, and check that nothing changed.
    fn rejects(
        s: &mut ZoneSet,
        kind: ZoneErrorKind,
        f: impl FnOnce(&mut ZoneSet) -> ZoneErrorKind,
    ) {
        let before = s.clone();
        assert_eq!(f(s), kind);
        assert_eq!(*s, before, "a rejected request changed the state");
    }

    #[test]
    fn new_set_is_empty_and_valid() {
        let s = set();
        ok(&s);
        assert_eq!(s.open_count(), 0);
        assert_eq!(s.active_count(), 0);
        let r = s.report(z(0), 100);
        assert_eq!(r.len(), 8);
        assert!(r
            .iter()
            .all(|i| i.condition == Empty && i.write_pointer == i.start));
        assert_eq!(r[3].start, Lba(48));
        assert_eq!(r[3].capacity, 12);
        assert_eq!(s.report(z(6), 5).len(), 2);
        assert_eq!(s.report(z(9), 5).len(), 0);
    }

    #[test]
    fn zone_of_is_division() {
        let s = set();
        assert_eq!(s.zone_of(Lba(0)), z(0));
        assert_eq!(s.zone_of(Lba(15)), z(0));
        assert_eq!(s.zone_of(Lba(16)), z(1));
        assert_eq!(s.zone_of(Lba(127)), z(7));
        assert_eq!(s.zone_of(Lba(128)), z(8));
        assert_eq!(s.zone_start(z(5)), Lba(80));
    }

    #[test]
    fn write_opens_implicitly_advances_and_fills() {
        let mut s = set();
        let o = s.check_and_apply_write(at(1, 0), 4).unwrap();
        assert_eq!(o.zone, z(1));
        assert_eq!(o.lba, at(1, 0));
        assert!(o.was_empty && o.opened && !o.became_full);
        assert_eq!(o.implicitly_closed, None);
        assert_eq!(cond(&s, 1), ImplicitOpen);
        assert_eq!(s.info(z(1)).write_pointer, at(1, 4));
        assert_eq!((s.open_count(), s.active_count()), (1, 1));
        let o = s.check_and_apply_write(at(1, 4), 4).unwrap();
        assert!(!o.was_empty && !o.opened && !o.became_full);
        let o = s.check_and_apply_write(at(1, 8), 4).unwrap();
        assert!(o.became_full);
        assert_eq!(cond(&s, 1), Full);
        assert_eq!(s.info(z(1)).write_pointer, at(1, 12));
        assert_eq!((s.open_count(), s.active_count()), (0, 0));
        ok(&s);
    }

    #[test]
    fn single_write_of_whole_capacity_goes_empty_to_full() {
        let mut s = set();
        let o = s.check_and_apply_write(at(0, 0), 12).unwrap();
        assert!(o.was_empty && o.opened && o.became_full);
        assert_eq!(cond(&s, 0), Full);
        assert_eq!(s.active_count(), 0);
        ok(&s);
    }

    #[test]
    fn unaligned_write_rejected() {
        let mut s = set();
        rejects(&mut s, UnalignedWrite, |s| {
            s.check_and_apply_write(at(0, 1), 1).unwrap_err()
        });
        s.check_and_apply_write(at(0, 0), 2).unwrap();
        rejects(&mut s, UnalignedWrite, |s| {
            s.check_and_apply_write(at(0, 0), 1).unwrap_err()
        });
        rejects(&mut s, UnalignedWrite, |s| {
            s.check_and_apply_write(at(0, 5), 1).unwrap_err()
        });
        ok(&s);
    }

    #[test]
    fn write_to_full_rejected() {
        let mut s = set();
        s.check_and_apply_write(at(2, 0), 12).unwrap();
        rejects(&mut s, WriteFull, |s| {
            s.check_and_apply_write(at(2, 12), 1).unwrap_err()
        });
        rejects(&mut s, WriteFull, |s| {
            s.check_and_apply_write(at(2, 0), 1).unwrap_err()
        });
        rejects(&mut s, WriteFull, |s| s.append(z(2), 1).unwrap_err());
        s.finish(z(3)).unwrap();
        rejects(&mut s, WriteFull, |s| {
            s.check_and_apply_write(at(3, 0), 1).unwrap_err()
        });
    }

    #[test]
    fn write_crossing_capacity_rejected_whole() {
        let mut s = set();
        s.check_and_apply_write(at(0, 0), 10).unwrap();
        rejects(&mut s, Boundary, |s| {
            s.check_and_apply_write(at(0, 10), 3).unwrap_err()
        });
        // Crossing into the next zone is also a boundary error.
        rejects(&mut s, Boundary, |s| {
            s.check_and_apply_write(at(0, 10), 20).unwrap_err()
        });
        // Starting in the gap between capacity and size.
        rejects(&mut s, Boundary, |s| {
            s.check_and_apply_write(at(1, 12), 1).unwrap_err()
        });
        rejects(&mut s, Boundary, |s| {
            s.check_and_apply_write(at(1, 15), 1).unwrap_err()
        });
        // Outside the namespace.
        rejects(&mut s, Boundary, |s| {
            s.check_and_apply_write(Lba(128), 1).unwrap_err()
        });
        rejects(&mut s, Boundary, |s| {
            s.check_and_apply_write(Lba(u64::MAX), 1).unwrap_err()
        });
        rejects(&mut s, Boundary, |s| {
            s.check_and_apply_write(at(0, 10), u64::MAX).unwrap_err()
        });
        // Exactly to capacity is fine.
        assert!(s.check_and_apply_write(at(0, 10), 2).unwrap().became_full);
    }

    #[test]
    fn zero_length_write_is_noop() {
        let mut s = set();
        let before = s.clone();
        let o = s.check_and_apply_write(at(0, 0), 0).unwrap();
        assert!(!o.opened && !o.became_full);
        assert_eq!(s, before);
        rejects(&mut s, UnalignedWrite, |s| {
            s.check_and_apply_write(at(0, 3), 0).unwrap_err()
        });
    }

    #[test]
    fn append_returns_written_lba() {
        let mut s = set();
        let (l, o) = s.append(z(4), 3).unwrap();
        assert_eq!(l, at(4, 0));
        assert!(o.opened && o.was_empty);
        let (l, _) = s.append(z(4), 5).unwrap();
        assert_eq!(l, at(4, 3));
        rejects(&mut s, Boundary, |s| s.append(z(4), 5).unwrap_err());
        let (l, o) = s.append(z(4), 4).unwrap();
        assert_eq!(l, at(4, 8));
        assert!(o.became_full);
        rejects(&mut s, Boundary, |s| s.append(z(8), 1).unwrap_err());
        ok(&s);
    }

    #[test]
    fn implicit_close_of_least_recently_implicitly_opened() {
        let mut s = set(); // max_open 2, max_active 3
        s.check_and_apply_write(at(0, 0), 1).unwrap();
        s.check_and_apply_write(at(1, 0), 1).unwrap();
        // Writing zone 0 again does not change the order (it is by opening time).
        s.check_and_apply_write(at(0, 1), 1).unwrap();
        assert_eq!(s.implicit_open_order(), vec![z(0), z(1)]);
        let o = s.check_and_apply_write(at(2, 0), 1).unwrap();
        assert_eq!(o.implicitly_closed, Some(z(0)));
        assert_eq!(cond(&s, 0), Closed);
        assert_eq!((s.open_count(), s.active_count()), (2, 3));
        assert_eq!(s.implicit_open_order(), vec![z(1), z(2)]);
        ok(&s);
        // Active limit 3 reached: an EMPTY zone cannot be opened even though zone 1 could be
        // closed.
        rejects(&mut s, TooManyActive, |s| {
            s.check_and_apply_write(at(3, 0), 1).unwrap_err()
        });
        rejects(&mut s, TooManyActive, |s| s.open(z(3)).unwrap_err());
        rejects(&mut s, TooManyActive, |s| s.append(z(3), 1).unwrap_err());
        // A CLOSED zone only needs an open resource: zone 1 is closed to make room.
        let o = s.check_and_apply_write(at(0, 2), 1).unwrap();
        assert!(o.opened && !o.was_empty);
        assert_eq!(o.implicitly_closed, Some(z(1)));
        assert_eq!(s.implicit_open_order(), vec![z(2), z(0)]);
        ok(&s);
    }

    #[test]
    fn too_many_open_when_all_open_are_explicit() {
        let mut s = ZoneSet::new(ZoneConfig {
            max_active: 0,
            ..cfg()
        });
        s.open(z(0)).unwrap();
        s.open(z(1)).unwrap();
        rejects(&mut s, TooManyOpen, |s| {
            s.check_and_apply_write(at(2, 0), 1).unwrap_err()
        });
        rejects(&mut s, TooManyOpen, |s| s.open(z(2)).unwrap_err());
        rejects(&mut s, TooManyOpen, |s| s.finish(z(2)).unwrap_err());
        // Writes to already open zones need nothing.
        s.check_and_apply_write(at(0, 0), 1).unwrap();
        assert_eq!(cond(&s, 0), ExplicitOpen);
        // Explicit open also implicitly closes an implicitly opened zone.
        s.close(z(1)).unwrap(); // nothing written: back to EMPTY
        assert_eq!(cond(&s, 1), Empty);
        s.check_and_apply_write(at(3, 0), 1).unwrap();
        s.open(z(4)).unwrap();
        assert_eq!(cond(&s, 3), Closed);
        assert_eq!(s.open_count(), 2);
        ok(&s);
    }

    #[test]
    fn open_transitions() {
        let mut s = set();
        s.open(z(0)).unwrap();
        assert_eq!(cond(&s, 0), ExplicitOpen);
        assert_eq!((s.open_count(), s.active_count()), (1, 1));
        s.open(z(0)).unwrap(); // no-op
        assert_eq!(s.open_count(), 1);
        s.check_and_apply_write(at(1, 0), 1).unwrap();
        s.open(z(1)).unwrap(); // implicit -> explicit, no new resource
        assert_eq!(cond(&s, 1), ExplicitOpen);
        assert_eq!((s.open_count(), s.active_count()), (2, 2));
        assert!(s.implicit_open_order().is_empty());
        s.close(z(1)).unwrap();
        assert_eq!(cond(&s, 1), Closed);
        s.open(z(1)).unwrap(); // closed -> explicit
        assert_eq!(cond(&s, 1), ExplicitOpen);
        s.check_and_apply_write(at(1, 1), 11).unwrap();
        assert_eq!(cond(&s, 1), Full);
        rejects(&mut s, InvalidTransition, |s| s.open(z(1)).unwrap_err());
        rejects(&mut s, Boundary, |s| s.open(z(8)).unwrap_err());
        ok(&s);
    }

    #[test]
    fn close_transitions() {
        let mut s = set();
        rejects(&mut s, InvalidTransition, |s| s.close(z(0)).unwrap_err()); // EMPTY
        s.check_and_apply_write(at(0, 0), 2).unwrap();
        s.close(z(0)).unwrap();
        assert_eq!(cond(&s, 0), Closed);
        assert_eq!((s.open_count(), s.active_count()), (0, 1));
        s.close(z(0)).unwrap(); // CLOSED: no-op
        assert_eq!(cond(&s, 0), Closed);
        s.open(z(1)).unwrap();
        s.close(z(1)).unwrap(); // explicitly opened, nothing written -> EMPTY
        assert_eq!(cond(&s, 1), Empty);
        assert_eq!(s.active_count(), 1);
        s.open(z(2)).unwrap();
        s.check_and_apply_write(at(2, 0), 1).unwrap();
        s.close(z(2)).unwrap();
        assert_eq!(cond(&s, 2), Closed);
        s.finish(z(3)).unwrap();
        rejects(&mut s, InvalidTransition, |s| s.close(z(3)).unwrap_err()); // FULL
        rejects(&mut s, Boundary, |s| s.close(z(99)).unwrap_err());
        // Writing a CLOSED zone reopens it implicitly.
        let o = s.check_and_apply_write(at(0, 2), 1).unwrap();
        assert!(o.opened);
        assert_eq!(cond(&s, 0), ImplicitOpen);
        ok(&s);
    }

    #[test]
    fn finish_transitions() {
        let mut s = set();
        assert_eq!(s.finish(z(0)).unwrap(), at(0, 0)); // EMPTY
        assert_eq!(cond(&s, 0), Full);
        assert_eq!(s.info(z(0)).write_pointer, at(0, 12));
        assert_eq!(s.finish(z(0)).unwrap(), at(0, 12)); // FULL: no-op
        s.check_and_apply_write(at(1, 0), 3).unwrap();
        assert_eq!(s.finish(z(1)).unwrap(), at(1, 3)); // IMPLICIT_OPEN
        s.open(z(2)).unwrap();
        s.finish(z(2)).unwrap(); // EXPLICIT_OPEN
        s.check_and_apply_write(at(3, 0), 3).unwrap();
        s.close(z(3)).unwrap();
        s.finish(z(3)).unwrap(); // CLOSED
        for i in 0..4 {
            assert_eq!(cond(&s, i), Full);
        }
        assert_eq!((s.open_count(), s.active_count()), (0, 0));
        rejects(&mut s, Boundary, |s| s.finish(z(8)).unwrap_err());
        ok(&s);
    }

    #[test]
    fn finish_of_empty_needs_an_active_resource() {
        let mut s = set(); // active limit 3
        s.check_and_apply_write(at(0, 0), 1).unwrap();
        s.check_and_apply_write(at(1, 0), 1).unwrap();
        s.check_and_apply_write(at(2, 0), 1).unwrap(); // closes zone 0
        rejects(&mut s, TooManyActive, |s| s.finish(z(5)).unwrap_err());
        // Finishing the CLOSED zone 0 needs an open resource: zone 1 is closed implicitly.
        s.finish(z(0)).unwrap();
        assert_eq!(cond(&s, 1), Closed);
        assert_eq!(cond(&s, 0), Full);
        ok(&s);
    }

    #[test]
    fn reset_transitions() {
        let mut s = set();
        assert_eq!(s.reset(z(0)).unwrap(), at(0, 0)); // EMPTY: no-op
        assert_eq!(cond(&s, 0), Empty);
        s.check_and_apply_write(at(0, 0), 5).unwrap();
        assert_eq!(s.reset(z(0)).unwrap(), at(0, 5)); // IMPLICIT_OPEN
        assert_eq!(cond(&s, 0), Empty);
        assert_eq!(s.info(z(0)).write_pointer, at(0, 0));
        s.open(z(1)).unwrap();
        s.reset(z(1)).unwrap(); // EXPLICIT_OPEN
        s.check_and_apply_write(at(2, 0), 5).unwrap();
        s.close(z(2)).unwrap();
        assert_eq!(s.reset(z(2)).unwrap(), at(2, 5)); // CLOSED
        s.check_and_apply_write(at(3, 0), 12).unwrap();
        assert_eq!(s.reset(z(3)).unwrap(), at(3, 12)); // FULL
        assert_eq!((s.open_count(), s.active_count()), (0, 0));
        assert!(s.report(z(0), 8).iter().all(|i| i.condition == Empty));
        // Rewrite from the start after a reset.
        s.check_and_apply_write(at(3, 0), 1).unwrap();
        rejects(&mut s, Boundary, |s| s.reset(z(8)).unwrap_err());
        ok(&s);
    }

    #[test]
    fn read_rules() {
        let mut s = set();
        s.check_read(at(0, 0), 0).unwrap();
        rejects(&mut s, ReadBeyondWp, |s| {
            s.check_read(at(0, 0), 1).unwrap_err()
        });
        s.check_and_apply_write(at(0, 0), 6).unwrap();
        s.check_read(at(0, 0), 6).unwrap();
        s.check_read(at(0, 5), 1).unwrap();
        rejects(&mut s, ReadBeyondWp, |s| {
            s.check_read(at(0, 5), 2).unwrap_err()
        });
        rejects(&mut s, ReadBeyondWp, |s| {
            s.check_read(at(0, 6), 1).unwrap_err()
        });
        // A FULL zone is readable up to its capacity, never in the gap.
        s.check_and_apply_write(at(1, 0), 12).unwrap();
        s.check_read(at(1, 0), 12).unwrap();
        rejects(&mut s, ReadBeyondWp, |s| {
            s.check_read(at(1, 11), 2).unwrap_err()
        });
        rejects(&mut s, ReadBeyondWp, |s| {
            s.check_read(at(1, 13), 1).unwrap_err()
        });
        // Outside the namespace.
        rejects(&mut s, Boundary, |s| s.check_read(Lba(127), 2).unwrap_err());
        rejects(&mut s, Boundary, |s| {
            s.check_read(Lba(u64::MAX), 2).unwrap_err()
        });
        s.check_read(Lba(128), 0).unwrap();
    }

    #[test]
    fn reads_may_cross_zones_when_capacity_equals_size() {
        let mut s = ZoneSet::new(ZoneConfig {
            zone_capacity: 16,
            ..cfg()
        });
        s.check_and_apply_write(at(0, 0), 16).unwrap();
        s.check_and_apply_write(at(1, 0), 4).unwrap();
        s.check_read(at(0, 10), 10).unwrap();
        assert_eq!(s.check_read(at(0, 10), 11), Err(ReadBeyondWp));
        assert_eq!(s.check_read(at(1, 0), 20), Err(ReadBeyondWp));
    }

    #[test]
    fn read_only_and_offline() {
        let mut s = set();
        s.check_and_apply_write(at(0, 0), 5).unwrap();
        s.check_and_apply_write(at(1, 0), 5).unwrap();
        s.mark_read_only(z(0));
        s.mark_offline(z(1));
        assert_eq!(cond(&s, 0), ReadOnly);
        assert_eq!(cond(&s, 1), Offline);
        assert_eq!((s.open_count(), s.active_count()), (0, 0));
        ok(&s);
        s.check_read(at(0, 0), 5).unwrap();
        rejects(&mut s, ReadBeyondWp, |s| {
            s.check_read(at(0, 0), 6).unwrap_err()
        });
        rejects(&mut s, InvalidTransition, |s| {
            s.check_read(at(1, 0), 1).unwrap_err()
        });
        for i in 0..2 {
            let wp = s.info(z(i)).write_pointer;
            rejects(&mut s, InvalidTransition, |s| {
                s.check_and_apply_write(wp, 1).unwrap_err()
            });
            rejects(&mut s, InvalidTransition, |s| {
                s.append(z(i), 1).unwrap_err()
            });
            rejects(&mut s, InvalidTransition, |s| s.open(z(i)).unwrap_err());
            rejects(&mut s, InvalidTransition, |s| s.close(z(i)).unwrap_err());
            rejects(&mut s, InvalidTransition, |s| s.finish(z(i)).unwrap_err());
            rejects(&mut s, InvalidTransition, |s| s.reset(z(i)).unwrap_err());
        }
    }

    #[test]
    fn set_condition_for_test_keeps_accounting() {
        let mut s = unlimited();
        s.set_condition_for_test(z(0), Full);
        assert_eq!(s.info(z(0)).write_pointer, at(0, 12));
        s.check_and_apply_write(at(1, 0), 3).unwrap();
        s.set_condition_for_test(z(1), Closed);
        assert_eq!(s.active_count(), 1);
        s.set_condition_for_test(z(1), Empty);
        assert_eq!(s.info(z(1)).write_pointer, at(1, 0));
        s.set_condition_for_test(z(2), ExplicitOpen);
        assert_eq!(s.open_count(), 1);
        ok(&s);
        // A forced state the rules cannot produce is reported by the invariant check.
        s.set_condition_for_test(z(3), ImplicitOpen);
        assert!(s.check_invariants().is_err());
    }

    #[test]
    fn unlimited_config_never_hits_limits() {
        let mut s = unlimited();
        for i in 0..8 {
            s.check_and_apply_write(at(i, 0), 1).unwrap();
        }
        assert_eq!((s.open_count(), s.active_count()), (8, 8));
        ok(&s);
    }

    #[test]
    fn apply_dispatches() {
        let mut s = set();
        assert!(matches!(
            s.apply(&ZoneOp::Write {
                lba: at(0, 0),
                len: 2
            }),
            Ok(ZoneOpOutcome::Write(_))
        ));
        assert_eq!(
            s.apply(&ZoneOp::Append { zone: z(0), len: 1 }).unwrap(),
            ZoneOpOutcome::Append(
                at(0, 2),
                WriteOutcome {
                    zone: z(0),
                    lba: at(0, 2),
                    len: 1,
                    was_empty: false,
                    opened: false,
                    became_full: false,
                    implicitly_closed: None
                }
            )
        );
        assert_eq!(
            s.apply(&ZoneOp::Read {
                lba: at(0, 0),
                len: 3
            }),
            Ok(ZoneOpOutcome::Read)
        );
        assert_eq!(s.apply(&ZoneOp::Close(z(0))), Ok(ZoneOpOutcome::Done));
        assert_eq!(s.apply(&ZoneOp::Open(z(0))), Ok(ZoneOpOutcome::Done));
        assert_eq!(
            s.apply(&ZoneOp::Finish(z(0))),
            Ok(ZoneOpOutcome::Finish(at(0, 3)))
        );
        assert_eq!(
            s.apply(&ZoneOp::Reset(z(0))),
            Ok(ZoneOpOutcome::Reset(at(0, 12)))
        );
        assert_eq!(s.apply(&ZoneOp::Close(z(0))), Err(InvalidTransition));
    }

    #[test]
    fn config_validation() {
        assert!(cfg().validate().is_ok());
        let bad = |c: ZoneConfig| c.validate().unwrap_err().to_string();
        assert!(bad(ZoneConfig {
            zone_size: 0,
            ..cfg()
        })
        .contains("zone.size_bytes"));
        assert!(bad(ZoneConfig {
            zone_capacity: 0,
            ..cfg()
        })
        .contains("zone.capacity_bytes"));
        assert!(bad(ZoneConfig {
            zone_capacity: 17,
            ..cfg()
        })
        .contains("zone.capacity_bytes"));
        assert!(bad(ZoneConfig { zones: 0, ..cfg() }).contains("zone.count"));
        assert!(bad(ZoneConfig {
            max_open: 4,
            ..cfg()
        })
        .contains("zone.max_open"));
        assert!(bad(ZoneConfig {
            zone_size: u64::MAX / 2,
            zone_capacity: 1,
            ..cfg()
        })
        .contains("overflows"));
        assert!(ZoneSet::try_new(ZoneConfig { zones: 0, ..cfg() }).is_err());
        // Open limit without an active limit, and vice versa, are fine.
        assert!(ZoneConfig {
            max_active: 0,
            ..cfg()
        }
        .validate()
        .is_ok());
        assert!(ZoneConfig {
            max_open: 0,
            ..cfg()
        }
        .validate()
        .is_ok());
    }

    #[test]
    fn serialization() {
        assert_eq!(
            serde_json::to_string(&ImplicitOpen).unwrap(),
            "\"IMPLICIT_OPEN\""
        );
        assert_eq!(serde_json::to_string(&ReadOnly).unwrap(), "\"READ_ONLY\"");
        assert_eq!(
            serde_json::to_string(&ReadBeyondWp).unwrap(),
            "\"read_beyond_wp\""
        );
        for k in ZoneErrorKind::ALL {
            assert_eq!(
                serde_json::to_string(&k).unwrap(),
                format!("\"{}\"", k.as_str())
            );
            assert_eq!(ZoneErrorKind::ALL[k.index()], k);
        }
        for c in [
            Empty,
            ImplicitOpen,
            ExplicitOpen,
            Closed,
            Full,
            ReadOnly,
            Offline,
        ] {
            assert_eq!(
                serde_json::to_string(&c).unwrap(),
                format!("\"{}\"", c.as_str())
            );
        }
        let mut s = set();
        s.check_and_apply_write(at(1, 0), 3).unwrap();
        let v = serde_json::to_value(s.info(z(1))).unwrap();
        assert_eq!(
            v,
            serde_json::json!({"id": 1, "start": 16, "condition": "IMPLICIT_OPEN",
                               "write_pointer": 19, "capacity": 12})
        );
    }

    #[test]
    fn error_log_counts_and_first_records() {
        let mut s = set();
        let mut log = ZoneErrorLog::new();
        assert_eq!(
            serde_json::to_value(&log).unwrap(),
            serde_json::json!({"unaligned_write": 0, "write_full": 0, "boundary": 0,
                "too_many_open": 0, "too_many_active": 0, "read_beyond_wp": 0,
                "invalid_transition": 0})
        );
        for t in 0..20u64 {
            let op = ZoneOp::Write {
                lba: at(0, 3),
                len: 1,
            };
            let e = s.apply(&op).unwrap_err();
            log.record_op(e, &op, &s, t * 10);
        }
        let op = ZoneOp::Close(z(2));
        log.record_op(s.apply(&op).unwrap_err(), &op, &s, 999);
        let op = ZoneOp::Read {
            lba: Lba(200),
            len: 1,
        };
        log.record_op(s.apply(&op).unwrap_err(), &op, &s, 1000);
        assert_eq!(log.count(UnalignedWrite), 20);
        assert_eq!(log.count(InvalidTransition), 1);
        assert_eq!(log.count(Boundary), 1);
        assert_eq!(log.total(), 22);
        assert_eq!(log.first_errors().len(), FIRST_ERRORS_KEPT);
        let r = log.first_errors()[1];
        assert_eq!(r.kind, UnalignedWrite);
        assert_eq!(
            (r.op, r.lba, r.len, r.zone, r.time_ns),
            ("write", at(0, 3), 1, Some(z(0)), 10)
        );
        let v = serde_json::to_value(&log).unwrap();
        assert_eq!(v["unaligned_write"], 20);
        assert_eq!(v.as_object().unwrap().len(), 7);
        let rec = serde_json::to_value(log.first_errors()[0]).unwrap();
        assert_eq!(
            rec,
            serde_json::json!({"kind": "unaligned_write", "op": "write", "lba": 3, "len": 1,
                               "zone": 0, "time_ns": 0})
        );
        let mut other = ZoneErrorLog::default();
        other.record(WriteFull, "append", at(1, 0), 2, None, 5);
        let mut merged = ZoneErrorLog::new();
        merged.merge(&other);
        merged.merge(&log);
        assert_eq!(merged.total(), 23);
        assert_eq!(merged.first_errors()[0].kind, WriteFull);
        assert_eq!(merged.first_errors().len(), FIRST_ERRORS_KEPT);
    }
}

#[cfg(test)]
mod proptests {
    use super::*;
    use proptest::prelude::*;

    /// An abstract request, resolved against the current state so that a good share of writes
    /// land at the write pointer.
    #[derive(Clone, Debug)]
    enum AOp {
        /// mode 0: at wp; 1: off wp by `delta`; 2: crossing capacity; 3: arbitrary LBA.
        Write {
            zone: u32,
            mode: u8,
            len: u64,
            delta: u64,
        },
        Append {
            zone: u32,
            len: u64,
        },
        /// mode 0: below wp; 1: arbitrary.
        Read {
            zone: u32,
            mode: u8,
            len: u64,
            delta: u64,
        },
        Open(u32),
        Close(u32),
        Finish(u32),
        Reset(u32),
        ReadOnly(u32),
        Offline(u32),
    }

    fn aop(zones: u32) -> impl Strategy<Value = AOp> {
        let zi = 0..zones + 1; // one past the end exercises `boundary`
        prop_oneof![
            8 => (zi.clone(), 0u8..4, 0u64..8, 1u64..20)
                .prop_map(|(zone, mode, len, delta)| AOp::Write { zone, mode, len, delta }),
            3 => (zi.clone(), 0u64..8).prop_map(|(zone, len)| AOp::Append { zone, len }),
            3 => (zi.clone(), 0u8..2, 0u64..8, 0u64..40)
                .prop_map(|(zone, mode, len, delta)| AOp::Read { zone, mode, len, delta }),
            2 => zi.clone().prop_map(AOp::Open),
            2 => zi.clone().prop_map(AOp::Close),
            1 => zi.clone().prop_map(AOp::Finish),
            2 => zi.clone().prop_map(AOp::Reset),
            1 => (0..zones).prop_map(AOp::ReadOnly),
            1 => (0..zones).prop_map(AOp::Offline),
        ]
    }

    fn config() -> impl Strategy<Value = ZoneConfig> {
        (1u64..24, 1u32..10, 0u32..5, 0u32..6).prop_flat_map(|(size, zones, mo, ma)| {
            (1..=size).prop_map(move |cap| {
                let (max_open, max_active) = if mo != 0 && ma != 0 && mo > ma {
                    (ma, mo)
                } else {
                    (mo, ma)
                };
                ZoneConfig {
                    zone_size: size,
                    zone_capacity: cap,
                    zones,
                    max_open,
                    max_active,
                }
            })
        })
    }

    fn resolve(s: &ZoneSet, a: &AOp) -> Option<ZoneOp> {
        let c = *s.config();
        let start = |z: u32| u64::from(z) * c.zone_size;
        let wp = |z: u32| {
            if z < c.zones {
                s.info(ZoneId(z)).write_pointer.0
            } else {
                start(z)
            }
        };
        Some(match *a {
            AOp::Write {
                zone,
                mode,
                len,
                delta,
            } => {
                let (lba, len) = match mode {
                    0 => (wp(zone), len),
                    1 => (wp(zone) + delta, len),
                    2 => {
                        let end = start(zone) + c.zone_capacity;
                        let w = wp(zone).min(end);
                        (w, end - w + delta)
                    }
                    _ => (delta * 3 % (c.namespace_lbas() + 2), len),
                };
                ZoneOp::Write { lba: Lba(lba), len }
            }
            AOp::Append { zone, len } => ZoneOp::Append {
                zone: ZoneId(zone),
                len,
            },
            AOp::Read {
                zone,
                mode,
                len,
                delta,
            } => {
                let lba = match mode {
                    0 => start(zone) + delta % (wp(zone) - start(zone) + 1),
                    _ => delta % (c.namespace_lbas() + 2),
                };
                ZoneOp::Read { lba: Lba(lba), len }
            }
            AOp::Open(z) => ZoneOp::Open(ZoneId(z)),
            AOp::Close(z) => ZoneOp::Close(ZoneId(z)),
            AOp::Finish(z) => ZoneOp::Finish(ZoneId(z)),
            AOp::Reset(z) => ZoneOp::Reset(ZoneId(z)),
            AOp::ReadOnly(_) | AOp::Offline(_) => return None,
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

        #[test]
        fn random_ops_keep_invariants(
            (cfg, ops) in config().prop_flat_map(|c| (Just(c), proptest::collection::vec(aop(c.zones), 1..120)))
        ) {
            let mut s = ZoneSet::new(cfg);
            let mut log = ZoneErrorLog::new();
            let mut errors = 0u64;
            for a in &ops {
                let Some(op) = resolve(&s, a) else {
                    match *a {
                        AOp::ReadOnly(z) => s.mark_read_only(ZoneId(z)),
                        AOp::Offline(z) => s.mark_offline(ZoneId(z)),
                        _ => unreachable!(),
                    }
                    prop_assert!(s.check_invariants().is_ok());
                    continue;
                };
                let before = s.clone();
                let order_before = s.implicit_open_order();
                let r = s.apply(&op);
                if let Err(e) = s.check_invariants() {
                    return Err(TestCaseError::fail(format!("{op:?} -> {r:?}: {e}")));
                }
                if cfg.max_open != 0 {
                    prop_assert!(s.open_count() <= cfg.max_open);
                }
                if cfg.max_active != 0 {
                    prop_assert!(s.active_count() <= cfg.max_active);
                }
                match r {
                    Err(e) => {
                        prop_assert_eq!(&s, &before, "{:?} failed with {} but changed state", op, e);
                        log.record_op(e, &op, &s, 0);
                        errors += 1;
                    }
                    Ok(ZoneOpOutcome::Write(o)) | Ok(ZoneOpOutcome::Append(_, o)) => {
                        let zi = o.zone;
                        let (ZoneOp::Write { len, .. } | ZoneOp::Append { len, .. }) = op else {
                            unreachable!()
                        };
                        if let ZoneOp::Append { zone, .. } = op {
                            prop_assert_eq!(zone, zi);
                            prop_assert_eq!(o.lba, before.info(zi).write_pointer);
                        }
                        prop_assert_eq!(o.lba, before.info(zi).write_pointer);
                        prop_assert_eq!(s.info(zi).write_pointer.0, o.lba.0 + len);
                        prop_assert_eq!(o.became_full, s.info(zi).condition == ZoneCondition::Full && len > 0);
                        prop_assert_eq!(o.was_empty, before.info(zi).condition == ZoneCondition::Empty);
                        // The victim is the least recently implicitly opened zone.
                        if let Some(v) = o.implicitly_closed {
                            prop_assert_eq!(Some(&v), order_before.first());
                            prop_assert_eq!(s.info(v).condition, ZoneCondition::Closed);
                        }
                        // Only the written zone and the victim changed.
                        for i in 0..cfg.zones {
                            let id = ZoneId(i);
                            if id != zi && Some(id) != o.implicitly_closed {
                                prop_assert_eq!(s.info(id), before.info(id));
                            }
                        }
                        if o.opened && !o.became_full {
                            let order = s.implicit_open_order();
                            prop_assert_eq!(order.last(), Some(&zi));
                        }
                    }
                    Ok(ZoneOpOutcome::Read) => prop_assert_eq!(&s, &before),
                    Ok(ZoneOpOutcome::Reset(prev)) => {
                        let ZoneOp::Reset(z) = op else { unreachable!() };
                        prop_assert_eq!(prev, before.info(z).write_pointer);
                        prop_assert_eq!(s.info(z).condition, ZoneCondition::Empty);
                    }
                    Ok(ZoneOpOutcome::Finish(prev)) => {
                        let ZoneOp::Finish(z) = op else { unreachable!() };
                        prop_assert_eq!(prev, before.info(z).write_pointer);
                        prop_assert_eq!(s.info(z).condition, ZoneCondition::Full);
                    }
                    Ok(ZoneOpOutcome::Done) => {}
                }
                // Implicit-open order: survivors keep their relative order, newcomers at the end.
                let after = s.implicit_open_order();
                let kept: Vec<ZoneId> = order_before.iter().copied().filter(|z| after.contains(z)).collect();
                prop_assert_eq!(&after[..kept.len()], &kept[..]);
                prop_assert!(after.len() <= kept.len() + 1);
            }
            prop_assert_eq!(log.total(), errors);
        }
    }
}
