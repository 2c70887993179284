//! What the official clients send beyond the interface
//! (`docs/decisions.md#d19-official-client-compatibility`), over raw HTTP as they send it: the list
//! at `GET /v2/dlq?source=workflow`, delete one at `DELETE /v2/workflows/dlq/{id}`, bulk cancel at
//! `DELETE /v2/workflows/runs`, the spellings `callerIP` and `failureCallbackState`, the compatible
//! additions to listed entries, `cancel=false`, and a clear 501 for what needs a delivery engine.
//! `scripts/official-clients.sh` runs the clients themselves.

use crate::common;
use courier_service::time::now_ms;

use courier_service::testing::TestService;
use reqwest::Method;
use serde_json::{Value, json};
use std::collections::BTreeSet;

/// Six failed runs of three workflows: two per run, varied states and caller IPs.
async fn seeded() -> TestService {
    let service = TestService::start().await;
    let now = now_ms();
    let entries: Vec<Value> = (0..6)
        .map(|i| {
            let workflow_url = [
                "https://app.example/api/orders",
                "https://app.example/api/orders-v2",
                "https://other.example/api/wf",
            ][i / 2];
            let state = ["CALLBACK_FAIL", "CALLBACK_SUCCESS"][i % 2];
            json!({
                "dlqId": format!("dlq-{i}"),
                "messageId": format!("msg-{i}"),
                "notBefore": now + 60_000,
                "url": "https://app.example/api/wf/step",
                "method": "POST",
                "maxRetries": 3,
                "createdAt": now + i as i64,
                "callerIP": format!("10.0.0.{}", i % 2),
                "workflowRunId": format!("wfr-{}", i / 2),
                "workflowCreatedAt": now - 1000,
                "workflowUrl": workflow_url,
                "labels": ["compat"],
                "failureCallbackInfo": {"state": state, "responseStatus": 500}
            })
        })
        .collect();
    service.insert_dlq(&entries).await;
    service
}

async fn call(service: &TestService, method: Method, target: &str) -> (u16, Value) {
    common::call_with_token(
        &reqwest::Client::new(),
        &service.base_url(),
        &service.service_token,
        method,
        target,
    )
    .await
}

fn ids(page: &Value) -> BTreeSet<String> {
    page["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .map(|m| m["dlqId"].as_str().expect("dlqId").to_owned())
        .collect()
}

#[tokio::test]
async fn the_official_list_path_is_the_list_operation() {
    let service = seeded().await;
    for query in [
        "count=2",
        "label=compat&count=3",
        "failureFunctionState=CALLBACK_FAIL",
    ] {
        let (status, canonical) =
            call(&service, Method::GET, &format!("/v2/workflows/dlq?{query}")).await;
        assert_eq!(status, 200);
        let (status, alias) = call(
            &service,
            Method::GET,
            &format!("/v2/dlq?source=workflow&{query}"),
        )
        .await;
        assert_eq!(status, 200, "{alias}");
        assert_eq!(alias, canonical, "{query}");
    }
    for (query, named) in [
        ("", "source"),
        ("source=message", "source"),
        ("source=workflow&url=x", "url"),
    ] {
        let (status, body) = call(&service, Method::GET, &format!("/v2/dlq?{query}")).await;
        assert_eq!(status, 400, "{query}: {body}");
        assert!(
            body["error"].as_str().unwrap_or_default().contains(named),
            "{query}: {body}"
        );
    }
}

#[tokio::test]
async fn both_spellings_of_the_caller_ip_and_state_filters_work_and_merge() {
    let service = seeded().await;
    let (_, canonical) = call(&service, Method::GET, "/v2/workflows/dlq?callerIp=10.0.0.1").await;
    let (status, alias) = call(&service, Method::GET, "/v2/workflows/dlq?callerIP=10.0.0.1").await;
    assert_eq!(status, 200, "{alias}");
    assert_eq!(ids(&alias), ids(&canonical));
    assert_eq!(ids(&alias).len(), 3);
    let (_, state) = call(
        &service,
        Method::GET,
        "/v2/dlq?source=workflow&failureCallbackState=CALLBACK_SUCCESS",
    )
    .await;
    assert_eq!(
        ids(&state),
        ids(&canonical),
        "odd entries: caller 10.0.0.1 and CALLBACK_SUCCESS"
    );
    let (_, both) = call(
        &service,
        Method::GET,
        "/v2/workflows/dlq?callerIp=10.0.0.0&callerIP=10.0.0.1",
    )
    .await;
    assert_eq!(ids(&both).len(), 6, "values of both spellings are ORed");
    let (status, body) = call(&service, Method::GET, "/v2/workflows/dlq?callerIP=").await;
    assert_eq!(status, 400);
    assert!(common::error_of(&body).contains("`callerIP`"), "{body}");
}

#[tokio::test]
async fn listed_entries_carry_message_id_not_before_and_the_failure_callback() {
    let service = seeded().await;
    let (_, page) = call(&service, Method::GET, "/v2/dlq?source=workflow&count=1").await;
    let entry = &page["messages"][0];
    assert_eq!(entry["messageId"], "msg-0");
    assert!(entry["notBefore"].as_i64().is_some(), "{entry}");
    assert_eq!(entry["failureCallbackInfo"]["state"], "CALLBACK_FAIL");
    assert_eq!(entry["failureFunctionState"], "CALLBACK_FAIL");
}

#[tokio::test]
async fn the_documented_workflow_delete_path_is_delete_one() {
    let service = seeded().await;
    let (status, _) = call(&service, Method::DELETE, "/v2/workflows/dlq/dlq-0").await;
    assert_eq!(status, 200);
    let (status, _) = call(&service, Method::GET, "/v2/workflows/dlq/dlq-0").await;
    assert_eq!(status, 404);
    let (status, body) = call(&service, Method::DELETE, "/v2/workflows/dlq/dlq-0").await;
    assert_eq!(status, 404, "{body}");
}

/// A bulk cancel that must succeed; how many runs it cancelled.
async fn cancelled(service: &TestService, target: &str) -> i64 {
    let (status, body) = call(service, Method::DELETE, target).await;
    assert_eq!(status, 200, "{target}: {body}");
    body["cancelled"].as_i64().expect("cancelled")
}

#[tokio::test]
async fn bulk_cancel_by_ids_or_by_filter_with_url_prefixes() {
    let service = seeded().await;
    let (status, body) = call(&service, Method::DELETE, "/v2/workflows/runs").await;
    assert_eq!(status, 400, "neither ids nor a filter: {body}");
    let (status, body) = call(
        &service,
        Method::DELETE,
        "/v2/workflows/runs?workflowRunIds=",
    )
    .await;
    assert_eq!(status, 400, "{body}");

    // A prefix takes both order workflows; exact match only the first.
    assert_eq!(cancelled(&service, "/v2/workflows/runs?workflowUrl=https://app.example/api/orders&workflowUrlExactMatch=true").await, 1);
    let (_, page) = call(&service, Method::GET, "/v2/workflows/dlq").await;
    assert_eq!(ids(&page).len(), 4, "the run's two entries went with it");
    assert_eq!(
        cancelled(
            &service,
            "/v2/workflows/runs?workflowUrl=https://app.example/api/order"
        )
        .await,
        1
    );
    assert_eq!(
        cancelled(
            &service,
            "/v2/workflows/runs?workflowRunIds=wfr-2&workflowRunIds=wfr-404"
        )
        .await,
        1
    );
    let (_, page) = call(&service, Method::GET, "/v2/workflows/dlq").await;
    assert!(ids(&page).is_empty());

    let stats = common::account_stats(&service).await;
    let cancelled = common::series_sum(&stats, "daily_workflow_messages", "run_canceled");
    assert_eq!(cancelled, 3.0, "every cancelled run counts");
}

#[tokio::test]
async fn bulk_cancel_by_an_entry_filter_pages_with_a_cursor() {
    let service = seeded().await;
    // Three runs match, two a page.
    let cancel = async |after: &str| {
        let target = format!("/v2/workflows/runs?label=compat&count=2{after}");
        call(&service, Method::DELETE, &target).await
    };
    let (status, first) = cancel("").await;
    assert_eq!(
        (status, first["cancelled"].as_i64()),
        (200, Some(2)),
        "{first}"
    );
    let cursor = first["cursor"].as_str().expect("more runs match");
    let (status, rest) = cancel(&format!("&cursor={cursor}")).await;
    let summary = (status, rest["cancelled"].as_i64(), rest.get("cursor"));
    assert_eq!(summary, (200, Some(1), None), "no more: {rest}");
}

#[tokio::test]
async fn ending_a_finished_run_counts_as_succeeded_not_cancelled() {
    let service = seeded().await;
    let end = "/v2/workflows/runs/wfr-0?cancel=false";
    let (status, body) = call(&service, Method::DELETE, end).await;
    assert_eq!(status, 200, "{body}");
    let stats = common::account_stats(&service).await;
    let sum = |id: &str| common::series_sum(&stats, "daily_workflow_messages", id);
    assert_eq!((sum("run_succeeded"), sum("run_canceled")), (1.0, 0.0));
}

/// The official clients' DLQ actions that deliver again (resume, restart, the failure
/// callback), on an entry that exists: the service has no delivery engine.
const NEEDS_A_DELIVERY_ENGINE: [&str; 3] = [
    "/v2/workflows/dlq/resume?dlqIds=dlq-1",
    "/v2/workflows/dlq/restart?dlqIds=dlq-1",
    "/v2/workflows/dlq/callback/dlq-1",
];

#[tokio::test]
async fn what_needs_a_delivery_engine_is_a_clear_501() {
    let service = seeded().await;
    for target in NEEDS_A_DELIVERY_ENGINE {
        let (status, body) = call(&service, Method::POST, target).await;
        assert_eq!(status, 501, "{target}: {body}");
        assert!(
            common::error_of(&body).contains("delivery engine"),
            "{body}"
        );
    }
}
