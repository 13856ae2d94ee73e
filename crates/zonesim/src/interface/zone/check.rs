//! The zone state machine's invariants ([`ZoneSet::check_invariants`]): counters agree with
//! the conditions, the implicit-open list holds exactly the implicitly open zones, write
//! pointers lie in their zone and agree with its condition, and the open/active limits hold.
//! Run after every command in debug builds and by the property tests.

use super::{ZoneCondition, ZoneSet, NIL};

impl ZoneSet {
    /// Check every internal invariant: counters match conditions, the implicit-open list holds
    /// exactly the IMPLICIT_OPEN zones, write pointers are in `[start, start + capacity]` and agree
    /// with the condition, and the open/active limits hold.
    pub fn check_invariants(&self) -> Result<(), String> {
        let (mut imp, mut exp, mut closed) = (0u32, 0u32, 0u32);
        for (i, s) in self.slots.iter().enumerate() {
            let start = self.start_of(i as u32);
            let end = self.cap_end_of(i as u32);
            if s.wp < start || s.wp > end {
                return Err(format!(
                    "zone {i}: write pointer {} outside [{start}, {end}]",
                    s.wp
                ));
            }
            let ok = match s.cond {
                ZoneCondition::Empty => s.wp == start,
                ZoneCondition::ImplicitOpen | ZoneCondition::Closed => s.wp > start && s.wp < end,
                ZoneCondition::ExplicitOpen => s.wp < end,
                ZoneCondition::Full => s.wp == end,
                ZoneCondition::ReadOnly | ZoneCondition::Offline => true,
            };
            if !ok {
                return Err(format!(
                    "zone {i}: condition {} with write pointer {} (start {start}, capacity end {end})",
                    s.cond, s.wp
                ));
            }
            match s.cond {
                ZoneCondition::ImplicitOpen => imp += 1,
                ZoneCondition::ExplicitOpen => exp += 1,
                ZoneCondition::Closed => closed += 1,
                _ => {
                    if s.prev != NIL || s.next != NIL {
                        return Err(format!("zone {i}: linked but not IMPLICIT_OPEN"));
                    }
                }
            }
        }
        if (imp, exp, closed) != (self.nr_imp, self.nr_exp, self.nr_closed) {
            return Err(format!(
                "counters imp/exp/closed {}/{}/{} but zones are {imp}/{exp}/{closed}",
                self.nr_imp, self.nr_exp, self.nr_closed
            ));
        }
        // Walk the implicit-open list.
        let mut n = 0u32;
        let mut prev = NIL;
        let mut cur = self.imp_head;
        while cur != NIL {
            let s = self
                .slots
                .get(cur as usize)
                .ok_or_else(|| format!("implicit-open list: bad link {cur}"))?;
            if s.cond != ZoneCondition::ImplicitOpen {
                return Err(format!("implicit-open list: zone {cur} is {}", s.cond));
            }
            if s.prev != prev {
                return Err(format!(
                    "implicit-open list: zone {cur} has a wrong back link"
                ));
            }
            n += 1;
            if n > imp {
                return Err("implicit-open list: longer than the IMPLICIT_OPEN count".into());
            }
            prev = cur;
            cur = s.next;
        }
        if n != imp || self.imp_tail != prev {
            return Err(format!(
                "implicit-open list: {n} entries (tail {}), {imp} zones IMPLICIT_OPEN",
                self.imp_tail
            ));
        }
        if self.cfg.max_open != 0 && self.open_count() > self.cfg.max_open {
            return Err(format!(
                "{} open zones, limit {}",
                self.open_count(),
                self.cfg.max_open
            ));
        }
        if self.cfg.max_active != 0 && self.active_count() > self.cfg.max_active {
            return Err(format!(
                "{} active zones, limit {}",
                self.active_count(),
                self.cfg.max_active
            ));
        }
        Ok(())
    }
}
