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
//! interface's semantics, which no schema says. Each scenario checks one rule of one operation
//! ([`catalogue`] lists them with their rules in words; [`rules::RULES`] maps every rule of the
//! interface and every decision observable from outside to its scenarios, or says why it is
//! not checked). Every answer on the way is validated against the contract too, and requests
//! are raw HTTP, so the validator sees the bytes the service sent.
//!
//! The rules come from the spec, never a second copy: which field each filter compares and
//! how (`x-courier-matches`), the list's order (`x-courier-order`), every bound, every period's
//! series, are read from the generated contract; the filter and credential scenarios are made
//! per filter and per operation from it.
//!
//! **What it checks against.** Nothing is written unless asked. With
//! [`VerifierBuilder::write`] and a [`Seed`] ([`AdminSeed`] through courier's admin API, or a
//! hook of your own fake, which takes the models' types) the run first seeds a fixture: failed
//! runs under a tag of its own, with every filter's values shared by some entries and not
//! others, ids whose byte and numeric orders differ, UTF-8, unicode and binary bodies, entries
//! without the optional fields. Every reading scenario then checks *completeness* against it
//! (every matching seeded entry is listed, not only that what is listed matches), and the
//! writing scenarios delete, bulk delete and cancel entries they seeded themselves, then look
//! for them in get-one and in every list, filtered and not. Without writing, the reading
//! scenarios derive their values from what the service already lists.
//!
//! **Four outcomes.** *Passed*; *failed*, with each failing request as a curl command (real
//! credentials masked, deliberately wrong ones shown), the rule, what was expected and what
//! came, and the JSON pointer; *inconclusive*, when a scenario could not check its rule (an
//! empty DLQ without writing, a seed that offers no index) and says why; *not implemented*,
//! when the operation it checks answered 501. A run passes when nothing failed and nothing was
//! inconclusive, unless [`VerifierBuilder::allow_inconclusive`] allows that; not implemented
//! operations never fail a run, so a partial fake gets an honest green report of what it
//! covers. A seed that fails fails the scenarios that needed it, and only those.
//!
//! **Polite.** 429 answers are waited out as their `Retry-After` or reset headers say (counted
//! in the report; a 429 that outlasts [`VerifierBuilder::rate_limit_patience`] is what the
//! request got), requests can be paced ([`VerifierBuilder::max_requests_per_second`]), each
//! answer is read up to a cap ([`VerifierBuilder::max_answer_bytes`]) within the request's
//! timeout, which covers the body. Scenarios are chosen and left out by name
//! ([`VerifierBuilder::scenarios`], [`VerifierBuilder::exclude`]); those that change the
//! service token (`rotation`), the account's limits for a moment (`retention`, `dlq-size`) or
//! spend its budget (`rate-limit`) run only when named.
//!
//! The [`Report`] renders as a table ([`Report::to_table`]), JSON ([`Report::to_json`]) or
//! JUnit XML for CI ([`Report::to_junit`]); a server's bytes never reach either raw.
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
//! complete in-memory fake verified this way, with 46 defects an implementer makes, each
//! caught by the scenario named for it.
//!
//! ```ignore
//! struct MySeed(std::sync::Arc<MyState>);
//!
//! impl courier_verify::Seed for MySeed {
//!     fn insert_dlq(
//!         &self,
//!         entries: Vec<courier_models::FailedWorkflowRun>,
//!     ) -> courier_verify::SeedFuture<'_, Vec<String>> {
//!         let ids = self.0.store(entries); // keeps each entry's dlqId, answers them in order
//!         Box::pin(async move { Ok(ids) })
//!     }
//! }
//!
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
pub mod rules;
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
pub use runner::{
    AdminSeed, ConfigError, DlqLimits, ScenarioInfo, Seed, SeedFuture, Verifier, VerifierBuilder,
    catalogue,
};
pub use validate::{ContractError, Validator};
pub use violation::{Place, Violation};

#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
