//! Storage faults injected for real on the real `courier` binary: a second process on the same
//! data directory, a full disk, a data directory it cannot write, a file that is not a database,
//! a database from a newer courier. Where the machine cannot arrange a fault (no root for a
//! mount, no unprivileged user), the test says so on stderr and passes without it, unless
//! `COURIER_REQUIRE_PRIVILEGES=1` (CI) makes that a failure.

use crate::common;

mod disk;
mod startup;
mod store;

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
