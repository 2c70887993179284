//! Where the conformance tests find the spec, the interface document and their own files.
//!
//! The spec lives in this repository (`spec/openapi.yaml`). The interface document is not part
//! of it: the repository is cloned with `shared/` beside it, so `shared/interface.md` sits two
//! levels above the workspace root. `COURIER_INTERFACE_MD` overrides that location.

use std::path::{Path, PathBuf};

/// Environment variable that names the interface document explicitly.
pub const INTERFACE_ENV: &str = "COURIER_INTERFACE_MD";

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

/// Reads the interface document, panicking with [`interface_path`]'s message when it is absent.
pub fn read_interface() -> String {
    match interface_path() {
        Ok(path) => read(&path),
        Err(message) => panic!("{message}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_interface_is_reported_with_every_place_tried() {
        let nowhere = [
            manifest_dir().join("no-such-dir/interface.md"),
            manifest_dir().join("also-absent.md"),
        ];
        let message = first_existing(&nowhere).unwrap_err();
        assert!(message.contains(INTERFACE_ENV), "{message}");
        assert!(message.contains("no-such-dir/interface.md"), "{message}");
        assert!(message.contains("also-absent.md"), "{message}");
        let spec = [manifest_dir().join("absent.md"), spec_path()];
        assert_eq!(first_existing(&spec).unwrap(), spec_path());
    }
}
