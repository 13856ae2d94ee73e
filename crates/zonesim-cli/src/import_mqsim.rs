//! `zonesim import mqsim SSDCONFIG.xml WORKLOAD.xml --out DIR`: MQSim's device and workload
//! files as a zonesim device (`DIR/<name>.toml`, on top of the `nvme-ssd` preset) and one fio
//! job file per IO scenario (`DIR/scenario-N.fio`, one job per synthetic flow); a trace-based
//! flow becomes a replay command (`DIR/scenario-N.sh`). MQSim parameters without a zonesim
//! equivalent are listed in docs/mqsim.md; each one set to a value other than MQSim's default
//! is warned about once. Malformed XML and bad values are one line naming the file, line and
//! element (exit 2).

use anyhow::Result;
use roxmltree::{Document, Node};
use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::{Path, PathBuf};
use zonesim::Error;

#[derive(clap::Subcommand)]
pub enum ImportCmd {
    /// MQSim's ssdconfig.xml and workload.xml: writes DIR/<name>.toml (the device) and
    /// DIR/scenario-N.fio per IO scenario (trace-based flows: DIR/scenario-N.sh, a replay
    /// command), then prints the commands that run them. Mapping: docs/mqsim.md.
    Mqsim(MqsimArgs),
}

#[derive(clap::Args)]
pub struct MqsimArgs {
    /// MQSim's device configuration (Execution_Parameter_Set).
    #[arg(value_name = "SSDCONFIG.xml")]
    pub ssdconfig: PathBuf,
    /// MQSim's workload definition (MQSim_IO_Scenarios).
    #[arg(value_name = "WORKLOAD.xml")]
    pub workload: PathBuf,
    /// Output directory (created if missing).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
}

pub fn run(cmd: ImportCmd) -> Result<()> {
    let ImportCmd::Mqsim(a) = cmd;
    let imported = import(&a.ssdconfig, &a.workload)?;
    std::fs::create_dir_all(&a.out).map_err(|e| Error::io(&a.out, e))?;
    for w in &imported.warnings {
        eprintln!("zonesim: warning: {w}");
    }
    for (name, text) in &imported.files {
        let p = a.out.join(name);
        std::fs::write(&p, text).map_err(|e| Error::io(&p, e))?;
        println!("wrote {}", p.display());
    }
    for c in &imported.commands {
        println!("run: {}", c.replace("{DIR}", &a.out.display().to_string()));
    }
    Ok(())
}

/// What an import produces.
pub struct Imported {
    /// (file name in DIR, contents), in writing order.
    pub files: Vec<(String, String)>,
    /// The commands that run them, with `{DIR}` for the output directory.
    pub commands: Vec<String>,
    /// One line per parameter that was set but could not be carried over.
    pub warnings: Vec<String>,
}

/// One leaf element of an XML file: its text and line.
#[derive(Clone)]
pub struct Param {
    pub value: String,
    pub line: u32,
}

/// The leaf elements under a node, by name (a later duplicate wins, as in MQSim).
fn leaves(doc: &Document, node: Node) -> BTreeMap<String, Param> {
    let mut m = BTreeMap::new();
    for n in node.descendants().filter(|n| n.is_element()) {
        if n.children().any(|c| c.is_element()) {
            continue;
        }
        m.insert(
            n.tag_name().name().to_string(),
            Param {
                value: n.text().unwrap_or("").trim().to_string(),
                line: doc.text_pos_at(n.range().start).row,
            },
        );
    }
    m
}

/// Parses an XML file; a syntax error names the file, line and the element open there.
fn parse_xml<'a>(path: &Path, text: &'a str) -> Result<Document<'a>, Error> {
    Document::parse(text).map_err(|e| {
        let mut pos = e.pos();
        if matches!(
            e,
            roxmltree::Error::UnclosedRootNode | roxmltree::Error::UnexpectedEndOfStream
        ) {
            // The error is at the end of the text (roxmltree reports 1:1): name the last line
            // and the element still open there.
            let rows = text.lines().count().max(1) as u32;
            let last = text.lines().last().unwrap_or("");
            pos = roxmltree::TextPos::new(rows, last.chars().count() as u32 + 1);
        }
        let elem = open_element_at(text, pos.row, pos.col)
            .map(|n| format!("in element <{n}>: "))
            .unwrap_or_default();
        Error::parse(
            path.display().to_string(),
            pos.row as u64,
            format!("malformed XML: {elem}{e}"),
        )
    })
}

/// The innermost element open at a (1-based) line and column, by a plain scan of the tags
/// before it (the document did not parse, so there is no tree).
fn open_element_at(text: &str, row: u32, col: u32) -> Option<String> {
    let mut end = 0;
    for (i, line) in text.split_inclusive('\n').enumerate() {
        if i + 1 == row as usize {
            end += line
                .char_indices()
                .nth(col.saturating_sub(1) as usize)
                .map_or(line.len(), |c| c.0);
            break;
        }
        end += line.len();
    }
    let head = &text[..end.min(text.len())];
    let mut stack: Vec<String> = Vec::new();
    let mut rest = head;
    while let Some(i) = rest.find('<') {
        rest = &rest[i + 1..];
        let close = rest.find('>');
        let tag = &rest[..close.unwrap_or(rest.len())];
        if let Some(name) = tag.strip_prefix('/') {
            let name = name.trim();
            if let Some(k) = stack.iter().rposition(|s| s == name) {
                stack.truncate(k);
            }
        } else if !tag.starts_with('?') && !tag.starts_with('!') {
            let name: String = tag
                .chars()
                .take_while(|c| !c.is_whitespace() && *c != '/' && *c != '>')
                .collect();
            let self_closing = close.is_some() && tag.ends_with('/');
            if !name.is_empty() && !self_closing {
                stack.push(name);
            }
        }
    }
    stack.pop()
}

/// Reads the leaves of a file's parameters and checks values as they are taken.
pub struct Params<'p> {
    pub file: String,
    pub map: &'p BTreeMap<String, Param>,
}

impl Params<'_> {
    /// A bad value of `name`, at its line (a value that is MQSim's default when absent: line 0).
    pub fn bad(&self, name: &str, want: &str) -> Error {
        let (line, value) = self
            .map
            .get(name)
            .map_or((0, String::new()), |p| (p.line, p.value.clone()));
        Error::parse(
            self.file.clone(),
            line as u64,
            format!("element <{name}>: {want}, got '{value}'"),
        )
    }
    pub fn text(&self, name: &str, default: &str) -> String {
        self.map
            .get(name)
            .map_or(default.to_string(), |p| p.value.clone())
    }
    pub fn num(&self, name: &str, default: f64) -> Result<f64, Error> {
        match self.map.get(name) {
            None => Ok(default),
            Some(p) => p
                .value
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite() && *v >= 0.0)
                .ok_or_else(|| self.bad(name, "expected a non-negative number")),
        }
    }
    pub fn int(&self, name: &str, default: u64) -> Result<u64, Error> {
        match self.map.get(name) {
            None => Ok(default),
            Some(p) => p
                .value
                .parse::<u64>()
                .map_err(|_| self.bad(name, "expected a non-negative integer")),
        }
    }
    pub fn flag(&self, name: &str, default: bool) -> Result<bool, Error> {
        match self.map.get(name) {
            None => Ok(default),
            Some(p) => match p.value.to_ascii_lowercase().as_str() {
                "true" => Ok(true),
                "false" => Ok(false),
                _ => Err(self.bad(name, "expected true or false")),
            },
        }
    }
    pub fn one_of(&self, name: &str, default: &str, allowed: &[&str]) -> Result<String, Error> {
        let v = self.text(name, default).to_ascii_uppercase();
        if allowed.contains(&v.as_str()) {
            Ok(v)
        } else {
            Err(self.bad(name, &format!("expected one of {}", allowed.join(", "))))
        }
    }
    pub fn line(&self, name: &str) -> String {
        self.map
            .get(name)
            .map_or(String::new(), |p| format!(" ({}:{})", self.file, p.line))
    }
}

/// MQSim device parameters that zonesim has no equivalent for, with MQSim's default value
/// (src/exec/*_Parameter_Set.cpp) and why. docs/mqsim.md lists the same.
pub const UNMAPPED_DEVICE: [(&str, &str, &str); 24] = [
    (
        "SATA_Processing_Delay",
        "400000",
        "SATA host interface not modelled",
    ),
    (
        "Enable_ResponseTime_Logging",
        "false",
        "use zonesim run --interval-ms / --timeseries",
    ),
    (
        "ResponseTime_Logging_Period_Length",
        "400000",
        "use zonesim run --interval-ms",
    ),
    ("Memory_Type", "FLASH", "zonesim models NAND flash only"),
    (
        "HostInterface_Type",
        "NVME",
        "the host link is modelled as a bandwidth (host.link_mb_s)",
    ),
    (
        "IO_Queue_Depth",
        "1024",
        "each job's iodepth bounds its requests in flight",
    ),
    ("Queue_Fetch_Size", "512", "no NVMe fetch model"),
    (
        "Caching_Mechanism",
        "ADVANCED",
        "one write-buffer model (buffer.*)",
    ),
    ("Data_Cache_Sharing_Mode", "SHARED", "the buffer is shared"),
    ("Data_Cache_DRAM_Row_Size", "8192", "no DRAM timing model"),
    ("Data_Cache_DRAM_Data_Rate", "800", "no DRAM timing model"),
    (
        "Data_Cache_DRAM_Data_Busrt_Size",
        "4",
        "no DRAM timing model",
    ),
    ("Data_Cache_DRAM_tRCD", "13", "no DRAM timing model"),
    ("Data_Cache_DRAM_tCL", "13", "no DRAM timing model"),
    ("Data_Cache_DRAM_tRP", "13", "no DRAM timing model"),
    (
        "Address_Mapping",
        "PAGE_LEVEL",
        "page-level mapping is zonesim's conventional map",
    ),
    ("CMT_Sharing_Mode", "SHARED", "the L2P cache is shared"),
    (
        "Plane_Allocation_Scheme",
        "CWDP",
        "zonesim stripes superpages over all dies",
    ),
    (
        "Transaction_Scheduling_Policy",
        "OUT_OF_ORDER",
        "per-die FIFO with read priority",
    ),
    (
        "Use_Copyback_for_GC",
        "false",
        "GC copies through the controller",
    ),
    ("GC_Hard_Threshold", "0.005", "one foreground threshold"),
    ("Dynamic_Wearleveling_Enabled", "true", "no wear levelling"),
    ("Static_Wearleveling_Enabled", "true", "no wear levelling"),
    ("Static_Wearleveling_Threshold", "100", "no wear levelling"),
];

/// More device parameters without an equivalent (flash-level).
pub const UNMAPPED_FLASH: [(&str, &str, &str); 9] = [
    (
        "Preferred_suspend_erase_time_for_read",
        "700000",
        "suspension has one cost, ftl.gc.suspend_us",
    ),
    (
        "Preferred_suspend_erase_time_for_write",
        "700000",
        "suspension has one cost, ftl.gc.suspend_us",
    ),
    (
        "Preferred_suspend_write_time_for_read",
        "100000",
        "suspension has one cost, ftl.gc.suspend_us",
    ),
    (
        "Flash_Comm_Protocol",
        "NVDDR2",
        "the channel is a bandwidth (nand.channel_mb_s)",
    ),
    ("CMD_Suspension_Support", "ERASE", "see ftl.gc.preemptible"),
    (
        "Block_PE_Cycles_Limit",
        "10000",
        "no endurance limit (erase counts are reported)",
    ),
    (
        "Suspend_Erase_Time",
        "700000",
        "suspension has one cost, ftl.gc.suspend_us",
    ),
    (
        "Suspend_Program_Time",
        "100000",
        "suspension has one cost, ftl.gc.suspend_us",
    ),
    (
        "Page_Metadat_Capacity",
        "1872",
        "out-of-band area not modelled",
    ),
];

/// Whether a value equals MQSim's default (numbers numerically, words case-insensitively).
fn is_default(value: &str, default: &str) -> bool {
    match (value.parse::<f64>(), default.parse::<f64>()) {
        (Ok(a), Ok(b)) => a == b,
        _ => value.eq_ignore_ascii_case(default),
    }
}

/// Imports the two files.
pub fn import(ssdconfig: &Path, workload: &Path) -> Result<Imported, Error> {
    let dtext = zonesim::error::read_text_file(ssdconfig)?;
    let ddoc = parse_xml(ssdconfig, &dtext)?;
    let root = ddoc.root_element();
    if root.tag_name().name() != "Execution_Parameter_Set" {
        return Err(Error::parse(
            ssdconfig.display().to_string(),
            ddoc.text_pos_at(root.range().start).row as u64,
            format!(
                "element <{}>: not an MQSim ssdconfig (its root is <Execution_Parameter_Set>)",
                root.tag_name().name()
            ),
        ));
    }
    let map = leaves(&ddoc, root);
    let p = Params {
        file: ssdconfig.display().to_string(),
        map: &map,
    };
    let mut warnings = Vec::new();
    for (name, default, why) in UNMAPPED_DEVICE.iter().chain(UNMAPPED_FLASH.iter()) {
        if let Some(v) = map.get(*name) {
            if !is_default(&v.value, default) {
                warnings.push(format!(
                    "MQSim {name} = {}{} has no zonesim equivalent ({why}); ignored",
                    v.value,
                    p.line(name)
                ));
            }
        }
    }
    let known: Vec<&str> = UNMAPPED_DEVICE
        .iter()
        .chain(UNMAPPED_FLASH.iter())
        .map(|u| u.0)
        .chain(crate::import_mqsim_map::MAPPED.iter().map(|m| m.0))
        .collect();
    for (name, v) in &map {
        if !known.contains(&name.as_str()) {
            warnings.push(format!(
                "unknown MQSim parameter <{name}> ({}:{}); ignored",
                p.file, v.line
            ));
        }
    }
    let dev = crate::import_mqsim_map::device(&p, ssdconfig, &mut warnings)?;

    let wtext = zonesim::error::read_text_file(workload)?;
    let wdoc = parse_xml(workload, &wtext)?;
    let wroot = wdoc.root_element();
    if wroot.tag_name().name() != "MQSim_IO_Scenarios" {
        return Err(Error::parse(
            workload.display().to_string(),
            wdoc.text_pos_at(wroot.range().start).row as u64,
            format!(
                "element <{}>: not an MQSim workload (its root is <MQSim_IO_Scenarios>)",
                wroot.tag_name().name()
            ),
        ));
    }
    let mut files = vec![(format!("{}.toml", dev.name), dev.toml.clone())];
    let mut commands = Vec::new();
    let wfile = workload.display().to_string();
    let base_dir = workload.parent().unwrap_or(Path::new("."));
    let mut flow_warned: Vec<String> = Vec::new();
    for (si, scenario) in wroot
        .children()
        .filter(|n| n.is_element() && n.tag_name().name() == "IO_Scenario")
        .enumerate()
    {
        let flows: Vec<Node> = scenario.children().filter(|n| n.is_element()).collect();
        let mut flow_maps = Vec::new();
        for f in &flows {
            flow_maps.push((f.tag_name().name().to_string(), leaves(&wdoc, *f), *f));
        }
        let sc = crate::import_mqsim_map::scenario(
            si + 1,
            &flow_maps,
            &wfile,
            base_dir,
            &dev,
            &mut warnings,
            &mut flow_warned,
            |n| wdoc.text_pos_at(n.range().start).row,
        )?;
        files.extend(sc.files);
        commands.extend(sc.commands);
    }
    if commands.is_empty() {
        warnings.push(format!(
            "{wfile}: no <IO_Scenario> with flows; only the device was written"
        ));
    }
    Ok(Imported {
        files,
        commands,
        warnings,
    })
}

/// Writes a TOML string value.
pub fn toml_str(s: &str) -> String {
    let mut o = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            c if c.is_control() => {
                let _ = write!(o, "\\u{:04x}", c as u32);
            }
            c => o.push(c),
        }
    }
    o + "\""
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_element_open_at_an_error() {
        let t = "<a>\n  <b>\n    <c>1</c>\n    <d>2</x>\n</a>";
        assert_eq!(open_element_at(t, 4, 12).as_deref(), Some("d"));
        assert_eq!(open_element_at(t, 2, 3).as_deref(), Some("a"));
    }

    #[test]
    fn defaults_compare_numerically_and_case_insensitively() {
        assert!(is_default("0.0050", "0.005"));
        assert!(is_default("false", "false"));
        assert!(is_default("FALSE", "false"));
        assert!(!is_default("true", "false"));
    }
}
