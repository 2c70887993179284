//! Generates the spec's facts for hand-written code: the shared parameter groups as structs and
//! the table of operations, into `courier-models` (no HTTP dependencies), and the glue that
//! hands a group to the client's request builders.
//!
//! Hand-written code reads these instead of spelling the facts again, so a spec change is either
//! followed by itself (a filter added to a group reaches the client builders, the server's
//! parsed requests and the query-key tables) or named by the compiler (the store destructures
//! the filter struct without `..`).

use crate::models::ModelType;
use crate::operations::{Operation, Param, ParamKind, operations};
use crate::{CodegenError, Spec};
use courier_spec::{extensions, openapiv3};
use heck::{ToSnakeCase, ToUpperCamelCase};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use std::collections::BTreeMap;

fn doc(text: &str) -> TokenStream {
    let lines = text.lines().map(|line| format!(" {line}"));
    quote!(#(#[doc = #lines])*)
}

/// A models type as the generated facts (inside `courier-models`) name it.
fn model_type(type_name: &str) -> TokenStream {
    format!("crate::{type_name}").parse().expect("a type name")
}

/// The parameters of every group, from the first operation (by id) that uses the group; every
/// other operation using it must declare the same parameters, in the same order.
fn groups(operations: &[Operation]) -> Result<BTreeMap<String, Vec<&Param>>, CodegenError> {
    let mut groups: BTreeMap<String, (String, Vec<&Param>)> = BTreeMap::new();
    for op in operations {
        for group in op.groups() {
            let params: Vec<&Param> = op
                .params
                .iter()
                .filter(|p| p.group.as_deref() == Some(group))
                .collect();
            let names =
                |params: &[&Param]| params.iter().map(|p| p.name.clone()).collect::<Vec<_>>();
            match groups.get(group) {
                None => {
                    groups.insert(group.to_owned(), (op.id.clone(), params));
                }
                Some((first, known)) if names(known) != names(&params) => {
                    return Err(CodegenError::Generator(format!(
                        "parameter group `{group}`: `{}` declares {:?}, `{first}` declares {:?}; an operation takes a group whole",
                        op.id,
                        names(&params),
                        names(known)
                    )));
                }
                Some(_) => {}
            }
        }
    }
    Ok(groups
        .into_iter()
        .map(|(name, (_, params))| (name, params))
        .collect())
}

/// The Rust type of a group member: every member is optional (absent means "no filter").
fn member_type(param: &Param) -> Result<TokenStream, CodegenError> {
    Ok(match &param.kind {
        ParamKind::String => quote!(::std::option::Option<::std::string::String>),
        ParamKind::Boolean => quote!(::std::option::Option<bool>),
        ParamKind::Integer { default: None, .. } => quote!(::std::option::Option<i64>),
        ParamKind::Enum {
            type_name,
            has_default: false,
            ..
        } => {
            let ty = model_type(type_name);
            quote!(::std::option::Option<#ty>)
        }
        ParamKind::Strings => quote!(::std::vec::Vec<::std::string::String>),
        ParamKind::Enums { type_name, .. } => {
            let ty = model_type(type_name);
            quote!(::std::vec::Vec<#ty>)
        }
        ParamKind::Integer {
            default: Some(_), ..
        }
        | ParamKind::Enum { .. } => {
            return Err(CodegenError::Generator(format!(
                "group parameter `{}` has a default; members of a group are filters, absent by default",
                param.name
            )));
        }
    })
}

/// One struct per group, with a setter per member (and a plural one for multi-value members).
fn group_struct(name: &str, params: &[&Param]) -> Result<TokenStream, CodegenError> {
    let type_name = format_ident!("{name}");
    let mut fields = Vec::new();
    let mut setters = Vec::new();
    let mut empties = Vec::new();
    for param in params {
        let field = format_ident!("{}", param.name.to_snake_case());
        let ty = member_type(param)?;
        let description = doc(&format!("`{}`: {}", param.name, param.description));
        fields.push(quote!(#description pub #field: #ty,));
        let (item, multi) = match &param.kind {
            ParamKind::String | ParamKind::Strings => (
                quote!(::std::string::String),
                matches!(param.kind, ParamKind::Strings),
            ),
            ParamKind::Boolean => (quote!(bool), false),
            ParamKind::Integer { .. } => (quote!(i64), false),
            ParamKind::Enum { type_name, .. } => (model_type(type_name), false),
            ParamKind::Enums { type_name, .. } => (model_type(type_name), true),
        };
        if multi {
            let plural = format_ident!("{}s", param.name.to_snake_case());
            let one = doc(&format!(
                "Adds `{}` values: one value or any collection of them (values of one filter are ORed).",
                param.name
            ));
            let many = doc(&format!(
                "Adds every `{}` value of any iterator; [`{field}`](Self::{field}) takes one value or a collection.",
                param.name
            ));
            setters.push(quote! {
                #one
                pub fn #field(mut self, values: impl crate::values::IntoValues<#item>) -> Self {
                    self.#field.extend(crate::values::IntoValues::into_values(values));
                    self
                }
                #many
                pub fn #plural<V: ::std::convert::Into<#item>>(mut self, values: impl ::std::iter::IntoIterator<Item = V>) -> Self {
                    self.#field.extend(values.into_iter().map(::std::convert::Into::into));
                    self
                }
            });
            empties.push(quote!(self.#field.is_empty()));
        } else {
            let one = doc(&format!("Sets `{}`.", param.name));
            setters.push(quote! {
                #one
                pub fn #field(mut self, value: impl ::std::convert::Into<#item>) -> Self {
                    self.#field = ::std::option::Option::Some(value.into());
                    self
                }
            });
            empties.push(quote!(self.#field.is_none()));
        }
    }
    let keys: Vec<&str> = params.iter().map(|p| p.name.as_str()).collect();
    let struct_doc = doc(&format!(
        "The `{name}` parameter group: the spec's parameters marked `x-courier-group: {name}`, \
         shared by every operation that declares them. Values of one multi-value member are \
         ORed; members are ANDed; an empty member does not filter."
    ));
    Ok(quote! {
        #struct_doc
        #[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
        pub struct #type_name { #(#fields)* }

        impl #type_name {
            /// The query keys of this group, in the spec's order.
            pub const QUERY_KEYS: &'static [&'static str] = &[#(#keys),*];

            /// An empty group: no member filters.
            pub fn new() -> Self {
                Self::default()
            }

            /// Whether no member is set.
            pub fn is_empty(&self) -> bool {
                #(#empties)&&*
            }

            #(#setters)*
        }
    })
}

/// The table of operations.
fn operation_table(operations: &[Operation]) -> TokenStream {
    let rows = operations.iter().map(|op| {
        let id = &op.id;
        let rust_name = op.id.to_snake_case();
        let method = op.method.to_uppercase();
        let path = &op.path;
        let tag = &op.tag;
        let security = &op.security;
        let statuses = op.responses.iter().map(|(status, _)| *status);
        let idempotent = op.idempotent;
        let query = op
            .params
            .iter()
            .filter(|p| p.location == "query")
            .map(|p| {
                let name = &p.name;
                let multi = p.kind.is_multi_valued();
                let required = p.required;
                let values = p.kind.values();
                let alias_of = option(p.alias_of.as_deref());
                quote!(QueryKey { name: #name, multi_valued: #multi, required: #required, values: &[#(#values),*], alias_of: #alias_of, credential: false })
            })
            .chain(op.credential_query_keys.iter().map(|name| {
                quote!(QueryKey { name: #name, multi_valued: false, required: false, values: &[], alias_of: ::std::option::Option::None, credential: true })
            }));
        let alias_of = option(op.alias_of.as_deref());
        let path_params = op
            .params
            .iter()
            .filter(|p| p.location == "path")
            .map(|p| p.name.as_str());
        quote! {
            Operation {
                id: #id,
                rust_name: #rust_name,
                method: #method,
                path: #path,
                tag: #tag,
                security: &[#(#security),*],
                path_params: &[#(#path_params),*],
                query: &[#(#query),*],
                statuses: &[#(#statuses),*],
                idempotent: #idempotent,
                alias_of: #alias_of,
            },
        }
    });
    let caps = operations.iter().flat_map(|op| {
        let id = &op.id;
        op.params
            .iter()
            .filter(|p| p.location == "query")
            .filter_map(move |p| {
                let key = &p.name;
                p.max_items
                    .map(|cap| quote!(ValueCap { operation: #id, key: #key, max_values: #cap },))
            })
    });
    quote! {
        use crate::{Operation, QueryKey, ValueCap};

        /// Every operation of the spec, by `operationId`.
        pub const OPERATIONS: &[Operation] = &[#(#rows)*];

        /// Every query key with a cap on its values (`maxItems`), by operation; each spelling
        /// of a parameter has its own.
        pub const VALUE_CAPS: &[ValueCap] = &[#(#caps)*];
    }
}

/// Behind the `schemars` feature: every component schema of the spec with the JSON Schema of
/// the Rust type generated for it, so a check can hold the two to each other without a
/// hand-kept list of which type belongs to which component.
fn component_schema_table(spec: &Spec, models: &[ModelType]) -> Result<TokenStream, CodegenError> {
    let mut rows = Vec::new();
    for (component, schema) in spec.doc.components::<openapiv3::Schema>() {
        let schema = schema.map_err(|e| CodegenError::Generator(e.to_string()))?;
        let ty = if extensions::is_plain_string(schema) {
            quote!(::std::string::String)
        } else {
            let name = component.to_upper_camel_case();
            if !models.iter().any(|model| model.name == name) {
                return Err(CodegenError::Generator(format!(
                    "component `{component}` has no generated model type"
                )));
            }
            model_type(&name)
        };
        rows.push(quote!((#component, root_schema::<#ty>),));
    }
    Ok(quote! {
        /// Every component schema of the spec (`components.schemas`, in the spec's order) with
        /// the JSON Schema of the type generated for it (`String` for a component marked
        /// `x-courier-rust-type: String`).
        #[cfg(feature = "schemars")]
        pub const COMPONENT_SCHEMAS: &[(&str, fn() -> ::schemars::Schema)] = &[#(#rows)*];

        /// The root JSON Schema of `T`, as `schemars::schema_for!` makes it.
        #[cfg(feature = "schemars")]
        fn root_schema<T: ::schemars::JsonSchema>() -> ::schemars::Schema {
            ::schemars::schema_for!(T)
        }
    })
}

fn option(value: Option<&str>) -> TokenStream {
    match value {
        Some(value) => quote!(::std::option::Option::Some(#value)),
        None => quote!(::std::option::Option::None),
    }
}

/// `crates/models/src/facts.rs`: the groups and the operation table.
pub(crate) fn models(spec: &Spec, models: &[ModelType]) -> Result<TokenStream, CodegenError> {
    let operations = operations(spec, models)?;
    let mut items = Vec::new();
    for (name, params) in groups(&operations)? {
        items.push(group_struct(&name, &params)?);
    }
    items.push(operation_table(&operations));
    items.push(component_schema_table(spec, models)?);
    Ok(quote!(#(#items)*))
}

/// For the generated client of one interface: `.{group}(&Group)` on every request builder whose
/// operation takes the group, setting each member through the builder's own setter.
pub(crate) fn client_group_setters(
    spec: &Spec,
    models: &[ModelType],
    tag: &str,
) -> Result<TokenStream, CodegenError> {
    let operations = operations(spec, models)?;
    let mut items = Vec::new();
    // The client leaves out the official clients' aliases (see `progenitor_gen::operations_of`).
    for op in operations
        .iter()
        .filter(|op| op.tag == tag && op.alias_of.is_none())
    {
        let builder = format_ident!("{}", op.id.to_upper_camel_case());
        for group in op.groups() {
            let ty: TokenStream = format!("::courier_models::{group}").parse().expect("path");
            let setter = format_ident!("{}", setter_name(group));
            let members: Vec<_> = op
                .params
                .iter()
                .filter(|p| p.group.as_deref() == Some(group))
                .collect();
            let fields: Vec<_> = members
                .iter()
                .map(|p| format_ident!("{}", p.name.to_snake_case()))
                .collect();
            let sets = members
                .iter()
                .zip(&fields)
                .map(|(param, field)| match param.kind {
                    ParamKind::Strings | ParamKind::Enums { .. } => quote! {
                        if !#field.is_empty() {
                            request = request.#field(#field.clone());
                        }
                    },
                    _ => quote! {
                        if let ::std::option::Option::Some(value) = #field {
                            request = request.#field(value.clone());
                        }
                    },
                });
            let setter_doc = doc(&format!(
                "Sets every member of `{group}` that is set (the `x-courier-group` parameters of `{}`).",
                op.id
            ));
            items.push(quote! {
                impl<'a> builder::#builder<'a> {
                    #setter_doc
                    pub fn #setter(self, #setter: &#ty) -> Self {
                        let #ty { #(#fields),* } = #setter;
                        let mut request = self;
                        #(#sets)*
                        request
                    }
                }
            });
        }
    }
    Ok(quote!(#(#items)*))
}

/// The builder method and request field of a group: `DlqFilter` → `filter` (the part after
/// its subject), so call sites read `.filter(&f)` and `request.filter`.
pub(crate) fn setter_name(group: &str) -> String {
    let snake = group.to_snake_case();
    match snake.rsplit_once('_') {
        Some((_, last)) => last.to_owned(),
        None => snake,
    }
}
