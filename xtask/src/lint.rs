//! Spec lint run before generation: the rules the generators rely on, reported with JSON pointers.
//!
//! progenitor and typify either panic or silently produce duplicate types when a spec breaks these
//! rules, so they are checked here first and every violation is reported at once, pointing at the
//! place in `spec/openapi.yaml` that needs to change. The document is read through `courier-spec`
//! like everywhere else; the pointers are built from the place each typed node came from.

use courier_spec::openapiv3::{
    self, Parameter, ParameterSchemaOrContent, QueryStyle, ReferenceOr, SchemaKind, Type,
};
use courier_spec::{Spec, extensions, location_of};
use std::borrow::Borrow;
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

/// Escapes one JSON pointer segment (RFC 6901).
pub fn escape(segment: &str) -> String {
    segment.replace('~', "~0").replace('/', "~1")
}

/// Checks the whole document; an empty result means the generators can run.
pub fn lint(spec: &Spec) -> Vec<LintError> {
    let mut linter = Linter {
        spec,
        errors: Vec::new(),
    };
    linter.run();
    linter.errors
}

struct Linter<'a> {
    spec: &'a Spec,
    errors: Vec<LintError>,
}

impl<'a> Linter<'a> {
    fn error(&mut self, pointer: impl Into<String>, message: impl Into<String>) {
        self.errors.push(LintError {
            pointer: pointer.into(),
            message: message.into(),
        });
    }

    /// Follows a `$ref` of kind `T`; a dangling one is reported at `pointer`.
    fn resolve<T: courier_spec::Component>(
        &mut self,
        pointer: &str,
        item: &'a ReferenceOr<T>,
    ) -> Option<&'a T> {
        match self.spec.resolve(item) {
            Ok(target) => Some(target),
            Err(error) => {
                self.error(format!("{pointer}/$ref"), error.to_string());
                None
            }
        }
    }

    fn run(&mut self) {
        let openapi = self.spec.openapi();
        if openapi.openapi != "3.0.3" {
            self.error("/openapi", "must be \"3.0.3\"");
        }
        let declared_tags: BTreeSet<&str> =
            openapi.tags.iter().map(|tag| tag.name.as_str()).collect();
        for (name, schema) in self.spec.components::<openapiv3::Schema>() {
            // courier-server names each operation's types `{Operation}Request` and
            // `{Operation}Response`; a model with either ending would read as one of them, or
            // share its name outright, in any program that uses both crates.
            if let Some(suffix) = ["Request", "Response"]
                .into_iter()
                .find(|suffix| name.ends_with(suffix))
            {
                self.error(
                    format!("/components/schemas/{}", escape(name)),
                    format!(
                        "a schema name may not end in `{suffix}`: courier-server names each operation's own types that way (name the body for what it holds, as `WorkflowDlqPage`)"
                    ),
                );
            }
            let Ok(schema) = schema else { continue };
            if let Some(rust_type) = extensions::rust_type(schema) {
                let pointer = format!("/components/schemas/{}/x-courier-rust-type", escape(name));
                if rust_type.as_str() != Some("String") {
                    self.error(&pointer, "the only supported value is `String`");
                } else if !matches!(schema.schema_kind, SchemaKind::Type(Type::String(_))) {
                    self.error(pointer, "`String` needs a `type: string` schema");
                }
            }
        }
        if openapi.paths.paths.is_empty() {
            self.error("/paths", "the spec has no paths");
            return;
        }
        let mut operation_ids = BTreeSet::new();
        for (path, item) in &openapi.paths.paths {
            let item_pointer = format!("/paths/{}", escape(path));
            let ReferenceOr::Item(item) = item else {
                self.error(
                    &item_pointer,
                    "path items must be written inline, not as $ref",
                );
                continue;
            };
            if !item.parameters.is_empty() {
                self.error(
                    format!("{item_pointer}/parameters"),
                    "declare parameters on each operation, not on the path item",
                );
            }
            for (method, operation) in item.iter() {
                let pointer = format!("{item_pointer}/{method}");
                self.operation(&pointer, operation, &declared_tags, &mut operation_ids);
            }
        }
    }

    fn operation(
        &mut self,
        pointer: &str,
        operation: &'a openapiv3::Operation,
        declared_tags: &BTreeSet<&str>,
        operation_ids: &mut BTreeSet<String>,
    ) {
        match operation.operation_id.as_deref() {
            None => self.error(pointer, "operation has no operationId"),
            Some(id) if !operation_ids.insert(id.to_owned()) => self.error(
                format!("{pointer}/operationId"),
                format!("operationId `{id}` is used twice"),
            ),
            Some(_) => {}
        }
        if operation.tags.len() != 1 {
            self.error(
                format!("{pointer}/tags"),
                "operation needs exactly one tag (its interface)",
            );
        }
        for tag in &operation.tags {
            if !declared_tags.contains(tag.as_str()) {
                self.error(
                    format!("{pointer}/tags"),
                    format!("tag `{tag}` is not declared in /tags"),
                );
            }
        }
        for (field, text) in [
            ("summary", &operation.summary),
            ("description", &operation.description),
        ] {
            if text.as_deref().is_none_or(str::is_empty) {
                self.error(pointer, format!("operation has no {field}"));
            }
        }
        if operation.security.as_ref().is_none_or(Vec::is_empty) {
            self.error(pointer, "operation declares no security requirement");
        }
        for (index, parameter) in operation.parameters.iter().enumerate() {
            self.parameter(&format!("{pointer}/parameters/{index}"), parameter);
        }
        if let Some(body) = &operation.request_body {
            let body_pointer = format!("{pointer}/requestBody");
            if let Some(body) = self.resolve(&body_pointer, body) {
                self.content_schemas(&body_pointer, &body.content);
            }
        }
        self.responses(pointer, operation);
    }

    fn parameter(&mut self, pointer: &str, parameter: &'a ReferenceOr<Parameter>) {
        let Some(resolved) = self.resolve(pointer, parameter) else {
            return;
        };
        // A shared parameter is reported where it is written, in /components/parameters.
        let pointer = match parameter {
            ReferenceOr::Reference { reference } => reference.trim_start_matches('#').to_owned(),
            ReferenceOr::Item(_) => pointer.to_owned(),
        };
        let parameter = resolved;
        let data = parameter.parameter_data_ref();
        let name = &data.name;
        let location = location_of(parameter);
        if !matches!(location, "query" | "path") {
            self.error(
                format!("{pointer}/in"),
                format!("parameter `{name}`: only query and path parameters are supported"),
            );
        }
        if data.description.as_deref().is_none_or(str::is_empty) {
            self.error(&pointer, format!("parameter `{name}` has no description"));
        }
        let ParameterSchemaOrContent::Schema(schema) = &data.format else {
            return self.error(&pointer, format!("parameter `{name}` has no schema"));
        };
        let schema_pointer = format!("{pointer}/schema");
        let ReferenceOr::Item(openapiv3::Schema {
            schema_kind: SchemaKind::Type(Type::Array(array)),
            ..
        }) = schema
        else {
            return self.primitive_or_ref(&schema_pointer, schema);
        };
        match parameter {
            Parameter::Query { style, .. } => {
                let explode = data.explode.unwrap_or(*style == QueryStyle::Form);
                if *style != QueryStyle::Form || !explode {
                    self.error(
                        &pointer,
                        format!("array parameter `{name}` must be `style: form, explode: true`"),
                    );
                }
            }
            _ => self.error(
                &schema_pointer,
                format!("array parameter `{name}` must be in the query"),
            ),
        }
        match &array.items {
            Some(items) => self.primitive_or_ref(&format!("{schema_pointer}/items"), items),
            None => self.error(
                &schema_pointer,
                format!("array parameter `{name}` has no items"),
            ),
        }
    }

    /// Parameters may only use primitive schemas or `$ref`s: an inline enum or object would be
    /// generated again inside the client instead of reusing the models crate's type.
    fn primitive_or_ref<S: Borrow<openapiv3::Schema>>(
        &mut self,
        pointer: &str,
        schema: &ReferenceOr<S>,
    ) {
        let schema: &openapiv3::Schema = match schema {
            ReferenceOr::Reference { reference } => {
                if let Err(error) = self.spec.resolve_ref::<openapiv3::Schema>(reference) {
                    self.error(format!("{pointer}/$ref"), error.to_string());
                }
                return;
            }
            ReferenceOr::Item(schema) => schema.borrow(),
        };
        let SchemaKind::Type(ty) = &schema.schema_kind else {
            return self.error(pointer, "schema has neither a primitive type nor a $ref");
        };
        let inline_enum = match ty {
            Type::String(string) => !string.enumeration.is_empty(),
            Type::Integer(integer) => !integer.enumeration.is_empty(),
            Type::Number(number) => !number.enumeration.is_empty(),
            Type::Boolean(boolean) => !boolean.enumeration.is_empty(),
            Type::Object(_) => {
                return self.error(
                    pointer,
                    "inline `object` schema: move it to /components/schemas and $ref it",
                );
            }
            Type::Array(_) => {
                return self.error(
                    pointer,
                    "inline `array` schema: move it to /components/schemas and $ref it",
                );
            }
        };
        if inline_enum {
            self.error(
                pointer,
                "inline enum: move it to /components/schemas and $ref it",
            );
        }
    }

    /// Bodies must be a `$ref` to a component, for the same reason as parameters. Returns the
    /// `$ref`s found.
    fn content_schemas(&mut self, pointer: &str, content: &'a openapiv3::Content) -> Vec<&'a str> {
        let mut refs = Vec::new();
        for (media_type, media) in content {
            let schema_pointer = format!("{pointer}/content/{}/schema", escape(media_type));
            match &media.schema {
                Some(ReferenceOr::Reference { reference }) => {
                    match self.spec.resolve_ref::<openapiv3::Schema>(reference) {
                        Ok(_) => refs.push(reference.as_str()),
                        Err(error) => {
                            self.error(format!("{schema_pointer}/$ref"), error.to_string())
                        }
                    }
                }
                _ => self.error(
                    schema_pointer,
                    "body schemas must be a $ref to /components/schemas",
                ),
            }
        }
        refs
    }

    /// progenitor panics unless all 2xx responses share one schema and all error responses share
    /// one schema.
    fn responses(&mut self, pointer: &str, operation: &'a openapiv3::Operation) {
        let responses_pointer = format!("{pointer}/responses");
        let responses = &operation.responses;
        let statuses = responses
            .responses
            .iter()
            .map(|(status, response)| (status.to_string(), response))
            .chain(
                responses
                    .default
                    .iter()
                    .map(|response| ("default".to_owned(), response)),
            );
        let mut success: BTreeSet<Option<&str>> = BTreeSet::new();
        let mut failure: BTreeSet<Option<&str>> = BTreeSet::new();
        let mut any = false;
        for (status, response) in statuses {
            any = true;
            let status_pointer = format!("{responses_pointer}/{}", escape(&status));
            let Some(response) = self.resolve(&status_pointer, response) else {
                continue;
            };
            let schema = self
                .content_schemas(&status_pointer, &response.content)
                .into_iter()
                .next();
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
        if !any {
            return self.error(responses_pointer, "operation has no responses");
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
    use super::{LintError, Spec, lint};
    use serde_json::{Value, json};

    /// Lints a document written as JSON (JSON is YAML), through the one reader.
    fn lint_json(spec: Value) -> Vec<LintError> {
        lint(&Spec::parse(&spec.to_string()).expect("a test spec parses"))
    }

    fn spec_with_operation(operation: Value) -> Value {
        json!({
            "openapi": "3.0.3",
            "info": {"title": "t", "version": "1"},
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
    fn a_schema_named_like_a_servers_response_type_is_reported() {
        let mut spec = spec_with_operation(good_operation());
        spec["components"]["schemas"]["ListThingsResponse"] = json!({"type": "object"});
        let errors = lint_json(spec);
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert_eq!(errors[0].pointer, "/components/schemas/ListThingsResponse");
        assert!(errors[0].message.contains("`Response`"), "{}", errors[0]);
    }

    #[test]
    fn a_good_operation_passes() {
        assert_eq!(lint_json(spec_with_operation(good_operation())), vec![]);
    }

    #[test]
    fn inline_enum_parameter_is_reported_with_its_pointer() {
        let mut operation = good_operation();
        operation["parameters"].as_array_mut().unwrap().push(json!({
            "name": "period", "in": "query", "description": "d", "schema": {"type": "string", "enum": ["1h"]}
        }));
        let errors = lint_json(spec_with_operation(operation));
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
        let errors = lint_json(spec_with_operation(operation));
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
        let errors = lint_json(spec_with_operation(operation));
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
        let errors = lint_json(spec_with_operation(operation));
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
