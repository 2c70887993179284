//! What a client without credentials can do to the real `courier` binary, and what it cannot:
//! spend the account's usage, pass a declared length off as bandwidth, reach the delivery-engine
//! routes, or guess credentials at full speed.

use crate::common;

use common::{Courier, serve_as};
use std::process::Stdio;

const TOKEN: &str = "hostile-clients-service-token";
const CUSTOMER: &str = "hostile@courier.dev";
const KEY: &str = "hostile-clients-management-key";
const ADMIN: &str = "hostile-clients-admin-token";

fn serve(data_dir: &std::path::Path) -> Courier {
    serve_as(
        data_dir,
        [TOKEN, CUSTOMER, KEY, ADMIN],
        "warn",
        Stdio::null(),
    )
}

/// The sum of `daily_bandwidth_used` in the account statistics.
async fn bandwidth_used(base: &str) -> f64 {
    let stats: serde_json::Value = reqwest::Client::new()
        .get(format!("{base}/v2/svc/stats"))
        .basic_auth(CUSTOMER, Some(KEY))
        .send()
        .await
        .expect("stats")
        .json()
        .await
        .expect("json");
    stats["daily_bandwidth_used"]
        .as_array()
        .expect("series")
        .iter()
        .map(|point| point["y"].as_f64().expect("y"))
        .sum()
}

#[tokio::test]
async fn anonymous_requests_spend_none_of_the_accounts_usage_even_across_a_restart() {
    let data = tempfile::tempdir().expect("tempdir");
    let mut running = serve(data.path());
    let http = reqwest::Client::new();
    let patched = http
        .patch(format!("{}/admin/v1/account", running.base))
        .bearer_auth(ADMIN)
        .json(&serde_json::json!({"max_requests_per_day_hard": 100}))
        .send()
        .await
        .expect("patch");
    assert_eq!(patched.status(), 200);
    for _ in 0..150 {
        let response = http
            .get(format!("{}/v2/nope", running.base))
            .send()
            .await
            .expect("anonymous request");
        assert_eq!(response.status(), 404);
    }
    // Shutdown writes the counters; the next start seeds the daily limiter from them.
    assert!(running.terminate().success());
    drop(running);
    let running = serve(data.path());
    let response = http
        .get(format!("{}/v2/workflows/dlq", running.base))
        .bearer_auth(TOKEN)
        .send()
        .await
        .expect("authenticated request");
    assert_eq!(
        response.status(),
        200,
        "the anonymous 404s were counted against the daily limit: {}",
        response.text().await.unwrap_or_default()
    );
}

#[tokio::test]
async fn a_declared_content_length_is_not_bandwidth() {
    let data = tempfile::tempdir().expect("tempdir");
    let running = serve(data.path());
    let address = running.base.trim_start_matches("http://").to_owned();
    let mut stream = std::net::TcpStream::connect(&address).expect("connect");
    use std::io::{Read as _, Write as _};
    write!(
        stream,
        "POST /v2/nope HTTP/1.1\r\nHost: {address}\r\nContent-Length: 9000000000000000\r\n\r\n"
    )
    .expect("send");
    let mut answer = [0u8; 12];
    stream.read_exact(&mut answer).expect("status line");
    assert_eq!(&answer, b"HTTP/1.1 413");
    drop(stream);
    // The statistics requests themselves are counted, with their real size (a few KB each).
    let used = bandwidth_used(&running.base).await;
    assert!(used < 1e6, "daily_bandwidth_used is {used} bytes");
}

#[tokio::test]
async fn the_delivery_engine_routes_want_the_service_token_like_their_neighbours() {
    let data = tempfile::tempdir().expect("tempdir");
    let running = serve(data.path());
    let http = reqwest::Client::new();
    for path in [
        "/v2/workflows/dlq/resume?dlqIds=dlq-1",
        "/v2/workflows/dlq/restart?dlqIds=dlq-1",
        "/v2/workflows/dlq/callback/dlq-1",
    ] {
        let url = format!("{}{path}", running.base);
        let anonymous = http.post(&url).send().await.expect("anonymous");
        assert_eq!(anonymous.status(), 401, "{path} without credentials");
        let wrong = http.post(&url).bearer_auth("not-the-token-at-all").send();
        assert_eq!(wrong.await.expect("wrong").status(), 401, "{path}");
        let signed_in = http.post(&url).bearer_auth(TOKEN).send().await;
        assert_eq!(signed_in.expect("signed in").status(), 501, "{path}");
    }
}

#[tokio::test]
async fn every_answer_tells_browsers_not_to_sniff_its_type() {
    let data = tempfile::tempdir().expect("tempdir");
    let running = serve(data.path());
    let http = reqwest::Client::new();
    let answers = [
        http.get(format!("{}/v2/workflows/dlq", running.base))
            .bearer_auth(TOKEN),
        http.get(format!("{}/v2/workflows/dlq", running.base)),
        http.get(format!("{}/v2/nope", running.base)),
        http.get(format!("{}/v2/svc/stats", running.base))
            .basic_auth(CUSTOMER, Some(KEY)),
        http.get(format!("{}/admin/v1/account", running.base))
            .bearer_auth(ADMIN),
        http.get(format!("{}/console/login", running.base)),
        http.get(format!("{}/health", running.base)),
    ];
    for request in answers {
        let response = request.send().await.expect("answer");
        assert_eq!(
            response
                .headers()
                .get("x-content-type-options")
                .map(|value| value.to_str().unwrap_or_default().to_owned()),
            Some("nosniff".to_owned()),
            "{} {}",
            response.url(),
            response.status()
        );
    }
}

#[tokio::test]
async fn more_filter_values_than_the_spec_allows_are_a_400_naming_the_parameter_and_cap() {
    let data = tempfile::tempdir().expect("tempdir");
    let running = serve(data.path());
    let http = reqwest::Client::new();
    let cancel = |query: String| {
        http.delete(format!("{}/v2/workflows/runs?{query}", running.base))
            .bearer_auth(TOKEN)
            .send()
    };
    let refused = cancel(values("workflowUrl", &[], 1500))
        .await
        .expect("cancel");
    assert_eq!(refused.status(), 400);
    let body: serde_json::Value = refused.json().await.expect("JSON");
    let message = body["error"].as_str().unwrap_or_default();
    assert!(
        message.contains("`workflowUrl`") && message.contains("at most 100"),
        "{message}"
    );
}

/// `count` values of `key`, cycling through an enum's values or made up.
fn values(key: &str, allowed: &[&str], count: usize) -> String {
    (0..count)
        .map(|n| match allowed {
            [] => format!("{key}=u{n}"),
            allowed => format!("{key}={}", allowed[n % allowed.len()]),
        })
        .collect::<Vec<_>>()
        .join("&")
}

/// Every cap the spec declares, read from the generated table rather than listed here, holds on
/// the real binary: each spelling takes its `maxItems` values, a parameter's two spellings take
/// theirs side by side (the spec caps each alone, so that request is valid), and one more value
/// of either spelling is a 400 naming it and the cap.
#[tokio::test]
async fn every_declared_value_cap_is_the_one_the_service_enforces_spelling_by_spelling() {
    let data = tempfile::tempdir().expect("tempdir");
    let running = serve(data.path());
    let http = reqwest::Client::new();
    let mut checked = 0;
    for operation in courier_models::OPERATIONS {
        let path = operation
            .path_params
            .iter()
            .fold(operation.path.to_owned(), |path, name| {
                path.replace(&format!("{{{name}}}"), "cap-probe")
            });
        let required: Vec<String> = operation
            .query
            .iter()
            .filter(|key| key.required)
            .map(|key| values(key.name, key.values, 1))
            .collect();
        let send = |extra: String| {
            let query = required
                .iter()
                .cloned()
                .chain([extra])
                .collect::<Vec<_>>()
                .join("&");
            let method = reqwest::Method::from_bytes(operation.method.as_bytes()).expect("method");
            http.request(method, format!("{}{path}?{query}", running.base))
                .bearer_auth(TOKEN)
                .send()
        };
        for key in operation.query {
            let Some(cap) = operation.max_values(key.name) else {
                continue;
            };
            let at_cap = send(values(key.name, key.values, cap)).await.expect("send");
            assert_ne!(
                at_cap.status(),
                400,
                "{} with {cap} `{}`: {:?}",
                operation.id,
                key.name,
                at_cap.text().await
            );
            let over = send(values(key.name, key.values, cap + 1))
                .await
                .expect("send");
            assert_eq!(
                over.status(),
                400,
                "{} with {} `{}`",
                operation.id,
                cap + 1,
                key.name
            );
            let body: serde_json::Value = over.json().await.expect("JSON");
            let message = body["error"].as_str().unwrap_or_default();
            assert!(
                message.contains(&format!("`{}`", key.name))
                    && message.contains(&format!("at most {cap}")),
                "{}: {message}",
                operation.id
            );
            checked += 1;
            let Some(canonical) = key.alias_of else {
                continue;
            };
            let other = operation
                .query
                .iter()
                .find(|other| other.name == canonical)
                .expect("the spelling's parameter");
            let other_cap = operation
                .max_values(other.name)
                .expect("the parameter's cap");
            let both = format!(
                "{}&{}",
                values(key.name, key.values, cap),
                values(other.name, other.values, other_cap)
            );
            let both = send(both).await.expect("send");
            assert_ne!(
                both.status(),
                400,
                "{}: `{}` and `{}` at their caps",
                operation.id,
                key.name,
                other.name
            );
        }
    }
    assert!(checked >= 20, "only {checked} capped keys in the spec");
}
