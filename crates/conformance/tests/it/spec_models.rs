//! Every component schema of `spec/openapi.yaml` agrees with the JSON Schema of its generated
//! type, and any change to a property's name, type, format or required-ness in the spec, or its
//! removal, fails the comparison with a message that names the component and the field.

use courier_conformance::models::{ModelEntry, check_models};
use courier_conformance::mutate::{
    properties_mut, property_type, rename_property, required_mut, schema_from, schema_mut,
    set_component, set_property, string_enum_mut, toggle_required,
};
use courier_conformance::paths::spec_path;
use courier_conformance::spec::{Spec, load_spec};
use courier_spec::openapiv3::{AdditionalProperties, ReferenceOr, Schema, SchemaKind, Type};
use serde_json::json;
use std::collections::BTreeSet;

/// Component of the spec → the JSON Schema of the type generated for it, from the table
/// `cargo xtask codegen` writes into courier-models (`COMPONENT_SCHEMAS`).
fn model_table() -> Vec<ModelEntry> {
    courier_models::COMPONENT_SCHEMAS
        .iter()
        .map(|(component, schema)| ModelEntry {
            component,
            schema: serde_json::to_value(schema()).expect("schema serialises"),
        })
        .collect()
}

fn spec() -> Spec {
    load_spec(&spec_path()).unwrap_or_else(|e| panic!("{e}"))
}

/// Runs the comparison on a mutated copy of the spec and returns its failure message.
fn failure_after(mutate: impl FnOnce(&mut Spec)) -> String {
    let mut spec = spec();
    mutate(&mut spec);
    match check_models(&spec, &model_table()) {
        Ok(()) => panic!("the mutated spec still passed the comparison"),
        Err(message) => message,
    }
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
    let spec = spec();
    let spec_names: BTreeSet<&str> = spec.components::<Schema>().map(|(name, _)| name).collect();
    let table = model_table();
    let table_names: BTreeSet<&str> = table.iter().map(|e| e.component).collect();
    assert_eq!(spec_names, table_names);
}

/// The table is generated, so a new component is covered as soon as codegen ran; the check
/// still fails on a spec whose component the table does not know.
#[test]
fn a_new_component_fails_until_added_to_the_table() {
    let message = failure_after(|spec| {
        set_component(spec, "RetryPolicy", schema_from(json!({"type": "object"})));
    });
    assert_names(
        &message,
        &["`RetryPolicy`", "without an entry in the model table"],
    );
}

#[test]
fn renaming_a_property_names_both_names() {
    let message = failure_after(|spec| {
        rename_property(schema_mut(spec, "WorkflowDLQMessage"), "dlqId", "dlqID");
    });
    assert_names(
        &message,
        &["WorkflowDLQMessage.dlqID:", "WorkflowDLQMessage.dlqId:"],
    );
}

#[test]
fn changing_a_type_names_the_field() {
    let message = failure_after(|spec| {
        let string = schema_from(json!({"type": "string"}));
        set_property(schema_mut(spec, "SearchIndex"), "max_vector_count", string);
    });
    assert_names(
        &message,
        &["SearchIndex.max_vector_count: JSON type differs: spec `string`, model `integer`"],
    );
}

#[test]
fn changing_a_format_names_the_field() {
    let message = failure_after(|spec| {
        let int32 = schema_from(json!({"type": "integer", "format": "int32"}));
        set_property(schema_mut(spec, "MessagingAccount"), "creation_time", int32);
    });
    assert_names(
        &message,
        &["MessagingAccount.creation_time: format differs: spec `int32`, model `int64`"],
    );
}

#[test]
fn dropping_a_required_entry_names_the_field() {
    let message = failure_after(|spec| {
        required_mut(schema_mut(spec, "UrlGroup")).retain(|r| r != "name");
    });
    assert_names(
        &message,
        &["UrlGroup.name: optional in the spec but required in the model"],
    );
}

#[test]
fn adding_a_required_entry_names_the_field() {
    let message = failure_after(|spec| {
        toggle_required(schema_mut(spec, "FailedWorkflowRun"), "notBefore");
    });
    assert_names(
        &message,
        &["FailedWorkflowRun.notBefore: required in the spec but optional in the model"],
    );
}

#[test]
fn dropping_a_property_names_the_field() {
    let message = failure_after(|spec| {
        properties_mut(schema_mut(spec, "FailureCallbackInfo")).shift_remove("responseHeaders");
    });
    assert_names(
        &message,
        &["FailureCallbackInfo.responseHeaders: property in the model but not in the spec"],
    );
}

#[test]
fn changing_enum_values_names_the_value() {
    let message = failure_after(|spec| {
        *string_enum_mut(schema_mut(spec, "IndexRegion")) =
            vec![Some("eu-west-1".to_owned()), Some("us-east-1".to_owned())];
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
        let series = json!({"type": "array", "items": {"$ref": "#/components/schemas/DataPoint"}});
        set_property(
            schema_mut(spec, "AccountStats"),
            "daily_requests",
            schema_from(series),
        );
    });
    assert_names(
        &message,
        &["AccountStats.daily_requests[]: refers to component `DataPoint`"],
    );
}

#[test]
fn changing_map_values_names_the_map() {
    let message = failure_after(|spec| {
        let SchemaKind::Type(Type::Object(object)) = &mut schema_mut(spec, "Headers").schema_kind
        else {
            panic!("Headers is an object schema")
        };
        object.additional_properties = Some(AdditionalProperties::Schema(Box::new(
            ReferenceOr::Item(schema_from(json!({"type": "string"}))),
        )));
    });
    assert_names(
        &message,
        &["Headers{}: JSON type differs: spec `string`, model `array`"],
    );
}

type Mutation<'a> = Box<dyn Fn(&mut Spec) + 'a>;

/// Every property of every object component: renamed, dropped, retyped and toggled between
/// required and optional, each mutation alone must fail and name the property.
#[test]
fn every_property_mutation_is_caught() {
    let original = spec();
    let mut checked = 0;
    for (component, schema) in original.components::<Schema>() {
        let Ok(Schema {
            schema_kind: SchemaKind::Type(Type::Object(object)),
            ..
        }) = schema
        else {
            continue;
        };
        for (name, prop) in &object.properties {
            let field = format!("{component}.{name}:");
            let other_type = if property_type(&original, prop) == "boolean" {
                "string"
            } else {
                "boolean"
            };
            let mutations: [(&str, Mutation<'_>); 4] = [
                (
                    "renamed",
                    Box::new(|s: &mut Spec| {
                        rename_property(schema_mut(s, component), name, &format!("{name}Renamed"))
                    }),
                ),
                (
                    "dropped",
                    Box::new(|s: &mut Spec| {
                        properties_mut(schema_mut(s, component)).shift_remove(name);
                    }),
                ),
                (
                    "retyped",
                    Box::new(|s: &mut Spec| {
                        let other = schema_from(json!({"type": other_type}));
                        set_property(schema_mut(s, component), name, other)
                    }),
                ),
                (
                    "required toggled",
                    Box::new(|s: &mut Spec| toggle_required(schema_mut(s, component), name)),
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
