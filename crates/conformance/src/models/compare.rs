//! The walk over a component of the spec and its model's schema together: references followed
//! on both sides, then JSON type, format, enum values, items, properties (required and nullable)
//! and additional properties compared at each level, every mismatch named by its path.

use super::dialects::{
    enum_values, json_type, single_all_of, spec_format, spec_nullable, strip_null,
};
use crate::json::resolve_ref;
use crate::spec::{Spec, deref, ref_name};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

pub(super) struct Cx<'a> {
    pub(super) spec: &'a Spec,
    pub(super) model: &'a Value,
    pub(super) titles: &'a BTreeMap<String, String>,
}

fn describe(format: &Option<String>) -> String {
    match format {
        Some(f) => format!("`{f}`"),
        None => "none".to_owned(),
    }
}

pub(super) fn compare(
    cx: &Cx<'_>,
    path: &str,
    spec: &Value,
    model: &Value,
    errors: &mut Vec<String>,
) {
    let spec = single_all_of(spec).unwrap_or(spec);
    let (model, _) = strip_null(model);
    let model = single_all_of(&model).cloned().unwrap_or(model);

    match (ref_name(spec), ref_name(&model)) {
        (Some(spec_target), Some(model_target)) => {
            let expected = cx.titles.get(spec_target).map(String::as_str);
            if expected != Some(model_target) {
                errors.push(format!(
                    "{path}: refers to component `{spec_target}` in the spec (model type {}), but \
                     the model refers to `{model_target}`",
                    expected.map_or("unknown".to_owned(), |t| format!("`{t}`"))
                ));
            }
            return;
        }
        (Some(_), None) => {
            let target = deref(cx.spec, spec);
            return compare(cx, path, &target, &model, errors);
        }
        (None, Some(_)) => {
            let target = model
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|r| resolve_ref(cx.model, r))
                .cloned();
            match target {
                Some(target) => compare(cx, path, spec, &target, errors),
                None => errors.push(format!("{path}: the model's reference does not resolve")),
            }
            return;
        }
        (None, None) => {}
    }

    let spec_type = json_type(spec);
    let model_type = json_type(&model);
    if spec_type != model_type {
        errors.push(format!(
            "{path}: JSON type differs: spec `{}`, model `{}`",
            spec_type.as_deref().unwrap_or("any"),
            model_type.as_deref().unwrap_or("any")
        ));
        return;
    }
    let ty = spec_type.unwrap_or_default();

    let spec_fmt = spec_format(&ty, spec);
    let model_fmt = model
        .get("format")
        .and_then(Value::as_str)
        .map(str::to_owned);
    if spec_fmt != model_fmt {
        errors.push(format!(
            "{path}: format differs: spec {}{}, model {}",
            describe(&spec_fmt),
            if spec.get("format").is_none() {
                " (no format given)"
            } else {
                ""
            },
            describe(&model_fmt)
        ));
    }

    match (enum_values(spec), enum_values(&model)) {
        (Some(spec_values), Some(model_values)) => {
            crate::push_one_sided(
                errors,
                (&spec_values, &model_values),
                |missing| {
                    format!("{path}: enum value {missing:?} is in the spec but not in the model")
                },
                |extra| format!("{path}: enum value {extra:?} is in the model but not in the spec"),
            );
        }
        (Some(_), None) => errors.push(format!(
            "{path}: an enum in the spec, free-form in the model"
        )),
        (None, Some(_)) => errors.push(format!(
            "{path}: free-form in the spec, an enum in the model"
        )),
        (None, None) => {}
    }

    match ty.as_str() {
        "array" => match (spec.get("items"), model.get("items")) {
            (Some(s), Some(m)) => compare(cx, &format!("{path}[]"), s, m, errors),
            (s, m) => {
                if s.is_some() != m.is_some() {
                    errors.push(format!(
                        "{path}: array items are described on one side only"
                    ));
                }
            }
        },
        "object" => compare_object(cx, path, spec, &model, errors),
        _ => {}
    }
}

fn compare_object(cx: &Cx<'_>, path: &str, spec: &Value, model: &Value, errors: &mut Vec<String>) {
    let empty = serde_json::Map::new();
    let spec_props = spec
        .get("properties")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let model_props = model
        .get("properties")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let required = |s: &Value| -> BTreeSet<String> {
        s.get("required")
            .and_then(Value::as_array)
            .map(|r| {
                r.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default()
    };
    let spec_required = required(spec);
    let model_required = required(model);

    for name in spec_required
        .iter()
        .filter(|n| !spec_props.contains_key(*n))
    {
        errors.push(format!(
            "{path}.{name}: listed as required in the spec but has no property"
        ));
    }
    for (name, spec_prop) in spec_props {
        let field = format!("{path}.{name}");
        let Some(model_prop) = model_props.get(name) else {
            errors.push(format!(
                "{field}: property in the spec but missing from the model"
            ));
            continue;
        };
        let in_spec = spec_required.contains(name);
        let in_model = model_required.contains(name);
        let required = disagreement(
            (in_spec, in_model),
            "required in the spec but optional in the model",
            "optional in the spec but required in the model",
        );
        errors.extend(required.map(|what| format!("{field}: {what}")));
        if in_spec && in_model {
            let spec_null = spec_nullable(spec_prop)
                || spec_prop.get("allOf").is_some() && spec_nullable(&deref(cx.spec, spec_prop));
            let (_, model_null) = strip_null(model_prop);
            if spec_null != model_null {
                errors.push(format!(
                    "{field}: nullable differs: spec {spec_null}, model {model_null}"
                ));
            }
        }
        compare(cx, &field, spec_prop, model_prop, errors);
    }
    for name in model_props.keys().filter(|n| !spec_props.contains_key(*n)) {
        errors.push(format!(
            "{path}.{name}: property in the model but not in the spec"
        ));
    }

    match (
        spec.get("additionalProperties"),
        model.get("additionalProperties"),
    ) {
        (Some(s @ Value::Object(_)), Some(m @ Value::Object(_))) => {
            compare(cx, &format!("{path}{{}}"), s, m, errors)
        }
        (Some(Value::Object(_)), _) => errors.push(format!(
            "{path}: a map (additionalProperties) in the spec but not in the model"
        )),
        (_, Some(Value::Object(_))) => errors.push(format!(
            "{path}: a map (additionalProperties) in the model but not in the spec"
        )),
        (s, m) => {
            let spec_open = s != Some(&Value::Bool(false));
            let model_open = m != Some(&Value::Bool(false));
            let open = disagreement(
                (spec_open, model_open),
                "the model rejects unknown fields, the spec allows them",
                "the spec forbids unknown fields, the model accepts them",
            );
            errors.extend(open.map(|what| format!("{path}: {what}")));
        }
    }
}

/// What differs where only the spec (`spec_only`) or only the model (`model_only`) says yes.
fn disagreement<'a>(
    (spec, model): (bool, bool),
    spec_only: &'a str,
    model_only: &'a str,
) -> Option<&'a str> {
    match (spec, model) {
        (true, false) => Some(spec_only),
        (false, true) => Some(model_only),
        _ => None,
    }
}
