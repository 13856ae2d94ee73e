//! Errors: bad input (config, workload, trace, files) and simulator bugs, kept apart.
//!
//! Every user-facing error renders as one line naming where (key, file:line, path) and the rule
//! that was broken; front ends exit with [`Error::exit_code`]: 2 for bad input, 70 (BSD's
//! `EX_SOFTWARE`) for [`Error::Internal`], a simulator bug such as a failed invariant check,
//! which is never the user's fault. Device-level errors (zone rule violations) are *not* errors
//! here: they are answered by the simulated device and counted.

use std::path::PathBuf;

pub mod suggest;

/// A bad-input error. `Display` is the one-line message shown to the user.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// An invalid configuration value or an unknown key.
    #[error("config: {key}: {rule}")]
    Config { key: String, rule: String },
    /// A malformed line in a text input (fio job file, trace).
    #[error("{file}:{line}: {reason}")]
    Parse {
        file: String,
        line: u64,
        reason: String,
    },
    /// A file that cannot be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// Any other invalid usage (e.g. contradictory options).
    #[error("{0}")]
    Usage(String),
    /// The run was stopped from outside (`sim::Control::stop`, Ctrl-C) before it ended.
    #[error("interrupted after {completed} requests ({phase})")]
    Interrupted { phase: &'static str, completed: u64 },
    /// A simulator bug: an invariant check failed or the model reached a state it cannot be
    /// in. Not bad input (exit code 70, not 2).
    #[error("internal error (a simulator bug; please report it with the command): {0}")]
    Internal(String),
}

/// Exit code of bad input (the usage errors of the BSD `sysexits` convention use 64-78; 2 is
/// what command-line tools commonly use for a bad argument, and what zonesim always used).
pub const EXIT_BAD_INPUT: u8 = 2;
/// Exit code of a simulator bug (`EX_SOFTWARE` of BSD's `sysexits.h`).
pub const EXIT_INTERNAL: u8 = 70;

impl Error {
    pub fn config(key: impl Into<String>, rule: impl Into<String>) -> Self {
        Error::Config {
            key: key.into(),
            rule: rule.into(),
        }
    }
    pub fn parse(file: impl Into<String>, line: u64, reason: impl Into<String>) -> Self {
        Error::Parse {
            file: file.into(),
            line,
            reason: reason.into(),
        }
    }
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
    }
    /// A simulator bug (an invariant that does not hold), with what was found.
    pub fn internal(what: impl std::fmt::Display) -> Self {
        Error::Internal(format!("invariant violated: {what}"))
    }
    /// The process exit code a front end ends with: [`EXIT_INTERNAL`] for a simulator bug,
    /// [`EXIT_BAD_INPUT`] otherwise.
    pub fn exit_code(&self) -> u8 {
        match self {
            Error::Internal(_) => EXIT_INTERNAL,
            _ => EXIT_BAD_INPUT,
        }
    }
}

pub type Result<T> = std::result::Result<T, Error>;

/// A message as one printable line: control characters (a newline, a terminal escape, NUL),
/// which only input echoed in the message can bring, are shown escaped (`\n`, `\u{1b}`), so
/// what the user typed is visible and the terminal is left alone. Front ends print errors
/// through it.
pub fn printable(msg: &str) -> String {
    let mut out = String::with_capacity(msg.len());
    for c in msg.chars() {
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// The largest device or job file read (64 MiB): far beyond any real one, and it bounds memory
/// whatever the path names (`/dev/zero`, a disk image).
pub const MAX_TEXT_FILE_BYTES: u64 = 64 << 20;

/// Reads a text input file (device TOML, fio job file) of at most [`MAX_TEXT_FILE_BYTES`].
pub fn read_text_file(path: &std::path::Path) -> Result<String> {
    use std::io::Read;
    let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    let mut text = String::new();
    file.take(MAX_TEXT_FILE_BYTES + 1)
        .read_to_string(&mut text)
        .map_err(|e| Error::io(path, e))?;
    if text.len() as u64 > MAX_TEXT_FILE_BYTES {
        return Err(Error::Usage(format!(
            "{}: larger than {} MiB; not a device or job file",
            path.display(),
            MAX_TEXT_FILE_BYTES >> 20
        )));
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_shown_escaped() {
        assert_eq!(printable("--set base=\n"), "--set base=\\n");
        assert_eq!(printable("got 'rand\u{1b}[31m'"), "got 'rand\\u{1b}[31m'");
        assert_eq!(printable("a\tb\0c é ☃"), "a\\tb\\u{0}c é ☃");
    }
}
