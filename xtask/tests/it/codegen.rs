//! The generated files are checked, like rust-analyzer's: stale output fails a plain `cargo test`.

use crate::support;

use std::process::Command;
use xtask::{CodegenError, SPEC_PATH, generate, stale_files, workspace_root};

fn spec_text() -> String {
    std::fs::read_to_string(workspace_root().join(SPEC_PATH)).expect("spec is readable")
}

#[test]
fn generated_files_are_up_to_date() {
    let files = generate(&spec_text()).unwrap_or_else(|e| panic!("{e}"));
    let stale = stale_files(workspace_root(), &files);
    assert!(
        stale.is_empty(),
        "stale generated files {stale:?}: run `cargo xtask codegen` and commit the result"
    );
}

#[test]
fn generation_is_deterministic_within_and_across_processes() {
    let first = generate(&spec_text()).unwrap_or_else(|e| panic!("{e}"));
    let second = generate(&spec_text()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(first, second);
    // A second process (fresh hash seeds, fresh statics) must produce the same bytes as the
    // committed files, which this process just compared against.
    support::run(Command::new(env!("CARGO_BIN_EXE_xtask")).args(["codegen", "--check"]));
}

#[test]
fn every_file_names_the_command_and_the_spec_hash() {
    let files = generate(&spec_text()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(files.len(), 7);
    let spec = xtask::Spec::parse(&spec_text()).unwrap_or_else(|e| panic!("{e}"));
    // JSON has no comments: the contract names its source in a `generated` field, and the
    // JSON form of the spec is the spec itself.
    let contract = files
        .iter()
        .find(|file| file.path.ends_with("contract.json"))
        .expect("the verifier's contract is generated");
    let contract: serde_json::Value = serde_json::from_str(&contract.contents).unwrap();
    let about = contract["generated"].as_str().unwrap();
    assert!(
        about.starts_with("@generated") && about.contains(&spec.sha256),
        "{about}"
    );
    for file in files.iter().filter(|file| file.path.ends_with(".rs")) {
        let header: String = file.contents.lines().take(3).collect::<Vec<_>>().join("\n");
        assert!(
            header.starts_with("// @generated"),
            "{}: {header}",
            file.path
        );
        assert!(
            header.contains("`cargo xtask codegen`"),
            "{}: {header}",
            file.path
        );
        assert!(header.contains(&spec.sha256), "{}: {header}", file.path);
    }
}

#[test]
fn editing_a_field_in_the_spec_makes_the_check_fail() {
    let edited = spec_text().replacen("        maxRetries:\n", "        maxRetryCount:\n", 1);
    assert_ne!(edited, spec_text(), "the edit must hit the spec");
    let files = generate(&edited).unwrap_or_else(|e| panic!("{e}"));
    let stale: Vec<_> = stale_files(workspace_root(), &files)
        .into_iter()
        .map(|f| f.path)
        .collect();
    assert!(
        stale.contains(&"crates/models/src/generated.rs"),
        "{stale:?}"
    );
}

#[test]
fn a_spec_that_breaks_the_rules_is_reported_not_panicked_on() {
    let inline_enum = spec_text().replacen(
        "      schema:\n        $ref: '#/components/schemas/StatsPeriod'",
        "      schema:\n        type: string\n        enum: ['1h']",
        1,
    );
    match generate(&inline_enum) {
        Err(CodegenError::Lint(errors)) => {
            assert!(
                errors
                    .iter()
                    .any(|e| e.pointer == "/components/parameters/Period/schema"),
                "{errors:?}"
            );
        }
        other => panic!("expected a lint error, got {other:?}"),
    }
    assert!(matches!(
        generate("openapi: [not, a, spec"),
        Err(CodegenError::Parse(_))
    ));
}

/// `cargo xtask operations`, the list scripts read instead of parsing the spec themselves: the
/// the same operations as the generated table in `courier-models` (which is sorted by id).
#[test]
fn operations_lists_the_generated_table_as_method_path_id() {
    let listed = support::run(Command::new(env!("CARGO_BIN_EXE_xtask")).arg("operations"));
    let mut expected: Vec<String> = courier_models::OPERATIONS
        .iter()
        .map(|op| format!("{} {} {}", op.method, op.path, op.id))
        .collect();
    expected.sort();
    assert!(expected.len() >= 10, "{expected:?}");
    let mut lines: Vec<&str> = listed.lines().collect();
    lines.sort();
    assert_eq!(lines, expected);
}
