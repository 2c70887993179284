//! A full disk, for real: a small tmpfs mounted as the data directory (root only; skipped
//! with a note elsewhere, a failure under `COURIER_REQUIRE_PRIVILEGES=1`).

use super::{ADMIN, CUSTOMER, KEY, TOKEN, batch, send, serve_known};
use std::time::Duration;
use std::time::Instant;

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
                crate::common::missing_privilege(&format!(
                    "cannot mount a {megabytes} MB tmpfs to fill up (needs root): {}",
                    String::from_utf8_lossy(&output.stderr).trim()
                ));
                None
            }
            Err(error) => {
                crate::common::missing_privilege(&format!(
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
