//! `courier verify` as a user runs it, against real services: `courier serve --demo` passes every
//! scenario (reading and writing), and the same service behind a proxy that breaks one thing at a
//! time fails, the report naming the scenario, the operation and the JSON pointer of each drift.

use crate::common;

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, Method, StatusCode, header};
use axum::response::Response;
use common::Courier;
use courier_service::demo::{DEMO_CUSTOMER_ID, DEMO_MANAGEMENT_KEY, DEMO_SERVICE_TOKEN};
use serde_json::{Value, json};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};

const ADMIN_TOKEN: &str = "admin-secret-for-verify-tests";

fn start_demo() -> (tempfile::TempDir, Courier) {
    common::serve_demo(ADMIN_TOKEN)
}

/// What `courier verify ARGS` against `base` left: exit code, stdout, stderr.
fn verify(base: &str, args: &[&str]) -> (i32, String, String) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_courier"));
    for (name, _) in std::env::vars_os() {
        if name.to_string_lossy().starts_with("COURIER_") {
            command.env_remove(name);
        }
    }
    let output = command
        .arg("verify")
        .args(args)
        .env("COURIER_BASE_URL", base)
        .env("COURIER_SERVICE_TOKEN", DEMO_SERVICE_TOKEN)
        .env("COURIER_CUSTOMER_ID", DEMO_CUSTOMER_ID)
        .env("COURIER_MANAGEMENT_KEY", DEMO_MANAGEMENT_KEY)
        .stdin(Stdio::null())
        .output()
        .expect("courier verify runs");
    (
        output.status.code().expect("exited, not killed"),
        String::from_utf8(output.stdout).expect("utf-8"),
        String::from_utf8(output.stderr).expect("utf-8"),
    )
}

fn json_report(base: &str, args: &[&str]) -> (i32, Value, String) {
    let mut all = vec!["--format", "json"];
    all.extend_from_slice(args);
    let (code, stdout, stderr) = verify(base, &all);
    let report = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("the JSON report does not parse ({e}): {stdout}\n{stderr}"));
    (code, report, stderr)
}

fn outcome<'a>(report: &'a Value, scenario: &str) -> &'a str {
    report["scenarios"]
        .as_array()
        .expect("scenarios")
        .iter()
        .find(|s| s["name"] == scenario)
        .unwrap_or_else(|| panic!("no scenario {scenario} in {report}"))["outcome"]
        .as_str()
        .expect("an outcome")
}

/// Every violation of `scenario`'s failures.
fn violations(report: &Value, scenario: &str) -> Vec<Value> {
    report["scenarios"]
        .as_array()
        .expect("scenarios")
        .iter()
        .filter(|s| s["name"] == scenario)
        .flat_map(|s| s["failures"].as_array().cloned().unwrap_or_default())
        .flat_map(|f| f["violations"].as_array().cloned().unwrap_or_default())
        .collect()
}

#[test]
fn the_demo_service_holds_every_scenario_read_only_and_writing() {
    let (_data, service) = start_demo();
    let (code, report, stderr) = json_report(&service.base, &[]);
    assert_eq!(code, 0, "{report:#}\n{stderr}");
    assert_eq!(report["write"], false);
    for scenario in [
        "list-order",
        "cursor-walk",
        "cursor-end",
        "page-size",
        "filter-label",
        "filter-label-any-of",
        "not-found-get",
        "unauthorized-list-workflow-dlq",
        "account-stats-series",
    ] {
        assert_eq!(outcome(&report, scenario), "passed", "{report:#}");
    }
    // Without --write no writing scenario runs: nothing is written unless asked.
    let writing: Vec<&Value> = report["scenarios"]
        .as_array()
        .expect("scenarios")
        .iter()
        .filter(|s| s["writes"] == true)
        .collect();
    assert!(writing.is_empty(), "{writing:#?}");

    let (code, report, stderr) =
        json_report(&service.base, &["--write", "--admin-token", ADMIN_TOKEN]);
    assert_eq!(code, 0, "{report:#}\n{stderr}");
    for scenario in [
        "seed",
        "delete-one",
        "bulk-delete-ids",
        "bulk-delete-filter",
        "cancel-run",
    ] {
        assert_eq!(outcome(&report, scenario), "passed", "{report:#}");
    }

    let (code, junit, _) = verify(&service.base, &["--format", "junit"]);
    assert_eq!(code, 0);
    assert!(
        junit.starts_with("<?xml") && junit.contains("failures=\"0\""),
        "{junit}"
    );
    let (code, table, _) = verify(&service.base, &[]);
    assert_eq!(code, 0);
    assert!(
        table.contains("cursor-walk") && table.contains("passed"),
        "{table}"
    );
}

#[test]
fn writing_without_a_way_to_seed_is_refused_before_anything_is_sent() {
    let (code, stdout, stderr) = verify("http://127.0.0.1:9", &["--write"]);
    assert_eq!(code, 2, "{stdout}{stderr}");
    assert!(stderr.contains("--admin-token"), "{stderr}");
    let (code, _, stderr) = verify("not a url", &[]);
    assert_eq!(code, 2, "{stderr}");
}

/// One way an answer drifts from the spec, applied by [`forward`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Drift {
    /// `workflowRunId` renamed `workflowRunID` in every listed entry.
    RenameField,
    /// The 404 of an unknown `dlqId` answered 410.
    ChangeStatus,
    /// The `label` filter dropped before the request reaches the service.
    IgnoreFilter,
    /// Each later page starts with the previous page's last entry (one repeated, one skipped).
    RepeatAcrossPages,
    /// Error bodies as `{"message": …}` instead of `{"error": …}`.
    ChangeErrorBody,
}

struct Proxy {
    upstream: String,
    drift: Drift,
    client: reqwest::Client,
    last_listed: Mutex<Option<Value>>,
}

/// Serves `drift` in front of `upstream` on an ephemeral port; the answer is its base URL.
async fn start_proxy(upstream: &str, drift: Drift) -> String {
    let proxy = Arc::new(Proxy {
        upstream: upstream.to_owned(),
        drift,
        client: reqwest::Client::new(),
        last_listed: Mutex::new(None),
    });
    let router = axum::Router::new().fallback(forward).with_state(proxy);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let address = listener.local_addr().expect("address");
    tokio::spawn(async move { axum::serve(listener, router).await });
    format!("http://{address}")
}

async fn forward(State(proxy): State<Arc<Proxy>>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let body = axum::body::to_bytes(body, 1 << 20)
        .await
        .expect("a request body");
    let path = parts.uri.path().to_owned();
    let mut query = parts.uri.query().unwrap_or("").to_owned();
    let listing = parts.method == Method::GET && path == "/v2/workflows/dlq";
    if proxy.drift == Drift::IgnoreFilter && listing {
        query = query
            .split('&')
            .filter(|pair| !pair.starts_with("label="))
            .collect::<Vec<_>>()
            .join("&");
    }
    let url = format!("{}{path}?{query}", proxy.upstream);
    let mut upstream = proxy.client.request(parts.method.clone(), url);
    for (name, value) in &parts.headers {
        if name != header::HOST {
            upstream = upstream.header(name, value);
        }
    }
    let answer = upstream
        .body(body)
        .send()
        .await
        .expect("the service answers");
    let mut status = answer.status();
    let mut headers: HeaderMap = answer.headers().clone();
    headers.remove(header::CONTENT_LENGTH);
    headers.remove(header::TRANSFER_ENCODING);
    let bytes = answer.bytes().await.expect("a body");
    let Ok(mut value) = serde_json::from_slice::<Value>(&bytes) else {
        return respond(status, headers, bytes);
    };
    match proxy.drift {
        Drift::RenameField if listing && status == StatusCode::OK => {
            for entry in value["messages"].as_array_mut().into_iter().flatten() {
                if let Some(id) = entry
                    .as_object_mut()
                    .and_then(|e| e.remove("workflowRunId"))
                {
                    entry["workflowRunID"] = id;
                }
            }
        }
        Drift::ChangeStatus
            if parts.method == Method::GET
                && path.starts_with("/v2/workflows/dlq/")
                && status == StatusCode::NOT_FOUND =>
        {
            status = StatusCode::GONE;
        }
        Drift::RepeatAcrossPages if listing && status == StatusCode::OK => {
            let mut last = proxy.last_listed.lock().expect("lock");
            let messages = value["messages"].as_array_mut().expect("messages");
            let original_last = messages.last().cloned();
            if let (true, Some(first), Some(previous)) = (
                query.contains("cursor="),
                messages.first_mut(),
                last.clone(),
            ) {
                *first = previous;
            }
            *last = original_last;
        }
        Drift::ChangeErrorBody if status.is_client_error() => {
            value = json!({ "message": value["error"].clone() });
        }
        _ => return respond(status, headers, bytes),
    }
    respond(status, headers, Bytes::from(value.to_string()))
}

fn respond(status: StatusCode, headers: HeaderMap, body: Bytes) -> Response {
    let mut response = Response::new(Body::from(body));
    *response.status_mut() = status;
    *response.headers_mut() = headers;
    response
}

/// Whether a violation of the report is the one a drift causes.
type NamesTheDrift = dyn Fn(&Value) -> bool;

/// Each drift fails the run, and the scenario named for it reports the operation, the status
/// and the pointer where the answer left the spec or the interface's semantics.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_drift_of_the_proxy_is_caught_by_its_scenario() {
    let (_data, service) = start_demo();
    let cases: [(Drift, &str, &NamesTheDrift); 5] = [
        (Drift::RenameField, "list-order", &|v| {
            v["operation_id"] == "listWorkflowDlq"
                && v["pointer"]
                    .as_str()
                    .is_some_and(|p| p.starts_with("/messages/"))
                && v["rule"] == "required"
        }),
        (Drift::ChangeStatus, "not-found-get", &|v| {
            v["status"] == 410 && v["rule"] == "status"
        }),
        (Drift::IgnoreFilter, "filter-label", &|v| {
            v["operation_id"] == "listWorkflowDlq"
                && v["rule"] == "filter"
                && v["pointer"]
                    .as_str()
                    .is_some_and(|p| p.starts_with("/messages/"))
        }),
        (Drift::RepeatAcrossPages, "cursor-walk", &|v| {
            v["operation_id"] == "listWorkflowDlq"
                && v["pointer"]
                    .as_str()
                    .is_some_and(|p| p.starts_with("/messages"))
        }),
        (
            Drift::ChangeErrorBody,
            "unauthorized-list-workflow-dlq",
            &|v| v["rule"] == "required" && v["status"] == 401,
        ),
    ];
    for (drift, scenario, expected) in cases {
        let base = start_proxy(&service.base, drift).await;
        let run = tokio::task::spawn_blocking(move || json_report(&base, &[]));
        let (code, report, stderr) = run.await.expect("verify ran");
        assert_eq!(code, 1, "{drift:?} was not caught: {report:#}");
        assert!(
            stderr.contains(scenario),
            "{drift:?}: the error line names the failed scenarios: {stderr}"
        );
        assert_eq!(
            outcome(&report, scenario),
            "failed",
            "{drift:?}: {report:#}"
        );
        let found = violations(&report, scenario);
        assert!(
            found.iter().any(expected),
            "{drift:?}: {scenario} did not name the drift: {found:#?}"
        );
    }
}

#[test]
fn an_unreachable_service_exits_6_naming_the_cause() {
    // Port 9 (discard) has no listener on loopback: every request is refused.
    let (code, stdout, stderr) = verify("http://127.0.0.1:9", &[]);
    assert_eq!(code, 6, "{stdout}{stderr}");
    assert!(
        stderr.contains("got an answer") && stderr.to_lowercase().contains("refused"),
        "the error names the cause: {stderr}"
    );
}

#[test]
fn output_json_chooses_the_json_report_and_scenarios_can_be_chosen() {
    let (_data, service) = start_demo();
    let (code, stdout, stderr) = verify(
        &service.base,
        &[
            "-o",
            "json",
            "--scenario",
            "filter-*",
            "--exclude",
            "filter-and",
        ],
    );
    assert_eq!(code, 0, "{stdout}{stderr}");
    let report: Value = serde_json::from_str(&stdout).expect("-o json prints the JSON report");
    let names: Vec<&str> = report["scenarios"]
        .as_array()
        .expect("scenarios")
        .iter()
        .filter_map(|s| s["name"].as_str())
        .collect();
    assert!(
        names.iter().all(|n| n.starts_with("filter-")) && !names.contains(&"filter-and"),
        "{names:?}"
    );
    assert!(names.contains(&"filter-label-comma"), "{names:?}");
    let (code, _, stderr) = verify(&service.base, &["--scenario", "no-such-scenario"]);
    assert_eq!(code, 2, "an unknown scenario is a usage error: {stderr}");
    assert!(stderr.contains("no-such-scenario"), "{stderr}");
}
