//! Tests of the zone state machine and the error log: unit tests here, property tests in
//! [`proptests`].

use super::*;
use ZoneCondition::*;
use ZoneErrorKind::*;

/// 8 zones of 16 LBAs, capacity 12, open limit 2, active limit 3.
fn cfg() -> ZoneConfig {
    ZoneConfig {
        zone_size: 16,
        zone_capacity: 12,
        zones: 8,
        max_open: 2,
        max_active: 3,
    }
}

fn set() -> ZoneSet {
    ZoneSet::new(cfg())
}

fn unlimited() -> ZoneSet {
    ZoneSet::new(ZoneConfig {
        max_open: 0,
        max_active: 0,
        ..cfg()
    })
}

fn z(i: u32) -> ZoneId {
    ZoneId(i)
}

fn at(zone: u32, off: u64) -> Lba {
    Lba(u64::from(zone) * 16 + off)
}

fn cond(s: &ZoneSet, i: u32) -> ZoneCondition {
    s.info(z(i)).condition
}

fn ok(s: &ZoneSet) {
    s.check_invariants().unwrap();
}

/// Run `f`, which must fail with `kind`, and check that nothing changed.
fn rejects(s: &mut ZoneSet, kind: ZoneErrorKind, f: impl FnOnce(&mut ZoneSet) -> ZoneErrorKind) {
    let before = s.clone();
    assert_eq!(f(s), kind);
    assert_eq!(*s, before, "a rejected request changed the state");
}

#[test]
fn new_set_is_empty_and_valid() {
    let s = set();
    ok(&s);
    assert_eq!(s.open_count(), 0);
    assert_eq!(s.active_count(), 0);
    let r = s.report(z(0), 100);
    assert_eq!(r.len(), 8);
    assert!(r
        .iter()
        .all(|i| i.condition == Empty && i.write_pointer == i.start));
    assert_eq!(r[3].start, Lba(48));
    assert_eq!(r[3].capacity, 12);
    assert_eq!(s.report(z(6), 5).len(), 2);
    assert_eq!(s.report(z(9), 5).len(), 0);
}

#[test]
fn zone_of_is_division() {
    let s = set();
    assert_eq!(s.zone_of(Lba(0)), z(0));
    assert_eq!(s.zone_of(Lba(15)), z(0));
    assert_eq!(s.zone_of(Lba(16)), z(1));
    assert_eq!(s.zone_of(Lba(127)), z(7));
    assert_eq!(s.zone_of(Lba(128)), z(8));
    assert_eq!(s.zone_start(z(5)), Lba(80));
}

#[test]
fn write_opens_implicitly_advances_and_fills() {
    let mut s = set();
    let o = s.check_and_apply_write(at(1, 0), 4).unwrap();
    assert_eq!(o.zone, z(1));
    assert_eq!(o.lba, at(1, 0));
    assert!(o.was_empty && o.opened && !o.became_full);
    assert_eq!(o.implicitly_closed, None);
    assert_eq!(cond(&s, 1), ImplicitOpen);
    assert_eq!(s.info(z(1)).write_pointer, at(1, 4));
    assert_eq!((s.open_count(), s.active_count()), (1, 1));
    let o = s.check_and_apply_write(at(1, 4), 4).unwrap();
    assert!(!o.was_empty && !o.opened && !o.became_full);
    let o = s.check_and_apply_write(at(1, 8), 4).unwrap();
    assert!(o.became_full);
    assert_eq!(cond(&s, 1), Full);
    assert_eq!(s.info(z(1)).write_pointer, at(1, 12));
    assert_eq!((s.open_count(), s.active_count()), (0, 0));
    ok(&s);
}

#[test]
fn single_write_of_whole_capacity_goes_empty_to_full() {
    let mut s = set();
    let o = s.check_and_apply_write(at(0, 0), 12).unwrap();
    assert!(o.was_empty && o.opened && o.became_full);
    assert_eq!(cond(&s, 0), Full);
    assert_eq!(s.active_count(), 0);
    ok(&s);
}

#[test]
fn unaligned_write_rejected() {
    let mut s = set();
    rejects(&mut s, UnalignedWrite, |s| {
        s.check_and_apply_write(at(0, 1), 1).unwrap_err()
    });
    s.check_and_apply_write(at(0, 0), 2).unwrap();
    rejects(&mut s, UnalignedWrite, |s| {
        s.check_and_apply_write(at(0, 0), 1).unwrap_err()
    });
    rejects(&mut s, UnalignedWrite, |s| {
        s.check_and_apply_write(at(0, 5), 1).unwrap_err()
    });
    ok(&s);
}

#[test]
fn write_to_full_rejected() {
    let mut s = set();
    s.check_and_apply_write(at(2, 0), 12).unwrap();
    rejects(&mut s, WriteFull, |s| {
        s.check_and_apply_write(at(2, 12), 1).unwrap_err()
    });
    rejects(&mut s, WriteFull, |s| {
        s.check_and_apply_write(at(2, 0), 1).unwrap_err()
    });
    rejects(&mut s, WriteFull, |s| s.append(z(2), 1).unwrap_err());
    s.finish(z(3)).unwrap();
    rejects(&mut s, WriteFull, |s| {
        s.check_and_apply_write(at(3, 0), 1).unwrap_err()
    });
}

#[test]
fn write_crossing_capacity_rejected_whole() {
    let mut s = set();
    s.check_and_apply_write(at(0, 0), 10).unwrap();
    rejects(&mut s, Boundary, |s| {
        s.check_and_apply_write(at(0, 10), 3).unwrap_err()
    });
    // Crossing into the next zone is also a boundary error.
    rejects(&mut s, Boundary, |s| {
        s.check_and_apply_write(at(0, 10), 20).unwrap_err()
    });
    // Starting in the gap between capacity and size.
    rejects(&mut s, Boundary, |s| {
        s.check_and_apply_write(at(1, 12), 1).unwrap_err()
    });
    rejects(&mut s, Boundary, |s| {
        s.check_and_apply_write(at(1, 15), 1).unwrap_err()
    });
    // Outside the namespace.
    rejects(&mut s, Boundary, |s| {
        s.check_and_apply_write(Lba(128), 1).unwrap_err()
    });
    rejects(&mut s, Boundary, |s| {
        s.check_and_apply_write(Lba(u64::MAX), 1).unwrap_err()
    });
    rejects(&mut s, Boundary, |s| {
        s.check_and_apply_write(at(0, 10), u64::MAX).unwrap_err()
    });
    // Exactly to capacity is fine.
    assert!(s.check_and_apply_write(at(0, 10), 2).unwrap().became_full);
}

#[test]
fn zero_length_write_is_noop() {
    let mut s = set();
    let before = s.clone();
    let o = s.check_and_apply_write(at(0, 0), 0).unwrap();
    assert!(!o.opened && !o.became_full);
    assert_eq!(s, before);
    rejects(&mut s, UnalignedWrite, |s| {
        s.check_and_apply_write(at(0, 3), 0).unwrap_err()
    });
}

#[test]
fn append_returns_written_lba() {
    let mut s = set();
    let (l, o) = s.append(z(4), 3).unwrap();
    assert_eq!(l, at(4, 0));
    assert!(o.opened && o.was_empty);
    let (l, _) = s.append(z(4), 5).unwrap();
    assert_eq!(l, at(4, 3));
    rejects(&mut s, Boundary, |s| s.append(z(4), 5).unwrap_err());
    let (l, o) = s.append(z(4), 4).unwrap();
    assert_eq!(l, at(4, 8));
    assert!(o.became_full);
    rejects(&mut s, Boundary, |s| s.append(z(8), 1).unwrap_err());
    ok(&s);
}

#[test]
fn implicit_close_of_least_recently_implicitly_opened() {
    let mut s = set(); // max_open 2, max_active 3
    s.check_and_apply_write(at(0, 0), 1).unwrap();
    s.check_and_apply_write(at(1, 0), 1).unwrap();
    // Writing zone 0 again does not change the order (it is by opening time).
    s.check_and_apply_write(at(0, 1), 1).unwrap();
    assert_eq!(s.implicit_open_order(), vec![z(0), z(1)]);
    let o = s.check_and_apply_write(at(2, 0), 1).unwrap();
    assert_eq!(o.implicitly_closed, Some(z(0)));
    assert_eq!(cond(&s, 0), Closed);
    assert_eq!((s.open_count(), s.active_count()), (2, 3));
    assert_eq!(s.implicit_open_order(), vec![z(1), z(2)]);
    ok(&s);
    // Active limit 3 reached: an EMPTY zone cannot be opened even though zone 1 could be
    // closed.
    rejects(&mut s, TooManyActive, |s| {
        s.check_and_apply_write(at(3, 0), 1).unwrap_err()
    });
    rejects(&mut s, TooManyActive, |s| s.open(z(3)).unwrap_err());
    rejects(&mut s, TooManyActive, |s| s.append(z(3), 1).unwrap_err());
    // A CLOSED zone only needs an open resource: zone 1 is closed to make room.
    let o = s.check_and_apply_write(at(0, 2), 1).unwrap();
    assert!(o.opened && !o.was_empty);
    assert_eq!(o.implicitly_closed, Some(z(1)));
    assert_eq!(s.implicit_open_order(), vec![z(2), z(0)]);
    ok(&s);
}

#[test]
fn too_many_open_when_all_open_are_explicit() {
    let mut s = ZoneSet::new(ZoneConfig {
        max_active: 0,
        ..cfg()
    });
    s.open(z(0)).unwrap();
    s.open(z(1)).unwrap();
    rejects(&mut s, TooManyOpen, |s| {
        s.check_and_apply_write(at(2, 0), 1).unwrap_err()
    });
    rejects(&mut s, TooManyOpen, |s| s.open(z(2)).unwrap_err());
    rejects(&mut s, TooManyOpen, |s| s.finish(z(2)).unwrap_err());
    // Writes to already open zones need nothing.
    s.check_and_apply_write(at(0, 0), 1).unwrap();
    assert_eq!(cond(&s, 0), ExplicitOpen);
    // Explicit open also implicitly closes an implicitly opened zone.
    s.close(z(1)).unwrap(); // nothing written: back to EMPTY
    assert_eq!(cond(&s, 1), Empty);
    s.check_and_apply_write(at(3, 0), 1).unwrap();
    s.open(z(4)).unwrap();
    assert_eq!(cond(&s, 3), Closed);
    assert_eq!(s.open_count(), 2);
    ok(&s);
}

#[test]
fn open_transitions() {
    let mut s = set();
    s.open(z(0)).unwrap();
    assert_eq!(cond(&s, 0), ExplicitOpen);
    assert_eq!((s.open_count(), s.active_count()), (1, 1));
    s.open(z(0)).unwrap(); // no-op
    assert_eq!(s.open_count(), 1);
    s.check_and_apply_write(at(1, 0), 1).unwrap();
    s.open(z(1)).unwrap(); // implicit -> explicit, no new resource
    assert_eq!(cond(&s, 1), ExplicitOpen);
    assert_eq!((s.open_count(), s.active_count()), (2, 2));
    assert!(s.implicit_open_order().is_empty());
    s.close(z(1)).unwrap();
    assert_eq!(cond(&s, 1), Closed);
    s.open(z(1)).unwrap(); // closed -> explicit
    assert_eq!(cond(&s, 1), ExplicitOpen);
    s.check_and_apply_write(at(1, 1), 11).unwrap();
    assert_eq!(cond(&s, 1), Full);
    rejects(&mut s, InvalidTransition, |s| s.open(z(1)).unwrap_err());
    rejects(&mut s, Boundary, |s| s.open(z(8)).unwrap_err());
    ok(&s);
}

#[test]
fn close_transitions() {
    let mut s = set();
    rejects(&mut s, InvalidTransition, |s| s.close(z(0)).unwrap_err()); // EMPTY
    s.check_and_apply_write(at(0, 0), 2).unwrap();
    s.close(z(0)).unwrap();
    assert_eq!(cond(&s, 0), Closed);
    assert_eq!((s.open_count(), s.active_count()), (0, 1));
    s.close(z(0)).unwrap(); // CLOSED: no-op
    assert_eq!(cond(&s, 0), Closed);
    s.open(z(1)).unwrap();
    s.close(z(1)).unwrap(); // explicitly opened, nothing written -> EMPTY
    assert_eq!(cond(&s, 1), Empty);
    assert_eq!(s.active_count(), 1);
    s.open(z(2)).unwrap();
    s.check_and_apply_write(at(2, 0), 1).unwrap();
    s.close(z(2)).unwrap();
    assert_eq!(cond(&s, 2), Closed);
    s.finish(z(3)).unwrap();
    rejects(&mut s, InvalidTransition, |s| s.close(z(3)).unwrap_err()); // FULL
    rejects(&mut s, Boundary, |s| s.close(z(99)).unwrap_err());
    // Writing a CLOSED zone reopens it implicitly.
    let o = s.check_and_apply_write(at(0, 2), 1).unwrap();
    assert!(o.opened);
    assert_eq!(cond(&s, 0), ImplicitOpen);
    ok(&s);
}

#[test]
fn finish_transitions() {
    let mut s = set();
    assert_eq!(s.finish(z(0)).unwrap(), at(0, 0)); // EMPTY
    assert_eq!(cond(&s, 0), Full);
    assert_eq!(s.info(z(0)).write_pointer, at(0, 12));
    assert_eq!(s.finish(z(0)).unwrap(), at(0, 12)); // FULL: no-op
    s.check_and_apply_write(at(1, 0), 3).unwrap();
    assert_eq!(s.finish(z(1)).unwrap(), at(1, 3)); // IMPLICIT_OPEN
    s.open(z(2)).unwrap();
    s.finish(z(2)).unwrap(); // EXPLICIT_OPEN
    s.check_and_apply_write(at(3, 0), 3).unwrap();
    s.close(z(3)).unwrap();
    s.finish(z(3)).unwrap(); // CLOSED
    for i in 0..4 {
        assert_eq!(cond(&s, i), Full);
    }
    assert_eq!((s.open_count(), s.active_count()), (0, 0));
    rejects(&mut s, Boundary, |s| s.finish(z(8)).unwrap_err());
    ok(&s);
}

#[test]
fn finish_of_empty_needs_an_active_resource() {
    let mut s = set(); // active limit 3
    s.check_and_apply_write(at(0, 0), 1).unwrap();
    s.check_and_apply_write(at(1, 0), 1).unwrap();
    s.check_and_apply_write(at(2, 0), 1).unwrap(); // closes zone 0
    rejects(&mut s, TooManyActive, |s| s.finish(z(5)).unwrap_err());
    // Finishing the CLOSED zone 0 needs an open resource: zone 1 is closed implicitly.
    s.finish(z(0)).unwrap();
    assert_eq!(cond(&s, 1), Closed);
    assert_eq!(cond(&s, 0), Full);
    ok(&s);
}

#[test]
fn reset_transitions() {
    let mut s = set();
    assert_eq!(s.reset(z(0)).unwrap(), at(0, 0)); // EMPTY: no-op
    assert_eq!(cond(&s, 0), Empty);
    s.check_and_apply_write(at(0, 0), 5).unwrap();
    assert_eq!(s.reset(z(0)).unwrap(), at(0, 5)); // IMPLICIT_OPEN
    assert_eq!(cond(&s, 0), Empty);
    assert_eq!(s.info(z(0)).write_pointer, at(0, 0));
    s.open(z(1)).unwrap();
    s.reset(z(1)).unwrap(); // EXPLICIT_OPEN
    s.check_and_apply_write(at(2, 0), 5).unwrap();
    s.close(z(2)).unwrap();
    assert_eq!(s.reset(z(2)).unwrap(), at(2, 5)); // CLOSED
    s.check_and_apply_write(at(3, 0), 12).unwrap();
    assert_eq!(s.reset(z(3)).unwrap(), at(3, 12)); // FULL
    assert_eq!((s.open_count(), s.active_count()), (0, 0));
    assert!(s.report(z(0), 8).iter().all(|i| i.condition == Empty));
    // Rewrite from the start after a reset.
    s.check_and_apply_write(at(3, 0), 1).unwrap();
    rejects(&mut s, Boundary, |s| s.reset(z(8)).unwrap_err());
    ok(&s);
}

#[test]
fn read_rules() {
    let mut s = set();
    s.check_read(at(0, 0), 0).unwrap();
    rejects(&mut s, ReadBeyondWp, |s| {
        s.check_read(at(0, 0), 1).unwrap_err()
    });
    s.check_and_apply_write(at(0, 0), 6).unwrap();
    s.check_read(at(0, 0), 6).unwrap();
    s.check_read(at(0, 5), 1).unwrap();
    rejects(&mut s, ReadBeyondWp, |s| {
        s.check_read(at(0, 5), 2).unwrap_err()
    });
    rejects(&mut s, ReadBeyondWp, |s| {
        s.check_read(at(0, 6), 1).unwrap_err()
    });
    // A FULL zone is readable up to its capacity, never in the gap.
    s.check_and_apply_write(at(1, 0), 12).unwrap();
    s.check_read(at(1, 0), 12).unwrap();
    rejects(&mut s, ReadBeyondWp, |s| {
        s.check_read(at(1, 11), 2).unwrap_err()
    });
    rejects(&mut s, ReadBeyondWp, |s| {
        s.check_read(at(1, 13), 1).unwrap_err()
    });
    // Outside the namespace.
    rejects(&mut s, Boundary, |s| s.check_read(Lba(127), 2).unwrap_err());
    rejects(&mut s, Boundary, |s| {
        s.check_read(Lba(u64::MAX), 2).unwrap_err()
    });
    s.check_read(Lba(128), 0).unwrap();
}

#[test]
fn reads_may_cross_zones_when_capacity_equals_size() {
    let mut s = ZoneSet::new(ZoneConfig {
        zone_capacity: 16,
        ..cfg()
    });
    s.check_and_apply_write(at(0, 0), 16).unwrap();
    s.check_and_apply_write(at(1, 0), 4).unwrap();
    s.check_read(at(0, 10), 10).unwrap();
    assert_eq!(s.check_read(at(0, 10), 11), Err(ReadBeyondWp));
    assert_eq!(s.check_read(at(1, 0), 20), Err(ReadBeyondWp));
}

#[test]
fn read_only_and_offline() {
    let mut s = set();
    s.check_and_apply_write(at(0, 0), 5).unwrap();
    s.check_and_apply_write(at(1, 0), 5).unwrap();
    s.mark_read_only(z(0));
    s.mark_offline(z(1));
    assert_eq!(cond(&s, 0), ReadOnly);
    assert_eq!(cond(&s, 1), Offline);
    assert_eq!((s.open_count(), s.active_count()), (0, 0));
    ok(&s);
    s.check_read(at(0, 0), 5).unwrap();
    rejects(&mut s, ReadBeyondWp, |s| {
        s.check_read(at(0, 0), 6).unwrap_err()
    });
    rejects(&mut s, InvalidTransition, |s| {
        s.check_read(at(1, 0), 1).unwrap_err()
    });
    for i in 0..2 {
        let wp = s.info(z(i)).write_pointer;
        rejects(&mut s, InvalidTransition, |s| {
            s.check_and_apply_write(wp, 1).unwrap_err()
        });
        rejects(&mut s, InvalidTransition, |s| {
            s.append(z(i), 1).unwrap_err()
        });
        rejects(&mut s, InvalidTransition, |s| s.open(z(i)).unwrap_err());
        rejects(&mut s, InvalidTransition, |s| s.close(z(i)).unwrap_err());
        rejects(&mut s, InvalidTransition, |s| s.finish(z(i)).unwrap_err());
        rejects(&mut s, InvalidTransition, |s| s.reset(z(i)).unwrap_err());
    }
}

#[test]
fn set_condition_for_test_keeps_accounting() {
    let mut s = unlimited();
    s.set_condition_for_test(z(0), Full);
    assert_eq!(s.info(z(0)).write_pointer, at(0, 12));
    s.check_and_apply_write(at(1, 0), 3).unwrap();
    s.set_condition_for_test(z(1), Closed);
    assert_eq!(s.active_count(), 1);
    s.set_condition_for_test(z(1), Empty);
    assert_eq!(s.info(z(1)).write_pointer, at(1, 0));
    s.set_condition_for_test(z(2), ExplicitOpen);
    assert_eq!(s.open_count(), 1);
    ok(&s);
    // A forced state the rules cannot produce is reported by the invariant check.
    s.set_condition_for_test(z(3), ImplicitOpen);
    assert!(s.check_invariants().is_err());
}

#[test]
fn unlimited_config_never_hits_limits() {
    let mut s = unlimited();
    for i in 0..8 {
        s.check_and_apply_write(at(i, 0), 1).unwrap();
    }
    assert_eq!((s.open_count(), s.active_count()), (8, 8));
    ok(&s);
}

#[test]
fn apply_dispatches() {
    let mut s = set();
    assert!(matches!(
        s.apply(&ZoneOp::Write {
            lba: at(0, 0),
            len: 2
        }),
        Ok(ZoneOpOutcome::Write(_))
    ));
    assert_eq!(
        s.apply(&ZoneOp::Append { zone: z(0), len: 1 }).unwrap(),
        ZoneOpOutcome::Append(
            at(0, 2),
            WriteOutcome {
                zone: z(0),
                lba: at(0, 2),
                len: 1,
                was_empty: false,
                opened: false,
                became_full: false,
                implicitly_closed: None
            }
        )
    );
    assert_eq!(
        s.apply(&ZoneOp::Read {
            lba: at(0, 0),
            len: 3
        }),
        Ok(ZoneOpOutcome::Read)
    );
    assert_eq!(s.apply(&ZoneOp::Close(z(0))), Ok(ZoneOpOutcome::Done));
    assert_eq!(s.apply(&ZoneOp::Open(z(0))), Ok(ZoneOpOutcome::Done));
    assert_eq!(
        s.apply(&ZoneOp::Finish(z(0))),
        Ok(ZoneOpOutcome::Finish(at(0, 3)))
    );
    assert_eq!(
        s.apply(&ZoneOp::Reset(z(0))),
        Ok(ZoneOpOutcome::Reset(at(0, 12)))
    );
    assert_eq!(s.apply(&ZoneOp::Close(z(0))), Err(InvalidTransition));
}

#[test]
fn config_validation() {
    assert!(cfg().validate().is_ok());
    let bad = |c: ZoneConfig| c.validate().unwrap_err().to_string();
    assert!(bad(ZoneConfig {
        zone_size: 0,
        ..cfg()
    })
    .contains("zone.size_bytes"));
    assert!(bad(ZoneConfig {
        zone_capacity: 0,
        ..cfg()
    })
    .contains("zone.capacity_bytes"));
    assert!(bad(ZoneConfig {
        zone_capacity: 17,
        ..cfg()
    })
    .contains("zone.capacity_bytes"));
    assert!(bad(ZoneConfig { zones: 0, ..cfg() }).contains("zone.count"));
    assert!(bad(ZoneConfig {
        max_open: 4,
        ..cfg()
    })
    .contains("zone.max_open"));
    assert!(bad(ZoneConfig {
        zone_size: u64::MAX / 2,
        zone_capacity: 1,
        ..cfg()
    })
    .contains("overflows"));
    assert!(ZoneSet::try_new(ZoneConfig { zones: 0, ..cfg() }).is_err());
    // Open limit without an active limit, and vice versa, are fine.
    assert!(ZoneConfig {
        max_active: 0,
        ..cfg()
    }
    .validate()
    .is_ok());
    assert!(ZoneConfig {
        max_open: 0,
        ..cfg()
    }
    .validate()
    .is_ok());
}

#[test]
fn serialization() {
    assert_eq!(
        serde_json::to_string(&ImplicitOpen).unwrap(),
        "\"IMPLICIT_OPEN\""
    );
    assert_eq!(serde_json::to_string(&ReadOnly).unwrap(), "\"READ_ONLY\"");
    assert_eq!(
        serde_json::to_string(&ReadBeyondWp).unwrap(),
        "\"read_beyond_wp\""
    );
    for k in ZoneErrorKind::ALL {
        assert_eq!(
            serde_json::to_string(&k).unwrap(),
            format!("\"{}\"", k.as_str())
        );
        assert_eq!(ZoneErrorKind::ALL[k.index()], k);
    }
    for c in [
        Empty,
        ImplicitOpen,
        ExplicitOpen,
        Closed,
        Full,
        ReadOnly,
        Offline,
    ] {
        assert_eq!(
            serde_json::to_string(&c).unwrap(),
            format!("\"{}\"", c.as_str())
        );
    }
    let mut s = set();
    s.check_and_apply_write(at(1, 0), 3).unwrap();
    let v = serde_json::to_value(s.info(z(1))).unwrap();
    assert_eq!(
        v,
        serde_json::json!({"id": 1, "start": 16, "condition": "IMPLICIT_OPEN",
                           "write_pointer": 19, "capacity": 12})
    );
}

#[test]
fn error_log_counts_and_first_records() {
    let mut s = set();
    let mut log = ZoneErrorLog::new();
    assert_eq!(
        serde_json::to_value(&log).unwrap(),
        serde_json::json!({"unaligned_write": 0, "write_full": 0, "boundary": 0,
            "too_many_open": 0, "too_many_active": 0, "read_beyond_wp": 0,
            "invalid_transition": 0})
    );
    for t in 0..20u64 {
        let op = ZoneOp::Write {
            lba: at(0, 3),
            len: 1,
        };
        let e = s.apply(&op).unwrap_err();
        log.record_op(e, &op, &s, t * 10);
    }
    let op = ZoneOp::Close(z(2));
    log.record_op(s.apply(&op).unwrap_err(), &op, &s, 999);
    let op = ZoneOp::Read {
        lba: Lba(200),
        len: 1,
    };
    log.record_op(s.apply(&op).unwrap_err(), &op, &s, 1000);
    assert_eq!(log.count(UnalignedWrite), 20);
    assert_eq!(log.count(InvalidTransition), 1);
    assert_eq!(log.count(Boundary), 1);
    assert_eq!(log.total(), 22);
    assert_eq!(log.first_errors().len(), FIRST_ERRORS_KEPT);
    let r = log.first_errors()[1];
    assert_eq!(r.kind, UnalignedWrite);
    assert_eq!(
        (r.op, r.lba, r.len, r.zone, r.time_ns),
        ("write", at(0, 3), 1, Some(z(0)), 10)
    );
    let v = serde_json::to_value(&log).unwrap();
    assert_eq!(v["unaligned_write"], 20);
    assert_eq!(v.as_object().unwrap().len(), 7);
    let rec = serde_json::to_value(log.first_errors()[0]).unwrap();
    assert_eq!(
        rec,
        serde_json::json!({"kind": "unaligned_write", "op": "write", "lba": 3, "len": 1,
                           "zone": 0, "time_ns": 0})
    );
    let mut other = ZoneErrorLog::default();
    other.record(WriteFull, "append", at(1, 0), 2, None, 5);
    let mut merged = ZoneErrorLog::new();
    merged.merge(&other);
    merged.merge(&log);
    assert_eq!(merged.total(), 23);
    assert_eq!(merged.first_errors()[0].kind, WriteFull);
    assert_eq!(merged.first_errors().len(), FIRST_ERRORS_KEPT);
}

mod proptests;
