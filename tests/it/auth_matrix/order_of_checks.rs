//! Which check answers first (`docs/decisions.md#d16-order-of-checks`): credentials, then the
//! rate limit, then the parameters, then the resource, over every operation of the spec; and a
//! request refused for its credentials spends nothing of the rate limit.

use super::cases::{Auth, Case, Expect, wrong_token};
use super::operations::{Interface, operations, target};
use super::world::World;
use courier_service::testing::TestService;
use courier_service::time::now_ms;
use serde_json::{Value, json};
use std::collections::BTreeMap;

/// Sets the account's `max_requests_per_second` through the admin API (not rate limited).
async fn limit_requests_per_second(service: &TestService, per_second: u64) {
    service
        .patch_account(json!({ "max_requests_per_second": per_second }))
        .await;
}

/// `docs/decisions.md#d16-order-of-checks`, one table over every operation of the spec: credentials
/// first (401), then the rate limit (429), then the parameters (400), then the resource (404). Each
/// row breaks every later check too, so the status names the first check that fails: a request with
/// no credentials, an unknown parameter and a missing resource is 401; the same with credentials
/// but no rate limit left is 429; and so on.
#[tokio::test]
async fn every_operation_checks_credentials_then_rate_limit_then_parameters_then_the_resource() {
    let operations = operations();
    let mut world = World::start().await;
    let missing = BTreeMap::from([
        ("dlqId", "dlq-that-never-was".to_owned()),
        ("workflowRunId", "wfr-that-never-was".to_owned()),
        ("urlGroupName", "group-that-never-was".to_owned()),
        ("id", "00000000-0000-4000-8000-00000000dead".to_owned()),
    ]);
    struct Row {
        name: &'static str,
        credentials: bool,
        limit: u64,
        bad_parameter: bool,
        expected: u16,
    }
    let rows = [
        Row {
            name: "no credentials, no rate limit left, unknown parameter, missing resource",
            credentials: false,
            limit: 0,
            bad_parameter: true,
            expected: 401,
        },
        Row {
            name: "credentials, no rate limit left, unknown parameter, missing resource",
            credentials: true,
            limit: 0,
            bad_parameter: true,
            expected: 429,
        },
        Row {
            name: "credentials, within the limit, unknown parameter, missing resource",
            credentials: true,
            limit: 1000,
            bad_parameter: true,
            expected: 400,
        },
        Row {
            name: "credentials, within the limit, valid parameters, missing resource",
            credentials: true,
            limit: 1000,
            bad_parameter: false,
            expected: 404,
        },
    ];
    let mut problems = Vec::new();
    let mut cells = 0;
    for row in &rows {
        limit_requests_per_second(&world.service, row.limit).await;
        for operation in &operations {
            // Operations without a path parameter have no resource to miss: the last row is
            // their success, which the auth matrix covers.
            if row.expected == 404 && !operation.path.contains('{') {
                continue;
            }
            let mut path = target(operation, &missing).expect("every parameter has a fixture");
            if row.bad_parameter {
                path.push(if path.contains('?') { '&' } else { '?' });
                path.push_str("no_such_parameter=1");
            }
            let auth = match (row.credentials, operation.interface) {
                (false, _) => Auth::None,
                (true, Interface::Messaging) => Auth::Bearer(world.credentials.token.clone()),
                (true, Interface::Management) => Auth::Basic(
                    world.credentials.customer_id.clone(),
                    world.credentials.management_key.clone(),
                ),
            };
            let case = Case {
                name: row.name,
                auth,
                query_token: None,
                expect: Expect::Success,
            };
            let outcome = world.send(operation, &path, &case).await;
            cells += 1;
            let error = serde_json::from_str::<Value>(&outcome.body)
                .ok()
                .and_then(|b| b["error"].as_str().map(str::to_owned));
            if outcome.status != row.expected || error.is_none() {
                problems.push(format!(
                    "{} {} ({}), {}: {} {} (expected {} with the error body)",
                    operation.method,
                    path,
                    operation.id,
                    row.name,
                    outcome.status,
                    outcome.body,
                    row.expected
                ));
            }
            if !operation.documented.contains(&row.expected) {
                problems.push(format!(
                    "{}: the spec does not document {}",
                    operation.id, row.expected
                ));
            }
        }
    }
    assert!(cells >= 3 * operations.len(), "{cells} cells");

    assert!(
        problems.is_empty(),
        "{} problem(s):\n{}",
        problems.len(),
        problems.join("\n")
    );
}

/// A request without valid credentials spends nothing of the account's per-second limit
/// (`docs/decisions.md#d16-order-of-checks`). With a limit of 2, twenty unauthenticated requests
/// and then three authenticated ones: the first two are admitted and the third is refused, which
/// shows both that the 401s spent nothing and that the limit is really reached. Every request
/// must fall in one window; when they do not (a machine too loaded to send 23 requests in a
/// second), the test fails saying so instead of passing without having tested the limit.
#[tokio::test]
async fn unauthenticated_requests_spend_nothing_of_the_rate_limit() {
    const LIMIT: usize = 2;
    let operations = operations();
    let mut world = World::start().await;
    limit_requests_per_second(&world.service, LIMIT as u64).await;
    let list = operations
        .iter()
        .find(|o| o.id == "listWorkflowDlq")
        .expect("the list operation");
    let anonymous = Case {
        name: "anonymous",
        auth: Auth::None,
        query_token: None,
        expect: Expect::Unauthorized,
    };
    let wrong = Case {
        name: "wrong token",
        auth: Auth::Bearer(wrong_token(&world.credentials.token)),
        query_token: None,
        expect: Expect::Unauthorized,
    };
    let valid = Case {
        name: "valid",
        auth: Auth::Bearer(world.credentials.token.clone()),
        query_token: None,
        expect: Expect::Success,
    };
    // Start just after a window boundary, so the burst has the whole second.
    let into_second = now_ms().rem_euclid(1000);
    tokio::time::sleep(std::time::Duration::from_millis(
        (1000 - into_second) as u64 + 5,
    ))
    .await;
    let window_end = now_ms().div_euclid(1000) + 1;
    for _ in 0..10 {
        for case in [&anonymous, &wrong] {
            let outcome = world.send(list, &list.path, case).await;
            assert_eq!(outcome.status, 401, "{}", outcome.body);
        }
    }
    let mut admitted = Vec::new();
    for _ in 0..=LIMIT {
        admitted.push(world.send(list, &list.path, &valid).await);
    }
    let finished_in = now_ms().div_euclid(1000) + 1;
    assert_eq!(
        finished_in,
        window_end,
        "the {} requests took longer than their one-second window, so the limit could not be \
         tested; the machine is too loaded for this test",
        20 + LIMIT + 1
    );
    let statuses: Vec<u16> = admitted.iter().map(|outcome| outcome.status).collect();
    assert_eq!(
        statuses,
        [200, 200, 429],
        "after 20 unauthenticated requests, a limit of {LIMIT} admits {LIMIT} and refuses the next: {:?}",
        admitted.iter().map(|o| &o.body).collect::<Vec<_>>()
    );
    let refused = admitted.last().expect("three requests");
    assert_eq!(
        refused.burst_reset.as_deref(),
        Some(window_end.to_string().as_str()),
        "the refusal names the end of the window the burst was sent in"
    );
}
