//! The zoned-namespace state machine: zone conditions, write pointers, open/active limits.
//!
//! Pure logic, no timing: the device model asks this module whether a request is legal and, if it
//! is, the state advances. A rejected request changes nothing and is answered with a
//! [`ZoneErrorKind`], which the device counts in a [`ZoneErrorLog`]: a violation is answered as a
//! real device answers it, never silently accepted (docs/zoned.md).
//!
//! # Model
//!
//! The rules are those of the Linux zoned block device model (ZBC/ZAC, NVMe ZNS), as used by
//! Zoned UFS (§2.3: "the starting LBA of each write must match the zone's write
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
//!   `invalid_transition`, an error rather than a silent no-op, as for every refused request.
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

use serde::Serialize;

mod check;
mod errors;
#[cfg(test)]
mod tests;

pub use errors::{ZoneErrorKind, ZoneErrorLog, ZoneErrorRecord, FIRST_ERRORS_KEPT};

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
}

impl std::fmt::Display for ZoneCondition {
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

    /// Power came back after a cut: zone `z` holds `len` LBAs (no more than it held; what the
    /// device lost is beyond), and an open zone is CLOSED — EMPTY if nothing of it survived
    /// (Zoned UFS §2: "When a power cycle occurs, zones in the OPEN state implicitly transition
    /// to CLOSED"). FULL zones stay FULL unless nothing of them survived (then EMPTY);
    /// read-only and offline zones keep their state.
    pub fn power_on(&mut self, z: ZoneId, len: u64) {
        let i = z.0;
        match self.slots[i as usize].cond {
            ZoneCondition::Full if len > 0 => return,
            ZoneCondition::ReadOnly | ZoneCondition::Offline => return,
            _ => {}
        }
        let wp = self.start_of(i) + len;
        debug_assert!(wp <= self.slots[i as usize].wp, "power-on grows zone {i}");
        self.slots[i as usize].wp = wp;
        let to = if len == 0 {
            ZoneCondition::Empty
        } else {
            ZoneCondition::Closed
        };
        self.set_cond(i, to);
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
