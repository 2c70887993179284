//! One version of the spec as the rules read it: the typed document of `courier-spec`, with
//! lookups by name, where each type is used, the Rust type a schema generates, and its
//! constraints.

use super::*;
use courier_spec::openapiv3::{
    AdditionalProperties, AnySchema, ArrayType, BooleanType, IntegerType, MediaType, NumberType,
    ObjectType, Operation as OperationObject, Parameter as ParameterObject, PathItem, ReferenceOr,
    Response, Schema, SchemaKind, StringType, Type, VariantOrUnknownOrEmpty,
};
use courier_spec::{Spec, location_of};
use std::borrow::Borrow;

/// The properties of an object schema, by name, as openapiv3 holds them.
pub(super) type Properties = IndexMap<String, ReferenceOr<Box<Schema>>>;

/// The media type whose schema is the Rust type of a body.
pub(super) const JSON: &str = "application/json";

/// A schema where the document has one: inline, or a `$ref` (however openapiv3 boxes it).
#[derive(Debug, Clone, Copy)]
pub(super) enum Node<'a> {
    Ref(&'a str),
    Inline(&'a Schema),
}

impl<'a> Node<'a> {
    pub(super) fn of<S: Borrow<Schema>>(schema: &'a ReferenceOr<S>) -> Node<'a> {
        match schema {
            ReferenceOr::Reference { reference } => Node::Ref(reference),
            ReferenceOr::Item(item) => Node::Inline(item.borrow()),
        }
    }

    pub(super) fn inline(self) -> Option<&'a Schema> {
        match self {
            Node::Ref(_) => None,
            Node::Inline(schema) => Some(schema),
        }
    }
}

/// One version of the spec, with the lookups the rules need.
pub(super) struct SpecView<'a> {
    pub(super) spec: &'a Spec,
    /// Usage of every component schema by the operations, through `$ref` closure.
    usage: BTreeMap<String, Usage>,
    operations: BTreeMap<String, Operation<'a>>,
}

impl<'a> SpecView<'a> {
    /// The lookups of one spec; a `$ref` that does not resolve makes the spec incomparable.
    pub(super) fn new(spec: &'a Spec) -> Result<SpecView<'a>, DiffError> {
        let mut operations = BTreeMap::new();
        for op in spec.operations() {
            let op = op?;
            let id = match op.id() {
                "" => format!("{} {}", op.method.to_uppercase(), op.path),
                id => id.to_owned(),
            };
            operations.insert(
                id,
                Operation {
                    path: op.path,
                    method: op.method,
                    item: op.item,
                    value: op.operation,
                },
            );
        }
        let mut view = SpecView {
            spec,
            usage: BTreeMap::new(),
            operations,
        };
        let mut direct: Vec<(String, Usage)> = Vec::new();
        for op in view.operations.values() {
            for param in view.parameters(op)?.values() {
                if let Some(schema) = param.schema() {
                    direct.extend(refs_in(schema).into_iter().map(|n| (n, Usage::REQUEST)));
                }
            }
            for schema in view.request_body(op)?.values().flatten() {
                direct.extend(refs_in(*schema).into_iter().map(|n| (n, Usage::REQUEST)));
            }
            for schema in view.responses(op)?.values().flatten() {
                direct.extend(refs_in(*schema).into_iter().map(|n| (n, Usage::RESPONSE)));
            }
        }
        // Closure: a type used by a used type is used the same way.
        let mut todo = direct;
        while let Some((name, usage)) = todo.pop() {
            let known = view.usage.entry(name.clone()).or_default();
            let merged = known.either(usage);
            if merged == *known {
                continue;
            }
            *known = merged;
            if let Some(schema) = view.schema(&name) {
                todo.extend(refs_in(schema).into_iter().map(|inner| (inner, merged)));
            }
        }
        Ok(view)
    }

    pub(super) fn usage_of(&self, name: &str) -> Usage {
        self.usage.get(name).copied().unwrap_or_default()
    }

    /// `components/schemas` by name.
    pub(super) fn schemas(&self) -> BTreeMap<&'a str, Node<'a>> {
        self.spec
            .openapi()
            .components
            .iter()
            .flat_map(|components| &components.schemas)
            .map(|(name, schema)| (name.as_str(), Node::of(schema)))
            .collect()
    }

    pub(super) fn schema(&self, name: &str) -> Option<Node<'a>> {
        let components = self.spec.openapi().components.as_ref()?;
        components.schemas.get(name).map(Node::of)
    }

    /// The schema a node is, `$ref`s followed (`None` for a dangling one or a cycle).
    pub(super) fn resolve(&self, node: Node<'a>) -> Option<&'a Schema> {
        match node {
            Node::Ref(reference) => self.spec.resolve_ref::<Schema>(reference).ok(),
            Node::Inline(schema) => Some(schema),
        }
    }

    /// Every operation by `operationId` (`METHOD /path` without one).
    pub(super) fn operations(&self) -> &BTreeMap<String, Operation<'a>> {
        &self.operations
    }

    /// An operation's own parameters by (`in`, `name`), `$ref`s followed; the path item's are
    /// compared as a whole (see the operation rules).
    pub(super) fn parameters(
        &self,
        op: &Operation<'a>,
    ) -> Result<BTreeMap<(&'static str, &'a str), Parameter<'a>>, DiffError> {
        let mut parameters = BTreeMap::new();
        for (index, raw) in op.value.parameters.iter().enumerate() {
            let value = self.spec.parameter(raw)?;
            let component = match raw {
                ReferenceOr::Reference { reference } => {
                    Some(reference.trim_start_matches('#').to_owned())
                }
                ReferenceOr::Item(_) => None,
            };
            let key = (location_of(value), value.parameter_data_ref().name.as_str());
            parameters.insert(
                key,
                Parameter {
                    value,
                    index,
                    component,
                },
            );
        }
        Ok(parameters)
    }

    /// Each documented status (`default` included) with its response, `$ref`s followed.
    pub(super) fn response_objects(
        &self,
        op: &Operation<'a>,
    ) -> Result<BTreeMap<String, &'a Response>, DiffError> {
        let responses = &op.value.responses;
        let statuses = responses
            .responses
            .iter()
            .map(|(status, response)| (status.to_string(), response))
            .chain(responses.default.iter().map(|d| ("default".to_owned(), d)));
        let mut found = BTreeMap::new();
        for (status, raw) in statuses {
            let response = self.spec.response(raw)?;
            found.insert(status, response);
        }
        Ok(found)
    }

    /// Each documented status with its JSON body schema (`None` without a body).
    pub(super) fn responses(
        &self,
        op: &Operation<'a>,
    ) -> Result<BTreeMap<String, Option<Node<'a>>>, DiffError> {
        Ok(self
            .response_objects(op)?
            .into_iter()
            .map(|(status, response)| (status, json_schema(&response.content)))
            .collect())
    }

    /// The request body's schema per media type (empty without a body), `$ref`s followed.
    pub(super) fn request_body(
        &self,
        op: &Operation<'a>,
    ) -> Result<BTreeMap<&'a str, Option<Node<'a>>>, DiffError> {
        let Some(raw) = &op.value.request_body else {
            return Ok(BTreeMap::new());
        };
        let body = self.spec.request_body(raw)?;
        Ok(body
            .content
            .iter()
            .map(|(media, content)| (media.as_str(), content.schema.as_ref().map(Node::of)))
            .collect())
    }

    /// Whether the operation's request body is required (`false` without one).
    pub(super) fn request_body_required(&self, op: &Operation<'a>) -> bool {
        op.value
            .request_body
            .as_ref()
            .and_then(|raw| self.spec.request_body(raw).ok())
            .is_some_and(|body| body.required)
    }

    /// The statuses whose response is marked `x-courier-preserialized` (the generated server
    /// takes its body as `JsonBody<T>`).
    pub(super) fn preserialized(&self, op: &Operation<'a>) -> Result<BTreeSet<String>, DiffError> {
        Ok(self
            .response_objects(op)?
            .into_iter()
            .filter(|(_, response)| courier_spec::extensions::preserialized(response))
            .map(|(status, _)| status)
            .collect())
    }
}

/// The schema of a body's `application/json` content.
pub(super) fn json_schema(content: &IndexMap<String, MediaType>) -> Option<Node<'_>> {
    content
        .get(JSON)
        .and_then(|media| media.schema.as_ref())
        .map(Node::of)
}

pub(super) struct Operation<'a> {
    pub(super) path: &'a str,
    pub(super) method: &'static str,
    pub(super) item: &'a PathItem,
    pub(super) value: &'a OperationObject,
}

impl Operation<'_> {
    pub(super) fn pointer(&self) -> String {
        pointer(&["paths", self.path, self.method])
    }

    /// `GET /v2/...`, as a reader writes it.
    pub(super) fn endpoint(&self) -> String {
        format!("{} {}", self.method.to_uppercase(), self.path)
    }
}

pub(super) struct Parameter<'a> {
    pub(super) value: &'a ParameterObject,
    /// Position in the operation's list (for the pointer of an inline parameter).
    pub(super) index: usize,
    /// Pointer of the `components/parameters` entry it is a `$ref` to.
    pub(super) component: Option<String>,
}

impl<'a> Parameter<'a> {
    pub(super) fn required(&self) -> bool {
        self.value.parameter_data_ref().required
    }

    /// The parameter's schema (`None` for one described by `content`).
    pub(super) fn schema(&self) -> Option<Node<'a>> {
        courier_spec::parameter_schema(self.value).map(Node::of)
    }

    /// How the value is written into the request: `style` and `explode`.
    pub(super) fn serialization(&self) -> String {
        let style = match self.value {
            ParameterObject::Query { style, .. } => format!("{style:?}"),
            ParameterObject::Header { style, .. } => format!("{style:?}"),
            ParameterObject::Path { style, .. } => format!("{style:?}"),
            ParameterObject::Cookie { style, .. } => format!("{style:?}"),
        };
        format!(
            "{style} explode {:?}",
            self.value.parameter_data_ref().explode
        )
    }
}

/// The schemas directly inside a schema, each with its place below it as a pointer suffix.
pub(super) fn children(schema: &Schema) -> Vec<(String, Node<'_>)> {
    fn properties(props: &Properties) -> Vec<(String, Node<'_>)> {
        props
            .iter()
            .map(|(name, prop)| (format!("/properties/{}", escape(name)), Node::of(prop)))
            .collect()
    }
    fn additional(extra: &Option<AdditionalProperties>) -> Vec<(String, Node<'_>)> {
        match extra {
            Some(AdditionalProperties::Schema(schema)) => {
                vec![(
                    "/additionalProperties".to_owned(),
                    Node::of(schema.as_ref()),
                )]
            }
            Some(AdditionalProperties::Any(_)) | None => Vec::new(),
        }
    }
    fn listed<'a>(key: &str, list: &'a [ReferenceOr<Schema>]) -> Vec<(String, Node<'a>)> {
        list.iter()
            .enumerate()
            .map(|(index, part)| (format!("/{key}/{index}"), Node::of(part)))
            .collect()
    }
    let mut found = Vec::new();
    match &schema.schema_kind {
        SchemaKind::Type(Type::Object(object)) => {
            found.extend(properties(&object.properties));
            found.extend(additional(&object.additional_properties));
        }
        SchemaKind::Type(Type::Array(array)) => {
            found.extend(
                array
                    .items
                    .iter()
                    .map(|i| ("/items".to_owned(), Node::of(i))),
            );
        }
        SchemaKind::Type(
            Type::String(_) | Type::Number(_) | Type::Integer(_) | Type::Boolean(_),
        ) => {}
        SchemaKind::OneOf { one_of } => found.extend(listed("oneOf", one_of)),
        SchemaKind::AllOf { all_of } => found.extend(listed("allOf", all_of)),
        SchemaKind::AnyOf { any_of } => found.extend(listed("anyOf", any_of)),
        SchemaKind::Not { not } => found.push(("/not".to_owned(), Node::of(not.as_ref()))),
        SchemaKind::Any(any) => {
            found.extend(properties(&any.properties));
            found.extend(additional(&any.additional_properties));
            found.extend(any.items.iter().map(|i| ("/items".to_owned(), Node::of(i))));
            found.extend(listed("oneOf", &any.one_of));
            found.extend(listed("allOf", &any.all_of));
            found.extend(listed("anyOf", &any.any_of));
            found.extend(
                any.not
                    .iter()
                    .map(|n| ("/not".to_owned(), Node::of(n.as_ref()))),
            );
        }
    }
    found
}

/// Names of the component schemas a schema refers to, directly or through inline schemas.
pub(super) fn refs_in(node: Node<'_>) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    fn walk(node: Node<'_>, names: &mut BTreeSet<String>) {
        match node {
            Node::Ref(reference) => {
                if let Some(name) = courier_spec::ref_name::<Schema>(reference) {
                    names.insert(name.to_owned());
                }
            }
            Node::Inline(schema) => children(schema)
                .into_iter()
                .for_each(|(_, child)| walk(child, names)),
        }
    }
    walk(node, &mut names);
    names
}

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
