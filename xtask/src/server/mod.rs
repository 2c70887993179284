//! Generates `courier-server`: per-operation request types, response enums, traits and routers.
//!
//! The output leans on the hand-written runtime in `crates/server/src` (query parsing, credential
//! extraction, JSON errors, the shared handler body); this module only turns each operation of
//! the spec into the code that wires those pieces together, so a change to the spec changes the
//! trait the compiler holds every implementation to.
//!
//! In rooms: `request` writes each operation's parsed request type, `responses` its response
//! enum (and the conversions of an alias), `interface` the traits, handlers and routers; here
//! the entry point and what they share.

mod interface;
mod request;
mod responses;

use crate::models::ModelType;
use crate::operations::{Operation, operations};
use crate::{CodegenError, Spec};
use heck::ToUpperCamelCase;
use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

fn err(message: impl Into<String>) -> CodegenError {
    CodegenError::Generator(format!("server: {}", message.into()))
}

fn doc(text: &str) -> TokenStream {
    let lines = text.trim().lines().map(|line| format!(" {line}"));
    quote!(#(#[doc = #lines])*)
}

fn string_list(values: &[String]) -> TokenStream {
    quote!(&[#(#values),*])
}

/// A `courier_models` type by its Rust name.
fn model_path(type_name: &str) -> TokenStream {
    format!("::courier_models::{type_name}")
        .parse()
        .expect("a type name")
}

/// The names of an operation's generated request and response types.
fn type_names(op: &Operation) -> (proc_macro2::Ident, proc_macro2::Ident) {
    let name = op.id.to_upper_camel_case();
    (
        format_ident!("{name}Request"),
        format_ident!("{name}Response"),
    )
}

pub(crate) fn generate(spec: &Spec, models: &[ModelType]) -> Result<TokenStream, CodegenError> {
    let operations = operations(spec, models)?;
    let (group_parsers, shared) = request::group_parsers(&operations);
    let mut items = vec![group_parsers];
    for op in &operations {
        items.push(request::request_type(op, &shared));
        items.push(responses::response_type(op)?);
    }
    for op in operations.iter().filter(|op| op.alias_of.is_some()) {
        items.push(responses::alias_conversions(op, &operations)?);
    }
    for interface in &interface::INTERFACES {
        let ops: Vec<&Operation> = operations
            .iter()
            .filter(|op| op.tag == interface.tag)
            .collect();
        items.push(interface::interface_code(interface, &ops));
    }
    if let Some(op) = operations
        .iter()
        .find(|op| !interface::INTERFACES.iter().any(|i| i.tag == op.tag))
    {
        return Err(err(format!(
            "operation `{}` has tag `{}`, which no server trait serves",
            op.id, op.tag
        )));
    }
    let literal = Literal::usize_unsuffixed(operations.len());
    let dispatch = operations.iter().map(|op| {
        let id = &op.id;
        let (request, _) = type_names(op);
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
