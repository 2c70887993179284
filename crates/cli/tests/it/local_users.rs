//! What another user of the same machine can get from a running `courier serve`: nothing from
//! its data directory (created `0700`, files `0600`, a shared one refused unless allowed), not
//! its lock, and no secret from its command line when the secrets come from files. The checks
//! as another user run as `nobody` through setpriv; without that privilege they skip, unless
//! `COURIER_REQUIRE_PRIVILEGES=1` (CI) makes that a failure.

use crate::common;

use common::{Courier, courier_serve};
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

const TOKEN: &str = "local-users-service-token";
const CUSTOMER: &str = "local@courier.dev";
const KEY: &str = "local-users-management-key";
const ADMIN: &str = "local-users-admin-token";

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path)
        .expect("metadata")
        .permissions()
        .mode()
        & 0o777
}

/// A parent directory everyone may enter (as /var/lib would be), so only the data directory's
/// and the files' own modes stand between `nobody` and the data.
fn open_parent() -> tempfile::TempDir {
    let parent = tempfile::tempdir().expect("tempdir");
    std::fs::set_permissions(parent.path(), std::fs::Permissions::from_mode(0o755)).expect("chmod");
    parent
}

/// The store's files once courier has written: database, WAL, shared memory, lock, reserve.
fn store_files(data: &Path) -> Vec<PathBuf> {
    [
        "courier.sqlite3",
        "courier.sqlite3-wal",
        "courier.sqlite3-shm",
        "courier.lock",
        "courier.reserve",
    ]
    .iter()
    .map(|name| data.join(name))
    .collect()
}

/// Starts courier on `data`, writes through the admin API so that the WAL holds data, and
/// returns it running.
async fn serve_and_write(data: &Path) -> Courier {
    serve_command_and_write(&mut courier_serve(data)).await
}

/// Starts `command` (a `courier serve`) with known credentials and writes, as
/// [`serve_and_write`] does.
async fn serve_command_and_write(command: &mut std::process::Command) -> Courier {
    let running = Courier::spawn(
        command
            .args(common::credentials([TOKEN, CUSTOMER, KEY, ADMIN]))
            .env("RUST_LOG", "error")
            .stderr(Stdio::inherit()),
    );
    let patched = reqwest::Client::new()
        .patch(format!("{}/admin/v1/account", running.base))
        .bearer_auth(ADMIN)
        .json(&serde_json::json!({"max_requests_per_second": 77}))
        .send()
        .await
        .expect("patch");
    assert_eq!(patched.status(), 200);
    running
}

/// Asserts that `nobody` can read none of the store's files nor take the lock.
fn nobody_gets_nothing(data: &Path) {
    for file in store_files(data) {
        assert!(file.exists(), "{} exists", file.display());
        let read = common::as_nobody("cat")
            .arg(&file)
            .stdout(Stdio::null())
            .output()
            .expect("cat as nobody");
        assert!(
            !read.status.success(),
            "nobody read {}: {:?}",
            file.display(),
            read.status
        );
    }
    let lock = common::as_nobody("flock")
        .args(["--nonblock", "--shared"])
        .arg(data.join("courier.lock"))
        .arg("true")
        .output()
        .expect("flock as nobody");
    assert!(
        !lock.status.success(),
        "nobody took the lock: {}",
        String::from_utf8_lossy(&lock.stderr)
    );
}

#[tokio::test]
async fn a_new_data_directory_is_private_and_nobody_reads_it_or_takes_its_lock() {
    let parent = open_parent();
    let data = parent.path().join("data");
    let running = serve_and_write(&data).await;
    assert_eq!(mode(&data), 0o700, "the data directory");
    for file in store_files(&data) {
        assert_eq!(mode(&file), 0o600, "{}", file.display());
    }
    if common::can_switch_to_nobody() {
        nobody_gets_nothing(&data);
    }
    drop(running);
}

#[tokio::test]
async fn a_shared_directory_is_refused_and_when_allowed_its_files_stay_private() {
    let parent = open_parent();
    let data = parent.path().join("data");
    std::fs::create_dir(&data).expect("mkdir");
    std::fs::set_permissions(&data, std::fs::Permissions::from_mode(0o755)).expect("chmod");

    let mut command = courier_serve(&data);
    std::fs::set_permissions(&data, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let refused = command
        .stderr(Stdio::piped())
        .output()
        .expect("courier runs");
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success());
    assert!(
        stderr.contains(&data.display().to_string())
            && stderr.contains("0755")
            && stderr.contains("--allow-shared-data-dir"),
        "names the directory, its mode and the way out: {stderr}"
    );
    assert_eq!(
        std::fs::read_dir(&data).expect("ls").count(),
        0,
        "nothing created"
    );

    let running = serve_command_and_write(&mut command_allowing_shared(&data)).await;
    assert_eq!(
        mode(&data),
        0o755,
        "an allowed shared directory is left as it is"
    );
    for file in store_files(&data) {
        assert_eq!(mode(&file), 0o600, "{}", file.display());
    }
    if common::can_switch_to_nobody() {
        nobody_gets_nothing(&data);
    }
    drop(running);
}

#[tokio::test]
async fn the_files_of_an_older_more_open_store_are_made_private_at_start() {
    let parent = open_parent();
    let data = parent.path().join("data");
    drop(serve_and_write(&data).await);
    for file in store_files(&data) {
        if file.exists() {
            std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).expect("chmod");
        }
    }
    let running = serve_and_write(&data).await;
    for file in store_files(&data) {
        assert_eq!(mode(&file), 0o600, "{}", file.display());
    }
    drop(running);
}

/// `courier serve --allow-shared-data-dir` on `data` as it is (the common helper would make it
/// private first).
fn command_allowing_shared(data: &Path) -> std::process::Command {
    let mode_before = mode(data);
    let mut command = courier_serve(data);
    std::fs::set_permissions(data, std::fs::Permissions::from_mode(mode_before)).expect("chmod");
    command.arg("--allow-shared-data-dir");
    command
}

/// `courier serve` that should refuse to start: its stderr, after it exited by itself.
fn refused_stderr(command: &mut std::process::Command) -> String {
    let mut child = command.stderr(Stdio::piped()).spawn().expect("courier");
    let deadline = Instant::now() + Duration::from_secs(20);
    while child.try_wait().expect("wait").is_none() {
        assert!(Instant::now() < deadline, "still running: it should refuse");
        std::thread::sleep(Duration::from_millis(20));
    }
    let output = child.wait_with_output().expect("output");
    assert!(!output.status.success());
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn short_secrets_are_refused_at_start_by_name() {
    let data = tempfile::tempdir().expect("tempdir");
    for (flag, short) in [
        ("--admin-token", "adm"),
        ("--service-token", "token"),
        ("--management-key", "key-of-15-chars"),
    ] {
        let stderr = refused_stderr(courier_serve(data.path()).args([flag, short]));
        assert!(
            stderr.contains(flag) && stderr.contains("at least 16"),
            "{flag}: {stderr}"
        );
    }
}

#[tokio::test]
async fn secrets_from_files_work_and_a_secret_given_as_a_flag_is_warned_about() {
    let data = tempfile::tempdir().expect("tempdir");
    let files = tempfile::tempdir().expect("tempdir");
    let admin_file = files.path().join("admin-token");
    std::fs::write(&admin_file, format!("{ADMIN}\n")).expect("write");
    let stderr_file = files.path().join("stderr");
    let running = Courier::spawn(
        courier_serve(data.path())
            .args(["--service-token", TOKEN])
            .arg("--admin-token-file")
            .arg(&admin_file)
            .env("COURIER_MANAGEMENT_KEY", KEY)
            .env("RUST_LOG", "error")
            .stderr(std::fs::File::create(&stderr_file).expect("stderr file")),
    );
    let patched = reqwest::Client::new()
        .patch(format!("{}/admin/v1/account", running.base))
        .bearer_auth(ADMIN)
        .json(&serde_json::json!({"max_requests_per_second": 77}))
        .send()
        .await
        .expect("patch");
    assert_eq!(patched.status(), 200, "the admin token came from its file");
    let stats = reqwest::Client::new()
        .get(format!("{}/v2/svc/stats", running.base))
        .basic_auth("", Some(KEY))
        .send()
        .await
        .expect("stats");
    assert_ne!(stats.status(), 429);
    drop(running);
    let stderr = std::fs::read_to_string(&stderr_file).expect("stderr");
    assert!(
        stderr.contains("warning: --service-token is visible"),
        "the flag is warned about: {stderr}"
    );
    assert!(
        !stderr.contains("--admin-token is visible") && !stderr.contains("--management-key is"),
        "a file and the environment are not: {stderr}"
    );
}
