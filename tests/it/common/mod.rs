//! Helpers the contract tests share: the bodies they send and the reads they check with.
// Each test file compiles this module on its own and uses only some of it.
#![allow(dead_code)]

use courier_service::testing::TestService;
use serde_json::{Value, json};

/// A search index in the admin API's input shape (`PUT /admin/v1/search/{id}`) for `customer_id`.
pub(crate) fn search_index_json(customer_id: &str) -> Value {
    json!({
        "customer_id": customer_id, "name": "products", "endpoint": "https://idx.example",
        "type": "payg", "region": "eu-west-1", "hosting_email": "", "token": "rw", "read_only_token": "ro",
        "max_vector_count": 1000, "max_monthly_reranks": -1, "max_daily_updates": -1,
        "max_daily_queries": -1, "max_monthly_bandwidth": -1, "max_writes_per_second": 100,
        "max_query_per_second": 100, "max_reads_per_request": 100, "max_writes_per_request": 100,
        "creation_time": 1_700_000_000, "input_enrichment_enabled": false
    })
}

/// The account statistics (`GET /v2/svc/stats`) as JSON, read with the management credentials.
pub(crate) async fn account_stats(service: &TestService) -> Value {
    reqwest::Client::new()
        .get(format!("{}/v2/svc/stats", service.base_url()))
        .basic_auth(&service.customer_id, Some(&service.management_key))
        .send()
        .await
        .expect("stats")
        .json::<Value>()
        .await
        .expect("json")
}

/// The sum of the `y` values of the series `id` of the statistics' `group`
/// (`daily_workflow_messages`, ...).
pub(crate) fn series_sum(stats: &Value, group: &str, id: &str) -> f64 {
    stats[group]
        .as_array()
        .expect("series")
        .iter()
        .find(|s| s["id"] == id)
        .unwrap_or_else(|| panic!("no series {id} in {group}"))["data_points"]
        .as_array()
        .expect("points")
        .iter()
        .map(|p| p["y"].as_f64().expect("y"))
        .sum()
}

/// A failed run of `run_id` in the admin API's input shape (`POST /admin/v1/dlq`), the service
/// choosing its `dlqId`.
pub(crate) fn admin_entry(run_id: &str, created_at: i64, label: &str) -> Value {
    json!({
        "url": "https://a.example/wf/step-1",
        "method": "POST",
        "header": {"Content-Type": ["application/json"]},
        "body": "{}",
        "maxRetries": 3,
        "createdAt": created_at,
        "workflowRunId": run_id,
        "workflowCreatedAt": created_at - 1000,
        "workflowUrl": "https://a.example/wf",
        "labels": [label],
    })
}

/// `(status, JSON body or null)` of a request with the service token as bearer, on `client` (a
/// property test reuses one, and its connections).
pub(crate) async fn call_with_token(
    client: &reqwest::Client,
    base_url: &str,
    token: &str,
    method: reqwest::Method,
    target: &str,
) -> (u16, Value) {
    // The query is set on its own: parsed as part of a whole URL, trailing spaces would be
    // trimmed before they reach the wire.
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    let mut url = reqwest::Url::parse(&format!("{base_url}{path}")).expect("url");
    url.set_query(Some(query).filter(|q| !q.is_empty()));
    let response = client
        .request(method, url)
        .bearer_auth(token)
        .send()
        .await
        .expect("request");
    let status = response.status().as_u16();
    let text = response.text().await.expect("body");
    (status, serde_json::from_str(&text).unwrap_or(Value::Null))
}

/// The message of an `{"error": ...}` body; empty when the body has none.
pub(crate) fn error_of(body: &Value) -> &str {
    body["error"].as_str().unwrap_or_default()
}

/// The answer of a client call that must succeed; `what` names the call if it fails.
pub(crate) async fn ok<T>(
    what: &str,
    sent: impl Future<Output = Result<courier_client::ResponseValue<T>, courier_client::CourierError>>,
) -> T {
    sent.await.expect(what).into_inner()
}

/// The error of a client call that must fail; `what` names the call if it succeeds.
pub(crate) async fn fails<T: std::fmt::Debug>(
    what: &str,
    sent: impl Future<Output = Result<T, courier_client::CourierError>>,
) -> courier_client::CourierError {
    sent.await.expect_err(what)
}
