//! Each operation's response enum (one variant per documented status), and the conversions that
//! let an alias (`x-courier-compat: {alias-of: ...}`) answer with the original's code.

use super::{doc, err, model_path, type_names};
use crate::CodegenError;
use crate::operations::Operation;
use heck::{ToShoutySnakeCase, ToSnakeCase, ToUpperCamelCase};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};

/// The response variant of a status and its `StatusCode` constant, both named after the
/// status's reason phrase (`404` → `NotFound`, `StatusCode::NOT_FOUND`).
pub(super) fn status_variant(
    status: u16,
) -> Result<(proc_macro2::Ident, TokenStream), CodegenError> {
    let reason = http::StatusCode::from_u16(status)
        .ok()
        .and_then(|code| code.canonical_reason())
        .ok_or_else(|| {
            err(format!(
                "status {status} has no reason phrase to name it by"
            ))
        })?;
    let (name, constant) = (reason.to_upper_camel_case(), reason.to_shouty_snake_case());
    let constant = format_ident!("{}", constant);
    Ok((
        format_ident!("{}", name),
        quote!(::axum::http::StatusCode::#constant),
    ))
}

/// The response enum of one operation: one variant per documented status.
pub(super) fn response_type(op: &Operation) -> Result<TokenStream, CodegenError> {
    let (_, type_name) = type_names(op);
    let mut variants = Vec::new();
    let mut arms = Vec::new();
    for (status, body) in &op.responses {
        let (variant, code) = status_variant(*status)?;
        let status_doc = format!(" HTTP {status}.");
        match body {
            Some(body) if body.preserialized => {
                let ty = model_path(&body.model);
                let status_doc = format!(
                    "{status_doc} The body may be given pre-serialised: see [`crate::runtime::JsonBody`]."
                );
                variants
                    .push(quote!(#[doc = #status_doc] #variant(crate::runtime::JsonBody<#ty>),));
                arms.push(quote!(Self::#variant(body) => body.into_response_with(#code),));
            }
            Some(body) => {
                let ty = model_path(&body.model);
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

/// For an operation that re-exposes another (`x-courier-compat: {alias-of: ...}`): its request
/// converts into the original's (every field of the original has its namesake) and the original's
/// response into its own (every status of the original is documented here too), so an
/// implementation answers the alias with the very code of the original.
pub(super) fn alias_conversions(
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
    let (alias_request, alias_response) = type_names(alias);
    let (original_request, original_response) = type_names(original);
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
