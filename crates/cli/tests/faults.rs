//! Storage faults injected for real on the real `courier` binary: a second process on the same
//! data directory, a full disk, a data directory it cannot write, a file that is not a database,
//! a database from a newer courier. Where the machine cannot arrange a fault (no root for a
//! mount, no unprivileged user), the test says so on stderr and passes without it, unless
//! `COURIER_REQUIRE_PRIVILEGES=1` (CI) makes that a failure.

mod common;

use common::{Courier, courier_serve};
use std::process::{Child, Output, Stdio};
use std::time::{Duration, Instant};

/// Waits for a process that should exit by itself; kills it and fails after 20 s.
fn exits_by_itself(mut child: Child, what: &str) -> Output {
    let deadline = Instant::now() + Duration::from_secs(20);
    while child.try_wait().expect("wait").is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            let output = child.wait_with_output().expect("output");
            panic!(
                "{what}: still running after 20 s; it should have refused to start. stderr: {}",
                String::from_utf8_lossy(&output.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().expect("output")
}

/// `courier serve` on `data_dir` that is expected to refuse to start: its output.
fn refused_start(data_dir: &std::path::Path, what: &str) -> Output {
    let child = courier_serve(data_dir)
        .stderr(Stdio::piped())
        .spawn()
        .expect("the courier binary starts");
    exits_by_itself(child, what)
}

async fn health(base: &str) -> (u16, serde_json::Value) {
    let response = reqwest::get(format!("{base}/health"))
        .await
        .expect("health");
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or_default())
}

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

const TOKEN: &str = "faults-service-token";
const CUSTOMER: &str = "faults@courier.dev";
const KEY: &str = "faults-management-key";
const ADMIN: &str = "faults-admin-token";

/// `courier serve` with known credentials and the admin API.
fn serve_known(data_dir: &std::path::Path) -> Courier {
    common::serve_as(
        data_dir,
        [TOKEN, CUSTOMER, KEY, ADMIN],
        "error",
        Stdio::inherit(),
    )
}

/// Sends a request; status and JSON body (`null` when there is none).
async fn send(request: reqwest::RequestBuilder) -> (u16, serde_json::Value) {
    let response = request.send().await.expect("a response");
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or_default())
}

/// `count` entries from `first` on, each of its own run, labelled `fill`, with a 2 KB body.
fn batch(first: usize, count: usize) -> serde_json::Value {
    let body = "x".repeat(2048);
    (first..first + count)
        .map(|n| {
            serde_json::json!({
                "workflowUrl": "https://example.com/fill",
                "workflowRunId": format!("wfr_fill_{n}"),
                "workflowCreatedAt": 1_700_000_000_000_i64,
                "url": "https://example.com/fill",
                "method": "POST",
                "maxRetries": 3,
                "labels": ["fill"],
                "body": body,
            })
        })
        .collect()
}

/// A tmpfs of a few megabytes, unmounted when dropped.
struct SmallFilesystem {
    dir: tempfile::TempDir,
}

impl SmallFilesystem {
    /// `None`, with the reason printed, where the machine cannot mount one (not root, no tmpfs).
    fn mount(megabytes: u32) -> Option<SmallFilesystem> {
        let dir = tempfile::tempdir().expect("tempdir");
        let mounted = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={megabytes}m"), "tmpfs"])
            .arg(dir.path())
            .output();
        match mounted {
            Ok(output) if output.status.success() => Some(SmallFilesystem { dir }),
            Ok(output) => {
                common::missing_privilege(&format!(
                    "cannot mount a {megabytes} MB tmpfs to fill up (needs root): {}",
                    String::from_utf8_lossy(&output.stderr).trim()
                ));
                None
            }
            Err(error) => {
                common::missing_privilege(&format!(
                    "cannot run mount(8) to make a small filesystem: {error}"
                ));
                None
            }
        }
    }
}

impl Drop for SmallFilesystem {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount")
            .arg("-l")
            .arg(self.dir.path())
            .status();
    }
}

#[tokio::test]
async fn a_full_disk_answers_507_keeps_reads_and_deletes_reports_degraded_and_recovers() {
    let Some(disk) = SmallFilesystem::mount(24) else {
        return;
    };
    let running = serve_known(disk.dir.path());
    let base = running.base.clone();
    let client = reqwest::Client::new();
    let admin_insert = |entries: serde_json::Value| {
        client
            .post(format!("{base}/admin/v1/dlq"))
            .bearer_auth(ADMIN)
            .json(&entries)
    };
    // The management interface, with the account's Basic credentials.
    let management = |method, path: &str| {
        let request = client.request(method, format!("{base}{path}"));
        request.basic_auth(CUSTOMER, Some(KEY))
    };
    let dlq_count = || async {
        let (status, stats) = send(management(reqwest::Method::GET, "/v2/svc/stats")).await;
        assert_eq!(status, 200, "{stats}");
        stats["dlq_message_count"].as_i64().expect("a count")
    };
    assert_eq!(send(client.get(format!("{base}/health"))).await.0, 200);

    // Fill the disk, 50 entries a request, until the service says it is full.
    let mut stored: Vec<String> = Vec::new();
    let refusal = loop {
        assert!(stored.len() < 10_000, "24 MB never filled up");
        let (status, body) = send(admin_insert(batch(stored.len(), 50))).await;
        match status {
            201 => stored.extend(
                body["dlqIds"]
                    .as_array()
                    .expect("dlqIds")
                    .iter()
                    .map(|id| id.as_str().expect("an id").to_owned()),
            ),
            _ => break (status, body),
        }
    };
    assert_eq!(
        refusal.0, 507,
        "a write that cannot be stored: {}",
        refusal.1
    );
    let message = refusal.1["error"].as_str().unwrap_or_default().to_owned();
    assert!(
        message.starts_with("the data directory is full"),
        "{message}"
    );
    assert!(!stored.is_empty());
    assert_eq!(
        dlq_count().await,
        stored.len() as i64,
        "the refused batch stored nothing"
    );

    // Degraded: health says so; every write that adds data is refused and changes nothing.
    let (status, health) = send(client.get(format!("{base}/health"))).await;
    assert_eq!(status, 503, "{health}");
    assert_eq!(health["status"], "degraded");
    assert!(
        health["reason"]
            .as_str()
            .is_some_and(|r| r.contains("the data directory is full")),
        "{health}"
    );
    assert_eq!(send(admin_insert(batch(90_000, 1))).await.0, 507);
    let rotate = management(reqwest::Method::POST, "/v2/svc/user/rotatetoken");
    let (status, body) = send(rotate).await;
    assert_eq!(status, 507, "{body}");
    assert!(body["error"].as_str().is_some_and(|e| e.contains("full")));

    // Reads keep working, with the token the refused rotation left in place.
    let (status, one) = send(
        client
            .get(format!("{base}/v2/workflows/dlq/{}", stored[0]))
            .bearer_auth(TOKEN),
    )
    .await;
    assert_eq!(
        (status, one["dlqId"].as_str()),
        (200, Some(stored[0].as_str()))
    );
    let (status, page) = send(
        client
            .get(format!("{base}/v2/workflows/dlq?count=10"))
            .bearer_auth(TOKEN),
    )
    .await;
    assert_eq!(
        (status, page["messages"].as_array().map(Vec::len)),
        (200, Some(10))
    );

    // Deletes keep working: one, a cancel, then bulk by filter until the scan is done.
    let (status, body) = send(
        client
            .delete(format!("{base}/v2/dlq/{}", stored[0]))
            .bearer_auth(TOKEN),
    )
    .await;
    assert_eq!(status, 200, "delete one on a full disk: {body}");
    let (status, body) = send(
        client
            .delete(format!("{base}/v2/workflows/runs/wfr_fill_1"))
            .bearer_auth(TOKEN),
    )
    .await;
    assert_eq!(status, 200, "cancel on a full disk: {body}");
    let mut deleted = 2;
    let mut cursor: Option<String> = None;
    loop {
        let mut url = format!("{base}/v2/workflows/dlq?label=fill&count=1000");
        if let Some(cursor) = &cursor {
            url.push_str(&format!("&cursor={cursor}"));
        }
        let (status, body) = send(client.delete(url).bearer_auth(TOKEN)).await;
        assert_eq!(status, 200, "bulk delete on a full disk: {body}");
        deleted += body["deleted"].as_i64().expect("deleted");
        match body["cursor"].as_str() {
            Some(next) => cursor = Some(next.to_owned()),
            None => break,
        }
    }
    assert_eq!(deleted, stored.len() as i64);
    assert_eq!(dlq_count().await, 0);

    // The deletes gave the space back: the service recovers by itself.
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let (status, health) = send(client.get(format!("{base}/health"))).await;
        if status == 200 {
            assert_eq!(health["status"], "ok");
            break;
        }
        assert!(
            Instant::now() < deadline,
            "still degraded 30 s after the deletes: {health}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let (status, body) = send(admin_insert(batch(100_000, 50))).await;
    assert_eq!(status, 201, "writes work again: {body}");
    assert_eq!(dlq_count().await, 50);
}

/// Runs `courier serve` on `data_dir` as the unprivileged user `nobody` (via setpriv), where the
/// machine allows it; `None` with the reason reported otherwise. The directory is meant to be
/// readable by others here, which courier refuses unless told it is intended.
fn serve_as_nobody(data_dir: &std::path::Path) -> Option<Child> {
    if !common::can_switch_to_nobody() {
        return None;
    }
    let mut command = common::as_nobody(env!("CARGO_BIN_EXE_courier"));
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
            common::missing_privilege(&format!(
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
        common::missing_privilege(
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
        common::missing_privilege(&format!("setpriv could not switch users here: {stderr}"));
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

/// A stored entry in the 2.2 shape.
fn entry(n: usize, created_at: i64) -> courier_models::FailedWorkflowRun {
    serde_json::from_value(serde_json::json!({
        "dlqId": "",
        "messageId": format!("msg_{n}"),
        "workflowUrl": "https://example.com/fill",
        "workflowRunId": format!("wfr_{n}"),
        "workflowCreatedAt": created_at,
        "url": "https://example.com/fill",
        "method": "POST",
        "header": {},
        "maxRetries": 3,
        "createdAt": created_at,
        "labels": ["fill"],
        "body": "y".repeat(2048),
    }))
    .expect("an entry")
}

/// The store alone, filled to SQLite's page limit (no root, no mount needed): a full store
/// stores nothing of a refused write, keeps reads and deletes, and recovers once deletes made
/// room.
#[test]
fn a_store_at_its_page_limit_refuses_writes_keeps_reads_and_deletes_and_recovers() {
    use courier_service::store::{DlqFilter, PageQuery, SqliteStore, Store, StoreError};
    let dir = tempfile::tempdir().expect("tempdir");
    let store = SqliteStore::open(&dir.path().join("courier.sqlite3")).expect("open");
    let now = 1_760_000_000_000;
    let ids = store
        .insert_dlq(
            &(0..100).map(|n| entry(n, now)).collect::<Vec<_>>(),
            1_000_000,
        )
        .expect("insert")
        .dlq_ids;
    let pages = store.page_count().expect("page count");
    store.limit_pages(pages).expect("limit");

    let refused = store
        .insert_dlq(
            &(100..200).map(|n| entry(n, now)).collect::<Vec<_>>(),
            1_000_000,
        )
        .expect_err("no room");
    assert!(
        matches!(&refused, StoreError::Full(m) if m.starts_with("the data directory is full")),
        "{refused:?}"
    );
    assert_eq!(store.dlq_count(0).expect("count"), 100, "nothing stored");
    assert!(store.write_refusal().is_some(), "degraded");
    assert!(matches!(
        store.put_url_group("orders", &[], now),
        Err(StoreError::Full(_))
    ));

    assert!(store.get_dlq(&ids[0], 0).expect("read").is_some());
    assert!(store.delete_dlq_one(&ids[0], 0).expect("delete one"));
    let (deleted, _) = store
        .delete_dlq_matching(PageQuery::first(&DlqFilter::default(), 1000))
        .expect("bulk delete");
    assert_eq!(deleted, 99);

    assert_eq!(store.write_refusal(), None, "the deletes made room");
    store
        .insert_dlq(&[entry(500, now)], 1_000_000)
        .expect("writes work again");
}

/// The wall clock stepping backwards while the service runs, as the store sees it: entries
/// stamped an hour earlier than the ones before them. Ids stay unique (their sequence number is
/// stored, not taken from the clock), and retention measured on the stepped-back clock deletes
/// none of the young entries. (The service also stamps `createdAt` from a clock that never goes
/// back, `time::creation_ms`; stepping the real system clock would disturb the whole machine.)
#[test]
fn a_clock_stepping_backwards_keeps_ids_unique_and_deletes_no_young_entry() {
    use courier_service::store::{SqliteStore, Store};
    let dir = tempfile::tempdir().expect("tempdir");
    let store = SqliteStore::open(&dir.path().join("courier.sqlite3")).expect("open");
    let now = 1_760_000_000_000;
    let stepped_back = now - 3_600_000;
    let mut ids = Vec::new();
    for created_at in [now, now, stepped_back, stepped_back, now] {
        ids.extend(
            store
                .insert_dlq(&[entry(ids.len(), created_at)], 1_000_000)
                .expect("insert")
                .dlq_ids,
        );
    }
    let unique: std::collections::BTreeSet<_> = ids.iter().collect();
    assert_eq!(unique.len(), ids.len(), "ids stay unique: {ids:?}");

    let retention = 60_000;
    let floor = stepped_back - retention;
    assert_eq!(store.purge_expired(floor).expect("purge"), 0);
    for id in &ids {
        assert!(
            store.get_dlq(id, floor).expect("read").is_some(),
            "{id} is young"
        );
    }
}
