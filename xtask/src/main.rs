//! `cargo xtask codegen [--check]`: regenerates (or checks) every generated file from the spec;
//! `cargo xtask spec-diff` and `version-check`: see `xtask::spec_diff`; `cargo xtask operations`
//! lists the spec's operations for scripts (`METHOD /path operationId`, one a line).

use clap::{Parser, Subcommand};
use std::process::ExitCode;
use xtask::spec_diff::cli::Format;
use xtask::{REGENERATE, SPEC_PATH, generate, stale_files, workspace_root, write_files};

/// courier's code generator and spec tools.
#[derive(Parser)]
#[command(name = "cargo xtask", bin_name = "cargo xtask")]
struct Cli {
    #[command(subcommand)]
    command: Task,
}

#[derive(Subcommand)]
enum Task {
    /// Regenerate every generated file from spec/openapi.yaml.
    Codegen {
        /// Write nothing; fail naming each generated file that is stale.
        #[arg(long)]
        check: bool,
    },
    /// Classify every change of spec/openapi.yaml since REV for each crate's users.
    SpecDiff {
        /// The revision to compare with; by default the merge base with main, on main the
        /// last tag, else HEAD~1.
        #[arg(long, value_name = "REV")]
        base: Option<String>,
        /// How the report is printed.
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
    },
    /// Fail when a crate classified breaking or additive since its last release kept its
    /// version. A release is the tag `<crate>-v<version>`; without tags, the commit that set
    /// the crate's version.
    VersionCheck {
        /// Compare every crate with this revision instead of its last release.
        #[arg(long, value_name = "REV")]
        base: Option<String>,
    },
    /// Tag each crate's current version (`<crate>-v<version>`) on the commit that set it.
    ReleaseTags,
    /// List the spec's operations for scripts: `METHOD /path operationId`, one a line.
    Operations,
}

fn main() -> ExitCode {
    match Cli::parse().command {
        Task::Codegen { check } => codegen(check),
        Task::SpecDiff { base, format } => xtask::spec_diff::cli::spec_diff(base, format),
        Task::VersionCheck { base } => xtask::spec_diff::cli::version_check(base),
        Task::ReleaseTags => xtask::spec_diff::cli::release_tags(),
        Task::Operations => print_operations(),
    }
}

/// `cargo xtask codegen [--check]`.
fn codegen(check: bool) -> ExitCode {
    let root = workspace_root();
    let spec_text = match std::fs::read_to_string(root.join(SPEC_PATH)) {
        Ok(text) => text,
        Err(e) => {
            eprintln!("error: cannot read {SPEC_PATH}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let files = match generate(&spec_text) {
        Ok(files) => files,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    if check {
        let stale = stale_files(root, &files);
        if stale.is_empty() {
            println!(
                "codegen: {} generated files are up to date with {SPEC_PATH}",
                files.len()
            );
            return ExitCode::SUCCESS;
        }
        for file in &stale {
            let what = if file.missing { "missing" } else { "stale" };
            eprintln!("{what}: {}", file.path);
        }
        eprintln!(
            "error: {} generated file(s) do not match {SPEC_PATH}; run `{REGENERATE}`",
            stale.len()
        );
        return ExitCode::FAILURE;
    }
    match write_files(root, &files) {
        Ok(changed) => {
            for path in &changed {
                println!("wrote {path}");
            }
            println!(
                "codegen: {} files from {SPEC_PATH}, {} changed",
                files.len(),
                changed.len()
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: writing generated files: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The operations as the one spec reader sees them, so scripts need no reader of their own.
fn print_operations() -> ExitCode {
    let spec = match courier_spec::Spec::load(&workspace_root().join(SPEC_PATH)) {
        Ok(spec) => spec,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    for op in spec.operations() {
        match op {
            Ok(op) => println!("{} {} {}", op.method.to_uppercase(), op.path, op.id()),
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    ExitCode::SUCCESS
}
