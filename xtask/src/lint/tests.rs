//! The lint's rules, each shown reporting the place it names.

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
