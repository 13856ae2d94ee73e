//! Budget-based in-place update (ZMS "Challenge #2: Latency of Tiny Synchronous File
//! Update", slide "Budget-based In-Place Update"): `zone.ipu_budget_bytes > 0`.
//!
//! "Allow in-place update for select files as per the application request; device writes the
//! in-place updated data into SLC blocks; cap total valid data size for efficient garbage
//! collection." An [`Op::InPlace`](crate::interface::Op) command below a zone's write pointer:
//! - pages still in the zone's write buffer are overwritten there (absorbed, no budget);
//! - every other page gets an *IPU copy* in SLC, mapped at its own logical page in a second
//!   logical space of the SLC pool (`namespace LBAs + lba`), so the zone's own copy stays where
//!   it is and each LBA has at most one IPU copy (a repeat update replaces it);
//! - a command whose new IPU copies would take the valid IPU data beyond the budget changes
//!   nothing and is answered `rejected` (counted): the host falls back to an out-of-place write.
//!
//! Reads look for an IPU copy first. SLC GC folds IPU data back into the zone when the zone's
//! own copy of that offset is still in SLC (not yet in regular flash): the zone copy is dropped
//! and the IPU data becomes the zone's data, rewritten with the survivors (it then migrates
//! with the zone). IPU copies of data already in regular (TLC) flash survive SLC GC as SLC
//! data (moved with the other survivors) until the zone is reset; folding them would rewrite
//! a regular program unit, which the fixed zone-to-flash mapping (ConZone+ §4.3) cannot place
//! (a known gap, docs/zoned.md). The budget bounds what SLC GC must copy.
//!
//! Report (`device.namespaces[i].ipu`): IPU commands and pages, pages absorbed by the buffer,
//! rejections, budget in use (max, end), IPU reads, pages folded back.

use super::ZonedFtl;
use crate::engine::SimTime;
use crate::firmware::alloc::HOST_FRONT;
use crate::firmware::mapping::Lpa;
use crate::firmware::Lent;
use crate::interface::zone::{Lba, ZoneOp};
use crate::interface::Completion;
use crate::nand::{OpClass, SLOT_BYTES};
use serde::Serialize;

/// Counters of the in-place updates of one zoned namespace.
#[derive(Debug, Clone, Default, Serialize)]
pub struct IpuCounters {
    pub budget_bytes: u64,
    /// In-place update commands accepted, and their 4 KiB pages (SLC and buffer).
    pub commands: u64,
    pub pages: u64,
    /// Pages programmed to SLC as IPU copies.
    pub slc_pages: u64,
    /// Pages overwritten in the zone's write buffer (no SLC, no budget).
    pub buffer_pages: u64,
    /// Commands refused because the budget would be exceeded, and their pages.
    pub rejected_commands: u64,
    pub rejected_pages: u64,
    /// Valid IPU data in SLC: the most at any time, and now (bytes).
    pub budget_in_use_max_bytes: u64,
    pub budget_in_use_bytes: u64,
    /// Host reads served from an IPU copy.
    pub read_pages: u64,
    /// IPU copies folded back into their zone by SLC GC.
    pub folded_pages: u64,
    /// IPU copies moved inside SLC by SLC GC (their zone data is in regular flash).
    pub gc_moved_pages: u64,
    /// IPU copies dropped by a zone reset.
    pub reset_pages: u64,
}

/// The IPU budget and its books.
#[derive(Clone)]
pub(super) struct Ipu {
    budget: u64,
    /// Valid IPU copies in SLC.
    valid: u64,
    /// Offset of the IPU logical space in the SLC pool (the namespace's LBA count).
    base: u64,
    pub counters: IpuCounters,
}

impl Ipu {
    pub fn new(budget_bytes: u64, namespace_lbas: u64) -> Ipu {
        Ipu {
            budget: budget_bytes / SLOT_BYTES,
            valid: 0,
            base: namespace_lbas,
            counters: IpuCounters {
                budget_bytes,
                ..Default::default()
            },
        }
    }

    /// The SLC logical page of `lpa`'s IPU copy.
    #[inline]
    pub fn copy_of(&self, lpa: Lpa) -> Lpa {
        Lpa((self.base + lpa.0 as u64) as u32)
    }

    /// The zone page whose IPU copy is SLC logical page `l`, if `l` is one.
    #[inline]
    pub fn home_of(&self, l: Lpa) -> Option<Lpa> {
        (l.0 as u64 >= self.base).then(|| Lpa((l.0 as u64 - self.base) as u32))
    }

    /// Valid IPU copies now.
    pub fn valid(&self) -> u64 {
        self.valid
    }

    fn set_valid(&mut self, v: u64) {
        self.valid = v;
        let c = &mut self.counters;
        c.budget_in_use_bytes = v * SLOT_BYTES;
        c.budget_in_use_max_bytes = c.budget_in_use_max_bytes.max(c.budget_in_use_bytes);
    }

    /// `n` copies created (`n > 0`) or dropped.
    fn add(&mut self, n: i64) {
        self.set_valid((self.valid as i64 + n) as u64);
    }

    /// The valid IPU data stays within the budget.
    pub fn check(&self) -> Result<(), String> {
        if self.valid > self.budget {
            return Err(format!(
                "IPU: {} valid copies exceed the budget of {} pages",
                self.valid, self.budget
            ));
        }
        Ok(())
    }

    pub fn reset_counters(&mut self) {
        self.counters = IpuCounters {
            budget_bytes: self.budget * SLOT_BYTES,
            ..Default::default()
        };
        self.set_valid(self.valid);
    }
}

impl ZonedFtl {
    /// An in-place update of `n` LBAs at `lba` (budget-based, ZMS). Without a budget, or at the
    /// write pointer, it is a plain write.
    pub(super) fn in_place(
        &mut self,
        lent: &mut Lent,
        now: SimTime,
        lba: Lba,
        n: u32,
    ) -> Completion {
        let z = (lba.0 / self.size as u64) as u32;
        let off = (lba.0 % self.size as u64) as u32;
        let below_wp = (z as usize) < self.zst.len() && off < self.zst[z as usize].written;
        if self.ipu.is_none() || n == 0 || !below_wp {
            return Completion::at(self.write(lent, now, lba, n));
        }
        if let Err(k) = self.zones.check_read(lba, n as u64) {
            self.record(k, ZoneOp::Write { lba, len: n as u64 }, now);
            return Completion::refused(now);
        }
        if off + n > self.zst[z as usize].written {
            // Part of it at or beyond the write pointer: not an in-place update.
            self.record(
                crate::interface::zone::ZoneErrorKind::UnalignedWrite,
                ZoneOp::Write { lba, len: n as u64 },
                now,
            );
            return Completion::refused(now);
        }
        self.finalize(lent, now);
        let st = self.zst[z as usize];
        let ipu = self.ipu.as_ref().expect("ipu");
        let new = (off..off + n)
            .filter(|&o| o < st.slc_end && self.slc.lookup(ipu.copy_of(self.lpa(z, o))).is_none())
            .count() as u64;
        if ipu.valid + new > ipu.budget {
            let c = &mut self.ipu.as_mut().expect("ipu").counters;
            c.rejected_commands += 1;
            c.rejected_pages += n as u64;
            return Completion::refused(now);
        }
        let arrived = lent.link.to_device(now, n as u64 * SLOT_BYTES);
        let to_slc = (st.slc_end.saturating_sub(off)).min(n);
        let mut done = arrived;
        if to_slc > 0 {
            let t = self.ensure_slc_space(lent, arrived);
            let f = self
                .slc
                .front_for(lent.nand, z, HOST_FRONT, OpClass::HostWrite);
            for o in off..off + to_slc {
                let l = self.ipu.as_ref().expect("ipu").copy_of(self.lpa(z, o));
                if let Some(d) = self.slc.assign(lent.nand, f, l, t, OpClass::HostWrite) {
                    done = done.max(d);
                }
            }
            // Synchronous update: complete when the SLC program is done.
            done = done.max(self.slc.commit(lent.nand, f, OpClass::HostWrite));
        }
        // Host data written like any other write (the device's WAF counts it).
        self.counters.host_write_pages += n as u64;
        let ipu = self.ipu.as_mut().expect("ipu");
        ipu.add(new as i64);
        let c = &mut ipu.counters;
        c.commands += 1;
        c.pages += n as u64;
        c.slc_pages += to_slc as u64;
        c.buffer_pages += (n - to_slc) as u64;
        Completion::at(done)
    }

    /// SLC GC meets IPU copy `l` of zone page `home`: fold it back into the zone if the zone's
    /// own copy is still in SLC (returns true: the copy is gone, the zone page was reassigned at
    /// `t` through `front`), else leave it to be moved as a survivor.
    pub(super) fn fold_ipu(
        &mut self,
        lent: &mut Lent,
        l: Lpa,
        home: Lpa,
        t: SimTime,
        front: usize,
    ) -> bool {
        let (z, off) = (home.0 / self.size, home.0 % self.size);
        let st = self.zst[z as usize];
        if off < st.reg_alloc || off >= st.slc_end {
            self.ipu.as_mut().expect("ipu").counters.gc_moved_pages += 1;
            return false;
        }
        self.slc.invalidate(home);
        self.slc.invalidate(l);
        self.slc
            .assign(lent.nand, front, home, t, OpClass::Background);
        let ipu = self.ipu.as_mut().expect("ipu");
        ipu.add(-1);
        ipu.counters.folded_pages += 1;
        true
    }

    /// Drop the IPU copies of zone `z`'s first `written` pages (zone reset).
    pub(super) fn drop_ipu(&mut self, z: u32, written: u32) {
        let Some(ipu) = &self.ipu else { return };
        let mut dropped = 0i64;
        for o in 0..written {
            let l = ipu.copy_of(Lpa(z * self.size + o));
            if self.slc.invalidate(l) {
                dropped += 1;
            }
        }
        let ipu = self.ipu.as_mut().expect("ipu");
        ipu.add(-dropped);
        ipu.counters.reset_pages += dropped as u64;
    }

    /// Where a read of zone page `lpa` finds an IPU copy, if it has one.
    #[inline]
    pub(super) fn ipu_copy(&mut self, lpa: Lpa) -> Option<crate::firmware::mapping::Ppa> {
        let ipu = self.ipu.as_mut()?;
        let p = self.slc.lookup(ipu.copy_of(lpa))?;
        ipu.counters.read_pages += 1;
        Some(p)
    }
}
