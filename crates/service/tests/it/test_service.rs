//! `TestService` as its documentation shows it: typed runs, a URL group and a search index
//! stored through its helpers, the account's limits changed, and each seen through the
//! interface as a client sees it.

use courier_models::{
    FailedWorkflowRun, Headers, IndexRegion, IndexType, SearchIndex, UrlGroupEndpoint,
};
use courier_service::testing::TestService;

fn run(run_id: &str) -> FailedWorkflowRun {
    FailedWorkflowRun {
        body: Some("{}".into()),
        body_base64: None,
        caller_ip: None,
        created_at: 0,
        dlq_id: String::new(),
        failure_callback: None,
        failure_callback_header: None,
        failure_callback_info: None,
        flow_control_key: None,
        header: Headers(Default::default()),
        label: None,
        labels: vec!["docs".into()],
        max_retries: 1,
        message_id: String::new(),
        method: "POST".into(),
        not_before: None,
        response_body: None,
        response_body_base64: None,
        response_header: None,
        response_status: Some(500),
        url: "https://step.example".into(),
        workflow_created_at: 1,
        workflow_run_id: run_id.into(),
        workflow_url: "https://workflow.example".into(),
    }
}

fn index() -> SearchIndex {
    SearchIndex {
        creation_time: 1_700_000_000,
        customer_id: "docs@example.com".into(),
        endpoint: "https://index.example".into(),
        hosting_email: String::new(),
        id: uuid::Uuid::from_u128(0x1234),
        input_enrichment_enabled: false,
        max_daily_queries: -1,
        max_daily_updates: -1,
        max_monthly_bandwidth: -1,
        max_monthly_reranks: -1,
        max_query_per_second: 10,
        max_reads_per_request: 10,
        max_vector_count: 1000,
        max_writes_per_request: 10,
        max_writes_per_second: 10,
        name: "docs-index".into(),
        read_only_token: "read-only".into(),
        region: IndexRegion::EuWest1,
        throughput_vector: Vec::new(),
        token: "token".into(),
        type_: IndexType::Payg,
    }
}

async fn get(service: &TestService, path: &str, management: bool) -> serde_json::Value {
    let request = reqwest::Client::new().get(format!("{}{path}", service.base_url()));
    let request = if management {
        request.basic_auth(&service.customer_id, Some(&service.management_key))
    } else {
        request.bearer_auth(&service.service_token)
    };
    let answer = request.send().await.expect("the service answers");
    assert_eq!(answer.status(), 200, "{path}");
    answer.json().await.expect("JSON")
}

#[tokio::test(flavor = "multi_thread")]
async fn the_documented_steps_store_what_the_interface_then_answers() {
    let service = TestService::start().await;
    let ids = service
        .insert_runs(&[run("wfr_docs_1"), run("wfr_docs_2")])
        .await;
    assert_eq!(ids.len(), 2);
    let page = get(&service, "/v2/workflows/dlq?label=docs", false).await;
    assert_eq!(page["messages"].as_array().map(Vec::len), Some(2), "{page}");
    let got = get(&service, &format!("/v2/workflows/dlq/{}", ids[0]), false).await;
    assert_eq!(got["workflowRunId"], "wfr_docs_1");
    assert!(
        got["createdAt"].as_i64().unwrap_or(0) > 0,
        "chosen by the service: {got}"
    );

    let endpoint = UrlGroupEndpoint {
        name: "a".into(),
        url: "https://a.example".into(),
    };
    service
        .put_url_group("orders and more", std::slice::from_ref(&endpoint))
        .await;
    let group = get(&service, "/v2/topics/orders%20and%20more", false).await;
    assert_eq!(group["name"], "orders and more");
    assert_eq!(group["endpoints"][0]["url"], "https://a.example");

    service.put_search_index(&index()).await;
    let stored = get(&service, &format!("/v2/search/{}", index().id), true).await;
    assert_eq!(stored["name"], "docs-index");

    service
        .patch_account(serde_json::json!({"max_dlq_size": 2}))
        .await;
    service.insert_runs(&[run("wfr_docs_3")]).await;
    let page = get(&service, "/v2/workflows/dlq?label=docs", false).await;
    assert_eq!(
        page["messages"].as_array().map(Vec::len),
        Some(2),
        "a full DLQ evicts its oldest: {page}"
    );
}

/// Every answer declares its length, metered or not, and a metered one still counts the bytes it
/// sent: the meter's body keeps its inner body's exact size, so nothing is sent chunked.
#[tokio::test(flavor = "multi_thread")]
async fn every_answer_declares_its_length_and_the_metered_ones_count_their_bytes() {
    let service = TestService::start().await;
    let ids = service.insert_runs(&[run("wfr_length_1")]).await;
    let client = reqwest::Client::new();
    let bandwidth = || async {
        let stats = get(&service, "/v2/svc/stats", true).await;
        stats["daily_bandwidth_used"]
            .as_array()
            .expect("series")
            .iter()
            .map(|point| point["y"].as_f64().expect("y"))
            .sum::<f64>()
    };
    let before = bandwidth().await;
    let mut sent = 0;
    for (path, token) in [
        (
            format!("/v2/workflows/dlq/{}", ids[0]),
            Some(&service.service_token),
        ),
        (
            "/v2/workflows/dlq?count=100".to_owned(),
            Some(&service.service_token),
        ),
        ("/v2/workflows/dlq".to_owned(), None),
        ("/health".to_owned(), None),
    ] {
        let request = client.get(format!("{}{path}", service.base_url()));
        let request = match token {
            Some(token) => request.bearer_auth(token),
            None => request,
        };
        let answer = request.send().await.expect("the service answers");
        let metered = token.is_some();
        assert_eq!(
            answer.status(),
            if path == "/v2/workflows/dlq" {
                401
            } else {
                200
            }
        );
        let headers = answer.headers().clone();
        let body = answer.bytes().await.expect("body");
        assert!(
            headers.get("transfer-encoding").is_none(),
            "{path}: {headers:?}"
        );
        assert_eq!(
            headers
                .get("content-length")
                .map(|length| length.to_str().expect("ascii")),
            Some(body.len().to_string().as_str()),
            "{path}"
        );
        if metered {
            sent += body.len();
        }
    }
    let after = bandwidth().await;
    // The first stats answer is counted too, so more than the two reads: never less.
    assert!(
        after - before >= sent as f64,
        "bandwidth grew by {} for {sent} bytes sent",
        after - before
    );
}
