//! When the global buffer issues full program units to flash (`buffer.issue_ahead_us`).
//!
//! Off (0, the default): a unit is issued the moment its last page arrives. Its program and
//! the GC copies it pays for (incremental GC, `gc.rs`) are booked at once, after whatever the
//! dies already hold, and its space stays held until they complete. Under GC the dies then hold
//! work booked hundreds of milliseconds ahead (buffer size times the write amplification).
//!
//! On: a full unit stays dirty in the buffer (reads of it hit there, overwrites are absorbed)
//! and is issued when the die its program goes to has less than `issue_ahead` of work booked,
//! as a controller's bounded die queue: it keeps every die busy while booking only a few
//! programs ahead. The buffer also issues units when dirty data fills it (a write needs room:
//! the in-flight part is what frees space), when the host flushes, and when the host goes idle
//! (`IdleWork::BufferIssue`). Units are issued in arrival order, as off; each page's program is
//! ready no earlier than its arrival.
//!
//! Checks happen when the host submits a read or a write: nothing else drives the firmware
//! between host events, which is why the idle timer drains the buffer.

use super::PageFtl;
use crate::engine::SimTime;
use crate::firmware::alloc::NO_SB;
use crate::firmware::Lent;

impl PageFtl {
    /// Whether full units wait in the buffer until their die's queue has room.
    #[inline(always)]
    pub(super) fn issues_lazily(&self) -> bool {
        self.issue_ahead > 0
    }

    /// Issue full units while the die the oldest one goes to has less than `issue_ahead` of
    /// work booked after `now`.
    pub(super) fn issue_due(&mut self, lent: &mut Lent, now: SimTime) {
        while self.buffer.buffered() >= self.unit {
            let Some(stream) = self.buffer.front_stream() else {
                break;
            };
            let s = &self.streams[stream as usize];
            let next = if s.sb == NO_SB { 0 } else { s.next };
            let die = self.geo.die_of_offset(next);
            if lent.nand.die_free_at(die) >= now + self.issue_ahead {
                break;
            }
            self.issue_unit(lent, now);
        }
    }

    /// Before a page is admitted at `now`: if dirty pages fill the buffer, issue the oldest
    /// unit (only space in flight is ever freed).
    #[inline]
    pub(super) fn issue_for_room(&mut self, lent: &mut Lent, now: SimTime) {
        while self.buffer.buffered() >= self.buffer.capacity() {
            self.issue_unit(lent, now);
        }
    }

    /// Issue every full unit (a host flush; the host went idle). Returns when the programs
    /// issued complete (or `now`).
    pub(super) fn issue_all(&mut self, lent: &mut Lent, now: SimTime) -> SimTime {
        let mut done = now;
        while self.buffer.buffered() >= self.unit {
            done = done.max(self.issue_unit(lent, now));
        }
        done
    }

    /// Issue the oldest full unit, counted as a full flush; returns when its programs complete.
    pub(super) fn issue_unit(&mut self, lent: &mut Lent, now: SimTime) -> SimTime {
        self.buffer.counters.full_flushes += 1;
        self.flush_unit(lent, now)
    }
}
