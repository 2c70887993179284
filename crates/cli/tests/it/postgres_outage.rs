//! A PostgreSQL outage under a running `courier serve` that is being used: while its database
//! is down `/health` says so (503 `unavailable`) and every operation answers 503 with an error
//! body naming PostgreSQL (never its password), never a wrong answer; once the database is back
//! the process serves again by itself, with no restart. The database is a cluster of the test's
//! own (`scripts/pg-cluster.sh`), since stopping the shared test database would stop every
//! other test's; run where `COURIER_TEST_POSTGRES` is set, required in CI.

use crate::common;

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

/// Entries the test stores before the outage: every 200 list answer must hold exactly these.
const ENTRIES: usize = 30;

/// What a list answered: the status and, for a 200, how many entries it held; for anything
/// else the error message.
async fn list_once(http: &reqwest::Client, base: &str) -> (u16, Result<usize, String>) {
    let response = match http
        .get(format!("{base}/v2/workflows/dlq?count=100"))
        .bearer_auth(ACCOUNT[0])
        .send()
        .await
    {
        Ok(response) => response,
        Err(error) => return (0, Err(format!("no answer: {error}"))),
    };
    let status = response.status().as_u16();
    let body: serde_json::Value = response.json().await.unwrap_or_default();
    match status {
        200 => (
            status,
            Ok(body["messages"].as_array().map_or(usize::MAX, Vec::len)),
        ),
        _ => (status, Err(body["error"].as_str().unwrap_or("").to_owned())),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_process_rides_out_a_database_restart_under_load() {
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
    let password = url
        .split_once("://")
        .and_then(|(_, rest)| rest.split_once('@'))
        .and_then(|(user, _)| user.split_once(':'))
        .map(|(_, password)| password.to_owned())
        .filter(|password| !password.is_empty());
    let courier = common::serve_on_postgres(&url, ACCOUNT);
    let http = reqwest::Client::new();
    assert_eq!(health(&http, &courier.base).await.0, 200);
    common::insert_entries(&http, &courier.base, ACCOUNT[3], 0..ENTRIES, "outage").await;
    assert_eq!(list_once(&http, &courier.base).await, (200, Ok(ENTRIES)));

    // Load through the whole outage: two clients listing without pause.
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let load: Vec<_> = (0..2)
        .map(|_| {
            let (http, base, stop) = (http.clone(), courier.base.clone(), stop.clone());
            tokio::spawn(async move {
                let mut answers = Vec::new();
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    answers.push(list_once(&http, &base).await);
                }
                answers
            })
        })
        .collect();

    cluster("pause", &dir);
    let body = health_becomes(&http, &courier.base, 503).await;
    assert_eq!(body["status"], "unavailable", "{body}");
    let reason = body["reason"].as_str().unwrap_or_default();
    assert!(reason.contains("PostgreSQL"), "{reason}");

    // Every kind of operation, read or write, on either interface: a 503 with the 2.4 body.
    let base = &courier.base;
    let messaging = |method: reqwest::Method, path: &str| {
        http.request(method, format!("{base}{path}"))
            .bearer_auth(ACCOUNT[0])
    };
    let management = |path: &str| {
        http.get(format!("{base}{path}"))
            .basic_auth(ACCOUNT[1], Some(ACCOUNT[2]))
    };
    let during = [
        ("list", messaging(reqwest::Method::GET, "/v2/workflows/dlq")),
        (
            "get one",
            messaging(reqwest::Method::GET, "/v2/workflows/dlq/e000001"),
        ),
        (
            "delete one",
            messaging(reqwest::Method::DELETE, "/v2/workflows/dlq/e000002"),
        ),
        (
            "bulk delete",
            messaging(reqwest::Method::DELETE, "/v2/workflows/dlq?dlqIds=e000003"),
        ),
        (
            "URL group",
            messaging(reqwest::Method::GET, "/v2/topics/orders"),
        ),
        (
            "cancel a run",
            messaging(reqwest::Method::DELETE, "/v2/workflows/runs/wfr_4"),
        ),
        ("account statistics", management("/v2/svc/stats")),
    ];
    for (what, request) in during {
        let response = request.send().await.expect("an answer");
        let status = response.status().as_u16();
        let body: serde_json::Value = response.json().await.unwrap_or_default();
        assert_eq!(status, 503, "{what} while PostgreSQL is down: {body}");
        let message = body["error"].as_str().unwrap_or_default();
        assert!(message.contains("PostgreSQL"), "{what}: {body}");
        if let Some(password) = &password {
            assert!(
                !message.contains(password.as_str()),
                "{what} shows the password"
            );
        }
    }

    cluster("resume", &dir);
    health_becomes(&http, &courier.base, 200).await;
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let mut answers = Vec::new();
    for client in load {
        answers.extend(client.await.expect("load task"));
    }
    let outage: Vec<_> = answers
        .iter()
        .filter(|(status, _)| *status == 503)
        .collect();
    assert!(!outage.is_empty(), "the load met the outage");
    for (status, answer) in &answers {
        match (status, answer) {
            // Nothing was deleted during the outage: every page that was served is whole.
            (200, Ok(count)) => assert_eq!(*count, ENTRIES, "a wrong answer under the outage"),
            (503, Err(message)) => assert!(message.contains("PostgreSQL"), "{message}"),
            other => panic!("neither the whole page nor a clear 503: {other:?}"),
        }
    }
    assert_eq!(
        list_once(&http, &courier.base).await,
        (200, Ok(ENTRIES)),
        "serving again, no restart, nothing lost"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn health_during_an_outage_names_no_user_host_or_port() {
    if TestDatabase::configured().is_none() {
        return;
    }
    let parent = tempfile::tempdir().expect("tempdir");
    std::fs::set_permissions(
        parent.path(),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .expect("chmod");
    let dir = parent.path().join("cluster");
    let url = cluster("start", &dir);
    let _cluster = Cluster(dir.clone());
    let parsed = url::Url::parse(&url).expect("the cluster's connection string");
    let user = parsed.username().to_owned();
    let port = parsed.port().expect("a port").to_string();
    assert!(!user.is_empty(), "{url}");
    let courier = common::serve_on_postgres(&url, ACCOUNT);
    let http = reqwest::Client::new();
    assert_eq!(health(&http, &courier.base).await.0, 200);

    cluster("pause", &dir);
    let body = health_becomes(&http, &courier.base, 503).await;
    assert_eq!(body["status"], "unavailable", "{body}");
    let reason = body["reason"].as_str().unwrap_or_default();
    assert!(reason.contains("PostgreSQL"), "{reason}");
    for detail in [
        format!("{user}@"),
        format!(":{port}"),
        port.clone(),
        "127.0.0.1".to_owned(),
        "postgres://".to_owned(),
    ] {
        assert!(
            !body.to_string().contains(&detail),
            "/health shows {detail}: {body}"
        );
    }
    // Who holds the service token may learn where the store is.
    let listed = http
        .get(format!("{}/v2/workflows/dlq", courier.base))
        .bearer_auth(ACCOUNT[0])
        .send()
        .await
        .expect("list");
    assert_eq!(listed.status().as_u16(), 503);
    let body: serde_json::Value = listed.json().await.expect("JSON");
    assert!(
        body["error"].as_str().unwrap_or_default().contains(&port),
        "{body}"
    );
}
