use super::*;

fn one(text: &str) -> JobSpec {
    let mut jobs = parse_job_file(text, "t.fio").unwrap();
    assert_eq!(jobs.len(), 1);
    jobs.pop().unwrap()
}

fn err(text: &str) -> String {
    parse_job_file(text, "t.fio").unwrap_err().to_string()
}

#[test]
fn defaults_and_name() {
    let j = one("[job1]\n");
    let mut d = default_job();
    d.name = "job1".into();
    d.line = 1;
    d.file = "t.fio".into();
    assert_eq!(j, d);
    // Each option's line, the last given (`[global]`'s inherited), for errors after parsing.
    let j = one("[global]
bs=8k
[a]
size=1m

size=2m
");
    assert_eq!(j.line_of(&["size"]), 6);
    assert_eq!(j.line_of(&["bs", "blocksize"]), 2);
    assert_eq!(j.line_of(&["nrfiles"]), 3);
    assert_eq!(one("[a]\nname=b").name, "b");
}

#[test]
fn rw_modes() {
    for (s, m) in [
        ("read", RwMode::Read),
        ("write", RwMode::Write),
        ("randread", RwMode::RandRead),
        ("randwrite", RwMode::RandWrite),
        ("rw", RwMode::ReadWrite),
        ("readwrite", RwMode::ReadWrite),
        ("randrw", RwMode::RandRw),
        ("trim", RwMode::Trim),
        ("randtrim", RwMode::RandTrim),
        ("RandWrite", RwMode::RandWrite),
    ] {
        assert_eq!(one(&format!("[j]\nrw={s}")).rw, m);
        assert_eq!(one(&format!("[j]\nreadwrite = {s}")).rw, m);
    }
    assert!(err("[j]\nrw=randwrite:8").contains("modifier"));
    assert_eq!(
        err("[j]\nrw=sideways"),
        "t.fio:2: rw must be one of read, write, randread, randwrite, rw, readwrite, randrw, \
         trim, randtrim, got 'sideways'"
    );
}

#[test]
fn sizes_and_suffixes() {
    for (s, b) in [
        ("4096", 4096),
        ("4k", 4096),
        ("4K", 4096),
        ("4KiB", 4096),
        ("4kb", 4096),
        ("1m", 1 << 20),
        ("128KiB", 128 << 10),
        ("1g", 1 << 30),
    ] {
        assert_eq!(one(&format!("[j]\nbs={s}")).bs, b, "{s}");
    }
    assert_eq!(one("[j]\nblocksize=8k").bs, 8192);
    assert_eq!(one("[j]\nsize=2g").size, Some(SizeSpec::Bytes(2 << 30)));
    assert_eq!(one("[j]\nsize=50%").size, Some(SizeSpec::Percent(50.0)));
    assert_eq!(one("[j]\nsize=12.5%").size, Some(SizeSpec::Percent(12.5)));
    assert_eq!(one("[j]\nsize=4z").size, Some(SizeSpec::Zones(4)));
    assert_eq!(one("[j]\noffset=1m").offset, SizeSpec::Bytes(1 << 20));
    assert_eq!(one("[j]\noffset=25%").offset, SizeSpec::Percent(25.0));
    assert_eq!(one("[j]\noffset=3z").offset, SizeSpec::Zones(3));
    assert_eq!(
        one("[j]\nio_size=8g").io_size,
        Some(SizeSpec::Bytes(8 << 30))
    );
    assert_eq!(one("[j]\nio_limit=16z").io_size, Some(SizeSpec::Zones(16)));
}

#[test]
fn bad_sizes() {
    let rule = "bs must be a positive multiple of 512 bytes";
    assert!(err("[j]\nbs=1000").contains(rule));
    assert!(err("[j]\nbs=0").contains(rule));
    assert!(err("[j]\nbs=4q").contains(rule));
    assert!(err("[j]\nbs=").contains(rule));
    assert!(err("[j]\nbs=4k,8k").contains("separate read/write"));
    assert!(err("[j]\nbs=99999999999999999p").contains(rule));
    assert!(err("[j]\nsize=0").contains("size must be positive"));
    assert!(err("[j]\nsize=150%").contains("percentage must be in 0..=100"));
    assert!(err("[j]\nsize=lots").contains("size must be a byte count"));
    assert!(err("[j]\nio_size=10%").contains("io_size must be a byte count"));
    assert!(err("[j]\nbs").contains("option 'bs' needs a value"));
}

#[test]
fn integer_options() {
    let j = one(
        "[j]\nnumber_ios=1000\nloops=3\niodepth=32\nnumjobs=4\nrwmixread=70\nfsync=8\n\
         max_open_zones=14",
    );
    assert_eq!(j.number_ios, Some(1000));
    assert_eq!(j.loops, 3);
    assert_eq!(j.iodepth, 32);
    assert_eq!(j.numjobs, 4);
    assert_eq!(j.rwmixread, 70);
    assert_eq!(j.fsync, 8);
    assert_eq!(j.max_open_zones, 14);
    assert_eq!(one("[j]\nrwmixwrite=30").rwmixread, 70);
    assert_eq!(one("[j]\nrwmixwrite=30\nrwmixread=10").rwmixread, 10);
    assert!(err("[j]\niodepth=0").contains("iodepth must be an integer in 1..="));
    assert!(err("[j]\nrwmixread=101").contains("rwmixread must be an integer in 0..=100"));
    assert!(err("[j]\nloops=-1").contains("loops must be an integer >= 1"));
    assert!(err("[j]\nnumjobs=two").contains("numjobs"));
}

#[test]
fn priority_options() {
    use crate::sched::{IoPrio, CLASS_IDLE};
    let j = one("[j]\nprioclass=3\nprio=7");
    assert_eq!(
        j.prio,
        IoPrio {
            class: CLASS_IDLE,
            level: Some(7)
        }
    );
    assert_eq!(one("[j]").prio, IoPrio::default());
    assert!(err("[j]\nprio=8").contains("prio must be an integer in 0..=7"));
    assert!(err("[j]\nprioclass=4").contains("prioclass must be an integer in 0..=3"));
    assert!(err("[j]\nprio=-1").contains("prio must be"));
}

#[test]
fn distributions() {
    let d = |s: &str| one(&format!("[j]\nrandom_distribution={s}")).distribution;
    assert_eq!(d("random"), Distribution::Uniform);
    assert_eq!(d("zipf:1.2"), Distribution::Zipf(1.2));
    assert_eq!(d("zipf:0.8"), Distribution::Zipf(0.8));
    assert_eq!(d("zipf"), Distribution::Zipf(1.1));
    assert_eq!(d("pareto:0.9"), Distribution::Pareto(0.9));
    assert_eq!(d("pareto"), Distribution::Pareto(0.2));
    assert_eq!(d("normal:5"), Distribution::Normal(5.0));
    assert!(err("[j]\nrandom_distribution=zipf:1").contains("different from 1"));
    assert!(err("[j]\nrandom_distribution=zipf:-2").contains("zipf θ must be > 0"));
    assert!(err("[j]\nrandom_distribution=pareto:1.5").contains("pareto h"));
    assert!(err("[j]\nrandom_distribution=normal").contains("normal needs σ"));
    assert!(err("[j]\nrandom_distribution=normal:0").contains("normal σ"));
    assert!(err("[j]\nrandom_distribution=zipf:1.2:0.5").contains("centre"));
    assert!(err("[j]\nrandom_distribution=zoned:50/5").contains("must be random"));
    assert!(err("[j]\nrandom_distribution=zipf:x").contains("not a number"));
}

#[test]
fn times() {
    let j = one("[j]\nruntime=10\nthinktime=50");
    assert_eq!(j.runtime_ns, Some(10 * NS_PER_S));
    assert_eq!(j.thinktime_ns, 50 * NS_PER_US);
    assert_eq!(one("[j]\nruntime=250ms").runtime_ns, Some(250_000_000));
    assert_eq!(one("[j]\nruntime=2m").runtime_ns, Some(120 * NS_PER_S));
    assert_eq!(one("[j]\nruntime=30us").runtime_ns, Some(30_000));
    assert_eq!(one("[j]\nruntime=3s").runtime_ns, Some(3 * NS_PER_S));
    assert_eq!(one("[j]\nruntime=0").runtime_ns, None);
    assert_eq!(one("[j]\nthinktime=2ms").thinktime_ns, 2_000_000);
    assert_eq!(one("[j]\nthinktime=1s").thinktime_ns, NS_PER_S);
    assert!(err("[j]\nruntime=5 fortnights").contains("runtime must be an integer"));
    assert!(err("[j]\nthinktime=ms").contains("thinktime"));
    assert_eq!(one("[j]\nage=30").age_ns, 30 * 86_400 * NS_PER_S);
    assert_eq!(one("[j]\nage=12h").age_ns, 12 * 3_600 * NS_PER_S);
    assert_eq!(one("[j]").age_ns, 0);
    assert!(err("[j]\nage=36501").contains("at most 36500 days"));
    assert!(err("[j]\nage=-1").contains("age must be an integer"));
}

#[test]
fn flags() {
    let j = one("[j]\nstonewall\ntime_based\nruntime=1\nnorandommap");
    assert!(j.stonewall && j.time_based && j.norandommap);
    let j = one("[j]\nstonewall=0\ntime_based=1\nruntime=1\nwait_for_previous=0");
    assert!(!j.stonewall && j.time_based);
    assert!(err("[j]\ntime_based=yes").contains("time_based must be 0 or 1"));
}

#[test]
fn namespace_extension() {
    assert_eq!(one("[j]\nnamespace=1").namespace, Some(1));
    assert_eq!(one("[j]").namespace, None);
    assert!(err("[j]\nnamespace=-1").contains("namespace"));
}

#[test]
fn zone_options() {
    let j = one(
        "[j]\nzonemode=zbd\nmax_open_zones=6\nzone_reset_threshold=0.7\n\
         zone_reset_frequency=0.01\nwrite_hint=long",
    );
    assert_eq!(j.zonemode, ZoneMode::Zbd);
    assert_eq!(j.max_open_zones, 6);
    assert_eq!(j.zone_reset_threshold, 0.7);
    assert_eq!(j.zone_reset_frequency, 0.01);
    assert_eq!(j.write_hint, WriteHint::Long);
    for (s, h) in [
        ("none", WriteHint::None),
        ("short", WriteHint::Short),
        ("medium", WriteHint::Medium),
        ("extreme", WriteHint::Extreme),
    ] {
        assert_eq!(one(&format!("[j]\nwrite_hint={s}")).write_hint, h);
    }
    assert_eq!(one("[j]\nzonemode=none").zonemode, ZoneMode::None);
    assert!(err("[j]\nzonemode=strided").contains("zonemode must be one of none, zbd"));
    assert!(err("[j]\nzone_reset_threshold=1.5").contains("0..=1"));
    assert!(err("[j]\nwrite_hint=forever").contains("write_hint must be one of"));
}

#[test]
fn ignored_options() {
    let j = one(
        "[j]\nioengine=libaio\ndirect=1\nfilename=/dev/nvme0n1\ngroup_reporting\n\
         randrepeat=0\niodepth=16",
    );
    assert_eq!(j.iodepth, 16);
    assert_eq!(
        one("[j]\nfilename=/dev/disk/by-path/pci-0000\\:00").iodepth,
        1
    );
    // A synchronous engine forces queue depth 1, wherever it is set.
    assert_eq!(one("[j]\niodepth=16\nioengine=psync").iodepth, 1);
    let jobs = parse_job_file("[global]\nioengine=sync\n[a]\niodepth=8\n", "t").unwrap();
    assert_eq!(jobs[0].iodepth, 1);
    assert_eq!(one("[j]\ndirect=0").files.direct, Some(false));
    assert_eq!(
        one("[j]\ndirect=0").files.fs_only_option(),
        Some("direct=0")
    );
    assert!(err("[j]\nioengine=null").contains("ioengine 'null' is not supported"));
    assert!(err("[j]\nfilename=a:b").contains("list of files"));
}

#[test]
fn global_inheritance() {
    let text = "\
; a comment
# another
[global]
bs = 16k
rw=randwrite
iodepth=4

[a]
size=1g

[b]
bs=8k  ; inline comment
[global]
iodepth=8
[c]
";
    let jobs = parse_job_file(text, "t.fio").unwrap();
    assert_eq!(jobs.len(), 3);
    let (a, b, c) = (&jobs[0], &jobs[1], &jobs[2]);
    assert_eq!((a.name.as_str(), a.line), ("a", 8));
    assert_eq!((a.bs, a.rw, a.iodepth), (16384, RwMode::RandWrite, 4));
    assert_eq!(a.size, Some(SizeSpec::Bytes(1 << 30)));
    assert_eq!(
        (b.bs, b.rw, b.iodepth, b.size),
        (8192, RwMode::RandWrite, 4, None)
    );
    assert_eq!((c.name.as_str(), c.bs, c.iodepth), ("c", 16384, 8));
}

#[test]
fn structural_errors() {
    assert_eq!(
        err("[global]\nbs=4k\n\n[j]\nrw=read\nfoo=bar\n"),
        "t.fio:6: unknown fio option 'foo'"
    );
    assert_eq!(
        err("[j]\n  frobnicate\n"),
        "t.fio:2: unknown fio option 'frobnicate'"
    );
    assert!(err("bs=4k\n[j]\n").starts_with("t.fio:1: option 'bs' outside of a section"));
    assert!(err("[global]\nbs=4k\n").contains("no job section"));
    assert!(err("").contains("no job section"));
    assert!(err("[j\n").starts_with("t.fio:1: malformed section header"));
    assert!(err("[ ]\n").contains("empty section name"));
    assert!(err("[j]\n=4k\n").contains("missing option name"));
}

/// Audit H1: time_based without runtime would never end: an error at the time_based line.
#[test]
fn time_based_needs_runtime() {
    assert_eq!(
        err("[job]\nrw=randread\nsize=4m\ntime_based\n"),
        "t.fio:4: job 'job': time_based needs a runtime (a time_based job without runtime never ends)"
    );
    // Inherited from [global]: the global line is named.
    assert!(err("[global]\ntime_based\n[a]\nrw=read\n").starts_with("t.fio:2: job 'a':"));
    // runtime=0 is no runtime, as in fio.
    assert!(err("[j]\ntime_based\nruntime=0\n").starts_with("t.fio:2:"));
    // With a runtime (here, from [global]) or switched off, fine.
    one("[global]\nruntime=1s\n[j]\ntime_based\n");
    one("[global]\ntime_based\n[j]\ntime_based=0\n");
}

/// Audit C2: iodepth is bounded (65536, the Linux AIO default limit).
#[test]
fn iodepth_is_bounded() {
    assert_eq!(one("[j]\niodepth=65536").iodepth, 65536);
    assert_eq!(
        err("[j]\nrw=randread\nsize=4m\niodepth=4294967295\ntime_based\nruntime=1s\n"),
        "t.fio:4: iodepth must be an integer in 1..=65536, got '4294967295'"
    );
}

/// A non-ASCII character after the digits of a size is a located error (fuzz finding).
#[test]
fn non_ascii_size_suffix_is_an_error() {
    assert!(err("[j]\nbs=1\u{fffd}28k").starts_with("t.fio:2: bs must be"));
    assert!(err("[j]\nsize=4é").starts_with("t.fio:2: size must be"));
    assert_eq!(parse_size("4é"), None);
}

/// At most 4096 jobs, clones included, as fio (memory stays bounded).
#[test]
fn job_count_is_bounded() {
    let four = "[a]\nnumjobs=1024\n".repeat(4);
    assert_eq!(parse_job_file(&four, "t.fio").unwrap().len(), 4);
    let e = err(&format!("{four}[b]\n"));
    assert_eq!(
        e,
        "t.fio:9: job 'b': more than 4096 jobs (numjobs clones included), fio's own maximum"
    );
}

/// A UTF-8 byte-order mark is not an option name.
#[test]
fn byte_order_mark_is_ignored() {
    assert_eq!(one("\u{feff}[w]\nrw=randwrite\n").name, "w");
}

#[test]
fn continue_on_error_takes_fio_values() {
    let j = one("[a]\nrw=write\ncontinue_on_error=write\n");
    assert!(j.continue_on_error.writes());
    let j = one("[a]\nrw=write\ncontinue_on_error=1\n");
    assert!(j.continue_on_error.writes());
    let j = one("[a]\nrw=write\ncontinue_on_error=read\n");
    assert!(!j.continue_on_error.writes());
    assert!(!one("[a]\nrw=write\n").continue_on_error.writes());
    let e = parse_job_file("[a]\ncontinue_on_error=maybe\n", "t.fio").unwrap_err();
    assert!(
        e.to_string().contains("continue_on_error must be one of"),
        "{e}"
    );
}

#[test]
fn directory_names_are_checked() {
    let e = err("[a]\ndirectory=\n");
    assert!(e.starts_with("t.fio:2:"), "{e}");
    let e = err(&format!("[a]\ndirectory={}\n", "/d".repeat(3000)));
    assert!(e.contains("directory is 6000 bytes"), "{e}");
    assert_eq!(
        one("[a]\ndirectory=/data\n").files.directory.as_deref(),
        Some("/data")
    );
}
