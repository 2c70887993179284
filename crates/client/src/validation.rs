//! Opt-in validation of every answer against the spec (feature `validate`, switched on per
//! client with `validate_responses(true)`), by courier-verify's validator (built from the same
//! spec as this crate).
//!
//! An answer with a JSON body is validated while it is decoded: the generated code decodes
//! through the client's `decode_response`, which calls [`decoded`], and courier-verify's
//! [`Validator::decode`] checks each value as the typed model reads it, in one pass over the
//! bytes; only when that pass finds something does the full validator run, to write the report.
//! Any other answer (no body, an undocumented status) is not decoded, so `exec` validates it
//! whole ([`validated`]) and `post` fails the call when it broke the spec. progenitor's hooks
//! can only fail with a message, so the violations travel as JSON behind a marker and become
//! [`CourierError::violations`](crate::CourierError) again.

use courier_verify::{Decoded, Validator, Violation};
use progenitor_client::{Error, ResponseValue};
use reqwest::ResponseBuilderExt as _;
use std::sync::OnceLock;

/// Starts the message of a hook error that carries violations.
const MARKER: &str = "courier-client contract violations:";

/// The answer's violations, left by `exec` in the response's extensions for `post`.
#[derive(Clone)]
struct Violations(Vec<Violation>);

/// Why `exec` did not read the answer whole (it passed the cap), left for `post`.
#[derive(Clone)]
struct NotRead(String);

/// The validator of the spec this crate was generated from, compiled once per process.
fn validator() -> Option<&'static Validator> {
    static VALIDATOR: OnceLock<Option<Validator>> = OnceLock::new();
    VALIDATOR.get_or_init(|| Validator::courier().ok()).as_ref()
}

/// The operationId of the operation progenitor calls `rust_name` (the spec and the report use
/// operationId, progenitor snake_case).
fn operation_id(rust_name: &str) -> &str {
    courier_models::operation(rust_name).map_or(rust_name, |op| op.id)
}

/// What is reported when there is no validator.
fn no_validator(operation_id: &str, status: u16) -> Vec<Violation> {
    vec![Violation {
        operation_id: operation_id.to_owned(),
        status,
        place: courier_verify::Place::Body,
        pointer: String::new(),
        rule: "contract".into(),
        value: String::new(),
        message: "the spec's contract did not compile, so nothing could be validated".into(),
    }]
}

/// Whether the spec documents a JSON body for this answer, which the generated code then
/// decodes through [`decoded`]: progenitor's arms and the contract come from the same spec.
fn decoded_later(operation_id: &str, status: u16) -> bool {
    let Some(validator) = validator() else {
        return false;
    };
    validator
        .contract()
        .operation(operation_id)
        .and_then(|op| op.response(status))
        .is_some_and(|response| response.content.keys().any(|media| media.ends_with("json")))
}

/// `response` validated as the answer of the operation progenitor calls `rust_name`, unless
/// its body is validated as it is decoded ([`decoded`]): then it passes untouched. Otherwise it
/// is read whole (up to `max` bytes) and rebuilt unchanged for the generated code, and its
/// violations (if any), or why it was not read whole, ride along in its extensions.
pub(crate) async fn validated(
    rust_name: &str,
    response: reqwest::Response,
    max: usize,
) -> reqwest::Result<reqwest::Response> {
    let operation_id = operation_id(rust_name);
    let status = response.status();
    if decoded_later(operation_id, status.as_u16()) {
        return Ok(response);
    }
    let version = response.version();
    let url = response.url().clone();
    let headers = response.headers().clone();
    let rebuilt = |body: bytes::Bytes| {
        let mut rebuilt = http::Response::builder()
            .status(status)
            .version(version)
            .url(url.clone())
            .body(body)
            .expect("the parts of a response that was just received");
        *rebuilt.headers_mut() = headers.clone();
        rebuilt
    };
    let body = match crate::limits::read_body(response, max, rust_name).await {
        Ok(body) => body,
        Err(crate::limits::BodyError::Read(error)) => return Err(error),
        Err(crate::limits::BodyError::TooLarge(message)) => {
            let mut refused = rebuilt(bytes::Bytes::new());
            refused.extensions_mut().insert(NotRead(message));
            return Ok(reqwest::Response::from(refused));
        }
    };
    let violations = match validator() {
        Some(validator) => validator.validate(operation_id, status.as_u16(), &headers, &body),
        None => no_validator(operation_id, status.as_u16()),
    };
    let mut rebuilt = rebuilt(body);
    if !violations.is_empty() {
        rebuilt.extensions_mut().insert(Violations(violations));
    }
    Ok(reqwest::Response::from(rebuilt))
}

/// The body of `response` decoded as `T` and validated in the same pass, as the answer of the
/// operation progenitor calls `rust_name`: what the generated code gets in place of
/// `ResponseValue::from_response` when the client validates.
pub(crate) async fn decoded<T: serde::de::DeserializeOwned, E>(
    rust_name: &str,
    response: reqwest::Response,
    max: usize,
) -> Result<ResponseValue<T>, Error<E>> {
    let operation_id = operation_id(rust_name);
    let status = response.status();
    let headers = response.headers().clone();
    let body = crate::limits::read_body(response, max, rust_name)
        .await
        .map_err(crate::limits::BodyError::into_error)?;
    let decoded = match validator() {
        Some(validator) => validator.decode(operation_id, status.as_u16(), &headers, &body),
        None => Decoded::Invalid(no_validator(operation_id, status.as_u16())),
    };
    match decoded {
        Decoded::Valid(value) => Ok(ResponseValue::new(value, status, headers)),
        Decoded::Invalid(violations) => Err(Error::Custom(message(&violations))),
        Decoded::Undecodable(e) => Err(Error::InvalidResponsePayload(body, e)),
    }
}

/// The message of a hook error carrying `violations`.
fn message(violations: &[Violation]) -> String {
    format!(
        "{MARKER}{}",
        serde_json::to_string(violations).expect("violations are plain data")
    )
}

/// The message of the hook error for what `validated` found in `response`, if anything: why it
/// was not read whole, or the violations.
pub(crate) fn failure_message(response: &reqwest::Response) -> Option<String> {
    if let Some(NotRead(why)) = response.extensions().get::<NotRead>() {
        return Some(why.clone());
    }
    let Violations(found) = response.extensions().get::<Violations>()?;
    Some(message(found))
}

/// The violations a hook error carries, if it is one of ours.
pub(crate) fn violations_in(message: &str) -> Option<Vec<Violation>> {
    serde_json::from_str(message.strip_prefix(MARKER)?).ok()
}

#[cfg(test)]
mod tests {
    use super::decoded_later;

    /// The text of the match arm of `status` in the generated `send_raw` of `rust_name`.
    fn arm<'a>(source: &'a str, rust_name: &str, status: &str) -> Option<&'a str> {
        let start = source.find(&format!("operation_id: \"{rust_name}\""))?;
        let body = &source[start..];
        let body = &body[..body.find("_ => Err(Error::UnexpectedResponse")?];
        let marker = format!("{status}u16 =>");
        let rest = &body[body.find(&marker)? + marker.len()..];
        let end = rest.find("u16 =>").unwrap_or(rest.len());
        Some(&rest[..end])
    }

    /// `exec` leaves a body to `decoded` exactly when the generated code decodes that answer,
    /// so no answer goes unvalidated and none is read twice.
    #[test]
    fn the_generated_code_decodes_exactly_the_answers_exec_leaves_to_it() {
        let sources = [
            include_str!("generated/messaging.rs"),
            include_str!("generated/management.rs"),
        ];
        let mut checked = 0;
        for op in courier_models::OPERATIONS {
            let Some(source) = sources
                .iter()
                .find(|s| s.contains(&format!("operation_id: \"{}\"", op.rust_name)))
            else {
                // The official clients' aliases have no method of their own.
                continue;
            };
            let contract = courier_verify::Contract::courier()
                .operation(op.id)
                .unwrap();
            for response in &contract.responses {
                let status: u16 = response.status.parse().unwrap();
                let arm = arm(source, op.rust_name, &response.status)
                    .unwrap_or_else(|| panic!("{} has no arm for {status}", op.id));
                assert_eq!(
                    arm.contains("decode_response"),
                    decoded_later(op.id, status),
                    "{} {status}: {arm}",
                    op.id
                );
                checked += 1;
            }
        }
        assert!(checked > 50, "{checked}");
    }
}
