//! Edits of the typed spec for the tests that prove a check fails: each names the part of the
//! document it changes and panics when that part is not there (the test is then out of date).

use crate::spec::Spec;
use courier_spec::openapiv3::{
    Operation, Parameter, PathItem, ReferenceOr, Response, Schema, SchemaKind, StatusCode, Type,
};
use courier_spec::{Component, location_of};
use indexmap::IndexMap;
use serde_json::Value;

/// A typed schema written as JSON (`{"type": "string"}`), to put into the document.
pub fn schema_from(json: Value) -> Schema {
    serde_json::from_value(json).expect("the JSON is a schema")
}

/// The component of kind `T` named `name`, inline (not a `$ref`).
fn component_mut<'a, T: Component>(spec: &'a mut Spec, name: &str) -> &'a mut T {
    let components = spec
        .openapi_mut()
        .components
        .get_or_insert_with(Default::default);
    match T::of_mut(components).get_mut(name) {
        Some(ReferenceOr::Item(item)) => item,
        _ => panic!("no inline component {}/{name}", T::KIND),
    }
}

/// The component schema `name`, inline (not a `$ref`).
pub fn schema_mut<'a>(spec: &'a mut Spec, name: &str) -> &'a mut Schema {
    component_mut(spec, name)
}

/// Adds (or replaces) the component schema `name`.
pub fn set_component(spec: &mut Spec, name: &str, schema: Schema) {
    spec.openapi_mut()
        .components
        .get_or_insert_with(Default::default)
        .schemas
        .insert(name.to_owned(), ReferenceOr::Item(schema));
}

fn object_mut(schema: &mut Schema) -> &mut courier_spec::openapiv3::ObjectType {
    match &mut schema.schema_kind {
        SchemaKind::Type(Type::Object(object)) => object,
        other => panic!("not an object schema: {other:?}"),
    }
}

/// The properties of an object schema.
pub fn properties_mut(schema: &mut Schema) -> &mut IndexMap<String, ReferenceOr<Box<Schema>>> {
    &mut object_mut(schema).properties
}

/// The `required` list of an object schema.
pub fn required_mut(schema: &mut Schema) -> &mut Vec<String> {
    &mut object_mut(schema).required
}

/// Sets property `name` of an object schema to `schema`.
pub fn set_property(schema: &mut Schema, name: &str, property: Schema) {
    properties_mut(schema).insert(name.to_owned(), ReferenceOr::boxed_item(property));
}

/// Renames property `from` (and its `required` entry) to `to`.
pub fn rename_property(schema: &mut Schema, from: &str, to: &str) {
    let property = properties_mut(schema)
        .shift_remove(from)
        .unwrap_or_else(|| panic!("no property {from}"));
    properties_mut(schema).insert(to.to_owned(), property);
    for required in required_mut(schema).iter_mut().filter(|r| *r == from) {
        *required = to.to_owned();
    }
}

/// Makes `name` required if it is optional, optional if it is required.
pub fn toggle_required(schema: &mut Schema, name: &str) {
    let required = required_mut(schema);
    if required.iter().any(|r| r == name) {
        required.retain(|r| r != name);
    } else {
        required.push(name.to_owned());
    }
}

/// The values of a string enum schema.
pub fn string_enum_mut(schema: &mut Schema) -> &mut Vec<Option<String>> {
    match &mut schema.schema_kind {
        SchemaKind::Type(Type::String(string)) => &mut string.enumeration,
        other => panic!("not a string schema: {other:?}"),
    }
}

/// The schema of the component parameter `name`.
pub fn parameter_schema_mut<'a>(spec: &'a mut Spec, name: &str) -> &'a mut ReferenceOr<Schema> {
    let parameter: &mut Parameter = component_mut(spec, name);
    let data = match parameter {
        Parameter::Query { parameter_data, .. }
        | Parameter::Header { parameter_data, .. }
        | Parameter::Path { parameter_data, .. }
        | Parameter::Cookie { parameter_data, .. } => parameter_data,
    };
    match &mut data.format {
        courier_spec::openapiv3::ParameterSchemaOrContent::Schema(schema) => schema,
        _ => panic!("parameter {name} has no schema"),
    }
}

/// The path item at `path`.
pub fn path_item_mut<'a>(spec: &'a mut Spec, path: &str) -> &'a mut PathItem {
    match spec.openapi_mut().paths.paths.get_mut(path) {
        Some(ReferenceOr::Item(item)) => item,
        _ => panic!("no inline path item {path}"),
    }
}

/// The slot of `method` (any case) in the path item at `path`.
pub fn operation_slot<'a>(
    spec: &'a mut Spec,
    path: &str,
    method: &str,
) -> &'a mut Option<Operation> {
    let item = path_item_mut(spec, path);
    match method.to_ascii_lowercase().as_str() {
        "get" => &mut item.get,
        "put" => &mut item.put,
        "post" => &mut item.post,
        "delete" => &mut item.delete,
        "patch" => &mut item.patch,
        other => panic!("no slot for method {other}"),
    }
}

fn operation_mut<'a>(spec: &'a mut Spec, path: &str, method: &str) -> &'a mut Operation {
    operation_slot(spec, path, method)
        .as_mut()
        .unwrap_or_else(|| panic!("no operation {method} {path}"))
}

/// Removes the parameter `location`/`name` from an operation and from its path item.
pub fn remove_parameter(spec: &mut Spec, path: &str, method: &str, location: &str, name: &str) {
    let original = spec.clone();
    let keep = |parameter: &ReferenceOr<Parameter>| {
        original.parameter(parameter).is_ok_and(|parameter| {
            location_of(parameter) != location || parameter.parameter_data_ref().name != name
        })
    };
    operation_mut(spec, path, method).parameters.retain(keep);
    path_item_mut(spec, path).parameters.retain(keep);
}

/// The responses of an operation by status code.
pub fn responses_mut<'a>(
    spec: &'a mut Spec,
    path: &str,
    method: &str,
) -> &'a mut IndexMap<StatusCode, ReferenceOr<Response>> {
    &mut operation_mut(spec, path, method).responses.responses
}

/// A response with a JSON body of `schema`, to put into the document.
pub fn json_response(schema: Value) -> ReferenceOr<Response> {
    ReferenceOr::Item(
        serde_json::from_value(serde_json::json!({
            "description": "x",
            "content": {"application/json": {"schema": schema}}
        }))
        .expect("the JSON is a response"),
    )
}

/// The type (`string`, `integer`, ...) of the schema a property holds, `$ref`s followed.
pub fn property_type(spec: &Spec, property: &ReferenceOr<Box<Schema>>) -> &'static str {
    match spec
        .resolve_boxed(property)
        .map(|schema| &schema.schema_kind)
    {
        Ok(SchemaKind::Type(Type::String(_))) => "string",
        Ok(SchemaKind::Type(Type::Integer(_))) => "integer",
        Ok(SchemaKind::Type(Type::Number(_))) => "number",
        Ok(SchemaKind::Type(Type::Boolean(_))) => "boolean",
        Ok(SchemaKind::Type(Type::Array(_))) => "array",
        Ok(SchemaKind::Type(Type::Object(_))) => "object",
        _ => "",
    }
}
