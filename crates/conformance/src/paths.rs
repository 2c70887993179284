//! Where the conformance tests find the spec, the interface document and their own files.
//!
//! The spec lives in this repository (`spec/openapi.yaml`), and so do the facts of the interface
//! the tests hold it to (`interface-facts.json`, written from the interface document). The
//! document itself is not part of the repository: CI clones it with `shared/` beside it, so
//! `shared/interface.md` sits two levels above the workspace root (`COURIER_INTERFACE_MD`
//! overrides that location). Where it is present, one test checks the committed facts against
//! it; a user's clone without it skips that test with a printed reason, and CI, which sets
//! `COURIER_REQUIRE_INTERFACE=1`, fails instead.

use std::path::{Path, PathBuf};

/// Environment variable that names the interface document explicitly.
pub const INTERFACE_ENV: &str = "COURIER_INTERFACE_MD";

/// Set (to anything but empty or `0`) where the interface document must be found: CI.
pub const REQUIRE_INTERFACE_ENV: &str = "COURIER_REQUIRE_INTERFACE";

/// Set to rewrite `interface-facts.json` from the interface document instead of comparing.
pub const BLESS_FACTS_ENV: &str = "COURIER_BLESS_INTERFACE_FACTS";

/// The committed facts of the interface document.
pub fn facts_path() -> PathBuf {
    manifest_dir().join("interface-facts.json")
}

/// The committed facts of the interface, which every conformance test reads.
pub fn committed_facts() -> crate::interface::InterfaceFacts {
    crate::interface::InterfaceFacts::from_json(&read(&facts_path()))
        .unwrap_or_else(|e| panic!("{e}"))
}

/// The interface document's text when it can be found. When it cannot: a panic if
/// [`REQUIRE_INTERFACE_ENV`] is set, otherwise `None` after printing why (the caller skips).
pub fn interface_document() -> Option<String> {
    match interface_path() {
        Ok(path) => Some(read(&path)),
        Err(message) => {
            let required = std::env::var(REQUIRE_INTERFACE_ENV)
                .is_ok_and(|value| !value.is_empty() && value != "0");
            if required {
                panic!("{REQUIRE_INTERFACE_ENV} is set: {message}");
            }
            eprintln!(
                "skipped: {message}
(the other conformance tests use the committed interface-facts.json)"
            );
            None
        }
    }
}

/// The directory of this crate.
pub fn manifest_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The OpenAPI document the models are generated from.
pub fn spec_path() -> PathBuf {
    manifest_dir().join("../../spec/openapi.yaml")
}

/// JSON fixtures of realistic payloads.
pub fn fixtures_dir() -> PathBuf {
    manifest_dir().join("tests/fixtures")
}

/// The committed insta snapshots.
pub fn snapshots_dir() -> PathBuf {
    manifest_dir().join("tests/snapshots")
}

/// Every place the interface document is looked for, in order.
pub fn interface_candidates() -> Vec<PathBuf> {
    let mut candidates = Vec::new();
    if let Some(explicit) = std::env::var_os(INTERFACE_ENV) {
        candidates.push(PathBuf::from(explicit));
    }
    // The layout the repository is cloned in: `<root>/main` (this workspace) beside `<root>/shared`.
    candidates.push(manifest_dir().join("../../../shared/interface.md"));
    // A checkout that carries `shared/` inside the workspace.
    candidates.push(manifest_dir().join("../../shared/interface.md"));
    candidates
}

/// The interface document, or a message that says where it was looked for.
pub fn interface_path() -> Result<PathBuf, String> {
    first_existing(&interface_candidates())
}

/// The first of `candidates` that is a file, or a message that lists them all.
pub fn first_existing(candidates: &[PathBuf]) -> Result<PathBuf, String> {
    candidates
        .iter()
        .find(|path| path.is_file())
        .cloned()
        .ok_or_else(|| {
            let tried: Vec<String> = candidates
                .iter()
                .map(|path| format!("  {}", path.display()))
                .collect();
            format!(
                "the interface document shared/interface.md was not found; clone the repository \
                 with shared/ beside it or set {INTERFACE_ENV}. Tried:\n{}",
                tried.join("\n")
            )
        })
}

/// Reads a file, panicking with a message that names it.
pub fn read(path: &Path) -> String {
    std::fs::read_to_string(path)
        .unwrap_or_else(|err| panic!("cannot read {}: {err}", path.display()))
}
