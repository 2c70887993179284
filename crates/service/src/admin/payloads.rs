//! The validators of admin payloads: each turns a request body into what the store takes, or
//! into the message of a 400 saying what is wrong with it. Every batch is all or nothing: one bad
//! entry refuses the whole body. They know nothing of HTTP, so tests and the fuzz target call them
//! on raw bytes.

use crate::store::{ActiveRun, IndexActivity, IndexUsage};
use base64::Engine as _;
use courier_models::{FailedWorkflowRun, MessagingAccount, SearchIndex, UrlGroupEndpoint};
use serde::Deserialize;
use serde_json::{Map, Value};

/// Parses a JSON body, saying where parsing failed.
fn parse_json<T: serde::de::DeserializeOwned>(body: &[u8]) -> Result<T, String> {
    serde_json::from_slice(body).map_err(|e| format!("the body is not valid: {e}"))
}

/// The body of `POST /admin/v1/dlq`: a JSON array of `FailedWorkflowRun`s (`dlqId`, `messageId`,
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
        .map_err(|e| format!("the body is not a search index (the `SearchIndex` schema without `throughput_vector`): {e}"))
}

/// The body of `PATCH /admin/v1/account`: plan limits applied to `account`.
pub fn parse_limits_patch(
    account: &MessagingAccount,
    body: &[u8],
) -> Result<MessagingAccount, String> {
    let patch: Map<String, Value> = parse_json(body)?;
    apply_limits(account, &patch)
}

/// Turns one admin entry (a `FailedWorkflowRun`, `dlqId` and `messageId` optional) into a stored run.
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

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RunInput {
    workflow_run_id: String,
    workflow_url: String,
    workflow_created_at: i64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TopicInput {
    endpoints: Vec<UrlGroupEndpoint>,
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
