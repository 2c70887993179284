//! Realistic payloads (`tests/fixtures/*.json`, written in the style of the hosted service: ids
//! like `1752829295505-0`, run ids like `wfr_…`, nanosecond daily timestamps, fields omitted
//! rather than empty, fields the models do not know) read into the models without loss, and
//! their unknown fields are tolerated.

use courier_conformance::json::{
    base64_problems, data_point_times, first_difference, is_data_point_time, strip_unknown,
};
use courier_conformance::paths::{fixtures_dir, read};
use courier_models::*;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// Reads a fixture into `T`; asserts that it carries at least one field the model does not know
/// (so tolerance is exercised), that writing the value back keeps every known field, and that
/// every data point time has the form of `docs/decisions.md#d8-data-point-time`.
fn load<T>(file: &str) -> T
where
    T: schemars::JsonSchema + Serialize + DeserializeOwned,
{
    let raw: Value = serde_json::from_str(&read(&fixtures_dir().join(file)))
        .unwrap_or_else(|e| panic!("{file}: not JSON: {e}"));
    let value: T = serde_json::from_value(raw.clone())
        .unwrap_or_else(|e| panic!("{file}: does not deserialise: {e}"));
    let schema = serde_json::to_value(schemars::schema_for!(T)).expect("schema serialises");
    let (known, unknown) = strip_unknown(&raw, &schema);
    assert!(
        !unknown.is_empty(),
        "{file}: should carry a field the model does not know, to prove it is tolerated"
    );
    let written = serde_json::to_value(&value).expect("serialises");
    if let Some(difference) = first_difference(&known, &written) {
        panic!(
            "{file}: a known field is lost or changed on the way through the model: {difference}"
        );
    }
    for (path, x) in data_point_times(&raw) {
        assert!(
            is_data_point_time(&x),
            "{file}: {path} = {x:?} is not a data point time (docs/decisions.md#d8-data-point-time)"
        );
    }
    value
}

fn is_hosted_dlq_id(id: &str) -> bool {
    id.split_once('-').is_some_and(|(ms, seq)| {
        ms.len() == 13 && ms.bytes().all(|b| b.is_ascii_digit()) && seq.parse::<u32>().is_ok()
    })
}

#[test]
fn list_page() {
    let page: WorkflowDlqPage = load("list_workflow_dlq.json");
    assert_eq!(page.messages.len(), 2);
    let raw: Value =
        serde_json::from_str(&read(&fixtures_dir().join("list_workflow_dlq.json"))).unwrap();
    let base64 = base64_problems(&raw);
    assert!(base64.is_empty(), "list_workflow_dlq.json: {base64:?}");
    for message in &page.messages {
        assert!(is_hosted_dlq_id(&message.dlq_id), "{}", message.dlq_id);
        assert!(
            message.workflow_run_id.starts_with("wfr_"),
            "{}",
            message.workflow_run_id
        );
        // Of each body exactly one form is present.
        assert!(message.body.is_some() != message.body_base64.is_some());
    }
    assert_eq!(
        page.cursor.as_deref(),
        Some(page.messages[1].dlq_id.as_str())
    );
    assert_eq!(
        page.messages[0].failure_function_state,
        Some(FailureFunctionState::CallbackSuccess)
    );
    // An entry without the optional fields reads with them absent.
    assert_eq!(page.messages[1].failure_callback, None);
    assert!(page.messages[1].labels.is_empty());
}

#[test]
fn single_failed_run() {
    let run: FailedWorkflowRun = load("failed_workflow_run.json");
    assert!(is_hosted_dlq_id(&run.dlq_id));
    assert!(run.workflow_run_id.starts_with("wfr_"));
    assert!(run.message_id.starts_with("msg_"));
    let info = run.failure_callback_info.expect("failureCallbackInfo");
    assert_eq!(info.state, FailureFunctionState::CallbackFail);
    assert_eq!(info.response_status, Some(404));
    assert!(run.body.is_some_and(|b| b.contains("Zoë Ågren")));
}

#[test]
fn bulk_delete_result() {
    let result: BulkDeleteResult = load("delete_workflow_dlq.json");
    assert_eq!(result.deleted, 100);
    assert!(result.cursor.as_deref().is_some_and(is_hosted_dlq_id));
}

#[test]
fn url_group() {
    let group: UrlGroup = load("url_group.json");
    assert_eq!(group.endpoints.len(), 2);
    assert_eq!(group.endpoints[1].name, "");
    assert!(group.updated_at >= group.created_at);
}

#[test]
fn error_body() {
    let error: ErrorBody = load("error.json");
    assert!(!error.error.is_empty());
}

#[test]
fn search_index() {
    let index: SearchIndex = load("search_index.json");
    assert_eq!(index.type_, IndexType::Payg);
    assert_eq!(index.region, IndexRegion::EuWest1);
    assert_eq!(
        index.max_daily_queries, -1,
        "-1 means unlimited and must survive"
    );
    assert_eq!(index.hosting_email, "");
}

#[test]
fn search_index_stats_keep_nanosecond_times() {
    let stats: SearchIndexStats = load("search_index_stats.json");
    let x = &stats.daily_query_requests[0].x;
    assert_eq!(
        x.split_once('.').map(|(_, f)| f.len()),
        Some("585757103 +0000 UTC".len()),
        "{x}"
    );
    assert_eq!(stats.days.len(), stats.daily_query_requests.len());
}

#[test]
fn account_stats_keep_nanosecond_times() {
    let stats: AccountStats = load("account_stats.json");
    assert_eq!(
        stats.days.len(),
        stats.daily_requests.len(),
        "days align with the daily arrays"
    );
    assert!(stats.daily_requests[0].x.ends_with(".585757103 +0000 UTC"));
    assert_eq!(stats.daily_requests[0].workflow_run, 30.0);
    let ids: Vec<&str> = stats
        .daily_svc_messages
        .iter()
        .map(|s| s.id.as_str())
        .collect();
    assert_eq!(ids, ["delivered", "failed"]);
}

#[test]
fn messaging_account_without_a_reserved_plan() {
    let account: MessagingAccount = load("messaging_account.json");
    assert_eq!(account.reserved_type, ReservedPlanType::NONE);
    assert_eq!(account.state, AccountState::Active);
    assert_eq!(account.type_, PlanType::Free);
    assert_eq!(account.max_dlq_retention_time_milis, 259_200_000);
}

/// Every fixture in the directory is read by one of the tests above.
#[test]
fn every_fixture_is_covered() {
    let source = read(&courier_conformance::paths::manifest_dir().join("tests/it/fixtures.rs"));
    let mut files: Vec<String> = std::fs::read_dir(fixtures_dir())
        .expect("fixtures directory")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    assert!(!files.is_empty());
    for file in files {
        assert!(
            source.contains(&format!("\"{file}\"")),
            "fixture {file} is not read by any test"
        );
    }
}
