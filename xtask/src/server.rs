//! Generates `courier-server`: per-operation request types, response enums, traits and routers.
//!
//! The output leans on the hand-written runtime in `crates/server/src` (query parsing, credential
//! extraction, JSON errors); this file only turns each operation of the spec into the code that
//! wires those pieces together, so a change to the spec changes the trait the compiler holds
//! every implementation to.

use crate::models::ModelType;
use crate::{CodegenError, Spec};
use heck::{ToSnakeCase, ToUpperCamelCase};
use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};
use serde_json::Value;

/// The interfaces of the spec: the tag, the trait it becomes and how it authenticates.
struct Interface {
    tag: &'static str,
    trait_name: &'static str,
    router_fn: &'static str,
    credentials: &'static str,
    extract_credentials: &'static str,
}

const INTERFACES: [Interface; 2] = [
    Interface {
        tag: "messaging",
        trait_name: "MessagingApi",
        router_fn: "messaging_router",
        credentials: "crate::auth::MessagingCredentials",
        extract_credentials: "crate::auth::messaging_credentials",
    },
    Interface {
        tag: "management",
        trait_name: "ManagementApi",
        router_fn: "management_router",
        credentials: "crate::auth::ManagementCredentials",
        extract_credentials: "crate::auth::management_credentials",
    },
];

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
}

pub(crate) struct Operation {
    pub id: String,
    pub tag: String,
    pub method: String,
    pub path: String,
    pub summary: String,
    pub description: String,
    pub params: Vec<Param>,
    /// (status, Rust type of the body or None for an empty body)
    pub responses: Vec<(u16, Option<String>)>,
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
    pub fn groups(&self) -> Vec<&str> {
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
    CodegenError::Generator(format!("server: {}", message.into()))
}

fn resolve<'a>(spec: &'a Value, node: &'a Value) -> Result<&'a Value, CodegenError> {
    match node.get("$ref").and_then(Value::as_str) {
        Some(reference) => spec
            .pointer(reference.trim_start_matches('#'))
            .ok_or_else(|| err(format!("`{reference}` does not resolve"))),
        None => Ok(node),
    }
}

fn ref_name(node: &Value) -> Option<&str> {
    node.get("$ref")?.as_str()?.rsplit('/').next()
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

fn enum_values(spec: &Value, component: &str) -> Vec<String> {
    spec.pointer(&format!("/components/schemas/{component}/enum"))
        .and_then(Value::as_array)
        .map(|values| {
            values
                .iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

/// A component marked `x-courier-rust-type: String`: constrained in the spec, a `String` in Rust.
fn is_plain_string(spec: &Value, component: &str) -> bool {
    spec.pointer(&format!(
        "/components/schemas/{component}/x-courier-rust-type"
    ))
    .and_then(Value::as_str)
        == Some("String")
}

fn param_kind(
    spec: &Value,
    models: &[ModelType],
    schema: &Value,
) -> Result<ParamKind, CodegenError> {
    if let Some(component) = ref_name(schema) {
        if is_plain_string(spec, component) {
            return Ok(ParamKind::String);
        }
        let model = model_name(models, component)?;
        return Ok(ParamKind::Enum {
            values: enum_values(spec, component),
            has_default: model.has_default,
            type_name: model.name,
        });
    }
    let int = |key: &str| schema.get(key).and_then(Value::as_i64);
    match schema.get("type").and_then(Value::as_str) {
        Some("string") => Ok(ParamKind::String),
        Some("integer") => Ok(ParamKind::Integer {
            minimum: int("minimum"),
            maximum: int("maximum"),
            default: int("default"),
        }),
        Some("boolean") => Ok(ParamKind::Boolean),
        Some("array") => {
            let items = schema
                .get("items")
                .ok_or_else(|| err("array parameter without items"))?;
            match ref_name(items) {
                Some(component) if is_plain_string(spec, component) => Ok(ParamKind::Strings),
                Some(component) => Ok(ParamKind::Enums {
                    values: enum_values(spec, component),
                    type_name: model_name(models, component)?.name,
                }),
                None => Ok(ParamKind::Strings),
            }
        }
        other => Err(err(format!("unsupported parameter type {other:?}"))),
    }
}

pub(crate) fn operations(
    spec: &Value,
    models: &[ModelType],
) -> Result<Vec<Operation>, CodegenError> {
    let mut operations = Vec::new();
    let paths = spec
        .get("paths")
        .and_then(Value::as_object)
        .ok_or_else(|| err("no paths"))?;
    for (path, item) in paths {
        for method in ["get", "put", "post", "delete", "patch"] {
            let Some(operation) = item.get(method) else {
                continue;
            };
            let text = |key: &str| {
                operation
                    .get(key)
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned()
            };
            let mut params = Vec::new();
            for parameter in operation
                .get("parameters")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let parameter = resolve(spec, parameter)?;
                let field = |key: &str| {
                    parameter
                        .get(key)
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_owned()
                };
                let schema = parameter
                    .get("schema")
                    .ok_or_else(|| err("parameter without schema"))?;
                params.push(Param {
                    name: field("name"),
                    location: field("in"),
                    description: field("description"),
                    kind: param_kind(spec, models, schema)?,
                    group: parameter
                        .get("x-courier-group")
                        .and_then(Value::as_str)
                        .map(str::to_owned),
                    alias_of: parameter
                        .get("x-courier-alias-of")
                        .and_then(Value::as_str)
                        .map(str::to_owned),
                    required: parameter
                        .get("required")
                        .and_then(Value::as_bool)
                        .unwrap_or(false),
                });
            }
            let mut responses = Vec::new();
            for (status, response) in operation
                .get("responses")
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
            {
                let status: u16 = status
                    .parse()
                    .map_err(|_| err(format!("{path}: status `{status}` is not a number")))?;
                let response = resolve(spec, response)?;
                let body = match response
                    .pointer("/content/application~1json/schema")
                    .and_then(ref_name)
                {
                    Some(component) => Some(model_name(models, component)?.name),
                    None => None,
                };
                responses.push((status, body));
            }
            responses.sort();
            let mut credential_query_keys = Vec::new();
            let mut security = Vec::new();
            for requirement in operation
                .get("security")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                for scheme in requirement.as_object().into_iter().flat_map(|r| r.keys()) {
                    security.push(scheme.clone());
                    let scheme = spec
                        .pointer(&format!("/components/securitySchemes/{scheme}"))
                        .ok_or_else(|| {
                            err(format!("security scheme `{scheme}` is not declared"))
                        })?;
                    if scheme.get("type").and_then(Value::as_str) == Some("apiKey")
                        && scheme.get("in").and_then(Value::as_str) == Some("query")
                    {
                        credential_query_keys.extend(
                            scheme
                                .get("name")
                                .and_then(Value::as_str)
                                .map(str::to_owned),
                        );
                    }
                }
            }
            let tag = operation
                .pointer("/tags/0")
                .and_then(Value::as_str)
                .ok_or_else(|| err(format!("{path}: operation without tag")))?
                .to_owned();
            operations.push(Operation {
                id: text("operationId"),
                tag,
                method: method.to_owned(),
                path: path.clone(),
                summary: text("summary"),
                description: text("description"),
                params,
                responses,
                credential_query_keys,
                security,
                alias_of: operation
                    .pointer("/x-courier-compat/alias-of")
                    .and_then(Value::as_str)
                    .map(str::to_owned),
                idempotent: operation
                    .get("x-courier-idempotent")
                    .and_then(Value::as_bool)
                    .unwrap_or(!matches!(method, "post" | "patch")),
            });
        }
    }
    operations.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(operations)
}

fn status_variant(status: u16) -> Result<(proc_macro2::Ident, TokenStream), CodegenError> {
    let (name, constant) = match status {
        200 => ("Ok", "OK"),
        201 => ("Created", "CREATED"),
        204 => ("NoContent", "NO_CONTENT"),
        400 => ("BadRequest", "BAD_REQUEST"),
        401 => ("Unauthorized", "UNAUTHORIZED"),
        403 => ("Forbidden", "FORBIDDEN"),
        404 => ("NotFound", "NOT_FOUND"),
        409 => ("Conflict", "CONFLICT"),
        413 => ("PayloadTooLarge", "PAYLOAD_TOO_LARGE"),
        429 => ("TooManyRequests", "TOO_MANY_REQUESTS"),
        500 => ("InternalServerError", "INTERNAL_SERVER_ERROR"),
        503 => ("ServiceUnavailable", "SERVICE_UNAVAILABLE"),
        507 => ("InsufficientStorage", "INSUFFICIENT_STORAGE"),
        other => {
            return Err(err(format!(
                "status {other} has no variant name; add it to xtask/src/server.rs"
            )));
        }
    };
    let constant = format_ident!("{}", constant);
    Ok((
        format_ident!("{}", name),
        quote!(::axum::http::StatusCode::#constant),
    ))
}

fn doc(text: &str) -> TokenStream {
    let lines = text.trim().lines().map(|line| format!(" {line}"));
    quote!(#(#[doc = #lines])*)
}

fn string_list(values: &[String]) -> TokenStream {
    quote!(&[#(#values),*])
}

/// The request struct of one operation and its parser.
fn request_type(op: &Operation) -> TokenStream {
    let type_name = format_ident!("{}Request", op.id.to_upper_camel_case());
    let mut fields = Vec::new();
    let mut parsers = Vec::new();
    // A parameter group is one field of its generated `courier_models` struct, parsed in place.
    let mut group_parsers: std::collections::BTreeMap<&str, Vec<TokenStream>> = Default::default();
    for group in op.groups() {
        let field = format_ident!("{}", crate::facts::setter_name(group));
        let ty: TokenStream = format!("::courier_models::{group}").parse().expect("path");
        let description = doc(&format!(
            "The `{group}` parameters (`x-courier-group` in the spec), shared with other operations."
        ));
        fields.push(quote!(#description pub #field: #ty,));
        group_parsers.insert(group, Vec::new());
    }
    for param in op.params.iter().filter(|p| p.alias_of.is_none()) {
        let field = format_ident!("{}", param.name.to_snake_case());
        let name = &param.name;
        let aliases: Vec<&str> = op
            .params
            .iter()
            .filter(|p| p.alias_of.as_deref() == Some(name.as_str()))
            .map(|p| p.name.as_str())
            .collect();
        let description = doc(&format!(
            "`{}` ({}): {}",
            param.name, param.location, param.description
        ));
        let (ty, parse) = if param.location == "path" {
            (
                quote!(::std::string::String),
                quote!(crate::runtime::path_param(path, #name)?),
            )
        } else {
            match &param.kind {
                ParamKind::String => (
                    quote!(::std::option::Option<::std::string::String>),
                    quote!(query.string(#name)?),
                ),
                ParamKind::Boolean => (
                    quote!(::std::option::Option<bool>),
                    quote!(query.boolean(#name)?),
                ),
                ParamKind::Integer {
                    minimum,
                    maximum,
                    default,
                } => {
                    let bound = |b: &Option<i64>| match b {
                        Some(v) => quote!(::std::option::Option::Some(#v)),
                        None => quote!(::std::option::Option::None),
                    };
                    let (min, max) = (bound(minimum), bound(maximum));
                    match default {
                        Some(default) => (
                            quote!(i64),
                            quote!(query.integer(#name, #min, #max)?.unwrap_or(#default)),
                        ),
                        None => (
                            quote!(::std::option::Option<i64>),
                            quote!(query.integer(#name, #min, #max)?),
                        ),
                    }
                }
                ParamKind::Enum {
                    type_name,
                    values,
                    has_default,
                } => {
                    let ty: TokenStream = format!("::courier_models::{type_name}")
                        .parse()
                        .expect("path");
                    let values = string_list(values);
                    if *has_default {
                        (
                            ty.clone(),
                            quote!(query.enum_value::<#ty>(#name, #values)?.unwrap_or_default()),
                        )
                    } else if param.required {
                        let missing = format!(
                            "`{name}` is required: give one of {}",
                            values_text(values_list(&param.kind))
                        );
                        (
                            ty.clone(),
                            quote!(query.enum_value::<#ty>(#name, #values)?.ok_or_else(|| crate::runtime::Rejection::bad_request(#missing))?),
                        )
                    } else {
                        (
                            quote!(::std::option::Option<#ty>),
                            quote!(query.enum_value::<#ty>(#name, #values)?),
                        )
                    }
                }
                ParamKind::Strings => (
                    quote!(::std::vec::Vec<::std::string::String>),
                    if aliases.is_empty() {
                        quote!(query.strings(#name)?)
                    } else {
                        let extend = aliases
                            .iter()
                            .map(|alias| quote!(values.extend(query.strings(#alias)?);));
                        quote!({
                            let mut values = query.strings(#name)?;
                            #(#extend)*
                            values
                        })
                    },
                ),
                ParamKind::Enums { type_name, values } => {
                    let ty: TokenStream = format!("::courier_models::{type_name}")
                        .parse()
                        .expect("path");
                    let values = string_list(values);
                    (
                        quote!(::std::vec::Vec<#ty>),
                        if aliases.is_empty() {
                            quote!(query.enum_values::<#ty>(#name, #values)?)
                        } else {
                            let extend = aliases.iter().map(|alias| {
                                quote!(values.extend(query.enum_values::<#ty>(#alias, #values)?);)
                            });
                            quote!({
                                let mut values = query.enum_values::<#ty>(#name, #values)?;
                                #(#extend)*
                                values
                            })
                        },
                    )
                }
            }
        };
        match &param.group {
            Some(group) => group_parsers
                .get_mut(group.as_str())
                .expect("every group was collected")
                .push(quote!(#field: #parse,)),
            None => {
                fields.push(quote!(#description pub #field: #ty,));
                parsers.push(quote!(#field: #parse,));
            }
        }
    }
    for group in op.groups() {
        let field = format_ident!("{}", crate::facts::setter_name(group));
        let ty: TokenStream = format!("::courier_models::{group}").parse().expect("path");
        let members = &group_parsers[group];
        parsers.push(quote!(#field: #ty { #(#members)* },));
    }
    let query_keys: Vec<String> = op
        .params
        .iter()
        .filter(|p| p.location == "query")
        .map(|p| p.name.clone())
        .chain(op.credential_query_keys.iter().cloned())
        .collect();
    let query_keys = string_list(&query_keys);
    let type_doc = doc(&format!(
        "Parameters of `{}` ({} `{}`), parsed and validated: defaults applied, bounds and enum values checked.",
        op.id,
        op.method.to_uppercase(),
        op.path
    ));
    quote! {
        #type_doc
        #[derive(Clone, Debug, PartialEq)]
        pub struct #type_name { #(#fields)* }

        impl #type_name {
            /// Every query key this operation accepts, credentials included; any other is a 400.
            pub const QUERY_KEYS: &'static [&'static str] = #query_keys;

            /// Parses the path and query of a request; a rejection names the parameter at fault.
            #[allow(unused_variables)]
            pub fn parse(path: &crate::runtime::PathParams, query: &crate::query::Query)
                -> ::std::result::Result<Self, crate::runtime::Rejection>
            {
                query.reject_unknown(Self::QUERY_KEYS)?;
                ::std::result::Result::Ok(Self { #(#parsers)* })
            }
        }
    }
}

fn values_list(kind: &ParamKind) -> &[String] {
    match kind {
        ParamKind::Enum { values, .. } | ParamKind::Enums { values, .. } => values,
        _ => &[],
    }
}

fn values_text(values: &[String]) -> String {
    values.join(", ")
}

/// The response enum of one operation: one variant per documented status.
fn response_type(op: &Operation) -> Result<TokenStream, CodegenError> {
    let type_name = format_ident!("{}Response", op.id.to_upper_camel_case());
    let mut variants = Vec::new();
    let mut arms = Vec::new();
    for (status, body) in &op.responses {
        let (variant, code) = status_variant(*status)?;
        let status_doc = format!(" HTTP {status}.");
        match body {
            Some(body) => {
                let ty: TokenStream = format!("::courier_models::{body}").parse().expect("path");
                variants.push(quote!(#[doc = #status_doc] #variant(#ty),));
                arms.push(quote!(Self::#variant(body) => crate::runtime::json(#code, &body),));
            }
            None => {
                variants.push(quote!(#[doc = #status_doc] #variant,));
                arms.push(quote!(Self::#variant => crate::runtime::empty(#code),));
            }
        }
    }
    let type_doc = doc(&format!(
        "Every response `{}` may give, one variant per status the spec documents; nothing else can be returned.",
        op.id
    ));
    Ok(quote! {
        #type_doc
        #[derive(Clone, Debug, PartialEq)]
        pub enum #type_name { #(#variants)* }

        impl ::axum::response::IntoResponse for #type_name {
            fn into_response(self) -> ::axum::response::Response {
                match self { #(#arms)* }
            }
        }
    })
}

fn interface_code(interface: &Interface, ops: &[&Operation]) -> TokenStream {
    let trait_name = format_ident!("{}", interface.trait_name);
    let router_fn = format_ident!("{}", interface.router_fn);
    let credentials: TokenStream = interface.credentials.parse().expect("path");
    let extract: TokenStream = interface.extract_credentials.parse().expect("path");
    let mut methods = Vec::new();
    let mut handlers = Vec::new();
    let mut routes: std::collections::BTreeMap<&str, Vec<TokenStream>> = Default::default();
    for op in ops {
        let method = format_ident!("{}", op.id.to_snake_case());
        let handler = format_ident!("handle_{}", op.id.to_snake_case());
        let request = format_ident!("{}Request", op.id.to_upper_camel_case());
        let response = format_ident!("{}Response", op.id.to_upper_camel_case());
        let method_doc = doc(&format!(
            "{}\n\n`{} {}` (operationId `{}`).\n\n{}",
            op.summary,
            op.method.to_uppercase(),
            op.path,
            op.id,
            op.description
        ));
        match &op.alias_of {
            // An alias answers with the original's code by default (the generated `From`
            // conversions); an implementation overrides it only to answer differently.
            Some(original) => {
                let original = format_ident!("{}", original.to_snake_case());
                let note = doc(&format!(
                    "\nBy default the same as [`{trait}::{original}`], through the generated conversions.",
                    trait = interface.trait_name
                ));
                methods.push(quote! {
                    #method_doc
                    #note
                    fn #method(&self, principal: Self::Principal, request: #request)
                        -> impl ::std::future::Future<Output = #response> + Send
                    {
                        async move { self.#original(principal, request.into()).await.into() }
                    }
                });
            }
            None => methods.push(quote! {
                #method_doc
                fn #method(&self, principal: Self::Principal, request: #request)
                    -> impl ::std::future::Future<Output = #response> + Send;
            }),
        }
        handlers.push(quote! {
            pub(super) async fn #handler<A: #trait_name>(
                ::axum::extract::State(api): ::axum::extract::State<::std::sync::Arc<A>>,
                path: crate::runtime::PathParams,
                headers: ::axum::http::HeaderMap,
                ::axum::extract::RawQuery(raw_query): ::axum::extract::RawQuery,
            ) -> ::axum::response::Response {
                use ::axum::response::IntoResponse as _;
                let query = crate::query::Query::parse(raw_query.as_deref().unwrap_or(""));
                let principal = match #extract(&headers, &query) {
                    ::std::result::Result::Ok(credentials) => match api.authenticate(credentials).await {
                        ::std::result::Result::Ok(principal) => principal,
                        ::std::result::Result::Err(rejection) => return rejection.into_response(),
                    },
                    ::std::result::Result::Err(rejection) => return rejection.into_response(),
                };
                match #request::parse(&path, &query) {
                    ::std::result::Result::Ok(request) => api.#method(principal, request).await.into_response(),
                    ::std::result::Result::Err(rejection) => rejection.into_response(),
                }
            }
        });
        let routing = format_ident!("{}", op.method);
        routes
            .entry(op.path.as_str())
            .or_default()
            .push(quote!(#routing(#handler::<A>)));
    }
    let route_calls = routes.iter().map(|(path, method_routers)| {
        let mut chain = quote!(::axum::routing::);
        for (index, method_router) in method_routers.iter().enumerate() {
            if index > 0 {
                chain.extend(quote!(.));
            }
            chain.extend(method_router.clone());
        }
        quote!(.route(#path, #chain.fallback(crate::runtime::method_not_allowed)))
    });
    let trait_doc = doc(&format!(
        "The `{}` interface: one method per operation of the spec's `{}` tag.\n\n\
         The router authenticates every request through [`{}::authenticate`] before any other \
         method runs, then parses and validates the parameters; methods receive the principal \
         and a typed request and return the operation's response enum. Implement the methods as \
         `async fn`.",
        interface.tag, interface.tag, interface.trait_name
    ));
    let router_doc = doc(&format!(
        "An `axum::Router` serving the `{}` operations of `api`. Add the common layers and the \
         JSON 404 with [`crate::finish`], or use [`crate::router`] for both interfaces.",
        interface.tag
    ));
    let handlers_mod = format_ident!("{}_handlers", interface.tag);
    quote! {
        #trait_doc
        pub trait #trait_name: Send + Sync + 'static {
            /// Who a valid credential belongs to; handed to every method.
            type Principal: Send;

            /// Checks the credentials the router extracted; an error becomes a 401.
            fn authenticate(&self, credentials: #credentials)
                -> impl ::std::future::Future<Output = ::std::result::Result<Self::Principal, crate::runtime::Unauthorized>> + Send;

            #(#methods)*
        }

        #router_doc
        pub fn #router_fn<A: #trait_name>(api: ::std::sync::Arc<A>) -> ::axum::Router {
            use #handlers_mod::*;
            ::axum::Router::new() #(#route_calls)* .with_state(api)
        }

        mod #handlers_mod {
            use super::*;
            #(#handlers)*
        }
    }
}

/// For an operation that re-exposes another (`x-courier-compat: {alias-of: ...}`): its request
/// converts into the original's (every field of the original has its namesake) and the original's
/// response into its own (every status of the original is documented here too), so an
/// implementation answers the alias with the very code of the original.
fn alias_conversions(
    alias: &Operation,
    operations: &[Operation],
) -> Result<TokenStream, CodegenError> {
    let original_id = alias.alias_of.as_deref().expect("an alias");
    let original = operations
        .iter()
        .find(|op| op.id == original_id)
        .ok_or_else(|| {
            err(format!(
                "`{}` is an alias of `{original_id}`, which the spec does not declare",
                alias.id
            ))
        })?;
    let fields = |op: &Operation| -> Vec<String> {
        op.params
            .iter()
            .filter(|p| p.alias_of.is_none() && p.group.is_none())
            .map(|p| p.name.to_snake_case())
            .chain(op.groups().into_iter().map(crate::facts::setter_name))
            .collect()
    };
    let alias_fields = fields(alias);
    let mut moves = Vec::new();
    for field in fields(original) {
        if !alias_fields.contains(&field) {
            return Err(err(format!(
                "`{}` is an alias of `{original_id}` but has no parameter for its field `{field}`",
                alias.id
            )));
        }
        let field = format_ident!("{field}");
        moves.push(quote!(#field: alias.#field,));
    }
    let alias_request = format_ident!("{}Request", alias.id.to_upper_camel_case());
    let alias_response = format_ident!("{}Response", alias.id.to_upper_camel_case());
    let original_request = format_ident!("{}Request", original.id.to_upper_camel_case());
    let original_response = format_ident!("{}Response", original.id.to_upper_camel_case());
    let mut arms = Vec::new();
    for (status, body) in &original.responses {
        if !alias
            .responses
            .iter()
            .any(|(s, b)| s == status && b == body)
        {
            return Err(err(format!(
                "`{}` is an alias of `{original_id}` but does not document its {status} response",
                alias.id
            )));
        }
        let (variant, _) = status_variant(*status)?;
        arms.push(match body {
            Some(_) => quote!(#original_response::#variant(body) => Self::#variant(body),),
            None => quote!(#original_response::#variant => Self::#variant,),
        });
    }
    let request_doc = doc(&format!(
        "`{}` re-exposes `{original_id}`: its parameters are the original's (and more).",
        alias.id
    ));
    let response_doc = doc(&format!(
        "`{}` answers whatever `{original_id}` answers.",
        alias.id
    ));
    Ok(quote! {
        #request_doc
        impl ::std::convert::From<#alias_request> for #original_request {
            #[allow(unused_variables)]
            fn from(alias: #alias_request) -> Self {
                Self { #(#moves)* }
            }
        }
        #response_doc
        impl ::std::convert::From<#original_response> for #alias_response {
            fn from(original: #original_response) -> Self {
                match original { #(#arms)* }
            }
        }
    })
}

pub fn generate(spec: &Spec, models: &[ModelType]) -> Result<TokenStream, CodegenError> {
    let operations = operations(&spec.json, models)?;
    let mut items = Vec::new();
    for op in &operations {
        items.push(request_type(op));
        items.push(response_type(op)?);
    }
    for op in operations.iter().filter(|op| op.alias_of.is_some()) {
        items.push(alias_conversions(op, &operations)?);
    }
    for interface in &INTERFACES {
        let ops: Vec<&Operation> = operations
            .iter()
            .filter(|op| op.tag == interface.tag)
            .collect();
        items.push(interface_code(interface, &ops));
    }
    if let Some(op) = operations
        .iter()
        .find(|op| !INTERFACES.iter().any(|i| i.tag == op.tag))
    {
        return Err(err(format!(
            "operation `{}` has tag `{}`, which no server trait serves",
            op.id, op.tag
        )));
    }
    let literal = Literal::usize_unsuffixed(operations.len());
    let dispatch = operations.iter().map(|op| {
        let id = &op.id;
        let request = format_ident!("{}Request", op.id.to_upper_camel_case());
        quote!(#id => ::std::option::Option::Some(#request::parse(path, query).map(drop)),)
    });
    Ok(quote! {
        /// How many operations the spec declares (and the generated routers serve).
        pub const OPERATION_COUNT: usize = #literal;

        /// Parses a request of the operation `operation_id` as its route would, discarding the
        /// result: for tests and fuzz targets that go over every operation of
        /// `courier_models::OPERATIONS`. `None` for an id the spec does not declare.
        pub fn parse_request(
            operation_id: &str,
            path: &crate::runtime::PathParams,
            query: &crate::query::Query,
        ) -> ::std::option::Option<::std::result::Result<(), crate::runtime::Rejection>> {
            match operation_id {
                #(#dispatch)*
                _ => ::std::option::Option::None,
            }
        }

        #(#items)*
    })
}
