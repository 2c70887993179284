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
//! [`Validator::decode`] decodes a JSON body into the caller's type and validates it in the
//! same pass: a proxy around serde_json's deserializer checks each value against the schema of
//! its place as the typed `Deserialize` impl reads it, with no `serde_json::Value` tree. When
//! that pass finds nothing the answer is valid; otherwise the full validator runs and writes
//! the report, so reports are always the full validator's and only a valid answer gets fast.
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
//! **The scenario runner** (feature `runner`, on by default) holds a service to the
//! interface's semantics, which no schema says: every entry listed with a filter matches it
//! (the filter values are taken from the entries listed, so it works on any data), a cursor
//! walk neither repeats nor skips, the page size is honoured, entries come in ascending
//! `dlqId` order, a listed id can be got, what does not exist is 404, a request without valid
//! credentials is 401, a bad parameter is 400, every error body is `{"error": string}`, and
//! every statistics series has the length and spacing the spec's `x-courier-series` gives for
//! its period. Every answer on the way is validated against the contract too. Requests are
//! raw HTTP, so the validator sees the bytes the service sent, not what a client decoded.
//!
//! Nothing is written unless asked: [`VerifierBuilder::write`] adds the writing scenarios
//! (delete one, bulk delete by ids and by filter, cancel a run, writes without credentials),
//! which need a [`Seed`] to create their own entries: [`AdminSeed`] through courier's admin
//! API (`courier serve --admin-token`), or a seeding hook of your own fake. Each writing
//! scenario creates entries under a tag of its own and touches only those.
//!
//! The [`Report`] lists every scenario as passed, failed or skipped (with the reason: an
//! empty DLQ, no seed). A failure names the request as a curl command with the credentials
//! masked, and its [`Violation`]s. Render it with [`Report::to_table`] on a terminal,
//! [`Report::to_json`], or [`Report::to_junit`] for CI.
//!
//! # Verifying a base URL
//!
//! ```no_run
//! # async fn example() -> Result<(), courier_verify::ConfigError> {
//! let report = courier_verify::Verifier::builder("https://dlq.example.com")
//!     .service_token("<SERVICE_TOKEN>")
//!     .management_credentials("<customer id>", "<management key>")
//!     .build()?
//!     .run()
//!     .await;
//! println!("{}", report.to_table());
//! assert!(report.passed());
//! # Ok(())
//! # }
//! ```
//!
//! # Verifying your implementation from `cargo test`
//!
//! With the feature `axum`, `serve_router` serves the router of your
//! `courier_server::MessagingApi` / `ManagementApi` implementation on an ephemeral port; pass
//! your seeding hook and turn writing on. `examples/fake-service` in courier's repository is a
//! complete in-memory fake verified this way, and a deliberately wrong one whose tests show
//! the report.
//!
//! ```ignore
//! let base_url = courier_verify::serve_router(my_router).await?;
//! let report = courier_verify::Verifier::builder(base_url)
//!     .service_token("my-token")
//!     .management_credentials("me@example.com", "my-key")
//!     .seed(std::sync::Arc::new(MySeed(state)))
//!     .write(true)
//!     .build()?
//!     .run()
//!     .await;
//! assert!(report.passed(), "{}", report.to_table());
//! ```
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
mod decode;
mod fast;
#[cfg(feature = "runner")]
pub mod report;
#[cfg(feature = "runner")]
mod runner;
pub mod validate;
pub mod violation;

pub use contract::Contract;
pub use decode::Decoded;
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
