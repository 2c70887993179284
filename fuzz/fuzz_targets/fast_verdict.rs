//! Fuzz target: courier-verify's fast path (`Validator::passes_fast`, and `Validator::decode`
//! into the models) against the full validator on any answer of any operation. The input reads
//! as `verify_response`'s (the shared `answers.rs`: the first byte picks the operation, the next
//! two the status, the next one the content type; the rest is the body), and each answer goes
//! through the comparison `crates/verify/tests/it/fast_path.rs` makes too (`differential.rs`).
//! Panics when the fast path's verdict differs from the full validator's, when decoding passes
//! an answer the full validator refuses, or when the report of a refused one is not the full
//! validator's. A body whose objects repeat a member name may be refused by the fast path and
//! passed by the full validator (which reads the last value): there only a pass of the fast path
//! must be right.
#![no_main]

// Shared with the differential test, so `cargo test` builds what this target runs.
#[path = "../../crates/verify/tests/it/support/answers.rs"]
mod answers;
#[path = "../../crates/verify/tests/it/support/differential.rs"]
mod differential;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Some(answer) = answers::read(data) {
        differential::agree(
            answer.operation,
            answer.status,
            &answer.headers,
            answer.body,
        );
    }
});
