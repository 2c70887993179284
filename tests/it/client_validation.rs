//! courier-client's opt-in validation (feature `validate`, `validate_responses(true)`): against
//! the real service every answer holds; against a server whose answers drift, the call fails with
//! the violations (operation, status, JSON pointer, rule) before anything is decoded, including
//! a drift that decoding alone lets through.

use axum::Router;
use axum::routing::get;
use courier_client::{CourierError, DlqFilter, messaging};
use courier_service::testing::TestService;
use futures::TryStreamExt;
use serde_json::{Value, json};

/// One failed run as the spec writes it.
fn entry() -> Value {
    json!({
        "dlqId": "1700000000000-0", "workflowUrl": "https://app.example/wf", "workflowRunId": "wfr_1",
        "workflowCreatedAt": 1_700_000_000_000i64, "url": "https://app.example/wf", "method": "POST",
        "header": {}, "maxRetries": 3, "createdAt": 1_700_000_000_000i64
    })
}

/// A server answering every list with `page`.
async fn serving(page: Value) -> String {
    let router = Router::new().route(
        "/v2/workflows/dlq",
        get(move || {
            let page = page.clone();
            async move { axum::Json(page) }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let address = listener.local_addr().expect("address");
    tokio::spawn(async move { axum::serve(listener, router).await });
    format!("http://{address}")
}

fn client(base: &str, validate: bool) -> messaging::Client {
    messaging::Client::builder()
        .base_url(base)
        .token("any-token-of-16-chars")
        .validate_responses(validate)
        .build()
        .expect("a client")
}

async fn list(client: &messaging::Client) -> Result<Value, CourierError> {
    let page = client.list_workflow_dlq().count(10).send().await?;
    Ok(serde_json::to_value(page.into_inner()).expect("a page serialises"))
}

#[tokio::test]
async fn the_real_service_holds_the_contract_in_every_answer() {
    let service = TestService::start().await;
    let now_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("after 1970")
        .as_millis() as i64;
    let entries: Vec<Value> = (0..30)
        .map(|i| {
            let mut run = entry();
            run["dlqId"] = json!("");
            run["workflowRunId"] = json!(format!("wfr_{i}"));
            run["responseBody"] = json!("upstream said no");
            // Recent, or retention would have them gone.
            run["createdAt"] = json!(now_ms - 1000 * i64::from(i));
            run
        })
        .collect();
    service.insert_dlq(&entries).await;
    let client = messaging::Client::builder()
        .base_url(service.base_url())
        .token(&service.service_token)
        .validate_responses(true)
        .build()
        .expect("a client");
    let all: Vec<_> = client
        .dlq_stream(DlqFilter::new())
        .try_collect()
        .await
        .expect("every page holds the contract");
    assert_eq!(all.len(), 30);
    let one = client
        .get_workflow_dlq()
        .dlq_id(&all[0].dlq_id)
        .send()
        .await;
    assert!(one.is_ok(), "{one:?}");
    // A documented error answer is validated too, and still reaches the caller as itself.
    let missing = client
        .get_workflow_dlq()
        .dlq_id("0-0")
        .send()
        .await
        .expect_err("404");
    assert!(
        missing.is_not_found() && missing.violations().is_empty(),
        "{missing:#?}"
    );
}

#[tokio::test]
async fn a_null_where_the_spec_has_a_string_is_caught_though_it_decodes() {
    let mut drifted = entry();
    drifted["responseBody"] = Value::Null;
    let base = serving(json!({ "messages": [drifted] })).await;

    // Decoding alone accepts it: the field is optional, so null reads as absent.
    let decoded = list(&client(&base, false))
        .await
        .expect("decoding alone lets it through");
    assert_eq!(decoded["messages"].as_array().map(Vec::len), Some(1));

    let error = list(&client(&base, true))
        .await
        .expect_err("validation refuses it");
    let violation = &error.violations()[0];
    assert_eq!(violation.operation_id, "listWorkflowDlq");
    assert_eq!(violation.status, 200);
    assert_eq!(violation.pointer, "/messages/0/responseBody");
    assert_eq!(violation.rule, "type");
    assert!(!error.retryable);
    assert!(
        error
            .to_string()
            .contains("listWorkflowDlq breaks the spec at /messages/0/responseBody"),
        "{error}"
    );
}

#[tokio::test]
async fn a_missing_required_field_is_named_by_its_pointer() {
    let mut drifted = entry();
    drifted
        .as_object_mut()
        .expect("an object")
        .remove("workflowRunId");
    let base = serving(json!({ "messages": [entry(), drifted] })).await;

    let error = list(&client(&base, true))
        .await
        .expect_err("validation refuses it");
    let violation = &error.violations()[0];
    assert_eq!(
        (violation.pointer.as_str(), violation.rule.as_str()),
        ("/messages/1/workflowRunId", "required")
    );
    assert!(violation.message.contains("workflowRunId"), "{violation:?}");

    // Without validation the same answer fails too, but as a decoding error without a place.
    let decoding = list(&client(&base, false))
        .await
        .expect_err("decoding fails");
    assert!(decoding.violations().is_empty());
}
