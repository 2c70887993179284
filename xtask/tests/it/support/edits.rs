//! The corpus's edits applied to the spec: what both spec-diff test crates need.
//!
//! The spec is read through `courier-spec` (the one reader) and edited as the JSON its typed
//! document serialises to, with each entry's `edit`: an RFC 6902 JSON patch (`test` ops keep
//! the index-based removals honest when the spec moves).

use serde_json::Value;
use std::path::Path;

/// The spec of this repository, as text.
pub(crate) fn spec_text() -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    std::fs::read_to_string(root.join(xtask::SPEC_PATH)).unwrap()
}

/// A corpus entry of `xtask/tests/spec-diff/` by file stem.
pub(crate) fn corpus_entry(name: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/spec-diff/{name}.yaml"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    serde_yaml::from_str(&text).unwrap_or_else(|e| panic!("{path:?}: {e}"))
}

/// The spec with the edits of `entries` applied in order, as JSON text.
pub(crate) fn edited_spec(entries: &[&Value]) -> String {
    let spec = courier_spec::Spec::parse(&spec_text()).unwrap();
    let mut doc = serde_json::to_value(spec.openapi()).unwrap();
    for entry in entries {
        let patch: json_patch::Patch = serde_json::from_value(entry["edit"].clone())
            .unwrap_or_else(|e| panic!("{}: not a JSON patch: {e}", entry["edit"]));
        json_patch::patch(&mut doc, &patch)
            .unwrap_or_else(|e| panic!("{}: does not apply: {e}", entry["edit"]));
    }
    serde_json::to_string_pretty(&doc).unwrap()
}
