//! The human-readable summary table of a run.

use std::fmt::Write;
use zonesim::config::DeviceConfig;
use zonesim::stats::report::{HostReport, OpReport};
use zonesim::stats::Report;

fn op_line(out: &mut String, who: &str, kind: &str, o: &OpReport) {
    if o.ios == 0 {
        return;
    }
    let l = &o.latency_us;
    let _ = writeln!(
        out,
        "{who:<18} {kind:<6} {:>10} {:>11.0} {:>9.1} {:>9.1} {:>9.1} {:>9.1} {:>9.1} {:>10.1}",
        o.ios, o.iops, o.bandwidth_mib_s, l.mean, l.p50, l.p99, l.p999, l.max
    );
}

fn host_lines(out: &mut String, who: &str, h: &HostReport) {
    op_line(out, who, "read", &h.read);
    op_line(out, who, "write", &h.write);
    op_line(out, who, "trim", &h.trim);
    op_line(out, who, "flush", &h.flush);
    op_line(out, who, "zone", &h.zone_mgmt);
}

/// One direction's total over the jobs as fio's group reporting computes it: the jobs'
/// requests and bytes over the longest runtime of a job in that direction (each job's own
/// window), not over the whole run. Latencies are those of all the requests together.
fn group_op(r: &Report, total: &OpReport, pick: fn(&HostReport) -> &OpReport) -> OpReport {
    let runtime_s = r
        .jobs
        .iter()
        .map(|j| pick(&j.host))
        .filter(|o| o.ios > 0 && o.iops > 0.0)
        .map(|o| o.ios as f64 / o.iops)
        .fold(0.0, f64::max);
    let mut o = total.clone();
    if runtime_s > 0.0 {
        o.iops = o.ios as f64 / runtime_s;
        o.bandwidth_mib_s = o.bytes as f64 / runtime_s / (1u64 << 20) as f64;
    }
    o
}

/// The "total" rows: fio's group reporting over every job (docs/report.md).
pub fn group_total(r: &Report) -> HostReport {
    let mut h = r.host.clone();
    h.read = group_op(r, &r.host.read, |h| &h.read);
    h.write = group_op(r, &r.host.write, |h| &h.write);
    h.trim = group_op(r, &r.host.trim, |h| &h.trim);
    h.flush = group_op(r, &r.host.flush, |h| &h.flush);
    h.zone_mgmt = group_op(r, &r.host.zone_mgmt, |h| &h.zone_mgmt);
    h
}

pub fn render(cfg: &DeviceConfig, workload: &str, r: &Report) -> String {
    let mut out = String::new();
    let d = &r.device;
    let ns = r.jobs.first().map_or(0, |j| j.namespace);
    let nsr = d.namespaces.get(ns);
    let gib = nsr.map_or(0, |n| n.capacity_bytes()) as f64 / (1u64 << 30) as f64;
    let _ = writeln!(
        out,
        "device    {} ({:.2} GiB logical, {} {} ch x {} chips x {} dies x {} planes)",
        cfg.name,
        gib,
        cfg.nand.cell.name(),
        cfg.nand.channels,
        cfg.nand.chips_per_channel,
        cfg.nand.dies_per_chip,
        cfg.nand.planes_per_die
    );
    let kind = nsr.map_or("?", |n| n.kind());
    let count = d.namespaces.len();
    if count < 2 {
        let _ = writeln!(out, "namespace {ns} ({kind})");
    } else {
        let main = if ns == cfg.main_namespace as usize {
            "main"
        } else {
            "not the main one"
        };
        let _ = writeln!(out, "namespace {ns} ({kind}, {main}; {count} namespaces)");
    }
    let _ = writeln!(out, "workload  {workload}");
    // Without preconditioning nothing was written before the run: no WAF to show.
    if r.precondition.mode == "none" {
        let _ = writeln!(out, "precond   none (the run starts on an empty device)");
    } else {
        let _ = writeln!(
            out,
            "precond   {} (WAF {:.3})",
            r.precondition.mode, r.precondition.waf
        );
    }
    let _ = writeln!(out);
    let _ = writeln!(
        out,
        "{:<18} {:<6} {:>10} {:>11} {:>9} {:>9} {:>9} {:>9} {:>9} {:>10}",
        "job", "op", "ios", "iops", "MiB/s", "mean us", "p50 us", "p99 us", "p99.9 us", "max us"
    );
    if r.jobs.len() > 1 {
        for j in &r.jobs {
            host_lines(&mut out, &j.name, &j.host);
        }
    }
    host_lines(&mut out, "total", &group_total(r));
    let _ = writeln!(out);
    let f = &d.flash;
    let _ = writeln!(
        out,
        "WAF {:.3}   flash: {} page reads, {} page programs, {} block erases",
        d.waf, f.page_reads, f.page_programs, f.block_erases
    );
    let _ = writeln!(
        out,
        "GC: {} victims, {} pages moved   L2P: {} hits, {} misses, {} write-backs   unwritten reads: {}{}",
        d.gc.victims,
        d.gc.pages_moved,
        d.l2p.hits,
        d.l2p.misses,
        d.l2p.writebacks,
        d.unwritten_reads,
        if d.unwritten_reads > 0 {
            format!(" ({:.1}% of page reads)", d.unwritten_read_fraction * 100.0)
        } else {
            String::new()
        }
    );
    let b = &d.buffer;
    let _ = writeln!(
        out,
        "buffer: {} full flushes, {} premature, {} host flushes",
        b.full_flushes, b.premature_flushes, b.host_flushes
    );
    if d.namespaces.iter().any(|n| n.zoned().is_some()) {
        let s = &d.slc;
        let _ = writeln!(
            out,
            "zoned: {} SLC pages written, {} migrated, {} SLC GC moves; buffer flushes to SLC {}; L2P zoned miss rate {:.1}%",
            s.pages_written,
            s.pages_migrated,
            s.gc_pages_moved,
            b.flushes_to_slc,
            d.l2p.zoned.miss_rate * 100.0
        );
        let total = d.zones.errors.total();
        // As compact JSON with sorted keys, the form the summary has always printed.
        let e = serde_json::to_value(&d.zones.errors).unwrap_or_default();
        let _ = writeln!(out, "zone errors: {total} {e}");
    }
    if let Some(t) = &r.trace {
        let _ = writeln!(
            out,
            "trace: {} format, {} requests ({} reads, {} writes, {} trims), {} folded, {} skipped",
            t.format, t.requests, t.reads, t.writes, t.trims, t.folded, t.skipped
        );
    }
    if let Some(p) = &r.power {
        power_lines(&mut out, p, r.sim.requests_cut);
    }
    let s = &r.sim;
    let _ = writeln!(
        out,
        "sim: {:.3} s simulated, {:.3} s wall, {} events, {:.0} requests/wall s",
        s.simulated_ns as f64 / 1e9,
        s.wall_s,
        s.events,
        s.requests_per_wall_s
    );
    out
}

/// The `power` section in two lines: the cut (what was lost, recovery), then energy and states
/// (and, with `power.clock_gating` on, a third: gatings and what they requeued or held).
fn power_lines(out: &mut String, p: &zonesim::stats::power::PowerReport, cut: Option<u64>) {
    if let (Some(at), Some(lost)) = (p.cut_at_us, p.lost_acknowledged_writes) {
        let _ = writeln!(
            out,
            "power cut at {:.1} us (plp {}): {} requests in flight, {} acknowledged writes lost ({} KiB), recovery {:.1} us",
            at,
            p.plp,
            cut.unwrap_or(0),
            lost,
            p.lost_acknowledged_bytes.unwrap_or(0) / 1024,
            p.recovery_us.unwrap_or(0.0)
        );
    }
    let s = &p.states;
    let _ = writeln!(
        out,
        "energy: {:.4} J, {:.3} W average; active {:.1} ms, idle {:.1} ms, clock-gated {:.1} ms, hibern8 {:.1} ms",
        p.energy_j,
        p.average_w,
        s.active_us / 1e3,
        s.idle_us / 1e3,
        s.clock_gated_us / 1e3,
        s.hibern8_us / 1e3
    );
    if let (Some(g), Some(rq), Some(w)) = (s.gatings, s.requeues, s.ungate_waits) {
        let _ = writeln!(
            out,
            "clock gating: {g} gatings, {} ungates, {} hibern8 exits; {rq} requests requeued, {w} waited for the clocks",
            s.ungates, s.hibern8_exits
        );
    }
}
