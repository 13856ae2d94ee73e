//! Flash that ages, the firmware's side (docs/wear.md): bad blocks and their spares
//! ([`bad_blocks`]), read reclaim and retention refresh ([`reclaim`]), wear levelling
//! ([`leveling`]), and the read-only state a namespace enters when its spares run out.
//!
//! A [`Wear`] belongs to one FTL that allocates superblocks (the conventional one) and exists
//! only when a mechanism is on (`nand.endurance_pe`, `nand.factory_bad_fraction`,
//! `ftl.read_reclaim`, `ftl.wear_leveling`): the FTL's hooks are one `Option` test each.
//! Relocations (a superblock whose program failed, one to reclaim, one static levelling
//! empties) queue here and the FTL's garbage collector runs them as victims through its own
//! copy path, so their page moves cost what GC moves cost; at the victim's erase this room
//! decides whether the superblock goes back to the pool (remapped if a member failed) or is
//! retired.
//!
//! Spares: superblocks in service beyond what the namespace needs (its logical pages and
//! [`min_spare_superblocks`], the fewest GC can run on, which config validation also asks); a
//! superblock whose program failed in a lane with no donor left is already counted as lost,
//! though it serves until its relocation retires it. When a loss takes the spares below zero
//! the namespace goes read-only: writes are refused and counted, reads go on, and its wear is
//! frozen (no more failures are drawn): from then on it programs and erases only to finish
//! what it had accepted, which the one superblock below GC's reserve still lets it do, so the
//! pool never runs dry. The exported capacity is set at format from the superblocks the good
//! blocks make ([`Wear::exported`]), so factory-bad blocks alone never leave a namespace short.

pub mod bad_blocks;
pub mod leveling;
pub mod reclaim;

use crate::config::{DeviceConfig, WearLeveling};
use crate::engine::SimTime;
use crate::firmware::gc::min_spare_superblocks;
use crate::nand::Geometry;
use bad_blocks::{weibull_scale, BlockTable, Fate, PreWear};
use reclaim::Reclaim;
use std::collections::VecDeque;

/// Why a superblock is queued for relocation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Why {
    None,
    /// A program into it failed: its data moves out and the failed block leaves.
    Retire,
    /// Read disturb or retention: its data is rewritten.
    Reclaim,
    /// Static wear levelling: its cold data moves so the block rejoins the pool.
    Level,
}

/// What a namespace counts of its wear (`device.wear`, docs/report.md); the device adds them
/// up. `erase_hist[n]`: blocks in service erased `n` times.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WearCounters {
    pub endurance_pe: u64,
    pub blocks_in_service: u64,
    pub factory_bad_blocks: u64,
    pub preworn_bad_blocks: u64,
    pub retired_blocks: u64,
    pub remapped_blocks: u64,
    pub retired_superblocks: u64,
    pub spare_superblocks: i64,
    pub read_only_namespaces: u64,
    pub erase_failures: u64,
    pub program_failures: u64,
    pub block_erases: u64,
    pub reclaim_moves: u64,
    pub read_reclaims: u64,
    pub retention_refreshes: u64,
    pub wear_leveling_moves: u64,
    pub wear_leveling_victims: u64,
    pub retire_moves: u64,
    /// Whole zones remapped (a zoned namespace's moves: firmware/zoned/wear.rs).
    pub zone_remaps: u64,
    pub refused_writes: u64,
    /// Host pages written and the span they were written over (ns), for the write rate.
    pub write_span_ns: u64,
    pub aged_ns: u64,
    pub erase_hist: Vec<u64>,
}

impl std::ops::AddAssign<&WearCounters> for WearCounters {
    fn add_assign(&mut self, o: &WearCounters) {
        self.endurance_pe = self.endurance_pe.max(o.endurance_pe);
        self.blocks_in_service += o.blocks_in_service;
        self.factory_bad_blocks += o.factory_bad_blocks;
        self.preworn_bad_blocks += o.preworn_bad_blocks;
        self.retired_blocks += o.retired_blocks;
        self.remapped_blocks += o.remapped_blocks;
        self.retired_superblocks += o.retired_superblocks;
        self.spare_superblocks += o.spare_superblocks;
        self.read_only_namespaces += o.read_only_namespaces;
        self.erase_failures += o.erase_failures;
        self.program_failures += o.program_failures;
        self.block_erases += o.block_erases;
        self.reclaim_moves += o.reclaim_moves;
        self.read_reclaims += o.read_reclaims;
        self.retention_refreshes += o.retention_refreshes;
        self.wear_leveling_moves += o.wear_leveling_moves;
        self.wear_leveling_victims += o.wear_leveling_victims;
        self.retire_moves += o.retire_moves;
        self.zone_remaps += o.zone_remaps;
        self.refused_writes += o.refused_writes;
        self.write_span_ns = self.write_span_ns.max(o.write_span_ns);
        self.aged_ns = self.aged_ns.max(o.aged_ns);
        if self.erase_hist.len() < o.erase_hist.len() {
            self.erase_hist.resize(o.erase_hist.len(), 0);
        }
        for (a, b) in self.erase_hist.iter_mut().zip(&o.erase_hist) {
            *a += b;
        }
    }
}

/// Logical pages a namespace planned with `logical` pages exports when `in_service` superblocks
/// of `slots` slots are whole at format: what the good blocks give minus the over-provisioning
/// `op`, and no more than leaves GC its spare ([`min_spare_superblocks`] for `streams`
/// streams). Equal to `logical` without factory-bad blocks. Never below one superblock (or
/// `logical` if smaller): good blocks too few for that leave the namespace read-only from
/// format rather than without a capacity.
pub fn exported(logical: u64, in_service: u32, slots: u64, op: f64, streams: u32) -> u64 {
    let total = in_service as u64 * slots;
    let with_op = (total as f64 / (1.0 + op)).floor() as u64;
    let with_spare = total.saturating_sub(min_spare_superblocks(streams) * slots);
    logical.min(with_op).min(with_spare).max(logical.min(slots))
}

/// The wear state of one FTL's superblocks.
#[derive(Clone)]
pub struct Wear {
    seed: u64,
    endurance: u32,
    /// Weibull scale of the wear-out ([`weibull_scale`]; 0: none).
    scale: f64,
    shape: f64,
    leveling: WearLeveling,
    spread: u32,
    table: BlockTable,
    reclaim: Option<Reclaim>,
    dies: u32,
    planes: u32,
    die_unit: u32,
    per_plane: u32,
    why: Vec<Why>,
    queue: VecDeque<u32>,
    /// Lane + 1 of a member whose next program fails (0: none).
    doomed: Vec<u8>,
    /// Lane + 1 of a member whose program failed, settled at the superblock's next erase.
    failed: Vec<u8>,
    /// Superblocks the namespace needs in service.
    need: u32,
    /// Logical pages exported (fixed at format from the good blocks, [`Wear::exported`]).
    logical: u64,
    /// A zoned namespace's ([`Wear::set_need`]): it counts a superblock lost at its erase,
    /// not when its program fails (a READ_ONLY zone is never erased), and its shortfalls take
    /// zones out of service rather than freezing the wear (firmware/zoned/wear.rs).
    zoned: bool,
    /// Host idle time before background reclaim runs, ns.
    idle_ns: u64,
    read_only: bool,
    factory_bad: u64,
    /// Blocks a pre-worn device (`nand.initial_pe`) wore out before format.
    preworn: u64,
    grown_bad: u64,
    remapped: u64,
    first_write: Option<SimTime>,
    last_write: SimTime,
    /// Event counters of the measured phase (state fields are filled at [`Wear::counters`]).
    c: WearCounters,
}

impl Wear {
    /// The wear state of an FTL over `geo` exporting `logical` pages through `streams`
    /// streams, or None when every wear mechanism is off.
    pub fn new(
        cfg: &DeviceConfig,
        geo: &Geometry,
        seed: u64,
        logical: u64,
        streams: u32,
    ) -> Option<Box<Wear>> {
        let (n, f) = (&cfg.nand, &cfg.ftl);
        let on = n.endurance_pe > 0
            || n.factory_bad_fraction > 0.0
            || f.read_reclaim
            || f.wear_leveling != WearLeveling::Off;
        if !on {
            return None;
        }
        let sbs = geo.superblocks;
        let lanes = geo.dies * geo.planes;
        let seed = crate::engine::mix64(seed ^ 0x7765_6172);
        let mut table = BlockTable::new(sbs, lanes);
        let scale = weibull_scale(n.endurance_pe, n.failed_share_at_rating, n.endurance_shape);
        let pre = PreWear {
            cycles: n.initial_pe,
            scale,
            shape: n.endurance_shape,
        };
        let (factory_bad, preworn) = table.format(seed, n.factory_bad_fraction, pre);
        let slots = geo.slots_per_superblock() as u64;
        let logical = exported(
            logical,
            table.in_service(),
            slots,
            f.overprovisioning,
            streams,
        );
        let mut w = Wear {
            seed,
            endurance: n.endurance_pe,
            scale,
            shape: n.endurance_shape,
            leveling: f.wear_leveling,
            spread: f.wear_leveling_spread,
            table,
            reclaim: f
                .read_reclaim
                .then(|| Reclaim::new(sbs, lanes, f.read_reclaim_reads, f.retention_refresh_days)),
            dies: geo.dies,
            planes: geo.planes,
            die_unit: geo.die_unit_slots(),
            per_plane: geo.program_unit_pages * geo.slots_per_page,
            why: vec![Why::None; sbs as usize],
            queue: VecDeque::new(),
            doomed: vec![0; sbs as usize],
            failed: vec![0; sbs as usize],
            need: (logical.div_ceil(slots) + min_spare_superblocks(streams)).min(u32::MAX as u64)
                as u32,
            logical,
            zoned: false,
            idle_ns: SimTime::from_us(f.gc.idle_us).ns(),
            read_only: false,
            factory_bad,
            preworn,
            grown_bad: 0,
            remapped: 0,
            first_write: None,
            last_write: SimTime::ZERO,
            c: WearCounters::default(),
        };
        w.read_only = w.spares() < 0;
        Some(Box::new(w))
    }

    /// Superblocks out of service from the start (factory-bad members without a spare).
    pub fn retired_at_format(&self) -> impl Iterator<Item = u32> + '_ {
        (0..self.why.len() as u32).filter(|&s| self.table.retired[s as usize])
    }

    /// Logical pages the namespace exports ([`exported`]).
    pub fn logical(&self) -> u64 {
        self.logical
    }

    pub fn is_retired(&self, sb: u32) -> bool {
        self.table.retired[sb as usize]
    }

    /// Writes are refused: the spares ran out.
    #[inline]
    pub fn read_only(&self) -> bool {
        self.read_only
    }

    /// Dynamic levelling orders the free pool by [`Wear::key`].
    pub fn levels_allocation(&self) -> bool {
        self.leveling != WearLeveling::Off
    }

    /// The wear of superblock `sb` (its most-erased member).
    pub fn key(&self, sb: u32) -> u32 {
        self.table.sb_erases(sb)
    }

    /// A zoned namespace needs a span of units for each zone in service: `need` superblocks;
    /// it takes zones out of service instead of going read-only (firmware/zoned/wear.rs), and
    /// counts a failed member when its superblock is settled.
    pub fn set_need(&mut self, need: u32) {
        self.need = need;
        self.zoned = true;
        self.read_only = self.spares() < 0;
    }

    /// Superblocks in service beyond what the namespace needs (below zero: short), less those
    /// already lost: closed by a failed program in a lane whose donors the failed programs
    /// before them have claimed (their relocation will retire them).
    pub fn spares(&self) -> i64 {
        let surplus = self.table.in_service() as i64 - self.need as i64;
        if self.zoned {
            return surplus;
        }
        let mut claims = vec![0u32; self.table.lanes() as usize];
        let mut lost = 0;
        for &f in self.failed.iter().filter(|&&f| f > 0) {
            let lane = f as u32 - 1;
            if !self.table.has_donor(lane, claims[lane as usize]) {
                lost += 1;
            }
            claims[lane as usize] += 1;
        }
        surplus - lost
    }

    /// No more failures are drawn: a conventional namespace gone read-only (module doc).
    fn frozen(&self) -> bool {
        self.read_only && !self.zoned
    }

    /// A host write (`pages` pages) at `now`: the span of the run's writes, or a refusal.
    #[inline]
    pub fn host_write(&mut self, now: SimTime, pages: u32) -> bool {
        if self.read_only {
            self.c.refused_writes += pages as u64;
            return false;
        }
        self.first_write.get_or_insert(now);
        self.last_write = now;
        true
    }

    /// A host read of slot `off` of superblock `sb` (read-disturb count).
    #[inline]
    pub fn host_read(&mut self, sb: u32, off: u32) {
        let Some(r) = &mut self.reclaim else {
            return;
        };
        let unit = off / self.die_unit;
        let lane = (unit % self.dies) * self.planes + (off % self.die_unit) / self.per_plane;
        if r.read(sb, lane) && self.queue_for(sb, Why::Reclaim) {
            self.c.read_reclaims += 1;
        }
    }

    /// Queue `sb` for relocation (once); true if newly queued.
    fn queue_for(&mut self, sb: u32, why: Why) -> bool {
        let w = &mut self.why[sb as usize];
        if *w != Why::None {
            // A program failure outranks the other reasons (its block must leave).
            if why == Why::Retire {
                *w = why;
            }
            return false;
        }
        *w = why;
        self.queue.push_back(sb);
        true
    }

    /// A unit was programmed into `sb`: true if the program failed (the superblock must be
    /// closed; its data, this unit's included, is relocated and the block retired).
    #[inline]
    pub fn program_failed(&mut self, sb: u32) -> bool {
        let d = self.doomed[sb as usize];
        if d == 0 {
            return false;
        }
        self.doomed[sb as usize] = 0;
        if self.frozen() {
            return false;
        }
        self.failed[sb as usize] = d;
        self.c.program_failures += 1;
        self.grown_bad += 1;
        self.queue_for(sb, Why::Retire);
        self.read_only |= self.spares() < 0;
        true
    }

    /// The next queued superblock to relocate that `full` admits now (closed and holding
    /// data); entries no longer worth it (collected meanwhile) are dropped.
    pub fn next_victim(&mut self, full: impl Fn(u32) -> Option<bool>) -> Option<u32> {
        for _ in 0..self.queue.len() {
            let sb = self.queue.pop_front()?;
            if self.why[sb as usize] == Why::None {
                continue; // collected by GC meanwhile (its erase cleared the reason)
            }
            match full(sb) {
                Some(true) => return Some(sb),
                // Still open: later.
                None => self.queue.push_back(sb),
                Some(false) => self.why[sb as usize] = Why::None,
            }
        }
        None
    }

    /// `pages` valid pages of `sb` were moved by its collection.
    #[inline]
    pub fn moved(&mut self, sb: u32, pages: u64) {
        match self.why[sb as usize] {
            Why::None => {}
            Why::Retire => self.c.retire_moves += pages,
            Why::Reclaim => self.c.reclaim_moves += pages,
            Why::Level => self.c.wear_leveling_moves += pages,
        }
    }

    /// `sb` was erased (empty): count the erase, settle a failed program, draw wear-out.
    /// Returns whether it goes back to the free pool (false: retired).
    pub fn erased(&mut self, sb: u32) -> bool {
        self.why[sb as usize] = Why::None;
        self.c.block_erases += self.table.lanes() as u64;
        if let Some(r) = &mut self.reclaim {
            r.erased(sb);
        }
        let mut failing: [u32; 2] = [u32::MAX; 2];
        let prog = self.failed[sb as usize];
        self.failed[sb as usize] = 0;
        if prog > 0 {
            failing[0] = prog as u32 - 1;
        }
        let mut doomed = 0;
        let scale = if self.frozen() { 0.0 } else { self.scale };
        let (seed, k) = (self.seed, self.shape);
        let mut erase_fails = 0;
        self.table
            .erased(sb, seed, scale, k, |lane, fate| match fate {
                Fate::EraseFails if failing[1] == u32::MAX && lane != failing[0] => {
                    failing[1] = lane;
                    erase_fails += 1;
                }
                Fate::ProgramFails if doomed == 0 => doomed = lane as u8 + 1,
                _ => {}
            });
        self.c.erase_failures += erase_fails;
        self.grown_bad += erase_fails;
        self.doomed[sb as usize] = doomed;
        for lane in failing.into_iter().filter(|&l| l != u32::MAX) {
            if self.table.fail(sb, lane) {
                self.remapped += 1;
            } else {
                self.doomed[sb as usize] = 0;
                self.read_only |= self.spares() < 0;
                return false;
            }
        }
        true
    }

    /// Static levelling after an erase: queue the least-erased full superblock when the
    /// spread passes the threshold (one at a time). `full(sb)`: closed with data.
    pub fn level(&mut self, full: impl Fn(u32) -> bool) {
        if self.leveling != WearLeveling::Static || self.why.contains(&Why::Level) {
            return;
        }
        let table = &self.table;
        let erases = (0..self.why.len() as u32)
            .filter(|&s| !table.retired[s as usize])
            .map(|s| (s, table.sb_erases(s)));
        let why = &self.why;
        if let Some(sb) = leveling::static_victim(erases, self.spread, |s| {
            full(s) && why[s as usize] == Why::None
        }) {
            self.queue_for(sb, Why::Level);
            self.c.wear_leveling_victims += 1;
        }
    }

    /// The device sat powered off for `ns`: retention time passes without events.
    pub fn age(&mut self, ns: u64) {
        self.c.aged_ns = self.c.aged_ns.saturating_add(ns);
        if let Some(r) = &mut self.reclaim {
            r.aged_ns = r.aged_ns.saturating_add(ns);
        }
    }

    /// Queue every full superblock that [`Reclaim::needs_reclaim`] (read disturb, retention)
    /// at `now`; `closed(sb)`: when a full superblock was closed, None if it is not full.
    pub fn scan(&mut self, now: SimTime, closed: impl Fn(u32) -> Option<SimTime>) {
        let Some(r) = &self.reclaim else {
            return;
        };
        let due: Vec<u32> = (0..self.why.len() as u32)
            .filter(|&s| closed(s).is_some_and(|c| r.needs_reclaim(s, c, now)))
            .collect();
        for sb in due {
            if self.queue_for(sb, Why::Reclaim) {
                self.c.retention_refreshes += 1;
            }
        }
    }

    /// Work is queued (idle time may run it).
    pub fn pending(&self) -> bool {
        !self.queue.is_empty()
    }

    /// Host idle time before background reclaim runs (`ftl.gc.idle_us`), ns.
    pub fn idle_ns(&self) -> u64 {
        self.idle_ns
    }

    /// Zero the event counters (after preconditioning); the wear itself stays.
    pub fn reset_counters(&mut self) {
        self.c = WearCounters {
            aged_ns: self.c.aged_ns,
            ..WearCounters::default()
        };
        self.first_write = None;
    }

    /// Counters and state for the report.
    pub fn counters(&self) -> WearCounters {
        let lanes = self.table.lanes();
        let mut hist = Vec::new();
        let mut blocks = 0;
        for sb in (0..self.why.len() as u32).filter(|&s| !self.table.retired[s as usize]) {
            for lane in 0..lanes {
                let e = self.table.erases[self.table.phys(sb, lane)] as usize;
                if hist.len() <= e {
                    hist.resize(e + 1, 0);
                }
                hist[e] += 1;
                blocks += 1;
            }
        }
        WearCounters {
            endurance_pe: self.endurance as u64,
            blocks_in_service: blocks,
            factory_bad_blocks: self.factory_bad,
            preworn_bad_blocks: self.preworn,
            retired_blocks: self.grown_bad,
            remapped_blocks: self.remapped,
            retired_superblocks: self.table.retired.iter().filter(|&&r| r).count() as u64,
            spare_superblocks: self.spares(),
            read_only_namespaces: self.read_only as u64,
            write_span_ns: self.first_write.map_or(0, |f| self.last_write.since(f)),
            erase_hist: hist,
            ..self.c.clone()
        }
    }

    /// The block table is consistent and the allocator retired exactly the superblocks the
    /// table did (`retired_in_alloc`); a namespace short of spares is read-only.
    pub fn check(&self, retired_in_alloc: impl Fn(u32) -> bool) -> Result<(), String> {
        self.table.check()?;
        for sb in 0..self.why.len() as u32 {
            if self.table.retired[sb as usize] != retired_in_alloc(sb) {
                return Err(format!(
                    "superblock {sb}: retired in the block table {} but not in the allocator",
                    self.table.retired[sb as usize]
                ));
            }
        }
        if !self.read_only && self.spares() < 0 {
            return Err("spares below zero but the namespace is writable".into());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_exported_capacity_is_what_the_good_blocks_give() {
        // 48 rows of 2,048 slots at 7% OP, one stream: 45 whole superblocks after factory-bad
        // blocks give 86,130 pages at that OP but only 42 x 2,048 leave GC its 3 spares.
        let planned = (48.0 * 2048.0 / 1.07f64).floor() as u64;
        assert_eq!(exported(planned, 48, 2048, 0.07, 1), planned);
        assert_eq!(exported(planned, 45, 2048, 0.07, 1), 42 * 2048);
        assert_eq!(
            exported(planned, 46, 2048, 0.07, 1),
            (46.0 * 2048.0 / 1.07f64) as u64
        );
        assert_eq!(exported(planned, 2, 2048, 0.07, 1), 2048);
        assert_eq!(exported(100, 2, 2048, 0.07, 1), 100);
    }
}
