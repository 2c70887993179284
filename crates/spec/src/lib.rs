//! The one reader of courier's OpenAPI document: a typed [`openapiv3::OpenAPI`] with `$ref`
//! resolution, the operations with their parameters merged and resolved, and typed accessors
//! for the `x-courier-*` extensions.
//!
//! Every consumer of `spec/openapi.yaml` (the generators and lint of `xtask`, the conformance
//! checks, the tests) reads it through this crate, so the document is parsed one way and a
//! `$ref` means the same thing everywhere.

pub mod extensions;

pub use openapiv3;

use indexmap::IndexMap;
use openapiv3::{
    Components, OpenAPI, Operation, Parameter, PathItem, ReferenceOr, RequestBody, Response,
    Schema, SecurityScheme,
};
use std::path::Path;

/// How many `$ref`s a chain may follow before it is taken for a cycle.
const MAX_REF_CHAIN: usize = 32;

/// Why the spec could not be read or a reference in it could not be followed.
#[derive(Debug, thiserror::Error)]
pub enum SpecError {
    /// The file could not be read.
    #[error("cannot read the spec {path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    /// The text is not YAML, or not an OpenAPI 3.0 document.
    #[error("the spec is not an OpenAPI 3.0 document: {0}")]
    Parse(#[from] serde_yaml::Error),
    /// A `$ref` names nothing in the document.
    #[error("`{reference}` does not resolve")]
    DanglingRef { reference: String },
    /// A chain of `$ref`s comes back to where it started.
    #[error("`{reference}` is part of a cycle of $refs")]
    RefCycle { reference: String },
    /// A path item is itself a `$ref`, which this reader does not follow.
    #[error("path `{path}` is a $ref; path items must be written inline")]
    PathItemRef { path: String },
    /// The YAML holds something JSON cannot (a key that is not a string or number).
    #[error("the spec cannot be written as JSON: {0}")]
    Json(#[from] serde_json::Error),
}

/// The YAML text of the document as pretty JSON with the keys in the document's order, ending
/// in a newline: the same document for tools that read no YAML.
pub fn json_text(yaml: &str) -> Result<String, SpecError> {
    let document: serde_yaml::Value = serde_yaml::from_str(yaml)?;
    let mut text = serde_json::to_string_pretty(&document)?;
    text.push('\n');
    Ok(text)
}

/// The kinds of `components` a `$ref` can point into.
pub trait Component: Sized + 'static {
    /// The `components` key: `#/components/{KIND}/{name}`.
    const KIND: &'static str;
    /// This kind's map in `components`.
    fn of(components: &Components) -> &IndexMap<String, ReferenceOr<Self>>;
    /// This kind's map in `components`, to change (tests edit the document).
    fn of_mut(components: &mut Components) -> &mut IndexMap<String, ReferenceOr<Self>>;
}

macro_rules! component {
    ($type:ty, $kind:literal, $field:ident) => {
        impl Component for $type {
            const KIND: &'static str = $kind;
            fn of(components: &Components) -> &IndexMap<String, ReferenceOr<Self>> {
                &components.$field
            }
            fn of_mut(components: &mut Components) -> &mut IndexMap<String, ReferenceOr<Self>> {
                &mut components.$field
            }
        }
    };
}

component!(Schema, "schemas", schemas);
component!(Parameter, "parameters", parameters);
component!(Response, "responses", responses);
component!(RequestBody, "requestBodies", request_bodies);
component!(SecurityScheme, "securitySchemes", security_schemes);

/// The component name a local `$ref` of kind `T` points at (`#/components/schemas/X` → `X`).
pub fn ref_name<T: Component>(reference: &str) -> Option<&str> {
    reference
        .strip_prefix("#/components/")?
        .strip_prefix(T::KIND)?
        .strip_prefix('/')
}

/// The component name of a schema that is a `$ref`, if it is one.
pub fn schema_ref_name<S>(schema: &ReferenceOr<S>) -> Option<&str> {
    match schema {
        ReferenceOr::Reference { reference } => ref_name::<Schema>(reference),
        ReferenceOr::Item(_) => None,
    }
}

/// One operation of the spec, with its place and its parameters resolved.
#[derive(Debug, Clone)]
pub struct OperationRef<'a> {
    /// Lower-case HTTP method, as the path item's key.
    pub method: &'static str,
    /// Path template, e.g. `/v2/workflows/dlq/{dlqId}`.
    pub path: &'a str,
    pub item: &'a PathItem,
    pub operation: &'a Operation,
    /// The path item's parameters, then the operation's, each `$ref` followed; an operation
    /// parameter replaces the path item's of the same name and location (OpenAPI 3.0).
    pub parameters: Vec<&'a Parameter>,
}

impl OperationRef<'_> {
    /// `operationId`, empty when absent (the lint reports that).
    pub fn id(&self) -> &str {
        self.operation.operation_id.as_deref().unwrap_or_default()
    }

    /// The parameter of that location (`query`, `path`, ...) and name.
    pub fn parameter(&self, location: &str, name: &str) -> Option<&Parameter> {
        self.parameters
            .iter()
            .copied()
            .find(|p| location_of(p) == location && p.parameter_data_ref().name == name)
    }
}

/// `in` of a parameter: `query`, `header`, `path` or `cookie`.
pub fn location_of(parameter: &Parameter) -> &'static str {
    match parameter {
        Parameter::Query { .. } => "query",
        Parameter::Header { .. } => "header",
        Parameter::Path { .. } => "path",
        Parameter::Cookie { .. } => "cookie",
    }
}

/// The `schema` of a parameter (`None` for a parameter described by `content`).
pub fn parameter_schema(parameter: &Parameter) -> Option<&ReferenceOr<Schema>> {
    match &parameter.parameter_data_ref().format {
        openapiv3::ParameterSchemaOrContent::Schema(schema) => Some(schema),
        openapiv3::ParameterSchemaOrContent::Content(_) => None,
    }
}

/// The values of a string enum schema, in the spec's order (empty for any other schema).
pub fn string_enum(schema: &Schema) -> Vec<&str> {
    match &schema.schema_kind {
        openapiv3::SchemaKind::Type(openapiv3::Type::String(string)) => string
            .enumeration
            .iter()
            .flatten()
            .map(String::as_str)
            .collect(),
        _ => Vec::new(),
    }
}

/// The parsed spec.
#[derive(Debug, Clone, PartialEq)]
pub struct Spec {
    openapi: OpenAPI,
}

impl From<OpenAPI> for Spec {
    /// A document built in code (tests, or an empty one to compare against).
    fn from(openapi: OpenAPI) -> Spec {
        Spec { openapi }
    }
}

impl Spec {
    /// Parses the YAML (or JSON) text of an OpenAPI 3.0 document.
    pub fn parse(text: &str) -> Result<Spec, SpecError> {
        Ok(Spec {
            openapi: serde_yaml::from_str(text)?,
        })
    }

    /// Reads and parses the spec at `path`.
    pub fn load(path: &Path) -> Result<Spec, SpecError> {
        let text = std::fs::read_to_string(path).map_err(|source| SpecError::Io {
            path: path.display().to_string(),
            source,
        })?;
        Spec::parse(&text)
    }

    /// The typed document.
    pub fn openapi(&self) -> &OpenAPI {
        &self.openapi
    }

    /// The typed document, to change: tests run checks on mutated copies of the spec.
    pub fn openapi_mut(&mut self) -> &mut OpenAPI {
        &mut self.openapi
    }

    /// The component of kind `T` named `name`, `$ref`s followed.
    pub fn component<T: Component>(&self, name: &str) -> Result<&T, SpecError> {
        self.resolve_ref(&format!("#/components/{}/{name}", T::KIND))
    }

    /// The components of kind `T` in the document's order, each `$ref` followed.
    pub fn components<T: Component>(
        &self,
    ) -> impl Iterator<Item = (&str, Result<&T, SpecError>)> + '_ {
        self.openapi
            .components
            .iter()
            .flat_map(|components| T::of(components))
            .map(|(name, item)| (name.as_str(), self.resolve(item)))
    }

    /// What a local `$ref` of kind `T` points at, following a chain of `$ref`s.
    pub fn resolve_ref<T: Component>(&self, reference: &str) -> Result<&T, SpecError> {
        let mut current = reference;
        for _ in 0..MAX_REF_CHAIN {
            let target = ref_name::<T>(current)
                .and_then(|name| T::of(self.openapi.components.as_ref()?).get(name))
                .ok_or_else(|| SpecError::DanglingRef {
                    reference: current.to_owned(),
                })?;
            match target {
                ReferenceOr::Item(item) => return Ok(item),
                ReferenceOr::Reference { reference } => current = reference,
            }
        }
        Err(SpecError::RefCycle {
            reference: reference.to_owned(),
        })
    }

    /// The item itself, or what its `$ref` points at.
    pub fn resolve<'a, T: Component>(
        &'a self,
        item: &'a ReferenceOr<T>,
    ) -> Result<&'a T, SpecError> {
        match item {
            ReferenceOr::Item(item) => Ok(item),
            ReferenceOr::Reference { reference } => self.resolve_ref(reference),
        }
    }

    /// [`Spec::resolve`] for the boxed schemas of properties and items.
    pub fn resolve_boxed<'a, T: Component>(
        &'a self,
        item: &'a ReferenceOr<Box<T>>,
    ) -> Result<&'a T, SpecError> {
        match item {
            ReferenceOr::Item(item) => Ok(item),
            ReferenceOr::Reference { reference } => self.resolve_ref(reference),
        }
    }

    /// A parameter, its `$ref` followed.
    pub fn parameter<'a>(
        &'a self,
        parameter: &'a ReferenceOr<Parameter>,
    ) -> Result<&'a Parameter, SpecError> {
        self.resolve(parameter)
    }

    /// A schema, its `$ref` followed.
    pub fn schema<'a>(&'a self, schema: &'a ReferenceOr<Schema>) -> Result<&'a Schema, SpecError> {
        self.resolve(schema)
    }

    /// A response, its `$ref` followed.
    pub fn response<'a>(
        &'a self,
        response: &'a ReferenceOr<Response>,
    ) -> Result<&'a Response, SpecError> {
        self.resolve(response)
    }

    /// A request body, its `$ref` followed.
    pub fn request_body<'a>(
        &'a self,
        body: &'a ReferenceOr<RequestBody>,
    ) -> Result<&'a RequestBody, SpecError> {
        self.resolve(body)
    }

    /// Every operation, in the document's path order and, within a path, in the order
    /// `get put post delete options head patch trace`.
    pub fn operations(&self) -> impl Iterator<Item = Result<OperationRef<'_>, SpecError>> + '_ {
        self.openapi
            .paths
            .paths
            .iter()
            .flat_map(move |(path, item)| match item {
                ReferenceOr::Item(item) => item
                    .iter()
                    .map(|(method, operation)| self.operation(path, item, method, operation))
                    .collect::<Vec<_>>(),
                ReferenceOr::Reference { .. } => {
                    vec![Err(SpecError::PathItemRef { path: path.clone() })]
                }
            })
    }

    fn operation<'a>(
        &'a self,
        path: &'a str,
        item: &'a PathItem,
        method: &str,
        operation: &'a Operation,
    ) -> Result<OperationRef<'a>, SpecError> {
        let mut parameters: Vec<&Parameter> = Vec::new();
        for parameter in item.parameters.iter().chain(&operation.parameters) {
            let parameter = self.parameter(parameter)?;
            let data = parameter.parameter_data_ref();
            parameters.retain(|known| {
                location_of(known) != location_of(parameter)
                    || known.parameter_data_ref().name != data.name
            });
            parameters.push(parameter);
        }
        Ok(OperationRef {
            method: method_name(method),
            path,
            item,
            operation,
            parameters,
        })
    }
}

/// `PathItem::iter` names methods by borrowed strings; the reader hands out `'static` ones.
fn method_name(method: &str) -> &'static str {
    const METHODS: [&str; 8] = [
        "get", "put", "post", "delete", "options", "head", "patch", "trace",
    ];
    METHODS
        .into_iter()
        .find(|known| *known == method)
        .expect("openapiv3 names only these methods")
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPEC: &str = "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n  /a/{id}:\n    parameters:\n      - {name: id, in: path, required: true, schema: {type: string}}\n      - {name: q, in: query, schema: {type: string}}\n    get:\n      parameters:\n        - $ref: '#/components/parameters/P'\n      responses:\n        200: {description: ok}\n        '404': {$ref: '#/components/responses/NF'}\ncomponents:\n  parameters:\n    P: {$ref: '#/components/parameters/Q'}\n    Q: {name: q, in: query, schema: {$ref: '#/components/schemas/S'}}\n  responses:\n    NF: {description: gone}\n  schemas:\n    S: {type: integer}\n    Loop: {$ref: '#/components/schemas/Loop'}\n";

    #[test]
    fn operations_merge_path_item_parameters_and_follow_ref_chains() {
        let spec = Spec::parse(SPEC).unwrap();
        let operations: Vec<_> = spec.operations().collect::<Result<_, _>>().unwrap();
        assert_eq!(operations.len(), 1);
        let op = &operations[0];
        assert_eq!((op.method, op.path), ("get", "/a/{id}"));
        assert!(
            op.parameter("path", "id")
                .unwrap()
                .parameter_data_ref()
                .required
        );
        assert_eq!(
            op.parameters.len(),
            2,
            "the operation's `q` replaces the item's"
        );
        let q = parameter_schema(op.parameter("query", "q").unwrap()).unwrap();
        assert_eq!(schema_ref_name(q), Some("S"));
        assert!(matches!(
            spec.schema(q).unwrap().schema_kind,
            openapiv3::SchemaKind::Type(openapiv3::Type::Integer(_))
        ));
        let not_found = &op.operation.responses.responses[&openapiv3::StatusCode::Code(404)];
        assert_eq!(spec.response(not_found).unwrap().description, "gone");
    }

    #[test]
    fn dangling_refs_and_cycles_are_named() {
        let spec = Spec::parse(SPEC).unwrap();
        let dangling = spec.resolve_ref::<Schema>("#/components/schemas/Nope");
        assert_eq!(
            dangling.unwrap_err().to_string(),
            "`#/components/schemas/Nope` does not resolve"
        );
        let cycle = spec.component::<Schema>("Loop");
        assert!(matches!(cycle, Err(SpecError::RefCycle { .. })));
        let wrong_kind = spec.resolve_ref::<Parameter>("#/components/schemas/S");
        assert!(matches!(wrong_kind, Err(SpecError::DanglingRef { .. })));
    }
}
