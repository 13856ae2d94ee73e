//! The per-job I/O generator. Rules are documented in the parent module; this file holds the
//! mechanics. `JobGen::next` does not allocate: all state is sized in `JobGen::new`.

use rand::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use super::dist::{below, mix64, Perm, Sampler, BATCH};
use super::{Distribution, JobSpec, RwMode, SizeSpec, ZoneMode};
use crate::error::{Error, Result};
use crate::host::{HostIo, IoKind};

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
        for (w, &v) in z.wp.iter_mut().zip(wps) {
            *w = v.min(z.cap);
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
        let dir = match self.rw {
            RwMode::Read | RwMode::RandRead => READ,
            RwMode::Write | RwMode::RandWrite => WRITE,
            RwMode::Trim | RwMode::RandTrim => TRIM,
            RwMode::ReadWrite | RwMode::RandRw => {
                if below(&mut self.rng, 100) < self.read_pct {
                    READ
                } else {
                    WRITE
                }
            }
        };
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
    /// map the next block of each direction is fixed in advance. The engine prefetches their
    /// map entries (a host-memory hint; nothing in the model changes).
    #[inline]
    pub fn upcoming(&self, mut f: impl FnMut(u64)) {
        if !self.random_map {
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

fn pass_key(key: u64, dir: usize, pass: u64) -> u64 {
    mix64(key ^ mix64(pass.wrapping_mul(3).wrapping_add(dir as u64)))
}

impl Zbd {
    fn zone_start(&self, z: u64) -> u64 {
        self.start + z * self.zone_size
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
            let pick = sampler.sample(rng);
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
                self.seq_w = if z + 1 == self.nzones { 0 } else { z + 1 };
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
mod tests {
    use super::super::{default_job, dist::zeta};
    use super::*;
    use proptest::prelude::*;

    const MIB: u64 = 1 << 20;

    fn job(rw: RwMode) -> JobSpec {
        let mut j = default_job();
        j.name = "t".into();
        j.rw = rw;
        j
    }

    fn conv(cap: u64) -> Target {
        Target {
            capacity_bytes: cap,
            zone: None,
        }
    }

    fn zoned(nzones: u64, size: u64, cap: u64) -> Target {
        Target {
            capacity_bytes: nzones * size,
            zone: Some(ZoneGeom {
                size_bytes: size,
                capacity_bytes: cap,
            }),
        }
    }

    fn drain(g: &mut JobGen, max: usize) -> Vec<HostIo> {
        let mut v = Vec::new();
        while let Some(io) = g.next() {
            v.push(io);
            assert!(v.len() <= max, "generator did not stop");
        }
        v
    }

    /// Audit H3, H4: a practically endless byte budget is an error naming the job, unless
    /// number_ios or a runtime ends the job.
    #[test]
    fn endless_budgets_are_bounded() {
        let mut j = job(RwMode::RandWrite);
        j.name = "job".into();
        j.size = Some(SizeSpec::Bytes(4 * MIB));
        j.loops = u64::MAX;
        let e = JobGen::new(&j, &conv(128 * MIB), 1, 0)
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("job 'job': io_size or size x loops asks for 4503599627370495 requests of 4096 bytes, more than the 4294967296"),
            "{e}"
        );
        j.loops = 1;
        j.io_size = Some(SizeSpec::Bytes(1 << 50));
        assert!(JobGen::new(&j, &conv(128 * MIB), 1, 0).is_err());
        // At the bound, or ended by number_ios or a runtime: accepted.
        j.io_size = Some(SizeSpec::Bytes(MAX_JOB_IOS * 4096));
        JobGen::new(&j, &conv(128 * MIB), 1, 0).unwrap();
        j.io_size = Some(SizeSpec::Bytes(1 << 50));
        j.number_ios = Some(1000);
        JobGen::new(&j, &conv(128 * MIB), 1, 0).unwrap();
        j.number_ios = None;
        j.runtime_ns = Some(1_000_000_000);
        JobGen::new(&j, &conv(128 * MIB), 1, 0).unwrap();
    }

    #[test]
    fn sequential_wraps_and_budget_counts() {
        let mut j = job(RwMode::Write);
        j.offset = SizeSpec::Bytes(MIB);
        j.size = Some(SizeSpec::Bytes(64 * 1024));
        j.loops = 3;
        let mut g = JobGen::new(&j, &conv(16 * MIB), 1, 0).unwrap();
        assert_eq!(g.region(), (MIB, 65536));
        let ios = drain(&mut g, 100);
        assert_eq!(ios.len(), 48);
        for (i, io) in ios.iter().enumerate() {
            assert_eq!(
                *io,
                HostIo::new(IoKind::Write, MIB + (i as u64 % 16) * 4096, 4096)
            );
        }
        assert_eq!(g.next(), None);

        // io_size overrides size × loops; number_ios stops earlier but never extends.
        j.io_size = Some(SizeSpec::Bytes(40 * 4096));
        let mut g = JobGen::new(&j, &conv(16 * MIB), 1, 0).unwrap();
        assert_eq!(drain(&mut g, 100).len(), 40);
        j.number_ios = Some(7);
        let mut g = JobGen::new(&j, &conv(16 * MIB), 1, 0).unwrap();
        assert_eq!(drain(&mut g, 100).len(), 7);
        j.number_ios = Some(1000);
        let mut g = JobGen::new(&j, &conv(16 * MIB), 1, 0).unwrap();
        assert_eq!(drain(&mut g, 2000).len(), 40);

        // time_based never ends on its own.
        j.time_based = true;
        j.number_ios = None;
        let mut g = JobGen::new(&j, &conv(16 * MIB), 1, 0).unwrap();
        assert!((0..10_000).all(|_| g.next().is_some()));
    }

    #[test]
    fn mixed_sequential_keeps_a_position_per_direction() {
        let mut j = job(RwMode::ReadWrite);
        j.size = Some(SizeSpec::Bytes(1 << 30));
        let mut g = JobGen::new(&j, &conv(1 << 30), 5, 0).unwrap();
        let (mut r, mut w) = (0, 0);
        for _ in 0..1000 {
            let io = g.next().unwrap();
            let pos = match io.kind {
                IoKind::Read => &mut r,
                IoKind::Write => &mut w,
                k => panic!("{k:?}"),
            };
            assert_eq!(io.offset, *pos);
            *pos += 4096;
        }
        assert!(r > 0 && w > 0);
    }

    #[test]
    fn rwmixread_ratio() {
        for pct in [0u32, 30, 50, 90, 100] {
            let mut j = job(RwMode::RandRw);
            j.rwmixread = pct;
            let mut g = JobGen::new(&j, &conv(1 << 30), 9, 0).unwrap();
            let n = 100_000;
            let reads = (0..n)
                .filter(|_| g.next().unwrap().kind == IoKind::Read)
                .count();
            let frac = reads as f64 / n as f64;
            assert!((frac - pct as f64 / 100.0).abs() < 0.01, "{pct}: {frac}");
        }
    }

    #[test]
    fn rwmixwrite_via_parser() {
        let jobs = super::super::parse_job_file("[j]\nrw=randrw\nrwmixwrite=80\n", "t").unwrap();
        let mut g = JobGen::new(&jobs[0], &conv(1 << 30), 9, 0).unwrap();
        let writes = (0..100_000)
            .filter(|_| g.next().unwrap().kind == IoKind::Write)
            .count();
        assert!((writes as f64 / 100_000.0 - 0.8).abs() < 0.01);
    }

    #[test]
    fn fsync_cadence() {
        let mut j = job(RwMode::RandRw);
        j.fsync = 4;
        j.number_ios = Some(1000);
        let mut g = JobGen::new(&j, &conv(1 << 30), 3, 0).unwrap();
        let ios = drain(&mut g, 5000);
        let mut writes = 0;
        let mut flushes = 0;
        for (i, io) in ios.iter().enumerate() {
            match io.kind {
                IoKind::Write => writes += 1,
                IoKind::Flush => {
                    flushes += 1;
                    assert_eq!((io.offset, io.len), (0, 0));
                    assert_eq!(writes % 4, 0, "flush after write {writes}");
                    assert_eq!(ios[i - 1].kind, IoKind::Write);
                }
                _ => {}
            }
        }
        // Flushes do not count against number_ios.
        assert_eq!(ios.len() - flushes, 1000);
        assert_eq!(flushes, writes / 4);
    }

    #[test]
    fn trims() {
        let mut j = job(RwMode::RandTrim);
        j.size = Some(SizeSpec::Bytes(MIB));
        let mut g = JobGen::new(&j, &conv(MIB), 3, 0).unwrap();
        let ios = drain(&mut g, 1000);
        assert_eq!(ios.len(), 256);
        assert!(ios
            .iter()
            .all(|io| io.kind == IoKind::Trim && io.len == 4096));
        let mut j = job(RwMode::Trim);
        j.bs = 65536;
        let mut g = JobGen::new(&j, &conv(MIB), 3, 0).unwrap();
        assert_eq!(g.next(), Some(HostIo::new(IoKind::Trim, 0, 65536)));
        assert_eq!(g.next(), Some(HostIo::new(IoKind::Trim, 65536, 65536)));
    }

    #[test]
    fn upcoming_names_the_next_offset_of_each_direction() {
        // Pure random read: exactly the next request's offset, across pass boundaries.
        let mut j = job(RwMode::RandRead);
        j.size = Some(SizeSpec::Bytes(100 * 4096));
        j.offset = SizeSpec::Bytes(8192);
        j.loops = 3;
        let mut g = JobGen::new(&j, &conv(1 << 30), 5, 0).unwrap();
        for _ in 0..300 {
            let mut next = Vec::new();
            g.upcoming(|o| next.push(o));
            assert_eq!(next, [g.next().unwrap().offset]);
        }
        // Mixed: the next request is one of the two directions' next offsets.
        j.rw = RwMode::RandRw;
        let mut g = JobGen::new(&j, &conv(1 << 30), 5, 0).unwrap();
        for _ in 0..300 {
            let mut next = Vec::new();
            g.upcoming(|o| next.push(o));
            assert_eq!(next.len(), 2);
            let io = g.next().unwrap();
            let dir = if io.kind == IoKind::Read { 0 } else { 1 };
            assert_eq!(next[dir], io.offset);
        }
        // Nothing is known ahead without the random map.
        j.norandommap = true;
        let g = JobGen::new(&j, &conv(1 << 30), 5, 0).unwrap();
        g.upcoming(|_| panic!("no random map, no look-ahead"));
    }

    #[test]
    fn random_map_covers_each_block_once_per_pass() {
        let mut j = job(RwMode::RandWrite);
        j.size = Some(SizeSpec::Bytes(1000 * 4096));
        j.loops = 2;
        let mut g = JobGen::new(&j, &conv(1 << 30), 3, 0).unwrap();
        let ios = drain(&mut g, 3000);
        assert_eq!(ios.len(), 2000);
        for pass in ios.chunks(1000) {
            let mut seen = vec![false; 1000];
            for io in pass {
                let b = (io.offset / 4096) as usize;
                assert!(!seen[b]);
                seen[b] = true;
            }
        }
        assert_ne!(ios[..1000], ios[1000..], "each pass has its own order");
        // norandommap draws independently: a pass repeats some blocks.
        j.norandommap = true;
        let mut g = JobGen::new(&j, &conv(1 << 30), 3, 0).unwrap();
        let mut seen = vec![false; 1000];
        let distinct = drain(&mut g, 3000)[..1000]
            .iter()
            .filter(|io| !std::mem::replace(&mut seen[(io.offset / 4096) as usize], true))
            .count();
        assert!(distinct < 700, "{distinct}");
    }

    #[test]
    fn zipf_top_blocks_get_the_expected_share() {
        let n = 10_000u64;
        let mut j = job(RwMode::RandRead);
        j.size = Some(SizeSpec::Bytes(n * 4096));
        j.distribution = Distribution::Zipf(1.2);
        j.time_based = true;
        let mut g = JobGen::new(&j, &conv(1 << 30), 11, 0).unwrap();
        let mut hits = vec![0u32; n as usize];
        let draws = 300_000;
        for _ in 0..draws {
            hits[(g.next().unwrap().offset / 4096) as usize] += 1;
        }
        // Hot blocks are spread: the 10 hottest are not all at the start of the region.
        let mut idx: Vec<usize> = (0..n as usize).collect();
        idx.sort_by_key(|&i| std::cmp::Reverse(hits[i]));
        assert!(idx[..10].iter().any(|&i| i > 1000));
        hits.sort_unstable_by(|a, b| b.cmp(a));
        let top: u64 = hits[..1000].iter().map(|&h| h as u64).sum();
        let share = top as f64 / draws as f64;
        let want = zeta(1000, 1.2) / zeta(n, 1.2);
        assert!((share - want).abs() < 0.03, "share {share} want {want}");
        assert!(share > 0.5, "uniform would give 0.1");
    }

    #[test]
    fn determinism_and_clone_streams() {
        let mut j = job(RwMode::RandRw);
        j.distribution = Distribution::Pareto(0.3);
        let t = conv(1 << 30);
        let take = |seed, clone| {
            let mut g = JobGen::new(&j, &t, seed, clone).unwrap();
            (0..1000).map(|_| g.next().unwrap()).collect::<Vec<_>>()
        };
        assert_eq!(take(1, 0), take(1, 0));
        assert_ne!(take(1, 0), take(1, 1));
        assert_ne!(take(1, 0), take(2, 0));
        // Uniform with the random map, and zoned, too.
        let mut j = job(RwMode::RandWrite);
        j.zonemode = ZoneMode::Zbd;
        j.max_open_zones = 3;
        let t = zoned(16, MIB, MIB / 2);
        let take = |clone| {
            let mut g = JobGen::new(&j, &t, 4, clone).unwrap();
            (0..1000).map(|_| g.next().unwrap()).collect::<Vec<_>>()
        };
        assert_eq!(take(0), take(0));
        assert_ne!(take(0), take(1));
    }

    #[test]
    fn region_resolution_and_errors() {
        let t = zoned(64, MIB, MIB);
        let mut j = job(RwMode::Read);
        j.offset = SizeSpec::Percent(50.0);
        j.size = Some(SizeSpec::Percent(25.0));
        let g = JobGen::new(&j, &t, 0, 0).unwrap();
        assert_eq!(g.region(), (32 * MIB, 16 * MIB));
        j.offset = SizeSpec::Zones(4);
        j.size = Some(SizeSpec::Zones(2));
        assert_eq!(
            JobGen::new(&j, &t, 0, 0).unwrap().region(),
            (4 * MIB, 2 * MIB)
        );
        j.size = None;
        assert_eq!(
            JobGen::new(&j, &t, 0, 0).unwrap().region(),
            (4 * MIB, 60 * MIB)
        );

        let err = |j: &JobSpec, t: &Target| JobGen::new(j, t, 0, 0).unwrap_err().to_string();
        let mut j = job(RwMode::Read);
        j.size = Some(SizeSpec::Bytes(100 * MIB));
        assert_eq!(
            err(&j, &t),
            "job 't': offset 0 + size 104857600 exceeds the namespace capacity of 67108864 bytes"
        );
        j.size = Some(SizeSpec::Bytes(1000));
        assert!(err(&j, &t).contains("holds no 4096-byte block"));
        j.size = None;
        j.offset = SizeSpec::Bytes(64 * MIB);
        assert!(err(&j, &t).contains("at or beyond the namespace capacity"));
        j.offset = SizeSpec::Zones(2);
        assert!(err(&j, &conv(MIB << 6)).contains("offset=2z needs a zoned namespace"));
        j.offset = SizeSpec::Bytes(0);
        j.zonemode = ZoneMode::Zbd;
        assert!(err(&j, &conv(MIB)).contains("zonemode=zbd needs a zoned namespace"));
        j.offset = SizeSpec::Bytes(MIB / 2);
        j.size = Some(SizeSpec::Bytes(MIB));
        assert!(err(&j, &t).contains("holds no whole zone"));
        j.offset = SizeSpec::Bytes(0);
        j.bs = 2 * MIB;
        j.size = None;
        assert!(err(&j, &t).contains("exceeds the zone capacity"));
        j.bs = 4096;
        j.rw = RwMode::Trim;
        assert!(err(&j, &t).contains("not supported with zonemode=zbd"));
        // zbd rounds the region inward to whole zones, like fio.
        j.rw = RwMode::Write;
        j.offset = SizeSpec::Bytes(MIB / 2);
        j.size = Some(SizeSpec::Bytes(4 * MIB));
        assert_eq!(JobGen::new(&j, &t, 0, 0).unwrap().region(), (MIB, 3 * MIB));
    }

    /// Checks zoned-mode invariants against an independent model of the write pointers.
    fn check_zoned(j: &JobSpec, t: &Target, n: usize, preset: &[u64]) -> Vec<HostIo> {
        let g0 = JobGen::new(j, t, 77, 0).unwrap();
        let mut g = g0.clone();
        g.set_zone_write_pointers(preset);
        let geom = t.zone.unwrap();
        let (start, len) = g.region();
        let nz = (len / geom.size_bytes) as usize;
        let mut wp: Vec<u64> = (0..nz)
            .map(|i| preset.get(i).copied().unwrap_or(0).min(geom.capacity_bytes))
            .collect();
        let mut ios = Vec::new();
        for _ in 0..n {
            let Some(io) = g.next() else { break };
            ios.push(io);
            let z = ((io.offset - start) / geom.size_bytes) as usize;
            let zoff = (io.offset - start) % geom.size_bytes;
            match io.kind {
                IoKind::Write => {
                    assert_eq!(zoff, wp[z], "write not at the write pointer");
                    assert!(io.len > 0);
                    assert!(
                        zoff + io.len <= geom.capacity_bytes,
                        "write crosses capacity"
                    );
                    wp[z] += io.len;
                }
                IoKind::Read => {
                    assert!(io.len > 0 && zoff + io.len <= wp[z], "read beyond wp");
                }
                IoKind::ZoneReset => {
                    assert_eq!((zoff, io.len), (0, 0));
                    wp[z] = 0;
                }
                IoKind::Flush => {}
                k => panic!("unexpected {k:?}"),
            }
            // Open zones of this job: written by it, not full.
            if j.max_open_zones > 0 {
                let open = g.zbd.as_ref().unwrap().open.len();
                assert!(open <= j.max_open_zones as usize);
            }
        }
        assert_eq!(g.zone_write_pointers().unwrap(), &wp[..]);
        ios
    }

    #[test]
    fn zbd_random_writes_respect_wp_capacity_and_open_limit() {
        // Zone capacity not a multiple of bs: the last write of a zone is shortened.
        let t = zoned(32, MIB, MIB - 4096 * 3 - 512);
        for dist in [Distribution::Uniform, Distribution::Zipf(1.1)] {
            let mut j = job(RwMode::RandWrite);
            j.zonemode = ZoneMode::Zbd;
            j.max_open_zones = 4;
            j.bs = 16384;
            j.distribution = dist;
            j.loops = 4;
            let ios = check_zoned(&j, &t, 1_000_000, &[]);
            assert!(ios.iter().any(|io| io.kind == IoKind::ZoneReset));
            assert!(ios
                .iter()
                .any(|io| io.kind == IoKind::Write && io.len < 16384));
            // Concurrently open zones by the job (written, neither full nor reset) stay <= 4.
            let mut wp = [0u64; 32];
            let cap = t.zone.unwrap().capacity_bytes;
            for io in &ios {
                let z = (io.offset / MIB) as usize;
                match io.kind {
                    IoKind::Write => wp[z] += io.len,
                    IoKind::ZoneReset => wp[z] = 0,
                    _ => {}
                }
                assert!(wp.iter().filter(|&&w| w > 0 && w < cap).count() <= 4);
            }
        }
    }

    #[test]
    fn zbd_reset_precedes_rewrite_of_full_zone() {
        let t = zoned(4, MIB, MIB);
        let mut j = job(RwMode::Write);
        j.zonemode = ZoneMode::Zbd;
        j.bs = 256 * 1024;
        j.loops = 2;
        let ios = check_zoned(&j, &t, 1000, &[]);
        // First pass: 16 writes; second pass: each zone reset then rewritten in order.
        assert_eq!(ios.len(), 16 + 16 + 4);
        for (i, io) in ios[..16].iter().enumerate() {
            assert_eq!(*io, HostIo::new(IoKind::Write, i as u64 * 262_144, 262_144));
        }
        assert_eq!(ios[16], HostIo::new(IoKind::ZoneReset, 0, 0));
        assert_eq!(ios[17], HostIo::new(IoKind::Write, 0, 262_144));
        assert_eq!(ios[21], HostIo::new(IoKind::ZoneReset, MIB, 0));
        // Preconditioned: zone 0 full, zone 1 half written: seq continues at the wps.
        j.loops = 1;
        let ios = check_zoned(&j, &t, 1000, &[MIB, MIB / 2]);
        assert_eq!(ios[0], HostIo::new(IoKind::ZoneReset, 0, 0));
        assert_eq!(ios[1], HostIo::new(IoKind::Write, 0, 262_144));
    }

    #[test]
    fn zbd_seq_walks_zones_with_short_capacity() {
        let t = zoned(8, MIB, 600 * 1024);
        let mut j = job(RwMode::Write);
        j.zonemode = ZoneMode::Zbd;
        j.bs = 128 * 1024;
        j.offset = SizeSpec::Zones(2);
        j.size = Some(SizeSpec::Zones(3));
        let ios = check_zoned(&j, &t, 1000, &[]);
        // 3 zones × 600 KiB: 4 full writes + one 88 KiB write per zone; budget = data bytes.
        assert_eq!(ios.len(), 15);
        assert_eq!(
            ios[4],
            HostIo::new(IoKind::Write, 2 * MIB + 512 * 1024, 88 * 1024)
        );
        assert_eq!(ios[5].offset, 3 * MIB);
        // io_size in zones counts zone capacity in zoned mode.
        j.io_size = Some(SizeSpec::Zones(1));
        assert_eq!(check_zoned(&j, &t, 1000, &[]).len(), 5);
    }

    #[test]
    fn zbd_reads_stay_below_wp() {
        let t = zoned(16, MIB, MIB);
        let mut wps = vec![0u64; 16];
        wps[3] = 5000; // not bs-aligned: the last read of the zone is shortened
        wps[9] = MIB;
        wps[12] = 8192;
        for rw in [RwMode::RandRead, RwMode::Read] {
            let mut j = job(rw);
            j.zonemode = ZoneMode::Zbd;
            j.time_based = true;
            j.number_ios = Some(20_000);
            let ios = check_zoned(&j, &t, 100_000, &wps);
            assert_eq!(ios.len(), 20_000);
            let zones: std::collections::BTreeSet<u64> =
                ios.iter().map(|io| io.offset / MIB).collect();
            assert_eq!(zones.into_iter().collect::<Vec<_>>(), vec![3, 9, 12]);
            assert!(ios
                .iter()
                .any(|io| io.offset == 3 * MIB + 4096 && io.len == 904));
        }
        // A read-only job over an empty region ends; a mixed one writes instead.
        let mut j = job(RwMode::RandRead);
        j.zonemode = ZoneMode::Zbd;
        let mut g = JobGen::new(&j, &t, 1, 0).unwrap();
        assert_eq!(g.next(), None);
        j.rw = RwMode::RandRw;
        j.rwmixread = 90;
        j.max_open_zones = 2;
        let ios = check_zoned(&j, &t, 5000, &[]);
        assert_eq!(ios[0].kind, IoKind::Write);
        assert!(ios.iter().filter(|io| io.kind == IoKind::Read).count() > 3000);
    }

    #[test]
    fn zbd_open_set_seeded_by_preconditioning() {
        let t = zoned(16, MIB, MIB);
        let mut j = job(RwMode::RandWrite);
        j.zonemode = ZoneMode::Zbd;
        j.max_open_zones = 2;
        j.number_ios = Some(10);
        let mut wps = vec![MIB; 16];
        wps[5] = 4096;
        wps[7] = 8192;
        let ios = check_zoned(&j, &t, 100, &wps);
        assert!(ios
            .iter()
            .all(|io| io.offset / MIB == 5 || io.offset / MIB == 7));
    }

    #[test]
    fn zbd_reset_threshold_and_frequency() {
        let t = zoned(16, MIB, MIB);
        let mut j = job(RwMode::RandWrite);
        j.zonemode = ZoneMode::Zbd;
        j.bs = 64 * 1024;
        j.zone_reset_threshold = 0.5;
        j.zone_reset_frequency = 0.25;
        j.time_based = true;
        j.number_ios = Some(4000);
        let ios = check_zoned(&j, &t, 100_000, &[]);
        let mut valid = 0u64;
        let mut max_valid = 0;
        let mut wp = [0u64; 16];
        let mut writes_above = 0;
        let mut early_resets = 0;
        // Valid bytes when the current write's step began (before its reset, if any).
        let mut step_valid = None;
        for io in ios {
            let z = (io.offset / MIB) as usize;
            match io.kind {
                IoKind::ZoneReset => {
                    // Full zones are reset whenever picked; others only above the threshold.
                    if wp[z] < MIB {
                        assert!(valid >= 8 * MIB, "reset below the threshold");
                        early_resets += 1;
                    }
                    step_valid = Some(valid);
                    valid -= wp[z];
                    wp[z] = 0;
                }
                IoKind::Write => {
                    if step_valid.take().unwrap_or(valid) >= 8 * MIB {
                        writes_above += 1;
                    }
                    wp[z] += io.len;
                    valid += io.len;
                    max_valid = max_valid.max(valid);
                }
                _ => unreachable!(),
            }
        }
        // About one reset per 4 writes above the threshold (fewer when the picked zone is empty
        // or full, the latter being reset anyway), which keeps the valid data near it.
        assert!(writes_above > 400, "{writes_above}");
        let want = writes_above / 4;
        assert!(
            early_resets <= want && early_resets * 10 >= want * 8,
            "{early_resets} {want}"
        );
        assert!(max_valid < 12 * MIB, "{max_valid}");
        // Without a frequency, nothing but full zones is reset.
        j.zone_reset_frequency = 0.0;
        j.number_ios = Some(1000);
        let mut wp = [0u64; 16];
        for io in check_zoned(&j, &t, 2000, &[]) {
            let z = (io.offset / MIB) as usize;
            match io.kind {
                IoKind::ZoneReset => {
                    assert_eq!(wp[z], MIB);
                    wp[z] = 0;
                }
                _ => wp[z] += io.len,
            }
        }
    }

    #[test]
    fn next_is_cheap_enough_to_not_allocate() {
        // Smoke test of the steady state of every mode (no timing in unit tests).
        let t = zoned(64, MIB, MIB);
        for rw in [RwMode::RandRw, RwMode::ReadWrite] {
            for zm in [ZoneMode::None, ZoneMode::Zbd] {
                let mut j = job(rw);
                j.zonemode = zm;
                j.fsync = 3;
                j.max_open_zones = 5;
                j.time_based = true;
                let mut g = JobGen::new(&j, &t, 1, 0).unwrap();
                for _ in 0..50_000 {
                    g.next().unwrap();
                }
            }
        }
    }

    fn arb_dist() -> impl Strategy<Value = Distribution> {
        prop_oneof![
            Just(Distribution::Uniform),
            (0.2f64..3.0)
                .prop_filter("θ≠1", |t| (t - 1.0).abs() > 1e-6)
                .prop_map(Distribution::Zipf),
            (0.01f64..0.99).prop_map(Distribution::Pareto),
            (0.1f64..100.0).prop_map(Distribution::Normal),
        ]
    }

    fn arb_rw() -> impl Strategy<Value = RwMode> {
        prop_oneof![
            Just(RwMode::Read),
            Just(RwMode::Write),
            Just(RwMode::RandRead),
            Just(RwMode::RandWrite),
            Just(RwMode::ReadWrite),
            Just(RwMode::RandRw),
            Just(RwMode::Trim),
            Just(RwMode::RandTrim),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        #[test]
        fn conventional_ios_in_region_and_aligned(
            sectors in 1u64..64,
            off_sectors in 0u64..20_000,
            size_sectors in 1u64..40_000,
            rw in arb_rw(),
            dist in arb_dist(),
            norandommap: bool,
            seed: u64,
            clone in 0u32..4,
        ) {
            let cap = 512 * 60_000;
            let mut j = job(rw);
            j.bs = sectors * 512;
            j.offset = SizeSpec::Bytes(off_sectors * 512);
            j.size = Some(SizeSpec::Bytes(size_sectors * 512));
            j.distribution = dist;
            j.norandommap = norandommap;
            j.loops = 2;
            match JobGen::new(&j, &conv(cap), seed, clone) {
                Err(_) => prop_assert!(size_sectors < sectors),
                Ok(mut g) => {
                    let (start, len) = g.region();
                    prop_assert_eq!(start, off_sectors * 512);
                    let mut n = 0u64;
                    while let Some(io) = g.next() {
                        prop_assert!(io.len == j.bs);
                        prop_assert!(io.offset >= start && io.offset + io.len <= start + len);
                        prop_assert_eq!((io.offset - start) % j.bs, 0);
                        n += 1;
                        prop_assert!(n <= 200_000);
                    }
                    prop_assert_eq!(n, 2 * len / j.bs);
                }
            }
        }

        #[test]
        fn zoned_invariants_hold(
            nzones in 1u64..12,
            cap_sectors in 1u64..256,
            bs_sectors in 1u64..32,
            max_open in 0u32..5,
            rw in prop_oneof![
                Just(RwMode::Write), Just(RwMode::RandWrite), Just(RwMode::RandRw),
                Just(RwMode::ReadWrite), Just(RwMode::Read), Just(RwMode::RandRead),
            ],
            dist in arb_dist(),
            frequency in prop_oneof![Just(0.0), 0.01f64..1.0],
            preset in proptest::collection::vec(0u64..300 * 512, 0..12),
        ) {
            let t = zoned(nzones, 256 * 512, cap_sectors * 512);
            let mut j = job(rw);
            j.zonemode = ZoneMode::Zbd;
            j.bs = bs_sectors * 512;
            j.max_open_zones = max_open;
            j.distribution = dist;
            j.zone_reset_frequency = frequency;
            j.zone_reset_threshold = 0.3;
            j.loops = 3;
            if bs_sectors > cap_sectors {
                prop_assert!(JobGen::new(&j, &t, 1, 0).is_err());
            } else {
                check_zoned(&j, &t, 20_000, &preset);
            }
        }
    }
}
