//! Reading `spec/openapi.yaml` as a `serde_json::Value`, and the few accessors the checks share.
//!
//! The checks take the spec as a value, not a path, so a test can run them against a mutated
//! copy (a property renamed, a type changed, a required entry dropped) and see them fail.

use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::path::Path;

/// HTTP methods an OpenAPI path item may carry.
pub const METHODS: [&str; 8] = [
    "get", "put", "post", "delete", "options", "head", "patch", "trace",
];

/// Parses the YAML text of an OpenAPI document into JSON. Mapping keys become strings (`200:`
/// and `'200':` are the same key), YAML tags are dropped.
pub fn parse_spec(yaml: &str) -> Result<Value, String> {
    let value: serde_yaml::Value =
        serde_yaml::from_str(yaml).map_err(|err| format!("the spec is not valid YAML: {err}"))?;
    yaml_to_json(value)
}

/// Loads and parses the spec at `path`.
pub fn load_spec(path: &Path) -> Result<Value, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|err| format!("cannot read the spec {}: {err}", path.display()))?;
    parse_spec(&text)
}

fn yaml_to_json(value: serde_yaml::Value) -> Result<Value, String> {
    Ok(match value {
        serde_yaml::Value::Null => Value::Null,
        serde_yaml::Value::Bool(b) => Value::Bool(b),
        serde_yaml::Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                Value::from(i)
            } else if let Some(u) = n.as_u64() {
                Value::from(u)
            } else {
                let f = n.as_f64().unwrap_or(f64::NAN);
                serde_json::Number::from_f64(f)
                    .map(Value::Number)
                    .ok_or_else(|| format!("the spec holds a number JSON cannot carry: {n}"))?
            }
        }
        serde_yaml::Value::String(s) => Value::String(s),
        serde_yaml::Value::Sequence(items) => Value::Array(
            items
                .into_iter()
                .map(yaml_to_json)
                .collect::<Result<_, _>>()?,
        ),
        serde_yaml::Value::Mapping(mapping) => {
            let mut object = Map::new();
            for (key, value) in mapping {
                let key = match key {
                    serde_yaml::Value::String(s) => s,
                    serde_yaml::Value::Number(n) => n.to_string(),
                    serde_yaml::Value::Bool(b) => b.to_string(),
                    other => return Err(format!("unsupported mapping key in the spec: {other:?}")),
                };
                object.insert(key, yaml_to_json(value)?);
            }
            Value::Object(object)
        }
        serde_yaml::Value::Tagged(tagged) => yaml_to_json(tagged.value)?,
    })
}

/// `components.schemas` of the spec (empty when absent).
pub fn component_schemas(spec: &Value) -> Map<String, Value> {
    spec.pointer("/components/schemas")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default()
}

/// The target of a local `$ref` (`#/components/schemas/X`, `#/$defs/X`) within `root`.
pub fn resolve_ref<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    root.pointer(reference.strip_prefix('#')?)
}

/// The last segment of a schema's `$ref`, if it is one.
pub fn ref_name(schema: &Value) -> Option<&str> {
    schema
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| r.rsplit('/').next())
}

/// Follows `$ref`s (and a single-element `allOf`, the OAS 3.0 idiom for a `$ref` with
/// siblings) until a schema that is neither.
pub fn deref<'a>(root: &'a Value, mut schema: &'a Value) -> &'a Value {
    for _ in 0..32 {
        if let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
            match resolve_ref(root, reference) {
                Some(target) => schema = target,
                None => return schema,
            }
        } else if let Some([only]) = schema
            .get("allOf")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
        {
            schema = only;
        } else {
            return schema;
        }
    }
    schema
}

/// A parameter of an operation, with `$ref`s resolved.
#[derive(Clone, Debug)]
pub struct Parameter {
    /// `name` of the parameter.
    pub name: String,
    /// `in`: `query`, `path`, `header` or `cookie`.
    pub location: String,
    /// `required`, false when absent.
    pub required: bool,
    /// `schema`, with a top-level `$ref` resolved.
    pub schema: Value,
}

/// An operation of the spec.
#[derive(Clone, Debug)]
pub struct Operation {
    /// Upper-case HTTP method.
    pub method: String,
    /// Path template, e.g. `/v2/workflows/dlq/{dlqId}`.
    pub path: String,
    /// Path-level and operation-level parameters, operation-level winning.
    pub parameters: Vec<Parameter>,
    /// Responses by status key, each with a top-level `$ref` resolved.
    pub responses: BTreeMap<String, Value>,
}

impl Operation {
    /// `METHOD /path`.
    pub fn label(&self) -> String {
        format!("{} {}", self.method, self.path)
    }

    /// The parameter of that name and location.
    pub fn parameter(&self, location: &str, name: &str) -> Option<&Parameter> {
        self.parameters
            .iter()
            .find(|p| p.location == location && p.name == name)
    }
}

/// Every operation of the spec, in path order.
pub fn operations(spec: &Value) -> Vec<Operation> {
    let Some(paths) = spec.get("paths").and_then(Value::as_object) else {
        return Vec::new();
    };
    let mut operations = Vec::new();
    for (path, item) in paths {
        let item = deref(spec, item);
        let shared = parameters(spec, item.get("parameters"));
        for method in METHODS {
            let Some(op) = item.get(method) else { continue };
            let mut params = shared.clone();
            for p in parameters(spec, op.get("parameters")) {
                params.retain(|q| !(q.name == p.name && q.location == p.location));
                params.push(p);
            }
            let responses = op
                .get("responses")
                .and_then(Value::as_object)
                .map(|r| {
                    r.iter()
                        .map(|(status, resp)| (status.clone(), deref(spec, resp).clone()))
                        .collect()
                })
                .unwrap_or_default();
            operations.push(Operation {
                method: method.to_ascii_uppercase(),
                path: path.clone(),
                parameters: params,
                responses,
            });
        }
    }
    operations
}

fn parameters(spec: &Value, list: Option<&Value>) -> Vec<Parameter> {
    list.and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .map(|p| deref(spec, p))
                .map(|p| Parameter {
                    name: p
                        .get("name")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_owned(),
                    location: p
                        .get("in")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_owned(),
                    required: p.get("required").and_then(Value::as_bool).unwrap_or(false),
                    schema: p
                        .get("schema")
                        .map(|s| deref(spec, s).clone())
                        .unwrap_or(Value::Null),
                })
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numeric_keys_become_strings_and_refs_resolve() {
        let spec = parse_spec(
            "paths:\n  /a/{id}:\n    parameters:\n      - {name: id, in: path, required: true, schema: {type: string}}\n    get:\n      parameters:\n        - $ref: '#/components/parameters/P'\n      responses:\n        200: {description: ok}\n        '404': {$ref: '#/components/responses/NF'}\ncomponents:\n  parameters:\n    P: {name: q, in: query, schema: {$ref: '#/components/schemas/S'}}\n  responses:\n    NF: {description: gone}\n  schemas:\n    S: {type: integer}\n",
        )
        .unwrap();
        let ops = operations(&spec);
        assert_eq!(ops.len(), 1);
        let op = &ops[0];
        assert_eq!(op.label(), "GET /a/{id}");
        assert!(op.parameter("path", "id").unwrap().required);
        assert_eq!(
            op.parameter("query", "q").unwrap().schema["type"],
            "integer"
        );
        assert_eq!(op.responses["404"]["description"], "gone");
        assert!(op.responses.contains_key("200"));
    }
}
