//! `zonesim config keys [--markdown] [SECTION...]`: the device config's keys with their type,
//! default, valid range, unit and meaning, all read from the keys' declarations. The key
//! tables of docs/config.md are this command's `--markdown` output.
//!
//! `zonesim config show --device X [--set K=V ...]`: the resolved device (preset or file, its
//! base, the overrides, every default filled in) as TOML that loads back as a device file.

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
    /// Print the resolved device config as TOML (every key; loads back as a device file).
    Show {
        /// A preset name (see `zonesim presets`) or a TOML file.
        #[arg(long, default_value = "ufs-conventional")]
        device: String,
        /// Override a device key: --set nand.channels=4 (repeatable).
        #[arg(long = "set", value_name = "KEY=VALUE")]
        sets: Vec<String>,
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
        ConfigCmd::Show { device, sets } => {
            let cfg = zonesim::load_device(&device, &sets)?;
            let text = zonesim::config::to_toml(&cfg)?;
            std::io::stdout().write_all(text.as_bytes())?;
            Ok(())
        }
    }
}
