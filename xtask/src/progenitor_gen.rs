//! Generates `courier-client`: one progenitor client per interface, reusing the models' types.

use crate::models::ModelType;
use crate::{CodegenError, Spec};
use courier_spec::{extensions, openapiv3};
use proc_macro2::TokenStream;
use progenitor::{GenerationSettings, Generator, HooksMode, InterfaceStyle, TagStyle, TypeImpl};

/// One of the two interfaces: its tag in the spec and where its client goes.
pub(crate) struct Interface {
    pub tag: &'static str,
    pub client_path: &'static str,
    pub client_title: &'static str,
    /// Hand-written type in `courier-client` that carries credentials and retry policy; its
    /// `ClientHooks` implementation applies them to every request.
    inner_type: &'static str,
}

pub(crate) const INTERFACES: [Interface; 2] = [
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

/// Whether an operation only re-exposes another one for the official clients
/// (`x-courier-compat: {alias-of: ...}`): the Rust client calls the original instead.
fn is_operation_alias(operation: &openapiv3::Operation) -> bool {
    extensions::operation_alias_of(operation).is_some()
}

/// Whether a parameter is another spelling of one the operation also declares
/// (`x-courier-alias-of`): the Rust client sends the original spelling only.
fn is_parameter_alias(
    spec: &courier_spec::Spec,
    parameter: &openapiv3::ReferenceOr<openapiv3::Parameter>,
) -> bool {
    spec.parameter(parameter)
        .is_ok_and(|parameter| extensions::parameter_alias_of(parameter).is_some())
}

/// The spec restricted to the operations of one tag, without the official clients' aliases.
fn operations_of(spec: &Spec, tag: &str) -> openapiv3::OpenAPI {
    let mut openapi = spec.openapi().clone();
    for item in openapi.paths.paths.values_mut() {
        let openapiv3::ReferenceOr::Item(item) = item else {
            continue;
        };
        for slot in [
            &mut item.get,
            &mut item.put,
            &mut item.post,
            &mut item.delete,
            &mut item.patch,
        ] {
            if slot
                .as_ref()
                .is_some_and(|op| is_operation_alias(op) || !op.tags.iter().any(|t| t == tag))
            {
                *slot = None;
            }
            if let Some(operation) = slot.as_mut() {
                operation
                    .parameters
                    .retain(|parameter| !is_parameter_alias(&spec.doc, parameter));
            }
        }
    }
    // progenitor emits methods in path order; sorted, the client reads the same whatever the
    // order of the document.
    openapi.paths.paths.sort_keys();
    openapi.paths.paths.retain(|_, item| {
        item.as_item()
            .is_some_and(|item| item.iter().next().is_some())
    });
    openapi
}

pub(crate) fn client(
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
