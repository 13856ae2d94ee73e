//! Property tests of the zone state machine: random request sequences keep its invariants and
//! the open/active limits, a failed request changes nothing, and writes and appends land at the
//! write pointer.

use super::super::*;
use proptest::prelude::*;

/// An abstract request, resolved against the current state so that a good share of writes
/// land at the write pointer.
#[derive(Clone, Debug)]
enum AOp {
    /// mode 0: at wp; 1: off wp by `delta`; 2: crossing capacity; 3: arbitrary LBA.
    Write {
        zone: u32,
        mode: u8,
        len: u64,
        delta: u64,
    },
    Append {
        zone: u32,
        len: u64,
    },
    /// mode 0: below wp; 1: arbitrary.
    Read {
        zone: u32,
        mode: u8,
        len: u64,
        delta: u64,
    },
    Open(u32),
    Close(u32),
    Finish(u32),
    Reset(u32),
    ReadOnly(u32),
    Offline(u32),
}

fn aop(zones: u32) -> impl Strategy<Value = AOp> {
    let zi = 0..zones + 1; // one past the end exercises `boundary`
    prop_oneof![
        8 => (zi.clone(), 0u8..4, 0u64..8, 1u64..20)
            .prop_map(|(zone, mode, len, delta)| AOp::Write { zone, mode, len, delta }),
        3 => (zi.clone(), 0u64..8).prop_map(|(zone, len)| AOp::Append { zone, len }),
        3 => (zi.clone(), 0u8..2, 0u64..8, 0u64..40)
            .prop_map(|(zone, mode, len, delta)| AOp::Read { zone, mode, len, delta }),
        2 => zi.clone().prop_map(AOp::Open),
        2 => zi.clone().prop_map(AOp::Close),
        1 => zi.clone().prop_map(AOp::Finish),
        2 => zi.clone().prop_map(AOp::Reset),
        1 => (0..zones).prop_map(AOp::ReadOnly),
        1 => (0..zones).prop_map(AOp::Offline),
    ]
}

fn config() -> impl Strategy<Value = ZoneConfig> {
    (1u64..24, 1u32..10, 0u32..5, 0u32..6).prop_flat_map(|(size, zones, mo, ma)| {
        (1..=size).prop_map(move |cap| {
            let (max_open, max_active) = if mo != 0 && ma != 0 && mo > ma {
                (ma, mo)
            } else {
                (mo, ma)
            };
            ZoneConfig {
                zone_size: size,
                zone_capacity: cap,
                zones,
                max_open,
                max_active,
            }
        })
    })
}

fn resolve(s: &ZoneSet, a: &AOp) -> Option<ZoneOp> {
    let c = *s.config();
    let start = |z: u32| u64::from(z) * c.zone_size;
    let wp = |z: u32| {
        if z < c.zones {
            s.info(ZoneId(z)).write_pointer.0
        } else {
            start(z)
        }
    };
    Some(match *a {
        AOp::Write {
            zone,
            mode,
            len,
            delta,
        } => {
            let (lba, len) = match mode {
                0 => (wp(zone), len),
                1 => (wp(zone) + delta, len),
                2 => {
                    let end = start(zone) + c.zone_capacity;
                    let w = wp(zone).min(end);
                    (w, end - w + delta)
                }
                _ => (delta * 3 % (c.namespace_lbas() + 2), len),
            };
            ZoneOp::Write { lba: Lba(lba), len }
        }
        AOp::Append { zone, len } => ZoneOp::Append {
            zone: ZoneId(zone),
            len,
        },
        AOp::Read {
            zone,
            mode,
            len,
            delta,
        } => {
            let lba = match mode {
                0 => start(zone) + delta % (wp(zone) - start(zone) + 1),
                _ => delta % (c.namespace_lbas() + 2),
            };
            ZoneOp::Read { lba: Lba(lba), len }
        }
        AOp::Open(z) => ZoneOp::Open(ZoneId(z)),
        AOp::Close(z) => ZoneOp::Close(ZoneId(z)),
        AOp::Finish(z) => ZoneOp::Finish(ZoneId(z)),
        AOp::Reset(z) => ZoneOp::Reset(ZoneId(z)),
        AOp::ReadOnly(_) | AOp::Offline(_) => return None,
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn random_ops_keep_invariants(
        (cfg, ops) in config().prop_flat_map(|c| (Just(c), proptest::collection::vec(aop(c.zones), 1..120)))
    ) {
        let mut s = ZoneSet::new(cfg);
        let mut log = ZoneErrorLog::new();
        let mut errors = 0u64;
        for a in &ops {
            let Some(op) = resolve(&s, a) else {
                match *a {
                    AOp::ReadOnly(z) => s.mark_read_only(ZoneId(z)),
                    AOp::Offline(z) => s.mark_offline(ZoneId(z)),
                    _ => unreachable!(),
                }
                prop_assert!(s.check_invariants().is_ok());
                continue;
            };
            let before = s.clone();
            let order_before = s.implicit_open_order();
            let r = s.apply(&op);
            if let Err(e) = s.check_invariants() {
                return Err(TestCaseError::fail(format!("{op:?} -> {r:?}: {e}")));
            }
            if cfg.max_open != 0 {
                prop_assert!(s.open_count() <= cfg.max_open);
            }
            if cfg.max_active != 0 {
                prop_assert!(s.active_count() <= cfg.max_active);
            }
            match r {
                Err(e) => {
                    prop_assert_eq!(&s, &before, "{:?} failed with {} but changed state", op, e);
                    log.record_op(e, &op, &s, 0);
                    errors += 1;
                }
                Ok(ZoneOpOutcome::Write(o)) | Ok(ZoneOpOutcome::Append(_, o)) => {
                    let zi = o.zone;
                    let (ZoneOp::Write { len, .. } | ZoneOp::Append { len, .. }) = op else {
                        unreachable!()
                    };
                    if let ZoneOp::Append { zone, .. } = op {
                        prop_assert_eq!(zone, zi);
                        prop_assert_eq!(o.lba, before.info(zi).write_pointer);
                    }
                    prop_assert_eq!(o.lba, before.info(zi).write_pointer);
                    prop_assert_eq!(s.info(zi).write_pointer.0, o.lba.0 + len);
                    prop_assert_eq!(o.became_full, s.info(zi).condition == ZoneCondition::Full && len > 0);
                    prop_assert_eq!(o.was_empty, before.info(zi).condition == ZoneCondition::Empty);
                    // The victim is the least recently implicitly opened zone.
                    if let Some(v) = o.implicitly_closed {
                        prop_assert_eq!(Some(&v), order_before.first());
                        prop_assert_eq!(s.info(v).condition, ZoneCondition::Closed);
                    }
                    // Only the written zone and the victim changed.
                    for i in 0..cfg.zones {
                        let id = ZoneId(i);
                        if id != zi && Some(id) != o.implicitly_closed {
                            prop_assert_eq!(s.info(id), before.info(id));
                        }
                    }
                    if o.opened && !o.became_full {
                        let order = s.implicit_open_order();
                        prop_assert_eq!(order.last(), Some(&zi));
                    }
                }
                Ok(ZoneOpOutcome::Read) => prop_assert_eq!(&s, &before),
                Ok(ZoneOpOutcome::Reset(prev)) => {
                    let ZoneOp::Reset(z) = op else { unreachable!() };
                    prop_assert_eq!(prev, before.info(z).write_pointer);
                    prop_assert_eq!(s.info(z).condition, ZoneCondition::Empty);
                }
                Ok(ZoneOpOutcome::Finish(prev)) => {
                    let ZoneOp::Finish(z) = op else { unreachable!() };
                    prop_assert_eq!(prev, before.info(z).write_pointer);
                    prop_assert_eq!(s.info(z).condition, ZoneCondition::Full);
                }
                Ok(ZoneOpOutcome::Done) => {}
            }
            // Implicit-open order: survivors keep their relative order, newcomers at the end.
            let after = s.implicit_open_order();
            let kept: Vec<ZoneId> = order_before.iter().copied().filter(|z| after.contains(z)).collect();
            prop_assert_eq!(&after[..kept.len()], &kept[..]);
            prop_assert!(after.len() <= kept.len() + 1);
        }
        prop_assert_eq!(log.total(), errors);
    }
}
