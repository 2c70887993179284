//! Versions follow the spec: the base to compare with, and whether each crate's version (and
//! CHANGELOG) moved as far as its class asks (0.x: breaking bumps the minor, additive the patch;
//! from 1.0: the major and the minor).
//!
//! A release of a crate is the tag `<crate>-v<version>` (e.g. `courier-models-v0.3.0`) on the
//! commit that set that version; `cargo xtask release-tags` creates the missing ones. Each crate
//! is checked against its last release: its newest tag reachable from `HEAD`, or, in a clone
//! without tags, the last commit that changed the `version` of its Cargo.toml (where the
//! current version was set), so that a clone without tags still checks every change since.

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

/// The tag of a crate's release.
pub fn release_tag(krate: &str, version: &Version) -> String {
    format!("{krate}-v{version}")
}

/// The last commit that changed the `version` line of `dir/Cargo.toml`: where the crate's
/// current version was set.
pub fn version_commit(root: &Path, dir: &str) -> Option<String> {
    let manifest = format!("{dir}/Cargo.toml");
    git(
        root,
        &[
            "log",
            "-1",
            "--format=%H",
            "-G",
            "^version = ",
            "--",
            &manifest,
        ],
    )
    .filter(|rev| !rev.is_empty())
}

/// The base a crate is checked against: its newest release tag reachable from `HEAD`; without
/// one, the last commit of its previous version (the parent of the commit that set the current
/// one), so every change made while the current version is unreleased is held to that one bump.
/// `None` when there is nothing to compare: the crate has never been committed, or it was
/// created at its current version and never released (it has no users a change could break).
pub fn last_release(root: &Path, krate: &str, dir: &str) -> Option<Base> {
    let pattern = format!("{krate}-v*");
    let tags = git(
        root,
        &[
            "tag",
            "--list",
            &pattern,
            "--merged",
            "HEAD",
            "--sort=-v:refname",
        ],
    )
    .unwrap_or_default();
    if let Some(tag) = tags.lines().next().filter(|tag| !tag.is_empty()) {
        return Some(Base {
            rev: tag.to_owned(),
            why: format!("last release tag {tag}"),
        });
    }
    let set = version_commit(root, dir)?;
    let previous = format!("{set}^");
    file_at(root, &previous, &format!("{dir}/Cargo.toml"))?;
    Some(Base {
        rev: git(root, &["rev-parse", &previous])?,
        why: format!(
            "no release tag: the last commit before {dir}/Cargo.toml got its current version"
        ),
    })
}

/// Tags each crate's current version on the commit that set it, unless the tag exists; returns
/// the tags created. Fails when a crate's version is not committed yet (tag after committing).
pub fn create_release_tags(root: &Path) -> Result<Vec<String>, DiffError> {
    let mut created = Vec::new();
    for (krate, dir) in CRATES.iter().zip(CRATE_DIRS) {
        let manifest = format!("{dir}/Cargo.toml");
        let now = std::fs::read_to_string(root.join(&manifest))
            .map_err(|e| DiffError(format!("cannot read {manifest}: {e}")))?;
        let version = package_version(&now)?;
        let tag = release_tag(krate, &version);
        if git(
            root,
            &[
                "rev-parse",
                "--verify",
                "--quiet",
                &format!("refs/tags/{tag}"),
            ],
        )
        .is_some()
        {
            continue;
        }
        let commit = version_commit(root, dir)
            .ok_or_else(|| DiffError(format!("{manifest} has no commit yet")))?;
        let committed = file_at(root, &commit, &manifest).unwrap_or_default();
        if package_version(&committed)? != version {
            return Err(DiffError(format!(
                "{krate} {version} is not committed yet ({manifest}); commit it, then tag"
            )));
        }
        git(root, &["tag", &tag, &commit])
            .ok_or_else(|| DiffError(format!("git tag {tag} {commit} failed")))?;
        created.push(tag);
    }
    Ok(created)
}

/// One problem of a crate's version against its class.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VersionProblem {
    pub krate: &'static str,
    pub message: String,
}

/// The manifest of a crate at its base and now, and its CHANGELOG now.
pub struct CrateFiles {
    pub manifest_then: String,
    pub manifest_now: String,
    pub changelog: String,
}

/// Checks crate `index` of [`CRATES`] against the report of the spec since its base: its version
/// reached what its class asks, and its CHANGELOG.md has a `## <version>` entry.
pub fn check_crate(
    report: &Report,
    index: usize,
    files: &CrateFiles,
) -> Result<Option<VersionProblem>, DiffError> {
    let (krate, class) = report.crates().by_crate()[index];
    let old = package_version(&files.manifest_then)?;
    let new = package_version(&files.manifest_now)?;
    let Some(required) = required_version(&old, class) else {
        return Ok(None);
    };
    let message = if new < required {
        format!(
            "{krate} is {} for its users but its version is {new} (was {old}): bump it to at least {required}",
            class.as_str()
        )
    } else if !files
        .changelog
        .lines()
        .any(|line| line.starts_with(&format!("## {new}")))
    {
        format!(
            "{krate} {new}: {}/CHANGELOG.md has no `## {new}` entry (write it from `cargo xtask spec-diff --format changelog`)",
            CRATE_DIRS[index]
        )
    } else {
        return Ok(None);
    };
    Ok(Some(VersionProblem {
        krate: CRATES[index],
        message,
    }))
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
    use super::{CrateFiles, Report, check_crate, package_version, required_version};
    use crate::spec_diff::{CRATES, Class};
    use semver::Version;

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

    fn files(then: &str, now: &str, changelog: &str) -> CrateFiles {
        CrateFiles {
            manifest_then: manifest(then),
            manifest_now: manifest(now),
            changelog: changelog.to_owned(),
        }
    }

    #[test]
    fn a_breaking_change_without_a_minor_bump_fails_naming_the_crate() {
        let patch = files("0.1.0", "0.1.1", "## 0.1.1\n");
        let breaking = report(Class::Breaking, Class::None, Class::None);
        let problem = check_crate(&breaking, 0, &patch)
            .unwrap()
            .expect("a problem");
        assert_eq!(problem.krate, "courier-models");
        assert!(
            problem.message.contains("at least 0.2.0"),
            "{}",
            problem.message
        );
        // The same patch bump is enough for an additive change, and nothing is asked of `none`.
        let additive = report(Class::Additive, Class::None, Class::None);
        assert!(check_crate(&additive, 0, &patch).unwrap().is_none());
        let same = files("0.1.0", "0.1.0", "");
        assert!(check_crate(&additive, 1, &same).unwrap().is_none());
    }

    #[test]
    fn the_verifier_follows_the_crate_a_change_reaches_hardest() {
        let same = files("0.1.0", "0.1.0", "");
        let additive_for_the_client = report(Class::None, Class::Additive, Class::None);
        let crates: Vec<&str> = (0..CRATES.len())
            .filter_map(|index| check_crate(&additive_for_the_client, index, &same).unwrap())
            .map(|problem| problem.krate)
            .collect();
        assert_eq!(crates, ["courier-client", "courier-verify"]);
    }

    #[test]
    fn a_bump_without_a_changelog_entry_fails() {
        let bumped = files("0.1.0", "0.2.0", "## 0.1.0\n");
        let breaking = report(Class::None, Class::Breaking, Class::None);
        let problem = check_crate(&breaking, 1, &bumped)
            .unwrap()
            .expect("a problem");
        assert_eq!(problem.krate, "courier-client");
        assert!(
            problem.message.contains("no `## 0.2.0` entry"),
            "{}",
            problem.message
        );
    }

    #[test]
    fn reads_the_package_version_not_a_dependency_version() {
        let manifest = "[package]\nname = \"x\"\nversion = \"0.3.1\"\n\n[dependencies]\nserde = { version = \"1\" }\n";
        assert_eq!(package_version(manifest).unwrap(), v("0.3.1"));
    }
}
