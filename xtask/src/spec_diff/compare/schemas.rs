//! The rules for types (`components/schemas`): property by property, where each type is used.

use super::*;

pub(super) fn compare_schemas(old: &SpecView, new: &SpecView, changes: &mut Changes) {
    let old_schemas = old.schemas();
    let new_schemas = new.schemas();
    for (name, before) in &old_schemas {
        let at = pointer(&["components", "schemas", name]);
        // A type used in either version: removing a use is classified at the operation, but a
        // type change still reaches whoever used it before.
        let usage = old.usage_of(name).either(new.usage_of(name));
        let Some(after) = new_schemas.get(name) else {
            let (client, server) = breaks_where_used(old.usage_of(name));
            changes.add(
                at,
                format!("type {name} removed"),
                Impact::new(Breaking, client, server),
            );
            continue;
        };
        compare_schema(name, &at, before, after, usage, changes);
    }
    for name in new_schemas.keys() {
        if !old_schemas.contains_key(name) {
            // Only the models expose a type nobody uses yet; a use of it is an operation change.
            changes.add(
                pointer(&["components", "schemas", name]),
                format!("type {name} added"),
                Impact::new(Additive, Nothing, Nothing),
            );
        }
    }
}

pub(super) fn compare_schema(
    name: &str,
    at: &str,
    before: &Value,
    after: &Value,
    usage: Usage,
    changes: &mut Changes,
) {
    let old_enum = before.get("enum").and_then(Value::as_array);
    let new_enum = after.get("enum").and_then(Value::as_array);
    let old_props = before.get("properties").and_then(Value::as_object);
    let new_props = after.get("properties").and_then(Value::as_object);
    if let (Some(old_values), Some(new_values)) = (old_enum, new_enum) {
        // A new value is a new variant: an exhaustive `match` over it stops compiling (Rust),
        // and a consumer of an older build cannot read it (HTTP). A removed one is gone from
        // the enum and refused on the wire.
        let (client, server) = breaks_where_used(usage);
        for value in new_values.iter().filter(|v| !old_values.contains(v)) {
            changes.add(
                format!("{at}/enum/{}", value_label(value)),
                format!("{name}: enum value {value} added"),
                Impact::new(Breaking, client, server),
            );
        }
        for value in old_values.iter().filter(|v| !new_values.contains(v)) {
            changes.add(
                format!("{at}/enum/{}", value_label(value)),
                format!("{name}: enum value {value} removed"),
                Impact::new(Breaking, client, server),
            );
        }
    } else if let (Some(old_props), Some(new_props)) = (old_props, new_props) {
        compare_properties(
            name, at, before, after, old_props, new_props, usage, changes,
        );
    } else if signature(before) != signature(after) {
        let (client, server) = breaks_where_used(usage);
        changes.add(
            at.to_owned(),
            format!("type {name} changed kind"),
            Impact::new(Breaking, client, server),
        );
    }
    if old_enum.is_none() && old_props.is_none() {
        constraints_at(name, at, before, after, usage, changes);
    }
}

/// An enum value as a pointer token: the value itself, so a reader sees which one.
pub(super) fn value_label(value: &Value) -> String {
    escape(
        &value
            .as_str()
            .map_or_else(|| value.to_string(), str::to_owned),
    )
}

#[allow(clippy::too_many_arguments)]
pub(super) fn compare_properties(
    name: &str,
    at: &str,
    before: &Value,
    after: &Value,
    old_props: &Map<String, Value>,
    new_props: &Map<String, Value>,
    usage: Usage,
    changes: &mut Changes,
) {
    let old_required = required_of(before);
    let new_required = required_of(after);
    let removed: Vec<&String> = old_props
        .keys()
        .filter(|p| !new_props.contains_key(*p))
        .collect();
    let added: Vec<&String> = new_props
        .keys()
        .filter(|p| !old_props.contains_key(*p))
        .collect();
    let prop_at = |prop: &str| format!("{at}/properties/{}", escape(prop));

    // One field gone and one of the same Rust type come: a rename (the field name is the JSON
    // key, so it is a rename on the wire too).
    if let ([gone], [came]) = (removed.as_slice(), added.as_slice()) {
        let gone_type = field_type(&old_props[*gone], old_required.contains(*gone));
        let came_type = field_type(&new_props[*came], new_required.contains(*came));
        if gone_type == came_type {
            let (client, server) = breaks_where_used(usage);
            changes.add(
                prop_at(came),
                format!("{name}.{gone} renamed to {came}"),
                Impact::new(Breaking, client, server),
            );
            compare_common(
                name,
                &prop_at,
                old_props,
                new_props,
                &old_required,
                &new_required,
                usage,
                changes,
            );
            return;
        }
    }
    for prop in removed {
        // Readers lose the field, builders name a field that is gone.
        let (client, server) = breaks_where_used(usage);
        changes.add(
            format!("{at}/properties/{}", escape(prop)),
            format!("{name}.{prop} removed"),
            Impact::new(Breaking, client, server),
        );
    }
    for prop in added {
        let required = new_required.contains(prop);
        // A new field breaks every struct literal (Rust): the models' users build any type, the
        // client's users build request types, implementers build response types. Readers only
        // gain a field.
        let client = if usage.request {
            Breaking
        } else if usage.response {
            Additive
        } else {
            Nothing
        };
        let server = if usage.response {
            Breaking
        } else if usage.request {
            Additive
        } else {
            Nothing
        };
        let kind = if required { "required" } else { "optional" };
        changes.add(
            prop_at(prop),
            format!("{name}.{prop} added ({kind})"),
            Impact::new(Breaking, client, server),
        );
    }
    compare_common(
        name,
        &prop_at,
        old_props,
        new_props,
        &old_required,
        &new_required,
        usage,
        changes,
    );
}

#[allow(clippy::too_many_arguments)]
pub(super) fn compare_common(
    name: &str,
    prop_at: &dyn Fn(&str) -> String,
    old_props: &Map<String, Value>,
    new_props: &Map<String, Value>,
    old_required: &BTreeSet<String>,
    new_required: &BTreeSet<String>,
    usage: Usage,
    changes: &mut Changes,
) {
    for (prop, before) in old_props {
        let Some(after) = new_props.get(prop) else {
            continue;
        };
        let was_required = old_required.contains(prop);
        let is_required = new_required.contains(prop);
        let field = format!("{name}.{prop}");
        if signature(before) != signature(after) {
            let (client, server) = breaks_where_used(usage);
            changes.add(
                prop_at(prop),
                format!(
                    "{field} retyped: {} → {}",
                    signature(before),
                    signature(after)
                ),
                Impact::new(Breaking, client, server),
            );
        } else if was_required != is_required {
            let change = if is_required {
                "made required"
            } else {
                "made optional"
            };
            if field_type(before, was_required) != field_type(after, is_required) {
                // `T` ↔ `Option<T>`: every reader and builder of the field.
                let (client, server) = breaks_where_used(usage);
                changes.add(
                    prop_at(prop),
                    format!("{field} {change} (Option changes)"),
                    Impact::new(Breaking, client, server),
                );
            } else {
                // Same Rust type (an array or a defaulted value): only the wire changes.
                let direction = if is_required {
                    Direction::Tighten
                } else {
                    Direction::Loosen
                };
                let (client, server) = directional(direction, usage);
                changes.add(
                    prop_at(prop),
                    format!("{field} {change} (same Rust type)"),
                    Impact::new(Nothing, client, server),
                );
            }
        }
        for (key, direction, text) in constraint_changes(before, after) {
            let (client, server) = directional(direction, usage);
            changes.add(
                format!("{}/{key}", prop_at(prop)),
                format!("{field}: {text}"),
                Impact::new(Nothing, client, server),
            );
        }
    }
}

/// Constraint changes of a whole (scalar) component.
pub(super) fn constraints_at(
    name: &str,
    at: &str,
    before: &Value,
    after: &Value,
    usage: Usage,
    changes: &mut Changes,
) {
    for (key, direction, text) in constraint_changes(before, after) {
        let (client, server) = directional(direction, usage);
        changes.add(
            format!("{at}/{key}"),
            format!("{name}: {text}"),
            Impact::new(Nothing, client, server),
        );
    }
}
