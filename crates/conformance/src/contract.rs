//! The interface document held to the spec: every field of part 2, every operation and
//! parameter of part 4, every state of part 3 and every error status of part 7 must be in the
//! spec with a compatible type. Messages name the section, the component and the field.

use crate::interface::{
    ErrorDoc, Field, InterfaceFacts, InterfaceType, OperationDoc, ShapeSection,
};
use crate::spec::{
    OperationRef, Spec, component_schemas, deref, label, operations, resolved_schema,
};
use courier_spec::openapiv3::{Schema, StatusCode};
use courier_spec::{parameter_schema, schema_ref_name, string_enum};
use serde_json::Value;
use std::collections::BTreeSet;

/// Which spec component holds each shape of part 2, in the order the section lists its shapes.
/// Nested objects ("failureCallbackInfo fields: ...") are found through the property that holds
/// them and need no entry.
pub const SECTION_COMPONENTS: &[(&str, &[&str])] = &[
    ("2.1", &["WorkflowDLQMessage"]),
    ("2.2", &["FailedWorkflowRun"]),
    ("2.3", &["UrlGroup"]),
    ("2.4", &["ErrorBody"]),
    ("2.5", &["SearchIndex"]),
    (
        "2.6",
        &["DataPoint", "DailyRequestDataPoint", "NamedSeries"],
    ),
    ("2.7", &["SearchIndexStats"]),
    ("2.8", &["AccountStats"]),
    ("2.9", &["MessagingAccount"]),
];

/// The component of the failure function states of part 3.
pub const STATE_COMPONENT: &str = "FailureFunctionState";

/// The section whose shape every error response carries (part 7: "Error responses carry the
/// body of section 2.4").
pub const ERROR_SECTION: &str = "2.4";

/// Every check of this module against the interface document's text `md`.
pub fn check_interface(spec: &Spec, md: &str) -> Result<(), String> {
    check_facts(spec, &InterfaceFacts::parse(md)?)
}

/// Holds the spec to the facts of the interface (the committed `interface-facts.json`, or a
/// document's parse); every violation is named.
pub fn check_facts(spec: &Spec, facts: &InterfaceFacts) -> Result<(), String> {
    let errors: Vec<String> = [
        check_shapes(spec, &facts.shapes, SECTION_COMPONENTS),
        check_operations(spec, &facts.operations),
        check_errors(spec, &facts.operations, &facts.errors),
        check_states(spec, &facts.states),
    ]
    .into_iter()
    .filter_map(Result::err)
    .collect();
    finish(errors)
}

fn finish(errors: Vec<String>) -> Result<(), String> {
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors.join("\n"))
    }
}

/// Every field of part 2 is a property of its component with a compatible type.
pub fn check_shapes(
    spec: &Spec,
    shapes: &[ShapeSection],
    table: &[(&str, &[&str])],
) -> Result<(), String> {
    let components = component_schemas(spec);
    let mut errors = Vec::new();
    let parsed: BTreeSet<&str> = shapes.iter().map(|s| s.number.as_str()).collect();
    let mapped: BTreeSet<&str> = table.iter().map(|(n, _)| *n).collect();
    crate::push_one_sided(
        &mut errors,
        (&parsed, &mapped),
        |missing| format!("section {missing} of the interface has no entry in SECTION_COMPONENTS"),
        |gone| {
            format!("section {gone} is in SECTION_COMPONENTS but not in part 2 of the interface")
        },
    );

    for section in shapes {
        let Some((_, names)) = table.iter().find(|(n, _)| *n == section.number) else {
            continue;
        };
        if let Some(named) = section
            .title
            .strip_suffix(')')
            .and_then(|t| t.rsplit_once('('))
            .map(|(_, n)| n)
            .filter(|n| components.contains_key(*n))
            && names.first() != Some(&named)
        {
            errors.push(format!(
                "section {}: its heading names component `{named}`, SECTION_COMPONENTS says {names:?}",
                section.number
            ));
        }
        let top: Vec<_> = section.groups.iter().filter(|g| g.via.is_none()).collect();
        if top.is_empty() {
            errors.push(format!(
                "section {}: no fields could be read from the interface",
                section.number
            ));
        }
        if top.len() != names.len() {
            errors.push(format!(
                "section {}: the interface lists {} shape(s), SECTION_COMPONENTS maps {}",
                section.number,
                top.len(),
                names.len()
            ));
        }
        let mut current: Option<(&str, &Value)> = None;
        let mut next_name = names.iter();
        for group in &section.groups {
            match &group.via {
                None => {
                    let Some(name) = next_name.next() else { break };
                    let Some(schema) = components.get(*name) else {
                        errors.push(format!(
                            "section {}: component `{name}` is not in the spec",
                            section.number
                        ));
                        current = None;
                        continue;
                    };
                    let declared = schema.get("x-courier-section").and_then(Value::as_str);
                    if declared.is_some_and(|d| d != section.number) {
                        errors.push(format!(
                            "section {}: component `{name}` declares x-courier-section {declared:?}",
                            section.number
                        ));
                    }
                    current = Some((name, schema));
                    let label = format!("{} {name}", section.number);
                    check_fields(spec, &label, schema, &group.fields, &mut errors);
                }
                Some(via) => {
                    let Some((owner, owner_schema)) = current else {
                        continue;
                    };
                    let label = format!("{} {owner}.{via}", section.number);
                    match deref(spec, owner_schema).pointer(&format!("/properties/{via}")) {
                        Some(holder) => {
                            check_fields(spec, &label, holder, &group.fields, &mut errors)
                        }
                        None => errors.push(format!(
                            "{} {owner}: field `{via}` of the interface is missing from the spec",
                            section.number
                        )),
                    }
                }
            }
        }
    }
    finish(errors)
}

fn check_fields(
    spec: &Spec,
    label: &str,
    schema: &Value,
    fields: &[Field],
    errors: &mut Vec<String>,
) {
    let schema = deref(spec, schema);
    let required: BTreeSet<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    for field in fields {
        let Some(property) = schema.pointer(&format!("/properties/{}", field.name)) else {
            errors.push(format!(
                "{label}: field `{}` of the interface is missing from the spec",
                field.name
            ));
            continue;
        };
        let path = format!("{label}.{}", field.name);
        match InterfaceType::parse(&field.ty) {
            Ok(ty) => check_type(spec, &path, &field.ty, &ty, property, errors),
            Err(e) => errors.push(format!("{path}: {e}")),
        }
        if field.required == Some(true) && !required.contains(field.name.as_str()) {
            errors.push(format!(
                "{path}: required by the interface but optional in the spec"
            ));
        }
        if !field.items.is_empty() {
            match deref(spec, property).get("items") {
                Some(items) => {
                    check_fields(spec, &format!("{path}[]"), items, &field.items, errors)
                }
                None => errors.push(format!(
                    "{path}: the interface describes its items, the spec has no array items"
                )),
            }
        }
    }
}

fn describe(schema: &Value) -> String {
    let ty = schema
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("untyped");
    match schema.get("format").and_then(Value::as_str) {
        Some(f) => format!("{ty} ({f})"),
        None => ty.to_owned(),
    }
}

/// `path`'s spec schema can carry what the interface calls `text`.
pub fn check_type(
    spec: &Spec,
    path: &str,
    text: &str,
    ty: &InterfaceType,
    schema: &Value,
    errors: &mut Vec<String>,
) {
    let s = deref(spec, schema);
    let spec_type = s.get("type").and_then(Value::as_str).unwrap_or("");
    let format = s.get("format").and_then(Value::as_str);
    let mismatch = |errors: &mut Vec<String>, detail: &str| {
        errors.push(format!(
            "{path}: the interface says `{text}`, the spec has `{}`{detail}",
            describe(&s)
        ))
    };
    let expected = match ty {
        InterfaceType::String { .. } | InterfaceType::Enum(_) => "string",
        InterfaceType::Integer | InterfaceType::Int64 => "integer",
        InterfaceType::Number => "number",
        InterfaceType::Boolean => "boolean",
        InterfaceType::Array(_) => "array",
        InterfaceType::Object { .. } => "object",
    };
    if spec_type != expected {
        return mismatch(errors, "");
    }
    match ty {
        InterfaceType::String { format: Some(f) } if format != Some(f.as_str()) => {
            mismatch(errors, &format!(" (format `{f}` expected)"))
        }
        InterfaceType::Int64 if !matches!(format, None | Some("int64")) => {
            mismatch(errors, " (a 64-bit integer expected)")
        }
        InterfaceType::Enum(values) => {
            let allowed: BTreeSet<&str> = s
                .get("enum")
                .and_then(Value::as_array)
                .map(|v| v.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            if allowed.is_empty() {
                mismatch(errors, " (an enum expected)");
            }
            for value in values
                .iter()
                .filter(|v| !allowed.is_empty() && !allowed.contains(v.as_str()))
            {
                errors.push(format!(
                    "{path}: enum value {value:?} of the interface is not in the spec"
                ));
            }
        }
        InterfaceType::Array(inner) => match s.get("items") {
            Some(items) => check_type(spec, &format!("{path}[]"), text, inner, items, errors),
            None => mismatch(errors, " (no items)"),
        },
        InterfaceType::Object { values, with } => {
            if let Some(values) = values {
                match s.get("additionalProperties").filter(|a| a.is_object()) {
                    Some(ap) => check_type(spec, &format!("{path}{{}}"), text, values, ap, errors),
                    None => mismatch(errors, " (a map expected)"),
                }
            }
            for property in with {
                if s.pointer(&format!("/properties/{property}")).is_none() {
                    errors.push(format!(
                        "{path}: field `{property}` of the interface is missing from the spec"
                    ));
                }
            }
        }
        _ => {}
    }
}

fn find<'a, 's>(
    spec_ops: &'a [OperationRef<'s>],
    op: &OperationDoc,
) -> Option<&'a OperationRef<'s>> {
    spec_ops
        .iter()
        .find(|s| label(s) == format!("{} {}", op.method, op.path))
}

/// Every operation of part 4, its path parameters, the parameters of its tables and those named
/// in its prose are in the spec.
pub fn check_operations(spec: &Spec, ops: &[OperationDoc]) -> Result<(), String> {
    let spec_ops = operations(spec)?;
    let mut errors = Vec::new();
    if ops.is_empty() {
        errors.push("part 4 of the interface lists no operations".to_owned());
    }
    for op in ops {
        let label = format!("{} {} {}", op.number, op.method, op.path);
        let Some(found) = find(&spec_ops, op) else {
            errors.push(format!("{label}: operation not in the spec"));
            continue;
        };
        let templated = op
            .path
            .split('{')
            .skip(1)
            .filter_map(|s| s.split_once('}').map(|(name, _)| name.to_owned()));
        let prose = op.prose_params.iter().map(|(l, n)| (l.clone(), n.clone()));
        let named: BTreeSet<(String, String)> = templated
            .map(|n| ("path".to_owned(), n))
            .chain(prose)
            .collect();
        for (location, name) in named {
            match found.parameter(&location, &name) {
                None => errors.push(format!(
                    "{label}: {location} parameter `{name}` not in the spec"
                )),
                Some(p) if location == "path" && !p.parameter_data_ref().required => errors.push(
                    format!("{label}: path parameter `{name}` is not required in the spec"),
                ),
                Some(_) => {}
            }
        }
        for (name, cell) in &op.table_params {
            let Some(param) = found.parameter("query", name) else {
                errors.push(format!("{label}: query parameter `{name}` not in the spec"));
                continue;
            };
            let path = format!("{label} ?{name}");
            let schema = parameter_schema(param)
                .map(|schema| resolved_schema(spec, schema))
                .unwrap_or(Value::Null);
            let mut parts = cell.split(',').map(str::trim);
            let text = parts.next().unwrap_or("");
            match InterfaceType::parse(text) {
                Ok(ty) => check_type(spec, &path, text, &ty, &schema, &mut errors),
                Err(e) => errors.push(format!("{path}: {e}")),
            }
            for part in parts {
                let Some((key, value)) = part.split_once(' ') else {
                    continue;
                };
                if !matches!(key, "default" | "maximum" | "minimum") {
                    continue;
                }
                let spec_value = schema.get(key).map(|v| v.to_string());
                if spec_value.as_deref() != Some(value.trim()) {
                    errors.push(format!(
                        "{path}: the interface says {key} {value}, the spec has {}",
                        spec_value.unwrap_or_else(|| "none".to_owned())
                    ));
                }
            }
            if op.all_optional && param.parameter_data_ref().required {
                errors.push(format!(
                    "{path}: optional in the interface, required in the spec"
                ));
            }
        }
    }
    finish(errors)
}

/// Every error status of part 7 is a response of its operation, carrying the 2.4 body.
pub fn check_errors(spec: &Spec, ops: &[OperationDoc], rows: &[ErrorDoc]) -> Result<(), String> {
    let spec_ops = operations(spec)?;
    let error_component = SECTION_COMPONENTS
        .iter()
        .find(|(n, _)| *n == ERROR_SECTION)
        .and_then(|(_, c)| c.first())
        .copied()
        .unwrap_or("");
    let mut errors = Vec::new();
    if rows.is_empty() {
        errors.push("part 7 of the interface lists no errors".to_owned());
    }
    for row in rows {
        let Some(op) = ops.iter().find(|o| o.number == row.operation) else {
            errors.push(format!(
                "part 7 names operation {}, which part 4 does not have",
                row.operation
            ));
            continue;
        };
        let label = format!("{} {} {}", op.number, op.method, op.path);
        let Some(found) = find(&spec_ops, op) else {
            errors.push(format!(
                "{label}: operation not in the spec (part 7 lists its status {})",
                row.status
            ));
            continue;
        };
        let response = row.status.parse().ok().and_then(|status| {
            found
                .operation
                .responses
                .responses
                .get(&StatusCode::Code(status))
        });
        let Some(response) = response else {
            errors.push(format!(
                "{label}: error status {} ({}) not in the spec",
                row.status, row.condition
            ));
            continue;
        };
        let response = spec.response(response).map_err(|e| e.to_string())?;
        let body = response
            .content
            .get("application/json")
            .and_then(|media| media.schema.as_ref())
            .and_then(schema_ref_name);
        if body != Some(error_component) {
            errors.push(format!(
                "{label}: error status {} does not carry the {ERROR_SECTION} body `{error_component}` (found {body:?})",
                row.status
            ));
        }
    }
    finish(errors)
}

/// Every failure function state of part 3 is a value of the spec's enum.
pub fn check_states(spec: &Spec, states: &BTreeSet<String>) -> Result<(), String> {
    let values: BTreeSet<String> = spec
        .component::<Schema>(STATE_COMPONENT)
        .map(|schema| string_enum(schema).into_iter().map(str::to_owned).collect())
        .unwrap_or_default();
    let mut errors = Vec::new();
    if states.is_empty() {
        errors.push("part 3 of the interface lists no failure function states".to_owned());
    }
    for state in states.difference(&values) {
        errors.push(format!(
            "{STATE_COMPONENT}: state {state:?} of part 3 is not in the spec"
        ));
    }
    finish(errors)
}
