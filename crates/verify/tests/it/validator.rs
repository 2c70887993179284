//! The validator over real answers: the conformance fixtures (bodies the hosted service sent),
//! each kind of violation made from them and found at the right place.

use courier_verify::{Contract, Place, Validator, Violation};
use http::HeaderMap;
use serde_json::{Value, json};

fn fixture(name: &str) -> Value {
    let path = format!(
        "{}/../conformance/tests/fixtures/{name}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

fn json_headers() -> HeaderMap {
    let mut headers = HeaderMap::new();
    headers.insert("content-type", "application/json".parse().unwrap());
    headers
}

/// One validator for the file's tests: building one compiles every schema of the contract.
fn courier() -> &'static Validator {
    static VALIDATOR: std::sync::OnceLock<Validator> = std::sync::OnceLock::new();
    VALIDATOR.get_or_init(|| Validator::courier().unwrap())
}

fn check(operation_id: &str, status: u16, body: &Value) -> Vec<Violation> {
    courier().validate(
        operation_id,
        status,
        &json_headers(),
        body.to_string().as_bytes(),
    )
}

/// The one violation expected, as (pointer, rule).
fn only(violations: &[Violation]) -> (&str, &str) {
    assert_eq!(violations.len(), 1, "{violations:#?}");
    (violations[0].pointer.as_str(), violations[0].rule.as_str())
}

#[test]
fn the_hosted_services_answers_keep_the_contract() {
    for (operation_id, status, name) in [
        ("listWorkflowDlq", 200, "list_workflow_dlq"),
        ("listDlqCompat", 200, "list_workflow_dlq"),
        ("getWorkflowDlq", 200, "failed_workflow_run"),
        ("getWorkflowDlq", 404, "error"),
        ("deleteWorkflowDlqBulk", 200, "delete_workflow_dlq"),
        ("getUrlGroup", 200, "url_group"),
        ("getSearchIndex", 200, "search_index"),
        ("getSearchIndexStats", 200, "search_index_stats"),
        ("getAccountStats", 200, "account_stats"),
        ("rotateToken", 200, "messaging_account"),
    ] {
        let violations = check(operation_id, status, &fixture(name));
        assert!(violations.is_empty(), "{name}: {violations:#?}");
    }
    let validator = courier();
    assert!(
        validator
            .validate("deleteDlqMessage", 200, &HeaderMap::new(), b"")
            .is_empty()
    );
}

#[test]
fn a_missing_required_field_is_reported_at_its_own_pointer() {
    let mut page = fixture("list_workflow_dlq");
    page["messages"][1]
        .as_object_mut()
        .unwrap()
        .remove("workflowRunId");
    let violations = check("listWorkflowDlq", 200, &page);
    assert_eq!(only(&violations), ("/messages/1/workflowRunId", "required"));
    assert_eq!(violations[0].operation_id, "listWorkflowDlq");
    assert_eq!(violations[0].status, 200);
    assert_eq!(violations[0].place, Place::Body);
}

#[test]
fn a_wrong_type_names_the_value() {
    let mut page = fixture("list_workflow_dlq");
    page["messages"][0]["maxRetries"] = json!("3");
    let violations = check("listWorkflowDlq", 200, &page);
    assert_eq!(only(&violations), ("/messages/0/maxRetries", "type"));
    assert_eq!(violations[0].value, "\"3\"");
}

#[test]
fn an_enum_value_outside_the_set_is_reported() {
    let mut run = fixture("failed_workflow_run");
    run["failureCallbackInfo"]["state"] = json!("CALLBACK_EXPLODED");
    let violations = check("getWorkflowDlq", 200, &run);
    assert_eq!(only(&violations), ("/failureCallbackInfo/state", "enum"));
}

#[test]
fn formats_the_spec_uses_are_asserted() {
    let mut index = fixture("search_index");
    index["id"] = json!("not-a-uuid");
    let violations = check("getSearchIndex", 200, &index);
    assert_eq!(only(&violations), ("/id", "format"));
}

#[test]
fn items_of_maps_are_checked_against_additional_properties() {
    let mut page = fixture("list_workflow_dlq");
    page["messages"][0]["header"]["Content-Type"] = json!("application/json");
    let violations = check("listWorkflowDlq", 200, &page);
    assert_eq!(
        only(&violations),
        ("/messages/0/header/Content-Type", "type")
    );
}

#[test]
fn long_values_are_shortened() {
    let mut page = fixture("list_workflow_dlq");
    page["messages"][0]["labels"] = json!("x".repeat(500));
    let violations = check("listWorkflowDlq", 200, &page);
    assert_eq!(only(&violations), ("/messages/0/labels", "type"));
    assert_eq!(violations[0].value.chars().count(), 80);
}

#[test]
fn an_error_body_without_its_message_is_a_violation() {
    let violations = check("getWorkflowDlq", 404, &json!({"message": "not found"}));
    assert_eq!(only(&violations), ("/error", "required"));
    let violations = check("getWorkflowDlq", 404, &json!({"error": 404}));
    assert_eq!(only(&violations), ("/error", "type"));
}

#[test]
fn an_undocumented_status_is_a_violation() {
    let violations = check("getWorkflowDlq", 418, &json!({"error": "teapot"}));
    assert_eq!(only(&violations), ("", "status"));
    assert_eq!(violations[0].place, Place::Status);
    assert!(
        violations[0]
            .message
            .contains("200, 400, 401, 404, 429, 500"),
        "{}",
        violations[0].message
    );
}

#[test]
fn a_wrong_content_type_and_a_body_that_is_not_json_are_violations() {
    let validator = courier();
    let mut headers = HeaderMap::new();
    headers.insert("content-type", "text/html; charset=utf-8".parse().unwrap());
    let violations = validator.validate("getWorkflowDlq", 404, &headers, b"<h1>gone</h1>");
    assert_eq!(only(&violations), ("", "content-type"));
    assert_eq!(violations[0].place, Place::ContentType);
    assert_eq!(violations[0].value, "text/html; charset=utf-8");

    let mut headers = json_headers();
    headers.insert(
        "content-type",
        "application/json; charset=utf-8".parse().unwrap(),
    );
    let violations = validator.validate("getWorkflowDlq", 404, &headers, b"{\"error\": ");
    assert_eq!(only(&violations), ("", "json"));
    let violations = validator.validate("getWorkflowDlq", 404, &headers, b"{\"error\": \"x\"}");
    assert!(
        violations.is_empty(),
        "parameters of the media type are ignored: {violations:#?}"
    );
}

#[test]
fn a_body_where_none_is_documented_is_a_violation() {
    let validator = courier();
    let violations = validator.validate("deleteDlqMessage", 200, &json_headers(), b"{}");
    assert_eq!(only(&violations), ("", "empty-body"));
}

#[test]
fn documented_headers_are_checked_against_their_schemas() {
    let validator = courier();
    let mut headers = json_headers();
    headers.insert("retry-after", "soon".parse().unwrap());
    let violations = validator.validate(
        "listWorkflowDlq",
        429,
        &headers,
        b"{\"error\": \"slow down\"}",
    );
    assert_eq!(only(&violations), ("", "type"));
    assert_eq!(violations[0].place, Place::Header("Retry-After".into()));
    headers.insert("retry-after", "1".parse().unwrap());
    let violations = validator.validate(
        "listWorkflowDlq",
        429,
        &headers,
        b"{\"error\": \"slow down\"}",
    );
    assert!(violations.is_empty(), "{violations:#?}");
}

/// A contract with the rules courier's spec does not use yet (a required header, bounds, a
/// closed object), to show they are enforced when a spec has them.
fn strict_contract() -> &'static Contract {
    let contract: Contract = serde_json::from_value(json!({
        "title": "strict", "version": "1",
        "operations": [{
            "operationId": "getThing", "method": "GET", "path": "/things/{id}", "tags": [],
            "security": [],
            "responses": [{
                "status": "2XX",
                "content": {"application/json": {"$ref": "#/$defs/Thing"}},
                "headers": [{"name": "X-Request-Id", "required": true, "schema": {"type": "string"}}]
            }]
        }],
        "schemas": {"Thing": {
            "type": "object", "additionalProperties": false, "required": ["size"],
            "properties": {"size": {"type": "integer", "minimum": 1, "maximum": 10},
                           "note": {"type": ["string", "null"]}}
        }},
        "securitySchemes": {}, "series": {}
    }))
    .unwrap();
    Box::leak(Box::new(contract))
}

#[test]
fn bounds_closed_objects_and_required_headers_are_enforced() {
    let validator = Validator::new(strict_contract()).unwrap();
    let headers = json_headers();
    let violations = validator.validate(
        "getThing",
        201,
        &headers,
        br#"{"size": 11, "colour": "red", "note": null}"#,
    );
    let found: Vec<(&str, &str, String)> = violations
        .iter()
        .map(|v| (v.pointer.as_str(), v.rule.as_str(), v.place.to_string()))
        .collect();
    assert_eq!(
        found,
        [
            ("", "header", "header X-Request-Id".to_owned()),
            ("/colour", "additionalProperties", "body".to_owned()),
            ("/size", "maximum", "body".to_owned()),
        ],
        "{violations:#?}"
    );
    assert_eq!(violations[1].value, "\"red\"");
}
