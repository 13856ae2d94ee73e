//! The rows of `zufs-app-read`: each side's measurements beside the paper, the sensitivity
//! runs and their rows, Table 2's photos, and the measured explanations of the rows that miss.

use super::*;

pub(super) fn side_rows(rows: &mut Vec<Row>, name: &str, s: &Side) {
    rows.push(row_info(name, "user capacity GiB", s.user_gib));
    rows.push(row_info(name, "scale k (x 1e-3)", s.k * 1e3));
    rows.push(row_info(name, "stage-2 passes", s.passes as f64));
    rows.push(row_info(
        name,
        "free after aging GiB",
        s.free_after_aging_gib,
    ));
    let a = &s.aged;
    rows.push(row_info(
        name,
        "free segments after aging",
        a.free_segments as f64,
    ));
    rows.push(row_info(
        name,
        "dirty segments after aging",
        a.dirty_segments as f64,
    ));
    rows.push(row_info(
        name,
        "full segments after aging",
        a.valid_segments as f64,
    ));
    rows.push(row_info(
        name,
        "SSR segments while aging",
        s.aging_ssr as f64,
    ));
    rows.push(row_info(
        name,
        "foreground GC calls while aging",
        s.aging_fg_gc as f64,
    ));
    rows.push(row_info(
        name,
        "SSR segments writing the game",
        s.game.ssr_segments as f64,
    ));
    rows.push(row_info(
        name,
        "foreground GC calls writing the game",
        s.game.fg_gc_calls as f64,
    ));
    rows.push(row_info(name, "game files", s.game.files as f64));
    rows.push(row_info(name, "game read MiB/s", s.game.mib_s()));
    rows.push(row_info(name, "game read s per GiB", s.game.s_per_gib()));
    rows.push(row_info(
        name,
        "game verification + loading s per GiB",
        s.game.load_s_per_gib(),
    ));
    rows.push(row_info(
        name,
        "game fragments per file",
        s.game.frags_per_file(),
    ));
    for (b, bin) in BIN_NAMES.iter().enumerate().take(4).skip(1) {
        rows.push(row_info(
            name,
            &format!("game reads {bin} %"),
            s.game.reads.pct(b),
        ));
    }
}

pub(super) fn sensitivity(
    ccfg: &DeviceConfig,
    zcfg: &DeviceConfig,
    zfs: &FsConfig,
    o: &ExpOptions,
) -> Result<Sens> {
    let res_fs = scaled_reserve(ccfg)?;
    let reserve = simulate(ccfg, res_fs, PAPER, GAME_SHARE, o)?;
    let sync = Aging {
        sync_updates: true,
        ..PAPER
    };
    let sync_updates = simulate(ccfg, FsConfig::default(), sync, GAME_SHARE, o)?;
    let shares = vec![(
        0.9,
        true,
        simulate(ccfg, FsConfig::default(), sync, 0.9, o)?,
    )];
    let a = PhotoAging {
        how: Install {
            ext: ".jpg",
            other_bytes: Some(OTHER_BYTES),
        },
        ..PHOTO_AGING
    };
    let photo_ext = vec![(
        "as .jpg with a concurrent writer",
        photos(ccfg, FsConfig::default(), a, o)?,
        photos(zcfg, zfs.clone(), a, o)?,
    )];
    let search = scaled_search(ccfg)?;
    let mvs = FsConfig {
        max_victim_search: Some(search.1),
        ..FsConfig::default()
    };
    let photo_search = photos(ccfg, mvs, PHOTO_AGING, o)?;
    let photo_floor4 = photos(ccfg, FsConfig::default(), PHOTO_FLOOR_4X, o)?;
    let lfs_fs = FsConfig {
        mode: Some(FsModeCfg::Lfs),
        ..FsConfig::default()
    };
    let lfs = simulate(ccfg, lfs_fs, PAPER, GAME_SHARE, o)?;
    let mut floors = Vec::new();
    for &floor_gb in &FLOORS_GB {
        let a = Aging { floor_gb, ..PAPER };
        floors.push((
            floor_gb,
            simulate(ccfg, FsConfig::default(), a, GAME_SHARE, o)?,
        ));
    }
    Ok(Sens {
        lfs,
        floors,
        reserve,
        sync_updates,
        shares,
        photo_ext,
        photo_search,
        photo_floor4,
        search,
    })
}

pub(super) fn sens_rows(rows: &mut Vec<Row>, s: &Sens, cufs: &Side, zufs: &Side) {
    let start = rows.len();
    let mut add = |case: &str, x: &Side| {
        for (m, v) in [
            ("free segments after aging", x.aged.free_segments as f64),
            ("SSR segments writing the game", x.game.ssr_segments as f64),
            ("game reads 4-8 KiB %", x.game.reads.pct(0)),
            ("game reads >512 KiB %", x.game.reads.pct(4)),
            (
                "zufs vs this: game read time per GiB %",
                pct_change(zufs.game.s_per_gib(), x.game.s_per_gib()),
            ),
        ] {
            rows.push(row_info(case, m, v));
        }
    };
    add("cufs fs.mode=lfs (sensitivity)", &s.lfs);
    add("cufs reserve scaled by k (sensitivity)", &s.reserve);
    add(
        "cufs stage-2 overwrites fsync'd each (sensitivity)",
        &s.sync_updates,
    );
    for (share, sync, x) in &s.shares {
        let how = if *sync {
            ", overwrites fsync'd each"
        } else {
            ""
        };
        add(
            &format!(
                "cufs game = {:.0}% of free{how} (sensitivity)",
                share * 100.0
            ),
            x,
        );
    }
    for (f, x) in &s.floors {
        add(&format!("cufs aged to {f} GB (sensitivity)"), x);
    }
    for (label, c, z) in &s.photo_ext {
        photo_rows(rows, &format!("cufs photos {label} (sensitivity)"), c);
        photo_rows(rows, &format!("zufs photos {label} (sensitivity)"), z);
        rows.push(row_info(
            &format!("cufs / zufs photos {label} (sensitivity)"),
            "photo fragments per file ratio",
            c.set.frags_per_file() / z.set.frags_per_file().max(1e-12),
        ));
    }
    photo_rows(
        rows,
        "cufs photos, max_victim_search x k (sensitivity)",
        &s.photo_search,
    );
    photo_rows(
        rows,
        "cufs photos, aged to 4 x the photo set (sensitivity)",
        &s.photo_floor4,
    );
    for cpu in CPU_S_PER_GIB {
        rows.push(row_info(
            &format!("verification CPU {cpu} s per GiB on both sides (sensitivity)"),
            "zufs vs cufs: game time per GiB %",
            with_cpu(cufs, zufs, cpu),
        ));
    }
    for r in &mut rows[start..] {
        *r = r.clone().sensitivity();
    }
}

/// Host CPU time of the verification per GiB read (unstated; the sensitivity rows): 0 is the
/// I/O time alone.
pub(super) const CPU_S_PER_GIB: [f64; 4] = [0.0, 1.0, 4.0, 16.0];

/// ZUFS vs CUFS game time per GiB with `cpu` seconds of verification per GiB added to each
/// side's read time (the check runs after each read, one at a time: the times add).
pub(super) fn with_cpu(cufs: &Side, zufs: &Side, cpu: f64) -> f64 {
    pct_change(zufs.game.s_per_gib() + cpu, cufs.game.s_per_gib() + cpu)
}

/// The info rows of a photo run.
pub(super) fn photo_rows(rows: &mut Vec<Row>, name: &str, p: &Photos) {
    for (m, v) in [
        ("photo aging iterations (§5.5)", p.iterations as f64),
        (
            "free segments before the photos",
            p.aged.free_segments as f64,
        ),
        (
            "dirty segments before the photos",
            p.aged.dirty_segments as f64,
        ),
        ("SSR segments writing the photos", p.set.ssr_segments as f64),
        ("photo fragments per file", p.set.frags_per_file()),
        ("photo fragment length KiB", p.set.frag_kib()),
    ] {
        rows.push(row_info(name, m, v));
    }
}

/// The largest share (%) of the game's blocks the paper's Fig. 11 allows in 4-8 KiB requests:
/// 66.3% of the requests of at most 2 blocks beside 33.7% of at least 128 (> 512 KiB would be
/// more; 12-512 KiB requests fewer blocks, so this bound assumes they are 512 KiB).
pub(super) fn paper_small_block_share() -> f64 {
    let small = 66.3 * 2.0;
    100.0 * small / (small + 33.7 * 128.0)
}

pub(super) fn gaps(cufs: &Side, zufs: &Side, ph: (&Photos, &Photos), s: &Sens) -> Gaps {
    let (cph, zph) = ph;
    let (f4, mk) = (&s.photo_floor4, &s.photo_search);
    let floors: Vec<String> = s
        .floors
        .iter()
        .map(|(f, x)| format!("{:.1}% at {f} GB", x.game.reads.pct(0)))
        .collect();
    let times: Vec<String> = s
        .floors
        .iter()
        .map(|(f, x)| {
            let t = pct_change(zufs.game.s_per_gib(), x.game.s_per_gib());
            format!("{t:.1}% at {f} GB")
        })
        .collect();
    let cpu: Vec<String> = CPU_S_PER_GIB
        .iter()
        .map(|&c| format!("{c} s: {:.1}%", with_cpu(cufs, zufs, c)))
        .collect();
    let sh = &s.shares[0];
    let (ovp, paper_r) = paper_reserve();
    let levers = format!(
        ". Measured levers (sensitivity rows): mkfs.f2fs's reserve at 512 GB is {paper_r} segments ({ovp:.2}% overprovision), scaled by k {} segments instead of mkfs's {} at this size; SSR's threshold (free sections <= 2 x reserved) falls with it but so do the free segments the aging leaves ({}), and the game has {:.1}% 4-8 KiB reads. The unstated parameter that decides is how the stage-2 overwrites reach the disk: fsync'd one by one (F2FS's ipu_policy FSYNC bit updates them in place, no holes) the aging leaves {} free segments and the game {:.1}% 4-8 KiB reads; with the game taking {:.0}% of the free space (the paper's game needs about all of it) SSR takes its last {} segments: {:.1}% 4-8 KiB, {:.1}% >512 KiB reads. Neither aging gives the paper's mix. The paper's own times bound its small-read share: about 40 GB verified in 35 s is over 1.1 GB/s on CUFS, which a game in 4 KiB pieces cannot reach (ours: {:.0} MiB/s)",
        s.reserve.reserved_segments,
        cufs.reserved_segments,
        s.reserve.aged.free_segments,
        s.reserve.game.reads.pct(0),
        s.sync_updates.aged.free_segments,
        s.sync_updates.game.reads.pct(0),
        sh.0 * 100.0,
        sh.2.game.ssr_segments,
        sh.2.game.reads.pct(0),
        sh.2.game.reads.pct(4),
        cufs.game.mib_s(),
    );
    Gaps {
        ssr: format!(
            "after aging CUFS has {} free segments for {:.2} GiB of free space, the rest single-block holes left by the random overwrites; SSR places the game in them ({} SSR segments, {:.0} fragments per 4,096-block file), so almost every read is one block. The share is all-or-nothing here: with the aging stopped earlier (sensitivity rows) 4-8 KiB reads are {}: SSR serves every allocation while free sections are below its threshold. The paper's 66.3% (a third of its requests larger) means part of its game found free segments; how many free segments its phone had at install is not stated. Counted in blocks the difference is larger than it looks: the paper's 66.3% of requests beside a third of at least 512 KiB means at most {:.1}% of its game's blocks in 4-8 KiB pieces, here at least {:.0}%. The SSR rules are the kernel's (need_SSR per new segment, greedy on checkpointed-valid blocks, own type then the others, max_victim_search): with free sections below its threshold and none freed while the game is written, every new segment is an SSR one{levers}",
            cufs.aged.free_segments,
            cufs.free_after_aging_gib,
            cufs.game.ssr_segments,
            cufs.game.frags_per_file(),
            floors.join(", "),
            paper_small_block_share(),
            100.0 * cufs.game.reads.bins[0] as f64 / (cufs.game.bytes / BLOCK_BYTES).max(1) as f64,
        ),
        time: format!(
            "with the verification on the phone's cores ({:.2} s per GiB on CUFS, {:.2} on ZUFS; the read I/O alone {:.1}%) both loadings are bound by the reader thread, not the hashing ({:.2} s per GiB beside it): per GiB CUFS's reader waits {:.2} s for the device and spends {:.2} s on the host (system call, copies, and the block layer and completion path of each of its {:.0} requests per MiB), ZUFS's {:.2} s and {:.2} s ({:.1} requests per MiB). So the host time widens the gap that CUFS's small reads open. The I/O gap follows the share of the game placed by SSR (the unstated state of the phone at install, the 4-8 KiB reads row): {} (aging stopped earlier), {:.1}% against CUFS in LFS mode (no SSR), {:.1}% with the stage-2 overwrites fsync'd each (no SSR in the game); a serial verification (the hash after each read, not overlapped) adding a CPU time per GiB to both sides (sensitivity rows) gives {}",
            cufs.game.load_s_per_gib(),
            zufs.game.load_s_per_gib(),
            pct_change(zufs.game.s_per_gib(), cufs.game.s_per_gib()),
            phone_host().verify_mib_ns as f64 * 1024.0 / 1e9,
            cufs.game.s_per_gib(),
            cufs.game.host_s / cufs.game.gib(),
            cufs.game.reads.requests as f64 / (cufs.game.bytes as f64 / (1 << 20) as f64),
            zufs.game.s_per_gib(),
            zufs.game.host_s / zufs.game.gib(),
            zufs.game.reads.requests as f64 / (zufs.game.bytes as f64 / (1 << 20) as f64),
            times.join(", "),
            pct_change(zufs.game.s_per_gib(), s.lfs.game.s_per_gib()),
            pct_change(zufs.game.s_per_gib(), s.sync_updates.game.s_per_gib()),
            cpu.join(", "),
        ),
        zufs_frags: format!(
            "our ZUFS photos are written one at a time with nothing else writing the data log, so a 4.5 MB file splits only where it crosses a section boundary or a GC / node write interleaves: {:.2} fragments of {:.0} KiB per file (CUFS {:.1} of {:.0} KiB); the paper's phone does not say what else wrote while its photos were stored. Measured (sensitivity rows): {} (the concurrent writer: a 256 KiB file of the same extension written and fsync'd after each 4 MiB the flusher writes back of the photo, MIN_WRITEBACK_PAGES; an assumption, the paper names none): a concurrent writer in the photos' log brings ZUFS near the paper's",
            zph.set.frags_per_file(),
            zph.set.frag_kib(),
            cph.set.frags_per_file(),
            cph.set.frag_kib(),
            s.photo_ext.iter().map(|(l, c, z)| format!("photos {l}: ZUFS {:.2} fragments of {:.0} KiB, CUFS {:.1} of {:.0} KiB, ratios {:.1} (fragments) and {:.1} (length)", z.set.frags_per_file(), z.set.frag_kib(), c.set.frags_per_file(), c.set.frag_kib(), c.set.frags_per_file() / z.set.frags_per_file().max(1e-12), z.set.frag_kib() / c.set.frag_kib().max(1e-12))).collect::<Vec<_>>().join("; "),
        ),
        cufs_photos: format!(
            "at the paper's size F2FS's search for an SSR segment scans at most {} of the {} dirty segments the §5.5 aging leaves before the photos (max_victim_search, the kernel's default, not scaled with the device; the preset's dirty segments all fit in it), and SSR takes {} segments for {} photos (about {:.0} free blocks each): {:.1} fragments of {:.0} KiB per photo. How much free space the paper's phone had when its photos were stored is not stated (§5.5's loop stops \"below 1 GB\", which would not hold 5.9 GB of photos; ours stops at {} x the photo set), and it moves the result: aged only to 4 x the photo set, {:.1} fragments of {:.0} KiB; with max_victim_search x k ({}), {:.1} of {:.0} KiB (sensitivity rows)",
            s.search.0,
            cph.aged.dirty_segments,
            cph.set.ssr_segments,
            cph.set.files,
            (cph.set.bytes / BLOCK_BYTES) as f64 / cph.set.ssr_segments.max(1) as f64,
            cph.set.frags_per_file(),
            cph.set.frag_kib(),
            PHOTO_AGING.floor_x,
            f4.set.frags_per_file(),
            f4.set.frag_kib(),
            s.search.1,
            mk.set.frags_per_file(),
            mk.set.frag_kib(),
        ),
    }
}
