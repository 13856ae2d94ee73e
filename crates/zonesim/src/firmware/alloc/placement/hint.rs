//! `hint`: the host chooses the stream with a per-request lifetime hint (fio `write_hint`:
//! none, short, medium, long, extreme — the Linux `RWH_WRITE_LIFE_*` values that F2FS derives
//! from its six-log temperatures). Hint code h (0 none .. 4 extreme) -> stream h. GC survivors
//! stay in the stream of the superblock they come from: the host's class is kept.

use super::Place;
use crate::firmware::mapping::Lpa;

/// none, short, medium, long, extreme (defined in `config`, which counts streams with it).
pub use crate::config::HINT_STREAMS;

#[derive(Clone)]
pub struct Hint;

impl Place for Hint {
    fn streams(&self) -> usize {
        HINT_STREAMS
    }
    #[inline]
    fn host(&mut self, _lpa: Lpa, hint: u8) -> usize {
        (hint as usize).min(HINT_STREAMS - 1)
    }
    #[inline]
    fn gc(&mut self, _lpa: Lpa, from: usize) -> usize {
        from
    }
}
