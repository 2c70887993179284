//! Validating while decoding: one pass over an answer's bytes that decodes the typed value and
//! checks it against the contract, with the full validator called only when that pass finds
//! something (or the value does not decode), to write the report.
//!
//! A JSON Schema validator walks a `serde_json::Value` tree, and building the tree alone costs
//! more than the typed decode; the fast path ([`crate::fast`]) checks each value as the typed
//! `Deserialize` impl reads it instead. Its verdict is only ever "nothing found" or "ask the
//! full validator", so a report is always the full validator's.

use crate::Validator;
use crate::violation::Violation;
use http::HeaderMap;
use serde::de::{DeserializeOwned, IgnoredAny};

/// An answer decoded and validated by [`Validator::decode`].
#[derive(Debug)]
pub enum Decoded<T> {
    /// The answer keeps the contract; its body, decoded.
    Valid(T),
    /// The answer breaks the contract: every violation, as [`Validator::validate`] lists them.
    Invalid(Vec<Violation>),
    /// The answer keeps the contract but its body does not decode as the type asked for
    /// (serde_json's error, as `serde_json::from_slice` gives it).
    Undecodable(serde_json::Error),
}

impl Validator {
    /// The JSON body of an answer of `operation_id` decoded as `T` and validated in the same
    /// pass. When that pass finds nothing the answer is valid and decoded; otherwise
    /// [`Validator::validate`] writes the report, and a body that keeps the contract but does
    /// not decode as `T` is [`Decoded::Undecodable`].
    ///
    /// ```
    /// use courier_verify::{Decoded, Validator};
    ///
    /// let validator = Validator::courier().unwrap();
    /// let mut headers = http::HeaderMap::new();
    /// headers.insert("content-type", "application/json".parse().unwrap());
    /// let body = br#"{"deleted": 3}"#;
    /// match validator.decode::<serde_json::Value>("deleteWorkflowDlqBulk", 200, &headers, body) {
    ///     Decoded::Valid(value) => assert_eq!(value["deleted"], 3),
    ///     other => panic!("{other:?}"),
    /// }
    /// let body = br#"{"deleted": "3"}"#;
    /// let Decoded::Invalid(violations) =
    ///     validator.decode::<serde_json::Value>("deleteWorkflowDlqBulk", 200, &headers, body)
    /// else {
    ///     panic!("a string where the spec says integer")
    /// };
    /// assert_eq!(violations[0].pointer, "/deleted");
    /// ```
    pub fn decode<T: DeserializeOwned>(
        &self,
        operation_id: &str,
        status: u16,
        headers: &HeaderMap,
        body: &[u8],
    ) -> Decoded<T> {
        let fast = match self.fast_decode::<T>(operation_id, status, headers, body) {
            Fast::Body(Ok(value), false) => return Decoded::Valid(value),
            // A valid envelope and no JSON body: nothing left to check.
            Fast::NoBody => return undecodable_or_valid(serde_json::from_slice(body)),
            other => other,
        };
        let violations = self.validate(operation_id, status, headers, body);
        if !violations.is_empty() {
            return Decoded::Invalid(violations);
        }
        // The full validator has the last word: what the fast path flagged it may accept.
        let decoded = match fast {
            Fast::Body(decoded, _) => decoded,
            Fast::Broken | Fast::NoBody => serde_json::from_slice(body),
        };
        undecodable_or_valid(decoded)
    }

    /// The fast path's verdict alone, without a typed value: `true` when one checking pass over
    /// the bytes finds nothing against the contract. It never says `true` of an answer that
    /// [`Validator::validate`] would find a violation in; the two agreeing on every answer is
    /// what the differential tests check.
    pub fn passes_fast(
        &self,
        operation_id: &str,
        status: u16,
        headers: &HeaderMap,
        body: &[u8],
    ) -> bool {
        matches!(
            self.fast_decode::<IgnoredAny>(operation_id, status, headers, body),
            Fast::Body(Ok(_), false) | Fast::NoBody
        )
    }

    /// The checks of the status, headers and content type, then the checking decode of a JSON
    /// body.
    fn fast_decode<T: DeserializeOwned>(
        &self,
        operation_id: &str,
        status: u16,
        headers: &HeaderMap,
        body: &[u8],
    ) -> Fast<T> {
        let Some(op) = self.contract().operation(operation_id) else {
            return Fast::Broken;
        };
        let mut violations = Vec::new();
        let schema = self.check_envelope(op, status, headers, body, &mut violations);
        if !violations.is_empty() {
            return Fast::Broken;
        }
        let Some(schema) = schema else {
            return Fast::NoBody;
        };
        match self.plan.body(schema) {
            Some(node) => {
                let (decoded, found) = crate::fast::decode(&self.plan, node, body);
                Fast::Body(decoded, found)
            }
            None => Fast::Broken,
        }
    }
}

/// A decoded body of an answer that keeps the contract.
fn undecodable_or_valid<T>(decoded: Result<T, serde_json::Error>) -> Decoded<T> {
    match decoded {
        Ok(value) => Decoded::Valid(value),
        Err(e) => Decoded::Undecodable(e),
    }
}

/// What the fast path made of an answer.
enum Fast<T> {
    /// The status, a header or the content type broke the contract (or the operation is
    /// unknown): the full validator reports it.
    Broken,
    /// The envelope keeps the contract and there is no JSON body to check.
    NoBody,
    /// The body decoded (or not), and whether its checks found anything.
    Body(Result<T, serde_json::Error>, bool),
}
