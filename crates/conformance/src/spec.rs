//! The spec as the checks read it: through `courier-spec` (the one reader of the document),
//! with each schema handed to the structural comparisons as the JSON the reader serialises it
//! to, `$ref`s followed by the reader.
//!
//! The checks take the spec as a value, not a path, so a test can run them against a mutated
//! copy of the typed document (a property renamed, a type changed, a required entry dropped,
//! see [`crate::mutate`]) and see them fail.

use courier_spec::openapiv3::{ReferenceOr, Schema};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

pub use courier_spec::{OperationRef, Spec};

/// Parses the YAML text of an OpenAPI document.
pub fn parse_spec(yaml: &str) -> Result<Spec, String> {
    Spec::parse(yaml).map_err(|err| err.to_string())
}

/// Loads and parses the spec at `path`.
pub fn load_spec(path: &Path) -> Result<Spec, String> {
    Spec::load(path).map_err(|err| err.to_string())
}

/// A schema as JSON, the shape the structural comparisons walk (a `$ref` stays a `$ref`).
pub fn schema_json<S: serde::Serialize>(schema: &S) -> Value {
    serde_json::to_value(schema).expect("a typed schema serialises")
}

/// `components.schemas` of the spec as JSON, by name (empty when absent).
pub fn component_schemas(spec: &Spec) -> BTreeMap<String, Value> {
    spec.openapi()
        .components
        .iter()
        .flat_map(|components| &components.schemas)
        .map(|(name, schema)| (name.clone(), schema_json(schema)))
        .collect()
}

/// The last segment of a schema's `$ref`, if it is one.
pub fn ref_name(schema: &Value) -> Option<&str> {
    schema
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| r.rsplit('/').next())
}

/// Follows `$ref`s (through the reader) and a single-element `allOf` (the OAS 3.0 idiom for a
/// `$ref` with siblings) until a schema that is neither. A dangling `$ref` stays as it is.
pub fn deref(spec: &Spec, schema: &Value) -> Value {
    let mut schema = schema.clone();
    for _ in 0..MAX_DEREF {
        if let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
            match spec.resolve_ref::<Schema>(reference) {
                Ok(target) => schema = schema_json(target),
                Err(_) => return schema,
            }
        } else if let Some([only]) = schema
            .get("allOf")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
        {
            schema = only.clone();
        } else {
            return schema;
        }
    }
    schema
}

/// How many `$ref` and `allOf` steps [`deref`] takes before it stops (a cycle).
const MAX_DEREF: usize = 32;

/// The JSON of a parameter's or body's schema, `$ref`s followed.
pub fn resolved_schema(spec: &Spec, schema: &ReferenceOr<Schema>) -> Value {
    deref(spec, &schema_json(schema))
}

/// Every operation of the spec, in path order; an error names a `$ref` that does not resolve.
pub fn operations(spec: &Spec) -> Result<Vec<OperationRef<'_>>, String> {
    spec.operations()
        .collect::<Result<_, _>>()
        .map_err(|e| e.to_string())
}

/// `METHOD /path` of an operation.
pub fn label(op: &OperationRef<'_>) -> String {
    format!("{} {}", op.method.to_ascii_uppercase(), op.path)
}
