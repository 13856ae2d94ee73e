//! `zonesim config keys [--markdown] [SECTION...]`: the device config's keys with their type,
//! default, valid range, unit and meaning, all read from the keys' declarations. The key
//! tables of docs/config.md are this command's `--markdown` output.

use anyhow::Result;
use std::io::Write;
use zonesim::config::table;

#[derive(clap::Subcommand)]
pub enum ConfigCmd {
    /// Print the device config's keys (all, or those of the sections named).
    Keys {
        /// A key or a section (`ftl`, `ftl.gc`, `namespaces`): it and every key under it.
        sections: Vec<String>,
        /// Print markdown tables (docs/config.md is generated from this).
        #[arg(long)]
        markdown: bool,
    },
}

pub fn run(cmd: ConfigCmd) -> Result<()> {
    match cmd {
        ConfigCmd::Keys { sections, markdown } => {
            let keys = table::select(&sections)?;
            let text = if markdown {
                table::markdown(&keys)
            } else {
                table::plain(&keys)
            };
            std::io::stdout().write_all(text.as_bytes())?;
            Ok(())
        }
    }
}
