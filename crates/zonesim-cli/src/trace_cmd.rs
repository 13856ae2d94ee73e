//! `zonesim trace stats|convert|plot`: trace tooling on top of `zonesim::host::trace`.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use zonesim::host::trace::{self, BlkEvent, ConvertFormat, TraceFormat, TraceOptions, TraceReader};
use zonesim::Error;

/// How to read a trace: format, blkparse event, stream filter (shared by `trace` and
/// `run --trace`).
#[derive(Debug, Clone, clap::Args)]
pub struct TraceReadOpts {
    /// Trace format; detected from the first lines when omitted.
    #[arg(long = "trace-format", value_name = "FORMAT", value_parser = parse_format)]
    pub trace_format: Option<TraceFormat>,
    /// blkparse event taken as the request: Q (queued), D (issued, default), C (completed).
    #[arg(long, value_name = "Q|D|C", default_value = "D", value_parser = parse_event)]
    pub blkparse_event: BlkEvent,
    /// Keep only one stream: MSR disk number, Alibaba device id, Tencent volume id (also the
    /// DiskSim device, blkparse `major<<20|minor`, iolog file index).
    #[arg(long, value_name = "N")]
    pub filter: Option<u64>,
}

impl TraceReadOpts {
    /// The reader options these arguments select.
    pub fn options(&self) -> TraceOptions {
        TraceOptions {
            format: self.trace_format,
            blkparse_event: self.blkparse_event,
            filter: self.filter,
        }
    }
}

/// The input trace of the trace subcommands.
#[derive(Debug, Clone, clap::Args)]
pub struct ReadArgs {
    /// The trace file.
    pub file: PathBuf,
    #[command(flatten)]
    pub opts: TraceReadOpts,
}

impl ReadArgs {
    /// Opens the trace.
    pub fn open(&self) -> zonesim::Result<TraceReader> {
        TraceReader::open(&self.file, &self.opts.options())
    }
}

fn parse_format(s: &str) -> Result<TraceFormat, Error> {
    s.parse()
}

fn parse_event(s: &str) -> Result<BlkEvent, Error> {
    s.parse()
}

fn parse_to(s: &str) -> Result<ConvertFormat, Error> {
    s.parse()
}

#[derive(Debug, clap::Subcommand)]
pub enum TraceCmd {
    /// Characterise a trace: request mix, sizes, footprint, sequentiality, inter-arrival
    /// times, hottest regions.
    #[command(allow_negative_numbers = true)]
    Stats {
        #[command(flatten)]
        read: ReadArgs,
        /// How many top regions (1 MiB) and streams to list.
        #[arg(long, value_name = "N", default_value_t = 10)]
        top: usize,
        /// Also write the statistics as JSON to this file.
        #[arg(long, value_name = "PATH")]
        json: Option<PathBuf>,
    },
    /// Rewrite a trace as DiskSim ASCII or fio iolog v3 (DiskSim drops trims and flushes).
    #[command(allow_negative_numbers = true)]
    Convert {
        #[command(flatten)]
        read: ReadArgs,
        /// Output format: disksim or iolog.
        #[arg(long, value_name = "disksim|iolog", value_parser = parse_to)]
        to: ConvertFormat,
        /// Output file (default: standard output).
        #[arg(short = 'o', long = "output", value_name = "OUT")]
        output: Option<PathBuf>,
    },
    /// Plot a trace: offset over time, request sizes, read/write mix over time (PNG, or SVG
    /// when OUT ends in .svg).
    #[command(allow_negative_numbers = true)]
    Plot {
        #[command(flatten)]
        read: ReadArgs,
        /// The image to write: FILE.png or FILE.svg.
        #[arg(long, value_name = "FILE.png")]
        out: PathBuf,
    },
}

/// Runs a `zonesim trace` subcommand. Bad input comes back as a `zonesim::Error`.
pub fn run(cmd: TraceCmd) -> anyhow::Result<()> {
    match cmd {
        TraceCmd::Stats { read, top, json } => stats(&read, top, json.as_deref()),
        TraceCmd::Convert { read, to, output } => convert(&read, to, output.as_deref()),
        TraceCmd::Plot { read, out } => crate::trace_plot::plot(&read, &out),
    }
}

fn stats(read: &ReadArgs, top: usize, json: Option<&Path>) -> anyhow::Result<()> {
    let mut reader = read.open()?;
    let s = trace::trace_stats(&mut reader, top)?;
    if let Some(path) = json {
        let text = serde_json::to_string_pretty(&s)?;
        std::fs::write(path, text + "\n").map_err(|e| Error::io(path, e))?;
    }
    let mut out = io::stdout().lock();
    let table = format!(
        "trace             {}\n{}",
        read.file.display(),
        trace::render_table(&s)
    );
    match out.write_all(table.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() != io::ErrorKind::BrokenPipe => Err(Error::io("<stdout>", e).into()),
        _ => Ok(()),
    }
}

fn convert(read: &ReadArgs, to: ConvertFormat, output: Option<&Path>) -> anyhow::Result<()> {
    let mut reader = read.open()?;
    let result = match output {
        Some(path) => {
            let file = File::create(path).map_err(|e| Error::io(path, e))?;
            let mut w = BufWriter::with_capacity(1 << 20, file);
            trace::convert(&mut reader, &mut w, to).map_err(|e| rename_output(e, path))
        }
        None => {
            let stdout = io::stdout();
            let mut w = BufWriter::with_capacity(1 << 20, stdout.lock());
            match trace::convert(&mut reader, &mut w, to) {
                // `zonesim trace convert ... | head`: the reader went away; not an error.
                Err(Error::Io { source, .. }) if source.kind() == io::ErrorKind::BrokenPipe => {
                    return Ok(());
                }
                r => r.map_err(|e| rename_output(e, Path::new("<stdout>"))),
            }
        }
    };
    let written = result?;
    let dropped = reader.records() - written;
    let mut note = format!(
        "zonesim: converted {written} records from {} to {to}",
        reader.format()
    );
    if dropped > 0 {
        note += &format!(" ({dropped} trims/flushes dropped: DiskSim cannot express them)");
    }
    if reader.skipped() > 0 {
        note += &format!("; {} trace lines skipped", reader.skipped());
    }
    eprintln!("{note}");
    Ok(())
}

/// Names the real output in a write error of `trace::convert`.
fn rename_output(e: Error, path: &Path) -> Error {
    match e {
        Error::Io { path: p, source } if p == Path::new(trace::convert::OUTPUT_NAME) => {
            Error::io(path, source)
        }
        e => e,
    }
}
