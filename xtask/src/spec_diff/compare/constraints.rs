//! The constraints of a schema (`maximum`, `minLength`, ...), which narrow what it accepts
//! without changing its Rust type, and how a change of them is classed on the wire.

use super::Direction;
use super::model::Node;
use courier_spec::openapiv3::{
    AnySchema, ArrayType, BooleanType, IntegerType, NumberType, ObjectType, SchemaKind, StringType,
    Type,
};
use std::collections::BTreeSet;

/// The constraints of a schema that narrow what it accepts without changing its Rust type,
/// under their names in the spec: `upper` ones tighten when smaller, `lower` ones when larger;
/// `exclusive…` and `uniqueItems` are lower ones, present (1) when set; `multipleOf` and
/// `pattern` are only compared for change.
#[derive(Debug, Default)]
pub(super) struct Constraints {
    upper: Vec<(&'static str, Option<f64>)>,
    lower: Vec<(&'static str, Option<f64>)>,
    other: Vec<(&'static str, Option<String>)>,
}

impl Constraints {
    /// The bounds of a number or an integer; `exclusive` is (maximum, minimum).
    fn numeric(
        &mut self,
        maximum: Option<f64>,
        minimum: Option<f64>,
        exclusive: (bool, bool),
        multiple_of: Option<String>,
    ) {
        self.upper.push(("maximum", maximum));
        self.lower.push(("exclusiveMaximum", flag(exclusive.0)));
        self.lower.push(("minimum", minimum));
        self.lower.push(("exclusiveMinimum", flag(exclusive.1)));
        self.other.push(("multipleOf", multiple_of));
    }
}

fn flag(set: bool) -> Option<f64> {
    set.then_some(1.0)
}

fn size(bound: Option<usize>) -> Option<f64> {
    bound.map(|b| b as f64)
}

/// The constraints of a schema (none for a `$ref`: the component's are compared there). Every
/// field of every kind is named: those bound to `_` make the Rust type (see [`signature`]) or
/// hold inner schemas (see [`children`]).
pub(super) fn constraints(node: Node<'_>) -> Constraints {
    let Some(schema) = node.inline() else {
        return Constraints::default();
    };
    let mut found = Constraints::default();
    match &schema.schema_kind {
        SchemaKind::Type(Type::String(StringType {
            format: _,
            pattern,
            enumeration: _,
            min_length,
            max_length,
        })) => {
            found.upper.push(("maxLength", size(*max_length)));
            found.lower.push(("minLength", size(*min_length)));
            found.other.push(("pattern", pattern.clone()));
        }
        SchemaKind::Type(Type::Integer(IntegerType {
            format: _,
            multiple_of,
            exclusive_minimum,
            exclusive_maximum,
            minimum,
            maximum,
            enumeration: _,
        })) => found.numeric(
            maximum.map(|v| v as f64),
            minimum.map(|v| v as f64),
            (*exclusive_maximum, *exclusive_minimum),
            multiple_of.map(|m| m.to_string()),
        ),
        SchemaKind::Type(Type::Number(NumberType {
            format: _,
            multiple_of,
            exclusive_minimum,
            exclusive_maximum,
            minimum,
            maximum,
            enumeration: _,
        })) => found.numeric(
            *maximum,
            *minimum,
            (*exclusive_maximum, *exclusive_minimum),
            multiple_of.map(|m| m.to_string()),
        ),
        SchemaKind::Type(Type::Array(ArrayType {
            items: _,
            min_items,
            max_items,
            unique_items,
        })) => {
            found.upper.push(("maxItems", size(*max_items)));
            found.lower.push(("minItems", size(*min_items)));
            found.lower.push(("uniqueItems", flag(*unique_items)));
        }
        SchemaKind::Type(Type::Object(ObjectType {
            properties: _,
            required: _,
            additional_properties: _,
            min_properties,
            max_properties,
        })) => {
            found.upper.push(("maxProperties", size(*max_properties)));
            found.lower.push(("minProperties", size(*min_properties)));
        }
        SchemaKind::Type(Type::Boolean(BooleanType { enumeration: _ })) => {}
        SchemaKind::OneOf { .. }
        | SchemaKind::AllOf { .. }
        | SchemaKind::AnyOf { .. }
        | SchemaKind::Not { .. } => {}
        SchemaKind::Any(AnySchema {
            typ: _,
            pattern,
            multiple_of,
            exclusive_minimum,
            exclusive_maximum,
            minimum,
            maximum,
            properties: _,
            required: _,
            additional_properties: _,
            min_properties,
            max_properties,
            items: _,
            min_items,
            max_items,
            unique_items,
            enumeration: _,
            format: _,
            min_length,
            max_length,
            one_of: _,
            all_of: _,
            any_of: _,
            not: _,
        }) => {
            found.numeric(
                *maximum,
                *minimum,
                (
                    *exclusive_maximum == Some(true),
                    *exclusive_minimum == Some(true),
                ),
                multiple_of.map(|m| m.to_string()),
            );
            found.upper.push(("maxLength", size(*max_length)));
            found.upper.push(("maxItems", size(*max_items)));
            found.upper.push(("maxProperties", size(*max_properties)));
            found
                .lower
                .push(("uniqueItems", flag(*unique_items == Some(true))));
            found.lower.push(("minLength", size(*min_length)));
            found.lower.push(("minItems", size(*min_items)));
            found.lower.push(("minProperties", size(*min_properties)));
            found.other.push(("pattern", pattern.clone()));
        }
    }
    found
}

/// Each constraint that differs, with its direction: smaller upper bounds and larger lower
/// bounds tighten; a new `pattern` or `multipleOf` tightens, a dropped one loosens.
pub(super) fn constraint_changes(
    old: Node<'_>,
    new: Node<'_>,
) -> Vec<(&'static str, Direction, String)> {
    let (old, new) = (constraints(old), constraints(new));
    let value_of = |list: &[(&'static str, Option<f64>)], key: &str| {
        list.iter().find(|(k, _)| *k == key).and_then(|(_, v)| *v)
    };
    let text_of = |list: &[(&'static str, Option<String>)], key: &str| {
        list.iter()
            .find(|(k, _)| *k == key)
            .and_then(|(_, v)| v.clone())
    };
    let mut changes = Vec::new();
    for (tighter_when_smaller, old_list, new_list) in [
        (true, &old.upper, &new.upper),
        (false, &old.lower, &new.lower),
    ] {
        let keys: BTreeSet<&'static str> =
            old_list.iter().chain(new_list).map(|(k, _)| *k).collect();
        for key in keys {
            let (before, after) = (value_of(old_list, key), value_of(new_list, key));
            let direction = match (before, after) {
                (Some(a), Some(b)) if a == b => continue,
                (None, None) => continue,
                (Some(a), Some(b)) => {
                    if (b < a) == tighter_when_smaller {
                        Direction::Tighten
                    } else {
                        Direction::Loosen
                    }
                }
                (None, Some(_)) => Direction::Tighten,
                (Some(_), None) => Direction::Loosen,
            };
            let show = |v: Option<f64>| v.map_or("none".to_owned(), |v| v.to_string());
            changes.push((
                key,
                direction,
                format!("{key} {} → {}", show(before), show(after)),
            ));
        }
    }
    let keys: BTreeSet<&'static str> = old
        .other
        .iter()
        .chain(&new.other)
        .map(|(k, _)| *k)
        .collect();
    for key in keys {
        let (before, after) = (text_of(&old.other, key), text_of(&new.other, key));
        let direction = match (&before, &after) {
            (a, b) if a == b => continue,
            (None, Some(_)) => Direction::Tighten,
            (Some(_), None) => Direction::Loosen,
            _ => Direction::Both,
        };
        changes.push((key, direction, format!("{key} changed")));
    }
    changes
}
