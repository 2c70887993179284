//! `cargo xtask codegen [--check]`: regenerates (or checks) every generated file from the spec;
//! `cargo xtask spec-diff` and `version-check`: see `xtask::spec_diff`; `cargo xtask operations`
//! lists the spec's operations for scripts (`METHOD /path operationId`, one a line).

use std::process::ExitCode;
use xtask::{REGENERATE, SPEC_PATH, generate, stale_files, workspace_root, write_files};

const USAGE: &str = "usage: cargo xtask codegen [--check]\n\n\
    codegen          regenerate every generated file from spec/openapi.yaml\n\
    codegen --check  write nothing; fail naming each generated file that is stale\n\
    operations       list the spec's operations: `METHOD /path operationId`, one a line";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("spec-diff") => return xtask::spec_diff::cli::spec_diff(&args[1..]),
        Some("version-check") => return xtask::spec_diff::cli::version_check(&args[1..]),
        Some("operations") if args.len() == 1 => return print_operations(),
        _ => {}
    }
    let check = match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["codegen"] => false,
        ["codegen", "--check"] => true,
        _ => {
            eprintln!("{USAGE}\n\n{}", xtask::spec_diff::cli::USAGE);
            return ExitCode::from(2);
        }
    };
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
