//! What another user who can write into courier's data directory (its owner, when courier runs
//! as someone else) could make courier do: nothing. A symbolic link in place of the lock, the
//! reserve or a database file is refused at start, and the file it points at keeps its size,
//! mode and contents; a directory, or a file in it, that belongs to another user is refused too.
//! The links need no privilege; giving a directory or file to `nobody` needs root (chown), and
//! without it those tests skip, unless `COURIER_REQUIRE_PRIVILEGES=1` (CI) makes that a failure.

use crate::common;

use std::os::unix::fs::{MetadataExt as _, PermissionsExt as _};
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};
use std::time::{Duration, Instant};

/// The uid and gid of `nobody`, as `common::as_nobody` uses them.
const NOBODY: u32 = 65534;

/// The files courier keeps in its data directory, each of which it opens or changes at start.
const FILES: [&str; 5] = [
    "courier.lock",
    "courier.reserve",
    "courier.sqlite3",
    "courier.sqlite3-wal",
    "courier.sqlite3-shm",
];

/// Size, mode, owner and contents of a file: what courier must leave as it was.
#[derive(Debug, PartialEq)]
struct State {
    size: u64,
    mode: u32,
    owner: u32,
    contents: Vec<u8>,
}

fn state(path: &Path) -> State {
    let metadata = std::fs::metadata(path).expect("the target exists");
    State {
        size: metadata.len(),
        mode: metadata.permissions().mode() & 0o7777,
        owner: metadata.uid(),
        contents: std::fs::read(path).expect("read the target"),
    }
}

/// A file outside the data directory, as a file of the user courier runs as (root's, when the
/// tests run as root) would be: 100 bytes, mode `0640`.
fn precious_file(dir: &Path) -> PathBuf {
    let path = dir.join("precious");
    let contents: Vec<u8> = (0..100u8).map(|n| n.wrapping_mul(37)).collect();
    std::fs::write(&path, contents).expect("write the target");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).expect("chmod");
    path
}

/// `courier serve` on `data`, which must refuse to start: its output, once it exited by itself.
fn refused(data: &Path) -> Output {
    // Not `common::courier_serve`, which would chmod the directory first.
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_courier"));
    command
        .args(["serve", "--listen", "127.0.0.1:0", "--data-dir"])
        .arg(data)
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    for (name, _) in std::env::vars_os() {
        if name.to_string_lossy().starts_with("COURIER_") {
            command.env_remove(name);
        }
    }
    let mut child = command.spawn().expect("courier starts");
    let deadline = Instant::now() + Duration::from_secs(20);
    while child.try_wait().expect("wait").is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!(
                "courier kept running on {}: it should refuse",
                data.display()
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let output = child.wait_with_output().expect("output");
    assert!(
        !output.status.success(),
        "courier started on {}",
        data.display()
    );
    output
}

/// A private (`0700`) data directory in a new temporary directory.
fn private_data_dir() -> (tempfile::TempDir, PathBuf) {
    let parent = tempfile::tempdir().expect("tempdir");
    let data = parent.path().join("data");
    std::fs::create_dir(&data).expect("mkdir");
    std::fs::set_permissions(&data, std::fs::Permissions::from_mode(0o700)).expect("chmod");
    (parent, data)
}

/// The names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("ls")
        .map(|entry| {
            entry
                .expect("entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    names.sort();
    names
}

/// Gives `path` to `nobody`; false (the missing privilege reported) when this user cannot.
fn give_to_nobody(path: &Path) -> bool {
    match std::os::unix::fs::chown(path, Some(NOBODY), Some(NOBODY)) {
        Ok(()) => true,
        Err(error) => {
            common::missing_privilege(&format!(
                "cannot give {} to nobody (chown needs root): {error}",
                path.display()
            ));
            false
        }
    }
}

#[test]
fn a_link_in_place_of_the_lock_reserve_or_database_is_refused_and_its_target_untouched() {
    let outside = tempfile::tempdir().expect("tempdir");
    let target = precious_file(outside.path());
    let before = state(&target);
    for name in FILES {
        let (_parent, data) = private_data_dir();
        let link = data.join(name);
        std::os::unix::fs::symlink(&target, &link).expect("symlink");
        let output = refused(&data);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains(&format!("{} is a symbolic link", link.display()))
                && stderr.contains(&target.display().to_string())
                && stderr.contains("Nothing was changed"),
            "{name}: names the link, its target and what was done: {stderr}"
        );
        assert_eq!(state(&target), before, "{name}: the target is untouched");
        assert_eq!(names(&data), [name], "{name}: no file was created");
    }
}

#[test]
fn a_data_directory_of_another_user_is_refused_even_when_private() {
    // The review's case: a directory `nobody` made, mode 0700 (so the mode check passes), with
    // `courier.lock` a link to a file of the user courier runs as.
    let outside = tempfile::tempdir().expect("tempdir");
    let target = precious_file(outside.path());
    let before = state(&target);
    let (_parent, data) = private_data_dir();
    std::os::unix::fs::symlink(&target, data.join("courier.lock")).expect("symlink");
    if !give_to_nobody(&data) {
        return;
    }
    let output = refused(&data);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(&format!(
            "the data directory {} belongs to the user with uid {NOBODY}",
            data.display()
        )) && stderr.contains("chown")
            && stderr.contains("--data-dir that does not exist yet"),
        "names the directory, its owner and the ways out: {stderr}"
    );
    assert_eq!(state(&target), before, "the lock's target is untouched");
    assert_eq!(names(&data), ["courier.lock"], "no file was created");
    assert_eq!(
        std::fs::metadata(&data).expect("stat").mode() & 0o7777,
        0o700,
        "the directory's mode is left as it was"
    );
}

#[test]
fn a_file_of_another_user_in_the_data_directory_is_refused() {
    for name in ["courier.lock", "courier.sqlite3"] {
        let (_parent, data) = private_data_dir();
        let file = data.join(name);
        std::fs::write(&file, b"nobody's").expect("write");
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).expect("chmod");
        if !give_to_nobody(&file) {
            return;
        }
        let before = state(&file);
        let output = refused(&data);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains(&format!(
                "{} belongs to the user with uid {NOBODY}",
                file.display()
            )) && stderr.contains("Nothing was changed"),
            "{name}: names the file and its owner: {stderr}"
        );
        assert_eq!(state(&file), before, "{name}: left as it was");
        assert_eq!(names(&data), [name], "{name}: no file was created");
    }
}
