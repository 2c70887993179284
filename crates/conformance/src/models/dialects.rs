//! What one schema says about the wire shape, read the same way from either dialect: the spec's
//! OpenAPI 3.0 (`nullable`, a missing format) and the models' JSON Schema 2020-12 (a `null` type
//! or alternative, `const`, documented variants as `oneOf`).

use serde_json::Value;
use std::collections::BTreeSet;

/// A schema without its `null` alternative, and whether it had one.
pub(super) fn strip_null(schema: &Value) -> (Value, bool) {
    if let Some(types) = schema.get("type").and_then(Value::as_array) {
        let rest: Vec<&Value> = types.iter().filter(|t| *t != "null").collect();
        if rest.len() < types.len() {
            let mut out = schema.clone();
            out["type"] = match rest.as_slice() {
                [one] => (*one).clone(),
                many => Value::Array(many.iter().map(|t| (*t).clone()).collect()),
            };
            return (out, true);
        }
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(alternatives) = schema.get(key).and_then(Value::as_array) {
            let is_null = |s: &Value| s.get("type") == Some(&Value::from("null"));
            let rest: Vec<&Value> = alternatives.iter().filter(|s| !is_null(s)).collect();
            if rest.len() < alternatives.len() {
                if let [one] = rest.as_slice() {
                    return ((*one).clone(), true);
                }
                let mut out = schema.clone();
                out[key] = Value::Array(rest.into_iter().cloned().collect());
                return (out, true);
            }
        }
    }
    (schema.clone(), false)
}

pub(super) fn spec_nullable(schema: &Value) -> bool {
    schema
        .get("nullable")
        .and_then(Value::as_bool)
        .unwrap_or(false)
}

pub(super) fn single_all_of(schema: &Value) -> Option<&Value> {
    match schema
        .get("allOf")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
    {
        Some([only]) => Some(only),
        _ => None,
    }
}

/// Enum values as strings (JSON text for non-strings), from `enum`, `const` or a
/// `oneOf`/`anyOf` of those.
pub(super) fn enum_values(schema: &Value) -> Option<BTreeSet<String>> {
    let text = |v: &Value| {
        v.as_str()
            .map(str::to_owned)
            .unwrap_or_else(|| v.to_string())
    };
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        return Some(values.iter().map(text).collect());
    }
    if let Some(value) = schema.get("const") {
        return Some([text(value)].into());
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(alternatives) = schema.get(key).and_then(Value::as_array) {
            let mut all = BTreeSet::new();
            for alternative in alternatives {
                all.extend(enum_values(alternative)?);
            }
            return Some(all);
        }
    }
    None
}

pub(super) fn json_type(schema: &Value) -> Option<String> {
    match schema.get("type") {
        Some(Value::String(t)) => Some(t.clone()),
        Some(Value::Array(ts)) => Some(
            ts.iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join("|"),
        ),
        _ => {
            // A `oneOf` of string constants (schemars' form for documented variants).
            let alternatives = schema
                .get("oneOf")
                .or_else(|| schema.get("anyOf"))
                .and_then(Value::as_array)?;
            let types: BTreeSet<String> = alternatives.iter().filter_map(json_type).collect();
            (types.len() == 1).then(|| types.into_iter().next().unwrap_or_default())
        }
    }
}

/// The format a spec schema turns into, as typify maps a missing one.
pub(super) fn spec_format(ty: &str, schema: &Value) -> Option<String> {
    match (schema.get("format").and_then(Value::as_str), ty) {
        (Some(format), _) => Some(format.to_owned()),
        (None, "integer") => Some("int64".to_owned()),
        (None, "number") => Some("double".to_owned()),
        (None, _) => None,
    }
}
