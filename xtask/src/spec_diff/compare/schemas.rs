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
            changes.add_breaking_where_used(at, format!("type {name} removed"), old.usage_of(name));
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
        let added = new_values.iter().filter(|v| !old_values.contains(v));
        let removed = old_values.iter().filter(|v| !new_values.contains(v));
        for (value, what) in added
            .map(|v| (v, "added"))
            .chain(removed.map(|v| (v, "removed")))
        {
            changes.add_breaking_where_used(
                format!("{at}/enum/{}", value_label(value)),
                format!("{name}: enum value {value} {what}"),
                usage,
            );
        }
    } else if let (Some(old_props), Some(new_props)) = (old_props, new_props) {
        compare_properties(
            name, at, before, after, old_props, new_props, usage, changes,
        );
    } else if signature(before) != signature(after) {
        changes.add_breaking_where_used(at.to_owned(), format!("type {name} changed kind"), usage);
    }
    if old_enum.is_none() && old_props.is_none() {
        // Constraint changes of a whole (scalar) component.
        for (key, direction, text) in constraint_changes(before, after) {
            let (client, server) = directional(direction, usage);
            changes.add(
                format!("{at}/{key}"),
                format!("{name}: {text}"),
                Impact::new(Nothing, client, server),
            );
        }
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
    let renamed = match (removed.as_slice(), added.as_slice()) {
        ([gone], [came])
            if field_type(&old_props[*gone], old_required.contains(*gone))
                == field_type(&new_props[*came], new_required.contains(*came)) =>
        {
            Some((*gone, *came))
        }
        _ => None,
    };
    if let Some((gone, came)) = renamed {
        changes.add_breaking_where_used(
            prop_at(came),
            format!("{name}.{gone} renamed to {came}"),
            usage,
        );
    } else {
        for prop in removed {
            // Readers lose the field, builders name a field that is gone.
            changes.add_breaking_where_used(prop_at(prop), format!("{name}.{prop} removed"), usage);
        }
        for prop in added {
            let required = new_required.contains(prop);
            // A new field breaks every struct literal (Rust): the models' users build any type,
            // the client's users build request types, implementers build response types.
            // Readers only gain a field.
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
            changes.add_breaking_where_used(
                prop_at(prop),
                format!(
                    "{field} retyped: {} → {}",
                    signature(before),
                    signature(after)
                ),
                usage,
            );
        } else if was_required != is_required {
            let change = if is_required {
                "made required"
            } else {
                "made optional"
            };
            if field_type(before, was_required) != field_type(after, is_required) {
                // `T` ↔ `Option<T>`: every reader and builder of the field.
                changes.add_breaking_where_used(
                    prop_at(prop),
                    format!("{field} {change} (Option changes)"),
                    usage,
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
