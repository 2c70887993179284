//! The generated routers on a real socket, with an in-memory implementation of both traits,
//! driven by the generated client: client and server must agree on the wire for every operation.

use courier_client::{CourierError, management, messaging};
use courier_models::*;
use courier_server::auth::constant_time_eq;
use courier_server::runtime::error_body;
use courier_server::*;
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
        header: Headers(BTreeMap::from([(
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

impl InMemory {
    /// Removes the entries of the runs `cancelled` picks by id: how many went.
    fn cancel_runs(&self, cancelled: impl Fn(&str) -> bool) -> usize {
        let mut entries = self.entries.lock().unwrap();
        let before = entries.len();
        entries.retain(|_, run| !cancelled(&run.workflow_run_id));
        before - entries.len()
    }
}

impl MessagingApi for InMemory {
    type Principal = ();

    async fn authenticate(&self, credentials: MessagingCredentials) -> Result<(), Unauthorized> {
        let token = self.token.lock().unwrap().clone();
        credentials.expect_token(&token, "wrong token")
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
        ListWorkflowDlqResponse::Ok(WorkflowDlqPage { cursor, messages }.into())
    }

    async fn get_workflow_dlq(
        &self,
        _: (),
        request: GetWorkflowDlqRequest,
    ) -> GetWorkflowDlqResponse {
        match self.entries.lock().unwrap().get(&request.dlq_id) {
            Some(run) => GetWorkflowDlqResponse::Ok(run.clone().into()),
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
        DeleteWorkflowDlqBulkResponse::Ok(BulkDeleteResult { cursor, deleted })
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
        if self.cancel_runs(|run| run == request.workflow_run_id) > 0 {
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
        let cancelled = self.cancel_runs(|run| request.workflow_run_ids.iter().any(|id| id == run));
        CancelWorkflowRunsResponse::Ok(courier_models::BulkCancelResult {
            cancelled: cancelled as i64,
            cursor: None,
        })
    }
}

/// The one search index the fake has, `idx-1`, of `customer`.
fn search_index(customer: String) -> SearchIndex {
    SearchIndex {
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
        match request.id.as_str() {
            "idx-1" => GetSearchIndexResponse::Ok(search_index(customer)),
            _ => GetSearchIndexResponse::NotFound(error_body("no such index")),
        }
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

impl Served {
    /// The list request the router parsed last.
    fn last_list(&self) -> ListWorkflowDlqRequest {
        self.api.last_list.lock().unwrap().clone().expect("parsed")
    }

    /// Sends a request without the client: status, headers and the JSON body (null if none).
    async fn raw(
        &self,
        method: reqwest::Method,
        path_and_query: &str,
        auth: Option<&str>,
    ) -> (u16, reqwest::header::HeaderMap, serde_json::Value) {
        let base = &self.base;
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
}

mod inputs;
mod operations;

/// The answer of a client call that must succeed; `what` names the call if it fails.
async fn ok<T>(
    what: &str,
    sent: impl Future<Output = Result<courier_client::ResponseValue<T>, CourierError>>,
) -> T {
    sent.await.expect(what).into_inner()
}
