//! What the host file-system models share (F2FS in `fs`, ext4 in `ext4`): the inode handle and
//! the errors of the file interface, the check of path names, the page cache's dirty-page set
//! (`dirty`) and the device-neutral staged commands a file system emits (`out`).

pub mod dirty;
pub mod out;

/// The longest directory or file name a job or scenario may give (Linux's PATH_MAX).
pub const MAX_PATH_BYTES: usize = 4096;

/// Checks a directory or file name given by a job file or a scenario: not empty, no control
/// characters (a NUL, a newline, a terminal escape), at most [`MAX_PATH_BYTES`] bytes. The
/// model keys files by these names, so an empty or garbled one would be accepted silently.
pub fn check_path_name(name: &str) -> std::result::Result<(), String> {
    if name.trim().is_empty() {
        return Err("must not be empty".into());
    }
    if name.chars().any(char::is_control) {
        return Err("must not contain control characters".into());
    }
    if name.len() > MAX_PATH_BYTES {
        return Err(format!(
            "is {} bytes, more than a path may be ({MAX_PATH_BYTES}, PATH_MAX)",
            name.len()
        ));
    }
    Ok(())
}

/// An inode number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Ino(pub u32);

/// The root directory.
pub const ROOT: Ino = Ino(0);

/// Why a file operation failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FsError {
    /// No space (`ENOSPC`): counted in the report.
    NoSpace,
    /// A file was to be marked for in-place update, but the main area's device has no
    /// in-place update budget (F2FS's `mark_ipu`).
    NoIpuBudget,
}
