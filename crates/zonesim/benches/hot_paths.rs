//! Criterion micro-benchmarks of the hot paths (`cargo bench -p zonesim`). The end-to-end
//! speed cases are `zonesim bench`.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use rand::Rng as _;
use zonesim::device::Device;
use zonesim::engine::{rng_for, EventQueue, SimTime, Timeline};
use zonesim::firmware::mapping::L2pSram;
use zonesim::host::trace::{TraceOptions, TraceReader};
use zonesim::interface::{Command, Op};

fn timeline(c: &mut Criterion) {
    c.bench_function("timeline_reserve_qd32", |b| {
        let mut t = Timeline::new();
        let mut rng = rng_for(1, 1);
        let mut now = 0u64;
        b.iter(|| {
            now += 100;
            t.advance(SimTime(now));
            let ready = now + rng.gen_range(0..3200);
            black_box(t.reserve(SimTime(ready), 97))
        })
    });
}

fn l2p_cache(c: &mut Criterion) {
    c.bench_function("l2p_cache_access_zipfish", |b| {
        // 64 map pages of 16 KiB over a 1024-page map.
        let mut cache = L2pSram::new(64 * 16384, 16384, 4, 1024, 0);
        let mut rng = rng_for(1, 2);
        b.iter(|| {
            let k = if rng.gen_bool(0.8) {
                rng.gen_range(0..48)
            } else {
                rng.gen_range(0..1024)
            };
            black_box(cache.access(k, rng.gen_bool(0.3)))
        })
    });
}

fn event_queue(c: &mut Criterion) {
    c.bench_function("event_queue_push_pop_32", |b| {
        let mut q = EventQueue::new();
        for i in 0..32u64 {
            q.push(SimTime(i * 1000), i);
        }
        b.iter(|| {
            let (t, e) = q.pop().unwrap();
            q.push(t + 32_000, e);
        })
    });
}

fn trace_parse(c: &mut Criterion) {
    let mut text = String::new();
    for i in 0..10_000u64 {
        text.push_str(&format!(
            "{} {} {} {} {}\n",
            i * 1000,
            i % 4,
            (i * 7919) % 1_000_000 * 8,
            16,
            i % 2
        ));
    }
    let bytes = text.into_bytes();
    c.bench_function("disksim_parse_10k_lines", |b| {
        b.iter(|| {
            let mut r = TraceReader::from_reader(
                "bench.trace",
                Box::new(std::io::Cursor::new(bytes.clone())),
                &TraceOptions::default(),
            )
            .unwrap();
            let mut n = 0;
            while let Some(rec) = r.next_record().unwrap() {
                n += rec.io.len;
            }
            black_box(n)
        })
    });
}

fn device_submit(c: &mut Criterion) {
    let cfg =
        zonesim::load_device("ufs-conventional", &["nand.blocks_per_plane=96".into()]).unwrap();
    let mut dev = Device::new(&cfg, 1).unwrap();
    let pages = dev.capacity_bytes(0) / 4096;
    let mut now = SimTime::ZERO;
    for p in (0..pages).step_by(32) {
        now = dev
            .submit(
                now,
                0,
                Command::widen(Op::Write { hint: 0 }, p * 4096, 32 * 4096),
            )
            .done;
    }
    let mut rng = rng_for(1, 3);
    c.bench_function("device_random_read_4k", |b| {
        b.iter(|| {
            now += 10_000; // 100 K requests/s: below saturation
            let p = rng.gen_range(0..pages);
            black_box(dev.submit(now, 0, Command::widen(Op::Read, p * 4096, 4096)))
        })
    });
    c.bench_function("device_random_write_4k", |b| {
        b.iter(|| {
            now += 10_000; // 100 K requests/s: below saturation
            let p = rng.gen_range(0..pages);
            black_box(dev.submit(
                now,
                0,
                Command::widen(Op::Write { hint: 0 }, p * 4096, 4096),
            ))
        })
    });
}

criterion_group!(
    benches,
    timeline,
    l2p_cache,
    event_queue,
    trace_parse,
    device_submit
);
criterion_main!(benches);
