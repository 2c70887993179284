//! A PostgreSQL outage under a running `courier serve`: while its database is down `/health`
//! says so (503 `unavailable`) and requests fail without a wrong answer; once the database is
//! back the process serves again by itself, with no restart. The database is a cluster of the
//! test's own (`scripts/pg-cluster.sh`), since stopping the shared test database would stop
//! every other test's; run where `COURIER_TEST_POSTGRES` is set, required in CI.

mod common;

use courier_service::test_database::TestDatabase;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

const ACCOUNT: [&str; 4] = [
    "pg-outage-service-token",
    "pg-outage@courier.dev",
    "pg-outage-management-key",
    "pg-outage-admin-token",
];

/// `scripts/pg-cluster.sh ACTION DIR`, its standard output.
fn cluster(action: &str, dir: &Path) -> String {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scripts/pg-cluster.sh");
    let output = Command::new("bash")
        .arg(script)
        .arg(action)
        .arg(dir)
        .output()
        .expect("bash runs");
    assert!(
        output.status.success(),
        "pg-cluster.sh {action}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout)
        .expect("UTF-8")
        .trim()
        .to_owned()
}

/// Stops and removes the cluster however the test ends.
struct Cluster(PathBuf);

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = std::panic::catch_unwind(|| cluster("stop", &self.0));
    }
}

async fn health(http: &reqwest::Client, base: &str) -> (u16, serde_json::Value) {
    match http.get(format!("{base}/health")).send().await {
        Ok(response) => (
            response.status().as_u16(),
            response.json().await.unwrap_or_default(),
        ),
        Err(error) => panic!("/health did not answer: {error}"),
    }
}

/// Polls `/health` until it answers `status`, for at most 30 s.
async fn health_becomes(http: &reqwest::Client, base: &str, status: u16) -> serde_json::Value {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let (now, body) = health(http, base).await;
        if now == status {
            return body;
        }
        assert!(Instant::now() < deadline, "/health stayed {now}: {body}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_process_rides_out_a_database_restart() {
    // The same rule as every PostgreSQL test: skipped (said once) without a test database,
    // required in CI; the cluster itself is this test's own.
    if TestDatabase::configured().is_none() {
        return;
    }
    let parent = tempfile::tempdir().expect("tempdir");
    // The server runs as `postgres` when the tests run as root: it must reach the directory.
    std::fs::set_permissions(
        parent.path(),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .expect("chmod");
    let dir = parent.path().join("cluster");
    let url = cluster("start", &dir);
    let _cluster = Cluster(dir.clone());
    let courier = common::serve_on_postgres(&url, ACCOUNT);
    let http = reqwest::Client::new();
    let list = || {
        http.get(format!("{}/v2/workflows/dlq", courier.base))
            .bearer_auth(ACCOUNT[0])
            .send()
    };
    assert_eq!(health(&http, &courier.base).await.0, 200);
    assert_eq!(list().await.expect("list").status().as_u16(), 200);

    cluster("pause", &dir);
    let body = health_becomes(&http, &courier.base, 503).await;
    assert_eq!(body["status"], "unavailable", "{body}");
    let reason = body["reason"].as_str().unwrap_or_default();
    assert!(reason.contains("PostgreSQL"), "{reason}");
    assert!(
        !reason.contains(url.split('@').next().unwrap_or("")),
        "no password: {reason}"
    );
    // A request fails rather than answering from nothing: never a 200 with an empty list.
    let during = list().await.expect("an answer");
    assert!(during.status().as_u16() >= 500, "{}", during.status());

    cluster("resume", &dir);
    health_becomes(&http, &courier.base, 200).await;
    assert_eq!(
        list().await.expect("list").status().as_u16(),
        200,
        "serving again, no restart"
    );
}
