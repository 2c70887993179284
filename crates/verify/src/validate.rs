//! The validator: one answer (status, headers, body bytes) of one operation against the
//! contract, every violation reported.
//!
//! Schemas are checked by the `jsonschema` crate, which is maintained, passes the JSON Schema
//! test suite and reports every error with its instance location and keyword; the generator
//! converts the spec's OpenAPI 3.0 dialect (`nullable`, component `$ref`s, boolean exclusive
//! bounds, OpenAPI formats) into the JSON Schema 2020-12 it reads (see `xtask/src/contract.rs`).

use crate::contract::{Contract, OperationContract};
use crate::violation::{Place, Violation, pointer_token, shorten};
use http::HeaderMap;
use jsonschema::error::ValidationErrorKind;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::Arc;

/// Why a validator could not be built: a schema of the contract does not compile.
#[derive(Debug, thiserror::Error)]
#[error("the contract's schema for {place} does not compile: {message}")]
pub struct ContractError {
    pub place: String,
    pub message: String,
}

/// Validates answers against the contract. Build it once (every schema is compiled up front)
/// and share it: validating takes `&self`.
pub struct Validator {
    contract: &'static Contract,
    /// The same schemas as a table of rules for the fast path (`Validator::decode`).
    pub(crate) plan: crate::fast::Plan,
    /// Compiled schemas by their JSON text, so the many answers that share a schema (the error
    /// body) share one compiled validator.
    compiled: HashMap<String, Arc<jsonschema::Validator>>,
}

impl std::fmt::Debug for Validator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Validator")
            .field("spec", &self.contract.title)
            .field("schemas", &self.compiled.len())
            .finish()
    }
}

impl Validator {
    /// The validator of courier's spec.
    pub fn courier() -> Result<Validator, ContractError> {
        Validator::new(Contract::courier())
    }

    /// A validator of `contract`, every body and header schema compiled.
    pub fn new(contract: &'static Contract) -> Result<Validator, ContractError> {
        let mut validator = Validator {
            contract,
            plan: crate::fast::Plan::new(contract),
            compiled: HashMap::new(),
        };
        for op in &contract.operations {
            for response in &op.responses {
                let schemas = response
                    .content
                    .values()
                    .chain(response.headers.iter().map(|h| &h.schema));
                for schema in schemas.filter(|schema| !schema.is_null()) {
                    let place = format!("{} {}", op.operation_id, response.status);
                    validator.compile(schema, &place)?;
                }
            }
        }
        Ok(validator)
    }

    fn compile(&mut self, schema: &Value, place: &str) -> Result<(), ContractError> {
        let key = schema.to_string();
        if self.compiled.contains_key(&key) {
            return Ok(());
        }
        let mut root = schema.clone();
        if let Value::Object(object) = &mut root {
            object.insert("$defs".into(), Value::Object(self.contract.schemas.clone()));
        }
        let compiled = jsonschema::options()
            .with_draft(jsonschema::Draft::Draft202012)
            .should_validate_formats(true)
            .build(&root)
            .map_err(|e| ContractError {
                place: place.to_owned(),
                message: e.to_string(),
            })?;
        self.compiled.insert(key, Arc::new(compiled));
        Ok(())
    }

    /// The contract this validator checks against.
    pub fn contract(&self) -> &'static Contract {
        self.contract
    }

    /// Every violation of the contract in one answer of the operation `operation_id`: an
    /// undocumented status, a content type other than the documented one, a body that is not
    /// JSON or breaks its schema, a body where none is documented, a missing required header or
    /// a header that breaks its schema. Empty when the answer keeps the contract.
    pub fn validate(
        &self,
        operation_id: &str,
        status: u16,
        headers: &HeaderMap,
        body: &[u8],
    ) -> Vec<Violation> {
        let Some(op) = self.contract.operation(operation_id) else {
            return vec![Violation {
                operation_id: operation_id.to_owned(),
                status,
                place: Place::Status,
                pointer: String::new(),
                rule: "operation".into(),
                value: shorten(operation_id),
                message: "the spec has no operation of this id".into(),
            }];
        };
        self.validate_operation(op, status, headers, body)
    }

    /// [`Validator::validate`] for an operation already looked up.
    pub fn validate_operation(
        &self,
        op: &OperationContract,
        status: u16,
        headers: &HeaderMap,
        body: &[u8],
    ) -> Vec<Violation> {
        let mut violations = Vec::new();
        let Some(schema) = self.check_envelope(op, status, headers, body, &mut violations) else {
            return violations;
        };
        let violation = |rule: &str, value: &str, message: String| Violation {
            operation_id: op.operation_id.clone(),
            status,
            place: Place::Body,
            pointer: String::new(),
            rule: rule.to_owned(),
            value: shorten(value),
            message,
        };
        let instance: Value = match serde_json::from_slice(body) {
            Ok(instance) => instance,
            Err(e) => {
                violations.push(violation(
                    "json",
                    &String::from_utf8_lossy(body),
                    format!("the body is not JSON: {e}"),
                ));
                return violations;
            }
        };
        let mut errors = self.schema_errors(schema, &instance);
        // By place, so a report reads the same on every run.
        errors.sort_by(|a, b| (&a.pointer, &a.rule).cmp(&(&b.pointer, &b.rule)));
        for error in errors {
            violations.push(Violation {
                pointer: error.pointer,
                ..violation(&error.rule, &error.value, error.message)
            });
        }
        violations
    }

    /// Everything but the JSON body's schema: the status, the headers, the content type, a
    /// body where none is documented. Pushes what breaks the contract to `violations` and
    /// returns the schema the body is still to be checked against, if it is JSON.
    pub(crate) fn check_envelope<'c>(
        &self,
        op: &'c OperationContract,
        status: u16,
        headers: &HeaderMap,
        body: &[u8],
        violations: &mut Vec<Violation>,
    ) -> Option<&'c Value> {
        let id = op.operation_id.as_str();
        let violation = |place: Place, rule: &str, value: &str, message: String| Violation {
            operation_id: id.to_owned(),
            status,
            place,
            pointer: String::new(),
            rule: rule.to_owned(),
            value: shorten(value),
            message,
        };
        let Some(response) = op.response(status) else {
            violations.push(violation(
                Place::Status,
                "status",
                &status.to_string(),
                format!(
                    "status {status} is not documented (documented: {})",
                    op.statuses().join(", ")
                ),
            ));
            return None;
        };
        for header in &response.headers {
            let value = headers
                .get(&header.name)
                .map(|value| String::from_utf8_lossy(value.as_bytes()).into_owned());
            match value {
                None if header.required => violations.push(violation(
                    Place::Header(header.name.clone()),
                    "header",
                    "",
                    format!("the documented header `{}` is missing", header.name),
                )),
                None => {}
                Some(value) => {
                    let instance = header_instance(&header.schema, &value);
                    for error in self.schema_errors(&header.schema, &instance) {
                        violations.push(violation(
                            Place::Header(header.name.clone()),
                            &error.rule,
                            &value,
                            format!("`{}`: {}", header.name, error.message),
                        ));
                    }
                }
            }
        }
        if response.content.is_empty() {
            if !body.is_empty() {
                violations.push(violation(
                    Place::Body,
                    "empty-body",
                    &String::from_utf8_lossy(body),
                    "the spec documents no body for this status".into(),
                ));
            }
            return None;
        }
        let content_type = headers
            .get(http::header::CONTENT_TYPE)
            .map(|value| String::from_utf8_lossy(value.as_bytes()).into_owned())
            .unwrap_or_default();
        let essence = content_type
            .split(';')
            .next()
            .unwrap_or_default()
            .trim()
            .to_ascii_lowercase();
        let Some(schema) = response.content.get(&essence) else {
            let documented: Vec<&str> = response.content.keys().map(String::as_str).collect();
            violations.push(violation(
                Place::ContentType,
                "content-type",
                &content_type,
                format!(
                    "content type `{content_type}` is not documented (documented: {})",
                    documented.join(", ")
                ),
            ));
            return None;
        };
        if !essence.ends_with("json") {
            return None;
        }
        Some(schema)
    }

    fn schema_errors(&self, schema: &Value, instance: &Value) -> Vec<SchemaError> {
        if schema.is_null() {
            return Vec::new();
        }
        let Some(compiled) = self.compiled.get(&schema.to_string()) else {
            // Every schema of the contract is compiled in `new`; a schema from elsewhere is a
            // caller's mistake, reported rather than ignored.
            return vec![SchemaError {
                pointer: String::new(),
                rule: "schema".into(),
                value: schema.to_string(),
                message: "this schema is not part of the contract".into(),
            }];
        };
        // The common case is a valid answer: `is_valid` short-circuits and builds no errors,
        // about half the work of walking them.
        if compiled.is_valid(instance) {
            return Vec::new();
        }
        compiled
            .iter_errors(instance)
            .flat_map(|error| {
                let pointer = error.instance_path().to_string();
                let message = error.to_string();
                let rule = error.kind().keyword().to_owned();
                let value = error.instance().to_string();
                match error.kind() {
                    // The missing or unexpected property's own place, so a renamed field is
                    // reported where it should be.
                    ValidationErrorKind::Required { property } => vec![SchemaError {
                        pointer: format!(
                            "{pointer}/{}",
                            pointer_token(property.as_str().unwrap_or_default())
                        ),
                        rule,
                        value: String::new(),
                        message,
                    }],
                    ValidationErrorKind::AdditionalProperties { unexpected } => unexpected
                        .iter()
                        .map(|name| SchemaError {
                            pointer: format!("{pointer}/{}", pointer_token(name)),
                            rule: rule.clone(),
                            value: instance_at(instance, &pointer, name),
                            message: format!("property `{name}` is not allowed here"),
                        })
                        .collect(),
                    _ => vec![SchemaError {
                        pointer,
                        rule,
                        value,
                        message,
                    }],
                }
            })
            .collect()
    }
}

struct SchemaError {
    pointer: String,
    rule: String,
    value: String,
    message: String,
}

/// The JSON text of `instance[pointer][name]`.
fn instance_at(instance: &Value, pointer: &str, name: &str) -> String {
    instance
        .pointer(pointer)
        .and_then(|object| object.get(name))
        .map(Value::to_string)
        .unwrap_or_default()
}

/// A header's text as the JSON value its schema describes: a number for a numeric schema when
/// it reads as one, else the string.
fn header_instance(schema: &Value, text: &str) -> Value {
    let numeric = matches!(
        schema.get("type").and_then(Value::as_str),
        Some("integer" | "number")
    );
    if numeric {
        if let Ok(number) = text.trim().parse::<i64>() {
            return json!(number);
        }
        if let Ok(number) = text.trim().parse::<f64>() {
            return json!(number);
        }
    }
    Value::String(text.to_owned())
}
