//! The interface held to the spec: the field lists of part 2, the operations and parameters of
//! part 4, the states of part 3 and the error statuses of part 7 must all be in the spec.
//! Removing or retyping any of them in the spec fails with a message that names it.
//!
//! The facts come from the committed `interface-facts.json`, so these tests need nothing beside
//! the repository. The first test checks that file against the interface document where
//! `COURIER_INTERFACE_MD` names it, so the two cannot drift.

use courier_conformance::contract::{SECTION_COMPONENTS, check_facts, check_interface};
use courier_conformance::interface::{
    Field, FieldGroup, InterfaceFacts, OperationDoc, ShapeSection,
};
use courier_conformance::mutate::{
    json_response, operation_slot, parameter_schema_mut, properties_mut, property_type,
    remove_parameter, required_mut, responses_mut, schema_from, schema_mut, set_property,
    string_enum_mut,
};
use courier_conformance::paths::{
    BLESS_FACTS_ENV, committed_facts, facts_path, interface_document, spec_path,
};
use courier_conformance::spec::{Spec, load_spec};
use courier_spec::openapiv3::{ReferenceOr, Schema, SchemaKind, StatusCode, Type};
use courier_spec::ref_name;
use serde_json::json;
use std::collections::BTreeSet;

fn spec() -> Spec {
    load_spec(&spec_path()).unwrap_or_else(|e| panic!("{e}"))
}

/// `values` as the values of a string enum.
fn values(values: &[&str]) -> Vec<Option<String>> {
    values.iter().map(|v| Some((*v).to_owned())).collect()
}

/// Mutating the spec makes the checks fail, with a message that says `expected`.
fn assert_caught(facts: &InterfaceFacts, expected: &str, mutate: impl FnOnce(&mut Spec)) {
    let mut spec = spec();
    mutate(&mut spec);
    assert_fails_saying(check_facts(&spec, facts), expected);
}

/// The checks failed, with a message that says `expected`.
fn assert_fails_saying(checked: Result<(), String>, expected: &str) {
    let message = checked.expect_err("the checks pass; they should have failed");
    assert!(message.contains(expected), "{expected:?} not in: {message}");
}

/// The committed facts are exactly what the interface document says. Skipped, with the reason
/// printed, where `COURIER_INTERFACE_MD` does not name it (CI makes it mandatory).
#[test]
fn the_committed_facts_are_what_the_interface_document_says() {
    let Some(md) = interface_document() else {
        return;
    };
    let parsed = InterfaceFacts::parse(&md).unwrap_or_else(|e| panic!("{e}"));
    if std::env::var_os(BLESS_FACTS_ENV).is_some() {
        std::fs::write(facts_path(), parsed.to_json()).expect("write interface-facts.json");
        return;
    }
    assert!(
        parsed == committed_facts(),
        "interface-facts.json differs from the interface document; review the document's \
         change, then rewrite the file with `{BLESS_FACTS_ENV}=1 cargo test -p \
         courier-conformance --test it interface::` and read its diff"
    );
    // The document's own text passes the checks too (parser, file and checks agree).
    check_interface(&spec(), &md).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn the_spec_carries_everything_the_interface_lists() {
    if let Err(message) = check_facts(&spec(), &committed_facts()) {
        panic!("the spec does not carry the interface:\n{message}");
    }
}

#[test]
fn every_section_of_part_2_yields_fields() {
    let shapes = committed_facts().shapes;
    let numbers: BTreeSet<&str> = shapes.iter().map(|s| s.number.as_str()).collect();
    let mapped: BTreeSet<&str> = SECTION_COMPONENTS.iter().map(|(n, _)| *n).collect();
    assert_eq!(
        numbers, mapped,
        "SECTION_COMPONENTS must map exactly the sections of part 2"
    );
    for shape in &shapes {
        let top = shape.groups.iter().filter(|g| g.via.is_none()).count();
        let mapped = SECTION_COMPONENTS
            .iter()
            .find(|(n, _)| *n == shape.number)
            .unwrap()
            .1
            .len();
        assert_eq!(
            top, mapped,
            "section {}: shapes read vs. components mapped",
            shape.number
        );
        for group in &shape.groups {
            assert!(
                !group.fields.is_empty(),
                "section {}: empty field list",
                shape.number
            );
            for field in &group.fields {
                assert!(
                    !field.name.is_empty() && !field.ty.is_empty(),
                    "section {}: {field:?}",
                    shape.number
                );
            }
        }
    }
    // The nested failure callback object of 2.2 is read as its own list.
    let s22 = shapes.iter().find(|s| s.number == "2.2").unwrap();
    assert!(
        s22.groups.iter().any(|g| g.via.is_some()),
        "2.2 should list a nested object"
    );
}

#[test]
fn every_operation_of_part_4_and_error_of_part_7_is_read() {
    let facts = committed_facts();
    let ops = &facts.operations;
    let numbers: Vec<&str> = ops.iter().map(|o| o.number.as_str()).collect();
    let consecutive: Vec<String> = (1..=ops.len()).map(|n| format!("4.{n}")).collect();
    assert_eq!(numbers, consecutive, "one operation per section of part 4");
    assert!(
        ops.iter().any(|o| !o.table_params.is_empty()),
        "no parameter tables read"
    );
    let errors = &facts.errors;
    assert!(!errors.is_empty());
    for row in errors {
        assert!(
            numbers.contains(&row.operation.as_str()),
            "part 7 row {row:?} names no operation"
        );
        assert!(
            row.status.parse::<u16>().is_ok(),
            "part 7 row {row:?} has no status code"
        );
    }
    assert!(!facts.states.is_empty());
}

/// Dropping any field of part 2 from its component, or retyping it, fails and names it.
#[test]
fn every_interface_field_is_guarded() {
    let facts = committed_facts();
    let original = spec();
    let mut checked = 0;
    for shape in &facts.shapes {
        let components = SECTION_COMPONENTS
            .iter()
            .find(|(n, _)| *n == shape.number)
            .unwrap()
            .1;
        let mut names = components.iter();
        let mut owner = "";
        for group in &shape.groups {
            // The component that holds this group's fields.
            let holder: String = match &group.via {
                None => {
                    owner = names.next().unwrap();
                    (*owner).to_owned()
                }
                Some(via) => {
                    let owner_schema = original.component::<Schema>(owner).unwrap();
                    let SchemaKind::Type(Type::Object(object)) = &owner_schema.schema_kind else {
                        panic!("{owner} is an object schema");
                    };
                    match &object.properties[via.as_str()] {
                        ReferenceOr::Reference { reference } => {
                            ref_name::<Schema>(reference).unwrap().to_owned()
                        }
                        ReferenceOr::Item(_) => panic!("nested objects are $refs"),
                    }
                }
            };
            let holder_schema = original.component::<Schema>(&holder).unwrap();
            let SchemaKind::Type(Type::Object(holder_object)) = &holder_schema.schema_kind else {
                panic!("{holder} is an object schema");
            };
            for field in &group.fields {
                let type_now = property_type(&original, &holder_object.properties[&field.name]);
                let other = if type_now == "boolean" {
                    "string"
                } else {
                    "boolean"
                };
                let name = field.name.clone();
                assert_caught(
                    &facts,
                    &format!("field `{name}` of the interface is missing from the spec"),
                    |s| {
                        properties_mut(schema_mut(s, &holder)).shift_remove(&name);
                    },
                );
                assert_caught(&facts, &format!(".{name}: the interface says"), |s| {
                    set_property(
                        schema_mut(s, &holder),
                        &name,
                        schema_from(json!({"type": other})),
                    );
                });
                checked += 1;
            }
        }
    }
    assert!(checked >= 100, "only {checked} fields were mutated");
}

#[test]
fn a_required_field_made_optional_is_caught() {
    let facts = committed_facts();
    assert_caught(
        &facts,
        "2.4 ErrorBody.error: required by the interface",
        |s| {
            required_mut(schema_mut(s, "ErrorBody")).clear();
        },
    );
}

#[test]
fn an_enum_value_dropped_from_the_spec_is_caught() {
    let facts = committed_facts();
    assert_caught(
        &facts,
        "2.9 MessagingAccount.reserved_type: enum value \"svc_enterprise_10m\"",
        |s| {
            *string_enum_mut(schema_mut(s, "ReservedPlanType")) =
                values(&["", "paid", "svc_enterprise_1m"]);
        },
    );
    assert_caught(&facts, "state \"CALLBACK_CANCELED\" of part 3", |s| {
        *string_enum_mut(schema_mut(s, "FailureFunctionState")) =
            values(&["CALLBACK_INPROGRESS", "CALLBACK_SUCCESS", "CALLBACK_FAIL"]);
    });
}

/// Removing any operation, any parameter named in part 4 or any error status of part 7 from the
/// spec fails and names it.
#[test]
fn every_operation_parameter_and_error_status_is_guarded() {
    let facts = committed_facts();
    let original = spec();
    let ops = &facts.operations;
    let mut checked = 0;
    for op in ops {
        assert!(
            original.operations().flatten().any(
                |found| found.method.eq_ignore_ascii_case(&op.method) && found.path == op.path
            ),
            "{} {} missing",
            op.method,
            op.path
        );
        assert_caught(
            &facts,
            &format!(
                "{} {} {}: operation not in the spec",
                op.number, op.method, op.path
            ),
            |s| {
                *operation_slot(s, &op.path, &op.method) = None;
            },
        );
        checked += 1;

        let templated = op
            .path
            .split('{')
            .skip(1)
            .filter_map(|s| s.split_once('}'))
            .map(|(n, _)| n.to_owned());
        let mut named: Vec<(String, String)> = templated.map(|n| ("path".to_owned(), n)).collect();
        named.extend(
            op.table_params
                .iter()
                .map(|(n, _)| ("query".to_owned(), n.clone())),
        );
        named.extend(op.prose_params.iter().cloned());
        for (location, name) in named {
            assert_caught(
                &facts,
                &format!(
                    "{} {} {}: {location} parameter `{name}` not in the spec",
                    op.number, op.method, op.path
                ),
                |s| {
                    remove_parameter(s, &op.path, &op.method, &location, &name);
                },
            );
            checked += 1;
        }
    }
    for row in &facts.errors {
        let op = ops.iter().find(|o| o.number == row.operation).unwrap();
        let status = StatusCode::Code(row.status.parse().unwrap());
        assert_caught(
            &facts,
            &format!(
                "{} {} {}: error status {}",
                op.number, op.method, op.path, row.status
            ),
            |s| {
                responses_mut(s, &op.path, &op.method).shift_remove(&status);
            },
        );
        assert_caught(&facts, "does not carry the 2.4 body `ErrorBody`", |s| {
            let text = json_response(json!({"type": "string"}));
            responses_mut(s, &op.path, &op.method).insert(status.clone(), text);
        });
        checked += 1;
    }
    assert!(checked > 30, "only {checked} mutations were tried");
}

#[test]
fn a_parameter_with_a_different_type_or_maximum_is_caught() {
    let facts = committed_facts();
    assert_caught(
        &facts,
        "4.1 GET /v2/workflows/dlq ?count: the interface says maximum 100, the spec has 1000",
        |s| {
            let ReferenceOr::Item(Schema {
                schema_kind: SchemaKind::Type(Type::Integer(count)),
                ..
            }) = parameter_schema_mut(s, "ListCount")
            else {
                panic!("ListCount is an inline integer");
            };
            count.maximum = Some(1000);
        },
    );
    assert_caught(
        &facts,
        "?fromDate: the interface says `int64`, the spec has `string`",
        |s| {
            *parameter_schema_mut(s, "FromDate") =
                ReferenceOr::Item(schema_from(json!({"type": "string"})));
        },
    );
}

/// A field, a section or an operation added to the interface's facts is demanded of the spec
/// without any change to this crate.
#[test]
fn additions_to_the_interface_are_demanded_of_the_spec() {
    fn field(name: &str) -> Field {
        Field {
            name: name.to_owned(),
            ty: "integer".to_owned(),
            required: None,
            items: Vec::new(),
        }
    }
    let spec = spec();
    let new_field = |facts: &mut InterfaceFacts| {
        let section_2_5 = facts
            .shapes
            .iter_mut()
            .find(|shape| shape.number == "2.5")
            .expect("section 2.5");
        section_2_5.groups[0].fields.push(field("max_namespaces"));
    };
    let new_section = |facts: &mut InterfaceFacts| {
        facts.shapes.push(ShapeSection {
            number: "2.10".to_owned(),
            title: "Schedule".to_owned(),
            groups: vec![FieldGroup {
                via: None,
                fields: vec![field("scheduleId")],
            }],
        });
    };
    let new_operation = |facts: &mut InterfaceFacts| {
        facts.operations.push(OperationDoc {
            number: "4.11".to_owned(),
            title: "List schedules".to_owned(),
            method: "GET".to_owned(),
            path: "/v2/schedules".to_owned(),
            table_params: Vec::new(),
            all_optional: true,
            prose_params: Vec::new(),
        });
    };
    // What each addition does to the facts, and what the check then says.
    type Addition = (fn(&mut InterfaceFacts), &'static str);
    let additions: [Addition; 3] = [
        (
            new_field,
            "2.5 SearchIndex: field `max_namespaces` of the interface is missing from the spec",
        ),
        (
            new_section,
            "section 2.10 of the interface has no entry in SECTION_COMPONENTS",
        ),
        (
            new_operation,
            "4.11 GET /v2/schedules: operation not in the spec",
        ),
    ];
    for (add, expected) in additions {
        let mut facts = committed_facts();
        add(&mut facts);
        assert_fails_saying(check_facts(&spec, &facts), expected);
    }
}

/// The facts are read from the document, not copied: a row, a prose field, a section or an
/// operation added to the document's text reaches the checks. Needs the document (skipped with
/// a printed reason without it).
#[test]
fn the_parser_reads_additions_to_the_document() {
    let Some(md) = interface_document() else {
        return;
    };
    let spec = spec();
    let part4_headings = md.lines().filter(|l| l.starts_with("### 4.")).count();
    assert_eq!(committed_facts().operations.len(), part4_headings);
    let row = "| max_vector_count | integer | Maximum vectors in the index |";
    // Each addition: where it goes in the document, what is inserted there, what the check says.
    let additions = [
        (
            row,
            format!("{row}\n| max_namespaces | integer | Maximum namespaces |"),
            "2.5 SearchIndex: field `max_namespaces` of the interface is missing from the spec",
        ),
        (
            "Number: monthly_cost.",
            "Number: monthly_cost, namespace_cost.".to_owned(),
            "2.7 SearchIndexStats: field `namespace_cost`",
        ),
        (
            "## 3. States and transitions",
            "### 2.10 Schedule\n\n| Field | Type | Meaning |\n|---|---|---|\n| scheduleId | string | ID |\n\n## 3. States and transitions".to_owned(),
            "section 2.10 of the interface has no entry in SECTION_COMPONENTS",
        ),
        (
            "## 5. Authentication",
            "### 4.11 List schedules\n\n- GET /v2/schedules\n\n## 5. Authentication".to_owned(),
            "4.11 GET /v2/schedules: operation not in the spec",
        ),
    ];
    for (anchor, replacement, expected) in additions {
        assert!(
            md.contains(anchor),
            "the document no longer has {anchor:?}; pick another anchor"
        );
        let edited = md.replacen(anchor, &replacement, 1);
        assert_fails_saying(check_interface(&spec, &edited), expected);
    }
}
