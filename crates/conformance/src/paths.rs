//! Where the conformance tests find the spec, the interface document and their own files.
//!
//! The spec lives in this repository (`spec/openapi.yaml`), and so do the facts of the interface
//! the tests hold it to (`interface-facts.json`, written from the interface document). The
//! document itself is not part of the repository, so the tests never guess where it is: its
//! path comes from `COURIER_INTERFACE_MD`. Where that names a file, one test checks the
//! committed facts against it; where it is unset, that test is skipped with a printed reason,
//! and CI, which sets both it and `COURIER_REQUIRE_INTERFACE=1`, fails instead of skipping.

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
    manifest_dir().join("tests/it/snapshots")
}

/// The interface document named by [`INTERFACE_ENV`], or a message that says why there is none.
pub fn interface_path() -> Result<PathBuf, String> {
    interface_path_from(std::env::var_os(INTERFACE_ENV).map(PathBuf::from))
}

/// The interface document at `explicit` when that is a file, or a message saying what is missing.
pub fn interface_path_from(explicit: Option<PathBuf>) -> Result<PathBuf, String> {
    match explicit {
        None => Err(format!(
            "{INTERFACE_ENV} is not set; set it to the path of the interface document"
        )),
        Some(path) if path.is_file() => Ok(path),
        Some(path) => Err(format!(
            "{INTERFACE_ENV} names {}, which is not a file",
            path.display()
        )),
    }
}

/// Reads a file, panicking with a message that names it.
pub fn read(path: &Path) -> String {
    std::fs::read_to_string(path)
        .unwrap_or_else(|err| panic!("cannot read {}: {err}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::interface_path_from;
    use std::path::PathBuf;

    #[test]
    fn the_interface_document_is_found_only_where_the_variable_names_a_file() {
        let unset = interface_path_from(None).expect_err("nothing named, nothing found");
        assert!(unset.contains("is not set"), "{unset}");

        let dir = std::env::temp_dir();
        let missing = dir.join("courier-no-such-interface-document.md");
        let absent = interface_path_from(Some(missing)).expect_err("a missing file is not found");
        assert!(absent.contains("not a file"), "{absent}");

        let present: PathBuf = super::manifest_dir().join("README.md");
        assert_eq!(interface_path_from(Some(present.clone())), Ok(present));
    }
}
