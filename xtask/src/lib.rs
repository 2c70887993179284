//! courier's code generator as a library: spec text in, the generated files of every crate out.
//!
//! `cargo xtask codegen` writes what [`generate`] returns; `--check` compares it with the files
//! on disk. Keeping generation a pure function of the spec text makes it testable (determinism,
//! staleness, lint) without touching the workspace.

mod contract;
mod facts;
pub mod lint;
mod models;
mod operations;
mod postprocess;
mod progenitor_gen;
mod render;
mod server;
pub mod spec_diff;

use sha2::{Digest, Sha256};
use std::path::Path;

/// Where the spec lives, relative to the workspace root.
pub const SPEC_PATH: &str = "spec/openapi.yaml";
/// The spec as JSON, written by codegen beside the YAML for tools that read no YAML.
pub const JSON_SPEC_PATH: &str = "spec/openapi.json";
/// The command that regenerates every generated file; named in each file's header.
pub const REGENERATE: &str = "cargo xtask codegen";

/// One generated file: its path relative to the workspace root and its full contents.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GeneratedFile {
    pub path: &'static str,
    pub contents: String,
}

/// Why generation could not run. Never a panic: every failure is reported through this.
#[derive(Debug, thiserror::Error)]
pub enum CodegenError {
    /// The spec is not valid YAML or not an OpenAPI 3.0 document.
    #[error("{SPEC_PATH} could not be read: {0}")]
    Parse(String),
    /// The spec breaks rules the generators rely on.
    #[error("{SPEC_PATH} breaks {} codegen rule(s):\n{}", .0.len(), lint_report(.0))]
    Lint(Vec<lint::LintError>),
    /// A generator failed (or panicked) on a spec that passed the lint.
    #[error("code generation failed: {0}")]
    Generator(String),
}

/// One indented line per broken rule, each ending in a newline (as the report always read).
fn lint_report(errors: &[lint::LintError]) -> String {
    errors.iter().map(|error| format!("  {error}\n")).collect()
}

/// The spec, read once through `courier-spec`, linted, with the hash of its text that every
/// generated file names.
pub struct Spec {
    pub doc: courier_spec::Spec,
    pub sha256: String,
}

impl Spec {
    pub fn parse(text: &str) -> Result<Spec, CodegenError> {
        let doc =
            courier_spec::Spec::parse(text).map_err(|e| CodegenError::Parse(e.to_string()))?;
        let errors = lint::lint(&doc);
        if !errors.is_empty() {
            return Err(CodegenError::Lint(errors));
        }
        let sha256 = Sha256::digest(text.as_bytes())
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        Ok(Spec { doc, sha256 })
    }

    /// The typed document the generators read.
    pub fn openapi(&self) -> &courier_spec::openapiv3::OpenAPI {
        self.doc.openapi()
    }
}

thread_local! {
    /// Whether this thread is inside [`quietly`], whose panics are reported as errors.
    static QUIET: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `work`, catching a panic without printing it. The process-wide panic hook is wrapped
/// once, and only silences panics of threads inside `quietly`: swapping the hook for each call
/// would also swallow the messages of panics in other threads at the same time (test threads).
fn quietly<T>(work: impl FnOnce() -> T) -> std::thread::Result<T> {
    static WRAP_HOOK: std::sync::Once = std::sync::Once::new();
    WRAP_HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !QUIET.with(std::cell::Cell::get) {
                previous(info);
            }
        }));
    });
    QUIET.with(|quiet| quiet.set(true));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(work));
    QUIET.with(|quiet| quiet.set(false));
    result
}

/// Generates every file from the spec text.
pub fn generate(spec_text: &str) -> Result<Vec<GeneratedFile>, CodegenError> {
    let spec = Spec::parse(spec_text)?;
    // progenitor and typify assert on specs they cannot handle; the lint catches the known cases,
    // and this turns any other into a report instead of a panic.
    let result = quietly(|| generate_parsed(&spec, spec_text));
    match result {
        Ok(files) => files,
        Err(panic) => {
            let message = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "a generator panicked".to_owned());
            Err(CodegenError::Generator(message))
        }
    }
}

fn generate_parsed(spec: &Spec, spec_text: &str) -> Result<Vec<GeneratedFile>, CodegenError> {
    let models = models::generate(spec)?;
    let json =
        courier_spec::json_text(spec_text).map_err(|e| CodegenError::Generator(e.to_string()))?;
    let mut files = vec![
        GeneratedFile {
            path: JSON_SPEC_PATH,
            contents: json,
        },
        GeneratedFile {
            path: "crates/verify/src/generated/contract.json",
            contents: contract::generate(spec)?,
        },
    ];
    files.push(GeneratedFile {
        path: "crates/models/src/generated.rs",
        contents: render::file(
            spec,
            "courier-models: serde types for every schema",
            models.tokens,
        )?,
    });
    files.push(GeneratedFile {
        path: "crates/models/src/facts.rs",
        contents: render::file(
            spec,
            "courier-models: the spec's parameter groups and table of operations",
            facts::models(spec, &models.type_names)?,
        )?,
    });
    for interface in &progenitor_gen::INTERFACES {
        let tokens = progenitor_gen::client(spec, interface, &models.type_names)?;
        let tokens = postprocess::client_send_returns_courier_error(tokens)?;
        let tokens = postprocess::multi_value_setters_take_one_or_many(tokens)?;
        let mut tokens = postprocess::client_decodes_through_hooks(tokens)?;
        tokens.extend(facts::client_group_setters(
            spec,
            &models.type_names,
            interface.tag,
        )?);
        files.push(GeneratedFile {
            path: interface.client_path,
            contents: render::file(spec, interface.client_title, tokens)?,
        });
    }
    let server = server::generate(spec, &models.type_names)?;
    files.push(GeneratedFile {
        path: "crates/server/src/generated.rs",
        contents: render::file(
            spec,
            "courier-server: request types, response enums, traits and routers",
            server,
        )?,
    });
    Ok(files)
}

/// A generated file whose contents on disk differ from what the spec produces.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StaleFile {
    pub path: &'static str,
    pub missing: bool,
}

/// Compares the generated files with the workspace at `root`; writes nothing.
pub fn stale_files(root: &Path, files: &[GeneratedFile]) -> Vec<StaleFile> {
    files
        .iter()
        .filter_map(|file| match std::fs::read_to_string(root.join(file.path)) {
            Ok(on_disk) if on_disk == file.contents => None,
            Ok(_) => Some(StaleFile {
                path: file.path,
                missing: false,
            }),
            Err(_) => Some(StaleFile {
                path: file.path,
                missing: true,
            }),
        })
        .collect()
}

/// Writes the generated files under `root`, returning the paths that changed.
pub fn write_files(root: &Path, files: &[GeneratedFile]) -> std::io::Result<Vec<&'static str>> {
    let mut changed = Vec::new();
    for StaleFile { path, .. } in stale_files(root, files) {
        let file = files
            .iter()
            .find(|f| f.path == path)
            .expect("stale file comes from the list");
        let target = root.join(path);
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(target, &file.contents)?;
        changed.push(path);
    }
    Ok(changed)
}

/// The workspace root: the parent of this crate's directory, or `COURIER_XTASK_ROOT` when set
/// (`scripts/spec-drill.sh` runs the tree's own build of xtask on copies of the tree, so that
/// the copies need no xtask build of their own).
pub fn workspace_root() -> &'static Path {
    static ROOT: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();
    ROOT.get_or_init(|| match std::env::var_os("COURIER_XTASK_ROOT") {
        Some(root) if !root.is_empty() => root.into(),
        _ => Path::new(env!("CARGO_MANIFEST_DIR"))
            .parent()
            .expect("xtask lives inside the workspace")
            .to_owned(),
    })
}
