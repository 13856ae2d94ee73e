//! `zonesim`: the command-line front end. A thin layer over the `zonesim` library: argument
//! parsing, the summary table, the progress bar and exit codes (2 for bad input).

mod bench;
mod experiment_cmd;
mod f2fs_layout;
mod layout_cmd;
mod run_cmd;
mod summary;
mod trace_cmd;

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
    Run(Box<run_cmd::RunArgs>),
    /// List the device presets.
    Presets,
    /// Run the standard speed cases and print simulated requests per wall second.
    Bench(bench::BenchArgs),
    /// Reproductions of published experiments: list, run NAME.
    #[command(subcommand)]
    Experiment(experiment_cmd::ExperimentCmd),
    /// Size the namespaces of an F2FS metadata + zoned data device (ConZone+ §4.1).
    Layout(layout_cmd::LayoutArgs),
    /// Trace tooling: statistics and format conversion.
    #[command(subcommand)]
    Trace(trace_cmd::TraceCmd),
}

fn main() -> ExitCode {
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
            // Usage errors: one line (clap's first), exit code 2.
            let text = e.to_string();
            let line = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
            eprintln!("zonesim: {}", line.trim_start_matches("error: "));
            return ExitCode::from(2);
        }
    };
    let res = match cli.cmd {
        Cmd::Run(a) => run_cmd::run(*a),
        Cmd::Presets => {
            for (name, desc, _) in zonesim::config::PRESETS {
                println!("{name:<20} {desc}");
            }
            Ok(())
        }
        Cmd::Bench(a) => bench::run(a),
        Cmd::Trace(t) => trace_cmd::run(t),
        Cmd::Experiment(e) => experiment_cmd::run(e),
        Cmd::Layout(a) => layout_cmd::run(a),
    };
    match res {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // One line, always: a message from a library may carry newlines.
            let msg = format!("{e:#}");
            eprintln!("zonesim: {}", msg.trim().replace('\n', "; "));
            if e.downcast_ref::<zonesim::Error>().is_some() {
                ExitCode::from(2)
            } else {
                ExitCode::from(1)
            }
        }
    }
}
