//! The admin API under `/admin/v1`: how tests and demos fill the service. Not part of the
//! interface.
//!
//! Enabled only with an admin token (`--admin-token`), bearer-authenticated. Bad input gets the
//! same `{"error": "..."}` 400s as the public interface, and every request is all-or-nothing:
//! a batch with one bad entry stores none of them.
//!
//! Here are the routes and what they share (the token check, the JSON body, the store call);
//! what makes a body valid is decided in `payloads`, apart from HTTP, so the hostile-input tests
//! and the fuzz target call the same validators on raw bytes.

mod payloads;

pub use payloads::{
    LIMIT_FIELDS, apply_limits, parse_dlq_batch, parse_index_usage, parse_limits_patch,
    parse_run_batch, parse_search_index, parse_topic,
};

use crate::api::Service;
use crate::body::{BodyRead, ReadBody};
use crate::signin::{CredentialKind, SignInGuard};
use crate::stats;
use crate::store::{ActiveRun, IndexUsage, Store, StoreError};
use crate::time::now_ms;
use axum::Router;
use axum::body::Bytes;
use axum::extract::{FromRequest, Path, Request, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{patch, post, put};
use courier_models::{FailedWorkflowRun, MessagingAccount, SearchIndex, UrlGroupEndpoint};
use courier_server::auth::constant_time_eq;
use courier_server::runtime::{error, json, method_not_allowed};
use std::sync::Arc;

struct AdminState {
    service: Arc<Service>,
    token: String,
    guard: Arc<SignInGuard>,
    body: BodyRead,
}

/// The admin routes, guarded by `token`; wrong tokens count as failed sign-ins in `guard`. A
/// request's body is read by `body`'s rule, and only once the token is right.
pub fn router(
    service: Arc<Service>,
    token: String,
    guard: Arc<SignInGuard>,
    body: BodyRead,
) -> Router {
    let state = Arc::new(AdminState {
        service,
        token,
        guard,
        body,
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
        if let Some(closed) = state.guard.wait(client) {
            return crate::signin::too_many_failures(closed);
        }
        if constant_time_eq(token, &state.token) {
            // The limits a write obeys (the DLQ's size) as the store has them now, when other
            // processes share it.
            state.service.refresh_account().await;
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
        StoreError::Unavailable(message) => error(StatusCode::SERVICE_UNAVAILABLE, message),
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

/// Runs one of the `parse_*` functions of `payloads` on a request: 415 unless JSON, 400 with its
/// message.
fn parse_request<T>(
    headers: &HeaderMap,
    body: &Bytes,
    parse: impl FnOnce(&[u8]) -> Result<T, String>,
) -> Result<T, Refused> {
    require_json(headers)?;
    parse(body).map_err(|message| Refused(StatusCode::BAD_REQUEST, message))
}

/// What every writing handler takes: the state, and the request's headers and body (holding
/// its share of the bodies' budget until the handler is done).
struct Write {
    state: Arc<AdminState>,
    headers: HeaderMap,
    body: ReadBody,
}

impl FromRequest<Arc<AdminState>> for Write {
    type Rejection = Response;

    /// Runs after `require_admin` (a route layer), so only a request with the admin token has
    /// its body read: within the deadline, the limit and the budget (408, 413, 503 otherwise).
    async fn from_request(request: Request, state: &Arc<AdminState>) -> Result<Self, Response> {
        let (parts, body) = request.into_parts();
        let body = crate::body::read_body(&state.body, &parts.headers, body).await?;
        Ok(Write {
            state: state.clone(),
            headers: parts.headers,
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
        let parsed = parse_request(&self.headers, &self.body.bytes, parse)
            .map_err(IntoResponse::into_response)?;
        self.state
            .service
            .blocking(move |store| write(store, parsed))
            .await
            .map_err(store_error)
    }
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
