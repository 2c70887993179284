//! Conformance tests for courier's wire contract: a change to the spec, the generator or the
//! models that alters a wire shape cannot slip through unnoticed.
//!
//! This crate ships nothing; it is run with `cargo test -p courier-conformance`. Its tests
//! guard four things:
//!
//! - **Snapshots** (`tests/it/snapshots.rs`): for every shape of part 2 of the interface and the
//!   list (4.1) and bulk-delete (4.3) responses, the JSON Schema of the generated type
//!   (`schemars::schema_for!`) and a canonical, fully populated instance as JSON are pinned
//!   with insta under `tests/it/snapshots/`. Snapshot names start with the section they pin
//!   (`2_2_single_failed_run_schema`, `2_2_single_failed_run_instance`, ...). Each instance
//!   sets every optional field, carries non-UTF-8 bytes in its base64 fields and unicode in its
//!   text, and round-trips: the committed snapshot's JSON deserialises into the type and
//!   serialises back to the same JSON.
//! - **Spec against models** (`tests/it/spec_models.rs`, [`models`]): every component schema of
//!   `spec/openapi.yaml` agrees with the schema of its generated type in property names, JSON
//!   types, formats, required sets and enum values; the component → type table is
//!   generated into courier-models (`COMPONENT_SCHEMAS`), so it covers every component.
//! - **Interface against spec** (`tests/it/interface.rs`, [`interface`], [`contract`]): the field
//!   lists of part 2, the operations and parameters of part 4, the states of part 3 and the
//!   error statuses of part 7 of the interface document are parsed from it (not copied)
//!   and must all be in the spec with compatible types.
//! - **Realistic payloads** (`tests/it/fixtures.rs`, `tests/fixtures/*.json`): payloads in the
//!   hosted service's style read into the models without loss, unknown fields tolerated.
//!
//! Both spec checks take the spec as a typed value (read through `courier-spec`); the tests run
//! them on mutated copies (see [`mutate`]: a property renamed, retyped, made optional, dropped)
//! and assert the failure names the field.
//!
//! # Reviewing a changed snapshot
//!
//! A change to a wire shape shows up as a failing snapshot assertion with a diff. CI runs with
//! `CI=true`, where a missing or changed snapshot fails the build and nothing is written. Locally:
//!
//! 1. `cargo test -p courier-conformance` writes the new version next to the old one as
//!    `tests/it/snapshots/*.snap.new`.
//! 2. `cargo insta review` (from `cargo install cargo-insta`) shows each diff and accepts or
//!    rejects it; `cargo insta accept` accepts all of them. Without cargo-insta,
//!    `INSTA_UPDATE=always cargo test -p courier-conformance` overwrites the `.snap` files.
//! 3. Read the diff of the `.snap` files before committing them: a changed `_schema` snapshot
//!    is a changed contract (clients and the server must agree), a changed `_instance` snapshot
//!    is a changed wire encoding.

pub mod contract;
pub mod interface;
pub mod json;
pub mod models;
pub mod mutate;
pub mod paths;
pub mod spec;

use std::collections::BTreeSet;

/// Adds one error for each element that only one of two sets has: `left_only` words an element
/// of `left` alone, `right_only` one of `right` alone.
pub(crate) fn push_one_sided<T: Ord>(
    errors: &mut Vec<String>,
    (left, right): (&BTreeSet<T>, &BTreeSet<T>),
    left_only: impl Fn(&T) -> String,
    right_only: impl Fn(&T) -> String,
) {
    errors.extend(left.difference(right).map(left_only));
    errors.extend(right.difference(left).map(right_only));
}
