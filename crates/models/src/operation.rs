//! The types of the generated table of operations (`OPERATIONS`, from the spec) and the lookup
//! in it. The table is generated; what a row holds is written here, once.

use crate::OPERATIONS;

/// One query key an operation accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QueryKey {
    /// The key as it stands in the query string.
    pub name: &'static str,
    /// Repeated keys and the comma form give several values.
    pub multi_valued: bool,
    /// Absent is a 400.
    pub required: bool,
    /// The accepted values of an enum parameter; empty for any other.
    pub values: &'static [&'static str],
    /// Another spelling of this parameter of the same operation (`x-courier-alias-of`).
    pub alias_of: Option<&'static str>,
    /// Read by a security scheme (`service_token`), not a parameter.
    pub credential: bool,
}

/// One operation of the spec, as hand-written code and tests need it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Operation {
    /// `operationId`.
    pub id: &'static str,
    /// The snake_case name the generated client and server give it.
    pub rust_name: &'static str,
    /// Upper-case HTTP method.
    pub method: &'static str,
    /// Path template with `{name}` parameters.
    pub path: &'static str,
    /// The interface: `messaging` or `management`.
    pub tag: &'static str,
    /// Security schemes that admit a request (any one of them).
    pub security: &'static [&'static str],
    /// Path parameters, in template order.
    pub path_params: &'static [&'static str],
    /// Every query key, credentials included; any other is a 400.
    pub query: &'static [QueryKey],
    /// Every documented status.
    pub statuses: &'static [u16],
    /// Whether sending it twice is safe (`x-courier-idempotent`, else the method's rule);
    /// clients never retry the others.
    pub idempotent: bool,
    /// The operation this one re-exposes at another address for the official clients
    /// (`x-courier-compat: {alias-of: ...}`); the Rust client has no method for it.
    pub alias_of: Option<&'static str>,
}

/// A query key whose values are capped (`maxItems`): more are a 400 naming it. A parameter's
/// other spelling has a cap of its own, so a request may give both spellings up to theirs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ValueCap {
    /// The operation's `operationId`.
    pub operation: &'static str,
    /// The key as it stands in the query string.
    pub key: &'static str,
    /// The most values the key takes.
    pub max_values: usize,
}

impl Operation {
    /// The most values `key` takes in this operation's query ([`VALUE_CAPS`](crate::VALUE_CAPS)); `None` when
    /// the key takes one value or has no cap.
    pub fn max_values(&self, key: &str) -> Option<usize> {
        crate::VALUE_CAPS
            .iter()
            .find(|cap| cap.operation == self.id && cap.key == key)
            .map(|cap| cap.max_values)
    }
}

/// The operation with this `operationId` or snake_case name.
pub fn operation(name: &str) -> Option<&'static Operation> {
    OPERATIONS
        .iter()
        .find(|op| op.id == name || op.rust_name == name)
}
