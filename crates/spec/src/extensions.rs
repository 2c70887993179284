//! Typed accessors for the `x-courier-*` (and `x-enum-varnames`) extensions the generators and
//! checks read, so each extension's spelling and shape is known in one place.

use openapiv3::{Operation, Parameter, Response, Schema};
use serde_json::Value;

const GROUP: &str = "x-courier-group";
const ALIAS_OF: &str = "x-courier-alias-of";
const COMPAT: &str = "x-courier-compat";
const IDEMPOTENT: &str = "x-courier-idempotent";
const RUST_TYPE: &str = "x-courier-rust-type";
const ENUM_VARNAMES: &str = "x-enum-varnames";

/// The extensions that shape generated code (types, variant names, the filter group, the table
/// of operations, the client's retries, the server's response bodies): changing one changes
/// what users compile against or how the generated code behaves. The others
/// (`x-courier-section`, `x-courier-decision`, ...) are documentation.
pub const SHAPING_GENERATED_CODE: [&str; 7] = [
    GROUP,
    ALIAS_OF,
    COMPAT,
    IDEMPOTENT,
    PRESERIALIZED,
    RUST_TYPE,
    ENUM_VARNAMES,
];

/// `x-courier-group`: the shared parameter group a parameter belongs to (e.g. `DlqFilter`).
pub fn group(parameter: &Parameter) -> Option<&str> {
    text(&parameter.parameter_data_ref().extensions, GROUP)
}

/// `x-courier-alias-of`: the parameter of the same operation this one is another spelling of.
pub fn parameter_alias_of(parameter: &Parameter) -> Option<&str> {
    text(&parameter.parameter_data_ref().extensions, ALIAS_OF)
}

/// `x-courier-compat: {alias-of: <operationId>}`: the operation this one re-exposes at another
/// address for the official clients.
pub fn operation_alias_of(operation: &Operation) -> Option<&str> {
    operation.extensions.get(COMPAT)?.get("alias-of")?.as_str()
}

/// `x-courier-idempotent`, else what the method promises (RFC 9110: all but POST and PATCH).
pub fn idempotent(operation: &Operation, method: &str) -> bool {
    operation
        .extensions
        .get(IDEMPOTENT)
        .and_then(Value::as_bool)
        .unwrap_or(!matches!(method, "post" | "patch"))
}

/// The spelling of the extension [`preserialized`] reads (spec-diff compares it too).
pub const PRESERIALIZED: &str = "x-courier-preserialized";

/// `x-courier-preserialized: true` on a response: the generated server takes its body as
/// `courier_server::runtime::Json<T>`, which an implementation may fill with JSON bytes it
/// already holds (stored at insert) instead of a value to serialise.
pub fn preserialized(response: &Response) -> bool {
    response
        .extensions
        .get(PRESERIALIZED)
        .and_then(Value::as_bool)
        .unwrap_or(false)
}

/// `x-courier-rust-type`, as written (the lint holds it to `String`).
pub fn rust_type(schema: &Schema) -> Option<&Value> {
    schema.schema_data.extensions.get(RUST_TYPE)
}

/// A component marked `x-courier-rust-type: String`: constrained in the spec, a `String` in Rust.
pub fn is_plain_string(schema: &Schema) -> bool {
    rust_type(schema).and_then(Value::as_str) == Some("String")
}

/// `x-courier-section`: the section of the interface document a component pins.
pub fn section(schema: &Schema) -> Option<&str> {
    text(&schema.schema_data.extensions, "x-courier-section")
}

/// `x-enum-varnames`: the Rust variant names of an enum, in the order of its values. `Some(None)`
/// when the extension is there but is not a list of strings.
pub fn enum_variant_names(schema: &Schema) -> Option<Option<Vec<&str>>> {
    let names = schema.schema_data.extensions.get(ENUM_VARNAMES)?;
    Some(
        names
            .as_array()
            .and_then(|names| names.iter().map(Value::as_str).collect()),
    )
}

/// `x-courier-matches` on a filter parameter: which fields of a listed entry it is compared with,
/// and how.
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
pub struct FilterMatch {
    /// Fields of `WorkflowDLQMessage`; an entry matches when any of them does.
    pub fields: Vec<String>,
    /// `equals`, `at-least` or `at-most`.
    pub compare: String,
}

/// The comparisons a [`FilterMatch`] may name.
pub const FILTER_COMPARISONS: [&str; 3] = ["equals", "at-least", "at-most"];

/// `x-courier-matches`, when the parameter has it: `Some(Err)` when it is there but malformed.
pub fn filter_match(parameter: &Parameter) -> Option<Result<FilterMatch, String>> {
    let value = parameter
        .parameter_data_ref()
        .extensions
        .get("x-courier-matches")?;
    Some(serde_json::from_value(value.clone()).map_err(|e| format!("x-courier-matches: {e}")))
}

/// `x-courier-order` on a list operation: the field its entries are sorted by, ascending, and
/// how two values compare.
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
pub struct ListOrder {
    pub field: String,
    /// `bytes`: by the values' UTF-8 bytes.
    pub compare: String,
}

/// The comparisons a [`ListOrder`] may name.
pub const ORDER_COMPARISONS: [&str; 1] = ["bytes"];

/// `x-courier-order`, when the operation has it: `Some(Err)` when it is there but malformed.
pub fn list_order(operation: &Operation) -> Option<Result<ListOrder, String>> {
    let value = operation.extensions.get("x-courier-order")?;
    Some(serde_json::from_value(value.clone()).map_err(|e| format!("x-courier-order: {e}")))
}

fn text<'a>(extensions: &'a indexmap::IndexMap<String, Value>, key: &str) -> Option<&'a str> {
    extensions.get(key).and_then(Value::as_str)
}
