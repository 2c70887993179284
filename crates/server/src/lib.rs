//! The server half of the courier interface: implement two traits, get a router held to the spec.
//!
//! `cargo xtask codegen` generates, from `spec/openapi.yaml`:
//!
//! - per operation, a request type (`ListWorkflowDlqRequest`, ...) with every path and query
//!   parameter parsed, defaulted and validated, and a response enum (`ListWorkflowDlqResponse`)
//!   with one variant per documented status carrying that status's body type;
//! - one trait per interface, [`MessagingApi`] and [`ManagementApi`], with one method per
//!   operation;
//! - one router per interface, [`messaging_router`] and [`management_router`].
//!
//! The hand-written rest of this crate is what the generated code is built from: [`query`]
//! (the multi-value forms of `docs/decisions.md#d12-multi-value-encoding`, unknown keys refused),
//! [`auth`] (credential extraction per security scheme) and [`runtime`] (JSON errors, 404/405/413,
//! panics turned into 500s).
//!
//! A request flows: credentials extracted ([`auth`]) → `authenticate` on the trait → parameters
//! parsed ([`query`]) → the operation's method → its response enum → HTTP. An implementation
//! cannot return a status the spec does not document, because the enum has no variant for it:
//!
//! ```compile_fail
//! // 409 is not a documented status of getUrlGroup, so there is no such variant.
//! let _ = courier_server::GetUrlGroupResponse::Conflict(courier_server::runtime::error_body("x"));
//! ```
//!
//! ```
//! // A documented one compiles.
//! let _ = courier_server::GetUrlGroupResponse::NotFound(courier_server::runtime::error_body("x"));
//! ```

#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs)]
#![forbid(unsafe_code)]

/// The README's program, run as a doctest so the example on crates.io cannot rot.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

pub mod auth;
pub mod query;
pub mod runtime;

mod dispatch;
#[rustfmt::skip]
#[allow(clippy::all)]
mod generated;

pub use auth::{ManagementCredentials, MessagingCredentials};
pub use generated::*;
pub use runtime::{Rejection, Unauthorized, finish};

use std::sync::Arc;

/// Both interfaces on one router (their paths do not clash), finished with the common layers.
pub fn router<M: MessagingApi, G: ManagementApi>(
    messaging: Arc<M>,
    management: Arc<G>,
) -> axum::Router {
    finish(messaging_router(messaging).merge(management_router(management)))
}
