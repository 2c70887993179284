//! Faults met at start: a second process on the same data directory, a data directory it
//! cannot write, a file that is not a database, a database from a newer courier.

use super::{exits_by_itself, health, refused_start};
use crate::common::Courier;
use crate::common::courier_serve;
use std::process::Child;
use std::process::Stdio;

#[tokio::test]
async fn a_second_process_on_the_same_data_directory_refuses_to_start() {
    let data = tempfile::tempdir().expect("tempdir");
    let mut first = Courier::spawn(courier_serve(data.path()).stderr(Stdio::null()));

    let second = refused_start(data.path(), "a second courier on the same data directory");
    let stderr = String::from_utf8_lossy(&second.stderr);
    assert!(
        !second.status.success(),
        "non-zero exit: {:?}",
        second.status
    );
    assert!(
        stderr.contains(&data.path().display().to_string()),
        "the message names the directory: {stderr}"
    );
    assert!(
        stderr.contains(&format!("pid {}", first.child.id())),
        "the message names the process holding it: {stderr}"
    );

    // The lock dies with its holder, however it dies: after a SIGKILL the next start works.
    first.signal("-KILL");
    let _ = first.child.wait();
    let next = Courier::spawn(courier_serve(data.path()).stderr(Stdio::null()));
    assert_eq!(health(&next.base).await.0, 200);
}

/// Runs `courier serve` on `data_dir` as the unprivileged user `nobody` (via setpriv), where the
/// machine allows it; `None` with the reason reported otherwise. The directory is meant to be
/// readable by others here, which courier refuses unless told it is intended.
fn serve_as_nobody(data_dir: &std::path::Path) -> Option<Child> {
    if !crate::common::can_switch_to_nobody() {
        return None;
    }
    let mut command = crate::common::as_nobody(env!("CARGO_BIN_EXE_courier"));
    command
        .args([
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--allow-shared-data-dir",
            "--data-dir",
        ])
        .arg(data_dir)
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    match command.spawn() {
        Ok(child) => Some(child),
        Err(error) => {
            crate::common::missing_privilege(&format!(
                "cannot run courier as an unprivileged user (setpriv): {error}"
            ));
            None
        }
    }
}

#[test]
fn a_data_directory_it_cannot_write_is_a_clear_startup_error() {
    use std::os::unix::fs::PermissionsExt;
    let is_root = std::process::Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|out| String::from_utf8_lossy(&out.stdout).trim() == "0");
    if !is_root {
        // Without root the test cannot switch to another user, and its own user may write
        // anywhere it can create a directory; chmod alone would not stop root either.
        crate::common::missing_privilege(
            "needs root to run courier as a user that cannot write the directory",
        );
        return;
    }
    let parent = tempfile::tempdir().expect("tempdir");
    let data = parent.path().join("data");
    std::fs::create_dir(&data).expect("data dir");
    // Readable and enterable by everyone, writable by root only.
    for dir in [parent.path(), data.as_path()] {
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    }
    let Some(child) = serve_as_nobody(&data) else {
        return;
    };
    let output = exits_by_itself(child, "courier on a directory it cannot write");
    let stderr = String::from_utf8_lossy(&output.stderr);
    if stderr.contains("setpriv:") {
        crate::common::missing_privilege(&format!("setpriv could not switch users here: {stderr}"));
        return;
    }
    assert!(!output.status.success());
    assert!(
        stderr.contains(&format!(
            "the data directory {} is not writable",
            data.display()
        )),
        "names the directory and the cause: {stderr}"
    );
    assert_eq!(
        std::fs::read_dir(&data).expect("read dir").count(),
        0,
        "nothing was created"
    );
}

#[test]
fn a_file_that_is_not_a_database_is_refused_and_left_as_it_was() {
    let data = tempfile::tempdir().expect("tempdir");
    let file = data.path().join("courier.sqlite3");
    let garbage = b"these are the operator's notes, not a SQLite database\n".repeat(200);
    std::fs::write(&file, &garbage).expect("write");

    let output = refused_start(data.path(), "courier on a file that is not a database");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(
        stderr.contains(&file.display().to_string()) && stderr.contains("not a database"),
        "names the file and the cause: {stderr}"
    );
    // Compared as a bool: a failing assert_eq would print every byte of the file.
    assert!(
        std::fs::read(&file).expect("read") == garbage,
        "the file is untouched"
    );
}

#[test]
fn a_database_from_a_newer_courier_is_refused_and_left_as_it_was() {
    let data = tempfile::tempdir().expect("tempdir");
    let file = data.path().join("courier.sqlite3");
    {
        let connection = rusqlite::Connection::open(&file).expect("create");
        connection
            .execute_batch(
                "CREATE TABLE future (x); INSERT INTO future VALUES (42); PRAGMA user_version = 99;",
            )
            .expect("a database of schema version 99");
    }
    let before = std::fs::read(&file).expect("read");

    let output = refused_start(data.path(), "courier on a newer database");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(
        stderr.contains("schema version 99") && stderr.contains("newer"),
        "says why and what to do: {stderr}"
    );
    // Compared as a bool: a failing assert_eq would print every byte of the file.
    assert!(
        std::fs::read(&file).expect("read") == before,
        "the file is untouched"
    );
}
