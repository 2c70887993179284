//! The rules for types (`components/schemas`): property by property, where each type is used.

use super::constraints::constraint_changes;
use super::model::{Node, Properties, SpecView, children};
use super::rust_type::{enum_values, field_type, object_parts, signature};
use super::{Changes, Direction, Usage, directional, pointer};
use crate::lint::escape;
use crate::spec_diff::Class::{Additive, Breaking, None as Nothing};
use crate::spec_diff::{Class, Impact};
use std::collections::BTreeSet;

pub(super) fn compare_schemas(old: &SpecView<'_>, new: &SpecView<'_>, changes: &mut Changes) {
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
        compare_schema(name, &at, *before, *after, usage, changes);
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
    before: Node<'_>,
    after: Node<'_>,
    usage: Usage,
    changes: &mut Changes,
) {
    let (old_schema, new_schema) = (before.inline(), after.inline());
    let old_enum = old_schema.and_then(enum_values);
    let new_enum = new_schema.and_then(enum_values);
    let old_object = old_schema.and_then(object_parts);
    let new_object = new_schema.and_then(object_parts);
    if let (Some(old_values), Some(new_values)) = (&old_enum, &new_enum) {
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
                format!("{at}/enum/{}", escape(value)),
                format!("{name}: enum value {value} {what}"),
                usage,
            );
        }
    } else if let (Some((old_props, old_required)), Some((new_props, new_required))) =
        (old_object, new_object)
    {
        let required = |list: &[String]| list.iter().cloned().collect::<BTreeSet<_>>();
        compare_properties(
            &Fields {
                name,
                at,
                old: old_props,
                new: new_props,
                old_required: required(old_required),
                new_required: required(new_required),
                usage,
            },
            changes,
        );
    } else if signature(before) != signature(after) {
        changes.add_breaking_where_used(at.to_owned(), format!("type {name} changed kind"), usage);
    }
    if old_enum.is_none() && old_object.is_none() {
        // Constraints of a whole (scalar or array) component.
        compare_constraints(name, at, before, after, Direction::usage(usage), changes);
    }
}

/// Constraint changes of a schema and the inline schemas inside it (an array's items, an
/// inline object's properties), with the classes `classes` gives each direction.
pub(super) fn compare_constraints(
    label: &str,
    at: &str,
    before: Node<'_>,
    after: Node<'_>,
    classes: impl Fn(Direction) -> (Class, Class) + Copy,
    changes: &mut Changes,
) {
    for (key, direction, text) in constraint_changes(before, after) {
        let (client, server) = classes(direction);
        changes.add(
            format!("{at}/{key}"),
            format!("{label}: {text}"),
            Impact::new(Nothing, client, server),
        );
    }
    let (Some(old), Some(new)) = (before.inline(), after.inline()) else {
        return;
    };
    let new_children = children(new);
    for (place, old_child) in children(old) {
        if let Some((_, new_child)) = new_children.iter().find(|(p, _)| *p == place) {
            let inner = format!("{label}{}", place.replace("/properties/", "."));
            compare_constraints(
                &inner,
                &format!("{at}{place}"),
                old_child,
                *new_child,
                classes,
                changes,
            );
        }
    }
}

impl Direction {
    /// The classes of a constraint change at a place used as `usage` (see [`directional`]).
    pub(super) fn usage(usage: Usage) -> impl Fn(Direction) -> (Class, Class) + Copy {
        move |direction| directional(direction, usage)
    }
}

/// The properties of one object type in the two versions.
pub(super) struct Fields<'a> {
    name: &'a str,
    at: &'a str,
    old: &'a Properties,
    new: &'a Properties,
    old_required: BTreeSet<String>,
    new_required: BTreeSet<String>,
    usage: Usage,
}

impl Fields<'_> {
    fn at(&self, prop: &str) -> String {
        format!("{}/properties/{}", self.at, escape(prop))
    }

    fn old_type(&self, prop: &str) -> String {
        field_type(Node::of(&self.old[prop]), self.old_required.contains(prop))
    }

    fn new_type(&self, prop: &str) -> String {
        field_type(Node::of(&self.new[prop]), self.new_required.contains(prop))
    }
}

pub(super) fn compare_properties(fields: &Fields<'_>, changes: &mut Changes) {
    let (name, usage) = (fields.name, fields.usage);
    let removed: Vec<&String> = fields
        .old
        .keys()
        .filter(|p| !fields.new.contains_key(*p))
        .collect();
    let added: Vec<&String> = fields
        .new
        .keys()
        .filter(|p| !fields.old.contains_key(*p))
        .collect();

    // One field gone and one of the same Rust type come: a rename (the field name is the JSON
    // key, so it is a rename on the wire too).
    let renamed = match (removed.as_slice(), added.as_slice()) {
        ([gone], [came]) if fields.old_type(gone) == fields.new_type(came) => Some((*gone, *came)),
        _ => None,
    };
    if let Some((gone, came)) = renamed {
        changes.add_breaking_where_used(
            fields.at(came),
            format!("{name}.{gone} renamed to {came}"),
            usage,
        );
    } else {
        for prop in removed {
            // Readers lose the field, builders name a field that is gone.
            changes.add_breaking_where_used(
                fields.at(prop),
                format!("{name}.{prop} removed"),
                usage,
            );
        }
        for prop in added {
            let required = fields.new_required.contains(prop);
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
                fields.at(prop),
                format!("{name}.{prop} added ({kind})"),
                Impact::new(Breaking, client, server),
            );
        }
    }
    compare_common(fields, changes);
}

/// The properties both versions have: type, presence and constraints.
fn compare_common(fields: &Fields<'_>, changes: &mut Changes) {
    let (name, usage) = (fields.name, fields.usage);
    for (prop, before) in fields.old {
        let Some(after) = fields.new.get(prop) else {
            continue;
        };
        let (before, after) = (Node::of(before), Node::of(after));
        let was_required = fields.old_required.contains(prop);
        let is_required = fields.new_required.contains(prop);
        let field = format!("{name}.{prop}");
        if signature(before) != signature(after) {
            changes.add_breaking_where_used(
                fields.at(prop),
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
            if fields.old_type(prop) != fields.new_type(prop) {
                // `T` ↔ `Option<T>`: every reader and builder of the field.
                changes.add_breaking_where_used(
                    fields.at(prop),
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
                    fields.at(prop),
                    format!("{field} {change} (same Rust type)"),
                    Impact::new(Nothing, client, server),
                );
            }
        }
        compare_constraints(
            &field,
            &fields.at(prop),
            before,
            after,
            Direction::usage(usage),
            changes,
        );
    }
}
