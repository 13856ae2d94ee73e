//! The mapping of `zonesim import mqsim`: MQSim device parameters to zonesim device keys, and
//! MQSim IO flows to fio jobs or trace replays (docs/mqsim.md has the table).

use crate::import_mqsim::{toml_str, Params};
use roxmltree::Node;
use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::Path;
use zonesim::Error;

/// MQSim device parameters that map, with the zonesim key or run option they set.
pub const MAPPED: [(&str, &str); 28] = [
    ("PCIe_Lane_Bandwidth", "host.link_mb_s (x PCIe_Lane_Count)"),
    ("PCIe_Lane_Count", "host.link_mb_s"),
    ("Seed", "zonesim run --seed"),
    (
        "Enabled_Preconditioning",
        "zonesim run --precondition steady",
    ),
    ("Data_Cache_Capacity", "buffer.bytes"),
    ("Ideal_Mapping_Table", "ftl.l2p_cache_bytes (the whole map)"),
    ("CMT_Capacity", "ftl.l2p_cache_bytes"),
    (
        "Overprovisioning_Ratio",
        "ftl.overprovisioning (r / (1 - r))",
    ),
    (
        "GC_Exec_Threshold",
        "ftl.gc.threshold_free_superblocks (x Block_No_Per_Plane)",
    ),
    ("GC_Block_Selection_Policy", "ftl.gc.victim"),
    ("Preemptible_GC_Enabled", "ftl.gc.preemptible"),
    ("Flash_Channel_Count", "nand.channels"),
    (
        "Flash_Channel_Width",
        "nand.channel_mb_s (x Channel_Transfer_Rate)",
    ),
    ("Channel_Transfer_Rate", "nand.channel_mb_s"),
    ("Chip_No_Per_Channel", "nand.chips_per_channel"),
    ("Flash_Technology", "nand.cell"),
    (
        "Page_Read_Latency_LSB",
        "nand.timing.<cell>.read_us (read_us_by_page)",
    ),
    (
        "Page_Read_Latency_CSB",
        "nand.timing.<cell>.read_us_by_page",
    ),
    (
        "Page_Read_Latency_MSB",
        "nand.timing.<cell>.read_us_by_page",
    ),
    (
        "Page_Program_Latency_LSB",
        "nand.timing.<cell>.program_us (program_us_by_page)",
    ),
    (
        "Page_Program_Latency_CSB",
        "nand.timing.<cell>.program_us_by_page",
    ),
    (
        "Page_Program_Latency_MSB",
        "nand.timing.<cell>.program_us_by_page",
    ),
    ("Block_Erase_Latency", "nand.timing.<cell>.erase_us"),
    ("Die_No_Per_Chip", "nand.dies_per_chip"),
    ("Plane_No_Per_Die", "nand.planes_per_die"),
    ("Block_No_Per_Plane", "nand.blocks_per_plane"),
    ("Page_No_Per_Block", "nand.pages_per_block"),
    ("Page_Capacity", "nand.page_bytes"),
];

/// The imported device.
pub struct Device {
    pub name: String,
    pub toml: String,
    pub seed: u64,
    pub precondition: bool,
    /// Channels, chips per channel, dies per chip, planes per die.
    pub geometry: [u64; 4],
}

fn us(ns: f64) -> String {
    let v = ns / 1000.0;
    let s = format!("{v:.3}");
    let s = s.trim_end_matches('0');
    if s.ends_with('.') {
        format!("{s}0")
    } else {
        s.to_string()
    }
}

/// The device TOML of an ssdconfig.
pub fn device(p: &Params, path: &Path, warnings: &mut Vec<String>) -> Result<Device, Error> {
    let stem = path
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("ssdconfig");
    let safe: String = stem
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '-'
            }
        })
        .collect();
    let name = format!("mqsim-{safe}");
    let pos = |k: &str, d: u64| -> Result<u64, Error> {
        let v = p.int(k, d)?;
        if v == 0 {
            return Err(p.bad(k, "expected a positive integer"));
        }
        Ok(v)
    };
    let channels = pos("Flash_Channel_Count", 8)?;
    let chips = pos("Chip_No_Per_Channel", 4)?;
    let dies = pos("Die_No_Per_Chip", 2)?;
    let planes = pos("Plane_No_Per_Die", 2)?;
    let blocks = pos("Block_No_Per_Plane", 2048)?;
    let pages = pos("Page_No_Per_Block", 256)?;
    let page_bytes = pos("Page_Capacity", 8192)?;
    if page_bytes % 4096 != 0 {
        return Err(p.bad("Page_Capacity", "zonesim needs a multiple of 4096 bytes"));
    }
    let cell = p.one_of("Flash_Technology", "MLC", &["SLC", "MLC", "TLC"])?;
    let bits = match cell.as_str() {
        "SLC" => 1,
        "MLC" => 2,
        _ => 3,
    };
    if pages % bits != 0 {
        return Err(p.bad(
            "Page_No_Per_Block",
            &format!("zonesim needs a multiple of {bits} pages per block for {cell}"),
        ));
    }
    let cell = cell.to_ascii_lowercase();
    let rate = p.num("Channel_Transfer_Rate", 300.0)?;
    let width = p.num("Flash_Channel_Width", 1.0)?;
    let lane_bw = p.num("PCIe_Lane_Bandwidth", 0.4)?;
    let lanes = p.num("PCIe_Lane_Count", 4.0)?;
    let r = p.num("Overprovisioning_Ratio", 0.07)?;
    if !(r > 0.0 && r < 0.8) {
        return Err(p.bad("Overprovisioning_Ratio", "expected a ratio in (0, 0.8)"));
    }
    let op = r / (1.0 - r);
    let physical = channels * chips * dies * planes * blocks * pages * page_bytes;
    let logical = (physical as f64 * (1.0 - r)) as u64;
    let l2p = if p.flag("Ideal_Mapping_Table", false)? {
        // The whole map: 4 B per 4 KiB logical page, in whole flash pages.
        let bytes = logical / 4096 * 4;
        bytes.div_ceil(page_bytes) * page_bytes
    } else {
        p.int("CMT_Capacity", 2 << 20)?.max(page_bytes)
    };
    let threshold_ratio = p.num("GC_Exec_Threshold", 0.05)?;
    let spare = (blocks as f64 * r).floor() as u64;
    let mut threshold = ((threshold_ratio * blocks as f64).round() as u64).max(1);
    if threshold + 2 > spare {
        let t = spare.saturating_sub(2).max(1);
        warnings.push(format!(
            "MQSim GC_Exec_Threshold = {threshold_ratio}{} leaves no spare superblocks in zonesim ({threshold} of {spare}); using {t}",
            p.line("GC_Exec_Threshold")
        ));
        threshold = t;
    }
    let policy = p.one_of(
        "GC_Block_Selection_Policy",
        "RGA",
        &["GREEDY", "RGA", "RANDOM", "RANDOM_P", "RANDOM_PP", "FIFO"],
    )?;
    let victim = match policy.as_str() {
        "GREEDY" => "greedy",
        "RGA" => "d_choice",
        "FIFO" => "fifo",
        _ => "random",
    };
    if policy == "RANDOM_P" || policy == "RANDOM_PP" {
        warnings.push(format!(
            "MQSim GC_Block_Selection_Policy = {policy}{} is imported as random (zonesim has no RANDOM_P / RANDOM_PP)",
            p.line("GC_Block_Selection_Policy")
        ));
    }
    let lat = |k: &str, d: f64| p.num(k, d);
    let rd = [
        lat("Page_Read_Latency_LSB", 75000.0)?,
        lat("Page_Read_Latency_CSB", 75000.0)?,
        lat("Page_Read_Latency_MSB", 75000.0)?,
    ];
    let pr = [
        lat("Page_Program_Latency_LSB", 750000.0)?,
        lat("Page_Program_Latency_CSB", 750000.0)?,
        lat("Page_Program_Latency_MSB", 750000.0)?,
    ];
    let erase = lat("Block_Erase_Latency", 3800000.0)?;
    let per_page = |v: &[f64; 3]| -> Vec<f64> {
        match bits {
            1 => vec![v[0]],
            2 => vec![v[0], v[2]],
            _ => v.to_vec(),
        }
    };
    let list = |v: &[f64]| v.iter().map(|x| us(*x)).collect::<Vec<_>>().join(", ");
    let buffer = p.int("Data_Cache_Capacity", 512 << 20)?.max(4096) / 4096 * 4096;

    let mut t = String::new();
    let _ = writeln!(
        t,
        "# Imported by `zonesim import mqsim` from MQSim's {} (docs/mqsim.md: each parameter and its key).",
        path.display()
    );
    let _ = writeln!(t, "# Keys not set here come from the nvme-ssd preset.");
    let _ = writeln!(t, "base = \"nvme-ssd\"\nname = {}", toml_str(&name));
    let _ = writeln!(
        t,
        "description = {}",
        toml_str(&format!(
            "MQSim {}: {channels} ch x {chips} chips x {dies} dies x {planes} planes x {blocks} blocks x {pages} pages x {} KiB {}",
            path.file_name().and_then(|s| s.to_str()).unwrap_or("ssdconfig"),
            page_bytes / 1024,
            cell.to_uppercase()
        ))
    );
    let _ = writeln!(t, "\n[nand]\nchannels = {channels}\nchips_per_channel = {chips}\ndies_per_chip = {dies}\nplanes_per_die = {planes}\nblocks_per_plane = {blocks}\npages_per_block = {pages}\npage_bytes = {page_bytes}\ncell = \"{cell}\"");
    let _ = writeln!(
        t,
        "# Channel_Transfer_Rate {rate} MT/s x Flash_Channel_Width {width} B\nchannel_mb_s = {:.3}",
        rate * width * 1e6 / 1048576.0
    );
    let _ = writeln!(t, "\n[nand.timing.{cell}]");
    let (rdp, prp) = (per_page(&rd), per_page(&pr));
    let _ = writeln!(t, "read_us = {}", us(rd[0]));
    if rdp.iter().any(|x| *x != rdp[0]) {
        let _ = writeln!(t, "read_us_by_page = [{}]", list(&rdp));
    }
    let _ = writeln!(t, "program_us = {}", us(pr[0]));
    if prp.iter().any(|x| *x != prp[0]) {
        let _ = writeln!(t, "program_us_by_page = [{}]", list(&prp));
    }
    let _ = writeln!(t, "erase_us = {}", us(erase));
    let _ = writeln!(
        t,
        "\n[host]\n# PCIe_Lane_Bandwidth {lane_bw} GB/s x PCIe_Lane_Count {lanes}\nlink_mb_s = {:.1}",
        lane_bw * lanes * 1e9 / 1048576.0
    );
    let _ = writeln!(
        t,
        "\n[ftl]\n# MQSim Overprovisioning_Ratio {r} is (physical - logical) / physical\noverprovisioning = {op:.7}\nl2p_cache_bytes = {l2p}\nmap_entry_bytes = 4"
    );
    let _ = writeln!(
        t,
        "\n[ftl.gc]\n# GC_Block_Selection_Policy {policy}\nvictim = \"{victim}\"\n# GC_Exec_Threshold {threshold_ratio} x {blocks} blocks per plane\nthreshold_free_superblocks = {threshold}\npreemptible = {}",
        p.flag("Preemptible_GC_Enabled", true)?
    );
    let _ = writeln!(t, "\n[buffer]\n# Data_Cache_Capacity\nbytes = {buffer}");
    Ok(Device {
        name,
        toml: t,
        seed: p.int("Seed", 123)?,
        precondition: p.flag("Enabled_Preconditioning", true)?,
        geometry: [channels, chips, dies, planes],
    })
}

/// The files and commands of one IO scenario.
pub struct Scenario {
    pub files: Vec<(String, String)>,
    pub commands: Vec<String>,
}

fn pct(v: f64) -> String {
    let s = format!("{v:.4}");
    s.trim_end_matches('0').trim_end_matches('.').to_string() + "%"
}

fn ns_time(ns: u64) -> String {
    for (unit, div) in [("s", 1_000_000_000), ("ms", 1_000_000), ("us", 1_000)] {
        if ns.is_multiple_of(div) {
            return format!("{}{unit}", ns / div);
        }
    }
    format!("{ns}ns")
}

/// Warns once per flow parameter (across the whole workload).
fn warn_once(warned: &mut Vec<String>, warnings: &mut Vec<String>, key: &str, text: String) {
    if !warned.iter().any(|k| k == key) {
        warned.push(key.to_string());
        warnings.push(text);
    }
}

/// One IO scenario: its synthetic flows as the jobs of `scenario-N.fio`, its trace-based
/// flows as `scenario-N[-K].sh` replay commands.
#[allow(clippy::too_many_arguments)]
pub fn scenario(
    n: usize,
    flows: &[(String, BTreeMap<String, crate::import_mqsim::Param>, Node)],
    file: &str,
    base_dir: &Path,
    dev: &Device,
    warnings: &mut Vec<String>,
    warned: &mut Vec<String>,
    line_of: impl Fn(Node) -> u32,
) -> Result<Scenario, Error> {
    let synthetic = flows
        .iter()
        .filter(|f| f.0 == "IO_Flow_Parameter_Set_Synthetic")
        .count();
    let nflows = flows.len().max(1) as f64;
    let mut fio = format!(
        "; Imported by `zonesim import mqsim` from MQSim's {file}, IO_Scenario {n} (docs/mqsim.md).\n; MQSim gives each of the {} flows its own equal share of the logical space.\n[global]\nioengine=libaio\ndirect=1\nnorandommap=1\n",
        flows.len()
    );
    let mut files = Vec::new();
    let mut commands = Vec::new();
    let run_opts = format!(
        "--seed {}{}",
        dev.seed,
        if dev.precondition {
            " --precondition steady"
        } else {
            ""
        }
    );
    let mut priorities = Vec::new();
    let mut traces = 0;
    for (k, (kind, map, node)) in flows.iter().enumerate() {
        let p = Params {
            file: file.to_string(),
            map,
        };
        let line = line_of(*node);
        priorities.push(p.text("Priority_Class", "HIGH").to_ascii_uppercase());
        let mode = p.text("Device_Level_Data_Caching_Mode", "WRITE_CACHE");
        if !mode.eq_ignore_ascii_case("WRITE_CACHE") {
            warn_once(warned, warnings, "Device_Level_Data_Caching_Mode", format!(
                "MQSim Device_Level_Data_Caching_Mode = {mode}{} has no zonesim equivalent (writes always go through the write buffer); ignored",
                p.line("Device_Level_Data_Caching_Mode")));
        }
        for (key, total) in [
            ("Channel_IDs", dev.geometry[0]),
            ("Chip_IDs", dev.geometry[1]),
            ("Die_IDs", dev.geometry[2]),
            ("Plane_IDs", dev.geometry[3]),
        ] {
            if let Some(v) = map.get(key) {
                let ids = v.value.split(',').filter(|s| !s.trim().is_empty()).count() as u64;
                if ids < total {
                    warn_once(warned, warnings, key, format!(
                        "MQSim {key} = {}{}: zonesim cannot confine a flow to some resources (every flow uses the whole device); ignored",
                        v.value, p.line(key)));
                }
            }
        }
        if dev.precondition && map.contains_key("Initial_Occupancy_Percentage") {
            warn_once(warned, warnings, "Initial_Occupancy_Percentage", format!(
                "MQSim Initial_Occupancy_Percentage = {}{}: zonesim's --precondition steady fills the whole namespace, not a percentage",
                p.text("Initial_Occupancy_Percentage", ""), p.line("Initial_Occupancy_Percentage")));
        }
        if kind == "IO_Flow_Parameter_Set_Trace_Based" {
            traces += 1;
            let fp = p.text("File_Path", "");
            if fp.is_empty() {
                return Err(Error::parse(
                    file,
                    line as u64,
                    format!("element <{kind}>: a trace-based flow needs <File_Path>"),
                ));
            }
            let rel = base_dir.join(&fp);
            let trace = if Path::new(&fp).is_relative() && rel.exists() {
                rel.display().to_string()
            } else {
                fp.clone()
            };
            let unit = p.one_of(
                "Time_Unit",
                "NANOSECOND",
                &["PICOSECOND", "NANOSECOND", "MICROSECOND"],
            )?;
            let scale = match unit.as_str() {
                "PICOSECOND" => " --time-scale 0.001",
                "MICROSECOND" => " --time-scale 1000",
                _ => "",
            };
            for (key, def) in [("Percentage_To_Be_Executed", 100.0), ("Relay_Count", 1.0)] {
                if p.num(key, def)? != def {
                    warn_once(warned, warnings, key, format!(
                        "MQSim {key} = {}{} has no zonesim equivalent (the trace is replayed once, whole; see --trace-max-requests); ignored",
                        p.text(key, ""), p.line(key)));
                }
            }
            let sh_name = if flows.len() == 1 {
                format!("scenario-{n}.sh")
            } else {
                format!("scenario-{n}-flow{k}.sh")
            };
            let cmd = format!(
                "zonesim run --device {{DIR}}/{}.toml --trace {} --trace-format disksim{scale} {run_opts}",
                dev.name,
                sh_quote(&trace)
            );
            files.push((
                sh_name,
                format!(
                    "#!/bin/sh\n# MQSim {file}, IO_Scenario {n}, flow {k} (trace-based): replay the trace at its arrival times.\n# Run from the directory this file is in (or edit the paths).\nDIR=\"$(dirname \"$0\")\"\nexec {}\n",
                    cmd.replace("{DIR}", "\"$DIR\"")
                ),
            ));
            commands.push(cmd);
            continue;
        }
        // A synthetic flow: one fio job.
        let reads = p.num("Read_Percentage", 50.0)?.min(100.0);
        let dist = p.one_of(
            "Address_Distribution",
            "RANDOM_UNIFORM",
            &["STREAMING", "RANDOM_HOTCOLD", "RANDOM_UNIFORM"],
        )?;
        let random = dist != "STREAMING";
        if dist == "RANDOM_HOTCOLD" {
            warn_once(warned, warnings, "Address_Distribution", format!(
                "MQSim Address_Distribution = RANDOM_HOTCOLD (Percentage_of_Hot_Region {}){}: zonesim has no hot/cold split; imported as uniform random",
                p.text("Percentage_of_Hot_Region", "0"), p.line("Address_Distribution")));
        }
        let rw = match (random, reads) {
            (true, r) if r >= 100.0 => "randread",
            (true, r) if r <= 0.0 => "randwrite",
            (true, _) => "randrw",
            (false, r) if r >= 100.0 => "read",
            (false, r) if r <= 0.0 => "write",
            (false, _) => "rw",
        };
        let sectors = p.int("Average_Request_Size", 8)?.max(1);
        let size_dist = p.one_of("Request_Size_Distribution", "FIXED", &["FIXED", "NORMAL"])?;
        if size_dist == "NORMAL" && p.num("Variance_Request_Size", 0.0)? > 0.0 {
            warn_once(warned, warnings, "Request_Size_Distribution", format!(
                "MQSim Request_Size_Distribution = NORMAL{}: zonesim jobs have one request size; every request is the mean ({sectors} sectors)",
                p.line("Request_Size_Distribution")));
        }
        if p.flag("Generated_Aligned_Addresses", true)? {
            let unit = p.int("Address_Alignment_Unit", sectors)?;
            if unit != sectors {
                warn_once(warned, warnings, "Address_Alignment_Unit", format!(
                    "MQSim Address_Alignment_Unit = {unit} sectors{}: zonesim aligns requests to their size ({sectors} sectors)",
                    p.line("Address_Alignment_Unit")));
            }
        }
        let ws = p.num("Working_Set_Percentage", 100.0)?.clamp(0.0, 100.0);
        let share = 100.0 / nflows;
        let _ = writeln!(
            fio,
            "\n; flow {k} ({file}:{line})\n[flow{k}]\nrw={rw}\nbs={}\noffset={}\nsize={}",
            sectors * 512,
            pct(share * k as f64),
            pct(share * ws / 100.0)
        );
        if rw == "randrw" || rw == "rw" {
            let _ = writeln!(fio, "rwmixread={}", reads.round() as u64);
        }
        let gen = p.one_of(
            "Synthetic_Generator_Type",
            "QUEUE_DEPTH",
            &["QUEUE_DEPTH", "BANDWIDTH"],
        )?;
        if gen == "QUEUE_DEPTH" {
            let qd = p.int("Average_No_of_Reqs_in_Queue", 1)?.clamp(1, 65536);
            let _ = writeln!(fio, "iodepth={qd}");
        } else {
            let gap = p.int("Intensity", 0)?;
            let _ = writeln!(
                fio,
                "iodepth=1\nthinktime={}",
                ns_time(gap.max(1000) / 1000 * 1000)
            );
            warn_once(warned, warnings, "Synthetic_Generator_Type", format!(
                "MQSim Synthetic_Generator_Type = BANDWIDTH{}: zonesim jobs are closed-loop; imported as iodepth=1 with thinktime = Intensity (an upper bound on the rate)",
                p.line("Synthetic_Generator_Type")));
        }
        let stop = p.int("Stop_Time", 0)?;
        let total = p.int("Total_Requests_To_Generate", 0)?;
        if stop > 0 {
            let _ = writeln!(fio, "runtime={}\ntime_based=1", ns_time(stop));
        }
        if total > 0 {
            let _ = writeln!(fio, "number_ios={total}");
            if stop == 0 {
                let _ = writeln!(fio, "io_size={}", total * sectors * 512);
            }
        }
    }
    if synthetic > 0 {
        let name = format!("scenario-{n}.fio");
        commands.insert(
            0,
            format!(
                "zonesim run --device {{DIR}}/{}.toml --workload {{DIR}}/{name} {run_opts}",
                dev.name
            ),
        );
        files.insert(0, (name, fio));
        if traces > 0 {
            warnings.push(format!(
                "{file}: IO_Scenario {n} mixes synthetic and trace-based flows; zonesim runs them separately (scenario-{n}.fio, then the .sh replays)"
            ));
        }
    }
    priorities.sort();
    priorities.dedup();
    if priorities.len() > 1 {
        warn_once(warned, warnings, "Priority_Class", format!(
            "MQSim Priority_Class differs between the flows of IO_Scenario {n} ({}): imported without priorities (see host.arbitration = \"wrr\" and host.queue_priority)",
            priorities.join(", ")));
    }
    Ok(Scenario { files, commands })
}

fn sh_quote(s: &str) -> String {
    if s.chars()
        .all(|c| c.is_ascii_alphanumeric() || "/._-+".contains(c))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}
