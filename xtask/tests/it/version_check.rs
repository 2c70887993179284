//! `cargo xtask version-check` in a real git history: the default base of spec-diff on a clean
//! clone of `main` (HEAD~1, none on the first commit), and each crate's last release: its
//! newest `<crate>-v<version>` tag, else the commit that set its version.

use crate::support;

use std::path::Path;
use std::process::Command;
use xtask::spec_diff::versions::{create_release_tags, default_base, last_release};

/// Runs git in `dir` and returns its stdout.
fn git(dir: &Path, args: &[&str]) -> String {
    support::run(
        Command::new("git")
            .current_dir(dir)
            .args([
                "-c",
                "user.name=test",
                "-c",
                "user.email=test@example.invalid",
            ])
            .args(args),
    )
}

#[test]
fn the_default_base_is_none_on_the_first_commit_then_the_previous_commit() {
    let dir = tempfile::tempdir().unwrap();
    git(dir.path(), &["init", "-q", "-b", "main"]);
    std::fs::write(dir.path().join("a"), "1").unwrap();
    git(dir.path(), &["add", "a"]);
    git(dir.path(), &["commit", "-qm", "first"]);
    assert_eq!(default_base(dir.path()), None);

    std::fs::write(dir.path().join("a"), "2").unwrap();
    git(dir.path(), &["commit", "-qam", "second"]);
    let base = default_base(dir.path()).unwrap();
    assert_eq!(base.why, "the previous commit (HEAD~1)");

    // On a branch: the merge base with main, however many commits the branch has.
    git(dir.path(), &["checkout", "-qb", "feature"]);
    std::fs::write(dir.path().join("a"), "3").unwrap();
    git(dir.path(), &["commit", "-qam", "third"]);
    std::fs::write(dir.path().join("a"), "4").unwrap();
    git(dir.path(), &["commit", "-qam", "fourth"]);
    let on_branch = default_base(dir.path()).unwrap();
    assert_eq!(on_branch.rev, base_of_main(dir.path()));
    assert_eq!(on_branch.why, "merge base of HEAD and main");

    // A release tag on main before HEAD wins over HEAD~1.
    git(dir.path(), &["checkout", "-q", "main"]);
    git(dir.path(), &["tag", "v0.1.0", "HEAD~1"]);
    std::fs::write(dir.path().join("a"), "5").unwrap();
    git(dir.path(), &["commit", "-qam", "fifth"]);
    assert_eq!(default_base(dir.path()).unwrap().rev, "v0.1.0");
}

fn base_of_main(dir: &Path) -> String {
    git(dir, &["rev-parse", "main"]).trim().to_owned()
}

/// Writes the three published crates' manifests at `versions` (models, client, server).
/// The manifests of models, client and server at `versions`, and courier-verify at 0.1.0.
fn write_manifests(dir: &Path, [models, client, server]: [&str; 3]) {
    let crates = [
        ("models", models),
        ("client", client),
        ("server", server),
        ("verify", "0.1.0"),
    ];
    for (name, version) in crates {
        let crate_dir = dir.join("crates").join(name);
        std::fs::create_dir_all(&crate_dir).unwrap();
        std::fs::write(
            crate_dir.join("Cargo.toml"),
            format!("[package]\nname = \"courier-{name}\"\nversion = \"{version}\"\n"),
        )
        .unwrap();
    }
}

fn rev(dir: &Path, rev: &str) -> String {
    git(dir, &["rev-parse", rev]).trim().to_owned()
}

#[test]
fn each_crate_is_checked_against_its_last_release_tag_else_the_commit_before_its_version() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    git(dir, &["init", "-q", "-b", "main"]);
    write_manifests(dir, ["0.1.0", "0.1.0", "0.1.0"]);
    git(dir, &["add", "."]);
    git(dir, &["commit", "-qm", "first release"]);
    let first = rev(dir, "HEAD");
    // Created at its version and never tagged: never released, so nothing to compare.
    assert_eq!(last_release(dir, "courier-models", "crates/models"), None);
    // A bump, then two commits that leave the versions alone: without tags the base is the last
    // commit of the previous version, not HEAD~1, so every change since the bump is checked.
    write_manifests(dir, ["0.2.0", "0.1.0", "0.1.0"]);
    git(dir, &["commit", "-qam", "models 0.2.0, unreleased"]);
    for n in 0..2 {
        std::fs::write(dir.join("spec.yaml"), format!("change {n}")).unwrap();
        git(dir, &["add", "."]);
        git(dir, &["commit", "-qm", "a change"]);
    }
    let untagged = last_release(dir, "courier-models", "crates/models").unwrap();
    assert_eq!(untagged.rev, first);
    assert!(untagged.why.contains("no release tag"), "{}", untagged.why);
    write_manifests(dir, ["0.1.0", "0.1.0", "0.1.0"]);
    git(dir, &["commit", "-qam", "back to the released versions"]);

    // release-tags tags each current version where it was set.
    let created = create_release_tags(dir).unwrap();
    assert_eq!(
        created,
        [
            "courier-models-v0.1.0",
            "courier-client-v0.1.0",
            "courier-server-v0.1.0",
            "courier-verify-v0.1.0"
        ]
    );
    assert_eq!(rev(dir, "courier-client-v0.1.0^{commit}"), first);
    let tagged = last_release(dir, "courier-client", "crates/client").unwrap();
    assert_eq!(tagged.rev, "courier-client-v0.1.0");
    assert!(
        create_release_tags(dir).unwrap().is_empty(),
        "nothing left to tag"
    );

    // A bump of one crate: until it is tagged, its last release is still the old tag.
    write_manifests(dir, ["0.2.0", "0.1.0", "0.1.0"]);
    git(dir, &["commit", "-qam", "models 0.2.0"]);
    let bump = rev(dir, "HEAD");
    assert_eq!(
        last_release(dir, "courier-models", "crates/models")
            .unwrap()
            .rev,
        "courier-models-v0.1.0"
    );
    assert_eq!(create_release_tags(dir).unwrap(), ["courier-models-v0.2.0"]);
    assert_eq!(rev(dir, "courier-models-v0.2.0^{commit}"), bump);
    // The newest tag wins, by version, not by name.
    assert_eq!(
        last_release(dir, "courier-models", "crates/models")
            .unwrap()
            .rev,
        "courier-models-v0.2.0"
    );

    // A version not committed yet is not tagged.
    write_manifests(dir, ["0.2.0", "0.2.0", "0.1.0"]);
    let refused = create_release_tags(dir).unwrap_err().to_string();
    assert!(refused.contains("not committed yet"), "{refused}");
}
