use crate::engine::SimTime;
use crate::firmware::mapping::{PageMap, Ppa};
use std::collections::VecDeque;

/// Life cycle of a superblock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SbState {
    Free,
    /// Open in the given stream.
    Open(u8),
    /// Fully written; a GC candidate.
    Full,
    /// Out of service: a member went bad without a spare (firmware/wear).
    Retired,
}

/// Per-superblock bookkeeping.
#[derive(Debug, Clone, Copy)]
pub struct SbInfo {
    pub state: SbState,
    /// Valid 4 KiB slots.
    pub valid: u32,
    /// When it became full (cost-benefit age) and in which order (FIFO).
    pub closed_at: SimTime,
    pub close_seq: u64,
    /// Stream that wrote it.
    pub stream: u8,
}

/// All superblocks of one FTL and the free pool (FIFO of erased superblocks, which spreads
/// erases evenly: a simple dynamic wear levelling).
#[derive(Clone)]
pub struct Superblocks {
    pub info: Vec<SbInfo>,
    free: VecDeque<u32>,
    close_seq: u64,
    /// Wear of each superblock when dynamic wear levelling orders the pool (empty: FIFO).
    keys: Vec<u32>,
}

impl Superblocks {
    pub fn new(count: u32) -> Superblocks {
        Superblocks {
            info: vec![
                SbInfo {
                    state: SbState::Free,
                    valid: 0,
                    closed_at: SimTime::ZERO,
                    close_seq: 0,
                    stream: 0,
                };
                count as usize
            ],
            free: (0..count).collect(),
            close_seq: 0,
            keys: Vec::new(),
        }
    }

    pub fn free_count(&self) -> u32 {
        self.free.len() as u32
    }

    pub fn take_free(&mut self, stream: u8) -> Option<u32> {
        let sb = if self.keys.is_empty() {
            self.free.pop_front()?
        } else {
            self.take_least_worn()?
        };
        let i = &mut self.info[sb as usize];
        debug_assert!(i.state == SbState::Free && i.valid == 0);
        i.state = SbState::Open(stream);
        i.stream = stream;
        Some(sb)
    }

    pub fn close(&mut self, sb: u32, now: SimTime) {
        self.close_seq += 1;
        let i = &mut self.info[sb as usize];
        i.state = SbState::Full;
        i.closed_at = now;
        i.close_seq = self.close_seq;
    }

    /// Return an erased superblock to the pool.
    pub fn release(&mut self, sb: u32) {
        let i = &mut self.info[sb as usize];
        debug_assert_eq!(i.valid, 0);
        i.state = SbState::Free;
        self.free.push_back(sb);
    }

    /// Dynamic wear levelling: take the least-worn free superblock, the oldest on a tie (out
    /// of line: the write path inlines `take_free`).
    #[cold]
    #[inline(never)]
    fn take_least_worn(&mut self) -> Option<u32> {
        let (at, _) = self
            .free
            .iter()
            .enumerate()
            .min_by_key(|&(i, &s)| (self.keys[s as usize], i))?;
        self.free.remove(at)
    }

    /// Order the free pool by wear from now on (dynamic wear levelling): `keys[sb]` is the
    /// wear of `sb`, kept current with [`Superblocks::set_key`].
    pub fn level_by(&mut self, keys: Vec<u32>) {
        self.keys = keys;
    }

    /// The wear of `sb` changed (it was erased).
    pub fn set_key(&mut self, sb: u32, key: u32) {
        if let Some(k) = self.keys.get_mut(sb as usize) {
            *k = key;
        }
    }

    /// Take `sb` out of service for good: it leaves the free pool if it is there; it holds
    /// no valid data.
    pub fn retire(&mut self, sb: u32) {
        let i = &mut self.info[sb as usize];
        debug_assert_eq!(i.valid, 0);
        if i.state == SbState::Free {
            self.free.retain(|&s| s != sb);
        }
        i.state = SbState::Retired;
    }

    /// free + open + full = total, and the free list matches the states.
    pub fn check(&self) -> Result<(), String> {
        let free_state = self
            .info
            .iter()
            .filter(|i| i.state == SbState::Free)
            .count();
        if free_state != self.free.len() {
            return Err(format!(
                "{} superblocks in state Free but {} in the free pool",
                free_state,
                self.free.len()
            ));
        }
        Ok(())
    }

    /// Each superblock's valid count equals the reverse-map entries in it (`slots_per_sb`
    /// slots each, numbered as in `map`), and no free superblock holds valid data.
    pub fn check_valid(&self, map: &PageMap, slots_per_sb: u32) -> Result<(), String> {
        for (sb, info) in self.info.iter().enumerate() {
            let base = sb as u32 * slots_per_sb;
            let valid = (0..slots_per_sb)
                .filter(|&o| map.owner(Ppa(base + o)).is_some())
                .count() as u32;
            if valid != info.valid {
                return Err(format!(
                    "superblock {sb}: valid count {} but {valid} valid slots in the reverse map",
                    info.valid
                ));
            }
            if matches!(info.state, SbState::Free | SbState::Retired) && valid != 0 {
                return Err(format!(
                    "{:?} superblock {sb} holds {valid} valid slots",
                    info.state
                ));
            }
        }
        Ok(())
    }
}
