//! Spec lint run before generation: the rules the generators rely on, reported with JSON pointers.
//!
//! progenitor and typify either panic or silently produce duplicate types when a spec breaks these
//! rules, so they are checked here first and every violation is reported at once, pointing at the
//! place in `spec/openapi.yaml` that needs to change.

use serde_json::Value;
use std::collections::BTreeSet;
use std::fmt;

/// One violated rule, with the JSON pointer of the offending node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LintError {
    pub pointer: String,
    pub message: String,
}

impl fmt::Display for LintError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.pointer, self.message)
    }
}

const METHODS: [&str; 8] = [
    "get", "put", "post", "delete", "options", "head", "patch", "trace",
];

/// Escapes one JSON pointer segment (RFC 6901).
pub fn escape(segment: &str) -> String {
    segment.replace('~', "~0").replace('/', "~1")
}

/// Checks the whole document; an empty result means the generators can run.
pub fn lint(spec: &Value) -> Vec<LintError> {
    let mut linter = Linter {
        spec,
        errors: Vec::new(),
    };
    linter.run();
    linter.errors
}

struct Linter<'a> {
    spec: &'a Value,
    errors: Vec<LintError>,
}

impl<'a> Linter<'a> {
    fn error(&mut self, pointer: impl Into<String>, message: impl Into<String>) {
        self.errors.push(LintError {
            pointer: pointer.into(),
            message: message.into(),
        });
    }

    /// Follows a local `$ref` (`#/components/...`); `None` when it dangles.
    fn resolve(&self, reference: &str) -> Option<&'a Value> {
        reference
            .strip_prefix('#')
            .and_then(|pointer| self.spec.pointer(pointer))
    }

    fn run(&mut self) {
        if self.spec.get("openapi").and_then(Value::as_str) != Some("3.0.3") {
            self.error("/openapi", "must be \"3.0.3\"");
        }
        let declared_tags: BTreeSet<&str> = self
            .spec
            .pointer("/tags")
            .and_then(Value::as_array)
            .map(|tags| {
                tags.iter()
                    .filter_map(|t| t.get("name")?.as_str())
                    .collect()
            })
            .unwrap_or_default();
        if let Some(schemas) = self
            .spec
            .pointer("/components/schemas")
            .and_then(Value::as_object)
        {
            for (name, schema) in schemas {
                if let Some(rust_type) = schema.get("x-courier-rust-type") {
                    let pointer =
                        format!("/components/schemas/{}/x-courier-rust-type", escape(name));
                    if rust_type.as_str() != Some("String") {
                        self.error(&pointer, "the only supported value is `String`");
                    } else if schema.get("type").and_then(Value::as_str) != Some("string") {
                        self.error(pointer, "`String` needs a `type: string` schema");
                    }
                }
            }
        }
        let Some(paths) = self.spec.get("paths").and_then(Value::as_object) else {
            self.error("/paths", "the spec has no paths object");
            return;
        };
        let mut operation_ids = BTreeSet::new();
        for (path, item) in paths {
            let item_pointer = format!("/paths/{}", escape(path));
            if item.get("$ref").is_some() {
                self.error(
                    &item_pointer,
                    "path items must be written inline, not as $ref",
                );
                continue;
            }
            if item.get("parameters").is_some() {
                self.error(
                    format!("{item_pointer}/parameters"),
                    "declare parameters on each operation, not on the path item",
                );
            }
            for method in METHODS {
                let Some(operation) = item.get(method) else {
                    continue;
                };
                let pointer = format!("{item_pointer}/{method}");
                self.operation(&pointer, operation, &declared_tags, &mut operation_ids);
            }
        }
    }

    fn operation(
        &mut self,
        pointer: &str,
        operation: &'a Value,
        declared_tags: &BTreeSet<&str>,
        operation_ids: &mut BTreeSet<String>,
    ) {
        match operation.get("operationId").and_then(Value::as_str) {
            None => self.error(pointer, "operation has no operationId"),
            Some(id) if !operation_ids.insert(id.to_owned()) => self.error(
                format!("{pointer}/operationId"),
                format!("operationId `{id}` is used twice"),
            ),
            Some(_) => {}
        }
        let tags: Vec<&str> = operation
            .get("tags")
            .and_then(Value::as_array)
            .map(|tags| tags.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        if tags.len() != 1 {
            self.error(
                format!("{pointer}/tags"),
                "operation needs exactly one tag (its interface)",
            );
        }
        for tag in tags {
            if !declared_tags.contains(tag) {
                self.error(
                    format!("{pointer}/tags"),
                    format!("tag `{tag}` is not declared in /tags"),
                );
            }
        }
        for field in ["summary", "description"] {
            if operation
                .get(field)
                .and_then(Value::as_str)
                .is_none_or(str::is_empty)
            {
                self.error(pointer, format!("operation has no {field}"));
            }
        }
        if operation
            .get("security")
            .and_then(Value::as_array)
            .is_none_or(Vec::is_empty)
        {
            self.error(pointer, "operation declares no security requirement");
        }
        if let Some(parameters) = operation.get("parameters").and_then(Value::as_array) {
            for (index, parameter) in parameters.iter().enumerate() {
                self.parameter(&format!("{pointer}/parameters/{index}"), parameter);
            }
        }
        if let Some(body) = operation.get("requestBody") {
            self.content_schemas(&format!("{pointer}/requestBody"), body);
        }
        self.responses(pointer, operation);
    }

    fn parameter(&mut self, pointer: &str, parameter: &'a Value) {
        let (pointer, parameter) = match parameter.get("$ref").and_then(Value::as_str) {
            Some(reference) => match self.resolve(reference) {
                Some(target) => (reference.trim_start_matches('#').to_owned(), target),
                None => {
                    return self.error(
                        format!("{pointer}/$ref"),
                        format!("`{reference}` does not resolve"),
                    );
                }
            },
            None => (pointer.to_owned(), parameter),
        };
        let name = parameter.get("name").and_then(Value::as_str).unwrap_or("?");
        let location = parameter.get("in").and_then(Value::as_str).unwrap_or("?");
        if !matches!(location, "query" | "path") {
            self.error(
                format!("{pointer}/in"),
                format!("parameter `{name}`: only query and path parameters are supported"),
            );
        }
        if parameter
            .get("description")
            .and_then(Value::as_str)
            .is_none_or(str::is_empty)
        {
            self.error(&pointer, format!("parameter `{name}` has no description"));
        }
        let Some(schema) = parameter.get("schema") else {
            return self.error(&pointer, format!("parameter `{name}` has no schema"));
        };
        let schema_pointer = format!("{pointer}/schema");
        if schema.get("type").and_then(Value::as_str) == Some("array") {
            let style = parameter
                .get("style")
                .and_then(Value::as_str)
                .unwrap_or("form");
            let explode = parameter
                .get("explode")
                .and_then(Value::as_bool)
                .unwrap_or(style == "form");
            if location != "query" {
                self.error(
                    &schema_pointer,
                    format!("array parameter `{name}` must be in the query"),
                );
            }
            if style != "form" || !explode {
                self.error(
                    &pointer,
                    format!("array parameter `{name}` must be `style: form, explode: true`"),
                );
            }
            match schema.get("items") {
                Some(items) => self.primitive_or_ref(&format!("{schema_pointer}/items"), items),
                None => self.error(
                    &schema_pointer,
                    format!("array parameter `{name}` has no items"),
                ),
            }
        } else {
            self.primitive_or_ref(&schema_pointer, schema);
        }
    }

    /// Parameters may only use primitive schemas or `$ref`s: an inline enum or object would be
    /// generated again inside the client instead of reusing the models crate's type.
    fn primitive_or_ref(&mut self, pointer: &str, schema: &Value) {
        if let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
            if self.resolve(reference).is_none() {
                self.error(
                    format!("{pointer}/$ref"),
                    format!("`{reference}` does not resolve"),
                );
            }
            return;
        }
        if schema.get("enum").is_some() {
            self.error(
                pointer,
                "inline enum: move it to /components/schemas and $ref it",
            );
        }
        match schema.get("type").and_then(Value::as_str) {
            Some("string" | "integer" | "number" | "boolean") => {}
            Some(other) => self.error(
                pointer,
                format!("inline `{other}` schema: move it to /components/schemas and $ref it"),
            ),
            None => self.error(pointer, "schema has neither a primitive type nor a $ref"),
        }
    }

    /// Bodies must be a `$ref` to a component, for the same reason as parameters.
    fn content_schemas(&mut self, pointer: &str, holder: &Value) -> Vec<String> {
        let mut refs = Vec::new();
        let Some(content) = holder.get("content").and_then(Value::as_object) else {
            return refs;
        };
        for (media_type, media) in content {
            let schema_pointer = format!("{pointer}/content/{}/schema", escape(media_type));
            match media.pointer("/schema/$ref").and_then(Value::as_str) {
                Some(reference) if self.resolve(reference).is_some() => {
                    refs.push(reference.to_owned())
                }
                Some(reference) => self.error(
                    format!("{schema_pointer}/$ref"),
                    format!("`{reference}` does not resolve"),
                ),
                None => self.error(
                    schema_pointer,
                    "body schemas must be a $ref to /components/schemas",
                ),
            }
        }
        refs
    }

    /// progenitor panics unless all 2xx responses share one schema and all error responses share
    /// one schema.
    fn responses(&mut self, pointer: &str, operation: &'a Value) {
        let responses_pointer = format!("{pointer}/responses");
        let Some(responses) = operation.get("responses").and_then(Value::as_object) else {
            return self.error(responses_pointer, "operation has no responses");
        };
        let mut success: BTreeSet<Option<String>> = BTreeSet::new();
        let mut failure: BTreeSet<Option<String>> = BTreeSet::new();
        for (status, response) in responses {
            let status_pointer = format!("{responses_pointer}/{}", escape(status));
            let response = match response.get("$ref").and_then(Value::as_str) {
                Some(reference) => match self.resolve(reference) {
                    Some(target) => target,
                    None => {
                        self.error(
                            format!("{status_pointer}/$ref"),
                            format!("`{reference}` does not resolve"),
                        );
                        continue;
                    }
                },
                None => response,
            };
            let schemas = self.content_schemas(&status_pointer, response);
            let schema = schemas.into_iter().next();
            if status.starts_with('2') {
                success.insert(schema);
            } else if status.starts_with('4') || status.starts_with('5') || status == "default" {
                if schema.is_none() {
                    self.error(
                        &status_pointer,
                        "error responses must carry the error body schema",
                    );
                }
                failure.insert(schema);
            } else {
                self.error(
                    &status_pointer,
                    format!("status `{status}` is not supported"),
                );
            }
        }
        if success.is_empty() {
            self.error(&responses_pointer, "operation has no 2xx response");
        }
        if success.len() > 1 {
            self.error(
                &responses_pointer,
                "all 2xx responses must share one schema",
            );
        }
        if failure.len() > 1 {
            self.error(
                &responses_pointer,
                "all error responses must share one schema",
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn spec_with_operation(operation: Value) -> Value {
        json!({
            "openapi": "3.0.3",
            "tags": [{"name": "messaging"}],
            "paths": {"/v2/things/{id}": {"get": operation}},
            "components": {"schemas": {"Thing": {"type": "object"}, "ErrorBody": {"type": "object"}}}
        })
    }

    fn good_operation() -> Value {
        json!({
            "operationId": "getThing", "tags": ["messaging"], "summary": "s", "description": "d",
            "security": [{"bearerAuth": []}],
            "parameters": [{"name": "id", "in": "path", "required": true, "description": "d", "schema": {"type": "string"}}],
            "responses": {
                "200": {"description": "ok", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Thing"}}}},
                "404": {"description": "nf", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorBody"}}}}
            }
        })
    }

    #[test]
    fn a_good_operation_passes() {
        assert_eq!(lint(&spec_with_operation(good_operation())), vec![]);
    }

    #[test]
    fn inline_enum_parameter_is_reported_with_its_pointer() {
        let mut operation = good_operation();
        operation["parameters"].as_array_mut().unwrap().push(json!({
            "name": "period", "in": "query", "description": "d", "schema": {"type": "string", "enum": ["1h"]}
        }));
        let errors = lint(&spec_with_operation(operation));
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert_eq!(
            errors[0].pointer,
            "/paths/~1v2~1things~1{id}/get/parameters/1/schema"
        );
        assert!(errors[0].message.contains("inline enum"));
    }

    #[test]
    fn non_exploded_array_is_reported() {
        let mut operation = good_operation();
        operation["parameters"].as_array_mut().unwrap().push(json!({
            "name": "label", "in": "query", "description": "d", "style": "form", "explode": false,
            "schema": {"type": "array", "items": {"type": "string"}}
        }));
        let errors = lint(&spec_with_operation(operation));
        assert!(
            errors.iter().any(|e| e.message.contains("explode: true")),
            "{errors:?}"
        );
    }

    #[test]
    fn two_error_schemas_and_missing_operation_id_are_both_reported() {
        let mut operation = good_operation();
        operation.as_object_mut().unwrap().remove("operationId");
        operation["responses"]["500"] = json!({"description": "x", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Thing"}}}});
        let errors = lint(&spec_with_operation(operation));
        let messages: Vec<_> = errors.iter().map(|e| e.message.as_str()).collect();
        assert!(
            messages.contains(&"operation has no operationId"),
            "{messages:?}"
        );
        assert!(
            messages.contains(&"all error responses must share one schema"),
            "{messages:?}"
        );
    }

    #[test]
    fn inline_body_schema_and_dangling_ref_are_reported() {
        let mut operation = good_operation();
        operation["responses"]["200"]["content"]["application/json"]["schema"] =
            json!({"type": "object"});
        operation["responses"]["404"]["content"]["application/json"]["schema"] =
            json!({"$ref": "#/components/schemas/Nope"});
        let errors = lint(&spec_with_operation(operation));
        assert!(
            errors.iter().any(|e| e.message.contains("must be a $ref")),
            "{errors:?}"
        );
        assert!(
            errors
                .iter()
                .any(|e| e.message.contains("does not resolve")),
            "{errors:?}"
        );
    }
}
