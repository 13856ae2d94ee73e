//! IOTailor (ZMS "Challenge #1: Multi-zone Write Performance"; ZUFS §2, §3.2 on
//! ZMS): a host layer between the writers and the device that keeps one queue per zone and
//! turns the zone's writes into superpage-aligned requests — "For each zone, IOTailor
//! transforms requests to superpage-aligned requests; request split & request grouping in the
//! per-zone queues" — so that a device with fewer write buffers than open zones never has to
//! switch a buffer holding less than a superpage (an unaligned flush into SLC).
//!
//! **Release rule.** A zone's queue holds a contiguous run of bytes. It issues a request as
//! soon as it holds bytes up to a superpage boundary of the zone (or the end of the zone's
//! capacity): ZUFS §3.2 describes IOTailor "aggregating small writes until a full
//! superpage can be constructed and issued". Each request covers at most one superpage and
//! ends on a boundary (a long write is split; short writes are grouped). A partial group (less
//! than a superpage) is issued as it is when
//! - it has been held `host.iotailor_hold_us` *and* no request of its zone issued by IOTailor
//!   is still in flight (the talk gives no rule; we chose what a block layer with zone write
//!   locking does: a write waits in the scheduler queue, where adjacent writes merge, while
//!   its zone has a write in flight — holding it then delays nothing, it could not reach the
//!   device earlier; the bound keeps a closed-loop writer whose data is all held moving),
//! - a flush reaches the namespace (all zones), or a zone management command its zone (what
//!   the block layer owes the command that orders after the writes),
//! - a write to the zone does not continue its queue (the held bytes can never grow into a
//!   superpage).
//!
//! A host request completes when every device request carrying its bytes has completed: each
//! request is split into pieces linked to the device requests that carry them. The queues,
//! pieces and request slots are pools reused through free lists: after warm-up nothing
//! allocates. The host knows no device: the run hands in the superpage and zone sizes it read
//! from the namespace (as a host reads the device's geometry, ZUFS §2).

use serde::Serialize;

/// No element (end of a list).
const NIL: u32 = u32::MAX;

/// The sizes IOTailor aligns to, in bytes, and its hold bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TailorConfig {
    /// One superpage of the zone's flash: the alignment and the largest request issued.
    pub superpage: u64,
    /// Distance between zone starts.
    pub zone_bytes: u64,
    /// Writable bytes of a zone (its end is a boundary too).
    pub zone_capacity: u64,
    /// Longest hold of a partial group, ns.
    pub hold_ns: u64,
}

/// Counters of IOTailor (`sim.iotailor` in the report).
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct TailorCounters {
    /// Host writes that entered the zone queues.
    pub requests_in: u64,
    /// Device requests issued from the queues.
    pub requests_out: u64,
    /// Host writes whose bytes left in more than one device request.
    pub splits: u64,
    /// Device requests carrying bytes of more than one host write.
    pub merges: u64,
    /// Bytes of host writes that waited in a queue (not issued when they arrived).
    pub bytes_held: u64,
    /// Most bytes held at once, all queues.
    pub bytes_held_max: u64,
    /// Device requests released ending on a superpage boundary (or the zone's capacity end).
    pub released_aligned: u64,
    /// Partial groups released by the hold bound.
    pub released_timeout: u64,
    /// Partial groups released by a flush or a zone management command.
    pub released_sync: u64,
    /// Partial groups released by a write not continuing the zone's queue.
    pub released_gap: u64,
    /// Zoned writes passed through as they are (crossing a zone's capacity).
    pub bypassed: u64,
    /// Sum of the delays added to host writes (arrival to the issue of their last byte), ns.
    pub added_delay_total_ns: u64,
    /// Mean delay added per host write, µs.
    pub added_delay_mean_us: f64,
    /// Largest delay added to a host write, µs.
    pub added_delay_max_us: f64,
}

impl TailorCounters {
    /// Add `o` (another namespace's IOTailor).
    pub fn merge(&mut self, o: &TailorCounters) {
        self.requests_in += o.requests_in;
        self.requests_out += o.requests_out;
        self.splits += o.splits;
        self.merges += o.merges;
        self.bytes_held += o.bytes_held;
        self.bytes_held_max = self.bytes_held_max.max(o.bytes_held_max);
        self.released_aligned += o.released_aligned;
        self.released_timeout += o.released_timeout;
        self.released_sync += o.released_sync;
        self.released_gap += o.released_gap;
        self.bypassed += o.bypassed;
        self.added_delay_total_ns += o.added_delay_total_ns;
        self.added_delay_max_us = self.added_delay_max_us.max(o.added_delay_max_us);
        self.added_delay_mean_us =
            self.added_delay_total_ns as f64 / 1e3 / self.requests_in.max(1) as f64;
    }
}

/// Why a group left its queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Release {
    Aligned,
    Timeout,
    Sync,
    Gap,
}

/// A host write in a queue, or issued and waiting for its device requests.
#[derive(Debug, Clone, Copy)]
struct Member<T> {
    tag: T,
    end: u64,
    /// Its first byte not yet issued (`end` once all are).
    next_byte: u64,
    arrived: u64,
    /// Device requests in flight carrying its bytes.
    pending: u32,
    /// Device requests that carried its bytes so far.
    pieces: u32,
    /// Next member of its zone's queue.
    next: u32,
}

/// One host write's share of a device request (a list per device request).
#[derive(Debug, Clone, Copy)]
struct Piece {
    member: u32,
    next: u32,
}

/// A zone's queue: held bytes `[start, end)` of members `head..tail` (linked).
#[derive(Debug, Clone, Copy)]
struct Zone {
    start: u64,
    end: u64,
    head: u32,
    tail: u32,
    /// Releases so far: a hold timer armed at an older generation is stale.
    gen: u32,
    /// Requests of the zone issued and not completed.
    inflight: u32,
    /// The hold bound of the partial group passed while requests were in flight.
    expired: bool,
}

/// A device request IOTailor issues: `len` bytes at `offset`; `tag` is its first host write's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Issue<T> {
    /// Hand back to [`IoTailor::completed`] when the device completes it.
    pub id: u32,
    pub offset: u64,
    pub len: u64,
    pub tag: T,
}

/// A hold timer to arm: call [`IoTailor::expire`] with `zone` and `gen` at `at_ns`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hold {
    pub zone: u32,
    pub gen: u32,
    pub at_ns: u64,
}

/// Per-zone queues of host writes tagged `T`.
pub struct IoTailor<T> {
    cfg: TailorConfig,
    zones: Vec<Zone>,
    members: Vec<Member<T>>,
    free_members: Vec<u32>,
    pieces: Vec<Piece>,
    free_piece: u32,
    /// First and last piece of each device request in flight, by id (in issue order), and
    /// its zone.
    outs: Vec<(u32, u32, u32)>,
    free_outs: Vec<u32>,
    held: u64,
    delay_max_ns: u64,
    /// Device requests issued by the last call (the caller drains it).
    pub issued: Vec<Issue<T>>,
    /// Host writes completed by the last [`IoTailor::completed`] (the caller drains it).
    pub done: Vec<T>,
    counters: TailorCounters,
}

impl<T: Copy> IoTailor<T> {
    /// Queues for `zones` zones.
    pub fn new(cfg: TailorConfig, zones: u32) -> IoTailor<T> {
        assert!(cfg.superpage > 0 && cfg.zone_capacity > 0);
        let empty = Zone {
            start: 0,
            end: 0,
            head: NIL,
            tail: NIL,
            gen: 0,
            inflight: 0,
            expired: false,
        };
        IoTailor {
            cfg,
            zones: vec![empty; zones as usize],
            members: Vec::new(),
            free_members: Vec::new(),
            pieces: Vec::new(),
            free_piece: NIL,
            outs: Vec::new(),
            free_outs: Vec::new(),
            held: 0,
            delay_max_ns: 0,
            issued: Vec::new(),
            done: Vec::new(),
            counters: TailorCounters::default(),
        }
    }

    /// The zone of byte `offset`.
    #[inline]
    pub fn zone_of(&self, offset: u64) -> u32 {
        (offset / self.cfg.zone_bytes) as u32
    }

    /// Whether a write of `len` bytes at `offset` lies within one zone's capacity (else it is
    /// passed through: see [`IoTailor::bypass`]).
    #[inline]
    pub fn fits(&self, offset: u64, len: u64) -> bool {
        let zi = self.zone_of(offset) as usize;
        let rel = offset % self.cfg.zone_bytes;
        len > 0 && zi < self.zones.len() && rel + len <= self.cfg.zone_capacity
    }

    /// A write that does not fit goes as it is; its zone's held bytes go first (order).
    pub fn bypass(&mut self, now: u64, offset: u64) {
        self.counters.bypassed += 1;
        let z = self.zone_of(offset);
        if (z as usize) < self.zones.len() {
            self.release(now, z, Release::Gap);
        }
    }

    /// A host write of `len` bytes at `offset` (it [`fits`](IoTailor::fits)) arrives at
    /// `now`: the requests it completes are pushed to `issued`; a hold timer to arm if a
    /// new partial group starts waiting.
    pub fn write(&mut self, now: u64, offset: u64, len: u64, tag: T) -> Option<Hold> {
        debug_assert!(self.fits(offset, len));
        self.counters.requests_in += 1;
        let z = self.zone_of(offset);
        let zi = z as usize;
        let was_empty = self.zones[zi].start == self.zones[zi].end;
        let gen = self.zones[zi].gen;
        if !was_empty && self.zones[zi].end != offset {
            self.release(now, z, Release::Gap);
        }
        let m = self.enqueue(zi, offset, len, now, tag);
        let zs = zi as u64 * self.cfg.zone_bytes;
        let upto = self.boundary_below(zs, self.zones[zi].end);
        while self.zones[zi].start < upto {
            let next = self.boundary_after(zs, self.zones[zi].start).min(upto);
            self.emit(now, zi, next, Release::Aligned);
        }
        let left = self.members[m as usize].end - self.members[m as usize].next_byte;
        self.counters.bytes_held += left;
        self.counters.bytes_held_max = self.counters.bytes_held_max.max(self.held);
        let zone = &self.zones[zi];
        (zone.start < zone.end && (was_empty || zone.gen != gen)).then_some(Hold {
            zone: z,
            gen: zone.gen,
            at_ns: now + self.cfg.hold_ns,
        })
    }

    /// The hold timer `gen` of zone `z` fires: its partial group, if still the same, goes
    /// now, or when the zone's requests in flight have completed ([`IoTailor::settle`]).
    pub fn expire(&mut self, now: u64, z: u32, gen: u32) {
        let zone = &mut self.zones[z as usize];
        if zone.gen != gen {
            return;
        }
        if zone.inflight > 0 {
            zone.expired = true;
        } else {
            self.release(now, z, Release::Timeout);
        }
    }

    /// After the completions of zone `z` were handled (and the writes they let the host
    /// issue arrived): an expired partial group goes once nothing of the zone is in flight.
    pub fn settle(&mut self, now: u64, z: u32) {
        let zone = self.zones[z as usize];
        if zone.inflight == 0 && zone.expired {
            self.release(now, z, Release::Timeout);
        }
    }

    /// A zone management command for zone `z`: its held bytes go first.
    pub fn sync_zone(&mut self, now: u64, z: u32) {
        if (z as usize) < self.zones.len() {
            self.release(now, z, Release::Sync);
        }
    }

    /// A flush: every zone's held bytes go first.
    pub fn sync_all(&mut self, now: u64) {
        for z in 0..self.zones.len() as u32 {
            self.release(now, z, Release::Sync);
        }
    }

    /// Device request `id` completed: host writes all of whose bytes are now done are pushed
    /// to `done`; its zone (to [`settle`](IoTailor::settle) once they are handled).
    pub fn completed(&mut self, id: u32) -> u32 {
        let (mut p, _, z) = std::mem::replace(&mut self.outs[id as usize], (NIL, NIL, NIL));
        self.free_outs.push(id);
        self.zones[z as usize].inflight -= 1;
        while p != NIL {
            let Piece { member, next } = self.pieces[p as usize];
            self.pieces[p as usize].next = self.free_piece;
            self.free_piece = p;
            let m = &mut self.members[member as usize];
            m.pending -= 1;
            if m.pending == 0 && m.next_byte == m.end {
                if m.pieces > 1 {
                    self.counters.splits += 1;
                }
                self.done.push(m.tag);
                self.free_members.push(member);
            }
            p = next;
        }
        z
    }

    /// Bytes held now, all zones.
    pub fn held_bytes(&self) -> u64 {
        self.held
    }

    /// The counters, with the delay figures filled in.
    pub fn counters(&self) -> TailorCounters {
        let mut c = self.counters.clone();
        c.added_delay_max_us = self.delay_max_ns as f64 / 1e3;
        c.merge(&TailorCounters::default());
        c
    }

    /// Append a host write to zone `zi`'s queue (starting the queue at `offset` if empty).
    fn enqueue(&mut self, zi: usize, offset: u64, len: u64, now: u64, tag: T) -> u32 {
        let mem = Member {
            tag,
            end: offset + len,
            next_byte: offset,
            arrived: now,
            pending: 0,
            pieces: 0,
            next: NIL,
        };
        let m = match self.free_members.pop() {
            Some(i) => {
                self.members[i as usize] = mem;
                i
            }
            None => {
                self.members.push(mem);
                self.members.len() as u32 - 1
            }
        };
        let z = &mut self.zones[zi];
        if z.start == z.end {
            z.start = offset;
            z.end = offset;
        }
        z.end += len;
        if z.tail == NIL {
            z.head = m;
        } else {
            self.members[z.tail as usize].next = m;
        }
        z.tail = m;
        self.held += len;
        m
    }

    /// The last boundary at or before `end` in the zone starting at `zs`.
    fn boundary_below(&self, zs: u64, end: u64) -> u64 {
        let rel = end - zs;
        if rel >= self.cfg.zone_capacity {
            return zs + self.cfg.zone_capacity;
        }
        zs + rel / self.cfg.superpage * self.cfg.superpage
    }

    /// The first boundary after `start` in the zone starting at `zs`.
    fn boundary_after(&self, zs: u64, start: u64) -> u64 {
        let sp = self.cfg.superpage;
        let next = ((start - zs) / sp + 1) * sp;
        zs + next.min(self.cfg.zone_capacity)
    }

    /// Issue zone `z`'s held bytes, if any, as one request.
    fn release(&mut self, now: u64, z: u32, why: Release) {
        let zone = self.zones[z as usize];
        if zone.start < zone.end {
            self.emit(now, z as usize, zone.end, why);
        }
    }

    /// Issue zone `zi`'s held bytes up to `upto` as one device request.
    fn emit(&mut self, now: u64, zi: usize, upto: u64, why: Release) {
        let offset = self.zones[zi].start;
        let id = match self.free_outs.pop() {
            Some(i) => i,
            None => {
                self.outs.push((NIL, NIL, NIL));
                self.outs.len() as u32 - 1
            }
        };
        self.outs[id as usize].2 = zi as u32;
        let tag = self.members[self.zones[zi].head as usize].tag;
        let mut carried = 0;
        let mut cur = self.zones[zi].head;
        while cur != NIL && self.members[cur as usize].next_byte < upto {
            self.add_piece(id, cur);
            carried += 1;
            let m = &mut self.members[cur as usize];
            m.next_byte = m.end.min(upto);
            if m.next_byte < m.end {
                break;
            }
            let delay = now - m.arrived;
            self.counters.added_delay_total_ns += delay;
            self.delay_max_ns = self.delay_max_ns.max(delay);
            cur = m.next;
        }
        let zone = &mut self.zones[zi];
        zone.head = cur;
        if cur == NIL {
            zone.tail = NIL;
        }
        zone.start = upto;
        zone.gen = zone.gen.wrapping_add(1);
        zone.inflight += 1;
        zone.expired = false;
        self.held -= upto - offset;
        let c = &mut self.counters;
        c.requests_out += 1;
        c.merges += u64::from(carried > 1);
        match why {
            Release::Aligned => c.released_aligned += 1,
            Release::Timeout => c.released_timeout += 1,
            Release::Sync => c.released_sync += 1,
            Release::Gap => c.released_gap += 1,
        }
        self.issued.push(Issue {
            id,
            offset,
            len: upto - offset,
            tag,
        });
    }

    /// Member `m` has bytes in device request `id`.
    fn add_piece(&mut self, id: u32, m: u32) {
        let piece = Piece {
            member: m,
            next: NIL,
        };
        let p = if self.free_piece != NIL {
            let p = self.free_piece;
            self.free_piece = self.pieces[p as usize].next;
            self.pieces[p as usize] = piece;
            p
        } else {
            self.pieces.push(piece);
            self.pieces.len() as u32 - 1
        };
        let out = &mut self.outs[id as usize];
        match out.1 {
            NIL => out.0 = p,
            last => self.pieces[last as usize].next = p,
        }
        self.outs[id as usize].1 = p;
        let mem = &mut self.members[m as usize];
        mem.pending += 1;
        mem.pieces += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SP: u64 = 384 << 10;

    fn tailor() -> IoTailor<u32> {
        let cfg = TailorConfig {
            superpage: SP,
            zone_bytes: 256 << 20,
            zone_capacity: 138 << 20,
            hold_ns: 1000,
        };
        IoTailor::new(cfg, 4)
    }

    fn issued(t: &mut IoTailor<u32>) -> Vec<(u64, u64, u32)> {
        t.issued
            .drain(..)
            .map(|i| (i.offset, i.len, i.tag))
            .collect()
    }

    #[test]
    fn long_write_is_split_at_superpage_boundaries() {
        let mut t = tailor();
        let hold = t.write(0, 0, 1024 << 10, 7);
        assert_eq!(issued(&mut t), vec![(0, SP, 7), (SP, SP, 7)]);
        // 256 KiB are held: a timer is armed for them.
        assert_eq!(
            hold,
            Some(Hold {
                zone: 0,
                gen: 2,
                at_ns: 1000
            })
        );
        assert_eq!(t.held_bytes(), 256 << 10);
        // The hold expires while two requests are in flight: the rest waits for them.
        t.expire(1000, 0, 2);
        assert!(t.issued.is_empty());
        for id in [0, 1] {
            assert_eq!(t.completed(id), 0);
            assert!(t.done.is_empty());
        }
        t.settle(1000, 0);
        let last = t.issued[0].id;
        assert_eq!(issued(&mut t), vec![(2 * SP, 256 << 10, 7)]);
        t.completed(last);
        assert_eq!(t.done, vec![7]);
        let c = t.counters();
        assert_eq!(
            (c.requests_in, c.requests_out, c.splits, c.merges),
            (1, 3, 1, 0)
        );
        assert_eq!((c.released_aligned, c.released_timeout), (2, 1));
        assert_eq!(c.added_delay_max_us, 1.0);
    }

    #[test]
    fn short_writes_are_grouped_into_one_superpage() {
        let mut t = tailor();
        let chunk = 128 << 10;
        assert!(t.write(0, 0, chunk, 1).is_some());
        assert!(t.write(5, chunk, chunk, 2).is_none(), "timer already armed");
        assert!(t.issued.is_empty());
        assert!(t.write(9, 2 * chunk, chunk, 3).is_none());
        assert_eq!(issued(&mut t), vec![(0, SP, 1)]);
        t.completed(0);
        assert_eq!(t.done, vec![1, 2, 3]);
        // The old timer is stale: nothing is held, nothing goes.
        t.expire(1000, 0, 0);
        assert!(t.issued.is_empty());
        let c = t.counters();
        assert_eq!((c.merges, c.splits, c.bytes_held), (1, 0, 2 * chunk));
        assert_eq!(c.added_delay_total_ns, 9 + 4);
    }

    #[test]
    fn unaligned_start_then_aligned_requests_and_the_zone_end() {
        let mut t = tailor();
        let zone1 = 256 << 20;
        // Starts 4 KiB into the zone: the first request ends at the first boundary.
        t.write(0, zone1 + 4096, SP, 1);
        assert_eq!(issued(&mut t), vec![(zone1 + 4096, SP - 4096, 1)]);
        // Writing up to the zone's capacity end releases the tail at the end.
        let cap = 138 << 20;
        let last = zone1 + cap - 8192;
        t.sync_zone(1, 1);
        issued(&mut t);
        t.write(2, last, 8192, 2);
        assert_eq!(issued(&mut t), vec![(last, 8192, 2)]);
        assert!(!t.fits(last, 3 * 4096));
        assert!(t.fits(last, 8192));
    }

    #[test]
    fn a_write_off_the_queue_and_a_flush_release_partial_groups() {
        let mut t = tailor();
        t.write(0, 0, 8192, 1);
        t.write(1, 1 << 20, 8192, 2);
        assert_eq!(issued(&mut t), vec![(0, 8192, 1)]);
        t.write(2, 256 << 20, 4096, 3);
        t.sync_all(3);
        assert_eq!(
            issued(&mut t),
            vec![(1 << 20, 8192, 2), (256 << 20, 4096, 3)]
        );
        let c = t.counters();
        assert_eq!((c.released_gap, c.released_sync), (1, 2));
        for id in 0..3 {
            t.completed(id);
        }
        assert_eq!(t.done, vec![1, 2, 3]);
        // Slots are reused.
        t.done.clear();
        t.write(4, 8192, SP - 8192, 4);
        assert_eq!(issued(&mut t), vec![(8192, SP - 8192, 4)]);
        assert_eq!(t.members.len(), 3);
    }
}
