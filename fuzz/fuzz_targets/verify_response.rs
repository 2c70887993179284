//! Fuzz target: courier-verify's `Validator` on any answer of any operation, as a hostile server
//! could send it. The first byte picks the operation, the next two the status, the next one the
//! content type (or bytes that are no valid header text); the rest is the body. Panics on a crash
//! and when a report is not a report: a violation of another operation or status, without a rule
//! or a message, with a pointer that is not a JSON pointer, or with a value past the shortening
//! limit. libFuzzer's -timeout and -rss_limit_mb bound time and memory.
#![no_main]

use courier_verify::Validator;
use courier_verify::violation::VALUE_LIMIT;
use http::{HeaderMap, HeaderValue, header::CONTENT_TYPE};
use libfuzzer_sys::fuzz_target;
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
    for violation in VALIDATOR.validate(&operation.operation_id, status, &headers, body) {
        assert_eq!(violation.operation_id, operation.operation_id);
        assert_eq!(violation.status, status);
        assert!(!violation.rule.is_empty(), "{violation:?}");
        assert!(!violation.message.is_empty(), "{violation:?}");
        assert!(
            violation.pointer.is_empty() || violation.pointer.starts_with('/'),
            "{violation:?}"
        );
        // The limit, plus the one `…` that marks a shortened value.
        assert!(
            violation.value.chars().count() <= VALUE_LIMIT + 1,
            "{violation:?}"
        );
    }
});
