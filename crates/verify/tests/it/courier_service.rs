//! The verifier against courier's own service on a real socket with a real store: every
//! scenario, reading and writing (seeded through the admin API), holds.

use courier_service::testing::TestService;
use courier_verify::{Outcome, Report, Verifier};

fn verifier(service: &TestService) -> courier_verify::VerifierBuilder {
    Verifier::builder(service.base_url())
        .service_token(&service.service_token)
        .management_credentials(&service.customer_id, &service.management_key)
}

fn assert_all_passed(report: &Report) {
    assert!(report.passed(), "{}", report.to_table());
}

#[tokio::test(flavor = "multi_thread")]
async fn every_scenario_holds_against_courier_reading_and_writing() {
    let service = TestService::start().await;
    let report = verifier(&service)
        .admin_token(&service.admin_token)
        .write(true)
        .build()
        .unwrap()
        .run()
        .await;
    assert_all_passed(&report);
    assert_eq!(
        report.count(Outcome::Passed),
        report.scenarios.len(),
        "with a seed nothing is inconclusive and every operation is implemented:\n{}",
        report.to_table()
    );
    for name in [
        "cursor-walk",
        "filter-label",
        "filter-label-any-of",
        "delete-one",
        "bulk-delete-filter",
        "index-stats-series",
        "url-group-contents",
        "cleanup",
    ] {
        assert_eq!(
            report.scenario(name).map(|s| s.outcome),
            Some(Outcome::Passed),
            "{name}"
        );
    }
    // The run deleted what it created: the DLQ is empty again, so a reading run has nothing
    // to check and says so.
    let after = verifier(&service).build().unwrap().run().await;
    assert_eq!(
        after.scenario("list-order").unwrap().outcome,
        Outcome::Inconclusive
    );
    assert!(!after.passed());
}

#[tokio::test(flavor = "multi_thread")]
async fn read_only_runs_write_nothing_and_need_no_seed() {
    let service = TestService::start().await;
    let ids = service
        .insert_dlq(&[serde_json::json!({
            "workflowRunId": "wfr_1", "workflowUrl": "https://w.example/a", "workflowCreatedAt": 1,
            "url": "https://w.example/a", "method": "POST", "maxRetries": 1, "labels": ["x"]
        })])
        .await;
    let strict = verifier(&service).build().unwrap().run().await;
    assert!(
        !strict.passed() && strict.count(Outcome::Failed) == 0,
        "one entry leaves rules unchecked (inconclusive), which is no pass by default:\n{}",
        strict.to_table()
    );
    let report = verifier(&service)
        .allow_inconclusive(true)
        .build()
        .unwrap()
        .run()
        .await;
    assert_all_passed(&report);
    assert!(
        report.scenarios.iter().all(|s| !s.writes),
        "{}",
        report.to_table()
    );
    assert_eq!(
        report.scenario("filter-label").unwrap().outcome,
        Outcome::Passed
    );
    let listed = reqwest::Client::new()
        .get(format!(
            "{}/v2/workflows/dlq/{}",
            service.base_url(),
            ids[0]
        ))
        .bearer_auth(&service.service_token)
        .send()
        .await
        .unwrap();
    assert_eq!(listed.status(), 200, "the entry is still there");
    let refused = verifier(&service).write(true).build();
    assert!(refused.is_err(), "writing without a seed is refused");
}

/// Ids that sort differently as numbers and as bytes: the verifier holds the list to the
/// spec's order (bytes), as courier's store keeps it, and finds nothing wrong.
#[tokio::test(flavor = "multi_thread")]
async fn all_digit_ids_raise_no_false_alarm() {
    let service = TestService::start().await;
    let entries: Vec<serde_json::Value> = ["9", "10", "100", "2"]
        .iter()
        .enumerate()
        .map(|(i, id)| {
            serde_json::json!({
                "dlqId": id, "workflowRunId": format!("wfr_{i}"),
                "workflowUrl": format!("https://w.example/{}", i % 2), "workflowCreatedAt": i,
                "url": "https://w.example/step", "method": "POST", "maxRetries": 1,
                "labels": [format!("l{}", i % 2)], "callerIP": format!("10.0.0.{}", i % 2),
                "flowControlKey": format!("k{}", i % 2)
            })
        })
        .collect();
    service.insert_dlq(&entries).await;
    let report = verifier(&service)
        .allow_inconclusive(true)
        .build()
        .unwrap()
        .run()
        .await;
    assert_eq!(report.count(Outcome::Failed), 0, "{}", report.to_table());
    assert_eq!(
        report.scenario("list-order").unwrap().outcome,
        Outcome::Passed
    );
    assert_eq!(
        report.scenario("cursor-walk").unwrap().outcome,
        Outcome::Passed
    );
}

/// The scenarios that run only when named hold against courier: a 429 met with its headers,
/// the account's limits set and put back through the admin API, and the token rotated.
#[tokio::test(flavor = "multi_thread")]
async fn the_scenarios_run_only_when_named_hold_against_courier() {
    let service = TestService::start().await;
    service
        .patch_account(serde_json::json!({"max_requests_per_second": 20}))
        .await;
    let report = verifier(&service)
        .admin_token(&service.admin_token)
        .write(true)
        .scenarios([
            "rate-limit",
            "retention",
            "dlq-size",
            "rotation",
            "list-order",
        ])
        .build()
        .unwrap()
        .run()
        .await;
    assert!(report.passed(), "{}", report.to_table());
    assert_eq!(
        report.count(Outcome::Passed),
        5,
        "each named scenario ran and passed:\n{}",
        report.to_table()
    );
}

/// Under a per-second limit the verifier's burst meets 429s; it waits them out as the answers
/// ask, and the rules that hold still pass.
#[tokio::test(flavor = "multi_thread")]
async fn a_per_second_limit_is_waited_out_not_reported() {
    let service = TestService::start().await;
    service
        .patch_account(serde_json::json!({"max_requests_per_second": 10}))
        .await;
    let report = verifier(&service)
        .admin_token(&service.admin_token)
        .write(true)
        .scenarios(["filter-label*", "filter-and"])
        .build()
        .unwrap()
        .run()
        .await;
    assert!(report.passed(), "{}", report.to_table());
    assert!(
        report.rate_limited > 0,
        "the run met 429s and waited them out:\n{}",
        report.to_table()
    );
}

/// A run can be spawned on a multi-threaded runtime (its future is `Send`), as a test that
/// verifies several services at once does.
#[test]
fn a_run_is_a_send_future() {
    fn send<T: Send>(_: &T) {}
    let verifier = Verifier::builder("http://127.0.0.1:9").build().unwrap();
    let run = verifier.run();
    send(&run);
}
