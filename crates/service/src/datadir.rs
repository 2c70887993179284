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
//!
//! The directory and every file in it must belong to the user courier runs as (its effective
//! uid), and no file is opened through a symbolic link (`O_NOFOLLOW`), nor its mode changed by
//! name (`fchmod` on the open file): the owner of a directory can swap its files for links, and a
//! courier started by root would then cut, grow or re-mode whatever file they point at. A refused
//! directory or file is named with what is wrong and what to do, before any file is touched.

use fs4::{FileExt, TryLockError};
use std::fs::{File, OpenOptions};
use std::io::Read as _;
use std::os::unix::fs::{
    DirBuilderExt as _, FileExt as _, MetadataExt as _, OpenOptionsExt as _, PermissionsExt as _,
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

/// The database's file name in the data directory (SQLite keeps `-wal` and `-shm` beside it).
pub const DATABASE_FILE: &str = "courier.sqlite3";

/// The user this process acts as (its effective uid): the only owner of a data directory and
/// of files in it that courier uses.
pub fn service_uid() -> u32 {
    rustix::process::geteuid().as_raw()
}

/// The files of a store whose database is `database`: the database, its WAL and shared memory,
/// the image of a new store while it is written (`.new`), and the reserve.
pub fn store_files(database: &Path) -> Vec<PathBuf> {
    let beside = |suffix: &str| {
        let mut name = database.as_os_str().to_owned();
        name.push(suffix);
        PathBuf::from(name)
    };
    vec![
        database.to_path_buf(),
        beside("-wal"),
        beside("-shm"),
        beside(".new"),
        database.with_extension("reserve"),
    ]
}

/// Whether courier makes `path` again by itself (the lock, the reserve, a new store's image),
/// so that removing it loses nothing; the database files hold the store.
fn remade_by_courier(path: &Path) -> bool {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    name.ends_with(".lock") || name.ends_with(".reserve") || name.ends_with(".new")
}

/// Refuses what `metadata` (of `path`, not following a link) says is a symbolic link, not a
/// regular file, or another user's file, saying what to do.
fn check_metadata(path: &Path, metadata: &std::fs::Metadata) -> Result<(), String> {
    let shown = path.display();
    let remove = format!("remove it (`rm {shown}`): courier creates it itself");
    let file_type = metadata.file_type();
    if file_type.is_symlink() {
        let target = std::fs::read_link(path)
            .map(|target| format!(" (to {})", target.display()))
            .unwrap_or_default();
        let what_to_do = if remade_by_courier(path) {
            remove
        } else {
            "if it points at the store you mean to use, give --data-dir the directory that \
             holds that store instead; otherwise remove the link"
                .to_owned()
        };
        return Err(format!(
            "{shown} is a symbolic link{target}: courier opens no file of its data directory \
             through a link, which would make it write to a file elsewhere. Nothing was \
             changed; {what_to_do}"
        ));
    }
    if !file_type.is_file() {
        let what_to_do = if remade_by_courier(path) {
            remove
        } else {
            "move it out of the data directory".to_owned()
        };
        return Err(format!(
            "{shown} is not a regular file. Nothing was changed; {what_to_do}"
        ));
    }
    let (owner, uid) = (metadata.uid(), service_uid());
    if owner != uid {
        let what_to_do = if remade_by_courier(path) {
            remove
        } else {
            format!(
                "if it is the store you mean to use, give it to this user \
                 (`chown {uid} {shown}`) or run courier as uid {owner}"
            )
        };
        return Err(format!(
            "{shown} belongs to the user with uid {owner}, but courier runs as uid {uid}: that \
             user can read it and replace it. Nothing was changed; {what_to_do}"
        ));
    }
    Ok(())
}

/// Refuses `path` when it is a symbolic link, not a regular file, or not this user's
/// ([`service_uid`]); a missing file is fine (courier creates it). Looks without opening.
pub fn check_own_file(path: &Path) -> Result<(), String> {
    match std::fs::symlink_metadata(path) {
        Ok(metadata) => check_metadata(path, &metadata),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(error) => Err(format!("cannot inspect {}: {error}", path.display())),
    }
}

/// `O_NOFOLLOW`: opening a symbolic link fails (`ELOOP`) instead of opening its target.
fn no_follow() -> i32 {
    rustix::fs::OFlags::NOFOLLOW.bits() as i32
}

/// Opens `path` with `options` (new files `0600`) without following a symbolic link, and checks
/// that what it opened is a regular file of this user ([`check_own_file`] before, the open file
/// after, so a link put in its place meanwhile is refused too).
pub fn open_own_file(path: &Path, options: &mut OpenOptions) -> Result<File, String> {
    check_own_file(path)?;
    let file = options
        .mode(PRIVATE_FILE_MODE)
        .custom_flags(no_follow())
        .open(path)
        .map_err(|error| {
            if error.raw_os_error() == Some(rustix::io::Errno::LOOP.raw_os_error()) {
                format!(
                    "{} is a symbolic link: courier opens no file of its data directory through \
                     a link. Nothing was changed; remove the link",
                    path.display()
                )
            } else {
                format!("cannot open {}: {error}", path.display())
            }
        })?;
    let metadata = file
        .metadata()
        .map_err(|e| format!("cannot inspect {}: {e}", path.display()))?;
    check_metadata(path, &metadata)?;
    Ok(file)
}

/// Makes the open `file` (at `path`) its owner's only (`fchmod`) when it is not already.
pub fn tighten(file: &File, path: &Path) -> Result<(), String> {
    let mode = file
        .metadata()
        .map_err(|e| format!("cannot inspect {}: {e}", path.display()))?
        .permissions()
        .mode();
    if mode & 0o077 == 0 {
        return Ok(());
    }
    file.set_permissions(std::fs::Permissions::from_mode(PRIVATE_FILE_MODE))
        .map_err(|e| format!("cannot make {} private: {e}", path.display()))
}

/// Makes `file` readable and writable by its owner only, when it exists and is not already so,
/// through the open file; refuses a link, a file that is not regular, or another user's.
pub fn make_private(file: &Path) -> Result<(), String> {
    let metadata = match std::fs::symlink_metadata(file) {
        Ok(metadata) => metadata,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(error) => return Err(format!("cannot inspect {}: {error}", file.display())),
    };
    check_metadata(file, &metadata)?;
    if metadata.permissions().mode() & 0o077 == 0 {
        return Ok(());
    }
    // Opened only when its mode must change: closing any descriptor of a database drops this
    // process's POSIX locks on it, SQLite's included.
    let opened = open_own_file(file, OpenOptions::new().read(true))?;
    tighten(&opened, file)
}

/// Creates the data directory (`0700`) if needed; refuses one that is not this user's, one that
/// group or other users can reach unless `shared` allows it, and one holding a store file that is
/// a link or another user's; then takes its lock.
pub fn open_data_dir(data_dir: &Path, shared: SharedDataDir) -> Result<DataDirLock, String> {
    create_private_dir(data_dir)
        .map_err(|e| format!("cannot create data directory {}: {e}", data_dir.display()))?;
    // Following a link to the directory: the directory it names is the one that must be ours.
    let metadata = std::fs::metadata(data_dir)
        .map_err(|e| format!("cannot read data directory {}: {e}", data_dir.display()))?;
    let (owner, uid) = (metadata.uid(), service_uid());
    if owner != uid {
        // Not being able to write it is the first thing its operator meets: said first.
        let writable = rustix::fs::accessat(
            rustix::fs::CWD,
            data_dir,
            rustix::fs::Access::WRITE_OK,
            rustix::fs::AtFlags::EACCESS,
        )
        .is_ok();
        let unwritable = if writable { "" } else { "is not writable: it " };
        return Err(format!(
            "the data directory {dir} {unwritable}belongs to the user with uid {owner}, but \
             courier runs as uid {uid}: that user can read every credential in it, and swap \
             its files for links to files of uid {uid}, which courier would then write. \
             Nothing was changed; give it to this user (`chown -R {uid} {dir}`), run courier as \
             uid {owner}, or give a --data-dir that does not exist yet (courier creates it, \
             private to its user)",
            dir = data_dir.display()
        ));
    }
    let mode = metadata.permissions().mode() & 0o777;
    if mode & 0o077 != 0 && shared == SharedDataDir::Refuse {
        return Err(format!(
            "the data directory {dir} has mode {mode:04o}: other users of this machine can reach \
             it, and it holds every credential and payload of the service. Make it private with \
             `chmod 700 {dir}`, or start with --allow-shared-data-dir \
             (COURIER_ALLOW_SHARED_DATA_DIR=true) if sharing it is intended",
            dir = data_dir.display()
        ));
    }
    check_own_file(&data_dir.join(LOCK_FILE))?;
    for file in store_files(&data_dir.join(DATABASE_FILE)) {
        check_own_file(&file)?;
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
    check_own_file(&path)?;
    // No truncate on open: while another process holds the lock, its pid must stay readable.
    let mut file = open_own_file(
        &path,
        OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false),
    )
    .map_err(|e| {
        format!(
            "the data directory {} is not writable: {e}",
            data_dir.display()
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
    tighten(&file, &path)?;
    let written = file
        .write_all_at(pid.as_bytes(), 0)
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

    #[test]
    fn a_link_among_its_files_is_refused_and_what_it_points_at_is_left_as_it_was() {
        let outside = tempfile::tempdir().expect("tempdir");
        let target = outside.path().join("precious");
        std::fs::write(&target, b"not courier's").unwrap();
        std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o640)).unwrap();
        for name in [
            LOCK_FILE,
            DATABASE_FILE,
            "courier.sqlite3-wal",
            "courier.sqlite3-shm",
            "courier.reserve",
        ] {
            let data = tempfile::tempdir().expect("tempdir");
            std::fs::set_permissions(data.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
            let link = data.path().join(name);
            std::os::unix::fs::symlink(&target, &link).unwrap();
            let refused = open_data_dir(data.path(), SharedDataDir::Refuse).expect_err(name);
            assert!(
                refused.contains(&format!("{} is a symbolic link", link.display())),
                "{refused}"
            );
            // Opened directly too, as a test's store would: the lock is refused by its open.
            if name == LOCK_FILE {
                let refused = lock_data_dir(data.path()).expect_err("the lock alone");
                assert!(refused.contains("symbolic link"), "{refused}");
            }
            assert_eq!(std::fs::read(&target).unwrap(), b"not courier's");
            let mode = std::fs::metadata(&target).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o640, "{name}: the target's mode");
            assert_eq!(std::fs::read_dir(data.path()).unwrap().count(), 1, "{name}");
        }
    }
}
