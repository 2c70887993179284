//! An in-memory fake of the courier interface (both traits of `courier-server`), the kind a
//! user writes for their own tests, with a seeding hook so `courier-verify` can seed the data
//! its scenarios check. [`Defect`] breaks it the ways implementers break such a service, one
//! at a time, to show that the verifier catches each and where.

use courier_models::{DlqFilter, ErrorBody, SearchIndex, UrlGroup};
use courier_server::runtime::error_body;
use courier_server::{finish, management_router, messaging_router};
use wire::{decode_cursor, drop_query, empty_compat_list, encode_cursor, parameters_first, rename};

mod defect;
mod management;
mod messaging;
mod seed;
mod wire;

pub use defect::Defect;
pub use seed::FakeSeed;
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex};
use time::OffsetDateTime;

/// The fake: entries by `dlqId`, with what an entry needs to be listed and cancelled.
pub struct Fake {
    pub customer_id: String,
    pub management_key: String,
    defect: Option<Defect>,
    /// URL groups and search indexes answer 501: the fake offers them not.
    partial: bool,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    service_token: String,
    /// Tokens rotation replaced (kept only under [`Defect::RotationKeepsOldToken`]).
    old_tokens: Vec<String>,
    entries: BTreeMap<String, Value>,
    /// Entries deleted but still listed, under [`Defect::DeletedStillListed`].
    ghosts: BTreeMap<String, Value>,
    runs: BTreeSet<String>,
    groups: BTreeMap<String, UrlGroup>,
    indexes: BTreeMap<String, SearchIndex>,
    /// The ids the first list saw, under [`Defect::ListFrozenAtFirstCall`].
    frozen: Option<BTreeSet<String>>,
    next: u64,
    /// `max_dlq_size` and `max_dlq_retention_time_milis` of the account.
    max_dlq_size: i64,
    retention_ms: i64,
}

impl Fake {
    /// A fake that keeps the contract.
    pub fn new() -> Arc<Fake> {
        Fake::build(None)
    }

    /// A fake with one defect.
    pub fn with_defect(defect: Defect) -> Arc<Fake> {
        Fake::build(Some(defect))
    }

    /// A fake that keeps the contract but does not offer URL groups and search indexes: those
    /// operations answer 501, which the spec documents for every operation.
    pub fn partial() -> Arc<Fake> {
        let mut fake = Fake::unshared(None);
        fake.partial = true;
        Arc::new(fake)
    }

    fn build(defect: Option<Defect>) -> Arc<Fake> {
        Arc::new(Fake::unshared(defect))
    }

    fn unshared(defect: Option<Defect>) -> Fake {
        Fake {
            partial: false,
            customer_id: "fake@example.com".into(),
            management_key: "fake-key".into(),
            defect,
            state: Mutex::new(State {
                service_token: "fake-token".into(),
                max_dlq_size: 100_000,
                retention_ms: 7 * 86_400_000,
                ..State::default()
            }),
        }
    }

    fn has(&self, defect: Defect) -> bool {
        self.defect == Some(defect)
    }

    /// The service token in use (rotation changes it).
    pub fn service_token(&self) -> String {
        self.state().service_token.clone()
    }

    /// Both interfaces on one router, as `courier serve` has them.
    pub fn router(self: &Arc<Fake>) -> axum::Router {
        let router = finish(messaging_router(self.clone()).merge(management_router(self.clone())));
        // Defects on the wire: the generated server holds typed bodies to their schema, and
        // checks credentials and parameters in the documented order.
        match self.defect {
            Some(Defect::RenameWorkflowRunId) => {
                router.layer(axum::middleware::map_response(|r| {
                    rename(r, "\"workflowRunId\":", "\"runId\":")
                }))
            }
            Some(Defect::ErrorBodyMessage) => router.layer(axum::middleware::map_response(|r| {
                rename(r, "{\"error\":", "{\"message\":")
            })),
            Some(Defect::RefuseQueryToken) => router.layer(axum::middleware::map_request(|r| {
                drop_query(r, "service_token=")
            })),
            Some(Defect::CompatListEmpty) => {
                router.layer(axum::middleware::from_fn(empty_compat_list))
            }
            Some(Defect::IgnoreCallerIpAlias) => router.layer(axum::middleware::map_request(|r| {
                drop_query(r, "callerIP=")
            })),
            Some(Defect::ParametersBeforeCredentials) => {
                router.layer(axum::middleware::from_fn(parameters_first))
            }
            _ => router,
        }
    }

    /// The state, entries older than the retention gone (on every path, as the interface
    /// has it).
    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        let mut state = self
            .state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if !self.has(Defect::RetentionIgnored) {
            let floor = OffsetDateTime::now_utc().unix_timestamp() * 1000 - state.retention_ms;
            state
                .entries
                .retain(|_, entry| entry["createdAt"].as_i64().is_none_or(|at| at >= floor));
        }
        state
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
        if !self.has(Defect::LabelIgnoresDeprecatedField) {
            labels.extend(entry["label"].as_str().map(str::to_owned));
        }
        let states: Vec<String> = filter
            .failure_function_state
            .iter()
            .map(|s| json!(s).as_str().unwrap_or_default().to_owned())
            .collect();
        let mut wanted_labels = filter.label.clone();
        if self.has(Defect::LabelFirstValueOnly) {
            wanted_labels.truncate(1);
        }
        let checks = [
            filter.from_date.is_none_or(|from| {
                if self.has(Defect::FromDateExclusive) {
                    created > from
                } else {
                    created >= from
                }
            }),
            self.has(Defect::IgnoreToDate) || filter.to_date.is_none_or(|to| created <= to),
            self.has(Defect::IgnoreWorkflowUrlFilter)
                || any(&filter.workflow_url, &[text("workflowUrl")]),
            self.has(Defect::IgnoreWorkflowRunIdFilter)
                || filter
                    .workflow_run_id
                    .as_ref()
                    .is_none_or(|id| *id == text("workflowRunId")),
            self.has(Defect::IgnoreWorkflowCreatedAtFilter)
                || filter
                    .workflow_created_at
                    .is_none_or(|at| entry["workflowCreatedAt"].as_i64() == Some(at)),
            self.has(Defect::IgnoreLabelFilter) || any(&wanted_labels, &labels),
            self.has(Defect::IgnoreStateFilter)
                || any(
                    &states,
                    &[entry["failureCallbackInfo"]["state"]
                        .as_str()
                        .unwrap_or_default()
                        .to_owned()],
                ),
            self.has(Defect::IgnoreCallerIpFilter) || any(&filter.caller_ip, &[text("callerIP")]),
            self.has(Defect::IgnoreFlowControlKeyFilter)
                || any(&filter.flow_control_key, &[text("flowControlKey")]),
        ];
        if self.has(Defect::FiltersOred) && !filter.is_empty() {
            // Each set filter alone is checked; any one matching is enough.
            let one = |f: DlqFilter| Fake::build(None).matches(entry, &f);
            let mut singles = Vec::new();
            singles.extend(
                filter
                    .label
                    .iter()
                    .map(|l| DlqFilter::new().label(l.clone())),
            );
            singles.extend(
                filter
                    .flow_control_key
                    .iter()
                    .map(|k| DlqFilter::new().flow_control_key(k.clone())),
            );
            singles.extend(
                filter
                    .workflow_url
                    .iter()
                    .map(|u| DlqFilter::new().workflow_url(u.clone())),
            );
            singles.extend(
                filter
                    .caller_ip
                    .iter()
                    .map(|c| DlqFilter::new().caller_ip(c.clone())),
            );
            if !singles.is_empty() {
                return singles.into_iter().any(one);
            }
        }
        checks.into_iter().all(|check| check)
    }

    /// The matching ids after `cursor`, at most `count`, and whether more match.
    fn page(&self, filter: &DlqFilter, cursor: Option<&str>, count: i64) -> (Vec<String>, bool) {
        let after = cursor.and_then(decode_cursor);
        let mut state = self.state();
        if self.has(Defect::AlwaysEmptyList) {
            return (Vec::new(), false);
        }
        if self.has(Defect::ListFrozenAtFirstCall) && state.frozen.is_none() {
            state.frozen = Some(state.entries.keys().cloned().collect());
        }
        let mut all: Vec<(&String, &Value)> = state
            .entries
            .iter()
            .chain(state.ghosts.iter())
            .filter(|(id, _)| state.frozen.as_ref().is_none_or(|f| f.contains(*id)))
            .filter(|(_, entry)| self.matches(entry, filter))
            .collect();
        all.sort_by(|(a, _), (b, _)| self.order(a, b));
        let start = match &after {
            Some(after) => all
                .iter()
                .position(|(id, _)| self.order(id, after) == std::cmp::Ordering::Greater)
                .unwrap_or(all.len()),
            None => 0,
        };
        let mut take = usize::try_from(count).unwrap_or(0);
        if self.has(Defect::IgnoreCount) {
            take = 100;
        }
        if self.has(Defect::ShortPages) && take > 1 {
            take -= 1;
        }
        let rest = &all[start..];
        let page: Vec<String> = rest
            .iter()
            .take(take)
            .map(|(id, _)| (*id).clone())
            .collect();
        let more = rest.len() > page.len()
            || (self.has(Defect::CursorOnFullLastPage)
                && !page.is_empty()
                && rest.len() == page.len()
                && after.is_none());
        (page, more)
    }

    /// The order of ids in a list.
    fn order(&self, a: &str, b: &str) -> std::cmp::Ordering {
        if self.has(Defect::DescendingOrder) {
            b.cmp(a)
        } else if self.has(Defect::NumericOrder) {
            (a.len(), a).cmp(&(b.len(), b))
        } else {
            a.cmp(b)
        }
    }

    /// An entry as listed (`WorkflowDLQMessage`): the stored run with its failure function's state.
    fn listed(entry: &Value) -> Value {
        let mut listed = entry.clone();
        if let Some(state) = entry["failureCallbackInfo"].get("state") {
            listed["failureFunctionState"] = state.clone();
        }
        listed
    }

    fn list(&self, filter: &DlqFilter, cursor: Option<&str>, count: i64) -> Value {
        let (ids, more) = self.page(filter, cursor, count);
        let state = self.state();
        let messages: Vec<Value> = ids
            .iter()
            .filter_map(|id| state.entries.get(id).or(state.ghosts.get(id)))
            .map(Fake::listed)
            .collect();
        let mut body = json!({ "messages": messages });
        let cursor_at = match self.has(Defect::CursorRepeatsLast) {
            true if ids.len() > 1 => ids.get(ids.len() - 2),
            _ => ids.last(),
        };
        if more && let Some(last) = cursor_at {
            body["cursor"] = json!(encode_cursor(last));
        }
        body
    }

    fn remove(&self, state: &mut State, id: &str) -> bool {
        match state.entries.remove(id) {
            Some(entry) => {
                if self.has(Defect::DeletedStillListed) {
                    state.ghosts.insert(id.to_owned(), entry);
                }
                true
            }
            None => false,
        }
    }
}

pub(crate) fn not_found(what: &str) -> ErrorBody {
    error_body(format!("{what} not found"))
}

pub(crate) fn bad_cursor() -> ErrorBody {
    error_body("`cursor` is not a cursor this service gave")
}
