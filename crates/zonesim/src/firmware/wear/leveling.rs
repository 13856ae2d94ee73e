//! Wear levelling (`ftl.wear_leveling`). Dynamic: a new superblock is the least-erased free
//! one (`Superblocks` orders its pick by the keys this room sets). Static: cold data pins
//! blocks that are rarely erased, so dynamic levelling alone leaves them young while the rest
//! wears; when the spread of erase counts (max - min over superblocks in service) passes
//! `ftl.wear_leveling_spread`, the least-erased full superblock's data is moved so it rejoins
//! the pool (Chang, Hsieh and Kuo, "Endurance enhancement of flash-memory storage systems: an
//! efficient static wear leveling design", DAC 2007; Agrawal et al., "Design tradeoffs for
//! SSD performance", USENIX ATC 2008).

/// The superblock static wear levelling moves now, if any: the spread of `erases` over the
/// superblocks `in_service` passes `spread`, and the least-erased `full` one is the victim.
pub fn static_victim(
    erases: impl Iterator<Item = (u32, u32)> + Clone,
    spread: u32,
    full: impl Fn(u32) -> bool,
) -> Option<u32> {
    let max = erases.clone().map(|(_, e)| e).max()?;
    let min = erases.clone().map(|(_, e)| e).min()?;
    if max - min <= spread {
        return None;
    }
    erases
        .filter(|&(sb, e)| full(sb) && e + spread < max)
        .min_by_key(|&(sb, e)| (e, sb))
        .map(|(sb, _)| sb)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moves_the_coldest_full_superblock_only_past_the_spread() {
        let e = [(0, 10), (1, 2), (2, 30), (3, 1)];
        assert_eq!(static_victim(e.iter().copied(), 40, |_| true), None);
        assert_eq!(static_victim(e.iter().copied(), 20, |_| true), Some(3));
        assert_eq!(static_victim(e.iter().copied(), 20, |s| s != 3), Some(1));
        assert_eq!(static_victim(e.iter().copied(), 20, |s| s == 2), None);
    }
}
