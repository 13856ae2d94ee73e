//! `zonesim experiment list|run NAME`.

use anyhow::Result;
use std::path::PathBuf;
use zonesim::experiments::{self, ExpOptions};
use zonesim::Error;

#[derive(clap::Subcommand)]
pub enum ExperimentCmd {
    /// List the reproductions.
    List,
    /// Run one reproduction and print ours beside the reference.
    #[command(allow_negative_numbers = true)]
    Run {
        name: String,
        /// Also write the outcome as JSON to this file.
        #[arg(long)]
        json: Option<PathBuf>,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Smaller, faster runs of the same structure.
        #[arg(long)]
        quick: bool,
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
        } => {
            let e = experiments::find(&name)?;
            let out = (e.run)(&ExpOptions { seed, quick })?;
            print!("{}", experiments::render(&out));
            if let Some(p) = json {
                let text = serde_json::to_string_pretty(&out)?;
                std::fs::write(&p, text + "\n").map_err(|e| Error::io(&p, e))?;
            }
        }
    }
    Ok(())
}
