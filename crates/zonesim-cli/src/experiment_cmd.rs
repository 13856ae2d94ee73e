//! `zonesim experiment list|run NAME|all`.
//!
//! Exit status: 0 when every checked row passes (or is a marked known gap), 1 when a checked
//! row is outside its tolerance, 2 on bad input.
//!
//! Experiments, and the independent runs inside each, share `--jobs` threads (default: every
//! core; `zonesim_experiments::par_map`); each simulation stays on one thread, so the output is
//! the same for any `--jobs`, printed in listing order.

use anyhow::Result;
use std::io::Write;
use std::path::PathBuf;
use zonesim::Error;
use zonesim_experiments::{self as experiments, ExpOptions, Outcome};

#[derive(clap::Subcommand)]
pub enum ExperimentCmd {
    /// List the reproductions.
    List,
    /// Run one reproduction (or `all`) and print ours beside the reference.
    #[command(allow_negative_numbers = true)]
    Run {
        /// An experiment name, or `all` (one verdict line per experiment).
        name: String,
        /// Also write the outcome as JSON to this file (`all`: an array).
        #[arg(long)]
        json: Option<PathBuf>,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Smaller, faster runs of the same structure.
        #[arg(long)]
        quick: bool,
        /// Print the table as markdown (docs are pasted from this).
        #[arg(long)]
        markdown: bool,
        /// Simulations at a time (experiments and their independent runs); 0: every core.
        #[arg(long, default_value_t = 0)]
        jobs: usize,
    },
}

pub fn run(cmd: ExperimentCmd) -> Result<()> {
    match cmd {
        ExperimentCmd::List => {
            for e in experiments::all() {
                println!("{:<26} {}", e.name, e.title);
            }
        }
        ExperimentCmd::Run {
            name,
            json,
            seed,
            quick,
            markdown,
            jobs,
        } => {
            let list = if name == "all" {
                experiments::all()
            } else {
                vec![experiments::find(&name)?]
            };
            experiments::set_jobs(jobs);
            let opts = ExpOptions { seed, quick };
            let mut outs: Vec<Outcome> = Vec::new();
            let mut failed: Option<anyhow::Error> = None;
            experiments::par_each(
                &list,
                |e| (e.run)(&opts),
                |_, r| match r {
                    // Like a sequential loop: nothing is printed after the first error.
                    _ if failed.is_some() => {}
                    Err(e) => failed = Some(e.into()),
                    Ok(out) => {
                        if name == "all" && !markdown {
                            println!("{}", out.verdict_line());
                        } else if markdown {
                            println!("{}", experiments::render_markdown(&out));
                        } else {
                            print!("{}", experiments::render(&out));
                        }
                        outs.push(out);
                    }
                },
            );
            if let Some(e) = failed {
                return Err(e);
            }
            if let Some(p) = json {
                let text = if outs.len() == 1 {
                    serde_json::to_string_pretty(&outs[0])?
                } else {
                    serde_json::to_string_pretty(&outs)?
                };
                std::fs::write(&p, text + "\n").map_err(|e| Error::io(&p, e))?;
            }
            if outs.iter().any(|o| o.failures() > 0) {
                std::io::stdout().flush().ok();
                std::process::exit(1);
            }
        }
    }
    Ok(())
}
