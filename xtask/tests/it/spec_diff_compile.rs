//! Proof of the classes: small user programs, written against the crates generated from the
//! spec as it is, compiled against the crates generated from an edited spec.
//!
//! One edited spec carries one representative edit per class (a response field removed, an
//! optional query parameter added, an enum value added, an operation added, a maximum
//! tightened). Each program touches the items of exactly one edit, so whether it compiles
//! against the edited crates says what that edit does to it. Copies of courier-models,
//! courier-client and courier-server (hand-written sources plus freshly generated files) are
//! checked twice, old and new, in `target/spec-diff-compile` with the workspace's Cargo.lock and
//! `--offline`: two `cargo check` runs, not one per edit, because that is what 2 cores afford.

use serde_json::{Value, json};
use std::path::Path;
use std::process::Command;

fn workspace_root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap()
}

use crate::support::edits;

use edits::{corpus_entry, spec_text};

/// The corpus edits the programs below are about, applied together.
const EDITS: [&str; 5] = [
    "response-field-removed",
    "query-parameter-added-optional",
    "enum-value-added",
    "operation-added",
    "maximum-tightened",
];

fn edited_spec(names: &[&str]) -> String {
    let entries: Vec<Value> = names.iter().map(|name| corpus_entry(name)).collect();
    edits::edited_spec(&entries.iter().collect::<Vec<_>>())
}

/// A user program: which crates it uses, its source, and whether it compiles against the old
/// and against the new crates.
struct Program {
    name: &'static str,
    proves: &'static str,
    uses: &'static [&'static str],
    source: &'static str,
    old: bool,
    new: bool,
}

const PROGRAMS: &[Program] = &[
    Program {
        name: "models-reads-removed-field",
        proves: "response field removed: breaking for models users",
        uses: &["courier-models"],
        source: "pub fn updated(group: &courier_models::UrlGroup) -> i64 { group.updated_at }",
        old: true,
        new: false,
    },
    Program {
        name: "client-reads-removed-field",
        proves: "response field removed: breaking for client users",
        uses: &["courier-client"],
        source: r#"
            pub async fn updated(client: &courier_client::messaging::Client) -> courier_client::Result<i64> {
                let group = client.get_url_group().url_group_name("orders").send().await?;
                Ok(group.into_inner().updated_at)
            }"#,
        old: true,
        new: false,
    },
    Program {
        name: "server-builds-removed-field",
        proves: "response field removed: breaking for implementers",
        uses: &["courier-server", "courier-models"],
        source: r#"
            pub fn group() -> courier_server::GetUrlGroupResponse {
                courier_server::GetUrlGroupResponse::Ok(courier_models::UrlGroup {
                    created_at: 0, updated_at: 0, name: "orders".into(), endpoints: vec![],
                })
            }"#,
        old: true,
        new: false,
    },
    Program {
        name: "client-calls-without-new-parameter",
        proves: "optional query parameter added: an existing call still compiles (additive, not breaking)",
        uses: &["courier-client"],
        source: r#"
            pub async fn name(client: &courier_client::messaging::Client) -> courier_client::Result<String> {
                Ok(client.get_url_group().url_group_name("orders").send().await?.into_inner().name)
            }"#,
        old: true,
        new: true,
    },
    Program {
        name: "client-sets-new-parameter",
        proves: "optional query parameter added: something new to call (additive, not none)",
        uses: &["courier-client"],
        source: r#"
            pub async fn name(client: &courier_client::messaging::Client) -> courier_client::Result<String> {
                let call = client.get_url_group().url_group_name("orders").with_endpoints(true);
                Ok(call.send().await?.into_inner().name)
            }"#,
        old: false,
        new: true,
    },
    Program {
        name: "server-reads-new-parameter",
        proves: "optional query parameter added: implementers get a new field (additive)",
        uses: &["courier-server"],
        source: "pub fn wanted(request: &courier_server::GetUrlGroupRequest) -> Option<bool> { request.with_endpoints }",
        old: false,
        new: true,
    },
    Program {
        name: "models-matches-enum",
        proves: "enum value added: an exhaustive match breaks (Rust), though no request changes on the wire",
        uses: &["courier-models"],
        source: r#"
            pub fn paid(kind: courier_models::IndexType) -> bool {
                match kind {
                    courier_models::IndexType::Free => false,
                    courier_models::IndexType::Payg | courier_models::IndexType::Fixed => true,
                }
            }"#,
        old: true,
        new: false,
    },
    Program {
        name: "server-implements-messaging",
        proves: "operation added: breaking for implementers (a trait method is missing)",
        uses: &["courier-server", "courier-models"],
        source: r#"
            use courier_server::*;
            use courier_server::runtime::error_body;
            pub struct Fake;
            impl MessagingApi for Fake {
                type Principal = ();
                async fn authenticate(&self, _: MessagingCredentials) -> Result<(), Unauthorized> { Ok(()) }
                async fn cancel_workflow_run(&self, _: (), _: CancelWorkflowRunRequest) -> CancelWorkflowRunResponse { CancelWorkflowRunResponse::Ok }
                async fn delete_dlq_message(&self, _: (), _: DeleteDlqMessageRequest) -> DeleteDlqMessageResponse { DeleteDlqMessageResponse::Ok }
                async fn delete_workflow_dlq_bulk(&self, _: (), _: DeleteWorkflowDlqBulkRequest) -> DeleteWorkflowDlqBulkResponse {
                    DeleteWorkflowDlqBulkResponse::Ok(courier_models::BulkDeleteResult { cursor: None, deleted: 0 })
                }
                async fn get_url_group(&self, _: (), _: GetUrlGroupRequest) -> GetUrlGroupResponse { GetUrlGroupResponse::NotFound(error_body("none")) }
                async fn get_workflow_dlq(&self, _: (), _: GetWorkflowDlqRequest) -> GetWorkflowDlqResponse { GetWorkflowDlqResponse::NotFound(error_body("none")) }
                async fn list_workflow_dlq(&self, _: (), _: ListWorkflowDlqRequest) -> ListWorkflowDlqResponse {
                    ListWorkflowDlqResponse::Ok(courier_models::WorkflowDlqPage { cursor: None, messages: vec![] }.into())
                }
                async fn cancel_workflow_runs(&self, _: (), _: CancelWorkflowRunsRequest) -> CancelWorkflowRunsResponse {
                    CancelWorkflowRunsResponse::Ok(courier_models::BulkCancelResult { cursor: None, cancelled: 0 })
                }
            }"#,
        old: true,
        new: false,
    },
    Program {
        name: "client-calls-existing-operations",
        proves: "operation added: callers' code still compiles (additive for the client)",
        uses: &["courier-client"],
        source: r#"
            pub async fn count(client: &courier_client::messaging::Client) -> courier_client::Result<usize> {
                Ok(client.list_workflow_dlq().send().await?.into_inner().messages.len())
            }"#,
        old: true,
        new: true,
    },
    Program {
        name: "client-asks-for-80",
        proves: "maximum tightened: still compiles; the client's `breaking` comes from the wire (count=80 now refused), not from Rust",
        uses: &["courier-client"],
        source: r#"
            pub async fn page(client: &courier_client::messaging::Client) -> courier_client::Result<usize> {
                let count = std::num::NonZeroU64::new(80).unwrap();
                Ok(client.list_workflow_dlq().count(count).send().await?.into_inner().messages.len())
            }"#,
        old: true,
        new: true,
    },
];

/// Writes `contents` unless the file already holds it, so cargo's fingerprints (mtimes) stay
/// valid between runs and only what changed is rebuilt.
fn write_if_changed(path: &Path, contents: &str) {
    if std::fs::read_to_string(path).ok().as_deref() == Some(contents) {
        return;
    }
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, contents).unwrap();
}

fn copy_tree(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            if entry.file_name() != "tests" && entry.file_name() != "examples" {
                copy_tree(&entry.path(), &target);
            }
        } else {
            write_if_changed(&target, &std::fs::read_to_string(entry.path()).unwrap());
        }
    }
}

/// A workspace with copies of the three crates at `version`, their generated files made from
/// `spec`, and one library crate per program.
///
/// Old and new share one target dir so the crates.io dependencies build once. Cargo hashes a
/// path package by its path relative to the workspace root, so the two copies would collide
/// and a stale old build would pass for the new one; a different version keeps them apart.
fn workspace(dir: &Path, spec: &str, version: &str) {
    let root = workspace_root();
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    let shared = &manifest
        [manifest.find("[workspace.package]").unwrap()..manifest.find("\n[package]").unwrap()];
    // The workspace's own crates, whatever their versions, at `version` beside the copies.
    let shared: String = shared
        .lines()
        .map(|line| match line.split_once(" = ") {
            Some((name @ ("courier-models" | "courier-client"), _)) => {
                let dir = name.trim_start_matches("courier-");
                format!("{name} = {{ path = \"{dir}\", version = \"{version}\" }}\n")
            }
            // courier-client's optional validator: its manifest must load, nothing builds it.
            Some(("courier-verify", _)) => format!(
                "courier-verify = {{ path = \"verify\", version = \"{version}\", default-features = false }}\n"
            ),
            _ => format!("{line}\n"),
        })
        .collect();
    let members: Vec<String> = ["models", "client", "server"]
        .iter()
        .map(|m| format!("\"{m}\""))
        .chain(PROGRAMS.iter().map(|p| format!("\"programs/{}\"", p.name)))
        .collect();
    write_if_changed(
        &dir.join("Cargo.toml"),
        &format!(
            "[workspace]\nresolver = \"3\"\nmembers = [{}]\n\n{shared}",
            members.join(", ")
        ),
    );
    let lock = std::fs::read_to_string(root.join("Cargo.lock")).unwrap();
    if !dir.join("Cargo.lock").exists() {
        write_if_changed(&dir.join("Cargo.lock"), &lock);
    }
    for krate in ["models", "client", "server", "verify"] {
        copy_tree(&root.join("crates").join(krate), &dir.join(krate));
        let manifest_path = dir.join(krate).join("Cargo.toml");
        let mut manifest = std::fs::read_to_string(&manifest_path).unwrap();
        if krate == "verify" {
            // Its tests run the service, which is not copied; the copy is only a dependency.
            let start = manifest.find("[dev-dependencies]").unwrap();
            let end = manifest[start + 1..]
                .find("\n[")
                .map_or(manifest.len(), |at| start + 1 + at);
            manifest.replace_range(start..end, "");
        }
        let package_version = manifest
            .lines()
            .find(|line| line.starts_with("version = "))
            .unwrap()
            .to_owned();
        write_if_changed(
            &manifest_path,
            &manifest.replacen(&package_version, &format!("version = \"{version}\""), 1),
        );
    }
    for file in xtask::generate(spec).expect("the edited spec generates") {
        // Only the three crates copied above are built here; the JSON form of the spec and
        // the verifier's contract are other outputs.
        let Some(relative) = file.path.strip_prefix("crates/") else {
            continue;
        };
        if relative.starts_with("verify/") {
            continue;
        }
        write_if_changed(&dir.join(relative), &file.contents);
    }
    for program in PROGRAMS {
        let deps: String = program
            .uses
            .iter()
            .map(|krate| {
                let dir = krate.trim_start_matches("courier-");
                format!("{krate} = {{ path = \"../../{dir}\" }}\n")
            })
            .collect();
        let crate_dir = dir.join("programs").join(program.name);
        write_if_changed(
            &crate_dir.join("Cargo.toml"),
            &format!(
                "[package]\nname = \"{}\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n[dependencies]\n{deps}",
                program.name
            ),
        );
        write_if_changed(
            &crate_dir.join("src/lib.rs"),
            &format!("//! {}\n{}\n", program.proves, program.source),
        );
    }
}

/// The programs that do not compile in the workspace at `dir`.
fn failing_programs(dir: &Path) -> Vec<String> {
    let mut command = Command::new(env!("CARGO"));
    command
        .current_dir(dir)
        .args([
            "check",
            "--offline",
            "--keep-going",
            "--message-format",
            "short",
        ])
        .env(
            "CARGO_TARGET_DIR",
            workspace_root().join("target/spec-diff-compile"),
        )
        // The outer `cargo test`'s flags are not the programs' business.
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_BUILD_RUSTFLAGS");
    for program in PROGRAMS {
        command.args(["-p", program.name]);
    }
    let output = command.output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        !stderr.contains("could not compile `courier-"),
        "the generated crates themselves must compile:\n{stderr}"
    );
    let failing: Vec<String> = PROGRAMS
        .iter()
        .filter(|p| stderr.contains(&format!("could not compile `{}`", p.name)))
        .map(|p| p.name.to_owned())
        .collect();
    assert_eq!(
        output.status.success(),
        failing.is_empty(),
        "cargo check failed for another reason:\n{stderr}"
    );
    failing
}

#[test]
fn user_programs_compile_or_not_as_their_class_says() {
    let base = workspace_root().join("target/spec-diff-compile");
    let old_dir = base.join("old");
    let new_dir = base.join("new");
    workspace(&old_dir, &spec_text(), "0.1.0");
    workspace(&new_dir, &edited_spec(&EDITS), "0.1.99");
    for (dir, old) in [(&old_dir, true), (&new_dir, false)] {
        let failing = failing_programs(dir);
        let expected: Vec<String> = PROGRAMS
            .iter()
            .filter(|p| !(if old { p.old } else { p.new }))
            .map(|p| p.name.to_owned())
            .collect();
        assert_eq!(
            failing,
            expected,
            "against the {} crates",
            if old { "old" } else { "new" }
        );
    }
}

/// The classes these programs prove are the ones spec-diff gives for the same edits.
#[test]
fn the_programs_prove_what_spec_diff_says() {
    let old = spec_text();
    let class = |edit: &str, krate: &str| {
        let report = xtask::spec_diff::diff_texts(&old, &edited_spec(&[edit])).unwrap();
        xtask::spec_diff::report::to_json(&report)["crates"][krate].clone()
    };
    assert_eq!(
        class("response-field-removed", "courier-models"),
        json!("breaking")
    );
    assert_eq!(
        class("response-field-removed", "courier-client"),
        json!("breaking")
    );
    assert_eq!(
        class("response-field-removed", "courier-server"),
        json!("breaking")
    );
    assert_eq!(
        class("query-parameter-added-optional", "courier-client"),
        json!("additive")
    );
    assert_eq!(
        class("query-parameter-added-optional", "courier-server"),
        json!("additive")
    );
    assert_eq!(
        class("enum-value-added", "courier-models"),
        json!("breaking")
    );
    assert_eq!(
        class("operation-added", "courier-server"),
        json!("breaking")
    );
    assert_eq!(
        class("operation-added", "courier-client"),
        json!("additive")
    );
    assert_eq!(
        class("maximum-tightened", "courier-client"),
        json!("breaking")
    );
}

/// `none` for the models is stronger than "compiles": the generated models are the same code,
/// only the header's spec checksum differs.
#[test]
fn none_for_the_models_means_the_same_generated_models() {
    let models = |spec: &str| {
        let files = xtask::generate(spec).unwrap();
        let file = files
            .into_iter()
            .find(|f| f.path == "crates/models/src/generated.rs")
            .unwrap();
        file.contents
            .lines()
            .filter(|line| !line.contains("sha256"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let old = models(&spec_text());
    for edit in [
        "query-parameter-added-optional",
        "maximum-tightened",
        "operation-added",
    ] {
        let report = xtask::spec_diff::diff_texts(&spec_text(), &edited_spec(&[edit])).unwrap();
        assert_eq!(
            report.crates().models,
            xtask::spec_diff::Class::None,
            "{edit}"
        );
        assert!(
            old == models(&edited_spec(&[edit])),
            "{edit} changes the models"
        );
    }
    assert!(old != models(&edited_spec(&["response-field-removed"])));
}
