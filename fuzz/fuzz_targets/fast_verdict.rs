//! Fuzz target: courier-verify's fast path (`Validator::passes_fast`, and `Validator::decode`
//! into the models) against the full validator on any answer of any operation. The input reads
//! as `verify_response`'s: the first byte picks the operation, the next two the status, the next
//! one the content type; the rest is the body. Panics when the fast path's verdict differs from
//! the full validator's, when decoding passes an answer the full validator refuses, or when the
//! report of a refused one is not the full validator's. A body whose objects repeat a member
//! name may be refused by the fast path and passed by the full validator (which reads the last
//! value): there only a pass of the fast path must be right.
#![no_main]

use courier_verify::{Decoded, Validator, Violation};
use http::{HeaderMap, HeaderValue, header::CONTENT_TYPE};
use libfuzzer_sys::fuzz_target;
use serde::de::{DeserializeOwned, MapAccess, SeqAccess, Visitor};
use std::collections::HashSet;
use std::sync::LazyLock;

static VALIDATOR: LazyLock<Validator> =
    LazyLock::new(|| Validator::courier().expect("the committed contract compiles"));

const CONTENT_TYPES: [&[u8]; 5] = [
    b"application/json",
    b"application/json; charset=utf-8",
    b"text/plain",
    b"application/problem+json",
    b"",
];

/// Decoding as `T` agrees with `full`, the full validator's report.
fn typed<T: DeserializeOwned>(
    op: &str,
    status: u16,
    headers: &HeaderMap,
    body: &[u8],
    full: &[Violation],
) {
    match VALIDATOR.decode::<T>(op, status, headers, body) {
        Decoded::Valid(_) | Decoded::Undecodable(_) => assert!(full.is_empty(), "{full:?}"),
        Decoded::Invalid(report) => assert_eq!(report, full),
    }
}

/// Whether some object of a JSON text repeats a member name (`false` for text that is not JSON).
fn repeats_a_name(body: &[u8]) -> bool {
    struct Repeats(bool);
    impl<'de> serde::Deserialize<'de> for Repeats {
        fn deserialize<D: serde::Deserializer<'de>>(de: D) -> Result<Repeats, D::Error> {
            de.deserialize_any(Repeats(false))
        }
    }
    impl<'de> Visitor<'de> for Repeats {
        type Value = Repeats;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("JSON")
        }
        fn visit_bool<E>(self, _: bool) -> Result<Repeats, E> {
            Ok(self)
        }
        fn visit_i64<E>(self, _: i64) -> Result<Repeats, E> {
            Ok(self)
        }
        fn visit_u64<E>(self, _: u64) -> Result<Repeats, E> {
            Ok(self)
        }
        fn visit_f64<E>(self, _: f64) -> Result<Repeats, E> {
            Ok(self)
        }
        fn visit_str<E>(self, _: &str) -> Result<Repeats, E> {
            Ok(self)
        }
        fn visit_unit<E>(self) -> Result<Repeats, E> {
            Ok(self)
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Repeats, A::Error> {
            let mut repeats = false;
            while let Some(Repeats(inner)) = seq.next_element()? {
                repeats |= inner;
            }
            Ok(Repeats(repeats))
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Repeats, A::Error> {
            let (mut repeats, mut names) = (false, HashSet::new());
            while let Some(name) = map.next_key::<String>()? {
                repeats |= !names.insert(name);
                repeats |= map.next_value::<Repeats>()?.0;
            }
            Ok(Repeats(repeats))
        }
    }
    serde_json::from_slice::<Repeats>(body).is_ok_and(|Repeats(repeats)| repeats)
}

fuzz_target!(|data: &[u8]| {
    let [op, high, low, content_type, body @ ..] = data else {
        return;
    };
    let operations = &VALIDATOR.contract().operations;
    let operation = &operations[usize::from(*op) % operations.len()];
    let status = 100 + u16::from_be_bytes([*high, *low]) % 500;
    let mut headers = HeaderMap::new();
    let chosen = CONTENT_TYPES[usize::from(*content_type) % CONTENT_TYPES.len()];
    if let Ok(value) = HeaderValue::from_bytes(chosen)
        && !chosen.is_empty()
    {
        headers.insert(CONTENT_TYPE, value);
    }
    let id = operation.operation_id.as_str();
    let full = VALIDATOR.validate(id, status, &headers, body);
    let fast = VALIDATOR.passes_fast(id, status, &headers, body);
    if repeats_a_name(body) {
        assert!(!fast || full.is_empty(), "{full:?}");
    } else {
        assert_eq!(fast, full.is_empty(), "{full:?}");
    }
    use courier_models as m;
    let schema = operation
        .response(status)
        .and_then(|response| response.content.get("application/json"))
        .and_then(|schema| schema.get("$ref"))
        .and_then(|reference| reference.as_str());
    match schema.map(|reference| reference.trim_start_matches("#/$defs/")) {
        Some("WorkflowDlqPage") => typed::<m::WorkflowDlqPage>(id, status, &headers, body, &full),
        Some("FailedWorkflowRun") => {
            typed::<m::FailedWorkflowRun>(id, status, &headers, body, &full)
        }
        Some("BulkDeleteResult") => typed::<m::BulkDeleteResult>(id, status, &headers, body, &full),
        Some("BulkCancelResult") => typed::<m::BulkCancelResult>(id, status, &headers, body, &full),
        Some("UrlGroup") => typed::<m::UrlGroup>(id, status, &headers, body, &full),
        Some("SearchIndex") => typed::<m::SearchIndex>(id, status, &headers, body, &full),
        Some("SearchIndexStats") => typed::<m::SearchIndexStats>(id, status, &headers, body, &full),
        Some("AccountStats") => typed::<m::AccountStats>(id, status, &headers, body, &full),
        Some("MessagingAccount") => typed::<m::MessagingAccount>(id, status, &headers, body, &full),
        _ => typed::<m::ErrorBody>(id, status, &headers, body, &full),
    }
});
