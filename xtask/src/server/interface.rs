//! The traits (one per interface, one method per operation), their route handlers and routers.
//! Each handler only names its operation's parser and trait method; the shared body
//! (authenticate, parse, call) is `courier-server`'s hand-written `dispatch::serve`.

use super::{doc, type_names};
use crate::operations::Operation;
use heck::ToSnakeCase;
use proc_macro2::TokenStream;
use quote::{format_ident, quote};

/// The interfaces of the spec: the tag, the trait it becomes and how it authenticates.
pub(super) struct Interface {
    pub tag: &'static str,
    trait_name: &'static str,
    router_fn: &'static str,
    credentials: &'static str,
    extract_credentials: &'static str,
}

pub(super) const INTERFACES: [Interface; 2] = [
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

pub(super) fn interface_code(interface: &Interface, ops: &[&Operation]) -> TokenStream {
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
        let (request, response) = type_names(op);
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
                incoming: crate::dispatch::Incoming,
            ) -> ::axum::response::Response {
                crate::dispatch::serve(
                    incoming,
                    #extract,
                    |credentials| api.authenticate(credentials),
                    #request::parse,
                    |principal, request| api.#method(principal, request),
                ).await
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
