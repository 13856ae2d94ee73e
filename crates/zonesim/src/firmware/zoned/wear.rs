//! The zoned FTL's side of flash that ages (firmware/wear, docs/wear.md), the Zoned UFS way
//! (ZUFS §4.1): the block table, the read-disturb and retention triggers and the static
//! levelling victim are the shared ones of [`crate::firmware::wear`]; what differs is the unit
//! of a move and what the host sees when blocks run out.
//!
//! - **Whole-zone remap.** A superblock of a zone's span queued by read reclaim, retention
//!   refresh, static levelling or a failed program of the zone's last unit moves the *whole
//!   zone* to a fresh span: the ZML records the destination (start, length) and the ZMT is
//!   updated when the copy completes; until then reads of the zone are served from the victim.
//!   The copy is background flash work in steps of one superpage: a step reads a program unit
//!   per die from the victim and programs it to the destination, and is issued when the
//!   previous step's programs complete. A step is booked once the device's time reaches it
//!   (the next host command books the steps issued since the last one), so a host command
//!   waits on its die for at most the step in progress, not the whole copy. After the last
//!   step the victim's blocks are erased and go back to the pool or are retired. Only FULL
//!   zones whose data all sits in regular flash move; one remap runs at a time, started by the
//!   next host command when the pool holds a span. A write command that finds the victim
//!   holding the pool short of a span finishes the copy first; a power cut issues the aborted
//!   steps again after recovery.
//! - **Bad blocks and spares.** A zone needs a span of `units` superblocks; superblocks in
//!   service beyond the spans of the zones in service are the spares. Factory-bad blocks are
//!   remapped onto donors of their plane when the block table has them; zones the healthy
//!   blocks cannot back are OFFLINE from format (the highest zone ids). A failed program of a
//!   zone still being written makes it READ_ONLY (ZNS "Zone Is Read Only": writes and zone
//!   management refused with `invalid_transition`, reads below the write pointer served).
//!   When a retirement leaves the spares short, the oldest READ_ONLY zone goes OFFLINE (its
//!   blocks are erased and return or retire), else an unwritten zone does (ZNS "Zone Is
//!   Offline": reads refused too). Zone reports show both conditions.
//!
//! Simplifications: the steps of a copy in flight when the host's last command arrives are
//! not booked (the report counts the moves booked by then); the SLC rows and the map area do
//! not wear in this model.

use super::ZonedFtl;
use crate::engine::SimTime;
use crate::firmware::alloc::NO_UNIT;
use crate::firmware::buffer::NO_ZONE;
use crate::firmware::mapping::ZmtEntry;
use crate::firmware::wear::Wear;
use crate::firmware::Lent;
use crate::interface::zone::{ZoneCondition, ZoneId};
use crate::nand::{FlashPage, OpClass};
use std::collections::VecDeque;

/// A whole-zone remap in flight: reads of `zone` are served from `victim` until it commits.
/// The copy runs in steps of one superpage (a program on every die), each issued when the
/// previous one's programs complete and booked once the device's time reaches it, so host
/// commands interleave with the copy (ZUFS §4.1: reads are served during migration).
#[derive(Clone)]
pub(super) struct Remap {
    zone: u32,
    victim: Vec<u32>,
    /// The superblock whose queueing started it: its reason counts the moves.
    why: u32,
    /// Zone offset of the next step's first slot; the copy ends at `end` (the zone's data).
    next_off: u32,
    end: u32,
    /// When the next step is issued: the previous step's programs have completed.
    next_at: SimTime,
    /// When each booked step's programs complete, in order (non-decreasing: a step is issued
    /// when the one before completes); a power cut issues again the steps it aborted.
    dones: Vec<SimTime>,
    /// When every booked program completes (the copy's end once `next_off == end`).
    done: SimTime,
}

impl Remap {
    /// Every step is booked: the victim's blocks have been handed to the erase.
    fn copied(&self) -> bool {
        self.next_off >= self.end
    }
}

/// The wear state of one zoned namespace (None when every wear mechanism is off).
#[derive(Clone)]
pub(super) struct ZonedWear {
    w: Box<Wear>,
    remap: Option<Remap>,
    /// Zones whose program failed while they were written, to be made READ_ONLY.
    failed: Vec<u32>,
    /// READ_ONLY zones, oldest first: the first to go OFFLINE.
    read_only: VecDeque<u32>,
    /// Zones in service (neither OFFLINE nor taken out at format).
    in_service: u32,
    /// Zones remapped whole.
    pub remaps: u64,
}

impl ZonedFtl {
    /// Put the wear state in force at format: superblocks retired by factory-bad blocks leave
    /// the pool, the zones they cannot back go OFFLINE, dynamic levelling orders the pool.
    pub(super) fn wear_format(&mut self, wear: Option<Box<Wear>>) {
        let Some(mut w) = wear else {
            return;
        };
        for u in w.retired_at_format().collect::<Vec<_>>() {
            self.space.withdraw(u);
        }
        if w.levels_allocation() {
            let units = self.space.total_units();
            self.space.level_by((0..units).map(|u| w.key(u)).collect());
        }
        let k = self.space.units_per_zone();
        let zones = self.zst.len() as u32;
        w.set_need(zones * k);
        let in_service_units = (w.spares() + (zones * k) as i64).max(0) as u32;
        let in_service = (in_service_units / k).min(zones);
        for z in in_service..zones {
            self.zones.mark_offline(ZoneId(z));
        }
        w.set_need(in_service * k);
        self.wear = Some(Box::new(ZonedWear {
            w,
            remap: None,
            failed: Vec::new(),
            read_only: VecDeque::new(),
            in_service,
            remaps: 0,
        }));
    }

    /// Zone offset `off` of `z` is read: its page (the victim's while a remap of the
    /// zone is in flight), its read counted for read disturb.
    #[inline(never)]
    pub(super) fn wear_locate(&mut self, z: u32, off: u32) -> FlashPage {
        let zw = self.wear.as_mut().expect("called with wear on");
        let (p, unit, slot) = match &zw.remap {
            Some(r) if r.zone == z => {
                let slots = self.space.unit_slots();
                let u = r.victim[(off / slots) as usize];
                (self.space.locate_in(&r.victim, off), u, off % slots)
            }
            _ => {
                let (u, s) = self.space.unit_at(z, off);
                (self.space.locate(z, off), u, s)
            }
        };
        zw.w.host_read(unit, slot);
        p
    }

    /// A unit of zone `z` at offset `off` was programmed: a failed program is settled by the
    /// next command (remap if the zone is complete, else READ_ONLY).
    #[inline(never)]
    pub(super) fn wear_programmed(&mut self, z: u32, off: u32) {
        let (u, _) = self.space.unit_at(z, off);
        let zw = self.wear.as_mut().expect("called with wear on");
        if zw.w.program_failed(u) && !zw.failed.contains(&z) {
            zw.failed.push(z);
        }
    }

    /// Host writes of `pages` pages at `now` (the write span for the lifetime).
    #[inline(never)]
    pub(super) fn wear_write(&mut self, now: SimTime, pages: u32) {
        if let Some(zw) = &mut self.wear {
            zw.w.host_write(now, pages);
        }
    }

    /// Before a host command at `now`: book the remap's steps issued by then (all of them
    /// before a command that may `write` while the victim holds the pool short of a span),
    /// commit a completed remap (the ZMT updated), settle failed programs, start the next
    /// queued remap.
    #[inline(never)]
    pub(super) fn wear_tick(&mut self, lent: &mut Lent, now: SimTime, write: bool) {
        self.remap_steps(lent, now, false);
        let zw = self.wear.as_mut().expect("called with wear on");
        if zw
            .remap
            .as_ref()
            .is_some_and(|r| r.copied() && now >= r.done)
        {
            zw.remap = None;
            if let Some(zm) = &mut self.zmap {
                zm.end_remap(lent.nand, now);
            }
        }
        while let Some(z) = self.wear.as_mut().and_then(|zw| zw.failed.pop()) {
            if !self.movable(z) {
                self.make_read_only(lent, now, z);
            }
        }
        let zw = self.wear.as_mut().expect("called with wear on");
        if zw.remap.is_none()
            && zw.w.pending()
            && self.space.free_units() >= self.space.units_per_zone()
        {
            let owners = self.space.owners();
            let victim = {
                let (zst, zones) = (&self.zst, &self.zones);
                let zw = self.wear.as_mut().expect("on");
                zw.w.next_victim(|u| match owners[u as usize] {
                    NO_UNIT => Some(false),
                    z => {
                        let st = &zst[z as usize];
                        match zones.condition(ZoneId(z)) {
                            ZoneCondition::ReadOnly | ZoneCondition::Offline => Some(false),
                            ZoneCondition::Full
                                if st.full
                                    && st.reg_wp == st.written
                                    && st.buf == NO_ZONE
                                    && st.jobs == 0 =>
                            {
                                Some(true)
                            }
                            _ => None,
                        }
                    }
                })
            };
            if let Some(u) = victim {
                self.remap_zone(lent, now, owners[u as usize], u);
            }
        }
        if write && self.space.free_units() < self.space.units_per_zone() {
            self.remap_steps(lent, now, true);
        }
    }

    /// Zone `z` can move whole: FULL, all its data in regular flash, nothing in flight.
    fn movable(&self, z: u32) -> bool {
        let st = &self.zst[z as usize];
        self.zones.condition(ZoneId(z)) == ZoneCondition::Full
            && st.full
            && st.reg_wp == st.written
            && st.buf == NO_ZONE
            && st.jobs == 0
    }

    /// Start moving zone `z` whole to a fresh span (queued for superblock `why`), ZUFS §4.1:
    /// the ZML records the destination and the first step is issued at `now`.
    fn remap_zone(&mut self, lent: &mut Lent, now: SimTime, z: u32, why: u32) {
        let Some(victim) = self.space.remap(z) else {
            return;
        };
        let st = self.zst[z as usize];
        if let Some(zm) = &mut self.zmap {
            let dest = ZmtEntry {
                start: self.space.first_unit(z),
                len: st.written,
            };
            zm.begin_remap(z, dest);
        }
        let zw = self.wear.as_mut().expect("called with wear on");
        zw.remaps += 1;
        zw.remap = Some(Remap {
            zone: z,
            victim,
            why,
            next_off: 0,
            end: st.reg_wp,
            next_at: now,
            dones: Vec::new(),
            done: now,
        });
        self.remap_steps(lent, now, false);
    }

    /// Book the remap's steps issued by `now` (every step left with `all`: space is needed,
    /// or the device is set aside); after the last, the victim's blocks are erased.
    pub(super) fn remap_steps(&mut self, lent: &mut Lent, now: SimTime, all: bool) {
        let Some(r) = self.wear.as_ref().and_then(|zw| zw.remap.as_ref()) else {
            return;
        };
        if r.copied() {
            return;
        }
        while let Some(r) = self
            .wear
            .as_ref()
            .and_then(|zw| zw.remap.as_ref())
            .filter(|r| !r.copied() && (all || r.next_at <= now))
        {
            let (off, at) = (r.next_off, r.next_at);
            self.remap_step(lent, off, at);
        }
        let r = self.wear.as_ref().and_then(|zw| zw.remap.as_ref());
        if let Some((victim, done)) = r.filter(|r| r.copied()).map(|r| (r.victim.clone(), r.done)) {
            for u in victim {
                self.erase_unit(lent, u, done, OpClass::Background);
            }
            self.settle(lent, now);
        }
    }

    /// One step of the remap, issued at `at` from zone offset `off`: a superpage read from
    /// the victim and programmed to the destination, one program unit per die.
    fn remap_step(&mut self, lent: &mut Lent, off: u32, at: SimTime) {
        let zw = self.wear.as_ref().expect("called with wear on");
        let r = zw.remap.as_ref().expect("a remap in flight");
        let (z, end) = (r.zone, (off + self.superpage).min(r.end));
        let (cell, pages) = (self.space.cell(), self.space.prog_pages());
        let mut done = at;
        let mut o = off;
        while o < end {
            let e = (o + self.unit).min(end);
            let mut reads = super::PageReads::new(at, OpClass::Background);
            for s in o..e {
                reads.add(lent.nand, self.space.locate_in(&r.victim, s), at, cell);
            }
            let ready = reads.finish(lent.nand);
            let p = self.space.locate(z, o);
            let t = lent
                .nand
                .program(ready, p.die, self.unit, pages, cell, OpClass::Background);
            done = done.max(t);
            o = e;
        }
        let mut o = off;
        while o < end {
            self.wear_programmed(z, o);
            o += self.unit;
        }
        let zw = self.wear.as_mut().expect("called with wear on");
        let r = zw.remap.as_mut().expect("a remap in flight");
        r.dones.push(done);
        r.next_off = end;
        r.next_at = done;
        r.done = r.done.max(done);
        let why = r.why;
        zw.w.moved(why, (end - off) as u64);
    }

    /// Erase unit `u` from `at`: back to the pool or retired; static levelling may queue a
    /// victim.
    fn erase_unit(&mut self, lent: &mut Lent, u: u32, at: SimTime, class: OpClass) -> SimTime {
        let done = self.space.erase(lent.nand, u, at, class);
        let zw = self.wear.as_mut().expect("called with wear on");
        if zw.w.erased(u) {
            self.space.set_key(u, zw.w.key(u));
            self.space.give_back(u);
        }
        let owners = self.space.owners();
        let (zst, zones) = (&self.zst, &self.zones);
        zw.w.level(|s| match owners[s as usize] {
            NO_UNIT => false,
            z => zones.condition(ZoneId(z)) == ZoneCondition::Full && zst[z as usize].full,
        });
        done
    }

    /// Release zone `z`'s span at `t` (a reset, or the zone going OFFLINE) through the wear
    /// state; returns when the erases complete.
    pub(super) fn wear_release(&mut self, lent: &mut Lent, z: u32, t: SimTime) -> SimTime {
        let zw = self.wear.as_mut().expect("called with wear on");
        let mut done = t;
        if zw.remap.as_ref().is_some_and(|r| r.zone == z) {
            let r = zw.remap.take().expect("checked");
            if let Some(zm) = &mut self.zmap {
                zm.end_remap(lent.nand, r.done);
            }
            // Stopped part way: the victim's blocks were not handed to the erase yet.
            if !r.copied() {
                for u in r.victim {
                    done = done.max(self.erase_unit(lent, u, t, OpClass::HostWrite));
                }
            }
        }
        for u in self.space.take_span(z) {
            done = done.max(self.erase_unit(lent, u, t, OpClass::HostWrite));
        }
        done
    }

    /// Flush zone `z` and make it READ_ONLY (a program failed while it was written).
    fn make_read_only(&mut self, lent: &mut Lent, now: SimTime, z: u32) {
        let c = self.zones.condition(ZoneId(z));
        if matches!(c, ZoneCondition::ReadOnly | ZoneCondition::Offline) {
            return;
        }
        let t = self.finalize_zone(lent, z).max(now);
        if self.zst[z as usize].buf != NO_ZONE {
            self.flush_zone(lent, t, z, super::flush::Trigger::Evict);
        }
        self.zones.mark_read_only(ZoneId(z));
        self.wear.as_mut().expect("on").read_only.push_back(z);
    }

    /// While the spares are short, take a zone out of service: the oldest READ_ONLY zone, else
    /// the highest unwritten one, goes OFFLINE.
    pub(super) fn settle(&mut self, lent: &mut Lent, now: SimTime) {
        let k = self.space.units_per_zone();
        loop {
            let zw = self.wear.as_mut().expect("called with wear on");
            if zw.w.spares() >= 0 || zw.in_service == 0 {
                return;
            }
            let z = match zw.read_only.pop_front() {
                Some(z) => z,
                None => {
                    let zones = &self.zones;
                    let space = &self.space;
                    let pick = (0..self.zst.len() as u32).rev().find(|&z| {
                        !space.is_allocated(z)
                            && !matches!(
                                zones.condition(ZoneId(z)),
                                ZoneCondition::ReadOnly | ZoneCondition::Offline
                            )
                    });
                    match pick {
                        Some(z) => z,
                        None => return, // check_invariants reports the shortfall
                    }
                }
            };
            let zw = self.wear.as_mut().expect("on");
            zw.in_service -= 1;
            let need = zw.in_service * k;
            zw.w.set_need(need);
            self.zones.mark_offline(ZoneId(z));
            if self.space.is_allocated(z) {
                self.drop_zone(lent, now, z);
            }
        }
    }

    /// Power fails at `cut`: the remap steps whose programs had not completed are issued
    /// again after recovery (the victim still holds their data). Once the last step is issued
    /// the victim's erase is booked, so a cut in the last step is not modelled as a loss.
    pub(super) fn wear_power_cut(&mut self, cut: SimTime) {
        let superpage = self.superpage;
        if let Some(r) = self.wear.as_mut().and_then(|zw| zw.remap.as_mut()) {
            if !r.copied() && r.next_at > cut {
                let first = r.dones.partition_point(|&d| d <= cut);
                r.dones.truncate(first);
                (r.next_off, r.next_at) = (first as u32 * superpage, cut);
            }
        }
    }

    /// Power is back and recovery ends at `end`: the remap goes on from there.
    pub(super) fn wear_power_on(&mut self, end: SimTime) {
        if let Some(r) = self.wear.as_mut().and_then(|zw| zw.remap.as_mut()) {
            r.next_at = r.next_at.max(end);
        }
    }

    /// The device sat unpowered for `ns`: retention time passes; due refreshes are queued.
    pub(super) fn age_wear(&mut self, now: SimTime, ns: u64) {
        let Some(zw) = self.wear.as_mut() else {
            return;
        };
        zw.w.age(ns);
        let owners = self.space.owners();
        let zst = &self.zst;
        zw.w.scan(now, |u| match owners[u as usize] {
            NO_UNIT => None,
            z => zst[z as usize].full.then_some(SimTime::ZERO),
        });
    }

    /// Counters for the report.
    pub(super) fn wear_counters(&self) -> Option<crate::firmware::wear::WearCounters> {
        self.wear
            .as_ref()
            .map(|zw| crate::firmware::wear::WearCounters {
                zone_remaps: zw.remaps,
                ..zw.w.counters()
            })
    }

    /// Zero the event counters.
    pub(super) fn wear_reset_counters(&mut self) {
        if let Some(zw) = &mut self.wear {
            zw.w.reset_counters();
            zw.remaps = 0;
        }
    }

    /// The wear state agrees with the pool and the zones: retired units in no span and not
    /// free, spares not short, OFFLINE zones hold nothing, READ_ONLY zones are queued.
    pub(super) fn check_wear(&self) -> Result<(), String> {
        let Some(zw) = &self.wear else {
            return self.space.check(|_| false);
        };
        let held = zw.remap.as_ref().filter(|r| !r.copied()).map(|r| &r.victim);
        self.space
            .check(|u| zw.w.is_retired(u) || held.is_some_and(|v| v.contains(&u)))?;
        zw.w.check(|u| zw.w.is_retired(u))?;
        if zw.w.spares() < 0 {
            return Err(format!(
                "zoned namespace short of {} spare superblocks",
                -zw.w.spares()
            ));
        }
        let mut in_service = 0;
        for z in 0..self.zst.len() as u32 {
            match self.zones.condition(ZoneId(z)) {
                ZoneCondition::Offline if self.space.is_allocated(z) => {
                    return Err(format!("zone {z}: OFFLINE but holds a span"))
                }
                ZoneCondition::Offline => {}
                ZoneCondition::ReadOnly if !zw.read_only.contains(&z) => {
                    return Err(format!("zone {z}: READ_ONLY but not queued to go OFFLINE"))
                }
                _ => in_service += 1,
            }
        }
        if in_service != zw.in_service {
            return Err(format!(
                "{in_service} zones in service but the wear state counts {}",
                zw.in_service
            ));
        }
        if let (Some(zm), Some(r)) = (&self.zmap, &zw.remap) {
            match zm.remap() {
                Some((z, e)) if z == r.zone && e.start == self.space.first_unit(z) => {}
                other => {
                    return Err(format!(
                        "zone {}: remap in flight, ZML holds {other:?}",
                        r.zone
                    ))
                }
            }
        }
        Ok(())
    }

    /// The start unit the ZMT holds for zone `z` while a remap of it is in flight.
    pub(super) fn remap_victim_start(&self, z: u32) -> Option<u32> {
        let r = self.wear.as_ref()?.remap.as_ref()?;
        (r.zone == z && self.zmap.as_ref().is_some_and(|zm| zm.remap().is_some()))
            .then(|| r.victim[0])
    }
}
