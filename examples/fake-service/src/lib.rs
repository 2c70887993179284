//! An in-memory fake of the courier interface (both traits of `courier-server`), the kind a
//! user writes for their own tests, with a seeding hook so `courier-verify` can run its
//! writing scenarios against it. [`Drift`] makes it deliberately wrong, to show what the
//! verifier reports.

use courier_models::{DlqFilter, ErrorBody, StatsPeriod};
use courier_server::runtime::{JsonBody, error_body};
use courier_server::{
    CancelWorkflowRunRequest, CancelWorkflowRunResponse, CancelWorkflowRunsRequest,
    CancelWorkflowRunsResponse, DeleteDlqMessageRequest, DeleteDlqMessageResponse,
    DeleteWorkflowDlqBulkRequest, DeleteWorkflowDlqBulkResponse, GetAccountStatsRequest,
    GetAccountStatsResponse, GetSearchIndexRequest, GetSearchIndexResponse,
    GetSearchIndexStatsRequest, GetSearchIndexStatsResponse, GetUrlGroupRequest,
    GetUrlGroupResponse, GetWorkflowDlqRequest, GetWorkflowDlqResponse, ListWorkflowDlqRequest,
    ListWorkflowDlqResponse, ManagementApi, ManagementCredentials, MessagingApi,
    MessagingCredentials, RotateTokenRequest, RotateTokenResponse, Unauthorized, finish,
    management_router, messaging_router,
};
use courier_verify::{Seed, SeedFuture};
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex};
use time::OffsetDateTime;

/// Ways the fake can be made to break the contract.
#[derive(Debug, Clone, Copy, Default)]
pub struct Drift {
    /// The list ignores the `label` filter.
    pub ignore_label_filter: bool,
    /// Listed entries call `workflowRunId` `runId`.
    pub rename_workflow_run_id: bool,
    /// A cursor points one entry back, so the next page repeats the last entry of this one.
    pub repeat_across_pages: bool,
    /// Deleting one entry answers 204 instead of the documented 200.
    pub delete_answers_204: bool,
    /// Error bodies say `message` instead of `error`.
    pub error_body_message: bool,
}

/// The fake: entries by `dlqId` (zero-padded numbers, so string and numeric order agree).
pub struct Fake {
    pub service_token: String,
    pub customer_id: String,
    pub management_key: String,
    drift: Drift,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    entries: BTreeMap<String, Value>,
    runs: BTreeSet<String>,
    next: u64,
}

impl Fake {
    pub fn new(drift: Drift) -> Arc<Fake> {
        Arc::new(Fake {
            service_token: "fake-token".into(),
            customer_id: "fake@example.com".into(),
            management_key: "fake-key".into(),
            drift,
            state: Mutex::new(State::default()),
        })
    }

    /// Both interfaces on one router, as `courier serve` has them.
    pub fn router(self: &Arc<Fake>) -> axum::Router {
        let router = finish(messaging_router(self.clone()).merge(management_router(self.clone())));
        // Drifts on the wire: the generated server holds typed bodies to their schema.
        let router = match self.drift.rename_workflow_run_id {
            true => router.layer(axum::middleware::map_response(|r| {
                rename(r, "\"workflowRunId\":", "\"runId\":")
            })),
            false => router,
        };
        let router = match self.drift.error_body_message {
            true => router.layer(axum::middleware::map_response(|r| {
                rename(r, "{\"error\":", "{\"message\":")
            })),
            false => router,
        };
        match self.drift.delete_answers_204 {
            true => router.layer(axum::middleware::map_response(no_content_for_deletes)),
            false => router,
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn matches(&self, entry: &Value, filter: &DlqFilter) -> bool {
        let text = |key: &str| entry[key].as_str().unwrap_or_default().to_owned();
        let any = |wanted: &[String], have: &[String]| {
            wanted.is_empty() || wanted.iter().any(|w| have.contains(w))
        };
        let created = entry["createdAt"].as_i64().unwrap_or_default();
        let mut labels: Vec<String> = entry["labels"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|l| l.as_str().map(str::to_owned))
            .collect();
        labels.extend(entry["label"].as_str().map(str::to_owned));
        let states: Vec<String> = filter
            .failure_function_state
            .iter()
            .map(|s| json!(s).as_str().unwrap_or_default().to_owned())
            .collect();
        filter.from_date.is_none_or(|from| created >= from)
            && filter.to_date.is_none_or(|to| created <= to)
            && any(&filter.workflow_url, &[text("workflowUrl")])
            && filter
                .workflow_run_id
                .as_ref()
                .is_none_or(|id| *id == text("workflowRunId"))
            && filter
                .workflow_created_at
                .is_none_or(|at| entry["workflowCreatedAt"].as_i64() == Some(at))
            && (self.drift.ignore_label_filter || any(&filter.label, &labels))
            && any(
                &states,
                &[entry["failureCallbackInfo"]["state"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned()],
            )
            && any(&filter.caller_ip, &[text("callerIP")])
            && any(&filter.flow_control_key, &[text("flowControlKey")])
    }

    /// The matching ids after `cursor`, at most `count`, and whether more match.
    fn page(&self, filter: &DlqFilter, cursor: Option<&str>, count: i64) -> (Vec<String>, bool) {
        let after = cursor.and_then(decode_cursor).unwrap_or_default();
        let state = self.state();
        let mut ids = state
            .entries
            .iter()
            .filter(|(id, entry)| **id > after && self.matches(entry, filter))
            .map(|(id, _)| id.clone());
        let page: Vec<String> = ids
            .by_ref()
            .take(usize::try_from(count).unwrap_or(0))
            .collect();
        (page, ids.next().is_some())
    }

    /// An entry as listed (section 2.1): the stored run with its failure function's state.
    fn listed(&self, entry: &Value) -> Value {
        let mut listed = entry.clone();
        if let Some(state) = entry["failureCallbackInfo"].get("state") {
            listed["failureFunctionState"] = state.clone();
        }
        listed
    }
}

/// An empty 200 becomes a 204 (as a delete one answers it under that drift).
async fn no_content_for_deletes(
    mut response: axum::response::Response,
) -> axum::response::Response {
    let empty = response
        .headers()
        .get(axum::http::header::CONTENT_TYPE)
        .is_none();
    if response.status() == axum::http::StatusCode::OK && empty {
        *response.status_mut() = axum::http::StatusCode::NO_CONTENT;
    }
    response
}

/// Replaces `from` by `to` in the text of every answer.
async fn rename(
    response: axum::response::Response,
    from: &'static str,
    to: &'static str,
) -> axum::response::Response {
    let (parts, body) = response.into_parts();
    let bytes = axum::body::to_bytes(body, usize::MAX)
        .await
        .unwrap_or_default();
    let renamed = String::from_utf8_lossy(&bytes).replace(from, to);
    let mut response = axum::response::Response::from_parts(parts, axum::body::Body::from(renamed));
    response
        .headers_mut()
        .remove(axum::http::header::CONTENT_LENGTH);
    response
}

fn encode_cursor(id: &str) -> String {
    let hex: String = id.bytes().map(|b| format!("{b:02x}")).collect();
    format!("d1.{hex}")
}

fn decode_cursor(cursor: &str) -> Option<String> {
    let hex = cursor.strip_prefix("d1.")?;
    let bytes: Option<Vec<u8>> = (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok())
        .collect();
    String::from_utf8(bytes?).ok()
}

fn not_found(what: &str) -> ErrorBody {
    error_body(format!("{what} not found"))
}

impl MessagingApi for Fake {
    type Principal = ();

    async fn authenticate(&self, credentials: MessagingCredentials) -> Result<(), Unauthorized> {
        credentials.expect_token(&self.service_token, "unknown service token")
    }

    async fn list_workflow_dlq(
        &self,
        _: (),
        request: ListWorkflowDlqRequest,
    ) -> ListWorkflowDlqResponse {
        let (ids, more) = self.page(&request.filter, request.cursor.as_deref(), request.count);
        let state = self.state();
        let messages: Vec<Value> = ids
            .iter()
            .map(|id| self.listed(&state.entries[id]))
            .collect();
        let mut body = json!({ "messages": messages });
        let cursor_at = match self.drift.repeat_across_pages {
            true if ids.len() > 1 => ids.get(ids.len() - 2),
            _ => ids.last(),
        };
        if more && let Some(last) = cursor_at {
            body["cursor"] = json!(encode_cursor(last));
        }
        ListWorkflowDlqResponse::Ok(JsonBody::preserialized(body.to_string()))
    }

    async fn get_workflow_dlq(
        &self,
        _: (),
        request: GetWorkflowDlqRequest,
    ) -> GetWorkflowDlqResponse {
        match self.state().entries.get(&request.dlq_id) {
            Some(entry) => GetWorkflowDlqResponse::Ok(JsonBody::preserialized(entry.to_string())),
            None => GetWorkflowDlqResponse::NotFound(not_found("DLQ entry")),
        }
    }

    async fn delete_dlq_message(
        &self,
        _: (),
        request: DeleteDlqMessageRequest,
    ) -> DeleteDlqMessageResponse {
        match self.state().entries.remove(&request.dlq_id) {
            Some(_) => DeleteDlqMessageResponse::Ok,
            None => DeleteDlqMessageResponse::NotFound(not_found("DLQ entry")),
        }
    }

    async fn delete_workflow_dlq_bulk(
        &self,
        _: (),
        request: DeleteWorkflowDlqBulkRequest,
    ) -> DeleteWorkflowDlqBulkResponse {
        let (ids, cursor) = if request.dlq_ids.is_empty() {
            let (ids, more) = self.page(&request.filter, request.cursor.as_deref(), request.count);
            let cursor = ids.last().filter(|_| more).map(|last| encode_cursor(last));
            (ids, cursor)
        } else {
            (request.dlq_ids, None)
        };
        let mut state = self.state();
        let deleted = ids
            .iter()
            .filter(|id| state.entries.remove(*id).is_some())
            .count();
        DeleteWorkflowDlqBulkResponse::Ok(courier_models::BulkDeleteResult {
            deleted: deleted as i64,
            cursor,
        })
    }

    async fn cancel_workflow_run(
        &self,
        _: (),
        request: CancelWorkflowRunRequest,
    ) -> CancelWorkflowRunResponse {
        let mut state = self.state();
        if !state.runs.remove(&request.workflow_run_id) {
            return CancelWorkflowRunResponse::NotFound(not_found("workflow run"));
        }
        state
            .entries
            .retain(|_, entry| entry["workflowRunId"] != json!(request.workflow_run_id));
        CancelWorkflowRunResponse::Ok
    }

    async fn cancel_workflow_runs(
        &self,
        _: (),
        request: CancelWorkflowRunsRequest,
    ) -> CancelWorkflowRunsResponse {
        let mut state = self.state();
        let cancelled = request
            .workflow_run_ids
            .iter()
            .filter(|id| state.runs.remove(*id))
            .count();
        let runs: BTreeSet<&String> = request.workflow_run_ids.iter().collect();
        state
            .entries
            .retain(|_, entry| !runs.iter().any(|run| entry["workflowRunId"] == json!(run)));
        CancelWorkflowRunsResponse::Ok(courier_models::BulkCancelResult {
            cancelled: cancelled as i64,
            cursor: None,
        })
    }

    async fn get_url_group(&self, _: (), _: GetUrlGroupRequest) -> GetUrlGroupResponse {
        GetUrlGroupResponse::NotFound(not_found("URL group"))
    }
}

/// `YYYY-MM-DD HH:MM:SS.000 +0000 UTC` of a Unix time in seconds.
fn point_x(seconds: i64) -> String {
    let at = OffsetDateTime::from_unix_timestamp(seconds).unwrap_or(OffsetDateTime::UNIX_EPOCH);
    format!(
        "{:04}-{:02}-{:02} {:02}:{:02}:{:02}.000 +0000 UTC",
        at.year(),
        u8::from(at.month()),
        at.day(),
        at.hour(),
        at.minute(),
        at.second()
    )
}

/// `count` zero points, `interval` seconds apart, starting at `start`.
fn points(start: i64, interval: i64, count: i64) -> Vec<Value> {
    (0..count)
        .map(|i| json!({"x": point_x(start + i * interval), "y": 0}))
        .collect()
}

impl ManagementApi for Fake {
    type Principal = ();

    async fn authenticate(&self, credentials: ManagementCredentials) -> Result<(), Unauthorized> {
        if credentials.username == self.customer_id && credentials.password == self.management_key {
            Ok(())
        } else {
            Err(Unauthorized::basic("unknown management credentials"))
        }
    }

    async fn get_account_stats(
        &self,
        _: (),
        request: GetAccountStatsRequest,
    ) -> GetAccountStatsResponse {
        let period: StatsPeriod = request.period;
        let (count, interval) = (period.data_points(), period.interval_seconds());
        let now = OffsetDateTime::now_utc();
        let last = now.unix_timestamp() - now.unix_timestamp().rem_euclid(interval);
        let series = points(last - (count - 1) * interval, interval, count);
        let first_day = now
            .replace_day(1)
            .unwrap_or(now)
            .replace_time(time::Time::MIDNIGHT);
        let days = i64::from(time::util::days_in_month(now.month(), now.year()));
        let daily = points(first_day.unix_timestamp(), 86_400, days);
        let named = |ids: &[&str]| -> Vec<Value> {
            ids.iter()
                .map(|id| json!({"id": id, "data_points": series}))
                .collect()
        };
        let stats = json!({
            "days": (1..=days).map(|day| format!("day {day}")).collect::<Vec<_>>(),
            "daily_requests": daily.iter().map(|p| json!({"x": p["x"], "y": 0, "workflow_message": 0, "workflow_run": 0})).collect::<Vec<_>>(),
            "daily_billings": daily, "daily_bandwidths": daily,
            "daily_used": series, "daily_used_workflow": series, "daily_bandwidth_used": series,
            "daily_svc_messages": named(&["delivered", "failed", "retried", "canceled"]),
            "daily_workflow_messages": named(&["run_started", "run_succeeded", "run_failed", "run_canceled"]),
            "dlq_message_count": self.state().entries.len(),
            "total_monthly_billing": 0
        });
        match serde_json::from_value(stats) {
            Ok(stats) => GetAccountStatsResponse::Ok(stats),
            Err(e) => GetAccountStatsResponse::InternalServerError(error_body(e.to_string())),
        }
    }

    async fn get_search_index(&self, _: (), _: GetSearchIndexRequest) -> GetSearchIndexResponse {
        GetSearchIndexResponse::NotFound(not_found("search index"))
    }

    async fn get_search_index_stats(
        &self,
        _: (),
        _: GetSearchIndexStatsRequest,
    ) -> GetSearchIndexStatsResponse {
        GetSearchIndexStatsResponse::NotFound(not_found("search index"))
    }

    async fn rotate_token(&self, _: (), _: RotateTokenRequest) -> RotateTokenResponse {
        RotateTokenResponse::InternalServerError(error_body("the fake does not rotate its token"))
    }
}

/// The seeding hook `courier-verify` calls for its writing scenarios.
pub struct FakeSeed(pub Arc<Fake>);

impl Seed for FakeSeed {
    fn insert_dlq(&self, entries: Vec<Value>) -> SeedFuture<'_, Vec<String>> {
        let mut state = self.0.state();
        let now = OffsetDateTime::now_utc().unix_timestamp() * 1000;
        let ids = entries
            .into_iter()
            .map(|mut entry| {
                state.next += 1;
                let id = format!("{:012}", state.next);
                entry["dlqId"] = json!(id);
                entry["messageId"] = json!(format!("msg_{id}"));
                entry["createdAt"] = json!(now + state.next as i64);
                if entry.get("header").is_none() {
                    entry["header"] = json!({});
                }
                if let Some(run) = entry["workflowRunId"].as_str() {
                    state.runs.insert(run.to_owned());
                }
                state.entries.insert(id.clone(), entry);
                id
            })
            .collect();
        Box::pin(async move { Ok(ids) })
    }
}
