//! Ground truth for `spec-diff`: every edit in `xtask/tests/spec-diff/*.yaml`, applied to the
//! real spec, must get exactly its expected class for each crate, and its main change the
//! expected pointer and classes. The compile tests in `spec_diff_compile.rs` prove the classes.

use std::path::{Path, PathBuf};
use xtask::spec_diff::{Class, diff_texts, report};

use crate::support::edits;

use edits::{corpus_entry, edited_spec, spec_text};

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/spec-diff")
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
        let entry = corpus_entry(&name);
        let report = diff_texts(&old, &edited_spec(&[&entry])).unwrap();
        let json = report::to_json(&report);
        let expected = &entry["expect"];
        let expected_crates = with_verifier(&expected["crates"]);
        if json["crates"] != expected_crates {
            failures.push(format!(
                "{name}: crates {} but expected {}\n{}",
                json["crates"],
                expected_crates,
                report::to_text(&report)
            ));
            continue;
        }
        let main = &with_verifier(&expected["change"]);
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
        [Class::None; 4]
    );
}

#[test]
fn json_form_has_the_documented_shape_and_reads_back() {
    let entry = corpus_entry("query-parameter-added-optional");
    let report = diff_texts(&spec_text(), &edited_spec(&[&entry])).unwrap();
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
            "courier-verify",
            "pointer",
            "what"
        ]
    );
    assert_eq!(report::from_json(&json), Some(report));
}

#[test]
fn text_form_puts_the_worst_change_first() {
    let entries = [
        "description-changed",
        "type-added",
        "response-field-removed",
    ]
    .map(corpus_entry);
    let edited = edited_spec(&entries.iter().collect::<Vec<_>>());
    let report = diff_texts(&spec_text(), &edited).unwrap();
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

/// `spec-diff` against a base from before the spec existed: every operation and type is new.
#[test]
fn a_first_spec_is_all_new() {
    let spec = xtask::spec_diff::parse_spec(&spec_text()).unwrap();
    let report = xtask::spec_diff::diff(&xtask::spec_diff::empty_spec(), &spec).unwrap();
    let count = |prefix: &str| {
        report
            .changes
            .iter()
            .filter(|c| c.what.starts_with(prefix) && c.what.contains(" added"))
            .count()
    };
    assert_eq!(count("operation "), spec.operations().count());
    let types = spec.openapi().components.as_ref().unwrap().schemas.len();
    assert_eq!(count("type "), types);
}

/// The corpus names the classes of the three generated crates; courier-verify's is derived:
/// the worst of them.
fn with_verifier(classes: &serde_json::Value) -> serde_json::Value {
    let rank = |class: &str| {
        ["none", "additive", "breaking"]
            .iter()
            .position(|c| *c == class)
    };
    let worst = ["courier-models", "courier-client", "courier-server"]
        .iter()
        .filter_map(|krate| classes[*krate].as_str())
        .max_by_key(|class| rank(class))
        .unwrap_or("none");
    let mut classes = classes.clone();
    classes["courier-verify"] = serde_json::Value::from(worst);
    classes
}
