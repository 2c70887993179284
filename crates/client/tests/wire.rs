//! Wire-level tests: all ten operations of both clients against a small recording HTTP/1.1
//! listener. They check method, path, query and credentials exactly as sent, and that canned
//! answers are decoded (success bodies, documented errors, undocumented statuses).

use courier_client::models::{
    AccountState, FailedWorkflowRun, FailureFunctionState, IndexRegion, IndexType, PlanType,
    ReservedPlanType, StatsPeriod,
};
use courier_client::{CourierError, Error, RetryPolicy, management, messaging};
use serde_json::{Value, json};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

const TOKEN: &str = "svc-token-1";
const CUSTOMER_ID: &str = "ops@example.com";
const MANAGEMENT_KEY: &str = "mk-secret-1";
/// `Basic base64("ops@example.com:mk-secret-1")`, computed independently of the client.
const BASIC: &str = "Basic b3BzQGV4YW1wbGUuY29tOm1rLXNlY3JldC0x";

// ---------------------------------------------------------------------------------------------
// The recording listener
// ---------------------------------------------------------------------------------------------

/// One canned answer: a status and a body (JSON, or nothing).
struct Reply {
    status: u16,
    body: Option<String>,
}

impl Reply {
    fn json(status: u16, body: Value) -> Reply {
        Reply {
            status,
            body: Some(body.to_string()),
        }
    }

    fn empty(status: u16) -> Reply {
        Reply { status, body: None }
    }
}

/// A request as it arrived on the wire.
#[derive(Clone, Debug)]
struct Recorded {
    method: String,
    /// The raw request target: path and query, exactly as sent.
    target: String,
    /// Header names lowercased, values trimmed, in arrival order.
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Recorded {
    fn path(&self) -> &str {
        self.target
            .split_once('?')
            .map_or(&self.target, |(path, _)| path)
    }

    fn raw_query(&self) -> &str {
        self.target.split_once('?').map_or("", |(_, query)| query)
    }

    /// The query as ordered, percent-decoded `(key, value)` pairs.
    fn query(&self) -> Vec<(String, String)> {
        parse_query(self.raw_query())
    }

    /// The query pairs sorted by key only (a stable sort keeps the order of repeated keys),
    /// so assertions do not depend on the order in which the client writes different keys.
    fn query_by_key(&self) -> Vec<(String, String)> {
        let mut pairs = self.query();
        pairs.sort_by(|a, b| a.0.cmp(&b.0));
        pairs
    }

    /// The value of a header that must occur at most once.
    fn header(&self, name: &str) -> Option<&str> {
        let values: Vec<&str> = self
            .headers
            .iter()
            .filter(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
            .collect();
        assert!(
            values.len() <= 1,
            "header {name} sent {} times",
            values.len()
        );
        values.first().copied()
    }
}

/// An HTTP/1.1 listener on `127.0.0.1:0` that answers one connection per canned reply, in
/// order, and records every request it reads.
struct RecordingServer {
    base_url: String,
    requests: Arc<Mutex<Vec<Recorded>>>,
}

impl RecordingServer {
    async fn start(responses: Vec<Reply>) -> RecordingServer {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let base_url = format!("http://{}", listener.local_addr().expect("local addr"));
        let requests = Arc::new(Mutex::new(Vec::new()));
        let log = Arc::clone(&requests);
        tokio::spawn(async move {
            for reply in responses {
                let (stream, _) = listener.accept().await.expect("accept");
                serve_one(stream, reply, &log).await;
            }
        });
        RecordingServer { base_url, requests }
    }

    fn requests(&self) -> Vec<Recorded> {
        self.requests.lock().expect("request log").clone()
    }

    /// The one request the server received.
    fn only_request(&self) -> Recorded {
        let requests = self.requests();
        assert_eq!(requests.len(), 1, "expected one request: {requests:#?}");
        requests.into_iter().next().expect("one request")
    }

    fn messaging(&self) -> messaging::Client {
        messaging::Client::with_token(&self.base_url, TOKEN)
    }

    fn management(&self) -> management::Client {
        management::Client::with_credentials(&self.base_url, CUSTOMER_ID, MANAGEMENT_KEY)
    }
}

/// Reads one request (head, then body by `content-length`), records it before answering (so
/// it is logged by the time the client sees the response), writes `reply` and closes.
async fn serve_one(mut stream: TcpStream, reply: Reply, log: &Mutex<Vec<Recorded>>) {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        if let Some(at) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break at + 4;
        }
        let n = stream.read(&mut chunk).await.expect("read request head");
        assert!(n > 0, "connection closed inside the request head");
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = std::str::from_utf8(&buf[..head_end]).expect("request head is UTF-8");
    let mut lines = head.split("\r\n");
    let mut request_line = lines.next().expect("request line").split(' ');
    let method = request_line.next().expect("method").to_string();
    let target = request_line.next().expect("target").to_string();
    let headers: Vec<(String, String)> = lines
        .filter(|line| !line.is_empty())
        .map(|line| {
            let (name, value) = line.split_once(':').expect("header line has a colon");
            (name.trim().to_ascii_lowercase(), value.trim().to_string())
        })
        .collect();
    let length: usize = headers
        .iter()
        .find(|(name, _)| name == "content-length")
        .map_or(0, |(_, value)| {
            value.parse().expect("numeric content-length")
        });
    let mut body = buf[head_end..].to_vec();
    while body.len() < length {
        let n = stream.read(&mut chunk).await.expect("read request body");
        assert!(n > 0, "connection closed inside the request body");
        body.extend_from_slice(&chunk[..n]);
    }
    log.lock().expect("request log").push(Recorded {
        method,
        target,
        headers,
        body,
    });

    let body = reply.body.unwrap_or_default();
    let content_type = if body.is_empty() {
        ""
    } else {
        "content-type: application/json\r\n"
    };
    let response = format!(
        "HTTP/1.1 {} Canned\r\n{content_type}content-length: {}\r\nconnection: close\r\n\r\n{body}",
        reply.status,
        body.len()
    );
    stream
        .write_all(response.as_bytes())
        .await
        .expect("write response");
    let _ = stream.shutdown().await;
}

/// Splits a raw query on `&` and `=`, percent-decoding keys and values (`+` is a space).
fn parse_query(raw: &str) -> Vec<(String, String)> {
    raw.split('&')
        .filter(|pair| !pair.is_empty())
        .map(|pair| {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            (percent_decode(key), percent_decode(value))
        })
        .collect()
}

fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' => {
                let hex = text.get(i + 1..i + 3).expect("two hex digits after %");
                out.push(u8::from_str_radix(hex, 16).expect("hex escape"));
                i += 2;
            }
            byte => out.push(byte),
        }
        i += 1;
    }
    String::from_utf8(out).expect("decoded query is UTF-8")
}

/// Owned `(key, value)` pairs from a literal list.
fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// A messaging request authenticated by the bearer header only.
fn assert_bearer(request: &Recorded) {
    assert_eq!(
        request.header("authorization"),
        Some(format!("Bearer {TOKEN}").as_str()),
        "{request:#?}"
    );
    assert!(
        !request.query().iter().any(|(k, _)| k == "service_token"),
        "bearer clients must not also send the query token: {request:#?}"
    );
}

/// A management request authenticated by Basic credentials.
fn assert_basic(request: &Recorded) {
    assert_eq!(request.header("authorization"), Some(BASIC), "{request:#?}");
    assert!(
        !request.query().iter().any(|(k, _)| k == "service_token"),
        "{request:#?}"
    );
}

/// Decoded values serialise back to the canned body: every field was read, none was lost.
fn assert_round_trip<T: serde::Serialize>(decoded: &T, canned: &Value) {
    assert_eq!(
        &serde_json::to_value(decoded).expect("serialise"),
        canned,
        "decoded value differs from the canned body"
    );
}

// ---------------------------------------------------------------------------------------------
// Canned bodies, valid for their operation
// ---------------------------------------------------------------------------------------------

fn dlq_message_json() -> Value {
    json!({
        "dlqId": "dlq-0001",
        "workflowUrl": "https://app.example/api/workflow",
        "workflowRunId": "wfr_1",
        "workflowCreatedAt": 1_700_000_000_000_i64,
        "url": "https://app.example/api/workflow/step-2",
        "method": "POST",
        "header": {"Content-Type": ["application/json"], "X-Multi": ["a", "b"]},
        "body": "{\"order\":7}",
        "maxRetries": 3,
        "createdAt": 1_700_000_000_500_i64,
        "failureCallback": "https://app.example/api/failed",
        "callerIP": "10.0.0.1",
        "label": "billing",
        "labels": ["billing", "eu, west"],
        "flowControlKey": "fck",
        "failureFunctionState": "CALLBACK_FAIL",
        "responseStatus": 502,
        "responseHeader": {"Retry-After": ["5"]},
        "responseBody": "bad gateway"
    })
}

fn failed_run_json() -> Value {
    json!({
        "messageId": "msg_9",
        "dlqId": "dlq 1/a",
        "url": "https://app.example/api/workflow/step-1",
        "method": "POST",
        "header": {"Upstash-Workflow-RunId": ["wfr_9"]},
        "maxRetries": 5,
        "notBefore": 1_700_000_000_100_i64,
        "createdAt": 1_700_000_000_000_i64,
        "failureCallback": "https://app.example/api/failed",
        "failureCallbackHeader": {"X-Callback": ["yes"]},
        "callerIP": "10.0.0.9",
        "workflowRunId": "wfr_9",
        "workflowCreatedAt": 1_699_999_999_000_i64,
        "workflowUrl": "https://app.example/api/workflow",
        "responseStatus": 500,
        "responseHeader": {"Content-Type": ["text/plain"]},
        "responseBodyBase64": "AAEC",
        "bodyBase64": "/w==",
        "labels": ["batch"],
        "failureCallbackInfo": {
            "state": "CALLBACK_SUCCESS",
            "responseStatus": 200,
            "responseBody": "ok",
            "responseHeaders": {"Content-Length": ["2"]}
        }
    })
}

fn url_group_json() -> Value {
    json!({
        "createdAt": 1_700_000_000_000_i64,
        "updatedAt": 1_700_000_100_000_i64,
        "name": "my group/eu",
        "endpoints": [
            {"name": "primary", "url": "https://a.example/hook"},
            {"name": "backup", "url": "https://b.example/hook"}
        ]
    })
}

fn search_index_json() -> Value {
    json!({
        "customer_id": CUSTOMER_ID,
        "id": "3f6c1b9e-8a4d-4c2e-9b7a-1d2e3f4a5b6c",
        "name": "products",
        "endpoint": "products-eu.search.example",
        "type": "payg",
        "region": "eu-west-1",
        "hosting_email": "",
        "token": "<INDEX_TOKEN>",
        "read_only_token": "<INDEX_READ_ONLY_TOKEN>",
        "max_vector_count": 200_000_000,
        "max_monthly_reranks": -1,
        "max_daily_updates": -1,
        "max_daily_queries": 1_000_000,
        "max_monthly_bandwidth": -1,
        "max_writes_per_second": 1000,
        "max_query_per_second": 1000,
        "max_reads_per_request": 1000,
        "max_writes_per_request": 1000,
        "creation_time": 1_700_000_000,
        "input_enrichment_enabled": true,
        "throughput_vector": [{"x": "2025-10-23 17:34:00.000 +0000 UTC", "y": 4.5}]
    })
}

fn index_stats_json() -> Value {
    let mut stats = json!({
        "pending_index_count": 2,
        "current_vector_count": 1500,
        "daily_query_count": 40,
        "daily_update_count": 12,
        "monthly_query_count": 900,
        "monthly_update_count": 300,
        "monthly_bandwidth_usage": 1_048_576,
        "storage_usage": 52_428_800,
        "daily_rerank_count": 1,
        "monthly_rerank_count": 7,
        "monthly_cost": 12.5,
        "days": ["Mon", "Tue"]
    });
    let series = [
        "daily_update_requests",
        "daily_query_requests",
        "daily_bandwidths",
        "query_throughput",
        "update_throughput",
        "query_latency_mean",
        "query_latency_99",
        "update_latency_mean",
        "update_latency_99",
        "embeds_latency_mean",
        "embeds_latency_99",
        "vector_count",
        "data_size",
        "daily_rerank_requests",
        "rerank_latency_mean",
        "rerank_latency_99",
    ];
    for (i, name) in series.into_iter().enumerate() {
        stats[name] = json!([{"x": "2025-10-23 15:00:00.000 +0000 UTC", "y": i as f64 + 0.5}]);
    }
    stats
}

fn account_stats_json() -> Value {
    let point = |y: f64| json!([{"x": "2025-10-01 11:33:05.585757103 +0000 UTC", "y": y}]);
    json!({
        "days": ["Wed", "Thu"],
        "daily_requests": [{
            "x": "2025-10-01 00:00:00.000 +0000 UTC", "y": 10.0,
            "workflow_message": 4.0, "workflow_run": 2.0
        }],
        "daily_billings": point(0.25),
        "daily_bandwidths": point(2048.0),
        "daily_used": point(10.0),
        "daily_used_workflow": point(6.0),
        "daily_svc_messages": [{"id": "delivered", "data_points": point(8.0)}],
        "daily_workflow_messages": [{"id": "run_failed", "data_points": point(1.0)}],
        "dlq_message_count": 3,
        "daily_bandwidth_used": point(512.0),
        "total_monthly_billing": 1.75
    })
}

fn account_json() -> Value {
    json!({
        "customer_id": CUSTOMER_ID,
        "id": "0b9d4c1e-2f3a-4b5c-8d6e-7f8091a2b3c4",
        "password": "<PASSWORD>",
        "token": "new-service-token",
        "active": true,
        "state": "active",
        "last_plan_upgrade_time": 1_690_000_000,
        "max_message_size": 1_048_576,
        "max_requests_per_day": 500_000,
        "max_requests_per_day_hard": 1_000_000,
        "max_endpoints_per_topic": 100,
        "max_requests_per_second": 100,
        "max_dlq_size": 10_000,
        "max_retries": 5,
        "max_topics": 1000,
        "max_schedules": 1000,
        "max_events_size": 10_000,
        "max_dlq_retention_time_milis": 604_800_000_i64,
        "max_delay": 604_800,
        "max_parallelism": 10,
        "max_global_parallelism": 100,
        "max_queues": 100,
        "prod_pack_enabled": false,
        "timeout": 15,
        "type": "paid",
        "reserved_type": "",
        "reserved_price": 0.0,
        "created_by": "admin@example.com",
        "creation_time": 1_680_000_000
    })
}

// ---------------------------------------------------------------------------------------------
// Messaging operations (bearer)
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn list_workflow_dlq_sends_every_filter_and_decodes_the_page() {
    let page = json!({"cursor": "next/1", "messages": [dlq_message_json()]});
    let server = RecordingServer::start(vec![Reply::json(200, page.clone())]).await;

    let response = server
        .messaging()
        .list_workflow_dlq()
        .caller_ip(vec!["10.0.0.1".to_string(), "10.0.0.2".to_string()])
        .count(25u64)
        .cursor("cur/1 2")
        .failure_function_state(vec![
            FailureFunctionState::CallbackFail,
            FailureFunctionState::CallbackInprogress,
        ])
        .flow_control_key(vec!["fck".to_string()])
        .from_date(1_700_000_000_000_i64)
        .to_date(1_700_000_900_000_i64)
        .label(vec!["billing".to_string(), "eu, west".to_string()])
        .workflow_created_at(1_699_999_999_000_i64)
        .workflow_run_id("wfr_1")
        .workflow_url(vec![
            "https://a.example/wf?x=1".to_string(),
            "https://b.example/wf".to_string(),
        ])
        .send()
        .await
        .expect("list succeeds");

    let request = server.only_request();
    assert_eq!(request.method, "GET");
    assert_eq!(request.path(), "/v2/workflows/dlq");
    assert_eq!(
        request.query_by_key(),
        pairs(&[
            ("callerIp", "10.0.0.1"),
            ("callerIp", "10.0.0.2"),
            ("count", "25"),
            ("cursor", "cur/1 2"),
            ("failureFunctionState", "CALLBACK_FAIL"),
            ("failureFunctionState", "CALLBACK_INPROGRESS"),
            ("flowControlKey", "fck"),
            ("fromDate", "1700000000000"),
            ("label", "billing"),
            ("label", "eu, west"),
            ("toDate", "1700000900000"),
            ("workflowCreatedAt", "1699999999000"),
            ("workflowRunId", "wfr_1"),
            ("workflowUrl", "https://a.example/wf?x=1"),
            ("workflowUrl", "https://b.example/wf"),
        ])
    );
    // Repeated keys, never one comma-joined value; a comma inside a value is escaped so the
    // server's split on literal commas (decision 12) keeps it whole.
    assert!(
        request
            .raw_query()
            .contains("label=billing&label=eu%2C+west"),
        "{}",
        request.raw_query()
    );
    assert_eq!(request.header("accept"), Some("application/json"));
    assert_bearer(&request);

    assert_eq!(response.status().as_u16(), 200);
    let page_decoded = response.into_inner();
    assert_eq!(page_decoded.cursor.as_deref(), Some("next/1"));
    assert_eq!(page_decoded.messages.len(), 1);
    let message = &page_decoded.messages[0];
    assert_eq!(message.dlq_id, "dlq-0001");
    assert_eq!(message.labels, ["billing", "eu, west"]);
    assert_eq!(
        message.failure_function_state,
        Some(FailureFunctionState::CallbackFail)
    );
    assert_eq!(message.header["X-Multi"], ["a", "b"]);
    assert_eq!(message.response_status, Some(502));
    assert_round_trip(&page_decoded, &page);
}

#[tokio::test]
async fn list_workflow_dlq_without_parameters_sends_no_query_and_reads_a_last_page() {
    let page = json!({"messages": []});
    let server = RecordingServer::start(vec![Reply::json(200, page)]).await;

    let response = server
        .messaging()
        .list_workflow_dlq()
        .send()
        .await
        .expect("list succeeds");

    let request = server.only_request();
    assert_eq!(request.target, "/v2/workflows/dlq");
    assert_bearer(&request);
    let page = response.into_inner();
    assert_eq!(page.cursor, None);
    assert!(page.messages.is_empty());
}

#[tokio::test]
async fn get_workflow_dlq_encodes_the_dlq_id_and_decodes_the_run() {
    let run = failed_run_json();
    let server = RecordingServer::start(vec![Reply::json(200, run.clone())]).await;

    let response = server
        .messaging()
        .get_workflow_dlq()
        .dlq_id("dlq 1/a")
        .send()
        .await
        .expect("get succeeds");

    let request = server.only_request();
    assert_eq!(request.method, "GET");
    assert_eq!(request.target, "/v2/workflows/dlq/dlq%201%2Fa");
    assert_bearer(&request);

    let decoded: FailedWorkflowRun = response.into_inner();
    assert_eq!(decoded.dlq_id, "dlq 1/a");
    assert_eq!(decoded.message_id, "msg_9");
    assert_eq!(decoded.body_base64.as_deref(), Some("/w=="));
    let info = decoded
        .failure_callback_info
        .as_ref()
        .expect("callback info");
    assert_eq!(info.state, FailureFunctionState::CallbackSuccess);
    assert_eq!(info.response_status, Some(200));
    assert_round_trip(&decoded, &run);
}

#[tokio::test]
async fn delete_workflow_dlq_bulk_sends_ids_or_filters_and_decodes_the_result() {
    let by_ids = json!({"deleted": 2});
    let by_filter = json!({"deleted": 100, "cursor": "batch-2"});
    let server =
        RecordingServer::start(vec![Reply::json(200, by_ids), Reply::json(200, by_filter)]).await;
    let client = server.messaging();

    let first = client
        .delete_workflow_dlq_bulk()
        .dlq_ids(vec!["dlq-a".to_string(), "dlq b".to_string()])
        .count(500u64)
        .send()
        .await
        .expect("delete by ids succeeds")
        .into_inner();
    let second = client
        .delete_workflow_dlq_bulk()
        .label(vec!["a".to_string(), "b".to_string()])
        .failure_function_state(vec![FailureFunctionState::CallbackCanceled])
        .from_date(1_700_000_000_000_i64)
        .cursor("batch-1")
        .send()
        .await
        .expect("delete by filter succeeds")
        .into_inner();

    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    for request in &requests {
        assert_eq!(request.method, "DELETE");
        assert_eq!(request.path(), "/v2/workflows/dlq");
        assert_bearer(request);
    }
    assert_eq!(
        requests[0].query_by_key(),
        pairs(&[("count", "500"), ("dlqIds", "dlq-a"), ("dlqIds", "dlq b")])
    );
    assert_eq!(
        requests[1].query_by_key(),
        pairs(&[
            ("cursor", "batch-1"),
            ("failureFunctionState", "CALLBACK_CANCELED"),
            ("fromDate", "1700000000000"),
            ("label", "a"),
            ("label", "b"),
        ])
    );
    assert!(requests[1].raw_query().contains("label=a&label=b"));

    assert_eq!(first.deleted, 2);
    assert_eq!(first.cursor, None);
    assert_eq!(second.deleted, 100);
    assert_eq!(second.cursor.as_deref(), Some("batch-2"));
}

#[tokio::test]
async fn delete_dlq_message_encodes_the_id_and_accepts_an_empty_200() {
    let server = RecordingServer::start(vec![Reply::empty(200)]).await;

    let response = server
        .messaging()
        .delete_dlq_message()
        .dlq_id("dlq 7/b")
        .send()
        .await
        .expect("delete succeeds");

    let request = server.only_request();
    assert_eq!(request.method, "DELETE");
    assert_eq!(request.target, "/v2/dlq/dlq%207%2Fb");
    assert!(request.body.is_empty());
    assert_bearer(&request);
    assert_eq!(response.status().as_u16(), 200);
}

#[tokio::test]
async fn get_url_group_encodes_the_name_and_decodes_the_group() {
    let group = url_group_json();
    let server = RecordingServer::start(vec![Reply::json(200, group.clone())]).await;

    let response = server
        .messaging()
        .get_url_group()
        .url_group_name("my group/eu")
        .send()
        .await
        .expect("get succeeds");

    let request = server.only_request();
    assert_eq!(request.method, "GET");
    assert_eq!(request.target, "/v2/topics/my%20group%2Feu");
    assert_bearer(&request);

    let decoded = response.into_inner();
    assert_eq!(decoded.name, "my group/eu");
    assert_eq!(decoded.endpoints.len(), 2);
    assert_eq!(decoded.endpoints[1].url, "https://b.example/hook");
    assert_round_trip(&decoded, &group);
}

#[tokio::test]
async fn cancel_workflow_run_sends_cancel_true_and_accepts_an_empty_200() {
    let server = RecordingServer::start(vec![Reply::empty(200)]).await;

    let response = server
        .messaging()
        .cancel_workflow_run()
        .workflow_run_id("wfr 1/x")
        .cancel(true)
        .send()
        .await
        .expect("cancel succeeds");

    let request = server.only_request();
    assert_eq!(request.method, "DELETE");
    assert_eq!(request.path(), "/v2/workflows/runs/wfr%201%2Fx");
    assert_eq!(request.query(), pairs(&[("cancel", "true")]));
    assert_bearer(&request);
    assert_eq!(response.status().as_u16(), 200);
}

#[tokio::test]
async fn query_token_clients_send_service_token_and_no_authorization_on_every_operation() {
    let token = "q tok/1";
    let server = RecordingServer::start(vec![
        Reply::json(200, json!({"messages": []})),
        Reply::json(200, failed_run_json()),
        Reply::json(200, json!({"deleted": 0})),
        Reply::empty(200),
        Reply::json(200, url_group_json()),
        Reply::empty(200),
    ])
    .await;
    let client = messaging::Client::with_query_token(&server.base_url, token);

    client
        .list_workflow_dlq()
        .label(vec!["a".to_string(), "b".to_string()])
        .send()
        .await
        .expect("list");
    client
        .get_workflow_dlq()
        .dlq_id("d1")
        .send()
        .await
        .expect("get");
    client
        .delete_workflow_dlq_bulk()
        .dlq_ids(vec!["d1".to_string()])
        .send()
        .await
        .expect("bulk delete");
    client
        .delete_dlq_message()
        .dlq_id("d2")
        .send()
        .await
        .expect("delete one");
    client
        .get_url_group()
        .url_group_name("g")
        .send()
        .await
        .expect("url group");
    client
        .cancel_workflow_run()
        .workflow_run_id("r1")
        .cancel(true)
        .send()
        .await
        .expect("cancel");

    let requests = server.requests();
    let seen: Vec<(&str, &str)> = requests
        .iter()
        .map(|r| (r.method.as_str(), r.path()))
        .collect();
    assert_eq!(
        seen,
        [
            ("GET", "/v2/workflows/dlq"),
            ("GET", "/v2/workflows/dlq/d1"),
            ("DELETE", "/v2/workflows/dlq"),
            ("DELETE", "/v2/dlq/d2"),
            ("GET", "/v2/topics/g"),
            ("DELETE", "/v2/workflows/runs/r1"),
        ]
    );
    for request in &requests {
        assert_eq!(request.header("authorization"), None, "{request:#?}");
        let sent: Vec<String> = request
            .query()
            .into_iter()
            .filter(|(k, _)| k == "service_token")
            .map(|(_, v)| v)
            .collect();
        assert_eq!(sent, [token], "exactly one query token: {request:#?}");
    }
    // The token is form-encoded and added after the operation's own parameters.
    assert_eq!(
        requests[0].raw_query(),
        "label=a&label=b&service_token=q+tok%2F1"
    );
    assert_eq!(
        requests[5].query(),
        pairs(&[("cancel", "true"), ("service_token", token)])
    );
}

// ---------------------------------------------------------------------------------------------
// Management operations (Basic)
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn get_search_index_sends_basic_credentials_and_decodes_the_index() {
    let index = search_index_json();
    let server = RecordingServer::start(vec![Reply::json(200, index.clone())]).await;

    let response = server
        .management()
        .get_search_index()
        .id("idx 1/eu")
        .send()
        .await
        .expect("get index succeeds");

    let request = server.only_request();
    assert_eq!(request.method, "GET");
    assert_eq!(request.target, "/v2/search/idx%201%2Feu");
    assert_basic(&request);

    let decoded = response.into_inner();
    assert_eq!(
        decoded.id.to_string(),
        "3f6c1b9e-8a4d-4c2e-9b7a-1d2e3f4a5b6c"
    );
    assert_eq!(decoded.type_, IndexType::Payg);
    assert_eq!(decoded.region, IndexRegion::EuWest1);
    assert_eq!(decoded.max_monthly_reranks, -1);
    assert!(decoded.input_enrichment_enabled);
    assert_round_trip(&decoded, &index);
}

#[tokio::test]
async fn get_search_index_stats_sends_the_period_and_decodes_the_stats() {
    let stats = index_stats_json();
    let server = RecordingServer::start(vec![Reply::json(200, stats.clone())]).await;

    let response = server
        .management()
        .get_search_index_stats()
        .id("idx-1")
        .period(StatsPeriod::ThirtyDays)
        .send()
        .await
        .expect("index stats succeed");

    let request = server.only_request();
    assert_eq!(request.method, "GET");
    assert_eq!(request.path(), "/v2/search/idx-1/stats");
    assert_eq!(request.query(), pairs(&[("period", "30d")]));
    assert_basic(&request);

    let decoded = response.into_inner();
    assert_eq!(decoded.current_vector_count, 1500);
    assert_eq!(decoded.monthly_cost, 12.5);
    assert_eq!(decoded.days, ["Mon", "Tue"]);
    assert_eq!(decoded.query_latency_99[0].y, 6.5);
    assert_eq!(decoded.rerank_latency_99[0].y, 15.5);
    assert_round_trip(&decoded, &stats);
}

#[tokio::test]
async fn get_account_stats_sends_the_period_only_when_set_and_decodes_the_stats() {
    let stats = account_stats_json();
    let server = RecordingServer::start(vec![
        Reply::json(200, stats.clone()),
        Reply::json(200, stats.clone()),
    ])
    .await;
    let client = server.management();

    let with_period = client
        .get_account_stats()
        .period(StatsPeriod::OneHour)
        .send()
        .await
        .expect("account stats succeed")
        .into_inner();
    client
        .get_account_stats()
        .send()
        .await
        .expect("account stats without period succeed");

    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[0].method, "GET");
    assert_eq!(requests[0].target, "/v2/svc/stats?period=1h");
    assert_eq!(requests[1].target, "/v2/svc/stats");
    for request in &requests {
        assert_basic(request);
    }

    assert_eq!(with_period.dlq_message_count, 3);
    assert_eq!(with_period.daily_requests[0].workflow_run, 2.0);
    assert_eq!(with_period.daily_svc_messages[0].id, "delivered");
    assert_eq!(with_period.daily_svc_messages[0].data_points[0].y, 8.0);
    assert_eq!(
        with_period.daily_used[0].x,
        "2025-10-01 11:33:05.585757103 +0000 UTC"
    );
    assert_round_trip(&with_period, &stats);
}

#[tokio::test]
async fn rotate_token_posts_without_body_or_query_and_decodes_the_account() {
    let account = account_json();
    let server = RecordingServer::start(vec![Reply::json(200, account.clone())]).await;

    let response = server
        .management()
        .rotate_token()
        .send()
        .await
        .expect("rotation succeeds");

    let request = server.only_request();
    assert_eq!(request.method, "POST");
    assert_eq!(request.target, "/v2/svc/user/rotatetoken");
    assert!(request.body.is_empty());
    assert_basic(&request);

    let decoded = response.into_inner();
    assert_eq!(decoded.token, "new-service-token");
    assert_eq!(decoded.state, AccountState::Active);
    assert_eq!(decoded.type_, PlanType::Paid);
    assert_eq!(decoded.reserved_type, ReservedPlanType::NONE);
    assert_eq!(decoded.max_dlq_retention_time_milis, 604_800_000);
    assert_round_trip(&decoded, &account);
}

// ---------------------------------------------------------------------------------------------
// Errors and retries
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn a_documented_404_is_an_error_response_with_status_and_message() {
    let body = json!({"error": "no such dlqId"});
    let server =
        RecordingServer::start(vec![Reply::json(404, body.clone()), Reply::json(404, body)]).await;
    let client = server.messaging();

    // `send_raw()` keeps progenitor's error type for callers who want the raw response.
    let error = client
        .get_workflow_dlq()
        .dlq_id("missing")
        .send_raw()
        .await
        .expect_err("404 is an error");
    match error {
        Error::ErrorResponse(response) => {
            assert_eq!(response.status().as_u16(), 404);
            assert_eq!(response.into_inner().error, "no such dlqId");
        }
        other => panic!("expected ErrorResponse, got {other:?}"),
    }

    let error = client
        .delete_dlq_message()
        .dlq_id("missing")
        .send()
        .await
        .expect_err("404 is an error");
    // `send()` yields the one error type directly (annoyance 2: no conversion needed).
    let courier: CourierError = error;
    assert_eq!(courier.to_string(), "404 Not Found: no such dlqId");
    assert_eq!(courier.status, Some(404));
    assert_eq!(courier.message, "no such dlqId");
    assert!(!courier.retryable);

    // Not retried: exactly one request per call.
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test]
async fn an_undocumented_status_is_a_readable_error_carrying_the_status() {
    let server =
        RecordingServer::start(vec![Reply::json(418, json!({"error": "short and stout"}))]).await;

    let error = server
        .messaging()
        .get_url_group()
        .url_group_name("teapot")
        .send_raw()
        .await
        .expect_err("418 is an error");

    assert_eq!(error.status().map(|s| s.as_u16()), Some(418));
    assert!(
        matches!(error, Error::UnexpectedResponse(_)),
        "expected UnexpectedResponse, got {error:?}"
    );
    assert!(error.to_string().contains("418"), "{error}");
    let courier = CourierError::from(error);
    assert_eq!(courier.status, Some(418));
    assert!(!courier.retryable);
    let text = courier.to_string();
    assert!(
        text.contains("418") && text.contains("/v2/topics/teapot"),
        "{text}"
    );
    assert_eq!(server.requests().len(), 1);
}

/// A management client with fast retries: two attempts, millisecond backoff.
fn fast_retrying_management(server: &RecordingServer) -> management::Client {
    management::Client::builder()
        .base_url(&server.base_url)
        .credentials(CUSTOMER_ID, MANAGEMENT_KEY)
        .retry(RetryPolicy {
            max_attempts: 2,
            initial_backoff: Duration::from_millis(1),
            max_backoff: Duration::from_millis(5),
        })
        .build()
        .expect("client builds")
}

#[tokio::test]
async fn an_idempotent_request_is_resent_identically_after_a_503() {
    let server = RecordingServer::start(vec![
        Reply::json(503, json!({"error": "busy"})),
        Reply::json(200, search_index_json()),
    ])
    .await;

    let index = fast_retrying_management(&server)
        .get_search_index()
        .id("idx-1")
        .send()
        .await
        .expect("the retry succeeds")
        .into_inner();

    assert_eq!(index.name, "products");
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    for request in &requests {
        assert_eq!(request.method, "GET");
        assert_eq!(request.target, "/v2/search/idx-1");
        assert_basic(request);
    }
}

#[tokio::test]
async fn rotation_is_never_retried() {
    let server = RecordingServer::start(vec![
        Reply::json(503, json!({"error": "busy"})),
        Reply::json(200, account_json()),
    ])
    .await;

    let error = fast_retrying_management(&server)
        .rotate_token()
        .send()
        .await
        .expect_err("the 503 is returned, not retried");

    assert_eq!(error.status, Some(503));
    assert_eq!(server.requests().len(), 1, "rotation was sent twice");
}
