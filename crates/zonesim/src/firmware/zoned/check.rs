//! The zoned FTL's invariants: zone firmware state agrees with the zone state machine, the
//! buffers, the SLC map and the pools (checked in debug builds and by the tests).

use super::ZonedFtl;
use crate::firmware::buffer::NO_ZONE;
use crate::firmware::mapping::ZmtEntry;
use crate::interface::zone::ZoneId;

impl ZonedFtl {
    pub(super) fn check(&self) -> Result<(), String> {
        self.zones.check_invariants()?;
        self.slc.check()?;
        self.check_wear()?;
        self.bufs.check()?;
        let mut slc_held = 0u64;
        for z in 0..self.zst.len() as u32 {
            self.check_zone(z)?;
            let st = self.zst[z as usize];
            slc_held += (st.slc_end - st.reg_wp) as u64;
        }
        let mapped = self.slc.valid_total();
        let ipu = self.ipu.as_ref().map_or(0, |i| i.valid());
        if mapped != slc_held + ipu {
            return Err(format!(
                "SLC holds {mapped} valid pages but zones account for {slc_held} and IPU copies for {ipu}"
            ));
        }
        if let Some(i) = &self.ipu {
            i.check()?;
        }
        for b in 0..self.bufs.len() as u32 {
            let owner = self.bufs.owner(b);
            if owner != NO_ZONE && self.zst[owner as usize].buf != b {
                return Err(format!(
                    "buffer {b} owned by zone {owner} which does not hold it"
                ));
            }
        }
        Ok(())
    }

    fn check_zone(&self, z: u32) -> Result<(), String> {
        let st = self.zst[z as usize];
        if self.zones.condition(ZoneId(z)) == crate::interface::zone::ZoneCondition::Offline {
            // An OFFLINE zone (firmware/wear) holds nothing: no span, data, buffer or job.
            return match st.written == 0 && st.buf == NO_ZONE && st.jobs == 0 {
                true => Ok(()),
                false => Err(format!("zone {z}: OFFLINE but holds data {st:?}")),
            };
        }
        if !(st.reg_wp <= st.reg_alloc
            && st.reg_alloc <= st.slc_end
            && st.slc_end <= st.written
            && st.written <= self.cap)
        {
            return Err(format!("zone {z}: bad offsets {st:?}"));
        }
        let id = ZoneId(z);
        let wp = (self.zones.write_pointer(id).0 - self.zones.zone_start(id).0) as u32;
        if wp != st.written && !(st.full && wp == self.cap) {
            return Err(format!(
                "zone {z}: zone write pointer {wp} but {} written",
                st.written
            ));
        }
        if (st.written > 0) != self.space.is_allocated(z) {
            return Err(format!(
                "zone {z}: {} written but allocated = {}",
                st.written,
                self.space.is_allocated(z)
            ));
        }
        if let Some(zm) = &self.zmap {
            let e = zm.entry(z);
            let start = self
                .remap_victim_start(z)
                .unwrap_or(self.space.first_unit(z));
            // An unallocated zone's first unit is NO_UNIT, the ZMT's NO_START.
            if e != (ZmtEntry {
                start,
                len: st.written,
            }) {
                return Err(format!(
                    "zone {z}: ZMT entry {e:?} but start unit {start}, {} written",
                    st.written
                ));
            }
        }
        for o in st.reg_wp..st.slc_end {
            if self.slc.lookup(self.lpa(z, o)).is_none() {
                return Err(format!("zone {z}: offset {o} should be held in SLC"));
            }
        }
        match st.buf {
            NO_ZONE => {
                if st.slc_end != st.written {
                    return Err(format!("zone {z}: buffered data but no buffer"));
                }
            }
            b => {
                let (owner, count) = (self.bufs.owner(b), self.bufs.count(b));
                if owner != z || count != st.written - st.slc_end {
                    return Err(format!(
                        "zone {z}: buffer {b} owner {owner} count {count} but {} buffered",
                        st.written - st.slc_end
                    ));
                }
            }
        }
        let jobs = self.mig.jobs_of(z);
        if jobs != st.jobs {
            return Err(format!(
                "zone {z}: {jobs} migrations queued, {} counted",
                st.jobs
            ));
        }
        Ok(())
    }
}
