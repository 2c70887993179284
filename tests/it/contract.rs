//! Contract tests: courier-client against the real courier service over HTTP on a real socket.
//!
//! The service runs in-process ([`TestService`]) on an ephemeral port with a temporary SQLite
//! store; data goes in through the admin API and comes out only through the generated client.

use crate::common;
use courier_service::time::now_ms;

use common::{fails, ok};
use courier_client::models::*;
use courier_client::{CourierError, management, messaging};
use courier_service::testing::TestService;
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::num::NonZeroU64;

fn messaging_client(service: &TestService) -> messaging::Client {
    messaging::Client::with_token(&service.base_url(), &service.service_token)
}

fn management_client(service: &TestService) -> management::Client {
    management::Client::with_credentials(
        &service.base_url(),
        &service.customer_id,
        &service.management_key,
    )
}

fn status(error: &CourierError) -> u16 {
    error.status.unwrap_or_default()
}

/// The status of a client call that must fail; `what` names the call if it succeeds.
async fn refused<T: std::fmt::Debug>(
    what: &str,
    sent: impl Future<Output = Result<T, CourierError>>,
) -> u16 {
    status(&fails(what, sent).await)
}

/// A failed run in the admin API's input shape (2.2 without `dlqId`).
fn run(i: usize, created_at: i64) -> Value {
    let workflow = [
        "https://a.example/wf",
        "https://b.example/wf",
        "https://c.example/wf",
    ][i % 3];
    let state = [
        "CALLBACK_INPROGRESS",
        "CALLBACK_SUCCESS",
        "CALLBACK_FAIL",
        "CALLBACK_CANCELED",
    ][i % 4];
    json!({
        "url": format!("{workflow}/step-{}", i % 5),
        "method": "POST",
        "header": {"Content-Type": ["application/json"]},
        "body": format!("{{\"n\":{i}}}"),
        "maxRetries": 3,
        "createdAt": created_at,
        "callerIP": format!("10.0.0.{}", i % 4),
        "workflowRunId": format!("wfr_{:05}", i / 2),
        "workflowCreatedAt": created_at - 1000,
        "workflowUrl": workflow,
        "flowControlKey": format!("key-{}", i % 2),
        "labels": [format!("label-{}", i % 5)],
        "failureCallback": format!("{workflow}/failure"),
        "failureCallbackInfo": {"state": state, "responseStatus": 500}
    })
}

/// Runs `0..count` ([`run`]), created a millisecond apart from `base` on.
fn runs(count: usize, base: i64) -> Vec<Value> {
    (0..count).map(|i| run(i, base + i as i64)).collect()
}

/// A service holding runs `0..count` ([`runs`]), the first created `age_ms` ago: the service, a
/// messaging client for it, the ids of the runs and the first one's `createdAt`.
async fn seeded(count: usize, age_ms: i64) -> (TestService, messaging::Client, Vec<String>, i64) {
    let service = TestService::start().await;
    let base = now_ms() - age_ms;
    let ids = service.insert_dlq(&runs(count, base)).await;
    assert_eq!(ids.len(), count);
    let client = messaging_client(&service);
    (service, client, ids, base)
}

/// Follows the cursor through every page of a list request; returns the ids in order.
async fn list_all(
    client: &messaging::Client,
    configure: impl Fn(
        messaging::builder::ListWorkflowDlq<'_>,
    ) -> messaging::builder::ListWorkflowDlq<'_>,
) -> Vec<String> {
    let mut ids = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let mut request =
            configure(client.list_workflow_dlq()).count(NonZeroU64::new(100).expect("nonzero"));
        if let Some(cursor) = &cursor {
            request = request.cursor(cursor.clone());
        }
        let page = request.send().await.expect("list").into_inner();
        assert!(page.messages.len() <= 100);
        ids.extend(page.messages.into_iter().map(|m| m.dlq_id));
        match page.cursor {
            Some(next) if !next.is_empty() => cursor = Some(next),
            _ => return ids,
        }
    }
}

mod account;
mod dlq;
mod kept_pages;
