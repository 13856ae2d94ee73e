//! The per-job I/O generator. Rules are documented in the parent module; this file holds the
//! mechanics. `JobGen::next` does not allocate: all state is sized in `JobGen::new`.

use rand::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use super::dist::{below, mix64, Perm, Sampler, BATCH};
use super::{Distribution, JobSpec, RwMode, SizeSpec, ZoneMode};
use crate::{HostIo, IoKind};
use zonesim_core::error::{Error, Result};

/// What a job runs against: a namespace of `capacity_bytes`, zoned if `zone` is set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Target {
    pub capacity_bytes: u64,
    pub zone: Option<ZoneGeom>,
}

/// Zone geometry of a zoned namespace; `capacity_bytes <= size_bytes`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ZoneGeom {
    pub size_bytes: u64,
    pub capacity_bytes: u64,
}

/// The most requests a job without `runtime` may ask for (2^32, about an hour of simulation
/// at a million requests per wall second): more is a mistake, not a workload.
pub const MAX_JOB_IOS: u64 = 1 << 32;

const READ: usize = 0;
const WRITE: usize = 1;
const TRIM: usize = 2;
const KIND: [IoKind; 3] = [IoKind::Read, IoKind::Write, IoKind::Trim];
const NOT_OPEN: u32 = u32::MAX;

/// Generates the I/O of one job clone. See the module doc for the rules.
#[derive(Debug, Clone)]
pub struct JobGen {
    rng: Xoshiro256PlusPlus,
    rw: RwMode,
    bs: u64,
    /// Region start and length in bytes (whole zones in zoned mode).
    start: u64,
    len: u64,
    /// Conventional: blocks of `bs` in the region.
    nblocks: u64,
    read_pct: u64,
    /// Block picker (conventional) or zone picker (zoned) of random jobs.
    sampler: Sampler,
    /// Uniform random jobs covering each block once per pass (fio's random map).
    random_map: bool,
    map_key: u64,
    map: [MapCursor; 3],
    /// Conventional sequential position per direction, in blocks.
    seq: [u64; 3],
    budget_bytes: u64,
    done_bytes: u64,
    budget_ios: u64,
    done_ios: u64,
    fsync: u64,
    writes_since_flush: u64,
    out: Queue,
    zbd: Option<Zbd>,
    /// `write_hint` code carried on every write.
    hint: u8,
    /// What the job's writes are sent as: writes, zone appends (`zone_append=1`) or in-place
    /// updates (`ipu=1`).
    write_kind: IoKind,
}

#[derive(Debug, Clone)]
struct MapCursor {
    perm: Perm,
    /// Index of `ahead[0]` in the pass.
    base: u64,
    pass: u64,
    /// `perm.apply(base + i)` for i < `filled`, computed a batch at a time; `ahead[pos]` is the
    /// block this cursor gives next, known in advance so the engine can prefetch its map entry
    /// ([`JobGen::upcoming`]). The sequence is that of one `apply` per block.
    ahead: [u64; BATCH],
    pos: u8,
    filled: u8,
}

impl MapCursor {
    fn new(nblocks: u64, key: u64, pass: u64) -> MapCursor {
        let mut c = MapCursor {
            perm: Perm::new(nblocks, key),
            base: 0,
            pass,
            ahead: [0; BATCH],
            pos: 0,
            filled: 0,
        };
        c.fill(nblocks);
        c
    }

    /// Compute the batch starting at `base`.
    fn fill(&mut self, nblocks: u64) {
        let n = (nblocks - self.base).min(BATCH as u64) as usize;
        self.perm.apply_batch(self.base, &mut self.ahead[..n]);
        self.pos = 0;
        self.filled = n as u8;
    }

    /// The block [`MapCursor::take`] gives next.
    #[inline]
    fn next(&self) -> u64 {
        self.ahead[self.pos as usize]
    }

    /// The next block of this direction's pass; a new permutation starts each pass.
    #[inline]
    fn take(&mut self, nblocks: u64, map_key: u64, dir: usize) -> u64 {
        let b = self.next();
        self.pos += 1;
        if self.pos == self.filled {
            self.base += self.filled as u64;
            if self.base == nblocks {
                *self = MapCursor::new(
                    nblocks,
                    pass_key(map_key, dir, self.pass + 1),
                    self.pass + 1,
                );
            } else {
                self.fill(nblocks);
            }
        }
        b
    }
}

/// Up to three requests produced by one step (reset, the I/O, flush).
#[derive(Debug, Clone)]
struct Queue {
    items: [HostIo; 3],
    len: u8,
    pos: u8,
}

impl Queue {
    fn push(&mut self, io: HostIo) {
        self.items[self.len as usize] = io;
        self.len += 1;
    }
    fn pop(&mut self) -> Option<HostIo> {
        (self.pos < self.len).then(|| {
            self.pos += 1;
            self.items[self.pos as usize - 1]
        })
    }
}

/// Zoned-mode state: write pointers and the job's open-zone set.
#[derive(Debug, Clone)]
struct Zbd {
    start: u64,
    zone_size: u64,
    cap: u64,
    nzones: u64,
    /// Written bytes per zone of the region.
    wp: Vec<u64>,
    /// Open set (zone indices) and each zone's position in it (`NOT_OPEN` if absent).
    open: Vec<u32>,
    slot: Vec<u32>,
    /// 0 = no limit.
    max_open: usize,
    seq_w: u64,
    seq_r_zone: u64,
    seq_r_off: u64,
    /// Zones fio does not use: READ_ONLY and OFFLINE at the job's start (fio's zone report
    /// treats both as offline, "don't use!", with the write pointer at the zone start: no
    /// writes, resets or reads). Empty: every zone is usable.
    off: Vec<bool>,
    /// Sum of `wp` and the number of zones with `wp > 0`.
    valid: u64,
    nonempty: u64,
    /// fio's zone_reset_threshold (in bytes) and 1/zone_reset_frequency (0 = never).
    reset_at: u64,
    reset_every: u32,
    write_cnt: u32,
}

impl JobGen {
    /// Resolves the job's region against `target` and prepares clone `clone_index` of it.
    /// The random stream depends on `seed` and `clone_index`; the zipf/pareto hot set on `seed`
    /// only. Errors (`Error::Usage`, naming the job) when the region is empty or outside the
    /// target, or the options need a zoned target that is not there.
    pub fn new(spec: &JobSpec, target: &Target, seed: u64, clone_index: u32) -> Result<JobGen> {
        let usage = |msg: String| Error::Usage(format!("job '{}': {msg}", spec.name));
        let zoned = spec.zonemode == ZoneMode::Zbd;
        let capacity = target.capacity_bytes;
        let bs = spec.bs;
        if bs == 0 {
            return Err(usage("bs must be positive".into()));
        }
        if let Some(z) = target.zone {
            if z.size_bytes == 0 || z.capacity_bytes == 0 || z.capacity_bytes > z.size_bytes {
                return Err(usage(format!(
                    "invalid zone geometry: size {} capacity {} (need 0 < capacity <= size)",
                    z.size_bytes, z.capacity_bytes
                )));
            }
        }
        if zoned && target.zone.is_none() {
            return Err(usage("zonemode=zbd needs a zoned namespace".into()));
        }
        if zoned && spec.rw.is_trim() {
            return Err(usage(
                "rw=trim/randtrim is not supported with zonemode=zbd".into(),
            ));
        }
        let zone_bytes = |what: &str, n: u64| -> Result<u64> {
            let z = target
                .zone
                .ok_or_else(|| usage(format!("{what}={n}z needs a zoned namespace")))?;
            n.checked_mul(z.size_bytes)
                .ok_or_else(|| usage(format!("{what}={n}z is too large")))
        };
        let resolve = |what: &str, s: SizeSpec| -> Result<u64> {
            match s {
                SizeSpec::Bytes(b) => Ok(b),
                SizeSpec::Percent(p) => {
                    let b = (capacity as f64 * p / 100.0) as u64;
                    Ok(if zoned { b } else { b / bs * bs })
                }
                SizeSpec::Zones(n) => zone_bytes(what, n),
            }
        };
        let offset = resolve("offset", spec.offset)?;
        if offset >= capacity {
            return Err(usage(format!(
                "offset {offset} is at or beyond the namespace capacity of {capacity} bytes"
            )));
        }
        let size = match spec.size {
            Some(s) => resolve("size", s)?,
            None => capacity - offset,
        };
        let end = match offset.checked_add(size) {
            Some(e) if e <= capacity => e,
            _ => {
                return Err(usage(format!(
                    "offset {offset} + size {size} exceeds the namespace capacity of {capacity} \
                     bytes"
                )))
            }
        };

        let (start, len, data_per_pass, zbd) = if zoned {
            let g = target.zone.expect("checked above");
            let zs = g.size_bytes;
            let start = offset.div_ceil(zs) * zs;
            let zend = end / zs * zs;
            if zend <= start {
                return Err(usage(format!(
                    "region [{offset}, {end}) holds no whole zone of {zs} bytes"
                )));
            }
            if bs > g.capacity_bytes {
                return Err(usage(format!(
                    "bs {bs} exceeds the zone capacity of {} bytes",
                    g.capacity_bytes
                )));
            }
            let nzones = (zend - start) / zs;
            let data = nzones * g.capacity_bytes;
            let max_open = (spec.max_open_zones as u64).min(nzones) as usize;
            let reset_every = if spec.zone_reset_frequency > 0.0 {
                (1.0 / spec.zone_reset_frequency).min(u32::MAX as f64) as u32
            } else {
                0
            };
            let zbd = Zbd {
                start,
                zone_size: zs,
                cap: g.capacity_bytes,
                nzones,
                wp: vec![0; nzones as usize],
                open: Vec::with_capacity(max_open),
                slot: vec![NOT_OPEN; if max_open > 0 { nzones as usize } else { 0 }],
                max_open,
                seq_w: 0,
                seq_r_zone: 0,
                seq_r_off: 0,
                off: Vec::new(),
                valid: 0,
                nonempty: 0,
                reset_at: (spec.zone_reset_threshold * data as f64).ceil() as u64,
                reset_every,
                write_cnt: reset_every,
            };
            (start, zend - start, data, Some(zbd))
        } else {
            let len = size / bs * bs;
            if len == 0 {
                return Err(usage(format!(
                    "region of {size} bytes at offset {offset} holds no {bs}-byte block"
                )));
            }
            (offset, len, len, None)
        };

        let budget_bytes = if spec.time_based {
            u64::MAX
        } else {
            match spec.io_size {
                Some(SizeSpec::Bytes(b)) => b,
                Some(SizeSpec::Zones(n)) => match target.zone {
                    Some(g) if zoned => n.saturating_mul(g.capacity_bytes),
                    _ => zone_bytes("io_size", n)?,
                },
                Some(SizeSpec::Percent(p)) => (capacity as f64 * p / 100.0) as u64,
                None => data_per_pass.saturating_mul(spec.loops),
            }
        };

        if !spec.time_based && spec.runtime_ns.is_none() {
            // A byte budget of many thousand passes (loops=2^64-1, io_size=1p on a small
            // device) is legal fio but would run for days: bounded unless a runtime ends it.
            let ios = (budget_bytes / bs).min(spec.number_ios.unwrap_or(u64::MAX));
            if ios > MAX_JOB_IOS {
                return Err(usage(format!(
                    "io_size or size x loops asks for {ios} requests of {bs} bytes, more than the {MAX_JOB_IOS} a job may issue without a runtime; lower io_size or loops, or set number_ios or runtime"
                )));
            }
        }
        let nblocks = len / bs;
        let domain = match &zbd {
            Some(z) => z.nzones,
            None => nblocks,
        };
        let stream = mix64(seed ^ mix64(0x636c_6f6e_6500_0000 ^ clone_index as u64));
        let sampler = if spec.rw.is_random() {
            Sampler::new(spec.distribution, domain, mix64(seed ^ 0x686f_7473_6574))
        } else {
            Sampler::new(Distribution::Uniform, domain, 0)
        };
        let random_map = spec.rw.is_random()
            && !zoned
            && !spec.norandommap
            && spec.distribution == Distribution::Uniform;
        let map_key = mix64(stream ^ 0x6d61_7000);
        let cursor = |dir: usize| MapCursor::new(nblocks, pass_key(map_key, dir, 0), 0);
        Ok(JobGen {
            rng: Xoshiro256PlusPlus::seed_from_u64(stream),
            rw: spec.rw,
            bs,
            start,
            len,
            nblocks,
            read_pct: spec.rwmixread as u64,
            sampler,
            random_map,
            map_key,
            map: [cursor(READ), cursor(WRITE), cursor(TRIM)],
            seq: [0; 3],
            budget_bytes,
            done_bytes: 0,
            budget_ios: spec.number_ios.unwrap_or(u64::MAX),
            done_ios: 0,
            fsync: spec.fsync,
            writes_since_flush: 0,
            out: Queue {
                items: [HostIo::new(IoKind::Flush, 0, 0); 3],
                len: 0,
                pos: 0,
            },
            zbd,
            hint: spec.write_hint.code(),
            write_kind: if spec.zone_append {
                IoKind::ZoneAppend
            } else if spec.ipu {
                IoKind::InPlace
            } else {
                IoKind::Write
            },
        })
    }

    /// The fraction of the job's request or byte budget issued (0..=1), whichever ends it
    /// first; None when neither bounds it (a time-based job: its runtime does).
    pub fn progress(&self) -> Option<f64> {
        let frac = |done: u64, budget: u64| {
            (budget != u64::MAX).then(|| done as f64 / budget.max(1) as f64)
        };
        match (
            frac(self.done_ios, self.budget_ios),
            frac(self.done_bytes, self.budget_bytes),
        ) {
            (Some(a), Some(b)) => Some(a.max(b).min(1.0)),
            (a, b) => a.or(b).map(|f| f.min(1.0)),
        }
    }

    /// The job's region as (start, length) in bytes.
    pub fn region(&self) -> (u64, u64) {
        (self.start, self.len)
    }

    /// Zoned mode: the generator's view of written bytes per zone of the region.
    pub fn zone_write_pointers(&self) -> Option<&[u64]> {
        self.zbd.as_ref().map(|z| z.wp.as_slice())
    }

    /// Zoned mode: sets the written bytes of the region's zones (`wps[i]` for its i-th zone,
    /// clamped to the zone capacity; entries beyond the region are ignored, missing ones are left
    /// as they are), e.g. after preconditioning. Partly written zones seed the open-zone set, in
    /// zone order, up to `max_open_zones`. No effect in conventional mode.
    pub fn set_zone_write_pointers(&mut self, wps: &[u64]) {
        let Some(z) = &mut self.zbd else { return };
        for (i, (w, &v)) in z.wp.iter_mut().zip(wps).enumerate() {
            // A zone fio does not use reads as empty.
            *w = if z.off.get(i).copied().unwrap_or(false) {
                0
            } else {
                v.min(z.cap)
            };
        }
        z.valid = z.wp.iter().sum();
        z.nonempty = z.wp.iter().filter(|&&w| w > 0).count() as u64;
        z.open.clear();
        z.slot.iter_mut().for_each(|s| *s = NOT_OPEN);
        if z.max_open > 0 {
            for i in 0..z.nzones {
                let w = z.wp[i as usize];
                if z.open.len() < z.max_open && w > 0 && w < z.cap {
                    z.add_open(i);
                }
            }
        }
    }

    /// The next request, or `None` when the job's budget is spent (or, for a read-only zoned
    /// job, when its region holds no data).
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> Option<HostIo> {
        if let Some(io) = self.out.pop() {
            return Some(io);
        }
        if self.done_bytes >= self.budget_bytes || self.done_ios >= self.budget_ios {
            return None;
        }
        self.out.len = 0;
        self.out.pos = 0;
        let dir = draw_dir(self.rw, self.read_pct, &mut self.rng);
        let mut io = if self.zbd.is_some() {
            self.zoned_io(dir)?
        } else {
            self.conventional_io(dir)
        };
        let write = io.kind == IoKind::Write;
        if write {
            io.hint = self.hint;
            io.kind = self.write_kind;
        }
        self.out.push(io);
        self.done_bytes += io.len;
        self.done_ios += 1;
        if write && self.fsync > 0 {
            self.writes_since_flush += 1;
            if self.writes_since_flush == self.fsync {
                self.writes_since_flush = 0;
                self.out.push(HostIo::new(IoKind::Flush, 0, 0));
            }
        }
        self.out.pop()
    }

    /// Byte offsets this job may request next, known before it draws them: with fio's random
    /// map the next block of each direction is fixed in advance; without it (`norandommap`,
    /// uniform) the next draw is computed on a copy of the generator, which the draw itself
    /// then repeats. The engine prefetches their map entries (a host-memory hint; nothing in
    /// the model changes, and a wrong guess only costs the prefetch).
    #[inline]
    pub fn upcoming(&self, mut f: impl FnMut(u64)) {
        if !self.random_map {
            let uniform = matches!(self.sampler, Sampler::Uniform { .. });
            if uniform && self.zbd.is_none() && self.rw.is_random() {
                // The draws of `next`: the direction (every direction draws its block alike),
                // then the block.
                let mut rng = self.rng.clone();
                draw_dir(self.rw, self.read_pct, &mut rng);
                f(self.start + self.sampler.sample(&mut rng) * self.bs);
            }
            return;
        }
        let dirs: &[usize] = match self.rw {
            RwMode::RandRead => &[READ],
            RwMode::RandWrite => &[WRITE],
            RwMode::RandTrim => &[TRIM],
            RwMode::RandRw => &[READ, WRITE],
            _ => &[],
        };
        for &d in dirs {
            f(self.start + self.map[d].next() * self.bs);
        }
    }

    fn conventional_io(&mut self, dir: usize) -> HostIo {
        let block = if !self.rw.is_random() {
            let b = self.seq[dir];
            self.seq[dir] = if b + 1 == self.nblocks { 0 } else { b + 1 };
            b
        } else if self.random_map {
            self.map[dir].take(self.nblocks, self.map_key, dir)
        } else {
            self.sampler.sample(&mut self.rng)
        };
        HostIo::new(KIND[dir], self.start + block * self.bs, self.bs)
    }

    /// Zoned mode: the zones of the region fio does not use (`off[i]` for its i-th zone: the
    /// device reported it READ_ONLY or OFFLINE when the job started); they hold nothing the
    /// job reads and are never written or reset: a write that picks one goes to the next
    /// usable zone. No effect in conventional mode or when every zone is usable.
    pub fn set_unusable_zones(&mut self, off: &[bool]) {
        let Some(z) = &mut self.zbd else { return };
        if !off.iter().take(z.nzones as usize).any(|&o| o) {
            return;
        }
        z.off = (0..z.nzones as usize)
            .map(|i| off.get(i).copied().unwrap_or(false))
            .collect();
        for i in 0..z.nzones {
            if z.off[i as usize] {
                z.close(i);
                z.valid -= z.wp[i as usize];
                z.nonempty -= (z.wp[i as usize] > 0) as u64;
                z.wp[i as usize] = 0;
            }
        }
        z.seq_w = z.usable_from(z.seq_w);
    }

    fn zoned_io(&mut self, dir: usize) -> Option<HostIo> {
        let random = self.rw.is_random();
        let z = self.zbd.as_mut().expect("zoned");
        if dir == READ {
            if let Some(io) = z.read(&mut self.rng, &self.sampler, random, self.bs) {
                return Some(io);
            }
            if !self.rw.has_writes() {
                return None;
            }
        }
        Some(z.write(&mut self.rng, &self.sampler, random, self.bs, &mut self.out))
    }
}

/// The direction of a job's next request: fixed by `rw`, or drawn (`read_pct` % reads) for a
/// mixed job. [`JobGen::next`] draws it, [`JobGen::upcoming`] repeats the draw on a copy.
#[inline]
fn draw_dir(rw: RwMode, read_pct: u64, rng: &mut Xoshiro256PlusPlus) -> usize {
    match rw {
        RwMode::Read | RwMode::RandRead => READ,
        RwMode::Write | RwMode::RandWrite => WRITE,
        RwMode::Trim | RwMode::RandTrim => TRIM,
        RwMode::ReadWrite | RwMode::RandRw => {
            if below(rng, 100) < read_pct {
                READ
            } else {
                WRITE
            }
        }
    }
}

fn pass_key(key: u64, dir: usize, pass: u64) -> u64 {
    mix64(key ^ mix64(pass.wrapping_mul(3).wrapping_add(dir as u64)))
}

impl Zbd {
    fn zone_start(&self, z: u64) -> u64 {
        self.start + z * self.zone_size
    }

    /// `z`, or the first usable zone after it (cyclically); `z` itself when none is usable
    /// (the device then refuses the write, as it would fio's).
    fn usable_from(&self, z: u64) -> u64 {
        if self.off.is_empty() {
            return z;
        }
        (0..self.nzones)
            .map(|k| (z + k) % self.nzones)
            .find(|&c| !self.off[c as usize])
            .unwrap_or(z)
    }

    fn add_open(&mut self, z: u64) {
        self.slot[z as usize] = self.open.len() as u32;
        self.open.push(z as u32);
    }

    fn close(&mut self, z: u64) {
        if self.max_open == 0 {
            return;
        }
        let i = self.slot[z as usize];
        if i == NOT_OPEN {
            return;
        }
        self.open.swap_remove(i as usize);
        if let Some(&moved) = self.open.get(i as usize) {
            self.slot[moved as usize] = i;
        }
        self.slot[z as usize] = NOT_OPEN;
    }

    /// The zone a random write picked as `pick` goes to, under the open-zone limit.
    fn admit_random(&mut self, pick: u64) -> u64 {
        if self.max_open == 0 || self.slot[pick as usize] != NOT_OPEN {
            return pick;
        }
        if self.open.len() < self.max_open {
            self.add_open(pick);
            return pick;
        }
        self.open[(pick % self.open.len() as u64) as usize] as u64
    }

    /// Sequential writes always use the cursor zone; it replaces the oldest member if the set is
    /// full.
    fn admit_seq(&mut self, z: u64) {
        if self.max_open == 0 || self.slot[z as usize] != NOT_OPEN {
            return;
        }
        if self.open.len() == self.max_open {
            let victim = self.open[0] as u64;
            self.close(victim);
        }
        self.add_open(z);
    }

    fn write<R: RngCore>(
        &mut self,
        rng: &mut R,
        sampler: &Sampler,
        random: bool,
        bs: u64,
        out: &mut Queue,
    ) -> HostIo {
        let z = if random {
            let pick = self.usable_from(sampler.sample(rng));
            self.admit_random(pick)
        } else {
            let z = self.seq_w;
            self.admit_seq(z);
            z
        };
        let zi = z as usize;
        let mut reset = self.wp[zi] >= self.cap;
        if self.reset_every > 0 && self.valid >= self.reset_at {
            self.write_cnt -= 1;
            if self.write_cnt == 0 {
                self.write_cnt = self.reset_every;
                reset |= self.wp[zi] > 0;
            }
        }
        if reset {
            self.valid -= self.wp[zi];
            self.nonempty -= 1;
            self.wp[zi] = 0;
            out.push(HostIo::new(IoKind::ZoneReset, self.zone_start(z), 0));
        }
        let w = self.wp[zi];
        let len = bs.min(self.cap - w);
        if w == 0 {
            self.nonempty += 1;
        }
        self.wp[zi] = w + len;
        self.valid += len;
        if w + len == self.cap {
            self.close(z);
            if !random {
                self.seq_w = self.usable_from(if z + 1 == self.nzones { 0 } else { z + 1 });
            }
        }
        HostIo::new(IoKind::Write, self.zone_start(z) + w, len)
    }

    /// A read below the write pointers, or `None` if the region holds no data.
    fn read<R: RngCore>(
        &mut self,
        rng: &mut R,
        sampler: &Sampler,
        random: bool,
        bs: u64,
    ) -> Option<HostIo> {
        if self.nonempty == 0 {
            return None;
        }
        let (z, off) = if random {
            let mut z = sampler.sample(rng);
            while self.wp[z as usize] == 0 {
                z = if z + 1 == self.nzones { 0 } else { z + 1 };
            }
            let blocks = self.wp[z as usize].div_ceil(bs);
            (z, below(rng, blocks) * bs)
        } else {
            while self.seq_r_off >= self.wp[self.seq_r_zone as usize] {
                self.seq_r_zone = if self.seq_r_zone + 1 == self.nzones {
                    0
                } else {
                    self.seq_r_zone + 1
                };
                self.seq_r_off = 0;
            }
            (self.seq_r_zone, self.seq_r_off)
        };
        let len = bs.min(self.wp[z as usize] - off);
        if !random {
            self.seq_r_off += len;
        }
        Some(HostIo::new(IoKind::Read, self.zone_start(z) + off, len))
    }
}

#[cfg(test)]
mod tests;
