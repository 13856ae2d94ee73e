//! Build script of the leaf crates (the CLI, the fio engine, the Python module): records the git
//! commit they are built from as `ZONESIM_GIT_COMMIT`, which each hands to the library at start
//! (`zonesim::stats::provenance::set_commit`) for the report's `provenance.commit`:
//! `git describe --always --abbrev=12`, or "unknown" outside a git checkout (a source archive,
//! a wheel built from an sdist). Only the leaves follow HEAD, so a commit rebuilds a small crate,
//! not the library and its tests. Uncommitted changes are not marked: following the index would
//! rebuild at every `git add`.

use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    if !out.status.success() {
        return None;
    }
    let s = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (!s.is_empty()).then_some(s)
}

fn main() {
    let commit = git(&["describe", "--always", "--abbrev=12"]).unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=ZONESIM_GIT_COMMIT={commit}");
    // Rebuild when HEAD moves (a commit, a checkout).
    if let Some(path) = git(&["rev-parse", "--git-path", "HEAD"]) {
        println!("cargo:rerun-if-changed={path}");
    }
    if let Some(head) = git(&["symbolic-ref", "-q", "HEAD"]) {
        if let Some(path) = git(&["rev-parse", "--git-path", &head]) {
            println!("cargo:rerun-if-changed={path}");
        }
    }
    println!("cargo:rerun-if-changed=../../build/git_commit.rs");
}
