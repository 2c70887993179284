//! Hostile input to the service's own parsers: cursor decoding, every admin payload (on
//! arbitrary bytes, arbitrary JSON and valid payloads with one field replaced) and the console's
//! DLQ filter query on its way from page to page. Never a panic; a refusal always says what was
//! wrong; what is accepted keeps the parser's promises.

#[path = "support/console_filters.rs"]
mod console_filters;

use courier_server::DeleteWorkflowDlqBulkRequest;
use courier_service::account::default_account;
use courier_service::admin::{
    LIMIT_FIELDS, parse_dlq_batch, parse_limits_patch, parse_run_batch, parse_search_index,
    parse_topic,
};
use courier_service::cursor;
use proptest::collection::{btree_map, vec};
use proptest::prelude::*;
use proptest::sample::select;
use serde_json::{Map, Value, json};

const NOW: i64 = 1_752_829_295_505;
const INDEX_ID: &str = "6f1d3c1e-8f6a-4c1b-9a7e-2b5d0c9e4a10";

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// Whether `text` has the spec's `DlqCursor` shape, `^d1\.([0-9a-f]{2})+$`.
fn is_cursor_shaped(text: &str) -> bool {
    text.strip_prefix("d1.").is_some_and(|hex| {
        !hex.is_empty()
            && hex.len().is_multiple_of(2)
            && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
    })
}

/// Strings near the cursor shape as well as far from it.
fn cursor_like() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        "d1\\.[0-9a-fA-FxX ]{0,12}",
        "[dD][0-9]\\.[0-9a-f]{0,9}",
        vec(any::<u8>(), 0..24).prop_map(|bytes| cursor::encode(&String::from_utf8_lossy(&bytes))),
    ]
}

/// Any JSON value, nested a few levels, with the keys the payloads use among random ones.
fn any_json() -> impl Strategy<Value = Value> {
    let keys = prop_oneof![
        select(
            &[
                "dlqId",
                "url",
                "method",
                "header",
                "workflowRunId",
                "workflowUrl",
                "workflowCreatedAt",
                "maxRetries",
                "createdAt",
                "body",
                "bodyBase64",
                "endpoints",
                "id",
                "name",
                "throughput_vector",
                "max_dlq_size",
                "prod_pack_enabled",
                "reserved_price",
            ][..]
        )
        .prop_map(str::to_owned),
        ".{0,8}",
    ];
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        ".{0,12}".prop_map(Value::from),
        Just(Value::from("/w+8AA==")),
    ];
    leaf.prop_recursive(4, 48, 6, move |inner| {
        prop_oneof![
            vec(inner.clone(), 0..6).prop_map(Value::Array),
            btree_map(keys.clone(), inner, 0..6)
                .prop_map(|map| Value::Object(map.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// Bytes that are mostly not JSON, sometimes JSON cut short or with garbage appended.
fn any_body() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        vec(any::<u8>(), 0..256),
        (any_json(), any::<u16>(), vec(any::<u8>(), 0..4)).prop_map(|(value, cut, tail)| {
            let mut bytes = serde_json::to_vec(&value).expect("serialises");
            bytes.truncate(usize::from(cut) % (bytes.len() + 1));
            bytes.extend(tail);
            bytes
        }),
    ]
}

/// A valid entry for `POST /admin/v1/dlq`.
fn valid_entry() -> Value {
    json!({
        "url": "https://app.example/api/workflow",
        "method": "POST",
        "workflowRunId": "wfr_1",
        "workflowUrl": "https://app.example/api/workflow",
        "workflowCreatedAt": NOW - 5000,
        "maxRetries": 3,
        "labels": ["beta"],
        "body": "{\"order\":1}",
    })
}

fn valid_index() -> Value {
    json!({
        "customer_id": "team@example.com",
        "name": "products",
        "endpoint": "https://products.example.com",
        "type": "payg",
        "region": "eu-west-1",
        "hosting_email": "",
        "token": "read-write",
        "read_only_token": "read-only",
        "max_vector_count": 1000,
        "max_monthly_reranks": -1,
        "max_daily_updates": -1,
        "max_daily_queries": -1,
        "max_monthly_bandwidth": -1,
        "max_writes_per_second": 10,
        "max_query_per_second": 10,
        "max_reads_per_request": 100,
        "max_writes_per_request": 100,
        "creation_time": NOW / 1000,
        "input_enrichment_enabled": false
    })
}

/// A refusal says what it refuses: not empty, not a bare serde message without context.
fn check_refusal(message: &str, context: &[&str]) -> Result<(), TestCaseError> {
    prop_assert!(!message.trim().is_empty());
    prop_assert!(
        context.iter().any(|c| message.contains(c)),
        "{message:?} names none of {context:?}"
    );
    Ok(())
}

/// Every admin parser on one body: accepted or refused with a message, never a panic.
fn every_admin_parser(body: &[u8]) -> Result<(), TestCaseError> {
    let account = default_account("team@example.com", "token".into(), NOW);
    if let Err(message) = parse_dlq_batch(body, NOW) {
        check_refusal(&message, &["the body is not valid", "entry "])?;
    }
    if let Err(message) = parse_run_batch(body) {
        check_refusal(&message, &["the body is not valid", "entry "])?;
    }
    if let Err(message) = parse_topic(body, 50) {
        check_refusal(
            &message,
            &["the body is not valid", "endpoints", "URL group"],
        )?;
    }
    if let Err(message) = parse_search_index(INDEX_ID, body) {
        check_refusal(
            &message,
            &["the body is not", "`id`", "`throughput_vector`"],
        )?;
    }
    match parse_limits_patch(&account, body) {
        Ok(patched) => {
            // Accepted: only limit fields changed, the credentials and identity untouched.
            prop_assert_eq!(&patched.token, &account.token);
            prop_assert_eq!(&patched.customer_id, &account.customer_id);
            prop_assert_eq!(&patched.id, &account.id);
        }
        Err(message) => check_refusal(&message, &["the body is not valid", "`"])?,
    }
    Ok(())
}

proptest! {
    #![proptest_config(config(2000))]

    #[test]
    fn cursor_decoding_takes_any_text(text in cursor_like()) {
        match cursor::decode(&text) {
            Ok(position) => {
                prop_assert!(is_cursor_shaped(&text), "{text:?} accepted");
                // A cursor this service issued decodes to the position it encodes.
                let bytes: Vec<u8> = (3..text.len())
                    .step_by(2)
                    .map(|i| u8::from_str_radix(&text[i..i + 2], 16).expect("hex"))
                    .collect();
                if let Ok(original) = std::str::from_utf8(&bytes) {
                    prop_assert_eq!(position.as_str(), original);
                }
            }
            Err(message) => {
                prop_assert!(!is_cursor_shaped(&text), "{text:?} refused: {message}");
                prop_assert!(message.contains("`cursor`"), "{message}");
            }
        }
    }

    #[test]
    fn every_issued_cursor_is_spec_shaped_and_round_trips(id in ".{1,40}") {
        let issued = cursor::encode(&id);
        prop_assert!(is_cursor_shaped(&issued), "{issued}");
        prop_assert_eq!(cursor::decode(&issued), Ok(id));
    }
}

/// A console query: the bulk delete's keys (the list's and `dlqIds`) and a few others, with
/// values valid and not, empty form fields and encoded commas among them.
fn console_query() -> impl Strategy<Value = String> {
    let key = prop_oneof![
        4 => select(DeleteWorkflowDlqBulkRequest::QUERY_KEYS.to_vec()).prop_map(str::to_owned),
        // Keys the parsers decode: the pages' own keys spelled so that a byte-wise match misses.
        1 => select(vec!["period", "Label", "", "%63ursor", "%63ount", "dlq%49ds", "l%61bel"])
            .prop_map(str::to_owned),
        1 => "[a-zA-Z%=]{1,6}",
    ];
    let value = prop_oneof![
        select(vec![
            "",
            "a",
            "a,b",
            "a%2Cb",
            "a,,b",
            ",",
            "1761240000000",
            "-1",
            "25",
            "1000",
            "1001",
            "CALLBACK_FAIL",
            "callback_fail",
            "d1.aa",
            "d1.3137",
            "true",
            "192.0.2.44",
            "https%3A%2F%2Fx.example%2Fwf",
            "x+y",
            "%zz",
            "%E2%82%AC",
        ])
        .prop_map(str::to_owned),
        "[ -~]{0,8}",
    ];
    vec((key, value), 0..6).prop_map(|pairs| {
        pairs
            .into_iter()
            .map(|(key, value)| format!("{key}={value}"))
            .collect::<Vec<_>>()
            .join("&")
    })
}

proptest! {
    #![proptest_config(config(3000))]

    #[test]
    fn the_console_reads_its_filters_alike_on_every_page(text in console_query()) {
        if let Some(raw) = console_filters::query_of_a_request(&text) {
            console_filters::check_console_filters(&raw);
        }
    }
}

proptest! {
    #![proptest_config(config(1500))]

    #[test]
    fn admin_parsers_take_arbitrary_bytes(body in any_body()) {
        every_admin_parser(&body)?;
    }

    #[test]
    fn admin_parsers_take_arbitrary_json(value in any_json()) {
        every_admin_parser(&serde_json::to_vec(&value).expect("serialises"))?;
    }

    #[test]
    fn a_dlq_batch_with_one_field_replaced_is_all_or_nothing(
        field in select(&[
            "url", "method", "header", "workflowRunId", "workflowUrl", "workflowCreatedAt",
            "maxRetries", "createdAt", "body", "bodyBase64", "labels", "label",
            "failureCallbackInfo", "responseStatus", "callerIP", "notBefore", "unknownField",
        ][..]),
        replacement in any_json(),
        position in 0usize..3,
    ) {
        let mut broken = valid_entry();
        broken.as_object_mut().expect("object").insert(field.to_owned(), replacement);
        let mut batch = vec![valid_entry(), valid_entry()];
        batch.insert(position, broken);
        let body = serde_json::to_vec(&batch).expect("serialises");
        match parse_dlq_batch(&body, NOW) {
            Ok(runs) => {
                prop_assert_eq!(runs.len(), 3);
                for run in &runs {
                    prop_assert!(!run.workflow_run_id.trim().is_empty());
                    prop_assert!(!run.url.trim().is_empty());
                    prop_assert!(run.max_retries >= 0);
                    prop_assert!(!(run.body.is_some() && run.body_base64.is_some()));
                }
            }
            // The refusal points at the broken entry, not at one of the valid ones.
            Err(message) => prop_assert!(
                message.starts_with(&format!("entry {position}: ")),
                "{message}"
            ),
        }
    }

    #[test]
    fn a_search_index_with_one_field_replaced_is_refused_or_typed(
        field in select(&[
            "name", "type", "region", "creation_time", "max_vector_count", "token",
            "id", "input_enrichment_enabled", "throughput_vector", "unknown",
        ][..]),
        replacement in any_json(),
    ) {
        let mut index = valid_index();
        index.as_object_mut().expect("object").insert(field.to_owned(), replacement);
        let body = serde_json::to_vec(&index).expect("serialises");
        match parse_search_index(INDEX_ID, &body) {
            Ok(parsed) => {
                prop_assert_eq!(parsed.id.to_string(), INDEX_ID);
                prop_assert!(parsed.throughput_vector.is_empty());
            }
            Err(message) => check_refusal(
                &message,
                &["search index", "`id`", "`throughput_vector`"],
            )?,
        }
    }

    #[test]
    fn a_limits_patch_changes_exactly_the_named_limits(
        patch in btree_map(
            prop_oneof![select(&LIMIT_FIELDS[..]).prop_map(str::to_owned), ".{0,6}"],
            any_json(),
            0..4,
        ),
    ) {
        let account = default_account("team@example.com", "token".into(), NOW);
        let body = serde_json::to_vec(&patch).expect("serialises");
        let before = serde_json::to_value(&account).expect("serialises");
        match parse_limits_patch(&account, &body) {
            Ok(patched) => {
                let after = serde_json::to_value(&patched).expect("serialises");
                for (key, value) in after.as_object().expect("object") {
                    match patch.get(key) {
                        Some(given) => prop_assert!(
                            given == value || given.as_f64() == value.as_f64(),
                            "{key}: sent {given}, stored {value}"
                        ),
                        None => prop_assert_eq!(value, &before[key.as_str()], "{} changed", key),
                    }
                }
            }
            Err(message) => prop_assert!(
                patch.keys().any(|key| message.contains(&format!("`{key}`")))
                    || message.starts_with("the body is not valid"),
                "{message} names no key of {:?}", patch.keys().collect::<Vec<_>>()
            ),
        }
    }
}

/// The properties above refuse most mutations; this proves their starting points are accepted,
/// so an accepted mutation is checked too and not just every refusal.
#[test]
fn the_unmutated_payloads_are_accepted() {
    let batch = serde_json::to_vec(&[valid_entry(), valid_entry()]).expect("serialises");
    let runs = parse_dlq_batch(&batch, NOW).expect("valid batch");
    assert_eq!(runs.len(), 2);
    assert_eq!(runs[0].created_at, NOW, "`createdAt` defaults to now");
    assert!(runs[0].message_id.starts_with("msg_"));
    let index = serde_json::to_vec(&valid_index()).expect("serialises");
    let index = parse_search_index(INDEX_ID, &index).expect("valid index");
    assert_eq!(index.id.to_string(), INDEX_ID);
    let account = default_account("team@example.com", "token".into(), NOW);
    let patched = parse_limits_patch(&account, br#"{"max_dlq_size": 7}"#).expect("valid patch");
    assert_eq!(patched.max_dlq_size, 7);
    assert_eq!(
        parse_topic(
            br#"{"endpoints": [{"name": "", "url": "https://a.example"}]}"#,
            1
        )
        .expect("valid topic")
        .len(),
        1
    );
    assert!(
        parse_topic(
            br#"{"endpoints": [{"name": "", "url": "https://a.example"}]}"#,
            0
        )
        .is_err()
    );
    assert_eq!(
        parse_run_batch(
            br#"[{"workflowRunId": "wfr_1", "workflowUrl": "u", "workflowCreatedAt": 1}]"#
        )
        .expect("valid runs")
        .len(),
        1
    );
}
