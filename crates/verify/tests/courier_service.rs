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
    assert!(
        report.names(Outcome::Skipped).is_empty(),
        "with a seed every scenario runs: {:?}",
        report.names(Outcome::Skipped)
    );
    for name in [
        "cursor-walk",
        "filter-label",
        "delete-one",
        "bulk-delete-filter",
        "index-stats-series",
        "cleanup",
    ] {
        assert_eq!(
            report.scenario(name).map(|s| s.outcome),
            Some(Outcome::Passed),
            "{name}"
        );
    }
    // The run deleted what it created: the DLQ is empty again.
    let after = verifier(&service).build().unwrap().run().await;
    assert_eq!(after.scenario("list").unwrap().outcome, Outcome::Skipped);
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
    let report = verifier(&service).build().unwrap().run().await;
    assert_all_passed(&report);
    assert!(
        report.scenarios.iter().all(|s| !s.writes),
        "{}",
        report.to_table()
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
