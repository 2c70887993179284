//! Opt-in validation of every answer against the spec (feature `validate`, switched on per
//! client with `validate_responses(true)`).
//!
//! The generated code decodes an answer right after the `post` hook, so validation sits in the
//! hooks: `exec` reads the answer whole, validates its status, headers and bytes with
//! courier-verify's validator (built from the same spec as this crate), and hands the generated
//! code an equal response; `post` then fails the call when the answer broke the spec, before
//! anything is decoded. progenitor's hooks can only fail with a message, so the violations travel
//! as JSON behind a marker and become [`CourierError::violations`](crate::CourierError) again.

use courier_verify::{Validator, Violation};
use reqwest::ResponseBuilderExt as _;
use std::sync::OnceLock;

/// Starts the message of a hook error that carries violations.
const MARKER: &str = "courier-client contract violations:";

/// The answer's violations, left by `exec` in the response's extensions for `post`.
#[derive(Clone)]
struct Violations(Vec<Violation>);

/// The validator of the spec this crate was generated from, compiled once per process.
fn validator() -> Option<&'static Validator> {
    static VALIDATOR: OnceLock<Option<Validator>> = OnceLock::new();
    VALIDATOR.get_or_init(|| Validator::courier().ok()).as_ref()
}

/// `response`, read whole and validated as the answer of the operation progenitor calls
/// `rust_name`, rebuilt unchanged for
/// the generated code; its violations (if any) ride along in its extensions.
pub(crate) async fn validated(
    rust_name: &str,
    response: reqwest::Response,
) -> reqwest::Result<reqwest::Response> {
    // progenitor names the operation in snake_case; the spec and the report use operationId.
    let operation_id = courier_models::operation(rust_name).map_or(rust_name, |op| op.id);
    let status = response.status();
    let version = response.version();
    let url = response.url().clone();
    let headers = response.headers().clone();
    let body = response.bytes().await?;
    let violations = match validator() {
        Some(validator) => validator.validate(operation_id, status.as_u16(), &headers, &body),
        None => vec![Violation {
            operation_id: operation_id.to_owned(),
            status: status.as_u16(),
            place: courier_verify::Place::Body,
            pointer: String::new(),
            rule: "contract".into(),
            value: String::new(),
            message: "the spec's contract did not compile, so nothing could be validated".into(),
        }],
    };
    let mut rebuilt = http::Response::builder()
        .status(status)
        .version(version)
        .url(url)
        .body(body)
        .expect("the parts of a response that was just received");
    *rebuilt.headers_mut() = headers;
    if !violations.is_empty() {
        rebuilt.extensions_mut().insert(Violations(violations));
    }
    Ok(reqwest::Response::from(rebuilt))
}

/// The message of the hook error for the violations `validated` found in `response`, if any.
pub(crate) fn violations_message(response: &reqwest::Response) -> Option<String> {
    let Violations(found) = response.extensions().get::<Violations>()?;
    Some(format!(
        "{MARKER}{}",
        serde_json::to_string(found).expect("violations are plain data")
    ))
}

/// The violations a hook error carries, if it is one of ours.
pub(crate) fn violations_in(message: &str) -> Option<Vec<Violation>> {
    serde_json::from_str(message.strip_prefix(MARKER)?).ok()
}
