//! Generates `courier-client`: one progenitor client per interface, reusing the models' types.

use crate::models::ModelType;
use crate::{CodegenError, Spec};
use proc_macro2::TokenStream;
use progenitor::{GenerationSettings, Generator, HooksMode, InterfaceStyle, TagStyle, TypeImpl};

/// One of the two interfaces: its tag in the spec and where its client goes.
pub struct Interface {
    pub tag: &'static str,
    pub client_path: &'static str,
    pub client_title: &'static str,
    /// Hand-written type in `courier-client` that carries credentials and retry policy; its
    /// `ClientHooks` implementation applies them to every request.
    inner_type: &'static str,
}

pub const INTERFACES: [Interface; 2] = [
    Interface {
        tag: "messaging",
        client_path: "crates/client/src/generated/messaging.rs",
        client_title: "courier-client: messaging interface (tag `messaging`), progenitor builder client",
        inner_type: "crate::hooks::MessagingInner",
    },
    Interface {
        tag: "management",
        client_path: "crates/client/src/generated/management.rs",
        client_title: "courier-client: management interface (tag `management`), progenitor builder client",
        inner_type: "crate::hooks::ManagementInner",
    },
];

/// The spec restricted to the operations of one tag.
pub fn operations_of(spec: &Spec, tag: &str) -> openapiv3::OpenAPI {
    let mut openapi = spec.openapi.clone();
    openapi.paths.paths.retain(|_, item| {
        item.as_item()
            .is_some_and(|item| item.iter().any(|(_, op)| op.tags.iter().any(|t| t == tag)))
    });
    openapi
}

pub fn client(
    spec: &Spec,
    interface: &Interface,
    models: &[ModelType],
) -> Result<TokenStream, CodegenError> {
    let mut settings = GenerationSettings::new();
    let inner: TokenStream = interface.inner_type.parse().expect("inner type is a path");
    settings
        .with_interface(InterfaceStyle::Builder)
        .with_tag(TagStyle::Merged)
        .with_inner_type(inner)
        .with_hooks(HooksMode::Expected)
        .with_map_type("::std::collections::BTreeMap");
    for name in crate::models::plain_string_components(spec) {
        settings.with_replacement(name, "::std::string::String", std::iter::empty());
    }
    for ty in models {
        let mut impls = Vec::new();
        if ty.is_string_enum {
            impls.extend([TypeImpl::FromStr, TypeImpl::Display]);
        }
        if ty.has_default {
            impls.push(TypeImpl::Default);
        }
        settings.with_replacement(
            &ty.name,
            format!("::courier_models::{}", ty.name),
            impls.into_iter(),
        );
    }
    let mut generator = Generator::new(&settings);
    generator
        .generate_tokens(&operations_of(spec, interface.tag))
        .map_err(|e| CodegenError::Generator(format!("{} client: {e}", interface.tag)))
}
