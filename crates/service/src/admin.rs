//! The admin API under `/admin/v1`: how tests and demos fill the service. Not part of the
//! interface.
//!
//! Enabled only with an admin token (`--admin-token`), bearer-authenticated. Bad input gets the
//! same `{"error": "..."}` 400s as the public interface, and every request is all-or-nothing:
//! a batch with one bad entry stores none of them.

use crate::api::Service;
use crate::signin::{CredentialKind, SignInGuard};
use crate::stats;
use crate::store::{ActiveRun, IndexActivity, IndexUsage, Store, StoreError};
use crate::time::now_ms;
use axum::Router;
use axum::body::Bytes;
use axum::extract::{FromRequest, Path, Request, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{patch, post, put};
use base64::Engine as _;
use courier_models::{FailedWorkflowRun, MessagingAccount, SearchIndex, UrlGroupEndpoint};
use courier_server::auth::constant_time_eq;
use courier_server::runtime::{error, json, method_not_allowed};
use serde::Deserialize;
use serde_json::{Map, Value};
use std::sync::Arc;

struct AdminState {
    service: Arc<Service>,
    token: String,
    guard: Arc<SignInGuard>,
}

/// The admin routes, guarded by `token`; wrong tokens count as failed sign-ins in `guard`.
pub fn router(service: Arc<Service>, token: String, guard: Arc<SignInGuard>) -> Router {
    let state = Arc::new(AdminState {
        service,
        token,
        guard,
    });
    // Every route answers other methods with the API's JSON 405.
    let routes = [
        ("/admin/v1/dlq", post(insert_dlq)),
        ("/admin/v1/runs", post(insert_runs)),
        ("/admin/v1/topics/{name}", put(put_topic)),
        ("/admin/v1/search/{id}", put(put_index)),
        ("/admin/v1/search/{id}/usage", post(record_index_usage)),
        ("/admin/v1/account", patch(patch_account)),
    ];
    routes
        .into_iter()
        .fold(Router::new(), |router, (path, route)| {
            router.route(path, route.fallback(method_not_allowed))
        })
        .route_layer(axum::middleware::from_fn_with_state(
            state.clone(),
            require_admin,
        ))
        .with_state(state)
}

async fn require_admin(
    State(state): State<Arc<AdminState>>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let client = crate::signin::client_address(request.extensions());
    let given = courier_server::auth::bearer_token(request.headers());
    if let Some(Ok(token)) = given {
        if let Some(wait) = state.guard.wait(client) {
            return crate::signin::too_many_failures(wait);
        }
        if constant_time_eq(token, &state.token) {
            return next.run(request).await;
        }
        state.guard.failed(client, CredentialKind::AdminToken);
    }
    courier_server::Unauthorized::bearer(
        "the admin API needs `Authorization: Bearer <admin token>`",
    )
    .into_response()
}

fn bad_request(message: impl Into<String>) -> Response {
    error(StatusCode::BAD_REQUEST, message)
}

fn store_error(failure: StoreError) -> Response {
    match failure {
        StoreError::Invalid(message) => bad_request(message),
        StoreError::Full(message) => error(StatusCode::INSUFFICIENT_STORAGE, message),
        other => {
            tracing::error!(error = %other, "admin request failed");
            error(
                StatusCode::INTERNAL_SERVER_ERROR,
                "internal error while storing",
            )
        }
    }
}

/// A refused admin body: status and message, rendered with the error body.
struct Refused(StatusCode, String);

impl IntoResponse for Refused {
    fn into_response(self) -> Response {
        error(self.0, self.1)
    }
}

/// Refuses a body that is not declared `application/json` (415).
fn require_json(headers: &HeaderMap) -> Result<(), Refused> {
    let is_json = headers
        .get(axum::http::header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| {
            value
                .split(';')
                .next()
                .is_some_and(|mime| mime.trim().eq_ignore_ascii_case("application/json"))
        });
    if is_json {
        Ok(())
    } else {
        Err(Refused(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "the body must be JSON with `content-type: application/json`".into(),
        ))
    }
}

/// Parses a JSON body, saying where parsing failed.
fn parse_json<T: serde::de::DeserializeOwned>(body: &[u8]) -> Result<T, String> {
    serde_json::from_slice(body).map_err(|e| format!("the body is not valid: {e}"))
}

/// Runs one of the `parse_*` functions below on a request: 415 unless JSON, 400 with its message.
fn parse_request<T>(
    headers: &HeaderMap,
    body: &Bytes,
    parse: impl FnOnce(&[u8]) -> Result<T, String>,
) -> Result<T, Refused> {
    require_json(headers)?;
    parse(body).map_err(|message| Refused(StatusCode::BAD_REQUEST, message))
}

/// What every writing handler takes: the state, and the request's headers and body.
struct Write {
    state: Arc<AdminState>,
    headers: HeaderMap,
    body: Bytes,
}

impl FromRequest<Arc<AdminState>> for Write {
    type Rejection = Response;

    async fn from_request(request: Request, state: &Arc<AdminState>) -> Result<Self, Response> {
        let headers = request.headers().clone();
        let body = Bytes::from_request(request, state)
            .await
            .map_err(IntoResponse::into_response)?;
        Ok(Write {
            state: state.clone(),
            headers,
            body,
        })
    }
}

impl Write {
    /// What every writing handler does first: reads its JSON body with `parse`, then hands the
    /// result to `write` on the blocking pool. A refused body and a failed store call come back
    /// as the response to send.
    async fn parse_and_write<T, R>(
        &self,
        parse: impl FnOnce(&[u8]) -> Result<T, String>,
        write: impl FnOnce(&dyn Store, T) -> Result<R, StoreError> + Send + 'static,
    ) -> Result<R, Response>
    where
        T: Send + 'static,
        R: Send + 'static,
    {
        let parsed =
            parse_request(&self.headers, &self.body, parse).map_err(IntoResponse::into_response)?;
        self.state
            .service
            .blocking(move |store| write(store, parsed))
            .await
            .map_err(store_error)
    }
}

/// The body of `POST /admin/v1/dlq`: a JSON array of 2.2 entries (`dlqId`, `messageId`,
/// `createdAt` and `header` optional), all valid or none taken.
pub fn parse_dlq_batch(body: &[u8], now: i64) -> Result<Vec<FailedWorkflowRun>, String> {
    let entries: Vec<Value> = parse_json(body)?;
    entries
        .into_iter()
        .enumerate()
        .map(|(i, value)| dlq_entry(i, value, now))
        .collect()
}

/// The body of `POST /admin/v1/runs`: a JSON array of active runs.
pub fn parse_run_batch(body: &[u8]) -> Result<Vec<ActiveRun>, String> {
    let inputs: Vec<RunInput> = parse_json(body)?;
    if let Some(index) = inputs
        .iter()
        .position(|run| run.workflow_run_id.trim().is_empty())
    {
        return Err(format!("entry {index}: `workflowRunId` must not be empty"));
    }
    Ok(inputs
        .into_iter()
        .map(|run| ActiveRun {
            workflow_run_id: run.workflow_run_id,
            workflow_url: run.workflow_url,
            workflow_created_at: run.workflow_created_at,
        })
        .collect())
}

/// The body of `PUT /admin/v1/topics/{name}`: `{"endpoints": [...]}`, at most `max_endpoints`.
pub fn parse_topic(body: &[u8], max_endpoints: usize) -> Result<Vec<UrlGroupEndpoint>, String> {
    let input: TopicInput = parse_json(body)?;
    if let Some(index) = input
        .endpoints
        .iter()
        .position(|endpoint| endpoint.url.trim().is_empty())
    {
        return Err(format!("endpoints[{index}]: `url` must not be empty"));
    }
    if input.endpoints.len() > max_endpoints {
        return Err(format!(
            "a URL group holds at most {max_endpoints} endpoints (`max_endpoints_per_topic`), got {}",
            input.endpoints.len()
        ));
    }
    Ok(input.endpoints)
}

/// The body of `PUT /admin/v1/search/{id}`: a 2.5 search index without `throughput_vector`,
/// its `id` optional and, when given, equal to the one in the path.
pub fn parse_search_index(id: &str, body: &[u8]) -> Result<SearchIndex, String> {
    let mut object: Map<String, Value> = parse_json(body)?;
    if uuid::Uuid::parse_str(id).is_err() {
        return Err(format!("the index id `{id}` in the path must be a UUID"));
    }
    match object.get("id") {
        None => {
            object.insert("id".into(), Value::String(id.to_owned()));
        }
        Some(Value::String(given)) if given.eq_ignore_ascii_case(id) => {}
        Some(other) => {
            return Err(format!(
                "`id` in the body ({other}) differs from the path ({id})"
            ));
        }
    }
    if object.contains_key("throughput_vector") {
        return Err("`throughput_vector` is computed by the service; leave it out".into());
    }
    object.insert("throughput_vector".into(), Value::Array(Vec::new()));
    serde_json::from_value(Value::Object(object))
        .map_err(|e| format!("the body is not a search index (section 2.5): {e}"))
}

/// The body of `PATCH /admin/v1/account`: plan limits applied to `account`.
pub fn parse_limits_patch(
    account: &MessagingAccount,
    body: &[u8],
) -> Result<MessagingAccount, String> {
    let patch: Map<String, Value> = parse_json(body)?;
    apply_limits(account, &patch)
}

/// Turns one admin entry (the 2.2 shape, `dlqId` and `messageId` optional) into a stored run.
fn dlq_entry(index: usize, value: Value, now: i64) -> Result<FailedWorkflowRun, String> {
    let Value::Object(mut object) = value else {
        return Err(format!("entry {index}: must be a JSON object"));
    };
    object
        .entry("dlqId")
        .or_insert_with(|| Value::String(String::new()));
    object
        .entry("messageId")
        .or_insert_with(|| Value::String(format!("msg_{}", crate::account::random_secret(12))));
    object
        .entry("createdAt")
        .or_insert_with(|| Value::from(now));
    object
        .entry("header")
        .or_insert_with(|| Value::Object(Map::new()));
    let run: FailedWorkflowRun =
        serde_json::from_value(Value::Object(object)).map_err(|e| format!("entry {index}: {e}"))?;
    let base64 = base64::engine::general_purpose::STANDARD;
    for (text, encoded, what) in [
        (&run.body, &run.body_base64, "body"),
        (
            &run.response_body,
            &run.response_body_base64,
            "responseBody",
        ),
    ] {
        if text.is_some() && encoded.is_some() {
            return Err(format!(
                "entry {index}: give `{what}` (UTF-8) or `{what}Base64`, not both"
            ));
        }
        if let Some(encoded) = encoded {
            let bytes = base64
                .decode(encoded)
                .map_err(|e| format!("entry {index}: `{what}Base64` is not base64: {e}"))?;
            if std::str::from_utf8(&bytes).is_ok() {
                return Err(format!(
                    "entry {index}: `{what}Base64` holds UTF-8 text; send it as `{what}`"
                ));
            }
        }
    }
    for (value, what) in [
        (&run.workflow_run_id, "workflowRunId"),
        (&run.url, "url"),
        (&run.method, "method"),
        (&run.workflow_url, "workflowUrl"),
    ] {
        if value.trim().is_empty() {
            return Err(format!("entry {index}: `{what}` must not be empty"));
        }
    }
    if run.max_retries < 0 {
        return Err(format!("entry {index}: `maxRetries` must not be negative"));
    }
    Ok(run)
}

async fn insert_dlq(request: Write) -> Response {
    // Monotonic: a clock stepping back must not make new entries the oldest.
    let now = crate::time::creation_ms();
    let max_dlq_size = u64::try_from(request.state.service.account().max_dlq_size).unwrap_or(0);
    let parse = |body: &[u8]| parse_dlq_batch(body, now);
    let insert = move |store: &dyn Store, runs: Vec<FailedWorkflowRun>| {
        let count = runs.len() as f64;
        store
            .insert_dlq(&runs, max_dlq_size)
            .map(|inserted| (inserted, count))
    };
    match request.parse_and_write(parse, insert).await {
        Ok((inserted, count)) => {
            // A run in the DLQ is a failed delivery and a failed run (the metrics of
            // `docs/decisions.md#d7-metric-identifiers`); a run seen for the first time also
            // started, so `run_failed` never exceeds `run_started` for inserted data.
            let usage = request.state.service.usage();
            usage.add(stats::FAILED, now, count);
            usage.add(stats::RUN_FAILED, now, count);
            usage.add(stats::RUN_STARTED, now, inserted.new_runs as f64);
            json(
                StatusCode::CREATED,
                &serde_json::json!({ "dlqIds": inserted.dlq_ids }),
            )
        }
        Err(response) => response,
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RunInput {
    workflow_run_id: String,
    workflow_url: String,
    workflow_created_at: i64,
}

async fn insert_runs(request: Write) -> Response {
    let insert = |store: &dyn Store, runs: Vec<ActiveRun>| {
        let ids: Vec<String> = runs.iter().map(|run| run.workflow_run_id.clone()).collect();
        store.insert_runs(&runs).map(|registered| (registered, ids))
    };
    match request.parse_and_write(parse_run_batch, insert).await {
        Ok((registered, ids)) => {
            // Each run counts once, when it is first registered.
            request
                .state
                .service
                .usage()
                .add(stats::RUN_STARTED, now_ms(), registered as f64);
            json(
                StatusCode::CREATED,
                &serde_json::json!({ "workflowRunIds": ids }),
            )
        }
        Err(response) => response,
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TopicInput {
    endpoints: Vec<UrlGroupEndpoint>,
}

async fn put_topic(Path(name): Path<String>, request: Write) -> Response {
    let account = request.state.service.account();
    let limit = usize::try_from(account.max_endpoints_per_topic).unwrap_or(0);
    let now = now_ms();
    let parse = |body: &[u8]| parse_topic(body, limit);
    let put = move |store: &dyn Store, endpoints: Vec<UrlGroupEndpoint>| {
        store.put_url_group(&name, &endpoints, now)
    };
    match request.parse_and_write(parse, put).await {
        Ok(group) => json(StatusCode::OK, &group),
        Err(response) => response,
    }
}

async fn put_index(Path(id): Path<String>, request: Write) -> Response {
    let parse = |body: &[u8]| parse_search_index(&id, body);
    let put = |store: &dyn Store, index: SearchIndex| store.put_index(&index).map(|()| index);
    match request.parse_and_write(parse, put).await {
        Ok(index) => json(StatusCode::OK, &index),
        Err(response) => response,
    }
}

/// One event of `POST /admin/v1/search/{id}/usage`, as sent
/// (`docs/decisions.md#d17-index-statistics`).
#[derive(Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
enum UsageEventInput {
    Query(ActivityInput),
    Update(ActivityInput),
    Rerank(ActivityInput),
    Embed(ActivityInput),
    Size(SizeInput),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ActivityInput {
    at: Option<i64>,
    count: Option<u64>,
    latency_ms: Option<f64>,
    bytes: Option<u64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SizeInput {
    at: Option<i64>,
    vector_count: u64,
    data_size: u64,
    pending: u64,
}

/// The body of `POST /admin/v1/search/{id}/usage`: a JSON array of usage events, all valid or
/// none taken. `at` defaults to `now`, `count` to 1 (at least 1), `latency_ms` must be a finite
/// number ≥ 0, `bytes` an integer ≥ 0; a size sample needs all three sizes.
pub fn parse_index_usage(body: &[u8], now: i64) -> Result<Vec<IndexUsage>, String> {
    let events: Vec<Value> = parse_json(body)?;
    events
        .into_iter()
        .enumerate()
        .map(|(index, value)| {
            let event: UsageEventInput = serde_json::from_value(value).map_err(|e| {
                format!(
                    "event {index}: {e} (kinds: query, update, rerank, embed with optional at, count, latency_ms, bytes; size with vector_count, data_size, pending)"
                )
            })?;
            let (activity, input) = match event {
                UsageEventInput::Size(size) => {
                    return Ok(IndexUsage::Size {
                        at: size.at.unwrap_or(now),
                        vector_count: size.vector_count,
                        data_size: size.data_size,
                        pending: size.pending,
                    });
                }
                UsageEventInput::Query(input) => (IndexActivity::Query, input),
                UsageEventInput::Update(input) => (IndexActivity::Update, input),
                UsageEventInput::Rerank(input) => (IndexActivity::Rerank, input),
                UsageEventInput::Embed(input) => (IndexActivity::Embed, input),
            };
            if input.count == Some(0) {
                return Err(format!("event {index}: `count` must be at least 1"));
            }
            if let Some(latency) = input.latency_ms.filter(|ms| !ms.is_finite() || *ms < 0.0) {
                return Err(format!(
                    "event {index}: `latency_ms` must be a number of milliseconds ≥ 0, got {latency}"
                ));
            }
            Ok(IndexUsage::Activity {
                activity,
                at: input.at.unwrap_or(now),
                count: input.count.unwrap_or(1),
                latency_ms: input.latency_ms,
                bytes: input.bytes.unwrap_or(0),
            })
        })
        .collect()
}

async fn record_index_usage(Path(id): Path<String>, request: Write) -> Response {
    let now = now_ms();
    let parse = |body: &[u8]| parse_index_usage(body, now);
    let index_id = id.clone();
    let record = move |store: &dyn Store, events: Vec<IndexUsage>| {
        let recorded = events.len();
        store
            .record_index_usage(&index_id, &events)
            .map(|known| known.then_some(recorded))
    };
    match request.parse_and_write(parse, record).await {
        Ok(Some(recorded)) => json(
            StatusCode::CREATED,
            &serde_json::json!({ "recorded": recorded }),
        ),
        Ok(None) => error(
            StatusCode::NOT_FOUND,
            format!("no search index with id `{id}`"),
        ),
        Err(response) => response,
    }
}

/// The fields of 2.9 the admin API may change: the plan limits.
pub const LIMIT_FIELDS: [&str; 18] = [
    "max_message_size",
    "max_requests_per_day",
    "max_requests_per_day_hard",
    "max_endpoints_per_topic",
    "max_requests_per_second",
    "max_dlq_size",
    "max_retries",
    "max_topics",
    "max_schedules",
    "max_events_size",
    "max_dlq_retention_time_milis",
    "max_delay",
    "max_parallelism",
    "max_global_parallelism",
    "max_queues",
    "timeout",
    "prod_pack_enabled",
    "reserved_price",
];

/// Applies a limits patch to an account; the error names the offending field.
pub fn apply_limits(
    account: &MessagingAccount,
    patch: &Map<String, Value>,
) -> Result<MessagingAccount, String> {
    let mut object = match serde_json::to_value(account) {
        Ok(Value::Object(object)) => object,
        _ => return Err("the account could not be read".to_owned()),
    };
    for (key, value) in patch {
        if !LIMIT_FIELDS.contains(&key.as_str()) {
            return Err(format!(
                "`{key}` is not a limit field; the admin API changes only: {}",
                LIMIT_FIELDS.join(", ")
            ));
        }
        let valid = match key.as_str() {
            "prod_pack_enabled" => value.is_boolean(),
            "reserved_price" => value.as_f64().is_some_and(|v| v >= 0.0),
            _ => value.as_i64().is_some_and(|v| v >= 0),
        };
        if !valid {
            return Err(format!(
                "`{key}` must be a non-negative {}, got {value}",
                if key == "prod_pack_enabled" {
                    "boolean"
                } else {
                    "number"
                }
            ));
        }
        object.insert(key.clone(), value.clone());
    }
    serde_json::from_value(Value::Object(object))
        .map_err(|e| format!("the patched account is not valid: {e}"))
}

async fn patch_account(request: Write) -> Response {
    let current = request.state.service.account();
    let parse = |body: &[u8]| parse_limits_patch(&current, body);
    let update = |store: &dyn Store, account: MessagingAccount| {
        store.update_account(&account).map(|()| account)
    };
    match request.parse_and_write(parse, update).await {
        Ok(account) => {
            request.state.service.set_account(account.clone());
            json(StatusCode::OK, &account)
        }
        Err(response) => response,
    }
}
