//! Rewrites of the generators' output that neither typify 0.8 nor progenitor 0.15 can be told
//! to do: readable enum variant names (`x-enum-varnames`), a client `send()` that returns the
//! client crate's one error type, and answers decoded by the client crate rather than by
//! progenitor. All are pure token rewrites, so output stays deterministic.

use crate::{CodegenError, Spec};
use courier_spec::{extensions, openapiv3};
use proc_macro2::{Group, Ident, TokenStream, TokenTree};
use quote::ToTokens;
use std::collections::BTreeMap;

/// `x-enum-varnames` of every component schema that has one: typify name → (wire value →
/// variant name). typify 0.8 derives variant names from the values alone (`1d` → `X1d`, the
/// empty string → `X`) and has no setting to override them.
pub(crate) fn enum_variant_names(
    spec: &Spec,
) -> Result<BTreeMap<String, BTreeMap<String, String>>, CodegenError> {
    let mut renames = BTreeMap::new();
    for (name, schema) in spec.doc.components::<openapiv3::Schema>() {
        let Ok(schema) = schema else { continue };
        let Some(names) = extensions::enum_variant_names(schema) else {
            continue;
        };
        let values = courier_spec::string_enum(schema);
        let Some(names) = names.filter(|_| !values.is_empty()) else {
            return Err(CodegenError::Generator(format!(
                "{name}: x-enum-varnames needs a string `enum` and a list of string names"
            )));
        };
        if values.len() != names.len() {
            return Err(CodegenError::Generator(format!(
                "{name}: x-enum-varnames has {} names for {} enum values",
                names.len(),
                values.len()
            )));
        }
        let mut map = BTreeMap::new();
        for (value, variant) in values.into_iter().zip(names) {
            if syn::parse_str::<Ident>(variant).is_err() {
                return Err(CodegenError::Generator(format!(
                    "{name}: `{variant}` in x-enum-varnames is not a Rust identifier"
                )));
            }
            map.insert(value.to_owned(), variant.to_owned());
        }
        renames.insert(heck::ToUpperCamelCase::to_upper_camel_case(name), map);
    }
    Ok(renames)
}

/// The wire value of an enum variant: its `#[serde(rename = "...")]`, else its name.
fn wire_value(variant: &syn::Variant) -> String {
    for attr in &variant.attrs {
        if !attr.path().is_ident("serde") {
            continue;
        }
        let mut renamed = None;
        let _ = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("rename") {
                let value: syn::LitStr = meta.value()?.parse()?;
                renamed = Some(value.value());
            }
            Ok(())
        });
        if let Some(renamed) = renamed {
            return renamed;
        }
    }
    variant.ident.to_string()
}

/// Replaces every identifier in `old_to_new` throughout `tokens`.
fn rename_idents(tokens: TokenStream, old_to_new: &BTreeMap<String, String>) -> TokenStream {
    tokens
        .into_iter()
        .map(|tree| match tree {
            TokenTree::Ident(ident) => match old_to_new.get(&ident.to_string()) {
                Some(new) => TokenTree::Ident(Ident::new(new, ident.span())),
                None => TokenTree::Ident(ident),
            },
            TokenTree::Group(group) => {
                let mut renamed =
                    Group::new(group.delimiter(), rename_idents(group.stream(), old_to_new));
                renamed.set_span(group.span());
                TokenTree::Group(renamed)
            }
            other => other,
        })
        .collect()
}

fn is_type_named(ty: &syn::Type, name: &str) -> bool {
    matches!(ty, syn::Type::Path(path) if path.path.segments.last().is_some_and(|s| s.ident == name))
}

/// Renames the variants of the enums in `renames` in typify's output: the enum itself and every
/// `impl ... for Enum` (Display, FromStr, Default), where each old variant name can only mean
/// that enum's variant.
pub(crate) fn rename_enum_variants(
    tokens: TokenStream,
    renames: &BTreeMap<String, BTreeMap<String, String>>,
) -> Result<TokenStream, CodegenError> {
    let mut file: syn::File = syn::parse2(tokens)
        .map_err(|e| CodegenError::Generator(format!("models do not parse: {e}")))?;
    for (type_name, by_value) in renames {
        let Some(old_to_new) = file.items.iter().find_map(|item| match item {
            syn::Item::Enum(item) if item.ident == type_name => Some(
                item.variants
                    .iter()
                    .filter_map(|variant| {
                        by_value
                            .get(&wire_value(variant))
                            .map(|new| (variant.ident.to_string(), new.clone()))
                    })
                    .collect::<BTreeMap<_, _>>(),
            ),
            _ => None,
        }) else {
            return Err(CodegenError::Generator(format!(
                "x-enum-varnames on {type_name}, which typify did not generate as an enum"
            )));
        };
        if old_to_new.len() != by_value.len() {
            return Err(CodegenError::Generator(format!(
                "{type_name}: x-enum-varnames names values the enum does not have"
            )));
        }
        for item in &mut file.items {
            let applies = match item {
                syn::Item::Enum(item) => item.ident == type_name,
                syn::Item::Impl(item) => is_type_named(&item.self_ty, type_name),
                _ => false,
            };
            if applies {
                let renamed = rename_idents(item.to_token_stream(), &old_to_new);
                *item = syn::parse2(renamed).map_err(|e| {
                    CodegenError::Generator(format!(
                        "{type_name}: renamed item does not parse: {e}"
                    ))
                })?;
            }
        }
    }
    Ok(file.into_token_stream())
}

/// In every request builder of a progenitor client, the generated `send()` becomes
/// `send_raw()` (progenitor's own error type, for callers who want the raw response) and a new
/// `send()` returns the same value with `crate::CourierError`, so users meet one error type.
pub(crate) fn client_send_returns_courier_error(
    tokens: TokenStream,
) -> Result<TokenStream, CodegenError> {
    let mut file: syn::File = syn::parse2(tokens)
        .map_err(|e| CodegenError::Generator(format!("client does not parse: {e}")))?;
    let mut rewritten = 0;
    for block in builder_impls(&mut file) {
        let mut added = Vec::new();
        for member in &mut block.items {
            let syn::ImplItem::Fn(function) = member else {
                continue;
            };
            if function.sig.ident != "send" {
                continue;
            }
            let ok_type = success_type(&function.sig.output).ok_or_else(|| {
                CodegenError::Generator("a builder's send() does not return Result<T, E>".into())
            })?;
            function.sig.ident = Ident::new("send_raw", function.sig.ident.span());
            function.attrs.retain(|attr| !attr.path().is_ident("doc"));
            function.attrs.push(syn::parse_quote!(
                #[doc = "Sends the request; errors keep progenitor's own type (see [`send`](Self::send))."]
            ));
            added.push(syn::parse_quote! {
                #[doc = "Sends the request. Every failure is a [`crate::CourierError`]."]
                pub async fn send(self) -> ::std::result::Result<#ok_type, crate::CourierError> {
                    self.send_raw().await.map_err(crate::CourierError::from)
                }
            });
            rewritten += 1;
        }
        block.items.extend(added);
    }
    if rewritten == 0 {
        return Err(CodegenError::Generator(
            "found no builder send() to wrap: has progenitor's output changed?".into(),
        ));
    }
    Ok(file.into_token_stream())
}

/// Every `ResponseValue::from_response(response)` of a progenitor client becomes
/// `client.decode_response(response, &info)`: progenitor decodes after its hooks, so a hook
/// that validated the body would parse it a second time. courier-client's own decoder
/// (`crates/client/src/hooks.rs`) decodes once, validating on the way when asked to.
pub(crate) fn client_decodes_through_hooks(
    tokens: TokenStream,
) -> Result<TokenStream, CodegenError> {
    let mut rewritten = 0;
    let tokens = decode_through_hooks(tokens, &mut rewritten);
    if rewritten == 0 {
        return Err(CodegenError::Generator(
            "found no ResponseValue::from_response to reroute: has progenitor's output changed?"
                .into(),
        ));
    }
    Ok(tokens)
}

fn decode_through_hooks(tokens: TokenStream, rewritten: &mut usize) -> TokenStream {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    let mut out = TokenStream::new();
    let mut index = 0;
    while index < trees.len() {
        if let [
            TokenTree::Ident(ty),
            TokenTree::Punct(first),
            TokenTree::Punct(second),
            TokenTree::Ident(function),
            TokenTree::Group(arguments),
            ..,
        ] = &trees[index..]
            && ty == "ResponseValue"
            && first.as_char() == ':'
            && second.as_char() == ':'
            && function == "from_response"
            && arguments.stream().to_string() == "response"
        {
            out.extend(quote::quote!(client.decode_response(response, &info)));
            *rewritten += 1;
            index += 5;
            continue;
        }
        out.extend([match &trees[index] {
            TokenTree::Group(group) => {
                let mut inner = Group::new(
                    group.delimiter(),
                    decode_through_hooks(group.stream(), rewritten),
                );
                inner.set_span(group.span());
                TokenTree::Group(inner)
            }
            other => other.clone(),
        }]);
        index += 1;
    }
    out
}

/// progenitor's setter of a multi-value query parameter takes `V: TryInto<Vec<T>>`, so one value
/// (`.label("billing")`) does not compile. Each such setter of the `builder` module is rewritten
/// to take `V: crate::values::IntoValues<T>` (one value, an array, a `Vec`, a slice), which never
/// fails; the field keeps progenitor's `Result<Option<Vec<T>>, String>`.
pub(crate) fn multi_value_setters_take_one_or_many(
    tokens: TokenStream,
) -> Result<TokenStream, CodegenError> {
    let mut file: syn::File = syn::parse2(tokens)
        .map_err(|e| CodegenError::Generator(format!("client does not parse: {e}")))?;
    for block in builder_impls(&mut file) {
        for member in &mut block.items {
            let syn::ImplItem::Fn(function) = member else {
                continue;
            };
            let Some(element) = vec_bound(&function.sig.generics) else {
                continue;
            };
            let field = function.sig.ident.clone();
            function.sig.generics.where_clause =
                Some(syn::parse_quote!(where V: crate::values::IntoValues<#element>));
            function.block = syn::parse_quote!({
                self.#field = ::std::result::Result::Ok(::std::option::Option::Some(
                    crate::values::IntoValues::into_values(value),
                ));
                self
            });
        }
    }
    Ok(file.into_token_stream())
}

/// Every `impl` block of progenitor's `builder` module, where the request builders live.
fn builder_impls(file: &mut syn::File) -> impl Iterator<Item = &mut syn::ItemImpl> {
    file.items
        .iter_mut()
        .filter_map(|item| match item {
            syn::Item::Mod(module) if module.ident == "builder" => module.content.as_mut(),
            _ => None,
        })
        .flat_map(|(_, items)| items.iter_mut())
        .filter_map(|item| match item {
            syn::Item::Impl(block) => Some(block),
            _ => None,
        })
}

/// `T` of a `where V: std::convert::TryInto<::std::vec::Vec<T>>` clause.
fn vec_bound(generics: &syn::Generics) -> Option<syn::Type> {
    let predicate = generics.where_clause.as_ref()?.predicates.first()?;
    let syn::WherePredicate::Type(predicate) = predicate else {
        return None;
    };
    let syn::TypeParamBound::Trait(bound) = predicate.bounds.first()? else {
        return None;
    };
    let Some(syn::Type::Path(target)) = first_type_argument(&bound.path, "TryInto") else {
        return None;
    };
    first_type_argument(&target.path, "Vec").cloned()
}

/// The first type argument of `path` when its last segment is `name` (`Vec<T>` → `T`).
fn first_type_argument<'a>(path: &'a syn::Path, name: &str) -> Option<&'a syn::Type> {
    let last = path.segments.last()?;
    if last.ident != name {
        return None;
    }
    let syn::PathArguments::AngleBracketed(arguments) = &last.arguments else {
        return None;
    };
    match arguments.args.first()? {
        syn::GenericArgument::Type(ty) => Some(ty),
        _ => None,
    }
}

/// `T` of a `-> Result<T, E>` return type.
fn success_type(output: &syn::ReturnType) -> Option<syn::Type> {
    let syn::ReturnType::Type(_, ty) = output else {
        return None;
    };
    let syn::Type::Path(path) = ty.as_ref() else {
        return None;
    };
    first_type_argument(&path.path, "Result").cloned()
}
