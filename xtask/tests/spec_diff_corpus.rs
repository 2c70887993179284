//! Ground truth for `spec-diff`: every edit in `xtask/tests/spec-diff/*.yaml`, applied to the
//! real spec, must get exactly its expected class for each crate, and its main change the
//! expected pointer and classes. The compile tests in `spec_diff_compile.rs` prove the classes.

use serde_json::Value;
use std::path::{Path, PathBuf};
use xtask::spec_diff::{Class, diff_texts, report};

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/spec-diff")
}

fn spec_text() -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    std::fs::read_to_string(root.join(xtask::SPEC_PATH)).unwrap()
}

/// The parent of `pointer` and its last token, unescaped.
fn split(pointer: &str) -> (&str, String) {
    let (parent, last) = pointer.rsplit_once('/').expect("a pointer below the root");
    (parent, last.replace("~1", "/").replace("~0", "~"))
}

fn take(doc: &mut Value, pointer: &str) -> Value {
    let (parent, key) = split(pointer);
    let parent = doc
        .pointer_mut(parent)
        .unwrap_or_else(|| panic!("no {parent}"));
    match parent {
        Value::Object(map) => map.remove(&key).unwrap_or_else(|| panic!("no {pointer}")),
        Value::Array(items) => items.remove(key.parse::<usize>().unwrap()),
        _ => panic!("{pointer}: parent is not a container"),
    }
}

fn put(doc: &mut Value, pointer: &str, value: Value) {
    let (parent, key) = split(pointer);
    let parent = doc
        .pointer_mut(parent)
        .unwrap_or_else(|| panic!("no {parent}"));
    match parent {
        Value::Object(map) => {
            map.insert(key, value);
        }
        Value::Array(items) if key == "-" => items.push(value),
        Value::Array(items) => items.insert(key.parse::<usize>().unwrap(), value),
        _ => panic!("{pointer}: parent is not a container"),
    }
}

/// RFC 6902's `add`, `remove`, `replace` and `move`, plus `remove-value` (remove an array item
/// equal to `value`), which keeps edits of `required` lists readable.
fn apply(doc: &mut Value, edit: &Value) {
    for op in edit.as_array().expect("edit is a list") {
        let path = op["path"].as_str().expect("path");
        match op["op"].as_str().expect("op") {
            "add" => put(doc, path, op["value"].clone()),
            "remove" => {
                take(doc, path);
            }
            "replace" => {
                take(doc, path);
                put(doc, path, op["value"].clone());
            }
            "move" => {
                let value = take(doc, op["from"].as_str().expect("from"));
                put(doc, path, value);
            }
            "remove-value" => {
                let items = doc
                    .pointer_mut(path)
                    .and_then(Value::as_array_mut)
                    .unwrap_or_else(|| panic!("no array at {path}"));
                let before = items.len();
                items.retain(|item| item != &op["value"]);
                assert_eq!(items.len() + 1, before, "{path} holds {} once", op["value"]);
            }
            other => panic!("unknown op {other}"),
        }
    }
}

/// The edited spec of a corpus entry, as text.
pub fn edited_spec(entry: &Value) -> String {
    let mut doc: Value = serde_yaml::from_str(&spec_text()).unwrap();
    apply(&mut doc, &entry["edit"]);
    serde_json::to_string_pretty(&doc).unwrap()
}

#[test]
fn every_corpus_edit_gets_its_expected_classes() {
    let old = spec_text();
    let mut entries: Vec<PathBuf> = std::fs::read_dir(corpus_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    entries.sort();
    assert!(entries.len() >= 20, "the corpus holds at least 20 edits");
    let mut failures = Vec::new();
    for path in &entries {
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let entry: Value = serde_yaml::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let report = diff_texts(&old, &edited_spec(&entry)).unwrap();
        let json = report::to_json(&report);
        let expected = &entry["expect"];
        if json["crates"] != expected["crates"] {
            failures.push(format!(
                "{name}: crates {} but expected {}\n{}",
                json["crates"],
                expected["crates"],
                report::to_text(&report)
            ));
            continue;
        }
        let main = &expected["change"];
        let found = json["changes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["pointer"] == main["pointer"]);
        match found {
            Some(change) => {
                for krate in xtask::spec_diff::CRATES {
                    if change[krate] != main[krate] {
                        failures.push(format!(
                            "{name}: {krate} is {} for {}, expected {}",
                            change[krate], main["pointer"], main[krate]
                        ));
                    }
                }
            }
            None => failures.push(format!(
                "{name}: no change at {}\n{}",
                main["pointer"],
                report::to_text(&report)
            )),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_spec_against_itself_has_no_changes() {
    let text = spec_text();
    let report = diff_texts(&text, &text).unwrap();
    assert!(report.changes.is_empty());
    assert_eq!(
        report.crates().by_crate().map(|(_, class)| class),
        [Class::None; 3]
    );
}

#[test]
fn json_form_has_the_documented_shape_and_reads_back() {
    let entry: Value = serde_yaml::from_str(
        &std::fs::read_to_string(corpus_dir().join("query-parameter-added-optional.yaml")).unwrap(),
    )
    .unwrap();
    let report = diff_texts(&spec_text(), &edited_spec(&entry)).unwrap();
    let json = report::to_json(&report);
    let keys: Vec<&String> = json.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["changes", "crates"]);
    let change = &json["changes"][0];
    let mut fields: Vec<&String> = change.as_object().unwrap().keys().collect();
    fields.sort();
    assert_eq!(
        fields,
        [
            "courier-client",
            "courier-models",
            "courier-server",
            "pointer",
            "what"
        ]
    );
    assert_eq!(report::from_json(&json), Some(report));
}

#[test]
fn text_form_puts_the_worst_change_first() {
    let mut doc: Value = serde_yaml::from_str(&spec_text()).unwrap();
    for name in [
        "description-changed",
        "type-added",
        "response-field-removed",
    ] {
        let entry: Value = serde_yaml::from_str(
            &std::fs::read_to_string(corpus_dir().join(format!("{name}.yaml"))).unwrap(),
        )
        .unwrap();
        apply(&mut doc, &entry["edit"]);
    }
    let report = diff_texts(&spec_text(), &serde_json::to_string(&doc).unwrap()).unwrap();
    let text = report::to_text(&report);
    let lines: Vec<&str> = text.lines().skip_while(|l| !l.is_empty()).skip(1).collect();
    assert!(
        lines[0].starts_with("BREAKING") && lines[0].contains("UrlGroup.updatedAt removed"),
        "{text}"
    );
    assert!(lines.last().unwrap().starts_with('-'), "{text}");
    assert!(
        text.starts_with(
            "courier-models: breaking\ncourier-client: breaking\ncourier-server: breaking\n"
        ),
        "{text}"
    );
}
