//! The fast path held to the full validator on one answer, the one comparison that both
//! `tests/fast_path.rs` and the fuzz target `fast_verdict` (which includes this file with
//! `#[path]`) make: `Validator::passes_fast` must give the full validator's verdict, and
//! `Validator::decode` into the answer's model must pass only what the full validator passes
//! and refuse with the full validator's report.
//!
//! One kind of body is let off the equality of verdicts: an object that repeats a member name.
//! The full validator reads the last value (a `serde_json::Value` keeps it), the fast path
//! checks every one, so an earlier bad one sends the answer to the full validator, which passes
//! it. A pass of the fast path must still never be wrong there.

use courier_verify::contract::OperationContract;
use courier_verify::{Decoded, Validator, Violation};
use http::HeaderMap;
use serde::de::{DeserializeOwned, MapAccess, SeqAccess, Visitor};
use std::collections::HashSet;
use std::sync::OnceLock;

/// The validator of courier's spec, compiled once.
pub(crate) fn validator() -> &'static Validator {
    static VALIDATOR: OnceLock<Validator> = OnceLock::new();
    VALIDATOR.get_or_init(|| Validator::courier().expect("the committed contract compiles"))
}

/// One answer through the full validator, the fast verdict and the decode into its model;
/// panics where they disagree, else returns whether the answer keeps the contract.
pub(crate) fn agree(
    operation: &OperationContract,
    status: u16,
    headers: &HeaderMap,
    body: &[u8],
) -> bool {
    let validator = validator();
    let op = operation.operation_id.as_str();
    let full = validator.validate(op, status, headers, body);
    let fast = validator.passes_fast(op, status, headers, body);
    let shown = || String::from_utf8_lossy(body).into_owned();
    if repeats_a_name(body) {
        assert!(
            !fast || full.is_empty(),
            "{op} {status}: {}\n{full:#?}",
            shown()
        );
    } else {
        assert_eq!(
            fast,
            full.is_empty(),
            "{op} {status}: {}\n{full:#?}",
            shown()
        );
    }
    match model(body_schema(operation, status))(validator, op, status, headers, body) {
        Ok(()) => assert!(
            full.is_empty(),
            "{op} {status} passed decoding: {}",
            shown()
        ),
        Err(report) => assert_eq!(report, full, "{op} {status}: {}", shown()),
    }
    full.is_empty()
}

/// The component schema the spec names for the JSON body of this answer, if any.
fn body_schema(operation: &OperationContract, status: u16) -> Option<&str> {
    operation
        .response(status)?
        .content
        .get("application/json")?
        .get("$ref")?
        .as_str()?
        .strip_prefix("#/$defs/")
}

/// Decodes an answer into a model: `Ok` when it passes (decoded or not), else the report.
type Decode = fn(&Validator, &str, u16, &HeaderMap, &[u8]) -> Result<(), Vec<Violation>>;

fn decode<T: DeserializeOwned>(
    validator: &Validator,
    operation_id: &str,
    status: u16,
    headers: &HeaderMap,
    body: &[u8],
) -> Result<(), Vec<Violation>> {
    match validator.decode::<T>(operation_id, status, headers, body) {
        Decoded::Valid(_) | Decoded::Undecodable(_) => Ok(()),
        Decoded::Invalid(violations) => Err(violations),
    }
}

/// The model the client decodes a body of this schema into; an answer the spec gives no JSON
/// body is decoded as the error body, whose report must still be the full validator's.
fn model(schema: Option<&str>) -> Decode {
    use courier_models as m;
    match schema {
        Some("WorkflowDlqPage") => decode::<m::WorkflowDlqPage>,
        Some("FailedWorkflowRun") => decode::<m::FailedWorkflowRun>,
        Some("BulkDeleteResult") => decode::<m::BulkDeleteResult>,
        Some("BulkCancelResult") => decode::<m::BulkCancelResult>,
        Some("UrlGroup") => decode::<m::UrlGroup>,
        Some("SearchIndex") => decode::<m::SearchIndex>,
        Some("SearchIndexStats") => decode::<m::SearchIndexStats>,
        Some("AccountStats") => decode::<m::AccountStats>,
        Some("MessagingAccount") => decode::<m::MessagingAccount>,
        Some("ErrorBody") | None => decode::<m::ErrorBody>,
        Some(other) => panic!("no model named for the body schema {other}: add it here"),
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
