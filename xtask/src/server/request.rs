//! Each operation's request type: one field per parameter (a parameter group is one field of its
//! `courier_models` struct), and the parser that fills it from the path and query, rejecting
//! what the spec does not allow.

use super::{doc, model_path, string_list, type_names};
use crate::operations::{Operation, Param, ParamKind};
use heck::ToSnakeCase;
use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use std::collections::BTreeMap;

/// The other spellings of the parameter `name` of `op` (`x-courier-alias-of`).
fn aliases_of<'a>(op: &'a Operation, name: &str) -> Vec<&'a str> {
    op.params
        .iter()
        .filter(|p| p.alias_of.as_deref() == Some(name))
        .map(|p| p.name.as_str())
        .collect()
}

/// The name of the generated function that parses the parameter group `group`.
fn group_parser_name(group: &str) -> proc_macro2::Ident {
    format_ident!("parse_{}", group.to_snake_case())
}

/// The field initialisers of each parameter group of `op`, as its parser fills the group.
fn group_members(op: &Operation) -> BTreeMap<&str, TokenStream> {
    let mut members: BTreeMap<&str, Vec<TokenStream>> = BTreeMap::new();
    for param in op.params.iter().filter(|p| p.alias_of.is_none()) {
        if let Some(group) = &param.group {
            let field = format_ident!("{}", param.name.to_snake_case());
            let (_, parse) = field_parser(param, &aliases_of(op, &param.name));
            members
                .entry(group.as_str())
                .or_default()
                .push(quote!(#field: #parse,));
        }
    }
    members
        .into_iter()
        .map(|(group, fields)| (group, quote!(#(#fields)*)))
        .collect()
}

/// One parser per parameter group, shared by the operations that declare it, and the group's
/// field initialisers it holds. An operation whose group parses differently (another alias of a
/// member) keeps its own initialisers (see [`request_type`]).
pub(super) fn group_parsers(operations: &[Operation]) -> (TokenStream, BTreeMap<String, String>) {
    let mut shared: BTreeMap<String, TokenStream> = BTreeMap::new();
    for op in operations {
        for (group, members) in group_members(op) {
            shared.entry(group.to_owned()).or_insert(members);
        }
    }
    let functions = shared.iter().map(|(group, members)| {
        let name = group_parser_name(group);
        let ty = model_path(group);
        let description = doc(&format!(
            "Parses the `{group}` parameter group, for every operation that declares it."
        ));
        quote! {
            #description
            #[allow(unused_variables)]
            fn #name(path: &crate::runtime::PathParams, query: &crate::query::Query)
                -> ::std::result::Result<#ty, crate::runtime::Rejection>
            {
                ::std::result::Result::Ok(#ty { #members })
            }
        }
    });
    let functions = quote!(#(#functions)*);
    let shared = shared
        .into_iter()
        .map(|(group, members)| (group, members.to_string()))
        .collect();
    (functions, shared)
}

/// The request struct of one operation and its parser; `shared` holds the initialisers of each
/// group's shared parser (from [`group_parsers`]).
pub(super) fn request_type(op: &Operation, shared: &BTreeMap<String, String>) -> TokenStream {
    let (type_name, _) = type_names(op);
    let mut fields = Vec::new();
    let mut parsers = Vec::new();
    // A parameter group is one field of its generated `courier_models` struct, parsed by the
    // group's shared parser.
    for group in op.groups() {
        let field = format_ident!("{}", crate::facts::setter_name(group));
        let ty = model_path(group);
        let description = doc(&format!(
            "The `{group}` parameters (`x-courier-group` in the spec), shared with other operations."
        ));
        fields.push(quote!(#description pub #field: #ty,));
    }
    for param in op
        .params
        .iter()
        .filter(|p| p.alias_of.is_none() && p.group.is_none())
    {
        let field = format_ident!("{}", param.name.to_snake_case());
        let description = doc(&format!(
            "`{}` ({}): {}",
            param.name, param.location, param.description
        ));
        let (ty, parse) = field_parser(param, &aliases_of(op, &param.name));
        fields.push(quote!(#description pub #field: #ty,));
        parsers.push(quote!(#field: #parse,));
    }
    let members = group_members(op);
    for group in op.groups() {
        let field = format_ident!("{}", crate::facts::setter_name(group));
        let own = &members[group];
        if shared.get(group) == Some(&own.to_string()) {
            let parser = group_parser_name(group);
            parsers.push(quote!(#field: #parser(path, query)?,));
        } else {
            let ty = model_path(group);
            parsers.push(quote!(#field: #ty { #own },));
        }
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

/// A parameter's field type and the expression that parses it (`aliases`: other spellings whose
/// values it adds to).
fn field_parser(param: &Param, aliases: &[&str]) -> (TokenStream, TokenStream) {
    let name = &param.name;
    if param.location == "path" {
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
                let ty = model_path(type_name);
                let values = string_list(values);
                if *has_default {
                    (
                        ty.clone(),
                        quote!(query.enum_value::<#ty>(#name, #values)?.unwrap_or_default()),
                    )
                } else if param.required {
                    let missing = format!(
                        "`{name}` is required: give one of {}",
                        param.kind.values().join(", ")
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
                with_aliases(name, aliases, |key| {
                    capped(param, key, quote!(query.strings(#key)?))
                }),
            ),
            ParamKind::Enums { type_name, values } => {
                let ty = model_path(type_name);
                let values = string_list(values);
                (
                    quote!(::std::vec::Vec<#ty>),
                    with_aliases(name, aliases, |key| {
                        capped(param, key, quote!(query.enum_values::<#ty>(#key, #values)?))
                    }),
                )
            }
        }
    }
}

/// The values `read` gives of the spelling `key`, refused beyond the parameter's `maxItems`.
/// Each spelling is held to the cap on its own, as the spec declares each of them: a request
/// the spec allows (100 values of one spelling and 1 of the other) is never refused.
fn capped(param: &Param, key: &str, read: TokenStream) -> TokenStream {
    let Some(max_items) = param.max_items else {
        return read;
    };
    let name = format!("`{key}`");
    quote!(crate::query::at_most(#name, #max_items, #read)?)
}

/// Reads a multi-value parameter, then adds the values of each other spelling of it.
fn with_aliases(name: &str, aliases: &[&str], read: impl Fn(&str) -> TokenStream) -> TokenStream {
    let first = read(name);
    if aliases.is_empty() {
        return first;
    }
    let extend = aliases.iter().map(|alias| {
        let more = read(alias);
        quote!(values.extend(#more);)
    });
    quote!({
        let mut values = #first;
        #(#extend)*
        values
    })
}
