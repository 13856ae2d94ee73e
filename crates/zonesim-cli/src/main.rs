//! `zonesim`: the command-line front end. A thin layer over the `zonesim` library: argument
//! parsing, the summary table, the progress bar and exit codes (2 for bad input).

mod bench;
mod bench_against;
mod compare_cmd;
mod config_cmd;
mod experiment_cmd;
mod figure;
mod fio_out;
mod import_mqsim;
mod import_mqsim_map;
mod layout_cmd;
#[cfg(target_os = "linux")]
mod mount_cmd;
mod progress;
mod report_html;
mod report_json;
mod run_cmd;
mod soak;
mod summary;
mod svg;
mod sweep_cmd;
mod trace_cmd;
mod trace_plot;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "zonesim",
    version,
    about = "Fast, deterministic simulator of flash storage (UFS/eMMC, NVMe; conventional and zoned)"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Run a simulation (no arguments: the default device and workload).
    #[command(allow_negative_numbers = true, after_help = RUN_EXAMPLES)]
    Run(Box<run_cmd::RunArgs>),
    /// List the device presets.
    Presets,
    /// The device config's keys: type, default, valid range, unit and meaning.
    #[command(subcommand)]
    Config(config_cmd::ConfigCmd),
    /// Run the standard speed cases and print simulated requests per wall second.
    #[command(allow_negative_numbers = true)]
    Bench(bench::BenchArgs),
    /// Random valid worlds (preset, keys within their declared ranges, layout, workload, seed),
    /// each run twice with the invariant checks on; failures print a reproducer.
    Soak(soak::SoakArgs),
    /// Reproductions of published experiments: list, run NAME.
    #[command(subcommand, after_help = EXPERIMENT_EXAMPLES)]
    Experiment(experiment_cmd::ExperimentCmd),
    /// Size the namespaces of an F2FS metadata + zoned data device (ConZone+ §4.1).
    #[command(allow_negative_numbers = true)]
    Layout(layout_cmd::LayoutArgs),
    /// Run every point of a grid of device keys (SWEEP.toml) on a local pool; results as CSV.
    #[command(after_help = SWEEP_EXAMPLES)]
    Sweep(sweep_cmd::SweepArgs),
    /// A finished run's JSON report as one self-contained HTML page (figures and tables).
    Report(report_html::ReportArgs),
    /// Deltas of two JSON reports: headline metrics per job and device counters.
    Compare(compare_cmd::CompareArgs),
    /// Convert another simulator's configuration into a zonesim device and workload.
    #[command(subcommand)]
    Import(import_mqsim::ImportCmd),
    /// Trace tooling: statistics, format conversion and plots.
    #[command(subcommand)]
    Trace(trace_cmd::TraceCmd),
    /// Expose a namespace as DIR/disk through FUSE until unmounted, then write the report.
    #[cfg(target_os = "linux")]
    #[command(after_help = MOUNT_EXAMPLES)]
    Mount(Box<mount_cmd::MountArgs>),
}

// The examples that end `--help` (paths relative to the repository root).
const RUN_EXAMPLES: &str = "Examples (from the repository root):
  zonesim run                                    the default device and workload
  zonesim run --device conzone-paper --workload examples/zoned.fio
                                                 fio zonemode=zbd jobs on the zoned namespace
  zonesim run --device nvme-ssd --set ftl.gc.victim=d_choice --precondition steady \\
      --workload examples/my.fio --json report.json
                                                 a key override, in GC steady state, JSON report
  zonesim run --trace tests/fixtures/traces/tpcc-small.trace --as-fast-as-possible --qd 16 \\
      --precondition seq                         a block trace replayed at queue depth 16";

const SWEEP_EXAMPLES: &str = "Examples (from the repository root):
  zonesim sweep examples/gc-sweep.toml --out results.csv --workers 2   2 points at a time
  zonesim sweep examples/gc-sweep.toml --out results.csv               one point per core
  python -m zonesim sweep examples/gc-sweep.toml --out results.parquet the same, as Parquet";

const EXPERIMENT_EXAMPLES: &str = "Examples:
  zonesim experiment list                          the reproductions, one line each
  zonesim experiment run conzone-hybrid-read       ours beside the paper's numbers
  zonesim experiment run all --quick               one verdict line per experiment
  zonesim experiment run zms-randread --markdown   the table as markdown";

const MOUNT_EXAMPLES: &str = "Examples (as root, with fuse3; docs/emulation.md):
  zonesim mount /mnt/zs --json mount.json &        the namespace appears as /mnt/zs/disk
  losetup --find --show /mnt/zs/disk               a block device over it (say /dev/loop0)
  mkfs.xfs /dev/loop0 && mount /dev/loop0 /mnt/x   a file system on the simulated device
  umount /mnt/x; losetup -d /dev/loop0; umount /mnt/zs   unmount: the report is written";

fn main() -> ExitCode {
    zonesim::stats::provenance::set_commit(env!("ZONESIM_GIT_COMMIT"));
    // Like other command-line tools, end quietly when the reader of stdout goes away
    // (`zonesim bench | head`) instead of panicking on a failed print.
    #[cfg(unix)]
    // SAFETY: restoring the default disposition of SIGPIPE before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            use clap::error::ErrorKind;
            if matches!(
                e.kind(),
                ErrorKind::DisplayHelp
                    | ErrorKind::DisplayVersion
                    | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
            ) {
                e.exit();
            }
            // Usage errors: one line, exit code 2.
            eprintln!("zonesim: {}", clap_one_line(&e.to_string()));
            return ExitCode::from(2);
        }
    };
    let res = match cli.cmd {
        Cmd::Run(a) => run_cmd::run(*a),
        Cmd::Presets => {
            // The description is the preset file's own `description`.
            for (name, _, _) in zonesim::config::PRESETS {
                match zonesim::config::DeviceConfig::load(name, &[]) {
                    Ok(c) => println!("{name:<20} {}", c.description),
                    Err(e) => println!("{name:<20} (invalid: {e})"),
                }
            }
            Ok(())
        }
        Cmd::Config(c) => config_cmd::run(c),
        Cmd::Bench(a) => bench::run(a),
        Cmd::Soak(a) => soak::run(a),
        Cmd::Trace(t) => trace_cmd::run(t),
        Cmd::Experiment(e) => experiment_cmd::run(e),
        Cmd::Layout(a) => layout_cmd::run(a),
        #[cfg(target_os = "linux")]
        Cmd::Mount(a) => mount_cmd::run(*a),
        Cmd::Sweep(a) => sweep_cmd::run(a),
        Cmd::Report(a) => report_html::run(a),
        Cmd::Compare(a) => compare_cmd::run(a),
        Cmd::Import(c) => import_mqsim::run(c),
    };
    match res {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // One line, always: a message from a library may carry newlines.
            eprintln!("zonesim: {}", error_line(&e));
            if e.downcast_ref::<run_cmd::Interrupted>().is_some() {
                return ExitCode::from(run_cmd::EXIT_INTERRUPTED);
            }
            match e.downcast_ref::<zonesim::Error>() {
                // 2 for bad input, 70 for a simulator bug (zonesim::error::EXIT_INTERNAL).
                Some(z) => ExitCode::from(z.exit_code()),
                None => ExitCode::from(1),
            }
        }
    }
}

/// clap's message as one line: its first paragraph (the error and, for a missing argument, the
/// arguments it lists), without the `error: ` prefix, the usage and the help hint.
fn clap_one_line(text: &str) -> String {
    let para: Vec<&str> = text
        .lines()
        .skip_while(|l| l.trim().is_empty())
        .take_while(|l| !l.trim().is_empty())
        .map(str::trim)
        .collect();
    let mut line = para.join(" ").trim_start_matches("error: ").to_string();
    // clap's "did you mean" hints ("tip: a similar argument exists: '--precondition'") sit in
    // a paragraph of their own: keep them on the line.
    for tip in text
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with("tip:"))
    {
        line.push_str(" (");
        line.push_str(tip.trim_start_matches("tip:").trim());
        line.push(')');
    }
    zonesim::error::printable(&line)
}

/// An error and its causes on one line, each cause once (a cause whose text the message
/// already carries, as an I/O error's OS text, is not repeated); control characters echoed
/// from the input are shown escaped.
fn error_line(e: &anyhow::Error) -> String {
    let mut msg = String::new();
    for cause in e.chain() {
        let c = cause.to_string();
        if !msg.contains(c.trim()) {
            if !msg.is_empty() {
                msg.push_str(": ");
            }
            msg.push_str(c.trim());
        }
    }
    zonesim::error::printable(&msg)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clap_messages_keep_the_argument_they_name() {
        let text = "error: the following required arguments were not provided:\n  <NAME>\n\nUsage: zonesim experiment run <NAME>\n\nFor more information, try '--help'.\n";
        assert_eq!(
            clap_one_line(text),
            "the following required arguments were not provided: <NAME>"
        );
        let text = "error: unexpected argument '--x' found\n\n  tip: to pass '--x' as a value, use '-- --x'\n\nUsage: zonesim run\n";
        assert_eq!(
            clap_one_line(text),
            "unexpected argument '--x' found (to pass '--x' as a value, use '-- --x')"
        );
        let text = "error: unexpected argument '--precondtion' found\n\n  tip: a similar argument exists: '--precondition'\n\nUsage: zonesim run [OPTIONS]\n";
        assert_eq!(
            clap_one_line(text),
            "unexpected argument '--precondtion' found (a similar argument exists: '--precondition')"
        );
    }

    #[test]
    fn os_error_text_is_not_repeated() {
        let io = std::io::Error::from(std::io::ErrorKind::NotFound);
        let e = anyhow::Error::from(zonesim::Error::io("nope.fio", io));
        let line = error_line(&e);
        assert_eq!(line.matches("not found").count(), 1, "{line}");
        assert!(line.starts_with("nope.fio: "), "{line}");
    }
}
