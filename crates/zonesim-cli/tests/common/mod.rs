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
