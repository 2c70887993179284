//! The fake verified by courier-verify over a real socket: the right fake passes every
//! scenario, reading and writing; each drift is caught by a named scenario at a JSON pointer.

use courier_example_fake_service::{Drift, Fake, FakeSeed};
use courier_verify::{Outcome, Report, Verifier, serve_router};
use std::sync::Arc;

async fn verify(drift: Drift) -> Report {
    let fake = Fake::new(drift);
    let base_url = serve_router(fake.router()).await.unwrap();
    Verifier::builder(base_url)
        .service_token(&fake.service_token)
        .management_credentials(&fake.customer_id, &fake.management_key)
        .seed(Arc::new(FakeSeed(fake.clone())))
        .write(true)
        .build()
        .unwrap()
        .run()
        .await
}

#[tokio::test(flavor = "multi_thread")]
async fn the_fake_keeps_the_contract() {
    let report = verify(Drift::default()).await;
    assert!(report.passed(), "{}", report.to_table());
    // The fake offers no search index: that scenario says so instead of passing silently.
    assert_eq!(report.names(Outcome::Skipped), ["index-stats-series"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn an_ignored_filter_is_caught_by_its_scenario() {
    let report = verify(Drift {
        ignore_label_filter: true,
        ..Drift::default()
    })
    .await;
    assert!(
        report.names(Outcome::Failed).contains(&"filter-label"),
        "{}",
        report.to_table()
    );
    let (_, violation) = report
        .violations()
        .find(|(scenario, _)| *scenario == "filter-label")
        .unwrap();
    assert_eq!(violation.rule, "filter");
    assert!(
        violation.pointer.starts_with("/messages/") && violation.pointer.ends_with("/labels"),
        "{violation}"
    );
    let failure = &report.scenario("filter-label").unwrap().failures[0];
    assert!(
        failure.request.starts_with("curl ") && failure.request.contains("label="),
        "{}",
        failure.request
    );
    assert!(
        !failure.request.contains("fake-token"),
        "credentials are masked: {}",
        failure.request
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_renamed_field_is_caught_at_its_pointer() {
    let report = verify(Drift {
        rename_workflow_run_id: true,
        ..Drift::default()
    })
    .await;
    let list = report.scenario("list").unwrap();
    assert_eq!(list.outcome, Outcome::Failed, "{}", report.to_table());
    let violation = &list.failures[0].violations[0];
    assert_eq!(
        (violation.pointer.as_str(), violation.rule.as_str()),
        ("/messages/0/workflowRunId", "required")
    );
    assert_eq!(violation.operation_id, "listWorkflowDlq");
    let junit = report.to_junit();
    assert!(
        junit.contains("<testcase classname=\"courier-verify\" name=\"list\"")
            && junit.contains("<failure"),
        "{junit}"
    );
    let json: serde_json::Value = serde_json::from_str(&report.to_json()).unwrap();
    assert_eq!(json["scenarios"][1]["name"], "list");
}

/// The failed scenarios of a drift, each with the pointer and rule of its first violation.
fn caught(report: &Report) -> Vec<(String, String, String)> {
    report
        .scenarios
        .iter()
        .filter(|s| s.outcome == Outcome::Failed)
        .map(|s| {
            let v = &s.failures[0].violations[0];
            (s.name.clone(), v.pointer.clone(), v.rule.clone())
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn an_entry_repeated_across_pages_is_caught_by_the_cursor_walk() {
    let report = verify(Drift {
        repeat_across_pages: true,
        ..Drift::default()
    })
    .await;
    let found = caught(&report);
    assert!(
        found
            .iter()
            .any(|(name, _, rule)| name == "cursor-walk" && rule == "order"),
        "{found:?}\n{}",
        report.to_table()
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn an_undocumented_status_is_caught_by_the_delete_scenarios() {
    let report = verify(Drift {
        delete_answers_204: true,
        ..Drift::default()
    })
    .await;
    let found = caught(&report);
    for scenario in ["delete-one", "delete-one-workflow-path", "cancel-run"] {
        assert!(
            found.contains(&(scenario.to_owned(), String::new(), "status".to_owned())),
            "{scenario}: {found:?}"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_changed_error_body_is_caught_wherever_an_error_is_answered() {
    let report = verify(Drift {
        error_body_message: true,
        ..Drift::default()
    })
    .await;
    let found = caught(&report);
    for scenario in ["not-found", "unauthorized", "bad-request"] {
        assert!(
            found.contains(&(
                scenario.to_owned(),
                "/error".to_owned(),
                "required".to_owned()
            )),
            "{scenario}: {found:?}"
        );
    }
}
