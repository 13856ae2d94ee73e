//! Helpers of the CLI tests that run the `zonesim` binary.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub fn zonesim(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_zonesim"))
        .args(args)
        .output()
        .expect("zonesim runs")
}

pub fn ok(args: &[&str]) -> String {
    let out = zonesim(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

pub fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("zonesim-pictures-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

pub fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

pub fn tmp(name: &str, text: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("zonesim-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// Exit code 2 and exactly one line on stderr containing every `needles`.
pub fn bad_input(args: &[&str], needles: &[&str]) {
    let out = zonesim(args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
    for n in needles {
        assert!(err.contains(n), "{args:?}: '{err}' lacks '{n}'");
    }
}

/// Exit code 0; returns stderr.
pub fn good_run(args: &[&str]) -> String {
    let out = zonesim(args);
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(0), "{args:?}: {err}");
    err
}
