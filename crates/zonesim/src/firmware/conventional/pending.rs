//! Data reads waiting for their map pages: one extra event per L2P miss.
//!
//! A read whose map page misses the L2P cache needs the map read's data before the controller
//! knows where to read (DFTL, ZUFS §3.2; MQSim's address mapping unit queues the data read
//! when the translation read completes). Booking that data read at submission, with a start
//! after the map read's completion, reserves its die ahead of the work that will arrive there
//! meanwhile and leaves holes on the die timeline that nothing fits (docs/validation.md: ~4 % of die time
//! with 93 % misses). Instead the read is parked here and booked when its map page is in SRAM
//! (`Ftl::resume` at the time the completion names), so it queues behind what the die has by
//! then, as a per-die command queue would.
//!
//! The slab is reused: no allocation once it has grown to the run's misses in flight.

use crate::engine::SimTime;
use crate::nand::FlashPage;

/// One flash read of a parked request: `slots` 4 KiB slots of flash page `page`, to be
/// booked once its map page arrives at `at`.
#[derive(Debug, Clone, Copy)]
struct Parked {
    at: SimTime,
    page: FlashPage,
    slots: u32,
}

/// A request with parked reads: the latest data-ready time of its booked reads and the bytes
/// it returns to the host.
#[derive(Clone, Debug, Default)]
struct Request {
    /// The parked read of a request that parked exactly one (the common case: a 4 KiB read),
    /// kept inline; `reads` is then empty.
    one: Option<Parked>,
    /// The parked reads of a request that parked several.
    reads: Vec<Parked>,
    ready: SimTime,
    bytes: u64,
}

/// The requests waiting for map reads, indexed by token.
#[derive(Clone, Debug, Default)]
pub struct PendingReads {
    requests: Vec<Request>,
    free: Vec<u32>,
    /// Reads of the request being submitted (moved into a slot by [`PendingReads::park`]).
    building: Vec<Parked>,
}

impl PendingReads {
    /// Start collecting the parked reads of a new request.
    #[inline]
    pub fn begin(&mut self) {
        self.building.clear();
    }

    /// Park a read of `slots` slots of flash page `page` of the request being submitted
    /// until `at`.
    #[inline]
    pub fn defer(&mut self, at: SimTime, page: FlashPage, slots: u32) {
        self.building.push(Parked { at, page, slots });
    }

    /// Whether the request being submitted parked any read.
    #[inline]
    pub fn any(&self) -> bool {
        !self.building.is_empty()
    }

    /// Park the request being submitted (its reads booked so far have data at `ready`; it
    /// returns `bytes`); its token and the time it must be resumed.
    pub fn park(&mut self, ready: SimTime, bytes: u64) -> (u32, SimTime) {
        let token = match self.free.pop() {
            Some(t) => t,
            None => {
                self.requests.push(Request::default());
                self.requests.len() as u32 - 1
            }
        };
        let r = &mut self.requests[token as usize];
        r.ready = ready;
        r.bytes = bytes;
        if let [p] = self.building[..] {
            r.one = Some(p);
            return (token, p.at);
        }
        std::mem::swap(&mut r.reads, &mut self.building);
        (token, next_at(&r.reads))
    }

    /// Book the reads of request `token` whose map pages are in SRAM at `now` with `read`
    /// (flash page, slots -> data ready). Returns the time to resume it again, or, when no read is
    /// left, None and frees the token.
    pub fn resume(
        &mut self,
        token: u32,
        now: SimTime,
        mut read: impl FnMut(FlashPage, u32) -> SimTime,
    ) -> Resumed {
        let r = &mut self.requests[token as usize];
        let mut ready = r.ready;
        if let Some(p) = r.one {
            if p.at > now {
                return Resumed::Later(p.at);
            }
            r.one = None;
            ready = ready.max(read(p.page, p.slots));
        } else {
            r.reads.retain(|p| {
                if p.at <= now {
                    ready = ready.max(read(p.page, p.slots));
                    false
                } else {
                    true
                }
            });
        }
        r.ready = ready;
        if r.reads.is_empty() {
            self.free.push(token);
            Resumed::Done {
                ready,
                bytes: r.bytes,
            }
        } else {
            Resumed::Later(next_at(&r.reads))
        }
    }

    /// Requests parked now.
    #[cfg(test)]
    fn in_flight(&self) -> usize {
        self.requests.len() - self.free.len()
    }
}

/// What resuming a parked request left.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resumed {
    /// Reads still wait for map pages; resume again at this time.
    Later(SimTime),
    /// All reads booked: the data is ready at `ready`; the request returns `bytes`.
    Done { ready: SimTime, bytes: u64 },
}

fn next_at(reads: &[Parked]) -> SimTime {
    reads.iter().map(|p| p.at).min().unwrap_or(SimTime::ZERO)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Page 0 of block 0 on `die`.
    fn die(die: u32) -> FlashPage {
        FlashPage {
            die,
            plane: 0,
            block: 0,
            page: 0,
        }
    }

    #[test]
    fn a_single_parked_read_waits_for_its_map_page() {
        let mut p = PendingReads::default();
        p.begin();
        p.defer(SimTime(200), FlashPage { page: 7, ..die(3) }, 1);
        let (t, at) = p.park(SimTime(50), 4096);
        assert_eq!(at, SimTime(200));
        let r = p.resume(t, SimTime(199), |_, _| panic!("booked before its map page"));
        assert_eq!(r, Resumed::Later(SimTime(200)));
        let mut booked = Vec::new();
        let r = p.resume(t, SimTime(200), |pg, s| {
            booked.push((pg.die, pg.page, s));
            SimTime(260)
        });
        assert_eq!(booked, vec![(3, 7, 1)]);
        let done = Resumed::Done {
            ready: SimTime(260),
            bytes: 4096,
        };
        assert_eq!(r, done);
        assert_eq!(p.in_flight(), 0);
        // The token is reused, now by a request that parks two reads.
        p.begin();
        p.defer(SimTime(300), die(0), 1);
        p.defer(SimTime(100), die(1), 1);
        assert_eq!(p.park(SimTime(0), 8192), (t, SimTime(100)));
        let r = p.resume(t, SimTime(300), |_, _| SimTime(400));
        let done = Resumed::Done {
            ready: SimTime(400),
            bytes: 8192,
        };
        assert_eq!(r, done);
    }

    #[test]
    fn reads_are_booked_in_map_order_and_tokens_reused() {
        let mut p = PendingReads::default();
        p.begin();
        p.defer(SimTime(200), die(1), 1);
        p.defer(SimTime(100), die(2), 2);
        let (t, at) = p.park(SimTime(50), 8192);
        assert_eq!(at, SimTime(100));
        let mut booked = Vec::new();
        let r = p.resume(t, SimTime(100), |d, s| {
            booked.push((d.die, s));
            SimTime(150)
        });
        assert_eq!(r, Resumed::Later(SimTime(200)));
        let r = p.resume(t, SimTime(200), |d, s| {
            booked.push((d.die, s));
            SimTime(120)
        });
        assert_eq!(booked, vec![(2, 2), (1, 1)]);
        assert_eq!(
            r,
            Resumed::Done {
                ready: SimTime(150),
                bytes: 8192
            }
        );
        assert_eq!(p.in_flight(), 0);
        p.begin();
        p.defer(SimTime(300), die(0), 1);
        assert_eq!(p.park(SimTime(0), 4096).0, t);
    }
}
