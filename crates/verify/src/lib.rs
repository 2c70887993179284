//! Contract verification for the courier interface: is this answer, this base URL, this
//! implementation what `spec/openapi.yaml` says?
//!
//! # Design
//!
//! Two layers, each usable alone.
//!
//! **The validator** ([`Validator`]) checks one answer of one operation (status, headers, body
//! bytes) against the spec and lists every [`Violation`]: an undocumented status, a content
//! type other than the documented one, a body that is not JSON, a missing required field, a
//! wrong type, an enum value outside its set, a bound broken, an unknown field where the spec
//! forbids one, a missing documented header. Each violation names the operation id, the status,
//! the JSON pointer into the body, the rule broken (the JSON Schema keyword, or `status`,
//! `content-type`, `json`, ...) and the offending value, shortened to 80 characters.
//!
//! The validator is built from the spec, never from a hand-written copy of a schema:
//! `cargo xtask codegen` reads the spec through courier's one spec reader and writes the
//! response contract of every operation to `src/generated/contract.json` ([`Contract`]),
//! converting the OpenAPI 3.0 schema dialect to JSON Schema 2020-12 on the way. The crate
//! embeds that file, so it needs no YAML or OpenAPI parser at run time, and it is regenerated
//! (and checked by `cargo xtask codegen --check`) whenever the spec changes. Schemas are then
//! checked by the well-kept `jsonschema` crate.
//!
//! With `default-features = false` the crate is the validator alone: no HTTP client and no
//! async runtime, so a client can validate the answers it receives.
//!
//! ```
//! use courier_verify::Validator;
//!
//! let validator = Validator::courier().unwrap();
//! let mut headers = http::HeaderMap::new();
//! headers.insert("content-type", "application/json".parse().unwrap());
//! // A page whose entry lacks `workflowRunId` (renamed to `runId`).
//! let body = br#"{"messages": [{"dlqId": "1", "workflowUrl": "https://w", "runId": "r",
//!     "workflowCreatedAt": 1, "url": "https://s", "method": "POST", "header": {},
//!     "maxRetries": 3, "createdAt": 2}]}"#;
//! let violations = validator.validate("listWorkflowDlq", 200, &headers, body);
//! assert_eq!(violations.len(), 1);
//! assert_eq!(violations[0].pointer, "/messages/0/workflowRunId");
//! assert_eq!(violations[0].rule, "required");
//! ```

pub mod contract;
#[cfg(feature = "runner")]
pub mod report;
#[cfg(feature = "runner")]
mod runner;
pub mod validate;
pub mod violation;

pub use contract::Contract;
#[cfg(feature = "runner")]
pub use report::{Failure, Outcome, Report, ScenarioResult};
#[cfg(feature = "axum")]
pub use runner::serve_router;
#[cfg(feature = "runner")]
pub use runner::{AdminSeed, ConfigError, Seed, SeedFuture, Verifier, VerifierBuilder};
pub use validate::{ContractError, Validator};
pub use violation::{Place, Violation};

#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
