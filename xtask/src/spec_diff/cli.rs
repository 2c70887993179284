//! The command lines: `cargo xtask spec-diff [--base REV] [--format text|json|changelog]`,
//! `cargo xtask version-check [--base REV]` (CI: the versions follow the spec) and
//! `cargo xtask release-tags`.

use super::CRATES;
use super::versions::{self, Base, CRATE_DIRS};
use super::{DiffError, Report, report};
use crate::SPEC_PATH;
use std::path::Path;
use std::process::ExitCode;

/// How `spec-diff` prints its report.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// One line per change, grouped by class.
    Text,
    /// The report as JSON.
    Json,
    /// CHANGELOG entries for each crate.
    Changelog,
}

/// The base asked for or the default; `Ok(None)` on a first commit.
fn base(root: &Path, asked: Option<String>) -> Option<Base> {
    match asked {
        Some(rev) => Some(Base {
            why: "--base".into(),
            rev,
        }),
        None => versions::default_base(root),
    }
}

/// The report of the working tree's spec against the spec at `base`. A base without the spec
/// (before it existed) compares with an empty document: everything is new.
fn report_since(root: &Path, base: &Base) -> Result<Report, DiffError> {
    let old = match versions::file_at(root, &base.rev, SPEC_PATH) {
        Some(text) => super::parse_spec(&text)?,
        None => super::empty_spec(),
    };
    let new = std::fs::read_to_string(root.join(SPEC_PATH))
        .map_err(|e| DiffError(format!("cannot read {SPEC_PATH}: {e}")))?;
    super::diff(&old, &super::parse_spec(&new)?)
}

fn check_rev(root: &Path, base: &Base) -> Result<(), DiffError> {
    versions::file_at(root, &base.rev, "Cargo.toml")
        .map(|_| ())
        .ok_or_else(|| DiffError(format!("{} is not a revision of this repository", base.rev)))
}

/// `cargo xtask spec-diff`: the report of the spec since `base` (or the default base).
pub fn spec_diff(base: Option<String>, format: Format) -> ExitCode {
    let root = crate::workspace_root();
    let Some(base) = self::base(root, base) else {
        eprintln!("spec-diff: no base revision (first commit); nothing to compare");
        return ExitCode::SUCCESS;
    };
    let result = check_rev(root, &base).and_then(|()| report_since(root, &base));
    let report = match result {
        Ok(report) => report,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    eprintln!("spec-diff: {SPEC_PATH} against {} ({})", base.rev, base.why);
    match format {
        Format::Json => println!(
            "{}",
            serde_json::to_string_pretty(&report::to_json(&report)).expect("JSON values print")
        ),
        Format::Changelog => print!("{}", versions::changelog(&report)),
        Format::Text => print!("{}", report::to_text(&report)),
    }
    ExitCode::SUCCESS
}

/// `cargo xtask version-check`: every crate's version follows the spec since its last release
/// (see [`versions`]), or since `base` for all of them when one is given.
pub fn version_check(base: Option<String>) -> ExitCode {
    let root = crate::workspace_root();
    let mut failed = false;
    for (index, (krate, dir)) in CRATES.iter().zip(CRATE_DIRS).enumerate() {
        let crate_base = match &base {
            Some(rev) => Some(Base {
                rev: rev.clone(),
                why: "--base".into(),
            }),
            None => versions::last_release(root, krate, dir),
        };
        let Some(crate_base) = crate_base else {
            println!(
                "version-check: {krate} has never been released (no release tag, and it was created at its current version): nothing to compare"
            );
            continue;
        };
        match check_one(root, index, &crate_base) {
            Ok((report, problem)) => {
                println!(
                    "version-check: {krate} against {} ({})",
                    crate_base.rev, crate_base.why
                );
                print!("{}", report::to_text(&report));
                if let Some(problem) = problem {
                    eprintln!("error: {}", problem.message);
                    failed = true;
                }
            }
            Err(e) => {
                eprintln!("error: {krate}: {e}");
                failed = true;
            }
        }
    }
    if failed {
        return ExitCode::FAILURE;
    }
    println!("version-check: every crate's version follows the spec");
    ExitCode::SUCCESS
}

/// The report of the spec since `base` and the problem of crate `index`'s version, if any.
fn check_one(
    root: &Path,
    index: usize,
    base: &Base,
) -> Result<(Report, Option<versions::VersionProblem>), DiffError> {
    check_rev(root, base)?;
    let report = report_since(root, base)?;
    let dir = CRATE_DIRS[index];
    let read = |file: &str| std::fs::read_to_string(root.join(dir).join(file)).unwrap_or_default();
    let manifest_now = read("Cargo.toml");
    // A crate that did not exist at the base starts from its own version.
    let manifest_then = versions::file_at(root, &base.rev, &format!("{dir}/Cargo.toml"))
        .unwrap_or_else(|| manifest_now.clone());
    let files = versions::CrateFiles {
        manifest_then,
        manifest_now,
        changelog: read("CHANGELOG.md"),
    };
    let problem = versions::check_crate(&report, index, &files)?;
    Ok((report, problem))
}

/// `cargo xtask release-tags`: tags each crate's current version where it was set.
pub fn release_tags() -> ExitCode {
    match versions::create_release_tags(crate::workspace_root()) {
        Ok(created) if created.is_empty() => {
            println!("release-tags: every crate's current version is tagged");
            ExitCode::SUCCESS
        }
        Ok(created) => {
            for tag in created {
                println!("tagged {tag}");
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
