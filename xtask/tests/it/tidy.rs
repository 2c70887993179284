//! The repository's house rules, checked over every tracked file: each failure names every
//! offender at once, so one run says everything that has to change.
//!
//! - every hand-written Rust module opens with a `//!` line saying what it is for;
//! - no comment tells history (an issue number, a session) instead of a reason;
//! - no hand-written Rust file or script is over 500 lines (the allow-list below is empty);
//! - every generated file carries the generator's header, and no other file does;
//! - nothing points outside the repository, and every link to a decision names an anchor of
//!   `docs/decisions.md`;
//! - every package of the workspace takes the shared `[workspace.lints]`;
//! - every link to a heading of a Markdown file names one it has, and every dependency line a
//!   README shows asks for the version its crate's manifest has (`tidy/documents.rs`).

#[path = "tidy/documents.rs"]
mod documents;
#[path = "tidy/layout.rs"]
mod layout;

use std::collections::BTreeSet;
use std::path::{Component, Path, PathBuf};
use std::process::Command;
use xtask::{SPEC_PATH, generate, workspace_root};

/// The most lines a hand-written Rust file may have.
const MAX_LINES: usize = 500;

/// Hand-written files that are over [`MAX_LINES`] today, each to be split along its seams.
/// This list must only shrink: an entry whose file is back under the limit (or gone) fails the
/// test until it is removed, and nothing may be added to it.
const OVER_LIMIT_ALLOWED: &[&str] = &[];

/// The first line of every generated file starts so.
const GENERATED_HEADER: &str = "// @generated ";

/// JSON has no comments: a generated JSON file says so in its first key, `generated`.
const GENERATED_JSON_KEY: &str = "{\n  \"generated\": \"";

/// Generated files that carry no mark: `spec/openapi.json` is served byte for byte as the spec,
/// so a mark would change the document; `codegen --check` holds it to `spec/openapi.yaml`.
const GENERATED_UNMARKED: &[&str] = &["spec/openapi.json"];

/// The one file allowed to name a path outside the repository: CI passes the interface
/// document's location to the tests that need it through an environment variable.
const MAY_POINT_OUTSIDE: &[&str] = &[".ci/run"];

/// Spellings of a path outside the repository.
const OUTSIDE_PATHS: &[&str] = &[
    "shared/interface.md",
    "shared/design",
    "../shared",
    "/work/",
];

/// Where every decision is explained, with one `<a id="…">` per decision.
const DECISIONS: &str = "docs/decisions.md";

/// A tracked file: its path relative to the workspace root and its text (`None` when binary).
struct Tracked {
    path: String,
    text: Option<String>,
}

fn tracked_files() -> Vec<Tracked> {
    let root = workspace_root();
    let output = Command::new("git")
        .current_dir(root)
        .args(["ls-files", "-z"])
        .output()
        .expect("git ls-files runs");
    assert!(output.status.success(), "git ls-files failed");
    String::from_utf8(output.stdout)
        .expect("tracked paths are UTF-8")
        .split('\0')
        .filter(|path| !path.is_empty())
        // A tracked file deleted in the working tree is not part of what is checked.
        .filter(|path| root.join(path).is_file())
        .map(|path| Tracked {
            path: path.to_owned(),
            text: std::fs::read_to_string(root.join(path)).ok(),
        })
        .collect()
}

/// The files `cargo xtask codegen` writes, from the generator itself.
fn generated_paths() -> BTreeSet<&'static str> {
    let spec = std::fs::read_to_string(workspace_root().join(SPEC_PATH)).expect("spec reads");
    generate(&spec)
        .expect("the spec generates")
        .iter()
        .map(|file| file.path)
        .collect()
}

fn hand_written_rust(files: &[Tracked]) -> Vec<(&str, &str)> {
    let generated = generated_paths();
    files
        .iter()
        .filter(|file| file.path.ends_with(".rs") && !generated.contains(file.path.as_str()))
        .filter_map(|file| Some((file.path.as_str(), file.text.as_deref()?)))
        .collect()
}

/// Fails listing `offenders` under `rule` when there are any.
fn assert_none(rule: &str, offenders: Vec<String>) {
    assert!(
        offenders.is_empty(),
        "{rule}:\n  {}",
        offenders.join("\n  ")
    );
}

#[test]
fn every_hand_written_module_says_what_it_is_for() {
    let files = tracked_files();
    let offenders = hand_written_rust(&files)
        .into_iter()
        .filter(|(_, text)| !text.starts_with("//!"))
        .map(|(path, _)| path.to_owned())
        .collect();
    assert_none(
        "hand-written Rust files that do not open with a `//!` line",
        offenders,
    );
}

/// Whether a `use` line imports a glob that hides where names come from. Allowed: a prelude
/// (made to be glob-imported), a `pub use` that re-exports a module as the crate's face (the
/// generated models), and `use super::*` in a unit-test module, which reads the module it tests.
fn hides_where_names_come_from(line: &str, in_unit_tests: bool) -> bool {
    let line = line.trim();
    let Some(path) = line.strip_prefix("use ") else {
        return false;
    };
    let path = path.trim_end_matches(';');
    path.ends_with("::*") && !path.ends_with("prelude::*") && !(in_unit_tests && path == "super::*")
}

#[test]
fn imports_name_what_they_bring() {
    let files = tracked_files();
    let mut offenders = Vec::new();
    // Library and binary code; the test binaries' own helper modules are not held to it yet.
    for (path, text) in hand_written_rust(&files)
        .into_iter()
        .filter(|(path, _)| path.contains("/src/") && !path.starts_with("xtask/src/server/"))
    {
        let mut in_unit_tests = false;
        for (number, line) in text.lines().enumerate() {
            if line.trim_start().starts_with("mod tests") {
                in_unit_tests = true;
            }
            if hides_where_names_come_from(line, in_unit_tests) {
                offenders.push(format!("{path}:{}: {}", number + 1, line.trim()));
            }
        }
    }
    assert_none("glob imports (name what is imported)", offenders);
}

#[test]
fn the_import_rule_tells_globs_from_named_imports() {
    assert!(hides_where_names_come_from("use courier_server::*;", false));
    assert!(hides_where_names_come_from("    use super::*;", false));
    assert!(!hides_where_names_come_from("    use super::*;", true));
    assert!(!hides_where_names_come_from(
        "use proptest::prelude::*;",
        false
    ));
    assert!(!hides_where_names_come_from(
        "use courier_server::{Query, Rejection};",
        false
    ));
    assert!(!hides_where_names_come_from("pub use generated::*;", false));
}

/// The comment of one line, for the languages of the repository's code and scripts.
fn comment_of<'a>(path: &str, line: &'a str) -> Option<&'a str> {
    let trimmed = line.trim_start();
    let hash_comments = [".sh", ".py", ".toml", ".yaml", ".yml"];
    if path.ends_with(".rs") {
        trimmed.strip_prefix("//")
    } else if hash_comments.iter().any(|ext| path.ends_with(ext)) || path == ".ci/run" {
        trimmed
            .strip_prefix('#')
            .filter(|_| !trimmed.starts_with("#!"))
    } else {
        None
    }
}

/// Whether a comment refers to history instead of giving a reason.
fn tells_history(comment: &str) -> bool {
    let lower = comment.to_lowercase();
    let numbered = |word: &str| {
        lower.match_indices(word).any(|(at, _)| {
            let rest = lower[at + word.len()..].trim_start_matches([' ', '#']);
            rest.starts_with(|c: char| c.is_ascii_digit())
        })
    };
    let sessions = [
        "this session",
        "previous session",
        "earlier session",
        "last session",
    ];
    numbered("issue") || numbered("ticket") || sessions.iter().any(|s| lower.contains(s))
}

/// Whether a comment names a decision by its number (the word, then digits), which a reader cannot
/// follow, instead of its anchor in `docs/decisions.md`.
fn names_a_decision_by_number(comment: &str) -> bool {
    let lower = comment.to_lowercase();
    lower.match_indices("decision").any(|(at, _)| {
        let rest = lower[at + "decision".len()..].trim_start_matches([' ', '#', 's']);
        rest.starts_with(|c: char| c.is_ascii_digit())
    })
}

#[test]
fn decisions_are_named_by_their_anchor() {
    let mut offenders = Vec::new();
    for file in tracked_files() {
        let Some(text) = &file.text else { continue };
        for (number, line) in text.lines().enumerate() {
            if comment_of(&file.path, line).is_some_and(names_a_decision_by_number) {
                offenders.push(format!("{}:{}: {}", file.path, number + 1, line.trim()));
            }
        }
    }
    assert_none(
        "comments that name a decision by number (link docs/decisions.md#dN-... instead)",
        offenders,
    );
    assert!(names_a_decision_by_number(
        " after the credentials (decision 16)."
    ));
    assert!(!names_a_decision_by_number(
        " (`docs/decisions.md#d16-order-of-checks`)"
    ));
}

/// Comments, and every line of the documents (a changelog's old lines are history by nature):
/// a reader of a fresh clone has no issue tracker to follow.
#[test]
fn no_comment_or_document_tells_history() {
    let mut offenders = Vec::new();
    for file in tracked_files() {
        let Some(text) = &file.text else { continue };
        let document = file.path.ends_with(".md") && !file.path.ends_with("CHANGELOG.md");
        for (number, line) in text.lines().enumerate() {
            let prose = if document {
                Some(line)
            } else {
                comment_of(&file.path, line)
            };
            if prose.is_some_and(tells_history) {
                offenders.push(format!("{}:{}: {}", file.path, number + 1, line.trim()));
            }
        }
    }
    assert_none(
        "comments and documents that refer to an issue or a session (say the reason instead)",
        offenders,
    );
}

#[test]
fn the_history_rule_tells_history_from_reasons() {
    assert!(tells_history(" the drill of issue 16"));
    assert!(tells_history(" see issue #20"));
    assert!(tells_history(" measured in this session"));
    assert!(!tells_history(" a session cookie for the console"));
    assert!(!tells_history(" an issue with the socket: it closes early"));
}

#[test]
fn no_hand_written_rust_file_is_over_the_limit_and_the_allow_list_only_shrinks() {
    let files = tracked_files();
    let rust = hand_written_rust(&files);
    // The scripts are code too (CI and the benchmarks run them); documents and the spec are not.
    let scripts = files.iter().filter_map(|file| {
        let script =
            [".sh", ".py"].iter().any(|ext| file.path.ends_with(ext)) || file.path == ".ci/run";
        script.then_some((file.path.as_str(), file.text.as_deref()?))
    });
    let mut offenders: Vec<String> = scripts
        .filter(|(_, text)| text.lines().count() > MAX_LINES)
        .map(|(path, text)| {
            format!(
                "{path}: {} lines (split it along its seams)",
                text.lines().count()
            )
        })
        .collect();
    for (path, text) in &rust {
        let lines = text.lines().count();
        if lines > MAX_LINES && !OVER_LIMIT_ALLOWED.contains(path) {
            offenders.push(format!("{path}: {lines} lines (split it along its seams)"));
        }
    }
    for allowed in OVER_LIMIT_ALLOWED {
        match rust.iter().find(|(path, _)| path == allowed) {
            Some((_, text)) if text.lines().count() > MAX_LINES => {}
            Some(_) => offenders.push(format!(
                "{allowed}: now within {MAX_LINES} lines; remove it from OVER_LIMIT_ALLOWED"
            )),
            None => offenders.push(format!(
                "{allowed}: no such hand-written file; remove it from OVER_LIMIT_ALLOWED"
            )),
        }
    }
    assert_none(
        &format!("hand-written Rust files and scripts over {MAX_LINES} lines"),
        offenders,
    );
}

#[test]
fn generated_files_carry_their_header_and_no_other_file_does() {
    let generated = generated_paths();
    let mut offenders = Vec::new();
    for file in tracked_files() {
        let Some(text) = &file.text else { continue };
        let marked = text.starts_with(GENERATED_HEADER)
            || (file.path.ends_with(".json") && text.starts_with(GENERATED_JSON_KEY));
        let is_generated = generated.contains(file.path.as_str());
        if is_generated && !marked && !GENERATED_UNMARKED.contains(&file.path.as_str()) {
            offenders.push(format!("{}: generated, without the header", file.path));
        }
        if marked && !is_generated {
            offenders.push(format!(
                "{}: carries the generated header, but codegen does not write it",
                file.path
            ));
        }
    }
    for path in &generated {
        if !workspace_root().join(path).is_file() {
            offenders.push(format!("{path}: generated, but not in the tree"));
        }
    }
    assert_none("generated files and their header", offenders);
}

/// `target` resolved against the directory of `from`, or `None` when it leaves the repository.
fn resolve_inside(from: &str, target: &str) -> Option<PathBuf> {
    let mut resolved = PathBuf::new();
    let base = Path::new(from).parent().unwrap_or(Path::new(""));
    for component in base.join(target).components() {
        match component {
            Component::Normal(part) => resolved.push(part),
            Component::CurDir => {}
            Component::ParentDir => {
                if !resolved.pop() {
                    return None;
                }
            }
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    Some(resolved)
}

/// The relative targets of the Markdown links of `text` (`[text](target)`), without anchors.
fn markdown_link_targets(text: &str) -> Vec<&str> {
    text.match_indices("](")
        .filter_map(|(at, _)| {
            let rest = &text[at + 2..];
            let target = &rest[..rest.find(')')?];
            let path = target.split('#').next().unwrap_or("");
            let external = path.contains("://") || path.starts_with("mailto:");
            (!path.is_empty() && !external && !path.contains(' ')).then_some(path)
        })
        .collect()
}

/// The anchors `docs/decisions.md` defines.
fn decision_anchors() -> BTreeSet<String> {
    let text = std::fs::read_to_string(workspace_root().join(DECISIONS)).expect("decisions read");
    text.match_indices("<a id=\"")
        .filter_map(|(at, open)| {
            let rest = &text[at + open.len()..];
            Some(rest[..rest.find('"')?].to_owned())
        })
        .collect()
}

#[test]
fn nothing_points_outside_the_repository_and_every_decision_link_resolves() {
    let anchors = decision_anchors();
    // One anchor per numbered decision: a decision added without one (as the 20th first was)
    // could not be linked to.
    let text = std::fs::read_to_string(workspace_root().join(DECISIONS)).expect("decisions read");
    let decisions = text
        .lines()
        .filter(|line| {
            line.strip_prefix("## ")
                .and_then(|title| title.split_once(". "))
                .is_some_and(|(number, _)| number.parse::<u32>().is_ok())
        })
        .count();
    assert!(decisions >= 20, "{DECISIONS} lost its numbered decisions");
    assert_eq!(
        anchors.len(),
        decisions,
        "{DECISIONS}: one anchor per decision"
    );
    let mut offenders = Vec::new();
    for file in tracked_files() {
        let Some(text) = &file.text else { continue };
        let path = file.path.as_str();
        if !MAY_POINT_OUTSIDE.contains(&path) && path != "xtask/tests/it/tidy.rs" {
            for outside in OUTSIDE_PATHS {
                if text.contains(outside) {
                    offenders.push(format!("{path}: names `{outside}`, outside the repository"));
                }
            }
        }
        if path.ends_with(".md") {
            for target in markdown_link_targets(text) {
                match resolve_inside(path, target) {
                    None => {
                        offenders.push(format!("{path}: links `{target}`, outside the repository"))
                    }
                    Some(resolved) if !workspace_root().join(&resolved).exists() => {
                        offenders.push(format!("{path}: links `{target}`, which does not exist"));
                    }
                    Some(_) => {}
                }
            }
        }
        for (at, needle) in text.match_indices("decisions.md#") {
            let rest = &text[at + needle.len()..];
            let end = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
                .unwrap_or(rest.len());
            let anchor = &rest[..end];
            // `decisions.md#<anchor>` is how the documents name the form of a link.
            let placeholder = rest.starts_with("<anchor>");
            if !anchors.contains(anchor) && !placeholder && path != "xtask/tests/it/tidy.rs" {
                offenders.push(format!(
                    "{path}: links `{DECISIONS}#{anchor}`, no such anchor"
                ));
            }
        }
    }
    assert_none("paths outside the repository and broken links", offenders);
}

#[test]
fn every_package_takes_the_workspace_lints() {
    let files = tracked_files();
    let mut manifests: Vec<&Tracked> = files
        .iter()
        .filter(|file| file.path == "Cargo.toml" || file.path.ends_with("/Cargo.toml"))
        // The fuzz targets are a workspace of their own, built with cargo-fuzz's flags.
        .filter(|file| !file.path.starts_with("fuzz/"))
        .collect();
    manifests.sort_by(|a, b| a.path.cmp(&b.path));
    let root = manifests
        .iter()
        .find(|file| file.path == "Cargo.toml")
        .and_then(|file| file.text.as_deref())
        .expect("the root manifest");
    assert!(
        root.contains("[workspace.lints.rust]") && root.contains("[workspace.lints.clippy]"),
        "the root Cargo.toml defines [workspace.lints.rust] and [workspace.lints.clippy]"
    );
    let offenders = manifests
        .iter()
        .filter(|file| {
            let text = file.text.as_deref().unwrap_or("");
            text.contains("[package]") && !text.contains("[lints]\nworkspace = true")
        })
        .map(|file| format!("{}: no `[lints] workspace = true`", file.path))
        .collect();
    assert_none("packages that do not take the workspace lints", offenders);
}
