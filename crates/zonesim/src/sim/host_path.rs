//! The host path: what a block request meets between its source and the device, in order —
//! its host submission queue and the controller's fetch (`queues.rs`: `host.queues`,
//! MCMQ §II), IOTailor's per-zone reshaping of zoned writes (`host::iotailor`, ZMS), the zone
//! write ordering (`host::order`: zone write locks and requeueing, Zoned UFS §3.3, §4.3), the
//! host scheduler in front of the device's tags (`host::sched`, `host.device_tags`) and the
//! clocks the UFS driver may have gated (`clock_gating.rs`, `power.clock_gating`) — and,
//! when the device completes it, the release of what it held (a tag, a zone lock, an IOTailor
//! request). Each stage is a pure model in `zonesim-host`; this room wires them to the device
//! and the event queue, so a new host stage is a field and a call here, not a change to the
//! engine (`engine.rs`), which only pops events.

use super::clock_gating::ClockGating;
use super::engine::Ev;
use super::queues::HostQueues;
use super::source::Source;
use crate::device::{Device, Submitted};
use crate::engine::{rng_for, EventQueue, SimTime};
use crate::host::iotailor::{Hold, IoTailor, TailorConfig, TailorCounters};
use crate::host::order::{OrderConfig, OrderCounters, ZoneWriteOrder};
use crate::host::sched::{DispatchCounters, IoPrio, PrioDispatch};
use crate::host::{HostIo, IoKind};
use crate::interface::Completion;
use crate::nand::SLOT_BYTES;
use rand::RngCore;

/// A request between the host and the device: issued, waiting in its submission queue, for its
/// zone's lock, in IOTailor or requeued.
#[derive(Debug, Clone, Copy)]
pub(super) struct Held {
    pub src: u32,
    pub io: HostIo,
    pub issued: SimTime,
    /// The zone whose write lock it holds, or NO_LOCK.
    pub zone: u32,
    /// The IOTailor request this is, or NO_OUT (a host request as issued).
    pub out: u32,
    /// It holds one of the device's tags (`host.device_tags`, host/sched.rs).
    pub tag: bool,
}

/// A request the device is working on, as its completion events carry it: what the host
/// needs to finish it (Held without the offset, which the device has taken).
#[derive(Debug, Clone, Copy)]
pub(super) struct InFlight {
    pub src: u32,
    pub kind: IoKind,
    pub issued: SimTime,
    pub bytes: u64,
    /// The zone whose write lock it holds, or NO_LOCK.
    pub zone: u32,
    /// The IOTailor request it is, or NO_OUT (a host request as issued).
    pub out: u32,
    /// It holds one of the device's tags (`host.device_tags`, host/sched.rs).
    pub tag: bool,
}

impl InFlight {
    pub fn of(h: &Held) -> InFlight {
        InFlight {
            src: h.src,
            kind: h.io.kind,
            issued: h.issued,
            bytes: h.io.len,
            zone: h.zone,
            out: h.out,
            tag: h.tag,
        }
    }

    /// Back to a host request (offset 0: the device has it) to reschedule.
    pub fn held(self) -> Held {
        Held {
            src: self.src,
            io: HostIo::new(self.kind, 0, self.bytes),
            issued: self.issued,
            zone: self.zone,
            out: self.out,
            tag: self.tag,
        }
    }
}

/// No zone lock held by a request.
pub(super) const NO_LOCK: u32 = u32::MAX;
/// Not an IOTailor request.
pub(super) const NO_OUT: u32 = u32::MAX;

impl Held {
    /// A host request of source `src` as issued at `now`.
    pub fn issued(src: u32, io: HostIo, now: SimTime) -> Held {
        Held {
            src,
            io,
            issued: now,
            zone: NO_LOCK,
            out: NO_OUT,
            tag: false,
        }
    }
}

/// Schedule the completion `c` of request `h`, or its resumption when the device parked it.
#[inline]
pub(super) fn schedule(events: &mut EventQueue<Ev>, c: Completion, h: &Held) {
    let r = InFlight::of(h);
    let ev = match c.resume {
        None => Ev::Done(r),
        Some(token) => Ev::Resume { token, r },
    };
    events.push(c.done, ev);
}

/// Where a source's requests go: its namespace, its host queue, its I/O priority.
#[derive(Debug, Clone, Copy)]
struct Route {
    ns: usize,
    queue: u32,
    prio: IoPrio,
    /// A write its zoned namespace rejects ends the run (the source does not continue on
    /// error, and its namespace is zoned).
    strict: bool,
}

/// A write a zoned namespace rejected from a source that does not continue on error: the run
/// ends with an error naming the source and the rule.
#[derive(Debug, Clone, Copy)]
pub(super) struct Rejected {
    pub src: u32,
    pub io: HostIo,
    pub ns: usize,
    pub kind: crate::interface::zone::ZoneErrorKind,
}

/// What the completion of a request released to the host.
pub(super) enum Released {
    /// The host request itself completes.
    Host(InFlight),
    /// An IOTailor request of namespace `ns` completed in zone `zone`: the host writes whose
    /// last bytes it carried complete ([`HostPath::tailored_done`]), then [`HostPath::settle`].
    Tailored { ns: usize, zone: u32 },
}

/// The host side of every request in flight: queues, IOTailor, zone write ordering, tags.
pub(super) struct HostPath {
    routes: Vec<Route>,
    /// The host submission queues (their occupancy and statistics are the sources' too).
    pub queues: HostQueues,
    /// Zone write locks and requeueing of the zoned namespaces' writes (host/order.rs), by
    /// namespace; None for a conventional namespace.
    order: Vec<Option<ZoneWriteOrder<Held>>>,
    /// Requeued requests and requests on the host CPU on their way (slots reused through
    /// `free_held`).
    held: Vec<Held>,
    free_held: Vec<u32>,
    /// IOTailor's per-zone queues of the zoned namespaces (host/iotailor.rs), by namespace;
    /// empty unless `host.iotailor` (measured run only).
    tailor: Vec<Option<IoTailor<Held>>>,
    /// The host scheduler in front of the device's tags (`host.device_tags` > 0).
    sched: Option<PrioDispatch<Held>>,
    /// The first write a zoned namespace rejected from a strict source (the run ends).
    pub rejected: Option<Rejected>,
    /// Clock gating on the dispatch path (`power.clock_gating`, measured run only); None: off.
    pub gating: Option<ClockGating>,
}

impl HostPath {
    /// The path of `sources` on `dev`; assigns each source its host queue. `seed` is the run's
    /// (the requeue draws of each namespace's zone write ordering derive from it).
    pub fn new(dev: &Device, sources: &mut [Source], seed: u64) -> HostPath {
        let mut queue_of: Vec<u32> = vec![0; sources.len()];
        let queues = HostQueues::new(&dev.cfg, &mut queue_of);
        for (s, q) in sources.iter_mut().zip(queue_of) {
            s.queue = q;
        }
        let routes = sources
            .iter()
            .map(|s| Route {
                ns: s.ns,
                queue: s.queue,
                prio: s.prio,
                strict: !s.continue_on_error && dev.zones(s.ns).is_some(),
            })
            .collect();
        let order = (0..dev.namespaces.len())
            .map(|ns| {
                let z = dev.zones(ns)?;
                let h = &dev.cfg.host;
                let cfg = OrderConfig {
                    zone_write_lock: h.zone_write_lock,
                    requeue_probability: h.requeue_probability,
                    requeue_delay_ns: SimTime::from_us(h.requeue_delay_us).ns(),
                };
                let zc = z.zone_config();
                let zone_bytes = zc.zone_size * SLOT_BYTES;
                Some(ZoneWriteOrder::new(
                    cfg,
                    zc.zones,
                    zone_bytes,
                    rng_for(seed, ns as u64).next_u64(),
                ))
            })
            .collect();
        let depth = dev.cfg.host.device_tags;
        HostPath {
            routes,
            queues,
            order,
            held: Vec::new(),
            free_held: Vec::new(),
            tailor: Vec::new(),
            sched: (depth > 0).then(|| PrioDispatch::new(depth)),
            rejected: None,
            gating: None,
        }
    }

    /// Put IOTailor (`host.iotailor`) in front of every zoned namespace.
    pub fn tailor_writes(&mut self, dev: &Device) {
        let hold_ns = SimTime::from_us(dev.cfg.host.iotailor_hold_us).ns();
        self.tailor = (0..dev.namespaces.len())
            .map(|ns| {
                let z = dev.zones(ns)?;
                let zc = z.zone_config();
                let cfg = TailorConfig {
                    superpage: z.superpage_bytes,
                    zone_bytes: zc.zone_size * SLOT_BYTES,
                    zone_capacity: zc.zone_capacity * SLOT_BYTES,
                    hold_ns,
                };
                Some(IoTailor::new(cfg, zc.zones))
            })
            .collect();
    }

    /// The ordering counters of the zoned namespaces, merged; None if nothing was requeued
    /// or waited for a lock (the report then has no `sim.ordering`).
    pub fn ordering(&self) -> Option<OrderCounters> {
        let mut c = OrderCounters::default();
        for o in self.order.iter().flatten() {
            c.dispatched += o.counters.dispatched;
            c.requeued += o.counters.requeued;
            c.lock_waits += o.counters.lock_waits;
        }
        (c.requeued + c.lock_waits > 0).then_some(c)
    }

    /// IOTailor's counters of the zoned namespaces, merged; None when it is off.
    pub fn iotailor(&self) -> Option<TailorCounters> {
        let mut all = self.tailor.iter().flatten().peekable();
        all.peek()?;
        let mut c = TailorCounters::default();
        for t in all {
            c.merge(&t.counters());
        }
        Some(c)
    }

    /// The host scheduler's counters; None without `host.device_tags`.
    pub fn dispatch(&self) -> Option<DispatchCounters> {
        self.sched.as_ref().map(|s| s.counters.clone())
    }

    /// A host request, counted in its submission queue `queue`, enters the path at `now`:
    /// fetching takes the HIL core, so it waits in its queue unless the core is free and no
    /// other command waits; otherwise it goes on at once.
    #[inline(always)]
    pub fn admit(
        &mut self,
        dev: &mut Device,
        events: &mut EventQueue<Ev>,
        now: SimTime,
        queue: u32,
        h: Held,
    ) {
        match dev.fetch_free_at(now) {
            Some(free) if free > now || self.queues.any_waiting() => {
                self.queues.wait(queue, h);
                self.schedule_fetch(events, now.max(free));
            }
            _ => self.route(dev, events, now, h),
        }
    }

    fn schedule_fetch(&mut self, events: &mut EventQueue<Ev>, at: SimTime) {
        if !self.queues.fetch_scheduled {
            self.queues.fetch_scheduled = true;
            events.push(at, Ev::Fetch);
        }
    }

    /// `Ev::Fetch`: the controller fetches the command the arbiter picks (it goes on through
    /// the zone write ordering); the next fetch when the HIL core is free again.
    pub fn on_fetch(&mut self, dev: &mut Device, events: &mut EventQueue<Ev>, now: SimTime) {
        self.queues.fetch_scheduled = false;
        let free = dev.fetch_free_at(now).unwrap_or(now);
        if free > now {
            self.schedule_fetch(events, free);
            return;
        }
        if let Some((_, h)) = self.queues.fetch() {
            self.route(dev, events, now, h);
        }
        if self.queues.any_waiting() {
            let free = dev.fetch_free_at(now).unwrap_or(now);
            self.schedule_fetch(events, free.max(now));
        }
    }

    /// `Ev::Hold`: IOTailor's hold bound for zone `zone` of namespace `ns` (generation `gen`)
    /// expires; what it releases goes on.
    pub fn on_hold(
        &mut self,
        dev: &mut Device,
        events: &mut EventQueue<Ev>,
        now: SimTime,
        (ns, zone, gen): (usize, u32, u32),
    ) {
        let t = self.tailor[ns].as_mut().expect("iotailor");
        t.expire(now.ns(), zone, gen);
        self.issue_tailored(dev, events, now, ns);
    }

    /// `Ev::Submit`: a requeued request (slot `slot` of the held requests: a zoned write of
    /// `host.requeue_probability`, or one the gated clocks held back) is dispatched again.
    pub fn on_submit(
        &mut self,
        dev: &mut Device,
        events: &mut EventQueue<Ev>,
        now: SimTime,
        slot: u32,
    ) {
        let h = self.unpark(slot);
        if let Some(g) = &mut self.gating {
            g.released();
        }
        self.leave_host(dev, events, now, h);
    }

    /// `Ev::Resume`: the device continues request `r`, parked as `token` (a read that waited
    /// for its map page).
    pub fn on_resume(
        &self,
        dev: &mut Device,
        events: &mut EventQueue<Ev>,
        now: SimTime,
        token: u32,
        r: InFlight,
    ) {
        let ns = self.routes[r.src as usize].ns;
        let c = dev.resume(now, ns, token);
        schedule(events, c, &r.held());
    }

    /// `Ev::Flash`: the flash work of request `r` is done; the firmware cores complete it.
    pub fn on_flash(
        dev: &mut Device,
        events: &mut EventQueue<Ev>,
        now: SimTime,
        token: u32,
        r: InFlight,
    ) {
        let done = dev.complete_queued(now, token);
        schedule(events, Completion::at(done), &r.held());
    }

    /// A device request through the host's zone write ordering: zoned writes wait for their
    /// zone's lock (appends need none: the device picks their LBA); the rest go at once.
    fn route(&mut self, dev: &mut Device, events: &mut EventQueue<Ev>, now: SimTime, h: Held) {
        let ns = self.routes[h.src as usize].ns;
        if h.out == NO_OUT
            && self.tailor.get(ns).is_some_and(Option::is_some)
            && self.tailor_io(dev, events, now, ns, h)
        {
            return;
        }
        self.order_io(dev, events, now, ns, h);
    }

    /// A host request through IOTailor (host/iotailor.rs): a zoned write enters its zone's
    /// queue (true: the queue owns it); a flush or zone command first releases the held
    /// bytes it orders after, then goes on (false).
    fn tailor_io(
        &mut self,
        dev: &mut Device,
        events: &mut EventQueue<Ev>,
        now: SimTime,
        ns: usize,
        h: Held,
    ) -> bool {
        let t = self.tailor[ns].as_mut().expect("iotailor");
        let io = h.io;
        let taken = match io.kind {
            IoKind::Write if t.fits(io.offset, io.len) => {
                if let Some(Hold { zone, gen, at_ns }) = t.write(now.ns(), io.offset, io.len, h) {
                    let ev = Ev::Hold {
                        ns: ns as u32,
                        zone,
                        gen,
                    };
                    events.push(SimTime(at_ns), ev);
                }
                true
            }
            IoKind::Write => {
                t.bypass(now.ns(), io.offset);
                false
            }
            IoKind::Flush => {
                t.sync_all(now.ns());
                false
            }
            IoKind::ZoneReset | IoKind::ZoneFinish | IoKind::ZoneClose => {
                let z = t.zone_of(io.offset);
                t.sync_zone(now.ns(), z);
                false
            }
            _ => false,
        };
        self.issue_tailored(dev, events, now, ns);
        taken
    }

    /// The device requests IOTailor just released, through the zone write ordering.
    fn issue_tailored(
        &mut self,
        dev: &mut Device,
        events: &mut EventQueue<Ev>,
        now: SimTime,
        ns: usize,
    ) {
        let t = self.tailor[ns].as_mut().expect("iotailor");
        let mut issued = std::mem::take(&mut t.issued);
        for e in issued.drain(..) {
            let h = Held {
                io: HostIo {
                    offset: e.offset,
                    len: e.len,
                    ..e.tag.io
                },
                issued: now,
                out: e.id,
                ..e.tag
            };
            self.order_io(dev, events, now, ns, h);
        }
        self.tailor[ns].as_mut().expect("iotailor").issued = issued;
    }

    /// A device request through the host's zone write ordering (see `route`).
    ///
    /// This and the steps after it up to the device (`reach_device`, `device_takes`) are
    /// inlined into each caller: out of line, each layer cost every request a call frame and a
    /// copy of its `Held` (cachegrind: 43 instructions per random read).
    #[inline(always)]
    fn order_io(
        &mut self,
        dev: &mut Device,
        events: &mut EventQueue<Ev>,
        now: SimTime,
        ns: usize,
        h: Held,
    ) {
        match self.zoned_write(ns, h.io) {
            Some(_) if h.io.kind == IoKind::ZoneAppend => self.dispatch_zoned(dev, events, now, h),
            // A zone reset or finish waits behind the writes already holding or waiting for
            // the zone's lock, as the kernel's zone write plugging orders them: a write issued
            // before it (at the old write pointer) lands before it, a write after it at the
            // zone start. Without the lock it goes at once.
            Some(zone) if matches!(h.io.kind, IoKind::ZoneReset | IoKind::ZoneFinish) => {
                let order = self.order[ns].as_mut().expect("zoned");
                if !order.locks() {
                    return self.submit(dev, events, now, h);
                }
                if let Some(h) = order.write(zone, Held { zone, ..h }) {
                    self.submit(dev, events, now, h);
                }
            }
            Some(zone) => {
                let order = self.order[ns].as_mut().expect("zoned");
                let h = Held {
                    zone: if order.locks() { zone } else { NO_LOCK },
                    ..h
                };
                if let Some(h) = order.write(zone, h) {
                    self.dispatch_zoned(dev, events, now, h);
                }
            }
            None => self.submit(dev, events, now, h),
        }
    }

    /// The zone of a write, append, zone reset or zone finish to a zoned namespace (they go
    /// through the host's zone write ordering), else None.
    #[inline]
    fn zoned_write(&self, ns: usize, io: HostIo) -> Option<u32> {
        if !matches!(
            io.kind,
            IoKind::Write | IoKind::ZoneAppend | IoKind::ZoneReset | IoKind::ZoneFinish
        ) {
            return None;
        }
        // A zoned namespace is one with a zone write ordering.
        Some(self.order[ns].as_ref()?.zone_of(io.offset))
    }

    /// Dispatch a zoned write or append to the device: at once, or requeued (held until the
    /// requeue delay has passed).
    fn dispatch_zoned(
        &mut self,
        dev: &mut Device,
        events: &mut EventQueue<Ev>,
        now: SimTime,
        h: Held,
    ) {
        let ns = self.routes[h.src as usize].ns;
        let delay = self.order[ns].as_mut().expect("zoned").dispatch_delay();
        if delay == 0 {
            self.submit(dev, events, now, h);
            return;
        }
        let slot = self.park(h);
        events.push(now + delay, Ev::Submit { slot });
    }

    /// Hold `h` in a slot until an event names it (a requeued write, a request on the host
    /// CPU); returns the slot.
    pub fn park(&mut self, h: Held) -> u32 {
        match self.free_held.pop() {
            Some(s) => {
                self.held[s as usize] = h;
                s
            }
            None => {
                self.held.push(h);
                self.held.len() as u32 - 1
            }
        }
    }

    /// The request held in `slot` (the slot is free again).
    pub fn unpark(&mut self, slot: u32) -> Held {
        self.free_held.push(slot);
        self.held[slot as usize]
    }

    /// The request leaves the host: to the device now, or into the host scheduler when every
    /// device tag is in use (`host.device_tags`, host/sched.rs); while the clocks are gated
    /// or ungating (`power.clock_gating`) it is held or requeued until they are on.
    #[inline(always)]
    fn submit(&mut self, dev: &mut Device, events: &mut EventQueue<Ev>, now: SimTime, h: Held) {
        if let Some(at) = self.gating.as_mut().and_then(|g| g.dispatch(now)) {
            let slot = self.park(h);
            events.push(at, Ev::Submit { slot });
            return;
        }
        self.leave_host(dev, events, now, h);
    }

    /// The request leaves the host past the clocks (see `submit`).
    #[inline(always)]
    fn leave_host(&mut self, dev: &mut Device, events: &mut EventQueue<Ev>, now: SimTime, h: Held) {
        let Some(sched) = &mut self.sched else {
            self.reach_device(dev, events, now, h, false);
            return;
        };
        let prio = self.routes[h.src as usize].prio;
        if let Some(h) = sched.admit(prio, h) {
            self.reach_device(dev, events, now, h, true);
        }
    }

    /// The request reaches the device now; its completion (or resumption) is scheduled.
    /// With the firmware model on, the cores book the whole request (device/firmware.rs): the
    /// flash part ends in an `Ev::Flash`, then the cores' back half completes it.
    #[inline(always)]
    fn reach_device(
        &mut self,
        dev: &mut Device,
        events: &mut EventQueue<Ev>,
        now: SimTime,
        h: Held,
        tag: bool,
    ) {
        let h = Held { tag, ..h };
        let Route {
            ns, queue, strict, ..
        } = self.routes[h.src as usize];
        if strict && h.out == NO_OUT && matches!(h.io.kind, IoKind::Write | IoKind::ZoneAppend) {
            let before = zone_error_counts(dev, ns);
            self.device_takes(dev, events, now, h, ns, queue);
            let after = zone_error_counts(dev, ns);
            if let Some(k) = (0..before.len()).find(|&k| after[k] != before[k]) {
                self.rejected.get_or_insert(Rejected {
                    src: h.src,
                    io: h.io,
                    ns,
                    kind: crate::interface::zone::ZoneErrorKind::ALL[k],
                });
            }
            return;
        }
        self.device_takes(dev, events, now, h, ns, queue);
    }

    /// The device takes request `h` for namespace `ns` from host queue `queue`.
    #[inline(always)]
    fn device_takes(
        &self,
        dev: &mut Device,
        events: &mut EventQueue<Ev>,
        now: SimTime,
        h: Held,
        ns: usize,
        queue: u32,
    ) {
        if dev.fw.off() {
            let c = dev.submit_deferring(now, ns, super::command(&h.io));
            schedule(events, c, &h);
            return;
        }
        match dev.submit_queued(h.issued, now, ns, queue, super::command(&h.io)) {
            Submitted::Done(c) => schedule(events, c, &h),
            Submitted::Flash { at, token, .. } => {
                let ev = Ev::Flash {
                    token,
                    r: InFlight::of(&h),
                };
                events.push(at, ev);
            }
        }
    }

    /// Request `r` completes now: its device tag, zone lock and IOTailor request are
    /// released (what waited for them goes on); what completes on the host.
    pub fn release(
        &mut self,
        dev: &mut Device,
        events: &mut EventQueue<Ev>,
        now: SimTime,
        r: InFlight,
    ) -> Released {
        let ns = self.routes[r.src as usize].ns;
        if r.tag {
            let next = self.sched.as_mut().and_then(PrioDispatch::release);
            if let Some(h) = next {
                self.reach_device(dev, events, now, h, true);
            }
        }
        if r.zone != NO_LOCK {
            if let Some(next) = self.order[ns].as_mut().and_then(|o| o.completed(r.zone)) {
                if matches!(next.io.kind, IoKind::ZoneReset | IoKind::ZoneFinish) {
                    self.submit(dev, events, now, next);
                } else {
                    self.dispatch_zoned(dev, events, now, next);
                }
            }
        }
        if r.out == NO_OUT {
            return Released::Host(r);
        }
        let zone = self.tailor[ns].as_mut().expect("iotailor").completed(r.out);
        Released::Tailored { ns, zone }
    }

    /// The host writes an IOTailor request of namespace `ns` completed (give the list back
    /// with [`HostPath::settle`], which reuses it).
    pub fn tailored_done(&mut self, ns: usize) -> Vec<Held> {
        std::mem::take(&mut self.tailor[ns].as_mut().expect("iotailor").done)
    }

    /// After the host writes of an IOTailor request completed: the zone's queue settles and
    /// what it releases goes on.
    pub fn settle(
        &mut self,
        dev: &mut Device,
        events: &mut EventQueue<Ev>,
        now: SimTime,
        (ns, zone): (usize, u32),
        done: Vec<Held>,
    ) {
        let t = self.tailor[ns].as_mut().expect("iotailor");
        t.done = done;
        t.settle(now.ns(), zone);
        self.issue_tailored(dev, events, now, ns);
    }
}

/// The zone error counts of namespace `ns` by kind (zeros for a conventional namespace).
fn zone_error_counts(dev: &Device, ns: usize) -> [u64; 7] {
    dev.zones(ns).map_or([0; 7], |z| z.errors.counts)
}
