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
//!
//! Here are the model table and its check; the walk over both schemas is in `compare`, and what
//! one schema says (its type, format, enum values, nullability), read the same way in either
//! dialect, is in `dialects`.

mod compare;
mod dialects;

use crate::spec::{Spec, component_schemas};
use compare::{Cx, compare};
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

#[cfg(test)]
mod tests {
    use super::{ModelEntry, check_models};
    use crate::mutate::{
        rename_property, required_mut, schema_from, schema_mut, set_component, set_property,
    };
    use crate::spec::Spec;
    use courier_spec::openapiv3::Schema;
    use serde_json::{Value, json};

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
