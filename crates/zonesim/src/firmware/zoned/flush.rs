//! Flushing zone buffers (ConZone §3.2, Fig. 4 ② ③): whole program units to the zone's regular
//! flash, with SLC-held data of the unit read back and combined; what does not fill a unit to
//! the SLC secondary buffer.

use super::{PageReads, ZonedFtl};
use crate::config::{CellType, SlcPolicy};
use crate::engine::SimTime;
use crate::firmware::alloc::HOST_FRONT;
use crate::firmware::buffer::NO_ZONE;
use crate::firmware::mapping::Lpa;
use crate::firmware::Lent;
use crate::nand::{NandArray, OpClass};

/// Why a zone's buffer is flushed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Trigger {
    /// Buffer full, or a program unit completed with SLC data: whole units only.
    Full,
    /// Another zone needs the buffer.
    Evict,
    /// Host flush command.
    Host,
    /// The zone became FULL (write reached capacity, or finish).
    ZoneFull,
}

impl ZonedFtl {
    /// Flush zone `z`'s buffered (and SLC-held) data. See the module documentation for what
    /// each trigger does. Returns when the programs issued complete.
    pub(super) fn flush_zone(
        &mut self,
        lent: &mut Lent,
        t: SimTime,
        z: u32,
        trigger: Trigger,
    ) -> SimTime {
        let mut t = self.finalize_zone(lent, z).max(t);
        let st = self.zst[z as usize];
        let b = st.buf;
        if b != NO_ZONE {
            // The buffered data may still be on its way over the link.
            t = t.max(self.bufs.ready(b));
        }
        let buffered = st.written - st.slc_end;
        let mut done = t;
        let mut to_slc = 0;
        let mut from_buf = 0;
        if self.policy == SlcPolicy::All {
            if trigger != Trigger::Full || buffered > 0 {
                done = self.write_slc(lent, t, z, st.slc_end, buffered);
                to_slc = buffered;
                from_buf = buffered;
                self.zst[z as usize].slc_end = st.written;
            }
        } else {
            let pending = st.written - st.reg_alloc;
            let units = if st.full {
                pending.div_ceil(self.unit)
            } else {
                pending / self.unit
            };
            let old_wp = st.reg_wp;
            let mut off = st.reg_alloc;
            for _ in 0..units {
                let end = (off + self.unit).min(st.written);
                done = done.max(self.program_unit(lent, t, z, off, end, true, OpClass::HostWrite));
                off = end;
            }
            let zs = &mut self.zst[z as usize];
            zs.reg_alloc = off;
            zs.reg_wp = off;
            from_buf = off.saturating_sub(st.slc_end);
            zs.slc_end = zs.slc_end.max(off);
            let rest = zs.written - zs.slc_end;
            let slc_end = zs.slc_end;
            if trigger != Trigger::Full && rest > 0 {
                done = done.max(self.write_slc(lent, t, z, slc_end, rest));
                self.zst[z as usize].slc_end = st.written;
                to_slc = rest;
                from_buf += rest;
            }
            // A zone whose last unit left the buffer before the write that filled it (a full
            // buffer flushed it) is merged into its zone entry when it turns FULL.
            let merged =
                trigger == Trigger::ZoneFull && off > 0 && off >= self.zst[z as usize].written;
            if off > old_wp || merged {
                let ext = self.zst[z as usize].extent(z);
                let c = &mut self.counters.map;
                self.map.on_mapped(lent, t, ext, old_wp, off, c);
            }
        }
        if b != NO_ZONE {
            self.bufs.flushed(b, from_buf, done);
        }
        if to_slc > 0 {
            self.counters.slc.flushes_to_slc += 1;
            self.counters.slc.slc_buffered_pages += to_slc as u64;
        }
        match trigger {
            Trigger::Full | Trigger::ZoneFull => self.counters.full_flushes += 1,
            Trigger::Evict => self.counters.premature_flushes += 1,
            Trigger::Host => self.counters.host_forced_flushes += 1,
        }
        if trigger != Trigger::Full {
            self.unbind(z);
        }
        done
    }

    /// Program zone offsets `[off, end)` (at most one program unit, padded) to regular flash;
    /// the part held in SLC is read back first (and, if `invalidate`, dropped from SLC).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn program_unit(
        &mut self,
        lent: &mut Lent,
        t: SimTime,
        z: u32,
        off: u32,
        end: u32,
        invalidate: bool,
        class: OpClass,
    ) -> SimTime {
        let st = self.zst[z as usize];
        let slc_hi = end.min(st.slc_end);
        let mut ready = t;
        if off < slc_hi {
            ready = ready.max(self.read_slc(lent.nand, t, z, off, slc_hi, class));
            if invalidate {
                for o in off..slc_hi {
                    let l = self.lpa(z, o);
                    self.slc.invalidate(l);
                }
                self.counters.combined_pages += (slc_hi - off) as u64;
            }
        }
        self.counters.padding_slots += (self.unit - (end - off)) as u64;
        let done = self.program_regular(lent.nand, ready, z, off, class);
        if self.wear.is_some() {
            self.wear_programmed(z, off);
        }
        if let Some(p) = &mut self.power {
            p.regular_programmed(z, off, end, done);
        }
        done
    }

    /// Program zone `z`'s regular unit at offset `off`, its data ready at `ready`.
    #[inline]
    pub(super) fn program_regular(
        &self,
        nand: &mut NandArray,
        ready: SimTime,
        z: u32,
        off: u32,
        class: OpClass,
    ) -> SimTime {
        let p = self.space.locate(z, off);
        let (pages, cell) = (self.space.prog_pages(), self.space.cell());
        nand.program(ready, p.die, self.unit, pages, cell, class)
    }

    /// Read zone offsets `[lo, hi)` from SLC, one array read per flash page.
    pub(super) fn read_slc(
        &mut self,
        nand: &mut NandArray,
        t: SimTime,
        z: u32,
        lo: u32,
        hi: u32,
        class: OpClass,
    ) -> SimTime {
        let mut reads = PageReads::new(t, class);
        let mut page = PageOfSlot::new(self.slc.slots_per_page());
        for o in lo..hi {
            let ppa = self
                .slc
                .lookup(self.lpa(z, o))
                .expect("SLC-held page mapped");
            if page.same(ppa.0) {
                // The flash page of the run: no need to locate it again.
                reads.extend(t);
            } else {
                reads.add(nand, self.slc.page_of(ppa), t, CellType::Slc);
            }
        }
        reads.finish(nand)
    }

    /// Write zone offsets `[lo, lo + n)` from the buffer to SLC (partial programming).
    fn write_slc(&mut self, lent: &mut Lent, t: SimTime, z: u32, lo: u32, n: u32) -> SimTime {
        if n == 0 {
            return t;
        }
        let t = self.ensure_slc_space(lent, t);
        let f = self
            .slc
            .front_for(lent.nand, z, HOST_FRONT, OpClass::HostWrite);
        let base = z * self.size;
        let lpas = (lo..lo + n).map(|o| Lpa(base + o));
        let done = self.slc.write(lent.nand, f, lpas, t, OpClass::HostWrite);
        if let Some(p) = &mut self.power {
            p.slc_written(z, lo, self.zst[z as usize].reg_alloc, done);
        }
        done
    }
}

/// Whether a slot lies on the flash page of the slot before it. The `slots_per_page` slots of
/// one flash page are consecutive and aligned in a superblock's (and a pool's) slot numbers
/// ([`crate::nand::Geometry::page_of`]), so this needs no page lookup.
struct PageOfSlot {
    slots_per_page: u32,
    /// First slot of the last slot's page (None before the first slot).
    first: Option<u32>,
}

impl PageOfSlot {
    #[inline]
    fn new(slots_per_page: u32) -> PageOfSlot {
        PageOfSlot {
            slots_per_page,
            first: None,
        }
    }

    /// Slot `ppa` comes next: whether it is on the page of the slot before.
    #[inline]
    fn same(&mut self, ppa: u32) -> bool {
        if let Some(f) = self.first {
            if ppa.wrapping_sub(f) < self.slots_per_page {
                return true;
            }
        }
        self.first = Some(ppa - ppa % self.slots_per_page);
        false
    }
}

#[cfg(test)]
mod tests {
    use super::PageOfSlot;
    use crate::config::CellType;
    use crate::nand::Geometry;
    use proptest::prelude::*;

    proptest! {
        /// A slot is on the page of the slot before exactly when the geometry's page lookup
        /// says so, for pSLC regions of any geometry.
        #[test]
        fn same_page_as_the_geometry_says(
            (dies, planes, spp, sbs) in (1u32..5, 1u32..3, 1u32..5, 1u32..4),
            slots in proptest::collection::vec(any::<u32>(), 1..60),
            runs in proptest::collection::vec(0u32..6, 1..60),
        ) {
            let mut n = crate::config::DeviceConfig::default_device().nand;
            n.channels = dies;
            n.chips_per_channel = 1;
            n.dies_per_chip = 1;
            n.planes_per_die = planes;
            n.pages_per_block = 384;
            n.page_bytes = spp * 4096;
            n.cell = CellType::Tlc;
            let geo = Geometry::new(&n).region(1, sbs, CellType::Slc);
            let sb = geo.slots_per_superblock();
            let total = sb * sbs;
            let mut page = PageOfSlot::new(geo.slots_per_page);
            let mut prev = None;
            // Runs of consecutive slots from random starts, as SLC-held data is laid out.
            for (&s, &run) in slots.iter().zip(runs.iter().cycle()) {
                for k in 0..run.max(1) {
                    let ppa = (s % total).saturating_add(k).min(total - 1);
                    let at = geo.page_of(ppa / sb, ppa % sb);
                    prop_assert_eq!(page.same(ppa), prev == Some(at));
                    prev = Some(at);
                }
            }
        }
    }
}
