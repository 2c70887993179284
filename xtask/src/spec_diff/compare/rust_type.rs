//! The Rust type a schema generates, as a signature that two versions of the spec compare:
//! a changed signature is a changed type for every user of the models.

use super::model::{Node, Properties};
use courier_spec::openapiv3::{
    AdditionalProperties, AnySchema, ReferenceOr, Schema, SchemaKind, Type, VariantOrUnknownOrEmpty,
};
use std::collections::BTreeSet;

/// The name a `format` is written with (empty without one).
fn format_name<T: serde::Serialize>(format: &VariantOrUnknownOrEmpty<T>) -> String {
    match format {
        VariantOrUnknownOrEmpty::Item(known) => serde_json::to_value(known)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default(),
        VariantOrUnknownOrEmpty::Unknown(name) => name.clone(),
        VariantOrUnknownOrEmpty::Empty => String::new(),
    }
}

/// Enum values as their labels: the string itself, or the JSON of anything else.
fn labels<T: serde::Serialize>(values: &[Option<T>]) -> Vec<String> {
    values
        .iter()
        .map(|value| match serde_json::to_value(value) {
            Ok(serde_json::Value::String(text)) => text,
            Ok(other) => other.to_string(),
            Err(_) => String::new(),
        })
        .collect()
}

/// The values of an enum schema, as labels; `None` when the schema is no enum.
pub(super) fn enum_values(schema: &Schema) -> Option<Vec<String>> {
    let values = match &schema.schema_kind {
        SchemaKind::Type(Type::String(s)) => labels(&s.enumeration),
        SchemaKind::Type(Type::Integer(i)) => labels(&i.enumeration),
        SchemaKind::Type(Type::Number(n)) => labels(&n.enumeration),
        SchemaKind::Type(Type::Boolean(b)) => labels(&b.enumeration),
        SchemaKind::Any(any) => any
            .enumeration
            .iter()
            .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_owned))
            .collect(),
        _ => Vec::new(),
    };
    (!values.is_empty()).then_some(values)
}

/// The properties of an object schema with its `required` list; `None` for other schemas.
pub(super) fn object_parts(schema: &Schema) -> Option<(&Properties, &[String])> {
    match &schema.schema_kind {
        SchemaKind::Type(Type::Object(object)) => Some((&object.properties, &object.required)),
        SchemaKind::Any(any) if !any.properties.is_empty() => {
            Some((&any.properties, &any.required))
        }
        _ => None,
    }
}

/// The Rust type the generators make of a schema, as a comparable string: two schemas with the
/// same signature generate the same type. Constraints are left out except where they pick the
/// type (typify makes an integer with `minimum: 1` a `NonZero` integer).
pub(super) fn signature(node: Node<'_>) -> String {
    let schema = match node {
        Node::Ref(reference) => {
            let name = courier_spec::ref_name::<Schema>(reference).unwrap_or(reference);
            return format!("ref {name}");
        }
        Node::Inline(schema) => schema,
    };
    let list = |key: &str, parts: &[ReferenceOr<Schema>]| {
        if parts.is_empty() {
            return String::new();
        }
        let inner: Vec<String> = parts.iter().map(|p| signature(Node::of(p))).collect();
        format!(" {key}[{}]", inner.join(", "))
    };
    let enumerated =
        |kind: &str| enum_values(schema).map(|values| format!("{kind} enum {values:?}"));
    let base = match &schema.schema_kind {
        SchemaKind::Type(Type::Integer(integer)) => enumerated("integer").unwrap_or_else(|| {
            let non_zero = integer.minimum == Some(1)
                || (integer.minimum == Some(0) && integer.exclusive_minimum);
            let format = format_name(&integer.format);
            format!("integer {format}{}", if non_zero { " nonzero" } else { "" })
        }),
        SchemaKind::Type(Type::Number(number)) => enumerated("number")
            .unwrap_or_else(|| format!("number {}", format_name(&number.format))),
        SchemaKind::Type(Type::String(string)) => enumerated("string")
            .unwrap_or_else(|| format!("string {}", format_name(&string.format))),
        SchemaKind::Type(Type::Boolean(_)) => {
            enumerated("boolean").unwrap_or_else(|| "boolean ".to_owned())
        }
        SchemaKind::Type(Type::Array(array)) => format!(
            "array<{}>",
            array
                .items
                .as_ref()
                .map_or_else(|| "any ".to_owned(), |items| signature(Node::of(items)))
        ),
        SchemaKind::Type(Type::Object(object)) => object_signature(
            &object.properties,
            &object.required,
            &object.additional_properties,
        ),
        SchemaKind::OneOf { one_of } => format!("any {}", list("oneOf", one_of)),
        SchemaKind::AllOf { all_of } => format!("any {}", list("allOf", all_of)),
        SchemaKind::AnyOf { any_of } => format!("any {}", list("anyOf", any_of)),
        SchemaKind::Not { not } => format!("any not[{}]", signature(Node::of(not.as_ref()))),
        SchemaKind::Any(any) => any_signature(any, list, enumerated),
    };
    if schema.schema_data.nullable {
        format!("nullable({base})")
    } else {
        base
    }
}

fn object_signature(
    properties: &Properties,
    required: &[String],
    additional: &Option<AdditionalProperties>,
) -> String {
    let properties = properties
        .iter()
        .map(|(name, prop)| format!("{name}: {}", signature(Node::of(prop))))
        .collect::<Vec<_>>()
        .join(", ");
    let additional = match additional {
        Some(AdditionalProperties::Schema(schema)) => {
            format!(" map<{}>", signature(Node::of(schema.as_ref())))
        }
        Some(AdditionalProperties::Any(_)) | None => String::new(),
    };
    let required: BTreeSet<&String> = required.iter().collect();
    format!("object {{{properties}}} required {required:?}{additional}")
}

/// The signature of a schema openapiv3 could not put in one kind (a `type` beside `allOf`, or
/// properties without a `type`).
fn any_signature(
    any: &AnySchema,
    list: impl Fn(&str, &[ReferenceOr<Schema>]) -> String,
    enumerated: impl Fn(&str) -> Option<String>,
) -> String {
    let kind = any.typ.as_deref().unwrap_or("any");
    let base = if kind == "object" || !any.properties.is_empty() {
        object_signature(&any.properties, &any.required, &any.additional_properties)
    } else if let Some(items) = &any.items {
        format!("array<{}>", signature(Node::of(items)))
    } else {
        enumerated(kind)
            .unwrap_or_else(|| format!("{kind} {}", any.format.as_deref().unwrap_or("")))
    };
    let not = any
        .not
        .as_ref()
        .map(|n| format!(" not[{}]", signature(Node::of(n.as_ref()))))
        .unwrap_or_default();
    format!(
        "{base}{}{}{}{not}",
        list("allOf", &any.all_of),
        list("oneOf", &any.one_of),
        list("anyOf", &any.any_of)
    )
}

fn is_array(schema: &Schema) -> bool {
    match &schema.schema_kind {
        SchemaKind::Type(Type::Array(_)) => true,
        SchemaKind::Any(any) => any.typ.as_deref() == Some("array"),
        _ => false,
    }
}

/// Whether a field or parameter that is not required is an `Option` in Rust: arrays become an
/// empty `Vec` and values with a default become the default, so only the others are wrapped.
pub(super) fn optional_is_option(node: Node<'_>) -> bool {
    match node {
        Node::Ref(_) => true,
        Node::Inline(schema) => schema.schema_data.default.is_none() && !is_array(schema),
    }
}

/// The Rust type of a field or parameter, `Option` included.
pub(super) fn field_type(node: Node<'_>, required: bool) -> String {
    let inner = signature(node);
    if !required && optional_is_option(node) {
        format!("Option<{inner}>")
    } else {
        inner
    }
}
