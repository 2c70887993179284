//! Versions follow the spec: the base to compare with, and whether each crate's version (and
//! CHANGELOG) moved as far as its class asks (0.x: breaking bumps the minor, additive the patch;
//! from 1.0: the major and the minor).

use super::{CRATES, Class, DiffError, Report};
use semver::Version;
use std::path::Path;
use std::process::Command;

fn git(root: &Path, args: &[&str]) -> Option<String> {
    let output = Command::new("git")
        .arg("-C")
        .arg(root)
        .args(args)
        .output()
        .ok()?;
    output
        .status
        .success()
        .then(|| String::from_utf8_lossy(&output.stdout).trim().to_owned())
}

/// Where a base came from, for the message that names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Base {
    pub rev: String,
    pub why: String,
}

/// The revision to compare the working tree with when none is given: the merge base with
/// `main` on a branch; on `main` itself (CI's clean clone has no other branch) the last tag
/// before `HEAD`, else the previous commit; `None` on the very first commit.
pub fn default_base(root: &Path) -> Option<Base> {
    let head = git(root, &["rev-parse", "HEAD"])?;
    for main in ["main", "origin/main"] {
        if let Some(merge_base) = git(root, &["merge-base", "HEAD", main])
            && merge_base != head
        {
            return Some(Base {
                rev: merge_base,
                why: format!("merge base of HEAD and {main}"),
            });
        }
    }
    if let Some(tag) = git(root, &["describe", "--tags", "--abbrev=0", "HEAD~1"]) {
        return Some(Base {
            why: format!("last tag {tag}"),
            rev: tag,
        });
    }
    git(root, &["rev-parse", "HEAD~1"]).map(|rev| Base {
        rev,
        why: "the previous commit (HEAD~1)".to_owned(),
    })
}

/// A file's text at `rev`, `None` when it did not exist there.
pub fn file_at(root: &Path, rev: &str, path: &str) -> Option<String> {
    let output = Command::new("git")
        .arg("-C")
        .arg(root)
        .args(["show", &format!("{rev}:{path}")])
        .output()
        .ok()?;
    output
        .status
        .success()
        .then(|| String::from_utf8_lossy(&output.stdout).into_owned())
}

/// The `version` of a manifest's `[package]` table (a line scan: the manifests this reads are
/// ours, with `version = "…"` on one line, and a TOML parser is not worth a dependency here).
pub fn package_version(manifest: &str) -> Result<Version, DiffError> {
    let mut in_package = false;
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            in_package = line == "[package]";
            continue;
        }
        if !in_package {
            continue;
        }
        if let Some(value) = line
            .strip_prefix("version")
            .map(str::trim_start)
            .and_then(|rest| rest.strip_prefix('='))
        {
            let text = value.trim().trim_matches('"');
            return Version::parse(text).map_err(|e| DiffError(format!("version {text}: {e}")));
        }
    }
    Err(DiffError("Cargo.toml has no package.version".into()))
}

/// The smallest version a crate at `old` must reach for a change of `class`.
pub fn required_version(old: &Version, class: Class) -> Option<Version> {
    let zero = old.major == 0;
    match class {
        Class::None => None,
        Class::Breaking if zero => Some(Version::new(0, old.minor + 1, 0)),
        Class::Breaking => Some(Version::new(old.major + 1, 0, 0)),
        Class::Additive if zero => Some(Version::new(0, old.minor, old.patch + 1)),
        Class::Additive => Some(Version::new(old.major, old.minor + 1, 0)),
    }
}

/// Where each crate lives, in the order of [`CRATES`].
pub const CRATE_DIRS: [&str; 4] = [
    "crates/models",
    "crates/client",
    "crates/server",
    "crates/verify",
];

/// One problem of a crate's version against its class.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VersionProblem {
    pub krate: &'static str,
    pub message: String,
}

/// Checks each crate: its version reached what its class asks, and a `## <version>` entry in its
/// CHANGELOG.md. `manifests` gives, per crate, the manifest at the base and now, and the
/// CHANGELOG now.
pub fn check(
    report: &Report,
    manifests: &[(String, String, String); 4],
) -> Result<Vec<VersionProblem>, DiffError> {
    let mut problems = Vec::new();
    for (index, (krate, class)) in report.crates().by_crate().into_iter().enumerate() {
        let (base, now, changelog) = &manifests[index];
        let (old, new) = (package_version(base)?, package_version(now)?);
        let Some(required) = required_version(&old, class) else {
            continue;
        };
        if new < required {
            problems.push(VersionProblem {
                krate: CRATES[index],
                message: format!(
                    "{krate} is {} for its users but its version is {new} (was {old}): bump it to at least {required}",
                    class.as_str()
                ),
            });
        } else if !changelog
            .lines()
            .any(|line| line.starts_with(&format!("## {new}")))
        {
            problems.push(VersionProblem {
                krate: CRATES[index],
                message: format!(
                    "{krate} {new}: {}/CHANGELOG.md has no `## {new}` entry (write it from `cargo xtask spec-diff --format changelog`)",
                    CRATE_DIRS[index]
                ),
            });
        }
    }
    Ok(problems)
}

/// Markdown bullets per crate for its CHANGELOG, from the changes that reach it.
pub fn changelog(report: &Report) -> String {
    let mut out = String::new();
    for (index, krate) in CRATES.iter().enumerate() {
        out.push_str(&format!("{krate} ({}/CHANGELOG.md):\n", CRATE_DIRS[index]));
        let mut any = false;
        for (title, class) in [("Breaking", Class::Breaking), ("Added", Class::Additive)] {
            let lines: Vec<String> = report
                .changes
                .iter()
                .filter(|c| c.impact.by_crate()[index].1 == class)
                .map(|c| format!("- {} (`{}`)", c.what, c.pointer))
                .collect();
            if !lines.is_empty() {
                any = true;
                out.push_str(&format!("### {title}\n{}\n", lines.join("\n")));
            }
        }
        if !any {
            out.push_str("(nothing for its users)\n");
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(text: &str) -> Version {
        Version::parse(text).unwrap()
    }

    #[test]
    fn zero_x_breaking_bumps_the_minor_and_additive_the_patch() {
        let cases = [
            ("0.1.3", Class::Breaking, Some("0.2.0")),
            ("0.1.3", Class::Additive, Some("0.1.4")),
            ("0.1.3", Class::None, None),
            ("1.4.2", Class::Breaking, Some("2.0.0")),
            ("1.4.2", Class::Additive, Some("1.5.0")),
        ];
        for (current, class, required) in cases {
            assert_eq!(
                required_version(&v(current), class),
                required.map(v),
                "{current} {class:?}"
            );
        }
    }

    fn report(models: Class, client: Class, server: Class) -> Report {
        Report {
            changes: vec![super::super::Change {
                pointer: "/x".into(),
                what: "x".into(),
                impact: super::super::Impact::new(models, client, server),
            }],
        }
    }

    fn manifest(version: &str) -> String {
        format!("[package]\nname = \"c\"\nversion = \"{version}\"\n")
    }

    #[test]
    fn a_breaking_change_without_a_minor_bump_fails_naming_the_crate() {
        let changelog = "## 0.1.1\n".to_owned();
        let same = (manifest("0.1.0"), manifest("0.1.0"), String::new());
        let patch = (manifest("0.1.0"), manifest("0.1.1"), changelog);
        let minor = (
            manifest("0.1.0"),
            manifest("0.2.0"),
            "## 0.2.0\n".to_owned(),
        );
        let problems = check(
            &report(Class::Breaking, Class::None, Class::None),
            &[patch.clone(), same.clone(), same.clone(), minor],
        )
        .unwrap();
        assert_eq!(problems.len(), 1);
        assert_eq!(problems[0].krate, "courier-models");
        assert!(
            problems[0].message.contains("at least 0.2.0"),
            "{}",
            problems[0].message
        );
        // The same patch bump is enough for an additive change, and nothing is asked of `none`.
        let problems = check(
            &report(Class::Additive, Class::None, Class::None),
            &[patch.clone(), same.clone(), same.clone(), patch],
        )
        .unwrap();
        assert!(problems.is_empty(), "{problems:?}");
    }

    #[test]
    fn the_verifier_follows_the_crate_a_change_reaches_hardest() {
        let same = (manifest("0.1.0"), manifest("0.1.0"), String::new());
        let problems = check(
            &report(Class::None, Class::Additive, Class::None),
            &[same.clone(), same.clone(), same.clone(), same.clone()],
        )
        .unwrap();
        let crates: Vec<&str> = problems.iter().map(|p| p.krate).collect();
        assert_eq!(crates, ["courier-client", "courier-verify"]);
    }

    #[test]
    fn a_bump_without_a_changelog_entry_fails() {
        let bumped = (
            manifest("0.1.0"),
            manifest("0.2.0"),
            "## 0.1.0\n".to_owned(),
        );
        let same = (manifest("0.1.0"), manifest("0.1.0"), String::new());
        let problems = check(
            &report(Class::None, Class::Breaking, Class::None),
            &[
                same.clone(),
                bumped,
                same,
                (
                    manifest("0.1.0"),
                    manifest("0.2.0"),
                    "## 0.2.0\n".to_owned(),
                ),
            ],
        )
        .unwrap();
        assert_eq!(problems.len(), 1);
        assert!(
            problems[0].message.contains("no `## 0.2.0` entry"),
            "{}",
            problems[0].message
        );
    }

    #[test]
    fn reads_the_package_version_not_a_dependency_version() {
        let manifest = "[package]\nname = \"x\"\nversion = \"0.3.1\"\n\n[dependencies]\nserde = { version = \"1\" }\n";
        assert_eq!(package_version(manifest).unwrap(), v("0.3.1"));
    }
}
