//! Every component schema of `spec/openapi.yaml` agrees with the JSON Schema of its generated
//! type, and any change to a property's name, type, format or required-ness in the spec, or its
//! removal, fails the comparison with a message that names the component and the field.

use courier_conformance::models::{ModelEntry, check_models};
use courier_conformance::paths::spec_path;
use courier_conformance::spec::{component_schemas, deref, load_spec};
use courier_models::*;
use serde_json::{Value, json};
use std::collections::BTreeSet;

macro_rules! table {
    ($($component:literal => $ty:ty),* $(,)?) => {
        vec![$(ModelEntry {
            component: $component,
            schema: serde_json::to_value(schemars::schema_for!($ty)).expect("schema serialises"),
        }),*]
    };
}

/// Component of the spec → the type generated for it (typify sanitises names to Pascal case:
/// `WorkflowDLQMessage` → `WorkflowDlqMessage`).
fn model_table() -> Vec<ModelEntry> {
    table![
        "ErrorBody" => ErrorBody,
        "Headers" => Headers,
        "FailureFunctionState" => FailureFunctionState,
        "WorkflowDLQMessage" => WorkflowDlqMessage,
        "FailureCallbackInfo" => FailureCallbackInfo,
        "FailedWorkflowRun" => FailedWorkflowRun,
        "ListWorkflowDlqResponse" => ListWorkflowDlqResponse,
        "DeleteWorkflowDlqResponse" => DeleteWorkflowDlqResponse,
        "BulkCancelResponse" => BulkCancelResponse,
        "DlqSource" => DlqSource,
        "UrlGroupEndpoint" => UrlGroupEndpoint,
        "UrlGroup" => UrlGroup,
        "DataPoint" => DataPoint,
        "DailyRequestDataPoint" => DailyRequestDataPoint,
        "NamedSeries" => NamedSeries,
        "StatsPeriod" => StatsPeriod,
        "IndexType" => IndexType,
        "IndexRegion" => IndexRegion,
        "SearchIndex" => SearchIndex,
        "SearchIndexStats" => SearchIndexStats,
        "AccountStats" => AccountStats,
        "AccountState" => AccountState,
        "PlanType" => PlanType,
        "ReservedPlanType" => ReservedPlanType,
        "MessagingAccount" => MessagingAccount,
        // `x-courier-rust-type: String`: constrained in the spec, a plain String in Rust.
        "DlqCursor" => String,
        "NonEmptyString" => String,
    ]
}

fn spec() -> Value {
    load_spec(&spec_path()).unwrap_or_else(|e| panic!("{e}"))
}

/// Runs the comparison on a mutated copy of the spec and returns its failure message.
fn failure_after(mutate: impl FnOnce(&mut Value)) -> String {
    let mut spec = spec();
    mutate(&mut spec);
    match check_models(&spec, &model_table()) {
        Ok(()) => panic!("the mutated spec still passed the comparison"),
        Err(message) => message,
    }
}

fn schema_mut<'a>(spec: &'a mut Value, component: &str) -> &'a mut Value {
    spec.pointer_mut(&format!("/components/schemas/{component}"))
        .unwrap_or_else(|| panic!("no component {component}"))
}

fn assert_names(message: &str, expected: &[&str]) {
    for needle in expected {
        assert!(
            message.contains(needle),
            "expected {needle:?} in:\n{message}"
        );
    }
}

#[test]
fn every_component_agrees_with_its_model() {
    if let Err(message) = check_models(&spec(), &model_table()) {
        panic!("the spec and the generated models disagree:\n{message}");
    }
}

#[test]
fn the_table_covers_exactly_the_components_of_the_spec() {
    let spec_names: BTreeSet<String> = component_schemas(&spec()).keys().cloned().collect();
    let table_names: BTreeSet<String> = model_table()
        .iter()
        .map(|e| e.component.to_owned())
        .collect();
    assert_eq!(spec_names, table_names);
}

#[test]
fn a_new_component_fails_until_added_to_the_table() {
    let message = failure_after(|spec| {
        schema_mut(spec, "ErrorBody");
        spec["components"]["schemas"]["RetryPolicy"] = json!({"type": "object"});
    });
    assert_names(
        &message,
        &["`RetryPolicy`", "without an entry in the model table"],
    );
}

#[test]
fn renaming_a_property_names_both_names() {
    let message = failure_after(|spec| {
        let props = schema_mut(spec, "WorkflowDLQMessage")["properties"]
            .as_object_mut()
            .unwrap();
        let value = props.remove("dlqId").unwrap();
        props.insert("dlqID".to_owned(), value);
        let required = schema_mut(spec, "WorkflowDLQMessage")["required"]
            .as_array_mut()
            .unwrap();
        required
            .iter_mut()
            .filter(|r| *r == "dlqId")
            .for_each(|r| *r = json!("dlqID"));
    });
    assert_names(
        &message,
        &["WorkflowDLQMessage.dlqID:", "WorkflowDLQMessage.dlqId:"],
    );
}

#[test]
fn changing_a_type_names_the_field() {
    let message = failure_after(|spec| {
        schema_mut(spec, "SearchIndex")["properties"]["max_vector_count"] =
            json!({"type": "string"});
    });
    assert_names(
        &message,
        &["SearchIndex.max_vector_count: JSON type differs: spec `string`, model `integer`"],
    );
}

#[test]
fn changing_a_format_names_the_field() {
    let message = failure_after(|spec| {
        schema_mut(spec, "MessagingAccount")["properties"]["creation_time"]["format"] =
            json!("int32");
    });
    assert_names(
        &message,
        &["MessagingAccount.creation_time: format differs: spec `int32`, model `int64`"],
    );
}

#[test]
fn dropping_a_required_entry_names_the_field() {
    let message = failure_after(|spec| {
        let required = schema_mut(spec, "UrlGroup")["required"]
            .as_array_mut()
            .unwrap();
        required.retain(|r| r != "name");
    });
    assert_names(
        &message,
        &["UrlGroup.name: optional in the spec but required in the model"],
    );
}

#[test]
fn adding_a_required_entry_names_the_field() {
    let message = failure_after(|spec| {
        schema_mut(spec, "FailedWorkflowRun")["required"]
            .as_array_mut()
            .unwrap()
            .push(json!("notBefore"));
    });
    assert_names(
        &message,
        &["FailedWorkflowRun.notBefore: required in the spec but optional in the model"],
    );
}

#[test]
fn dropping_a_property_names_the_field() {
    let message = failure_after(|spec| {
        schema_mut(spec, "FailureCallbackInfo")["properties"]
            .as_object_mut()
            .unwrap()
            .remove("responseHeaders");
    });
    assert_names(
        &message,
        &["FailureCallbackInfo.responseHeaders: property in the model but not in the spec"],
    );
}

#[test]
fn changing_enum_values_names_the_value() {
    let message = failure_after(|spec| {
        schema_mut(spec, "IndexRegion")["enum"] = json!(["eu-west-1", "us-east-1"]);
    });
    assert_names(
        &message,
        &[
            "IndexRegion: enum value \"us-east-1\" is in the spec",
            "\"us-central1\" is in the model",
        ],
    );
}

#[test]
fn retargeting_a_reference_names_the_field() {
    let message = failure_after(|spec| {
        schema_mut(spec, "AccountStats")["properties"]["daily_requests"]["items"] =
            json!({"$ref": "#/components/schemas/DataPoint"});
    });
    assert_names(
        &message,
        &["AccountStats.daily_requests[]: refers to component `DataPoint`"],
    );
}

#[test]
fn changing_map_values_names_the_map() {
    let message = failure_after(|spec| {
        schema_mut(spec, "Headers")["additionalProperties"] = json!({"type": "string"});
    });
    assert_names(
        &message,
        &["Headers{}: JSON type differs: spec `string`, model `array`"],
    );
}

type Mutation<'a> = Box<dyn Fn(&mut Value) + 'a>;

/// Every property of every object component: renamed, dropped, retyped and toggled between
/// required and optional, each mutation alone must fail and name the property.
#[test]
fn every_property_mutation_is_caught() {
    let original = spec();
    let mut checked = 0;
    for (component, schema) in component_schemas(&original) {
        let Some(props) = schema.get("properties").and_then(Value::as_object) else {
            continue;
        };
        for (name, prop) in props {
            let field = format!("{component}.{name}:");
            let target_type = deref(&original, prop)
                .get("type")
                .and_then(Value::as_str)
                .unwrap_or("");
            let other_type = if target_type == "boolean" {
                "string"
            } else {
                "boolean"
            };
            let mutations: [(&str, Mutation<'_>); 4] = [
                (
                    "renamed",
                    Box::new(|s: &mut Value| {
                        let props = schema_mut(s, &component)["properties"]
                            .as_object_mut()
                            .unwrap();
                        let v = props.remove(name).unwrap();
                        props.insert(format!("{name}Renamed"), v);
                    }),
                ),
                (
                    "dropped",
                    Box::new(|s: &mut Value| {
                        schema_mut(s, &component)["properties"]
                            .as_object_mut()
                            .unwrap()
                            .remove(name);
                    }),
                ),
                (
                    "retyped",
                    Box::new(|s: &mut Value| {
                        schema_mut(s, &component)["properties"][name] = json!({"type": other_type});
                    }),
                ),
                (
                    "required toggled",
                    Box::new(|s: &mut Value| {
                        let schema = schema_mut(s, &component);
                        let mut required: Vec<Value> = schema
                            .get("required")
                            .and_then(Value::as_array)
                            .cloned()
                            .unwrap_or_default();
                        if required.iter().any(|r| r == name) {
                            required.retain(|r| r != name);
                        } else {
                            required.push(json!(name));
                        }
                        schema["required"] = Value::Array(required);
                    }),
                ),
            ];
            for (what, mutate) in mutations {
                let mut spec = original.clone();
                mutate(&mut spec);
                let message = check_models(&spec, &model_table())
                    .err()
                    .unwrap_or_else(|| panic!("{component}.{name} {what}: still passes"));
                assert!(
                    message.contains(&field),
                    "{component}.{name} {what}: message does not name it:\n{message}"
                );
                checked += 1;
            }
        }
    }
    assert!(checked >= 4 * 100, "only {checked} mutations were tried");
}
