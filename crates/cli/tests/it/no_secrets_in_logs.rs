//! Credentials never appear in logs: the real `courier` binary at `RUST_LOG=trace` is sent every
//! kind of credential (bearer and query token, Basic, wrong ones, the admin token, a rotation),
//! and none of them may occur in what it wrote to stderr.
//!
//! The banner on stdout shows the initial credentials on purpose (documented); logs go to stderr,
//! which is what this test captures and reads.

use crate::common;

use common::Courier;

use base64::Engine as _;
use std::process::Stdio;

const CUSTOMER_ID: &str = "leakcheck@example.com";
const SERVICE_TOKEN: &str = "svc-token-7Qm4Zp9Lx2VbKc";
const MANAGEMENT_KEY: &str = "mgmt-key-R8tY3uW6nK1eJd";
const ADMIN_TOKEN: &str = "admin-token-H5jD2sF9gA4cWr";
const WRONG_TOKEN: &str = "wrong-token-C3vB7nM1qX8zTe";

/// Starts `courier serve` on an ephemeral port, stderr into `log`, and reads the banner.
fn start(data_dir: &std::path::Path, log: &std::path::Path) -> Courier {
    let stderr = std::fs::File::create(log).expect("log file");
    let account = [SERVICE_TOKEN, CUSTOMER_ID, MANAGEMENT_KEY, ADMIN_TOKEN];
    common::serve_as(data_dir, account, "trace", Stdio::from(stderr))
}

fn basic_value(user: &str, password: &str) -> String {
    base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}"))
}

/// Sends each request and checks the status it is answered with; what was sent is kept in
/// `seen` for the message of a failed log check.
async fn expect_statuses(
    seen: &mut Vec<String>,
    requests: Vec<(&str, reqwest::RequestBuilder, u16)>,
) {
    for (what, request, status) in requests {
        let response = request.send().await.expect("request");
        assert_eq!(response.status(), status, "{what}");
        seen.push(what.to_owned());
    }
}

#[tokio::test]
async fn no_credential_reaches_the_logs_even_at_trace_level() {
    let data = tempfile::tempdir().expect("tempdir");
    let log = data.path().join("stderr.log");
    let mut running = start(&data.path().join("data"), &log);
    let base = running.base.clone();
    let http = reqwest::Client::new();
    let list = format!("{base}/v2/workflows/dlq");
    let stats = format!("{base}/v2/svc/stats");
    let mut seen = Vec::new();
    let token = |token| [("service_token", token)];
    expect_statuses(
        &mut seen,
        vec![
            // Messaging: the token as header and as query, a wrong one both ways.
            ("bearer", http.get(&list).bearer_auth(SERVICE_TOKEN), 200),
            (
                "query token",
                http.get(&list).query(&token(SERVICE_TOKEN)),
                200,
            ),
            (
                "wrong bearer",
                http.get(&list).bearer_auth(WRONG_TOKEN),
                401,
            ),
            (
                "wrong query token",
                http.get(&list).query(&token(WRONG_TOKEN)),
                401,
            ),
            // Management: Basic, a wrong key, the messaging token where it is refused.
            (
                "basic",
                http.get(&stats)
                    .basic_auth(CUSTOMER_ID, Some(MANAGEMENT_KEY)),
                200,
            ),
            (
                "wrong basic",
                http.get(&stats).basic_auth(CUSTOMER_ID, Some(WRONG_TOKEN)),
                401,
            ),
            (
                "query token on management",
                http.get(&stats)
                    .basic_auth(CUSTOMER_ID, Some(MANAGEMENT_KEY))
                    .query(&token(SERVICE_TOKEN)),
                400,
            ),
        ],
    )
    .await;

    // Admin: the admin token, right and wrong.
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("clock")
        .as_millis() as i64;
    let entry = serde_json::json!([{
        "url": "https://a.example/wf/step", "method": "POST", "header": {}, "body": "{}",
        "maxRetries": 3, "createdAt": now, "workflowRunId": "wfr_leak", "workflowCreatedAt": now,
        "workflowUrl": "https://a.example/wf"
    }]);
    let admin = || http.post(format!("{base}/admin/v1/dlq")).json(&entry);
    let wrong_admin = ("wrong admin token", admin().bearer_auth(WRONG_TOKEN), 401);
    expect_statuses(&mut seen, vec![wrong_admin]).await;
    let inserted = admin()
        .bearer_auth(ADMIN_TOKEN)
        .send()
        .await
        .expect("request");
    assert_eq!(inserted.status(), 201);
    let inserted: serde_json::Value = inserted.json().await.expect("json");
    let dlq_id = inserted["dlqIds"][0].as_str().expect("dlqId").to_owned();

    // Rotation: the new token and password are secrets too.
    let rotated = http
        .post(format!("{base}/v2/svc/user/rotatetoken"))
        .basic_auth(CUSTOMER_ID, Some(MANAGEMENT_KEY))
        .send()
        .await
        .expect("request");
    assert_eq!(rotated.status(), 200);
    let rotated: serde_json::Value = rotated.json().await.expect("json");
    let new_token = rotated["token"].as_str().expect("token").to_owned();
    let new_password = rotated["password"].as_str().expect("password").to_owned();
    assert_ne!(new_token, SERVICE_TOKEN);
    let new = token(new_token.as_str());
    let one = format!("{base}/v2/dlq/{dlq_id}");
    expect_statuses(
        &mut seen,
        vec![
            (
                "rotated bearer",
                http.get(&list).bearer_auth(&new_token),
                200,
            ),
            (
                "old query token",
                http.get(&list).query(&token(SERVICE_TOKEN)),
                401,
            ),
            // Error paths that echo the request in their message: unknown path, wrong method.
            (
                "unknown path",
                http.get(format!("{base}/v2/nope")).query(&new),
                404,
            ),
            ("wrong method", http.put(&list).query(&new), 405),
            (
                "delete with query token",
                http.delete(&one).query(&new),
                200,
            ),
        ],
    )
    .await;

    let exit = running.terminate();
    assert!(exit.success(), "clean shutdown on SIGTERM: {exit:?}");
    let logs = std::fs::read_to_string(&log).expect("captured stderr");

    // The capture is real: trace logging was on and the requests were logged (by path).
    for path in [
        "/v2/workflows/dlq",
        "/v2/svc/stats",
        "/v2/svc/user/rotatetoken",
        "/v2/dlq/",
    ] {
        assert!(
            logs.contains(path),
            "the request log names {path} ({} requests sent: {seen:?}); stderr was:\n{logs}",
            seen.len()
        );
    }
    let secrets = [
        ("service token", SERVICE_TOKEN.to_owned()),
        ("rotated service token", new_token),
        ("rotated password", new_password),
        ("management key", MANAGEMENT_KEY.to_owned()),
        ("admin token", ADMIN_TOKEN.to_owned()),
        ("wrong token", WRONG_TOKEN.to_owned()),
        ("Basic value", basic_value(CUSTOMER_ID, MANAGEMENT_KEY)),
        ("wrong Basic value", basic_value(CUSTOMER_ID, WRONG_TOKEN)),
    ];
    let leaks: Vec<String> = secrets
        .iter()
        .flat_map(|(name, secret)| {
            logs.lines()
                .filter(move |line| line.contains(secret.as_str()))
                .map(move |line| format!("{name}: {line}"))
        })
        .collect();
    assert!(
        leaks.is_empty(),
        "credentials in the logs ({} lines):\n{}",
        leaks.len(),
        leaks.join("\n")
    );
}
