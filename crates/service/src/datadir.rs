//! One process per data directory: an OS file lock on `courier.lock`, held for the process's life.
//!
//! Two processes on one SQLite file would each cache the account, rate limits and usage counters
//! in memory, so a credential rotation through one would leave the old token valid in the other.
//! The lock (`flock`, through `fs4`) is released by the kernel when the holder exits, however it
//! exits, so a crashed process never leaves a stale lock behind; the pid written into the file
//! only serves the message of the process that is refused.
//!
//! The directory holds every credential and every payload, so it is created `0700` and its
//! files `0600`, and a directory that other users can reach is refused at start unless the
//! operator says it is meant to be shared ([`SharedDataDir::Allow`], `--allow-shared-data-dir`).
//! On a readable directory another local user could read the key out of the WAL, or take the
//! lock and keep courier from starting.

use fs4::{FileExt, TryLockError};
use std::fs::{File, OpenOptions};
use std::io::Read as _;
use std::os::unix::fs::{
    DirBuilderExt as _, FileExt as _, OpenOptionsExt as _, PermissionsExt as _,
};
use std::path::{Path, PathBuf};

/// Mode of the data directory: its owner only.
pub const PRIVATE_DIR_MODE: u32 = 0o700;
/// Mode of every file in it: its owner only.
pub const PRIVATE_FILE_MODE: u32 = 0o600;

/// Whether a data directory that group or other users can reach may be used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SharedDataDir {
    /// Refuse to start on it (the default).
    Refuse,
    /// Use it as it is (`--allow-shared-data-dir`).
    Allow,
}

/// Creates `dir` and any missing parents with mode `0700`.
pub fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(PRIVATE_DIR_MODE)
        .create(dir)
}

/// Makes `file` readable and writable by its owner only, when it exists and is not already so.
pub fn make_private(file: &Path) -> std::io::Result<()> {
    match std::fs::metadata(file) {
        Ok(metadata) if metadata.permissions().mode() & 0o077 != 0 => {
            std::fs::set_permissions(file, std::fs::Permissions::from_mode(PRIVATE_FILE_MODE))
        }
        Ok(_) => Ok(()),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(error) => Err(error),
    }
}

/// Creates the data directory (`0700`) if needed, refuses one that group or other users can
/// reach unless `shared` allows it, and takes its lock.
pub fn open_data_dir(data_dir: &Path, shared: SharedDataDir) -> Result<DataDirLock, String> {
    create_private_dir(data_dir)
        .map_err(|e| format!("cannot create data directory {}: {e}", data_dir.display()))?;
    let mode = std::fs::metadata(data_dir)
        .map_err(|e| format!("cannot read data directory {}: {e}", data_dir.display()))?
        .permissions()
        .mode()
        & 0o777;
    if mode & 0o077 != 0 && shared == SharedDataDir::Refuse {
        return Err(format!(
            "the data directory {dir} has mode {mode:04o}: other users of this machine can reach \
             it, and it holds every credential and payload of the service. Make it private with \
             `chmod 700 {dir}`, or start with --allow-shared-data-dir \
             (COURIER_ALLOW_SHARED_DATA_DIR=true) if sharing it is intended",
            dir = data_dir.display()
        ));
    }
    lock_data_dir(data_dir)
}

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
    create_private_dir(data_dir)
        .map_err(|e| format!("cannot create data directory {}: {e}", data_dir.display()))?;
    let path = data_dir.join(LOCK_FILE);
    // No truncate on open: while another process holds the lock, its pid must stay readable.
    let mut file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(PRIVATE_FILE_MODE)
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
    // A lock file from before files were private: tightened once it is ours. The pid is not
    // flushed to disk: another process reads it through the page cache, and after a crash of
    // the machine no process holds the lock, so no message would name it (a flush here was a
    // tenth of the time to start a fresh service). It is written first and the file cut to
    // its length after, never cut to nothing: ext4 writes a file that was truncated to zero
    // out to disk when it is closed, and deleting it then waits for that (milliseconds each
    // time a test's temporary data directory went).
    let pid = format!("{}\n", std::process::id());
    let written = make_private(&path)
        .and_then(|()| file.write_all_at(pid.as_bytes(), 0))
        .and_then(|()| file.set_len(pid.len() as u64));
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

    #[test]
    fn a_directory_others_can_reach_is_refused_unless_allowed_and_a_new_one_is_private() {
        let parent = tempfile::tempdir().expect("tempdir");
        let created = parent.path().join("new/data");
        let lock = open_data_dir(&created, SharedDataDir::Refuse).expect("a new directory");
        let mode = |path: &Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&created), PRIVATE_DIR_MODE);
        assert_eq!(mode(lock.path()), PRIVATE_FILE_MODE);
        drop(lock);

        std::fs::set_permissions(&created, std::fs::Permissions::from_mode(0o750)).unwrap();
        let refused = open_data_dir(&created, SharedDataDir::Refuse).expect_err("refused");
        assert!(
            refused.contains(&created.display().to_string())
                && refused.contains("0750")
                && refused.contains("--allow-shared-data-dir"),
            "{refused}"
        );
        open_data_dir(&created, SharedDataDir::Allow).expect("allowed when told");
    }
}
