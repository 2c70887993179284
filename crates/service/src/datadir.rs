//! One process per data directory: an OS file lock on `courier.lock`, held for the process's life.
//!
//! Two processes on one SQLite file would each cache the account, rate limits and usage counters
//! in memory, so a credential rotation through one would leave the old token valid in the other.
//! The lock (`flock`, through `fs4`) is released by the kernel when the holder exits, however it
//! exits, so a crashed process never leaves a stale lock behind; the pid written into the file
//! only serves the message of the process that is refused.

use fs4::{FileExt, TryLockError};
use std::fs::{File, OpenOptions};
use std::io::{Read as _, Seek as _, Write as _};
use std::path::{Path, PathBuf};

/// The lock file's name inside the data directory.
pub const LOCK_FILE: &str = "courier.lock";

/// Holds the data directory for as long as it lives.
#[derive(Debug)]
pub struct DataDirLock {
    // Never read: owning the open file is what holds the lock.
    _file: File,
    path: PathBuf,
}

impl DataDirLock {
    /// The lock file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// Creates the data directory if needed and takes its lock, or says who holds it.
pub fn lock_data_dir(data_dir: &Path) -> Result<DataDirLock, String> {
    std::fs::create_dir_all(data_dir)
        .map_err(|e| format!("cannot create data directory {}: {e}", data_dir.display()))?;
    let path = data_dir.join(LOCK_FILE);
    // No truncate on open: while another process holds the lock, its pid must stay readable.
    let mut file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .map_err(|e| {
            format!(
                "the data directory {} is not writable: cannot open {}: {e}",
                data_dir.display(),
                path.display()
            )
        })?;
    // Fully qualified: from Rust 1.89 std's inherent `File::try_lock` would shadow the trait's.
    match FileExt::try_lock(&file) {
        Ok(()) => {}
        Err(TryLockError::WouldBlock) => {
            let mut holder = String::new();
            let _ = file.read_to_string(&mut holder);
            let holder = match holder.trim() {
                "" => "another process".to_owned(),
                pid => format!("the process with pid {pid}"),
            };
            return Err(format!(
                "the data directory {} is in use by {holder} (it holds {}); one courier process \
                 per data directory: stop that one first, or give this one another --data-dir. \
                 Several instances over one store need a database server, not one SQLite file",
                data_dir.display(),
                path.display()
            ));
        }
        Err(TryLockError::Error(e)) => {
            return Err(format!("cannot lock {}: {e}", path.display()));
        }
    }
    let written = file
        .set_len(0)
        .and_then(|()| file.rewind())
        .and_then(|()| writeln!(file, "{}", std::process::id()))
        .and_then(|()| file.sync_all());
    written.map_err(|e| {
        format!(
            "the data directory {} is not writable: cannot write {}: {e}",
            data_dir.display(),
            path.display()
        )
    })?;
    Ok(DataDirLock { _file: file, path })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_on_the_same_directory_is_refused_and_names_the_holder() {
        let dir = tempfile::tempdir().expect("tempdir");
        let held = lock_data_dir(dir.path()).expect("first lock");
        // flock locks belong to the open file, so a second open in this process conflicts too.
        let refused = lock_data_dir(dir.path()).expect_err("second lock is refused");
        assert!(
            refused.contains(&dir.path().display().to_string())
                && refused.contains(&format!("pid {}", std::process::id())),
            "{refused}"
        );
        drop(held);
        lock_data_dir(dir.path()).expect("free again once the holder is gone");
    }
}
