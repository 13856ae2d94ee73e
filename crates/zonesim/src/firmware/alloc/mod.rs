//! Allocation: superblocks, the pool of free (erased) superblocks, and write streams.
//!
//! A *stream* is a write frontier: an open superblock and its write pointer. Host data, GC survivors (and, with placement policies, hot/cold classes) are
//! written through streams. Slots are assigned one at a time; whenever a die unit (program
//! unit x planes of one die) is complete it is programmed as one multi-plane operation, ready
//! when the last of its data is. A partially filled unit stays *pending* in the stream (its
//! data sits in controller RAM; reads of it are served from there) until it fills or is padded.
//!
//! The zoned namespaces allocate here too: [`ZoneSpace`] reserves a zone's whole span of
//! regular flash (ConZone §3.2, ConZone+ §4.3) and [`SlcPool`] holds the pSLC secondary buffer
//! (ConZone §2.1, §3.4), whose frontiers are [`Stream`]s.

pub mod placement;
mod slc_pool;
mod superblock;
mod zone_space;

pub use slc_pool::{
    make_room, zone_fronts, Room, SlcCounters, SlcPool, SlcRoom, GC_FRONT, HOST_FRONT,
};
pub use superblock::{SbInfo, SbState, Superblocks};
pub use zone_space::{ZoneSpace, NO_UNIT};

use crate::engine::SimTime;
use crate::firmware::mapping::Ppa;

/// Maximum number of write streams of one FTL (a config rule, defined in `config`).
pub use crate::config::MAX_STREAMS;

/// Sentinel for "no superblock".
pub const NO_SB: u32 = u32::MAX;

/// One write frontier.
#[derive(Debug, Clone, Copy)]
pub struct Stream {
    /// Open superblock, or [`NO_SB`].
    pub sb: u32,
    /// Next offset to assign in `sb`.
    pub next: u32,
    /// Offset where the pending (not yet programmed) unit starts.
    pub unit_start: u32,
    /// Latest ready time of the data assigned to the pending unit.
    pub pending_ready: SimTime,
}

impl Default for Stream {
    fn default() -> Self {
        Stream {
            sb: NO_SB,
            next: 0,
            unit_start: 0,
            pending_ready: SimTime::ZERO,
        }
    }
}

impl Stream {
    /// Assign the next slot of this frontier (stream `id` of its FTL) to data ready at `ready`,
    /// opening a superblock from the free pool of `sbs` when the frontier is closed, and count
    /// the slot valid. The caller keeps enough free superblocks in reserve (GC). Always
    /// inlined: it is the per-page step of every write path.
    #[inline(always)]
    pub fn assign(
        &mut self,
        sbs: &mut Superblocks,
        id: u8,
        slots_per_sb: u32,
        ready: SimTime,
    ) -> Ppa {
        if self.sb == NO_SB {
            let sb = sbs
                .take_free(id)
                .expect("no free superblock: GC reserve exhausted (validated OP too small?)");
            *self = Stream {
                sb,
                ..Stream::default()
            };
        }
        let ppa = Ppa(self.sb * slots_per_sb + self.next);
        self.next += 1;
        self.pending_ready = self.pending_ready.max(ready);
        sbs.info[self.sb as usize].valid += 1;
        ppa
    }

    /// The pending slots `[unit_start, next)` were handed to a program: start a new pending
    /// unit, and close the superblock in `sbs` (at `closed_at`) when it is now fully written.
    #[inline]
    pub fn programmed(&mut self, sbs: &mut Superblocks, slots_per_sb: u32, closed_at: SimTime) {
        self.unit_start = self.next;
        self.pending_ready = SimTime::ZERO;
        if self.next == slots_per_sb {
            sbs.close(self.sb, closed_at);
            self.sb = NO_SB;
        }
    }

    /// Is `(sb, off)` assigned but not yet programmed?
    #[inline]
    pub fn is_pending(&self, sb: u32, off: u32) -> bool {
        sb == self.sb && off >= self.unit_start && off < self.next
    }
}
