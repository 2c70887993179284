//! The fake verified by courier-verify over a real socket: the right fake passes every
//! scenario, reading and writing, with nothing inconclusive and every operation implemented;
//! each defect is caught by the scenario named for it, with a pointer or a status.

use courier_example_fake_service::{Defect, Fake, FakeSeed};
use courier_verify::{Outcome, Report, Verifier, serve_router};
use std::sync::Arc;

async fn verify(fake: Arc<Fake>) -> Report {
    let base_url = serve_router(fake.router()).await.unwrap();
    Verifier::builder(base_url)
        .service_token(fake.service_token())
        .management_credentials(&fake.customer_id, &fake.management_key)
        .seed(Arc::new(FakeSeed(fake.clone())))
        .write(true)
        .build()
        .unwrap()
        .run()
        .await
}

#[tokio::test(flavor = "multi_thread")]
async fn the_fake_keeps_the_contract_with_nothing_inconclusive() {
    let report = verify(Fake::new()).await;
    assert!(report.passed(), "{}", report.to_table());
    assert_eq!(
        report.count(Outcome::Passed),
        report.scenarios.len(),
        "every scenario passes, none inconclusive or not implemented:\n{}",
        report.to_table()
    );
}

/// The scenario that must catch each defect.
fn catcher(defect: Defect) -> &'static str {
    match defect {
        Defect::IgnoreLabelFilter => "filter-label",
        Defect::LabelFirstValueOnly => "filter-label-any-of",
        Defect::LabelCommaNotSplit => "filter-label-comma",
        Defect::LabelIgnoresDeprecatedField => "filter-label-any-of",
        Defect::IgnoreWorkflowUrlFilter => "filter-workflow-url",
        Defect::IgnoreWorkflowRunIdFilter => "filter-workflow-run-id",
        Defect::IgnoreWorkflowCreatedAtFilter => "filter-workflow-created-at",
        Defect::IgnoreStateFilter => "filter-failure-function-state",
        Defect::IgnoreCallerIpFilter => "filter-caller-ip",
        Defect::IgnoreFlowControlKeyFilter => "filter-flow-control-key",
        Defect::FromDateExclusive => "filter-from-date",
        Defect::IgnoreToDate => "filter-to-date",
        Defect::FiltersOred => "filter-and",
        Defect::IgnoreCallerIpAlias => "filter-alias-caller-ip",
        Defect::DescendingOrder => "list-order",
        Defect::NumericOrder => "list-order",
        Defect::CursorRepeatsLast => "cursor-walk",
        Defect::CursorOnFullLastPage => "cursor-end",
        Defect::IgnoreCount => "page-size",
        Defect::ShortPages => "page-size",
        Defect::AlwaysEmptyList => "list-complete",
        Defect::ListFrozenAtFirstCall => "list-shows-added",
        Defect::DeletedStillListed => "delete-one",
        Defect::DeleteUnknownOk => "delete-one-unknown",
        Defect::BulkDeleteIdsAppliesFilters => "bulk-delete-ids-ignore-filters",
        Defect::BulkDeleteCountsNamed => "bulk-delete-ids",
        Defect::BulkDeleteFilterOneBatch => "bulk-delete-filter",
        Defect::CancelKeepsEntries => "cancel-run",
        Defect::CancelUnknownOk => "cancel-run-unknown",
        Defect::AnyServiceToken => "unauthorized-list-workflow-dlq",
        Defect::AnyManagementCredentials => "unauthorized-get-account-stats",
        Defect::RefuseQueryToken => "query-token",
        Defect::ParametersBeforeCredentials => "credentials-before-parameters",
        Defect::UnknownUrlGroupOk => "not-found-url-group",
        Defect::DlqCountZero => "account-stats-dlq-count",
        Defect::MonthOneDayShort => "account-stats-days",
        Defect::SeriesOneShort => "account-stats-series",
        Defect::IndexWrongRegion => "index-contents",
        Defect::UrlGroupWithoutEndpoints => "url-group-contents",
        Defect::GetChangesWorkflowUrl => "get-listed",
        Defect::CompatListEmpty => "compat-list",
        Defect::RotationKeepsOldToken => "rotation",
        Defect::ErrorBodyMessage => "not-found-get",
        Defect::RenameWorkflowRunId => "list-order",
        Defect::RetentionIgnored => "retention",
        Defect::OldestNotEvicted => "dlq-size",
    }
}

/// Each defect alone: the run fails, and the named scenario is among the failed ones with a
/// violation (a pointer into the body, or a status) or a failure saying why.
#[tokio::test(flavor = "multi_thread")]
async fn every_defect_is_caught_by_its_scenario() {
    // Each defect on a fake of its own, all at once: the runs share nothing but the cores.
    let mut runs = tokio::task::JoinSet::new();
    for defect in Defect::ALL {
        runs.spawn(caught_or_why(defect));
    }
    let mut missed: Vec<String> = runs.join_all().await.into_iter().flatten().collect();
    missed.sort();
    assert!(
        missed.is_empty(),
        "defects not caught by their scenario:\n{}",
        missed.join("\n")
    );
}

/// `None` when the scenario named for `defect` catches it, else what happened instead.
async fn caught_or_why(defect: Defect) -> Option<String> {
    let expected = catcher(defect);
    let fake = Fake::with_defect(defect);
    let base_url = serve_router(fake.router()).await.unwrap();
    let mut builder = Verifier::builder(base_url)
        .service_token(fake.service_token())
        .management_credentials(&fake.customer_id, &fake.management_key)
        .seed(Arc::new(FakeSeed(fake.clone())))
        .write(true);
    if ["rotation", "retention", "dlq-size"].contains(&expected) {
        // The scenarios that run only when named.
        builder = builder.scenarios([expected]);
    }
    let report = builder.build().unwrap().run().await;
    let scenario = report.scenario(expected);
    let caught = scenario.is_some_and(|s| {
        s.outcome == Outcome::Failed
            && s.failures.iter().any(|f| {
                f.error.is_some()
                    || f.violations
                        .iter()
                        .any(|v| !v.pointer.is_empty() || v.rule == "status")
            })
    });
    (!caught || report.passed()).then(|| {
        format!(
            "{defect:?}: `{expected}` is {:?}; failed: {:?}",
            scenario.map(|s| s.outcome),
            report.names(Outcome::Failed)
        )
    })
}

#[tokio::test(flavor = "multi_thread")]
async fn a_report_names_the_request_masks_the_token_and_renders_for_ci() {
    let fake = Fake::with_defect(Defect::IgnoreLabelFilter);
    let report = verify(fake.clone()).await;
    let failure = &report.scenario("filter-label").unwrap().failures[0];
    assert!(
        failure.request.starts_with("curl ") && failure.request.contains("label="),
        "{}",
        failure.request
    );
    assert!(
        !failure.request.contains(&fake.service_token()),
        "credentials are masked: {}",
        failure.request
    );
    let junit = report.to_junit();
    assert!(
        junit.contains("<testcase classname=\"courier-verify\" name=\"filter-label\"")
            && junit.contains("<failure"),
        "{junit}"
    );
    let json: serde_json::Value = serde_json::from_str(&report.to_json()).unwrap();
    assert!(
        json["scenarios"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s["name"] == "filter-label" && s["outcome"] == "failed")
    );
    assert!(report.to_table().contains("passed,") && report.to_table().contains("inconclusive"));
}

#[tokio::test(flavor = "multi_thread")]
async fn the_scenarios_run_only_when_named_hold_against_the_fake() {
    let fake = Fake::new();
    let base_url = serve_router(fake.router()).await.unwrap();
    let report = Verifier::builder(base_url)
        .service_token(fake.service_token())
        .management_credentials(&fake.customer_id, &fake.management_key)
        .seed(Arc::new(FakeSeed(fake.clone())))
        .write(true)
        .scenarios(["retention", "dlq-size", "rotation"])
        .build()
        .unwrap()
        .run()
        .await;
    assert!(report.passed(), "{}", report.to_table());
    assert_eq!(report.count(Outcome::Passed), 3, "{}", report.to_table());
}

/// A fake that answers 501 for URL groups and indexes gets an honest, green report: those
/// scenarios are not implemented, every other one passes.
#[tokio::test(flavor = "multi_thread")]
async fn a_partial_fake_is_reported_not_implemented_and_passes() {
    let report = verify(Fake::partial()).await;
    assert!(report.passed(), "{}", report.to_table());
    for name in [
        "url-group-contents",
        "not-found-url-group",
        "index-contents",
        "not-found-index",
    ] {
        assert_eq!(
            report.scenario(name).map(|s| s.outcome),
            Some(Outcome::NotImplemented),
            "{name}: {}",
            report.to_table()
        );
    }
    assert_eq!(
        report.count(Outcome::Failed) + report.count(Outcome::Inconclusive),
        0
    );
    assert!(
        report.summary().contains("not implemented"),
        "{}",
        report.summary()
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn an_empty_fake_read_only_is_inconclusive_unless_allowed() {
    // Without a seed for indexes and URL groups, and reading only: what cannot be checked is
    // inconclusive, which fails the run unless allowed.
    let fake = Fake::new();
    let base_url = serve_router(fake.router()).await.unwrap();
    let empty = Verifier::builder(&base_url)
        .service_token(fake.service_token())
        .management_credentials(&fake.customer_id, &fake.management_key)
        .build()
        .unwrap()
        .run()
        .await;
    assert!(
        !empty.passed(),
        "an empty DLQ read without writing is no pass:\n{}",
        empty.to_table()
    );
    assert_eq!(
        empty.scenario("list-order").unwrap().outcome,
        Outcome::Inconclusive
    );
    let allowed = Verifier::builder(&base_url)
        .service_token(fake.service_token())
        .management_credentials(&fake.customer_id, &fake.management_key)
        .allow_inconclusive(true)
        .scenarios(["list-order", "filter-*"])
        .exclude(["filter-and"])
        .build()
        .unwrap()
        .run()
        .await;
    assert!(allowed.passed(), "{}", allowed.to_table());
    assert!(
        allowed.scenario("filter-and").is_none() && allowed.scenario("not-found-get").is_none()
    );
}
