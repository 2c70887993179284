//! Answers read from arbitrary bytes, as the fuzz targets `verify_response` and `fast_verdict`
//! read their input: the first byte picks the operation, the next two the status, the next one
//! the content type; the rest is the body. One reading for both targets, which include this
//! file with `#[path]`; `tests/fast_path.rs` includes it too and replays a sweep of such
//! inputs, so `cargo test` builds what the fuzz targets run.

use courier_verify::Contract;
use courier_verify::contract::OperationContract;
use http::header::CONTENT_TYPE;
use http::{HeaderMap, HeaderValue};

/// The content types an input picks from: the documented one, the same with a parameter,
/// another type, a JSON type the spec does not document, and none at all.
pub(crate) const CONTENT_TYPES: [Option<&str>; 5] = [
    Some("application/json"),
    Some("application/json; charset=utf-8"),
    Some("text/plain"),
    Some("application/problem+json"),
    None,
];

/// One answer of one operation.
pub(crate) struct Answer<'a> {
    pub operation: &'static OperationContract,
    pub status: u16,
    pub headers: HeaderMap,
    pub body: &'a [u8],
}

/// The answer `data` reads as; `None` when it is too short to pick one.
pub(crate) fn read(data: &[u8]) -> Option<Answer<'_>> {
    let [op, high, low, content_type, body @ ..] = data else {
        return None;
    };
    let operations = &Contract::courier().operations;
    let mut headers = HeaderMap::new();
    if let Some(chosen) = CONTENT_TYPES[usize::from(*content_type) % CONTENT_TYPES.len()] {
        headers.insert(CONTENT_TYPE, HeaderValue::from_static(chosen));
    }
    Some(Answer {
        operation: &operations[usize::from(*op) % operations.len()],
        // Every status from 100 to 599, documented or not.
        status: 100 + u16::from_be_bytes([*high, *low]) % 500,
        headers,
        body,
    })
}
