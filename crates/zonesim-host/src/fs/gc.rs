//! Garbage collection (docs/fs.md "Garbage collection and the mkfs reserve", "Background GC on a
//! zoned main area"; Zoned UFS §4.4 and Table 1): foreground GC (greedy, whole sections,
//! a checkpoint per round while prefree segments exist) when free sections fall to what the dirty
//! nodes, dentries (and in LFS dirty data) need plus the reserve; background GC on a conventional
//! main area (cost-benefit, idle-gated, one section per wake, sleep between `gc_min_sleep_time` and
//! `gc_max_sleep_time`; on a zoned main area too under kernels before 6.12); on a zoned main area
//! from kernel 6.12 the three phases No-GC / Normal / Boosted with the Table 1 knobs, paused
//! while user reads are in flight (`Kernel`, docs/fs.md "What differs between kernels"). Every move is a read then a write through
//! the device (a barrier between them), or with `gc_copy_offload` (ZMS copy offloading, ZMS
//! "Challenge #3") one device-side copy per run of contiguous moved blocks: same destinations, same
//! allocation and metadata updates, no data over the host link (a dirty node is written from
//! memory, unread).

use super::layout::{BLKS_PER_SEG, BLOCK_BYTES};
use super::params::{FgVictim, FsParams};
use super::stats::CpReason;
use super::{Area, F2fs, NodeWriter, COLD_DATA, NODE_OWNER, NO_OWNER};
use crate::IoKind;
use serde::Serialize;

/// Phase of the background GC thread.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum GcPhase {
    /// Background GC off (or not woken yet).
    #[default]
    Off,
    NoGc,
    Normal,
    Boosted,
}

/// Who collects: foreground, background normal, background boosted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum GcKind {
    Fg = 0,
    BgNormal = 1,
    BgBoosted = 2,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Policy {
    Greedy,
    CostBenefit,
    Fifo,
}

/// Background GC thread state.
#[derive(Debug, Clone)]
pub(super) struct GcState {
    sleep_ms: u64,
    pub phase: GcPhase,
    last_tick: u64,
    /// Section being collected window by window and its next segment offset.
    victim: Option<(u32, u32)>,
    /// Round-robin start of the BG victim search.
    last_victim: u32,
}

impl GcState {
    pub fn new(p: &FsParams) -> GcState {
        GcState {
            sleep_ms: p.gc_min_sleep_time_ms,
            phase: GcPhase::Off,
            last_tick: 0,
            victim: None,
            last_victim: 0,
        }
    }
}

impl F2fs {
    /// `f2fs_balance_fs`: foreground GC when free sections are not enough.
    pub(super) fn balance_fs(&mut self) {
        if self.segs.free_secs as u64 > self.needed_secs() {
            return;
        }
        self.c.fg_gc_calls += 1;
        let policy = match self.p.fg_victim {
            FgVictim::Greedy => Policy::Greedy,
            FgVictim::Fifo => Policy::Fifo,
        };
        for _ in 0..=self.geo.sections {
            if self.segs.prefree > 0 {
                self.out.barrier();
                self.checkpoint(CpReason::FgGc);
            }
            if self.segs.free_secs as u64 > self.needed_secs() {
                return;
            }
            let Some(v) = self.pick_victim(policy, None, u32::MAX) else {
                self.c.gc_no_victim += 1;
                return;
            };
            let n = self.geo.usable_segs_per_sec;
            if !self.gc_segments(v, 0, n, GcKind::Fg) {
                return;
            }
        }
    }

    /// Blocks a section can hold (below the zone capacity).
    fn cap_blocks(&self) -> u32 {
        self.geo.usable_segs_per_sec * BLKS_PER_SEG
    }

    /// The victim section by `policy` among sections that are written, not current and not
    /// full; `max_valid` filters (`gc_valid_thresh_ratio`); scan at most `search` sections
    /// round-robin from the last BG victim.
    fn pick_victim(&self, policy: Policy, max_valid: Option<u32>, search: u32) -> Option<u32> {
        let cap = self.cap_blocks();
        let n = self.geo.sections;
        let start = if search == u32::MAX {
            0
        } else {
            self.gc.last_victim
        };
        let limit = max_valid.unwrap_or(cap).min(cap);
        let candidate = |sec: u32| {
            let s = &self.segs.secs[sec as usize];
            !s.free && s.current == 0 && s.valid > 0 && s.valid < limit
        };
        let (mut lo, mut hi) = (u64::MAX, 0u64);
        if policy == Policy::CostBenefit {
            for k in 0..search.min(n) {
                let sec = (start + k) % n;
                if candidate(sec) {
                    let m = self.sec_mtime(sec);
                    lo = lo.min(m);
                    hi = hi.max(m);
                }
            }
        }
        let mut best: Option<(u32, u64)> = None;
        for k in 0..search.min(n) {
            let sec = (start + k) % n;
            if !candidate(sec) {
                continue;
            }
            let s = &self.segs.secs[sec as usize];
            let cost = match policy {
                Policy::Greedy => s.valid as u64,
                Policy::Fifo => s.alloc_seq,
                Policy::CostBenefit => {
                    // get_cb_cost: u = 100·valid/blocks, age = 100 − 100·(mtime−min)/(max−min)
                    let u = 100 * s.valid as u64 / cap as u64;
                    let m = self.sec_mtime(sec);
                    let age = if hi > lo {
                        100 - 100 * (m - lo) / (hi - lo)
                    } else {
                        0
                    };
                    u64::from(u32::MAX) - 100 * (100 - u) * age / (100 + u)
                }
            };
            if best.is_none_or(|(_, c)| cost < c) {
                best = Some((sec, cost));
            }
        }
        best.map(|b| b.0)
    }

    /// Valid-weighted mean modification time of a section.
    fn sec_mtime(&self, sec: u32) -> u64 {
        let spc = self.geo.segs_per_sec;
        let (mut sum, mut n) = (0u128, 0u128);
        for seg in sec * spc..sec * spc + self.geo.usable_segs_per_sec {
            let s = &self.segs.segs[seg as usize];
            sum += s.mtime as u128 * s.valid as u128;
            n += s.valid as u128;
        }
        sum.checked_div(n).unwrap_or(0) as u64
    }

    /// Move the valid blocks of `count` segments of section `sec` from segment offset `from`:
    /// per segment, read them all, then write them (data to COLD_DATA, nodes to their log).
    /// False if a block could not be placed (no free segment).
    pub(super) fn gc_segments(&mut self, sec: u32, from: u32, count: u32, kind: GcKind) -> bool {
        self.c.gc[kind as usize].victims += u64::from(from == 0);
        let first = sec * self.geo.segs_per_sec + from;
        let end = (sec * self.geo.segs_per_sec + self.geo.usable_segs_per_sec).min(first + count);
        for seg in first..end {
            let base = seg * BLKS_PER_SEG;
            if self.segs.segs[seg as usize].valid == 0 {
                continue;
            }
            self.out.barrier();
            if !self.p.gc_copy_offload {
                self.gc_read_segment(base);
                self.out.barrier();
            }
            let mtime = self.segs.segs[seg as usize].mtime;
            for b in base..base + BLKS_PER_SEG {
                let o = self.owner[b as usize];
                if o == NO_OWNER {
                    continue;
                }
                if !self.move_block(b, o, mtime) {
                    self.c.alloc_failures += 1;
                    return false;
                }
                self.c.gc[kind as usize].blocks_moved += 1;
            }
        }
        true
    }

    /// Read the valid blocks of the segment at block `base` (GC without copy offload).
    fn gc_read_segment(&mut self, base: u32) {
        for b in base..base + BLKS_PER_SEG {
            if self.owner[b as usize] != NO_OWNER {
                self.main_io(IoKind::Read, b);
                self.c.gc_read_bytes += BLOCK_BYTES;
            }
        }
    }

    fn move_block(&mut self, b: u32, o: u64, mtime: u64) -> bool {
        if o & NODE_OWNER != 0 {
            let nid = (o & !NODE_OWNER) as u32;
            let dirty = self.node_dirty[nid as usize];
            if dirty {
                // Written now by GC: no longer dirty.
                self.node_dirty[nid as usize] = false;
                self.dirty_nodes -= 1;
            }
            // A dirty node's current version is in memory: written, never copied.
            let copy = self.p.gc_copy_offload && !dirty;
            return self.write_node(nid, NodeWriter::Gc { copy });
        }
        let (ino, fb) = ((o >> 32) as u32, o as u32);
        let Some(nb) = self.alloc(COLD_DATA) else {
            return false;
        };
        self.invalidate(b);
        self.own(nb, o, mtime);
        self.inodes[ino as usize].addrs[fb as usize] = nb;
        self.dirty_node(ino, super::node::node_of(fb as u64));
        self.emit_moved(b, nb, self.p.gc_copy_offload);
        self.c.gc_data_bytes += BLOCK_BYTES;
        true
    }

    /// The device command that puts GC-moved block `old` at `new`: a write of the block read
    /// earlier (or held in memory), or (`copy`) a device-side copy. Counts the host-link bytes
    /// the copy offload saves against the read + write path (a skipped read of a block held in
    /// memory included).
    pub(super) fn emit_moved(&mut self, old: u32, new: u32, copy: bool) {
        let dst = self.geo.main_offset(new);
        if copy {
            let src = self.geo.main_offset(old);
            self.out.push_copy(Area::Main, src, dst, BLOCK_BYTES);
            self.c.gc_copy_bytes += BLOCK_BYTES;
            self.c.gc_link_bytes_saved += 2 * BLOCK_BYTES;
        } else {
            self.out.push(Area::Main, IoKind::Write, dst, BLOCK_BYTES);
            if self.p.gc_copy_offload {
                self.c.gc_link_bytes_saved += BLOCK_BYTES;
            }
        }
    }

    /// `has_enough_invalid_blocks`: invalid > 40 % of user blocks and free < 40 % of invalid.
    fn has_enough_invalid_blocks(&self) -> bool {
        let user = self.geo.user_blocks;
        let invalid = user.saturating_sub(self.valid_blocks);
        let free = self.segs.free_segs * BLKS_PER_SEG as u64;
        let free_user = free.saturating_sub(self.geo.ovp_segments * BLKS_PER_SEG as u64);
        invalid > user * 40 / 100 && free_user < invalid * 40 / 100
    }

    /// Whether background GC follows the zoned policy (a zoned main area under kernel 6.12 or
    /// later: phases, windows, paused only for reads); otherwise the conventional thread runs,
    /// on a zoned main area too (docs/fs.md "What differs between kernels").
    pub fn zoned_bg_gc(&self) -> bool {
        self.geo.zoned && self.p.kernel.zoned_bg_gc()
    }

    /// One wake of the background GC thread at `now`; `idle`: the gate (conventional: no
    /// request for `gc_idle_time`; zoned policy ([`F2fs::zoned_bg_gc`]): no user read in
    /// flight). Returns the sleep until the next wake in ns, `None` when background GC is off.
    pub fn bg_tick(&mut self, now: u64, idle: bool) -> Option<u64> {
        self.now = now;
        let dt = now.saturating_sub(self.gc.last_tick);
        self.c.phase_ns[self.gc.phase as usize] += dt;
        self.gc.last_tick = now;
        if !self.p.background_gc {
            return None;
        }
        self.c.bg_wakes += 1;
        let (min, max) = (self.p.gc_min_sleep_time_ms, self.p.gc_max_sleep_time_ms);
        let up = |s: u64| (s + min).min(max);
        let down = |s: u64| s.saturating_sub(min).max(min);
        if self.zoned_bg_gc() {
            let t = self.geo.sections as u64;
            let f = self.segs.free_secs as u64;
            if f > t * self.p.gc_no_zoned_gc_percent as u64 / 100 {
                self.gc.phase = GcPhase::NoGc;
                self.gc.sleep_ms = self.p.gc_no_gc_sleep_time_ms;
                return Some(self.gc.sleep_ms.saturating_mul(1_000_000));
            }
            let boosted = f <= t * self.p.gc_boost_zoned_gc_percent as u64 / 100;
            if self.gc.phase == GcPhase::NoGc {
                self.gc.sleep_ms = min;
            }
            self.gc.sleep_ms = if boosted {
                down(self.gc.sleep_ms)
            } else {
                up(self.gc.sleep_ms)
            };
            self.gc.phase = if boosted {
                GcPhase::Boosted
            } else {
                GcPhase::Normal
            };
            if idle {
                self.zoned_bg_round(boosted);
            } else {
                self.c.bg_paused += 1;
            }
        } else {
            self.gc.phase = GcPhase::Normal;
            self.gc.sleep_ms = if !idle {
                self.c.bg_paused += 1;
                up(self.gc.sleep_ms)
            } else if self.has_enough_invalid_blocks() {
                down(self.gc.sleep_ms)
            } else {
                up(self.gc.sleep_ms)
            };
            if idle {
                let search = self.p.max_victim_search;
                if let Some(v) = self.pick_victim(Policy::CostBenefit, None, search) {
                    self.gc.last_victim = v + 1;
                    let n = self.geo.usable_segs_per_sec;
                    self.gc_segments(v, 0, n, GcKind::BgNormal);
                }
            }
        }
        self.balance_fs_bg(idle);
        Some(self.gc.sleep_ms.saturating_mul(1_000_000))
    }

    /// One zoned BG round: a window of `migration_window_granularity` segments (× the boost
    /// multiple when boosted) of the victim section; the `gc_valid_thresh_ratio` filter with
    /// `one_time` (`Kernel::one_time_every_zoned_round`), dropped when free sections run out.
    fn zoned_bg_round(&mut self, boosted: bool) {
        let kind = if boosted {
            GcKind::BgBoosted
        } else {
            GcKind::BgNormal
        };
        let mut window = self.p.migration_window_granularity;
        if boosted {
            window *= self.p.gc_boost_gc_multiple;
        }
        let victim = match self.gc.victim {
            Some((sec, off)) if !self.segs.secs[sec as usize].free => Some((sec, off)),
            _ => {
                let one_time = boosted || self.p.kernel.one_time_every_zoned_round();
                let enough = self.segs.free_secs as u64 > self.needed_secs() + 6;
                let thresh = (one_time && enough)
                    .then(|| self.cap_blocks() * self.p.gc_valid_thresh_ratio / 100);
                let policy = if boosted && self.p.gc_boost_gc_greedy {
                    Policy::Greedy
                } else {
                    Policy::CostBenefit
                };
                self.pick_victim(policy, thresh, self.p.max_victim_search)
                    .map(|s| (s, 0))
            }
        };
        let Some((sec, off)) = victim else {
            self.gc.victim = None;
            return;
        };
        self.gc.last_victim = sec + 1;
        self.gc_segments(sec, off, window, kind);
        let next = off + window;
        self.gc.victim = (next < self.geo.usable_segs_per_sec).then_some((sec, next));
    }

    /// The background GC phase now.
    pub fn gc_phase(&self) -> GcPhase {
        self.gc.phase
    }
}
