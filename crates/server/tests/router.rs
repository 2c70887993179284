//! The generated routers on a real socket, with an in-memory implementation of both traits,
//! driven by the generated client: client and server must agree on the wire for every operation.

use courier_client::{CourierError, management, messaging};
use courier_models::*;
use courier_server::auth::constant_time_eq;
use courier_server::runtime::error_body;
use courier_server::*;
// The operation enum, not the models' body of the same name (glob imports are ambiguous).
use courier_server::ListWorkflowDlqResponse;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

const TOKEN: &str = "service-token";
const CUSTOMER: &str = "team@example.com";
const KEY: &str = "management-key";

/// A small in-memory implementation: enough state to exercise every documented status.
struct InMemory {
    token: Mutex<String>,
    entries: Mutex<BTreeMap<String, FailedWorkflowRun>>,
    /// The last parsed list request, so query-form tests can see what the router parsed.
    last_list: Mutex<Option<ListWorkflowDlqRequest>>,
    last_bulk: Mutex<Option<DeleteWorkflowDlqBulkRequest>>,
}

fn entry(id: &str, run: &str) -> FailedWorkflowRun {
    FailedWorkflowRun {
        body: Some("hello".into()),
        body_base64: None,
        caller_ip: Some("10.0.0.1".into()),
        created_at: 1_752_829_295_505,
        dlq_id: id.into(),
        failure_callback: None,
        failure_callback_header: None,
        failure_callback_info: None,
        flow_control_key: None,
        header: HeaderMap(BTreeMap::from([(
            "Content-Type".into(),
            vec!["text/plain".into()],
        )])),
        label: None,
        labels: vec!["billing".into()],
        max_retries: 3,
        message_id: format!("msg_{id}"),
        method: "POST".into(),
        not_before: None,
        response_body: None,
        response_body_base64: None,
        response_header: None,
        response_status: Some(500),
        url: "https://example.com/step".into(),
        workflow_created_at: 1_752_829_290_000,
        workflow_run_id: run.into(),
        workflow_url: "https://example.com/wf".into(),
    }
}

fn listed(run: &FailedWorkflowRun) -> WorkflowDlqMessage {
    WorkflowDlqMessage::from(run.clone())
}

fn account(token: &str) -> MessagingAccount {
    MessagingAccount {
        active: true,
        created_by: CUSTOMER.into(),
        creation_time: 1_700_000_000,
        customer_id: CUSTOMER.into(),
        id: "7d0c9c52-3d2b-4a57-9a51-8f1f2f0b6b11"
            .parse()
            .expect("uuid"),
        last_plan_upgrade_time: 0,
        max_delay: 604_800,
        max_dlq_retention_time_milis: 604_800_000,
        max_dlq_size: 1000,
        max_endpoints_per_topic: 100,
        max_events_size: 1000,
        max_global_parallelism: 100,
        max_message_size: 1_048_576,
        max_parallelism: 10,
        max_queues: 10,
        max_requests_per_day: 1000,
        max_requests_per_day_hard: 2000,
        max_requests_per_second: 100,
        max_retries: 3,
        max_schedules: 10,
        max_topics: 10,
        password: "password".into(),
        prod_pack_enabled: false,
        reserved_price: 0.0,
        reserved_type: ReservedPlanType::NONE,
        state: AccountState::Active,
        timeout: 30,
        token: token.into(),
        type_: PlanType::Free,
    }
}

fn points(n: i64) -> Vec<DataPoint> {
    (0..n)
        .map(|i| DataPoint {
            x: format!("2025-10-23 17:{:02}:00.000 +0000 UTC", i % 60),
            y: i as f64,
        })
        .collect()
}

impl MessagingApi for InMemory {
    type Principal = ();

    async fn authenticate(&self, credentials: MessagingCredentials) -> Result<(), Unauthorized> {
        let token = self.token.lock().unwrap().clone();
        if constant_time_eq(credentials.token(), &token) {
            Ok(())
        } else {
            Err(Unauthorized::bearer("wrong token"))
        }
    }

    async fn list_workflow_dlq(
        &self,
        _: (),
        request: ListWorkflowDlqRequest,
    ) -> ListWorkflowDlqResponse {
        *self.last_list.lock().unwrap() = Some(request.clone());
        if request.filter.label.iter().any(|l| l == "panic") {
            panic!("the implementation failed");
        }
        if request.filter.label.iter().any(|l| l == "boom") {
            return ListWorkflowDlqResponse::InternalServerError(error_body("boom"));
        }
        if request.filter.label.iter().any(|l| l == "slow-down") {
            return ListWorkflowDlqResponse::TooManyRequests(error_body("slow down"));
        }
        if request.cursor.as_deref().is_some_and(|c| c != "page-2") {
            return ListWorkflowDlqResponse::BadRequest(error_body("malformed cursor"));
        }
        let entries = self.entries.lock().unwrap();
        let messages: Vec<_> = entries.values().map(listed).collect();
        let cursor = if request.cursor.is_none() && request.count == 1 {
            Some("page-2".into())
        } else {
            None
        };
        ListWorkflowDlqResponse::Ok(ListWorkflowDlqResponse_ { cursor, messages })
    }

    async fn get_workflow_dlq(
        &self,
        _: (),
        request: GetWorkflowDlqRequest,
    ) -> GetWorkflowDlqResponse {
        match self.entries.lock().unwrap().get(&request.dlq_id) {
            Some(run) => GetWorkflowDlqResponse::Ok(run.clone()),
            None => GetWorkflowDlqResponse::NotFound(error_body(format!(
                "no DLQ entry `{}`",
                request.dlq_id
            ))),
        }
    }

    async fn delete_workflow_dlq_bulk(
        &self,
        _: (),
        request: DeleteWorkflowDlqBulkRequest,
    ) -> DeleteWorkflowDlqBulkResponse {
        *self.last_bulk.lock().unwrap() = Some(request.clone());
        let mut entries = self.entries.lock().unwrap();
        let deleted = request
            .dlq_ids
            .iter()
            .filter(|id| entries.remove(*id).is_some())
            .count() as i64;
        let cursor = request.dlq_ids.is_empty().then(|| "next".to_owned());
        DeleteWorkflowDlqBulkResponse::Ok(DeleteWorkflowDlqResponse { cursor, deleted })
    }

    async fn delete_dlq_message(
        &self,
        _: (),
        request: DeleteDlqMessageRequest,
    ) -> DeleteDlqMessageResponse {
        match self.entries.lock().unwrap().remove(&request.dlq_id) {
            Some(_) => DeleteDlqMessageResponse::Ok,
            None => DeleteDlqMessageResponse::NotFound(error_body("not in the DLQ")),
        }
    }

    async fn get_url_group(&self, _: (), request: GetUrlGroupRequest) -> GetUrlGroupResponse {
        if request.url_group_name != "orders group" {
            return GetUrlGroupResponse::NotFound(error_body("no such URL group"));
        }
        GetUrlGroupResponse::Ok(UrlGroup {
            created_at: 1,
            updated_at: 2,
            name: request.url_group_name,
            endpoints: vec![UrlGroupEndpoint {
                name: "a".into(),
                url: "https://a.example".into(),
            }],
        })
    }

    async fn cancel_workflow_run(
        &self,
        _: (),
        request: CancelWorkflowRunRequest,
    ) -> CancelWorkflowRunResponse {
        let mut entries = self.entries.lock().unwrap();
        let before = entries.len();
        entries.retain(|_, run| run.workflow_run_id != request.workflow_run_id);
        if entries.len() < before {
            CancelWorkflowRunResponse::Ok
        } else {
            CancelWorkflowRunResponse::NotFound(error_body("no run"))
        }
    }

    async fn cancel_workflow_runs(
        &self,
        _: (),
        request: CancelWorkflowRunsRequest,
    ) -> CancelWorkflowRunsResponse {
        let mut entries = self.entries.lock().unwrap();
        let before = entries.len();
        entries.retain(|_, run| !request.workflow_run_ids.contains(&run.workflow_run_id));
        CancelWorkflowRunsResponse::Ok(courier_models::BulkCancelResponse {
            cancelled: (before - entries.len()) as i64,
            cursor: None,
        })
    }
}

impl ManagementApi for InMemory {
    type Principal = String;

    async fn authenticate(
        &self,
        credentials: ManagementCredentials,
    ) -> Result<String, Unauthorized> {
        if credentials.username == CUSTOMER && constant_time_eq(&credentials.password, KEY) {
            Ok(credentials.username)
        } else {
            Err(Unauthorized::basic("wrong customer id or management key"))
        }
    }

    async fn get_search_index(
        &self,
        customer: String,
        request: GetSearchIndexRequest,
    ) -> GetSearchIndexResponse {
        if request.id != "idx-1" {
            return GetSearchIndexResponse::NotFound(error_body("no such index"));
        }
        GetSearchIndexResponse::Ok(SearchIndex {
            creation_time: 1_700_000_000,
            customer_id: customer,
            endpoint: "https://idx.example".into(),
            hosting_email: String::new(),
            id: "0f8b1a5e-9d7c-4f57-8d7e-4d2b3b1c0a11"
                .parse()
                .expect("uuid"),
            input_enrichment_enabled: false,
            max_daily_queries: -1,
            max_daily_updates: -1,
            max_monthly_bandwidth: -1,
            max_monthly_reranks: -1,
            max_query_per_second: 1000,
            max_reads_per_request: 1000,
            max_vector_count: 10_000,
            max_writes_per_request: 1000,
            max_writes_per_second: 1000,
            name: "products".into(),
            read_only_token: "ro".into(),
            region: IndexRegion::EuWest1,
            throughput_vector: points(3),
            token: "rw".into(),
            type_: IndexType::Payg,
        })
    }

    async fn get_search_index_stats(
        &self,
        _: String,
        request: GetSearchIndexStatsRequest,
    ) -> GetSearchIndexStatsResponse {
        if request.id != "idx-1" {
            return GetSearchIndexStatsResponse::NotFound(error_body("no such index"));
        }
        let series = points(request.period.data_points());
        GetSearchIndexStatsResponse::Ok(SearchIndexStats {
            current_vector_count: 5,
            daily_bandwidths: series.clone(),
            daily_query_count: 0,
            daily_query_requests: series.clone(),
            daily_rerank_count: 0,
            daily_rerank_requests: series.clone(),
            daily_update_count: 0,
            daily_update_requests: series.clone(),
            data_size: series.clone(),
            days: vec!["Monday".into()],
            embeds_latency_99: series.clone(),
            embeds_latency_mean: series.clone(),
            monthly_bandwidth_usage: 0,
            monthly_cost: 0.0,
            monthly_query_count: 0,
            monthly_rerank_count: 0,
            monthly_update_count: 0,
            pending_index_count: 0,
            query_latency_99: series.clone(),
            query_latency_mean: series.clone(),
            query_throughput: series.clone(),
            rerank_latency_99: series.clone(),
            rerank_latency_mean: series.clone(),
            storage_usage: 0,
            update_latency_99: series.clone(),
            update_latency_mean: series.clone(),
            update_throughput: series.clone(),
            vector_count: series,
        })
    }

    async fn get_account_stats(
        &self,
        _: String,
        request: GetAccountStatsRequest,
    ) -> GetAccountStatsResponse {
        let series = points(request.period.data_points());
        GetAccountStatsResponse::Ok(AccountStats {
            daily_bandwidth_used: series.clone(),
            daily_bandwidths: series.clone(),
            daily_billings: series.clone(),
            daily_requests: vec![],
            daily_svc_messages: vec![NamedSeries {
                id: "delivered".into(),
                data_points: series.clone(),
            }],
            daily_used: series.clone(),
            daily_used_workflow: series,
            daily_workflow_messages: vec![],
            days: vec![],
            dlq_message_count: self.entries.lock().unwrap().len() as i64,
            total_monthly_billing: 0.0,
        })
    }

    async fn rotate_token(&self, _: String, _: RotateTokenRequest) -> RotateTokenResponse {
        let mut token = self.token.lock().unwrap();
        *token = format!("{}-rotated", *token);
        RotateTokenResponse::Ok(account(&token))
    }
}

/// The list response type of the models, under a name that does not clash with the server's
/// `ListWorkflowDlqResponse` enum.
#[allow(non_camel_case_types)]
type ListWorkflowDlqResponse_ = courier_models::ListWorkflowDlqResponse;

struct Served {
    base: String,
    api: Arc<InMemory>,
}

async fn serve() -> Served {
    let api = Arc::new(InMemory {
        token: Mutex::new(TOKEN.into()),
        entries: Mutex::new(BTreeMap::from([
            ("1-0".into(), entry("1-0", "wfr_a")),
            ("1-1".into(), entry("1-1", "wfr_b")),
        ])),
        last_list: Mutex::new(None),
        last_bulk: Mutex::new(None),
    });
    let app = router(api.clone(), api.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let base = format!("http://{}", listener.local_addr().expect("addr"));
    tokio::spawn(async move { axum::serve(listener, app).await.expect("serve") });
    Served { base, api }
}

fn status_of(error: &CourierError) -> u16 {
    error.status.unwrap_or_default()
}

/// The service's `{"error": ...}` message (an undocumented response would read "an
/// undocumented response to ...", which no expected message matches).
fn message_of(error: &CourierError) -> String {
    error.message.clone()
}

#[tokio::test]
async fn every_messaging_operation_succeeds_through_the_client() {
    let served = serve().await;
    let client = messaging::Client::with_token(&served.base, TOKEN);

    let page = client.list_workflow_dlq().send().await.expect("list");
    assert_eq!(
        page.messages
            .iter()
            .map(|m| m.dlq_id.as_str())
            .collect::<Vec<_>>(),
        ["1-0", "1-1"]
    );
    assert_eq!(page.cursor, None);
    let page = client
        .list_workflow_dlq()
        .count(std::num::NonZeroU64::new(1).unwrap())
        .send()
        .await
        .expect("list");
    assert_eq!(page.cursor.as_deref(), Some("page-2"));

    let run = client
        .get_workflow_dlq()
        .dlq_id("1-0")
        .send()
        .await
        .expect("get");
    assert_eq!(run.into_inner(), entry("1-0", "wfr_a"));

    let group = client
        .get_url_group()
        .url_group_name("orders group")
        .send()
        .await
        .expect("url group");
    assert_eq!(group.name, "orders group");

    let deleted = client
        .delete_workflow_dlq_bulk()
        .dlq_ids(vec!["1-0".into(), "nope".into()])
        .send()
        .await
        .expect("bulk");
    assert_eq!((deleted.deleted, deleted.cursor.clone()), (1, None));

    client
        .cancel_workflow_run()
        .workflow_run_id("wfr_b")
        .cancel(true)
        .send()
        .await
        .expect("cancel");
    assert!(served.api.entries.lock().unwrap().is_empty());

    served
        .api
        .entries
        .lock()
        .unwrap()
        .insert("2-0".into(), entry("2-0", "wfr_c"));
    client
        .delete_dlq_message()
        .dlq_id("2-0")
        .send()
        .await
        .expect("delete one");
    assert!(served.api.entries.lock().unwrap().is_empty());
}

#[tokio::test]
async fn documented_messaging_errors_arrive_typed() {
    let served = serve().await;
    let client = messaging::Client::with_token(&served.base, TOKEN);

    let missing = client
        .get_workflow_dlq()
        .dlq_id("nope")
        .send()
        .await
        .unwrap_err();
    assert_eq!(
        (status_of(&missing), message_of(&missing)),
        (404, "no DLQ entry `nope`".into())
    );
    let missing = client
        .delete_dlq_message()
        .dlq_id("nope")
        .send()
        .await
        .unwrap_err();
    assert_eq!(status_of(&missing), 404);
    let missing = client
        .cancel_workflow_run()
        .workflow_run_id("nope")
        .send()
        .await
        .unwrap_err();
    assert_eq!(status_of(&missing), 404);
    let missing = client
        .get_url_group()
        .url_group_name("nope")
        .send()
        .await
        .unwrap_err();
    assert_eq!(status_of(&missing), 404);

    let bad = client
        .list_workflow_dlq()
        .cursor("garbage")
        .send()
        .await
        .unwrap_err();
    assert_eq!(
        (status_of(&bad), message_of(&bad)),
        (400, "malformed cursor".into())
    );
    let boom = client
        .list_workflow_dlq()
        .label(vec!["boom".into()])
        .send()
        .await
        .unwrap_err();
    assert_eq!(status_of(&boom), 500);
    let slow = client
        .list_workflow_dlq()
        .label(vec!["slow-down".into()])
        .send()
        .await
        .unwrap_err();
    assert_eq!(status_of(&slow), 429);
    let panicked = client
        .list_workflow_dlq()
        .label(vec!["panic".into()])
        .send()
        .await
        .unwrap_err();
    assert_eq!(status_of(&panicked), 500);
    assert!(
        message_of(&panicked).contains("internal error"),
        "{}",
        message_of(&panicked)
    );

    let wrong = messaging::Client::with_token(&served.base, "wrong");
    let denied = wrong.list_workflow_dlq().send().await.unwrap_err();
    assert_eq!(
        (status_of(&denied), message_of(&denied)),
        (401, "wrong token".into())
    );
    let denied = wrong
        .get_workflow_dlq()
        .dlq_id("1-0")
        .send()
        .await
        .unwrap_err();
    assert_eq!(status_of(&denied), 401);

    let by_query = messaging::Client::with_query_token(&served.base, TOKEN);
    assert_eq!(
        by_query
            .get_workflow_dlq()
            .dlq_id("1-1")
            .send()
            .await
            .expect("query token")
            .dlq_id,
        "1-1"
    );
}

#[tokio::test]
async fn every_management_operation_and_its_errors() {
    let served = serve().await;
    let client = management::Client::with_credentials(&served.base, CUSTOMER, KEY);

    let index = client
        .get_search_index()
        .id("idx-1")
        .send()
        .await
        .expect("index");
    assert_eq!(
        (index.customer_id.as_str(), index.type_),
        (CUSTOMER, IndexType::Payg)
    );
    let stats = client
        .get_search_index_stats()
        .id("idx-1")
        .period(StatsPeriod::ThirtyDays)
        .send()
        .await
        .expect("stats");
    assert_eq!(stats.query_throughput.len(), 240);
    let stats = client
        .get_search_index_stats()
        .id("idx-1")
        .send()
        .await
        .expect("default period");
    assert_eq!(stats.query_throughput.len(), 60);
    let missing = client
        .get_search_index_stats()
        .id("nope")
        .send()
        .await
        .unwrap_err();
    assert_eq!(status_of(&missing), 404);
    let missing = client
        .get_search_index()
        .id("nope")
        .send()
        .await
        .unwrap_err();
    assert_eq!(status_of(&missing), 404);

    let account_stats = client
        .get_account_stats()
        .period(StatsPeriod::OneHour)
        .send()
        .await
        .expect("account stats");
    assert_eq!(account_stats.dlq_message_count, 2);

    let rotated = client
        .rotate_token()
        .send()
        .await
        .expect("rotate")
        .into_inner();
    assert_eq!(rotated.token, format!("{TOKEN}-rotated"));
    let old = messaging::Client::with_token(&served.base, TOKEN)
        .list_workflow_dlq()
        .send()
        .await
        .unwrap_err();
    assert_eq!(status_of(&old), 401);
    let new = messaging::Client::with_token(&served.base, rotated.token)
        .list_workflow_dlq()
        .send()
        .await;
    assert!(new.is_ok());

    let wrong = management::Client::with_credentials(&served.base, CUSTOMER, "wrong-key");
    assert_eq!(
        status_of(&wrong.get_account_stats().send().await.unwrap_err()),
        401
    );
    assert_eq!(
        status_of(&wrong.rotate_token().send().await.unwrap_err()),
        401
    );
}

async fn raw(
    base: &str,
    method: reqwest::Method,
    path_and_query: &str,
    auth: Option<&str>,
) -> (u16, reqwest::header::HeaderMap, serde_json::Value) {
    let mut request = reqwest::Client::new().request(method, format!("{base}{path_and_query}"));
    if let Some(auth) = auth {
        request = request.header("Authorization", auth);
    }
    let response = request.send().await.expect("request");
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    let body = response.json().await.unwrap_or(serde_json::Value::Null);
    (status, headers, body)
}

#[tokio::test]
async fn every_multi_value_filter_accepts_every_query_form() {
    let served = serve().await;
    let bearer = format!("Bearer {TOKEN}");
    // (query string form, values the router must parse out of it)
    let forms: [(&str, &[&str]); 5] = [
        ("{k}=a", &["a"]),
        ("{k}=a&{k}=b", &["a", "b"]),
        ("{k}=a,b", &["a", "b"]),
        ("{k}=a,b&{k}=c", &["a", "b", "c"]),
        ("{k}=a%2Cb&{k}=c+d", &["a,b", "c d"]),
    ];
    type Extract = fn(&ListWorkflowDlqRequest) -> Vec<String>;
    let filters: [(&str, Extract); 4] = [
        ("workflowUrl", |r| r.filter.workflow_url.clone()),
        ("label", |r| r.filter.label.clone()),
        ("callerIp", |r| r.filter.caller_ip.clone()),
        ("flowControlKey", |r| r.filter.flow_control_key.clone()),
    ];
    for (key, extract) in filters {
        for (form, expected) in forms {
            let query = form.replace("{k}", key);
            let (status, _, body) = raw(
                &served.base,
                reqwest::Method::GET,
                &format!("/v2/workflows/dlq?{query}"),
                Some(&bearer),
            )
            .await;
            assert_eq!(status, 200, "{query}: {body}");
            let parsed = served
                .api
                .last_list
                .lock()
                .unwrap()
                .clone()
                .expect("parsed");
            assert_eq!(extract(&parsed), expected, "{query}");
        }
    }
    // The enum filter and bulk delete's dlqIds take the same forms.
    let query = "failureFunctionState=CALLBACK_FAIL,CALLBACK_SUCCESS&failureFunctionState=CALLBACK_CANCELED";
    let (status, _, _) = raw(
        &served.base,
        reqwest::Method::GET,
        &format!("/v2/workflows/dlq?{query}"),
        Some(&bearer),
    )
    .await;
    assert_eq!(status, 200);
    let parsed = served
        .api
        .last_list
        .lock()
        .unwrap()
        .clone()
        .expect("parsed");
    assert_eq!(
        parsed.filter.failure_function_state,
        [
            FailureFunctionState::CallbackFail,
            FailureFunctionState::CallbackSuccess,
            FailureFunctionState::CallbackCanceled
        ]
    );
    // Decision 12: an empty value or an empty item is a 400 naming the key, on every
    // multi-value parameter of both operations; the implementation never sees the request.
    *served.api.last_bulk.lock().unwrap() = None;
    let multi_valued = [
        (reqwest::Method::GET, "workflowUrl"),
        (reqwest::Method::GET, "label"),
        (reqwest::Method::GET, "failureFunctionState"),
        (reqwest::Method::GET, "callerIp"),
        (reqwest::Method::GET, "flowControlKey"),
        (reqwest::Method::DELETE, "dlqIds"),
        (reqwest::Method::DELETE, "label"),
    ];
    for (method, key) in multi_valued {
        for form in [
            "{k}=",
            "{k}=,",
            "{k}=x,",
            "{k}=,x",
            "{k}=x,,y",
            "{k}=x&{k}=",
        ] {
            let query = form.replace("{k}", key);
            let (status, _, body) = raw(
                &served.base,
                method.clone(),
                &format!("/v2/workflows/dlq?{query}"),
                Some(&bearer),
            )
            .await;
            assert_eq!(status, 400, "{method} {query}: {body}");
            let message = body["error"].as_str().unwrap_or_default();
            assert!(
                message.contains(&format!("`{key}` has an empty value")),
                "{query}: {message}"
            );
        }
    }
    assert!(
        served.api.last_bulk.lock().unwrap().is_none(),
        "no refused bulk delete reached the implementation"
    );
    let (status, _, _) = raw(
        &served.base,
        reqwest::Method::DELETE,
        "/v2/workflows/dlq?dlqIds=x,y&dlqIds=z",
        Some(&bearer),
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(
        served
            .api
            .last_bulk
            .lock()
            .unwrap()
            .clone()
            .expect("parsed")
            .dlq_ids,
        ["x", "y", "z"]
    );
}

#[tokio::test]
async fn rejections_are_json_and_name_what_was_wrong() {
    let served = serve().await;
    let bearer = format!("Bearer {TOKEN}");
    let cases: [(&str, &str, u16, &str); 9] = [
        (
            "GET",
            "/v2/workflows/dlq?count=101",
            400,
            "`count` must be at most 100, got 101",
        ),
        ("GET", "/v2/workflows/dlq?count=", 400, "`count` is empty"),
        (
            "GET",
            "/v2/workflows/dlq?count=ten",
            400,
            "`count` must be an integer, got `ten`",
        ),
        (
            "DELETE",
            "/v2/workflows/dlq?dlqIds=a&count=1001",
            400,
            "`count` must be at most 1000, got 1001",
        ),
        (
            "DELETE",
            "/v2/workflows/dlq?lable=oops",
            400,
            "unknown query parameter `lable`",
        ),
        (
            "GET",
            "/v2/workflows/dlq?failureFunctionState=DONE",
            400,
            "`failureFunctionState` must be one of CALLBACK_INPROGRESS",
        ),
        (
            "DELETE",
            "/v2/workflows/runs/wfr_a?cancel=maybe",
            400,
            "`cancel` must be `true` or `false`",
        ),
        ("GET", "/v2/nope", 404, "no such path: /v2/nope"),
        (
            "PUT",
            "/v2/workflows/dlq",
            405,
            "PUT is not allowed on /v2/workflows/dlq",
        ),
    ];
    for (method, path, status, message) in cases {
        let method: reqwest::Method = method.parse().expect("method");
        let (got, headers, body) = raw(&served.base, method, path, Some(&bearer)).await;
        assert_eq!(got, status, "{path}: {body}");
        let error = body["error"]
            .as_str()
            .unwrap_or_else(|| panic!("{path}: no error body: {body}"));
        assert!(error.starts_with(message), "{path}: {error}");
        assert_eq!(headers["content-type"], "application/json", "{path}");
        if status == 405 {
            assert_eq!(headers["allow"], "DELETE,GET,HEAD", "{path}");
        }
    }
    let basic = format!("Basic {}", base64_of(&format!("{CUSTOMER}:{KEY}")));
    let (status, _, body) = raw(
        &served.base,
        reqwest::Method::GET,
        "/v2/svc/stats?period=2h",
        Some(&basic),
    )
    .await;
    assert_eq!(
        (status, body["error"].as_str().unwrap_or_default()),
        (
            400,
            "`period` must be one of 1h, 3h, 12h, 1d, 3d, 7d, 30d, got `2h`"
        )
    );
    // service_token is a messaging credential only (decision 4): on management it is unknown.
    let (status, _, _) = raw(
        &served.base,
        reqwest::Method::GET,
        &format!("/v2/svc/stats?service_token={TOKEN}"),
        Some(&basic),
    )
    .await;
    assert_eq!(status, 400);
}

#[tokio::test]
async fn credentials_are_checked_before_anything_else_on_every_operation() {
    let served = serve().await;
    let messaging_ops = [
        ("GET", "/v2/workflows/dlq"),
        ("DELETE", "/v2/workflows/dlq"),
        ("GET", "/v2/workflows/dlq/1-0"),
        ("DELETE", "/v2/dlq/1-0"),
        ("GET", "/v2/topics/orders"),
        ("DELETE", "/v2/workflows/runs/wfr_a"),
    ];
    let management_ops = [
        ("GET", "/v2/search/idx-1"),
        ("GET", "/v2/search/idx-1/stats"),
        ("GET", "/v2/svc/stats"),
        ("POST", "/v2/svc/user/rotatetoken"),
    ];
    let basic = format!("Basic {}", base64_of(&format!("{CUSTOMER}:{KEY}")));
    for (method, path) in messaging_ops.iter().chain(&management_ops) {
        let is_messaging = path.starts_with("/v2/workflows")
            || path.starts_with("/v2/dlq")
            || path.starts_with("/v2/topics");
        let wrong_scheme = if is_messaging {
            basic.clone()
        } else {
            format!("Bearer {TOKEN}")
        };
        for auth in [
            None,
            Some(wrong_scheme.as_str()),
            Some("Bearer wrong"),
            Some("Basic d3Jvbmc6d3Jvbmc="),
        ] {
            let (status, headers, body) = raw(
                &served.base,
                method.parse().expect("method"),
                &format!("{path}?count=oops"),
                auth,
            )
            .await;
            assert_eq!(status, 401, "{method} {path} with {auth:?}: {body}");
            assert!(body["error"].is_string(), "{method} {path}: {body}");
            assert!(headers.contains_key("www-authenticate"), "{method} {path}");
        }
    }
    assert_eq!(
        served.api.entries.lock().unwrap().len(),
        2,
        "no unauthenticated request changed anything"
    );
}

fn base64_of(text: &str) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(text)
}
