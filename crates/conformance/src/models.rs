//! The spec's component schemas held to the generated models' JSON Schemas.
//!
//! The spec is OpenAPI 3.0; the models' schemas come from schemars 1.x, which emits JSON Schema
//! 2020-12 (`$defs`, `"type": ["string", "null"]` and `anyOf [.., {"type": "null"}]` for an
//! `Option`). Neither is compared raw: both sides are walked together and reduced to what the
//! wire shape depends on — property names, JSON types, formats, required sets, enum values,
//! item and map value shapes, the target of each reference and whether unknown fields are
//! accepted. Every mismatch is reported as `Component.field: what differs`.
//!
//! Formats are compared as typify maps them: an `integer` without a format becomes `i64`
//! (schemars: `int64`), a `number` without a format becomes `f64` (schemars: `double`).

use crate::json::resolve_ref;
use crate::spec::{Spec, component_schemas, deref, ref_name};
use courier_spec::openapiv3::Schema;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// A component of the spec and the JSON Schema (`schemars::schema_for!`) of the type generated
/// for it.
pub struct ModelEntry {
    /// Name of the component in `components.schemas`.
    pub component: &'static str,
    /// The model's root schema, serialised.
    pub schema: Value,
}

/// Checks every component of `spec` against its model. Fails, with one line per mismatch, when
/// a component has no entry in `table`, an entry names no component, or any component and its
/// model disagree.
pub fn check_models(spec: &Spec, table: &[ModelEntry]) -> Result<(), String> {
    let components = component_schemas(spec);
    let mut errors = Vec::new();

    let mut seen = BTreeSet::new();
    for entry in table {
        if !seen.insert(entry.component) {
            errors.push(format!(
                "`{}` appears twice in the model table",
                entry.component
            ));
        }
        if !components.contains_key(entry.component) {
            errors.push(format!(
                "`{}`: in the model table but not a component of the spec",
                entry.component
            ));
        }
        let title = entry
            .schema
            .get("title")
            .and_then(Value::as_str)
            .unwrap_or("");
        // `x-courier-rust-type: String` components are generated as a plain `String` on purpose.
        let plain_string = spec
            .component::<Schema>(entry.component)
            .is_ok_and(courier_spec::extensions::is_plain_string);
        if !(title.eq_ignore_ascii_case(entry.component) || (plain_string && title == "string")) {
            errors.push(format!(
                "`{}`: the model table maps it to `{title}`, whose name does not match",
                entry.component
            ));
        }
    }
    for name in components.keys() {
        if !seen.contains(name.as_str()) {
            errors.push(format!(
                "`{name}`: component of the spec without an entry in the model table; add its \
                 generated type"
            ));
        }
    }

    let titles: BTreeMap<String, String> = table
        .iter()
        .map(|e| {
            let title = e
                .schema
                .get("title")
                .and_then(Value::as_str)
                .unwrap_or(e.component);
            (e.component.to_owned(), title.to_owned())
        })
        .collect();
    for entry in table {
        if let Some(component) = components.get(entry.component) {
            let cx = Cx {
                spec,
                model: &entry.schema,
                titles: &titles,
            };
            compare(&cx, entry.component, component, &entry.schema, &mut errors);
        }
    }

    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors.join("\n"))
    }
}

struct Cx<'a> {
    spec: &'a Spec,
    model: &'a Value,
    titles: &'a BTreeMap<String, String>,
}

/// A schema without its `null` alternative, and whether it had one.
fn strip_null(schema: &Value) -> (Value, bool) {
    if let Some(types) = schema.get("type").and_then(Value::as_array) {
        let rest: Vec<&Value> = types.iter().filter(|t| *t != "null").collect();
        if rest.len() < types.len() {
            let mut out = schema.clone();
            out["type"] = match rest.as_slice() {
                [one] => (*one).clone(),
                many => Value::Array(many.iter().map(|t| (*t).clone()).collect()),
            };
            return (out, true);
        }
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(alternatives) = schema.get(key).and_then(Value::as_array) {
            let is_null = |s: &Value| s.get("type") == Some(&Value::from("null"));
            let rest: Vec<&Value> = alternatives.iter().filter(|s| !is_null(s)).collect();
            if rest.len() < alternatives.len() {
                if let [one] = rest.as_slice() {
                    return ((*one).clone(), true);
                }
                let mut out = schema.clone();
                out[key] = Value::Array(rest.into_iter().cloned().collect());
                return (out, true);
            }
        }
    }
    (schema.clone(), false)
}

fn spec_nullable(schema: &Value) -> bool {
    schema
        .get("nullable")
        .and_then(Value::as_bool)
        .unwrap_or(false)
}

fn single_all_of(schema: &Value) -> Option<&Value> {
    match schema
        .get("allOf")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
    {
        Some([only]) => Some(only),
        _ => None,
    }
}

/// Enum values as strings (JSON text for non-strings), from `enum`, `const` or a
/// `oneOf`/`anyOf` of those.
fn enum_values(schema: &Value) -> Option<BTreeSet<String>> {
    let text = |v: &Value| {
        v.as_str()
            .map(str::to_owned)
            .unwrap_or_else(|| v.to_string())
    };
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        return Some(values.iter().map(text).collect());
    }
    if let Some(value) = schema.get("const") {
        return Some([text(value)].into());
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(alternatives) = schema.get(key).and_then(Value::as_array) {
            let mut all = BTreeSet::new();
            for alternative in alternatives {
                all.extend(enum_values(alternative)?);
            }
            return Some(all);
        }
    }
    None
}

fn json_type(schema: &Value) -> Option<String> {
    match schema.get("type") {
        Some(Value::String(t)) => Some(t.clone()),
        Some(Value::Array(ts)) => Some(
            ts.iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join("|"),
        ),
        _ => {
            // A `oneOf` of string constants (schemars' form for documented variants).
            let alternatives = schema
                .get("oneOf")
                .or_else(|| schema.get("anyOf"))
                .and_then(Value::as_array)?;
            let types: BTreeSet<String> = alternatives.iter().filter_map(json_type).collect();
            (types.len() == 1).then(|| types.into_iter().next().unwrap_or_default())
        }
    }
}

/// The format a spec schema turns into, as typify maps a missing one.
fn spec_format(ty: &str, schema: &Value) -> Option<String> {
    match (schema.get("format").and_then(Value::as_str), ty) {
        (Some(format), _) => Some(format.to_owned()),
        (None, "integer") => Some("int64".to_owned()),
        (None, "number") => Some("double".to_owned()),
        (None, _) => None,
    }
}

fn describe(format: &Option<String>) -> String {
    match format {
        Some(f) => format!("`{f}`"),
        None => "none".to_owned(),
    }
}

fn compare(cx: &Cx<'_>, path: &str, spec: &Value, model: &Value, errors: &mut Vec<String>) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mutate::{
        rename_property, required_mut, schema_from, schema_mut, set_component, set_property,
    };
    use serde_json::json;

    fn table(model: Value) -> Vec<ModelEntry> {
        vec![
            ModelEntry {
                component: "Thing",
                schema: model,
            },
            ModelEntry {
                component: "Item",
                schema: json!({"title": "Item", "type": "string"}),
            },
        ]
    }

    fn model() -> Value {
        json!({
            "title": "Thing",
            "type": "object",
            "required": ["n"],
            "properties": {
                "n": {"type": "integer", "format": "int64"},
                "o": {"type": ["string", "null"], "format": "uuid"},
                "r": {"anyOf": [{"$ref": "#/$defs/Item"}, {"type": "null"}]},
                "l": {"type": "array", "items": {"type": "number", "format": "double"}}
            },
            "$defs": {"Item": {"type": "string"}}
        })
    }

    fn spec() -> Spec {
        let document = json!({
            "openapi": "3.0.3",
            "info": {"title": "t", "version": "1"},
            "paths": {},
            "components": {"schemas": {
                "Item": {"type": "string"},
                "Thing": {
                    "type": "object",
                    "required": ["n"],
                    "properties": {
                        "n": {"type": "integer"},
                        "o": {"type": "string", "format": "uuid"},
                        "r": {"$ref": "#/components/schemas/Item"},
                        "l": {"type": "array", "items": {"type": "number"}}
                    }
                }
            }}
        });
        Spec::parse(&document.to_string()).expect("the test spec parses")
    }

    type Mutation = Box<dyn Fn(&mut Spec)>;

    #[test]
    fn equivalent_schemas_agree() {
        check_models(&spec(), &table(model())).unwrap();
    }

    #[test]
    fn each_difference_names_the_field() {
        let thing = |edit: fn(&mut Schema)| -> Mutation {
            Box::new(move |spec| edit(schema_mut(spec, "Thing")))
        };
        let cases: Vec<(&str, Mutation, &str)> = vec![
            (
                "rename",
                thing(|s| rename_property(s, "o", "oo")),
                "Thing.oo",
            ),
            (
                "type",
                thing(|s| set_property(s, "n", schema_from(json!({"type": "string"})))),
                "Thing.n: JSON type",
            ),
            (
                "format",
                thing(|s| {
                    let int32 = schema_from(json!({"type": "integer", "format": "int32"}));
                    set_property(s, "n", int32)
                }),
                "Thing.n: format",
            ),
            (
                "required",
                thing(|s| required_mut(s).clear()),
                "Thing.n: optional in the spec",
            ),
            (
                "items",
                thing(|s| {
                    let strings = json!({"type": "array", "items": {"type": "string"}});
                    set_property(s, "l", schema_from(strings))
                }),
                "Thing.l[]",
            ),
            (
                "ref",
                thing(|s| set_property(s, "r", schema_from(json!({"type": "integer"})))),
                "Thing.r",
            ),
            (
                "uncovered",
                Box::new(|spec| {
                    set_component(spec, "Extra", schema_from(json!({"type": "string"})))
                }),
                "`Extra`",
            ),
        ];
        for (what, mutate, expected) in cases {
            let mut spec = spec();
            mutate(&mut spec);
            let err = check_models(&spec, &table(model())).expect_err(what);
            assert!(
                err.contains(expected),
                "{what}: {err:?} should mention {expected:?}"
            );
        }
    }

    #[test]
    fn a_model_rejecting_unknown_fields_is_reported() {
        let mut m = model();
        m["additionalProperties"] = json!(false);
        let err = check_models(&spec(), &table(m)).unwrap_err();
        assert!(
            err.contains("Thing: the model rejects unknown fields"),
            "{err}"
        );
    }
}
