//! Fuzz target: courier-verify's `Validator` on any answer of any operation, as a hostile server
//! could send it. The input reads as the shared `answers.rs` says: the first byte picks the
//! operation, the next two the status, the next one the content type (or none); the rest is the
//! body. Panics on a crash and when a report is not a report: a violation of another operation
//! or status, without a rule or a message, with a pointer that is not a JSON pointer, or with a
//! value past the shortening limit. libFuzzer's -timeout and -rss_limit_mb bound time and memory.
#![no_main]

// The reading `fast_verdict` and `crates/verify/tests/it/fast_path.rs` share.
#[path = "../../crates/verify/tests/it/support/answers.rs"]
mod answers;

use courier_verify::Validator;
use courier_verify::violation::VALUE_LIMIT;
use libfuzzer_sys::fuzz_target;
use std::sync::LazyLock;

static VALIDATOR: LazyLock<Validator> =
    LazyLock::new(|| Validator::courier().expect("the committed contract compiles"));

fuzz_target!(|data: &[u8]| {
    let Some(answers::Answer {
        operation,
        status,
        headers,
        body,
    }) = answers::read(data)
    else {
        return;
    };
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
