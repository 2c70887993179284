//! insta snapshots of every wire shape: the JSON Schema of each generated type and a canonical,
//! fully populated instance, named after the interface section they pin. Each instance
//! round-trips through the committed snapshot. See the crate docs for reviewing a change.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use courier_conformance::json::{
    all_strings, base64_problems, data_point_times, first_difference, for_each_object,
    is_data_point_time, snapshot_body, unpopulated,
};
use courier_conformance::paths::{read, snapshots_dir};
use courier_models::*;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::fmt::Debug;

/// Bytes that are not UTF-8 (a PNG signature, then a lone continuation byte and 0xFF).
const NON_UTF8_BODY: &[u8] = &[0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a, 0x80, 0xff];
/// A request body that is not UTF-8 either (a truncated two-byte sequence).
const NON_UTF8_REQUEST: &[u8] = &[0xc3, 0x28, 0x00, 0xfe, b'{', b'}'];

/// Does everything the snapshots promise for one shape; `unicode` says whether the shape has
/// free text that must carry non-ASCII characters.
fn pin<T>(name: &str, instance: &T, unicode: bool)
where
    T: schemars::JsonSchema + Serialize + DeserializeOwned + PartialEq + Debug,
{
    let schema = serde_json::to_value(schemars::schema_for!(T)).expect("schema serialises");
    insta::assert_json_snapshot!(format!("{name}_schema"), schema);

    let json = serde_json::to_value(instance).expect("instance serialises");
    // A body is sent in exactly one form, so an instance the service could send leaves the
    // other one of each pair unset; every other field is populated.
    let one_form = one_body_form(&json);
    assert!(one_form.is_empty(), "{name}: {one_form:?}");
    let gaps: Vec<String> = unpopulated(&json, &schema)
        .into_iter()
        .filter(|gap| !is_other_body_form(&json, gap))
        .collect();
    assert!(
        gaps.is_empty(),
        "{name}: the canonical instance leaves {gaps:?} unset"
    );
    let base64 = base64_problems(&json);
    assert!(base64.is_empty(), "{name}: {base64:?}");
    if unicode {
        assert!(
            all_strings(&json).iter().any(|s| !s.is_ascii()),
            "{name}: the canonical instance should carry unicode text"
        );
    }
    for (path, x) in data_point_times(&json) {
        assert!(
            is_data_point_time(&x),
            "{name}: {path} = {x:?} is not a data point time (docs/decisions.md#d8-data-point-time)"
        );
    }
    insta::assert_json_snapshot!(format!("{name}_instance"), json);

    // The committed snapshot itself reads back into the type and writes out the same JSON.
    let file = snapshots_dir().join(format!("it__snapshots__{name}_instance.snap"));
    let text = read(&file);
    let body =
        snapshot_body(&text).unwrap_or_else(|| panic!("{}: no insta header", file.display()));
    let pinned: Value =
        serde_json::from_str(body).unwrap_or_else(|e| panic!("{}: not JSON: {e}", file.display()));
    let back: T = serde_json::from_value(pinned.clone())
        .unwrap_or_else(|e| panic!("{name}: the snapshot does not deserialise: {e}"));
    assert_eq!(
        &back, instance,
        "{name}: the snapshot reads back as a different value"
    );
    let again = serde_json::to_value(&back).expect("serialises");
    if let Some(difference) = first_difference(&pinned, &again) {
        panic!("{name}: the snapshot does not serialise back identically: {difference}");
    }
    assert_eq!(
        serde_json::to_string_pretty(&again)
            .expect("serialises")
            .trim_end(),
        body.trim_end(),
        "{name}: the re-serialised text differs from the snapshot"
    );
}

/// The two forms of each body of 2.1 and 2.2: UTF-8 text, or base64 of bytes that are not.
const BODY_FORMS: [(&str, &str); 2] = [
    ("body", "bodyBase64"),
    ("responseBody", "responseBodyBase64"),
];

/// Objects under `value` that carry both forms of a body, or neither (by JSON path).
fn one_body_form(value: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for_each_object(value, &mut |path, map| {
        let is_run = map.contains_key("dlqId");
        for (text, base64) in BODY_FORMS {
            let given = [text, base64]
                .iter()
                .filter(|k| map.contains_key(**k))
                .count();
            if given == 2 || (is_run && given == 0) {
                out.push(format!(
                    "{path}: `{text}` and `{base64}`: {given} given, one expected"
                ));
            }
        }
    });
    out
}

/// Whether an unpopulated path is the unused form of a body whose other form is given.
fn is_other_body_form(json: &Value, gap: &str) -> bool {
    let Some((parent, field)) = gap.rsplit_once('.') else {
        return false;
    };
    let pointer = parent
        .trim_start_matches('$')
        .replace('[', ".")
        .replace(']', "")
        .replace('.', "/");
    let Some(object) = json.pointer(&pointer).and_then(Value::as_object) else {
        return false;
    };
    BODY_FORMS.iter().any(|(text, base64)| {
        (field == *text && object.contains_key(*base64))
            || (field == *base64 && object.contains_key(*text))
    })
}

fn headers(pairs: &[(&str, &[&str])]) -> Headers {
    Headers::from(
        pairs
            .iter()
            .map(|(k, vs)| (k.to_string(), vs.iter().map(|v| v.to_string()).collect()))
            .collect::<BTreeMap<_, _>>(),
    )
}

fn point(x: &str, y: f64) -> DataPoint {
    DataPoint { x: x.to_owned(), y }
}

fn series() -> Vec<DataPoint> {
    vec![
        point("2025-10-23 17:33:00.000 +0000 UTC", 0.0),
        point("2025-10-23 17:34:00.000 +0000 UTC", 42.5),
    ]
}

fn daily() -> Vec<DataPoint> {
    vec![
        point("2025-10-01 11:33:05.585757103 +0000 UTC", 1250.0),
        point("2025-10-02 11:33:05.585757103 +0000 UTC", 0.25),
    ]
}

/// What the failure callback of both canonical runs answered.
fn refused_callback() -> FailureCallbackInfo {
    FailureCallbackInfo {
        response_body: Some("callback refusé ✗".to_owned()),
        response_headers: Some(headers(&[("Content-Type", &["text/plain; charset=utf-8"])])),
        response_status: Some(500),
        state: FailureFunctionState::CallbackFail,
    }
}

fn dlq_message() -> WorkflowDlqMessage {
    WorkflowDlqMessage {
        body: Some(r#"{"order":"Grüße aus Köln 🚚","qty":3}"#.to_owned()),
        body_base64: None,
        caller_ip: Some("203.0.113.7".to_owned()),
        created_at: 1_752_829_295_505,
        dlq_id: "1752829295505-0".to_owned(),
        failure_callback: Some("https://example.com/api/workflow/failure".to_owned()),
        failure_function_state: Some(FailureFunctionState::CallbackFail),
        failure_callback_info: Some(refused_callback()),
        message_id: Some(
            "msg_26hZCxZCuWyyTWPmSVBrNC1RADyRfrbCzgYc6sLbX7jHLtUxUKzHdzeiUmT".to_owned(),
        ),
        not_before: Some(1_752_829_300_000),
        flow_control_key: Some("tenant-42".to_owned()),
        header: headers(&[
            ("Content-Type", &["application/json"]),
            ("X-Trace", &["a1", "b2"]),
        ]),
        label: Some("nightly-sync".to_owned()),
        labels: vec!["nightly-sync".to_owned(), "région-eu".to_owned()],
        max_retries: 3,
        method: "POST".to_owned(),
        response_body: None,
        response_body_base64: Some(STANDARD.encode(NON_UTF8_BODY)),
        response_header: Some(headers(&[("Retry-After", &["30"])])),
        response_status: Some(503),
        url: "https://example.com/api/workflow/step-2".to_owned(),
        workflow_created_at: 1_752_829_290_001,
        workflow_run_id: "wfr_6MXGQ2tKgV9zq4rJcn8bHxW1".to_owned(),
        workflow_url: "https://example.com/api/workflow".to_owned(),
    }
}

#[test]
fn section_2_1_failed_run_in_a_list() {
    pin("2_1_workflow_dlq_message", &dlq_message(), true);
}

#[test]
fn section_2_2_single_failed_run() {
    let run = FailedWorkflowRun {
        body: None,
        body_base64: Some(STANDARD.encode(NON_UTF8_REQUEST)),
        caller_ip: Some("2001:db8::17".to_owned()),
        created_at: 1_752_829_295_505,
        dlq_id: "1752829295505-0".to_owned(),
        failure_callback: Some("https://example.com/api/workflow/failure".to_owned()),
        failure_callback_header: Some(headers(&[("Authorization", &["Bearer cb-token"])])),
        failure_callback_info: Some(refused_callback()),
        flow_control_key: Some("tenant-42".to_owned()),
        header: headers(&[
            ("Content-Type", &["application/json"]),
            ("Upstash-Retries", &["3"]),
        ]),
        label: Some("nightly-sync".to_owned()),
        labels: vec!["nightly-sync".to_owned(), "東京".to_owned()],
        max_retries: 3,
        message_id: "msg_26hZCxZCuWyyTWPmSVBrNC1RADyRfrbCzgYc6sLbX7jHLtUxUKzHdzeiUmT".to_owned(),
        method: "PUT".to_owned(),
        not_before: Some(1_752_829_300_000),
        response_body: Some("Service indisponible — réessayez".to_owned()),
        response_body_base64: None,
        response_header: Some(headers(&[("Retry-After", &["30"]), ("Via", &["1.1 edge"])])),
        response_status: Some(503),
        url: "https://example.com/api/workflow/step-2".to_owned(),
        workflow_created_at: 1_752_829_290_001,
        workflow_run_id: "wfr_6MXGQ2tKgV9zq4rJcn8bHxW1".to_owned(),
        workflow_url: "https://example.com/api/workflow".to_owned(),
    };
    pin("2_2_single_failed_run", &run, true);
}

#[test]
fn section_2_3_url_group() {
    let group = UrlGroup {
        created_at: 1_752_000_000_000,
        endpoints: vec![
            UrlGroupEndpoint {
                name: "primär".to_owned(),
                url: "https://eu.example.com/hooks/orders".to_owned(),
            },
            UrlGroupEndpoint {
                name: String::new(),
                url: "https://us.example.com/hooks/orders".to_owned(),
            },
        ],
        name: "orders-fan-out".to_owned(),
        updated_at: 1_752_829_295_505,
    };
    pin("2_3_url_group", &group, true);
}

#[test]
fn section_2_4_error_body() {
    let error = ErrorBody {
        error: "count: 500 is above the maximum 100 (« count » ≤ 100)".to_owned(),
    };
    pin("2_4_error_body", &error, true);
}

#[test]
fn section_2_5_search_index() {
    let index = SearchIndex {
        creation_time: 1_752_829_295,
        customer_id: "ada@example.com".to_owned(),
        endpoint: "https://glowing-owl-12345-eu1-search.example.io".to_owned(),
        hosting_email: "ops+hosting@example.com".to_owned(),
        id: serde_json::from_value(json!("3f1c1d2e-8b4a-4c1e-9d7f-2a6b5c4d3e21")).expect("uuid"),
        input_enrichment_enabled: true,
        max_daily_queries: -1,
        max_daily_updates: 10_000,
        max_monthly_bandwidth: -1,
        max_monthly_reranks: 1_000,
        max_query_per_second: 1_000,
        max_reads_per_request: 1_000,
        max_vector_count: 200_000_000,
        max_writes_per_request: 1_000,
        max_writes_per_second: 1_000,
        name: "docs-søk 🔎".to_owned(),
        read_only_token: "<INDEX_READ_ONLY_TOKEN>".to_owned(),
        region: IndexRegion::EuWest1,
        throughput_vector: series(),
        token: "<INDEX_TOKEN>".to_owned(),
        type_: IndexType::Payg,
    };
    pin("2_5_search_index", &index, true);
}

#[test]
fn section_2_6_data_point() {
    pin(
        "2_6_data_point",
        &point("2025-10-23 17:34:00.000 +0000 UTC", 42.5),
        false,
    );
}

#[test]
fn section_2_6_daily_request_data_point() {
    let point = DailyRequestDataPoint {
        workflow_message: 120.0,
        workflow_run: 30.5,
        x: "2025-10-01 11:33:05.585757103 +0000 UTC".to_owned(),
        y: 1500.0,
    };
    pin("2_6_daily_request_data_point", &point, false);
}

#[test]
fn section_2_6_named_series() {
    let named = NamedSeries {
        data_points: series(),
        id: "delivered".to_owned(),
    };
    pin("2_6_named_series", &named, false);
}

#[test]
fn section_2_7_search_index_stats() {
    let stats = SearchIndexStats {
        current_vector_count: 15_000,
        daily_bandwidths: daily(),
        daily_query_count: 320,
        daily_query_requests: daily(),
        daily_rerank_count: 12,
        daily_rerank_requests: daily(),
        daily_update_count: 45,
        daily_update_requests: daily(),
        data_size: series(),
        days: vec!["Wednesday".to_owned(), "Thursday".to_owned()],
        embeds_latency_99: series(),
        embeds_latency_mean: series(),
        monthly_bandwidth_usage: 7_340_032,
        monthly_cost: 1.75,
        monthly_query_count: 9_100,
        monthly_rerank_count: 300,
        monthly_update_count: 1_200,
        pending_index_count: 4,
        query_latency_99: series(),
        query_latency_mean: series(),
        query_throughput: series(),
        rerank_latency_99: series(),
        rerank_latency_mean: series(),
        storage_usage: 52_428_800,
        update_latency_99: series(),
        update_latency_mean: series(),
        update_throughput: series(),
        vector_count: series(),
    };
    pin("2_7_search_index_stats", &stats, false);
}

#[test]
fn section_2_8_account_stats() {
    let named = |id: &str| NamedSeries {
        data_points: series(),
        id: id.to_owned(),
    };
    let stats = AccountStats {
        daily_bandwidth_used: series(),
        daily_bandwidths: daily(),
        daily_billings: daily(),
        daily_requests: vec![DailyRequestDataPoint {
            workflow_message: 120.0,
            workflow_run: 30.0,
            x: "2025-10-01 11:33:05.585757103 +0000 UTC".to_owned(),
            y: 1500.0,
        }],
        daily_svc_messages: vec![named("delivered"), named("failed")],
        daily_used: series(),
        daily_used_workflow: series(),
        daily_workflow_messages: vec![named("run_started"), named("run_failed")],
        days: vec!["Wednesday".to_owned(), "Thursday".to_owned()],
        dlq_message_count: 7,
        total_monthly_billing: 12.34,
    };
    pin("2_8_account_stats", &stats, false);
}

#[test]
fn section_2_9_messaging_account() {
    let account = MessagingAccount {
        active: true,
        created_by: "zoë@example.com".to_owned(),
        creation_time: 1_700_000_000,
        customer_id: "zoë@example.com".to_owned(),
        id: serde_json::from_value(json!("9b2e4f60-1c3d-4e5f-8a7b-6c5d4e3f2a10")).expect("uuid"),
        last_plan_upgrade_time: 1_750_000_000,
        max_delay: 604_800,
        max_dlq_retention_time_milis: 604_800_000,
        max_dlq_size: 1_000,
        max_endpoints_per_topic: 100,
        max_events_size: 10_000,
        max_global_parallelism: 1_000,
        max_message_size: 1_048_576,
        max_parallelism: 10,
        max_queues: 10,
        max_requests_per_day: 1_000_000,
        max_requests_per_day_hard: 1_500_000,
        max_requests_per_second: 100,
        max_retries: 5,
        max_schedules: 1_000,
        max_topics: 100,
        password: "<PASSWORD>".to_owned(),
        prod_pack_enabled: true,
        reserved_price: 180.0,
        reserved_type: ReservedPlanType::SvcEnterprise1m,
        state: AccountState::Active,
        timeout: 900,
        token: "<SERVICE_TOKEN>".to_owned(),
        type_: PlanType::Paid,
    };
    pin("2_9_messaging_account", &account, true);
}

#[test]
fn section_4_1_list_response() {
    let mut second = dlq_message();
    second.dlq_id = "1752829295505-1".to_owned();
    // The listed state is the failure callback's (the models derive one from the other), so
    // both say the same: an entry whose two states differ cannot exist.
    second.failure_function_state = Some(FailureFunctionState::CallbackSuccess);
    if let Some(info) = &mut second.failure_callback_info {
        info.state = FailureFunctionState::CallbackSuccess;
    }
    // The other form of each body, so the page shows both.
    second.body = None;
    second.body_base64 = Some(STANDARD.encode(NON_UTF8_REQUEST));
    second.response_body = Some("upstream: «indisponible» ⚠".to_owned());
    second.response_body_base64 = None;
    let page = WorkflowDlqPage {
        // The cursor the service gives after that entry (the spec's `DlqCursor` pattern).
        cursor: Some("d1.313735323832393239353530352d31".to_owned()),
        messages: vec![dlq_message(), second],
    };
    pin("4_1_list_response", &page, true);
}

#[test]
fn section_4_3_bulk_delete_response() {
    let deleted = BulkDeleteResult {
        cursor: Some("d1.313735323832393239353530352d3939".to_owned()),
        deleted: 100,
    };
    pin("4_3_bulk_delete_response", &deleted, false);
}
