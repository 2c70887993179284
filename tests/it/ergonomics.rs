//! A newcomer's annoyances with the crates, each shown gone against the real service: filters that
//! take one value or many and a `DlqFilter` handed to the request, clear messages for invalid
//! `count` and `period`, a DLQ stream that owns its client and needs no pinning, and header
//! types that do not clash with `http`'s.

use crate::common;

use common::{fails, ok};
use courier_client::models::{FailureFunctionState, StatsPeriod, WorkflowDlqMessage};
use courier_client::{CourierError, DlqFilter, Paging, management, messaging};
use courier_service::testing::TestService;
use futures::StreamExt;
use futures::stream::BoxStream;
use serde_json::json;

fn failed_run(i: usize, label: &str) -> serde_json::Value {
    json!({
        "messageId": format!("msg_{i}"), "url": "https://x.example/wf", "method": "POST",
        "header": {}, "maxRetries": 3, "workflowRunId": format!("wfr_{i}"),
        "workflowUrl": "https://x.example/wf", "workflowCreatedAt": 1_700_000_000_000i64,
        "label": label,
    })
}

async fn seeded() -> (TestService, messaging::Client) {
    let service = TestService::start().await;
    service
        .insert_dlq(&[
            failed_run(1, "billing"),
            failed_run(2, "billing"),
            failed_run(3, "beta"),
            failed_run(4, "gamma"),
        ])
        .await;
    let client = messaging::Client::with_token(&service.base_url(), &service.service_token);
    (service, client)
}

#[tokio::test]
async fn a_dlq_filter_goes_straight_into_the_request_with_one_or_many_values() {
    let (_service, client) = seeded().await;
    let one = ok(
        "list",
        client
            .list_workflow_dlq()
            .filter(&DlqFilter::new().label("billing"))
            .send(),
    )
    .await;
    assert_eq!(one.messages.len(), 2);
    let many = ok(
        "list",
        client
            .list_workflow_dlq()
            .filter(&DlqFilter::new().labels(["billing", "beta"]))
            .count(10u64)
            .send(),
    )
    .await;
    assert_eq!(many.messages.len(), 3);
    let labels = vec![String::from("gamma")];
    let from_vec = ok(
        "list",
        client
            .list_workflow_dlq()
            .filter(&DlqFilter::new().labels(&labels))
            .send(),
    )
    .await;
    assert_eq!(from_vec.messages.len(), 1);
    // Enum values, one or many; none of the seeded runs has a failure function.
    let none = client
        .list_workflow_dlq()
        .filter(&DlqFilter::new().failure_function_states([
            FailureFunctionState::CallbackFail,
            FailureFunctionState::CallbackSuccess,
        ]))
        .send()
        .await
        .expect("list")
        .into_inner();
    assert!(none.messages.is_empty());
}

/// One rule for every multi-value setter, the builders' and `DlqFilter`'s alike: one value, or
/// any collection of things that become values (`Vec<&str>`, arrays, slices, `&Vec<String>`).
#[tokio::test]
async fn the_builder_setters_take_one_value_or_many() {
    let (_service, client) = seeded().await;
    let one = ok("list", client.list_workflow_dlq().label("billing").send()).await;
    assert_eq!(one.messages.len(), 2);
    let array = ok(
        "list",
        client.list_workflow_dlq().label(["billing", "beta"]).send(),
    )
    .await;
    assert_eq!(array.messages.len(), 3);
    let vec_of_str = ok(
        "list",
        client
            .list_workflow_dlq()
            .label(vec!["billing", "beta"])
            .send(),
    )
    .await;
    assert_eq!(vec_of_str.messages.len(), 3);
    let filter_of_vec = ok(
        "list",
        client
            .list_workflow_dlq()
            .filter(&DlqFilter::new().label(vec!["billing", "beta"]))
            .send(),
    )
    .await;
    assert_eq!(filter_of_vec.messages.len(), 3);
    let filter_of_array = ok(
        "list",
        client
            .list_workflow_dlq()
            .filter(&DlqFilter::new().label(["billing", "gamma"]))
            .send(),
    )
    .await;
    assert_eq!(filter_of_array.messages.len(), 3);
    let labels = vec![String::from("gamma")];
    let borrowed = ok("list", client.list_workflow_dlq().label(&labels).send()).await;
    assert_eq!(borrowed.messages.len(), 1);
    let state = ok(
        "bulk delete",
        client
            .delete_workflow_dlq_bulk()
            .failure_function_state(FailureFunctionState::CallbackFail)
            .label("billing")
            .send(),
    )
    .await;
    assert_eq!(state.deleted, 0, "no seeded run has a failure function");
}

#[tokio::test]
async fn invalid_count_and_period_fail_with_messages_that_say_what_is_allowed() {
    let (service, client) = seeded().await;
    let list_of = |count: u64| {
        client
            .list_workflow_dlq()
            .filter(&DlqFilter::new())
            .count(count)
    };
    let zero: CourierError = fails("count 0", list_of(0).send()).await;
    assert_eq!(
        zero.to_string(),
        "invalid request: `count` must be a whole number of at least 1"
    );
    assert!(!zero.retryable);
    let too_many = fails("count 500", list_of(500).send()).await;
    assert_eq!(too_many.status, Some(400));
    assert!(too_many.message.contains("100"), "{too_many}");

    let management = management::Client::with_credentials(
        &service.base_url(),
        &service.customer_id,
        &service.management_key,
    );
    let period = fails(
        "no such period",
        management.get_account_stats().period("1day").send(),
    )
    .await;
    assert_eq!(
        period.to_string(),
        "invalid request: `period` must be one of 1h, 3h, 12h, 1d, 3d, 7d, 30d (courier_models::StatsPeriod)"
    );
    // The readable variant works.
    ok(
        "7d statistics",
        management
            .get_account_stats()
            .period(StatsPeriod::SevenDays)
            .send(),
    )
    .await;
}

/// Returns the stream after the client that made it is gone: the stream owns a clone.
fn billing_runs(
    base_url: &str,
    token: &str,
) -> BoxStream<'static, courier_client::Result<WorkflowDlqMessage>> {
    let client = messaging::Client::with_token(base_url, token);
    client.dlq_stream_paged(DlqFilter::new().label("billing"), Paging::new().count(1))
}

#[tokio::test]
async fn the_dlq_stream_is_static_and_already_pinned() {
    let (service, _client) = seeded().await;
    let mut runs = billing_runs(&service.base_url(), &service.service_token);
    // `next()` needs Unpin: no `pin!` by the caller. Pages of one, so the cursor is followed.
    let mut seen = Vec::new();
    while let Some(run) = runs.next().await {
        seen.push(run.expect("a run").workflow_run_id);
    }
    seen.sort();
    assert_eq!(seen, ["wfr_1", "wfr_2"]);
    // And it can move to another task.
    let handle = tokio::spawn(async move {
        billing_runs(&service.base_url(), &service.service_token)
            .count()
            .await
    });
    assert_eq!(handle.await.unwrap(), 2);
}

/// The models' header map must not be called `HeaderMap`: a file importing both the models and
/// `http`'s headers by glob could not name either. This compiles only because the models'
/// type is `Headers`; its lookups ignore case as HTTP's do.
#[test]
fn the_models_headers_and_http_headers_import_side_by_side() {
    use courier_client::models::*;
    use reqwest::header::*;
    let mut sent = HeaderMap::new();
    sent.insert(CONTENT_TYPE, HeaderValue::from_static("text/plain"));
    let recorded = Headers(std::collections::BTreeMap::from([(
        "content-type".to_owned(),
        vec!["text/plain".to_owned()],
    )]));
    assert_eq!(
        recorded.header("Content-Type"),
        sent.get(CONTENT_TYPE).and_then(|value| value.to_str().ok())
    );
    assert_eq!(recorded.header_values("CONTENT-TYPE"), ["text/plain"]);
    assert_eq!(recorded.header("X-Absent"), None);
}
