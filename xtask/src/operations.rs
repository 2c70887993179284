//! The operations of the spec as the server and facts generators need them: every parameter's
//! Rust shape, every response's body type, the credentials each operation reads. Read through
//! `courier-spec`, so `$ref`s and extensions mean what they mean everywhere else.

use crate::models::ModelType;
use crate::{CodegenError, Spec};
use courier_spec::openapiv3::{self, ReferenceOr, SchemaKind, Type};
use courier_spec::{extensions, location_of, parameter_schema, schema_ref_name};
use heck::ToUpperCamelCase;

/// A parameter's Rust shape, as far as the runtime parser needs to know it.
pub(crate) enum ParamKind {
    String,
    Integer {
        minimum: Option<i64>,
        maximum: Option<i64>,
        default: Option<i64>,
    },
    Boolean,
    Enum {
        type_name: String,
        values: Vec<String>,
        has_default: bool,
    },
    Strings,
    Enums {
        type_name: String,
        values: Vec<String>,
    },
}

impl ParamKind {
    /// Whether the parameter takes several values (repeated keys, the comma form).
    pub(crate) fn is_multi_valued(&self) -> bool {
        matches!(self, ParamKind::Strings | ParamKind::Enums { .. })
    }

    /// The accepted values of an enum parameter; empty for any other.
    pub(crate) fn values(&self) -> &[String] {
        match self {
            ParamKind::Enum { values, .. } | ParamKind::Enums { values, .. } => values,
            _ => &[],
        }
    }
}

pub(crate) struct Param {
    pub name: String,
    pub location: String,
    pub description: String,
    pub kind: ParamKind,
    /// The shared parameter group (`x-courier-group`) this parameter belongs to, which becomes
    /// one struct in `courier-models` (e.g. `DlqFilter`).
    pub group: Option<String>,
    /// `x-courier-alias-of`: another spelling of that parameter of the same operation, whose
    /// values it adds to; it has no field of its own.
    pub alias_of: Option<String>,
    /// `required: true`: absent is a 400.
    pub required: bool,
    /// `maxItems` of a multi-value parameter: more values of this spelling are a 400 naming it and
    /// the cap. Each spelling has its own, as no schema can state a cap over several parameters.
    pub max_items: Option<usize>,
}

/// A response body: the Rust type of its model, and whether the server takes it pre-serialised
/// (`x-courier-preserialized`).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Body {
    pub model: String,
    pub preserialized: bool,
}

pub(crate) struct Operation {
    pub id: String,
    pub tag: String,
    pub method: String,
    pub path: String,
    pub summary: String,
    pub description: String,
    pub params: Vec<Param>,
    /// (status, its body or None for an empty body)
    pub responses: Vec<(u16, Option<Body>)>,
    /// Query keys the security schemes of this operation read (e.g. `service_token`).
    pub credential_query_keys: Vec<String>,
    /// The names of the security schemes that admit a request.
    pub security: Vec<String>,
    /// `x-courier-idempotent`, else what the method promises (RFC 9110: all but POST and PATCH).
    pub idempotent: bool,
    /// `x-courier-compat: {alias-of: <operationId>}`: the same operation at another address,
    /// for the official clients.
    pub alias_of: Option<String>,
}

impl Operation {
    /// The parameter groups of this operation, in the order their first parameter appears.
    pub(crate) fn groups(&self) -> Vec<&str> {
        let mut groups: Vec<&str> = Vec::new();
        for group in self.params.iter().filter_map(|p| p.group.as_deref()) {
            if !groups.contains(&group) {
                groups.push(group);
            }
        }
        groups
    }
}

fn err(message: impl Into<String>) -> CodegenError {
    CodegenError::Generator(format!("operations: {}", message.into()))
}

fn spec_err(error: courier_spec::SpecError) -> CodegenError {
    err(error.to_string())
}

/// typify's Rust name for a component, looked up in the models' type list.
fn model_name(models: &[ModelType], component: &str) -> Result<ModelType, CodegenError> {
    let wanted = component.to_upper_camel_case();
    models
        .iter()
        .find(|ty| ty.name == wanted)
        .cloned()
        .ok_or_else(|| {
            err(format!(
                "component `{component}` has no generated model type"
            ))
        })
}

/// A `$ref`ed component's kind: a plain string, or one of the models' enums.
fn component_kind(
    spec: &Spec,
    models: &[ModelType],
    component: &str,
    many: bool,
) -> Result<ParamKind, CodegenError> {
    let schema = spec
        .doc
        .component::<openapiv3::Schema>(component)
        .map_err(spec_err)?;
    if extensions::is_plain_string(schema) {
        return Ok(if many {
            ParamKind::Strings
        } else {
            ParamKind::String
        });
    }
    let model = model_name(models, component)?;
    let values = courier_spec::string_enum(schema)
        .into_iter()
        .map(str::to_owned)
        .collect();
    Ok(if many {
        ParamKind::Enums {
            type_name: model.name,
            values,
        }
    } else {
        ParamKind::Enum {
            values,
            has_default: model.has_default,
            type_name: model.name,
        }
    })
}

fn param_kind(
    spec: &Spec,
    models: &[ModelType],
    schema: &ReferenceOr<openapiv3::Schema>,
) -> Result<ParamKind, CodegenError> {
    let schema = match schema {
        ReferenceOr::Reference { .. } => {
            let component = schema_ref_name(schema).ok_or_else(|| err("non-local schema $ref"))?;
            return component_kind(spec, models, component, false);
        }
        ReferenceOr::Item(schema) => schema,
    };
    match &schema.schema_kind {
        SchemaKind::Type(Type::String(_)) => Ok(ParamKind::String),
        SchemaKind::Type(Type::Integer(integer)) => Ok(ParamKind::Integer {
            minimum: integer.minimum,
            maximum: integer.maximum,
            default: schema
                .schema_data
                .default
                .as_ref()
                .and_then(serde_json::Value::as_i64),
        }),
        SchemaKind::Type(Type::Boolean(_)) => Ok(ParamKind::Boolean),
        SchemaKind::Type(Type::Array(array)) => {
            let items = array
                .items
                .as_ref()
                .ok_or_else(|| err("array parameter without items"))?;
            match schema_ref_name(items) {
                Some(component) => component_kind(spec, models, component, true),
                None => Ok(ParamKind::Strings),
            }
        }
        other => Err(err(format!("unsupported parameter type {other:?}"))),
    }
}

fn param(
    spec: &Spec,
    models: &[ModelType],
    parameter: &openapiv3::Parameter,
) -> Result<Param, CodegenError> {
    let data = parameter.parameter_data_ref();
    let schema = parameter_schema(parameter).ok_or_else(|| err("parameter without schema"))?;
    Ok(Param {
        name: data.name.clone(),
        location: location_of(parameter).to_owned(),
        description: data.description.clone().unwrap_or_default(),
        kind: param_kind(spec, models, schema)?,
        group: extensions::group(parameter).map(str::to_owned),
        alias_of: extensions::parameter_alias_of(parameter).map(str::to_owned),
        required: data.required,
        max_items: max_items(schema),
    })
}

/// `maxItems` of an inline array schema.
fn max_items(schema: &ReferenceOr<openapiv3::Schema>) -> Option<usize> {
    match schema {
        ReferenceOr::Item(openapiv3::Schema {
            schema_kind: SchemaKind::Type(Type::Array(array)),
            ..
        }) => array.max_items,
        _ => None,
    }
}

fn responses(
    spec: &Spec,
    models: &[ModelType],
    op: &courier_spec::OperationRef<'_>,
) -> Result<Vec<(u16, Option<Body>)>, CodegenError> {
    let mut responses = Vec::new();
    for (status, response) in &op.operation.responses.responses {
        let openapiv3::StatusCode::Code(status) = *status else {
            return Err(err(format!(
                "{}: status `{status}` is not a number",
                op.path
            )));
        };
        let response = spec.doc.response(response).map_err(spec_err)?;
        let body = match response
            .content
            .get("application/json")
            .and_then(|media| media.schema.as_ref())
            .and_then(schema_ref_name)
        {
            Some(component) => Some(Body {
                model: model_name(models, component)?.name,
                preserialized: extensions::preserialized(response),
            }),
            None => None,
        };
        responses.push((status, body));
    }
    responses.sort();
    Ok(responses)
}

/// The security schemes of an operation and the query keys they read credentials from.
fn security(
    spec: &Spec,
    op: &courier_spec::OperationRef<'_>,
) -> Result<(Vec<String>, Vec<String>), CodegenError> {
    let mut credential_query_keys = Vec::new();
    let mut security = Vec::new();
    for scheme in op
        .operation
        .security
        .iter()
        .flatten()
        .flat_map(|r| r.keys())
    {
        security.push(scheme.clone());
        let declared = spec
            .doc
            .component::<openapiv3::SecurityScheme>(scheme)
            .map_err(|_| err(format!("security scheme `{scheme}` is not declared")))?;
        if let openapiv3::SecurityScheme::APIKey {
            location: openapiv3::APIKeyLocation::Query,
            name,
            ..
        } = declared
        {
            credential_query_keys.push(name.clone());
        }
    }
    Ok((security, credential_query_keys))
}

/// Every operation of the spec, by `operationId`.
pub(crate) fn operations(
    spec: &Spec,
    models: &[ModelType],
) -> Result<Vec<Operation>, CodegenError> {
    let mut operations = Vec::new();
    for op in spec.doc.operations() {
        let op = op.map_err(spec_err)?;
        let params = op
            .parameters
            .iter()
            .map(|parameter| param(spec, models, parameter))
            .collect::<Result<_, _>>()?;
        let (security, credential_query_keys) = security(spec, &op)?;
        let tag = op
            .operation
            .tags
            .first()
            .ok_or_else(|| err(format!("{}: operation without tag", op.path)))?
            .clone();
        let text = |text: &Option<String>| text.clone().unwrap_or_default();
        operations.push(Operation {
            id: op.id().to_owned(),
            tag,
            method: op.method.to_owned(),
            path: op.path.to_owned(),
            summary: text(&op.operation.summary),
            description: text(&op.operation.description),
            params,
            responses: responses(spec, models, &op)?,
            credential_query_keys,
            security,
            alias_of: extensions::operation_alias_of(op.operation).map(str::to_owned),
            idempotent: extensions::idempotent(op.operation, op.method),
        });
    }
    operations.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(operations)
}
