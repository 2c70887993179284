//! One version of the spec as the rules read it: the typed document of `courier-spec`, with
//! lookups by name, where each type is used, the operations and their parameters.

use super::{Usage, pointer};
use crate::lint::escape;
use crate::spec_diff::DiffError;
use courier_spec::openapiv3::{
    AdditionalProperties, MediaType, Operation as OperationObject, Parameter as ParameterObject,
    PathItem, ReferenceOr, Response, Schema, SchemaKind, Type,
};
use courier_spec::{Spec, location_of};
use indexmap::IndexMap;
use std::borrow::Borrow;
use std::collections::{BTreeMap, BTreeSet};

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
